//! Sluiceway's own identity, in one place: the repository its releases come from and the
//! tag a workflow pins. `init` writes the `uses:` line from it, the dashboard's footer
//! links to it, and the header pictures are served from its release tag, so a team that
//! follows `init` runs this implementation and sees this version's pictures.

/// The repository, on github.com, that publishes the action and its releases.
pub const REPOSITORY: &str = "sluiceway/sluiceway-rs";

/// The major tag a workflow pins (`uses: <repository>@v0`).
pub const MAJOR_TAG: &str = "v0";

/// The `uses:` value of a workflow step that runs the action.
pub fn action() -> String {
    format!("{REPOSITORY}@{MAJOR_TAG}")
}

/// The project's page.
pub fn project_url() -> String {
    format!("https://github.com/{REPOSITORY}")
}

/// The base address of the header pictures at a release's tag (`version` without `v`).
pub fn pictures(version: &str) -> String {
    format!("https://raw.githubusercontent.com/{REPOSITORY}/v{version}/assets/header")
}

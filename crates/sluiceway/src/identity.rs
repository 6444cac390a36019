//! Sluiceway's own identity: the one place that names where its release lives. The
//! dashboard's header pictures are served from the release's tag, so a body written by
//! this version always shows this version's pictures.

/// This build's version; the release tag is `v` and this.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The repository Sluiceway's releases come from, on github.com.
pub const REPOSITORY: &str = "sluiceway/sluiceway-rs";

/// The base address of the header pictures at this release's tag.
pub fn pictures() -> String {
    format!("https://raw.githubusercontent.com/{REPOSITORY}/v{VERSION}/assets/header")
}

//! CDK for Terraform in front of the tool (decision 0068): an app's stacks live in code,
//! `cdktf synth` writes each one as a root module of JSON under `cdktf.out/stacks/<name>`,
//! and from there on the stack is an ordinary root module. Synth runs the app's own
//! program, so it is a preparation: once per app, one at a time, within the preview limit.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::opentofu::Run;
use crate::tool_log::ToolLog;
use crate::tool_run::{Context, VersionError, accept, minutes, version_of};
use crate::version::Version;

/// Where synth writes, relative to the app's directory.
pub const OUTPUT_DIR: &str = "cdktf.out";
/// The only CDKTF release our recordings prove, and its last: HashiCorp archived the
/// project in December 2025.
pub const FLOOR: Version = Version {
    major: 0,
    minor: 21,
    patch: 0,
};

/// The root module synth writes for the app's stack `name`.
pub fn stack_dir(app: &Path, name: &str) -> PathBuf {
    app.join(OUTPUT_DIR).join("stacks").join(name)
}

/// `cdktf synth --output cdktf.out` in the app's directory. The app's program prints what
/// it likes; it goes to the job log as the tool's words.
pub fn synth(app: &Path, ctx: &Context<'_>) -> Run {
    let mut log = ToolLog::default();
    let argv = ["cdktf", "synth", "--output", OUTPUT_DIR]
        .map(str::to_owned)
        .to_vec();
    let outcome = ctx.invoke(argv, app, &[], Some(ctx.time_limit));
    if let sluiceway_core::runner::Outcome::Exited { stdout, .. } = &outcome {
        log.push_output(stdout);
    }
    let result = accept(outcome, &[0], minutes(ctx.time_limit), &mut log).map(|_| ());
    Run { result, log }
}

/// `cdktf --version`, which prints the bare version.
pub fn check_version(ctx: &Context<'_>, repo_root: &Path) -> Result<Version, VersionError> {
    let argv = vec!["cdktf".to_owned(), "--version".to_owned()];
    let outcome = ctx.invoke(argv, repo_root, &[], Some(Duration::from_secs(60)));
    version_of(outcome, "cdktf", FLOOR, |out| {
        out.lines().map(str::trim).find_map(Version::parse)
    })
}

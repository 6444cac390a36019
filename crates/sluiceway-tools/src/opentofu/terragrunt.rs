//! Terragrunt in front of the tool (decision 0068): a unit is a stack, and every tool
//! command reaches the tool through `terragrunt run`, in the unit's directory, with the
//! tool named so that no `TG_TF_PATH` of the job picks another. Never `run --all`: one
//! unit, one stack, one plan.

use std::path::Path;
use std::time::Duration;

use crate::opentofu::Binary;
use crate::tool_run::{Context, VersionError, version_of};
use crate::version::Version;

/// The oldest Terragrunt the shared recordings prove.
pub const FLOOR: Version = Version {
    major: 1,
    minor: 0,
    patch: 0,
};

/// The tool command `args` of `binary`, as Terragrunt runs it: the tool's output passed
/// through untouched, no colour, no init of its own (init is the unit's preparation).
pub fn command(binary: Binary, args: &[&str]) -> Vec<String> {
    [
        "terragrunt",
        "run",
        "--tf-forward-stdout",
        "--no-color",
        "--no-auto-init",
        "--tf-path",
        binary.name(),
        "--",
    ]
    .iter()
    .chain(args)
    .map(|a| (*a).to_owned())
    .collect()
}

/// `terragrunt --version`, which says `terragrunt version v1.0.0`.
pub fn check_version(ctx: &Context<'_>, repo_root: &Path) -> Result<Version, VersionError> {
    let argv = vec!["terragrunt".to_owned(), "--version".to_owned()];
    let outcome = ctx.invoke(argv, repo_root, &[], Some(Duration::from_secs(60)));
    version_of(outcome, "terragrunt", FLOOR, |out| {
        out.lines()
            .find_map(|line| line.trim().strip_prefix("terragrunt version "))
            .and_then(|v| Version::parse(v.trim()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_command_goes_through_terragrunt_run_with_the_tool_named() {
        assert_eq!(
            command(Binary::Tofu, &["init", "-input=false", "-no-color"]).join(" "),
            "terragrunt run --tf-forward-stdout --no-color --no-auto-init --tf-path tofu -- init -input=false -no-color"
        );
        assert_eq!(
            command(Binary::Terraform, &["show", "-json"])[6],
            "terraform"
        );
    }
}

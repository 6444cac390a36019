//! The release, rehearsed (issue 24): the path from `uses: sluiceway/sluiceway-rs@<tag>` to
//! our binary, tested on every commit rather than only on a tag. The release workflow's
//! own shell steps are read out of `.github/workflows/release.yml` and run here for the
//! Linux x86-64 target: the release build, the binary named for the shim, and the checksum
//! list, laid out as the publish job leaves the tag. Then a scan, a tick's deploy and the
//! post step run through `shim/main.js` and `shim/post.js` of that folder, against the
//! emulator with the real `tofu`.
//!
//! A release build takes minutes, so on a developer's machine this runs only when
//! `SLUICEWAY_REHEARSE_RELEASE=1`, and otherwise says so and passes nothing off; under CI
//! (`CI` set) it always runs, inside the README's `cargo test --workspace` (`.ci/run`
//! makes the release build first, with the workflow's own command, so the step here
//! finds it built).

#![allow(
    clippy::print_stderr,
    reason = "a rehearsal that was not asked for says so in the test log"
)]

mod support;

use std::path::Path;
use std::process::Command;

use saphyr::{LoadableYamlNode, Yaml};
use sha2::{Digest, Sha256};
use support::job::*;
use support::{Bed, tofu_dir, workspace};

/// The one platform this machine can build and run.
const TARGET: &str = "x86_64-unknown-linux-gnu";

/// The `run` script of the step of `job` whose own `run` or `name` starts with `start`,
/// with the workflow's expressions as they are for the Linux x86-64 build.
fn step(workflow: &Yaml<'_>, job: &str, start: &str) -> String {
    let steps = workflow["jobs"][job]["steps"]
        .as_sequence()
        .unwrap_or_else(|| panic!("release.yml has no steps in {job}"));
    let script = steps
        .iter()
        .filter_map(|s| {
            let name = s.as_mapping_get("name").and_then(Yaml::as_str);
            Some((name.unwrap_or(""), s.as_mapping_get("run")?.as_str()?))
        })
        .find(|(name, run)| name.starts_with(start) || run.starts_with(start))
        .unwrap_or_else(|| panic!("release.yml's {job} job has no step `{start}`"))
        .1;
    script.replace("${{ matrix.target }}", TARGET)
}

/// Runs a step's script the way a runner runs `shell: bash`, with `env` added.
fn try_step(script: &str, cwd: &Path, env: &[(&str, &str)]) -> std::process::Output {
    Command::new("bash")
        .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
        .current_dir(cwd)
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

/// Runs a step's script the way a runner runs `shell: bash`; it must pass.
fn run_step(script: &str, cwd: &Path) {
    let out = try_step(script, cwd, &[]);
    assert!(
        out.status.success(),
        "the release step failed:\n{script}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The action's folder as the release leaves its tag: `action.yml`, `shim/`, and `dist/`
/// with the binary and its checksum list, made by the workflow's own steps.
fn rehearse() -> tempfile::TempDir {
    let text = std::fs::read_to_string(workspace().join(".github/workflows/release.yml")).unwrap();
    let docs = Yaml::load_from_str(&text).unwrap();
    let workflow = &docs[0];
    let target_dir =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| workspace().join("target"), Into::into);

    // The build job, in the checkout; the binary's folder is the checkout's `target`.
    run_step(&step(workflow, "build", "cargo build"), &workspace());
    let build = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(&target_dir, build.path().join("target")).unwrap();
    run_step(
        &step(workflow, "build", "Name the binary for the shim"),
        build.path(),
    );

    // The publish job: the artifacts downloaded into dist/, merged, then summed.
    let release = tempfile::tempdir().unwrap();
    let dist = release.path().join("dist");
    std::fs::create_dir_all(&dist).unwrap();
    for entry in std::fs::read_dir(build.path().join("out")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dist.join(entry.file_name())).unwrap();
    }
    run_step(
        &step(workflow, "publish", "The checksum list the shim checks"),
        release.path(),
    );
    std::fs::copy(
        workspace().join("action.yml"),
        release.path().join("action.yml"),
    )
    .unwrap();
    std::fs::create_dir_all(release.path().join("shim")).unwrap();
    for file in ["main.js", "post.js", "run.js"] {
        std::fs::copy(
            workspace().join("shim").join(file),
            release.path().join("shim").join(file),
        )
        .unwrap();
    }

    // What the shim will check is the release build's own binary.
    let built = std::fs::read(target_dir.join(TARGET).join("release/sluiceway")).unwrap();
    assert_eq!(
        std::fs::read_to_string(dist.join("SHA256SUMS")).unwrap(),
        format!(
            "{}  sluiceway-{TARGET}\n",
            hex::encode(Sha256::digest(&built))
        )
    );
    release
}

/// The release workflow's first job, on the tag `v` and the crate's version and on
/// another: a tag that is not the version is refused before anything is built, by name.
#[test]
fn the_release_refuses_a_tag_that_is_not_the_crates_version() {
    let text = std::fs::read_to_string(workspace().join(".github/workflows/release.yml")).unwrap();
    let docs = Yaml::load_from_str(&text).unwrap();
    let workflow = &docs[0];
    assert_eq!(
        workflow["jobs"]["build"]["needs"].as_str(),
        Some("version"),
        "the builds wait for the version's check"
    );
    let script = step(workflow, "version", "The tag is the crate's version");
    let version = env!("CARGO_PKG_VERSION");
    let tag = format!("v{version}");
    let passed = try_step(&script, &workspace(), &[("GITHUB_REF_NAME", &tag)]);
    assert!(
        passed.status.success(),
        "{}",
        String::from_utf8_lossy(&passed.stderr)
    );
    let other = format!("v{version}.1");
    let refused = try_step(&script, &workspace(), &[("GITHUB_REF_NAME", &other)]);
    assert!(!refused.status.success(), "{other} was taken for {tag}");
    assert!(
        String::from_utf8_lossy(&refused.stdout).contains(&format!(
            "::error::The tag {other} is not {tag}, the version Cargo.toml gives."
        )),
        "{}",
        String::from_utf8_lossy(&refused.stdout)
    );
}

#[test]
fn a_rehearsed_release_scans_and_deploys_a_tick_through_its_shim() {
    if std::env::var_os("CI").is_none()
        && std::env::var("SLUICEWAY_REHEARSE_RELEASE").as_deref() != Ok("1")
    {
        eprintln!(
            "notice: neither CI nor SLUICEWAY_REHEARSE_RELEASE=1 is set; the release was not rehearsed"
        );
        return;
    }
    let release = rehearse();
    let bed = Bed::new();
    let mut job = Job::new();
    job.action = Some(release.path().to_owned());

    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    let ran = job.run(&bed, "push", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert_eq!(ran.outputs["pending"], "3", "{}", ran.log);
    let number = dashboard(&bed);

    tick(&bed, number, "alice", "network");
    job.payload = Some(edit_event(&bed, number));
    let path = format!("{}:/usr/bin:/bin", tofu_dir().display());
    let ran = job.run_with(&bed, "issues", &sha, &path, &[("mode", "")]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(ran.log.contains("network: deployed."), "{}", ran.log);
    assert!(job.file("network/terraform.tfstate").exists());

    // The post step, which GitHub runs after every job: nothing is left to settle.
    job.script = "post.js";
    let post = job.run_with(&bed, "issues", &sha, &path, &[("mode", "")]);
    assert_eq!(post.code, Some(0), "{}", post.log);
    assert!(
        blocks(&bed.body(number))["network"].contains("state=\"in-sync\""),
        "{}",
        bed.body(number)
    );
}

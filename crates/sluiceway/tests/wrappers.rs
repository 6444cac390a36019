//! Root modules behind a wrapper, end to end (decision 0068): the real binary as an
//! Actions job runs it, against the emulator. A CDKTF app with the real cdktf v0.21.0 and
//! the real OpenTofu (both installed into the cache by the project's own scripts); a
//! Terragrunt unit with `terragrunt` and `tofu` answered by the stand-in from the shared
//! corpus's recordings of Terragrunt v1.0.0, since no real Terragrunt can be had here.

#![allow(
    clippy::print_stderr,
    reason = "a test without the corpus says so in the test log"
)]

mod support;

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use sluiceway_github::GitHub;
use support::job::*;
use support::{Bed, stand_in_as, tofu_dir, workspace};

/// The cdktf binary and the example app's installed modules, from the project's script.
fn cdktf() -> &'static (PathBuf, PathBuf) {
    static INSTALLED: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        let out = Command::new(workspace().join("scripts/install-cdktf.sh"))
            .arg("v0.21.0")
            .output()
            .expect("scripts/install-cdktf.sh runs");
        assert!(
            out.status.success(),
            "cdktf could not be installed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let said = String::from_utf8_lossy(&out.stdout);
        let mut lines = said.lines().map(PathBuf::from);
        (lines.next().unwrap(), lines.next().unwrap())
    })
}

/// A job with a checkout of `examples/cdktf-lab` as a runner has it after `npm ci`.
struct CdktfJob {
    job: Job,
    /// The PATH its workflow gives the job.
    path: String,
    /// Where its `cdktf` notes each synth before it runs the real one.
    bin: tempfile::TempDir,
}

impl CdktfJob {
    fn new() -> CdktfJob {
        let (cdktf, modules) = cdktf();
        let mut job = Job::of("examples/cdktf-lab");
        std::os::unix::fs::symlink(modules, job.file("node_modules")).unwrap();
        // As a team's workflow sets it: no call home from cdktf.
        job.env.push(("CHECKPOINT_DISABLE".into(), "1".into()));
        let bin = tempfile::tempdir().unwrap();
        let script = bin.path().join("cdktf");
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh
[ \"$1\" = synth ] && echo synth >> {}\nexec {} \"$@\"\n",
                bin.path().join("synths").display(),
                cdktf.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let path = format!(
            "{}:{}:/usr/bin:/bin",
            bin.path().display(),
            tofu_dir().display()
        );
        CdktfJob { job, path, bin }
    }

    /// How many times the app was synthesized.
    fn synths(&self) -> usize {
        std::fs::read_to_string(self.bin.path().join("synths"))
            .unwrap_or_default()
            .lines()
            .count()
    }
}

fn records(bed: &Bed) -> Vec<(String, String)> {
    bed.github
        .deployment_records("sluiceway")
        .unwrap()
        .records
        .into_iter()
        .map(|r| (r.task, r.latest_status.unwrap().description))
        .collect()
}

#[test]
fn a_cdktf_app_of_two_stacks_is_scanned_and_one_is_deployed_by_a_tick() {
    let bed = Bed::new();
    let mut cdktf = CdktfJob::new();
    let (job, path) = (&mut cdktf.job, cdktf.path.clone());
    let sha = push(&bed, "the first commit", &["main.ts"]);
    let ran = job.run_with(&bed, "push", &sha, &path, &[("mode", "")]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(ran.log.contains("Using cdktf v0.21.0."), "{}", ran.log);
    assert!(job.file("cdktf.out/stacks/prod/cdk.tf.json").exists());
    let number = dashboard(&bed);
    let body = bed.body(number);
    let rows = blocks(&body);
    for stack in [".:dev", ".:prod"] {
        let row = &rows[stack];
        assert!(
            row.starts_with(&format!("- [ ] **{stack}** · "))
                && row.contains("state=\"pending\"")
                && row.contains("<code>terraform&#95;data</code> <b>config</b>")
                && row.contains("<code>terraform&#95;data</code> <b>notes</b>"),
            "{row}"
        );
    }
    assert!(
        !body.contains("CANARY"),
        "no value of the app reaches the body"
    );

    // Alice ticks dev: exactly dev deploys, from a fresh synth and plan.
    tick(&bed, number, "alice", ".:dev");
    job.payload = Some(edit_event(&bed, number));
    let ran = job.run_with(&bed, "issues", &sha, &path, &[("mode", "")]);
    job.payload = None;
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(ran.log.contains(".:dev: deployed."), "{}", ran.log);
    assert_eq!(
        records(&bed),
        [("sluiceway:.:dev".to_owned(), "deployed".to_owned())]
    );
    assert!(job.file("terraform.dev.tfstate").exists());
    assert!(!job.file("terraform.prod.tfstate").exists());
    assert_eq!(
        cdktf.synths(),
        2,
        "one synth for the scan of the app's two stacks, one for the deploy"
    );
    let rows = blocks(&bed.body(number));
    assert!(
        rows[".:dev"].contains("state=\"in-sync\""),
        "{}",
        rows[".:dev"]
    );
    assert!(
        rows[".:prod"].contains("state=\"pending\""),
        "{}",
        rows[".:prod"]
    );
}

#[test]
fn a_cdktf_app_that_does_not_synthesize_fails_every_stack_of_it_and_inits_nothing() {
    let bed = Bed::new();
    let cdktf = CdktfJob::new();
    let (job, path) = (&cdktf.job, &cdktf.path);
    let main = job.file("main.ts");
    let text = std::fs::read_to_string(&main).unwrap().replace(
        "const app = new App();",
        "const app = new App();\nthrow new Error(\"the app is broken\");",
    );
    std::fs::write(&main, text).unwrap();
    let sha = push(&bed, "a broken app", &["main.ts"]);
    let ran = job.run_with(&bed, "push", &sha, path, &[("mode", "")]);
    assert_eq!(cdktf.synths(), 1);
    assert!(
        ran.log.contains("the app is broken"),
        "the app's own words are in the job log: {}",
        ran.log
    );
    assert!(
        !ran.log.contains("has been successfully initialized"),
        "no init after a failed synth: {}",
        ran.log
    );
    let rows = blocks(&bed.body(dashboard(&bed)));
    for stack in [".:dev", ".:prod"] {
        assert!(
            rows[stack].contains("state=\"preview-failed\"")
                && rows[stack]
                    .contains("preview failed: the tool exited with an error (exit code 1)"),
            "{}",
            rows[stack]
        );
    }
    assert!(
        !bed.body(dashboard(&bed)).contains("the app is broken"),
        "the tool's words stay in the job log"
    );
}

#[test]
fn check_names_the_file_and_the_key_of_a_cdktf_app_without_its_command() {
    let job = Job::of("examples/cdktf-lab");
    let fine = Command::new(env!("CARGO_BIN_EXE_sluiceway"))
        .args(["check", "--repo"])
        .arg(job.checkout.path())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&fine.stdout);
    assert!(fine.status.success(), "{said}");
    assert!(
        said.contains("  .:dev (opentofu through cdktf, declared: stacks[0])"),
        "{said}"
    );
    std::fs::write(
        job.file("cdktf.json"),
        "{\n  \"language\": \"typescript\",\n  \"terraformProviders\": []\n}\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_sluiceway"))
        .args(["check", "--repo"])
        .arg(job.checkout.path())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains(
            "cdktf.json:1:1: app: missing: `cdktf synth` needs the command that runs the app"
        ),
        "{said}"
    );
}

/// The shared Terragrunt example, with `live/dev` as its one stack (the unit the
/// recordings were made on), or a notice that the corpus is absent.
fn terragrunt_job() -> Option<(Job, tempfile::TempDir)> {
    let corpus = workspace().join("../shared/conformance/terragrunt");
    if !corpus.is_dir() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must have the shared corpus beside the checkout (.ci/run checks it is there)"
        );
        eprintln!(
            "notice: {} is absent; this test was not run",
            corpus.display()
        );
        return None;
    }
    let mut job = Job::of("../shared/conformance/terragrunt/example");
    std::fs::write(
        job.file("sluiceway.yaml"),
        "stacks:\n  - path: live/dev\n    tool: opentofu\n    inputs: [modules/**, root.hcl]\n    options:\n      wrapper: terragrunt\n",
    )
    .unwrap();
    // First match first: the deploy's plan for scan and apply alike, the unit's init
    // from its first preview, the two version checks.
    let answers: Vec<String> = [
        corpus.join("v1.0.0/deploy"),
        corpus.join("v1.0.0/new-stack"),
        corpus.join("v1.0.0/version"),
        workspace().join("fixtures/opentofu/v1.6.2/version"),
    ]
    .iter()
    .map(|p| p.display().to_string())
    .collect();
    job.env
        .push(("SLUICEWAY_STAND_IN".into(), answers.join(":")));
    let bin = stand_in_as("terragrunt");
    std::os::unix::fs::symlink(support::stand_in(), bin.path().join("tofu")).unwrap();
    Some((job, bin))
}

#[test]
fn a_terragrunt_unit_is_scanned_and_deployed_through_terragrunt() {
    let bed = Bed::new();
    let Some((mut job, bin)) = terragrunt_job() else {
        return;
    };
    let path = format!("{}:/usr/bin:/bin", bin.path().display());
    let sha = push(&bed, "the first commit", &["live/dev/terragrunt.hcl"]);
    let ran = job.run_with(&bed, "push", &sha, &path, &[("mode", "")]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(
        ran.log.contains("Using terragrunt v1.0.0.") && ran.log.contains("Using opentofu v1.6.2."),
        "{}",
        ran.log
    );
    let number = dashboard(&bed);
    let row = blocks(&bed.body(number))["live/dev"].clone();
    assert!(
        row.starts_with("- [ ] **live/dev** · 2 creates")
            && row.contains("<code>random&#95;pet</code> <b>name</b>")
            && row.contains("<code>terraform&#95;data</code> <b>config</b>"),
        "{row}"
    );
    tick(&bed, number, "alice", "live/dev");
    job.payload = Some(edit_event(&bed, number));
    let ran = job.run_with(&bed, "issues", &sha, &path, &[("mode", "")]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(ran.log.contains("live/dev: deployed."), "{}", ran.log);
    assert_eq!(
        records(&bed),
        [("sluiceway:live/dev".to_owned(), "deployed".to_owned())]
    );
}

/// The stand-in answers only what Terragrunt was recorded doing: a call without the
/// `terragrunt run … --` prefix, in another directory or with other flags would have
/// found no recording and failed the scan above. This holds the prefix to the letter.
#[test]
fn every_tool_command_of_a_unit_is_the_recorded_terragrunt_run() {
    let corpus = workspace().join("../shared/conformance/terragrunt/v1.0.0/new-stack");
    let Ok(text) = std::fs::read_to_string(corpus.join("recording.json")) else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must have the shared corpus beside the checkout (.ci/run checks it is there)"
        );
        eprintln!(
            "notice: {} is absent; this test was not run",
            corpus.display()
        );
        return;
    };
    let recorded: serde_json::Value = serde_json::from_str(&text).unwrap();
    let ours = sluiceway_tools::opentofu::terragrunt::command(
        sluiceway_tools::opentofu::Binary::Tofu,
        &["init", "-input=false", "-no-color"],
    );
    assert_eq!(recorded["commands"][0]["argv"], serde_json::json!(ours));
}

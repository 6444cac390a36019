//! The action a team adds to its workflow: `action.yml` names every input and output the
//! modes read and set, and its shim runs the binary for the runner's platform only when
//! the binary's SHA-256 is the one on the release's checksum list. Tested with the locally
//! built binary in a stand-in release folder.

mod support;

use std::collections::BTreeSet;
use std::path::Path;

use saphyr::{LoadableYamlNode, Yaml};
use sha2::{Digest, Sha256};
use sluiceway::modes::{inputs, outputs};
use sluiceway_github::GitHub;
use support::Bed;
use support::job::*;

fn action_yml() -> String {
    std::fs::read_to_string(support::workspace().join("action.yml")).unwrap()
}

fn keys(doc: &Yaml<'_>, section: &str) -> BTreeSet<String> {
    doc[section]
        .as_mapping()
        .unwrap_or_else(|| panic!("action.yml has no {section}"))
        .keys()
        .filter_map(|k| k.as_str().map(str::to_owned))
        .collect()
}

#[test]
fn action_yml_names_every_input_and_output_the_modes_use() {
    let text = action_yml();
    let docs = Yaml::load_from_str(&text).unwrap();
    let doc = &docs[0];
    let want: BTreeSet<String> = inputs::NAMES.iter().map(|n| (*n).to_owned()).collect();
    assert_eq!(keys(doc, "inputs"), want);
    let want: BTreeSet<String> = outputs::NAMES.iter().map(|n| (*n).to_owned()).collect();
    assert_eq!(keys(doc, "outputs"), want);
    assert_eq!(doc["runs"]["main"].as_str(), Some("shim/main.js"));
    assert_eq!(doc["runs"]["post"].as_str(), Some("shim/post.js"));
}

/// A release folder as the release workflow leaves it: the shim, and `dist/` with the
/// binary for this platform and its checksum list.
fn release(checksum: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = support::workspace();
    std::fs::copy(root.join("action.yml"), dir.path().join("action.yml")).unwrap();
    std::fs::create_dir_all(dir.path().join("shim")).unwrap();
    for file in ["main.js", "post.js", "run.js"] {
        std::fs::copy(
            root.join("shim").join(file),
            dir.path().join("shim").join(file),
        )
        .unwrap();
    }
    std::fs::create_dir_all(dir.path().join("dist")).unwrap();
    let name = "sluiceway-x86_64-unknown-linux-gnu";
    let binary = dir.path().join("dist").join(name);
    std::fs::copy(env!("CARGO_BIN_EXE_sluiceway"), &binary).unwrap();
    let sum = checksum.map_or_else(
        || hex::encode(Sha256::digest(std::fs::read(&binary).unwrap())),
        str::to_owned,
    );
    std::fs::write(
        dir.path().join("dist/SHA256SUMS"),
        format!("{sum}  {name}\n"),
    )
    .unwrap();
    dir
}

fn via(release: &Path) -> Job {
    let mut job = Job::new();
    job.action = Some(release.to_owned());
    job
}

#[test]
fn the_shim_runs_the_checked_binary_as_the_action_would() {
    let bed = Bed::new();
    let release = release(None);
    let job = via(release.path());
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    let ran = job.run(&bed, "push", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert_eq!(ran.outputs["pending"], "3");
    assert_eq!(
        bed.github.open_issues_labelled("sluiceway").unwrap().len(),
        1
    );
}

#[test]
fn a_binary_that_does_not_match_its_checksum_is_never_run() {
    let bed = Bed::new();
    let release = release(Some(&"0".repeat(64)));
    let job = via(release.path());
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    let ran = job.run(&bed, "push", &sha);
    assert_eq!(ran.code, Some(1), "{}", ran.log);
    assert!(
        ran.log.contains("::error::sluiceway-x86_64-unknown-linux-gnu does not match its checksum in dist/SHA256SUMS; nothing was run."),
        "{}",
        ran.log
    );
    assert!(
        bed.github
            .open_issues_labelled("sluiceway")
            .unwrap()
            .is_empty()
    );
    assert!(ran.outputs.is_empty(), "the binary never ran");
}

/// Every process below `root`, from `/proc`'s parent links.
fn descendants(root: u32) -> Vec<u32> {
    let parents: Vec<(u32, u32)> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // The command sits in parentheses and may hold spaces: the fields after it.
            let after = stat.rsplit_once(')')?.1;
            let ppid = after.split_whitespace().nth(1)?.parse().ok()?;
            Some((pid, ppid))
        })
        .collect();
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let parent = found[i];
        found.extend(
            parents
                .iter()
                .filter(|(_, p)| *p == parent)
                .map(|(c, _)| *c),
        );
        i += 1;
    }
    found
}

#[test]
fn a_killed_apply_is_settled_by_the_post_step_and_the_next_scan_shows_the_failure() {
    let bed = Bed::new();
    let release = release(None);
    let mut job = via(release.path());
    // A deploy that takes long enough to be killed in the middle of it.
    let (sha, number) = slow_deploy_ticked(&bed, &job);
    job.payload = Some(edit_event(&bed, number));
    let path = format!("{}:/usr/bin:/bin", support::tofu_dir().display());
    let mut step = job
        .command(&bed, "issues", &sha, &path, &[("mode", "")])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let in_progress = || {
        bed.github
            .deployment_records("sluiceway")
            .unwrap()
            .records
            .iter()
            .any(|r| {
                r.latest_status
                    .as_ref()
                    .is_some_and(|s| s.state == sluiceway_github::RecordState::InProgress)
            })
    };
    let waited = std::time::Instant::now();
    while !in_progress() {
        assert!(
            waited.elapsed() < std::time::Duration::from_secs(120),
            "apply never began"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    // Give tofu time to reach the provisioner, then kill the whole step as a runner
    // that lost its machine would: no signal it could answer.
    std::thread::sleep(std::time::Duration::from_secs(3));
    let tree = descendants(step.id());
    for pid in &tree {
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status();
    }
    let _ = step.wait();
    // Gone, or a zombie waiting for init to reap it.
    let alive = |pid: &u32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|stat| Some(stat.rsplit_once(')')?.1.split_whitespace().next()? != "Z"))
            .unwrap_or(false)
    };
    let waited = std::time::Instant::now();
    while tree.iter().any(alive) {
        assert!(
            waited.elapsed() < std::time::Duration::from_secs(10),
            "the killed step left processes"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }

    job.script = "post.js";
    let post = job.run_with(&bed, "issues", &sha, &path, &[("mode", "")]);
    assert_eq!(post.code, Some(0), "{}", post.log);
    assert!(
        post.log
            .contains("network: the run ended without a result."),
        "{}",
        post.log
    );
    let row = &blocks(&bed.body(number))["network"];
    assert!(row.contains("the run ended without a result"), "{row}");

    job.script = "main.js";
    job.payload = None;
    let later = job.run(&bed, "schedule", &sha);
    assert_eq!(later.code, Some(0), "{}", later.log);
    let row = &blocks(&bed.body(number))["network"];
    // Whatever the killed tofu left in its state, the row is previewed again and keeps
    // the failure line until a later deploy goes out.
    assert!(
        !row.contains("state=\"deploying\"")
            && row.contains(
                ":x: last deploy failed: the run ended without a result · ticked by alice"
            ),
        "the next scan shows the failure line: {row}"
    );
}

#[test]
fn a_runner_on_a_platform_with_no_binary_is_told_where_sluiceway_runs_and_nothing_runs() {
    // Node as a Windows runner has it: the shim reads the platform from `process`.
    let bed = Bed::new();
    let release = release(None);
    let windows = release.path().join("as-windows.js");
    std::fs::write(
        &windows,
        "Object.defineProperty(process, 'platform', { value: 'win32' });\n",
    )
    .unwrap();
    let mut job = via(release.path());
    job.env.push((
        "NODE_OPTIONS".to_owned(),
        format!("--require {}", windows.display()),
    ));
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    let ran = job.run(&bed, "push", &sha);
    assert_eq!(ran.code, Some(1), "{}", ran.log);
    assert!(
        ran.log.contains(
            "::error::Sluiceway has no binary for win32 on x64; it runs on Linux and macOS runners (x64 or arm64)."
        ),
        "{}",
        ran.log
    );
    assert!(ran.outputs.is_empty(), "the binary never ran");
}

/// The targets the release workflow builds, and those the shim picks among: one list.
#[test]
fn the_release_builds_a_binary_for_every_platform_the_shim_picks_and_no_other() {
    let root = support::workspace();
    let workflow = std::fs::read_to_string(root.join(".github/workflows/release.yml")).unwrap();
    let docs = Yaml::load_from_str(&workflow).unwrap();
    let built: BTreeSet<String> = docs[0]["jobs"]["build"]["strategy"]["matrix"]["include"]
        .as_sequence()
        .expect("the build job's matrix lists its targets")
        .iter()
        .map(|entry| entry["target"].as_str().unwrap().to_owned())
        .collect();
    let shim = std::fs::read_to_string(root.join("shim/run.js")).unwrap();
    let table = shim
        .split("const TARGETS = {")
        .nth(1)
        .and_then(|rest| rest.split("};").next())
        .expect("shim/run.js has its TARGETS table");
    let picked: BTreeSet<String> = table
        .lines()
        .filter_map(|line| line.trim().strip_suffix("',"))
        .filter_map(|line| line.rsplit_once(": '"))
        .map(|(_, target)| target.to_owned())
        .collect();
    assert_eq!(built.len(), 4, "{built:?}");
    assert_eq!(built, picked);
    assert!(
        built.iter().all(|target| !target.contains("windows")),
        "ADR 0045: the runner needs Unix process groups"
    );
}

/// The post step runs after every job (`post-if: always()`, as the reference's does):
/// after a job that left no record open it changes nothing.
#[test]
fn the_post_step_runs_after_every_job_and_after_a_whole_run_changes_nothing() {
    let docs = Yaml::load_from_str(&action_yml()).unwrap();
    assert_eq!(docs[0]["runs"]["post-if"].as_str(), Some("always()"));
    let bed = Bed::new();
    let release = release(None);
    let mut job = via(release.path());
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    let ran = job.run(&bed, "push", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let number = dashboard(&bed);
    let body = bed.body(number);
    let before = bed.emulator.traffic().len();
    job.script = "post.js";
    let posted = job.run(&bed, "push", &sha);
    assert_eq!(posted.code, Some(0), "{}", posted.log);
    assert!(
        posted
            .log
            .contains("Every deployment record of this run has its result."),
        "{}",
        posted.log
    );
    let traffic = bed.emulator.traffic()[before..].to_vec();
    assert!(
        traffic
            .iter()
            .all(|call| call.starts_with("GET ") || call.starts_with("graphql ")),
        "it only read: {traffic:?}"
    );
    assert_eq!(bed.body(number), body);
}

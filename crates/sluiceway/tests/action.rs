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

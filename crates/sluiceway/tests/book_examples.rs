//! Every workflow and `sluiceway.yaml` the book shows is a file the real binary reads:
//! the pages include them (`{{#include …}}`, which the book's own check requires of every
//! YAML example), and here `sluiceway check` runs on each example they come from. It must
//! find the setup valid, say nothing is wrong or ignored, and lint each included workflow
//! with no finding. The one-job example's workflows are what `sluiceway init` writes.

mod support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use support::{copy_dir, workspace};

/// Every file a page of the book includes, as a path from the repository root.
fn included() -> BTreeSet<PathBuf> {
    let src = workspace().join("docs/book/src");
    let mut files = BTreeSet::new();
    for entry in walkdir::WalkDir::new(&src) {
        let entry = entry.unwrap();
        if entry.path().extension().is_none_or(|x| x != "md") {
            continue;
        }
        let text = std::fs::read_to_string(entry.path()).unwrap();
        for line in text.lines() {
            let Some(rest) = line.trim().strip_prefix("{{#include ") else {
                continue;
            };
            let target = rest.trim_end_matches("}}").trim();
            let file = target.split(':').next().unwrap();
            let found = entry
                .path()
                .parent()
                .unwrap()
                .join(file)
                .canonicalize()
                .unwrap();
            files.insert(
                found
                    .strip_prefix(workspace().canonicalize().unwrap())
                    .unwrap()
                    .to_owned(),
            );
        }
    }
    files
}

/// The example a file belongs to: the nearest folder above it with a `sluiceway.yaml`.
fn example_of(file: &Path) -> PathBuf {
    file.ancestors()
        .skip(1)
        .find(|dir| workspace().join(dir).join("sluiceway.yaml").is_file())
        .unwrap_or_else(|| panic!("{} belongs to no example", file.display()))
        .to_owned()
}

#[test]
fn check_accepts_every_configuration_and_workflow_the_book_shows() {
    let yaml: Vec<PathBuf> = included()
        .into_iter()
        .filter(|f| f.extension().is_some_and(|x| x == "yml" || x == "yaml"))
        .collect();
    assert!(yaml.len() >= 15, "the book shows its examples: {yaml:?}");
    let examples: BTreeSet<PathBuf> = yaml.iter().map(|f| example_of(f)).collect();
    for example in &examples {
        let out = Command::new(env!("CARGO_BIN_EXE_sluiceway"))
            .args(["check", "--json", "--repo"])
            .arg(workspace().join(example))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}: {stderr}",
            example.display()
        );
        assert!(
            stderr.trim().is_empty(),
            "{}: check warns about the book's example: {stderr}",
            example.display()
        );
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["valid"], true, "{}", example.display());
        assert_eq!(
            report["setup"]["workflowFindings"],
            serde_json::json!([]),
            "{}",
            example.display()
        );
        let linted: BTreeSet<&str> = report["setup"]["workflows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w["file"].as_str().unwrap())
            .collect();
        for file in yaml.iter().filter(|f| f.starts_with(example)) {
            let within = file.strip_prefix(example).unwrap().to_str().unwrap();
            if within.starts_with(".github/workflows/") {
                assert!(
                    linted.contains(within),
                    "{}: check did not read the workflow the book shows, {within}: {linted:?}",
                    example.display()
                );
            }
        }
    }
}

/// A git checkout of the example with its workflows taken out, after `sluiceway` ran
/// with each of `runs` in it.
fn initialized(example: &Path, runs: &[&[&str]]) -> tempfile::TempDir {
    let repo = tempfile::tempdir().unwrap();
    copy_dir(example, repo.path());
    std::fs::remove_dir_all(repo.path().join(".github")).unwrap();
    let git = Command::new("git")
        .args(["init", "--quiet"])
        .current_dir(repo.path())
        .status()
        .unwrap();
    assert!(git.success());
    for args in runs {
        let out = Command::new(env!("CARGO_BIN_EXE_sluiceway"))
            .args(*args)
            .arg("--repo")
            .arg(repo.path())
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    repo
}

#[test]
fn the_one_job_workflows_are_what_init_writes() {
    let example = workspace().join("docs/book/examples/one-job");
    let repo = initialized(&example, &[&["init"], &["init", "--check"]]);
    for workflow in ["deploy-dashboard.yml", "sluiceway-check.yml"] {
        let path = Path::new(".github/workflows").join(workflow);
        assert_eq!(
            std::fs::read_to_string(repo.path().join(&path)).unwrap(),
            std::fs::read_to_string(example.join(&path)).unwrap(),
            "{workflow} in the book is no longer what init writes"
        );
    }
}

#[test]
fn the_sharded_workflow_is_what_init_sharded_writes_and_its_page_shows_it_whole() {
    let example = workspace().join("docs/book/examples/sharded");
    let repo = initialized(&example, &[&["init", "--sharded"]]);
    let path = Path::new(".github/workflows/deploy-dashboard.yml");
    let written = std::fs::read_to_string(repo.path().join(path)).unwrap();
    assert_eq!(
        written,
        std::fs::read_to_string(example.join(path)).unwrap(),
        "the sharded workflow in the book is no longer what `init --sharded` writes"
    );
    let page = std::fs::read_to_string(workspace().join("docs/sharded-scan.md")).unwrap();
    let shown = page
        .split_once("```yaml\n")
        .and_then(|(_, rest)| rest.split_once("```"))
        .map(|(yaml, _)| yaml)
        .expect("docs/sharded-scan.md shows the workflow");
    assert_eq!(
        shown, written,
        "docs/sharded-scan.md shows another workflow"
    );
}

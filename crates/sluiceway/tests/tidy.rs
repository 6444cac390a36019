//! The crate arrows of docs/ARCHITECTURE.md, enforced: the core stays pure, and crates
//! depend on each other only as the map allows.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// Every allowed edge between our own crates (normal dependencies).
const ALLOWED: &[(&str, &str)] = &[
    ("sluiceway", "sluiceway-core"),
    ("sluiceway", "sluiceway-dashboard"),
    ("sluiceway", "sluiceway-github"),
    ("sluiceway", "sluiceway-tools"),
    ("sluiceway-tools", "sluiceway-core"),
    ("sluiceway-dashboard", "sluiceway-core"),
    ("sluiceway-fixtures", "sluiceway-core"),
    ("sluiceway-fixtures", "sluiceway-tools"),
];

/// Crates the pure core must never reach, even indirectly.
const IO_CRATES: &[&str] = &[
    "tokio",
    "reqwest",
    "hyper",
    "ureq",
    "mio",
    "async-std",
    "walkdir",
];

/// Calls that would give the core I/O, a clock or the environment.
const IMPURE_CALLS: &[&str] = &[
    "std::fs",
    "std::process",
    "std::env",
    "SystemTime::now",
    "Instant::now",
    "std::net",
];

fn metadata() -> Value {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1"])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Package name → the names of its normal (not dev, not build) dependencies.
fn normal_edges(meta: &Value) -> BTreeMap<String, BTreeSet<String>> {
    let names: BTreeMap<&str, &str> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p["name"].as_str().unwrap()))
        .collect();
    let mut edges = BTreeMap::new();
    for node in meta["resolve"]["nodes"].as_array().unwrap() {
        let from = names[node["id"].as_str().unwrap()].to_owned();
        let deps: BTreeSet<String> = node["deps"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| {
                d["dep_kinds"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|k| k["kind"].is_null())
            })
            .map(|d| names[d["pkg"].as_str().unwrap()].to_owned())
            .collect();
        edges.entry(from).or_insert_with(BTreeSet::new).extend(deps);
    }
    edges
}

fn reachable(edges: &BTreeMap<String, BTreeSet<String>>, from: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![from.to_owned()];
    while let Some(next) = todo.pop() {
        for dep in edges.get(&next).into_iter().flatten() {
            if seen.insert(dep.clone()) {
                todo.push(dep.clone());
            }
        }
    }
    seen
}

#[test]
fn our_crates_depend_on_each_other_only_as_the_map_allows() {
    let meta = metadata();
    let ours: BTreeSet<String> = meta["workspace_members"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|id| {
            meta["packages"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["id"] == *id)
        })
        .map(|p| p["name"].as_str().unwrap().to_owned())
        .collect();
    for (from, deps) in normal_edges(&meta)
        .iter()
        .filter(|(name, _)| ours.contains(*name))
    {
        for dep in deps.iter().filter(|d| ours.contains(*d)) {
            assert!(
                ALLOWED.contains(&(from.as_str(), dep.as_str())),
                "{from} → {dep} is not an allowed arrow"
            );
        }
    }
}

/// The pure crates: the domain and the dashboard renderer.
const PURE: &[&str] = &["sluiceway-core", "sluiceway-dashboard"];

#[test]
fn the_pure_crates_reach_no_io_crate() {
    let edges = normal_edges(&metadata());
    for krate in PURE {
        let reached = reachable(&edges, krate);
        for io in IO_CRATES {
            assert!(!reached.contains(*io), "{krate} reaches {io}");
        }
    }
}

#[test]
fn the_pure_crates_make_no_impure_call() {
    for krate in PURE {
        let src = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("..")
            .join(krate)
            .join("src");
        assert!(src.is_dir());
        for entry in walkdir::WalkDir::new(src) {
            let entry = entry.unwrap();
            if entry.path().extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(entry.path()).unwrap();
                for call in IMPURE_CALLS {
                    assert!(
                        !text.contains(call),
                        "{} uses {call}",
                        entry.path().display()
                    );
                }
            }
        }
    }
}

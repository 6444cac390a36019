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
    ("sluiceway", "sluiceway-policy"),
    ("sluiceway", "sluiceway-tools"),
    ("sluiceway", "sluiceway-console"),
    // The console reads dashboards with the action's own reader (ADR 0047).
    ("sluiceway-console", "sluiceway-dashboard"),
    ("sluiceway-console", "sluiceway-core"),
    // As a GitHub App it asks GitHub through the action's own port (ADR 0048).
    ("sluiceway-console", "sluiceway-github"),
    ("sluiceway-tools", "sluiceway-core"),
    ("sluiceway-dashboard", "sluiceway-core"),
    ("sluiceway-fixtures", "sluiceway-core"),
    ("sluiceway-fixtures", "sluiceway-tools"),
    ("sluiceway-book", "sluiceway-core"),
    // No code: only the features the tests' build turns on (ADR 0043).
    ("sluiceway", "workspace-hack"),
    ("sluiceway-fixtures", "workspace-hack"),
    ("sluiceway-book", "workspace-hack"),
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

/// What `cargo ARGS` prints, run at the workspace's root; it must succeed.
fn cargo(args: &[&str]) -> Vec<u8> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let out = Command::new(env!("CARGO"))
        .args(args)
        .current_dir(root)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn metadata() -> Value {
    serde_json::from_slice(&cargo(&["metadata", "--format-version", "1"])).unwrap()
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

/// The `crate::…` paths a source file names, as their first segment after `crate::`
/// (and the second, for `crate::modes::…`).
fn crate_paths(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (at, _) in text.match_indices("crate::") {
        if text[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &text[at + "crate::".len()..];
        let segments: Vec<&str> = rest
            .split("::")
            .take(2)
            .map(|s| {
                s.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .next()
                    .unwrap_or("")
            })
            .collect();
        found.insert(segments.join("::"));
    }
    found
}

/// Every `.rs` file under a crate's `src`, with its path relative to `src`.
fn sources(krate: &str) -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(krate)
        .join("src");
    walkdir::WalkDir::new(&src)
        .into_iter()
        .map(Result::unwrap)
        .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
        .map(|e| {
            let relative = e.path().strip_prefix(&src).unwrap();
            (
                relative.to_string_lossy().replace('\\', "/"),
                std::fs::read_to_string(e.path()).unwrap(),
            )
        })
        .collect()
}

/// The binary crate's rooms (ARCHITECTURE.md): `base` below everything, the commands
/// and the modes beside each other on it, the wiring and the command line on top. A
/// mode other than the scan takes nothing from inside the scan's rooms but its result
/// file's format.
#[test]
fn the_binary_crates_rooms_use_only_the_rooms_below_them() {
    let forbidden: &[(&str, &[&str])] = &[
        ("base/", &["modes", "commands", "wiring", "cli"]),
        ("commands/", &["modes", "wiring", "cli"]),
        ("modes/", &["commands", "wiring", "cli"]),
    ];
    let mut broken = Vec::new();
    for (file, text) in sources("sluiceway") {
        let paths = crate_paths(&text);
        for (room, banned) in forbidden {
            if !file.starts_with(room) {
                continue;
            }
            for path in &paths {
                let first = path.split("::").next().unwrap_or("");
                if banned.contains(&first) {
                    broken.push(format!("{file} uses crate::{path}"));
                }
            }
        }
        if file.starts_with("modes/") && !file.starts_with("modes/scan/") {
            for path in &paths {
                if path == "modes::scan" && !text.contains("crate::modes::scan::result_file") {
                    broken.push(format!("{file} reaches into the scan's rooms"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "{broken:#?}");
}

/// In the tools crate, no adapter names another: what two adapters share (Kubernetes
/// objects, the version type, the tool run's context) lives below both, and those
/// shared modules name no adapter.
#[test]
fn no_adapter_reaches_into_another() {
    const ADAPTERS: &[&str] = &["kubectl", "helm", "opentofu", "pulumi"];
    const SHARED: &[&str] = &[
        "kubernetes",
        "version",
        "tool_run",
        "changed_paths",
        "tool_log",
        "preview_document",
        "recording",
        "replay",
    ];
    let mut broken = Vec::new();
    for (file, text) in sources("sluiceway-tools") {
        let room = file.split(['/', '.']).next().unwrap_or("");
        let paths = crate_paths(&text);
        for path in &paths {
            let first = path.split("::").next().unwrap_or("");
            let adapter_to_adapter =
                ADAPTERS.contains(&room) && ADAPTERS.contains(&first) && first != room;
            let shared_to_adapter = SHARED.contains(&room) && ADAPTERS.contains(&first);
            if adapter_to_adapter || shared_to_adapter {
                broken.push(format!("{file} uses crate::{path}"));
            }
        }
    }
    assert!(broken.is_empty(), "{broken:#?}");
}

/// Each package `cargo tree` reaches with `args`, with the features it would be built
/// with: the build the tree describes, read without compiling anything.
fn features(args: &[&str]) -> BTreeMap<String, BTreeSet<String>> {
    let tree = [
        &[
            "tree",
            "--frozen",
            "--prefix",
            "none",
            "--format",
            "{p} [{f}]",
        ],
        args,
    ]
    .concat();
    let out = cargo(&tree);
    let mut found: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in String::from_utf8(out).unwrap().lines() {
        let mut words = line.split_whitespace();
        let (Some(name), Some(version)) = (words.next(), words.next()) else {
            continue;
        };
        let listed = line
            .rsplit_once('[')
            .and_then(|(_, rest)| rest.split_once(']'))
            .map_or("", |(inside, _)| inside);
        found
            .entry(format!("{name} {version}"))
            .or_default()
            .extend(
                listed
                    .split(',')
                    .filter(|f| !f.is_empty())
                    .map(str::to_owned),
            );
    }
    found
}

/// The README's first command builds the binary alone (`cargo build -p sluiceway`), its
/// second builds every test, and CI builds the recorder and the book's binary alone too;
/// when two of these builds turn on different features of a crate, that crate and every
/// crate above it is compiled twice, which once cost a cold CI run a hundred crates. The
/// workspace-hack crate turns them on for each binary (ADR 0043); this names any crate
/// whose features part a binary's build from the tests', and what the hack must add.
#[test]
fn each_binary_alone_builds_what_the_tests_build() {
    let tests = features(&["--workspace", "--edges", "normal,build,dev"]);
    for binary in ["sluiceway", "sluiceway-fixtures", "sluiceway-book"] {
        let alone = features(&["--package", binary, "--edges", "normal,build"]);
        assert!(alone.len() > 50, "cargo tree read too little: {alone:?}");
        let parted: Vec<String> = alone
            .iter()
            .filter_map(|(package, built)| {
                let wanted = tests.get(package)?;
                (wanted != built).then(|| {
                    let missing: Vec<&String> = wanted.difference(built).collect();
                    format!("{package}: add {missing:?}")
                })
            })
            .collect();
        assert!(
            parted.is_empty(),
            "crates/workspace-hack/Cargo.toml misses features the tests turn on for {binary}:\n{}",
            parted.join("\n")
        );
    }
}

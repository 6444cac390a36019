//! The in-process evaluation against the real Conftest, on policies and documents a
//! property test makes: every namespace, count, failure, warning and exception must be
//! the same. Conftest v0.70.1 is built from the Go module proxy by
//! `scripts/build-conftest.sh`; without it the test says so and passes, but not in CI.

#![allow(
    clippy::print_stderr,
    reason = "a test that cannot run here says so in the test log"
)]

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use proptest::prelude::*;
use support::{conftest_answers, in_process};

const VERSION: &str = "v0.70.1";

fn conftest() -> Option<PathBuf> {
    let cache = std::env::var_os("SLUICEWAY_CACHE")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/sluiceway")))?;
    let binary = cache.join("conftest").join(VERSION).join("bin/conftest");
    binary.is_file().then_some(binary)
}

/// One rule a generated policy may hold. Each reads the generated document's shape.
#[derive(Debug, Clone)]
enum Rule {
    /// `deny` over every item with this op, quoting its name.
    DenyOp(&'static str),
    /// `warn` when `count` is above this.
    WarnAbove(u8),
    /// `violation_<word>` with a structured result, when `flag` is set.
    StructuredViolation(&'static str),
    /// `deny_<word>`, when `flag` is set; waivable by `exception`.
    NamedDeny(&'static str),
    /// An exception waiving `deny_<word>` when `waive` is set.
    Exception(&'static str),
    /// A `deny` that never holds.
    Never,
    /// A `warn` whose message is empty when `flag` is set.
    EmptyWarning,
    /// A rule that is neither a failure nor a warning.
    Allow,
}

impl Rule {
    fn rego(&self) -> String {
        match self {
            Rule::DenyOp(op) => format!(
                "deny contains msg if {{\n  some item in input.items\n  item.op == \"{op}\"\n  msg := sprintf(\"%s is {op}d\", [item.name])\n}}\n"
            ),
            Rule::WarnAbove(n) => format!(
                "warn contains msg if {{\n  input.count > {n}\n  msg := sprintf(\"%d is more than {n}\", [input.count])\n}}\n"
            ),
            Rule::StructuredViolation(word) => format!(
                "violation_{word} contains result if {{\n  input.flag\n  result := {{\"msg\": \"{word} is flagged\", \"severity\": \"high\"}}\n}}\n"
            ),
            Rule::NamedDeny(word) => format!(
                "deny_{word} contains msg if {{\n  input.flag\n  msg := \"{word} denies the flag\"\n}}\n"
            ),
            Rule::Exception(word) => format!(
                "exception contains rules if {{\n  input.waive\n  rules := [\"{word}\"]\n}}\n"
            ),
            Rule::Never => "deny contains msg if {\n  false\n  msg := \"never\"\n}\n".to_owned(),
            Rule::EmptyWarning => {
                "warn contains msg if {\n  input.flag\n  msg := \"\"\n}\n".to_owned()
            }
            Rule::Allow => "allow if {\n  input.count < 3\n}\n".to_owned(),
        }
    }
}

fn rule() -> impl Strategy<Value = Rule> {
    let word = prop::sample::select(vec!["public", "size", "prod"]);
    prop_oneof![
        prop::sample::select(vec!["delete", "replace", "create"]).prop_map(Rule::DenyOp),
        (0u8..6).prop_map(Rule::WarnAbove),
        word.clone().prop_map(Rule::StructuredViolation),
        word.clone().prop_map(Rule::NamedDeny),
        word.prop_map(Rule::Exception),
        Just(Rule::Never),
        Just(Rule::EmptyWarning),
        Just(Rule::Allow),
    ]
}

/// Packages, each with its rules; an exception is written once per package.
fn policies() -> impl Strategy<Value = Vec<Vec<Rule>>> {
    prop::collection::vec(prop::collection::vec(rule(), 0..5), 1..4)
}

fn document() -> impl Strategy<Value = serde_json::Value> {
    let item = (
        prop::sample::select(vec!["web", "db", "logs", "queue"]),
        prop::sample::select(vec!["delete", "replace", "create", "update"]),
    )
        .prop_map(|(name, op)| serde_json::json!({"name": name, "op": op}));
    (
        prop::collection::vec(item, 0..4),
        0u8..8,
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(items, count, flag, waive)| {
            serde_json::json!({"items": items, "count": count, "flag": flag, "waive": waive})
        })
}

fn write_case(dir: &Path, packages: &[Vec<Rule>], documents: &[serde_json::Value]) -> String {
    for (i, rules) in packages.iter().enumerate() {
        let mut text = format!("package p{i}\n\n");
        let mut excepted = false;
        for rule in rules {
            if matches!(rule, Rule::Exception(_)) {
                if excepted {
                    continue;
                }
                excepted = true;
            }
            text.push_str(&rule.rego());
            text.push('\n');
        }
        std::fs::create_dir_all(dir.join("policy")).unwrap();
        std::fs::write(dir.join(format!("policy/p{i}.rego")), text).unwrap();
    }
    if let [one] = documents {
        std::fs::write(dir.join("preview.json"), one.to_string()).unwrap();
        "preview.json".to_owned()
    } else {
        let stream: Vec<String> = documents.iter().map(|d| d.to_string()).collect();
        std::fs::write(dir.join("preview.yaml"), stream.join("\n---\n")).unwrap();
        "preview.yaml".to_owned()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn conftest_and_sluiceway_give_the_same_answers(
        packages in policies(),
        documents in prop::collection::vec(document(), 1..3),
    ) {
        let Some(conftest) = conftest() else {
            assert!(std::env::var_os("CI").is_none(), "CI must build conftest {VERSION}");
            eprintln!("notice: no conftest {VERSION} here; the differential test did not run");
            return Ok(());
        };
        let dir = tempfile::tempdir().unwrap();
        let file = write_case(dir.path(), &packages, &documents);
        let ran = Command::new(&conftest)
            .args(["test", "--output", "json", "--all-namespaces", "--no-color", "--policy", "policy", &file])
            .current_dir(dir.path())
            .env_clear()
            .env("HOME", dir.path())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&ran.stdout);
        prop_assert!(
            matches!(ran.status.code(), Some(0 | 1)) && !stdout.is_empty(),
            "conftest did not report: {}",
            String::from_utf8_lossy(&ran.stderr)
        );
        let ours = in_process(dir.path(), &["policy"], &file).unwrap();
        prop_assert_eq!(ours, conftest_answers(&stdout));
    }
}

//! Every recorded Conftest scenario of the shared corpus, answered in-process: the same
//! namespaces, counts, failures and warnings where Conftest reported, and a refusal
//! where it failed. The corpus lives outside this repository; without it these tests say
//! so and pass nothing off (the differential test against the real Conftest still runs).

#![allow(
    clippy::print_stderr,
    reason = "a test without the corpus says so in the test log"
)]

mod support;

use std::path::{Path, PathBuf};

use serde_json::Value;
use support::{conftest_answers, in_process};

/// The shared Conftest corpus, or a notice that it is absent.
fn corpus() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance/conftest");
    if !dir.is_dir() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must have the shared corpus beside the checkout (.ci/run checks it is there)"
        );
        eprintln!("notice: {} is absent; this test was not run", dir.display());
    }
    dir.is_dir().then_some(dir)
}

#[test]
fn every_recorded_scenario_reads_as_conftest_answered() {
    let Some(corpus) = corpus() else {
        return;
    };
    let example = corpus.join("example");
    let mut seen = 0;
    for version in ["v0.50.0"] {
        let mut scenarios: Vec<PathBuf> = std::fs::read_dir(corpus.join(version))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        scenarios.sort();
        for scenario in scenarios {
            let recording: Value = serde_json::from_str(
                &std::fs::read_to_string(scenario.join("recording.json")).unwrap(),
            )
            .unwrap();
            let argv: Vec<&str> = recording["argv"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap())
                .collect();
            if argv.get(1) != Some(&"test") {
                continue;
            }
            let policies: Vec<&str> = argv
                .windows(2)
                .filter(|w| w[0] == "--policy")
                .map(|w| w[1])
                .collect();
            let document = argv.last().unwrap();
            let ours = in_process(&example, &policies, document);
            let name = scenario.file_name().unwrap().to_string_lossy().into_owned();
            match recording["exitCode"].as_i64() {
                Some(0 | 1) if !recording["stdout"].as_str().unwrap().is_empty() => {
                    assert_eq!(
                        ours.unwrap_or_else(|e| panic!("{name}: {e}")),
                        conftest_answers(recording["stdout"].as_str().unwrap()),
                        "{name}"
                    );
                }
                _ => {
                    let error = ours.expect_err(&name);
                    assert!(!error.is_empty(), "{name}");
                }
            }
            seen += 1;
        }
    }
    assert_eq!(seen, 8, "every test scenario of the corpus was read");
}

#[test]
fn a_refusal_names_the_file_and_the_line() {
    let Some(corpus) = corpus() else {
        return;
    };
    let example = corpus.join("example");
    let broken = in_process(&example, &["broken"], "inputs/pass.json").unwrap_err();
    assert_eq!(
        broken,
        "broken/broken.rego:2:11: the policy does not parse: `if` keyword is required before rule body"
    );
    let missing = in_process(&example, &["does-not-exist"], "inputs/pass.json").unwrap_err();
    assert_eq!(missing, "does-not-exist: no such file or folder");
}

/// Inputs the fuzzer once broke the interpreter with (fuzz/regressions: the first line is
/// the document, the rest the policy), refused at their place in no time.
#[test]
fn what_the_fuzzer_found_is_refused_with_its_place() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions");
    for (file, place) in [
        (
            "policies-huge-exponent.rego",
            "fuzz.rego:2:1: the policy does not parse: a number",
        ),
        (
            "policies-deep-brackets.rego",
            "fuzz.rego:5:24: the policy does not parse: brackets",
        ),
    ] {
        let bytes = std::fs::read(dir.join(file)).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        let rego = text.split_once('\n').map_or(&*text, |(_, rest)| rest);
        let started = std::time::Instant::now();
        let refused = sluiceway_policy::Policies::compile(&[sluiceway_policy::Source {
            path: "fuzz.rego".to_owned(),
            text: rego.to_owned(),
        }])
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
        assert!(refused.starts_with(place), "{file}: {refused}");
        assert!(
            started.elapsed().as_secs() < 5,
            "{file}: {:?}",
            started.elapsed()
        );
    }
}

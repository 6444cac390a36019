//! The policy reader takes any Rego and any document: compiling never panics, and a
//! compiled policy judges a document into a report or an error, never a panic; every
//! failure it reports has a message.

#![no_main]

use libfuzzer_sys::fuzz_target;
use sluiceway_policy::{Policies, Source};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // The first line is the document (JSON), the rest the policy.
    let (document, rego) = text.split_once('\n').unwrap_or(("{}", text));
    let Ok(policies) = Policies::compile(&[Source {
        path: "fuzz.rego".to_owned(),
        text: rego.to_owned(),
    }]) else {
        return;
    };
    let Ok(document) = serde_json::from_str::<serde_json::Value>(document) else {
        return;
    };
    if let Ok(report) = policies.test(&[document], std::time::Duration::from_secs(1)) {
        assert!(report.failures().all(|(_, f)| !f.message.is_empty()));
    }
});

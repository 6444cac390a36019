//! Any bytes as a workflow file `check` reads: the reader names scan jobs or nothing,
//! never a panic, and every job it names is a key of the workflow's `jobs`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sluiceway_core::workflow::scans_nobody_applies;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    for job in scans_nobody_applies(text, "sluiceway/sluiceway-rs") {
        assert!(text.contains(&job), "{job}");
    }
});

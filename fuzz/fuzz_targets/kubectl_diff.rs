//! Any bytes as `kubectl diff` output: the hunk reader and the fold answer with changes
//! or with a problem that names a line or an object, never a panic, and a problem never
//! carries the text it was given.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sluiceway_tools::kubernetes::{fold, hunks};
use sluiceway_core::values::ValueList;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match hunks::read(text) {
        Err(error) => assert!(error.to_string().starts_with("The tool's output, at line ")),
        Ok(pairs) => match fold::read_pairs(&pairs) {
            Err(error) => assert!(error.to_string().starts_with("The tool's output, at object ")),
            Ok(read) => {
                let changes = fold::fold(&read, &|_| false, &ValueList::any_path());
                assert!(changes.len() <= pairs.len());
                assert!(changes.windows(2).all(|w| w[0].address < w[1].address || w[0].address.encode_utf16().lt(w[1].address.encode_utf16())));
            }
        },
    }
});

//! Any bytes as `kubectl diff` output: the hunk reader and the fold answer with changes
//! or with a problem that names a line or an object, never a panic, and a problem never
//! carries the text it was given. Folding while reading, as a preview does, answers
//! exactly what reading every hunk and then folding them one by one answers.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sluiceway_tools::kubernetes::{fold, hunks};
use sluiceway_core::values::ValueList;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let values = ValueList::any_path();
    let streamed = fold::fold_output(text, &|_| false, &values);
    match hunks::read(text) {
        Err(error) => {
            assert!(error.to_string().starts_with("The tool's output, at line "));
            assert_eq!(streamed.unwrap_err(), fold::OutputError::Hunks(error));
        }
        Ok(pairs) => match fold::read_pairs(&pairs) {
            Err(error) => {
                assert!(error.to_string().starts_with("The tool's output, at object "));
                assert_eq!(streamed.unwrap_err(), fold::OutputError::Object(error));
            }
            Ok(read) => {
                let changes = fold::fold(&read, &|_| false, &values);
                assert!(changes.len() <= pairs.len());
                assert!(changes.windows(2).all(|w| w[0].address < w[1].address || w[0].address.encode_utf16().lt(w[1].address.encode_utf16())));
                let streamed = streamed.unwrap();
                assert_eq!(streamed.changes, changes);
                assert_eq!(streamed.objects, pairs.len());
            }
        },
    }
});

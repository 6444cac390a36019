//! Any request body and any `sluiceway.yaml` for a settings change: the body is read or
//! refused, the changes it names are checked, and each is made in the text or refused —
//! never a panic. A change made reads back as exactly that change (which `set` checks
//! before it answers), so here a made change is also made again, and must change nothing.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sluiceway_console::config_pull_request::{KeyChange, check};
use sluiceway_core::config::{KeyPath, edit};

fuzz_target!(|data: &[u8]| {
    // The body, then the file, split at the first NUL.
    let split = data.iter().position(|b| *b == 0).unwrap_or(data.len());
    let (body, file) = data.split_at(split);
    let file = String::from_utf8_lossy(file.get(1..).unwrap_or_default());
    let Ok(changes) = serde_json::from_slice::<Vec<KeyChange>>(body) else {
        return;
    };
    let _ = check(&changes);
    for change in &changes {
        let mut path = KeyPath::default();
        for part in change.key.split('.').filter(|p| !p.is_empty()) {
            path = path.key(part);
        }
        if let Ok(edited) = edit::set(&file, &path, &change.value) {
            assert_eq!(edit::set(&edited, &path, &change.value).as_ref(), Ok(&edited));
        }
    }
});

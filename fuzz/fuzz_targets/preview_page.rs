//! Any text as a stack's preview page, as the console reads it back for `preview`:
//! reading never panics, every line is read or counted as unread, and nothing read holds
//! a line break (each change is one line of the page).
#![no_main]

use libfuzzer_sys::fuzz_target;
use sluiceway_dashboard::preview_reader;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let page = preview_reader::read(&text);
    let lines = text.lines().filter(|l| !l.trim().is_empty()).count();
    let read = page.policies.len() + page.changes.len() + page.drift.len() + page.unread;
    assert!(read <= lines, "{read} things from {lines} lines");
    for change in page.changes.iter().chain(&page.drift) {
        assert!(!change.name.contains('\n') && !change.kind.contains('\n'));
        assert!(change.properties.iter().all(|p| !p.contains('\n')));
    }
});

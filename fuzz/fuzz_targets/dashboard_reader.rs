//! Any bytes as an issue body: the reader never panics, every block it keeps is a piece
//! of the body as it was (so a writer can carry it untouched), and it begins with the
//! row's first line and ends with the closing marker.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sluiceway_dashboard::reader;

fuzz_target!(|data: &[u8]| {
    let Ok(body) = std::str::from_utf8(data) else { return };
    let read = reader::read(body);
    let normalised = body.replace("\r\n", "\n");
    for row in &read.rows {
        assert!(normalised.contains(&row.text), "a block is carried as it was");
        assert!(row.text.trim_end().ends_with("<!-- /sluiceway:row -->"));
        assert!(!row.facts.stack.is_empty());
    }
});

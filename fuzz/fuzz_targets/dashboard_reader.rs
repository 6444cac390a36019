//! Any bytes as an issue body: the reader never panics, every block it keeps is a piece
//! of the body as it was (so a writer can carry it untouched) or a line of the in-sync
//! list given back as the block drawn for it, and it begins with the row's first line
//! and ends with the closing marker; a bulk line reads as a confirm box
//! (a hash for every stack it names) or a note, never both.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sluiceway_dashboard::{in_sync_list, reader};
use sluiceway_dashboard::view::{BulkNote, Confirm};

fuzz_target!(|data: &[u8]| {
    let Ok(body) = std::str::from_utf8(data) else { return };
    let read = reader::read(body);
    let normalised = body.replace("\r\n", "\n");
    for row in &read.rows {
        assert!(
            normalised.contains(&row.text) || in_sync_list::is_plain(&row.facts, &row.text),
            "a block is carried as it was, or drawn for a line of the list"
        );
        assert!(row.text.trim_end().ends_with("<!-- /sluiceway:row -->"));
        assert!(!row.facts.stack.is_empty());
    }
    for line in &read.bulk {
        let confirm = Confirm::read(&line.marker);
        if let Some(confirm) = &confirm {
            assert_eq!(confirm.stacks.len(), confirm.hashes.len());
            assert!(!confirm.stacks.is_empty());
            let _ = confirm.holds_for(&read.rows);
            let _ = BulkNote::changed(confirm, &read.rows);
        }
        assert!(!(confirm.is_some() && BulkNote::read(&line.marker).is_some()));
    }
});

//! The join's readers: a shard plan and a partial result, whatever bytes they hold, are
//! read or refused with a reason that names the file, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sluiceway::modes::scan::sharded::{partial, split::ShardPlan};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = serde_json::from_str::<ShardPlan>(text);
    let plan = ShardPlan {
        version: 1,
        commit: "c0ffee".to_owned(),
        run: 7,
        started_at: "2026-12-05T08:00:00Z".to_owned(),
        full: true,
        drift: Vec::new(),
        shards: vec![Vec::new(), Vec::new()],
    };
    if let Err(refusal) = partial::gather(&plan, &[("f.json".to_owned(), text.to_owned())]) {
        let said = refusal.to_string();
        assert!(said.starts_with("f.json"), "{said}");
    }
});

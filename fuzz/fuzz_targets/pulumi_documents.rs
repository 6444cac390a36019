//! Any bytes as a preview document, an engine-event stream, a stack history and a stack
//! list (the same bytes given to each reader): every reader answers with what it read
//! or a fixed reason, and none of them panics. What a preview or drift check reads is
//! sorted by address with no address twice, and its keys are in the shared notation;
//! a preview read with every path allowed shows each value under a path it names.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sluiceway_core::diff::code_unit_order;
use sluiceway_core::failure::FailureReason;
use sluiceway_core::values::ValueList;
use sluiceway_tools::pulumi::{backend, events, history, paths, preview};
use sluiceway_tools::tool_log::ToolLog;

fuzz_target!(|data: &[u8]| {
    let mut log = ToolLog::default();
    let previewed = preview::read(data, &mut log, &ValueList::any_path());
    for read in [previewed, events::read(data, &mut log)] {
        match read {
            Ok(changes) => {
                assert!(changes
                    .windows(2)
                    .all(|w| code_unit_order(&w[0].address, &w[1].address).is_lt()));
                for change in &changes {
                    assert!(change.replace_keys.iter().all(|k| change.changed_keys.contains(k)));
                    assert!(change.values.windows(2).all(|w| code_unit_order(&w[0].path, &w[1].path).is_le()));
                    for key in &change.changed_keys {
                        assert_eq!(paths::parse(key).map(|p| p.to_string()).as_deref(), Some(key.as_str()));
                    }
                }
            }
            Err(failure) => assert!(matches!(
                failure.reason,
                FailureReason::UnreadableOutput | FailureReason::UnknownStep
            )),
        }
    }
    let _ = history::read(data);
    let _ = backend::read(data);
    if let Ok(text) = std::str::from_utf8(data)
        && let Some(path) = paths::parse(text)
    {
        let shared = path.to_string();
        assert_eq!(paths::parse(&shared).map(|p| p.to_string()), Some(shared));
    }
});

//! Any bytes as a release's two sides (the deployed manifest, a NUL, the render) and as
//! helm-diff's structured output: the comparison answers with changes or a problem that
//! names a side and an object, the plugin reader with changes or a fixed reason, the
//! tool diff with text, and none of them panics.
#![no_main]

use sluiceway_core::values::ValueList;
use libfuzzer_sys::fuzz_target;
use sluiceway_core::diff::code_unit_order;
use sluiceway_tools::helm::{compare, structured, tool_diff};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (deployed, rendered) = text.split_once('\0').unwrap_or(("", text));
    match compare::compare(deployed, rendered, "shop", &ValueList::any_path()) {
        Err(error) => {
            let said = error.to_string();
            assert!(
                said.starts_with("The deployed release's manifest")
                    || said.starts_with("The rendered release"),
                "{said}"
            );
        }
        Ok(changes) => {
            assert!(changes.windows(2).all(|w| code_unit_order(&w[0].address, &w[1].address).is_lt()));
            assert!(changes.iter().all(|c| c.replace_keys.is_empty() && c.tracking.is_none()));
            assert!(tool_diff::text(deployed, rendered, "shop").is_ok());
        }
    }
    if let Ok(changes) = structured::read(text, "shop", &ValueList::any_path()) {
        assert!(changes.windows(2).all(|w| code_unit_order(&w[0].address, &w[1].address).is_lt()));
    }
});

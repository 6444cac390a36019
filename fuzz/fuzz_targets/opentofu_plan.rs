//! Any bytes as `show -json` output: the plan reader answers with changes or a fixed
//! reason whose detail names a place, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sluiceway_tools::opentofu::plan::{self, PlanError};
use sluiceway_core::values::ValueList;

fuzz_target!(|data: &[u8]| {
    match plan::read(data, &ValueList::any_path()) {
        Ok(changes) => assert!(changes.windows(2).all(|w| w[0].address != w[1].address)),
        Err(PlanError::Unreadable(detail)) | Err(PlanError::UnknownStep(detail)) => assert!(detail.starts_with("The plan")),
    }
});

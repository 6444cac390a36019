//! The Infracost reader takes any bytes: it never panics, and an estimate it reads has a
//! currency of letters only, which a row may print.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(estimate) = sluiceway_tools::opentofu::cost::read(data) {
        assert!(!estimate.currency.is_empty());
        assert!(estimate.currency.bytes().all(|b| b.is_ascii_alphabetic()));
    }
});

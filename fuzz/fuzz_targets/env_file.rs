//! The env-file reader takes any text: it never panics, and what it reads holds only
//! well-formed names, each once.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(variables) = sluiceway_core::env_file::parse("fuzz.env", text) {
        let mut names: Vec<&str> = variables.iter().map(|v| v.name.as_str()).collect();
        assert!(names.iter().all(|n| !n.is_empty() && !n.contains('=')));
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), variables.len());
    }
});

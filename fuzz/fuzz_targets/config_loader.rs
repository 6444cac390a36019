//! Any bytes as `sluiceway.yaml`: the loader answers with a configuration or with
//! problems, never a panic, and every problem names a line and column inside the text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sluiceway_core::config;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Err(problems) = config::load("sluiceway.yaml", text) {
        assert!(!problems.is_empty());
        // YAML breaks lines at LF, CRLF and a lone CR alike.
        let lines = text.replace("\r\n", "\n").split(['\n', '\r']).count();
        for problem in problems {
            assert!(problem.position.line >= 1 && problem.position.line <= lines, "{problem}");
            assert!(problem.position.column >= 1);
        }
    }
});

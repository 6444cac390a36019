//! Any text as a Renovate configuration file: the merge method is read or the file is
//! named as not JSON5 at a line it has, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sluiceway_core::renovate::method;
use sluiceway_core::repo::MemoryRepo;

fuzz_target!(|text: &str| {
    for file in [".github/renovate.json5", "package.json"] {
        let repo = MemoryRepo::default().with(file, text);
        match method(&repo.files(), &repo) {
            Ok(asked) => assert!(asked.file.as_deref().is_none_or(|f| f == file)),
            Err(e) => {
                assert_eq!(e.file, file);
                // JSON5 ends a line at CR, LF, CRLF, U+2028 and U+2029, as editors do.
                let ends = text
                    .replace("\r\n", "\n")
                    .chars()
                    .filter(|c| matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}'))
                    .count();
                assert!(e.line >= 1 && e.line <= ends + 1, "{e}");
            }
        }
    }
});

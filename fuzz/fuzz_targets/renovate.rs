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
                assert!(e.line >= 1 && e.line <= text.lines().count().max(1) + 1, "{e}");
            }
        }
    }
});

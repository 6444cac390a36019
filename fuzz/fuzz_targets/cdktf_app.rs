//! Any bytes as a CDKTF app's `cdktf.json`: discovery answers with the app's stacks or
//! with problems, never a panic; every problem names the app's file and a line within
//! the text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sluiceway_core::config;
use sluiceway_core::discovery::discover;
use sluiceway_core::repo::MemoryRepo;

const CONFIG: &str = "stacks:\n  - path: app\n    name: dev\n    tool: opentofu\n    options: { wrapper: cdktf }\n";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let repo = MemoryRepo::default()
        .with("app/cdktf.json", text)
        .with("sluiceway.yaml", CONFIG);
    let config = config::load("sluiceway.yaml", CONFIG).expect("the entry is valid");
    match discover(&config, &repo.files(), &repo) {
        Ok(found) => assert_eq!(found.stacks.len(), 1),
        Err(problems) => {
            assert!(!problems.is_empty());
            let lines = text.lines().count().max(1);
            for problem in problems {
                assert_eq!(problem.file, "app/cdktf.json", "{problem}");
                assert!(
                    problem.position.line >= 1 && problem.position.line <= lines + 1,
                    "{problem}"
                );
            }
        }
    }
});

//! Any bytes as a Pulumi project file that an entry reads its phase from: discovery
//! answers with stacks or with problems, never a panic; a phase it reads is one of the
//! `phases`, and every problem names a file and a line.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sluiceway_core::config;
use sluiceway_core::discovery::discover;
use sluiceway_core::repo::MemoryRepo;

const CONFIG: &str = "phases: [base, apps]\nstacks:\n  - path: app\n    phase: { from: tier }\n";

fuzz_target!(|data: &[u8]| {
    let Ok(project) = std::str::from_utf8(data) else { return };
    let repo = MemoryRepo::default()
        .with("app/Pulumi.yaml", project)
        .with("app/Pulumi.dev.yaml", "")
        .with("sluiceway.yaml", CONFIG);
    let config = config::load("sluiceway.yaml", CONFIG).expect("the entry is valid");
    match discover(&config, &repo.files(), &repo) {
        Ok(found) => {
            for stack in &found.stacks {
                if let Some(phase) = &stack.settings.phase {
                    assert!(phase == "base" || phase == "apps", "{phase}");
                }
            }
        }
        Err(problems) => {
            assert!(!problems.is_empty());
            for problem in problems {
                assert!(!problem.file.is_empty() && problem.position.line >= 1, "{problem}");
            }
        }
    }
});

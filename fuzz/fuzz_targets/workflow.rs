//! Any bytes as a workflow file `check` reads: the readers name jobs and findings or
//! nothing, never a panic; every job they name is a key of the workflow's `jobs`, every
//! finding is on a line of the file, and every tool version a setup step names is text
//! of the file, on one of its lines.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sluiceway_core::workflow::lint::{Settings, lint};
use sluiceway_core::workflow::scans_nobody_applies;
use sluiceway_core::workflow::tool_setup::set_up_tools;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    for job in scans_nobody_applies(text, "sluiceway/sluiceway-rs") {
        assert!(text.contains(&job), "{job}");
    }
    let lines = text.lines().count().max(1);
    for setup in set_up_tools("w.yml", text) {
        assert!(text.contains(&setup.version), "{setup:?}");
        assert!(setup.line >= 1 && setup.line <= lines + 1, "{setup:?}");
    }
    for (merges, read_only) in [(false, false), (true, true)] {
        let settings = Settings { merges, read_only };
        let (jobs, findings) = lint("w.yml", text, "sluiceway/sluiceway-rs", settings);
        for job in &jobs {
            assert!(text.contains(&job.id), "{job:?}");
        }
        for finding in &findings {
            assert!(finding.line >= 1 && finding.line <= lines + 1, "{finding:?}");
        }
    }
});

//! Any bytes as a root module's file and as a version constraint: `required_versions`
//! reads a constraint or nothing, never a panic, each at a line of the file; and
//! `Version::meets` answers or declines, never panics, and agrees with itself on a
//! constraint read twice (every part must hold, so a constraint joined to itself means
//! the same).
#![no_main]

use libfuzzer_sys::fuzz_target;
use sluiceway_core::discovery::root_module::required_versions;
use sluiceway_core::repo::MemoryRepo;
use sluiceway_tools::version::Version;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let repo = MemoryRepo::default().with("m/main.tf", text);
    let lines = text.lines().count().max(1);
    for required in required_versions(&repo.files(), &repo, "m") {
        assert!(required.line >= 1 && required.line <= lines, "{required:?}");
    }
    let tofu = Version { major: 1, minor: 6, patch: 2 };
    let once = tofu.meets(text);
    if !text.contains(',') {
        assert_eq!(once, tofu.meets(&format!("{text},{text}")), "{text:?}");
    }
});

//! Any text as a `dashboard.showValues` entry, and any text as a path: judging never
//! panics, a refused entry is never one a list would hold, and a list of one accepted
//! entry matches a path only where its `*`s stand inside one segment (a path the entry
//! matches has no more dots and brackets than the entry itself).
#![no_main]

use libfuzzer_sys::fuzz_target;
use sluiceway_core::values::{ValueList, Verdict, judge};

fuzz_target!(|data: (&str, &str)| {
    let (entry, path) = data;
    let verdict = judge(entry);
    if matches!(verdict, Verdict::Refused(_)) {
        return;
    }
    let list = ValueList::new([entry.to_owned()]);
    if list.allows(path) {
        let structure = |s: &str| s.chars().filter(|c| matches!(c, '.' | '[' | ']')).count();
        assert_eq!(structure(entry), structure(path), "{entry:?} matched {path:?}");
    }
});

//! Any text as one side of a `kubectl diff`: wherever the line reader of kubectl's block
//! layout answers, the general YAML parser reads the same one object, and reading the
//! lines one by one answers what reading the text does. The reader never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sluiceway_tools::kubernetes::{block_yaml, objects};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let read = block_yaml::read(text);
    if let Some(body) = text.strip_suffix('\n') {
        assert_eq!(block_yaml::read_lines(body.split('\n')), read);
    }
    if let Some(object) = read {
        assert_eq!(objects::documents(text).ok(), Some(vec![object]), "{text:?}");
    }
});

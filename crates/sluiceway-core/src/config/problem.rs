//! A problem in `sluiceway.yaml`, named by place and key.

use std::fmt;

use super::document::{KeyPath, Position};

/// One thing wrong with the file. Problems are collected, never thrown one at a time,
/// so a person fixes the whole file in one go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigProblem {
    /// The file's name as the user knows it (`sluiceway.yaml`).
    pub file: String,
    pub position: Position,
    /// The key the problem is about; empty for the file as a whole.
    pub key: KeyPath,
    /// What was expected, in words.
    pub message: String,
}

impl fmt::Display for ConfigProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Position { line, column } = self.position;
        if self.key.0.is_empty() {
            write!(f, "{}:{line}:{column}: {}", self.file, self.message)
        } else {
            write!(
                f,
                "{}:{line}:{column}: {}: {}",
                self.file, self.key, self.message
            )
        }
    }
}

/// Sorts problems into file order, the order a person reads them in.
pub(crate) fn in_file_order(problems: &mut [ConfigProblem]) {
    problems.sort_by_key(|p| (p.position, p.key.to_string()));
}

//! The repository on disk, turned into the snapshot discovery works on.

use std::fs;
use std::path::{Path, PathBuf};

use sluiceway_core::repo::{FileSource, RepoFiles};
use walkdir::WalkDir;

/// Directories never listed: git's own, and installed packages.
const SKIPPED_DIRS: [&str; 2] = [".git", "node_modules"];

/// A checkout of the repository: its root directory.
#[derive(Debug, Clone)]
pub struct Checkout {
    root: PathBuf,
}

impl Checkout {
    pub fn new(root: impl Into<PathBuf>) -> Checkout {
        Checkout { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Every regular file below the root, as `/`-separated relative paths. Directory
    /// symlinks are not followed, so a link cannot make a file appear twice or escape
    /// the checkout; names that are not UTF-8 are left out.
    pub fn files(&self) -> std::io::Result<RepoFiles> {
        let mut paths = Vec::new();
        let walk = WalkDir::new(&self.root)
            .follow_links(false)
            .into_iter()
            .filter_entry(|e| {
                e.depth() == 0
                    || !(e.file_type().is_dir() && SKIPPED_DIRS.iter().any(|d| e.file_name() == *d))
            });
        for entry in walk {
            let entry = entry.map_err(std::io::Error::other)?;
            if !entry.file_type().is_file() {
                continue;
            }
            let Ok(relative) = entry.path().strip_prefix(&self.root) else {
                continue;
            };
            let Some(parts) = relative
                .iter()
                .map(|p| p.to_str())
                .collect::<Option<Vec<_>>>()
            else {
                continue;
            };
            paths.push(parts.join("/"));
        }
        Ok(RepoFiles::new(paths))
    }
}

impl FileSource for Checkout {
    fn read_text(&self, path: &str) -> Option<String> {
        fs::read_to_string(self.root.join(path)).ok()
    }
}

//! A snapshot of the repository's files, as discovery and claims see them.
//!
//! The core never walks a disk: the edge lists the files once and answers reads, so
//! discovery is a pure function of this snapshot and tests build one in memory.

use std::collections::{BTreeMap, BTreeSet};

/// Reads a file of the snapshot as text; `None` when it is missing or not text.
pub trait FileSource {
    fn read_text(&self, path: &str) -> Option<String>;
}

/// The repository's file paths: relative, `/`-separated, sorted.
#[derive(Debug, Clone, Default)]
pub struct RepoFiles {
    files: BTreeSet<String>,
    /// Each directory (`.` for the root) with the names of the files directly in it.
    dirs: BTreeMap<String, Vec<String>>,
}

impl RepoFiles {
    pub fn new(paths: impl IntoIterator<Item = String>) -> RepoFiles {
        let files: BTreeSet<String> = paths.into_iter().collect();
        let mut dirs: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for file in &files {
            let (dir, name) = split(file);
            dirs.entry(dir.to_owned())
                .or_default()
                .push(name.to_owned());
            let mut ancestor = dir;
            while ancestor != "." {
                ancestor = split(ancestor).0;
                dirs.entry(ancestor.to_owned()).or_default();
            }
        }
        RepoFiles { files, dirs }
    }

    pub fn files(&self) -> impl Iterator<Item = &str> {
        self.files.iter().map(String::as_str)
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    pub fn contains(&self, path: &str) -> bool {
        self.files.contains(path)
    }

    /// Whether a directory holds at least one file somewhere below it.
    pub fn has_dir(&self, dir: &str) -> bool {
        self.dirs.contains_key(dir)
    }

    /// The names of the files directly in `dir`, sorted.
    pub fn files_in(&self, dir: &str) -> &[String] {
        self.dirs.get(dir).map_or(&[], Vec::as_slice)
    }

    /// Every directory that holds files, sorted, `.` first.
    pub fn dirs(&self) -> impl Iterator<Item = &str> {
        self.dirs.keys().map(String::as_str)
    }

    /// Every file at or below `dir`.
    pub fn files_under<'a>(&'a self, dir: &'a str) -> impl Iterator<Item = &'a str> {
        let prefix = if dir == "." {
            String::new()
        } else {
            format!("{dir}/")
        };
        self.files
            .range(prefix.clone()..)
            .map(String::as_str)
            .take_while(move |f| f.starts_with(&prefix))
    }
}

/// Splits `a/b/c.yaml` into (`a/b`, `c.yaml`), and `c.yaml` into (`.`, `c.yaml`).
pub fn split(path: &str) -> (&str, &str) {
    match path.rsplit_once('/') {
        Some((dir, name)) => (dir, name),
        None => (".", path),
    }
}

/// The path of `name` inside `dir` (`.` for the root).
pub fn child(dir: &str, name: &str) -> String {
    if dir == "." {
        name.to_owned()
    } else {
        format!("{dir}/{name}")
    }
}

/// Joins a directory (`.` for the root) and a relative path, resolving `.` and `..`.
/// `None` when the result would leave the repository.
pub fn join(dir: &str, relative: &str) -> Option<String> {
    let mut parts: Vec<&str> = if dir == "." {
        Vec::new()
    } else {
        dir.split('/').collect()
    };
    for part in relative.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    Some(if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    })
}

/// Whether `path` lies in `dir` or below it; everything lies in the root.
pub fn is_within(path: &str, dir: &str) -> bool {
    dir == "."
        || path == dir
        || (path.starts_with(dir) && path.as_bytes().get(dir.len()) == Some(&b'/'))
}

/// An in-memory repository, for tests and benchmarks.
#[derive(Debug, Clone, Default)]
pub struct MemoryRepo {
    pub contents: BTreeMap<String, String>,
}

impl MemoryRepo {
    pub fn with(mut self, path: &str, text: &str) -> MemoryRepo {
        self.contents.insert(path.to_owned(), text.to_owned());
        self
    }

    pub fn files(&self) -> RepoFiles {
        RepoFiles::new(self.contents.keys().cloned())
    }
}

impl FileSource for MemoryRepo {
    fn read_text(&self, path: &str) -> Option<String> {
        self.contents.get(path).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_are_known_with_their_files() {
        let files = RepoFiles::new([
            "a/b/c.tf".to_owned(),
            "a/x.yaml".to_owned(),
            "README.md".to_owned(),
        ]);
        assert_eq!(files.files_in("a/b"), ["c.tf"]);
        assert_eq!(files.files_in("."), ["README.md"]);
        assert!(files.has_dir("a") && files.has_dir("a/b"));
        assert_eq!(
            files.files_under("a").collect::<Vec<_>>(),
            ["a/b/c.tf", "a/x.yaml"]
        );
        assert_eq!(files.files_under(".").count(), 3);
    }

    #[test]
    fn joins_stay_inside_the_repository() {
        assert_eq!(join("a/b", "../c").as_deref(), Some("a/c"));
        assert_eq!(join(".", "./x/").as_deref(), Some("x"));
        assert_eq!(join("a", "..").as_deref(), Some("."));
        assert_eq!(join("a", "../.."), None);
    }

    #[test]
    fn within_means_below_not_beside() {
        assert!(is_within("apps/web/main.tf", "apps/web"));
        assert!(!is_within("apps/web2/main.tf", "apps/web"));
        assert!(is_within("anything", "."));
    }
}

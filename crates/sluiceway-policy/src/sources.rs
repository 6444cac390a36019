//! Finding a team's Rego files: each configured path is a file or a folder, read the way
//! Conftest's loader reads `--policy` (every `*.rego` file below a folder, in path order).

use std::path::{Path, PathBuf};

/// One Rego file, by the path the configuration named it with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// Repository-relative, with `/` separators: the name messages and errors use.
    pub path: String,
    pub text: String,
}

/// Why the configured paths gave no policies to compile.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("{path}: no such file or folder")]
    Missing { path: String },
    #[error("{path}: could not be read ({kind})")]
    Unreadable {
        path: String,
        kind: std::io::ErrorKind,
    },
    #[error("no .rego file in {}", paths.join(", "))]
    NoPolicies { paths: Vec<String> },
}

/// Reads every Rego file the repository-relative `paths` name under `root`. A path that
/// names a file is read whatever its extension, as Conftest does; a folder gives its
/// `*.rego` files at any depth. A file two paths name is read once.
pub fn load(root: &Path, paths: &[String]) -> Result<Vec<Source>, LoadError> {
    let mut found: Vec<(String, PathBuf)> = Vec::new();
    for path in paths {
        let on_disk = root.join(path);
        let meta = std::fs::metadata(&on_disk).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => LoadError::Missing { path: path.clone() },
            kind => LoadError::Unreadable {
                path: path.clone(),
                kind,
            },
        })?;
        if meta.is_file() {
            found.push((relative(path), on_disk));
            continue;
        }
        let mut files = Vec::new();
        for entry in walkdir::WalkDir::new(&on_disk).sort_by_file_name() {
            let entry = entry.map_err(|e| LoadError::Unreadable {
                path: path.clone(),
                kind: e
                    .io_error()
                    .map_or(std::io::ErrorKind::Other, |io| io.kind()),
            })?;
            if entry.file_type().is_file()
                && entry.path().extension().is_some_and(|ext| ext == "rego")
            {
                let below = entry
                    .path()
                    .strip_prefix(&on_disk)
                    .unwrap_or(entry.path())
                    .to_string_lossy()
                    .replace('\\', "/");
                files.push((relative(&format!("{path}/{below}")), entry.into_path()));
            }
        }
        found.extend(files);
    }
    found.sort();
    found.dedup_by(|a, b| a.0 == b.0);
    if found.is_empty() {
        return Err(LoadError::NoPolicies {
            paths: paths.to_vec(),
        });
    }
    found
        .into_iter()
        .map(|(path, on_disk)| {
            std::fs::read_to_string(&on_disk)
                .map(|text| Source {
                    path: path.clone(),
                    text,
                })
                .map_err(|e| LoadError::Unreadable {
                    path,
                    kind: e.kind(),
                })
        })
        .collect()
}

/// The path as the configuration would write it: no `./`, no doubled or trailing `/`.
fn relative(path: &str) -> String {
    path.split('/')
        .filter(|part| !part.is_empty() && *part != ".")
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_gives_its_rego_files_at_any_depth_in_path_order_and_once() {
        let root = tempfile::tempdir().unwrap();
        let write = |p: &str, text: &str| {
            let path = root.path().join(p);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write("policy/b.rego", "package b");
        write("policy/deep/a.rego", "package a");
        write("policy/notes.md", "not rego");
        write("extra.txt", "package extra");
        let sources = load(
            root.path(),
            &[
                "./policy/".into(),
                "extra.txt".into(),
                "policy/b.rego".into(),
            ],
        )
        .unwrap();
        let paths: Vec<&str> = sources.iter().map(|s| s.path.as_str()).collect();
        assert_eq!(paths, ["extra.txt", "policy/b.rego", "policy/deep/a.rego"]);
    }

    #[test]
    fn a_missing_path_and_a_folder_without_rego_are_named() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("empty")).unwrap();
        let missing = load(root.path(), &["does-not-exist".into()]).unwrap_err();
        assert_eq!(
            missing.to_string(),
            "does-not-exist: no such file or folder"
        );
        let none = load(root.path(), &["empty".into()]).unwrap_err();
        assert_eq!(none.to_string(), "no .rego file in empty");
    }
}

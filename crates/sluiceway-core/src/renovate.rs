//! The merge method an update bot's own configuration asks for (decision 0064): a tick
//! merges an update the way Renovate itself would have. The first file of the list that
//! exists is read with a real JSON5 parser, and only its `automergeStrategy`:
//! `squash`, `rebase` and `merge-commit` name a method; `auto`, `fast-forward` or no
//! strategy leave GitHub's own default, a merge commit. Presets and `packageRules` are
//! not followed. A file that is not JSON5 is an error naming the file, line and column,
//! so nothing merges on a guess.

use serde_json::Value;

use crate::repo::{FileSource, RepoFiles};

/// Where Renovate looks for its configuration, in its own order.
pub const FILES: [&str; 11] = [
    "renovate.json",
    "renovate.jsonc",
    "renovate.json5",
    ".github/renovate.json",
    ".github/renovate.jsonc",
    ".github/renovate.json5",
    ".renovaterc",
    ".renovaterc.json",
    ".renovaterc.jsonc",
    ".renovaterc.json5",
    "package.json",
];

/// How GitHub is asked to merge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Merge,
    Squash,
    Rebase,
}

/// What the configuration asks for, and the file that says so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asked {
    pub method: Method,
    /// `None` when no file names a strategy and GitHub's default is used.
    pub file: Option<String>,
}

/// A configuration file that is not JSON5.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{file}:{line}:{column}: not JSON5, so the merge method it asks for cannot be read: {message}"
)]
pub struct NotJson5 {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// Reads the method from the repository's files.
pub fn method(files: &RepoFiles, source: &impl FileSource) -> Result<Asked, NotJson5> {
    for file in FILES {
        if !files.contains(file) {
            continue;
        }
        let Some(text) = source.read_text(file) else {
            continue;
        };
        let value: Value = json5::from_str(&text).map_err(|e| {
            let (line, column) = e.position().map_or((1, 1), |p| (p.line + 1, p.column + 1));
            NotJson5 {
                file: file.to_owned(),
                line,
                column,
                message: e.to_string(),
            }
        })?;
        let config = if file == "package.json" {
            match value.get("renovate") {
                Some(config) => config.clone(),
                None => continue,
            }
        } else {
            value
        };
        let method = match config.get("automergeStrategy").and_then(Value::as_str) {
            Some("squash") => Method::Squash,
            Some("rebase") => Method::Rebase,
            Some("merge-commit") => Method::Merge,
            _ => {
                return Ok(Asked {
                    method: Method::Merge,
                    file: None,
                });
            }
        };
        return Ok(Asked {
            method,
            file: Some(file.to_owned()),
        });
    }
    Ok(Asked {
        method: Method::Merge,
        file: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo::MemoryRepo;

    fn asked(files: &[(&str, &str)]) -> Result<Asked, NotJson5> {
        let mut repo = MemoryRepo::default();
        for (path, text) in files {
            repo = repo.with(path, text);
        }
        method(&repo.files(), &repo)
    }

    #[test]
    fn the_first_file_renovate_reads_names_the_method() {
        let json5 = "{\n  // squash, as the team likes it\n  automergeStrategy: 'squash',\n  extends: ['config:recommended',],\n}\n";
        assert_eq!(
            asked(&[
                (".github/renovate.json5", json5),
                (".renovaterc", "{\"automergeStrategy\": \"rebase\"}")
            ])
            .unwrap(),
            Asked {
                method: Method::Squash,
                file: Some(".github/renovate.json5".into())
            }
        );
        assert_eq!(
            asked(&[(".renovaterc", "{\"automergeStrategy\": \"rebase\"}")])
                .unwrap()
                .method,
            Method::Rebase
        );
        assert_eq!(
            asked(&[(
                "package.json",
                "{\"renovate\": {\"automergeStrategy\": \"merge-commit\"}}"
            )])
            .unwrap()
            .method,
            Method::Merge
        );
        for auto in [
            "{automergeStrategy: 'auto'}",
            "{automergeStrategy: 'fast-forward'}",
            "{}",
        ] {
            assert_eq!(
                asked(&[("renovate.json", auto)]).unwrap(),
                Asked {
                    method: Method::Merge,
                    file: None
                }
            );
        }
        assert_eq!(asked(&[]).unwrap().file, None);
    }

    #[test]
    fn a_file_that_is_not_json5_is_named_with_its_line() {
        let e = asked(&[(
            "renovate.json",
            "{\n  automergeStrategy: 'squash'\n  extends: [\n}\n",
        )])
        .unwrap_err();
        assert_eq!(e.file, "renovate.json");
        assert_eq!(e.line, 3, "{e}");
        assert!(e.to_string().starts_with("renovate.json:3:"), "{e}");
    }
}

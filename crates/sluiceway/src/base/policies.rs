//! The policies of a job (decision 0106, ADR 0034): each distinct list of `policies`
//! paths the stacks name is read and compiled once, in-process. `check` reports a list
//! that cannot be used at the key that names it; a scan says so, keeps the boxes of the
//! stacks it covers, and tells their rows that nothing was checked.

use std::path::Path;

use sluiceway_core::config::ConfigProblem;
use sluiceway_core::stack::{NamedPath, StackSettings};
use sluiceway_policy::{CompileError, LoadError, Policies};

/// Every list of policy paths the stacks name, each compiled or refused.
pub struct PolicySets {
    sets: Vec<(Vec<String>, Result<Policies, Unusable>)>,
}

/// A list of policies that cannot be used.
#[derive(Debug, Clone)]
pub struct Unusable {
    /// The key that names the path at fault (the list's first when no one path is).
    pub(crate) setting: NamedPath,
    /// Why, in Sluiceway's few words, for a row.
    pub(crate) reason: &'static str,
    /// Why, whole (file, line, the interpreter's message), for `check` and the job log.
    pub(crate) words: String,
}

impl PolicySets {
    /// Reads and compiles the lists the stacks name under `root`.
    pub(crate) fn compile<'a>(
        root: &Path,
        settings: impl IntoIterator<Item = &'a StackSettings>,
    ) -> PolicySets {
        let mut sets: Vec<(Vec<String>, Result<Policies, Unusable>)> = Vec::new();
        for stack in settings {
            let paths = paths(stack);
            if paths.is_empty() || sets.iter().any(|(known, _)| *known == paths) {
                continue;
            }
            let compiled = compile(root, &stack.policies);
            sets.push((paths, compiled));
        }
        PolicySets { sets }
    }

    /// The policies a stack's pending change is judged by; `None` when it names none.
    pub(crate) fn of(&self, stack: &StackSettings) -> Option<Result<&Policies, &Unusable>> {
        let paths = paths(stack);
        self.sets
            .iter()
            .find(|(known, _)| *known == paths)
            .map(|(_, compiled)| compiled.as_ref())
    }

    /// Every list that cannot be used, as a problem at its key in `file`, once per key.
    pub(crate) fn problems(&self, file: &str) -> Vec<ConfigProblem> {
        let mut problems: Vec<ConfigProblem> = self
            .sets
            .iter()
            .filter_map(|(_, compiled)| compiled.as_ref().err())
            .map(|u| u.setting.problem(file, u.words.clone()))
            .collect();
        problems.sort_by_key(|p| (p.position, p.key.to_string()));
        problems.dedup_by(|a, b| a.key == b.key && a.message == b.message);
        problems
    }
}

fn paths(stack: &StackSettings) -> Vec<String> {
    stack.policies.iter().map(|p| p.path.clone()).collect()
}

fn compile(root: &Path, settings: &[NamedPath]) -> Result<Policies, Unusable> {
    let paths: Vec<String> = settings.iter().map(|p| p.path.clone()).collect();
    let naming = |file: &str| {
        settings
            .iter()
            .find(|s| file == s.path || file.starts_with(&format!("{}/", s.path)))
            .unwrap_or(&settings[0])
            .clone()
    };
    let sources = sluiceway_policy::sources::load(root, &paths).map_err(|e| {
        let (setting, reason) = match &e {
            LoadError::Missing { path } => (naming(path), "a policy path does not exist"),
            LoadError::Unreadable { path, .. } => (naming(path), "a policy file could not be read"),
            LoadError::NoPolicies { .. } => (settings[0].clone(), "no .rego file was found"),
        };
        Unusable {
            setting,
            reason,
            words: format!("the policies cannot be read: {e}"),
        }
    })?;
    Policies::compile(&sources).map_err(|e| {
        let (setting, reason) = match &e {
            CompileError::Parse { at, .. } => (
                naming(at.split(':').next().unwrap_or(at)),
                "a policy does not parse",
            ),
            CompileError::IfWithoutContains { path, .. } => {
                (naming(path), "a policy rule has no message")
            }
            CompileError::Compile { .. } => (settings[0].clone(), "the policies do not compile"),
        };
        Unusable {
            setting,
            reason,
            words: format!("the policies cannot be used: {e}"),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use sluiceway_core::config::{KeyPath, Position};

    fn setting(path: &str, line: usize) -> NamedPath {
        NamedPath {
            path: path.to_owned(),
            key: KeyPath::default().key("policies").index(line - 1),
            position: Position { line, column: 5 },
        }
    }

    #[test]
    fn a_list_that_cannot_be_used_is_named_at_the_key_of_the_path_at_fault() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("good")).unwrap();
        std::fs::create_dir_all(root.path().join("bad")).unwrap();
        std::fs::write(root.path().join("good/ok.rego"), "package ok\n").unwrap();
        std::fs::write(root.path().join("bad/no.rego"), "package no\ndeny[msg] {\n").unwrap();
        let stacks = [
            StackSettings {
                policies: vec![setting("good", 1), setting("bad", 2)],
                ..StackSettings::default()
            },
            StackSettings {
                policies: vec![setting("good", 1), setting("missing", 3)],
                ..StackSettings::default()
            },
            StackSettings {
                policies: vec![setting("good", 1)],
                ..StackSettings::default()
            },
            StackSettings::default(),
        ];
        let sets = PolicySets::compile(root.path(), &stacks);
        let problems: Vec<String> = sets
            .problems("sluiceway.yaml")
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(
            problems[0].starts_with(
                "sluiceway.yaml:2:5: policies[1]: the policies cannot be used: bad/no.rego:2:"
            ),
            "{}",
            problems[0]
        );
        assert_eq!(
            problems[1],
            "sluiceway.yaml:3:5: policies[2]: the policies cannot be read: missing: no such file or folder"
        );
        assert!(sets.of(&stacks[2]).unwrap().is_ok());
        assert_eq!(
            sets.of(&stacks[0]).unwrap().err().unwrap().reason,
            "a policy does not parse"
        );
        assert!(sets.of(&stacks[3]).is_none());
    }
}

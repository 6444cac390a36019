//! Env files, read from the checkout (decisions 0014 and 0103): the step's `env-file`,
//! which every tool of the job gets, and a stack's own `envFile`, which only that stack's
//! tool gets, over the step's. Each file is read once per job and every value is masked
//! before anything else is printed; the log names the variables, never their values. A
//! stack whose file cannot be loaded fails alone, with a fixed reason on its row and the
//! place (the file's line, or the key of `sluiceway.yaml` that names it) in the job log.

use std::collections::BTreeMap;
use std::path::Path;

use sluiceway_core::env_file::{self, EnvFileError, SHORTEST_MASKED, Variable};
use sluiceway_core::stack::{Stack, StackId};

use crate::base::printer::Printer;

/// Why an env file could not be loaded; never a value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum LoadError {
    #[error("{path} could not be read: {kind}")]
    Unreadable {
        path: String,
        kind: std::io::ErrorKind,
    },
    #[error("{0}")]
    Refused(#[from] EnvFileError),
}

/// The variables of the file at `path` from the repository root.
pub(crate) fn load(root: &Path, path: &str) -> Result<Vec<Variable>, LoadError> {
    let text = std::fs::read_to_string(root.join(path)).map_err(|e| LoadError::Unreadable {
        path: path.to_owned(),
        kind: e.kind(),
    })?;
    Ok(env_file::parse(path, &text)?)
}

/// Masks every value long enough to mask, then names the variables: `what` gets them.
pub(crate) fn announce(variables: &[Variable], what: &str, path: &str, printer: &mut Printer) {
    for variable in variables {
        if variable.value.chars().count() >= SHORTEST_MASKED {
            printer.say(&format!("::add-mask::{}", variable.value));
        }
    }
    let names: Vec<&str> = variables.iter().map(|v| v.name.as_str()).collect();
    printer.say(&format!(
        "{what} gets {} from {path}: {}.",
        match names.len() {
            1 => "1 variable".to_owned(),
            n => format!("{n} variables"),
        },
        names.join(", ")
    ));
}

/// Each stack's tool environment: the job's (with the step's file in it), and over it
/// the stack's own file, key by key.
#[derive(Debug, Default)]
pub(crate) struct StackEnvs {
    own: BTreeMap<StackId, Result<BTreeMap<String, String>, ()>>,
}

impl StackEnvs {
    /// Reads every file the stacks name, once each, masking and naming as it goes. A
    /// file that cannot be loaded is an error in the log at the key of `config_file` that
    /// names it, for each stack that names it.
    pub(crate) fn load(
        root: &Path,
        stacks: &[&Stack],
        job_env: &BTreeMap<String, String>,
        config_file: &str,
        printer: &mut Printer,
    ) -> StackEnvs {
        let mut files: BTreeMap<&str, Result<Vec<Variable>, LoadError>> = BTreeMap::new();
        let mut own = BTreeMap::new();
        for stack in stacks {
            let Some(setting) = &stack.settings.env_file else {
                continue;
            };
            let loaded = files.entry(setting.path.as_str()).or_insert_with(|| {
                let loaded = load(root, &setting.path);
                if let Ok(variables) = &loaded {
                    announce(variables, "Its stacks' tool", &setting.path, printer);
                }
                loaded
            });
            let env = match loaded {
                Ok(variables) => {
                    let mut env = job_env.clone();
                    env.extend(variables.iter().map(|v| (v.name.clone(), v.value.clone())));
                    Ok(env)
                }
                Err(why) => {
                    let problem = setting.problem(config_file, format!("the env file {why}"));
                    printer.say(&format!(
                        "::error::{}: {problem}. Its preview failed; the other stacks go on.",
                        stack.id
                    ));
                    Err(())
                }
            };
            own.insert(stack.id.clone(), env);
        }
        StackEnvs { own }
    }

    /// The environment of `stack`'s tool; `Err` when its own file could not be loaded.
    pub(crate) fn of<'a>(
        &'a self,
        stack: &StackId,
        job_env: &'a BTreeMap<String, String>,
    ) -> Result<&'a BTreeMap<String, String>, NotLoaded> {
        match self.own.get(stack) {
            None => Ok(job_env),
            Some(Ok(env)) => Ok(env),
            Some(Err(())) => Err(NotLoaded),
        }
    }

    /// The file `stack`'s env comes from, when it has one: stacks of one file share
    /// their preparations.
    pub(crate) fn source(stack: &Stack) -> Option<&str> {
        stack.settings.env_file.as_ref().map(|f| f.path.as_str())
    }
}

/// A stack's own env file could not be loaded; the log said where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NotLoaded;

#[cfg(test)]
mod tests {
    use sluiceway_core::config::{KeyPath, Position};
    use sluiceway_core::stack::{NamedPath, Origin, StackSettings, Tool, ToolOptions};

    use super::*;

    fn stack(path: &str, env_file: Option<&str>) -> Stack {
        Stack {
            id: StackId::derive(path, None),
            path: path.to_owned(),
            name: None,
            tool: Tool::OpenTofu,
            options: ToolOptions::Pulumi,
            origin: Origin::Declared(0),
            settings: StackSettings {
                env_file: env_file.map(|path| NamedPath {
                    path: path.to_owned(),
                    key: KeyPath::default().key("stacks").key("envFile"),
                    position: Position { line: 7, column: 5 },
                }),
                ..StackSettings::default()
            },
        }
    }

    #[test]
    fn a_file_named_by_two_stacks_is_read_and_masked_once_and_each_stack_gets_its_own() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(
            root.path().join("shared.env"),
            "TOKEN=shared-token\nKEEP=kept-by-the-stack\n",
        )
        .unwrap();
        let stacks = [
            stack("a", Some("shared.env")),
            stack("b", Some("shared.env")),
            stack("c", None),
            stack("d", Some("missing.env")),
        ];
        let job_env = BTreeMap::from([
            ("KEEP".to_owned(), "the job's".to_owned()),
            ("PATH".to_owned(), "/bin".to_owned()),
        ]);
        let log = tempfile::NamedTempFile::new().unwrap();
        let mut printer = Printer::new(Box::new(std::io::sink()), Box::new(log.reopen().unwrap()));
        let refs: Vec<&Stack> = stacks.iter().collect();
        let envs = StackEnvs::load(root.path(), &refs, &job_env, "sluiceway.yaml", &mut printer);
        drop(printer);
        let said = std::fs::read_to_string(log.path()).unwrap();

        assert_eq!(
            said.matches("::add-mask::shared-token").count(),
            1,
            "{said}"
        );
        assert_eq!(said.matches("from shared.env").count(), 1, "{said}");
        let a = envs.of(&stacks[0].id, &job_env).unwrap();
        assert_eq!(
            a["KEEP"], "kept-by-the-stack",
            "the stack's file wins key by key"
        );
        assert_eq!(a["PATH"], "/bin");
        assert_eq!(envs.of(&stacks[1].id, &job_env).unwrap(), a);
        assert_eq!(envs.of(&stacks[2].id, &job_env).unwrap(), &job_env);
        assert_eq!(envs.of(&stacks[3].id, &job_env), Err(NotLoaded));
        assert!(
            said.contains("::error::d: sluiceway.yaml:7:5: stacks.envFile: the env file missing.env could not be read"),
            "{said}"
        );
        assert!(
            said.lines()
                .filter(|l| !l.starts_with("::add-mask::"))
                .all(|l| !l.contains("kept-by-the-stack") && !l.contains("shared-token")),
            "no value but in its mask line: {said}"
        );
    }
}

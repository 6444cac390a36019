//! Pulumi stacks, found from files alone: a project file `Pulumi.yaml` (or `.yml`) and,
//! beside it or in its `stackConfigDir`, one `Pulumi.<name>.<same extension>` per stack.

use saphyr::{LoadableYamlNode, Yaml};

use crate::config::{ConfigProblem, KeyPath, Position};
use crate::repo::{FileSource, RepoFiles, child, join};

/// A stack file found for a project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PulumiStack {
    /// The project's directory.
    pub dir: String,
    pub name: String,
    /// The stack file, as evidence.
    pub file: String,
}

pub(crate) fn find(
    files: &RepoFiles,
    source: &impl FileSource,
    problems: &mut Vec<ConfigProblem>,
) -> Vec<PulumiStack> {
    let mut stacks = Vec::new();
    for dir in files.dirs() {
        let names = files.files_in(dir);
        let projects: Vec<&str> = ["yaml", "yml"]
            .into_iter()
            .filter(|ext| names.iter().any(|n| *n == format!("Pulumi.{ext}")))
            .collect();
        let ext = match projects.as_slice() {
            [] => continue,
            [ext] => *ext,
            _ => {
                problems.push(file_problem(
                    &child(dir, "Pulumi.yml"),
                    Position { line: 1, column: 1 },
                    "this directory has both Pulumi.yaml and Pulumi.yml; keep one",
                ));
                continue;
            }
        };
        let project_file = child(dir, &format!("Pulumi.{ext}"));
        let config_dir = match stack_config_dir(&project_file, source) {
            Ok(None) => dir.to_owned(),
            Ok(Some(relative)) => match join(dir, &relative) {
                Some(config_dir) => config_dir,
                None => {
                    problems.push(file_problem(
                        &project_file,
                        Position { line: 1, column: 1 },
                        "stackConfigDir leaves the repository",
                    ));
                    continue;
                }
            },
            Err(problem) => {
                problems.push(problem);
                continue;
            }
        };
        let suffix = format!(".{ext}");
        for name in files.files_in(&config_dir) {
            let Some(stack) = name
                .strip_prefix("Pulumi.")
                .and_then(|rest| rest.strip_suffix(&suffix))
            else {
                continue;
            };
            if stack.is_empty() {
                continue;
            }
            stacks.push(PulumiStack {
                dir: dir.to_owned(),
                name: stack.to_owned(),
                file: child(&config_dir, name),
            });
        }
    }
    stacks
}

fn file_problem(file: &str, position: Position, message: &str) -> ConfigProblem {
    ConfigProblem {
        file: file.to_owned(),
        position,
        key: KeyPath::default(),
        message: message.to_owned(),
    }
}

/// The project's `stackConfigDir`, when it sets one.
fn stack_config_dir(
    project_file: &str,
    source: &impl FileSource,
) -> Result<Option<String>, ConfigProblem> {
    let text = source.read_text(project_file).ok_or_else(|| {
        file_problem(
            project_file,
            Position { line: 1, column: 1 },
            "the Pulumi project file could not be read as text",
        )
    })?;
    let docs = Yaml::load_from_str(&text).map_err(|e| {
        file_problem(
            project_file,
            Position {
                line: e.marker().line(),
                column: e.marker().col() + 1,
            },
            &format!("not valid YAML: {}", e.info()),
        )
    })?;
    let Some(root) = docs.first() else {
        return Ok(None);
    };
    Ok(root
        .as_mapping_get("stackConfigDir")
        .and_then(|v| v.as_str())
        .map(str::to_owned))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo::MemoryRepo;

    #[test]
    fn stacks_sit_beside_the_project_or_in_its_config_dir() {
        let repo = MemoryRepo::default()
            .with("apps/web/Pulumi.yaml", "name: web\nruntime: nodejs\n")
            .with("apps/web/Pulumi.dev.yaml", "")
            .with("apps/web/Pulumi.prod.yaml", "")
            .with("apps/web/Pulumi.prod.yml", "")
            .with("db/Pulumi.yml", "name: db\nstackConfigDir: config\n")
            .with("db/config/Pulumi.main.yml", "");
        let mut problems = Vec::new();
        let found = find(&repo.files(), &repo, &mut problems);
        let ids: Vec<String> = found
            .iter()
            .map(|s| format!("{}:{}", s.dir, s.name))
            .collect();
        assert_eq!(ids, ["apps/web:dev", "apps/web:prod", "db:main"]);
        assert!(problems.is_empty());
    }

    #[test]
    fn a_broken_project_file_is_named() {
        let repo = MemoryRepo::default()
            .with("x/Pulumi.yaml", "name: [x\n")
            .with("x/Pulumi.a.yaml", "");
        let mut problems = Vec::new();
        find(&repo.files(), &repo, &mut problems);
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].file, "x/Pulumi.yaml");
    }
}

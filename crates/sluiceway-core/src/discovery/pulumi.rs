//! Pulumi stacks, found from files alone: a project file `Pulumi.yaml` (or `.yml`) and,
//! beside it or in its `stackConfigDir`, one `Pulumi.<name>.<same extension>` per stack.
//! The project's name and the stack references its YAML program names are read here
//! too, for `dependsOn: auto`; no tool runs.

use saphyr::{LoadableYamlNode, YamlOwned};

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
    /// The project's `name`.
    pub project: Option<String>,
    /// The `name` of every `pulumi:pulumi:StackReference` its YAML program declares.
    pub references: Vec<String>,
    /// The project file as read, for `phase: { from }`.
    pub project_file: ProjectFile,
}

/// A project file's text keys, read only when an entry asks for one by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ProjectFile {
    pub path: String,
    root: Option<YamlOwned>,
}

/// What a project key holds, for `phase: { from: <key> }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ProjectKey {
    Text(String),
    /// Marked `secret: true`: never read.
    Secret,
    /// Neither under `config` nor at the top level.
    Missing,
    /// There, but not text (nor a mapping with a text `value` or `default`).
    NotText,
}

impl ProjectFile {
    /// `config.<key>` (text, or a mapping with a text `value`, else `default`), else the
    /// top-level `<key>`. A config key marked secret is never read.
    pub(crate) fn key(&self, key: &str) -> ProjectKey {
        let Some(root) = &self.root else {
            return ProjectKey::Missing;
        };
        let text = |node: &YamlOwned| node.as_str().map(str::to_owned);
        if let Some(node) = root
            .as_mapping_get("config")
            .and_then(|c| c.as_mapping_get(key))
        {
            if node.is_mapping() {
                if node
                    .as_mapping_get("secret")
                    .and_then(|s| s.as_bool())
                    .unwrap_or(false)
                {
                    return ProjectKey::Secret;
                }
                return ["value", "default"]
                    .iter()
                    .find_map(|k| node.as_mapping_get(k).and_then(text))
                    .map_or(ProjectKey::NotText, ProjectKey::Text);
            }
            return text(node).map_or(ProjectKey::NotText, ProjectKey::Text);
        }
        match root.as_mapping_get(key) {
            Some(node) => text(node).map_or(ProjectKey::NotText, ProjectKey::Text),
            None => ProjectKey::Missing,
        }
    }
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
        let project = match read_project(&project_file, source) {
            Ok(project) => project,
            Err(problem) => {
                problems.push(problem);
                continue;
            }
        };
        let references = references(dir, &project, source);
        let config_dir = match &project.stack_config_dir {
            None => dir.to_owned(),
            Some(relative) => match join(dir, relative) {
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
                project: project.name.clone(),
                references: references.clone(),
                project_file: ProjectFile {
                    path: project_file.clone(),
                    root: project.root.clone(),
                },
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

/// What discovery reads of a project file.
struct Project {
    name: Option<String>,
    stack_config_dir: Option<String>,
    /// The YAML runtime's program: its resources, when they sit in the project file.
    yaml: Option<YamlOwned>,
    /// `main`: the directory of a YAML program's `Main.yaml`.
    main: Option<String>,
    /// The whole file, for the keys an entry names.
    root: Option<YamlOwned>,
}

fn parse(text: &str) -> Result<Option<YamlOwned>, saphyr::ScanError> {
    Ok(YamlOwned::load_from_str(text)?.into_iter().next())
}

fn read_project(project_file: &str, source: &impl FileSource) -> Result<Project, ConfigProblem> {
    let text = source.read_text(project_file).ok_or_else(|| {
        file_problem(
            project_file,
            Position { line: 1, column: 1 },
            "the Pulumi project file could not be read as text",
        )
    })?;
    let root = parse(&text).map_err(|e| {
        file_problem(
            project_file,
            Position {
                line: e.marker().line(),
                column: e.marker().col() + 1,
            },
            &format!("not valid YAML: {}", e.info()),
        )
    })?;
    let text_of = |key: &str| {
        root.as_ref()
            .and_then(|r| r.as_mapping_get(key))
            .and_then(|v| v.as_str())
            .map(str::to_owned)
    };
    let runtime = root
        .as_ref()
        .and_then(|r| r.as_mapping_get("runtime"))
        .and_then(|r| {
            r.as_str()
                .or_else(|| r.as_mapping_get("name").and_then(|n| n.as_str()))
                .map(str::to_owned)
        });
    Ok(Project {
        name: text_of("name"),
        stack_config_dir: text_of("stackConfigDir"),
        main: text_of("main"),
        yaml: root.clone().filter(|_| runtime.as_deref() == Some("yaml")),
        root,
    })
}

/// The names a YAML program's stack references give, written as plain text; a name
/// built from an expression is left to the preview. Programs in other languages are not
/// read.
fn references(dir: &str, project: &Project, source: &impl FileSource) -> Vec<String> {
    let Some(project_yaml) = &project.yaml else {
        return Vec::new();
    };
    let program = match &project.main {
        None => Some(project_yaml.clone()),
        Some(main) => join(dir, main.trim_end_matches('/'))
            .and_then(|main_dir| source.read_text(&child(&main_dir, "Main.yaml")))
            .and_then(|text| parse(&text).ok().flatten()),
    };
    let Some(resources) = program
        .as_ref()
        .and_then(|p| p.as_mapping_get("resources"))
        .and_then(|r| r.as_mapping())
    else {
        return Vec::new();
    };
    let mut names: Vec<String> = resources
        .values()
        .filter(|r| {
            r.as_mapping_get("type").and_then(|t| t.as_str())
                == Some("pulumi:pulumi:StackReference")
        })
        .filter_map(|r| {
            r.as_mapping_get("properties")
                .and_then(|p| p.as_mapping_get("name"))
                .and_then(|n| n.as_str())
                .map(str::to_owned)
        })
        .collect();
    names.sort();
    names.dedup();
    names
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

    #[test]
    fn a_yaml_program_names_its_stack_references() {
        let reference = |name: &str| {
            format!(
                "  {name}:\n    type: pulumi:pulumi:StackReference\n    properties:\n      name: {name}\n"
            )
        };
        let repo = MemoryRepo::default()
            .with(
                "app/Pulumi.yaml",
                &format!(
                    "name: app\nruntime: yaml\nresources:\n{}{}  other:\n    type: kubernetes:core/v1:ConfigMap\n",
                    reference("network/prod"),
                    reference("dev")
                ),
            )
            .with("app/Pulumi.dev.yaml", "")
            .with("web/Pulumi.yml", "name: web\nruntime:\n  name: yaml\nmain: program/\n")
            .with("web/program/Main.yaml", &format!("resources:\n{}", reference("acme/app/dev")))
            .with("web/Pulumi.dev.yml", "")
            .with("ts/Pulumi.yaml", "name: ts\nruntime: nodejs\nresources:\n  x:\n    type: pulumi:pulumi:StackReference\n")
            .with("ts/Pulumi.dev.yaml", "");
        let mut problems = Vec::new();
        let found = find(&repo.files(), &repo, &mut problems);
        let refs: Vec<(String, Vec<String>)> = found
            .iter()
            .map(|s| {
                (
                    format!("{}:{}", s.project.as_deref().unwrap_or("?"), s.name),
                    s.references.clone(),
                )
            })
            .collect();
        assert_eq!(
            refs,
            [
                (
                    "app:dev".to_owned(),
                    vec!["dev".to_owned(), "network/prod".to_owned()]
                ),
                ("ts:dev".to_owned(), vec![]),
                ("web:dev".to_owned(), vec!["acme/app/dev".to_owned()]),
            ]
        );
        assert!(problems.is_empty());
    }
}

//! `dependsOn: auto` (decision 0059): a Pulumi stack waits on the stacks its program
//! references. The references are read from the YAML program's files at discovery, so
//! every mode sees the same graph and none runs a tool for it.
//!
//! A reference `org/project/stack` (or `project/stack`, or `stack` within its own
//! project) names the repository's stack whose project file says `name: project` and
//! whose stack file is `Pulumi.<stack>.yaml`; the organisation is never compared. A name
//! that matches no stack or several is only counted; a stack's reference to itself is
//! dropped; and a reference that would close a cycle is dropped, in stack-id order.

use std::collections::{BTreeMap, BTreeSet};

use crate::stack::{Stack, StackId, Tool};

/// What a Pulumi stack's project says for its references.
#[derive(Debug, Clone, Default)]
pub(super) struct Program {
    pub project: Option<String>,
    pub references: Vec<String>,
}

/// The program of each Pulumi stack, by its directory and stack name.
pub(super) type Programs = BTreeMap<(String, String), Program>;

/// Adds the stacks each `auto` stack references to its `dependsOn`; answers how many
/// references of each matched no stack, or several.
pub(super) fn resolve(stacks: &mut [Stack], programs: &Programs) -> BTreeMap<StackId, usize> {
    let program_of = |stack: &Stack| {
        stack
            .name
            .as_ref()
            .and_then(|name| programs.get(&(stack.path.clone(), name.clone())))
    };
    let mut by_name: BTreeMap<(String, String), Vec<StackId>> = BTreeMap::new();
    for stack in stacks.iter().filter(|s| s.tool == Tool::Pulumi) {
        if let (Some(project), Some(name)) = (
            program_of(stack).and_then(|p| p.project.clone()),
            &stack.name,
        ) {
            by_name
                .entry((project, name.clone()))
                .or_default()
                .push(stack.id.clone());
        }
    }
    let mut edges: BTreeMap<StackId, BTreeSet<StackId>> = stacks
        .iter()
        .map(|s| {
            (
                s.id.clone(),
                s.settings.depends_on.iter().cloned().collect(),
            )
        })
        .collect();
    let mut unresolved = BTreeMap::new();
    let mut order: Vec<usize> = (0..stacks.len()).collect();
    order.sort_by(|a, b| stacks[*a].id.cmp(&stacks[*b].id));
    for i in order {
        let stack = &stacks[i];
        if !stack.settings.depends_on_auto || stack.tool != Tool::Pulumi {
            continue;
        }
        let Some(program) = program_of(stack) else {
            continue;
        };
        let mut missed = 0;
        let mut found = Vec::new();
        for reference in &program.references {
            let parts: Vec<&str> = reference.split('/').collect();
            let key = match parts.as_slice() {
                [name] => program.project.clone().map(|p| (p, (*name).to_owned())),
                [project, name] | [_, project, name] => {
                    Some(((*project).to_owned(), (*name).to_owned()))
                }
                _ => None,
            };
            match key.and_then(|k| by_name.get(&k)) {
                Some(ids) if ids.len() == 1 => {
                    if ids[0] != stack.id {
                        found.push(ids[0].clone());
                    }
                }
                _ => missed += 1,
            }
        }
        for target in found {
            if !reaches(&edges, &target, &stack.id) {
                edges.entry(stack.id.clone()).or_default().insert(target);
            }
        }
        if missed > 0 {
            unresolved.insert(stack.id.clone(), missed);
        }
    }
    for stack in stacks.iter_mut() {
        if let Some(targets) = edges.remove(&stack.id) {
            stack.settings.depends_on = targets.into_iter().collect();
        }
    }
    unresolved
}

/// Whether `from` waits, directly or through others, on `to`.
fn reaches(edges: &BTreeMap<StackId, BTreeSet<StackId>>, from: &StackId, to: &StackId) -> bool {
    let mut seen = BTreeSet::new();
    let mut next = vec![from];
    while let Some(id) = next.pop() {
        if id == to {
            return true;
        }
        if seen.insert(id) {
            next.extend(edges.get(id).into_iter().flatten());
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stack::{Origin, StackSettings, ToolOptions};

    fn stack(path: &str, name: &str, auto: bool) -> Stack {
        Stack {
            id: StackId::derive(path, Some(name)),
            path: path.to_owned(),
            name: Some(name.to_owned()),
            tool: Tool::Pulumi,
            options: ToolOptions::Pulumi,
            origin: Origin::PulumiStackFile(format!("{path}/Pulumi.{name}.yaml")),
            settings: StackSettings {
                depends_on_auto: auto,
                ..StackSettings::default()
            },
        }
    }

    fn program(project: &str, references: &[&str]) -> Program {
        Program {
            project: Some(project.to_owned()),
            references: references.iter().map(|r| (*r).to_owned()).collect(),
        }
    }

    fn depends(stacks: &[Stack], id: &str) -> Vec<String> {
        let stack = stacks.iter().find(|s| s.id.as_str() == id).unwrap();
        stack
            .settings
            .depends_on
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn names_map_to_stacks_by_project_and_stack() {
        let mut stacks = vec![
            stack("infra/net", "prod", false),
            stack("infra/net", "dev", false),
            stack("apps/web", "prod", true),
            stack("apps/web", "dev", true),
        ];
        let programs = Programs::from([
            (("infra/net".into(), "prod".into()), program("network", &[])),
            (("infra/net".into(), "dev".into()), program("network", &[])),
            (
                ("apps/web".into(), "prod".into()),
                program(
                    "web",
                    &[
                        "acme/network/prod",
                        "dev",
                        "prod",
                        "acme/nowhere/prod",
                        "a/b/c/d",
                    ],
                ),
            ),
            (
                ("apps/web".into(), "dev".into()),
                program("web", &["network/dev"]),
            ),
        ]);
        let unresolved = resolve(&mut stacks, &programs);
        assert_eq!(
            depends(&stacks, "apps/web:prod"),
            ["apps/web:dev", "infra/net:prod"]
        );
        assert_eq!(depends(&stacks, "apps/web:dev"), ["infra/net:dev"]);
        assert_eq!(
            unresolved,
            BTreeMap::from([(StackId::derive("apps/web", Some("prod")), 2)])
        );
    }

    #[test]
    fn only_auto_stacks_read_them_and_a_reference_closing_a_cycle_is_dropped() {
        let mut stacks = vec![
            stack("a", "dev", true),
            stack("b", "dev", true),
            stack("c", "dev", false),
        ];
        let programs = Programs::from([
            (("a".into(), "dev".into()), program("a", &["b/dev"])),
            (("b".into(), "dev".into()), program("b", &["a/dev"])),
            (("c".into(), "dev".into()), program("c", &["a/dev"])),
        ]);
        assert!(resolve(&mut stacks, &programs).is_empty());
        assert_eq!(depends(&stacks, "a:dev"), ["b:dev"]);
        assert!(
            depends(&stacks, "b:dev").is_empty(),
            "a:dev already waits on b:dev"
        );
        assert!(depends(&stacks, "c:dev").is_empty(), "c is not auto");
    }

    #[test]
    fn two_stacks_of_one_name_are_ambiguous() {
        let mut stacks = vec![
            stack("x", "dev", false),
            stack("y", "dev", false),
            stack("z", "dev", true),
        ];
        let programs = Programs::from([
            (("x".into(), "dev".into()), program("shared", &[])),
            (("y".into(), "dev".into()), program("shared", &[])),
            (
                ("z".into(), "dev".into()),
                program("z", &["shared/dev", "z/dev"]),
            ),
        ]);
        let unresolved = resolve(&mut stacks, &programs);
        assert!(depends(&stacks, "z:dev").is_empty(), "itself is dropped");
        assert_eq!(unresolved.values().copied().collect::<Vec<_>>(), [1]);
    }
}

//! `dependsOn` and `phases`: every edge points at a real, kept, other stack, and the
//! edges make no cycle.
//!
//! Phases become nodes of their own (a stack in a phase waits on the phase before it,
//! which waits on its stacks), so the graph stays linear in size however many stacks
//! share a phase, and a cycle through a phase is named by the phase.

use std::collections::BTreeMap;

use super::IgnoredStack;
use crate::config::{Config, ConfigProblem, EntryDependsOn, KeyPath, Position};
use crate::stack::{Stack, StackId};

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Node {
    Stack(StackId),
    Phase(usize),
}

pub(super) fn check(
    config: &Config,
    stacks: &[Stack],
    ignored: &[IgnoredStack],
    problems: &mut Vec<ConfigProblem>,
    file: &str,
) {
    let problem = |message: String| ConfigProblem {
        file: file.to_owned(),
        position: dependency_position(config),
        key: KeyPath::default().key("stacks"),
        message,
    };
    // An edge problem points at the entry that wrote the edge.
    let edge_problem = |stack: &Stack, target: &StackId, message: String| {
        let entry = config.entries.iter().find(|e| {
            e.path == stack.path && matches!(&e.depends_on, Some(EntryDependsOn::Ids(ids)) if ids.iter().any(|i| i == target.as_str()))
        });
        match entry {
            Some(e) => ConfigProblem {
                file: file.to_owned(),
                position: e.position,
                key: KeyPath::default()
                    .key("stacks")
                    .index(e.index)
                    .key("dependsOn"),
                message,
            },
            None => problem(message),
        }
    };
    let known: BTreeMap<&StackId, &Stack> = stacks.iter().map(|s| (&s.id, s)).collect();
    let phases = &config.settings.phases;
    let phase_index = |name: &str| phases.iter().position(|p| p == name);

    let mut edges: BTreeMap<Node, Vec<Node>> = BTreeMap::new();
    for stack in stacks {
        let from = Node::Stack(stack.id.clone());
        for target in &stack.settings.depends_on {
            if *target == stack.id {
                problems.push(edge_problem(
                    stack,
                    target,
                    format!("{} depends on itself", stack.id),
                ));
            } else if ignored.iter().any(|i| i.id == *target) {
                problems.push(edge_problem(
                    stack,
                    target,
                    format!(
                        "{} depends on {target}, which `ignore` leaves out",
                        stack.id
                    ),
                ));
            } else if !known.contains_key(target) {
                problems.push(edge_problem(
                    stack,
                    target,
                    format!("{} depends on {target}, which is not a stack", stack.id),
                ));
            } else {
                edges
                    .entry(from.clone())
                    .or_default()
                    .push(Node::Stack(target.clone()));
            }
        }
        if let Some(index) = stack.settings.phase.as_deref().and_then(phase_index) {
            if index > 0 {
                edges
                    .entry(from.clone())
                    .or_default()
                    .push(Node::Phase(index - 1));
            }
            edges.entry(Node::Phase(index)).or_default().push(from);
        }
    }
    for index in 1..phases.len() {
        edges
            .entry(Node::Phase(index))
            .or_default()
            .push(Node::Phase(index - 1));
    }
    if let Some(cycle) = find_cycle(&edges) {
        let words: Vec<String> = cycle
            .iter()
            .map(|node| match node {
                Node::Stack(id) => id.to_string(),
                Node::Phase(index) => format!("the {} phase", phases[*index]),
            })
            .collect();
        problems.push(problem(format!(
            "the dependencies make a cycle: {}",
            words.join(" → ")
        )));
    }
}

/// The first cycle met when walking from the smallest node, as a closed path that starts
/// at its smallest stack, so the same cycle is always named the same way.
fn find_cycle(edges: &BTreeMap<Node, Vec<Node>>) -> Option<Vec<Node>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    let mut marks: BTreeMap<&Node, Mark> = BTreeMap::new();
    for start in edges.keys() {
        if marks.contains_key(start) {
            continue;
        }
        let mut path: Vec<&Node> = vec![start];
        let mut cursors: Vec<usize> = vec![0];
        marks.insert(start, Mark::Open);
        while let Some(node) = path.last().copied() {
            let cursor = cursors.last_mut().expect("a cursor per node on the path");
            let next = edges.get(node).and_then(|targets| targets.get(*cursor));
            *cursor += 1;
            match next {
                None => {
                    marks.insert(node, Mark::Done);
                    path.pop();
                    cursors.pop();
                }
                Some(next) => match marks.get(next) {
                    Some(Mark::Open) => {
                        let begin = path.iter().position(|n| *n == next).unwrap_or(0);
                        let mut cycle: Vec<Node> =
                            path[begin..].iter().map(|n| (*n).clone()).collect();
                        let smallest = (0..cycle.len())
                            .min_by(|a, b| {
                                let key = |i: &usize| {
                                    (matches!(cycle[*i], Node::Phase(_)), cycle[*i].clone())
                                };
                                key(a).cmp(&key(b))
                            })
                            .unwrap_or(0);
                        cycle.rotate_left(smallest);
                        cycle.push(cycle[0].clone());
                        return Some(cycle);
                    }
                    Some(Mark::Done) => {}
                    None => {
                        marks.insert(next, Mark::Open);
                        path.push(next);
                        cursors.push(0);
                    }
                },
            }
        }
    }
    None
}

/// Dependency problems concern several entries at once; they point at the first entry
/// that sets `dependsOn` or `phase`, else at `stacks`.
fn dependency_position(config: &Config) -> Position {
    config
        .entries
        .iter()
        .find(|e| e.depends_on.is_some() || e.phase.is_some())
        .map(|e| e.position)
        .unwrap_or(Position { line: 1, column: 1 })
}

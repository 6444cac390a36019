//! A shard's partial result (ADR 0037): what one shard's previews found, written for
//! `actions/upload-artifact` and read by the join. It carries exactly what the rows are
//! drawn from: addresses, ops, property paths, fixed failure reasons, the policies'
//! messages, cost lines and history entries; a value only where `dashboard.showValues`
//! puts it on the row. Never a tool's words, which stay in the shard's job log. Its JSON
//! Schema is generated from these types and published as
//! `docs/formats/partial-result.schema.json`.

use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sluiceway_core::cost::Amount;
use sluiceway_core::diff::Diff;
use sluiceway_core::failure::Failure;
use sluiceway_core::stack::StackId;
use sluiceway_dashboard::view::{CostLine, Policed, PolicyFailure};
use sluiceway_tools::adapter::{DeployKind, Deployed};

use super::split::ShardPlan;
use crate::modes::scan::Previews;
use crate::modes::scan::rows::Found;

/// The version this release writes and reads.
pub const VERSION: u8 = 1;

/// The file a shard writes, named by its index so artifacts never collide.
pub fn file_name(shard: u32) -> String {
    format!("sluiceway-shard-{shard}.json")
}

/// The whole file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(title = "Sluiceway partial result, version 1")]
pub struct PartialResult {
    /// Always 1; a change that breaks a reader raises it.
    #[schemars(range(min = 1, max = 1))]
    pub version: u8,
    /// The commit the shard previewed.
    pub commit: String,
    /// The workflow run the shard belongs to.
    pub run: u64,
    /// This shard's index, 1-based, and how many the plan made.
    pub shard: u32,
    pub shards: u32,
    /// A tool could not be used, or Sluiceway failed inside a preview: the join goes red.
    pub red: bool,
    /// Every stack the plan gave the shard, in stack-id order.
    pub stacks: Vec<ShardStack>,
}

/// One stack's preview.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ShardStack {
    pub stack: StackId,
    pub found: Finding,
    /// 1, or 2 when the preview was tried once more; how long its previews took.
    #[schemars(range(min = 1, max = 2))]
    pub tries: u8,
    pub seconds: f64,
    /// Its drift check ran and failed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub drift_not_checked: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policies: Option<Policies>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
    /// The deploys its tool's own history lists, newest first, when it was read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<Vec<HistoryEntry>>,
}

/// What the preview found: a diff, or a fixed failure reason.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Finding {
    Diff(Diff),
    Failure(Failure),
}

/// What the policies said of a pending change.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Policies {
    Passed,
    /// The rules that failed: each namespace and its author's message.
    Failed(Vec<PolicyMessage>),
    /// Sluiceway's reason the policies could not run.
    NotRun(String),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PolicyMessage {
    pub namespace: String,
    pub message: String,
}

/// The cost line, or that it could not be estimated (the shard's log says why).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Cost {
    Estimated { currency: String, cents: i64 },
    NotEstimated,
}

/// One deploy a stack's own history lists.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HistoryEntry {
    pub destroy: bool,
    pub ended: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    pub dirty: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci_system: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<u64>,
}

impl PartialResult {
    /// What a shard writes from its previews.
    pub fn of(plan: &ShardPlan, shard: u32, previews: &Previews) -> PartialResult {
        let stacks = previews
            .found
            .iter()
            .map(|(id, found)| {
                let (tries, seconds) = previews.tries.get(id).copied().unwrap_or((1, 0.0));
                ShardStack {
                    stack: id.clone(),
                    found: match found {
                        Found::Diff(diff) => Finding::Diff(diff.clone()),
                        Found::Failed(failure) => Finding::Failure(failure.clone()),
                    },
                    tries,
                    seconds: (seconds * 1000.0).round() / 1000.0,
                    drift_not_checked: previews.drift_not_checked.contains(id),
                    policies: previews.policies.get(id).map(Policies::of),
                    cost: previews.costs.get(id).map(|line| match line {
                        Some(line) => Cost::Estimated {
                            currency: line.currency.clone(),
                            cents: line.monthly.cents(),
                        },
                        None => Cost::NotEstimated,
                    }),
                    history: previews
                        .histories
                        .get(id)
                        .map(|entries| entries.iter().map(HistoryEntry::of).collect()),
                }
            })
            .collect();
        PartialResult {
            version: VERSION,
            commit: plan.commit.clone(),
            run: plan.run,
            shard,
            shards: plan.count(),
            red: previews.red,
            stacks,
        }
    }
}

impl Policies {
    fn of(policed: &Policed) -> Policies {
        match policed {
            Policed::Passed => Policies::Passed,
            Policed::Failed(failures) => Policies::Failed(
                failures
                    .iter()
                    .map(|f| PolicyMessage {
                        namespace: f.namespace.clone(),
                        message: f.message.clone(),
                    })
                    .collect(),
            ),
            Policed::NotRun(why) => Policies::NotRun(why.clone()),
        }
    }

    fn policed(self) -> Policed {
        match self {
            Policies::Passed => Policed::Passed,
            Policies::Failed(messages) => Policed::Failed(
                messages
                    .into_iter()
                    .map(|m| PolicyFailure {
                        namespace: m.namespace,
                        message: m.message,
                    })
                    .collect(),
            ),
            Policies::NotRun(why) => Policed::NotRun(why),
        }
    }
}

impl HistoryEntry {
    fn of(deployed: &Deployed) -> HistoryEntry {
        HistoryEntry {
            destroy: deployed.kind == DeployKind::Destroy,
            ended: deployed.ended.clone(),
            commit: deployed.commit.clone(),
            dirty: deployed.dirty,
            ci_system: deployed.ci_system.clone(),
            run: deployed.run,
        }
    }

    fn deployed(self) -> Deployed {
        Deployed {
            kind: if self.destroy {
                DeployKind::Destroy
            } else {
                DeployKind::Update
            },
            ended: self.ended,
            commit: self.commit,
            dirty: self.dirty,
            ci_system: self.ci_system,
            run: self.run,
        }
    }
}

/// Why the join refuses its partial results: nothing is written to the dashboard.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("{file}: not a partial result of Sluiceway (line {line}, column {column}): {why}")]
    Unreadable {
        file: String,
        line: usize,
        column: usize,
        why: String,
    },
    #[error(
        "{file}: a partial result of version {found}; this Sluiceway reads version {VERSION}, so every shard and the join must use the same release"
    )]
    Version { file: String, found: u8 },
    #[error("{file}: a partial result of commit {found}, and this scan is of commit {expected}")]
    Commit {
        file: String,
        found: String,
        expected: String,
    },
    #[error("{file}: a partial result of run {found}, and this scan is run {expected}")]
    Run {
        file: String,
        found: u64,
        expected: u64,
    },
    #[error("{file}: shard {shard} of {shards}, and the plan made {planned} shards")]
    Shard {
        file: String,
        shard: u32,
        shards: u32,
        planned: u32,
    },
    #[error("{file} and {other}: two partial results of shard {shard}")]
    ShardTwice {
        file: String,
        other: String,
        shard: u32,
    },
    #[error("{file} and {other}: two partial results claim the stack {stack}")]
    StackTwice {
        file: String,
        other: String,
        stack: String,
    },
    #[error("{file}: shard {shard} does not list the stacks the plan gave it: {what}")]
    NotItsStacks {
        file: String,
        shard: u32,
        what: String,
    },
}

/// The partial results gathered: what every reporting shard found, merged, and the
/// shards that did not report.
#[derive(Default)]
pub struct Gathered {
    pub previews: Previews,
    /// Shards with no partial result: failed, timed out or cancelled.
    pub lost: Vec<u32>,
}

/// Reads and checks every partial result against the plan: the same commit, run and
/// version, each shard once and in range, each stack once and in its own shard. Any
/// refusal refuses the whole join.
pub fn gather(plan: &ShardPlan, files: &[(String, String)]) -> Result<Gathered, Refusal> {
    let mut shard_files: BTreeMap<u32, String> = BTreeMap::new();
    let mut stack_files: BTreeMap<StackId, String> = BTreeMap::new();
    let mut gathered = Gathered::default();
    let mut read_ones = Vec::new();
    for (file, text) in files {
        let partial = read(file, text)?;
        let file = file.clone();
        if partial.version != VERSION {
            return Err(Refusal::Version {
                file,
                found: partial.version,
            });
        }
        if partial.commit != plan.commit {
            return Err(Refusal::Commit {
                file,
                found: partial.commit,
                expected: plan.commit.clone(),
            });
        }
        if partial.run != plan.run {
            return Err(Refusal::Run {
                file,
                found: partial.run,
                expected: plan.run,
            });
        }
        let planned = plan.count();
        if plan.stacks_of(partial.shard).is_none() || partial.shards != planned {
            return Err(Refusal::Shard {
                file,
                shard: partial.shard,
                shards: partial.shards,
                planned,
            });
        }
        if let Some(other) = shard_files.insert(partial.shard, file.clone()) {
            return Err(Refusal::ShardTwice {
                file,
                other,
                shard: partial.shard,
            });
        }
        for entry in &partial.stacks {
            if let Some(other) = stack_files.insert(entry.stack.clone(), file.clone()) {
                return Err(Refusal::StackTwice {
                    file,
                    other,
                    stack: entry.stack.to_string(),
                });
            }
        }
        read_ones.push((file, partial));
    }
    // Each stack once across every file first, then each file's stacks against its shard.
    for (file, partial) in read_ones {
        let own = plan.stacks_of(partial.shard).unwrap_or_default();
        let listed: BTreeSet<&StackId> = partial.stacks.iter().map(|e| &e.stack).collect();
        let given: BTreeSet<&StackId> = own.iter().collect();
        if listed != given {
            let said = |what: &str, set: Vec<&&StackId>| {
                (!set.is_empty()).then(|| {
                    let names: Vec<&str> = set.iter().map(|id| id.as_str()).collect();
                    format!("{what} {}", names.join(", "))
                })
            };
            let what: Vec<String> = [
                said("it lists", listed.difference(&given).collect()),
                said("it leaves out", given.difference(&listed).collect()),
            ]
            .into_iter()
            .flatten()
            .collect();
            return Err(Refusal::NotItsStacks {
                file,
                shard: partial.shard,
                what: what.join("; "),
            });
        }
        take(&mut gathered.previews, partial);
    }
    gathered.lost = (1..=plan.count())
        .filter(|k| !shard_files.contains_key(k))
        .collect();
    Ok(gathered)
}

fn read(file: &str, text: &str) -> Result<PartialResult, Refusal> {
    serde_json::from_str(text).map_err(|e| Refusal::Unreadable {
        file: file.to_owned(),
        line: e.line(),
        column: e.column(),
        why: match e.classify() {
            serde_json::error::Category::Data => {
                "it does not have the partial result's shape".to_owned()
            }
            _ => "it is not JSON".to_owned(),
        },
    })
}

fn take(previews: &mut Previews, partial: PartialResult) {
    previews.red |= partial.red;
    for entry in partial.stacks {
        let id = entry.stack;
        previews
            .tries
            .insert(id.clone(), (entry.tries, entry.seconds));
        if entry.drift_not_checked {
            previews.drift_not_checked.insert(id.clone());
        }
        if let Some(policies) = entry.policies {
            previews.policies.insert(id.clone(), policies.policed());
        }
        if let Some(cost) = entry.cost {
            previews.costs.insert(
                id.clone(),
                match cost {
                    Cost::Estimated { currency, cents } => Some(CostLine {
                        currency,
                        monthly: Amount::from_cents(cents),
                    }),
                    Cost::NotEstimated => None,
                },
            );
        }
        if let Some(history) = entry.history {
            previews.histories.insert(
                id.clone(),
                history.into_iter().map(HistoryEntry::deployed).collect(),
            );
        }
        previews.found.insert(
            id,
            match entry.found {
                Finding::Diff(diff) => Found::Diff(diff),
                Finding::Failure(failure) => Found::Failed(failure),
            },
        );
    }
}

/// The schema, as published.
pub fn schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(PartialResult)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use sluiceway_core::diff::{Change, Op};
    use sluiceway_core::failure::FailureReason;

    use super::*;

    fn id(name: &str) -> StackId {
        StackId::given(name)
    }

    fn plan() -> ShardPlan {
        ShardPlan {
            version: 1,
            commit: "c0ffee".to_owned(),
            run: 7,
            started_at: "2026-12-05T08:00:00Z".to_owned(),
            full: true,
            drift: Vec::new(),
            shards: vec![vec![id("a"), id("b")], vec![id("c")]],
        }
    }

    /// What shard `k` of the plan writes, with a diff for a and a failure for the rest.
    fn written(k: u32) -> PartialResult {
        let plan = plan();
        let mut previews = Previews::default();
        for stack in plan.stacks_of(k).unwrap() {
            let found = if stack.as_str() == "a" {
                Found::Diff(Diff {
                    stack: stack.clone(),
                    changes: vec![Change::new(
                        "aws_s3_bucket.logs",
                        "aws_s3_bucket",
                        "logs",
                        Op::Delete,
                    )],
                    drift: None,
                })
            } else {
                Found::Failed(Failure::new(FailureReason::ToolUnusable {
                    tool: "tofu".to_owned(),
                }))
            };
            previews.found.insert(stack.clone(), found);
            previews.tries.insert(stack.clone(), (2, 1.25));
        }
        previews.costs.insert(
            id("a"),
            Some(CostLine {
                currency: "USD".to_owned(),
                monthly: Amount::from_cents(3120),
            }),
        );
        previews.policies.insert(
            id("a"),
            Policed::Failed(vec![PolicyFailure {
                namespace: "main".to_owned(),
                message: "no deletes".to_owned(),
            }]),
        );
        PartialResult::of(&plan, k, &previews)
    }

    fn files(partials: &[PartialResult]) -> Vec<(String, String)> {
        partials
            .iter()
            .map(|p| (file_name(p.shard), serde_json::to_string(p).unwrap()))
            .collect()
    }

    #[test]
    fn what_a_shard_writes_the_join_reads_back_whole() {
        let gathered = gather(&plan(), &files(&[written(1), written(2)])).unwrap();
        assert!(gathered.lost.is_empty());
        let previews = gathered.previews;
        assert_eq!(previews.found.len(), 3);
        assert!(
            matches!(&previews.found[&id("a")], Found::Diff(d) if d.changes[0].op == Op::Delete)
        );
        assert!(matches!(
            &previews.found[&id("c")],
            Found::Failed(f) if f.reason == FailureReason::ToolUnusable { tool: "tofu".to_owned() }
        ));
        assert_eq!(previews.tries[&id("b")], (2, 1.25));
        assert_eq!(
            previews.costs[&id("a")].as_ref().map(|c| c.monthly.cents()),
            Some(3120)
        );
        assert!(
            matches!(&previews.policies[&id("a")], Policed::Failed(f) if f[0].message == "no deletes")
        );
    }

    #[test]
    fn a_shard_that_did_not_report_is_lost_and_the_others_are_read() {
        let gathered = gather(&plan(), &files(&[written(2)])).unwrap();
        assert_eq!(gathered.lost, [1]);
        assert_eq!(gathered.previews.found.len(), 1);
    }

    #[test]
    fn each_misfit_is_refused_by_name() {
        let mut other_run = written(1);
        other_run.run = 8;
        let mut short = written(1);
        short.stacks.pop();
        let mut stolen = written(2);
        stolen.shard = 1;
        let cases: Vec<(Vec<(String, String)>, &str)> = vec![
            (
                vec![("x.json".to_owned(), "{".to_owned())],
                "x.json: not a partial result of Sluiceway (line 1, column 1): it is not JSON",
            ),
            (
                vec![("x.json".to_owned(), "{\"version\":1}".to_owned())],
                "it does not have the partial result's shape",
            ),
            (
                files(&[other_run]),
                "a partial result of run 8, and this scan is run 7",
            ),
            (
                files(&[short]),
                "shard 1 does not list the stacks the plan gave it: it leaves out b",
            ),
            (
                files(&[written(1), stolen]),
                "two partial results of shard 1",
            ),
        ];
        for (files, says) in cases {
            let refused = gather(&plan(), &files).err().map(|e| e.to_string());
            assert!(
                refused.as_deref().is_some_and(|r| r.contains(says)),
                "{says}: {refused:?}"
            );
        }
    }
}

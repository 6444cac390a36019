//! From what the scan found to the view the dashboard is rendered from, built around
//! the live body: one row per discovered stack and no other (decision 0011). A stack
//! previewed now gets a fresh row, unless the live body shows it deploying and an open
//! deployment record agrees (the record is fresher than any preview); every other stack
//! keeps its live row block byte for byte.

use std::collections::{BTreeMap, BTreeSet};

use crate::modes::rewrite::Boxes;
use crate::modes::scan::merge::MergeRow;
use jiff::Timestamp;
use sluiceway_core::config::Config;
use sluiceway_core::diff::Diff;
use sluiceway_core::discovery::Discovery;
use sluiceway_core::failure::{Failure, FailureReason};
use sluiceway_core::stack::StackId;
use sluiceway_dashboard::facts::RowState;
use sluiceway_dashboard::outside::{self, OutsideDeploy, OutsideKind};
use sluiceway_dashboard::reader::ReadBody;
use sluiceway_dashboard::updates::Updates;
use sluiceway_dashboard::view::{
    Attribution, BulkNote, BulkSection, Confirm, CostLine, FailedRuns, FailureLine, Hint, Links,
    NoteWhy, Policed, Reach, Root, Row, RowSource, RunWaiting, State, TrailEntry, View,
};
use sluiceway_github::WorkflowRun;
use sluiceway_tools::adapter::{DeployKind, Deployed};

/// What this scan knows of one stack it previewed (or could not).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    Diff(Diff),
    Failed(Failure),
}

/// Everything the view is made from, besides the live body.
pub struct Scanned<'a> {
    pub config: &'a Config,
    pub discovery: &'a Discovery,
    /// Stacks with an open deployment record.
    pub open_records: &'a BTreeSet<StackId>,
    /// Stacks with a record newer than this scan's start: a deploy that happened while
    /// the scan previewed, which its preview may not have seen.
    pub fresher_records: &'a BTreeSet<StackId>,
    /// The deploys that ended, newest first, from the records.
    pub trail: Vec<TrailEntry>,
    /// The stacks whose last deploy failed, with the line their rows keep.
    pub failures: BTreeMap<StackId, FailureLine>,
    /// Each stack's preview page, where its row links; else the summary.
    pub pages: BTreeMap<StackId, String>,
    /// Who changed what, for the pending stacks the walk could attribute.
    pub attributions: BTreeMap<StackId, Attribution>,
    pub full: bool,
    pub sha: &'a str,
    /// The repository's default branch, from the event, when it says.
    pub default_branch: Option<&'a str>,
    /// The workflow's file, whose issue-edit runs pick ticks up.
    pub workflow_file: Option<&'a str>,
    pub run: u64,
    pub at: Timestamp,
    pub links: Links,
    /// The job page, where a failure's `run` link points (its log holds the tool's words).
    pub job_url: String,
    pub hints: Vec<Hint>,
    pub version: &'a str,
    /// What a full scan read of each stack's own history (decision 0073); a stack not
    /// here keeps the lines it had.
    pub histories: BTreeMap<StackId, Vec<Deployed>>,
    /// The runs of each stack's deployment records: a history entry of one of them is
    /// Sluiceway's own deploy.
    pub own_runs: BTreeMap<StackId, BTreeSet<u64>>,
    /// What this push's merge did to the rows of the stacks that deploy on merge.
    pub merging: BTreeMap<StackId, MergeRow>,
    /// The stacks whose drift check ran and failed (decision 0121).
    pub drift_not_checked: BTreeSet<StackId>,
    /// What the policies said about each pending stack they judged (decision 0106).
    pub policies: BTreeMap<StackId, Policed>,
    /// What each estimated change costs a month (decision 0105); `None` when the
    /// estimate failed.
    pub costs: BTreeMap<StackId, Option<CostLine>>,
    /// When each stack's newest deployment record was made or last given a status.
    pub last_recorded: BTreeMap<StackId, Timestamp>,
    /// The hash each stack's newest ended record deployed, when it went out.
    pub deployed_hashes: BTreeMap<StackId, String>,
    /// The workflow's newest runs but this one, for the lines under the scan line.
    pub runs: Vec<WorkflowRun>,
    /// The updates waiting to merge this scan drew; `None` carries the live body's (no
    /// list was asked for, or it could not be read).
    pub updates: Option<Updates>,
}

/// How long a run waits for a runner before the dashboard says so (decision 0086).
const LONG_WAIT: jiff::SignedDuration = jiff::SignedDuration::from_mins(10);

/// The run queued longest, when it has waited ten minutes or more at `at`, and how many
/// others have; ties go to the lower run id. Queued is GitHub's `queued` status alone.
pub fn waiting(runs: &[WorkflowRun], at: Timestamp) -> Option<RunWaiting> {
    let mut long: Vec<&WorkflowRun> = runs
        .iter()
        .filter(|r| r.status == "queued" && at.duration_since(r.started_at) >= LONG_WAIT)
        .collect();
    long.sort_by_key(|r| (r.started_at, r.id));
    let longest = long.first()?;
    Some(RunWaiting {
        run: longest.id,
        since: longest.started_at,
        more: long.len() - 1,
    })
}

/// The runs that failed (`failure`, `timed_out`, `startup_failure`) and started after
/// the scan before (`since`) and not after this one (`until`); the newest named.
pub fn failed_since(
    runs: &[WorkflowRun],
    since: Timestamp,
    until: Timestamp,
) -> Option<FailedRuns> {
    let failed: Vec<&WorkflowRun> = runs
        .iter()
        .filter(|r| {
            matches!(
                r.conclusion.as_deref(),
                Some("failure" | "timed_out" | "startup_failure")
            ) && r.started_at > since
                && r.started_at <= until
        })
        .collect();
    let newest = failed.iter().max_by_key(|r| (r.started_at, r.id))?;
    Some(FailedRuns {
        count: failed.len(),
        newest: newest.id,
        at: newest.started_at,
    })
}

/// Whether a fresh pending or drifted row would be drawn exactly as the live block is
/// (ADR 0029): an earlier scan drew the live body at this commit, from the same inputs
/// (the block's `drawn` digest), and no deployment record of the stack moved since
/// then, so its attribution and preview page are the ones the block shows. A body this
/// run drew itself (the issue it just made) is never one.
fn drawn_alike(
    block: &sluiceway_dashboard::reader::RowBlock,
    row: &Row,
    scanned: &Scanned<'_>,
    live_root: Option<&Root>,
) -> bool {
    let Some(root) = live_root.filter(|r| r.scan_sha == scanned.sha && r.scan_run != scanned.run)
    else {
        return false;
    };
    !block.ticked
        && block.facts.drawn.is_some()
        && block.facts.drawn == row.drawn(scanned.version)
        && scanned
            .last_recorded
            .get(&row.stack)
            .is_none_or(|at| *at <= root.scan_at)
}

/// The previewed stacks whose rows the live body already shows as they would be drawn
/// now: the late write keeps their blocks, so their pages and attribution are not asked
/// for.
pub fn kept(
    scanned: &Scanned<'_>,
    found: &BTreeMap<StackId, Found>,
    live: &ReadBody,
) -> BTreeSet<StackId> {
    let root = Root::read(live);
    found
        .iter()
        .filter(|(id, found)| {
            live.rows
                .iter()
                .find(|b| b.facts.stack == id.as_str())
                .is_some_and(|block| {
                    drawn_alike(block, &fresh(id, found, scanned), scanned, root.as_ref())
                })
        })
        .map(|(id, _)| id.clone())
        .collect()
}

/// Whether the ticks in the live body are on their way to a resolve run: asked of
/// GitHub at most once per build, and only when a row that would be rewritten is ticked.
pub trait TicksInFlight {
    fn in_flight(&self) -> bool;
}

/// No live ticks to ask about (the first write, a local scan).
pub struct NoTicks;

impl TicksInFlight for NoTicks {
    fn in_flight(&self) -> bool {
        true
    }
}

/// Under a row whose values moved with no new commit (decision 0102): its tick would be
/// refused, and the next preview may move them again.
pub const NOISY_NOTE: &str = "A value this row covers changed since the last scan of the same commit, so it may change on every preview and a tick of it may be refused: see valueFingerprint in sluiceway.yaml.";

/// The same change as the live row at another value fingerprint.
fn noisy(block: &sluiceway_dashboard::reader::RowBlock, diff: &Diff) -> bool {
    let fresh = diff.fingerprint();
    fresh.is_some()
        && block.facts.fingerprint.is_some()
        && block.facts.fingerprint != fresh
        && block.facts.hash.as_deref() == Some(diff.hash().as_str())
}

/// What a scan does with the bulk boxes (decision 0083): a ticked one (bulk or confirm)
/// stays as it is while a run is on its way to read it, and is swept with the `orphan`
/// note when none is; a confirm box lasts through the scan of the run that asked for it
/// (a sweep's) and is taken back by any later scan, with the `expired` note.
fn taken_back(live: &ReadBody, ticks: &dyn TicksInFlight, run: u64) -> Boxes {
    let mut boxes = Boxes::default();
    for line in &live.bulk {
        let Some(section) = line.marker.get("section").and_then(BulkSection::parse) else {
            continue;
        };
        if boxes.notes.iter().any(|n| n.section == section) || boxes.ticked.contains(&section) {
            continue;
        }
        let confirm = Confirm::read(&line.marker);
        let why = if line.ticked && ticks.in_flight() {
            boxes.ticked.push(section);
            boxes.confirms.extend(confirm);
            continue;
        } else if line.ticked {
            NoteWhy::Orphan
        } else if let Some(confirm) = confirm {
            if confirm.scan_run == run {
                boxes.confirms.push(confirm);
                continue;
            }
            NoteWhy::Expired
        } else {
            continue;
        };
        boxes.notes.push(BulkNote { section, why });
    }
    boxes
}

/// Under a row pending again at the very hash its last deploy deployed: the tool finds
/// the change anew on every preview, so another deploy of it will not settle it.
pub const PENDING_AGAIN_NOTE: &str = ":information_source: this change went out with the last deploy and is waiting again at the same hash: the tool finds it anew on every preview (a value computed at deploy time, say), so deploying it again will not settle it.";

/// The note a row gets when the scan sweeps a tick no run picked up (decision 0025).
pub const ORPHAN_NOTE: &str =
    ":information_source: a tick on this row was not picked up. Tick again to deploy.";

/// The view of the body this scan writes over `live` (`None`: no dashboard yet), from
/// what each previewed stack gave (stacks not in `found` were not previewed). A ticked
/// row it would rewrite keeps its tick while a resolve run is on its way and the fresh
/// hash is the ticked one (the block is carried); a tick no run will pick up is swept
/// with a note (decision 0025).
pub fn view(
    scanned: &Scanned<'_>,
    found: &BTreeMap<StackId, Found>,
    live: Option<&ReadBody>,
    ticks: &dyn TicksInFlight,
) -> View {
    let live_root = live
        .and_then(|l| l.root.as_ref())
        .filter(|r| r.get("v") == Some("1"));
    let root_read = live.and_then(Root::read);
    let (full_scan_at, full_scan_run) = if scanned.full {
        (Some(scanned.at), Some(scanned.run))
    } else {
        (
            live_root
                .and_then(|r| r.get("full-scan-at"))
                .and_then(|t| t.parse().ok()),
            live_root
                .and_then(|r| r.get("full-scan-run"))
                .and_then(|t| t.parse().ok()),
        )
    };
    // Rows under a root of another version are not carried (decision 0011).
    let live_rows = live
        .filter(|_| live_root.is_some())
        .map(|l| &l.rows[..])
        .unwrap_or(&[]);
    let block_of = |id: &StackId| live_rows.iter().find(|r| r.facts.stack == id.as_str());
    let rows = scanned
        .discovery
        .stacks
        .iter()
        .filter_map(|stack| {
            let block = block_of(&stack.id);
            let deploying = block.is_some_and(|b| {
                matches!(b.facts.state, Some(RowState::Deploying | RowState::Queued))
            }) && scanned.open_records.contains(&stack.id);
            let fresher = scanned.fresher_records.contains(&stack.id);
            match (found.get(&stack.id), block) {
                (Some(_), Some(block)) if deploying || fresher => {
                    Some(RowSource::Carried(block.clone()))
                }
                (Some(found), Some(block)) if block.ticked => {
                    let same = matches!(found, Found::Diff(d) if block.facts.hash.as_deref() == Some(d.hash().as_str()));
                    if ticks.in_flight() {
                        if same {
                            Some(RowSource::Carried(block.clone()))
                        } else {
                            Some(RowSource::Fresh(fresh(&stack.id, found, scanned)))
                        }
                    } else {
                        let mut row = fresh(&stack.id, found, scanned);
                        row.notes.push(ORPHAN_NOTE.to_owned());
                        Some(RowSource::Fresh(row))
                    }
                }
                (Some(found), Some(block))
                    if drawn_alike(block, &fresh(&stack.id, found, scanned), scanned, root_read.as_ref()) =>
                {
                    Some(RowSource::Carried(block.clone()))
                }
                (Some(found), block) => {
                    let mut row = fresh(&stack.id, found, scanned);
                    let same_commit =
                        live_root.and_then(|r| r.get("scan-sha")) == Some(scanned.sha);
                    if let (Some(block), Found::Diff(diff), true) = (block, found, same_commit)
                        && noisy(block, diff)
                    {
                        row.notes.push(NOISY_NOTE.to_owned());
                    }
                    Some(RowSource::Fresh(row))
                }
                (None, Some(block)) => Some(RowSource::Carried(block.clone())),
                (None, None) => None,
            }
        })
        .collect();
    let boxes = live
        .filter(|_| live_root.is_some())
        .map(|l| taken_back(l, ticks, scanned.run))
        .unwrap_or_default();
    View {
        root: Root {
            scan_sha: scanned.sha.to_owned(),
            scan_run: scanned.run,
            scan_at: scanned.at,
            full_scan_at,
            full_scan_run,
            waiting: waiting(&scanned.runs, scanned.at),
            failed_runs: root_read
                .as_ref()
                .and_then(|r| failed_since(&scanned.runs, r.scan_at, scanned.at)),
        },
        links: scanned.links.clone(),
        rows,
        unknown: live
            .filter(|_| live_root.is_some())
            .map(|l| l.unknown_rows().map(|r| r.text.clone()).collect())
            .unwrap_or_default(),
        trail: live.map_or_else(
            || scanned.trail.clone(),
            |live| crate::modes::rewrite::with_shipped(&scanned.trail, live),
        ),
        outside: outside_lines(scanned, live.filter(|_| live_root.is_some())),
        ignored: crate::modes::rewrite::ignored(scanned.discovery),
        confirms: boxes.confirms,
        bulk_notes: boxes.notes,
        ticked_boxes: boxes.ticked,
        hints: scanned.hints.clone(),
        layout: scanned.config.settings.dashboard.clone(),
        attribution_names: scanned.config.settings.attribution.names as usize,
        version: scanned.version.to_owned(),
        updates: scanned
            .updates
            .clone()
            .or_else(|| {
                live.filter(|_| live_root.is_some())
                    .map(|l| l.updates.clone())
            })
            .unwrap_or_default(),
    }
}

/// The trail's lines for deploys made outside the dashboard: fresh for the stacks whose
/// history this scan read, without the deploys Sluiceway's own records name; carried
/// for the rest that still exist.
fn outside_lines(scanned: &Scanned<'_>, live: Option<&ReadBody>) -> Vec<OutsideDeploy> {
    let carried = live
        .map(|l| outside::from_markers(&l.outside))
        .unwrap_or_default();
    let fresh = scanned
        .histories
        .iter()
        .flat_map(|(id, entries)| {
            let own = scanned.own_runs.get(id);
            entries
                .iter()
                .filter(move |e| {
                    e.run
                        .is_none_or(|run| !own.is_some_and(|o| o.contains(&run)))
                })
                .filter_map(move |e| {
                    Some(OutsideDeploy::new(
                        id.clone(),
                        match e.kind {
                            DeployKind::Update => OutsideKind::Deploy,
                            DeployKind::Destroy => OutsideKind::Destroy,
                        },
                        e.ended.parse().ok()?,
                        e.commit.clone(),
                        e.dirty,
                    ))
                })
        })
        .collect();
    let read = scanned.histories.keys().cloned().collect();
    let existing = scanned
        .discovery
        .stacks
        .iter()
        .map(|s| s.id.clone())
        .collect();
    outside::merge(carried, fresh, &read, &existing)
}

fn fresh(id: &StackId, found: &Found, scanned: &Scanned<'_>) -> Row {
    // A row links its preview page; without one, the job summary, or in a local scan
    // the stack's section of the summary beside the dashboard.
    let preview = Some(match scanned.pages.get(id) {
        Some(page) => page.clone(),
        None if scanned.links.reach == Reach::Runs => scanned.links.summary.clone(),
        None => format!(
            "{}#{}",
            scanned.links.summary,
            sluiceway_dashboard::summary::anchor(id.as_str())
        ),
    });
    // A local scan has no run to link a failure to (issue 44).
    let job_url = (scanned.links.reach == Reach::Runs).then(|| scanned.job_url.clone());
    let state = match found {
        Found::Diff(diff) if !diff.changes.is_empty() => State::Pending {
            diff: diff.clone(),
            preview,
            attribution: scanned.attributions.get(id).cloned(),
        },
        Found::Diff(diff) if diff.drift.as_ref().is_some_and(|d| !d.is_empty()) => State::Drifted {
            diff: diff.clone(),
            preview,
        },
        Found::Diff(_) => State::InSync,
        Found::Failed(failure) if failure.reason == FailureReason::Busy => {
            State::Busy { run: job_url }
        }
        Found::Failed(failure) => State::PreviewFailed {
            reason: failure.reason.to_string(),
            run: job_url,
        },
    };
    let run = scanned.links.run(scanned.run);
    let mut notes = Vec::new();
    if let State::Pending { diff, .. } = &state
        && scanned.deployed_hashes.get(id) == Some(&diff.hash())
    {
        notes.push(PENDING_AGAIN_NOTE.to_owned());
    }
    let state = match (scanned.merging.get(id), state) {
        (Some(MergeRow::Deploying { merger }), State::Pending { attribution, .. }) => {
            State::Deploying {
                ticker: merger.clone(),
                on_merge: true,
                run,
                attribution,
            }
        }
        (
            Some(MergeRow::Queued {
                merger,
                behind,
                opens,
            }),
            State::Pending { .. },
        ) => State::Queued {
            behind: behind.clone(),
            opens: *opens,
            ticker: merger.clone(),
            on_merge: true,
            run,
        },
        (Some(MergeRow::Waits(note)), state) => {
            notes.push(note.clone());
            state
        }
        (_, state) => state,
    };
    Row {
        stack: id.clone(),
        state,
        failure: scanned.failures.get(id).cloned(),
        notes,
        drift_not_checked: scanned.drift_not_checked.contains(id),
        policies: scanned.policies.get(id).cloned(),
        cost: scanned.costs.get(id).cloned().flatten(),
    }
}

/// The root facts of a live body this version writes over.
/// The view a scan writes before any preview (decision 0108): every live row block as
/// it is, ticks included, the live root's facts kept, and a line that says a scan is
/// running. `None` when the live body is not one this version writes over.
pub fn running(
    scanned: &Scanned<'_>,
    live: &ReadBody,
    since: Timestamp,
    run_url: &str,
) -> Option<View> {
    let root = Root::read(live)?;
    let mut view = view(scanned, &BTreeMap::new(), Some(live), &NoTicks);
    view.root = root;
    // The bulk boxes as they stand, too: the scan's own write takes a confirm box back.
    let boxes = crate::modes::rewrite::Boxes::carried(live);
    view.confirms = boxes.confirms;
    view.bulk_notes = boxes.notes;
    view.ticked_boxes = boxes.ticked;
    view.hints.insert(
        0,
        Hint::ScanRunning {
            since,
            run: run_url.to_owned(),
        },
    );
    Some(view)
}

/// The live body with every row carried as it is and one line added under the scan
/// line, for a scan that cannot read its setup: it knows no stacks, so it keeps them all.
pub fn with_hint(live: &ReadBody, links: Links, hint: Hint, version: &str) -> Option<View> {
    let boxes = crate::modes::rewrite::Boxes::carried(live);
    Some(View {
        root: Root::read(live)?,
        links,
        rows: live
            .rows
            .iter()
            .filter(|r| r.facts.state.is_some())
            .cloned()
            .map(RowSource::Carried)
            .collect(),
        unknown: live.unknown_rows().map(|r| r.text.clone()).collect(),
        trail: Vec::new(),
        outside: outside::from_markers(&live.outside),
        ignored: Vec::new(),
        confirms: boxes.confirms,
        bulk_notes: boxes.notes,
        ticked_boxes: boxes.ticked,
        hints: vec![hint],
        layout: Default::default(),
        attribution_names: 5,
        version: version.to_owned(),
        updates: live.updates.clone(),
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use sluiceway_core::diff::{Change, Op};
    use sluiceway_core::stack::{Origin, Stack, StackSettings, Tool, ToolOptions};
    use sluiceway_dashboard::{body, reader};

    use super::*;

    const IDS: [&str; 6] = ["a", "b", "c/d", "c/d:prod", "e", "f"];

    fn stack(id: &str) -> Stack {
        Stack {
            id: StackId::given(id),
            path: id.split(':').next().unwrap().to_owned(),
            name: None,
            tool: Tool::OpenTofu,
            options: ToolOptions::Pulumi,
            origin: Origin::Declared(0),
            settings: StackSettings::default(),
        }
    }

    fn discovery(ids: &[&str]) -> Discovery {
        Discovery {
            stacks: ids.iter().map(|id| stack(id)).collect(),
            ignored: Vec::new(),
            idle_ignores: Vec::new(),
            root_modules: BTreeMap::new(),
            root_modules_off: None,
            unresolved_references: BTreeMap::new(),
        }
    }

    fn found(id: &str, kind: u8) -> Found {
        match kind % 3 {
            0 => Found::Diff(Diff {
                stack: StackId::given(id),
                changes: vec![Change::new(
                    "terraform_data.x",
                    "terraform_data",
                    "x",
                    Op::Create,
                )],
                drift: None,
            }),
            1 => Found::Diff(Diff {
                stack: StackId::given(id),
                changes: Vec::new(),
                drift: None,
            }),
            _ => Found::Failed(Failure::new(FailureReason::ToolError {
                exit_code: Some(1),
            })),
        }
    }

    fn scanned<'a>(
        config: &'a Config,
        discovery: &'a Discovery,
        open: &'a BTreeSet<StackId>,
        fresher: &'a BTreeSet<StackId>,
    ) -> Scanned<'a> {
        Scanned {
            config,
            discovery,
            open_records: open,
            fresher_records: fresher,
            trail: Vec::new(),
            failures: BTreeMap::new(),
            pages: BTreeMap::new(),
            attributions: BTreeMap::new(),
            full: true,
            sha: "34e410f2ce7bd7cfd94d9a2f1d5bc0b2dcc6aa91",
            default_branch: None,
            workflow_file: None,
            run: 7,
            at: "2026-11-30T10:00:00Z".parse().unwrap(),
            links: Links {
                server: "https://github.com".into(),
                repository: "acme/infra".into(),
                summary: "https://github.com/acme/infra/actions/runs/7/attempts/1".into(),
                pictures: "https://example.invalid/pictures".into(),
                reach: Reach::Runs,
            },
            job_url: "https://github.com/acme/infra/actions/runs/7/job/1".into(),
            hints: Vec::new(),
            version: "0.0.0",
            histories: BTreeMap::new(),
            own_runs: BTreeMap::new(),
            merging: BTreeMap::new(),
            drift_not_checked: BTreeSet::new(),
            policies: BTreeMap::new(),
            costs: BTreeMap::new(),
            last_recorded: BTreeMap::new(),
            deployed_hashes: BTreeMap::new(),
            runs: Vec::new(),
            updates: None,
        }
    }

    /// A live body written by an earlier scan of `ids`, each found as `kinds` says.
    fn live(ids: &[&str], kinds: &[u8]) -> ReadBody {
        let config = Config::default();
        let discovery = discovery(ids);
        let none = BTreeSet::new();
        let s = scanned(&config, &discovery, &none, &none);
        let found = ids
            .iter()
            .zip(kinds)
            .map(|(id, k)| (StackId::given(id), found(id, *k)))
            .collect();
        reader::read(&body::render(&view(&s, &found, None, &NoTicks)).unwrap())
    }

    fn stack_of(row: &RowSource) -> String {
        match row {
            RowSource::Fresh(row) => row.stack.to_string(),
            RowSource::Carried(block) => block.facts.stack.clone(),
        }
    }

    proptest! {
        /// After any scan, one row per discovered stack and no other: a stack previewed
        /// now is fresh, every other keeps its live block byte for byte.
        #[test]
        fn one_row_per_discovered_stack(
            live_mask in 0u8..64,
            discovered_mask in 0u8..64,
            previewed_mask in 0u8..64,
            kinds in proptest::collection::vec(0u8..3, 6),
        ) {
            let pick = |mask: u8| -> Vec<&str> {
                IDS.iter().enumerate().filter(|(i, _)| mask & (1 << i) != 0).map(|(_, id)| *id).collect()
            };
            let live_ids = pick(live_mask);
            let discovered = pick(discovered_mask);
            let body = live(&live_ids, &kinds);
            let config = Config::default();
            let d = discovery(&discovered);
            let none = BTreeSet::new();
            let s = scanned(&config, &d, &none, &none);
            // A narrowed scan previews some stacks; stacks with no live row are always
            // among them (the plan sees to it).
            let found: BTreeMap<StackId, Found> = discovered
                .iter()
                .enumerate()
                .filter(|(i, id)| previewed_mask & (1 << i) != 0 || !live_ids.contains(id))
                .map(|(i, id)| (StackId::given(id), found(id, kinds[i])))
                .collect();
            let v = view(&s, &found, Some(&body), &NoTicks);
            let rows: Vec<String> = v.rows.iter().map(stack_of).collect();
            prop_assert_eq!(rows, discovered.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>());
            for row in &v.rows {
                match row {
                    RowSource::Fresh(r) => prop_assert!(found.contains_key(&r.stack)),
                    RowSource::Carried(block) => {
                        prop_assert!(!found.contains_key(&StackId::given(&block.facts.stack)));
                        let live_block = body.rows.iter().find(|b| b.facts.stack == block.facts.stack).unwrap();
                        prop_assert_eq!(&live_block.text, &block.text);
                    }
                }
            }
            prop_assert!(body::render(&v).is_ok());
        }
    }

    #[test]
    fn a_deploying_row_with_an_open_record_or_a_record_newer_than_the_scan_is_kept_live() {
        let body = live(&["a", "b", "e"], &[0, 0, 0]);
        let config = Config::default();
        let d = discovery(&["a", "b", "e"]);
        let open: BTreeSet<StackId> = [StackId::given("a")].into();
        let fresher: BTreeSet<StackId> = [StackId::given("b")].into();
        let s = scanned(&config, &d, &open, &fresher);
        let found: BTreeMap<_, _> = ["a", "b", "e"]
            .iter()
            .map(|id| (StackId::given(id), found(id, 1)))
            .collect();
        let v = view(&s, &found, Some(&body), &NoTicks);
        // `a` is pending, not deploying, in the live body: an open record alone does not
        // keep a row that does not say deploying.
        let kinds: Vec<(&str, bool)> = v
            .rows
            .iter()
            .map(|r| match r {
                RowSource::Fresh(r) => (r.stack.as_str(), true),
                RowSource::Carried(b) => (b.facts.stack.as_str(), false),
            })
            .collect();
        assert_eq!(kinds, [("a", true), ("b", false), ("e", true)]);
    }

    #[test]
    fn a_tick_no_run_will_pick_up_gets_the_note_and_one_on_its_way_stays() {
        struct Answer(bool);
        impl TicksInFlight for Answer {
            fn in_flight(&self) -> bool {
                self.0
            }
        }
        let text = body::render(&{
            let config = Config::default();
            let d = discovery(&["a"]);
            let none = BTreeSet::new();
            let found = [(StackId::given("a"), found("a", 0))].into();
            view(&scanned(&config, &d, &none, &none), &found, None, &NoTicks)
        })
        .unwrap()
        .replacen("- [ ] **a**", "- [x] **a**", 1);
        let body = reader::read(&text);
        assert!(body.rows[0].ticked);
        let config = Config::default();
        let d = discovery(&["a"]);
        let none = BTreeSet::new();
        let s = scanned(&config, &d, &none, &none);
        let same = [(StackId::given("a"), found("a", 0))].into();
        let on_its_way = view(&s, &same, Some(&body), &Answer(true));
        assert!(matches!(&on_its_way.rows[0], RowSource::Carried(b) if b.ticked));
        let swept = view(&s, &same, Some(&body), &Answer(false));
        assert!(matches!(&swept.rows[0], RowSource::Fresh(r) if r.notes == [ORPHAN_NOTE]));
    }

    /// The words a scan now owes on its rows: a change pending again at the hash its
    /// last deploy deployed, and a drift check that failed, on a pending and an in-sync
    /// row.
    #[test]
    fn the_rows_say_pending_again_and_drift_not_checked() {
        let config = Config::default();
        let d = discovery(&["a", "b", "c"]);
        let none = BTreeSet::new();
        let mut s = scanned(&config, &d, &none, &none);
        let pending = found("a", 0);
        let Found::Diff(diff) = &pending else {
            unreachable!()
        };
        s.deployed_hashes = [(StackId::given("a"), diff.hash())].into();
        s.drift_not_checked = [StackId::given("b"), StackId::given("c")].into();
        let found: BTreeMap<_, _> = [
            (StackId::given("a"), pending.clone()),
            (StackId::given("b"), found("b", 0)),
            (StackId::given("c"), found("c", 1)),
        ]
        .into();
        let text = body::render(&view(&s, &found, None, &NoTicks)).unwrap();
        let rows: Vec<String> = reader::read(&text)
            .rows
            .into_iter()
            .map(|r| r.text)
            .collect();
        insta::assert_snapshot!(rows.join("\n"));
    }

    /// ADR 0029: a fresh row an earlier scan drew at this commit from the same inputs is
    /// kept as the live block; another commit, another digest, a record since, or a body
    /// this run drew itself, and it is drawn again.
    #[test]
    fn a_row_drawn_alike_at_the_same_commit_is_kept_and_any_other_is_drawn_again() {
        let config = Config::default();
        let d = discovery(&["a"]);
        let none = BTreeSet::new();
        let earlier = scanned(&config, &d, &none, &none);
        let found: BTreeMap<_, _> = [(StackId::given("a"), found("a", 0))].into();
        let live = reader::read(&body::render(&view(&earlier, &found, None, &NoTicks)).unwrap());
        let kept = |s: &Scanned<'_>| {
            matches!(
                view(s, &found, Some(&live), &NoTicks).rows[0],
                RowSource::Carried(_)
            )
        };
        let later = Scanned {
            run: 8,
            ..scanned(&config, &d, &none, &none)
        };
        assert!(kept(&later), "the same commit, drawn alike");
        assert!(!kept(&earlier), "drawn by this very run");
        assert!(!kept(&Scanned {
            sha: "0000000000000000000000000000000000000001",
            ..scanned(&config, &d, &none, &none)
        }));
        let mut recorded = Scanned {
            run: 8,
            ..scanned(&config, &d, &none, &none)
        };
        recorded.last_recorded =
            [(StackId::given("a"), "2026-11-30T10:00:01Z".parse().unwrap())].into();
        assert!(!kept(&recorded), "a record moved since the scan");
        let mut failed = Scanned {
            run: 8,
            ..scanned(&config, &d, &none, &none)
        };
        failed.drift_not_checked = [StackId::given("a")].into();
        assert!(!kept(&failed), "drawn from other inputs");
        assert_eq!(kept_stacks(&later, &found, &live), ["a"]);
    }

    fn kept_stacks(
        s: &Scanned<'_>,
        found: &BTreeMap<StackId, Found>,
        live: &ReadBody,
    ) -> Vec<String> {
        kept(s, found, live)
            .into_iter()
            .map(|id| id.to_string())
            .collect()
    }

    /// Decision 0073: a full scan draws the deploys a history lists, but for those whose
    /// run is one of the stack's records; a stack whose history it did not read keeps
    /// its lines, and a stack that is gone loses them.
    #[test]
    fn outside_deploys_leave_out_our_own_runs_and_keep_what_was_not_read() {
        let config = Config::default();
        let d = discovery(&["a", "b"]);
        let none = BTreeSet::new();
        let mut first = scanned(&config, &d, &none, &none);
        let entry = |ended: &str, run: Option<u64>| Deployed {
            kind: DeployKind::Update,
            ended: ended.to_owned(),
            commit: None,
            dirty: false,
            ci_system: None,
            run,
        };
        first.histories = BTreeMap::from([
            (
                StackId::given("b"),
                vec![entry("2026-11-29T10:00:00Z", None)],
            ),
            (
                StackId::given("gone"),
                vec![entry("2026-11-29T10:00:00Z", None)],
            ),
        ]);
        let body = body::render(&view(&first, &BTreeMap::new(), None, &NoTicks)).unwrap();
        let live = reader::read(&body);
        assert_eq!(live.outside.len(), 1, "only b still exists: {body}");
        let mut second = scanned(&config, &d, &none, &none);
        second.histories = BTreeMap::from([(
            StackId::given("a"),
            vec![
                entry("2026-11-30T09:00:00Z", Some(41)),
                entry("2026-11-30T08:00:00Z", Some(40)),
                entry("2026-11-30T07:00:00Z", None),
            ],
        )]);
        second.own_runs = BTreeMap::from([(StackId::given("a"), BTreeSet::from([41]))]);
        let lines = view(&second, &BTreeMap::new(), Some(&live), &NoTicks).outside;
        let got: Vec<(String, String)> = lines
            .iter()
            .map(|l| (l.stack.to_string(), l.at.to_string()))
            .collect();
        assert_eq!(
            got,
            [
                ("a".to_owned(), "2026-11-30T08:00:00Z".to_owned()),
                ("a".to_owned(), "2026-11-30T07:00:00Z".to_owned()),
                ("b".to_owned(), "2026-11-29T10:00:00Z".to_owned()),
            ]
        );
    }
}

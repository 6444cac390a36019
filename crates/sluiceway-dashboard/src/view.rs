//! What a writer hands the renderer: the dashboard's facts in its own vocabulary.

use jiff::Timestamp;
use sluiceway_core::config::RawDashboard;
use sluiceway_core::diff::Diff;
use sluiceway_core::stack::StackId;

/// Everything one body is rendered from. The same view always gives the same bytes.
#[derive(Debug, Clone)]
pub struct View {
    pub root: Root,
    pub links: Links,
    pub rows: Vec<RowSource>,
    /// Blocks of rows in states this version does not know, carried byte for byte.
    pub unknown: Vec<String>,
    pub trail: Vec<TrailEntry>,
    /// Deploys the tools' own histories list and no record names (decision 0073).
    pub outside: Vec<crate::outside::OutsideDeploy>,
    pub ignored: Vec<Ignored>,
    /// Bulk boxes someone ticked, now waiting for their confirmation.
    pub confirms: Vec<Confirm>,
    /// Why a section's bulk box is back where a confirm box was, said under it.
    pub bulk_notes: Vec<BulkNote>,
    /// Sections whose bulk or confirm box a writer carries ticked (a tick a run is on its
    /// way to read).
    pub ticked_boxes: Vec<BulkSection>,
    /// Lines under the scan line: hints that decide nothing.
    pub hints: Vec<Hint>,
    pub layout: RawDashboard,
    /// How many changes an attribution line names before it counts the rest.
    pub attribution_names: usize,
    /// The release the pictures are served from and the footer names, e.g. `0.1.0`.
    pub version: String,
    /// "Updates waiting to merge" (decisions 0054, 0081).
    pub updates: crate::updates::Updates,
}

/// The facts of the root marker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    pub scan_sha: String,
    pub scan_run: u64,
    pub scan_at: Timestamp,
    pub full_scan_at: Option<Timestamp>,
    pub full_scan_run: Option<u64>,
    /// The run of this dashboard's workflow that has waited longest for a runner, ten
    /// minutes or more before the scan (decision 0086).
    pub waiting: Option<RunWaiting>,
    /// Runs of the workflow that failed since the scan before this one (decision 0120).
    pub failed_runs: Option<FailedRuns>,
}

/// A run queued for a runner for ten minutes or more, and how many others are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunWaiting {
    pub run: u64,
    pub since: Timestamp,
    /// Other runs queued ten minutes or more.
    pub more: usize,
}

/// How many runs failed between two scans, and the newest of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FailedRuns {
    pub count: usize,
    pub newest: u64,
    /// When the newest began.
    pub at: Timestamp,
}

impl Root {
    /// The live body's root facts; `None` when the body is not one this version writes
    /// over (no root marker, another version, a key missing).
    pub fn read(live: &crate::reader::ReadBody) -> Option<Root> {
        let root = live.root.as_ref().filter(|r| r.get("v") == Some("1"))?;
        Some(Root {
            scan_sha: root.get("scan-sha")?.to_owned(),
            scan_run: root.get("scan-run")?.parse().ok()?,
            scan_at: root.get("scan-at")?.parse().ok()?,
            full_scan_at: root.get("full-scan-at").and_then(|t| t.parse().ok()),
            full_scan_run: root.get("full-scan-run").and_then(|t| t.parse().ok()),
            waiting: (|| {
                Some(RunWaiting {
                    run: root.get("run-waiting")?.parse().ok()?,
                    since: root.get("run-waiting-since")?.parse().ok()?,
                    more: root
                        .get("run-waiting-more")
                        .and_then(|n| n.parse().ok())
                        .unwrap_or(0),
                })
            })(),
            failed_runs: (|| {
                Some(FailedRuns {
                    count: root.get("runs-failed")?.parse().ok().filter(|n| *n > 0)?,
                    newest: root.get("runs-failed-newest")?.parse().ok()?,
                    at: root.get("runs-failed-at")?.parse().ok()?,
                })
            })(),
        })
    }

    /// The root's facts as its marker writes them, after the older keys.
    pub fn marker(&self) -> crate::marker::Marker {
        let text = |v: Option<String>| v.unwrap_or_default();
        crate::marker::Marker::new("dashboard")
            .with("v", "1")
            .with("scan-sha", self.scan_sha.clone())
            .with("scan-run", self.scan_run.to_string())
            .with("scan-at", self.scan_at.to_string())
            .with(
                "full-scan-at",
                text(self.full_scan_at.map(|t| t.to_string())),
            )
            .with(
                "full-scan-run",
                text(self.full_scan_run.map(|r| r.to_string())),
            )
            .with("run-waiting", text(self.waiting.map(|w| w.run.to_string())))
            .with(
                "run-waiting-since",
                text(self.waiting.map(|w| w.since.to_string())),
            )
            .with(
                "run-waiting-more",
                text(
                    self.waiting
                        .filter(|w| w.more > 0)
                        .map(|w| w.more.to_string()),
                ),
            )
            .with(
                "runs-failed",
                text(self.failed_runs.map(|f| f.count.to_string())),
            )
            .with(
                "runs-failed-newest",
                text(self.failed_runs.map(|f| f.newest.to_string())),
            )
            .with(
                "runs-failed-at",
                text(self.failed_runs.map(|f| f.at.to_string())),
            )
    }
}

/// Where links point: the GitHub server, the repository, and the release's pictures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Links {
    /// `https://github.com` (or a GitHub Enterprise Server).
    pub server: String,
    /// `owner/name`.
    pub repository: String,
    /// The job summary of this scan, where shortened rows send the reader.
    pub summary: String,
    /// The base address of the header pictures at the release's tag.
    pub pictures: String,
    /// What exists to link to.
    pub reach: Reach,
}

/// What a body's links may point at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// A job's: the repository on GitHub, and its runs.
    Runs,
    /// A repository on GitHub and no run: a local scan of a checkout whose remote is one.
    Repository,
    /// Nothing on GitHub: a local scan of a folder with no GitHub remote. Commits are
    /// named, never linked.
    Nothing,
}

impl Links {
    pub fn commit(&self, sha: &str) -> String {
        format!("{}/{}/commit/{sha}", self.server, self.repository)
    }

    pub fn run(&self, run: u64) -> String {
        format!("{}/{}/actions/runs/{run}", self.server, self.repository)
    }

    /// `text` linked to the commit, where the repository exists to link to.
    pub fn to_commit(&self, text: &str, sha: &str) -> String {
        match self.reach {
            Reach::Runs | Reach::Repository => format!("[{text}]({})", self.commit(sha)),
            Reach::Nothing => text.to_owned(),
        }
    }

    /// The scanned commit as a line names it: its short form, linked where it can be;
    /// for a folder that is not a git checkout (no commit), that.
    pub fn scanned(&self, sha: &str) -> String {
        if sha.is_empty() {
            return "this folder, which is not a git checkout,".to_owned();
        }
        let short: String = sha.chars().take(7).collect();
        self.to_commit(&format!("`{short}`"), sha)
    }

    /// ` · [run](…)` for a line about `run`, or nothing where there is no run.
    pub fn run_suffix(&self, run: u64) -> String {
        match self.reach {
            Reach::Runs => format!(" · [run]({})", self.run(run)),
            Reach::Repository | Reach::Nothing => String::new(),
        }
    }
}

/// A row the writer owns (rendered now) or one it carries from the body as it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowSource {
    Fresh(Row),
    Carried(crate::reader::RowBlock),
}

/// One stack's row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub stack: StackId,
    pub state: State,
    /// The last deploy failed; shown on the row until a later deploy.
    pub failure: Option<FailureLine>,
    /// Sluiceway's own sentences about the row (why it has no box, what it waits on).
    pub notes: Vec<String>,
    /// The drift check ran and failed (decision 0121); said on pending and in-sync rows.
    pub drift_not_checked: bool,
    /// What the policies said about a pending change, when any were asked.
    pub policies: Option<Policed>,
    /// What a pending change costs a month, when it was estimated (decision 0105).
    pub cost: Option<CostLine>,
}

/// A change's estimated monthly cost, as its row says it: never part of the hash or the
/// marker, kept under redact and at every budget level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CostLine {
    pub currency: String,
    /// Positive when the change costs more.
    pub monthly: sluiceway_core::cost::Amount,
}

/// What the policies said about a pending row's change (decision 0106).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Policed {
    /// No rule failed (warnings go to the job log): the row is drawn as without policies.
    Passed,
    /// At least one rule failed: the row has no box, and lists what failed.
    Failed(Vec<PolicyFailure>),
    /// The policies could not be run, for Sluiceway's reason in a few words (never the
    /// interpreter's): the row keeps its box and says nothing was checked.
    NotRun(String),
}

/// One failed rule's result: its namespace and the message its author wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyFailure {
    pub namespace: String,
    pub message: String,
}

impl Row {
    /// A row in a state, with no failure line, note or drift remark.
    pub fn new(stack: StackId, state: State) -> Row {
        Row {
            stack,
            state,
            failure: None,
            notes: Vec::new(),
            drift_not_checked: false,
            policies: None,
            cost: None,
        }
    }

    /// What a pending or drifted row is drawn from, apart from its attribution and its
    /// preview link, as a digest (ADR 0029): the release that draws it, its state, the diff
    /// (by its hash, which covers every change and drift and every value shown) and value
    /// fingerprint, its failure line, its notes, the drift remark and what the policies
    /// said. `None` for a row in
    /// any other state. The scan compares it with the live row's to keep a block whose
    /// every input is the same, attribution and page included, without asking again.
    pub fn drawn(&self, version: &str) -> Option<String> {
        let (state, diff) = match &self.state {
            State::Pending { diff, .. } => ("pending", diff),
            State::Drifted { diff, .. } => ("drift", diff),
            _ => return None,
        };
        let failure = self.failure.as_ref().map(|f| {
            format!(
                "{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}",
                f.reason, f.ticker, f.on_merge, f.at, f.run
            )
        });
        let mut parts = vec![
            version.to_owned(),
            state.to_owned(),
            diff.hash(),
            diff.fingerprint().unwrap_or_default(),
            failure.unwrap_or_default(),
            self.notes.join("\u{1f}"),
            self.drift_not_checked.to_string(),
        ];
        // Only a row the policies judged or whose cost was estimated has these parts, so
        // the digests of other rows stay what they were before either acted.
        if let Some(policed) = &self.policies {
            parts.push(match policed {
                Policed::Passed => "passed".to_owned(),
                Policed::NotRun(reason) => reason.clone(),
                Policed::Failed(failures) => failures
                    .iter()
                    .map(|f| format!("{}\u{1f}{}", f.namespace, f.message))
                    .collect::<Vec<_>>()
                    .join("\u{1d}"),
            });
        }
        if let Some(cost) = &self.cost {
            parts.push(format!("cost\u{1f}{}\u{1f}{}", cost.currency, cost.monthly));
        }
        Some(sluiceway_core::fingerprint::short_digest(
            &parts.join("\u{1e}"),
        ))
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    Pending {
        diff: Diff,
        preview: Option<String>,
        attribution: Option<Attribution>,
    },
    /// Nothing to deploy from the code, but drift found.
    Drifted {
        diff: Diff,
        preview: Option<String>,
    },
    Deploying {
        ticker: String,
        /// Deployed because its change merged (decision 0095): the ticker merged it.
        on_merge: bool,
        run: String,
        attribution: Option<Attribution>,
    },
    /// A record waits: behind other stacks' deploys, for the deploy window, or both.
    Queued {
        behind: Vec<StackId>,
        /// When the stack's deploy window next opens, while it is closed.
        opens: Option<Timestamp>,
        ticker: String,
        on_merge: bool,
        run: String,
    },
    /// `run` is the failed job's address, `None` where no run exists to link to (a
    /// local scan): a row never links to a run that is not there.
    PreviewFailed {
        reason: String,
        run: Option<String>,
    },
    /// Another update holds the stack's state lock.
    Busy {
        run: Option<String>,
    },
    InSync,
}

/// The changes that reached a stack since its last deploy from the dashboard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attribution {
    pub changes: Vec<Attributed>,
    /// Changes the stack does not claim, only counted.
    pub outside: usize,
    pub compare: Option<String>,
    /// The stack was deployed from this dashboard before; the changes are since then.
    pub deployed: bool,
    /// That deploy lies beyond the commits walked, so older changes are not named.
    pub earlier: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attributed {
    PullRequest { number: u64, author: String },
    Push { sha: String, author: String },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailureLine {
    pub reason: String,
    pub ticker: String,
    pub on_merge: bool,
    pub at: Timestamp,
    pub run: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrailEntry {
    pub stack: StackId,
    pub result: TrailResult,
    pub login: String,
    pub on_merge: bool,
    pub at: Timestamp,
    pub run: String,
    /// The deployment record the line stands for.
    pub record: u64,
    /// What the deploy shipped, when a scan walked it or a live line carries it.
    pub shipped: Option<crate::shipped::Shipped>,
}

/// How a row or the trail credits a deploy: to the person who ticked it, or who merged
/// the change a stack that deploys on merge took (decision 0095).
pub fn credit(login: &str, on_merge: bool) -> String {
    let how = if on_merge { "merged" } else { "ticked" };
    format!("{how} by {}", crate::escape::text(login))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrailResult {
    Deployed,
    /// A drift repair that put back what changed outside the code (decision 0059).
    DriftFixed,
    /// A drift repair that found the drift already gone, and deployed nothing (0091).
    DriftGone,
    NoChanges,
    Rehearsed,
    Failed,
}

impl TrailResult {
    /// How the trail names a record that ended in GitHub's status `state` (`success`,
    /// `inactive`, `failure`, `error`) with `description`, or `None` when the record is
    /// no deploy fact (it moved, or was started again in a record of its own).
    pub fn of(state: &str, description: &str, drift: bool) -> Option<TrailResult> {
        use sluiceway_core::record::ended;
        match (state, description) {
            ("success", ended::IN_SYNC) if drift => Some(TrailResult::DriftGone),
            ("success", ended::IN_SYNC) => Some(TrailResult::NoChanges),
            ("success", _) if drift => Some(TrailResult::DriftFixed),
            ("success", _) => Some(TrailResult::Deployed),
            ("inactive", ended::REHEARSED) => Some(TrailResult::Rehearsed),
            (
                "inactive",
                ended::STARTED_LATER | ended::MERGED_FOLLOWS | ended::TICK_NOT_LET_THROUGH,
            ) => None,
            ("inactive", _) if drift => Some(TrailResult::DriftFixed),
            ("inactive", _) => Some(TrailResult::Deployed),
            ("failure" | "error", ended::MOVED) => None,
            ("failure" | "error", _) => Some(TrailResult::Failed),
            _ => None,
        }
    }
}

/// A stack `ignore` leaves out, listed in a fold under In sync.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ignored {
    pub stack: StackId,
    pub reason: Option<String>,
}

/// The bulk sections a box can deploy all of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BulkSection {
    Pending,
    Drift,
}

/// A confirm box: a person ticked "deploy all" and the next run names what that deploys.
/// Ticking it is a tick on each named row, at the named hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirm {
    pub section: BulkSection,
    pub asked_by: String,
    pub stacks: Vec<StackId>,
    pub hashes: Vec<String>,
    /// The run that asked for it: that run's own scan (a sweep's) keeps it, and any later
    /// scan takes it back, so it lasts through one scan (decision 0083).
    pub scan_run: u64,
}

/// A bulk box's note: why the confirm box it stands in for is gone, or that a tick on
/// it was not picked up (decision 0083).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BulkNote {
    pub section: BulkSection,
    pub why: NoteWhy,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoteWhy {
    /// The section's rows changed since the confirm box named them.
    Changed {
        added: Vec<StackId>,
        gone: Vec<StackId>,
        moved: Vec<StackId>,
    },
    /// A scan ran since it was asked for.
    Expired,
    /// A tick on the box that no run picked up.
    Orphan,
}

impl NoteWhy {
    pub fn name(&self) -> &'static str {
        match self {
            NoteWhy::Changed { .. } => "changed",
            NoteWhy::Expired => "expired",
            NoteWhy::Orphan => "orphan",
        }
    }
}

impl BulkNote {
    /// The note a bulk box's marker carries; `None` for a box without one.
    pub fn read(marker: &crate::marker::Marker) -> Option<BulkNote> {
        if marker.kind != "bulk" || marker.get("confirm").is_some() {
            return None;
        }
        let section = BulkSection::parse(marker.get("section")?)?;
        let ids = |key: &str| -> Vec<StackId> {
            crate::marker::split_list(marker.get(key).unwrap_or(""))
                .iter()
                .map(|s| StackId::given(s))
                .collect()
        };
        let why = match marker.get("note")? {
            "changed" => NoteWhy::Changed {
                added: ids("added"),
                gone: ids("gone"),
                moved: ids("moved"),
            },
            "expired" => NoteWhy::Expired,
            "orphan" => NoteWhy::Orphan,
            _ => return None,
        };
        Some(BulkNote { section, why })
    }

    /// What changed between a confirm box's rows and the section's rows now.
    pub fn changed(confirm: &Confirm, rows: &[crate::reader::RowBlock]) -> BulkNote {
        let now: Vec<(&str, &str)> = rows
            .iter()
            .filter(|r| confirm.section.holds(&r.facts))
            .filter_map(|r| Some((r.facts.stack.as_str(), r.facts.hash.as_deref()?)))
            .collect();
        let named: Vec<(&str, &str)> = confirm
            .stacks
            .iter()
            .map(StackId::as_str)
            .zip(confirm.hashes.iter().map(String::as_str))
            .collect();
        fn has<'a>(list: &[(&str, &'a str)], id: &str) -> Option<&'a str> {
            list.iter().find(|(s, _)| *s == id).map(|(_, h)| *h)
        }
        let ids = |it: Vec<&str>| it.into_iter().map(StackId::given).collect();
        BulkNote {
            section: confirm.section,
            why: NoteWhy::Changed {
                added: ids(now
                    .iter()
                    .filter(|(s, _)| has(&named, s).is_none())
                    .map(|(s, _)| *s)
                    .collect()),
                gone: ids(named
                    .iter()
                    .filter(|(s, _)| has(&now, s).is_none())
                    .map(|(s, _)| *s)
                    .collect()),
                moved: ids(named
                    .iter()
                    .filter(|(s, h)| has(&now, s).is_some_and(|now| now != *h))
                    .map(|(s, _)| *s)
                    .collect()),
            },
        }
    }
}

impl BulkSection {
    /// The marker's `section` value.
    pub fn name(self) -> &'static str {
        match self {
            BulkSection::Pending => "pending",
            BulkSection::Drift => "drift",
        }
    }

    pub fn parse(name: &str) -> Option<BulkSection> {
        match name {
            "pending" => Some(BulkSection::Pending),
            "drift" => Some(BulkSection::Drift),
            _ => None,
        }
    }

    /// The rows a bulk box of this section deploys: pending rows, or drifted ones; never
    /// a row a policy took the box off.
    pub fn holds(self, facts: &crate::facts::RowFacts) -> bool {
        use crate::facts::RowState;
        !facts.policy_failed
            && match self {
                BulkSection::Pending => facts.state == Some(RowState::Pending),
                BulkSection::Drift => facts.state == Some(RowState::Drift),
            }
    }
}

impl Confirm {
    /// Reads a confirm box's marker; `None` for a bulk box, an unknown section, or a
    /// confirm marker missing a key or naming more stacks than hashes.
    pub fn read(marker: &crate::marker::Marker) -> Option<Confirm> {
        if marker.kind != "bulk" {
            return None;
        }
        let section = BulkSection::parse(marker.get("section")?)?;
        let asked_by = marker.get("confirm").filter(|c| !c.is_empty())?.to_owned();
        let stacks = crate::marker::split_list(marker.get("stacks")?);
        let hashes: Vec<String> = marker
            .get("hashes")?
            .split(',')
            .filter(|h| !h.is_empty())
            .map(str::to_owned)
            .collect();
        if stacks.is_empty() || stacks.len() != hashes.len() {
            return None;
        }
        Some(Confirm {
            section,
            asked_by,
            stacks: stacks.iter().map(|s| StackId::given(s)).collect(),
            hashes,
            scan_run: marker.get("scan-run")?.parse().ok()?,
        })
    }

    /// Whether the section's rows are still the ones it names, at the same hashes; a
    /// confirm box whose rows changed is taken back.
    pub fn holds_for(&self, rows: &[crate::reader::RowBlock]) -> bool {
        let mut now: Vec<(&str, &str)> = rows
            .iter()
            .filter(|r| self.section.holds(&r.facts))
            .filter_map(|r| Some((r.facts.stack.as_str(), r.facts.hash.as_deref()?)))
            .collect();
        let mut named: Vec<(&str, &str)> = self
            .stacks
            .iter()
            .map(StackId::as_str)
            .zip(self.hashes.iter().map(String::as_str))
            .collect();
        now.sort_unstable();
        named.sort_unstable();
        now == named
    }
}

/// A line under the scan line, in this order when several apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hint {
    /// A scan started and has not written its result yet.
    ScanRunning { since: Timestamp, run: String },
    /// The last run failed before Sluiceway ran.
    RunFailed { run: String },
    /// The last run found a problem in sluiceway.yaml.
    ConfigProblem { run: String },
    /// Shards of a sharded scan that did not report: their stacks keep their rows.
    ShardsLost {
        shards: Vec<u32>,
        of: u32,
        run: String,
    },
    /// Nothing deploys between these times.
    Freeze {
        from: Timestamp,
        to: Timestamp,
        reason: Option<String>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_records_last_status_names_its_place_on_the_trail() {
        use sluiceway_core::record::ended;
        for (state, description, drift, result) in [
            (
                "success",
                ended::DEPLOYED,
                false,
                Some(TrailResult::Deployed),
            ),
            (
                "success",
                ended::DEPLOYED,
                true,
                Some(TrailResult::DriftFixed),
            ),
            (
                "success",
                ended::IN_SYNC,
                false,
                Some(TrailResult::NoChanges),
            ),
            (
                "success",
                ended::IN_SYNC,
                true,
                Some(TrailResult::DriftGone),
            ),
            (
                "inactive",
                ended::REHEARSED,
                false,
                Some(TrailResult::Rehearsed),
            ),
            ("inactive", ended::STARTED_LATER, false, None),
            (
                "inactive",
                "superseded by a later deploy",
                false,
                Some(TrailResult::Deployed),
            ),
            ("failure", ended::MOVED, false, None),
            (
                "failure",
                "the tool failed",
                false,
                Some(TrailResult::Failed),
            ),
            ("error", ended::NO_RESULT, false, Some(TrailResult::Failed)),
            ("in_progress", "", false, None),
        ] {
            assert_eq!(
                TrailResult::of(state, description, drift),
                result,
                "{state} {description}"
            );
        }
    }
    use crate::marker::Marker;
    use crate::reader;

    #[test]
    fn a_confirm_marker_is_read_whole_and_taken_back_when_its_rows_change() {
        let marker_in = |section: &str, hashes: &str| {
            Marker::new("bulk")
                .with("section", section)
                .with("confirm", "alice")
                .with("stacks", "a,b%2Cc")
                .with("hashes", hashes)
                .with("scan-run", "7")
        };
        let marker = |hashes: &str| marker_in("pending", hashes);
        let confirm = Confirm::read(&marker("1111111111111111,2222222222222222")).unwrap();
        assert_eq!(confirm.stacks, [StackId::given("a"), StackId::given("b,c")]);
        assert!(
            Confirm::read(&marker("1111111111111111")).is_none(),
            "a hash per stack"
        );
        assert!(Confirm::read(&Marker::new("bulk").with("section", "pending")).is_none());
        assert!(
            Confirm::read(&marker_in("later", "1111111111111111,2222222222222222")).is_none(),
            "an unknown section is not a marker"
        );
        let rows = |b_hash: &str| {
            reader::read(&format!(
                "- [ ] a <!-- sluiceway:row stack=\"a\" state=\"pending\" hash=\"1111111111111111\" -->\n<!-- /sluiceway:row -->\n- [ ] b <!-- sluiceway:row stack=\"b,c\" state=\"pending\" hash=\"{b_hash}\" -->\n<!-- /sluiceway:row -->\n"
            ))
            .rows
        };
        assert!(confirm.holds_for(&rows("2222222222222222")));
        assert!(!confirm.holds_for(&rows("3333333333333333")), "a new hash");
        assert!(
            !confirm.holds_for(&rows("3333333333333333")[..1]),
            "a row gone"
        );
    }
}

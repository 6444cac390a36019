//! Resolve: turns the ticks in the dashboard into deployment records (decisions 0003,
//! 0018, 0025, 0035). The event only wakes it: the body and its edit history are read
//! again, every ticker is named from the history, checked live against the tick rule,
//! and only then is a `queued` record opened for each allowed tick, in stack-id order,
//! before the `matrix` output is set and the rows say deploying. Every tick that deploys
//! nothing has its box cleared; refused and unverified ones get one comment.

use std::collections::{BTreeMap, BTreeSet};

use jiff::Timestamp;
use sluiceway_core::calendar::{Calendar, Freeze, Moment};
use sluiceway_core::config::PermissionLevel;
use sluiceway_core::gate::{self, Gated, Wait, Waits};
use sluiceway_core::record::{Approved, Payload, ended};
use sluiceway_core::repo::FileSource;
use sluiceway_core::stack::{Stack, StackId, TickRule};
use sluiceway_dashboard::comment::{self, Unmet, Why};
use sluiceway_dashboard::escape;
use sluiceway_dashboard::facts::RowState;
use sluiceway_dashboard::reader;
use sluiceway_dashboard::updates::Update;
use sluiceway_dashboard::view::{BulkNote, BulkSection, Confirm, Row, RowSource, State};
use sluiceway_github::{GitHub, GitHubError, NewDeploymentStatus, RecordState};

use crate::base::Outcome;
use crate::base::checkout::Checkout;
use crate::base::printer::Printer;
use crate::base::setup::{self, SetupError};
use crate::modes::apply::dashboard_issue;
use crate::modes::job::{Clock, Event, Job};
use crate::modes::layers;
use crate::modes::merging;
use crate::modes::notify::{self, Notice, Notifier};
use crate::modes::outputs::{Outputs, add_to_summary};
use crate::modes::records::{Opener, Records};
use crate::modes::rewrite::{Boxes, Rewrite, untick};
use crate::modes::tick_rule::{Refusal, TickCheck, Verdict};
use crate::modes::ticker::{self, History, Nobody, Tick, Walk};

/// The workflow token's account: the dashboard's author, and the one editor a walk may
/// look through (decision 0119).
pub const BOT: &str = "github-actions[bot]";
/// Times the body and history are read again when they moved under the walk.
const READS: usize = 3;
/// The most deploys one run starts (decision 0035).
const MOST_DEPLOYS: usize = 256;

/// A deploy resolve started: the record apply is handed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Started {
    pub stack: StackId,
    pub environment: String,
    pub deployment: u64,
    pub ticker: String,
    /// Started by a merge, not a tick (decision 0095).
    pub on_merge: bool,
}

impl Started {
    /// The `matrix` output: one entry per deploy for a split workflow's apply jobs.
    pub fn matrix(started: &[Started]) -> String {
        let entries: Vec<serde_json::Value> = started
            .iter()
            .map(|s| {
                serde_json::json!({
                    "stack": s.stack.as_str(),
                    "environment": s.environment,
                    "deployment": s.deployment,
                })
            })
            .collect();
        serde_json::Value::Array(entries).to_string()
    }
}

/// What happened to one tick, for the summary.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Fate {
    Started(String),
    /// A record was opened, queued behind these stacks.
    Queued(String, Vec<StackId>),
    /// Nothing started: a dependency has a change waiting.
    Held(String, Vec<Wait>),
    Refused(String),
    Unverified(String),
    Nobody(Nobody),
    NotAPerson,
    AlreadyDeploying,
    DeploysOff,
    /// The row says a policy failed on its change (decision 0106).
    PolicyFailed,
    /// A deploy freeze is in force: the tick is cleared with a note (ADR 0025).
    Frozen(String),
    /// A record was opened; it waits for the stack's deploy window, which opens then.
    Waiting(String, Timestamp),
}

/// The note a row gets when deploys are turned off (decision 0051).
pub const DEPLOYS_OFF_NOTE: &str = ":information_source: deploys are turned off in `sluiceway.yaml`, so this tick started nothing.";

/// The note a row gets when a tick reaches it although a policy failed on its change
/// (decision 0106): a box drawn by hand, or one left from before the scan took it off.
pub const POLICY_FAILED_NOTE: &str = ":no_entry: a policy failed on this change, so this tick started nothing. The next scan after a fix draws the box again.";

/// The note a row gets when its tick lands in a deploy freeze (ADR 0025): nothing waits
/// to go out at the freeze's end; the person ticks again after it.
pub fn freeze_note(freeze: &Freeze, calendar: &Calendar) -> String {
    let reason = freeze
        .reason
        .as_ref()
        .map(|r| format!(" ({})", escape::text(r)))
        .unwrap_or_default();
    format!(
        ":snowflake: a deploy freeze{reason} is on until {}, so this tick started nothing. Tick it again after the freeze.",
        calendar.wall_time(freeze.ends(&calendar.zone))
    )
}

/// Runs resolve; the started deploys are handed back for apply (auto mode). On the
/// dashboard's edit the event's issue is checked cheaply first; on a schedule or a
/// dispatch the dashboard is found by its label, and queued records whose dependencies
/// ended are started or ended (decision 0056). In the auto mode a read-only dashboard is
/// only scanned (decision 0077).
pub fn run(
    job: &Job,
    github: &dyn GitHub,
    clock: &dyn Clock,
    notifier: &Notifier<'_>,
    auto: bool,
    outputs: &mut Outputs,
    printer: &mut Printer,
) -> (Outcome, Vec<Started>) {
    outputs.set("matrix", "[]");
    let setup = match setup::read(&Checkout::new(&job.workspace)) {
        Ok(setup) => setup,
        Err(SetupError::Unreadable(why)) => {
            printer.say(&format!("::error::{why}"));
            return (Outcome::Failed, Vec::new());
        }
        Err(SetupError::Problems(problems)) => {
            for p in &problems {
                printer.say(&format!("::error::{p}"));
            }
            printer.say("No tick was acted on: sluiceway.yaml or discovery has a problem.");
            return (Outcome::Failed, Vec::new());
        }
    };
    for line in setup::unacted_annotations(&setup.config) {
        printer.say(&line);
    }
    let dashboard = &setup.config.settings.dashboard;
    if auto && dashboard.read_only {
        printer.say(
            "::notice::The dashboard is read only (`dashboard.readOnly`), so no tick is acted on.",
        );
        return (Outcome::Done, Vec::new());
    }
    let number = if job.event == Event::Issues {
        // The cheap check of the payload: our own open dashboard, before any request.
        let Some(issue) = job.issue.as_ref().filter(|i| {
            i.open
                && i.author.eq_ignore_ascii_case(BOT)
                && i.first_line.starts_with("<!-- sluiceway:dashboard ")
                && i.labels.contains(&dashboard.label)
        }) else {
            printer.say(
                "::notice::This edit is not of the dashboard, so there is nothing to resolve.",
            );
            return (Outcome::Done, Vec::new());
        };
        outputs.set("dashboard-url", issue.html_url.clone());
        issue.number
    } else {
        match dashboard_issue(job, github, &dashboard.label) {
            Some((number, url)) => {
                outputs.set("dashboard-url", url);
                number
            }
            None => {
                printer.say("No dashboard issue is open, so there is no tick to resolve.");
                return (Outcome::Done, Vec::new());
            }
        }
    };
    match resolve(
        job,
        github,
        &setup,
        number,
        clock.now(),
        notifier,
        outputs,
        printer,
    ) {
        Ok(resolved) => resolved,
        Err(e) => {
            printer.say(&format!("::error::{e}."));
            (Outcome::Failed, Vec::new())
        }
    }
}

/// An allowed tick the gate let through: a record to open.
struct Opening<'a> {
    stack: &'a Stack,
    hash: String,
    ticker: String,
    behind: Vec<StackId>,
    /// The stack's deploy window is closed now and opens then; the record waits for it.
    opens: Option<Timestamp>,
}

#[allow(clippy::too_many_arguments)]
fn resolve(
    job: &Job,
    github: &dyn GitHub,
    setup: &setup::Setup,
    number: u64,
    now: Timestamp,
    notifier: &Notifier<'_>,
    outputs: &mut Outputs,
    printer: &mut Printer,
) -> Result<(Outcome, Vec<Started>), GitHubError> {
    let calendar = &setup.config.calendar;
    let freeze = calendar.freeze_at(now);
    let stacks: BTreeMap<&str, &Stack> = setup
        .discovery
        .stacks
        .iter()
        .map(|s| (s.id.as_str(), s))
        .collect();
    let (body, named) = name_tickers(github, number)?;
    let live = reader::read(&body);
    let records = Records::read(
        github,
        &setup.discovery.stacks,
        &setup.config.settings.record_writers,
    )?;
    let deploys = setup.config.settings.deploys;
    let mut red = false;

    // Queued records whose dependencies ended start now, or end (decision 0056).
    let mut started = Vec::new();
    let mut queued_rows: BTreeMap<StackId, (Vec<StackId>, Option<Timestamp>)> = BTreeMap::new();
    let when = layers::When {
        calendar,
        now,
        starts_waiting: matches!(job.event, Event::Schedule | Event::Dispatch),
    };
    let layer = layers::advance(job, github, &records, &stacks, &when, printer);
    red |= layer.red;
    started.extend(layer.started);
    let mut open = records.open();
    for ended in &layer.ended {
        open.remove(ended);
    }

    // Records a record writer (the console) opened for a box ticked on the dashboard,
    // before this run got here: waiting, alone open for their stack, at a row's hash.
    // A tick of that row at that hash takes the record over (ADR 0051).
    let picked_up: BTreeMap<StackId, (u64, String)> = records
        .all
        .iter()
        .filter(|r| r.opener == Opener::Writer && r.is_open() && layers::waits(r))
        .filter(|r| r.payload.behind.is_empty() && !r.payload.window)
        // One this run's layers started or ended is not to be had twice.
        .filter(|r| started.iter().all(|s| s.stack != r.stack) && !layer.ended.contains(&r.stack))
        .filter(|r| {
            records
                .all
                .iter()
                .filter(|other| other.stack == r.stack && other.is_open())
                .count()
                == 1
        })
        .filter_map(|r| match &r.payload.approved {
            Approved::Hash(hash) => Some((r.stack.clone(), (r.id, hash.clone()))),
            Approved::Merge(_) => None,
        })
        .collect();
    let mut taken_over: BTreeMap<StackId, u64> = BTreeMap::new();

    let mut check = TickCheck::new(github);
    let mut fates: Vec<(Tick, Fate)> = Vec::new();
    let mut allowed: BTreeMap<StackId, (&Stack, String, String)> = BTreeMap::new();
    let mut unmet = Vec::new();
    let boxes = bulk_boxes(named, &live, &mut check, job.run_id);
    // The ticked updates merge first (decision 0054); their lines go or are cleared.
    let ticked_updates: Vec<(Update, Walk)> = boxes
        .ticks
        .iter()
        .filter_map(|(tick, walk)| {
            let Tick::Merge { pr, head } = tick else {
                return None;
            };
            let line = live.updates.listed.iter().find_map(|l| {
                l.update
                    .as_ref()
                    .filter(|u| u.number == *pr && u.head == *head)
            })?;
            Some((line.clone(), walk.clone()))
        })
        .collect();
    let merges = merging::merge_ticked(
        &merging::Merging {
            job,
            setup,
            open: &open,
        },
        github,
        &mut check,
        ticked_updates,
        printer,
    );
    red |= merges.red;
    for (tick, walk) in boxes.ticks {
        let Tick::Row { stack, hash } = &tick else {
            continue;
        };
        // A tick on a stack this version does not know is left as it is.
        let Some(known) = stacks.get(stack.as_str()) else {
            continue;
        };
        let policy_failed = live
            .rows
            .iter()
            .any(|r| r.facts.stack == stack.as_str() && r.facts.policy_failed);
        if let Some((record, _)) = picked_up
            .get(&known.id)
            .filter(|(_, picked)| picked == hash)
        {
            taken_over.insert(known.id.clone(), *record);
            open.remove(&known.id);
        }
        let fate = if open.contains(&known.id) {
            Fate::AlreadyDeploying
        } else if !deploys {
            Fate::DeploysOff
        } else if policy_failed {
            Fate::PolicyFailed
        } else if let Some(freeze) = freeze {
            Fate::Frozen(freeze_note(freeze, calendar))
        } else {
            match walk {
                Walk::Ticker(actor) => match check.judge(actor.as_ref(), &known.settings.tick_rule)
                {
                    Verdict::Allowed => {
                        let login = actor.map(|a| a.login).unwrap_or_default();
                        allowed.insert(known.id.clone(), (known, hash.clone(), login.clone()));
                        Fate::Started(login)
                    }
                    Verdict::Refused(Refusal::AccountGone) | Verdict::NotAPerson => {
                        Fate::NotAPerson
                    }
                    Verdict::Refused(refusal) => {
                        let login = actor.map(|a| a.login).unwrap_or_default();
                        unmet.push(Unmet {
                            ticker: login.clone(),
                            stack: known.id.clone(),
                            why: match refusal {
                                Refusal::NoWriteAccess => Why::NoWriteAccess,
                                _ => Why::RuleNotMet(known.settings.tick_rule.clone()),
                            },
                            through: boxes.confirmed.get(stack).copied(),
                        });
                        Fate::Refused(login)
                    }
                    Verdict::Unverified => {
                        let login = actor.map(|a| a.login).unwrap_or_default();
                        unmet.push(Unmet {
                            ticker: login.clone(),
                            stack: known.id.clone(),
                            why: Why::Unverified,
                            through: boxes.confirmed.get(stack).copied(),
                        });
                        red = true;
                        Fate::Unverified(login)
                    }
                },
                Walk::Nobody(why) => Fate::Nobody(why),
                Walk::ReadMore | Walk::Moved => Fate::Nobody(Nobody::NotTicked),
            }
        };
        fates.push((tick, fate));
    }

    // The gate: a pending, unticked dependency holds a tick; a dependency ticked now or
    // deploying queues it behind.
    let waits = Waits::of(&setup.discovery.stacks, &setup.config.settings.phases);
    let row_pending = |id: &StackId| {
        live.rows
            .iter()
            .any(|r| r.facts.stack == id.as_str() && r.facts.state == Some(RowState::Pending))
    };
    let ids: BTreeSet<StackId> = allowed.keys().cloned().collect();
    let gated = gate::gate(&ids, &waits, row_pending, |id| open.contains(id));
    let mut openings = Vec::new();
    for (id, (stack, hash, ticker)) in &allowed {
        // A closed window makes a first-layer record wait for it; a record behind
        // others only says so, and has its window judged again when it starts.
        let opens = match calendar.judge(&stack.settings.deploy_windows, now) {
            Moment::Closed { opens } => Some(opens.timestamp()),
            Moment::Open | Moment::Frozen(_) => None,
        };
        match &gated[id] {
            Gated::Held(blocking) => {
                set_fate(&mut fates, id, Fate::Held(ticker.clone(), blocking.clone()));
            }
            Gated::Start => {
                if let Some(at) = opens {
                    set_fate(&mut fates, id, Fate::Waiting(ticker.clone(), at));
                }
                openings.push(Opening {
                    stack,
                    hash: hash.clone(),
                    ticker: ticker.clone(),
                    behind: Vec::new(),
                    opens,
                });
            }
            Gated::Behind(behind) => {
                set_fate(&mut fates, id, Fate::Queued(ticker.clone(), behind.clone()));
                openings.push(Opening {
                    stack,
                    hash: hash.clone(),
                    ticker: ticker.clone(),
                    behind: behind.clone(),
                    opens,
                });
            }
        }
    }
    openings.truncate(MOST_DEPLOYS.saturating_sub(started.len()));

    // Records first, in stack-id order, stopping at the first that cannot be written.
    let ticked_row = |stack: &Stack| {
        live.rows
            .iter()
            .find(|r| r.facts.stack == stack.id.as_str())
    };
    let mut opened = BTreeSet::new();
    for opening in &openings {
        let payload = Payload {
            approved: Approved::Hash(opening.hash.clone()),
            ticker: opening.ticker.clone(),
            run: job.run_id,
            attempt: u32::try_from(job.run_attempt).ok(),
            behind: opening.behind.clone(),
            // The ticked row's drift is deployed with it: apply checks it again.
            drift: ticked_row(opening.stack).is_some_and(|r| r.facts.drift),
            on_merge: false,
            // The values the ticked row covers, as its marker names them (decision 0102).
            fingerprint: ticked_row(opening.stack).and_then(|r| r.facts.fingerprint.clone()),
            window: opening.behind.is_empty() && opening.opens.is_some(),
        };
        match layers::open_record(job, github, opening.stack, &payload) {
            Ok(id) => {
                opened.insert(opening.stack.id.clone());
                if opening.behind.is_empty() && opening.opens.is_none() {
                    started.push(Started {
                        stack: opening.stack.id.clone(),
                        environment: opening.stack.settings.environment.clone(),
                        deployment: id,
                        ticker: opening.ticker.clone(),
                        on_merge: false,
                    });
                } else {
                    queued_rows.insert(
                        opening.stack.id.clone(),
                        (opening.behind.clone(), opening.opens),
                    );
                }
            }
            Err(e) => {
                printer.say(&format!(
                    "::error::The deployment record of {} could not be opened, so it and the stacks after it do not deploy: {e}.",
                    opening.stack.id
                ));
                red = true;
                break;
            }
        }
    }
    red |= end_taken_over(job, github, &taken_over, &opened, printer);
    outputs.set("matrix", Started::matrix(&started));
    // One scan after the rescan box or the merges: it previews the merged stacks and
    // hands their changes to deploys of their own.
    if boxes.rescan {
        red |= !dispatch_workflow(job, github, Dispatched::FullScan, printer);
    } else if !merges.merged.is_empty() {
        let after = Dispatched::AfterMerge(merges.merged.clone());
        red |= !dispatch_workflow(job, github, after, printer);
    }

    // The rows: deploying or queued where a record was opened, every other acted-on tick
    // cleared (with a note when the note says why).
    let deploying: BTreeMap<&str, &Started> =
        started.iter().map(|s| (s.stack.as_str(), s)).collect();
    let tickers: BTreeMap<&StackId, &str> = allowed
        .iter()
        .map(|(id, (_, _, ticker))| (id, ticker.as_str()))
        .collect();
    let judged: BTreeMap<String, (String, Option<String>)> = fates
        .iter()
        .filter_map(|(tick, fate)| {
            let Tick::Row { stack, hash } = tick else {
                return None;
            };
            let note = match fate {
                Fate::DeploysOff => Some(DEPLOYS_OFF_NOTE.to_owned()),
                Fate::PolicyFailed => Some(POLICY_FAILED_NOTE.to_owned()),
                Fate::Frozen(note) => Some(note.clone()),
                Fate::Held(_, blocking) => Some(hold_note(TICK_STARTED_NOTHING, blocking)),
                _ => None,
            };
            (!deploying.contains_key(stack.as_str()) && !opened.contains(&StackId::given(stack)))
                .then(|| (stack.clone(), (hash.clone(), note)))
        })
        .collect();
    let rewrite = Rewrite {
        boxes: Some(boxes.shown.clone()),
        updates: Some(merges.updates(&live.updates)),
        ..Rewrite::of_job(setup, job, &records, now)
    };
    let run_url = job.run_url();
    let written = rewrite.write(
        github,
        number,
        &|block: &reader::RowBlock| -> Option<RowSource> {
            let id = StackId::given(&block.facts.stack);
            if let Some(started) = deploying.get(block.facts.stack.as_str()) {
                return Some(RowSource::Fresh(Row {
                    stack: started.stack.clone(),
                    state: State::Deploying {
                        ticker: started.ticker.clone(),
                        on_merge: started.on_merge,
                        run: run_url.clone(),
                        attribution: None,
                    },
                    failure: None,
                    notes: Vec::new(),
                    drift_not_checked: false,
                    policies: None,
                    cost: None,
                }));
            }
            if let Some((behind, opens)) = queued_rows.get(&id) {
                return Some(RowSource::Fresh(Row {
                    stack: id.clone(),
                    state: State::Queued {
                        behind: behind.clone(),
                        opens: *opens,
                        ticker: tickers.get(&id).copied().unwrap_or_default().to_owned(),
                        on_merge: false,
                        run: run_url.clone(),
                    },
                    failure: None,
                    notes: Vec::new(),
                    drift_not_checked: false,
                    policies: None,
                    cost: None,
                }));
            }
            let (hash, note) = judged.get(&block.facts.stack)?;
            let at_hash = block.facts.hash.as_deref() == Some(hash.as_str());
            // Clear it only while the live row is still ticked at the judged hash; a row
            // the confirm box named gets its note without a box of its own to clear.
            let confirmed = boxes.confirmed.contains_key(&block.facts.stack) && note.is_some();
            (at_hash && (block.ticked || confirmed))
                .then(|| RowSource::Carried(untick(block, note.as_deref())))
        },
    );
    if let Err(e) = written {
        printer.say(&format!(
            "::error::The dashboard could not be written: {e}."
        ));
        red = true;
    }
    let comment_text = match (comment::refusals(&unmet), merges.comment.is_empty()) {
        (Some(ticks), true) => Some(ticks),
        (Some(ticks), false) => Some(format!("{ticks}\n\n{}", merges.comment.join("\n\n"))),
        (None, false) => Some(merges.comment.join("\n\n")),
        (None, true) => None,
    };
    if let Some(text) = comment_text
        && let Err(e) = github.comment(number, &text)
    {
        printer.say(&format!(
            "::error::The comment on the refused ticks could not be written: {e}."
        ));
        red = true;
    }
    if !unmet.is_empty() {
        // One notice for the ticks the comment covers (decision 0078).
        let mut stacks: Vec<String> = Vec::new();
        for refused in &unmet {
            if !stacks.iter().any(|s| s == refused.stack.as_str()) {
                stacks.push(refused.stack.to_string());
            }
        }
        let notice = Notice {
            event: notify::Event::Refused,
            stacks,
            dashboard: outputs.get("dashboard-url").map(str::to_owned),
            run: Some(job.run_url()),
        };
        notifier.tell(&notice, &setup.config.settings.notify.events, printer);
    }
    summarize(job, &fates, &started, &opened, &boxes.said, printer);
    Ok((if red { Outcome::Failed } else { Outcome::Done }, started))
}

/// The ticks once the bulk and confirm boxes are read (decision 0083): a confirm box a
/// person ticked becomes a tick on each row it names, at the named hash, by that person
/// (a row ticked directly keeps its own tick); a bulk box a person with write access
/// ticked becomes a confirm box naming the section's rows. Every other box is cleared.
struct Ticked {
    ticks: Vec<(Tick, Walk)>,
    /// The confirm boxes and bulk-box notes the body shows after this run; no box stays
    /// ticked, since this run acts on every tick.
    shown: Boxes,
    /// Stacks ticked through a confirm box, and the section of that box.
    confirmed: BTreeMap<String, BulkSection>,
    /// A person who may write ticked the rescan box: a full scan is asked for.
    rescan: bool,
    said: Vec<String>,
}

fn bulk_boxes(
    named: Vec<(Tick, Walk)>,
    live: &reader::ReadBody,
    check: &mut TickCheck<'_>,
    run: u64,
) -> Ticked {
    let direct: BTreeSet<String> = named
        .iter()
        .filter_map(|(t, _)| match t {
            Tick::Row { stack, .. } => Some(stack.clone()),
            _ => None,
        })
        .collect();
    let mut boxes = Ticked {
        ticks: Vec::new(),
        shown: Boxes {
            ticked: Vec::new(),
            ..Boxes::carried(live)
        },
        confirmed: BTreeMap::new(),
        rescan: false,
        said: Vec::new(),
    };
    // The confirm box lasts through the scan of this run (a sweep's) and is taken back
    // by any later one (decision 0083).
    let scan_run = run;
    for (tick, walk) in named {
        match (tick, walk) {
            (Tick::Confirm(confirm), walk) => {
                boxes
                    .shown
                    .confirms
                    .retain(|c| c.section != confirm.section);
                let words = section_words(confirm.section);
                match walk {
                    _ if !confirm.holds_for(&live.rows) => {
                        boxes.shown.notes.retain(|n| n.section != confirm.section);
                        boxes.shown.notes.push(BulkNote::changed(&confirm, &live.rows));
                        boxes.said.push(format!(
                            "- the confirm box of the {words}: its rows changed since it was drawn, so it was taken back and deploys nothing"
                        ));
                    }
                    Walk::Ticker(actor) => {
                        let login = actor.as_ref().map(|a| a.login.clone()).unwrap_or_default();
                        boxes.said.push(format!(
                            "- the confirm box of the {words}: ticked by {login}; each of its {} stacks is judged as a tick of theirs",
                            confirm.stacks.len()
                        ));
                        for (stack, hash) in confirm.stacks.iter().zip(&confirm.hashes).take(MOST_DEPLOYS) {
                            if direct.contains(stack.as_str()) {
                                continue;
                            }
                            boxes.confirmed.insert(stack.to_string(), confirm.section);
                            boxes.ticks.push((
                                Tick::Row { stack: stack.to_string(), hash: hash.clone() },
                                Walk::Ticker(actor.clone()),
                            ));
                        }
                    }
                    _ => boxes.said.push(format!(
                        "- the confirm box of the {words}: the edit history names nobody; it was cleared"
                    )),
                }
            }
            (Tick::Bulk(section), walk) => {
                let words = section_words(section);
                let rows: Vec<&reader::RowBlock> = live
                    .rows
                    .iter()
                    .filter(|r| section.holds(&r.facts) && r.facts.hash.is_some())
                    .collect();
                let actor = match &walk {
                    Walk::Ticker(actor) => actor.clone(),
                    _ => None,
                };
                let allowed = check
                    .judge(actor.as_ref(), &TickRule::AtLeast(PermissionLevel::Write))
                    == Verdict::Allowed;
                match actor.filter(|_| allowed && !rows.is_empty()) {
                    Some(actor) => {
                        boxes.shown.confirms.retain(|c| c.section != section);
                        boxes.shown.notes.retain(|n| n.section != section);
                        boxes.shown.confirms.push(Confirm {
                            section,
                            asked_by: actor.login.clone(),
                            stacks: rows.iter().map(|r| StackId::given(&r.facts.stack)).collect(),
                            hashes: rows.iter().filter_map(|r| r.facts.hash.clone()).collect(),
                            scan_run,
                        });
                        boxes.said.push(format!(
                            "- the bulk box of the {words}: ticked by {}; a confirm box now names its {} stacks",
                            actor.login,
                            rows.len()
                        ));
                    }
                    None => boxes.said.push(format!(
                        "- the bulk box of the {words}: not ticked by a person with write access; it was cleared"
                    )),
                }
            }
            // Anyone who may write may ask for a scan (the reference's decision 0025):
            // it deploys nothing, but it runs the workflow with its credentials.
            (Tick::Rescan, walk) => {
                let actor = match &walk {
                    Walk::Ticker(actor) => actor.clone(),
                    _ => None,
                };
                let verdict =
                    check.judge(actor.as_ref(), &TickRule::AtLeast(PermissionLevel::Write));
                let login = actor.map(|a| a.login);
                boxes.said.push(match (verdict, login) {
                    (Verdict::Allowed, Some(login)) => {
                        boxes.rescan = true;
                        format!("- the rescan box: ticked by {login}; a full scan is asked for")
                    }
                    (Verdict::Refused(Refusal::NoWriteAccess), Some(login)) => format!(
                        "- the rescan box: ticked by {login}, who cannot write to the repository; it was cleared and no scan was asked for"
                    ),
                    (Verdict::Unverified, Some(login)) => format!(
                        "- the rescan box: GitHub did not say whether {login} may write to the repository; it was cleared and no scan was asked for"
                    ),
                    _ => "- the rescan box: no person who can write to the repository could be named as its ticker; it was cleared and no scan was asked for".to_owned(),
                });
            }
            other => boxes.ticks.push(other),
        }
    }
    boxes
}

fn section_words(section: BulkSection) -> &'static str {
    match section {
        BulkSection::Pending => "pending stacks",
        BulkSection::Drift => "drifted stacks",
    }
}

/// Ends each record taken over from a record writer: started again in this run's own
/// record, or, when this run did not let the tick through, ended with nothing deployed.
/// Answers whether one could not be ended.
fn end_taken_over(
    job: &Job,
    github: &dyn GitHub,
    taken_over: &BTreeMap<StackId, u64>,
    opened: &BTreeSet<StackId>,
    printer: &mut Printer,
) -> bool {
    let mut red = false;
    for (stack, record) in taken_over {
        let description = if opened.contains(stack) {
            ended::STARTED_LATER
        } else {
            ended::TICK_NOT_LET_THROUGH
        };
        let status = NewDeploymentStatus {
            state: RecordState::Inactive,
            description: description.to_owned(),
            log_url: Some(job.run_url()),
        };
        match github.set_deployment_status(*record, &status) {
            Ok(()) if opened.contains(stack) => printer.say(&format!(
                "{stack}: record {record}, opened by a record writer for this tick, is carried on in this run's record."
            )),
            Ok(()) => printer.say(&format!(
                "{stack}: record {record}, opened by a record writer for this tick, was ended: the tick was not let through."
            )),
            Err(e) => {
                printer.say(&format!(
                    "::error::{stack}: record {record}, opened by a record writer for this tick, could not be ended: {e}."
                ));
                red = true;
            }
        }
    }
    red
}

fn set_fate(fates: &mut [(Tick, Fate)], stack: &StackId, fate: Fate) {
    for (tick, was) in fates.iter_mut() {
        if matches!(tick, Tick::Row { stack: s, .. } if s == stack.as_str()) {
            *was = fate.clone();
        }
    }
}

/// What a held tick's note begins with.
pub const TICK_STARTED_NOTHING: &str = "this tick started nothing";

/// The note on a tick (or a merge) a dependency held back (decisions 0056 and 0067):
/// `what` started nothing, and the stacks that block it, at most five named. A phase
/// edge is named by its phase.
pub fn hold_note(what: &str, blocking: &[Wait]) -> String {
    let bold = |id: &StackId| format!("**{}**", escape::text(id.as_str()));
    let phase = |name: &str| format!("**{}**", escape::text(name));
    held(what, blocking, bold, phase)
}

/// The same note as plain text, for a row the renderer escapes (a merge's, decision
/// 0095).
pub fn hold_text(what: &str, blocking: &[Wait]) -> String {
    held(
        what,
        blocking,
        |id| id.to_string(),
        |name| format!("\"{name}\""),
    )
}

fn held(
    what: &str,
    blocking: &[Wait],
    stack: impl Fn(&StackId) -> String,
    phase_name: impl Fn(&str) -> String,
) -> String {
    const NAMED: usize = 5;
    let mut names: Vec<String> = blocking.iter().take(NAMED).map(|w| stack(&w.on)).collect();
    if blocking.len() > NAMED {
        names.push(format!("{} more", blocking.len() - NAMED));
    }
    let list = match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    };
    let one = blocking.len() == 1;
    let phase = blocking
        .iter()
        .all(|w| w.phase.is_some())
        .then(|| blocking.first().and_then(|w| w.phase.clone()))
        .flatten();
    match phase {
        Some(phase) => format!(
            "{what}: it waits on the {} phase: {list} {}",
            phase_name(&phase),
            if one {
                "has a change waiting."
            } else {
                "have changes waiting."
            }
        ),
        None if one => format!(
            "{what}: it depends on {list}, which has a change waiting. Tick both to deploy them in order, or deploy {list} first."
        ),
        None => format!(
            "{what}: it depends on {list}, which have changes waiting. Tick them all to deploy them in order, or deploy those first."
        ),
    }
}

/// Reads the body and its history, and names the ticker of every row tick; reads both
/// again (at most three times) when the body moved under the walk.
fn name_tickers(
    github: &dyn GitHub,
    number: u64,
) -> Result<(String, Vec<(Tick, Walk)>), GitHubError> {
    let mut last = None;
    for _ in 0..READS {
        let mut read = github.read_body(number, None)?;
        let ticks = Tick::all_in(&read.body);
        let mut named = Vec::new();
        let mut moved = false;
        for tick in ticks {
            let walk = loop {
                let history = History {
                    body: &read.body,
                    edits: &read.edits,
                    complete: read.next.is_none(),
                    total: read.total_edits,
                };
                match ticker::walk(&tick, history, BOT) {
                    Walk::ReadMore => {
                        let Some(next) = read.next.clone() else {
                            break Walk::Nobody(Nobody::PastTheKeptHistory);
                        };
                        let page = github.read_body(number, Some(&next))?;
                        read.edits.extend(page.edits);
                        read.next = page.next;
                    }
                    other => break other,
                }
            };
            if walk == Walk::Moved {
                moved = true;
                break;
            }
            named.push((tick, walk));
        }
        if !moved {
            return Ok((read.body, named));
        }
        last = Some(read.body);
    }
    // The body never held still: name nobody.
    let body = last.unwrap_or_default();
    let named = Tick::all_in(&body)
        .into_iter()
        .map(|t| (t, Walk::Nobody(Nobody::NotTicked)))
        .collect();
    Ok((body, named))
}

/// Why a run of the workflow is asked for; in the auto mode a dispatched run resolves
/// (starting the queued layers) and then scans in full.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dispatched {
    /// The rescan box, or settle after a run that ended without a result.
    FullScan,
    /// The scan after ticks merged these updates (decision 0064): narrowed like a push
    /// when the workflow declares the `sluiceway-merged` input.
    AfterMerge(Vec<u64>),
    /// A deploy ended that queued records waited behind.
    NextLayer,
}

/// The dispatch input that names the updates a resolve merged.
pub const MERGED_INPUT: &str = "sluiceway-merged";

/// Whether the running workflow declares the input: GitHub refuses a dispatch with an
/// input the workflow does not declare.
fn declares_merged_input(job: &Job, workflow: &str) -> bool {
    Checkout::new(&job.workspace)
        .read_text(&format!(".github/workflows/{workflow}"))
        .and_then(|text| sluiceway_core::config::Document::parse(&text).ok())
        .is_some_and(|d| {
            d.value
                .pointer(&format!("/on/workflow_dispatch/inputs/{MERGED_INPUT}"))
                .is_some()
        })
}

/// Asks for a run of this workflow on the default branch. `false` when GitHub refused.
pub fn dispatch_workflow(
    job: &Job,
    github: &dyn GitHub,
    why: Dispatched,
    printer: &mut Printer,
) -> bool {
    let what = match &why {
        Dispatched::FullScan => "full scan",
        Dispatched::AfterMerge(_) => "scan after the merge",
        Dispatched::NextLayer => "run for the stacks queued behind this deploy",
    };
    let Some(workflow) = &job.workflow_file else {
        printer.say(&format!(
            "::warning::No {what} was asked for: GITHUB_WORKFLOW_REF does not name the workflow."
        ));
        return true;
    };
    let branch = job
        .default_branch
        .clone()
        .unwrap_or_else(|| "main".to_owned());
    let mut inputs = BTreeMap::new();
    if let Dispatched::AfterMerge(numbers) = &why {
        if declares_merged_input(job, workflow) {
            let joined: Vec<String> = numbers.iter().map(u64::to_string).collect();
            inputs.insert(MERGED_INPUT.to_owned(), joined.join(","));
        } else {
            printer.say(&format!(
                "The scan after the merge is a full scan: {workflow} does not declare the workflow_dispatch input {MERGED_INPUT}, which lets it narrow to what the merge changed."
            ));
        }
    }
    match github.dispatch_workflow(workflow, &branch, &inputs) {
        Ok(_) => {
            printer.say(&format!(
                "A {what} was asked for: a run of {workflow} on {branch}."
            ));
            true
        }
        Err(e) => {
            printer.say(&format!("::error::The {what} could not be asked for: {e}."));
            false
        }
    }
}

/// What happened to each tick, into the job log and the job summary.
fn summarize(
    job: &Job,
    fates: &[(Tick, Fate)],
    started: &[Started],
    opened: &BTreeSet<StackId>,
    boxes: &[String],
    printer: &mut Printer,
) {
    let mut lines = tick_lines(fates, started, opened);
    lines.extend(boxes.iter().cloned());
    printer.say("What happened to each tick:");
    for line in &lines {
        printer.say(line);
    }
    if lines.is_empty() {
        return;
    }
    let list: Vec<String> = lines
        .iter()
        .map(|l| format!("- {}", escape::text(l.trim_start_matches("- "))))
        .collect();
    add_to_summary(
        job,
        &format!(
            "## What happened to each tick

{}

",
            list.join(
                "
"
            )
        ),
        printer,
    );
}

fn tick_lines(
    fates: &[(Tick, Fate)],
    started: &[Started],
    opened: &BTreeSet<StackId>,
) -> Vec<String> {
    let mut lines = Vec::new();
    for (tick, fate) in fates {
        let Tick::Row { stack, .. } = tick else {
            continue;
        };
        let line = match fate {
            Fate::Started(login) if started.iter().any(|s| s.stack.as_str() == stack) => {
                format!("{stack}: ticked by {login}; its deploy is queued")
            }
            Fate::Started(login) => {
                format!("{stack}: ticked by {login}; its record could not be opened")
            }
            Fate::Queued(login, behind) if opened.contains(&StackId::given(stack)) => {
                let behind: Vec<&str> = behind.iter().map(StackId::as_str).collect();
                format!(
                    "{stack}: ticked by {login}; queued behind {}",
                    behind.join(", ")
                )
            }
            Fate::Queued(login, _) => {
                format!("{stack}: ticked by {login}; its record could not be opened")
            }
            Fate::Held(login, blocking) => {
                let on: Vec<&str> = blocking.iter().map(|w| w.on.as_str()).collect();
                format!(
                    "{stack}: ticked by {login}; started nothing, since {} has a change waiting",
                    on.join(", ")
                )
            }
            Fate::Refused(login) => {
                format!("{stack}: ticked by {login}, who the tick rule does not allow")
            }
            Fate::Unverified(login) => {
                format!("{stack}: ticked by {login}; GitHub did not say whether they may")
            }
            Fate::Nobody(why) => {
                let why = match why {
                    Nobody::BrokenByADeletedEntry => "an entry of its edit history was deleted",
                    Nobody::PastTheKeptHistory => {
                        "its tick is older than the edit history GitHub keeps"
                    }
                    Nobody::NoEdits => "the issue was never edited",
                    Nobody::NotTicked => "the edit history does not hold the tick",
                };
                format!("{stack}: nobody can be named as its ticker ({why}); the box was cleared")
            }
            Fate::NotAPerson => format!("{stack}: not ticked by a person; the box was cleared"),
            Fate::AlreadyDeploying => format!("{stack}: already deploying; the tick was dropped"),
            Fate::DeploysOff => format!("{stack}: deploys are turned off in sluiceway.yaml"),
            Fate::PolicyFailed => {
                format!("{stack}: a policy failed on its change, so the tick started nothing")
            }
            Fate::Frozen(_) => {
                format!("{stack}: a deploy freeze is on, so the tick started nothing")
            }
            Fate::Waiting(login, opens) if opened.contains(&StackId::given(stack)) => {
                format!(
                    "{stack}: ticked by {login}; it waits for its deploy window, which opens {opens}"
                )
            }
            Fate::Waiting(login, _) => {
                format!("{stack}: ticked by {login}; its record could not be opened")
            }
        };
        lines.push(format!("- {line}"));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wait(on: &str, phase: Option<&str>) -> Wait {
        Wait {
            on: StackId::given(on),
            phase: phase.map(str::to_owned),
        }
    }

    #[test]
    fn the_hold_note_names_what_blocks_and_a_phase_by_its_name() {
        assert_eq!(
            hold_note(TICK_STARTED_NOTHING, &[wait("network:prod", None)]),
            "this tick started nothing: it depends on **network:prod**, which has a change waiting. Tick both to deploy them in order, or deploy **network:prod** first."
        );
        assert_eq!(
            hold_note(TICK_STARTED_NOTHING, &[wait("dns", Some("base"))]),
            "this tick started nothing: it waits on the **base** phase: **dns** has a change waiting."
        );
        let many: Vec<Wait> = (1..=7)
            .map(|i| wait(&format!("s{i}"), Some("base")))
            .collect();
        assert_eq!(
            hold_note(TICK_STARTED_NOTHING, &many),
            "this tick started nothing: it waits on the **base** phase: **s1**, **s2**, **s3**, **s4**, **s5** and 2 more have changes waiting."
        );
        assert_eq!(
            hold_note(
                TICK_STARTED_NOTHING,
                &[wait("a", None), wait("b", Some("base"))]
            ),
            "this tick started nothing: it depends on **a** and **b**, which have changes waiting. Tick them all to deploy them in order, or deploy those first."
        );
        assert_eq!(
            hold_text("this merge started nothing", &[wait("dns", Some("base"))]),
            "this merge started nothing: it waits on the \"base\" phase: dns has a change waiting."
        );
    }
}

//! Resolve: turns the ticks in the dashboard into deployment records (decisions 0003,
//! 0018, 0025, 0035). The event only wakes it: the body and its edit history are read
//! again, every ticker is named from the history, checked live against the tick rule,
//! and only then is a `queued` record opened for each allowed tick, in stack-id order,
//! before the `matrix` output is set and the rows say deploying. Every tick that deploys
//! nothing has its box cleared; refused and unverified ones get one comment.

use std::collections::BTreeMap;

use sluiceway_core::record::{self, Approved, Payload};
use sluiceway_core::stack::{Stack, StackId};
use sluiceway_dashboard::comment::{self, Unmet, Why};
use sluiceway_dashboard::reader;
use sluiceway_dashboard::view::{Row, RowSource, State};
use sluiceway_github::{
    GitHub, GitHubError, NewDeploymentRecord, NewDeploymentStatus, RecordState,
};

use crate::Outcome;
use crate::checkout::Checkout;
use crate::identity;
use crate::modes::job::Job;
use crate::modes::outputs::Outputs;
use crate::modes::records::Records;
use crate::modes::rewrite::{Rewrite, untick};
use crate::modes::scan::links;
use crate::printer::Printer;
use crate::setup::{self, SetupError};
use crate::tick_rule::{Refusal, TickCheck, Verdict};
use crate::ticker::{self, History, Nobody, Tick, Walk};

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
}

/// What happened to one tick, for the summary.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Fate {
    Started(String),
    Refused(String),
    Unverified(String),
    Nobody(Nobody),
    NotAPerson,
    AlreadyDeploying,
    DeploysOff,
}

/// The note a row gets when deploys are turned off (decision 0051).
pub const DEPLOYS_OFF_NOTE: &str = ":information_source: deploys are turned off in `sluiceway.yaml`, so this tick started nothing.";

/// Runs resolve; the started deploys are handed back for apply (auto mode).
pub fn run(
    job: &Job,
    github: &dyn GitHub,
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
    let label = &setup.config.settings.dashboard.label;
    // The cheap check of the payload: our own open dashboard, before any request.
    let Some(issue) = job.issue.as_ref().filter(|i| {
        i.open
            && i.author.eq_ignore_ascii_case(BOT)
            && i.first_line.starts_with("<!-- sluiceway:dashboard ")
            && i.labels.iter().any(|l| l == label)
    }) else {
        printer.say("::notice::This edit is not of the dashboard, so there is nothing to resolve.");
        return (Outcome::Done, Vec::new());
    };
    match resolve(job, github, &setup, issue.number, outputs, printer) {
        Ok(resolved) => resolved,
        Err(e) => {
            printer.say(&format!("::error::{e}."));
            (Outcome::Failed, Vec::new())
        }
    }
}

fn resolve(
    job: &Job,
    github: &dyn GitHub,
    setup: &setup::Setup,
    number: u64,
    outputs: &mut Outputs,
    printer: &mut Printer,
) -> Result<(Outcome, Vec<Started>), GitHubError> {
    let stacks: BTreeMap<&str, &Stack> = setup
        .discovery
        .stacks
        .iter()
        .map(|s| (s.id.as_str(), s))
        .collect();
    let named = name_tickers(github, number)?;
    let rescan = named.iter().any(|(tick, _)| *tick == Tick::Rescan);
    let records = Records::read(github, &setup.discovery.stacks)?;
    let open = records.open();
    let deploys = setup.config.settings.deploys;

    let mut check = TickCheck::new(github);
    let mut fates: Vec<(Tick, Fate)> = Vec::new();
    let mut allowed: Vec<(&Stack, String, String)> = Vec::new();
    let mut unmet = Vec::new();
    let mut red = false;
    for (tick, walk) in named {
        let Tick::Row { stack, hash } = &tick else {
            continue;
        };
        // A tick on a stack this version does not know is left as it is.
        let Some(known) = stacks.get(stack.as_str()) else {
            continue;
        };
        let fate = if open.contains(&known.id) {
            Fate::AlreadyDeploying
        } else if !deploys {
            Fate::DeploysOff
        } else {
            match walk {
                Walk::Ticker(actor) => match check.judge(actor.as_ref(), &known.settings.tick_rule)
                {
                    Verdict::Allowed => {
                        let login = actor.map(|a| a.login).unwrap_or_default();
                        allowed.push((known, hash.clone(), login.clone()));
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
                        });
                        Fate::Refused(login)
                    }
                    Verdict::Unverified => {
                        let login = actor.map(|a| a.login).unwrap_or_default();
                        unmet.push(Unmet {
                            ticker: login.clone(),
                            stack: known.id.clone(),
                            why: Why::Unverified,
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
    allowed.sort_by(|a, b| a.0.id.cmp(&b.0.id));
    allowed.truncate(MOST_DEPLOYS);

    // Records first, in stack-id order, stopping at the first that cannot be written.
    let mut started = Vec::new();
    for (stack, hash, ticker) in &allowed {
        let payload = Payload {
            approved: Approved::Hash(hash.clone()),
            ticker: ticker.clone(),
            run: job.run_id,
            attempt: u32::try_from(job.run_attempt).ok(),
            behind: Vec::new(),
            drift: false,
            on_merge: false,
            fingerprint: None,
            window: false,
        };
        let made = github
            .create_deployment_record(&NewDeploymentRecord {
                sha: job.sha.clone(),
                task: record::task_for(&stack.id),
                environment: stack.settings.environment.clone(),
                payload: payload.to_json(),
                description: format!("{} ticked by {ticker}", stack.id),
            })
            .and_then(|made| {
                github.set_deployment_status(
                    made.id,
                    &NewDeploymentStatus {
                        state: RecordState::Queued,
                        description: format!("ticked by {ticker}"),
                        log_url: Some(job.run_url()),
                    },
                )?;
                Ok(made)
            });
        match made {
            Ok(made) => started.push(Started {
                stack: stack.id.clone(),
                environment: stack.settings.environment.clone(),
                deployment: made.id,
                ticker: ticker.clone(),
            }),
            Err(e) => {
                printer.say(&format!(
                    "::error::The deployment record of {} could not be opened, so it and the stacks after it do not deploy: {e}.",
                    stack.id
                ));
                red = true;
                break;
            }
        }
    }
    let matrix: Vec<serde_json::Value> = started
        .iter()
        .map(|s| {
            serde_json::json!({
                "stack": s.stack.as_str(),
                "environment": s.environment,
                "deployment": s.deployment,
            })
        })
        .collect();
    outputs.set("matrix", serde_json::Value::Array(matrix).to_string());

    // The rows: deploying where a record was opened, every other acted-on tick cleared.
    let deploying: BTreeMap<&str, &Started> =
        started.iter().map(|s| (s.stack.as_str(), s)).collect();
    let judged: BTreeMap<String, (String, Option<&'static str>)> = fates
        .iter()
        .filter_map(|(tick, fate)| {
            let Tick::Row { stack, hash } = tick else {
                return None;
            };
            let note = matches!(fate, Fate::DeploysOff).then_some(DEPLOYS_OFF_NOTE);
            (!deploying.contains_key(stack.as_str())).then(|| (stack.clone(), (hash.clone(), note)))
        })
        .collect();
    let rewrite = Rewrite {
        config: &setup.config,
        discovery: &setup.discovery,
        links: links(job),
        trail: records.trail(|run| links(job).run(run)),
        version: identity::VERSION,
    };
    let run_url = job.run_url();
    let written = rewrite.write(
        github,
        number,
        &|block: &reader::RowBlock| -> Option<RowSource> {
            if let Some(started) = deploying.get(block.facts.stack.as_str()) {
                return Some(RowSource::Fresh(Row {
                    stack: started.stack.clone(),
                    state: State::Deploying {
                        ticker: started.ticker.clone(),
                        run: run_url.clone(),
                        attribution: None,
                    },
                    failure: None,
                    notes: Vec::new(),
                }));
            }
            let (hash, note) = judged.get(&block.facts.stack)?;
            // Clear it only while the live row is still ticked at the judged hash.
            (block.ticked && block.facts.hash.as_deref() == Some(hash.as_str()))
                .then(|| RowSource::Carried(untick(block, *note)))
        },
    );
    if let Err(e) = written {
        printer.say(&format!(
            "::error::The dashboard could not be written: {e}."
        ));
        red = true;
    }
    if let Some(text) = comment::refusals(&unmet)
        && let Err(e) = github.comment(number, &text)
    {
        printer.say(&format!(
            "::error::The comment on the refused ticks could not be written: {e}."
        ));
        red = true;
    }
    if rescan {
        red |= !dispatch_full_scan(job, github, printer);
    }
    summarize(&fates, &started, printer);
    Ok((if red { Outcome::Failed } else { Outcome::Done }, started))
}

/// Reads the body and its history, and names the ticker of every row tick; reads both
/// again (at most three times) when the body moved under the walk.
fn name_tickers(github: &dyn GitHub, number: u64) -> Result<Vec<(Tick, Walk)>, GitHubError> {
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
            return Ok(named);
        }
        last = Some(read.body);
    }
    // The body never held still: name nobody.
    Ok(Tick::all_in(&last.unwrap_or_default())
        .into_iter()
        .map(|t| (t, Walk::Nobody(Nobody::NotTicked)))
        .collect())
}

/// Asks for a full scan: the rescan box, or settle after a run that ended without a
/// result. `false` when GitHub refused it.
pub fn dispatch_full_scan(job: &Job, github: &dyn GitHub, printer: &mut Printer) -> bool {
    let Some(workflow) = &job.workflow_file else {
        printer.say("::warning::No full scan was asked for: GITHUB_WORKFLOW_REF does not name the workflow.");
        return true;
    };
    let branch = job
        .default_branch
        .clone()
        .unwrap_or_else(|| "main".to_owned());
    match github.dispatch_workflow(workflow, &branch, &BTreeMap::new()) {
        Ok(_) => {
            printer.say(&format!(
                "A full scan was asked for: a run of {workflow} on {branch}."
            ));
            true
        }
        Err(e) => {
            printer.say(&format!(
                "::error::The full scan could not be asked for: {e}."
            ));
            false
        }
    }
}

fn summarize(fates: &[(Tick, Fate)], started: &[Started], printer: &mut Printer) {
    printer.say("What happened to each tick:");
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
            Fate::Refused(login) => {
                format!("{stack}: ticked by {login}, who the tick rule does not allow")
            }
            Fate::Unverified(login) => {
                format!("{stack}: ticked by {login}; GitHub did not say whether they may")
            }
            Fate::Nobody(why) => {
                format!("{stack}: the edit history names nobody ({why:?}); the box was cleared")
            }
            Fate::NotAPerson => format!("{stack}: not ticked by a person; the box was cleared"),
            Fate::AlreadyDeploying => format!("{stack}: already deploying; the tick was dropped"),
            Fate::DeploysOff => format!("{stack}: deploys are turned off in sluiceway.yaml"),
        };
        printer.say(&format!("- {line}"));
    }
}

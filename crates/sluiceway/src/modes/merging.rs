//! A tick on an update (decisions 0054, 0064): resolve names the ticker from the edit
//! history like any tick, checks the tick rule of every stack the update changes, reads
//! the pull request again and judges it afresh, then merges it pinned to the head the
//! line showed, with the method the update bot's own configuration asks for. Each of its
//! stacks gets a merge record on the merge commit (`queued`, credited to the ticker),
//! which the scan after the merge hands to a deploy of its own, and that scan is asked
//! for. Whatever merges nothing clears the box and is said in one comment, or red when
//! GitHub would not let the workflow merge at all.

use std::collections::BTreeMap;

use sluiceway_core::record::{Approved, Payload};
use sluiceway_core::renovate::{self, Method};
use sluiceway_core::stack::{Stack, StackId};
use sluiceway_dashboard::escape;
use sluiceway_dashboard::updates::{Update, UpdateLine, Updates};
use sluiceway_github::{
    Failure, GitHub, MergeMethod, NewDeploymentRecord, NewDeploymentStatus, RecordState,
};

use crate::base::checkout::Checkout;
use crate::base::printer::Printer;
use crate::base::setup::Setup;
use crate::modes::job::Job;
use crate::modes::tick_rule::{TickCheck, Verdict};
use crate::modes::ticker::Walk;
use crate::modes::updates::{Judged, judge};

/// What the merge ticks came to.
#[derive(Debug, Default)]
pub struct MergeTicks {
    /// Pull requests merged: their lines go.
    pub merged: Vec<u64>,
    /// Pull requests whose box is cleared.
    pub cleared: Vec<u64>,
    /// One comment's paragraphs, for the ticks that merged nothing and a person should
    /// hear of.
    pub comment: Vec<String>,
    /// The job log's lines.
    pub said: Vec<String>,
    pub red: bool,
}

impl MergeTicks {
    /// The section after the ticks: merged lines gone, cleared boxes empty.
    pub fn updates(&self, live: &Updates) -> Updates {
        Updates {
            listed: live
                .listed
                .iter()
                .filter(|line| !self.touches(line, &self.merged))
                .map(|line| {
                    if self.touches(line, &self.cleared) {
                        UpdateLine {
                            text: line
                                .text
                                .replacen("- [x] ", "- [ ] ", 1)
                                .replacen("- [X] ", "- [ ] ", 1),
                            ticked: false,
                            update: line.update.clone(),
                        }
                    } else {
                        line.clone()
                    }
                })
                .collect(),
            waiting: live.waiting.clone(),
        }
    }

    fn touches(&self, line: &UpdateLine, numbers: &[u64]) -> bool {
        line.update
            .as_ref()
            .is_some_and(|u| numbers.contains(&u.number))
    }
}

/// What the merge needs of the run.
pub(crate) struct Merging<'a> {
    pub job: &'a Job,
    pub setup: &'a Setup,
    /// Stacks with an open deployment record.
    pub open: &'a std::collections::BTreeSet<StackId>,
}

/// Acts on the ticked updates, oldest first.
pub(crate) fn merge_ticked(
    m: &Merging<'_>,
    github: &dyn GitHub,
    check: &mut TickCheck<'_>,
    ticked: Vec<(Update, Walk)>,
    printer: &mut Printer,
) -> MergeTicks {
    let mut out = MergeTicks::default();
    if ticked.is_empty() {
        return out;
    }
    let settings = &m.setup.config.settings;
    let stacks: BTreeMap<&str, &Stack> = m
        .setup
        .discovery
        .stacks
        .iter()
        .map(|s| (s.id.as_str(), s))
        .collect();
    let base = m
        .job
        .default_branch
        .clone()
        .unwrap_or_else(|| "main".to_owned());
    let method = renovate::method(&m.setup.files, &Checkout::new(&m.job.workspace));
    let mut pulls = None;
    for (update, walk) in ticked {
        let number = update.number;
        let named = update
            .stacks
            .iter()
            .map(|s| format!("**{}**", escape::text(s)))
            .collect::<Vec<_>>()
            .join(", ");
        let clear = |out: &mut MergeTicks, log: String, comment: Option<String>| {
            out.cleared.push(number);
            out.said.push(format!("- #{number}: {log}"));
            out.comment.extend(comment);
        };
        let actor = match walk {
            Walk::Ticker(Some(actor)) => actor,
            _ => {
                clear(
                    &mut out,
                    "the edit history names nobody; the box was cleared".into(),
                    None,
                );
                continue;
            }
        };
        let login = actor.login.clone();
        if !settings.deploys || settings.merge_and_deploy.authors.is_empty() {
            clear(
                &mut out,
                format!(
                    "ticked by {login}; deploys or merges are turned off in sluiceway.yaml, so nothing was merged"
                ),
                None,
            );
            continue;
        }
        let known: Vec<&Stack> = update
            .stacks
            .iter()
            .filter_map(|s| stacks.get(s.as_str()).copied())
            .collect();
        if known.len() != update.stacks.len() {
            clear(
                &mut out,
                format!(
                    "ticked by {login}; a stack it names is not in this commit's setup, so nothing was merged"
                ),
                None,
            );
            continue;
        }
        // Every stack's rule, judged for the one ticker.
        let refused = known.iter().find_map(|stack| {
            match check.judge(Some(&actor), &stack.settings.tick_rule) {
                Verdict::Allowed => None,
                verdict => Some((stack.id.clone(), verdict)),
            }
        });
        if let Some((stack, verdict)) = refused {
            let unverified = verdict == Verdict::Unverified;
            out.red |= unverified;
            clear(
                &mut out,
                format!("ticked by {login}, who may not tick {stack}; nothing was merged"),
                (verdict != Verdict::NotAPerson).then(|| {
                    format!(
                        "@{login} ticked update #{number} ({named}), but {}, so nothing was merged.",
                        if unverified {
                            "GitHub did not say whether they may deploy it".to_owned()
                        } else {
                            format!("they may not tick **{}**", escape::text(stack.as_str()))
                        }
                    )
                }),
            );
            continue;
        }
        if let Some(busy) = known.iter().find(|s| m.open.contains(&s.id)) {
            clear(
                &mut out,
                format!(
                    "ticked by {login}; {} has a deploy in progress, so nothing was merged",
                    busy.id
                ),
                Some(format!(
                    "@{login} ticked update #{number} ({named}), but **{}** has a deploy in progress, so nothing was merged. Tick it again once that is over.",
                    escape::text(busy.id.as_str())
                )),
            );
            continue;
        }
        let method = match &method {
            Ok(asked) => asked.method,
            Err(e) => {
                clear(
                    &mut out,
                    format!("ticked by {login}; {e}"),
                    Some(format!(
                        "@{login} ticked update #{number} ({named}), but {}, so nothing was merged.",
                        escape::text(&e.to_string())
                    )),
                );
                continue;
            }
        };
        // The pull request as it stands now, judged again.
        let list = pulls.get_or_insert_with(|| github.open_pull_requests(&base));
        let fresh = match list {
            Ok(list) => list.iter().find(|p| p.number == number),
            Err(e) => {
                out.red = true;
                clear(
                    &mut out,
                    format!("ticked by {login}; the open pull requests could not be read: {e}"),
                    None,
                );
                continue;
            }
        };
        let still = fresh.map(|p| judge(p, &m.setup.config, &m.setup.discovery, &base));
        match still {
            Some(Judged::Listed(now)) if now.head == update.head && now.stacks == update.stacks => {
            }
            _ => {
                clear(
                    &mut out,
                    format!(
                        "ticked by {login}; the pull request changed, closed or no longer qualifies since its line was drawn, so nothing was merged"
                    ),
                    Some(format!(
                        "@{login} ticked update #{number} ({named}), but it changed since its line was drawn, so nothing was merged. The next scan shows it as it is now.",
                    )),
                );
                continue;
            }
        }
        let asked = match method {
            Method::Merge => MergeMethod::Merge,
            Method::Squash => MergeMethod::Squash,
            Method::Rebase => MergeMethod::Rebase,
        };
        match github.merge_pull_request(number, &update.head, asked) {
            Ok(sha) => {
                out.merged.push(number);
                out.said.push(format!(
                    "- #{number}: ticked by {login}; merged ({}) as {sha}; the scan after the merge deploys {}",
                    asked.rest_name(),
                    update.stacks.join(", ")
                ));
                printer.say(&format!("Update #{number} merged for {login}."));
                for stack in &known {
                    if let Err(e) = merge_record(m.job, github, stack, number, &login, &sha) {
                        printer.say(&format!(
                            "::error::The merge record of {} could not be opened, so the scan after the merge will not deploy it: {e}.",
                            stack.id
                        ));
                        out.red = true;
                    }
                }
            }
            Err(e) => {
                // No permission is the workflow's to fix: red, and the box stays for a
                // tick once it is. Any other refusal is GitHub's word on this update.
                let permission = matches!(e.failure, Failure::Status { status: 403, .. });
                if permission {
                    out.red = true;
                    out.said.push(format!("- #{number}: ticked by {login}; GitHub would not let the workflow merge it: {e}"));
                    printer.say(&format!("::error::Update #{number} could not be merged: {e}. The workflow needs contents: write."));
                } else {
                    clear(
                        &mut out,
                        format!("ticked by {login}; GitHub refused the merge: {e}"),
                        Some(format!(
                            "@{login} ticked update #{number} ({named}), but GitHub refused the merge: {}. Nothing was merged.",
                            escape::text(&e.failure.to_string())
                        )),
                    );
                }
            }
        }
    }
    out
}

/// The record a merge leaves for its stack on the merge commit: `queued`, approved by
/// the pull request, credited to the ticker; the scan after the merge ends it.
fn merge_record(
    job: &Job,
    github: &dyn GitHub,
    stack: &Stack,
    pr: u64,
    ticker: &str,
    sha: &str,
) -> Result<u64, sluiceway_github::GitHubError> {
    let payload = Payload {
        approved: Approved::Merge(pr),
        ticker: ticker.to_owned(),
        run: job.run_id,
        attempt: u32::try_from(job.run_attempt).ok(),
        behind: Vec::new(),
        drift: false,
        on_merge: false,
        fingerprint: None,
        window: false,
    };
    let made = github.create_deployment_record(&NewDeploymentRecord {
        sha: sha.to_owned(),
        task: sluiceway_core::record::task_for(&stack.id),
        environment: stack.settings.environment.clone(),
        payload: payload.to_json(),
        description: format!("{} merged by {ticker} (#{pr})", stack.id),
    })?;
    github.set_deployment_status(
        made.id,
        &NewDeploymentStatus {
            state: RecordState::Queued,
            description: format!(
                "merged #{pr}, ticked by {ticker}; the scan after the merge deploys it"
            ),
            log_url: Some(job.run_url()),
        },
    )?;
    Ok(made.id)
}

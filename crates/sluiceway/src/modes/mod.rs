//! The modes: the one hall that joins discovery, the adapter seam, the dashboard and the
//! GitHub port. Each mode is a function of the job, its inputs and its ports (the tool
//! runner, GitHub, the clock); `run` reads the `mode` input and picks one.

pub mod apply;
pub mod auto;
pub mod dashboard_issue;
pub mod inputs;
pub mod job;
pub mod layers;
pub mod merging;
pub mod notify;
pub mod outputs;
pub mod records;
pub mod resolve;
pub mod rewrite;
pub mod scan;
pub mod settle;
pub mod tick_rule;
pub mod ticker;
pub mod updates;
pub mod write_loop;

use inputs::{Inputs, Mode};
use job::{Event, Job};

/// What a run does, from the `mode` input and the event (decision 0077).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    Scan,
    Resolve,
    Apply(u64),
    Settle,
    /// The dashboard's edit in auto mode: resolve, apply each record it opened in turn,
    /// then settle.
    Ticks,
    /// A schedule or a dispatch in auto mode: the ticks (and the queued layers) as on an
    /// edit, then a full scan.
    Sweep,
    /// The files-only check (decision 0042): no token, no tool, no request; then, with
    /// `pull-request-preview` on a pull request's event, its stacks previewed as check
    /// runs on its head commit, with nothing written to the dashboard and nothing
    /// deployed (decision 0101). The auto mode's route on `pull_request` and
    /// `merge_group`, as the reference's is.
    Check {
        preview: bool,
    },
    /// A sharded scan (ADR 0037): the plan of `shards` shards; one shard's previews; the
    /// join of the partial results in a folder.
    Plan {
        shards: u32,
    },
    Shard {
        shard: u32,
        plan: String,
    },
    Join {
        plan: String,
        partial_results: String,
    },
}

/// A run that does nothing but say why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoRun {
    /// Nothing to do; the step stays green.
    Notice(String),
    /// The inputs do not make a run; the step fails.
    Refuse(String),
}

pub fn route(inputs: &Inputs, job: &Job) -> Result<Route, NoRun> {
    if let (Some(_), false) = (inputs.deployment_id, inputs.mode == Mode::Apply) {
        return Err(NoRun::Refuse(format!(
            "the deployment-id input is for the apply mode, and this step's mode is {}",
            inputs.mode.name()
        )));
    }
    if inputs.pull_request_preview && !matches!(inputs.mode, Mode::Check | Mode::Auto) {
        return Err(NoRun::Refuse(format!(
            "the pull-request-preview input is for the check and auto modes, and this step's mode is {}",
            inputs.mode.name()
        )));
    }
    if job.event == Event::Other("pull_request_target".to_owned()) {
        // It runs with this repository's secrets on code a pull request brings.
        return Err(NoRun::Notice(
            "Sluiceway never runs on pull_request_target, which gives a pull request's code this repository's secrets; preview pull requests on the pull_request event.".to_owned(),
        ));
    }
    let preview = match (&job.event, inputs.pull_request_preview) {
        (Event::PullRequest, true) => match &job.pull_request {
            Some(pull) if pull.is_from_a_fork() => {
                return Err(NoRun::Notice(format!(
                    "Pull request #{} comes from a fork, so it is not previewed: its code would run with this repository's credentials.",
                    pull.number
                )));
            }
            Some(_) => true,
            None => {
                return Err(NoRun::Refuse(
                    "the pull_request event's payload names no pull request".to_owned(),
                ));
            }
        },
        _ => false,
    };
    // A sharded scan's inputs belong to their steps.
    for (input, set, modes) in [
        ("shards", inputs.shards.is_some(), &[Mode::Plan][..]),
        ("shard", inputs.shard.is_some(), &[Mode::Shard][..]),
        (
            "shard-plan",
            inputs.shard_plan.is_some(),
            &[Mode::Shard, Mode::Join][..],
        ),
        (
            "partial-results",
            inputs.partial_results.is_some(),
            &[Mode::Join][..],
        ),
        (
            "timings-file",
            inputs.timings_file.is_some(),
            &[Mode::Plan, Mode::Join][..],
        ),
    ] {
        if set && !modes.contains(&inputs.mode) {
            let names: Vec<&str> = modes.iter().map(|m| m.name()).collect();
            return Err(NoRun::Refuse(format!(
                "the {input} input is for the {} mode{}, and this step's mode is {}",
                names.join(" and "),
                if names.len() > 1 { "s" } else { "" },
                inputs.mode.name()
            )));
        }
    }
    if inputs.backend && !matches!(inputs.mode, Mode::Check | Mode::Auto) {
        return Err(NoRun::Refuse(format!(
            "the backend input is for the check and auto modes, and this step's mode is {}",
            inputs.mode.name()
        )));
    }
    match inputs.mode {
        Mode::Scan => Ok(Route::Scan),
        Mode::Resolve => Ok(Route::Resolve),
        Mode::Settle => Ok(Route::Settle),
        Mode::Apply => match inputs.deployment_id {
            Some(id) => Ok(Route::Apply(id)),
            None => Err(NoRun::Refuse(
                "the apply mode needs the deployment-id input".to_owned(),
            )),
        },
        Mode::Check => Ok(Route::Check { preview }),
        Mode::Plan => match inputs.shards {
            Some(shards) => Ok(Route::Plan { shards }),
            None => Err(NoRun::Refuse(
                "the plan mode needs the shards input: how many shards to split the scan into".to_owned(),
            )),
        },
        Mode::Shard => match (inputs.shard, &inputs.shard_plan) {
            (Some(shard), Some(plan)) => Ok(Route::Shard {
                shard,
                plan: plan.clone(),
            }),
            _ => Err(NoRun::Refuse(
                "the shard mode needs the shard input (`${{ matrix.shard }}`) and the shard-plan input (the plan step's shard-plan output)".to_owned(),
            )),
        },
        Mode::Join => match (&inputs.shard_plan, &inputs.partial_results) {
            (Some(plan), Some(folder)) => Ok(Route::Join {
                plan: plan.clone(),
                partial_results: folder.clone(),
            }),
            _ => Err(NoRun::Refuse(
                "the join mode needs the shard-plan input (the plan step's shard-plan output) and the partial-results input (the folder the shards' artifacts were downloaded to)".to_owned(),
            )),
        },
        Mode::Auto => match &job.event {
            Event::Push => {
                let default = job
                    .default_branch
                    .as_ref()
                    .map(|b| format!("refs/heads/{b}"));
                if default.is_some() && job.pushed_ref != default {
                    Err(NoRun::Notice(format!(
                        "This push is to {}, not the default branch; only a push to the default branch is scanned.",
                        job.pushed_ref.as_deref().unwrap_or("another branch")
                    )))
                } else {
                    Ok(Route::Scan)
                }
            }
            Event::Schedule | Event::Dispatch => Ok(Route::Sweep),
            Event::Issues if job.issue.as_ref().is_some_and(|i| i.action == "edited") => {
                Ok(Route::Ticks)
            }
            Event::Issues => Err(NoRun::Notice(
                "Only an edit of the dashboard issue asks Sluiceway for anything.".to_owned(),
            )),
            // The code of a pull request or a merge queue's group is not merged yet: it
            // is checked from its files (and previewed, when asked), never deployed.
            Event::PullRequest => Ok(Route::Check { preview }),
            Event::Other(name) if name == "merge_group" => Ok(Route::Check { preview: false }),
            Event::Other(name) => Err(NoRun::Notice(format!(
                "Sluiceway has nothing to do on the {name} event."
            ))),
        },
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn job(event: &str, payload: &str) -> Job {
        let env: BTreeMap<String, String> =
            [("GITHUB_EVENT_NAME".to_owned(), event.to_owned())].into();
        Job::from_env(&env, Some(payload))
    }

    fn inputs(pairs: &[(&str, &str)]) -> Inputs {
        let env: BTreeMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (format!("INPUT_{}", k.to_uppercase()), (*v).to_owned()))
            .collect();
        Inputs::read(&env).unwrap()
    }

    #[test]
    fn the_auto_mode_does_what_the_event_asks_for() {
        let auto = inputs(&[]);
        let main = r#"{"ref":"refs/heads/main","repository":{"default_branch":"main"}}"#;
        let other = r#"{"ref":"refs/heads/feature","repository":{"default_branch":"main"}}"#;
        let edited = r#"{"action":"edited","issue":{"number":1,"state":"open"}}"#;
        let opened = r#"{"action":"opened","issue":{"number":1,"state":"open"}}"#;
        assert_eq!(route(&auto, &job("push", main)), Ok(Route::Scan));
        assert!(matches!(
            route(&auto, &job("push", other)),
            Err(NoRun::Notice(_))
        ));
        assert_eq!(route(&auto, &job("schedule", "{}")), Ok(Route::Sweep));
        assert_eq!(
            route(&auto, &job("workflow_dispatch", "{}")),
            Ok(Route::Sweep)
        );
        assert_eq!(route(&auto, &job("issues", edited)), Ok(Route::Ticks));
        assert!(matches!(
            route(&auto, &job("issues", opened)),
            Err(NoRun::Notice(_))
        ));
        assert_eq!(
            route(&auto, &job("pull_request", "{}")),
            Ok(Route::Check { preview: false }),
            "a pull request is checked from its files"
        );
        assert_eq!(
            route(&auto, &job("merge_group", "{}")),
            Ok(Route::Check { preview: false }),
            "so is a merge queue's group"
        );
        let check = inputs(&[("mode", "check"), ("backend", "true")]);
        assert_eq!(
            route(&check, &job("pull_request", "{}")),
            Ok(Route::Check { preview: false })
        );
        let ours = r#"{"pull_request":{"number":7,"head":{"sha":"h","repo":{"full_name":"o/r"}},"base":{"sha":"b","repo":{"full_name":"o/r"}}}}"#;
        let fork = ours.replacen(r#""full_name":"o/r""#, r#""full_name":"m/r""#, 1);
        let gone = ours.replacen(r#","repo":{"full_name":"o/r"}"#, "", 1);
        let preview = inputs(&[("pull-request-preview", "true")]);
        assert_eq!(
            route(&preview, &job("pull_request", ours)),
            Ok(Route::Check { preview: true })
        );
        for refused in [&fork, &gone] {
            assert!(
                matches!(route(&preview, &job("pull_request", refused)), Err(NoRun::Notice(n)) if n.contains("comes from a fork")),
                "{refused}"
            );
        }
        let checking = inputs(&[("mode", "check"), ("pull-request-preview", "true")]);
        assert_eq!(
            route(&checking, &job("pull_request", ours)),
            Ok(Route::Check { preview: true })
        );
        assert!(matches!(
            route(&preview, &job("pull_request_target", ours)),
            Err(NoRun::Notice(_))
        ));
        assert!(matches!(
            route(
                &inputs(&[("mode", "scan"), ("pull-request-preview", "true")]),
                &job("pull_request", ours)
            ),
            Err(NoRun::Refuse(_))
        ));
        assert!(
            matches!(
                route(&inputs(&[("mode", "scan"), ("backend", "true")]), &job("push", main)),
                Err(NoRun::Refuse(why)) if why.contains("the backend input is for the check and auto modes")
            ),
            "the backend input is refused outside the check"
        );
    }

    #[test]
    fn a_sharded_scans_inputs_belong_to_their_steps_and_each_step_needs_its_own() {
        let push = job("push", "{}");
        assert_eq!(
            route(&inputs(&[("mode", "plan"), ("shards", "4")]), &push),
            Ok(Route::Plan { shards: 4 })
        );
        assert_eq!(
            route(
                &inputs(&[("mode", "shard"), ("shard", "2"), ("shard-plan", "{}")]),
                &push
            ),
            Ok(Route::Shard {
                shard: 2,
                plan: "{}".to_owned()
            })
        );
        assert_eq!(
            route(
                &inputs(&[
                    ("mode", "join"),
                    ("shard-plan", "{}"),
                    ("partial-results", "p")
                ]),
                &push
            ),
            Ok(Route::Join {
                plan: "{}".to_owned(),
                partial_results: "p".to_owned()
            })
        );
        for (pairs, says) in [
            (
                &[("mode", "plan")][..],
                "the plan mode needs the shards input",
            ),
            (
                &[("mode", "shard"), ("shard", "1")][..],
                "the shard mode needs",
            ),
            (
                &[("mode", "join"), ("shard-plan", "{}")][..],
                "the join mode needs",
            ),
            (
                &[("mode", "scan"), ("shards", "4")][..],
                "the shards input is for the plan mode, and this step's mode is scan",
            ),
            (
                &[("mode", "plan"), ("shards", "4"), ("shard-plan", "{}")][..],
                "the shard-plan input is for the shard and join modes, and this step's mode is plan",
            ),
            (
                &[("timings-file", "t.json")][..],
                "the timings-file input is for the plan and join modes, and this step's mode is auto",
            ),
        ] {
            assert!(
                matches!(route(&inputs(pairs), &push), Err(NoRun::Refuse(why)) if why.contains(says)),
                "{pairs:?}"
            );
        }
        let env: BTreeMap<String, String> = [
            ("INPUT_MODE".to_owned(), "plan".to_owned()),
            ("INPUT_SHARDS".to_owned(), "257".to_owned()),
        ]
        .into();
        assert_eq!(Inputs::read(&env).unwrap_err().input, "shards");
    }

    #[test]
    fn deployment_id_belongs_to_apply_alone() {
        let edited = job("issues", "{}");
        assert_eq!(
            route(
                &inputs(&[("mode", "apply"), ("deployment-id", "7")]),
                &edited
            ),
            Ok(Route::Apply(7))
        );
        assert!(matches!(
            route(&inputs(&[("mode", "apply")]), &edited),
            Err(NoRun::Refuse(_))
        ));
        assert!(matches!(
            route(&inputs(&[("deployment-id", "7")]), &edited),
            Err(NoRun::Refuse(_))
        ));
        assert_eq!(
            route(&inputs(&[("mode", "settle")]), &edited),
            Ok(Route::Settle)
        );
    }
}

//! A tick made in the console, on decision 0109's path: the console's bot, named in the
//! repository's `recordWriters`, opens the stack's deployment record for the person
//! who ticked and asks for a run of the dashboard's workflow, whose `resolve` starts the
//! record and whose `apply` deploys only if a fresh preview's hash is the row's.
//!
//! What it judges it reads live, as the action would: the row from the dashboard's body
//! at this moment, `sluiceway.yaml` at the scanned commit, the person's permission from
//! GitHub, and it judges with the action's own tick rule. What the console cannot judge
//! as the action would stays on GitHub: drift repair, stacks with dependencies, phases,
//! deploy windows, a deploy on merge, ignored stacks, and an environment it cannot tell.

use schemars::JsonSchema;
use serde::Serialize;
use sluiceway_core::config::{Config, DeployTrigger, StackEntry};
use sluiceway_core::glob::IdGlob;
use sluiceway_core::record::{self, Approved, Payload};
use sluiceway_core::stack::{Access, DEFAULT_ENVIRONMENT, RuleRefusal, StackId, TickRule};
use sluiceway_dashboard::facts::RowState;
use sluiceway_dashboard::reader;
use sluiceway_dashboard::view::Root;
use sluiceway_github::{
    GitHub, GitHubError, NewDeploymentRecord, NewDeploymentStatus, RecordState,
};

/// What a person asked: a stack of a repository, and the confirm they sent back.
#[derive(Debug, Clone)]
pub struct Asked {
    pub stack: String,
    pub person: String,
    pub confirm: Option<Confirm>,
    pub via: Via,
}

/// Where the tick was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// Through the console's API: the console asks for the run that starts the record.
    Console,
    /// On the dashboard itself, and picked up from its delivery: the record is opened
    /// first, and the run GitHub starts for the edit finds it (the action's `resolve`
    /// takes it over). Its box is ticked, and a confirm stays on the dashboard.
    Dashboard,
}

/// A row's destroys at its scanned commit: what a tick of a stack that deletes or
/// replaces sends back to say it saw them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Confirm {
    pub destroys: u64,
    pub scan: Option<String>,
}

/// What came of a tick, in the reference's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// The record is open; GitHub and the runner decide the rest.
    Asked,
    Refused,
    /// The tick happens on the dashboard on GitHub.
    #[serde(rename = "github")]
    GitHub,
    /// Someone's tick or deploy of the stack is under way.
    Taken,
    Failed,
    /// The stack deletes or replaces, and the tick did not confirm it as it stands.
    Unconfirmed,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judged {
    pub outcome: Outcome,
    pub sentence: String,
    /// The record opened.
    pub deployment: Option<u64>,
    /// For an unconfirmed tick: what to send back.
    pub confirm: Option<Confirm>,
}

impl Judged {
    fn said(outcome: Outcome, sentence: impl Into<String>) -> Judged {
        Judged {
            outcome,
            sentence: sentence.into(),
            deployment: None,
            confirm: None,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum TickError {
    /// No dashboard row of that stack.
    #[error("the dashboard has no row of that stack")]
    NoRow,
    /// GitHub did not answer a question the judgement needs: nothing was asked.
    #[error("GitHub did not answer: {0}")]
    Silent(GitHubError),
}

/// Judges the tick and, when it may deploy, opens the record and asks for a run.
pub fn tick(
    github: &dyn GitHub,
    bot: &str,
    dashboard: u64,
    asked: &Asked,
) -> Result<Judged, TickError> {
    let body = github
        .read_body(dashboard, None)
        .map_err(TickError::Silent)?
        .body;
    let read = reader::read(&body);
    let root = Root::read(&read).ok_or(TickError::NoRow)?;
    let row = read
        .rows
        .iter()
        .find(|r| r.facts.stack == asked.stack)
        .ok_or(TickError::NoRow)?;
    let facts = &row.facts;
    let stack = &asked.stack;
    match facts.state {
        Some(RowState::Pending) => {}
        Some(RowState::Drift) => {
            return Ok(Judged::said(
                Outcome::GitHub,
                format!("{stack} drifted; drift is repaired from its box on the dashboard."),
            ));
        }
        Some(RowState::Deploying | RowState::Queued) => {
            return Ok(Judged::said(
                Outcome::Taken,
                format!("{stack} is deploying or waiting to already."),
            ));
        }
        _ => {
            return Ok(Judged::said(
                Outcome::Refused,
                format!("{stack} has no change waiting to deploy."),
            ));
        }
    }
    let Some(hash) = facts.hash.clone() else {
        return Ok(Judged::said(
            Outcome::Refused,
            format!("{stack} has no change waiting to deploy."),
        ));
    };
    if row.ticked && asked.via == Via::Console {
        return Ok(Judged::said(
            Outcome::Taken,
            format!("{stack}'s box on the dashboard is ticked already; that tick is under way."),
        ));
    }
    if facts.policy_failed {
        return Ok(Judged::said(
            Outcome::Refused,
            format!("A policy failed on {stack}'s change, so it cannot be ticked."),
        ));
    }
    if !facts.behind.is_empty() {
        return Ok(Judged::said(
            Outcome::GitHub,
            format!("{stack} waits behind other stacks; tick it on the dashboard."),
        ));
    }
    if facts.destroys > 0 && asked.via == Via::Dashboard {
        return Ok(Judged::said(
            Outcome::GitHub,
            format!("{stack} deletes or replaces; its confirm is on the dashboard."),
        ));
    }
    if facts.destroys > 0 {
        let holds = Confirm {
            destroys: facts.destroys as u64,
            scan: Some(root.scan_sha.clone()),
        };
        if asked.confirm.as_ref() != Some(&holds) {
            return Ok(Judged {
                confirm: Some(holds),
                ..Judged::said(
                    Outcome::Unconfirmed,
                    format!(
                        "{stack} deletes or replaces {} resource{} as it stands; send its confirm to tick it.",
                        facts.destroys,
                        if facts.destroys == 1 { "" } else { "s" }
                    ),
                )
            });
        }
    }

    let config = match read_config(github, &root.scan_sha)? {
        Ok(config) => config,
        Err(judged) => return Ok(judged),
    };
    if !config
        .settings
        .record_writers
        .iter()
        .any(|w| w.eq_ignore_ascii_case(bot))
    {
        return Ok(Judged::said(
            Outcome::GitHub,
            format!(
                "recordWriters in sluiceway.yaml does not name {bot}, so this repository's ticks happen on the dashboard."
            ),
        ));
    }
    if !config.settings.deploys {
        return Ok(Judged::said(
            Outcome::Refused,
            "Deploys are turned off in sluiceway.yaml.",
        ));
    }
    let covering = Covering::of(&config, stack);
    if let Some(reason) = covering.stays_on_github(&config, stack) {
        return Ok(Judged::said(
            Outcome::GitHub,
            format!("{stack} {reason}; tick it on the dashboard."),
        ));
    }
    let Some(environment) = covering.environment() else {
        return Ok(Judged::said(
            Outcome::GitHub,
            format!(
                "The console cannot tell which environment {stack} deploys to; tick it on the dashboard."
            ),
        ));
    };

    match judge(github, &asked.person, &covering.rules(&config))? {
        Ok(()) => {}
        Err(sentence) => return Ok(Judged::said(Outcome::Refused, sentence)),
    }

    let task = record::task_for(&StackId::given(stack));
    let open = github
        .deployment_records_of_task(&task, &environment)
        .map_err(TickError::Silent)?
        .iter()
        .any(|r| r.is_open());
    if open {
        return Ok(Judged::said(
            Outcome::Taken,
            format!("A deploy of {stack} is open already."),
        ));
    }

    let payload = Payload {
        approved: Approved::Hash(hash),
        ticker: asked.person.clone(),
        // No run opened it: the run that starts it writes its own.
        run: 0,
        attempt: None,
        behind: Vec::new(),
        drift: false,
        on_merge: false,
        fingerprint: facts.fingerprint.clone(),
        window: false,
    };
    let ticked = match asked.via {
        Via::Console => format!("ticked by {} in the console", asked.person),
        Via::Dashboard => format!("ticked by {} on the dashboard", asked.person),
    };
    let made = github
        .create_deployment_record(&NewDeploymentRecord {
            sha: root.scan_sha.clone(),
            task,
            environment,
            payload: payload.to_json(),
            description: format!("{stack} {ticked}"),
        })
        .map_err(TickError::Silent)?;
    let queued = github.set_deployment_status(
        made.id,
        &NewDeploymentStatus {
            state: RecordState::Queued,
            description: ticked,
            log_url: None,
        },
    );
    if queued.is_err() {
        return Ok(Judged {
            deployment: Some(made.id),
            ..Judged::said(
                Outcome::Failed,
                format!(
                    "Record {} of {stack} was opened but could not be marked queued; the next run of the workflow ends it.",
                    made.id
                ),
            )
        });
    }
    if asked.via == Via::Dashboard {
        return Ok(Judged {
            deployment: Some(made.id),
            ..Judged::said(
                Outcome::Asked,
                format!(
                    "Record {} of {stack} is open; the run GitHub starts for the dashboard's edit takes it over.",
                    made.id
                ),
            )
        });
    }
    let sentence = match dispatch(github, root.scan_run) {
        Ok(workflow) => format!(
            "Record {} of {stack} is open, and a run of {workflow} was asked for; it deploys only if a fresh preview matches the row.",
            made.id
        ),
        Err(()) => format!(
            "Record {} of {stack} is open, but no run of the workflow could be asked for; the next scheduled or dispatched run starts it.",
            made.id
        ),
    };
    Ok(Judged {
        deployment: Some(made.id),
        ..Judged::said(Outcome::Asked, sentence)
    })
}

/// `sluiceway.yaml` (or `.yml`) at the scanned commit, loaded with the action's reader.
fn read_config(github: &dyn GitHub, sha: &str) -> Result<Result<Config, Judged>, TickError> {
    use crate::config::Unloaded;
    let loaded = crate::config::load_at(github, sha).map_err(TickError::Silent)?;
    Ok(loaded.map_err(|unloaded| match unloaded {
        Unloaded::NoFile => Judged::said(
            Outcome::GitHub,
            "The repository has no sluiceway.yaml, so recordWriters names nobody; tick on the dashboard.",
        ),
        Unloaded::Invalid(name) => Judged::said(
            Outcome::Failed,
            format!("{name} at the scanned commit does not load; `sluiceway check` says why."),
        ),
        Unloaded::TwoFiles => Judged::said(
            Outcome::Failed,
            "The repository has both sluiceway.yaml and sluiceway.yml; the action reads neither.",
        ),
    }))
}

/// The `stacks` entries that name the stack, and those that may cover it.
///
/// A stack's id is frozen and never split (`StackId`), so the console, which has no
/// discovery, cannot always tell which entries apply: an entry is *exact* when its id
/// or its path and name make the stack's id, and *possible* when its path is the root
/// or a folder the id starts with. Every judgement takes the possible ones into account
/// the cautious way.
struct Covering<'a> {
    exact: Vec<&'a StackEntry>,
    possible: Vec<&'a StackEntry>,
}

impl<'a> Covering<'a> {
    fn of(config: &'a Config, stack: &str) -> Covering<'a> {
        let mut exact = Vec::new();
        let mut possible = Vec::new();
        for entry in &config.entries {
            let derived = StackId::derive(&entry.path, entry.name.as_deref());
            if entry.id.as_deref() == Some(stack)
                || (entry.id.is_none() && derived.as_str() == stack)
            {
                exact.push(entry);
            } else if entry.id.is_none()
                && (entry.path == "."
                    || stack.starts_with(&format!("{}/", entry.path))
                    || stack.starts_with(&format!("{}:", entry.path)))
            {
                possible.push(entry);
            }
        }
        Covering { exact, possible }
    }

    fn all(&self) -> impl Iterator<Item = &&'a StackEntry> {
        self.exact.iter().chain(&self.possible)
    }

    /// Why the stack's tick stays on GitHub, if it does.
    fn stays_on_github(&self, config: &Config, stack: &str) -> Option<&'static str> {
        if config
            .ignore
            .iter()
            .any(|rule| IdGlob::new(&rule.glob).is_ok_and(|glob| glob.matches(stack)))
        {
            return Some("is ignored in sluiceway.yaml");
        }
        if !config.deploy_windows.always() || self.all().any(|e| e.deploy_windows.is_some()) {
            return Some("deploys only in its deploy windows");
        }
        if self.all().any(|e| e.depends_on.is_some()) {
            return Some("depends on other stacks");
        }
        if self.all().any(|e| e.phase.is_some()) {
            return Some("deploys in a phase");
        }
        if self.all().any(|e| e.deploy == Some(DeployTrigger::OnMerge)) {
            return Some("deploys on merge");
        }
        None
    }

    /// The environment its records go to: an exact entry's, else the default, unless a
    /// possible entry names one, when the console cannot tell.
    fn environment(&self) -> Option<String> {
        if self.possible.iter().any(|e| e.environment.is_some()) {
            return None;
        }
        let named: Vec<&String> = self
            .exact
            .iter()
            .filter_map(|e| e.environment.as_ref())
            .collect();
        match named.as_slice() {
            [] => Some(DEFAULT_ENVIRONMENT.to_owned()),
            [one, rest @ ..] if rest.iter().all(|r| r == one) => Some((*one).clone()),
            _ => None,
        }
    }

    /// Every tick rule that may apply; a person must meet them all.
    fn rules(&self, config: &Config) -> Vec<TickRule> {
        let mut rules = vec![config.tick_rule.clone()];
        rules.extend(self.all().filter_map(|e| e.tick_rule.clone()));
        rules
    }
}

/// The person's permission, asked of GitHub now, against every rule; `Err` holds the
/// sentence of a refusal.
fn judge(
    github: &dyn GitHub,
    person: &str,
    rules: &[TickRule],
) -> Result<Result<(), String>, TickError> {
    let permission = match github.permission(person) {
        Ok(permission) => permission,
        Err(e) if e.status() == Some(404) => {
            return Ok(Err(format!("GitHub says {person} is not a user.")));
        }
        Err(e) => return Err(TickError::Silent(e)),
    };
    let access = Access {
        login: permission.login,
        push: permission.push,
        maintain: permission.maintain,
        admin: permission.admin,
    };
    for rule in rules {
        match rule.admits(&access) {
            Ok(()) => {}
            Err(RuleRefusal::NoWriteAccess) => {
                return Ok(Err(format!("{person} cannot write to the repository.")));
            }
            Err(RuleRefusal::RuleNotMet) => {
                return Ok(Err(format!(
                    "The stack's tick rule ({rule}) does not let {person} tick it."
                )));
            }
        }
    }
    Ok(Ok(()))
}

/// Asks for a run of the workflow that made the scan, on the branch it scanned; the
/// workflow's file name, or `Err` when no run could be asked for.
fn dispatch(github: &dyn GitHub, scan_run: u64) -> Result<String, ()> {
    let workflow = crate::workflow::of_scan(github, scan_run).ok_or(())?;
    github
        .dispatch_workflow(&workflow.file, &workflow.branch, &Default::default())
        .map_err(|_| ())?;
    Ok(workflow.file)
}

#[cfg(test)]
mod tests {
    use sluiceway_core::config::PermissionLevel;

    use super::*;

    fn config(text: &str) -> Config {
        sluiceway_core::config::load("sluiceway.yaml", text).unwrap_or_else(|p| panic!("{p:?}"))
    }

    const STACKS: &str = "stacks:\n  - path: network\n    tool: opentofu\n  - path: storage\n    name: prod\n    tool: opentofu\n    environment: production\n";

    #[test]
    fn an_entry_names_its_stack_exactly_and_a_folder_entry_may_cover_what_lies_under_it() {
        let config = config(&format!(
            "{STACKS}  - path: apps\n    tickers: admin\n  - path: .\n    id: elsewhere\n    tool: opentofu\n"
        ));
        let network = Covering::of(&config, "network");
        assert_eq!((network.exact.len(), network.possible.len()), (1, 0));
        let prod = Covering::of(&config, "storage:prod");
        assert_eq!((prod.exact.len(), prod.possible.len()), (1, 0));
        assert_eq!(prod.environment().as_deref(), Some("production"));
        assert_eq!(network.environment().as_deref(), Some(DEFAULT_ENVIRONMENT));
        // `apps` may cover apps/web: its rule joins the top-level one.
        let web = Covering::of(&config, "apps/web");
        assert_eq!((web.exact.len(), web.possible.len()), (0, 1));
        assert_eq!(
            web.rules(&config),
            [
                TickRule::default(),
                TickRule::AtLeast(PermissionLevel::Admin)
            ]
        );
        // An entry with an id names that id alone.
        assert!(Covering::of(&config, "elsewhere").exact.len() == 1);
    }

    #[test]
    fn what_the_console_cannot_judge_as_the_action_would_stays_on_github() {
        let cases = [
            (
                "ignore:\n  - glob: network\n    reason: deployed by hand\n",
                Some("is ignored in sluiceway.yaml"),
            ),
            (
                "stacks:\n  - path: network\n    tool: opentofu\n    dependsOn: [storage:prod]\n  - path: storage\n    name: prod\n    tool: opentofu\n",
                Some("depends on other stacks"),
            ),
            (
                "stacks:\n  - path: network\n    tool: opentofu\n    deploy: on-merge\n",
                Some("deploys on merge"),
            ),
            (
                "deployWindows:\n  - days: [monday]\n    from: \"09:00\"\n    to: \"17:00\"\n",
                Some("deploys only in its deploy windows"),
            ),
            (STACKS, None),
        ];
        for (text, reason) in cases {
            let config = config(text);
            assert_eq!(
                Covering::of(&config, "network").stays_on_github(&config, "network"),
                reason,
                "{text}"
            );
        }
    }

    #[test]
    fn an_environment_only_a_covering_folder_names_is_one_the_console_cannot_tell() {
        let config = config(
            "stacks:\n  - path: apps\n    environment: staging\n  - path: apps/web\n    tool: opentofu\n",
        );
        let web = Covering::of(&config, "apps/web");
        assert_eq!((web.exact.len(), web.possible.len()), (1, 1));
        assert_eq!(web.environment(), None);
    }
}

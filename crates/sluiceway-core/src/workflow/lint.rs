//! What `check` says of the workflow files that run this action (decisions 0061, 0074,
//! 0077): the triggers each mode needs, the `issues` trigger's `edited` filter, the
//! permissions each mode's calls need, a concurrency group that neither lets two writers
//! race, drops a waiting deploy nor cancels one half way, a resolving job beside a
//! scanning one unless the dashboard is read only, and the action pinned at a release.
//! Each finding is a warning at the line of the key it is about; the files are read as
//! text, so a repository's default token permissions and environment rules stay
//! invisible, and none of this turns `check` red.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::config::{Document, KeyPath};

/// One finding, at a line of one workflow file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub file: String,
    pub line: usize,
    pub message: String,
}

/// A job that runs this action, and the modes its steps run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SluicewayJob {
    pub file: String,
    pub id: String,
    pub line: usize,
    pub modes: Vec<String>,
    /// The job's `environment:` as written (its `name:` when it is a mapping): where a
    /// GitHub Environment's reviewers, not the tick rule alone, decide who may deploy.
    pub environment: Option<String>,
}

impl SluicewayJob {
    /// Whether the job deploys, and so whether anyone decides who may.
    pub fn deploys(&self) -> bool {
        self.modes.iter().any(|m| m == "apply")
    }
}

/// What the repository's `sluiceway.yaml` says that the workflows must answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Settings {
    /// `mergeAndDeploy.authors` names someone: a tick may merge, so resolve writes.
    pub merges: bool,
    /// `dashboard.readOnly`: no boxes, so no job needs to resolve ticks.
    pub read_only: bool,
}

/// The modes a step's `mode` input runs: auto is all four a dashboard needs.
fn modes_of(mode: &str) -> &'static [&'static str] {
    match mode {
        "" | "auto" => &["scan", "resolve", "apply", "settle"],
        "scan" => &["scan"],
        "resolve" => &["resolve"],
        "apply" => &["apply"],
        "settle" => &["settle"],
        "check" => &["check"],
        "plan" => &["plan"],
        "shard" => &["shard"],
        "join" => &["join"],
        _ => &[],
    }
}

/// The token permissions each mode's calls need (decision 0061), as (scope, level).
fn needs(mode: &str, merges: bool) -> &'static [(&'static str, &'static str)] {
    match mode {
        "scan" => &[
            ("contents", "read"),
            ("issues", "write"),
            ("deployments", "write"),
            ("actions", "read"),
            ("pull-requests", "read"),
        ],
        "resolve" if merges => &[
            ("contents", "write"),
            ("issues", "write"),
            ("deployments", "write"),
            ("actions", "write"),
            ("pull-requests", "read"),
        ],
        "resolve" => &[
            ("contents", "read"),
            ("issues", "write"),
            ("deployments", "write"),
            ("actions", "write"),
            ("pull-requests", "read"),
        ],
        "apply" => &[
            ("contents", "read"),
            ("issues", "write"),
            ("deployments", "write"),
            ("pull-requests", "read"),
        ],
        "settle" => &[
            ("contents", "read"),
            ("issues", "read"),
            ("deployments", "write"),
            ("actions", "write"),
        ],
        "check" => &[("contents", "read")],
        // A sharded scan (ADR 0037): the plan reads the dashboard and says a scan is
        // running; a shard asks GitHub nothing; the join writes what a scan writes.
        "plan" => &[("contents", "read"), ("issues", "write")],
        "shard" => &[("contents", "read")],
        "join" => &[
            ("contents", "read"),
            ("issues", "write"),
            ("deployments", "write"),
            ("actions", "read"),
            ("pull-requests", "read"),
        ],
        _ => &[],
    }
}

/// What one file says. `action` is how a step's `uses` names this action (its
/// repository).
pub fn lint(
    file: &str,
    text: &str,
    action: &str,
    settings: Settings,
) -> (Vec<SluicewayJob>, Vec<Finding>) {
    let merges = settings.merges;
    let Ok(document) = Document::parse(text) else {
        // A file GitHub would refuse is GitHub's to report; one about us is named.
        let about_us = text
            .to_ascii_lowercase()
            .contains(&action.to_ascii_lowercase());
        let findings = about_us
            .then(|| Finding {
                file: file.to_owned(),
                line: 1,
                message: "the workflow is not valid YAML, so the check could not read it"
                    .to_owned(),
            })
            .into_iter()
            .collect();
        return (Vec::new(), findings);
    };
    let root = &document.value;
    let at = |path: &KeyPath| document.position(path).line;
    let jobs = sluiceway_jobs(file, &document, action);
    let mut findings = Vec::new();
    let mut say = |line: usize, message: String| {
        findings.push(Finding {
            file: file.to_owned(),
            line,
            message,
        })
    };
    if jobs.is_empty() {
        return (jobs, findings);
    }
    let on_path = KeyPath::default().key("on");
    let triggers = Triggers::read(root.get("on"));
    let on_line = at(&on_path);
    if triggers.reusable {
        say(
            on_line,
            "a reusable workflow (workflow_call): its caller's triggers and permissions are the ones that count, so they are not checked here".to_owned(),
        );
        return (jobs, findings);
    }
    let all: BTreeSet<&str> = jobs
        .iter()
        .flat_map(|j| j.modes.iter().map(String::as_str))
        .collect();
    let deploys = all.iter().any(|m| *m != "check");
    // The action's refs: a release, and one of them.
    let mut refs: Vec<(String, usize)> = Vec::new();
    for (git_ref, line) in action_refs(&document, action) {
        if !is_release(&git_ref) {
            say(
                line,
                format!(
                    "the step uses {action}@{git_ref}, which is not a release, so what runs can change under you; pin a major tag (`@v0`), an exact one (`@v0.1.0`) or a commit's full SHA"
                ),
            );
        }
        match refs.first() {
            Some((first, _)) if *first != git_ref => say(
                line,
                format!(
                    "this file uses the action at {first} and at {git_ref}, so its jobs can run different versions of Sluiceway; use one ref"
                ),
            ),
            _ => {}
        }
        if !refs.iter().any(|(r, _)| *r == git_ref) {
            refs.push((git_ref, line));
        }
    }
    // Triggers.
    if all.contains("scan") || all.contains("plan") {
        for event in ["push", "schedule", "workflow_dispatch"] {
            if !triggers.names.contains(event) {
                say(
                    on_line,
                    format!(
                        "a job scans, but the workflow has no `{event}` trigger, so {}",
                        match event {
                            "push" => "a push does not update the dashboard",
                            "schedule" =>
                                "nothing scans on a schedule (drift checks and ticks left waiting run then)",
                            _ => "the dashboard's rescan box and dispatched runs start nothing",
                        }
                    ),
                );
            }
        }
    }
    if (all.contains("scan") || all.contains("join"))
        && !all.contains("resolve")
        && !settings.read_only
    {
        say(
            on_line,
            "a job scans, but no job of this workflow resolves ticks, so a ticked box starts nothing; add a resolving job, or set `dashboard.readOnly: true` for a dashboard without boxes".to_owned(),
        );
    }
    if all.contains("resolve") {
        match &triggers.issues {
            None => say(
                on_line,
                "a job resolves ticks, but the workflow has no `issues` trigger, so a tick starts nothing; add `issues: { types: [edited] }`".to_owned(),
            ),
            Some(None) => say(
                at(&on_path.key("issues")),
                "the `issues` trigger has no `types` filter, so every issue event in the repository starts a run; add `types: [edited]`".to_owned(),
            ),
            Some(Some(types)) if !types.contains("edited") => say(
                at(&on_path.key("issues")),
                "the `issues` trigger's types leave out `edited`, so a tick starts nothing; add `edited`".to_owned(),
            ),
            Some(Some(_)) => {}
        }
    }
    if deploys {
        for event in ["pull_request", "pull_request_target", "merge_group"] {
            if triggers.names.contains(event) {
                say(
                    at(&on_path.key(event)),
                    format!(
                        "the `{event}` trigger runs this workflow's deploying jobs for a pull request; keep pull requests to a workflow whose Sluiceway step runs `mode: check`"
                    ),
                );
            }
        }
    }
    if triggers.names.contains("pull_request_target") {
        say(
            at(&on_path.key("pull_request_target")),
            "`pull_request_target` runs with the base repository's secrets on a pull request's code; Sluiceway never previews on it".to_owned(),
        );
    }
    // Permissions and concurrency, job by job.
    let workflow_permissions = root.get("permissions");
    let workflow_concurrency = root.get("concurrency");
    for job in &jobs {
        let job_path = KeyPath::default().key("jobs").key(&job.id);
        let job_value = &root["jobs"][&job.id];
        let (permissions, permissions_line) = match job_value.get("permissions") {
            Some(p) => (Some(p), at(&job_path.key("permissions"))),
            None => (
                workflow_permissions,
                at(&KeyPath::default().key("permissions")),
            ),
        };
        let missing: Vec<String> = job
            .modes
            .iter()
            .flat_map(|mode| needs(mode, merges).iter())
            .filter(|(scope, level)| !grants(permissions, scope, level))
            .map(|(scope, level)| format!("{scope}: {level}"))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        match permissions {
            None => say(
                job.line,
                format!(
                    "the job {} names no permissions, so its token has the repository's defaults, which may be read only; give it {}",
                    job.id,
                    wanted(job, merges)
                ),
            ),
            Some(_) if !missing.is_empty() => say(
                permissions_line,
                format!(
                    "the job {} lacks {} for its modes ({})",
                    job.id,
                    missing.join(", "),
                    job.modes.join(", ")
                ),
            ),
            Some(_) => {}
        }
        // Neither the check nor a shard writes the dashboard or deploys.
        if job.modes.iter().all(|m| m == "check" || m == "shard") {
            continue;
        }
        let (concurrency, concurrency_line) = match job_value.get("concurrency") {
            Some(c) => (Some(c), at(&job_path.key("concurrency"))),
            None => (
                workflow_concurrency,
                at(&KeyPath::default().key("concurrency")),
            ),
        };
        match concurrency {
            None => say(
                job.line,
                format!(
                    "the job {} has no concurrency group, so two runs can write the dashboard or deploy at once; add `concurrency: {{ group: sluiceway }}`",
                    job.id
                ),
            ),
            Some(c)
                if c.get("cancel-in-progress")
                    .is_some_and(|v| v != &Value::Bool(false)) =>
            {
                say(
                    concurrency_line,
                    format!(
                        "the job {}'s concurrency group cancels runs in progress, which can stop a deploy half way; drop `cancel-in-progress`",
                        job.id
                    ),
                )
            }
            // Without it a group keeps one waiting run, and a newer one replaces it: a
            // deploy (and the tick behind it) would be dropped. Scans and resolves may
            // let the newest win (decision 0025); deploys may not.
            Some(c) if job.deploys() && c.get("queue").and_then(Value::as_str) != Some("max") => {
                say(
                    concurrency_line,
                    format!(
                        "the job {}'s concurrency group does not queue, so a newer run waiting for it replaces an older one and a deploy waiting there is dropped; add `queue: max`",
                        job.id
                    ),
                )
            }
            Some(_) => {}
        }
    }
    (jobs, findings)
}

/// `scope: level` for every permission the job's modes need.
fn wanted(job: &SluicewayJob, merges: bool) -> String {
    let mut all: Vec<(&str, &str)> = Vec::new();
    for (scope, level) in job.modes.iter().flat_map(|m| needs(m, merges).iter()) {
        match all.iter_mut().find(|(s, _)| s == scope) {
            Some(entry) if *level == "write" => entry.1 = "write",
            Some(_) => {}
            None => all.push((scope, level)),
        }
    }
    all.iter()
        .map(|(s, l)| format!("{s}: {l}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether a permissions block grants `scope` at `level` or above.
fn grants(block: Option<&Value>, scope: &str, level: &str) -> bool {
    match block {
        None => true,
        Some(Value::String(all)) => all == "write-all" || (all == "read-all" && level == "read"),
        Some(Value::Object(map)) => match map.get(scope).and_then(Value::as_str) {
            Some("write") => true,
            Some("read") => level == "read",
            _ => false,
        },
        Some(_) => false,
    }
}

/// The workflow's triggers.
struct Triggers {
    names: BTreeSet<String>,
    /// `issues`: absent, present without types, or its types.
    issues: Option<Option<BTreeSet<String>>>,
    reusable: bool,
}

impl Triggers {
    fn read(on: Option<&Value>) -> Triggers {
        let names: BTreeSet<String> = match on {
            Some(Value::String(one)) => [one.clone()].into(),
            Some(Value::Array(list)) => list
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
            Some(Value::Object(map)) => map.keys().cloned().collect(),
            _ => BTreeSet::new(),
        };
        let issues = names.contains("issues").then(|| {
            on.and_then(|on| on.get("issues"))
                .and_then(|issues| issues.get("types"))
                .map(|types| match types {
                    Value::String(one) => [one.clone()].into(),
                    Value::Array(list) => list
                        .iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect(),
                    _ => BTreeSet::new(),
                })
        });
        Triggers {
            reusable: names.contains("workflow_call"),
            names,
            issues,
        }
    }
}

/// The jobs with a step that uses this action, and the modes those steps run.
fn sluiceway_jobs(file: &str, document: &Document, action: &str) -> Vec<SluicewayJob> {
    let action = action.to_ascii_lowercase();
    let Some(jobs) = document.value.get("jobs").and_then(Value::as_object) else {
        return Vec::new();
    };
    jobs.iter()
        .filter_map(|(id, job)| {
            let mut modes: Vec<String> = Vec::new();
            for step in job.get("steps").and_then(Value::as_array)? {
                let uses = step.get("uses").and_then(Value::as_str).unwrap_or_default();
                if !uses.to_ascii_lowercase().starts_with(&format!("{action}@")) {
                    continue;
                }
                let mode = step
                    .get("with")
                    .and_then(|w| w.get("mode"))
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                for m in modes_of(mode) {
                    if !modes.iter().any(|x| x == m) {
                        modes.push((*m).to_owned());
                    }
                }
            }
            let environment = match job.get("environment") {
                Some(Value::String(name)) => Some(name.clone()),
                Some(other) => other.get("name").and_then(Value::as_str).map(str::to_owned),
                None => None,
            };
            (!modes.is_empty()).then(|| SluicewayJob {
                file: file.to_owned(),
                id: id.clone(),
                line: document
                    .position(&KeyPath::default().key("jobs").key(id))
                    .line,
                modes,
                environment,
            })
        })
        .collect()
}

/// Each ref the file's steps use this action at, with the step's `uses` line, in file
/// order.
fn action_refs(document: &Document, action: &str) -> Vec<(String, usize)> {
    let prefix = format!("{}@", action.to_ascii_lowercase());
    let Some(jobs) = document.value.get("jobs").and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut refs = Vec::new();
    for (id, job) in jobs {
        let Some(steps) = job.get("steps").and_then(Value::as_array) else {
            continue;
        };
        for (i, step) in steps.iter().enumerate() {
            let uses = step.get("uses").and_then(Value::as_str).unwrap_or_default();
            if uses.to_ascii_lowercase().starts_with(&prefix) {
                let path = KeyPath::default()
                    .key("jobs")
                    .key(id)
                    .key("steps")
                    .index(i)
                    .key("uses");
                refs.push((
                    uses[prefix.len()..].to_owned(),
                    document.position(&path).line,
                ));
            }
        }
    }
    refs.sort_by_key(|(_, line)| *line);
    refs
}

/// A release ref (decision 0061): a major tag `v0`, an exact tag `v0.8.0`, or a commit's
/// full SHA. `v0.8` and branches move.
fn is_release(git_ref: &str) -> bool {
    let numbers = |text: &str, count: usize| {
        let parts: Vec<&str> = text.split('.').collect();
        parts.len() == count
            && parts
                .iter()
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    };
    match git_ref.strip_prefix('v') {
        Some(version) => numbers(version, 1) || numbers(version, 3),
        None => git_ref.len() == 40 && git_ref.bytes().all(|b| b.is_ascii_hexdigit()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ACTION: &str = "sluiceway/sluiceway-rs";

    fn said(text: &str) -> Vec<String> {
        lint("deploy.yml", text, ACTION, Settings::default())
            .1
            .into_iter()
            .map(|f| format!("{}: {}", f.line, f.message))
            .collect()
    }

    const GOOD: &str = "on:
  push:
    branches: [main]
  schedule:
    - cron: '0 6 * * *'
  workflow_dispatch:
  issues:
    types: [edited]
permissions:
  contents: read
  issues: write
  deployments: write
  actions: write
  pull-requests: read
concurrency:
  group: sluiceway-${{ github.event.issue.number }}
  queue: max
jobs:
  sluiceway:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: sluiceway/sluiceway-rs@v0
";

    #[test]
    fn the_recommended_workflow_says_nothing() {
        assert_eq!(said(GOOD), Vec::<String>::new());
        let (jobs, _) = lint("deploy.yml", GOOD, ACTION, Settings::default());
        assert_eq!(jobs[0].modes, ["scan", "resolve", "apply", "settle"]);
    }

    #[test]
    fn each_finding_is_at_the_line_of_its_key() {
        let unfiltered = GOOD.replace("  issues:\n    types: [edited]\n", "  issues:\n");
        assert_eq!(
            said(&unfiltered),
            [
                "7: the `issues` trigger has no `types` filter, so every issue event in the repository starts a run; add `types: [edited]`"
            ]
        );
        let opened = GOOD.replace("types: [edited]", "types: [opened]");
        assert!(said(&opened)[0].contains("leave out `edited`"));
        let no_issues = GOOD.replace("  issues:\n    types: [edited]\n", "");
        assert!(
            said(&no_issues)[0]
                .starts_with("1: a job resolves ticks, but the workflow has no `issues` trigger")
        );
        let read_only = GOOD
            .replace("  issues: write\n", "  issues: read\n")
            .replace("  actions: write\n", "");
        assert_eq!(
            said(&read_only),
            [
                "9: the job sluiceway lacks actions: read, actions: write, issues: write for its modes (scan, resolve, apply, settle)"
            ]
        );
        let cancelling = GOOD.replace(
            "  group: sluiceway-${{ github.event.issue.number }}\n",
            "  group: sluiceway\n  cancel-in-progress: true\n",
        );
        assert!(
            said(&cancelling)[0]
                .starts_with("15: the job sluiceway's concurrency group cancels runs in progress")
        );
        let no_group = GOOD.replace(
            "concurrency:\n  group: sluiceway-${{ github.event.issue.number }}\n  queue: max\n",
            "",
        );
        assert!(
            said(&no_group)[0].starts_with("16: the job sluiceway has no concurrency group"),
            "{:?}",
            said(&no_group)
        );
        let no_schedule = GOOD.replace("  schedule:\n    - cron: '0 6 * * *'\n", "");
        assert!(said(&no_schedule)[0].contains("no `schedule` trigger"));
        let on_pr = GOOD.replace(
            "  workflow_dispatch:\n",
            "  workflow_dispatch:\n  pull_request:\n",
        );
        assert!(
            said(&on_pr)[0]
                .contains("the `pull_request` trigger runs this workflow's deploying jobs")
        );
    }

    #[test]
    fn a_deploying_group_that_does_not_queue_is_named_and_a_scanning_one_may_not_queue() {
        let dropping = GOOD.replace("  queue: max\n", "");
        assert_eq!(
            said(&dropping),
            [
                "15: the job sluiceway's concurrency group does not queue, so a newer run waiting for it replaces an older one and a deploy waiting there is dropped; add `queue: max`"
            ]
        );
        let scan_only = dropping.replace(
            "      - uses: sluiceway/sluiceway-rs@v0\n",
            "      - uses: sluiceway/sluiceway-rs@v0\n        with:\n          mode: scan\n",
        );
        let read_only = Settings {
            read_only: true,
            ..Settings::default()
        };
        let (_, findings) = lint("deploy.yml", &scan_only, ACTION, read_only);
        assert_eq!(findings, [], "a scanning group may let the newest run win");
    }

    #[test]
    fn a_scanning_file_without_a_resolving_job_is_named_unless_the_dashboard_is_read_only() {
        let scan_only = GOOD.replace(
            "      - uses: sluiceway/sluiceway-rs@v0\n",
            "      - uses: sluiceway/sluiceway-rs@v0\n        with:\n          mode: scan\n",
        );
        assert_eq!(
            said(&scan_only),
            [
                "1: a job scans, but no job of this workflow resolves ticks, so a ticked box starts nothing; add a resolving job, or set `dashboard.readOnly: true` for a dashboard without boxes"
            ]
        );
        let read_only = Settings {
            read_only: true,
            ..Settings::default()
        };
        assert_eq!(lint("deploy.yml", &scan_only, ACTION, read_only).1, []);
    }

    #[test]
    fn a_ref_that_is_not_a_release_and_a_second_ref_are_named_at_their_step() {
        for release in [
            "v0",
            "v12",
            "v0.1.0",
            "0123456789abcdef0123456789abcdef01234567",
        ] {
            assert!(is_release(release), "{release}");
        }
        for moving in [
            "main",
            "v0.1",
            "v",
            "v0.1.0-rc.1",
            "0123456",
            "latest",
            "v0..1",
        ] {
            assert!(!is_release(moving), "{moving}");
        }
        let on_main = GOOD.replace("sluiceway-rs@v0", "sluiceway-rs@main");
        assert_eq!(
            said(&on_main),
            [
                "23: the step uses sluiceway/sluiceway-rs@main, which is not a release, so what runs can change under you; pin a major tag (`@v0`), an exact one (`@v0.1.0`) or a commit's full SHA"
            ]
        );
        let two = format!(
            "{GOOD}  check:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: sluiceway/sluiceway-rs@v0.1.0\n        with:\n          mode: check\n"
        );
        assert_eq!(
            said(&two),
            [
                "27: this file uses the action at v0 and at v0.1.0, so its jobs can run different versions of Sluiceway; use one ref"
            ]
        );
    }

    #[test]
    fn a_deploying_job_names_its_environment_as_written() {
        let (jobs, _) = lint("deploy.yml", GOOD, ACTION, Settings::default());
        assert!(jobs[0].deploys());
        assert_eq!(jobs[0].environment, None);
        for (block, name) in [
            ("    environment: production\n", "production"),
            (
                "    environment:\n      name: ${{ matrix.environment }}\n      url: https://example.com\n",
                "${{ matrix.environment }}",
            ),
        ] {
            let with = GOOD.replace(
                "    runs-on: ubuntu-latest\n",
                &format!("    runs-on: ubuntu-latest\n{block}"),
            );
            let (jobs, _) = lint("deploy.yml", &with, ACTION, Settings::default());
            assert_eq!(jobs[0].environment.as_deref(), Some(name));
        }
    }

    #[test]
    fn a_job_block_replaces_the_workflows_and_write_all_grants_everything() {
        let job_block = GOOD.replace(
            "    runs-on: ubuntu-latest\n",
            "    runs-on: ubuntu-latest\n    permissions:\n      contents: read\n",
        );
        assert!(
            said(&job_block)[0].contains("lacks actions: read, actions: write, deployments: write"),
            "{:?}",
            said(&job_block)
        );
        let everything = GOOD.replace(
            "permissions:\n  contents: read\n  issues: write\n  deployments: write\n  actions: write\n  pull-requests: read\n",
            "permissions: write-all\n",
        );
        assert_eq!(said(&everything), Vec::<String>::new());
        let read_all = everything.replace("write-all", "read-all");
        assert!(said(&read_all)[0].contains("lacks"));
        let none = everything.replace("permissions: write-all\n", "");
        assert!(said(&none)[0].contains("names no permissions"));
    }

    #[test]
    fn a_check_workflow_on_pull_requests_needs_only_contents_read() {
        let check = "on: pull_request\npermissions:\n  contents: read\njobs:\n  check:\n    steps:\n      - uses: sluiceway/sluiceway-rs@v0\n        with:\n          mode: check\n";
        assert_eq!(said(check), Vec::<String>::new());
        let other = "on: push\njobs:\n  build:\n    steps:\n      - uses: actions/checkout@v4\n";
        assert_eq!(said(other), Vec::<String>::new());
        assert_eq!(said("jobs: [\n"), Vec::<String>::new(), "not about us");
        assert_eq!(said("jobs: [\n  sluiceway/sluiceway-rs@v0\n").len(), 1);
    }
}

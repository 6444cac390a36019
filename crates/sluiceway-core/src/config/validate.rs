//! The rules a JSON Schema cannot say well: globs that must compile, paths that must
//! stay inside the repository, which options each tool takes, and keys that must name
//! each other.

use std::collections::{HashMap, HashSet};

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::document::{Document, KeyPath};
use super::problem::ConfigProblem;
use super::raw::*;
use super::schema::touches;
use super::{Config, EntryCost, EntryDependsOn, EntryPhase, IgnoreRule, StackEntry};
use crate::calendar::{Calendar, Freeze, Window, Windows};
use crate::cost::Amount;
use crate::glob;
use crate::stack::{Chart, NamedPath, TickRule, Tool, ToolOptions};

struct Checker<'a> {
    document: &'a Document,
    file: &'a str,
    problems: &'a mut Vec<ConfigProblem>,
    /// Problems the schema found; parts they touch are skipped.
    schema_problems: Vec<ConfigProblem>,
    /// Settings that are accepted but cannot do what they seem to ask.
    warnings: Vec<ConfigProblem>,
}

impl Checker<'_> {
    fn warning(&mut self, key: KeyPath, message: impl Into<String>) {
        let position = self.document.position(&key);
        self.warnings.push(ConfigProblem {
            file: self.file.to_owned(),
            position,
            key,
            message: message.into(),
        });
    }

    fn problem(&mut self, key: KeyPath, message: impl Into<String>) {
        let position = self.document.position(&key);
        self.problems.push(ConfigProblem {
            file: self.file.to_owned(),
            position,
            key,
            message: message.into(),
        });
    }

    /// Reads the part of the document at `key`, or `None` when the schema already
    /// reported a problem there or the part is absent.
    fn read<T: DeserializeOwned>(&mut self, key: &KeyPath, value: Option<&Value>) -> Option<T> {
        if touches(&self.schema_problems, key) {
            return None;
        }
        let value = value?.clone();
        match serde_json::from_value(value) {
            Ok(read) => Some(read),
            Err(e) => {
                self.problem(key.clone(), format!("could not be read: {e}"));
                None
            }
        }
    }
}

pub(super) fn validate(
    document: &Document,
    file: &str,
    problems: &mut Vec<ConfigProblem>,
) -> Config {
    let schema_problems = problems.clone();
    let mut checker = Checker {
        document,
        file,
        problems,
        schema_problems,
        warnings: Vec::new(),
    };
    let root = KeyPath::default();
    let Value::Object(top) = &document.value else {
        return Config::default();
    };

    let mut settable = serde_json::Map::new();
    for (key, value) in top.iter().filter(|(key, _)| *key != "stacks") {
        if let Some(kept) = untouched_part(&checker.schema_problems, &root.key(key), value) {
            settable.insert(key.clone(), kept);
        }
    }
    let mut settings: RawConfig =
        serde_json::from_value(Value::Object(settable)).unwrap_or_else(|e| {
            checker.problem(root.clone(), format!("could not be read: {e}"));
            RawConfig::default()
        });

    let mut entries = Vec::new();
    if let Some(Value::Array(items)) = top.get("stacks") {
        for (index, item) in items.iter().enumerate() {
            let key = root.key("stacks").index(index);
            if let Some(raw) = checker.read::<RawStackEntry>(&key, Some(item)) {
                entries.push((index, raw));
            }
        }
    }

    check_dashboard(&mut checker, &settings.dashboard);
    // Under `redact` no value is read at all (decision 0052).
    let values = if settings.dashboard.redact {
        crate::values::ValueList::default()
    } else {
        crate::values::ValueList::new(settings.dashboard.show_values.iter().cloned())
    };
    let tick_rule = settings
        .tickers
        .as_ref()
        .map(|t| tick_rule(&mut checker, &root.key("tickers"), t))
        .unwrap_or_default();
    check_logins(
        &mut checker,
        &root.key("recordWriters"),
        &settings.record_writers,
    );
    check_logins(
        &mut checker,
        &root.key("mergeAndDeploy").key("authors"),
        &settings.merge_and_deploy.authors,
    );
    let deploy_windows = check_windows(
        &mut checker,
        &root.key("deployWindows"),
        &settings.deploy_windows,
    );
    let freezes = check_freezes(&mut checker, &settings.freezes);
    let calendar = Calendar {
        zone: jiff::tz::TimeZone::get(&settings.dashboard.time_zone)
            .unwrap_or(jiff::tz::TimeZone::UTC),
        freezes,
    };
    let ignore = ignore_rules(&mut checker, &settings.ignore);
    check_globs(
        &mut checker,
        &root.key("scan").key("unrelated"),
        &settings.scan.unrelated,
    );
    let policies = named_paths(&mut checker, &root.key("policies"), &settings.policies);
    if settings.cost.threshold.is_some() && !settings.cost.enabled {
        checker.problem(
            root.key("cost").key("threshold"),
            "a threshold needs `cost.enabled: true`",
        );
    }
    check_phases(&mut checker, &settings.phases);

    let entries: Vec<StackEntry> = entries
        .into_iter()
        .filter_map(|(index, raw)| stack_entry(&mut checker, &settings, index, raw))
        .collect();
    check_entry_duplicates(&mut checker, &entries);

    settings.stacks = Vec::new();
    Config {
        file: None,
        settings,
        tick_rule,
        ignore,
        entries,
        calendar,
        deploy_windows,
        policies,
        unacted: Vec::new(),
        values,
        warnings: checker.warnings,
    }
}

/// The part of `value` the schema found nothing wrong with: mappings lose only their
/// broken keys; anything else broken is dropped whole (its default then applies).
fn untouched_part(problems: &[ConfigProblem], at: &KeyPath, value: &Value) -> Option<Value> {
    if !touches(problems, at) {
        return Some(value.clone());
    }
    let Value::Object(map) = value else {
        return None;
    };
    if problems.iter().any(|p| p.key == *at) {
        return None;
    }
    let kept = map
        .iter()
        .filter_map(|(key, child)| {
            untouched_part(problems, &at.key(key), child).map(|c| (key.clone(), c))
        })
        .collect();
    Some(Value::Object(kept))
}

fn check_dashboard(checker: &mut Checker<'_>, dashboard: &RawDashboard) {
    let at = KeyPath::default().key("dashboard");
    if dashboard.title.trim().is_empty() {
        checker.problem(at.key("title"), "expected a title that is not empty");
    }
    if dashboard.label.trim().is_empty() {
        checker.problem(at.key("label"), "expected a label that is not empty");
    }
    if jiff::tz::TimeZone::get(&dashboard.time_zone).is_err()
        || dashboard.time_zone.starts_with(['+', '-'])
    {
        checker.problem(
            at.key("timeZone"),
            format!(
                "expected an IANA time zone such as `Europe/Amsterdam` or `UTC`; `{}` is not one (offsets are not zones)",
                dashboard.time_zone
            ),
        );
    }
    for (i, path) in dashboard.show_values.iter().enumerate() {
        match crate::values::judge(path) {
            crate::values::Verdict::Fine => {}
            crate::values::Verdict::Refused(why) => {
                checker.problem(at.key("showValues").index(i), why);
            }
            crate::values::Verdict::NeverMatches(why) => {
                checker.warning(at.key("showValues").index(i), why);
            }
        }
    }
    let mut seen = HashSet::new();
    for (i, section) in dashboard.sections.iter().enumerate() {
        if !seen.insert(section) {
            checker.problem(
                at.key("sections").index(i),
                "this section is already named earlier in the list",
            );
        }
    }
}

fn tick_rule(checker: &mut Checker<'_>, at: &KeyPath, tickers: &RawTickers) -> TickRule {
    match tickers {
        RawTickers::Level(level) => TickRule::AtLeast(*level),
        RawTickers::Logins(logins) => {
            if logins.is_empty() {
                checker.problem(
                    at.clone(),
                    "an empty list lets nobody tick; name at least one login",
                );
            }
            check_logins(checker, at, logins);
            TickRule::Logins(logins.iter().map(|l| l.to_lowercase()).collect())
        }
    }
}

/// GitHub logins: letters, digits and single hyphens; apps written `name[bot]`.
fn check_logins(checker: &mut Checker<'_>, at: &KeyPath, logins: &[String]) {
    for (i, login) in logins.iter().enumerate() {
        let key = at.index(i);
        if login.contains('/') {
            checker.problem(
                key,
                format!("`{login}` looks like a team; teams are not supported, list the logins"),
            );
        } else if login.starts_with('@') {
            checker.problem(
                key,
                format!(
                    "write the login without `@`: `{}`",
                    login.trim_start_matches('@')
                ),
            );
        } else if !is_login(login) {
            checker.problem(
                key,
                format!(
                    "`{login}` is not a GitHub login (letters, digits and `-`; apps as `name[bot]`)"
                ),
            );
        }
    }
}

fn is_login(login: &str) -> bool {
    let base = login.strip_suffix("[bot]").unwrap_or(login);
    !base.is_empty()
        && base.len() <= 39
        && base.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        && !base.starts_with('-')
        && !base.ends_with('-')
}

/// Checks a list of deploy windows and gives back the ones that are whole.
fn check_windows(checker: &mut Checker<'_>, at: &KeyPath, windows: &[RawDeployWindow]) -> Windows {
    let mut whole = Vec::new();
    for (i, window) in windows.iter().enumerate() {
        let key = at.index(i);
        let from = clock_minutes(&window.from, false);
        let to = clock_minutes(&window.to, true);
        if from.is_none() {
            checker.problem(
                key.key("from"),
                "expected a time `HH:MM` from 00:00 to 23:59",
            );
        }
        if to.is_none() {
            checker.problem(key.key("to"), "expected a time `HH:MM` from 00:01 to 24:00");
        }
        match (from, to) {
            (Some(from), Some(to)) if to <= from => checker.problem(
                key.key("to"),
                "the window must close after it opens; a window over midnight is written as two windows",
            ),
            (Some(opens), Some(closes)) => whole.push(Window {
                days: window.days.iter().map(|d| d.civil()).collect(),
                opens,
                closes,
            }),
            _ => {}
        }
    }
    Windows(whole)
}

fn clock_minutes(text: &str, allow_24: bool) -> Option<u16> {
    let (h, m) = text.split_once(':')?;
    if h.len() != 2 || m.len() != 2 {
        return None;
    }
    let (h, m): (u16, u16) = (h.parse().ok()?, m.parse().ok()?);
    match (h, m) {
        (24, 0) if allow_24 => Some(24 * 60),
        (0..=23, 0..=59) => Some(h * 60 + m),
        _ => None,
    }
}

/// Checks the freezes and gives back the ones that are whole.
fn check_freezes(checker: &mut Checker<'_>, freezes: &[RawFreeze]) -> Vec<Freeze> {
    let at = KeyPath::default().key("freezes");
    let mut whole = Vec::new();
    for (i, freeze) in freezes.iter().enumerate() {
        let key = at.index(i);
        let parse = |t: &str| {
            (t.len() == 16)
                .then(|| t.parse::<jiff::civil::DateTime>().ok())
                .flatten()
        };
        let (from, to) = (parse(&freeze.from), parse(&freeze.to));
        if from.is_none() {
            checker.problem(
                key.key("from"),
                "expected a date and time `YYYY-MM-DDTHH:MM`",
            );
        }
        if to.is_none() {
            checker.problem(key.key("to"), "expected a date and time `YYYY-MM-DDTHH:MM`");
        }
        if let Some(reason) = &freeze.reason
            && reason.trim().is_empty()
        {
            checker.problem(key.key("reason"), "expected a reason that is not empty");
        }
        match (from, to) {
            (Some(from), Some(to)) if to <= from => {
                checker.problem(key.key("to"), "the freeze must end after it starts")
            }
            (Some(from), Some(to)) => whole.push(Freeze {
                from,
                to,
                reason: freeze.reason.clone(),
                position: checker.document.position(&key.key("to")),
            }),
            _ => {}
        }
    }
    whole
}

fn ignore_rules(checker: &mut Checker<'_>, ignore: &[RawIgnore]) -> Vec<IgnoreRule> {
    let at = KeyPath::default().key("ignore");
    let mut rules = Vec::new();
    for (i, entry) in ignore.iter().enumerate() {
        let key = at.index(i);
        let (glob_text, reason, glob_key) = match entry {
            RawIgnore::Glob(g) => (g, None, key.clone()),
            RawIgnore::WithReason(r) => (&r.glob, Some(r.reason.clone()), key.key("glob")),
        };
        if let Some(reason) = &reason
            && reason.trim().is_empty()
        {
            checker.problem(key.key("reason"), "expected a reason that is not empty");
        }
        match glob::IdGlob::new(glob_text) {
            Ok(_) => rules.push(IgnoreRule {
                glob: glob_text.clone(),
                reason,
                position: checker.document.position(&key),
            }),
            Err(e) => checker.problem(glob_key, e.to_string()),
        }
    }
    rules
}

fn check_globs(checker: &mut Checker<'_>, at: &KeyPath, globs: &[String]) {
    for (i, text) in globs.iter().enumerate() {
        if let Err(e) = glob::FileGlob::new(text) {
            checker.problem(at.index(i), e.to_string());
        }
    }
}

fn check_phases(checker: &mut Checker<'_>, phases: &[String]) {
    let at = KeyPath::default().key("phases");
    let mut seen = HashSet::new();
    for (i, phase) in phases.iter().enumerate() {
        if !is_word(phase, ".-_") {
            checker.problem(
                at.index(i),
                "expected a phase name of letters, digits, `.`, `_` and `-`",
            );
        } else if !seen.insert(phase) {
            checker.problem(
                at.index(i),
                format!("the phase `{phase}` is already named earlier in the list"),
            );
        }
    }
}

fn is_word(text: &str, extra: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || extra.contains(c))
}

/// A path inside the repository, relative to its root: no absolute path, no `..`, no
/// backslash. Returns it normalised (no `./`, no trailing `/`, `.` for the root).
pub(crate) fn normalise_repo_path(text: &str) -> Result<String, &'static str> {
    if text.contains('\\') {
        return Err("use `/` between directories, not `\\`");
    }
    if text.starts_with('/') || (text.len() > 1 && text.as_bytes()[1] == b':') {
        return Err("expected a path relative to the repository root, not an absolute path");
    }
    let parts: Vec<&str> = text
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    if parts.contains(&"..") {
        return Err("a path may not leave the repository with `..`");
    }
    Ok(if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    })
}

/// A repository path, normalised, with the key and place that name it.
fn named_path(checker: &mut Checker<'_>, key: KeyPath, text: &str) -> Option<NamedPath> {
    match normalise_repo_path(text) {
        Ok(path) => Some(NamedPath {
            path,
            position: checker.document.position(&key),
            key,
        }),
        Err(message) => {
            checker.problem(key, message);
            None
        }
    }
}

/// A list of repository paths (`policies`), each at its index.
fn named_paths(checker: &mut Checker<'_>, at: &KeyPath, texts: &[String]) -> Vec<NamedPath> {
    texts
        .iter()
        .enumerate()
        .filter_map(|(i, text)| named_path(checker, at.index(i), text))
        .collect()
}

fn check_repo_path(checker: &mut Checker<'_>, at: &KeyPath, text: &str) {
    if let Err(message) = normalise_repo_path(text) {
        checker.problem(at.clone(), message);
    }
}

/// A path relative to the stack's own directory; it may climb with `..`, and discovery
/// checks that it stays inside the repository.
fn check_stack_relative_path(checker: &mut Checker<'_>, at: &KeyPath, text: &str) {
    if text.contains('\\') {
        checker.problem(at.clone(), "use `/` between directories, not `\\`");
    } else if text.starts_with('/') || text.is_empty() {
        checker.problem(
            at.clone(),
            "expected a path relative to the stack's directory",
        );
    }
}

fn stack_entry(
    checker: &mut Checker<'_>,
    settings: &RawConfig,
    index: usize,
    raw: RawStackEntry,
) -> Option<StackEntry> {
    let at = KeyPath::default().key("stacks").index(index);
    let position = checker.document.position(&at);
    let path = match normalise_repo_path(&raw.path) {
        Ok(path) => path,
        Err(message) => {
            checker.problem(at.key("path"), message);
            return None;
        }
    };
    if let Some(name) = &raw.name
        && !is_word(name, "._-")
    {
        checker.problem(
            at.key("name"),
            "expected a stack name of letters, digits, `.`, `_` and `-`",
        );
    }
    if let Some(id) = &raw.id
        && !is_word(id, "._/:@+-")
    {
        checker.problem(
            at.key("id"),
            "expected an id of letters, digits and `. _ / : @ + -`",
        );
    }
    if let Some(environment) = &raw.environment
        && environment.trim().is_empty()
    {
        checker.problem(
            at.key("environment"),
            "expected an environment name that is not empty",
        );
    }
    let tick_rule = raw
        .tickers
        .as_ref()
        .map(|t| tick_rule(checker, &at.key("tickers"), t));
    check_globs(checker, &at.key("inputs"), &raw.inputs);
    for (i, input) in raw.inputs.iter().enumerate() {
        check_repo_path(checker, &at.key("inputs").index(i), input);
    }
    let deploy_windows = raw
        .deploy_windows
        .as_ref()
        .map(|windows| check_windows(checker, &at.key("deployWindows"), windows));
    let env_file = raw
        .env_file
        .as_ref()
        .and_then(|text| named_path(checker, at.key("envFile"), text));
    let policies = named_paths(checker, &at.key("policies"), &raw.policies);
    if let Some(cost) = &raw.cost
        && cost.threshold.is_some()
        && !cost.enabled.unwrap_or(settings.cost.enabled)
    {
        checker.problem(
            at.key("cost").key("threshold"),
            "a threshold needs `cost.enabled: true`",
        );
    }

    let tool = raw.tool.map(|t| match t {
        ToolName::Opentofu => Tool::OpenTofu,
        ToolName::Terraform => Tool::Terraform,
        ToolName::Helm => Tool::Helm,
        ToolName::Kubectl => Tool::Kubectl,
    });
    if let (Some(tool), Some(true)) = (tool, raw.create_in_backend) {
        checker.problem(
            at.key("createInBackend"),
            format!("only Pulumi stacks are created in a backend, not {tool}"),
        );
    }
    let depends_on = raw.depends_on.map(|d| match d {
        RawDependsOn::Auto(_) => {
            if let Some(tool) = tool {
                checker.problem(
                    at.key("dependsOn"),
                    format!("`auto` reads Pulumi stack references; list the stack ids this {tool} stack waits on"),
                );
            }
            EntryDependsOn::Auto
        }
        RawDependsOn::Ids(ids) => EntryDependsOn::Ids(ids),
    });
    let phase = raw.phase.map(|p| match p {
        RawPhase::Name(name) => {
            if !settings.phases.contains(&name) {
                checker.problem(
                    at.key("phase"),
                    format!("`{name}` is not one of the `phases`"),
                );
            }
            EntryPhase::Named(name)
        }
        RawPhase::From(from) => {
            if let Some(tool) = tool {
                checker.problem(
                    at.key("phase").key("from"),
                    format!(
                        "`from` reads a Pulumi project key; a {tool} stack names its phase directly"
                    ),
                );
            }
            EntryPhase::FromProjectKey(from.from)
        }
    });
    let declaration = match tool {
        None => {
            if raw.options.is_some() {
                checker.problem(
                    at.key("options"),
                    "options belong to a tool; add `tool:` to declare the stack",
                );
            }
            None
        }
        Some(tool) => {
            let options = raw.options.unwrap_or_default();
            tool_options(checker, &at, tool, raw.name.as_deref(), options).map(|o| (tool, o))
        }
    };
    Some(StackEntry {
        index,
        position,
        path,
        name: raw.name,
        declaration,
        id: raw.id,
        environment: raw.environment,
        tick_rule,
        inputs: raw.inputs,
        depends_on,
        phase,
        drift: raw.drift.map(|d| d.enabled),
        preview_timeout_minutes: raw.preview_timeout,
        value_fingerprint: raw.value_fingerprint,
        create_in_backend: raw.create_in_backend,
        deploy_windows,
        deploy: raw.deploy,
        env_file,
        policies,
        cost: raw.cost.map(|c| EntryCost {
            enabled: c.enabled,
            threshold: c.threshold.and_then(Amount::from_f64),
        }),
    })
}

/// Which option keys each tool takes, in the order `check` lists them.
fn allowed_options(tool: Tool) -> &'static [&'static str] {
    match tool {
        Tool::OpenTofu | Tool::Terraform => &["workspace", "varFiles", "wrapper"],
        Tool::Helm => &[
            "release",
            "namespace",
            "chart",
            "version",
            "valuesFiles",
            "createNamespace",
        ],
        Tool::Kubectl => &[
            "context",
            "namespace",
            "recursive",
            "prune",
            "forceConflicts",
            "fieldManager",
        ],
        Tool::Pulumi => &[],
    }
}

fn tool_options(
    checker: &mut Checker<'_>,
    entry: &KeyPath,
    tool: Tool,
    name: Option<&str>,
    options: RawOptions,
) -> Option<ToolOptions> {
    let at = entry.key("options");
    let given = given_options(&options);
    let allowed = allowed_options(tool);
    let mut fine = true;
    for key in given.iter().filter(|k| !allowed.contains(k)) {
        checker.problem(
            at.key(key),
            format!(
                "{tool} takes no option `{key}`; its options are {}",
                allowed.join(", ")
            ),
        );
        fine = false;
    }
    let namespace_ok = |checker: &mut Checker<'_>, ns: &Option<String>| match ns {
        Some(ns) if !is_dns_label(ns) => {
            checker.problem(
                at.key("namespace"),
                "expected a DNS label: lowercase letters, digits and `-`, at most 63 characters, starting and ending with a letter or digit",
            );
            false
        }
        _ => true,
    };
    match tool {
        Tool::OpenTofu | Tool::Terraform => {
            if let Some(workspace) = &options.workspace
                && workspace.trim().is_empty()
            {
                checker.problem(
                    at.key("workspace"),
                    "expected a workspace name that is not empty",
                );
                fine = false;
            }
            let var_files = options.var_files.unwrap_or_default();
            for (i, file) in var_files.iter().enumerate() {
                check_stack_relative_path(checker, &at.key("varFiles").index(i), file);
            }
            if options.wrapper.is_some() && !var_files.is_empty() {
                checker.problem(
                    at.key("varFiles"),
                    "a wrapper reads its own inputs; `varFiles` cannot be used with `wrapper`",
                );
                fine = false;
            }
            if options.wrapper == Some(Wrapper::Cdktf) {
                match name {
                    None => {
                        checker.problem(
                            entry.key("name"),
                            "a cdktf stack needs `name`: the CDKTF stack's name",
                        );
                        fine = false;
                    }
                    Some(name) if !is_word(name, "-_") => {
                        checker.problem(
                            entry.key("name"),
                            "a CDKTF stack name has letters, digits, `-` and `_`",
                        );
                        fine = false;
                    }
                    Some(_) => {}
                }
            }
            fine.then_some(ToolOptions::RootModule {
                workspace: options.workspace,
                var_files,
                wrapper: options.wrapper,
            })
        }
        Tool::Kubectl => {
            fine &= namespace_ok(checker, &options.namespace);
            if let Some(context) = &options.context
                && context.trim().is_empty()
            {
                checker.problem(
                    at.key("context"),
                    "expected a kubeconfig context name that is not empty",
                );
                fine = false;
            }
            if let Some(manager) = &options.field_manager
                && !is_field_manager(manager)
            {
                checker.problem(
                    at.key("fieldManager"),
                    "expected 1 to 128 letters, digits, `.`, `_` and `-`, starting with a letter or digit",
                );
                fine = false;
            }
            fine.then_some(ToolOptions::Kubectl {
                context: options.context,
                namespace: options.namespace,
                recursive: options.recursive.unwrap_or(false),
                prune: options.prune.unwrap_or(false),
                force_conflicts: options.force_conflicts.unwrap_or(false),
                field_manager: options.field_manager,
            })
        }
        Tool::Helm => {
            for required in ["release", "namespace", "chart"] {
                if !given.contains(&required) {
                    checker.problem(
                        entry.key("options"),
                        format!("a helm stack needs the option `{required}`"),
                    );
                    fine = false;
                }
            }
            if let Some(release) = &options.release
                && !is_release_name(release)
            {
                checker.problem(
                    at.key("release"),
                    "expected a release name: at most 53 lowercase letters, digits, `-` and `.`, starting and ending with a letter or digit",
                );
                fine = false;
            }
            fine &= namespace_ok(checker, &options.namespace);
            let values_files = options.values_files.unwrap_or_default();
            for (i, file) in values_files.iter().enumerate() {
                check_stack_relative_path(checker, &at.key("valuesFiles").index(i), file);
            }
            let chart = options.chart.as_deref().and_then(|chart| {
                if chart.starts_with("./") || chart.starts_with("../") || chart == "." {
                    if options.version.is_some() {
                        checker.problem(
                            at.key("version"),
                            "a local chart's version is in its Chart.yaml; remove `version`",
                        );
                        return None;
                    }
                    Some(Chart::Local(chart.to_owned()))
                } else if !(chart.starts_with("oci://")
                    || chart.split('/').filter(|p| !p.is_empty()).count() == 2)
                {
                    checker.problem(
                        at.key("chart"),
                        "expected `./path` for a local chart, `repo/name`, or `oci://…`",
                    );
                    None
                } else {
                    match &options.version {
                        None => {
                            checker.problem(
                                at.key("chart"),
                                "a chart reference needs `version`, an exact version",
                            );
                            None
                        }
                        Some(v) if !is_exact_version(v) => {
                            checker.problem(
                                at.key("version"),
                                "expected an exact version such as `1.2.3`, not a range",
                            );
                            None
                        }
                        Some(v) => Some(Chart::Reference {
                            name: chart.to_owned(),
                            version: v.clone(),
                        }),
                    }
                }
            });
            match (fine, chart) {
                (true, Some(chart)) => Some(ToolOptions::Helm {
                    release: options.release.unwrap_or_default(),
                    namespace: options.namespace.unwrap_or_default(),
                    chart,
                    values_files,
                    create_namespace: options.create_namespace.unwrap_or(false),
                }),
                _ => None,
            }
        }
        Tool::Pulumi => Some(ToolOptions::Pulumi),
    }
}

fn given_options(options: &RawOptions) -> Vec<&'static str> {
    let RawOptions {
        workspace,
        var_files,
        wrapper,
        release,
        namespace,
        chart,
        version,
        values_files,
        create_namespace,
        context,
        recursive,
        prune,
        force_conflicts,
        field_manager,
    } = options;
    [
        ("workspace", workspace.is_some()),
        ("varFiles", var_files.is_some()),
        ("wrapper", wrapper.is_some()),
        ("release", release.is_some()),
        ("namespace", namespace.is_some()),
        ("chart", chart.is_some()),
        ("version", version.is_some()),
        ("valuesFiles", values_files.is_some()),
        ("createNamespace", create_namespace.is_some()),
        ("context", context.is_some()),
        ("recursive", recursive.is_some()),
        ("prune", prune.is_some()),
        ("forceConflicts", force_conflicts.is_some()),
        ("fieldManager", field_manager.is_some()),
    ]
    .into_iter()
    .filter_map(|(key, given)| given.then_some(key))
    .collect()
}

pub(crate) fn is_dns_label(text: &str) -> bool {
    text.len() <= 63
        && !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !text.starts_with('-')
        && !text.ends_with('-')
}

fn is_release_name(text: &str) -> bool {
    text.len() <= 53
        && !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.')
        && text.starts_with(|c: char| c.is_ascii_alphanumeric())
        && text.ends_with(|c: char| c.is_ascii_alphanumeric())
}

fn is_field_manager(text: &str) -> bool {
    text.len() <= 128
        && text.starts_with(|c: char| c.is_ascii_alphanumeric())
        && is_word(text, "._-")
}

/// `1.2.3`, `v1.2.3` or `1.2.3-rc.1+build`: three numbers and nothing that reads as a range.
fn is_exact_version(text: &str) -> bool {
    let core = text.strip_prefix('v').unwrap_or(text);
    let core = core.split(['-', '+']).next().unwrap_or_default();
    let numbers: Vec<&str> = core.split('.').collect();
    numbers.len() == 3
        && numbers
            .iter()
            .all(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        && !text.contains([' ', '*', '^', '~', '>', '<', '=', '|', 'x'])
}

fn check_entry_duplicates(checker: &mut Checker<'_>, entries: &[StackEntry]) {
    let mut seen: HashMap<(String, Option<String>), usize> = HashMap::new();
    for entry in entries {
        let key = (entry.path.clone(), entry.name.clone());
        if let Some(first) = seen.get(&key) {
            checker.problem(
                KeyPath::default().key("stacks").index(entry.index),
                format!("stacks[{first}] already has this path and name; merge the two entries"),
            );
        } else {
            seen.insert(key, entry.index);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repo_paths_are_normalised_and_kept_inside() {
        assert_eq!(normalise_repo_path("./apps/web/").unwrap(), "apps/web");
        assert_eq!(normalise_repo_path(".").unwrap(), ".");
        assert_eq!(normalise_repo_path("./").unwrap(), ".");
        assert!(normalise_repo_path("../x").is_err());
        assert!(normalise_repo_path("a/../../x").is_err());
        assert!(normalise_repo_path("/etc").is_err());
        assert!(normalise_repo_path("a\\b").is_err());
        assert!(normalise_repo_path("C:/x").is_err());
    }

    #[test]
    fn exact_versions_refuse_ranges() {
        assert!(is_exact_version("1.2.3"));
        assert!(is_exact_version("v1.2.3-rc.1"));
        assert!(!is_exact_version("^1.2.3"));
        assert!(!is_exact_version("1.2"));
        assert!(!is_exact_version("1.2.x"));
        assert!(!is_exact_version(">=1.0.0"));
    }

    #[test]
    fn window_times_allow_midnight_only_as_an_end() {
        assert_eq!(clock_minutes("24:00", true), Some(1440));
        assert_eq!(clock_minutes("24:00", false), None);
        assert_eq!(clock_minutes("9:00", false), None);
        assert_eq!(clock_minutes("23:59", false), Some(1439));
    }

    #[test]
    fn logins_and_labels() {
        assert!(is_login("renovate[bot]"));
        assert!(is_login("alice-b"));
        assert!(!is_login("-alice"));
        assert!(is_dns_label("shop-1"));
        assert!(!is_dns_label("Shop"));
        assert!(!is_dns_label(&"a".repeat(64)));
    }
}

//! Discovery: which stacks the repository holds, from its files alone.
//!
//! Discovery never runs a tool and never touches the network; `check`, `resolve` and
//! `settle` depend on that. It finds Pulumi stacks and root modules, adds the stacks
//! `stacks` entries declare, applies every entry's settings, derives ids, leaves out
//! what `ignore` names, and checks that dependencies point somewhere real.

pub mod cdktf;
mod declared;
mod dependencies;
pub mod gitops;
mod pulumi;
mod references;
pub mod root_module;

use std::collections::{BTreeMap, BTreeSet};

use crate::config::{
    Config, ConfigProblem, EntryDependsOn, EntryPhase, KeyPath, Position, StackEntry,
};
use crate::cost::Amount;
use crate::discovery::pulumi::ProjectKey;
use crate::glob::IdGlob;
use crate::repo::{FileSource, RepoFiles};
use crate::stack::{CostSetting, Origin, Stack, StackId, StackSettings, Tool, ToolOptions};

pub use declared::{component_in, is_manifest, kustomization_in};
pub use root_module::Verdict;

/// The default environment of a stack's deployment records.
pub use crate::stack::DEFAULT_ENVIRONMENT;

/// What discovery found.
#[derive(Debug, Clone, Default)]
pub struct Discovery {
    /// Every stack that gets a row, sorted by id.
    pub stacks: Vec<Stack>,
    /// Stacks `ignore` left out, sorted by id.
    pub ignored: Vec<IgnoredStack>,
    /// `ignore` globs that matched no stack.
    pub idle_ignores: Vec<IdleIgnore>,
    /// What root-module discovery made of each directory of module files.
    pub root_modules: BTreeMap<String, Verdict>,
    /// Why root-module discovery did not run, when it did not.
    pub root_modules_off: Option<String>,
    /// For each `dependsOn: auto` stack, how many of its stack references matched no
    /// stack of the repository, or several.
    pub unresolved_references: BTreeMap<StackId, usize>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IgnoredStack {
    pub id: StackId,
    pub tool: Tool,
    pub glob: String,
    pub reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdleIgnore {
    pub glob: String,
    pub position: Position,
    /// `<glob>:*`, when that would match a stack id.
    pub suggestion: Option<String>,
}

/// Finds the stacks. On failure, every problem found, named by file, line and key.
pub fn discover(
    config: &Config,
    files: &RepoFiles,
    source: &impl FileSource,
) -> Result<Discovery, Vec<ConfigProblem>> {
    let file = config
        .file
        .clone()
        .unwrap_or_else(|| "sluiceway.yaml".to_owned());
    let mut problems = Vec::new();
    let entry_problem = |entry: &StackEntry, key: Option<&str>, message: String| {
        let base = KeyPath::default().key("stacks").index(entry.index);
        ConfigProblem {
            file: file.clone(),
            position: entry.position,
            key: key.map_or(base.clone(), |k| base.key(k)),
            message,
        }
    };

    let mut candidates: Vec<Stack> = Vec::new();
    let mut programs = references::Programs::new();
    let mut projects: BTreeMap<String, pulumi::ProjectFile> = BTreeMap::new();
    for found in pulumi::find(files, source, &mut problems) {
        projects
            .entry(found.dir.clone())
            .or_insert_with(|| found.project_file.clone());
        programs.insert(
            (found.dir.clone(), found.name.clone()),
            references::Program {
                project: found.project.clone(),
                references: found.references.clone(),
            },
        );
        candidates.push(new_stack(
            found.dir,
            Some(found.name),
            Tool::Pulumi,
            ToolOptions::Pulumi,
            Origin::PulumiStackFile(found.file),
        ));
    }

    let mut dir_tools: BTreeMap<&str, (Tool, Option<crate::config::Wrapper>, usize)> =
        BTreeMap::new();
    let mut apps: BTreeMap<&str, Option<ConfigProblem>> = BTreeMap::new();
    for entry in &config.entries {
        let Some((tool, options)) = &entry.declaration else {
            continue;
        };
        let wrapper = match options {
            ToolOptions::RootModule { wrapper, .. } => *wrapper,
            _ => None,
        };
        if let Some((other_tool, other_wrapper, index)) = dir_tools.get(entry.path.as_str())
            && (*other_tool != *tool || *other_wrapper != wrapper)
        {
            problems.push(entry_problem(
                entry,
                Some("tool"),
                format!("stacks[{index}] declares the same directory with another tool or wrapper; one directory has one tool"),
            ));
        }
        dir_tools
            .entry(entry.path.as_str())
            .or_insert((*tool, wrapper, entry.index));
        let found = declared::problems(files, source, entry, *tool, options);
        // An app's own file is read once, however many of its stacks are declared.
        if found.is_empty()
            && wrapper == Some(crate::config::Wrapper::Cdktf)
            && !apps.contains_key(entry.path.as_str())
        {
            apps.insert(entry.path.as_str(), cdktf::problem(source, &entry.path));
        }
        if let Some(Some(problem)) = apps.get(entry.path.as_str()) {
            problems.push(problem.clone());
        } else if found.is_empty() {
            candidates.push(new_stack(
                entry.path.clone(),
                entry.name.clone(),
                *tool,
                options.clone(),
                Origin::Declared(entry.index),
            ));
        }
        problems.extend(
            found
                .into_iter()
                .map(|message| entry_problem(entry, Some("path"), message)),
        );
    }

    let mut discovery = Discovery::default();
    if config.settings.discovery.root_modules {
        let declared_dirs: BTreeSet<String> = config
            .entries
            .iter()
            .filter(|e| matches!(e.declaration, Some((Tool::OpenTofu | Tool::Terraform, _))))
            .map(|e| e.path.clone())
            .collect();
        match root_module::examine(files, source, &declared_dirs) {
            Ok(verdicts) => {
                for (dir, verdict) in &verdicts {
                    if let Verdict::Found { tool, evidence } = verdict {
                        let options = ToolOptions::RootModule {
                            workspace: None,
                            var_files: Vec::new(),
                            wrapper: None,
                        };
                        candidates.push(new_stack(
                            dir.clone(),
                            None,
                            *tool,
                            options,
                            Origin::FoundRootModule(evidence.clone()),
                        ));
                    }
                }
                discovery.root_modules = verdicts;
            }
            Err(why) => discovery.root_modules_off = Some(why),
        }
    }

    apply_entries(
        config,
        &projects,
        &mut candidates,
        &mut problems,
        &entry_problem,
    );
    check_duplicate_ids(config, &candidates, &mut problems, &file);

    let ignore: Vec<(IdGlob, &crate::config::IgnoreRule)> = config
        .ignore
        .iter()
        .filter_map(|rule| IdGlob::new(&rule.glob).ok().map(|g| (g, rule)))
        .collect();
    let mut kept = Vec::new();
    for stack in candidates {
        match ignore
            .iter()
            .find(|(glob, _)| glob.matches(stack.id.as_str()))
        {
            Some((glob, rule)) => discovery.ignored.push(IgnoredStack {
                id: stack.id.clone(),
                tool: stack.tool,
                glob: glob.as_str().to_owned(),
                reason: rule.reason.clone(),
            }),
            None => kept.push(stack),
        }
    }
    let all_ids: Vec<&str> = kept
        .iter()
        .map(|s| s.id.as_str())
        .chain(discovery.ignored.iter().map(|s| s.id.as_str()))
        .collect();
    for (glob, rule) in &ignore {
        if !all_ids.iter().any(|id| glob.matches(id)) {
            let wider = format!("{}:*", rule.glob);
            let suggestion = IdGlob::new(&wider)
                .ok()
                .filter(|g| all_ids.iter().any(|id| g.matches(id)))
                .map(|_| wider);
            discovery.idle_ignores.push(IdleIgnore {
                glob: rule.glob.clone(),
                position: rule.position,
                suggestion,
            });
        }
    }

    kept.sort_by(|a, b| a.id.cmp(&b.id));
    discovery.ignored.sort_by(|a, b| a.id.cmp(&b.id));
    discovery.unresolved_references = references::resolve(&mut kept, &programs);
    dependencies::check(config, &kept, &discovery.ignored, &mut problems, &file);
    discovery.stacks = kept;

    if problems.is_empty() {
        Ok(discovery)
    } else {
        problems.sort_by(|a, b| (&a.file, a.position).cmp(&(&b.file, b.position)));
        problems.dedup();
        Err(problems)
    }
}

fn new_stack(
    path: String,
    name: Option<String>,
    tool: Tool,
    options: ToolOptions,
    origin: Origin,
) -> Stack {
    Stack {
        id: StackId::derive(&path, name.as_deref()),
        path,
        name,
        tool,
        options,
        origin,
        settings: StackSettings::default(),
    }
}

/// Applies every entry to the stacks it covers: unnamed entries first, then named ones,
/// so a named entry wins key by key; `inputs` and `dependsOn` add up.
fn apply_entries(
    config: &Config,
    projects: &BTreeMap<String, pulumi::ProjectFile>,
    stacks: &mut [Stack],
    problems: &mut Vec<ConfigProblem>,
    entry_problem: &impl Fn(&StackEntry, Option<&str>, String) -> ConfigProblem,
) {
    for stack in stacks.iter_mut() {
        stack.settings.tick_rule = config.tick_rule.clone();
        stack.settings.drift = config.settings.drift.enabled;
        stack.settings.value_fingerprint = config.settings.value_fingerprint;
        stack.settings.deploy_windows = config.deploy_windows.clone();
        stack.settings.policies = config.policies.clone();
        stack.settings.cost = CostSetting {
            enabled: config.settings.cost.enabled,
            threshold: config.settings.cost.threshold.and_then(Amount::from_f64),
        };
    }
    // A declaring entry covers only the stack it declares; any other entry covers every
    // stack in its directory, or the one with its name.
    let covers = |entry: &StackEntry, stack: &Stack| match entry.declaration {
        Some(_) => stack.origin == Origin::Declared(entry.index),
        None => entry.path == stack.path && (entry.name.is_none() || entry.name == stack.name),
    };
    let mut ordered: Vec<&StackEntry> = config.entries.iter().collect();
    ordered.sort_by_key(|e| (e.name.is_some(), e.index));
    for entry in ordered {
        let covered: Vec<usize> = (0..stacks.len())
            .filter(|i| covers(entry, &stacks[*i]))
            .collect();
        if covered.is_empty() {
            if entry.declaration.is_none() {
                problems.push(entry_problem(
                    entry,
                    Some("path"),
                    format!("matches no stack: nothing at {} is found from files; add `tool:` to declare one", describe(entry)),
                ));
            }
            continue;
        }
        if entry.id.is_some() && covered.len() != 1 {
            problems.push(entry_problem(
                entry,
                Some("id"),
                format!(
                    "`id` names exactly one stack, but this entry covers {}; add `name:`",
                    covered.len()
                ),
            ));
        }
        for i in covered {
            let stack = &mut stacks[i];
            let settings = &mut stack.settings;
            if let Some(environment) = &entry.environment {
                settings.environment = environment.clone();
            }
            if let Some(rule) = &entry.tick_rule {
                settings.tick_rule = rule.clone();
            }
            if let Some(drift) = entry.drift {
                settings.drift = drift;
            }
            if let Some(minutes) = entry.preview_timeout_minutes {
                settings.preview_timeout_minutes = Some(minutes);
            }
            if let Some(on) = entry.value_fingerprint {
                settings.value_fingerprint = on;
            }
            if let Some(on) = entry.create_in_backend {
                settings.create_in_backend = on;
            }
            if let Some(windows) = &entry.deploy_windows {
                settings.deploy_windows = windows.clone();
            }
            if let Some(deploy) = entry.deploy {
                settings.deploy = deploy;
            }
            if let Some(file) = &entry.env_file {
                settings.env_file = Some(file.clone());
            }
            settings.inputs.extend(entry.inputs.iter().cloned());
            settings.policies.extend(entry.policies.iter().cloned());
            if let Some(cost) = &entry.cost {
                if let Some(enabled) = cost.enabled {
                    settings.cost.enabled = enabled;
                }
                if let Some(threshold) = cost.threshold {
                    settings.cost.threshold = Some(threshold);
                }
                if cost.enabled == Some(true)
                    && !matches!(stack.tool, Tool::OpenTofu | Tool::Terraform)
                {
                    problems.push(entry_problem(
                        entry,
                        Some("cost"),
                        format!(
                            "cost estimates are made from OpenTofu and Terraform plans, and {} is a {} stack",
                            stack.id, stack.tool
                        ),
                    ));
                }
            }
            match &entry.depends_on {
                Some(EntryDependsOn::Auto) => {
                    if stack.tool != Tool::Pulumi {
                        problems.push(entry_problem(
                            entry,
                            Some("dependsOn"),
                            format!(
                                "`auto` reads Pulumi stack references, and {} is a {} stack",
                                stack.id, stack.tool
                            ),
                        ));
                    }
                    settings.depends_on_auto = true;
                }
                Some(EntryDependsOn::Ids(ids)) => settings
                    .depends_on
                    .extend(ids.iter().map(|id| StackId::given(id))),
                None => {}
            }
            match &entry.phase {
                Some(EntryPhase::Named(phase)) => settings.phase = Some(phase.clone()),
                Some(EntryPhase::FromProjectKey(_)) if stack.tool != Tool::Pulumi => {
                    problems.push(entry_problem(
                        entry,
                        Some("phase"),
                        format!(
                            "`phase: {{ from }}` reads a Pulumi project key, and {} is a {} stack",
                            stack.id, stack.tool
                        ),
                    ))
                }
                Some(EntryPhase::FromProjectKey(key)) => match phase_from_project(
                    projects.get(&stack.path),
                    key,
                    &stack.id,
                    &config.settings.phases,
                ) {
                    Ok(phase) => settings.phase = Some(phase),
                    Err(message) => problems.push(entry_problem(entry, Some("phase"), message)),
                },
                None => {}
            }
            if let Some(id) = &entry.id {
                stack.id = StackId::given(id);
            }
        }
    }
    for stack in stacks.iter_mut() {
        stack.settings.inputs.sort();
        stack.settings.inputs.dedup();
        stack.settings.depends_on.sort();
        stack.settings.depends_on.dedup();
    }
}

/// The phase `phase: { from: <key> }` names, read from the stack's project file. A
/// message never quotes what the key holds unless it is one of the `phases`: a project
/// key may hold anything.
fn phase_from_project(
    project: Option<&pulumi::ProjectFile>,
    key: &str,
    stack: &StackId,
    phases: &[String],
) -> Result<String, String> {
    let Some(project) = project else {
        return Err(format!(
            "{stack} has no Pulumi project file to read `{key}` from"
        ));
    };
    let file = &project.path;
    match project.key(key) {
        ProjectKey::Text(phase) if phases.contains(&phase) => Ok(phase),
        ProjectKey::Text(_) => Err(format!(
            "the key `{key}` of {file} does not hold one of the `phases`, so {stack} has no phase"
        )),
        ProjectKey::Secret => Err(format!(
            "the key `{key}` of {file} is secret, and a phase is never read from a secret"
        )),
        ProjectKey::NotText => Err(format!(
            "the key `{key}` of {file} is not text (nor a `value` or `default` that is)"
        )),
        ProjectKey::Missing => Err(format!(
            "{file} has no key `{key}`, under `config` or at the top level, to read the phase of {stack} from"
        )),
    }
}

fn describe(entry: &StackEntry) -> String {
    match &entry.name {
        Some(name) => format!("{} with the name {name}", entry.path),
        None => entry.path.clone(),
    }
}

fn check_duplicate_ids(
    config: &Config,
    stacks: &[Stack],
    problems: &mut Vec<ConfigProblem>,
    file: &str,
) {
    let mut seen: BTreeMap<&StackId, &Stack> = BTreeMap::new();
    for stack in stacks {
        if let Some(first) = seen.get(&stack.id) {
            // Point at the entry that gave the second id, when an entry did.
            let entry = config.entries.iter().find(|e| match &stack.origin {
                Origin::Declared(index) => e.index == *index,
                _ => e.id.as_deref() == Some(stack.id.as_str()),
            });
            let stacks_key = KeyPath::default().key("stacks");
            problems.push(ConfigProblem {
                file: file.to_owned(),
                position: entry.map_or(Position { line: 1, column: 1 }, |e| e.position),
                key: entry.map_or(stacks_key.clone(), |e| stacks_key.index(e.index)),
                message: format!(
                    "two stacks have the id {}: a {} stack ({}) and a {} stack ({}); give one an `id` or a `name`",
                    stack.id,
                    first.tool,
                    origin_words(&first.origin),
                    stack.tool,
                    origin_words(&stack.origin)
                ),
            });
        } else {
            seen.insert(&stack.id, stack);
        }
    }
}

pub(crate) fn origin_words(origin: &Origin) -> String {
    match origin {
        Origin::PulumiStackFile(file) => format!("from {file}"),
        Origin::FoundRootModule(evidence) => format!("found: {evidence}"),
        Origin::Declared(index) => format!("declared by stacks[{index}]"),
    }
}

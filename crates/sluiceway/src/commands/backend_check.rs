//! `sluiceway check --backend` (decision 0074): each Pulumi project's backend is asked
//! once which stacks it holds (`pulumi stack ls`, read-only), so a stack whose file is in
//! the repository and whose backend lacks it is found before its first scan fails. The
//! tool's words go to the log; the report names stacks and fixed reasons only.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;
use sluiceway_core::config::Config;
use sluiceway_core::discovery::Discovery;
use sluiceway_tools::adapter::{Adapter, Context};

/// What the backends said, in the check's `--json` document.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BackendJson {
    pub stacks: Vec<InBackendJson>,
    /// Project directories whose backend could not be asked.
    pub unasked: Vec<UnaskedJson>,
    /// A paste-ready `ignore` block leaving out the stacks their backends lack, when any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ignore_block: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InBackendJson {
    pub id: String,
    /// `yes`, `no`, or `created by the first scan` (its entry sets createInBackend).
    pub held: &'static str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UnaskedJson {
    pub dir: String,
    pub reason: String,
}

/// Asks every Pulumi project's backend once; `log` gets the tool's words.
pub fn ask(
    config: &Config,
    discovery: &Discovery,
    root: &Path,
    ctx: &Context<'_>,
    log: &mut Vec<String>,
) -> BackendJson {
    let mut answers: BTreeMap<String, Result<Vec<String>, String>> = BTreeMap::new();
    let mut stacks = Vec::new();
    let mut missing = Vec::new();
    for stack in &discovery.stacks {
        let Ok(adapter) = Adapter::for_stack(stack, root) else {
            continue;
        };
        let answer = answers.entry(stack.path.clone()).or_insert_with(|| {
            match adapter.list_in_backend(ctx) {
                Some(step) => {
                    log.extend(step.log.job_log_lines().iter().cloned());
                    step.result.map_err(|f| f.reason.to_string())
                }
                None => Err(String::new()),
            }
        });
        let (Ok(names), Some(name)) = (&*answer, &stack.name) else {
            continue;
        };
        let held = if names.contains(name) {
            "yes"
        } else if stack.settings.create_in_backend {
            "created by the first scan"
        } else {
            missing.push(stack.id.to_string());
            "no"
        };
        stacks.push(InBackendJson {
            id: stack.id.to_string(),
            held,
        });
    }
    let unasked = answers
        .into_iter()
        .filter_map(|(dir, answer)| match answer {
            Err(reason) if !reason.is_empty() => Some(UnaskedJson { dir, reason }),
            _ => None,
        })
        .collect();
    let existing: Vec<String> = config.ignore.iter().map(|r| r.glob.clone()).collect();
    BackendJson {
        stacks,
        unasked,
        ignore_block: (!missing.is_empty()).then(|| ignore_block(&existing, &missing)),
    }
}

/// The `ignore` list as it would read with the missing stacks' ids added: the existing
/// globs first, then each id as a glob of its own (an id holds no glob character).
pub fn ignore_block(existing: &[String], missing: &[String]) -> String {
    let mut block = String::from("ignore:\n");
    for glob in existing.iter().chain(missing) {
        let _ = writeln!(block, "  - {}", serde_json::Value::String(glob.clone()));
    }
    block
}

/// The report's lines for the backends.
pub fn text(backend: &BackendJson) -> String {
    let mut out = String::from("\nIn their backends (asked with --backend):\n");
    for stack in &backend.stacks {
        let _ = writeln!(out, "  {} · {}", stack.id, stack.held);
    }
    for dir in &backend.unasked {
        let _ = writeln!(
            out,
            "  {}: the backend could not be asked: {}",
            dir.dir, dir.reason
        );
    }
    if let Some(block) = &backend.ignore_block {
        out.push_str(
            "\nwarning: some stacks are not in their backends, so their first preview fails. Create them, set createInBackend on their entries, or leave them out until they exist:\n\n",
        );
        out.push_str(block);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_block_keeps_what_is_there_and_adds_each_missing_id() {
        assert_eq!(
            ignore_block(
                &["playground:*".into()],
                &["network:prod".into(), "app:dev".into()]
            ),
            "ignore:\n  - \"playground:*\"\n  - \"network:prod\"\n  - \"app:dev\"\n"
        );
    }
}

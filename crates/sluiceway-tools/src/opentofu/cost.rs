//! What a root module's change costs (decision 0105): `infracost diff` over the plan that
//! `show -json` printed, in the plan's private directory, read for the currency and the
//! monthly change alone. Infracost answers with zeros and exit 0 when it could price
//! nothing (no key, no network), so a project it marks as an error, or with errors, is
//! no estimate at all. Nothing here ever fails a preview.

use std::path::Path;

use serde_json::Value;
use sluiceway_core::cost::Amount;
use sluiceway_core::runner::Outcome;

use crate::tool_log::ToolLog;
use crate::tool_run::Context;

/// The plan's JSON, beside the saved plan, as the estimate reads it.
pub const PLAN_JSON: &str = "plan.json";

/// What Infracost is told so it neither asks for updates nor sends anything to its cloud.
const QUIET: [(&str, &str); 2] = [
    ("INFRACOST_SKIP_UPDATE_CHECK", "true"),
    ("INFRACOST_ENABLE_CLOUD", "false"),
];

/// A change's monthly cost: positive when it costs more.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Estimate {
    /// `USD`, `EUR`: letters only.
    pub currency: String,
    pub monthly: Amount,
}

/// Why there is no estimate, in Sluiceway's words; the tool's own are in the job log.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NotEstimated {
    #[error("infracost could not be started")]
    Missing,
    #[error("infracost failed")]
    Failed,
    #[error("infracost did not finish in time")]
    TimedOut,
    #[error("infracost's answer could not be read")]
    Unreadable,
    #[error("infracost could not price the plan")]
    Unpriced,
}

/// Reads `infracost diff --format json`: the currency, the monthly change, and whether
/// any project could not be priced.
pub fn read(stdout: &[u8]) -> Result<Estimate, NotEstimated> {
    let answer: Value = serde_json::from_slice(stdout).map_err(|_| NotEstimated::Unreadable)?;
    let projects = answer
        .get("projects")
        .and_then(Value::as_array)
        .ok_or(NotEstimated::Unreadable)?;
    let unpriced = projects.is_empty()
        || projects.iter().any(|p| {
            let metadata = &p["metadata"];
            metadata["type"] == "error"
                || metadata["errors"]
                    .as_array()
                    .is_some_and(|errors| !errors.is_empty())
        });
    if unpriced {
        return Err(NotEstimated::Unpriced);
    }
    let currency = answer
        .get("currency")
        .and_then(Value::as_str)
        .filter(|c| (1..=8).contains(&c.len()) && c.bytes().all(|b| b.is_ascii_alphabetic()))
        .ok_or(NotEstimated::Unreadable)?;
    let monthly = match answer.get("diffTotalMonthlyCost") {
        Some(Value::String(text)) => Amount::parse(text),
        Some(Value::Null) | None => Some(Amount::ZERO),
        _ => None,
    }
    .ok_or(NotEstimated::Unreadable)?;
    Ok(Estimate {
        currency: currency.to_owned(),
        monthly,
    })
}

/// Runs the estimate over `plan.json` in `plan_dir`, with the job's environment (its
/// pricing key, the stack's env file) and the preview limit; the workspace does not
/// matter to a plan already made. What Infracost prints on stderr goes to the job log.
pub(super) fn estimate(
    plan_dir: &Path,
    ctx: &Context<'_>,
    log: &mut ToolLog,
) -> Result<Estimate, NotEstimated> {
    let argv = [
        "infracost",
        "diff",
        "--path",
        PLAN_JSON,
        "--format",
        "json",
        "--no-color",
    ]
    .map(str::to_owned)
    .to_vec();
    match ctx.invoke(argv, plan_dir, &QUIET, Some(ctx.time_limit)) {
        Outcome::Exited {
            code: Some(0),
            stdout,
            stderr,
            ..
        } => {
            log.push_output(&stderr);
            read(&stdout)
        }
        Outcome::Exited { stderr, .. } => {
            log.push_output(&stderr);
            Err(NotEstimated::Failed)
        }
        Outcome::TimedOut { stderr, .. } => {
            log.push_output(&stderr);
            Err(NotEstimated::TimedOut)
        }
        Outcome::NotStarted { why } => {
            log.note(format!("infracost could not be started: {why}"));
            Err(NotEstimated::Missing)
        }
    }
}

//! The one comment a resolve writes on the dashboard for the ticks it could not act on
//! (decision 0018): the person is mentioned, the stack named, the rule stated, in row
//! order. Plain words and no personality: it is read by someone whose deploy did not
//! happen. A tick by an account GitHub no longer knows is not mentioned: there is
//! nobody to tell.

use sluiceway_core::config::PermissionLevel;
use sluiceway_core::stack::{StackId, TickRule};

use crate::escape;

/// A tick that deployed nothing, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unmet {
    pub ticker: String,
    pub stack: StackId,
    pub why: Why,
    /// Ticked through a section's confirm box rather than on its own row (decision 0083).
    pub through: Option<crate::view::BulkSection>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Why {
    NoWriteAccess,
    RuleNotMet(TickRule),
    /// GitHub did not say whether the person may tick.
    Unverified,
}

/// How many logins a rule's list shows before it points to the file.
const LISTED: usize = 10;

/// The comment, or `None` when every tick was acted on.
pub fn refusals(unmet: &[Unmet]) -> Option<String> {
    let lines: Vec<String> = unmet.iter().map(line).collect();
    (!lines.is_empty()).then(|| lines.join("\n\n"))
}

fn line(unmet: &Unmet) -> String {
    let through = match unmet.through {
        Some(crate::view::BulkSection::Pending) => " through the confirm box of the pending stacks",
        Some(crate::view::BulkSection::Drift) => " through the confirm box of the drifted stacks",
        None => "",
    };
    let who = format!(
        "@{} ticked **{}**{through}",
        unmet.ticker,
        escape::text(unmet.stack.as_str())
    );
    match &unmet.why {
        Why::NoWriteAccess => {
            format!(
                "{who}, but a tick needs write access to this repository, so nothing was deployed."
            )
        }
        Why::RuleNotMet(rule) => {
            format!(
                "{who}, but {} may tick it, so nothing was deployed.",
                who_may(rule)
            )
        }
        Why::Unverified => format!(
            "{who}, and GitHub did not say whether they may deploy it, so nothing was deployed. Tick it again to try once more."
        ),
    }
}

fn who_may(rule: &TickRule) -> String {
    match rule {
        TickRule::AtLeast(PermissionLevel::Write) => "only people with write access".into(),
        TickRule::AtLeast(PermissionLevel::Maintain) => {
            "only people with maintain access or more".into()
        }
        TickRule::AtLeast(PermissionLevel::Admin) => "only admins of this repository".into(),
        TickRule::Logins(logins) => {
            let shown: Vec<String> = logins
                .iter()
                .take(LISTED)
                .map(|l| escape::text(l))
                .collect();
            let rest = logins.len().saturating_sub(LISTED);
            let names = match (shown.as_slice(), rest) {
                ([only], 0) => only.clone(),
                ([init @ .., last], 0) => format!("{} and {last}", init.join(", ")),
                (shown, rest) => format!("{} and {rest} more in sluiceway.yaml", shown.join(", ")),
            };
            format!("only {names}")
        }
    }
}

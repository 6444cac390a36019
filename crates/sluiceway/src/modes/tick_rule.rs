//! Whether the person who ticked may ask for this deploy, checked live (decision 0018):
//! write access first, then the stack's tick rule, which only narrows. Nothing is
//! cached beyond the run, and a permission GitHub will not tell leaves the tick
//! unverified: it fails closed.

use std::collections::HashMap;

use sluiceway_core::stack::{Access, RuleRefusal, TickRule};
use sluiceway_github::{Actor, ActorKind, GitHub, Permission};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Allowed,
    Refused(Refusal),
    /// GitHub did not answer the permission question (after the client's one retry).
    Unverified,
    /// A bot, `ghost`, a deleted account or an organization: no lookup, no comment.
    NotAPerson,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The person cannot write to the repository.
    NoWriteAccess,
    /// The person can write, but the stack's rule asks for more.
    RuleNotMet,
    /// GitHub says the account is not a user any more.
    AccountGone,
}

/// Permission lookups of one run: each person is asked about once.
pub struct TickCheck<'a> {
    github: &'a dyn GitHub,
    seen: HashMap<String, Lookup>,
}

/// What GitHub said about one person.
enum Lookup {
    Known(Permission),
    /// `<login> is not a user`.
    Gone,
    /// Any other failure: GitHub did not say.
    Silent,
}

impl<'a> TickCheck<'a> {
    pub fn new(github: &'a dyn GitHub) -> Self {
        TickCheck {
            github,
            seen: HashMap::new(),
        }
    }

    pub fn judge(&mut self, ticker: Option<&Actor>, rule: &TickRule) -> Verdict {
        let Some(person) = ticker.filter(|a| is_person(a)) else {
            return Verdict::NotAPerson;
        };
        let github = self.github;
        let lookup = self
            .seen
            .entry(person.login.to_ascii_lowercase())
            .or_insert_with(|| match github.permission(&person.login) {
                Ok(permission) => Lookup::Known(permission),
                Err(error)
                    if error.status() == Some(404)
                        && error
                            .message()
                            .is_some_and(|m| m.ends_with("is not a user")) =>
                {
                    Lookup::Gone
                }
                Err(_) => Lookup::Silent,
            });
        match lookup {
            Lookup::Gone => Verdict::Refused(Refusal::AccountGone),
            Lookup::Silent => Verdict::Unverified,
            Lookup::Known(permission) => match rule.admits(&Access {
                login: permission.login.clone(),
                push: permission.push,
                maintain: permission.maintain,
                admin: permission.admin,
            }) {
                Ok(()) => Verdict::Allowed,
                Err(RuleRefusal::NoWriteAccess) => Verdict::Refused(Refusal::NoWriteAccess),
                Err(RuleRefusal::RuleNotMet) => Verdict::Refused(Refusal::RuleNotMet),
            },
        }
    }
}

/// A person is a `User` with a login that is not GitHub's `ghost`.
fn is_person(actor: &Actor) -> bool {
    actor.kind == ActorKind::User
        && !actor.login.is_empty()
        && !actor.login.eq_ignore_ascii_case("ghost")
}

//! Whether a token's person still belongs to the token's org, asked of GitHub as the
//! app (the Members permission) and remembered for a minute: a person who leaves an org
//! stops reading within a minute, and a burst of requests asks GitHub once.

use std::collections::HashMap;
use std::sync::Mutex;

use jiff::{Timestamp, ToSpan};

use super::ApiError;
use crate::Console;
use crate::github_app::AppError;
use crate::store::KeptToken;

/// How long an answer from GitHub stands.
const REMEMBERED_SECONDS: i64 = 60;

/// Answers kept per org and person (GitHub's logins ignore case).
#[derive(Default)]
pub struct Members {
    kept: Mutex<HashMap<(String, String), (bool, Timestamp)>>,
}

impl Members {
    /// Forgets every answer about `org`'s people.
    pub fn forget(&self, org: &str) {
        let org = org.to_ascii_lowercase();
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.retain(|(kept_org, _), _| *kept_org != org);
    }

    fn remembered(&self, org: &str, login: &str, now: Timestamp) -> Option<bool> {
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.get(&key(org, login))
            .filter(|(_, asked)| now < *asked + REMEMBERED_SECONDS.seconds())
            .map(|(member, _)| *member)
    }

    fn remember(&self, org: &str, login: &str, member: bool, now: Timestamp) {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.retain(|_, (_, asked)| now < *asked + REMEMBERED_SECONDS.seconds());
        kept.insert(key(org, login), (member, now));
    }
}

fn key(org: &str, login: &str) -> (String, String) {
    (org.to_ascii_lowercase(), login.to_ascii_lowercase())
}

/// Refuses a token whose person no longer belongs to its org.
pub(super) async fn still_a_member(console: &Console, token: &KeptToken) -> Result<(), ApiError> {
    member_now(console, &token.org, &token.login).await
}

/// Refuses `login` when they no longer belong to `org` (`not-a-member`), when the app
/// left the org (`org-gone`), or when GitHub does not say (`github-silent`). An org the
/// console keeps nothing of has nothing to show, and is not asked about. The pages ask
/// the same question of a session's person.
pub(crate) async fn member_now(console: &Console, org: &str, login: &str) -> Result<(), ApiError> {
    let now = (console.clock)();
    let answer = match console.members.remembered(org, login, now) {
        Some(member) => member,
        None => {
            let Some((kept_org, repo)) = console
                .store
                .orgs_with_a_repo()
                .await?
                .into_iter()
                .find(|(kept, _)| kept.eq_ignore_ascii_case(org))
            else {
                return Ok(());
            };
            let (app, asked_login) = (console.app.clone(), login.to_owned());
            let asked = tokio::task::spawn_blocking(move || {
                app.is_member(&kept_org, &repo, &asked_login, now)
            })
            .await
            .map_err(|_| ApiError::GitHubSilent)?;
            let member = match asked {
                Ok(member) => member,
                Err(AppError::NotInstalled(_)) => return Err(ApiError::OrgGone),
                Err(_) => return Err(ApiError::GitHubSilent),
            };
            console.members.remember(org, login, member, now);
            member
        }
    };
    if answer {
        Ok(())
    } else {
        Err(ApiError::NotAMember)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_stands_for_a_minute_whatever_the_case_of_the_names() {
        let members = Members::default();
        let at: Timestamp = "2026-12-07T12:00:00Z".parse().unwrap();
        assert_eq!(members.remembered("octo", "alice", at), None);
        members.remember("Octo", "Alice", false, at);
        assert_eq!(
            members.remembered("octo", "alice", at + 59.seconds()),
            Some(false)
        );
        assert_eq!(members.remembered("octo", "alice", at + 60.seconds()), None);
        assert_eq!(members.remembered("octo", "bob", at), None);
    }
}

//! The console as a GitHub App. It signs a short JSON Web Token with the app's key, buys
//! an installation token for the account a repository belongs to, and speaks to GitHub
//! through the action's own port with it, so the console and the action ask GitHub
//! alike. A token bought is kept until five minutes before it ends; the console never
//! holds a person's token, and never a cloud credential.
//!
//! Everything here blocks: the console calls it on a blocking thread.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use jiff::{Timestamp, ToSpan};
use jsonwebtoken::{Algorithm, Header};
use serde::{Deserialize, Serialize};
use sluiceway_github::{Endpoints, HttpGitHub};

use crate::settings::AppIdentity;

/// How long before a bought token ends the console buys a new one.
const RENEW_BEFORE_MINUTES: i64 = 5;

/// A GitHub App's token lives at most ten minutes; the console's live nine, and start a
/// minute back, for a GitHub whose clock runs behind.
const JWT_LIFE_SECONDS: i64 = 540;
const JWT_BACKDATE_SECONDS: i64 = 60;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AppError {
    #[error("the app's token could not be signed")]
    Sign,
    #[error("GitHub did not answer")]
    Unreachable,
    #[error("the app is not installed on {0}")]
    NotInstalled(String),
    #[error("GitHub answered the app with status {0}")]
    Status(u16),
    #[error("GitHub's answer to the app could not be read")]
    Unreadable,
}

/// The app: who it is, where GitHub is, and the installation tokens it holds.
pub struct GitHubApp {
    identity: AppIdentity,
    github: Endpoints,
    bought: Mutex<HashMap<String, Bought>>,
}

/// An installation token, the account it is for and the app's slug.
#[derive(Clone)]
struct Bought {
    token: String,
    expires_at: Timestamp,
    slug: String,
}

/// A repository an installation reaches: its name and its page on GitHub.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct InstalledRepo {
    pub name: String,
    pub html_url: String,
}

/// A repository as the app reaches it: the action's port, speaking as the app's bot.
pub struct Installed {
    pub github: HttpGitHub,
    /// `<slug>[bot]`: the login the app's records and dispatches are made by, which a
    /// repository's `recordWriters` must name for a tick from the console to deploy.
    pub bot: String,
}

#[derive(Serialize)]
struct Claims {
    iat: i64,
    exp: i64,
    iss: u64,
}

#[derive(Deserialize)]
struct InstallationAnswer {
    id: u64,
    app_slug: String,
}

#[derive(Deserialize)]
struct TokenAnswer {
    token: String,
    expires_at: Timestamp,
}

impl GitHubApp {
    pub fn new(identity: AppIdentity, github: Endpoints) -> GitHubApp {
        GitHubApp {
            identity,
            github,
            bought: Mutex::default(),
        }
    }

    /// The app's own token, good for nine minutes from `now`.
    fn jwt(&self, now: Timestamp) -> Result<String, AppError> {
        let now = now.as_second();
        let claims = Claims {
            iat: now - JWT_BACKDATE_SECONDS,
            exp: now + JWT_LIFE_SECONDS,
            iss: self.identity.id,
        };
        jsonwebtoken::encode(&Header::new(Algorithm::RS256), &claims, &self.identity.key)
            .map_err(|_| AppError::Sign)
    }

    /// The repository `org/name`, reached with a token of the app's installation on
    /// `org`, bought now or kept from before.
    pub fn repo(&self, org: &str, name: &str, now: Timestamp) -> Result<Installed, AppError> {
        let bought = self.bought(org, name, now)?;
        Ok(Installed {
            github: HttpGitHub::new(self.github.clone(), &bought.token, &format!("{org}/{name}")),
            bot: format!("{}[bot]", bought.slug),
        })
    }

    /// Whether `login` belongs to `org` on GitHub now (`repo`, one of the org's, finds
    /// the installation). A person's own account is theirs.
    pub fn is_member(
        &self,
        org: &str,
        repo: &str,
        login: &str,
        now: Timestamp,
    ) -> Result<bool, AppError> {
        if org.eq_ignore_ascii_case(login) {
            return Ok(true);
        }
        let bought = self.bought(org, repo, now)?;
        let base = self.github.rest.as_str().trim_end_matches('/');
        let answer = client()?
            .get(format!("{base}/orgs/{org}/members/{login}"))
            .bearer_auth(&bought.token)
            .header(reqwest::header::ACCEPT, "application/vnd.github+json")
            .header(reqwest::header::USER_AGENT, "sluiceway-console")
            .header("X-GitHub-Api-Version", "2022-11-28")
            .send()
            .map_err(|_| AppError::Unreachable)?;
        match answer.status().as_u16() {
            204 => Ok(true),
            // 302 sends a requester who is no member to the public list: no answer here.
            404 | 302 => Ok(false),
            status => Err(AppError::Status(status)),
        }
    }

    /// The repositories the app's installation on `org` may reach (`repo`, one of the
    /// org's, finds the installation), by name and address: GitHub's
    /// `GET /installation/repositories`, a hundred a page.
    pub fn installed_repos(
        &self,
        org: &str,
        repo: &str,
        now: Timestamp,
    ) -> Result<Vec<InstalledRepo>, AppError> {
        #[derive(serde::Deserialize)]
        struct Page {
            total_count: usize,
            repositories: Vec<InstalledRepo>,
        }
        let bought = self.bought(org, repo, now)?;
        let base = self.github.rest.as_str().trim_end_matches('/');
        let mut found = Vec::new();
        for page in 1.. {
            let answer = client()?
                .get(format!(
                    "{base}/installation/repositories?per_page=100&page={page}"
                ))
                .bearer_auth(&bought.token)
                .header(reqwest::header::ACCEPT, "application/vnd.github+json")
                .header(reqwest::header::USER_AGENT, "sluiceway-console")
                .header("X-GitHub-Api-Version", "2022-11-28")
                .send()
                .map_err(|_| AppError::Unreachable)?;
            if !answer.status().is_success() {
                return Err(AppError::Status(answer.status().as_u16()));
            }
            let read: Page = answer.json().map_err(|_| AppError::Unreachable)?;
            let ended = read.repositories.is_empty();
            found.extend(read.repositories);
            if ended || found.len() >= read.total_count {
                break;
            }
        }
        Ok(found)
    }

    /// Drops the installation token kept for `org`, once the app has left it.
    pub fn forget(&self, org: &str) {
        self.bought
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&org.to_ascii_lowercase());
    }

    /// A token of the app's installation on `org`, kept or bought now.
    fn bought(&self, org: &str, name: &str, now: Timestamp) -> Result<Bought, AppError> {
        let key = org.to_ascii_lowercase();
        let kept = self
            .bought
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
            .filter(|b| b.expires_at > now + RENEW_BEFORE_MINUTES.minutes())
            .cloned();
        Ok(match kept {
            Some(bought) => bought,
            None => {
                let bought = self.buy(org, name, now)?;
                self.bought
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(key, bought.clone());
                bought
            }
        })
    }

    /// Finds the app's installation through the repository and buys a token for it.
    fn buy(&self, org: &str, name: &str, now: Timestamp) -> Result<Bought, AppError> {
        let jwt = self.jwt(now)?;
        let client = client()?;
        let base = self.github.rest.as_str().trim_end_matches('/');
        let ask = |request: reqwest::blocking::RequestBuilder| {
            request
                .bearer_auth(&jwt)
                .header(reqwest::header::ACCEPT, "application/vnd.github+json")
                .header(reqwest::header::USER_AGENT, "sluiceway-console")
                .header("X-GitHub-Api-Version", "2022-11-28")
                .send()
                .map_err(|_| AppError::Unreachable)
        };
        let found = ask(client.get(format!("{base}/repos/{org}/{name}/installation")))?;
        match found.status().as_u16() {
            200 => {}
            404 => return Err(AppError::NotInstalled(org.to_owned())),
            status => return Err(AppError::Status(status)),
        }
        let installation: InstallationAnswer = found.json().map_err(|_| AppError::Unreadable)?;
        let made = ask(client.post(format!(
            "{base}/app/installations/{}/access_tokens",
            installation.id
        )))?;
        if made.status().as_u16() != 201 {
            return Err(AppError::Status(made.status().as_u16()));
        }
        let token: TokenAnswer = made.json().map_err(|_| AppError::Unreadable)?;
        Ok(Bought {
            token: token.token,
            expires_at: token.expires_at,
            slug: installation.app_slug,
        })
    }
}

/// A client for GitHub that follows no redirect.
fn client() -> Result<reqwest::blocking::Client, AppError> {
    reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(30))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|_| AppError::Unreachable)
}

//! The port over HTTP: REST for most calls, GraphQL where only GraphQL answers (edit
//! history, pinning, the deployment page, pull-request rollups, the commit walk).

mod action;
pub mod documents;
mod endpoints;
mod graphql;
mod rest;
mod shapes;
mod transport;

pub use action::SetupError;
pub use endpoints::{Endpoints, EndpointsError};
pub use transport::{Pauses, Sleeper, SystemSleeper};

use std::sync::Arc;

use transport::Transport;

/// The HTTP client for one repository. Its `Debug` never shows the token.
#[derive(Debug)]
pub struct HttpGitHub {
    transport: Transport,
    repo: String,
}

impl HttpGitHub {
    /// `repo` is `owner/name`, as `GITHUB_REPOSITORY` gives it.
    pub fn new(endpoints: Endpoints, token: &str, repo: &str) -> Self {
        Self::with_pauses(
            endpoints,
            token,
            repo,
            Pauses::default(),
            Arc::new(SystemSleeper),
        )
    }

    /// As [`HttpGitHub::new`], with the waits and the sleeper given (tests count the
    /// waits instead of sleeping them).
    pub fn with_pauses(
        endpoints: Endpoints,
        token: &str,
        repo: &str,
        pauses: Pauses,
        sleeper: Arc<dyn Sleeper>,
    ) -> Self {
        HttpGitHub {
            transport: Transport::new(endpoints, token, pauses, sleeper),
            repo: repo.to_owned(),
        }
    }

    fn repo_path(&self, rest: &str) -> String {
        format!("/repos/{}{rest}", self.repo)
    }

    fn owner_and_name(&self) -> (&str, &str) {
        self.repo.split_once('/').unwrap_or((&self.repo, ""))
    }
}

//! The client as a GitHub Actions job sets it up: the addresses and the repository from
//! the runner's environment, the token from the action's `github-token` input.

use super::{Endpoints, EndpointsError, HttpGitHub};

/// The variable the runner gives the `github-token` input in.
const TOKEN_INPUT: &str = "INPUT_GITHUB-TOKEN";

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error(transparent)]
    Endpoints(#[from] EndpointsError),
    #[error("the github-token input is empty (the action's default is the workflow's own token)")]
    NoToken,
    #[error("GITHUB_REPOSITORY is not owner/name: {0:?}")]
    NoRepository(String),
}

impl HttpGitHub {
    /// Reads `GITHUB_API_URL`, `GITHUB_GRAPHQL_URL`, `GITHUB_REPOSITORY` and the
    /// `github-token` input through `var` (the binary passes the environment).
    pub fn from_action(var: impl Fn(&str) -> Option<String>) -> Result<Self, SetupError> {
        let endpoints = Endpoints::from_vars(&var)?;
        let token = var(TOKEN_INPUT)
            .filter(|t| !t.trim().is_empty())
            .ok_or(SetupError::NoToken)?;
        let repo = var("GITHUB_REPOSITORY").unwrap_or_default();
        match repo.split_once('/') {
            Some((owner, name)) if !owner.is_empty() && !name.is_empty() && !name.contains('/') => {
                Ok(HttpGitHub::new(endpoints, token.trim(), &repo))
            }
            _ => Err(SetupError::NoRepository(repo)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup(pairs: &[(&str, &str)]) -> Result<HttpGitHub, SetupError> {
        HttpGitHub::from_action(|name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        })
    }

    #[test]
    fn a_job_s_environment_sets_the_client_up() {
        let github = setup(&[
            ("GITHUB_REPOSITORY", "octo/infra"),
            ("INPUT_GITHUB-TOKEN", "ghs_secret_canary"),
            ("GITHUB_API_URL", "https://ghe.example.test/api/v3"),
        ])
        .unwrap();
        let shown = format!("{github:?}");
        assert!(shown.contains("path: \"/api/graphql\""), "{shown}");
        assert!(!shown.contains("ghs_secret_canary"), "{shown}");
    }

    #[test]
    fn an_empty_token_or_a_malformed_repository_is_named() {
        let no_token = setup(&[
            ("GITHUB_REPOSITORY", "octo/infra"),
            ("INPUT_GITHUB-TOKEN", " "),
        ]);
        assert_eq!(no_token.unwrap_err(), SetupError::NoToken);
        let no_repo = setup(&[("INPUT_GITHUB-TOKEN", "t"), ("GITHUB_REPOSITORY", "octo")]);
        assert_eq!(
            no_repo.unwrap_err().to_string(),
            "GITHUB_REPOSITORY is not owner/name: \"octo\""
        );
        let bad_url = setup(&[
            ("INPUT_GITHUB-TOKEN", "t"),
            ("GITHUB_REPOSITORY", "o/r"),
            ("GITHUB_API_URL", "nope"),
        ]);
        assert!(matches!(bad_url.unwrap_err(), SetupError::Endpoints(_)));
    }
}

use crate::Call;

/// A call that did not get its answer. It names the call and the permission it needs;
/// the only words of GitHub's it carries are the message of its error body, never a
/// request, a header or the token.
#[derive(Debug, thiserror::Error)]
#[error("could not {call} (the token needs `{}`): {failure}", call.permission())]
pub struct GitHubError {
    pub call: Call,
    pub failure: Failure,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Failure {
    /// GitHub answered with an error status.
    #[error("GitHub answered {status}: {message}")]
    Status { status: u16, message: String },
    /// GitHub asked us to wait longer than the client's bound.
    #[error(
        "GitHub's rate limit asks for a wait of {wait_seconds} s, longer than the {bound_seconds} s Sluiceway waits"
    )]
    RateLimited {
        wait_seconds: u64,
        bound_seconds: u64,
    },
    /// The request never got an answer (connection refused, reset, timed out).
    #[error("GitHub could not be reached ({0})")]
    Transport(String),
    /// GitHub answered 2xx with a document we cannot read.
    #[error("GitHub's answer could not be read: {0}")]
    Unreadable(String),
    /// The GraphQL endpoint answered with errors.
    #[error("GitHub's GraphQL API answered {kind}: {message}")]
    GraphQl { kind: String, message: String },
}

impl GitHubError {
    pub(crate) fn new(call: &Call, failure: Failure) -> Self {
        GitHubError {
            call: call.clone(),
            failure,
        }
    }

    /// The HTTP status GitHub answered with, when it answered with one.
    pub fn status(&self) -> Option<u16> {
        match self.failure {
            Failure::Status { status, .. } => Some(status),
            _ => None,
        }
    }

    /// GitHub's own message, when it answered with an error body.
    pub fn message(&self) -> Option<&str> {
        match &self.failure {
            Failure::Status { message, .. } | Failure::GraphQl { message, .. } => Some(message),
            _ => None,
        }
    }
}

//! Every answer that is not a success: a status, one of the API's codes and one plain
//! sentence, fixed for each case (nothing of the request or the store is echoed).

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use schemars::JsonSchema;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiError {
    NoToken,
    TokenNotWorking,
    NotAMember,
    NotFound,
    RateLimited {
        retry_after: u64,
    },
    /// The store did not answer; the console says so rather than guess.
    Unavailable,
    /// GitHub did not answer a question the answer needs; nothing was asked of it.
    GitHubSilent,
    /// The console's app is not installed on the org any more.
    OrgGone,
    /// The stack has nothing waiting, or no preview page on its scanned commit.
    NoPreview,
    /// Its page is there but holds nothing to read.
    PreviewUnreadable,
    /// The person cannot write to the repository, which a pull request needs.
    NoWriteAccess,
}

impl ApiError {
    fn status(self) -> StatusCode {
        match self {
            ApiError::NoToken | ApiError::TokenNotWorking => StatusCode::UNAUTHORIZED,
            ApiError::NotAMember | ApiError::OrgGone | ApiError::NoWriteAccess => {
                StatusCode::FORBIDDEN
            }
            ApiError::NotFound | ApiError::NoPreview => StatusCode::NOT_FOUND,
            ApiError::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Unavailable | ApiError::GitHubSilent | ApiError::PreviewUnreadable => {
                StatusCode::SERVICE_UNAVAILABLE
            }
        }
    }

    fn code(self) -> Code {
        match self {
            ApiError::NoToken => Code::NoToken,
            ApiError::TokenNotWorking => Code::TokenNotWorking,
            ApiError::NotAMember => Code::NotAMember,
            ApiError::NotFound => Code::NotFound,
            ApiError::RateLimited { .. } => Code::RateLimited,
            ApiError::Unavailable | ApiError::GitHubSilent => Code::GithubSilent,
            ApiError::OrgGone => Code::OrgGone,
            ApiError::NoPreview => Code::NoPreview,
            ApiError::PreviewUnreadable => Code::PreviewUnreadable,
            ApiError::NoWriteAccess => Code::NoWriteAccess,
        }
    }

    fn sentence(self) -> &'static str {
        match self {
            ApiError::NoToken => {
                "Send a personal token as Authorization: Bearer sluiceway_…; a cookie never works here."
            }
            ApiError::TokenNotWorking => {
                "This token is not one the console knows, or it has expired or been revoked."
            }
            ApiError::NotAMember => "This token is for another org.",
            ApiError::NotFound => "There is nothing at this address for this token's org.",
            ApiError::RateLimited { .. } => {
                "Too many requests with this token in the last minute; try again after Retry-After seconds."
            }
            ApiError::Unavailable => "The console's database did not answer; try again shortly.",
            ApiError::GitHubSilent => {
                "GitHub did not answer the console, so nothing was asked; try again shortly."
            }
            ApiError::OrgGone => "The console's GitHub App is not installed on this org any more.",
            ApiError::NoPreview => {
                "This stack has nothing waiting, or no preview page on its scanned commit."
            }
            ApiError::PreviewUnreadable => {
                "The stack's preview page on GitHub holds nothing the console can read."
            }
            ApiError::NoWriteAccess => {
                "The token's person cannot write to this repository, which a pull request needs."
            }
        }
    }
}

/// The codes this console answers with, each one of the reference's.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Code {
    NoToken,
    TokenNotWorking,
    NotAMember,
    OrgGone,
    NotFound,
    RateLimited,
    /// The console could not answer from what it keeps; try again shortly.
    GithubSilent,
    NoPreview,
    PreviewUnreadable,
    NoWriteAccess,
}

/// Changes refused before GitHub was asked anything: a sentence for each.
#[derive(Serialize, JsonSchema)]
pub(crate) struct ChangesRefused {
    error: &'static str,
    code: RefusedCode,
    problems: Vec<String>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum RefusedCode {
    ChangesRefused,
}

impl ChangesRefused {
    pub(crate) fn new(problems: Vec<String>) -> ChangesRefused {
        ChangesRefused {
            error: "The changes were refused before GitHub was asked anything; problems says why.",
            code: RefusedCode::ChangesRefused,
            problems,
        }
    }
}

impl IntoResponse for ChangesRefused {
    fn into_response(self) -> Response {
        (StatusCode::BAD_REQUEST, Json(self)).into_response()
    }
}

/// Every answer that is not a success: one plain sentence and a code.
#[derive(Serialize, JsonSchema)]
pub(crate) struct ErrorBody {
    error: &'static str,
    code: Code,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (
            self.status(),
            Json(ErrorBody {
                error: self.sentence(),
                code: self.code(),
            }),
        )
            .into_response();
        if let ApiError::RateLimited { retry_after } = self {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(retry_after.max(1)));
        }
        response
    }
}

impl From<crate::store::StoreError> for ApiError {
    fn from(_: crate::store::StoreError) -> Self {
        ApiError::Unavailable
    }
}

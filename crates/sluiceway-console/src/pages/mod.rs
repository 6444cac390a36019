//! The pages people open (issue 42), drawn on the server from kept facts: one layout
//! for all of them, with a title, one `h1`, the reader's light or dark scheme, and every
//! name escaped (maud escapes whatever is not marked as HTML). A page needs a session and
//! membership of its org, asked of GitHub as the API asks it; what goes wrong is one of
//! a few fixed sentences, never an echo of the request.

mod audit;
mod kept;
mod org;
mod repo;
mod settings;
mod stack;

pub(crate) use kept::{KeptRepos, Reached};

use axum::Router;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use maud::{DOCTYPE, Markup, html};

use crate::Console;
use crate::api::{ApiError, member_now};
use crate::signin::{same_secret, signed_in};
use crate::store::{KeptRepo, KeptSession, StoreError};

pub(crate) fn routes() -> Router<Console> {
    Router::new()
        .route("/", get(org::home))
        .route("/{org}", get(org::org_view))
        .route("/{org}/-/audit", get(audit::audit_page))
        .route("/{org}/-/audit.csv", get(audit::audit_csv))
        .route("/{org}/{repo}", get(repo::repo_page))
        .route("/{org}/{repo}/rescan", post(repo::rescan_sent))
        .route(
            "/{org}/{repo}/settings",
            get(settings::settings_page).post(settings::settings_sent),
        )
        .route("/{org}/{repo}/settings/redraw", post(settings::redraw_sent))
        .route("/{org}/{repo}/stacks/{stack}", get(stack::stack_page))
        .route("/{org}/{repo}/tick", post(stack::tick_sent))
}

/// The pages' one stylesheet, in the page itself: nothing to fetch, nothing to build.
const STYLE: &str = include_str!("console.css");

/// A whole page: the layout around `body`, under `title` (also its one `h1`).
pub(crate) fn layout(title: &str, signed_in: Option<&str>, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="color-scheme" content="light dark";
                title { (title) " · Sluiceway console" }
                style { (maud::PreEscaped(STYLE)) }
            }
            body {
                header {
                    nav aria-label="Console" {
                        a href="/" { "Sluiceway console" }
                        @if let Some(login) = signed_in {
                            a href="/tokens" { "Personal tokens" }
                            span.muted { "Signed in as " (login) }
                        }
                    }
                }
                main {
                    h1 { (title) }
                    (body)
                }
            }
        }
    }
}

/// A page answered with `status`.
pub(crate) fn respond(status: StatusCode, page: Markup) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        page.into_string(),
    )
        .into_response()
}

/// Why a page is not shown, each a fixed sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PageError {
    /// No live session: the person is sent to sign in.
    NotSignedIn,
    NotAMember,
    OrgGone,
    NotFound,
    /// A form without the session's form token: nothing was done.
    Forged,
    /// A query parameter the page does not know the value of; its name.
    BadQuery(&'static str),
    GitHubSilent,
    Unavailable,
}

impl PageError {
    fn status(self) -> StatusCode {
        match self {
            PageError::NotSignedIn => StatusCode::SEE_OTHER,
            PageError::NotAMember | PageError::OrgGone | PageError::Forged => StatusCode::FORBIDDEN,
            PageError::NotFound => StatusCode::NOT_FOUND,
            PageError::BadQuery(_) => StatusCode::BAD_REQUEST,
            PageError::GitHubSilent | PageError::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        }
    }

    fn words(self) -> (&'static str, String) {
        match self {
            PageError::NotSignedIn => ("Sign in", "Sign in to see this page.".into()),
            PageError::NotAMember => (
                "Not a member",
                "GitHub does not list you as a member of this org, so its stacks are not shown."
                    .into(),
            ),
            PageError::OrgGone => (
                "Not installed",
                "The console's GitHub App is not installed on this org any more.".into(),
            ),
            PageError::NotFound => ("Not found", "There is nothing at this address.".into()),
            PageError::Forged => (
                "Not sent from this console",
                "The form did not come from this console's own page; nothing was done.".into(),
            ),
            PageError::BadQuery(name) => (
                "Not a page",
                format!("The address's {name} is not one this page knows."),
            ),
            PageError::GitHubSilent => (
                "Try again",
                "GitHub did not say whether you belong to this org; try again shortly.".into(),
            ),
            PageError::Unavailable => (
                "Try again",
                "The console's database did not answer; try again shortly.".into(),
            ),
        }
    }
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        if self == PageError::NotSignedIn {
            return (StatusCode::SEE_OTHER, [(header::LOCATION, "/signin")]).into_response();
        }
        let (title, sentence) = self.words();
        respond(
            self.status(),
            layout(title, None, html! { p { (sentence) } }),
        )
    }
}

impl From<StoreError> for PageError {
    fn from(_: StoreError) -> PageError {
        PageError::Unavailable
    }
}

impl From<ApiError> for PageError {
    fn from(error: ApiError) -> PageError {
        match error {
            ApiError::NotAMember => PageError::NotAMember,
            ApiError::OrgGone => PageError::OrgGone,
            ApiError::GitHubSilent => PageError::GitHubSilent,
            ApiError::NotFound => PageError::NotFound,
            _ => PageError::Unavailable,
        }
    }
}

/// The session's person, when they belong to `org` on GitHub now and the form they sent
/// carries the session's form token; a form without it does nothing.
async fn member_sending(
    console: &Console,
    headers: &HeaderMap,
    org: &str,
    form_token: &str,
) -> Result<KeptSession, PageError> {
    let session = member(console, headers, org).await?;
    if same_secret(form_token, &session.form_token) {
        Ok(session)
    } else {
        Err(PageError::Forged)
    }
}

/// A repository the console keeps, by its org and name.
async fn kept_repo(console: &Console, org: &str, repo: &str) -> Result<KeptRepo, PageError> {
    console
        .store
        .repo(org, repo)
        .await?
        .ok_or(PageError::NotFound)
}

/// The session's person, when they belong to `org` on GitHub now.
async fn member(
    console: &Console,
    headers: &HeaderMap,
    org: &str,
) -> Result<KeptSession, PageError> {
    let (_, session) = signed_in(console, headers)
        .await
        .ok_or(PageError::NotSignedIn)?;
    member_now(console, org, &session.login).await?;
    Ok(session)
}

//! A stack's page (issue 42, parts 3 and 4): its row's facts as the console keeps them,
//! its preview read live from its page on GitHub (addresses, operations and property
//! paths; never a value), its recent deploys, and the tick. A tick waits five seconds
//! with an Undo before the form is sent (the page's one script); it is then judged
//! exactly as the API's tick is, and what must stay on GitHub says so and links there.

use axum::Form;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use maud::{Markup, PreEscaped, html};
use serde::Deserialize;
use sluiceway_dashboard::facts::RowState;

use super::{PageError, kept_repo, layout, member, member_sending, respond};
use crate::Console;
use crate::api::{ApiError, with_installation};
use crate::facts::StackFacts;
use crate::preview::{Preview, PreviewError};
use crate::store::{KeptDeploy, KeptRepo, KeptSession};
use crate::tick::{self, Asked, Confirm, Judged, Outcome, TickError, Via};

/// How many deploys the page lists, newest first.
const RECENT: usize = 10;

/// The address of a stack's page: its id percent-encoded as one segment.
pub(crate) fn address(org: &str, repo: &str, stack: &str) -> String {
    format!("/{org}/{repo}/stacks/{}", encoded(stack))
}

pub(super) async fn stack_page(
    State(console): State<Console>,
    headers: HeaderMap,
    Path((org, repo, stack)): Path<(String, String, String)>,
) -> Result<Response, PageError> {
    let session = member(&console, &headers, &org).await?;
    let kept = kept_repo(&console, &org, &repo).await?;
    let facts = kept
        .stacks
        .iter()
        .find(|s| s.stack == stack)
        .ok_or(PageError::NotFound)?
        .clone();
    let preview = if matches!(facts.state, RowState::Pending | RowState::Drift) {
        let (name, sha, id) = (
            kept.place.name.clone(),
            kept.scan.sha.clone(),
            stack.clone(),
        );
        Some(
            with_installation(&console, &kept, move |installed| {
                Ok(crate::preview::preview(&installed.github, &name, &id, &sha))
            })
            .await
            .map_err(PageError::from),
        )
    } else {
        None
    };
    let mut deploys = console
        .store
        .deploys(&kept.place.org, Some(&kept.place.name), Some(&stack))
        .await?;
    deploys.sort_by_key(|d| std::cmp::Reverse(d.facts.at()));
    deploys.truncate(RECENT);
    let body = stack_body(&kept, &facts, preview.as_ref(), &deploys, &session);
    Ok(respond(
        StatusCode::OK,
        layout(&stack, Some(&session.login), body),
    ))
}

/// What the page shows of the preview it read, or why it shows none.
type Read = Result<Result<Preview, PreviewError>, PageError>;

/// The page below its `h1`: pure, from the kept facts and what was read live.
pub(crate) fn stack_body(
    repo: &KeptRepo,
    stack: &StackFacts,
    preview: Option<&Read>,
    deploys: &[KeptDeploy],
    session: &KeptSession,
) -> Markup {
    html! {
        p {
            a href={ "/" (repo.place.org) } { (repo.place.org) } " / "
            a href={ "/" (repo.place.org) "/" (repo.place.name) } { (repo.place.name) } " · "
            a href=(repo.place.dashboard_url) { "its dashboard" }
        }
        p { strong { (stack.word()) } " — " (stack.line()) }
        p.muted {
            "Scanned at " code { (short(&repo.scan.sha)) } " on "
            (repo.scan.at.strftime("%Y-%m-%d %H:%M UTC").to_string()) "."
        }
        @if stack.app_state() == crate::view::State::Pending {
            (tick_form(repo, stack, session))
        }
        @if let Some(read) = preview {
            section aria-labelledby="preview" {
                h2 id="preview" { "What would change" }
                (preview_section(read))
            }
        }
        section aria-labelledby="deploys" {
            h2 id="deploys" { "Recent deploys" }
            @if deploys.is_empty() {
                p.muted { "No deploy of this stack is on record." }
            } @else {
                p {
                    a href={ "/" (repo.place.org) "/-/audit?repo=" (encoded(&repo.place.name)) "&stack=" (encoded(&stack.stack)) } {
                        "Every deploy of this stack, in the audit log"
                    }
                }
                table {
                    thead { tr { th scope="col" { "When" } th scope="col" { "Who" } th scope="col" { "Commit" } th scope="col" { "Result" } } }
                    tbody {
                        @for deploy in deploys {
                            tr {
                                td { (deploy.facts.at().strftime("%Y-%m-%d %H:%M UTC").to_string()) }
                                td { (deploy.facts.who()) }
                                td { code { (short(&deploy.facts.sha)) } }
                                td { a href=(deploy.html_url) { (deploy.facts.result().0) } }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The tick: a form the page's script holds for five seconds with an Undo. A change
/// that deletes or replaces says so on its button, and the form carries what the person
/// saw (the destroys and the scanned commit), which the judgement holds it to.
fn tick_form(repo: &KeptRepo, stack: &StackFacts, session: &KeptSession) -> Markup {
    let destroys = stack.destroys_in_words();
    html! {
        form.tick method="post" action={ "/" (repo.place.org) "/" (repo.place.name) "/tick" } data-undo="5" {
            input type="hidden" name="form_token" value=(session.form_token);
            input type="hidden" name="stack" value=(stack.stack);
            @if stack.destroys > 0 {
                input type="hidden" name="destroys" value=(stack.destroys);
                input type="hidden" name="scan" value=(repo.scan.sha);
            }
            button type="submit" {
                @match &destroys {
                    Some(words) => { "Tick to deploy, with " (words) }
                    None => { "Tick to deploy" }
                }
            }
            " "
            button.undo type="button" hidden { "Undo" }
            span role="status" aria-live="polite" {}
        }
        script { (PreEscaped(UNDO)) }
    }
}

/// The Undo window: the form is held five seconds, counted down in its status, while
/// its Undo button has the focus; Undo lets it go unsent. Without script the form is sent
/// at once.
const UNDO: &str = r#"
for (const form of document.querySelectorAll('form[data-undo]')) {
  const send = form.querySelector('button[type=submit]');
  const undo = form.querySelector('button.undo');
  const status = form.querySelector('[role=status]');
  form.addEventListener('submit', event => {
    event.preventDefault();
    let left = Number(form.dataset.undo);
    const say = () => { status.textContent = `Ticking in ${left} s.`; };
    send.hidden = true;
    undo.hidden = false;
    undo.focus();
    say();
    const timer = setInterval(() => {
      left -= 1;
      if (left > 0) { say(); return; }
      clearInterval(timer);
      undo.hidden = true;
      status.textContent = 'Ticking…';
      form.submit();
    }, 1000);
    undo.onclick = () => {
      clearInterval(timer);
      undo.hidden = true;
      send.hidden = false;
      send.focus();
      status.textContent = 'Not ticked: nothing was sent.';
    };
  });
}
"#;

fn preview_section(read: &Read) -> Markup {
    html! {
        @match read {
            Err(_) => p { "GitHub did not answer, so the preview is not shown; try again shortly." }
            Ok(Err(PreviewError::NoPage)) => p { "The scanned commit has no preview page of this stack." }
            Ok(Err(PreviewError::Unreadable)) => p { "The preview page on GitHub holds nothing the console can read." }
            Ok(Err(PreviewError::Silent(_))) => p { "GitHub did not answer, so the preview is not shown; try again shortly." }
            Ok(Ok(preview)) => {
                p { a href=(preview.page.url) { "The preview on GitHub" } " (" (preview.title) ")." }
                @if !preview.changes.is_empty() {
                    table {
                        thead { tr { th scope="col" { "Change" } th scope="col" { "Resource" } th scope="col" { "Properties" } } }
                        tbody {
                            @for change in &preview.changes {
                                tr {
                                    td { (change.action) }
                                    td { code { (change.kind) "." (change.name) } }
                                    td { (change.properties.join(", ")) }
                                }
                            }
                        }
                    }
                }
                @if !preview.drift.is_empty() {
                    table {
                        thead { tr { th scope="col" { "Outside the code" } th scope="col" { "Resource" } th scope="col" { "Properties" } } }
                        tbody {
                            @for drift in &preview.drift {
                                tr {
                                    td { (drift.action) }
                                    td { code { (drift.kind) "." (drift.name) } }
                                    td { (drift.properties.join(", ")) }
                                }
                            }
                        }
                    }
                }
                @if preview.unlisted > 0 {
                    p.muted { (preview.unlisted) " more not listed on the page." }
                }
            }
        }
    }
}

fn encoded(value: &str) -> String {
    percent_encoding::utf8_percent_encode(value, percent_encoding::NON_ALPHANUMERIC).to_string()
}

fn short(sha: &str) -> &str {
    sha.get(..7).unwrap_or(sha)
}

/// What the tick form sends.
#[derive(Deserialize)]
pub(super) struct TickForm {
    form_token: String,
    stack: String,
    destroys: Option<u64>,
    scan: Option<String>,
}

pub(super) async fn tick_sent(
    State(console): State<Console>,
    headers: HeaderMap,
    Path((org, repo)): Path<(String, String)>,
    Form(sent): Form<TickForm>,
) -> Result<Response, PageError> {
    let session = member_sending(&console, &headers, &org, &sent.form_token).await?;
    let kept = kept_repo(&console, &org, &repo).await?;
    if !kept.stacks.iter().any(|s| s.stack == sent.stack) {
        return Err(PageError::NotFound);
    }
    let asked = Asked {
        stack: sent.stack.clone(),
        person: session.login.clone(),
        confirm: sent.destroys.map(|destroys| Confirm {
            destroys,
            scan: sent.scan.clone(),
        }),
        via: Via::Console,
    };
    let number = kept.place.dashboard_number;
    let judged = with_installation(&console, &kept, move |installed| {
        tick::tick(&installed.github, &installed.bot, number, &asked).map_err(|e| match e {
            TickError::NoRow => ApiError::NotFound,
            TickError::Silent(_) => ApiError::GitHubSilent,
        })
    })
    .await?;
    let back = address(&kept.place.org, &kept.place.name, &sent.stack);
    Ok(respond(
        StatusCode::OK,
        layout(
            heading(judged.outcome),
            Some(&session.login),
            judged_body(&judged, &back, &kept.place.dashboard_url),
        ),
    ))
}

/// The API's word for an outcome, which the page carries for scripts and tests.
fn outcome_name(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Asked => "asked",
        Outcome::Refused => "refused",
        Outcome::GitHub => "github",
        Outcome::Taken => "taken",
        Outcome::Failed => "failed",
        Outcome::Unconfirmed => "unconfirmed",
    }
}

fn heading(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Asked => "Ticked",
        Outcome::Refused => "Not ticked",
        Outcome::GitHub => "Tick it on GitHub",
        Outcome::Taken => "Already under way",
        Outcome::Failed => "The tick failed",
        Outcome::Unconfirmed => "Look again",
    }
}

fn judged_body(judged: &Judged, back: &str, dashboard: &str) -> Markup {
    html! {
        p id="outcome" data-outcome=(outcome_name(judged.outcome)) {
            (judged.sentence)
        }
        p {
            a href=(back) { "Back to the stack" } " · "
            a href=(dashboard) { "The dashboard on GitHub" }
        }
    }
}

#[cfg(test)]
mod tests;

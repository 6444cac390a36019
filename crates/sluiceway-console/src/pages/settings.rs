//! Edit mode (issue 42, part 7): a repository's `sluiceway.yaml` keys in a form, read at
//! the scanned commit, with the dashboard redrawn as the changed file would draw it, and
//! Save opening the one pull request the API's `configPullRequest` opens. The redraw
//! changes the file exactly as the pull request would (`config_pull_request::apply`) and
//! loads it as the action does, so what a person sees is what they would merge.
//!
//! Each field says "the action's default" when the file sets no value, so the page never
//! needs to know a default: an unchanged field asks nothing.

use axum::Form;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use maud::{Markup, PreEscaped, html};
use serde_json::Value;

use super::{PageError, kept_repo, layout, member, member_sending, respond};
use crate::Console;
use crate::api::{ApiError, with_installation};
use crate::config::{ConfigAnswer, KEYS};
use crate::config_pull_request::{self, KeyChange, Outcome, Refusal};
use crate::store::{KeptAsked, KeptDeploy, KeptRepo, KeptSession};

/// How a key is edited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    /// The action's default, on or off.
    Switch,
    Number,
    /// Comma-separated words: a list of strings.
    List,
}

fn kind(key: &str) -> Kind {
    match key.rsplit('.').next().unwrap_or(key) {
        "personality" | "redact" | "readOnly" | "enabled" => Kind::Switch,
        "recentlyDeployed" => Kind::Number,
        "sections" | "showValues" | "tickers" | "recordWriters" | "ignore" => Kind::List,
        _ => Kind::Text,
    }
}

/// The form's field for `key` as the file gives it.
fn shown(value: &Value, kind: Kind) -> Option<String> {
    match (kind, value) {
        (_, Value::Null) => Some(String::new()),
        (Kind::Switch, Value::Bool(on)) => Some(if *on { "on" } else { "off" }.to_owned()),
        (Kind::Number, Value::Number(n)) => Some(n.to_string()),
        (Kind::Text, Value::String(text)) => Some(text.clone()),
        // A list whose words read back as they are: no word empty, padded, or with a
        // comma in it.
        (Kind::List, Value::Array(items)) => items
            .iter()
            .map(|i| {
                i.as_str()
                    .filter(|w| !w.is_empty() && w.trim() == *w && !w.contains(','))
                    .map(str::to_owned)
            })
            .collect::<Option<Vec<_>>>()
            .map(|words| words.join(", ")),
        // A value the form cannot show (an `ignore` entry with a reason, a word with a
        // comma in it): edited by hand.
        _ => None,
    }
}

/// The value a field sends, `Null` for the action's default.
fn sent(field: &str, kind: Kind) -> Result<Value, String> {
    if field.is_empty() {
        return Ok(Value::Null);
    }
    // Text is sent as typed; the other kinds are read from their words.
    if kind == Kind::Text {
        return Ok(Value::String(field.to_owned()));
    }
    let field = field.trim();
    if field.is_empty() {
        return Ok(Value::Null);
    }
    match kind {
        Kind::Text => Ok(Value::String(field.to_owned())),
        Kind::Switch => match field {
            "on" => Ok(Value::Bool(true)),
            "off" => Ok(Value::Bool(false)),
            _ => Err("is on, off or the action's default".to_owned()),
        },
        Kind::Number => field
            .parse::<u64>()
            .map(Value::from)
            .map_err(|_| "is a whole number".to_owned()),
        Kind::List => Ok(Value::Array(
            field
                .split(',')
                .map(str::trim)
                .filter(|w| !w.is_empty())
                .map(|w| Value::String(w.to_owned()))
                .collect(),
        )),
    }
}

/// What the form asks to change against the file's keys: a change per field whose value
/// differs, and a sentence per field that does not read.
pub(crate) fn changes(
    keys: &serde_json::Map<String, Value>,
    fields: &[(String, String)],
) -> (Vec<KeyChange>, Vec<String>) {
    let mut changes = Vec::new();
    let mut problems = Vec::new();
    for (key, now) in keys {
        let kind = kind(key);
        let Some(field) = fields.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v) else {
            continue;
        };
        if shown(now, kind).is_none() {
            continue;
        }
        match sent(field, kind) {
            Ok(value) => {
                let empty = |v: &Value| v.is_null() || v.as_array().is_some_and(Vec::is_empty);
                let same = value == *now || (empty(&value) && empty(now));
                if !same {
                    changes.push(KeyChange {
                        key: key.clone(),
                        value,
                    });
                }
            }
            Err(sentence) => problems.push(format!("{key} {sentence}.")),
        }
    }
    (changes, problems)
}

/// The repository's file, read at the scanned commit.
async fn read(console: &Console, kept: &KeptRepo) -> Result<ConfigAnswer, PageError> {
    let (name, html_url, sha, run) = (
        kept.place.name.clone(),
        kept.place.html_url.clone(),
        kept.scan.sha.clone(),
        kept.scan.run,
    );
    Ok(with_installation(console, kept, move |installed| {
        let base = crate::workflow::of_scan(&installed.github, run).map(|w| w.branch);
        crate::config::read(&installed.github, &name, &html_url, &sha, base)
            .map_err(|_| ApiError::GitHubSilent)
    })
    .await?)
}

/// The page as the file stands.
pub(super) async fn settings_page(
    State(console): State<Console>,
    headers: HeaderMap,
    Path((org, repo)): Path<(String, String)>,
) -> Result<Response, PageError> {
    let session = member(&console, &headers, &org).await?;
    draw(&console, &session, &org, &repo, &[]).await
}

/// The form sent: Save opens the pull request; Redraw (and the page without script)
/// draws the page again with the form's values. Both carry the session's form token.
pub(super) async fn settings_sent(
    State(console): State<Console>,
    headers: HeaderMap,
    Path((org, repo)): Path<(String, String)>,
    Form(fields): Form<Vec<(String, String)>>,
) -> Result<Response, PageError> {
    let session = member_sending(&console, &headers, &org, value(&fields, "form_token")).await?;
    if value(&fields, "intent") == "save" {
        save(&console, &session, &org, &repo, &fields).await
    } else {
        draw(&console, &session, &org, &repo, &fields).await
    }
}

/// The live redraw's answer: the drawing alone.
pub(super) async fn redraw_sent(
    State(console): State<Console>,
    headers: HeaderMap,
    Path((org, repo)): Path<(String, String)>,
    Form(fields): Form<Vec<(String, String)>>,
) -> Result<Response, PageError> {
    member_sending(&console, &headers, &org, value(&fields, "form_token")).await?;
    let (kept, config, deploys) = drawn_from(&console, &org, &repo).await?;
    let (changes, _) = changes(&config.keys, &fields);
    Ok(respond(
        StatusCode::OK,
        redraw(&kept, &deploys, &config, &changes),
    ))
}

/// What a redraw is drawn from: the kept repository, its file at the scanned commit,
/// and its deploys.
async fn drawn_from(
    console: &Console,
    org: &str,
    repo: &str,
) -> Result<(KeptRepo, ConfigAnswer, Vec<KeptDeploy>), PageError> {
    let kept = kept_repo(console, org, repo).await?;
    let config = read(console, &kept).await?;
    let deploys = console
        .store
        .deploys(&kept.place.org, Some(&kept.place.name), None)
        .await?;
    Ok((kept, config, deploys))
}

/// A field's last value, or nothing.
fn value<'a>(fields: &'a [(String, String)], name: &str) -> &'a str {
    fields
        .iter()
        .rev()
        .find(|(k, _)| k == name)
        .map_or("", |(_, v)| v.as_str())
}

async fn draw(
    console: &Console,
    session: &KeptSession,
    org: &str,
    repo: &str,
    fields: &[(String, String)],
) -> Result<Response, PageError> {
    let (kept, config, deploys) = drawn_from(console, org, repo).await?;
    let (changes, problems) = changes(&config.keys, fields);
    let redraw = redraw(&kept, &deploys, &config, &changes);
    let body = settings_body(&kept, &config, fields, &problems, redraw, session);
    Ok(respond(
        StatusCode::OK,
        layout("Settings", Some(&session.login), body),
    ))
}

/// The dashboard as the changed file would draw it, or why it cannot be drawn.
fn redraw(
    kept: &KeptRepo,
    deploys: &[KeptDeploy],
    config: &ConfigAnswer,
    changes: &[KeyChange],
) -> Markup {
    let name = config.file.as_deref().unwrap_or("sluiceway.yaml");
    let text = config.text.as_deref().unwrap_or_default();
    let (changed, _, problems) = config_pull_request::apply(text, changes);
    let loaded = sluiceway_core::config::load(name, &changed);
    let view = match (&problems[..], loaded) {
        ([], Ok(loaded)) => {
            let mut view = super::repo::redrawn(kept, deploys);
            // No diff is kept: every row stays as a redacted row whatever the file says.
            view.layout = sluiceway_core::config::raw::RawDashboard {
                redact: true,
                ..loaded.settings.dashboard
            };
            view
        }
        (problems, Ok(_)) => {
            return html! { p { "The changes cannot be made in the file: " (problems.join(" ")) } };
        }
        (_, Err(said)) => {
            return html! {
                p { (name) " as changed would not load:" }
                ul { @for problem in said.iter() { li { (problem.to_string()) } } }
            };
        }
    };
    match sluiceway_dashboard::body::render(&view) {
        Ok(body) => html! {
            (PreEscaped(sluiceway_dashboard::page::content(&body, Some(super::repo::PICTURES))))
        },
        Err(_) => html! { p { "The dashboard as changed would not fit one issue." } },
    }
}

/// The page below its `h1`: pure.
fn settings_body(
    kept: &KeptRepo,
    config: &ConfigAnswer,
    fields: &[(String, String)],
    problems: &[String],
    redraw: Markup,
    session: &KeptSession,
) -> Markup {
    let here = format!("/{}/{}/settings", kept.place.org, kept.place.name);
    let field = |key: &str| {
        fields
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    };
    let ordered: Vec<&String> = KEYS
        .iter()
        .filter_map(|k| config.keys.keys().find(|key| key == k))
        .chain(config.keys.keys().filter(|k| !KEYS.contains(&k.as_str())))
        .collect();
    html! {
        p {
            a href={ "/" (kept.place.org) "/" (kept.place.name) } { (kept.place.name) } " · "
            @if let Some(url) = &config.url { a href=(url) { (config.file.as_deref().unwrap_or_default()) " at the scanned commit" } }
            @else { "The repository has no sluiceway.yaml yet; saving makes one." }
        }
        @if let Some(problem) = &config.problem {
            p.banner role="status" { (problem) }
        }
        @for problem in problems { p.banner role="status" { (problem) } }
        form method="post" action=(here) data-redraw={ (here) "/redraw" } {
            input type="hidden" name="form_token" value=(session.form_token);
            table {
                thead { tr { th scope="col" { "Key" } th scope="col" { "Value" } } }
                tbody {
                    @for key in ordered {
                        @let kind = kind(key);
                        @let file = shown(&config.keys[key.as_str()], kind);
                        @let id = field_id(key);
                        tr {
                            th scope="row" { label for=(id) { code { (key) } } }
                            td {
                                @match file {
                                    None => { span.muted { "Set by hand in the file: the form cannot show it." } }
                                    Some(from_file) => {
                                        @let value = field(key).unwrap_or(from_file);
                                        @match kind {
                                            Kind::Switch => {
                                                select id=(id) name=(key) {
                                                    option value="" selected[value.is_empty()] { "the action's default" }
                                                    option value="on" selected[value == "on"] { "on" }
                                                    option value="off" selected[value == "off"] { "off" }
                                                }
                                            }
                                            Kind::Number => { input id=(id) name=(key) type="number" min="0" max="50" value=(value) placeholder="the action's default"; }
                                            Kind::List => { input id=(id) name=(key) value=(value) placeholder="the action's default; words split by commas"; }
                                            Kind::Text => { input id=(id) name=(key) value=(value) placeholder="the action's default"; }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            p {
                button type="submit" name="intent" value="redraw" { "Redraw" }
                " "
                button type="submit" name="intent" value="save" { "Save as a pull request" }
                " "
                span.muted { "Save opens one pull request from " code { "sluiceway/dashboard" } " that changes only these keys and keeps every comment; it needs write access." }
            }
        }
        section aria-labelledby="redrawn" {
            h2 id="redrawn" { "The dashboard as it would look" }
            style { (PreEscaped(sluiceway_dashboard::page::STYLE)) }
            div.dashboard aria-live="polite" { (redraw) }
        }
        script { (PreEscaped(LIVE)) }
    }
}

/// The live redraw: the form's fields, sent as the Redraw button would, a moment after
/// each change; the answer replaces the drawing.
const LIVE: &str = r#"
for (const form of document.querySelectorAll('form[data-redraw]')) {
  const drawing = document.querySelector('div.dashboard');
  let timer = null;
  const redraw = async () => {
    const answer = await fetch(form.dataset.redraw, {
      method: 'POST',
      body: new URLSearchParams(new FormData(form)),
      credentials: 'same-origin',
    });
    if (answer.ok) drawing.innerHTML = await answer.text();
  };
  form.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(redraw, 300); });
  form.addEventListener('change', () => { clearTimeout(timer); timer = setTimeout(redraw, 300); });
}
"#;

fn field_id(key: &str) -> String {
    let kept: String = key
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    format!("key-{kept}")
}

async fn save(
    console: &Console,
    session: &KeptSession,
    org: &str,
    repo: &str,
    fields: &[(String, String)],
) -> Result<Response, PageError> {
    let kept = kept_repo(console, org, repo).await?;
    let config = read(console, &kept).await?;
    let (changes, problems) = changes(&config.keys, fields);
    let back = format!("/{}/{}/settings", kept.place.org, kept.place.name);
    if !problems.is_empty() || changes.is_empty() {
        let body = html! {
            @for problem in &problems { p { (problem) } }
            @if problems.is_empty() { p id="outcome" data-outcome="nothing-to-change" { "Nothing was changed in the form; nothing was asked of GitHub." } }
            p { a href=(back) { "Back to the settings" } }
        };
        return Ok(respond(
            StatusCode::BAD_REQUEST,
            layout("Nothing saved", Some(&session.login), body),
        ));
    }
    if let Err(problems) = config_pull_request::check(&changes) {
        let body = html! { @for problem in &problems { p { (problem) } } };
        return Ok(respond(
            StatusCode::BAD_REQUEST,
            layout("Nothing saved", Some(&session.login), body),
        ));
    }
    let person = session.login.clone();
    let answer = with_installation(console, &kept, move |installed| {
        config_pull_request::open(&installed.github, &person, &changes).map_err(|e| match e {
            Refusal::NoWriteAccess => ApiError::NoWriteAccess,
            Refusal::Silent(_) => ApiError::GitHubSilent,
        })
    })
    .await;
    let answer = match answer {
        Err(ApiError::NoWriteAccess) => {
            let body = html! {
                p id="outcome" data-outcome="no-write-access" { "You cannot write to this repository on GitHub, and a pull request needs write access; nothing was asked." }
            };
            return Ok(respond(
                StatusCode::FORBIDDEN,
                layout("Nothing saved", Some(&session.login), body),
            ));
        }
        other => other?,
    };
    if answer.outcome == Outcome::Opened {
        let asked = KeptAsked {
            repo: kept.place.name.clone(),
            at: (console.clock)(),
            who: session.login.clone(),
            words: format!(
                "opened pull request #{} to change {} setting{}",
                answer.pull_request.unwrap_or_default(),
                answer.changes.len(),
                if answer.changes.len() == 1 { "" } else { "s" }
            ),
            link: answer.url.clone(),
            via: "console".to_owned(),
        };
        console.store.record_asked(&kept.place.org, &asked).await?;
    }
    let outcome = serde_json::to_value(answer.outcome)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    let body = html! {
        p id="outcome" data-outcome=(outcome) { (answer.sentence) }
        @if !answer.changes.is_empty() { ul { @for line in &answer.changes { li { (line) } } } }
        @if !answer.problems.is_empty() { ul { @for line in &answer.problems { li { (line) } } } }
        @if let Some(url) = &answer.url { p { a href=(url) { "The pull request on GitHub" } } }
        p { a href=(back) { "Back to the settings" } }
    };
    let heading = if answer.outcome == Outcome::Opened {
        "Pull request opened"
    } else {
        "Nothing saved"
    };
    Ok(respond(StatusCode::OK, layout(heading, Some(&session.login), body)).into_response())
}

#[cfg(test)]
mod tests;

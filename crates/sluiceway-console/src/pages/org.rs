//! The org view (issue 42, part 1): what a team opens in the morning. The five states
//! counted, a banner when a waiting change deletes or replaces, one chip per state to
//! show only its stacks, and the stacks grouped by what they ask of people (needs you,
//! in flight, in sync) or by repository; the repositories whose last scan found no stack
//! are named. The console's front door sends a person to their org.

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use maud::{Markup, html};
use serde::Deserialize;

use super::{PageError, layout, member, respond};
use crate::Console;
use crate::facts::StackFacts;
use crate::github_app::InstalledRepo;
use crate::signin::{orgs_of, signed_in};
use crate::store::KeptRepo;
use crate::view::{Counts, State as AppState};

/// The front door: a person of one org goes straight to it; of several, picks one.
pub(super) async fn home(
    State(console): State<Console>,
    headers: HeaderMap,
) -> Result<Response, PageError> {
    let (_, session) = signed_in(&console, &headers)
        .await
        .ok_or(PageError::NotSignedIn)?;
    let orgs = orgs_of(&console, &session.login)
        .await
        .map_err(|()| PageError::GitHubSilent)?;
    if let [org] = orgs.as_slice() {
        return Ok((
            StatusCode::SEE_OTHER,
            [(header::LOCATION, format!("/{org}"))],
        )
            .into_response());
    }
    let body = html! {
        @if orgs.is_empty() {
            p { "GitHub lists you in no org this console serves." }
        } @else {
            ul {
                @for org in &orgs {
                    li { a href={ "/" (org) } { (org) } }
                }
            }
        }
    };
    Ok(respond(
        StatusCode::OK,
        layout("Your orgs", Some(&session.login), body),
    ))
}

/// What the address asks to see.
#[derive(Deserialize)]
pub(super) struct Asked {
    state: Option<String>,
    by: Option<String>,
}

/// How the stacks are grouped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Grouping {
    /// Needs you, in flight, in sync.
    Attention,
    Repository,
}

impl Grouping {
    fn name(self) -> &'static str {
        match self {
            Grouping::Attention => "attention",
            Grouping::Repository => "repository",
        }
    }
}

/// What the page shows: every state or one, grouped one way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shown {
    pub only: Option<AppState>,
    pub by: Grouping,
}

impl Shown {
    fn read(asked: &Asked) -> Result<Shown, PageError> {
        let only = match asked.state.as_deref() {
            None | Some("") | Some("all") => None,
            Some(name) => Some(AppState::named(name).ok_or(PageError::BadQuery("state"))?),
        };
        let by = match asked.by.as_deref() {
            None | Some("") | Some("attention") => Grouping::Attention,
            Some("repository") => Grouping::Repository,
            Some(_) => return Err(PageError::BadQuery("by")),
        };
        Ok(Shown { only, by })
    }

    /// The address of this view with `only` and `by` changed.
    fn address(only: Option<AppState>, by: Grouping) -> String {
        let state = only.map_or("all", AppState::name);
        format!("?state={state}&by={}", by.name())
    }
}

pub(super) async fn org_view(
    State(console): State<Console>,
    headers: HeaderMap,
    Path(org): Path<String>,
    Query(asked): Query<Asked>,
) -> Result<Response, PageError> {
    let session = member(&console, &headers, &org).await?;
    let shown = Shown::read(&asked)?;
    let repos = console.kept_repos.of(&console.store, &org).await?;
    let Some(first) = repos.first() else {
        return Err(PageError::NotFound);
    };
    let title = first.place.org.clone();
    let reached = console
        .reached
        .of(&console, &title, &first.place.name)
        .await;
    let not_set_up = reached.map(|reached| not_set_up(&reached, &repos));
    Ok(respond(
        StatusCode::OK,
        layout(
            &title,
            Some(&session.login),
            org_view_body(&repos, shown, not_set_up.as_deref()),
        ),
    ))
}

/// The three groups of the default view, each with the states it holds.
const ATTENTION: [(&str, &[AppState]); 3] = [
    (
        "Needs you",
        &[AppState::Failed, AppState::Pending, AppState::Drifted],
    ),
    ("In flight", &[AppState::Deploying]),
    ("In sync", &[AppState::InSync]),
];

/// The repositories the app reaches that have no dashboard the console knows of.
pub(crate) fn not_set_up(reached: &[InstalledRepo], repos: &[KeptRepo]) -> Vec<InstalledRepo> {
    reached
        .iter()
        .filter(|r| {
            !repos
                .iter()
                .any(|kept| kept.place.name.eq_ignore_ascii_case(&r.name))
        })
        .cloned()
        .collect()
}

/// The page below its `h1`: pure, from the kept repositories and those not set up yet
/// (`None` when GitHub did not say).
pub(crate) fn org_view_body(
    repos: &[KeptRepo],
    shown: Shown,
    not_set_up: Option<&[InstalledRepo]>,
) -> Markup {
    let stacks = || {
        repos
            .iter()
            .flat_map(|r| r.stacks.iter().map(move |s| (r, s)))
    };
    let counts = Counts::of(stacks().map(|(_, s)| s));
    let destroying: Vec<(&KeptRepo, &StackFacts)> = stacks()
        .filter(|(_, s)| s.app_state() == AppState::Pending && s.destroys > 0)
        .collect();
    let last = repos.iter().max_by_key(|r| r.scan.at);
    let empty: Vec<&KeptRepo> = repos.iter().filter(|r| r.stacks.is_empty()).collect();
    html! {
        p.muted {
            (plural(counts.total(), "stack")) " in " (plural(repos.len() as u64, "repository"))
            @if let Some(last) = last {
                ". Last scan " (when(last)) " in " (last.place.name)
            }
            ". "
            a href={ "/" (repos.first().map_or("", |r| r.place.org.as_str())) "/-/audit" } { "The audit log" }
        }
        @if !destroying.is_empty() {
            div.banner role="status" {
                strong { (plural(destroying.len() as u64, "waiting change")) " would delete or replace resources:" }
                ul {
                    @for (repo, stack) in &destroying {
                        li {
                            a href=(repo.place.dashboard_url) { (repo.place.name) " · " (stack.stack) }
                            ": " (stack.destroys_in_words().unwrap_or_default())
                        }
                    }
                }
            }
        }
        nav aria-label="Show stacks by state" {
            ul.chips {
                li { (chip("All", counts.total(), None, shown)) }
                @for state in AppState::ALL {
                    li { (chip(state.label(), counts.of_state(state), Some(state), shown)) }
                }
            }
        }
        p {
            "Group by: "
            (grouping_link("what they ask of you", Grouping::Attention, shown))
            " · "
            (grouping_link("repository", Grouping::Repository, shown))
        }
        @let groups = groups(repos, shown);
        @if groups.is_empty() {
            p { (nothing_shown(shown)) }
        }
        @for (i, group) in groups.iter().enumerate() {
            section aria-labelledby={ "group-" (i) } {
                h2 id={ "group-" (i) } {
                    @if let Some(dashboard) = group.dashboard {
                        a href={ "/" (group.lines[0].0.place.org) "/" (group.heading) } { (group.heading) } " "
                        a href=(dashboard) { "dashboard" }
                    } @else {
                        (group.heading) " "
                        span.muted { "(" (group.lines.len()) ")" }
                    }
                }
                (table(&group.lines, group.dashboard.is_none()))
            }
        }
        @match not_set_up {
            None => p.muted { "GitHub did not say which repositories the console's app reaches, so those not set up yet are not listed." }
            Some([]) => {}
            Some(repos) => section aria-labelledby="not-set-up" {
                h2 id="not-set-up" { "Not set up yet" }
                p.muted { "The console's app reaches these repositories, and none has a dashboard: the action's workflow has not scanned them." }
                ul {
                    @for repo in repos {
                        li { a href=(repo.html_url) { (repo.name) } }
                    }
                }
            }
        }
        @if !empty.is_empty() {
            section aria-labelledby="no-stacks" {
                h2 id="no-stacks" { "No stacks found" }
                p.muted { "The last scan of these repositories found no stack to preview." }
                ul {
                    @for repo in &empty {
                        li { a href={ "/" (repo.place.org) "/" (repo.place.name) } { (repo.place.name) } " · scanned " (when(repo)) }
                    }
                }
            }
        }
    }
}

/// A group of the view: its heading, its repository's dashboard when it is one
/// repository's, and its stacks in order.
struct Group<'a> {
    heading: String,
    dashboard: Option<&'a str>,
    lines: Vec<(&'a KeptRepo, &'a StackFacts)>,
}

/// The groups with something to show, in the page's order.
fn groups(repos: &[KeptRepo], shown: Shown) -> Vec<Group<'_>> {
    let wanted = |s: &StackFacts| shown.only.is_none_or(|only| s.app_state() == only);
    let mut groups = Vec::new();
    match shown.by {
        Grouping::Attention => {
            for (heading, states) in ATTENTION {
                let mut lines: Vec<_> = repos
                    .iter()
                    .flat_map(|r| r.stacks.iter().map(move |s| (r, s)))
                    .filter(|(_, s)| states.contains(&s.app_state()) && wanted(s))
                    .collect();
                sort(&mut lines, states);
                groups.push(Group {
                    heading: heading.to_owned(),
                    dashboard: None,
                    lines,
                });
            }
        }
        Grouping::Repository => {
            for repo in repos {
                let mut lines: Vec<_> = repo
                    .stacks
                    .iter()
                    .filter(|s| wanted(s))
                    .map(|s| (repo, s))
                    .collect();
                sort(&mut lines, &AppState::ALL);
                groups.push(Group {
                    heading: repo.place.name.clone(),
                    dashboard: Some(&repo.place.dashboard_url),
                    lines,
                });
            }
        }
    }
    groups.retain(|g| !g.lines.is_empty());
    groups
}

/// Within a group, what needs a person first (the states in the group's order), then
/// by repository and stack.
fn sort(lines: &mut [(&KeptRepo, &StackFacts)], order: &[AppState]) {
    let rank = |s: &StackFacts| order.iter().position(|o| *o == s.app_state());
    lines.sort_by(|(ra, a), (rb, b)| {
        (rank(a), &ra.place.name, &a.stack).cmp(&(rank(b), &rb.place.name, &b.stack))
    });
}

fn table(lines: &[(&KeptRepo, &StackFacts)], with_repository: bool) -> Markup {
    html! {
        table {
            thead {
                tr {
                    th scope="col" { "Stack" }
                    @if with_repository { th scope="col" { "Repository" } }
                    th scope="col" { "State" }
                    th scope="col" { "What it says" }
                }
            }
            tbody {
                @for (repo, stack) in lines {
                    tr {
                        td { a href=(super::stack::address(&repo.place.org, &repo.place.name, &stack.stack)) { (stack.stack) } }
                        @if with_repository { td { (repo.place.name) } }
                        td { (stack.word()) }
                        td { (stack.line()) }
                    }
                }
            }
        }
    }
}

fn chip(label: &str, count: u64, state: Option<AppState>, shown: Shown) -> Markup {
    let current = shown.only == state;
    html! {
        a href=(Shown::address(state, shown.by)) aria-current=[current.then_some("true")] {
            (label) " " (count)
        }
    }
}

fn grouping_link(label: &str, by: Grouping, shown: Shown) -> Markup {
    html! {
        a href=(Shown::address(shown.only, by)) aria-current=[(shown.by == by).then_some("true")] {
            (label)
        }
    }
}

fn nothing_shown(shown: Shown) -> String {
    match shown.only {
        Some(state) => format!("No stack is {} now.", state.label().to_lowercase()),
        None => "No stack to show.".into(),
    }
}

/// When a repository was last scanned, in UTC to the minute.
fn when(repo: &KeptRepo) -> String {
    repo.scan.at.strftime("%Y-%m-%d %H:%M UTC").to_string()
}

fn plural(n: u64, word: &str) -> String {
    match (n, word) {
        (1, _) => format!("1 {word}"),
        (_, "repository") => format!("{n} repositories"),
        _ => format!("{n} {word}s"),
    }
}

#[cfg(test)]
mod tests;

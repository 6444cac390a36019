//! The audit log (issue 42, part 5): one line per deploy the console heard of, newest
//! first: when, which stack of which repository, who ticked or merged it, the commit,
//! and the result in the trail's words. The filters are links (a repository, a stack,
//! only deploys outside the dashboard, a period), and the same lines download as CSV.
//! Org pages live under `/{org}/-/`, which no repository's page starts with.

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use jiff::{Timestamp, ToSpan};
use maud::{Markup, html};
use serde::Deserialize;

use super::{PageError, layout, member, respond};
use crate::Console;
use crate::store::{KeptAsked, KeptDeploy};

/// What the address asks to see.
#[derive(Debug, Default, Deserialize)]
pub(super) struct Asked {
    repo: Option<String>,
    stack: Option<String>,
    flagged: Option<String>,
    days: Option<String>,
}

/// The periods the log offers, in days; `None` is everything kept.
const PERIODS: [Option<u32>; 4] = [Some(7), Some(30), Some(90), None];

/// The filters, read and checked.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Filter {
    pub repo: Option<String>,
    pub stack: Option<String>,
    /// Only deploys made outside the dashboard.
    pub flagged: bool,
    pub days: Option<u32>,
}

impl Filter {
    fn read(asked: Asked) -> Result<Filter, PageError> {
        let days = match asked.days.as_deref() {
            None | Some("") | Some("all") => None,
            Some(days) => Some(
                days.parse::<u32>()
                    .ok()
                    .filter(|d| PERIODS.contains(&Some(*d)))
                    .ok_or(PageError::BadQuery("days"))?,
            ),
        };
        let flagged = match asked.flagged.as_deref() {
            None | Some("") | Some("0") => false,
            Some("1") => true,
            Some(_) => return Err(PageError::BadQuery("flagged")),
        };
        Ok(Filter {
            repo: asked.repo.filter(|r| !r.is_empty()),
            stack: asked.stack.filter(|s| !s.is_empty()),
            flagged,
            days,
        })
    }

    /// This filter's query, for a link or the CSV's address.
    fn query(&self) -> String {
        let encoded = |v: &str| {
            percent_encoding::utf8_percent_encode(v, percent_encoding::NON_ALPHANUMERIC).to_string()
        };
        let pairs: Vec<String> = [
            self.repo.as_deref().map(|r| format!("repo={}", encoded(r))),
            self.stack
                .as_deref()
                .map(|s| format!("stack={}", encoded(s))),
            self.flagged.then(|| "flagged=1".to_owned()),
            self.days.map(|d| format!("days={d}")),
        ]
        .into_iter()
        .flatten()
        .collect();
        if pairs.is_empty() {
            String::new()
        } else {
            format!("?{}", pairs.join("&"))
        }
    }

    /// What people asked the console to do that this filter keeps, newest first: none
    /// in the view of deploys outside the dashboard.
    fn asked<'a>(&self, asked: &'a [KeptAsked], now: Timestamp) -> Vec<&'a KeptAsked> {
        let since = self.days.map(|d| now - (i64::from(d) * 24).hours());
        let mut kept: Vec<&KeptAsked> = asked
            .iter()
            .filter(|_| !self.flagged)
            .filter(|a| since.is_none_or(|since| a.at >= since))
            .collect();
        kept.sort_by_key(|a| std::cmp::Reverse(a.at));
        kept
    }

    /// The lines this filter keeps, newest first.
    fn lines<'a>(&self, deploys: &'a [KeptDeploy], now: Timestamp) -> Vec<&'a KeptDeploy> {
        let since = self.days.map(|d| now - (i64::from(d) * 24).hours());
        let mut lines: Vec<&KeptDeploy> = deploys
            .iter()
            .filter(|d| d.facts.is_audited())
            // Every record Sluiceway opened deployed from the dashboard: the console hears
            // of no other deploy, so the flagged view is empty.
            .filter(|_| !self.flagged)
            .filter(|d| since.is_none_or(|since| d.facts.at() >= since))
            .collect();
        lines.sort_by_key(|d| std::cmp::Reverse(d.facts.at()));
        lines
    }
}

async fn deploys(
    console: &Console,
    org: &str,
    filter: &Filter,
) -> Result<Vec<KeptDeploy>, PageError> {
    Ok(console
        .store
        .deploys(org, filter.repo.as_deref(), filter.stack.as_deref())
        .await?)
}

pub(super) async fn audit_page(
    State(console): State<Console>,
    headers: HeaderMap,
    Path(org): Path<String>,
    Query(asked): Query<Asked>,
) -> Result<Response, PageError> {
    let session = member(&console, &headers, &org).await?;
    let filter = Filter::read(asked)?;
    let deploys = deploys(&console, &org, &filter).await?;
    let now = (console.clock)();
    let lines = filter.lines(&deploys, now);
    // What was asked is of a repository, never of one stack.
    let asked = match filter.stack {
        Some(_) => Vec::new(),
        None => console.store.asked(&org, filter.repo.as_deref()).await?,
    };
    let asked = filter.asked(&asked, now);
    Ok(respond(
        StatusCode::OK,
        layout(
            "Audit log",
            Some(&session.login),
            audit_body(&org, &filter, &lines, &asked),
        ),
    ))
}

pub(super) async fn audit_csv(
    State(console): State<Console>,
    headers: HeaderMap,
    Path(org): Path<String>,
    Query(asked): Query<Asked>,
) -> Result<Response, PageError> {
    member(&console, &headers, &org).await?;
    let filter = Filter::read(asked)?;
    let deploys = deploys(&console, &org, &filter).await?;
    let lines = filter.lines(&deploys, (console.clock)());
    let text = csv_text(&lines).map_err(|_| PageError::Unavailable)?;
    Ok((
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"sluiceway-audit-{org}.csv\""),
            ),
        ],
        text,
    )
        .into_response())
}

/// The lines as CSV, a header first. A cell a spreadsheet would read as a formula
/// (`=`, `+`, `-`, `@` first) is written with a `'` before it.
pub(crate) fn csv_text(lines: &[&KeptDeploy]) -> Result<String, csv::Error> {
    let mut out = csv::Writer::from_writer(Vec::new());
    out.write_record([
        "at",
        "repository",
        "stack",
        "who",
        "commit",
        "result",
        "outside the dashboard",
        "record",
    ])?;
    for line in lines {
        let record = [
            line.facts.at().to_string(),
            line.repo.clone(),
            line.facts.stack.clone(),
            line.facts.who(),
            line.facts.sha.clone(),
            line.facts.result().0.to_owned(),
            "no".to_owned(),
            line.html_url.clone(),
        ];
        out.write_record(record.iter().map(|cell| inert(cell)))?;
    }
    let bytes = out.into_inner().map_err(|e| e.into_error())?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn inert(cell: &str) -> String {
    if cell.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{cell}")
    } else {
        cell.to_owned()
    }
}

/// The page below its `h1`: pure.
pub(crate) fn audit_body(
    org: &str,
    filter: &Filter,
    lines: &[&KeptDeploy],
    asked: &[&KeptAsked],
) -> Markup {
    let here = format!("/{org}/-/audit");
    let with = |change: &dyn Fn(&mut Filter)| {
        let mut next = filter.clone();
        change(&mut next);
        format!("{here}{}", next.query())
    };
    html! {
        p.muted {
            "One line per deploy the console heard of, newest first. "
            a href={ "/" (org) "/-/audit.csv" (filter.query()) } { "Download these lines as CSV" } "."
        }
        nav aria-label="Filter the log" {
            ul.chips {
                @if let Some(repo) = &filter.repo {
                    li { a href=(with(&|f| { f.repo = None; f.stack = None; })) { "Repository " (repo) " ✕" } }
                }
                @if let Some(stack) = &filter.stack {
                    li { a href=(with(&|f| f.stack = None)) { "Stack " (stack) " ✕" } }
                }
                li {
                    a href=(with(&|f| f.flagged = !f.flagged)) aria-current=[filter.flagged.then_some("true")] {
                        "Outside the dashboard only"
                    }
                }
            }
            ul.chips {
                @for period in PERIODS {
                    li {
                        a href=(with(&|f| f.days = period)) aria-current=[(filter.days == period).then_some("true")] {
                            @match period { Some(days) => { "Last " (days) " days" } None => { "Everything" } }
                        }
                    }
                }
            }
        }
        @if lines.is_empty() {
            p {
                @if filter.flagged {
                    "No deploy outside the dashboard: the console hears of deploys through the records Sluiceway opens, and a deploy outside them is named on the dashboard itself."
                } @else {
                    "No deploy matches."
                }
            }
        } @else {
            table {
                thead {
                    tr {
                        th scope="col" { "When" }
                        th scope="col" { "Repository" }
                        th scope="col" { "Stack" }
                        th scope="col" { "Who" }
                        th scope="col" { "Commit" }
                        th scope="col" { "Result" }
                    }
                }
                tbody {
                    @for line in lines {
                        tr {
                            td { (line.facts.at().strftime("%Y-%m-%d %H:%M UTC").to_string()) }
                            td { a href=(with(&|f| { f.repo = Some(line.repo.clone()); f.stack = None; })) { (line.repo) } }
                            td { a href=(with(&|f| { f.repo = Some(line.repo.clone()); f.stack = Some(line.facts.stack.clone()); })) { (line.facts.stack) } }
                            td { (line.facts.who()) }
                            td { code { (line.facts.sha.get(..7).unwrap_or(&line.facts.sha)) } }
                            td { a href=(line.html_url) { (line.facts.result().0) } }
                        }
                    }
                }
            }
        }
        @if !asked.is_empty() {
            section aria-labelledby="asked" {
                h2 id="asked" { "What people asked the console" }
                ul {
                    @for line in asked {
                        li {
                            (line.at.strftime("%Y-%m-%d %H:%M UTC").to_string()) " · "
                            (line.repo) " · " (line.who) " " (line.words) " (" (line.via) ")"
                            @if let Some(link) = &line.link { " · " a href=(link) { "on GitHub" } }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;

//! A repository's dashboard tab (issue 42, part 2): the dashboard redrawn with the
//! action's own renderer from the facts the console keeps. No diff is kept, so every row
//! is drawn as a redacted row is (its counts, never a name or a path), from changes that
//! stand for the counts; the trail is drawn from the deploys the console heard of. The
//! issue on GitHub stays the truth, and the page links it.

use axum::Form;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use maud::{Markup, PreEscaped, html};
use sluiceway_core::config::raw::RawDashboard;
use sluiceway_core::diff::{Change, Diff, Op, Tracking};
use sluiceway_core::stack::StackId;
use sluiceway_dashboard::facts::RowState;
use sluiceway_dashboard::view::{
    FailureLine, Links, Reach, Root, Row, RowSource, State as RowView, TrailEntry, View,
};

use super::{PageError, kept_repo, layout, member, member_sending, respond};
use crate::Console;
use crate::api::{ApiError, with_installation};
use crate::facts::{Ended, StackFacts};
use crate::rescan::Outcome;
use crate::store::{KeptAsked, KeptDeploy, KeptRepo, KeptSession};

/// Where the redrawn body's header pictures are addressed; the page embeds them from
/// here, so nothing is fetched.
pub(crate) const PICTURES: &str = "https://pictures.sluiceway.invalid/header";

pub(super) async fn repo_page(
    State(console): State<Console>,
    headers: HeaderMap,
    Path((org, repo)): Path<(String, String)>,
) -> Result<Response, PageError> {
    let session = member(&console, &headers, &org).await?;
    let kept = kept_repo(&console, &org, &repo).await?;
    let deploys = console
        .store
        .deploys(&kept.place.org, Some(&kept.place.name), None)
        .await?;
    let body = repo_body(&kept, &deploys, &session).map_err(|_| PageError::Unavailable)?;
    Ok(respond(
        StatusCode::OK,
        layout(&kept.place.name, Some(&session.login), body),
    ))
}

/// What the rescan form sends.
#[derive(serde::Deserialize)]
pub(super) struct RescanForm {
    form_token: String,
}

/// A rescan asked from the page: judged as the API's is (write access, and none while
/// one runs), and written in the audit log's asked lines when it was asked.
pub(super) async fn rescan_sent(
    State(console): State<Console>,
    headers: HeaderMap,
    Path((org, repo)): Path<(String, String)>,
    Form(sent): Form<RescanForm>,
) -> Result<Response, PageError> {
    let session = member_sending(&console, &headers, &org, &sent.form_token).await?;
    let kept = kept_repo(&console, &org, &repo).await?;
    let (person, run) = (session.login.clone(), kept.scan.run);
    let (outcome, sentence) = with_installation(&console, &kept, move |installed| {
        crate::rescan::rescan(&installed.github, &person, run).map_err(|_| ApiError::GitHubSilent)
    })
    .await?;
    if outcome == Outcome::Asked {
        let asked = KeptAsked {
            repo: kept.place.name.clone(),
            at: (console.clock)(),
            who: session.login.clone(),
            words: "asked for a full scan".to_owned(),
            link: None,
            via: "console".to_owned(),
        };
        console.store.record_asked(&kept.place.org, &asked).await?;
    }
    let heading = match outcome {
        Outcome::Asked => "Rescan asked",
        Outcome::Refused => "Not rescanned",
        Outcome::GitHub => "Rescan it on GitHub",
        Outcome::Failed => "The rescan failed",
    };
    let name = match outcome {
        Outcome::Asked => "asked",
        Outcome::Refused => "refused",
        Outcome::GitHub => "github",
        Outcome::Failed => "failed",
    };
    let body = html! {
        p id="outcome" data-outcome=(name) { (sentence) }
        p {
            a href={ "/" (kept.place.org) "/" (kept.place.name) } { "Back to " (kept.place.name) } " · "
            a href=(kept.place.dashboard_url) { "The dashboard on GitHub" }
        }
    };
    Ok(respond(
        StatusCode::OK,
        layout(heading, Some(&session.login), body),
    ))
}

/// The page below its `h1`: pure.
pub(crate) fn repo_body(
    repo: &KeptRepo,
    deploys: &[KeptDeploy],
    session: &KeptSession,
) -> Result<Markup, sluiceway_dashboard::body::BodyError> {
    let body = sluiceway_dashboard::body::render(&redrawn(repo, deploys))?;
    let content = sluiceway_dashboard::page::content(&body, Some(PICTURES));
    Ok(html! {
        p {
            a href={ "/" (repo.place.org) } { (repo.place.org) } " / " (repo.place.name) " · "
            a href=(repo.place.dashboard_url) { "The dashboard on GitHub" } " · "
            a href={ "/" (repo.place.org) "/" (repo.place.name) "/settings" } { "Settings" }
        }
        p.muted {
            "Redrawn from the facts the console keeps: each row says what its change counts, as a redacted row does, and the dashboard on GitHub names the resources. Its boxes are ticked on GitHub, or on each stack's page here."
        }
        form method="post" action={ "/" (repo.place.org) "/" (repo.place.name) "/rescan" } {
            input type="hidden" name="form_token" value=(session.form_token);
            button type="submit" { "Rescan every stack" }
            " "
            span.muted { "A full scan of the default branch, as the dashboard's rescan box asks; it needs write access, and asks nothing while one runs." }
        }
        style { (PreEscaped(sluiceway_dashboard::page::STYLE)) }
        section.dashboard aria-label="The dashboard, redrawn" {
            (PreEscaped(content))
        }
    })
}

/// The dashboard's view as the kept facts draw it.
pub(crate) fn redrawn(repo: &KeptRepo, deploys: &[KeptDeploy]) -> View {
    let run = |run: u64| format!("{}/actions/runs/{run}", repo.place.html_url);
    let repository = format!("{}/{}", repo.place.org, repo.place.name);
    let server = repo
        .place
        .html_url
        .strip_suffix(&format!("/{repository}"))
        .unwrap_or(&repo.place.html_url)
        .to_owned();
    let newest = |stack: &str| {
        deploys
            .iter()
            .filter(|d| d.facts.stack == stack)
            .max_by_key(|d| d.facts.created_at)
    };
    View {
        root: Root {
            scan_sha: repo.scan.sha.clone(),
            scan_run: repo.scan.run,
            scan_at: repo.scan.at,
            full_scan_at: None,
            full_scan_run: None,
            waiting: None,
            failed_runs: None,
        },
        links: Links {
            server,
            repository,
            summary: format!("{}#summary", run(repo.scan.run)),
            pictures: PICTURES.to_owned(),
            reach: Reach::Runs,
        },
        rows: repo
            .stacks
            .iter()
            .map(|stack| RowSource::Fresh(row(stack, newest(&stack.stack), &run(repo.scan.run))))
            .collect(),
        unknown: Vec::new(),
        trail: trail(deploys),
        outside: Vec::new(),
        ignored: Vec::new(),
        confirms: Vec::new(),
        bulk_notes: Vec::new(),
        ticked_boxes: Vec::new(),
        hints: Vec::new(),
        layout: RawDashboard {
            redact: true,
            ..RawDashboard::default()
        },
        attribution_names: 5,
        version: env!("CARGO_PKG_VERSION").to_owned(),
        updates: Default::default(),
    }
}

/// `n` changes of `op` that stand for a count: no address, no name.
fn standing_for(n: u64, op: Op, tracking: Option<Tracking>) -> impl Iterator<Item = Change> {
    (0..n).map(move |_| Change {
        tracking,
        ..Change::new("", "", "", op)
    })
}

fn row(stack: &StackFacts, deploy: Option<&KeptDeploy>, scan_run: &str) -> Row {
    let id = StackId::given(&stack.stack);
    let drift = || {
        standing_for(stack.changed, Op::Update, None)
            .chain(standing_for(stack.gone, Op::Delete, None))
            .collect::<Vec<_>>()
    };
    let ticker = deploy.map_or_else(String::new, |d| d.facts.ticker.clone());
    let on_merge = deploy.is_some_and(|d| d.facts.on_merge);
    let deploy_run = deploy.map_or_else(|| scan_run.to_owned(), |d| d.html_url.clone());
    let state = match stack.state {
        RowState::Pending => RowView::Pending {
            diff: Diff {
                stack: id.clone(),
                changes: standing_for(stack.creates, Op::Create, None)
                    .chain(standing_for(stack.updates, Op::Update, None))
                    .chain(standing_for(stack.replaces, Op::Replace, None))
                    .chain(standing_for(stack.deletes, Op::Delete, None))
                    .chain(standing_for(
                        stack.tracking,
                        Op::None,
                        Some(Tracking::Import),
                    ))
                    .collect(),
                drift: (stack.changed + stack.gone > 0).then(drift),
            },
            preview: None,
            attribution: None,
        },
        RowState::Drift => RowView::Drifted {
            diff: Diff {
                stack: id.clone(),
                changes: Vec::new(),
                drift: Some(drift()),
            },
            preview: None,
        },
        RowState::Deploying => RowView::Deploying {
            ticker,
            on_merge,
            run: deploy_run,
            attribution: None,
        },
        RowState::Queued => RowView::Queued {
            behind: Vec::new(),
            opens: None,
            ticker,
            on_merge,
            run: deploy_run,
        },
        RowState::PreviewFailed if stack.busy => RowView::Busy {
            run: Some(scan_run.to_owned()),
        },
        RowState::PreviewFailed => RowView::PreviewFailed {
            reason: "the preview failed; its run holds the tool's words".to_owned(),
            run: Some(scan_run.to_owned()),
        },
        RowState::InSync => RowView::InSync,
    };
    let failure = (stack.failed)
        .then_some(deploy)
        .flatten()
        .map(|d| FailureLine {
            reason: "the deploy failed; its run holds the tool's words".to_owned(),
            ticker: d.facts.ticker.clone(),
            on_merge: d.facts.on_merge,
            at: d.facts.at(),
            run: d.html_url.clone(),
        });
    Row {
        stack: id,
        state,
        failure,
        notes: Vec::new(),
        drift_not_checked: false,
        policies: None,
        cost: None,
    }
}

/// The trail: every deploy that ended with a result the trail names, newest first.
fn trail(deploys: &[KeptDeploy]) -> Vec<TrailEntry> {
    let mut trail: Vec<TrailEntry> = deploys
        .iter()
        .filter_map(|d| {
            let Some(Ended::Trail(result)) = d.facts.status.as_ref().and_then(|s| s.ended) else {
                return None;
            };
            Some(TrailEntry {
                stack: StackId::given(&d.facts.stack),
                result,
                login: d.facts.ticker.clone(),
                on_merge: d.facts.on_merge,
                at: d.facts.at(),
                run: d.html_url.clone(),
                record: d.facts.id,
                shipped: None,
            })
        })
        .collect();
    trail.sort_by_key(|t| std::cmp::Reverse(t.at));
    trail
}

#[cfg(test)]
mod tests;

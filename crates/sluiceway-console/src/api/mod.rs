//! The API under `/api/v1`, as the reference's published description (`v1.1.0`) fixes
//! it: a personal token in `Authorization: Bearer`, never a cookie; every answer for the
//! token's org alone; stack ids in paths URL-encoded. It answers `me`, `org`, `repo`,
//! `stack`, `deployment` and `audit` from what it keeps, and `preview`, `tick`, `rescan`,
//! `config` and `configPullRequest` by asking GitHub as its GitHub App.

mod document;
mod error;
mod limits;
mod members;
mod views;

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use schemars::JsonSchema;
use serde::Serialize;

pub use error::ApiError;
use error::ChangesRefused;
pub use limits::Limits;
pub use members::Members;
pub(crate) use members::member_now;
pub use views::OrgViews;

use crate::Console;
use crate::store::{KeptDeploy, KeptRepo, KeptToken};
use crate::tokens;
use crate::view::{Counts, StackLine, State as AppState, needs_you_first};
use sluiceway_dashboard::facts::RowState;

pub(crate) fn routes() -> Router<Console> {
    Router::new()
        .route("/me", get(me))
        .route("/orgs/{org}", get(org))
        .route("/orgs/{org}/repos/{repo}", get(repo))
        .route("/orgs/{org}/repos/{repo}/stacks/{stack}", get(stack))
        .route(
            "/orgs/{org}/repos/{repo}/deployments/{deployment}",
            get(deployment),
        )
        .route(
            "/orgs/{org}/repos/{repo}/stacks/{stack}/preview",
            get(preview),
        )
        .route("/orgs/{org}/repos/{repo}/stacks/{stack}/tick", post(tick))
        .route("/orgs/{org}/repos/{repo}/rescan", post(rescan))
        .route("/orgs/{org}/repos/{repo}/config", get(config))
        .route(
            "/orgs/{org}/repos/{repo}/config/pull-request",
            post(config_pull_request),
        )
        .route("/orgs/{org}/audit", get(audit))
        .route(
            "/openapi.json",
            get(|| async { Json(document::document()) }),
        )
}

/// The token's person, once the token is known, alive and within its limit.
struct Caller {
    token: KeptToken,
}

/// What a request counts against: reads, or writes, which ask GitHub for something.
#[derive(Clone, Copy)]
enum Counted {
    Read,
    Write,
}

async fn caller(console: &Console, headers: &HeaderMap) -> Result<Caller, ApiError> {
    counted_caller(console, headers, Counted::Read).await
}

async fn counted_caller(
    console: &Console,
    headers: &HeaderMap,
    counted: Counted,
) -> Result<Caller, ApiError> {
    let secret = headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(str::trim)
        .filter(|secret| !secret.is_empty())
        .ok_or(ApiError::NoToken)?;
    if !secret.starts_with(tokens::PREFIX) {
        return Err(ApiError::TokenNotWorking);
    }
    let hash = tokens::hash(secret);
    let token = console
        .store
        .token(&hash)
        .await?
        .ok_or(ApiError::TokenNotWorking)?;
    let now = (console.clock)();
    if token.revoked || token.expires_at <= now {
        return Err(ApiError::TokenNotWorking);
    }
    let taken = match counted {
        Counted::Read => console.limits.take(&hash, now, limits::READS_A_MINUTE),
        Counted::Write => {
            console
                .limits
                .take(&format!("{hash}:writes"), now, limits::WRITES_A_MINUTE)
        }
    };
    taken.map_err(|retry_after| ApiError::RateLimited { retry_after })?;
    members::still_a_member(console, &token).await?;
    Ok(Caller { token })
}

impl Caller {
    /// The org in a path, when it is the token's (GitHub's logins ignore case).
    fn org<'a>(&self, org: &'a str) -> Result<&'a str, ApiError> {
        if org.eq_ignore_ascii_case(&self.token.org) {
            Ok(org)
        } else {
            Err(ApiError::NotAMember)
        }
    }
}

/// The token's person and org, and the token's own name and end.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Me {
    login: String,
    org: String,
    token: TokenLine,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct TokenLine {
    name: String,
    expires_at: String,
}

async fn me(State(console): State<Console>, headers: HeaderMap) -> Result<Json<Me>, ApiError> {
    let caller = caller(&console, &headers).await?;
    Ok(Json(Me {
        login: caller.token.login,
        org: caller.token.org,
        token: TokenLine {
            name: caller.token.name,
            expires_at: caller.token.expires_at.to_string(),
        },
    }))
}

#[derive(Serialize, JsonSchema)]
struct OrgLine {
    login: String,
    kind: &'static str,
    page: String,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct RepoLine {
    name: String,
    page: String,
    dashboard: Option<String>,
    stacks: usize,
    counts: Counts,
    record_writer: Option<String>,
}

/// What a repository line says of `recordWriters` until it names the console's bot; a
/// tick from the console works only once it does.
const RECORD_WRITER_NOT_NAMED: &str = "recordWriters in sluiceway.yaml at the last scan does not name the console's bot, so this repository's ticks happen on the dashboard.";
const RECORD_WRITER_UNREAD: &str = "The console has not read sluiceway.yaml at the last scan yet, so it does not say whether recordWriters names its bot; a tick says.";

impl Console {
    fn org_page(&self, org: &str) -> String {
        format!("{}/{}", self.settings.public_url, org)
    }

    fn org_line(&self, org: &str, repos: &[KeptRepo]) -> OrgLine {
        OrgLine {
            login: repos
                .first()
                .map_or(org, |r| r.place.org.as_str())
                .to_owned(),
            kind: match repos.first().map(|r| r.place.org_kind.as_str()) {
                Some("User") => "account",
                _ => "organization",
            },
            page: self.org_page(org),
        }
    }

    fn repo_line(&self, repo: &KeptRepo) -> RepoLine {
        RepoLine {
            name: repo.place.name.clone(),
            page: format!("{}/{}", self.org_page(&repo.place.org), repo.place.name),
            dashboard: Some(repo.place.dashboard_url.clone()),
            stacks: repo.stacks.len(),
            counts: Counts::of(&repo.stacks),
            record_writer: match &repo.record_writer {
                Some((sha, true)) if *sha == repo.scan.sha => None,
                Some((sha, false)) if *sha == repo.scan.sha => {
                    Some(RECORD_WRITER_NOT_NAMED.to_owned())
                }
                _ => Some(RECORD_WRITER_UNREAD.to_owned()),
            },
        }
    }
}

/// The org view: every stack of the org's repositories the console has read, those that
/// need a person first.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Org {
    org: OrgLine,
    counts: Counts,
    total: usize,
    last_scan: Option<LastScan>,
    repos: Vec<RepoLine>,
    stacks: Vec<StackLine>,
    locked: Vec<serde_json::Value>,
    allowance: Allowance,
    unshared: Option<serde_json::Value>,
}

#[derive(Serialize, JsonSchema)]
struct LastScan {
    sha: String,
    at: String,
    repo: String,
}

/// A console a team runs itself has no plan and no limit on repositories (ADR 0047).
#[derive(Serialize, JsonSchema)]
struct Allowance {
    plan: &'static str,
    limit: usize,
    sentence: Option<String>,
}

async fn org(
    State(console): State<Console>,
    headers: HeaderMap,
    Path(org): Path<String>,
) -> Result<Response, ApiError> {
    let caller = caller(&console, &headers).await?;
    caller.org(&org)?;
    let org = caller.token.org.as_str();
    // The version is read before the facts: an answer is never labelled newer than it is.
    let version = console.store.version(org).await?;
    if let Some(answer) = console.org_views.answer(org, version) {
        return Ok(json_bytes(answer));
    }
    let repos = console.store.repos(org).await?;
    let all = || repos.iter().flat_map(|r| r.stacks.iter());
    let mut stacks: Vec<StackLine> = repos
        .iter()
        .flat_map(|r| r.stacks.iter().map(move |s| StackLine::of(r, s)))
        .collect();
    needs_you_first(&mut stacks);
    let last_scan = repos.iter().max_by_key(|r| r.scan.at).map(|r| LastScan {
        sha: r.scan.sha.clone(),
        at: r.scan.at.to_string(),
        repo: r.place.name.clone(),
    });
    let answer = Org {
        org: console.org_line(org, &repos),
        counts: Counts::of(all()),
        total: all().count(),
        last_scan,
        repos: repos.iter().map(|r| console.repo_line(r)).collect(),
        stacks,
        locked: Vec::new(),
        allowance: Allowance {
            plan: "self-hosted",
            limit: repos.len(),
            sentence: None,
        },
        unshared: None,
    };
    let bytes = Bytes::from(serde_json::to_vec(&answer).map_err(|_| ApiError::Unavailable)?);
    console.org_views.keep(org, version, bytes.clone());
    Ok(json_bytes(bytes))
}

fn json_bytes(bytes: Bytes) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], bytes).into_response()
}

/// One repository's view: its last scan and its stacks.
#[derive(Serialize, JsonSchema)]
struct Repo {
    org: OrgLine,
    repo: RepoLine,
    scan: Option<RepoScan>,
    counts: Counts,
    total: usize,
    stacks: Vec<StackLine>,
}

#[derive(Serialize, JsonSchema)]
struct RepoScan {
    sha: String,
    at: Option<String>,
    run: Option<String>,
}

async fn kept_repo(
    console: &Console,
    caller: &Caller,
    org: &str,
    repo: &str,
) -> Result<KeptRepo, ApiError> {
    caller.org(org)?;
    console
        .store
        .repo(&caller.token.org, repo)
        .await?
        .ok_or(ApiError::NotFound)
}

/// A stack of a kept repository, by its id as the path gives it.
fn kept_stack<'a>(
    repo: &'a KeptRepo,
    stack: &str,
) -> Result<&'a crate::facts::StackFacts, ApiError> {
    repo.stacks
        .iter()
        .find(|s| s.stack == stack)
        .ok_or(ApiError::NotFound)
}

fn run_url(repo: &KeptRepo, run: u64) -> String {
    format!("{}/actions/runs/{run}", repo.place.html_url)
}

async fn repo(
    State(console): State<Console>,
    headers: HeaderMap,
    Path((org, repo)): Path<(String, String)>,
) -> Result<Json<Repo>, ApiError> {
    let caller = caller(&console, &headers).await?;
    let kept = kept_repo(&console, &caller, &org, &repo).await?;
    let mut stacks: Vec<StackLine> = kept
        .stacks
        .iter()
        .map(|s| StackLine::of(&kept, s))
        .collect();
    needs_you_first(&mut stacks);
    Ok(Json(Repo {
        org: console.org_line(&org, std::slice::from_ref(&kept)),
        repo: console.repo_line(&kept),
        scan: Some(RepoScan {
            sha: kept.scan.sha.clone(),
            at: Some(kept.scan.at.to_string()),
            run: Some(run_url(&kept, kept.scan.run)),
        }),
        counts: Counts::of(&kept.stacks),
        total: kept.stacks.len(),
        stacks,
    }))
}

/// One stack's facts, as its dashboard row's marker states them.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Stack {
    stack: String,
    repo: String,
    state: AppState,
    word: &'static str,
    line: String,
    counts: StackCounts,
    changes: Option<String>,
    destroys: Option<String>,
    drift: Option<String>,
    ticked: bool,
    failed: bool,
    dashboard: String,
    preview: Option<serde_json::Value>,
    run: Option<String>,
    last_deploy: Option<LastDeploy>,
    at: Option<String>,
    confirm: Option<Confirm>,
}

#[derive(Serialize, JsonSchema)]
struct StackCounts {
    creates: u64,
    updates: u64,
    replaces: u64,
    deletes: u64,
    tracking: u64,
    changed: u64,
    gone: u64,
}

#[derive(Serialize, JsonSchema)]
struct Confirm {
    destroys: u64,
    scan: Option<String>,
}

async fn stack(
    State(console): State<Console>,
    headers: HeaderMap,
    Path((org, repo, stack)): Path<(String, String, String)>,
) -> Result<Json<Stack>, ApiError> {
    let caller = caller(&console, &headers).await?;
    let kept = kept_repo(&console, &caller, &org, &repo).await?;
    let facts = kept_stack(&kept, &stack)?;
    let last_deploy = console
        .store
        .deploys(
            &caller.token.org,
            Some(&kept.place.name),
            Some(&facts.stack),
        )
        .await?
        .into_iter()
        .find(|d| d.facts.is_audited())
        .map(|d| LastDeploy::of(&d));
    Ok(Json(Stack {
        stack: facts.stack.clone(),
        repo: kept.place.name.clone(),
        state: facts.app_state(),
        word: facts.word(),
        line: facts.line(),
        counts: StackCounts {
            creates: facts.creates,
            updates: facts.updates,
            replaces: facts.replaces,
            deletes: facts.deletes,
            tracking: facts.tracking,
            changed: facts.changed,
            gone: facts.gone,
        },
        changes: facts.changes_in_words(),
        destroys: facts.destroys_in_words(),
        drift: facts.drift_in_words(),
        ticked: facts.ticked,
        failed: facts.failed,
        dashboard: kept.place.dashboard_url.clone(),
        // The preview page's address is read from the stack's check run, which the
        // console reads once it is a GitHub App; it never guesses one.
        preview: None,
        run: Some(run_url(&kept, kept.scan.run)),
        last_deploy,
        at: Some(kept.scan.at.to_string()),
        confirm: (facts.destroys > 0).then(|| Confirm {
            destroys: facts.destroys,
            scan: Some(kept.scan.sha.clone()),
        }),
    }))
}

/// A deploy as the audit log says it.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct Deploy {
    /// The deployment record's number.
    deployment: Option<u64>,
    stack: String,
    repo: String,
    #[serde(flatten)]
    line: DeployLine,
}

/// A stack's last deploy: a deploy without its stack and repository.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct LastDeploy {
    deployment: Option<u64>,
    #[serde(flatten)]
    line: DeployLine,
}

/// What a deploy was and how it went.
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct DeployLine {
    /// `ticked by <login>`, or `merged by <login>`.
    who: String,
    /// Where the tick was asked: null for a tick on the dashboard itself.
    via: Option<String>,
    /// In the trail's words: waiting to start, deploying now, went out, failed, no
    /// changes, drift fixed, drift gone, rehearsed, not deployed.
    result: &'static str,
    /// in-sync, failed, none or deploying.
    state: &'static str,
    sha: Option<String>,
    /// The workflow run that opened the record.
    run: Option<String>,
    at: String,
    /// Deployed outside the dashboard: never, for a record Sluiceway opened.
    flagged: bool,
    approved_by: Option<String>,
}

impl DeployLine {
    fn of(kept: &KeptDeploy) -> DeployLine {
        let facts = &kept.facts;
        let (result, state) = facts.result();
        DeployLine {
            who: facts.who(),
            via: None,
            result,
            state,
            sha: Some(facts.sha.clone()),
            run: Some(format!("{}/actions/runs/{}", kept.html_url, facts.run)),
            at: facts.at().to_string(),
            flagged: false,
            approved_by: None,
        }
    }
}

impl LastDeploy {
    fn of(kept: &KeptDeploy) -> LastDeploy {
        LastDeploy {
            deployment: Some(kept.facts.id),
            line: DeployLine::of(kept),
        }
    }
}

impl Deploy {
    fn of(kept: &KeptDeploy) -> Deploy {
        Deploy {
            deployment: Some(kept.facts.id),
            stack: kept.facts.stack.clone(),
            repo: kept.repo.clone(),
            line: DeployLine::of(kept),
        }
    }
}

async fn deployment(
    State(console): State<Console>,
    headers: HeaderMap,
    Path((org, repo, deployment)): Path<(String, String, String)>,
) -> Result<Json<Deploy>, ApiError> {
    let caller = caller(&console, &headers).await?;
    caller.org(&org)?;
    let id: u64 = deployment.parse().map_err(|_| ApiError::NotFound)?;
    console
        .store
        .deploys(&caller.token.org, Some(&repo), None)
        .await?
        .iter()
        .find(|d| d.facts.id == id)
        .map(|d| Json(Deploy::of(d)))
        .ok_or(ApiError::NotFound)
}

/// The audit log's filters, each a link in the reference's pages.
#[derive(serde::Deserialize)]
struct AuditFilter {
    repo: Option<String>,
    stack: Option<String>,
    flagged: Option<String>,
}

/// The audit log: a line per deploy, newest first.
#[derive(Serialize, JsonSchema)]
struct Audit {
    lines: Vec<Deploy>,
    asked: Vec<AskedLine>,
    history: History,
    locked: Vec<serde_json::Value>,
    unshared: Option<serde_json::Value>,
}

/// Something a person asked the console to do on GitHub for them.
#[derive(Serialize, JsonSchema)]
struct AskedLine {
    at: String,
    repo: String,
    who: String,
    words: String,
    link: Option<String>,
    via: String,
}

/// Where the API's requests come from, as an asked line says.
const VIA_API: &str = "command line";

#[derive(Serialize, JsonSchema)]
struct History {
    words: String,
    since: String,
    plan: &'static str,
}

async fn audit(
    State(console): State<Console>,
    headers: HeaderMap,
    Path(org): Path<String>,
    Query(filter): Query<AuditFilter>,
) -> Result<Json<Audit>, ApiError> {
    let caller = caller(&console, &headers).await?;
    caller.org(&org)?;
    let deploys = console
        .store
        .deploys(
            &caller.token.org,
            filter.repo.as_deref(),
            filter.stack.as_deref(),
        )
        .await?;
    let since = deploys
        .iter()
        .map(|d| d.facts.created_at)
        .min()
        .map_or_else(|| "never".to_owned(), |t| t.to_string());
    // Every record Sluiceway opened deployed from the dashboard, so none is flagged.
    let flagged_only = filter.flagged.as_deref() == Some("1");
    Ok(Json(Audit {
        lines: deploys
            .iter()
            .filter(|d| d.facts.is_audited() && !flagged_only)
            .map(Deploy::of)
            .collect(),
        // What was asked is of a repository, never of one stack.
        asked: match filter.stack {
            Some(_) => Vec::new(),
            None => console
                .store
                .asked(&caller.token.org, filter.repo.as_deref())
                .await?
                .into_iter()
                .map(|a| AskedLine {
                    at: a.at.to_string(),
                    repo: a.repo,
                    who: a.who,
                    words: a.words,
                    link: a.link,
                    via: a.via,
                })
                .collect(),
        },
        history: History {
            words: "Every deploy the console has heard of, kept for as long as it runs.".to_owned(),
            since,
            plan: "self-hosted",
        },
        locked: Vec::new(),
        unshared: None,
    }))
}

/// A tick's body: the stack's confirm, sent back, for a stack that deletes or replaces.
#[derive(serde::Deserialize, Default, JsonSchema)]
#[serde(deny_unknown_fields)]
struct TickBody {
    confirm: Option<crate::tick::Confirm>,
}

/// What came of a tick, and the record to poll when one was opened.
#[derive(Serialize, JsonSchema)]
struct TickAnswer {
    outcome: crate::tick::Outcome,
    sentence: String,
    deployment: Option<Opened>,
    dashboard: String,
    confirm: Option<crate::tick::Confirm>,
}

#[derive(Serialize, JsonSchema)]
struct Opened {
    id: u64,
    /// The deploy to poll: this API's address of the record.
    status: String,
}

/// Runs GitHub's side of an answer on a blocking thread, with the app's installation on
/// the repository's org.
pub(crate) async fn with_installation<T: Send + 'static>(
    console: &Console,
    repo: &KeptRepo,
    errand: impl FnOnce(&crate::github_app::Installed) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let app = console.app.clone();
    let now = (console.clock)();
    let (org, name) = (repo.place.org.clone(), repo.place.name.clone());
    tokio::task::spawn_blocking(move || {
        let installed = app.repo(&org, &name, now).map_err(|e| match e {
            crate::github_app::AppError::NotInstalled(_) => ApiError::OrgGone,
            _ => ApiError::GitHubSilent,
        })?;
        errand(&installed)
    })
    .await
    .map_err(|_| ApiError::GitHubSilent)?
}

async fn tick(
    State(console): State<Console>,
    headers: HeaderMap,
    Path((org, repo, stack)): Path<(String, String, String)>,
    body: Bytes,
) -> Result<Json<TickAnswer>, ApiError> {
    let caller = counted_caller(&console, &headers, Counted::Write).await?;
    let kept = kept_repo(&console, &caller, &org, &repo).await?;
    kept_stack(&kept, &stack)?;
    let dashboard = kept.place.dashboard_url.clone();
    let answer = |judged: crate::tick::Judged| TickAnswer {
        outcome: judged.outcome,
        sentence: judged.sentence,
        deployment: judged.deployment.map(|id| Opened {
            id,
            status: format!(
                "{}/api/v1/orgs/{}/repos/{}/deployments/{id}",
                console.settings.public_url, kept.place.org, kept.place.name
            ),
        }),
        dashboard: dashboard.clone(),
        confirm: judged.confirm,
    };
    // A body that is not the tick's asks nothing: the answer says so, and nothing is
    // written anywhere.
    let Ok(body) = (if body.is_empty() {
        Ok(TickBody::default())
    } else {
        serde_json::from_slice::<TickBody>(&body)
    }) else {
        return Ok(Json(answer(crate::tick::Judged {
            outcome: crate::tick::Outcome::Refused,
            sentence: "The request's body is not a tick: send nothing, or {\"confirm\": …} as the stack gives it.".to_owned(),
            deployment: None,
            confirm: None,
        })));
    };
    let asked = crate::tick::Asked {
        stack,
        person: caller.token.login.clone(),
        confirm: body.confirm,
        via: crate::tick::Via::Console,
    };
    let number = kept.place.dashboard_number;
    let judged = with_installation(&console, &kept, move |installed| {
        crate::tick::tick(&installed.github, &installed.bot, number, &asked).map_err(|e| match e {
            crate::tick::TickError::NoRow => ApiError::NotFound,
            crate::tick::TickError::Silent(_) => ApiError::GitHubSilent,
        })
    })
    .await?;
    Ok(Json(answer(judged)))
}

/// What came of a rescan.
#[derive(Serialize, JsonSchema)]
struct RescanAnswer {
    repo: String,
    outcome: crate::rescan::Outcome,
    sentence: String,
    dashboard: String,
}

async fn rescan(
    State(console): State<Console>,
    headers: HeaderMap,
    Path((org, repo)): Path<(String, String)>,
) -> Result<Json<RescanAnswer>, ApiError> {
    let caller = counted_caller(&console, &headers, Counted::Write).await?;
    let kept = kept_repo(&console, &caller, &org, &repo).await?;
    let person = caller.token.login.clone();
    let run = kept.scan.run;
    let (outcome, sentence) = with_installation(&console, &kept, move |installed| {
        crate::rescan::rescan(&installed.github, &person, run).map_err(|_| ApiError::GitHubSilent)
    })
    .await?;
    if outcome == crate::rescan::Outcome::Asked {
        remember(&console, &caller, &kept, "asked for a full scan", None).await?;
    }
    Ok(Json(RescanAnswer {
        repo: kept.place.name.clone(),
        outcome,
        sentence,
        dashboard: kept.place.dashboard_url.clone(),
    }))
}

/// A stack's preview, read from GitHub now and kept nowhere.
async fn preview(
    State(console): State<Console>,
    headers: HeaderMap,
    Path((org, repo, stack)): Path<(String, String, String)>,
) -> Result<Json<crate::preview::Preview>, ApiError> {
    let caller = caller(&console, &headers).await?;
    let kept = kept_repo(&console, &caller, &org, &repo).await?;
    let facts = kept_stack(&kept, &stack)?;
    if !matches!(facts.state, RowState::Pending | RowState::Drift) {
        return Err(ApiError::NoPreview);
    }
    let sha = kept.scan.sha.clone();
    let name = kept.place.name.clone();
    let answer = with_installation(&console, &kept, move |installed| {
        crate::preview::preview(&installed.github, &name, &stack, &sha).map_err(|e| match e {
            crate::preview::PreviewError::NoPage => ApiError::NoPreview,
            crate::preview::PreviewError::Unreadable => ApiError::PreviewUnreadable,
            crate::preview::PreviewError::Silent(_) => ApiError::GitHubSilent,
        })
    })
    .await?;
    Ok(Json(answer))
}

/// The repository's `sluiceway.yaml` at the scanned commit, for the settings editor.
async fn config(
    State(console): State<Console>,
    headers: HeaderMap,
    Path((org, repo)): Path<(String, String)>,
) -> Result<Json<crate::config::ConfigAnswer>, ApiError> {
    let caller = caller(&console, &headers).await?;
    let kept = kept_repo(&console, &caller, &org, &repo).await?;
    let (name, html_url, sha, run) = (
        kept.place.name.clone(),
        kept.place.html_url.clone(),
        kept.scan.sha.clone(),
        kept.scan.run,
    );
    let answer = with_installation(&console, &kept, move |installed| {
        let base = crate::workflow::of_scan(&installed.github, run).map(|w| w.branch);
        crate::config::read(&installed.github, &name, &html_url, &sha, base)
            .map_err(|_| ApiError::GitHubSilent)
    })
    .await?;
    Ok(Json(answer))
}

/// What a settings change asks for.
#[derive(serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ChangesBody {
    changes: Vec<crate::config_pull_request::KeyChange>,
}

/// Opens the pull request that changes the keys asked in `sluiceway.yaml`.
async fn config_pull_request(
    State(console): State<Console>,
    headers: HeaderMap,
    Path((org, repo)): Path<(String, String)>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let caller = counted_caller(&console, &headers, Counted::Write).await?;
    let kept = kept_repo(&console, &caller, &org, &repo).await?;
    let Ok(body) = serde_json::from_slice::<ChangesBody>(&body) else {
        return Ok(ChangesRefused::new(vec![
            "The request's body is not {\"changes\": [{\"key\": …, \"value\": …}, …]}.".to_owned(),
        ])
        .into_response());
    };
    if let Err(problems) = crate::config_pull_request::check(&body.changes) {
        return Ok(ChangesRefused::new(problems).into_response());
    }
    let person = caller.token.login.clone();
    let answer = with_installation(&console, &kept, move |installed| {
        crate::config_pull_request::open(&installed.github, &person, &body.changes).map_err(|e| {
            match e {
                crate::config_pull_request::Refusal::NoWriteAccess => ApiError::NoWriteAccess,
                crate::config_pull_request::Refusal::Silent(_) => ApiError::GitHubSilent,
            }
        })
    })
    .await?;
    if answer.outcome == crate::config_pull_request::Outcome::Opened {
        let words = format!(
            "opened pull request #{} to change {} setting{}",
            answer.pull_request.unwrap_or_default(),
            answer.changes.len(),
            if answer.changes.len() == 1 { "" } else { "s" }
        );
        remember(&console, &caller, &kept, &words, answer.url.clone()).await?;
    }
    Ok(Json(answer).into_response())
}

/// Keeps what the caller asked of GitHub for the audit log.
async fn remember(
    console: &Console,
    caller: &Caller,
    kept: &KeptRepo,
    words: &str,
    link: Option<String>,
) -> Result<(), ApiError> {
    let asked = crate::store::KeptAsked {
        repo: kept.place.name.clone(),
        at: (console.clock)(),
        who: caller.token.login.clone(),
        words: words.to_owned(),
        link,
        via: VIA_API.to_owned(),
    };
    Ok(console.store.record_asked(&kept.place.org, &asked).await?)
}

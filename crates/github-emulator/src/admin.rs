//! The admin API, under `/_emulator`: what a test (or a person with `curl`) uses to act
//! as somebody on GitHub, arm faults, and read what the emulator saw. It is not
//! GitHub's, so it needs no token and no description holds it.

use std::collections::BTreeMap;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::faults::Fault;
use crate::server::{Shared, error_body};
use crate::world::{AccountKind, FileChange, Grant, Level, Refusal, Role, Rollup, World};

pub(crate) fn routes() -> Router<Shared> {
    Router::new()
        .route("/state", get(state).put(replace_state))
        .route("/faults", post(arm))
        .route("/violations", get(violations))
        .route("/traffic", get(traffic))
        .route("/act", post(act))
        .route("/deliveries", get(deliveries))
        .route("/deliveries/faults", post(arm_delivery))
}

async fn state(State(shared): State<Shared>) -> Json<World> {
    Json(shared.read().clone())
}

async fn replace_state(State(shared): State<Shared>, Json(world): Json<World>) -> StatusCode {
    let _ = shared.change(|w| {
        *w = world;
        Ok(())
    });
    StatusCode::NO_CONTENT
}

async fn arm(State(shared): State<Shared>, Json(fault): Json<Fault>) -> StatusCode {
    shared.faults().arm(fault);
    StatusCode::NO_CONTENT
}

async fn deliveries(State(shared): State<Shared>) -> Json<Vec<crate::hooks::Made>> {
    Json(shared.deliveries())
}

async fn arm_delivery(
    State(shared): State<Shared>,
    Json(fault): Json<crate::hooks::DeliveryFault>,
) -> StatusCode {
    shared.arm_delivery(fault);
    StatusCode::NO_CONTENT
}

async fn violations(State(shared): State<Shared>) -> Json<Vec<String>> {
    Json(shared.violations())
}

async fn traffic(State(shared): State<Shared>) -> Json<Vec<String>> {
    Json(shared.traffic())
}

/// One thing a person (or GitHub itself) does.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Act {
    AddRepo {
        repo: String,
        default_branch: String,
    },
    AddAccount {
        login: String,
        kind: AccountKind,
    },
    AddToken {
        token: String,
        login: String,
        permissions: Option<BTreeMap<String, Level>>,
    },
    AddCollaborator {
        repo: String,
        login: String,
        role: Role,
    },
    /// Registers a webhook, as installing a GitHub App with one does.
    AddHook {
        url: String,
        secret: String,
    },
    /// Makes a person a member of an organization.
    AddMember {
        org: String,
        login: String,
    },
    /// Removes a person from an organization, as an owner would.
    RemoveMember {
        org: String,
        login: String,
    },
    /// Registers a GitHub App by the public half of its key; answers it: its id, and
    /// its sign-in's client id and secret.
    AddApp {
        slug: String,
        public_key_pem: String,
    },
    /// Installs an app on an account; answers the installation's id.
    Install {
        app: u64,
        account: String,
        permissions: BTreeMap<String, Level>,
    },
    /// Uninstalls an app from an account, as `sender` does; the app hears of it.
    Uninstall {
        app: u64,
        account: String,
        sender: String,
    },
    AddWorkflow {
        repo: String,
        file: String,
    },
    CreateIssue {
        repo: String,
        author: String,
        title: String,
        body: String,
        labels: Vec<String>,
    },
    EditBody {
        repo: String,
        issue: u64,
        editor: String,
        body: String,
    },
    Tick {
        repo: String,
        issue: u64,
        person: String,
        line: String,
    },
    Untick {
        repo: String,
        issue: u64,
        person: String,
        line: String,
    },
    DeleteEdit {
        repo: String,
        issue: u64,
        newest_first_index: usize,
        by: String,
    },
    Push {
        repo: String,
        branch: String,
        author: Option<String>,
        message: String,
        files: Vec<FileChange>,
    },
    OpenPull {
        repo: String,
        author: String,
        title: String,
        files: Vec<FileChange>,
    },
    StartRun {
        repo: String,
        workflow: String,
        event: String,
        actor: String,
    },
    EndRun {
        repo: String,
        run: u64,
        conclusion: String,
    },
    /// Time passes: the world's clock reads `at` (plus a second for each thing that
    /// happens after). Tests set it to the machine's time, so runs queue and end at
    /// moments the scan measures against its own clock.
    SetClock {
        at: jiff::Timestamp,
    },
    /// Sets a commit's check rollup, as its checks finishing would.
    SetChecks {
        repo: String,
        sha: String,
        rollup: Rollup,
    },
    /// Answers the payload of a `pull_request` event for an open pull request, as the
    /// workflow it starts reads it; `fork` names the account whose fork the head is in.
    PullRequestEvent {
        repo: String,
        number: u64,
        action: String,
        fork: Option<String>,
    },
}

impl Act {
    /// Does it, and answers what it made (an issue's number, a commit's SHA, a run's
    /// id), when it made something.
    pub fn apply(&self, w: &mut World) -> Result<serde_json::Value, Refusal> {
        Ok(match self {
            Act::AddRepo {
                repo,
                default_branch,
            } => json!(w.add_repo(repo, default_branch)?),
            Act::AddAccount { login, kind } => json!(w.add_account(login, *kind)),
            Act::AddToken {
                token,
                login,
                permissions,
            } => {
                w.add_token(
                    token,
                    Grant {
                        login: login.clone(),
                        permissions: permissions.clone(),
                    },
                );
                json!(null)
            }
            Act::AddCollaborator { repo, login, role } => {
                json!(w.add_collaborator(repo, login, *role)?)
            }
            Act::AddHook { url, secret } => {
                w.hooks.push(crate::hooks::Hook {
                    url: url.clone(),
                    secret: secret.clone(),
                });
                json!(null)
            }
            Act::AddApp {
                slug,
                public_key_pem,
            } => json!(w.add_app(slug, public_key_pem)),
            Act::AddMember { org, login } => {
                w.add_member(org, login)?;
                json!(null)
            }
            Act::RemoveMember { org, login } => {
                w.remove_member(org, login);
                json!(null)
            }
            Act::Install {
                app,
                account,
                permissions,
            } => json!(w.install(*app, account, permissions.clone())?),
            Act::Uninstall {
                app,
                account,
                sender,
            } => {
                w.uninstall(*app, account, sender)?;
                json!(null)
            }
            Act::AddWorkflow { repo, file } => json!(w.add_workflow(repo, file)?),
            Act::CreateIssue {
                repo,
                author,
                title,
                body,
                labels,
            } => {
                json!(w.create_issue(repo, author, title, body, labels.clone())?)
            }
            Act::EditBody {
                repo,
                issue,
                editor,
                body,
            } => json!(w.edit_body(repo, *issue, editor, body)?),
            Act::Tick {
                repo,
                issue,
                person,
                line,
            } => json!(w.set_box(repo, *issue, person, line, true)?),
            Act::Untick {
                repo,
                issue,
                person,
                line,
            } => json!(w.set_box(repo, *issue, person, line, false)?),
            Act::DeleteEdit {
                repo,
                issue,
                newest_first_index,
                by,
            } => {
                json!(w.delete_edit(repo, *issue, *newest_first_index, by)?)
            }
            Act::Push {
                repo,
                branch,
                author,
                message,
                files,
            } => {
                json!(w.push(repo, branch, author.as_deref(), message, files.clone())?)
            }
            Act::OpenPull {
                repo,
                author,
                title,
                files,
            } => json!(w.open_pull(repo, author, title, files.clone())?),
            Act::PullRequestEvent {
                repo,
                number,
                action,
                fork,
            } => {
                let site = crate::shapes::Site {
                    html: "https://github.com".to_owned(),
                    api: "https://api.github.com".to_owned(),
                };
                let repo = w.repo(repo)?;
                let pull = repo
                    .pulls
                    .get(number)
                    .ok_or_else(|| Refusal::new(404, "Not Found"))?;
                let urls = crate::shapes::Urls { site: &site, repo };
                crate::shapes::pull_request_event(w, &urls, pull, action, fork.as_deref())
            }
            Act::StartRun {
                repo,
                workflow,
                event,
                actor,
            } => {
                let branch = w.repo(repo)?.default_branch.clone();
                let head = w
                    .repo(repo)?
                    .branches
                    .get(&branch)
                    .cloned()
                    .unwrap_or_default();
                json!(w.start_run(
                    repo,
                    workflow,
                    event,
                    &branch,
                    &head,
                    actor,
                    BTreeMap::new()
                )?)
            }
            Act::SetClock { at } => {
                w.now = *at;
                json!(null)
            }
            Act::SetChecks { repo, sha, rollup } => {
                let commit = w
                    .repo_mut(repo)?
                    .commits
                    .get_mut(sha)
                    .ok_or_else(Refusal::not_found)?;
                commit.checks = Some(rollup.clone());
                json!(null)
            }
            Act::EndRun {
                repo,
                run,
                conclusion,
            } => {
                let run = w
                    .repo_mut(repo)?
                    .runs
                    .get_mut(run)
                    .ok_or_else(Refusal::not_found)?;
                run.status = "completed".into();
                run.conclusion = Some(conclusion.clone());
                json!(null)
            }
        })
    }
}

async fn act(State(shared): State<Shared>, Json(act): Json<Act>) -> Response {
    match shared.change(|w| act.apply(w)) {
        Ok(made) => (StatusCode::OK, Json(made)).into_response(),
        Err(refusal) => {
            let status = StatusCode::from_u16(refusal.status).unwrap_or(StatusCode::BAD_REQUEST);
            (status, Json(error_body(&refusal))).into_response()
        }
    }
}

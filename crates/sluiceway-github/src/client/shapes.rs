//! Reading GitHub's answers into the port's types. A missing or mistyped field names
//! itself (never a value) and fails the call as unreadable.

use jiff::Timestamp;
use serde_json::Value;

use crate::{
    Actor, ActorKind, Call, ChangedFile, CheckRun, DeploymentRecord, Failure, GitHubError, Issue,
    IssueState, PullRequestLink, RecordState, RecordStatus, WorkflowRun,
};

/// A cursor over one JSON answer that knows which call it serves.
#[derive(Clone, Copy)]
pub(crate) struct Read<'a> {
    pub(crate) call: &'a Call,
    pub(crate) value: &'a Value,
}

impl<'a> Read<'a> {
    pub(crate) fn new(call: &'a Call, value: &'a Value) -> Self {
        Read { call, value }
    }

    fn unreadable(&self, what: &str) -> GitHubError {
        GitHubError::new(self.call, Failure::Unreadable(what.to_owned()))
    }

    /// The value at a dotted path; `null` and absence are both `None`.
    pub(crate) fn opt(&self, path: &str) -> Option<Read<'a>> {
        let mut value = self.value;
        for key in path.split('.') {
            value = value.get(key)?;
        }
        (!value.is_null()).then_some(Read {
            call: self.call,
            value,
        })
    }

    pub(crate) fn at(&self, path: &str) -> Result<Read<'a>, GitHubError> {
        self.opt(path)
            .ok_or_else(|| self.unreadable(&format!("`{path}` is missing")))
    }

    pub(crate) fn text(&self, path: &str) -> Result<String, GitHubError> {
        self.at(path)?
            .value
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| self.unreadable(&format!("`{path}` is not a string")))
    }

    pub(crate) fn opt_text(&self, path: &str) -> Option<String> {
        self.opt(path)?.value.as_str().map(str::to_owned)
    }

    pub(crate) fn number(&self, path: &str) -> Result<u64, GitHubError> {
        self.at(path)?
            .value
            .as_u64()
            .ok_or_else(|| self.unreadable(&format!("`{path}` is not a whole number")))
    }

    pub(crate) fn flag(&self, path: &str) -> Result<bool, GitHubError> {
        self.at(path)?
            .value
            .as_bool()
            .ok_or_else(|| self.unreadable(&format!("`{path}` is not a boolean")))
    }

    pub(crate) fn time(&self, path: &str) -> Result<Timestamp, GitHubError> {
        self.text(path)?
            .parse()
            .map_err(|_| self.unreadable(&format!("`{path}` is not a time")))
    }

    pub(crate) fn items(&self, path: &str) -> Result<Vec<Read<'a>>, GitHubError> {
        let list = if path.is_empty() {
            *self
        } else {
            self.at(path)?
        };
        let items = list
            .value
            .as_array()
            .ok_or_else(|| self.unreadable(&format!("`{path}` is not a list")))?;
        Ok(items
            .iter()
            .map(|value| Read {
                call: self.call,
                value,
            })
            .collect())
    }

    /// A GraphQL actor (`__typename`, `login`) or a REST user (`type`, `login`).
    pub(crate) fn actor(&self, path: &str) -> Result<Option<Actor>, GitHubError> {
        let Some(actor) = self.opt(path) else {
            return Ok(None);
        };
        let kind = actor
            .opt_text("__typename")
            .or_else(|| actor.opt_text("type"));
        Ok(Some(Actor {
            login: actor.text("login")?,
            kind: actor_kind(kind.as_deref()),
        }))
    }
}

pub(crate) fn actor_kind(name: Option<&str>) -> ActorKind {
    match name {
        Some("User") => ActorKind::User,
        Some("Bot") => ActorKind::Bot,
        _ => ActorKind::Other,
    }
}

pub(crate) fn issue(read: Read<'_>) -> Result<Issue, GitHubError> {
    let state = match read.text("state")?.as_str() {
        "open" => IssueState::Open,
        _ => IssueState::Closed,
    };
    let labels = read
        .items("labels")?
        .iter()
        .map(|label| {
            label
                .opt_text("name")
                .or_else(|| label.value.as_str().map(str::to_owned))
        })
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| {
            GitHubError::new(read.call, Failure::Unreadable("a label has no name".into()))
        })?;
    Ok(Issue {
        number: read.number("number")?,
        node_id: read.text("node_id")?,
        title: read.text("title")?,
        state,
        author: read.actor("user")?.ok_or_else(|| {
            GitHubError::new(read.call, Failure::Unreadable("`user` is missing".into()))
        })?,
        html_url: read.text("html_url")?,
        labels,
        created_at: read.time("created_at")?,
        body: read.opt_text("body").unwrap_or_default(),
    })
}

/// A REST deployment; its latest status comes from a second request.
pub(crate) fn deployment(
    read: Read<'_>,
    latest_status: Option<RecordStatus>,
) -> Result<DeploymentRecord, GitHubError> {
    Ok(DeploymentRecord {
        id: read.number("id")?,
        task: read.text("task")?,
        environment: read.text("environment")?,
        sha: read.text("sha")?,
        payload: payload(read.opt("payload").map(|p| p.value.clone())),
        created_at: read.time("created_at")?,
        creator: read.opt_text("creator.login"),
        latest_status,
    })
}

/// REST gives the payload as an object; GraphQL as a JSON string, doubly encoded, or
/// null (decision 0003). Both come out as the object, or `null` when it is neither.
pub(crate) fn payload(raw: Option<Value>) -> Value {
    match raw {
        Some(Value::String(text)) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::String(inner)) => serde_json::from_str(&inner).unwrap_or(Value::Null),
            Ok(value) => value,
            Err(_) => Value::Null,
        },
        Some(value @ Value::Object(_)) => value,
        _ => Value::Null,
    }
}

pub(crate) fn status(read: Read<'_>) -> Result<RecordStatus, GitHubError> {
    let state = read.text("state")?;
    Ok(RecordStatus {
        state: RecordState::parse(&state).ok_or_else(|| {
            GitHubError::new(
                read.call,
                Failure::Unreadable("`state` is not a deployment state".into()),
            )
        })?,
        description: read.opt_text("description").unwrap_or_default(),
        created_at: read.time(if read.opt("created_at").is_some() {
            "created_at"
        } else {
            "createdAt"
        })?,
    })
}

pub(crate) fn check_run(read: Read<'_>) -> Result<CheckRun, GitHubError> {
    Ok(CheckRun {
        id: read.number("id")?,
        name: read.text("name")?,
        html_url: read.text("html_url")?,
        external_id: read.opt_text("external_id").filter(|id| !id.is_empty()),
        head_sha: read.opt_text("head_sha").unwrap_or_default(),
        title: read.opt_text("output.title"),
        text: read.opt_text("output.text"),
        completed_at: read.opt_text("completed_at").and_then(|at| at.parse().ok()),
    })
}

pub(crate) fn workflow_run(read: Read<'_>) -> Result<WorkflowRun, GitHubError> {
    let started = if read.opt("run_started_at").is_some() {
        "run_started_at"
    } else {
        "created_at"
    };
    Ok(WorkflowRun {
        id: read.number("id")?,
        event: read.text("event")?,
        status: read.opt_text("status").unwrap_or_default(),
        conclusion: read.opt_text("conclusion"),
        html_url: read.text("html_url")?,
        started_at: read.time(started)?,
        head_branch: read.opt_text("head_branch"),
        workflow_file: read
            .opt_text("path")
            .and_then(|path| workflow_file(&path).map(str::to_owned)),
    })
}

/// The workflow's file name from a run's `path`: `.github/workflows/<file>`, which a
/// dispatch names it by. A dynamic workflow's path (`dynamic/…`) names no file.
fn workflow_file(path: &str) -> Option<&str> {
    path.strip_prefix(".github/workflows/")
        .filter(|file| !file.is_empty() && !file.contains('/'))
}

pub(crate) fn changed_file(read: Read<'_>) -> Result<ChangedFile, GitHubError> {
    Ok(ChangedFile {
        path: read.text("filename")?,
        previous_path: read.opt_text("previous_filename"),
    })
}

pub(crate) fn pull_request_link(read: Read<'_>) -> Result<PullRequestLink, GitHubError> {
    Ok(PullRequestLink {
        number: read.number("number")?,
        html_url: read.text("html_url")?,
    })
}

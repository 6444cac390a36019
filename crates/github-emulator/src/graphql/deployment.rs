//! Deployments, their latest status, and the payload as GitHub gives it.

use async_graphql::{Enum, ID, Object, SimpleObject};

use super::{Actor, DateTime, PageInfo, Snapshot};
use crate::shapes::time;

#[derive(SimpleObject)]
#[graphql(rename_fields = "camelCase")]
pub(super) struct DeploymentConnection {
    pub(super) nodes: Option<Vec<Option<Deployment>>>,
    pub(super) page_info: PageInfo,
    pub(super) total_count: i32,
}

pub(super) struct Deployment {
    pub(super) snapshot: Snapshot,
    pub(super) id: u64,
}

impl Deployment {
    fn record(&self) -> &crate::world::Deployment {
        &self.snapshot.repo().deployments[&self.id]
    }
}

#[Object]
impl Deployment {
    async fn id(&self) -> ID {
        ID(format!("DE_{}", self.id))
    }

    #[graphql(name = "databaseId")]
    async fn database_id(&self) -> Option<i32> {
        i32::try_from(self.id).ok()
    }

    async fn task(&self) -> Option<&str> {
        Some(&self.record().task)
    }

    async fn environment(&self) -> Option<&str> {
        Some(&self.record().environment)
    }

    /// GitHub's GraphQL API gives the payload JSON-encoded twice (decision 0003).
    async fn payload(&self) -> Option<String> {
        let once = serde_json::to_string(&self.record().payload).ok()?;
        serde_json::to_string(&once).ok()
    }

    #[graphql(name = "createdAt")]
    async fn created_at(&self) -> DateTime {
        DateTime(time(self.record().created_at))
    }

    /// The account that made the deployment. GitHub always names one: an account
    /// deleted since is the `ghost` user, as REST gives it.
    async fn creator(&self) -> Actor {
        self.snapshot
            .actor(&self.record().creator)
            .unwrap_or_else(|| self.snapshot.ghost())
    }

    #[graphql(name = "commitOid")]
    async fn commit_oid(&self) -> &str {
        &self.record().sha
    }

    #[graphql(name = "latestStatus")]
    async fn latest_status(&self) -> Option<DeploymentStatus> {
        let status = self.record().statuses.last()?;
        Some(DeploymentStatus {
            id: ID(format!("DES_{}", status.id)),
            state: DeploymentStatusState::from_rest(&status.state)?,
            description: Some(status.description.clone()),
            created_at: DateTime(time(status.created_at)),
        })
    }
}

#[derive(SimpleObject)]
#[graphql(rename_fields = "camelCase")]
pub(super) struct DeploymentStatus {
    pub(super) id: ID,
    pub(super) state: DeploymentStatusState,
    pub(super) description: Option<String>,
    pub(super) created_at: DateTime,
}

#[derive(Enum, Copy, Clone, PartialEq, Eq)]
pub(super) enum DeploymentStatusState {
    Error,
    Failure,
    Inactive,
    InProgress,
    Pending,
    Queued,
    Success,
    Waiting,
}

impl DeploymentStatusState {
    fn from_rest(state: &str) -> Option<Self> {
        Some(match state {
            "error" => Self::Error,
            "failure" => Self::Failure,
            "inactive" => Self::Inactive,
            "in_progress" => Self::InProgress,
            "pending" => Self::Pending,
            "queued" => Self::Queued,
            "success" => Self::Success,
            "waiting" => Self::Waiting,
            _ => return None,
        })
    }
}

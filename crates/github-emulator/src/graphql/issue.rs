//! Issues, their edit histories, and pinned issues.

use async_graphql::{ID, Object, SimpleObject};

use super::{Actor, DateTime, PageInfo, Snapshot, page};
use crate::shapes::{issue_node_id, time};

#[derive(SimpleObject)]
#[graphql(rename_fields = "camelCase")]
pub(super) struct PinnedIssueConnection {
    pub(super) nodes: Option<Vec<Option<PinnedIssue>>>,
    pub(super) page_info: PageInfo,
    pub(super) total_count: i32,
}

#[derive(SimpleObject)]
pub(super) struct PinnedIssue {
    pub(super) issue: Issue,
}

pub(super) struct Issue {
    pub(super) snapshot: Snapshot,
    pub(super) number: u64,
}

impl Issue {
    fn issue(&self) -> &crate::world::Issue {
        &self.snapshot.repo().issues[&self.number]
    }
}

#[Object]
impl Issue {
    async fn id(&self) -> ID {
        ID(issue_node_id(self.snapshot.repo(), self.number))
    }

    async fn number(&self) -> i32 {
        self.number as i32
    }

    async fn title(&self) -> &str {
        &self.issue().title
    }

    async fn body(&self) -> &str {
        &self.issue().body
    }

    /// Whether the issue is pinned to its repository's issue list.
    #[graphql(name = "isPinned")]
    async fn is_pinned(&self) -> Option<bool> {
        Some(self.snapshot.repo().pinned.contains(&self.number))
    }

    /// Newest first, as GitHub lists them.
    #[graphql(name = "userContentEdits")]
    async fn user_content_edits(
        &self,
        first: Option<i32>,
        after: Option<String>,
        last: Option<i32>,
        before: Option<String>,
    ) -> Option<UserContentEditConnection> {
        let _ = before;
        let edits: Vec<UserContentEdit> = self
            .issue()
            .edits
            .iter()
            .rev()
            .map(|e| UserContentEdit {
                id: ID(format!("UCE_{}", e.id)),
                created_at: DateTime(time(e.at)),
                edited_at: DateTime(time(e.at)),
                updated_at: DateTime(time(e.deleted_at.unwrap_or(e.at))),
                deleted_at: e.deleted_at.map(|t| DateTime(time(t))),
                deleted_by: e.deleted_by.as_deref().and_then(|l| self.snapshot.actor(l)),
                diff: e.deleted_at.is_none().then(|| e.body.clone()),
                editor: e.editor.as_deref().and_then(|l| self.snapshot.actor(l)),
            })
            .collect();
        let total = edits.len() as i32;
        let (nodes, page_info) = page(edits, first, after.as_deref(), last);
        Some(UserContentEditConnection {
            nodes: Some(nodes.into_iter().map(Some).collect()),
            page_info,
            total_count: total,
        })
    }
}

#[derive(SimpleObject)]
#[graphql(rename_fields = "camelCase")]
pub(super) struct UserContentEditConnection {
    pub(super) nodes: Option<Vec<Option<UserContentEdit>>>,
    pub(super) page_info: PageInfo,
    pub(super) total_count: i32,
}

#[derive(SimpleObject)]
#[graphql(rename_fields = "camelCase")]
pub(super) struct UserContentEdit {
    pub(super) id: ID,
    pub(super) created_at: DateTime,
    pub(super) edited_at: DateTime,
    pub(super) updated_at: DateTime,
    pub(super) deleted_at: Option<DateTime>,
    pub(super) deleted_by: Option<Actor>,
    pub(super) diff: Option<String>,
    pub(super) editor: Option<Actor>,
}

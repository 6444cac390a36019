//! The one mutation the port uses: pinning an issue.

use std::sync::Arc;

use async_graphql::{ErrorExtensions, ID, InputObject, Object, SimpleObject};

use super::issue::Issue;
use super::{Snapshot, forbidden, not_found};
use crate::server::{Caller, Shared};
use crate::shapes::issue_node_id;
use crate::world::{Level, Refusal};

pub(crate) struct Mutation;

#[derive(InputObject)]
#[graphql(rename_fields = "camelCase")]
pub(super) struct PinIssueInput {
    pub(super) client_mutation_id: Option<String>,
    pub(super) issue_id: ID,
}

#[derive(SimpleObject)]
#[graphql(rename_fields = "camelCase")]
pub(super) struct PinIssuePayload {
    pub(super) client_mutation_id: Option<String>,
    pub(super) issue: Option<Issue>,
}

#[Object]
impl Mutation {
    #[graphql(name = "pinIssue")]
    async fn pin_issue(
        &self,
        ctx: &async_graphql::Context<'_>,
        input: PinIssueInput,
    ) -> async_graphql::Result<Option<PinIssuePayload>> {
        let shared = ctx.data::<Shared>()?;
        ctx.data::<Caller>()?
            .require("issues", Level::Write)
            .map_err(forbidden)?;
        let pinned = shared.change(|world| {
            for repo in world.repos.values_mut() {
                let found = repo
                    .issues
                    .keys()
                    .copied()
                    .find(|&n| issue_node_id(repo, n) == input.issue_id.0);
                if let Some(number) = found {
                    if !repo.pinned.contains(&number) {
                        if repo.pinned.len() >= 3 {
                            return Err(Refusal::new(
                                422,
                                "A repository can pin at most three issues.",
                            ));
                        }
                        repo.pinned.push(number);
                    }
                    return Ok((repo.full_name(), number));
                }
            }
            Err(Refusal::not_found())
        });
        let (repo, number) = match pinned {
            Ok(found) => found,
            Err(refusal) if refusal.status == 404 => {
                return Err(not_found("a node", &input.issue_id.0));
            }
            Err(refusal) => {
                return Err(async_graphql::Error::new(refusal.message)
                    .extend_with(|_, e| e.set("type", "UNPROCESSABLE")));
            }
        };
        let snapshot = Snapshot {
            world: Arc::new(shared.read().clone()),
            repo,
            base: Arc::from(shared.base()),
        };
        Ok(Some(PinIssuePayload {
            client_mutation_id: input.client_mutation_id,
            issue: Some(Issue { snapshot, number }),
        }))
    }
}

//! Reading the GraphQL answers of `documents` into the port's types.

use std::collections::BTreeMap;

use super::shapes::{self, Read};
use crate::port::Result;
use crate::{
    BodyWithHistory, CheckCounts, CommitFacts, DeploymentRecord, Edit, EditCursor, Failure,
    GitHubError, MergedPullRequest, OpenPullRequest, PullRequestFile, RecordsPage,
};

fn issue<'a>(data: Read<'a>) -> Result<Read<'a>> {
    data.opt("repository.issue").ok_or_else(|| {
        GitHubError::new(
            data.call,
            Failure::Status {
                status: 404,
                message: "Could not resolve to an Issue".into(),
            },
        )
    })
}

pub(super) fn body_with_history(data: Read<'_>) -> Result<BodyWithHistory> {
    let issue = issue(data)?;
    let edits = issue.at("userContentEdits")?;
    let entries = edits
        .items("nodes")?
        .into_iter()
        .map(|entry| {
            let deleted = entry.opt("deletedAt").is_some();
            Ok(Edit {
                edited_at: entry.time("editedAt")?,
                editor: entry.actor("editor")?,
                body: if deleted {
                    None
                } else {
                    entry.opt_text("diff")
                },
                deleted,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let next = if edits.flag("pageInfo.hasNextPage")? {
        Some(EditCursor(edits.text("pageInfo.endCursor")?))
    } else {
        None
    };
    Ok(BodyWithHistory {
        body: issue.opt_text("body").unwrap_or_default(),
        edits: entries,
        total_edits: edits.number("totalCount")?,
        next,
        pinned: issue.opt("isPinned").and_then(|p| p.value.as_bool()) == Some(true),
    })
}

pub(super) fn pinned_issues(data: Read<'_>) -> Result<Vec<u64>> {
    data.items("repository.pinnedIssues.nodes")?
        .iter()
        .map(|pin| pin.number("issue.number"))
        .collect()
}

pub(super) fn records_page(data: Read<'_>) -> Result<RecordsPage> {
    let deployments = data.at("repository.deployments")?;
    let records = deployments
        .items("nodes")?
        .into_iter()
        .map(|node| {
            Ok(DeploymentRecord {
                id: node.number("databaseId")?,
                task: node.opt_text("task").unwrap_or_default(),
                environment: node.opt_text("environment").unwrap_or_default(),
                sha: node.text("commitOid")?,
                payload: shapes::payload(node.opt("payload").map(|p| p.value.clone())),
                created_at: node.time("createdAt")?,
                creator: node.opt_text("creator.login"),
                latest_status: node.opt("latestStatus").map(shapes::status).transpose()?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(RecordsPage {
        records,
        more: deployments.flag("pageInfo.hasNextPage")?,
    })
}

pub(super) fn open_pull_requests(data: Read<'_>) -> Result<(Vec<OpenPullRequest>, Option<String>)> {
    let connection = data.at("repository.pullRequests")?;
    let pulls = connection
        .items("nodes")?
        .into_iter()
        .map(|pull| {
            let files = pull
                .opt("files")
                .map(|f| f.items("nodes"))
                .transpose()?
                .unwrap_or_default()
                .into_iter()
                .map(|file| {
                    Ok(PullRequestFile {
                        path: file.text("path")?,
                        change_type: file.text("changeType")?,
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            let rollup = pull
                .items("commits.nodes")?
                .last()
                .and_then(|node| node.opt("commit.statusCheckRollup"));
            Ok(OpenPullRequest {
                number: pull.number("number")?,
                title: pull.text("title")?,
                author: pull.actor("author")?,
                draft: pull.flag("isDraft")?,
                base: pull.text("baseRefName")?,
                head_sha: pull.text("headRefOid")?,
                html_url: pull.text("url")?,
                mergeable: pull.text("mergeable")?,
                changed_files: pull.number("changedFiles")?,
                files,
                checks: rollup.map(check_counts).transpose()?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let next = if connection.flag("pageInfo.hasNextPage")? {
        Some(connection.text("pageInfo.endCursor")?)
    } else {
        None
    };
    Ok((pulls, next))
}

fn check_counts(rollup: Read<'_>) -> Result<CheckCounts> {
    let counts = |key: &str| -> Result<BTreeMap<String, u64>> {
        match rollup.opt(&format!("contexts.{key}")) {
            Some(list) => list
                .items("")?
                .into_iter()
                .map(|entry| Ok((entry.text("state")?, entry.number("count")?)))
                .collect(),
            None => Ok(BTreeMap::new()),
        }
    };
    Ok(CheckCounts {
        state: rollup.text("state")?,
        check_runs: counts("checkRunCountsByState")?,
        status_contexts: counts("statusContextCountsByState")?,
    })
}

pub(super) fn commits(data: Read<'_>) -> Result<Vec<CommitFacts>> {
    let Some(history) = data.opt("repository.object.history") else {
        return Err(GitHubError::new(
            data.call,
            Failure::Status {
                status: 404,
                message: "No commit found for the ref".into(),
            },
        ));
    };
    history
        .items("nodes")?
        .into_iter()
        .map(|commit| {
            let pull_requests = commit
                .items("associatedPullRequests.nodes")?
                .into_iter()
                .filter(|pull| pull.opt("merged").and_then(|m| m.value.as_bool()) == Some(true))
                .map(|pull| {
                    Ok(MergedPullRequest {
                        number: pull.number("number")?,
                        title: pull.text("title")?,
                        author: pull.actor("author")?,
                        base: pull.text("baseRefName")?,
                        html_url: pull.text("url")?,
                        files: pull
                            .items("files.nodes")?
                            .into_iter()
                            .map(|file| file.text("path"))
                            .collect::<Result<_>>()?,
                        changed_files: pull.number("changedFiles")?,
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            Ok(CommitFacts {
                sha: commit.text("oid")?,
                parents: commit
                    .items("parents.nodes")?
                    .into_iter()
                    .map(|p| p.text("oid"))
                    .collect::<Result<_>>()?,
                author: commit.actor("author.user")?,
                html_url: commit.text("url")?,
                pull_requests,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{Value, json};

    use super::super::shapes::{self, Read};
    use crate::Call;

    /// Any JSON, with the keys the readers look for, so deep paths are reached.
    fn answer() -> impl Strategy<Value = Value> {
        let keys = prop::sample::select(vec![
            "repository",
            "issue",
            "userContentEdits",
            "nodes",
            "pageInfo",
            "hasNextPage",
            "endCursor",
            "totalCount",
            "editedAt",
            "deletedAt",
            "diff",
            "editor",
            "creator",
            "login",
            "__typename",
            "body",
            "deployments",
            "databaseId",
            "commitOid",
            "createdAt",
            "latestStatus",
            "state",
            "payload",
            "pullRequests",
            "number",
            "title",
            "isDraft",
            "baseRefName",
            "headRefOid",
            "url",
            "mergeable",
            "changedFiles",
            "files",
            "path",
            "changeType",
            "commits",
            "commit",
            "statusCheckRollup",
            "contexts",
            "checkRunCountsByState",
            "count",
            "object",
            "history",
            "oid",
            "parents",
            "author",
            "user",
            "associatedPullRequests",
            "merged",
            "pinnedIssues",
            "id",
            "node_id",
            "labels",
            "name",
            "created_at",
            "html_url",
            "task",
            "environment",
            "sha",
            "event",
            "status",
            "type",
        ]);
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            prop::sample::select(vec![
                "2026-03-01T09:00:00Z",
                "OPEN",
                "x",
                "{\"v\":1}",
                "\"{}\"",
                ""
            ])
            .prop_map(Value::from),
        ];
        leaf.prop_recursive(6, 96, 6, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map(keys.clone(), inner, 0..6).prop_map(|m| Value::Object(
                    m.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
                )),
            ]
        })
    }

    proptest! {
        /// Whatever GitHub answers, every reader gives the port's types or says the
        /// answer is unreadable; none panics.
        #[test]
        fn every_reader_takes_any_answer_without_panicking(data in answer()) {
            let call = Call::ReadBody { number: 1 };
            let read = Read::new(&call, &data);
            let wrapped = json!({ "repository": { "issue": data.clone(), "deployments": data.clone(),
                "pullRequests": data.clone(), "object": { "history": data.clone() }, "pinnedIssues": data.clone() } });
            let deep = Read::new(&call, &wrapped);
            let _ = super::body_with_history(read);
            let _ = super::body_with_history(deep);
            let _ = super::records_page(deep);
            let _ = super::open_pull_requests(deep);
            let _ = super::commits(deep);
            let _ = super::pinned_issues(deep);
            let _ = shapes::issue(read);
            let _ = shapes::deployment(read, None);
            let _ = shapes::status(read);
            let _ = shapes::workflow_run(read);
            let _ = shapes::check_run(read);
            let _ = shapes::changed_file(read);
            let _ = shapes::payload(Some(data.clone()));
        }
    }
}

//! The GraphQL documents the client sends. Tests validate each against GitHub's
//! published schema (`DOCUMENTS`), so a field GitHub does not have fails there first.

pub(crate) const READ_BODY: &str = r#"query ReadBody($owner: String!, $name: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    issue(number: $number) {
      body
      isPinned
      userContentEdits(first: 10, after: $after) {
        totalCount
        pageInfo { hasNextPage endCursor }
        nodes { editedAt deletedAt diff editor { __typename login } }
      }
    }
  }
}"#;

pub(crate) const PINNED_ISSUES: &str = r#"query PinnedIssues($owner: String!, $name: String!) {
  repository(owner: $owner, name: $name) {
    pinnedIssues(first: 10) { nodes { issue { number } } }
  }
}"#;

pub(crate) const PIN_ISSUE: &str = r#"mutation PinIssue($issueId: ID!) {
  pinIssue(input: {issueId: $issueId}) { issue { number } }
}"#;

pub(crate) const DEPLOYMENT_RECORDS: &str = r#"query DeploymentRecords($owner: String!, $name: String!, $environment: String!) {
  repository(owner: $owner, name: $name) {
    deployments(environments: [$environment], first: 100, orderBy: {field: CREATED_AT, direction: DESC}) {
      pageInfo { hasNextPage }
      nodes {
        databaseId task environment payload createdAt commitOid
        creator { login }
        latestStatus { state description createdAt }
      }
    }
  }
}"#;

pub(crate) const OPEN_PULL_REQUESTS: &str = r#"query OpenPullRequests($owner: String!, $name: String!, $base: String!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequests(states: [OPEN], baseRefName: $base, first: 100, after: $after, orderBy: {field: CREATED_AT, direction: ASC}) {
      pageInfo { hasNextPage endCursor }
      nodes {
        number title isDraft baseRefName headRefOid url mergeable changedFiles
        author { __typename login }
        files(first: 100) { nodes { path changeType } }
        commits(last: 1) {
          nodes {
            commit {
              statusCheckRollup {
                state
                contexts(first: 1) {
                  checkRunCountsByState { state count }
                  statusContextCountsByState { state count }
                }
              }
            }
          }
        }
      }
    }
  }
}"#;

pub(crate) const RECENT_COMMITS: &str = r#"query RecentCommits($owner: String!, $name: String!, $head: String!, $count: Int!) {
  repository(owner: $owner, name: $name) {
    object(expression: $head) {
      ... on Commit {
        history(first: $count) {
          nodes {
            oid url
            parents(first: 5) { nodes { oid } }
            author { user { __typename login } }
            associatedPullRequests(first: 5) {
              nodes {
                number title url baseRefName merged changedFiles
                author { __typename login }
                files(first: 100) { nodes { path } }
              }
            }
          }
        }
      }
    }
  }
}"#;

/// Every document, by operation name, for the schema test.
pub const DOCUMENTS: &[(&str, &str)] = &[
    ("ReadBody", READ_BODY),
    ("PinnedIssues", PINNED_ISSUES),
    ("PinIssue", PIN_ISSUE),
    ("DeploymentRecords", DEPLOYMENT_RECORDS),
    ("OpenPullRequests", OPEN_PULL_REQUESTS),
    ("RecentCommits", RECENT_COMMITS),
];

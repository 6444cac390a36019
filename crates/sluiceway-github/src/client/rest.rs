//! The port's calls. Most are REST; those only GraphQL can answer go through
//! `graphql`.

use std::collections::BTreeMap;

use base64::Engine as _;
use reqwest::Method;
use serde_json::{Value, json};

use super::HttpGitHub;
use super::graphql;
use super::shapes::{self, Read};
use crate::port::Result;
use crate::{
    BodyWithHistory, Call, ChangedFile, CheckRun, CommitFacts, Comparison, DeploymentRecord,
    EditCursor, Failure, FileWrite, GitHub, GitHubError, Issue, IssueState, MergeMethod,
    NewDeploymentRecord, NewDeploymentStatus, NewIssue, NewPullRequest, OpenPullRequest,
    Permission, PreviewPage, PullRequestLink, RecordsPage, RepoFile, RunLink, RunsFilter,
    WorkflowRun,
};

/// GitHub's largest page.
const PAGE: u32 = 100;

impl HttpGitHub {
    fn get(&self, call: &Call, path_and_query: &str) -> Result<Value> {
        let url = self.transport.rest_url(&self.repo_path(path_and_query));
        self.transport
            .send(call, Method::GET, &url, None)?
            .json(call)
    }

    fn write(&self, call: &Call, method: Method, path: &str, body: &Value) -> Result<Value> {
        let url = self.transport.rest_url(&self.repo_path(path));
        let answer = self.transport.send(call, method, &url, Some(body))?;
        if answer.status == 204 {
            Ok(Value::Null)
        } else {
            answer.json(call)
        }
    }

    /// Every page of a list, following GitHub's `Link`; `key` names the list inside an
    /// object answer (check runs, workflow runs). A next page elsewhere than the REST
    /// API is not followed: the token goes nowhere else.
    fn pages(&self, call: &Call, path_and_query: &str, key: Option<&str>) -> Result<Vec<Value>> {
        let mut url = Some(self.transport.rest_url(&self.repo_path(path_and_query)));
        let mut items = Vec::new();
        while let Some(next) = url.take() {
            let answer = self.transport.send(call, Method::GET, &next, None)?;
            let mut page = answer.json(call)?;
            let list = match key {
                Some(key) => page.get_mut(key).map(Value::take),
                None => Some(page),
            };
            match list {
                Some(Value::Array(list)) => items.extend(list),
                _ => {
                    return Err(GitHubError::new(
                        call,
                        Failure::Unreadable("the page is not a list".into()),
                    ));
                }
            }
            url = answer.next_page();
            if url
                .as_deref()
                .is_some_and(|next| !self.transport.is_rest_url(next))
            {
                return Err(GitHubError::new(
                    call,
                    Failure::Unreadable("the next page is not on GitHub's REST API".into()),
                ));
            }
        }
        Ok(items)
    }

    fn graphql(&self, call: &Call, query: &str, mut variables: Value) -> Result<Value> {
        let (owner, name) = self.owner_and_name();
        variables["owner"] = json!(owner);
        variables["name"] = json!(name);
        self.transport.graphql(call, query, variables)
    }

    fn latest_status(&self, call: &Call, id: u64) -> Result<Option<crate::RecordStatus>> {
        let statuses = self.get(call, &format!("/deployments/{id}/statuses?per_page=1"))?;
        let read = Read::new(call, &statuses);
        read.items("")?
            .first()
            .map(|status| shapes::status(*status))
            .transpose()
    }
}

fn issues_query(label: &str, state: &str, extra: &str) -> String {
    format!(
        "/issues?labels={}&state={state}&per_page={PAGE}{extra}",
        encode(label)
    )
}

/// A path of segments (a file's, a branch's), each percent-encoded, its `/` kept.
fn branch_path(path: &str) -> String {
    path.split('/').map(encode).collect::<Vec<_>>().join("/")
}

/// Percent-encodes one query value or path segment.
fn encode(text: &str) -> String {
    reqwest::Url::parse_with_params("http://x/", [("v", text)])
        .map(|url| {
            url.query()
                .unwrap_or("v=")
                .trim_start_matches("v=")
                .to_owned()
        })
        .unwrap_or_default()
}

impl GitHub for HttpGitHub {
    fn requests_made(&self) -> u64 {
        self.transport.requests_made()
    }

    fn open_issues_labelled(&self, label: &str) -> Result<Vec<Issue>> {
        let call = Call::FindDashboard {
            label: label.into(),
        };
        let query = issues_query(label, "open", "&sort=created&direction=asc");
        let items = self.pages(&call, &query, None)?;
        items
            .iter()
            .map(|i| Read::new(&call, i))
            .filter(|i| i.opt("pull_request").is_none())
            .map(shapes::issue)
            .collect()
    }

    fn closed_issues_labelled(&self, label: &str) -> Result<Vec<Issue>> {
        let call = Call::FindDashboard {
            label: label.into(),
        };
        let page = self.get(
            &call,
            &issues_query(label, "closed", "&sort=created&direction=desc"),
        )?;
        Read::new(&call, &page)
            .items("")?
            .into_iter()
            .filter(|i| i.opt("pull_request").is_none())
            .map(shapes::issue)
            .collect()
    }

    fn create_issue(&self, issue: &NewIssue) -> Result<Issue> {
        let call = Call::CreateDashboard;
        let body = json!({ "title": issue.title, "body": issue.body, "labels": issue.labels });
        let created = self.write(&call, Method::POST, "/issues", &body)?;
        shapes::issue(Read::new(&call, &created))
    }

    fn set_issue_state(&self, number: u64, state: IssueState) -> Result<()> {
        let call = Call::ChangeIssueState { number };
        let state = match state {
            IssueState::Open => "open",
            IssueState::Closed => "closed",
        };
        self.write(
            &call,
            Method::PATCH,
            &format!("/issues/{number}"),
            &json!({ "state": state }),
        )?;
        Ok(())
    }

    fn rename_issue(&self, number: u64, title: &str) -> Result<()> {
        let call = Call::RenameIssue { number };
        self.write(
            &call,
            Method::PATCH,
            &format!("/issues/{number}"),
            &json!({ "title": title }),
        )?;
        Ok(())
    }

    fn pinned_issues(&self) -> Result<Vec<u64>> {
        let call = Call::ReadPinnedIssues;
        let data = self.graphql(&call, super::documents::PINNED_ISSUES, json!({}))?;
        graphql::pinned_issues(Read::new(&call, &data))
    }

    fn pin_issue(&self, issue: &Issue) -> Result<()> {
        let call = Call::PinIssue {
            number: issue.number,
        };
        self.transport.graphql(
            &call,
            super::documents::PIN_ISSUE,
            json!({ "issueId": issue.node_id }),
        )?;
        Ok(())
    }

    fn read_body(&self, number: u64, after: Option<&EditCursor>) -> Result<BodyWithHistory> {
        let call = Call::ReadBody { number };
        let variables = json!({ "number": number, "after": after.map(|c| c.0.clone()) });
        let data = self.graphql(&call, super::documents::READ_BODY, variables)?;
        graphql::body_with_history(Read::new(&call, &data))
    }

    fn write_body(&self, number: u64, body: &str) -> Result<()> {
        let call = Call::WriteBody { number };
        self.write(
            &call,
            Method::PATCH,
            &format!("/issues/{number}"),
            &json!({ "body": body }),
        )?;
        Ok(())
    }

    fn comment(&self, number: u64, body: &str) -> Result<String> {
        let call = Call::Comment { number };
        let path = format!("/issues/{number}/comments");
        let comment = self.write(&call, Method::POST, &path, &json!({ "body": body }))?;
        Read::new(&call, &comment).text("html_url")
    }

    fn deployment_records(&self, environment: &str) -> Result<RecordsPage> {
        let call = Call::ReadDeploymentRecords {
            environment: environment.into(),
        };
        let data = self.graphql(
            &call,
            super::documents::DEPLOYMENT_RECORDS,
            json!({ "environment": environment }),
        )?;
        graphql::records_page(Read::new(&call, &data))
    }

    fn deployment_records_of_task(
        &self,
        task: &str,
        environment: &str,
    ) -> Result<Vec<DeploymentRecord>> {
        let call = Call::ReadDeploymentRecords {
            environment: environment.into(),
        };
        let query = format!(
            "/deployments?task={}&environment={}&per_page={PAGE}",
            encode(task),
            encode(environment)
        );
        let items = self.pages(&call, &query, None)?;
        items
            .iter()
            .map(|item| {
                let read = Read::new(&call, item);
                let status = self.latest_status(&call, read.number("id")?)?;
                shapes::deployment(read, status)
            })
            .collect()
    }

    fn deployment_record(&self, id: u64) -> Result<DeploymentRecord> {
        let call = Call::ReadDeploymentRecord { id };
        let record = self.get(&call, &format!("/deployments/{id}"))?;
        let status = self.latest_status(&call, id)?;
        shapes::deployment(Read::new(&call, &record), status)
    }

    fn create_deployment_record(&self, record: &NewDeploymentRecord) -> Result<DeploymentRecord> {
        let call = Call::CreateDeploymentRecord {
            task: record.task.clone(),
        };
        let body = json!({
            "ref": record.sha,
            "task": record.task,
            "environment": record.environment,
            "payload": record.payload,
            "description": record.description,
            "auto_merge": false,
            "required_contexts": [],
            "transient_environment": false,
        });
        let created = self.write(&call, Method::POST, "/deployments", &body)?;
        shapes::deployment(Read::new(&call, &created), None)
    }

    fn set_deployment_status(&self, id: u64, status: &NewDeploymentStatus) -> Result<()> {
        let call = Call::SetDeploymentStatus { id };
        let mut body = json!({
            "state": status.state.rest_name(),
            "description": status.description,
            "auto_inactive": false,
        });
        if let Some(log_url) = &status.log_url {
            body["log_url"] = json!(log_url);
        }
        self.write(
            &call,
            Method::POST,
            &format!("/deployments/{id}/statuses"),
            &body,
        )?;
        Ok(())
    }

    fn check_runs(&self, sha: &str) -> Result<Vec<CheckRun>> {
        let call = Call::ReadCheckRuns { sha: sha.into() };
        let query = format!(
            "/commits/{}/check-runs?filter=latest&per_page={PAGE}",
            encode(sha)
        );
        let items = self.pages(&call, &query, Some("check_runs"))?;
        items
            .iter()
            .map(|run| shapes::check_run(Read::new(&call, run)))
            .collect()
    }

    fn write_check_run(&self, page: &PreviewPage, existing: Option<u64>) -> Result<CheckRun> {
        let call = Call::WriteCheckRun {
            name: page.name.clone(),
        };
        let output = json!({ "title": page.title, "summary": page.summary, "text": page.text });
        let external_id = &page.external_id;
        let run = match existing {
            Some(id) => self.write(
                &call,
                Method::PATCH,
                &format!("/check-runs/{id}"),
                &json!({ "status": "completed", "conclusion": "neutral", "external_id": external_id, "output": output }),
            )?,
            None => self.write(
                &call,
                Method::POST,
                "/check-runs",
                &json!({
                    "name": page.name,
                    "head_sha": page.sha,
                    "external_id": external_id,
                    "status": "completed",
                    "conclusion": "neutral",
                    "output": output,
                }),
            )?,
        };
        shapes::check_run(Read::new(&call, &run))
    }

    fn dispatch_workflow(
        &self,
        workflow: &str,
        git_ref: &str,
        inputs: &BTreeMap<String, String>,
    ) -> Result<Option<RunLink>> {
        let call = Call::DispatchWorkflow {
            workflow: workflow.into(),
        };
        let path = format!("/actions/workflows/{}/dispatches", encode(workflow));
        let body = json!({ "ref": git_ref, "inputs": inputs, "return_run_details": true });
        let answer = self.write(&call, Method::POST, &path, &body)?;
        if answer.is_null() {
            return Ok(None);
        }
        let read = Read::new(&call, &answer);
        Ok(Some(RunLink {
            id: read.number("workflow_run_id")?,
            html_url: read.text("html_url")?,
        }))
    }

    fn workflow_runs(&self, workflow: &str, filter: &RunsFilter) -> Result<Vec<WorkflowRun>> {
        let call = Call::ReadWorkflowRuns {
            workflow: workflow.into(),
        };
        let mut query = format!(
            "/actions/workflows/{}/runs?per_page={PAGE}",
            encode(workflow)
        );
        if let Some(event) = &filter.event {
            query.push_str(&format!("&event={}", encode(event)));
        }
        if let Some(status) = &filter.status {
            query.push_str(&format!("&status={}", encode(status)));
        }
        let page = self.get(&call, &query)?;
        Read::new(&call, &page)
            .items("workflow_runs")?
            .into_iter()
            .map(shapes::workflow_run)
            .collect()
    }

    fn workflow_run(&self, id: u64) -> Result<WorkflowRun> {
        let call = Call::ReadWorkflowRun { id };
        let run = self.get(&call, &format!("/actions/runs/{id}"))?;
        shapes::workflow_run(Read::new(&call, &run))
    }

    fn repo_file(&self, path: &str, git_ref: &str) -> Result<Option<RepoFile>> {
        let call = Call::ReadFile { path: path.into() };
        let encoded: Vec<String> = path.split('/').map(encode).collect();
        let answer = match self.get(
            &call,
            &format!("/contents/{}?ref={}", encoded.join("/"), encode(git_ref)),
        ) {
            Ok(answer) => answer,
            Err(e) if matches!(e.failure, Failure::Status { status: 404, .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        let read = Read::new(&call, &answer);
        if read.text("type")? != "file" {
            return Ok(None);
        }
        let unreadable = |what: &str| GitHubError::new(&call, Failure::Unreadable(what.into()));
        let packed: String = read.text("content")?.split_whitespace().collect();
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(packed)
            .map_err(|_| unreadable("a file's content is not base64"))?;
        let text = String::from_utf8(bytes).map_err(|_| unreadable("a file is not UTF-8 text"))?;
        Ok(Some(RepoFile {
            text,
            sha: read.text("sha")?,
        }))
    }

    fn default_branch(&self) -> Result<String> {
        let call = Call::ReadRepository;
        let repo = self.get(&call, "")?;
        Read::new(&call, &repo).text("default_branch")
    }

    fn branch_head(&self, branch: &str) -> Result<Option<String>> {
        let call = Call::ReadBranch {
            branch: branch.into(),
        };
        match self.get(&call, &format!("/git/ref/heads/{}", branch_path(branch))) {
            Ok(found) => Read::new(&call, &found).at("object")?.text("sha").map(Some),
            Err(e) if matches!(e.failure, Failure::Status { status: 404, .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn point_branch(&self, branch: &str, sha: &str) -> Result<()> {
        let call = Call::WriteBranch {
            branch: branch.into(),
        };
        if self.branch_head(branch)?.is_some() {
            let body = json!({ "sha": sha, "force": true });
            let path = format!("/git/refs/heads/{}", branch_path(branch));
            self.write(&call, Method::PATCH, &path, &body)?;
        } else {
            let body = json!({ "ref": format!("refs/heads/{branch}"), "sha": sha });
            self.write(&call, Method::POST, "/git/refs", &body)?;
        }
        Ok(())
    }

    fn write_file(&self, write: &FileWrite<'_>) -> Result<String> {
        let call = Call::WriteFile {
            path: write.path.into(),
        };
        let mut body = json!({
            "message": write.message,
            "content": base64::engine::general_purpose::STANDARD.encode(write.text),
            "branch": write.branch,
        });
        if let Some(sha) = write.replacing {
            body["sha"] = json!(sha);
        }
        let path = format!("/contents/{}", branch_path(write.path));
        let written = self.write(&call, Method::PUT, &path, &body)?;
        Read::new(&call, &written).at("commit")?.text("sha")
    }

    fn pull_request_from(&self, branch: &str) -> Result<Option<PullRequestLink>> {
        let call = Call::ReadPullRequestsFrom {
            branch: branch.into(),
        };
        let (owner, _) = self.owner_and_name();
        let query = format!(
            "/pulls?state=open&head={}&per_page={PAGE}",
            encode(&format!("{owner}:{branch}"))
        );
        let pulls = self.get(&call, &query)?;
        let read = Read::new(&call, &pulls);
        match read.items("")?.first() {
            Some(pull) => Ok(Some(shapes::pull_request_link(*pull)?)),
            None => Ok(None),
        }
    }

    fn open_pull_request(&self, new: &NewPullRequest<'_>) -> Result<PullRequestLink> {
        let call = Call::OpenPullRequest {
            branch: new.head.into(),
        };
        let body = json!({
            "title": new.title, "body": new.body, "head": new.head, "base": new.base,
        });
        let opened = self.write(&call, Method::POST, "/pulls", &body)?;
        shapes::pull_request_link(Read::new(&call, &opened))
    }

    fn compare(&self, base: &str, head: &str) -> Result<Comparison> {
        let call = Call::Compare {
            base: base.into(),
            head: head.into(),
        };
        let path = format!(
            "/compare/{}...{}?per_page={PAGE}",
            encode(base),
            encode(head)
        );
        let comparison = self.get(&call, &path)?;
        let read = Read::new(&call, &comparison);
        let files = match read.opt("files") {
            Some(files) => files
                .items("")?
                .into_iter()
                .map(shapes::changed_file)
                .collect::<Result<_>>()?,
            None => Vec::new(),
        };
        Ok(Comparison {
            status: read.text("status")?,
            ahead_by: read.number("ahead_by")?,
            files,
            html_url: read.text("html_url")?,
        })
    }

    fn commit_files(&self, sha: &str) -> Result<Vec<ChangedFile>> {
        let call = Call::ReadCommit { sha: sha.into() };
        let commit = self.get(&call, &format!("/commits/{}?per_page=300", encode(sha)))?;
        let read = Read::new(&call, &commit);
        match read.opt("files") {
            Some(files) => files
                .items("")?
                .into_iter()
                .map(shapes::changed_file)
                .collect(),
            None => Ok(Vec::new()),
        }
    }

    fn recent_commits(&self, head: &str, count: u16) -> Result<Vec<CommitFacts>> {
        let call = Call::WalkCommits { head: head.into() };
        let variables = json!({ "head": head, "count": count.min(100) });
        let data = self.graphql(&call, super::documents::RECENT_COMMITS, variables)?;
        graphql::commits(Read::new(&call, &data))
    }

    fn permission(&self, login: &str) -> Result<Permission> {
        let call = Call::ReadPermission {
            login: login.into(),
        };
        let answer = self.get(
            &call,
            &format!("/collaborators/{}/permission", encode(login)),
        )?;
        let read = Read::new(&call, &answer);
        let user = read.at("user")?;
        let permissions = user.at("permissions")?;
        Ok(Permission {
            login: user.text("login")?,
            kind: shapes::actor_kind(user.opt_text("type").as_deref()),
            push: permissions.flag("push")?,
            maintain: permissions
                .opt("maintain")
                .and_then(|m| m.value.as_bool())
                .unwrap_or(false),
            admin: permissions.flag("admin")?,
        })
    }

    fn open_pull_requests(&self, base: &str) -> Result<Vec<OpenPullRequest>> {
        let call = Call::ReadOpenPullRequests;
        let mut after: Option<String> = None;
        let mut pulls = Vec::new();
        loop {
            let variables = json!({ "base": base, "after": after });
            let data = self.graphql(&call, super::documents::OPEN_PULL_REQUESTS, variables)?;
            let (page, next) = graphql::open_pull_requests(Read::new(&call, &data))?;
            pulls.extend(page);
            match next {
                Some(cursor) => after = Some(cursor),
                None => return Ok(pulls),
            }
        }
    }

    fn merge_pull_request(
        &self,
        number: u64,
        head_sha: &str,
        method: MergeMethod,
    ) -> Result<String> {
        let call = Call::MergePullRequest { number };
        let body = json!({ "sha": head_sha, "merge_method": method.rest_name() });
        let merged = self.write(&call, Method::PUT, &format!("/pulls/{number}/merge"), &body)?;
        Read::new(&call, &merged).text("sha")
    }
}

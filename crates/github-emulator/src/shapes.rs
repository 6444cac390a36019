//! GitHub's REST shapes, built from the world. Each builder gives every property the
//! published schema requires, so the description test can hold the emulator to it.

use jiff::Timestamp;
use serde_json::{Value, json};

use crate::world::{
    Account, AccountKind, CheckRun, Commit, Deployment, DeploymentStatus, FileChange, Issue, Pull,
    Repo, Role, Run, World,
};

/// Where the emulator's pages and its REST API are: one origin on GitHub.com's
/// layout, `/api/v3` under it on Enterprise Server's.
#[derive(Debug, Clone)]
pub(crate) struct Site {
    pub(crate) html: String,
    pub(crate) api: String,
}

/// Addresses for one repository.
pub(crate) struct Urls<'a> {
    pub(crate) site: &'a Site,
    pub(crate) repo: &'a Repo,
}

impl Urls<'_> {
    pub(crate) fn api(&self, rest: &str) -> String {
        format!("{}/repos/{}{rest}", self.site.api, self.repo.full_name())
    }

    pub(crate) fn html(&self, rest: &str) -> String {
        format!("{}/{}{rest}", self.site.html, self.repo.full_name())
    }
}

pub(crate) fn time(at: Timestamp) -> String {
    at.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

fn node_id(kind: &str, id: u64) -> String {
    format!("{kind}_{id}")
}

pub(crate) fn user(site: &Site, account: &Account) -> Value {
    // GitHub escapes a bot's brackets in its addresses.
    let path = account.login.replace('[', "%5B").replace(']', "%5D");
    let api = format!("{}/users/{path}", site.api);
    json!({
        "login": account.login,
        "id": account.id,
        "node_id": node_id(if account.kind == AccountKind::Bot { "BOT" } else { "U" }, account.id),
        "avatar_url": format!("{}/avatars/{}", site.html, account.id),
        "gravatar_id": "",
        "url": api,
        "html_url": format!("{}/{path}", site.html),
        "followers_url": format!("{api}/followers"),
        "following_url": format!("{api}/following{{/other_user}}"),
        "gists_url": format!("{api}/gists{{/gist_id}}"),
        "starred_url": format!("{api}/starred{{/owner}}{{/repo}}"),
        "subscriptions_url": format!("{api}/subscriptions"),
        "organizations_url": format!("{api}/orgs"),
        "repos_url": format!("{api}/repos"),
        "events_url": format!("{api}/events{{/privacy}}"),
        "received_events_url": format!("{api}/received_events"),
        "type": account.kind.name(),
        "site_admin": false,
    })
}

/// A person as `GET /user` answers a token that is not theirs alone to read in full.
pub(crate) fn public_user(site: &Site, account: &Account) -> Value {
    let mut user = user(site, account);
    let created = time(Timestamp::UNIX_EPOCH);
    for (key, value) in [
        ("user_view_type", json!("public")),
        ("name", Value::Null),
        ("company", Value::Null),
        ("blog", Value::Null),
        ("location", Value::Null),
        ("email", Value::Null),
        ("hireable", Value::Null),
        ("bio", Value::Null),
        ("public_repos", json!(0)),
        ("public_gists", json!(0)),
        ("followers", json!(0)),
        ("following", json!(0)),
        ("created_at", json!(created)),
        ("updated_at", json!(created)),
    ] {
        user[key] = value;
    }
    user
}

/// An app's installation on an account, as `GET /repos/{owner}/{repo}/installation`
/// answers it.
pub(crate) fn installation(
    world: &World,
    site: &Site,
    installation: &crate::apps::Installation,
) -> Value {
    let slug = world
        .apps
        .iter()
        .find(|a| a.id == installation.app)
        .map(|a| a.slug.clone())
        .unwrap_or_default();
    let account = world.account(&installation.account);
    let id = installation.id;
    json!({
        "id": id,
        "account": account.map(|a| user(site, a)),
        "repository_selection": "all",
        "access_tokens_url": format!("{}/app/installations/{id}/access_tokens", site.api),
        "repositories_url": format!("{}/installation/repositories", site.api),
        "html_url": format!("{}/organizations/{}/settings/installations/{id}", site.html, installation.account),
        "app_id": installation.app,
        "app_slug": slug,
        "target_id": account.map_or(0, |a| a.id),
        "target_type": account.map_or("Organization", |a| a.kind.name()),
        "permissions": installation.permissions,
        "events": ["issues", "deployment", "deployment_status", "workflow_run"],
        "created_at": time(installation.created_at),
        "updated_at": time(installation.created_at),
        "single_file_name": null,
        "suspended_by": null,
        "suspended_at": null,
    })
}

/// A login the world may not know (a deleted account reads as GitHub's `ghost`).
pub(crate) fn user_by_login(world: &World, site: &Site, login: &str) -> Value {
    match world.account(login) {
        Some(account) => user(site, account),
        None => user(
            site,
            &Account {
                id: 10137,
                login: "ghost".into(),
                kind: AccountKind::User,
            },
        ),
    }
}

pub(crate) fn issue(world: &World, urls: &Urls<'_>, issue: &Issue) -> Value {
    let api = urls.api(&format!("/issues/{}", issue.number));
    let labels: Vec<Value> = issue
        .labels
        .iter()
        .map(|name| {
            json!({
                "id": label_id(name),
                "node_id": node_id("LA", label_id(name)),
                "url": urls.api(&format!("/labels/{name}")),
                "name": name,
                "description": null,
                "color": "ededed",
                "default": false,
            })
        })
        .collect();
    json!({
        "id": issue.number + urls.repo.id * 100_000,
        "node_id": issue_node_id(urls.repo, issue.number),
        "url": api,
        "repository_url": urls.api(""),
        "labels_url": format!("{api}/labels{{/name}}"),
        "comments_url": format!("{api}/comments"),
        "events_url": format!("{api}/events"),
        "html_url": urls.html(&format!("/issues/{}", issue.number)),
        "number": issue.number,
        "state": if issue.open { "open" } else { "closed" },
        "state_reason": if issue.open { Value::Null } else { json!("completed") },
        "title": issue.title,
        "body": issue.body,
        "user": user_by_login(world, urls.site, &issue.author),
        "labels": labels,
        "assignee": null,
        "assignees": [],
        "milestone": null,
        "locked": false,
        "active_lock_reason": null,
        "comments": issue.comments.len(),
        "closed_at": issue.closed_at.map(time),
        "created_at": time(issue.created_at),
        "updated_at": time(issue.updated_at),
        "author_association": "OWNER",
    })
}

pub(crate) fn issue_node_id(repo: &Repo, number: u64) -> String {
    format!("I_{}_{number}", repo.id)
}

fn label_id(name: &str) -> u64 {
    name.bytes()
        .fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)))
        % 1_000_000_007
}

pub(crate) fn comment(
    world: &World,
    urls: &Urls<'_>,
    number: u64,
    comment: &crate::world::Comment,
) -> Value {
    json!({
        "id": comment.id,
        "node_id": node_id("IC", comment.id),
        "url": urls.api(&format!("/issues/comments/{}", comment.id)),
        "html_url": urls.html(&format!("/issues/{number}#issuecomment-{}", comment.id)),
        "issue_url": urls.api(&format!("/issues/{number}")),
        "body": comment.body,
        "user": user_by_login(world, urls.site, &comment.author),
        "created_at": time(comment.at),
        "updated_at": time(comment.at),
        "author_association": "NONE",
    })
}

pub(crate) fn deployment(world: &World, urls: &Urls<'_>, d: &Deployment) -> Value {
    let api = urls.api(&format!("/deployments/{}", d.id));
    json!({
        "url": api,
        "id": d.id,
        "node_id": node_id("DE", d.id),
        "sha": d.sha,
        "ref": d.git_ref,
        "task": d.task,
        "payload": d.payload,
        "original_environment": d.environment,
        "environment": d.environment,
        "description": d.description,
        "creator": user_by_login(world, urls.site, &d.creator),
        "created_at": time(d.created_at),
        "updated_at": time(d.updated_at),
        "statuses_url": format!("{api}/statuses"),
        "repository_url": urls.api(""),
        "transient_environment": false,
        "production_environment": false,
    })
}

pub(crate) fn deployment_status(
    world: &World,
    urls: &Urls<'_>,
    d: &Deployment,
    s: &DeploymentStatus,
) -> Value {
    let deployment_url = urls.api(&format!("/deployments/{}", d.id));
    let mut status = json!({
        "url": format!("{deployment_url}/statuses/{}", s.id),
        "id": s.id,
        "node_id": node_id("DES", s.id),
        "state": s.state,
        "creator": user_by_login(world, urls.site, &s.creator),
        "description": s.description,
        "environment": d.environment,
        // The description requires an address here; without a log, the repository's.
        "target_url": s.log_url.clone().unwrap_or_else(|| urls.html("")),
        "created_at": time(s.created_at),
        "updated_at": time(s.created_at),
        "deployment_url": deployment_url,
        "repository_url": urls.api(""),
    });
    if let Some(log_url) = &s.log_url {
        status["log_url"] = json!(log_url);
    }
    status
}

pub(crate) fn check_run(urls: &Urls<'_>, run: &CheckRun) -> Value {
    let api = urls.api(&format!("/check-runs/{}", run.id));
    json!({
        "id": run.id,
        "head_sha": run.head_sha,
        "node_id": node_id("CR", run.id),
        "external_id": run.external_id,
        "url": api,
        "html_url": urls.html(&format!("/runs/{}", run.id)),
        "details_url": urls.html(&format!("/runs/{}", run.id)),
        "status": run.status,
        "conclusion": run.conclusion,
        "started_at": time(run.started_at),
        "completed_at": run.completed_at.map(time),
        "output": {
            "title": run.title,
            "summary": run.summary,
            "text": run.text,
            "annotations_count": 0,
            "annotations_url": format!("{api}/annotations"),
        },
        "name": run.name,
        "check_suite": { "id": run.id },
        "app": null,
        "pull_requests": [],
    })
}

pub(crate) fn workflow_run(world: &World, urls: &Urls<'_>, run: &Run) -> Value {
    let api = urls.api(&format!("/actions/runs/{}", run.id));
    let workflow_id = urls
        .repo
        .workflows
        .get(&run.workflow)
        .copied()
        .unwrap_or_default();
    let head = urls.repo.commits.get(&run.head_sha);
    let repository = minimal_repository(world, urls);
    json!({
        "id": run.id,
        "name": run.workflow,
        "node_id": node_id("WFR", run.id),
        "head_branch": run.head_branch,
        "head_sha": run.head_sha,
        "path": format!(".github/workflows/{}", run.workflow),
        "display_title": run.workflow,
        "run_number": run.run_number,
        "run_attempt": 1,
        "event": run.event,
        "status": run.status,
        "conclusion": run.conclusion,
        "workflow_id": workflow_id,
        "url": api,
        "html_url": urls.html(&format!("/actions/runs/{}", run.id)),
        "pull_requests": [],
        "created_at": time(run.created_at),
        "updated_at": time(run.created_at),
        "run_started_at": time(run.created_at),
        "actor": user_by_login(world, urls.site, &run.actor),
        "triggering_actor": user_by_login(world, urls.site, &run.actor),
        "jobs_url": format!("{api}/jobs"),
        "logs_url": format!("{api}/logs"),
        "check_suite_url": urls.api(&format!("/check-suites/{}", run.id)),
        "artifacts_url": format!("{api}/artifacts"),
        "cancel_url": format!("{api}/cancel"),
        "rerun_url": format!("{api}/rerun"),
        "workflow_url": urls.api(&format!("/actions/workflows/{workflow_id}")),
        "head_commit": head.map(|c| json!({
            "id": c.sha,
            "tree_id": c.sha,
            "message": c.message,
            "timestamp": time(c.at),
            "author": git_person(c.author.as_deref()),
            "committer": git_person(c.author.as_deref()),
        })),
        "repository": repository,
        "head_repository": repository,
    })
}

/// A commit's author as git records it: a name and an address.
fn git_person(login: Option<&str>) -> Value {
    let name = login.unwrap_or("nobody");
    let local: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    json!({ "name": name, "email": format!("{local}@users.noreply.invalid") })
}

pub(crate) fn minimal_repository(world: &World, urls: &Urls<'_>) -> Value {
    let api = urls.api("");
    let owner = user_by_login(world, urls.site, &urls.repo.owner);
    let mut repo = json!({
        "id": urls.repo.id,
        "node_id": node_id("R", urls.repo.id),
        "name": urls.repo.name,
        "full_name": urls.repo.full_name(),
        "owner": owner,
        "private": urls.repo.private,
        "html_url": urls.html(""),
        "description": null,
        "fork": false,
        "url": api,
    });
    let templates = [
        ("archive_url", "/{archive_format}{/ref}"),
        ("assignees_url", "/assignees{/user}"),
        ("blobs_url", "/git/blobs{/sha}"),
        ("branches_url", "/branches{/branch}"),
        ("collaborators_url", "/collaborators{/collaborator}"),
        ("comments_url", "/comments{/number}"),
        ("commits_url", "/commits{/sha}"),
        ("compare_url", "/compare/{base}...{head}"),
        ("contents_url", "/contents/{+path}"),
        ("contributors_url", "/contributors"),
        ("deployments_url", "/deployments"),
        ("downloads_url", "/downloads"),
        ("events_url", "/events"),
        ("forks_url", "/forks"),
        ("git_commits_url", "/git/commits{/sha}"),
        ("git_refs_url", "/git/refs{/sha}"),
        ("git_tags_url", "/git/tags{/sha}"),
        ("hooks_url", "/hooks"),
        ("issue_comment_url", "/issues/comments{/number}"),
        ("issue_events_url", "/issues/events{/number}"),
        ("issues_url", "/issues{/number}"),
        ("keys_url", "/keys{/key_id}"),
        ("labels_url", "/labels{/name}"),
        ("languages_url", "/languages"),
        ("merges_url", "/merges"),
        ("milestones_url", "/milestones{/number}"),
        (
            "notifications_url",
            "/notifications{?since,all,participating}",
        ),
        ("pulls_url", "/pulls{/number}"),
        ("releases_url", "/releases{/id}"),
        ("stargazers_url", "/stargazers"),
        ("statuses_url", "/statuses/{sha}"),
        ("subscribers_url", "/subscribers"),
        ("subscription_url", "/subscription"),
        ("tags_url", "/tags"),
        ("teams_url", "/teams"),
        ("trees_url", "/git/trees{/sha}"),
    ];
    for (key, rest) in templates {
        repo[key] = json!(format!("{api}{rest}"));
    }
    repo
}

/// The full repository object a webhook payload and a pull request's head and base
/// carry: the minimal one and the counts, flags and addresses GitHub adds.
pub(crate) fn repository(world: &World, urls: &Urls<'_>, fork: bool) -> Value {
    let mut repo = minimal_repository(world, urls);
    let full = urls.repo.full_name();
    let host = urls
        .site
        .html
        .trim_start_matches("https://")
        .trim_start_matches("http://")
        .to_owned();
    let created = world
        .repo(&full)
        .ok()
        .and_then(|r| r.commits.values().map(|c| c.at).min())
        .map_or_else(|| "2026-01-01T00:00:00Z".to_owned(), time);
    let extra = json!({
        "fork": fork,
        "clone_url": urls.html(".git"),
        "git_url": format!("git://{host}/{full}.git"),
        "ssh_url": format!("git@{host}:{full}.git"),
        "svn_url": urls.html(""),
        "default_branch": urls.repo.default_branch,
        "forks": 0, "forks_count": 0,
        "has_downloads": true, "has_issues": true, "has_projects": false,
        "has_wiki": false, "has_pages": false, "has_discussions": false, "topics": [],
        "visibility": if urls.repo.private { "private" } else { "public" },
        "homepage": null, "language": null, "archived": false, "disabled": false,
        "mirror_url": null,
        "open_issues": urls.repo.issues.values().filter(|i| i.open).count(),
        "open_issues_count": urls.repo.issues.values().filter(|i| i.open).count(),
        "license": null,
        "pushed_at": created, "created_at": created, "updated_at": created,
        "size": 0, "stargazers_count": 0, "watchers": 0, "watchers_count": 0,
    });
    if let (Some(repo), Some(extra)) = (repo.as_object_mut(), extra.as_object()) {
        for (k, v) in extra {
            repo.insert(k.clone(), v.clone());
        }
    }
    repo
}

/// The payload of a `pull_request` event (GitHub's `webhook-pull-request-<action>`), as
/// a workflow's `GITHUB_EVENT_PATH` holds it. `fork` names the account whose fork the
/// head branch is in; `None` for a branch of the repository itself.
pub(crate) fn pull_request_event(
    world: &World,
    urls: &Urls<'_>,
    pull: &Pull,
    action: &str,
    fork: Option<&str>,
) -> Value {
    let mut event = json!({
        "action": action,
        "number": pull.number,
        "pull_request": pull_request(world, urls, pull, fork),
        "repository": repository(world, urls, false),
        "sender": user_by_login(world, urls.site, fork.unwrap_or(&pull.author)),
    });
    if action == "synchronize" {
        // The head before the push that synchronized it, and after.
        let before = urls
            .repo
            .commits
            .get(&pull.head_sha)
            .and_then(|c| c.parents.first().cloned())
            .unwrap_or_default();
        event["before"] = json!(before);
        event["after"] = json!(pull.head_sha);
    }
    event
}

/// A pull request as the REST API and a webhook payload give it (GitHub's
/// `pull-request`); `fork` as for the event.
pub(crate) fn pull_request(
    world: &World,
    urls: &Urls<'_>,
    pull: &Pull,
    fork: Option<&str>,
) -> Value {
    let base_repo = repository(world, urls, false);
    let mut head_repo = base_repo.clone();
    if let Some(owner) = fork {
        let name = &urls.repo.name;
        head_repo["full_name"] = json!(format!("{owner}/{name}"));
        head_repo["owner"] = user_by_login(world, urls.site, owner);
        head_repo["fork"] = json!(true);
        head_repo["id"] = json!(urls.repo.id + 100_000);
        head_repo["node_id"] = json!(node_id("R", urls.repo.id + 100_000));
        head_repo["html_url"] = json!(format!("{}/{owner}/{name}", urls.site.html));
    }
    let base_sha = urls
        .repo
        .branches
        .get(&pull.base)
        .cloned()
        .unwrap_or_default();
    let author = user_by_login(world, urls.site, &pull.author);
    let owner = user_by_login(world, urls.site, &urls.repo.owner);
    let number = pull.number;
    let api = urls.api(&format!("/pulls/{number}"));
    let html = urls.html(&format!("/pull/{number}"));
    let issue_api = urls.api(&format!("/issues/{number}"));
    let head_owner = fork.unwrap_or(&urls.repo.owner);
    let link = |href: String| json!({ "href": href });
    let statuses = urls.api(&format!("/statuses/{}", pull.head_sha));
    let links = json!({
        "self": link(api.clone()), "html": link(html.clone()), "issue": link(issue_api.clone()),
        "comments": link(format!("{issue_api}/comments")),
        "review_comments": link(format!("{api}/comments")),
        "review_comment": link(urls.api("/pulls/comments{/number}")),
        "commits": link(format!("{api}/commits")),
        "statuses": link(statuses.clone()),
    });
    let head_user = match fork {
        Some(owner) => user_by_login(world, urls.site, owner),
        None => owner.clone(),
    };
    let head = json!({
        "label": format!("{head_owner}:{}", pull.head_branch), "ref": pull.head_branch,
        "sha": pull.head_sha, "user": head_user, "repo": head_repo,
    });
    let base = json!({
        "label": format!("{}:{}", urls.repo.owner, pull.base), "ref": pull.base,
        "sha": base_sha, "user": owner, "repo": base_repo.clone(),
    });
    let mut pull_request = json!({
        "url": api, "id": 900_000 + number, "node_id": node_id("PR", number),
        "html_url": html, "diff_url": format!("{html}.diff"), "patch_url": format!("{html}.patch"),
        "issue_url": issue_api, "number": number, "state": if pull.open { "open" } else { "closed" },
        "locked": false, "title": pull.title, "user": author, "body": null,
        "created_at": time(pull.created_at), "updated_at": time(pull.created_at),
        "closed_at": null, "merged_at": null, "merge_commit_sha": pull.merge_commit,
        "assignee": null, "assignees": [], "requested_reviewers": [], "requested_teams": [],
        "labels": [], "milestone": null, "draft": pull.draft,
    });
    let more = json!({
        "commits_url": format!("{api}/commits"), "review_comments_url": format!("{api}/comments"),
        "review_comment_url": urls.api("/pulls/comments{/number}"),
        "comments_url": format!("{issue_api}/comments"),
        "statuses_url": statuses,
        "head": head, "base": base, "_links": links,
        "author_association": "CONTRIBUTOR", "auto_merge": null, "active_lock_reason": null,
        "merged": false, "mergeable": pull.mergeable, "rebaseable": pull.mergeable,
        "mergeable_state": if pull.mergeable { "clean" } else { "dirty" },
        "merged_by": null, "comments": 0, "review_comments": 0, "maintainer_can_modify": false,
        "commits": 1, "additions": 1, "deletions": 0, "changed_files": 1,
    });
    if let (Some(pull_request), Some(more)) = (pull_request.as_object_mut(), more.as_object()) {
        for (k, v) in more {
            pull_request.insert(k.clone(), v.clone());
        }
    }
    pull_request
}

/// A branch as the git references API gives it (GitHub's `git-ref`).
pub(crate) fn git_ref(urls: &Urls<'_>, branch: &str, sha: &str) -> Value {
    json!({
        "ref": format!("refs/heads/{branch}"),
        "node_id": format!("REF_{}", &sha[..12.min(sha.len())]),
        "url": urls.api(&format!("/git/refs/heads/{branch}")),
        "object": {
            "type": "commit",
            "sha": sha,
            "url": urls.api(&format!("/git/commits/{sha}")),
        },
    })
}

/// What a write through the contents API answers (GitHub's `file-commit`).
pub(crate) fn file_commit(urls: &Urls<'_>, branch: &str, file: &FileChange, c: &Commit) -> Value {
    let mut author = git_person(c.author.as_deref());
    author["date"] = json!(time(c.at));
    let mut content = content_file(urls, branch, file);
    if let Some(content) = content.as_object_mut() {
        content.remove("content");
        content.remove("encoding");
        content.insert(
            "download_url".into(),
            json!(urls.html(&format!("/raw/{branch}/{}", file.path))),
        );
    }
    json!({
        "content": content,
        "commit": {
            "sha": c.sha,
            "node_id": node_id("C", c.at.as_second().unsigned_abs()),
            "url": urls.api(&format!("/git/commits/{}", c.sha)),
            "html_url": urls.html(&format!("/commit/{}", c.sha)),
            "author": author,
            "committer": author,
            "message": c.message,
            "tree": { "url": urls.api(&format!("/git/trees/{}", c.sha)), "sha": c.sha },
            "parents": c.parents.iter().map(|p| json!({
                "url": urls.api(&format!("/git/commits/{p}")),
                "html_url": urls.html(&format!("/commit/{p}")),
                "sha": p,
            })).collect::<Vec<_>>(),
            "verification": {
                "verified": false, "reason": "unsigned", "signature": null, "payload": null,
                "verified_at": null,
            },
        },
    })
}

/// A file of the contents API, its text base64-encoded as GitHub sends it.
pub(crate) fn content_file(urls: &Urls<'_>, reference: &str, file: &FileChange) -> Value {
    use base64::Engine as _;
    let text = file.content.clone().unwrap_or_default();
    let sha = file.blob_sha();
    let name = file.path.rsplit('/').next().unwrap_or(&file.path);
    let api = urls.api(&format!("/contents/{}?ref={reference}", file.path));
    let html = urls.html(&format!("/blob/{reference}/{}", file.path));
    let git = urls.api(&format!("/git/blobs/{sha}"));
    json!({
        "type": "file",
        "encoding": "base64",
        "size": text.len(),
        "name": name,
        "path": file.path,
        "content": base64::engine::general_purpose::STANDARD.encode(text.as_bytes()),
        "sha": sha,
        "url": api,
        "git_url": git,
        "html_url": html,
        "download_url": null,
        "_links": { "self": api, "git": git, "html": html },
    })
}

pub(crate) fn commit(world: &World, urls: &Urls<'_>, c: &Commit, with_files: bool) -> Value {
    let api = urls.api(&format!("/commits/{}", c.sha));
    let author = c
        .author
        .as_deref()
        .map(|login| user_by_login(world, urls.site, login));
    let mut person = git_person(c.author.as_deref());
    person["date"] = json!(time(c.at));
    let mut value = json!({
        "url": api,
        "sha": c.sha,
        "node_id": node_id("C", c.at.as_second().unsigned_abs()),
        "html_url": urls.html(&format!("/commit/{}", c.sha)),
        "comments_url": format!("{api}/comments"),
        "commit": {
            "url": urls.api(&format!("/git/commits/{}", c.sha)),
            "author": person,
            "committer": person,
            "message": c.message,
            "comment_count": 0,
            "tree": { "sha": c.sha, "url": urls.api(&format!("/git/trees/{}", c.sha)) },
        },
        "author": author,
        "committer": author,
        "parents": c.parents.iter().map(|sha| json!({
            "sha": sha,
            "url": urls.api(&format!("/commits/{sha}")),
            "html_url": urls.html(&format!("/commit/{sha}")),
        })).collect::<Vec<_>>(),
    });
    if with_files {
        value["files"] = json!(
            c.files
                .iter()
                .map(|f| diff_entry(urls, &c.sha, f))
                .collect::<Vec<_>>()
        );
    }
    value
}

pub(crate) fn diff_entry(urls: &Urls<'_>, sha: &str, file: &FileChange) -> Value {
    let mut entry = json!({
        "sha": sha,
        "filename": file.path,
        "status": file.status,
        "additions": 1,
        "deletions": 0,
        "changes": 1,
        "blob_url": urls.html(&format!("/blob/{sha}/{}", file.path)),
        "raw_url": urls.html(&format!("/raw/{sha}/{}", file.path)),
        "contents_url": urls.api(&format!("/contents/{}?ref={sha}", file.path)),
    });
    if let Some(previous) = &file.previous_path {
        entry["previous_filename"] = json!(previous);
    }
    entry
}

pub(crate) fn collaborator_permission(site: &Site, account: &Account, role: Option<Role>) -> Value {
    let at_least = |floor: Role| role.is_some_and(|r| r >= floor);
    let (permission, role_name) = match role {
        Some(Role::Admin) => ("admin", "admin"),
        Some(Role::Maintain) => ("write", "maintain"),
        Some(Role::Write) => ("write", "write"),
        Some(Role::Triage) => ("read", "triage"),
        Some(Role::Read) => ("read", "read"),
        None => ("none", ""),
    };
    let mut collaborator = user(site, account);
    collaborator["permissions"] = json!({
        "pull": at_least(Role::Read),
        "triage": at_least(Role::Triage),
        "push": at_least(Role::Write),
        "maintain": at_least(Role::Maintain),
        "admin": at_least(Role::Admin),
    });
    collaborator["role_name"] = json!(role_name);
    json!({ "permission": permission, "role_name": role_name, "user": collaborator })
}

/// GitHub's error body.
pub(crate) fn error(status: u16, message: &str) -> Value {
    json!({
        "message": message,
        "documentation_url": "https://docs.github.com/rest",
        "status": status.to_string(),
    })
}

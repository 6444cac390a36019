//! The emulator's state: accounts, tokens and repositories with their issues, edit
//! histories, deployments, check runs, workflow runs, commits and pull requests. Plain
//! data, saved to a file as JSON when asked. Time is a logical clock that moves one
//! second per change, so the same script of calls always gives the same answers.

use std::collections::BTreeMap;

use jiff::{Timestamp, ToSpan};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// GitHub keeps the original body and the newest 99 edits.
pub const EDIT_HISTORY_CAP: usize = 100;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct World {
    pub now: Timestamp,
    next_id: u64,
    pub accounts: BTreeMap<String, Account>,
    /// Token → who it speaks for and what it may do.
    pub tokens: BTreeMap<String, Grant>,
    /// `owner/name` → repository.
    pub repos: BTreeMap<String, Repo>,
    /// The webhooks deliveries are made to (a GitHub App's).
    #[serde(default)]
    pub hooks: Vec<crate::hooks::Hook>,
    /// GitHub Apps registered here, and where they are installed.
    #[serde(default)]
    pub apps: Vec<crate::apps::App>,
    #[serde(default)]
    pub installations: Vec<crate::apps::Installation>,
    /// Each installation token made → the installation it speaks for.
    #[serde(default)]
    pub minted: BTreeMap<String, u64>,
    /// Approvals of an app's sign-in whose code was not traded yet.
    #[serde(default)]
    pub approvals: Vec<crate::oauth::Approval>,
    /// Organization → its members' logins (lowercase).
    #[serde(default)]
    pub members: BTreeMap<String, std::collections::BTreeSet<String>>,
    /// How many deliveries were made so far: the next delivery id follows it.
    #[serde(default)]
    pub deliveries_made: u64,
    /// What happened in the change under way, for the webhooks to hear of.
    #[serde(skip)]
    pub(crate) happened: Vec<crate::hooks::Happening>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum AccountKind {
    User,
    Bot,
    Organization,
}

impl AccountKind {
    pub fn name(self) -> &'static str {
        match self {
            AccountKind::User => "User",
            AccountKind::Bot => "Bot",
            AccountKind::Organization => "Organization",
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Account {
    pub id: u64,
    pub login: String,
    pub kind: AccountKind,
}

/// A token's identity and, like a workflow token, the permissions it was given
/// (`issues` → `write`, …). `None` grants everything.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Grant {
    pub login: String,
    pub permissions: Option<BTreeMap<String, Level>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Read,
    Write,
}

/// A collaborator's role, GitHub's five base roles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Read,
    Triage,
    Write,
    Maintain,
    Admin,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Repo {
    pub id: u64,
    pub owner: String,
    pub name: String,
    pub private: bool,
    pub default_branch: String,
    pub collaborators: BTreeMap<String, Role>,
    pub branches: BTreeMap<String, String>,
    pub commits: BTreeMap<String, Commit>,
    pub issues: BTreeMap<u64, Issue>,
    pub pulls: BTreeMap<u64, Pull>,
    pub pinned: Vec<u64>,
    pub deployments: BTreeMap<u64, Deployment>,
    pub check_runs: BTreeMap<u64, CheckRun>,
    /// Workflow file name → its id.
    pub workflows: BTreeMap<String, u64>,
    pub runs: BTreeMap<u64, Run>,
    next_number: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Commit {
    pub sha: String,
    pub parents: Vec<String>,
    pub author: Option<String>,
    pub message: String,
    pub files: Vec<FileChange>,
    pub at: Timestamp,
    /// The head commit's checks as counts per state (check runs, status contexts).
    pub checks: Option<Rollup>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileChange {
    pub path: String,
    /// `added`, `modified`, `removed` or `renamed`.
    pub status: String,
    pub previous_path: Option<String>,
    /// The file's text at this commit, when the test gives it (the contents API serves
    /// it; a file whose text was never given reads as empty).
    #[serde(default)]
    pub content: Option<String>,
}

impl FileChange {
    /// The SHA of the file's blob, which a write that replaces it must name.
    pub fn blob_sha(&self) -> String {
        let text = self.content.as_deref().unwrap_or_default();
        sha_of(&format!("blob {}\0{text}", text.len()))
    }
}

/// A file written on a branch through the contents API.
#[derive(Debug, Clone, Copy)]
pub struct FileWrite<'a> {
    pub path: &'a str,
    pub branch: &'a str,
    pub text: &'a str,
    pub message: &'a str,
    pub author: &'a str,
    /// The blob the caller saw, for a file that exists.
    pub replacing: Option<&'a str>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Rollup {
    /// GraphQL's `StatusState`: `SUCCESS`, `FAILURE`, `PENDING`, `ERROR`, `EXPECTED`.
    pub state: String,
    pub check_runs: BTreeMap<String, u64>,
    pub status_contexts: BTreeMap<String, u64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Issue {
    pub number: u64,
    pub title: String,
    pub body: String,
    pub open: bool,
    pub labels: Vec<String>,
    pub author: String,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub closed_at: Option<Timestamp>,
    pub comments: Vec<Comment>,
    /// Oldest first; the first entry is the original body once anybody edited it.
    pub edits: Vec<EditEntry>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Comment {
    pub id: u64,
    pub author: String,
    pub body: String,
    pub at: Timestamp,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EditEntry {
    pub id: u64,
    pub editor: Option<String>,
    pub at: Timestamp,
    pub body: String,
    pub deleted_at: Option<Timestamp>,
    pub deleted_by: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Deployment {
    pub id: u64,
    pub sha: String,
    pub git_ref: String,
    pub task: String,
    pub environment: String,
    pub payload: Value,
    pub description: Option<String>,
    pub creator: String,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub statuses: Vec<DeploymentStatus>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DeploymentStatus {
    pub id: u64,
    pub state: String,
    pub description: String,
    pub creator: String,
    pub log_url: Option<String>,
    pub created_at: Timestamp,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CheckRun {
    pub id: u64,
    pub name: String,
    pub head_sha: String,
    pub status: String,
    pub conclusion: Option<String>,
    pub title: Option<String>,
    pub summary: Option<String>,
    pub text: Option<String>,
    /// The integrator's own reference, as GitHub keeps it ("" when none).
    #[serde(default)]
    pub external_id: String,
    pub started_at: Timestamp,
    pub completed_at: Option<Timestamp>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Run {
    pub id: u64,
    pub workflow: String,
    pub run_number: u64,
    pub event: String,
    pub status: String,
    pub conclusion: Option<String>,
    pub head_branch: String,
    pub head_sha: String,
    pub actor: String,
    pub created_at: Timestamp,
    pub inputs: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Pull {
    pub number: u64,
    pub title: String,
    pub author: String,
    pub draft: bool,
    pub base: String,
    pub head_branch: String,
    pub head_sha: String,
    pub mergeable: bool,
    pub open: bool,
    pub merge_commit: Option<String>,
    /// How it was merged: `merge`, `squash` or `rebase`.
    #[serde(default)]
    pub merge_method: Option<String>,
    pub created_at: Timestamp,
}

/// Why a change to the world was refused, in GitHub's words and status.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{status}: {message}")]
pub struct Refusal {
    pub status: u16,
    pub message: String,
}

impl Refusal {
    pub fn new(status: u16, message: impl Into<String>) -> Self {
        Refusal {
            status,
            message: message.into(),
        }
    }

    pub fn not_found() -> Self {
        Refusal::new(404, "Not Found")
    }
}

impl World {
    /// An empty world whose clock starts at `start`, with the workflow token's bot.
    pub fn new(start: Timestamp) -> Self {
        let mut world = World {
            now: start,
            next_id: 1000,
            accounts: BTreeMap::new(),
            tokens: BTreeMap::new(),
            repos: BTreeMap::new(),
            hooks: Vec::new(),
            apps: Vec::new(),
            installations: Vec::new(),
            minted: BTreeMap::new(),
            approvals: Vec::new(),
            members: BTreeMap::new(),
            deliveries_made: 0,
            happened: Vec::new(),
        };
        world.add_account("github-actions[bot]", AccountKind::Bot);
        world
    }

    /// Moves the clock one second and answers the new time.
    pub fn tick(&mut self) -> Timestamp {
        self.now = self.now.checked_add(1.second()).unwrap_or(self.now);
        self.now
    }

    pub fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    pub fn add_account(&mut self, login: &str, kind: AccountKind) -> u64 {
        if let Some(account) = self.account(login) {
            return account.id;
        }
        let id = self.id();
        self.accounts.insert(
            login.to_owned(),
            Account {
                id,
                login: login.to_owned(),
                kind,
            },
        );
        id
    }

    pub fn account(&self, login: &str) -> Option<&Account> {
        self.accounts
            .values()
            .find(|a| a.login.eq_ignore_ascii_case(login))
    }

    pub fn add_token(&mut self, token: &str, grant: Grant) {
        self.tokens.insert(token.to_owned(), grant);
    }

    /// A repository with one commit on its default branch.
    pub fn add_repo(&mut self, full_name: &str, default_branch: &str) -> Result<(), Refusal> {
        let (owner, name) = full_name
            .split_once('/')
            .ok_or_else(|| Refusal::new(422, "a repository is owner/name"))?;
        self.add_account(owner, AccountKind::Organization);
        let id = self.id();
        let at = self.tick();
        let root = Commit {
            sha: sha_of(&format!("{full_name} root")),
            parents: Vec::new(),
            author: None,
            message: "Initial commit".into(),
            files: Vec::new(),
            at,
            checks: None,
        };
        let mut repo = Repo {
            id,
            owner: owner.into(),
            name: name.into(),
            private: true,
            default_branch: default_branch.into(),
            collaborators: BTreeMap::new(),
            branches: BTreeMap::new(),
            commits: BTreeMap::new(),
            issues: BTreeMap::new(),
            pulls: BTreeMap::new(),
            pinned: Vec::new(),
            deployments: BTreeMap::new(),
            check_runs: BTreeMap::new(),
            workflows: BTreeMap::new(),
            runs: BTreeMap::new(),
            next_number: 1,
        };
        repo.branches
            .insert(default_branch.into(), root.sha.clone());
        repo.commits.insert(root.sha.clone(), root);
        self.repos.insert(full_name.into(), repo);
        Ok(())
    }

    pub fn repo(&self, full_name: &str) -> Result<&Repo, Refusal> {
        self.repos.get(full_name).ok_or_else(Refusal::not_found)
    }

    pub fn repo_mut(&mut self, full_name: &str) -> Result<&mut Repo, Refusal> {
        self.repos.get_mut(full_name).ok_or_else(Refusal::not_found)
    }

    pub fn add_collaborator(&mut self, repo: &str, login: &str, role: Role) -> Result<(), Refusal> {
        self.add_account(login, AccountKind::User);
        self.repo_mut(repo)?
            .collaborators
            .insert(login.to_ascii_lowercase(), role);
        Ok(())
    }

    pub fn add_workflow(&mut self, repo: &str, file: &str) -> Result<u64, Refusal> {
        let id = self.id();
        Ok(*self
            .repo_mut(repo)?
            .workflows
            .entry(file.to_owned())
            .or_insert(id))
    }

    /// A commit on a branch, by `author`, changing `files`; answers its SHA.
    pub fn push(
        &mut self,
        repo: &str,
        branch: &str,
        author: Option<&str>,
        message: &str,
        files: Vec<FileChange>,
    ) -> Result<String, Refusal> {
        let at = self.tick();
        let id = self.id();
        let repo = self.repo_mut(repo)?;
        let parent = repo
            .branches
            .get(branch)
            .or_else(|| repo.branches.get(&repo.default_branch))
            .cloned()
            .into_iter()
            .collect();
        let sha = sha_of(&format!("{id} {message}"));
        repo.commits.insert(
            sha.clone(),
            Commit {
                sha: sha.clone(),
                parents: parent,
                author: author.map(str::to_owned),
                message: message.into(),
                files,
                at,
                checks: None,
            },
        );
        repo.branches.insert(branch.into(), sha.clone());
        Ok(sha)
    }

    /// A pull request from a new branch with one commit on the base's head.
    pub fn open_pull(
        &mut self,
        repo: &str,
        author: &str,
        title: &str,
        files: Vec<FileChange>,
    ) -> Result<u64, Refusal> {
        self.add_account(author, AccountKind::User);
        let number = self.repo(repo)?.next_number;
        let branch = format!("pull-{number}");
        self.push(repo, &branch, Some(author), title, files)?;
        let base = self.repo(repo)?.default_branch.clone();
        self.create_pull(repo, author, title, &branch, &base)
    }

    pub fn create_issue(
        &mut self,
        repo: &str,
        author: &str,
        title: &str,
        body: &str,
        labels: Vec<String>,
    ) -> Result<u64, Refusal> {
        let at = self.tick();
        let repo_name = repo;
        let repo = self.repo_mut(repo)?;
        let number = repo.next_number;
        repo.next_number += 1;
        repo.issues.insert(
            number,
            Issue {
                number,
                title: title.into(),
                body: body.into(),
                open: true,
                labels,
                author: author.into(),
                created_at: at,
                updated_at: at,
                closed_at: None,
                comments: Vec::new(),
                edits: Vec::new(),
            },
        );
        self.happened.push(crate::hooks::Happening::Issue {
            repo: repo_name.to_owned(),
            number,
            action: "opened",
            sender: author.to_owned(),
            from: None,
        });
        Ok(number)
    }

    /// Writes an issue's body as `editor`, keeping the edit history the way GitHub
    /// does: the original enters it with the first edit, and only the newest 99 edits
    /// stay after it. Writing the same body again is not an edit.
    pub fn edit_body(
        &mut self,
        repo: &str,
        number: u64,
        editor: &str,
        body: &str,
    ) -> Result<(), Refusal> {
        let at = self.tick();
        let first_id = self.id();
        let id = self.id();
        let issue = self.issue_mut(repo, number)?;
        if issue.body == body {
            return Ok(());
        }
        if issue.edits.is_empty() {
            issue.edits.push(EditEntry {
                id: first_id,
                editor: Some(issue.author.clone()),
                at: issue.created_at,
                body: issue.body.clone(),
                deleted_at: None,
                deleted_by: None,
            });
        }
        issue.edits.push(EditEntry {
            id,
            editor: Some(editor.into()),
            at,
            body: body.into(),
            deleted_at: None,
            deleted_by: None,
        });
        if issue.edits.len() > EDIT_HISTORY_CAP {
            issue.edits.remove(1);
        }
        let from = std::mem::replace(&mut issue.body, body.into());
        issue.updated_at = at;
        self.happened.push(crate::hooks::Happening::Issue {
            repo: repo.to_owned(),
            number,
            action: "edited",
            sender: editor.to_owned(),
            from: Some(from),
        });
        Ok(())
    }

    /// Ticks (or unticks) the first box on the line that holds `needle`, as `person`.
    pub fn set_box(
        &mut self,
        repo: &str,
        number: u64,
        person: &str,
        needle: &str,
        ticked: bool,
    ) -> Result<(), Refusal> {
        let body = self.issue(repo, number)?.body.clone();
        let (from, to) = if ticked {
            ("- [ ]", "- [x]")
        } else {
            ("- [x]", "- [ ]")
        };
        let mut found = false;
        let lines: Vec<String> = body
            .split('\n')
            .map(|line| {
                if !found && line.contains(needle) && line.contains(from) {
                    found = true;
                    line.replacen(from, to, 1)
                } else {
                    line.to_owned()
                }
            })
            .collect();
        if !found {
            return Err(Refusal::new(
                422,
                format!("no box to change on a line holding {needle:?}"),
            ));
        }
        self.edit_body(repo, number, person, &lines.join("\n"))
    }

    /// Deletes one edit-history entry (by its place, newest first), as GitHub lets the
    /// author or a maintainer do.
    pub fn delete_edit(
        &mut self,
        repo: &str,
        number: u64,
        newest_first_index: usize,
        by: &str,
    ) -> Result<(), Refusal> {
        let at = self.tick();
        let issue = self.issue_mut(repo, number)?;
        let len = issue.edits.len();
        let entry = len
            .checked_sub(newest_first_index + 1)
            .and_then(|i| issue.edits.get_mut(i))
            .ok_or_else(Refusal::not_found)?;
        entry.deleted_at = Some(at);
        entry.deleted_by = Some(by.into());
        Ok(())
    }

    /// Starts a run of a workflow (queued), as a dispatch or an event would.
    #[allow(clippy::too_many_arguments)]
    pub fn start_run(
        &mut self,
        repo: &str,
        workflow: &str,
        event: &str,
        branch: &str,
        head_sha: &str,
        actor: &str,
        inputs: BTreeMap<String, String>,
    ) -> Result<u64, Refusal> {
        let at = self.tick();
        let id = self.id();
        let repo = self.repo_mut(repo)?;
        let run_number = repo
            .runs
            .values()
            .filter(|r| r.workflow == workflow)
            .count() as u64
            + 1;
        repo.runs.insert(
            id,
            Run {
                id,
                workflow: workflow.into(),
                run_number,
                event: event.into(),
                status: "queued".into(),
                conclusion: None,
                head_branch: branch.into(),
                head_sha: head_sha.into(),
                actor: actor.into(),
                created_at: at,
                inputs,
            },
        );
        Ok(id)
    }

    /// Merges a pull request the way GitHub's merge button does, only at the head the
    /// caller saw; answers the merge commit.
    pub fn merge_pull(
        &mut self,
        repo: &str,
        number: u64,
        expected_head: Option<&str>,
        method: Option<&str>,
    ) -> Result<String, Refusal> {
        let pull = self
            .repo(repo)?
            .pulls
            .get(&number)
            .cloned()
            .ok_or_else(Refusal::not_found)?;
        if !pull.open || !pull.mergeable {
            return Err(Refusal::new(405, "Pull Request is not mergeable"));
        }
        if expected_head.is_some_and(|sha| sha != pull.head_sha) {
            return Err(Refusal::new(
                409,
                "Head branch was modified. Review and try the merge again.",
            ));
        }
        let files = self
            .repo(repo)?
            .commits
            .get(&pull.head_sha)
            .map(|c| c.files.clone())
            .unwrap_or_default();
        let base_head = self
            .repo(repo)?
            .branches
            .get(&pull.base)
            .cloned()
            .ok_or_else(Refusal::not_found)?;
        let message = format!("Merge pull request #{number}");
        let sha = self.push(repo, &pull.base, Some(&pull.author), &message, files)?;
        let repo = self.repo_mut(repo)?;
        if method.unwrap_or("merge") == "merge"
            && let Some(commit) = repo.commits.get_mut(&sha)
        {
            commit.parents = vec![base_head, pull.head_sha.clone()];
        }
        if let Some(pull) = repo.pulls.get_mut(&number) {
            pull.open = false;
            pull.merge_commit = Some(sha.clone());
            pull.merge_method = Some(method.unwrap_or("merge").to_owned());
        }
        Ok(sha)
    }

    /// Points a new branch at a commit, as `POST /git/refs` does.
    pub fn create_branch(&mut self, repo: &str, branch: &str, sha: &str) -> Result<(), Refusal> {
        let repo = self.repo_mut(repo)?;
        if repo.branches.contains_key(branch) {
            return Err(Refusal::new(422, "Reference already exists"));
        }
        if !repo.commits.contains_key(sha) {
            return Err(Refusal::new(422, "Object does not exist"));
        }
        repo.branches.insert(branch.to_owned(), sha.to_owned());
        Ok(())
    }

    /// Moves a branch, as `PATCH /git/refs/{ref}` does: only forward unless forced.
    pub fn move_branch(
        &mut self,
        repo: &str,
        branch: &str,
        sha: &str,
        force: bool,
    ) -> Result<(), Refusal> {
        let found = self.repo(repo)?;
        let head = found
            .branches
            .get(branch)
            .ok_or_else(|| Refusal::new(422, "Reference does not exist"))?;
        if !found.commits.contains_key(sha) {
            return Err(Refusal::new(422, "Object does not exist"));
        }
        if !force && !found.history(sha).iter().any(|c| c.sha == *head) {
            return Err(Refusal::new(422, "Update is not a fast forward"));
        }
        self.repo_mut(repo)?
            .branches
            .insert(branch.to_owned(), sha.to_owned());
        Ok(())
    }

    /// Writes a file on a branch as one commit, as `PUT /contents/{path}` does: a file
    /// that exists is replaced only by a caller who names the blob it saw.
    pub fn write_file(&mut self, repo: &str, write: FileWrite<'_>) -> Result<String, Refusal> {
        let found = self.repo(repo)?;
        if !found.branches.contains_key(write.branch) {
            return Err(Refusal::new(
                404,
                format!("Branch {} not found", write.branch),
            ));
        }
        let status = match (found.file_at(write.branch, write.path), write.replacing) {
            (Some(file), Some(sha)) if file.blob_sha() == sha => "modified",
            (Some(_), Some(sha)) => {
                return Err(Refusal::new(
                    409,
                    format!("{} does not match {sha}", write.path),
                ));
            }
            (Some(_), None) => return Err(Refusal::new(422, "\"sha\" wasn't supplied.")),
            (None, _) => "added",
        };
        let change = FileChange {
            path: write.path.to_owned(),
            status: status.to_owned(),
            previous_path: None,
            content: Some(write.text.to_owned()),
        };
        self.push(
            repo,
            write.branch,
            Some(write.author),
            write.message,
            vec![change],
        )
    }

    /// Opens a pull request from a branch of the repository, as `POST /pulls` does.
    pub fn create_pull(
        &mut self,
        repo: &str,
        author: &str,
        title: &str,
        head: &str,
        base: &str,
    ) -> Result<u64, Refusal> {
        let at = self.tick();
        let repo = self.repo_mut(repo)?;
        let invalid = |message: String| Refusal::new(422, message);
        let head_sha = repo
            .branches
            .get(head)
            .cloned()
            .ok_or_else(|| invalid(format!("head {head} is not a branch")))?;
        let base_sha = repo
            .branches
            .get(base)
            .ok_or_else(|| invalid(format!("base {base} is not a branch")))?;
        if head_sha == *base_sha {
            return Err(invalid(format!("No commits between {base} and {head}")));
        }
        if repo.pulls.values().any(|p| p.open && p.head_branch == head) {
            return Err(invalid(format!(
                "A pull request already exists for {}:{head}.",
                repo.owner
            )));
        }
        let number = repo.take_number();
        repo.pulls.insert(
            number,
            Pull {
                number,
                title: title.into(),
                author: author.into(),
                draft: false,
                base: base.into(),
                head_branch: head.into(),
                head_sha,
                mergeable: true,
                open: true,
                merge_commit: None,
                merge_method: None,
                created_at: at,
            },
        );
        Ok(number)
    }

    pub fn issue(&self, repo: &str, number: u64) -> Result<&Issue, Refusal> {
        self.repo(repo)?
            .issues
            .get(&number)
            .ok_or_else(Refusal::not_found)
    }

    pub fn issue_mut(&mut self, repo: &str, number: u64) -> Result<&mut Issue, Refusal> {
        self.repo_mut(repo)?
            .issues
            .get_mut(&number)
            .ok_or_else(Refusal::not_found)
    }
}

impl Repo {
    pub fn full_name(&self) -> String {
        format!("{}/{}", self.owner, self.name)
    }

    /// A SHA, or a branch name, to the commit it names.
    /// A file at a commit: the change the newest commit in its history that touched the
    /// path made; `None` when none did or the newest removed it.
    pub fn file_at(&self, reference: &str, path: &str) -> Option<&FileChange> {
        let head = self.resolve(reference)?;
        self.history(&head.sha)
            .into_iter()
            .find_map(|c| c.files.iter().find(|f| f.path == path))
            .filter(|f| f.status != "removed")
    }

    pub fn resolve(&self, reference: &str) -> Option<&Commit> {
        let sha = self
            .branches
            .get(reference)
            .map(String::as_str)
            .unwrap_or(reference);
        self.commits.get(sha).or_else(|| {
            (reference.len() >= 7)
                .then(|| self.commits.values().find(|c| c.sha.starts_with(reference)))
                .flatten()
        })
    }

    /// Commits reachable from `head`, newest first (by time, then SHA).
    pub fn history(&self, head: &str) -> Vec<&Commit> {
        let mut seen = std::collections::BTreeSet::new();
        let mut stack = vec![head.to_owned()];
        let mut commits = Vec::new();
        while let Some(sha) = stack.pop() {
            if !seen.insert(sha.clone()) {
                continue;
            }
            if let Some(commit) = self.commits.get(&sha) {
                stack.extend(commit.parents.iter().cloned());
                commits.push(commit);
            }
        }
        commits.sort_by(|a, b| b.at.cmp(&a.at).then(b.sha.cmp(&a.sha)));
        commits
    }

    pub fn role_of(&self, login: &str) -> Option<Role> {
        self.collaborators.get(&login.to_ascii_lowercase()).copied()
    }

    /// The pull requests whose merge brought the commit (GitHub's
    /// `associatedPullRequests`, merged ones only here).
    pub fn pulls_of_commit(&self, sha: &str) -> Vec<&Pull> {
        self.pulls
            .values()
            .filter(|p| p.merge_commit.as_deref() == Some(sha) || p.head_sha == sha)
            .collect()
    }

    /// Files a pull request changes: its head commit's.
    pub fn pull_files(&self, pull: &Pull) -> Vec<FileChange> {
        self.commits
            .get(&pull.head_sha)
            .map(|c| c.files.clone())
            .unwrap_or_default()
    }

    pub fn take_number(&mut self) -> u64 {
        let number = self.next_number;
        self.next_number += 1;
        number
    }
}

/// A 40-hex SHA derived from text: unique enough for a world of tests.
pub fn sha_of(text: &str) -> String {
    hex::encode(&Sha256::digest(text.as_bytes())[..20])
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn world_with_issue() -> World {
        let mut world = World::new("2026-01-01T00:00:00Z".parse().unwrap());
        world.add_repo("o/r", "main").unwrap();
        world
            .create_issue("o/r", "github-actions[bot]", "t", "original", Vec::new())
            .unwrap();
        world
    }

    proptest! {
        /// Whatever people write, the history is GitHub's: the original first, the
        /// newest 99 edits after it in time order, the last one the body itself, and
        /// writing the same body again is no edit.
        #[test]
        fn the_edit_history_keeps_the_original_and_the_newest_99(
            writes in proptest::collection::vec((0usize..3, 0usize..6), 0..260)
        ) {
            let mut world = world_with_issue();
            let editors = ["alice", "bob", "github-actions[bot]"];
            let mut effective = 0usize;
            let mut body = "original".to_string();
            for (editor, text) in &writes {
                let next = format!("body {text}");
                if next != body {
                    effective += 1;
                    body = next.clone();
                }
                world.edit_body("o/r", 1, editors[*editor], &next).unwrap();
            }
            let issue = world.issue("o/r", 1).unwrap();
            prop_assert_eq!(&issue.body, &body);
            if effective == 0 {
                prop_assert!(issue.edits.is_empty());
            } else {
                prop_assert_eq!(issue.edits.len(), (effective + 1).min(EDIT_HISTORY_CAP));
                prop_assert_eq!(issue.edits[0].body.as_str(), "original");
                prop_assert_eq!(issue.edits.last().unwrap().body.as_str(), body.as_str());
                prop_assert!(issue.edits.windows(2).all(|w| w[0].at < w[1].at));
                prop_assert!(issue.edits[1..].windows(2).all(|w| w[0].body != w[1].body));
            }
        }
    }
}

//! The client's calls against the emulator, one group per part of the port. Every
//! request and response is held to GitHub's published descriptions by the bed.

mod support;

use std::collections::BTreeMap;

use github_emulator::Act;
use github_emulator::world::{FileChange, Rollup};
use serde_json::json;
use sluiceway_github::{
    ActorKind, GitHub, IssueState, MergeMethod, NewDeploymentRecord, NewDeploymentStatus, NewIssue,
    PreviewPage, RecordState, RunsFilter,
};
use support::{Bed, REPO};

fn dashboard(bed: &Bed) -> sluiceway_github::Issue {
    bed.github
        .create_issue(&NewIssue {
            title: "Sluiceway".into(),
            body: "<!-- sluiceway:dashboard -->\n- [ ] **apps/web** <!-- row -->".into(),
            labels: vec!["sluiceway".into()],
        })
        .unwrap()
}

fn file(path: &str) -> FileChange {
    FileChange {
        path: path.into(),
        status: "modified".into(),
        previous_path: None,
        content: None,
    }
}

#[test]
fn the_dashboard_is_found_created_closed_reopened_renamed_and_pinned() {
    let bed = Bed::new();
    assert!(
        bed.github
            .open_issues_labelled("sluiceway")
            .unwrap()
            .is_empty()
    );
    let issue = dashboard(&bed);
    assert_eq!(issue.author.login, "github-actions[bot]");
    assert_eq!(issue.author.kind, ActorKind::Bot);
    assert_eq!(issue.labels, ["sluiceway"]);

    let found = bed.github.open_issues_labelled("sluiceway").unwrap();
    assert_eq!(
        found.iter().map(|i| i.number).collect::<Vec<_>>(),
        [issue.number]
    );
    assert!(bed.github.open_issues_labelled("other").unwrap().is_empty());

    bed.github
        .set_issue_state(issue.number, IssueState::Closed)
        .unwrap();
    assert!(
        bed.github
            .open_issues_labelled("sluiceway")
            .unwrap()
            .is_empty()
    );
    let closed = bed.github.closed_issues_labelled("sluiceway").unwrap();
    assert_eq!(closed[0].state, IssueState::Closed);
    bed.github
        .set_issue_state(issue.number, IssueState::Open)
        .unwrap();

    bed.github.rename_issue(issue.number, "Deploys").unwrap();
    assert_eq!(
        bed.github.open_issues_labelled("sluiceway").unwrap()[0].title,
        "Deploys"
    );

    assert!(bed.github.pinned_issues().unwrap().is_empty());
    assert!(!bed.github.read_body(issue.number, None).unwrap().pinned);
    bed.github.pin_issue(&issue).unwrap();
    assert_eq!(bed.github.pinned_issues().unwrap(), [issue.number]);
    assert!(
        bed.github.read_body(issue.number, None).unwrap().pinned,
        "the read of the body says it is pinned"
    );
    assert_eq!(
        bed.github.open_issues_labelled("sluiceway").unwrap()[0].body,
        bed.github.read_body(issue.number, None).unwrap().body,
        "the list brings the body"
    );
}

#[test]
fn open_issues_are_read_page_by_page() {
    let bed = Bed::new();
    for n in 0..205 {
        bed.act(Act::CreateIssue {
            repo: REPO.into(),
            author: "alice".into(),
            title: format!("issue {n}"),
            body: String::new(),
            labels: vec!["sluiceway".into()],
        });
    }
    let before = bed.github.requests_made();
    let issues = bed.github.open_issues_labelled("sluiceway").unwrap();
    assert_eq!(issues.len(), 205);
    assert_eq!(bed.github.requests_made() - before, 3, "three pages of 100");
    assert!(
        issues.windows(2).all(|w| w[0].number < w[1].number),
        "lowest number first"
    );
}

#[test]
fn the_body_comes_with_its_edit_history_newest_first_and_names_each_editor() {
    let bed = Bed::new();
    let issue = dashboard(&bed);
    let unedited = bed.github.read_body(issue.number, None).unwrap();
    assert!(
        unedited.edits.is_empty(),
        "GitHub keeps no history before the first edit"
    );

    bed.act(Act::Tick {
        repo: REPO.into(),
        issue: issue.number,
        person: "alice".into(),
        line: "apps/web".into(),
    });
    bed.github
        .write_body(
            issue.number,
            "<!-- sluiceway:dashboard -->\n- [x] **apps/web** deploying",
        )
        .unwrap();

    let read = bed.github.read_body(issue.number, None).unwrap();
    assert_eq!(
        read.body,
        "<!-- sluiceway:dashboard -->\n- [x] **apps/web** deploying"
    );
    let editors: Vec<(String, ActorKind)> = read
        .edits
        .iter()
        .map(|e| e.editor.clone().map(|a| (a.login, a.kind)).unwrap())
        .collect();
    assert_eq!(
        editors,
        [
            ("github-actions[bot]".to_string(), ActorKind::Bot),
            ("alice".to_string(), ActorKind::User),
            ("github-actions[bot]".to_string(), ActorKind::Bot),
        ],
        "newest first, the original last"
    );
    assert!(
        read.edits[1]
            .body
            .as_deref()
            .unwrap()
            .contains("- [x] **apps/web**")
    );
    assert_eq!(read.total_edits, 3);
    assert!(read.next.is_none());
    assert!(read.edits[0].edited_at > read.edits[1].edited_at);
}

#[test]
fn a_long_history_is_walked_in_pages_of_ten_and_capped_like_github_s() {
    let bed = Bed::new();
    let issue = dashboard(&bed);
    for n in 0..120 {
        let editor = if n % 2 == 0 { "alice" } else { "bob" };
        bed.act(Act::EditBody {
            repo: REPO.into(),
            issue: issue.number,
            editor: editor.into(),
            body: format!("body {n}"),
        });
    }
    let mut page = bed.github.read_body(issue.number, None).unwrap();
    assert_eq!(
        page.total_edits, 100,
        "the original and the newest 99 edits"
    );
    let mut bodies = Vec::new();
    let mut pages = 1;
    loop {
        assert!(page.edits.len() <= 10);
        bodies.extend(page.edits.iter().map(|e| e.body.clone().unwrap()));
        match page.next.take() {
            Some(cursor) => {
                page = bed.github.read_body(issue.number, Some(&cursor)).unwrap();
                pages += 1;
            }
            None => break,
        }
    }
    assert_eq!(pages, 10);
    assert_eq!(bodies.len(), 100);
    assert_eq!(bodies[0], "body 119");
    assert_eq!(bodies[98], "body 21");
    assert_eq!(
        bodies[99], "<!-- sluiceway:dashboard -->\n- [ ] **apps/web** <!-- row -->",
        "the original stays"
    );
}

#[test]
fn a_deleted_history_entry_reads_as_deleted_with_no_body() {
    let bed = Bed::new();
    let issue = dashboard(&bed);
    bed.act(Act::Tick {
        repo: REPO.into(),
        issue: issue.number,
        person: "alice".into(),
        line: "apps/web".into(),
    });
    bed.act(Act::DeleteEdit {
        repo: REPO.into(),
        issue: issue.number,
        newest_first_index: 0,
        by: "bob".into(),
    });
    let read = bed.github.read_body(issue.number, None).unwrap();
    assert!(read.edits[0].deleted);
    assert_eq!(read.edits[0].body, None);
    assert!(!read.edits[1].deleted);
}

#[test]
fn a_comment_is_written_and_answers_its_address() {
    let bed = Bed::new();
    let issue = dashboard(&bed);
    let url = bed
        .github
        .comment(issue.number, "@alice ticked **apps/web**")
        .unwrap();
    assert!(
        url.contains(&format!("/issues/{}#issuecomment-", issue.number)),
        "{url}"
    );
    let stored = &bed.emulator.world().repos[REPO].issues[&issue.number].comments;
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].author, "github-actions[bot]");
}

fn record(bed: &Bed, stack: &str, environment: &str) -> sluiceway_github::DeploymentRecord {
    let sha = bed.emulator.world().repos[REPO].branches["main"].clone();
    bed.github
        .create_deployment_record(&NewDeploymentRecord {
            sha,
            task: format!("sluiceway:{stack}"),
            environment: environment.into(),
            payload: json!({ "v": 1, "hash": "0123456789abcdef", "ticker": "alice", "run": "42" }),
            description: format!("{stack}, ticked by alice"),
        })
        .unwrap()
}

#[test]
fn deployment_records_are_created_given_statuses_and_read_back_through_both_apis() {
    let bed = Bed::new();
    let created = record(&bed, "apps/web", "prod");
    assert_eq!(created.task, "sluiceway:apps/web");
    assert_eq!(created.latest_status, None);
    assert!(created.is_open(), "no status yet: open");
    bed.github
        .set_deployment_status(
            created.id,
            &NewDeploymentStatus {
                state: RecordState::Queued,
                description: "queued".into(),
                log_url: None,
            },
        )
        .unwrap();
    bed.github
        .set_deployment_status(
            created.id,
            &NewDeploymentStatus {
                state: RecordState::InProgress,
                description: "deploying".into(),
                log_url: Some(format!(
                    "{}/octo/infra/actions/runs/42",
                    bed.emulator.base_url()
                )),
            },
        )
        .unwrap();

    let page = bed.github.deployment_records("prod").unwrap();
    assert!(!page.more);
    assert_eq!(page.records.len(), 1);
    let read = &page.records[0];
    assert_eq!(read.id, created.id);
    assert_eq!(
        read.payload,
        json!({ "v": 1, "hash": "0123456789abcdef", "ticker": "alice", "run": "42" })
    );
    assert_eq!(
        read.latest_status.as_ref().unwrap().state,
        RecordState::InProgress
    );

    assert!(read.is_open(), "in progress: open");
    let by_id = bed.github.deployment_record(created.id).unwrap();
    assert_eq!(
        by_id.payload, read.payload,
        "REST and GraphQL payloads read alike"
    );
    assert_eq!(by_id.latest_status.unwrap().description, "deploying");
    assert!(
        bed.github
            .deployment_records("staging")
            .unwrap()
            .records
            .is_empty()
    );
}

#[test]
fn a_full_page_of_records_says_there_are_more_and_the_rest_fallback_reads_them_all() {
    let bed = Bed::new();
    for n in 0..101 {
        let stack = if n == 0 { "apps/web" } else { "apps/api" };
        record(&bed, stack, "prod");
    }
    let page = bed.github.deployment_records("prod").unwrap();
    assert_eq!(page.records.len(), 100);
    assert!(page.more);
    assert!(
        page.records[0].created_at >= page.records[99].created_at,
        "newest first"
    );
    assert!(
        page.records.iter().all(|r| r.task == "sluiceway:apps/api"),
        "the oldest is past the page"
    );
    let web = bed
        .github
        .deployment_records_of_task("sluiceway:apps/web", "prod")
        .unwrap();
    assert_eq!(web.len(), 1);
    let api = bed
        .github
        .deployment_records_of_task("sluiceway:apps/api", "prod")
        .unwrap();
    assert_eq!(api.len(), 100);
}

#[test]
fn github_s_own_auto_inactive_is_visible_and_ours_turns_it_off() {
    let bed = Bed::new();
    let first = record(&bed, "apps/web", "prod");
    let second = record(&bed, "apps/web", "prod");
    let success = NewDeploymentStatus {
        state: RecordState::Success,
        description: "deployed".into(),
        log_url: None,
    };
    bed.github
        .set_deployment_status(first.id, &success)
        .unwrap();
    bed.github
        .set_deployment_status(second.id, &success)
        .unwrap();
    let first = bed.github.deployment_record(first.id).unwrap();
    assert!(!first.is_open(), "a success ends it");
    assert_eq!(
        first.latest_status.unwrap().state,
        RecordState::Success,
        "auto_inactive: false keeps it"
    );
}

#[test]
fn preview_pages_are_created_once_and_updated_after() {
    let bed = Bed::new();
    let sha = bed.emulator.world().repos[REPO].branches["main"].clone();
    let page = PreviewPage {
        sha: sha.clone(),
        name: "sluiceway / apps/web".into(),
        external_id: "6c2da1081e759753".into(),
        title: "apps/web: 1 to update".into(),
        summary: "1 to update".into(),
        text: "- update `aws_s3_bucket.site` tags".into(),
    };
    assert!(bed.github.check_runs(&sha).unwrap().is_empty());
    let created = bed.github.write_check_run(&page, None).unwrap();
    let listed = bed.github.check_runs(&sha).unwrap();
    assert_eq!(listed, std::slice::from_ref(&created));
    assert_eq!(
        listed[0].external_id.as_deref(),
        Some("6c2da1081e759753"),
        "the page is filed under its hash"
    );
    let updated = bed
        .github
        .write_check_run(
            &PreviewPage {
                title: "apps/web: 2".into(),
                ..page.clone()
            },
            Some(created.id),
        )
        .unwrap();
    assert_eq!(updated.id, created.id);
    assert_eq!(
        bed.github.check_runs(&sha).unwrap().len(),
        1,
        "a rescan of the same commit adds no run"
    );
    let other = bed
        .github
        .write_check_run(
            &PreviewPage {
                name: "sluiceway / apps/api".into(),
                ..page
            },
            None,
        )
        .unwrap();
    assert_ne!(other.id, created.id);
    assert_eq!(bed.github.check_runs(&sha).unwrap().len(), 2);
}

#[test]
fn a_dispatch_starts_a_run_that_the_runs_list_shows() {
    let bed = Bed::new();
    let inputs = BTreeMap::from([("mode".to_string(), "scan".to_string())]);
    let run = bed
        .github
        .dispatch_workflow("sluiceway.yml", "main", &inputs)
        .unwrap()
        .unwrap();
    assert!(run.html_url.ends_with(&format!("/actions/runs/{}", run.id)));
    let runs = bed
        .github
        .workflow_runs("sluiceway.yml", &RunsFilter::default())
        .unwrap();
    assert_eq!(runs.iter().map(|r| r.id).collect::<Vec<_>>(), [run.id]);
    assert_eq!(runs[0].event, "workflow_dispatch");

    let issues_run = bed.act(Act::StartRun {
        repo: REPO.into(),
        workflow: "sluiceway.yml".into(),
        event: "issues".into(),
        actor: "alice".into(),
    });
    bed.act(Act::EndRun {
        repo: REPO.into(),
        run: issues_run.as_u64().unwrap(),
        conclusion: "failure".into(),
    });
    let filter = RunsFilter {
        event: Some("issues".into()),
        status: None,
    };
    let issue_runs = bed.github.workflow_runs("sluiceway.yml", &filter).unwrap();
    assert_eq!(issue_runs.len(), 1);
    let failed = bed.github.workflow_run(issue_runs[0].id).unwrap();
    assert_eq!(
        (failed.status.as_str(), failed.conclusion.as_deref()),
        ("completed", Some("failure"))
    );
    let ended = RunsFilter {
        event: None,
        status: Some("completed".into()),
    };
    assert_eq!(
        bed.github
            .workflow_runs("sluiceway.yml", &ended)
            .unwrap()
            .len(),
        1
    );

    let error = bed
        .github
        .dispatch_workflow("missing.yml", "main", &inputs)
        .unwrap_err();
    assert_eq!(error.status(), Some(404));
    assert_eq!(
        error.to_string(),
        "could not dispatch the workflow missing.yml (the token needs `actions: write`): GitHub answered 404: Not Found"
    );
}

#[test]
fn a_comparison_lists_the_files_between_two_commits() {
    let bed = Bed::new();
    let base = bed.emulator.world().repos[REPO].branches["main"].clone();
    let first = bed.act(Act::Push {
        repo: REPO.into(),
        branch: "main".into(),
        author: Some("alice".into()),
        message: "web".into(),
        files: vec![file("apps/web/main.tf")],
    });
    bed.act(Act::Push {
        repo: REPO.into(),
        branch: "main".into(),
        author: Some("bob".into()),
        message: "rename".into(),
        files: vec![FileChange {
            path: "apps/api/new.tf".into(),
            status: "renamed".into(),
            previous_path: Some("apps/api/old.tf".into()),
            content: None,
        }],
    });
    let comparison = bed.github.compare(&base, "main").unwrap();
    assert_eq!(comparison.status, "ahead");
    assert_eq!(comparison.ahead_by, 2);
    let paths: Vec<(&str, Option<&str>)> = comparison
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.previous_path.as_deref()))
        .collect();
    assert_eq!(
        paths,
        [
            ("apps/web/main.tf", None),
            ("apps/api/new.tf", Some("apps/api/old.tf"))
        ]
    );
    assert_eq!(
        bed.github.compare("main", "main").unwrap().status,
        "identical"
    );
    assert_eq!(bed.github.compare("main", &base).unwrap().status, "behind");
    let files = bed.github.commit_files(first.as_str().unwrap()).unwrap();
    assert_eq!(
        files.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(),
        ["apps/web/main.tf"]
    );
    assert_eq!(
        bed.github
            .compare("0000000000000000000000000000000000000000", "main")
            .unwrap_err()
            .status(),
        Some(404)
    );
}

#[test]
fn the_commit_walk_names_authors_and_the_merged_pull_requests() {
    let bed = Bed::new();
    bed.act(Act::Push {
        repo: REPO.into(),
        branch: "main".into(),
        author: Some("bob".into()),
        message: "direct".into(),
        files: vec![file("apps/api/main.tf")],
    });
    let pull = bed.act(Act::OpenPull {
        repo: REPO.into(),
        author: "alice".into(),
        title: "Bigger web".into(),
        files: vec![file("apps/web/main.tf"), file("shared/modules/x.tf")],
    });
    let head = bed.github.open_pull_requests("main").unwrap()[0]
        .head_sha
        .clone();
    let merge = bed
        .github
        .merge_pull_request(pull.as_u64().unwrap(), &head, MergeMethod::Merge)
        .unwrap();

    let commits = bed.github.recent_commits("main", 100).unwrap();
    assert_eq!(commits[0].sha, merge);
    assert_eq!(commits[0].parents.len(), 2, "a merge commit");
    let merged = &commits[0].pull_requests;
    assert_eq!(merged.len(), 1);
    assert_eq!(merged[0].number, pull.as_u64().unwrap());
    assert_eq!(merged[0].author.as_ref().unwrap().login, "alice");
    assert_eq!(merged[0].files, ["apps/web/main.tf", "shared/modules/x.tf"]);
    assert_eq!(merged[0].changed_files, 2);
    let direct = commits
        .iter()
        .find(|c| c.pull_requests.is_empty() && c.author.is_some())
        .unwrap();
    assert_eq!(direct.author.as_ref().unwrap().login, "bob");
    assert_eq!(bed.github.recent_commits("main", 2).unwrap().len(), 2);
}

#[test]
fn permissions_come_from_github_s_booleans_and_a_missing_account_is_not_a_user() {
    let bed = Bed::new();
    let alice = bed.github.permission("alice").unwrap();
    assert_eq!(
        (alice.push, alice.maintain, alice.admin, alice.kind),
        (true, false, false, ActorKind::User)
    );
    let dana = bed.github.permission("DANA").unwrap();
    assert_eq!(
        (dana.push, dana.maintain, dana.admin),
        (true, true, false),
        "logins match in any case"
    );
    let bob = bed.github.permission("bob").unwrap();
    assert!(bob.admin && bob.maintain && bob.push);
    let erin = bed.github.permission("erin").unwrap();
    assert!(!erin.push, "read access cannot tick");
    let carol = bed.github.permission("carol").unwrap();
    assert!(!carol.push);
    let renovate = bed.github.permission("renovate[bot]").unwrap();
    assert_eq!(renovate.kind, ActorKind::Bot);
    let gone = bed.github.permission("mallory").unwrap_err();
    assert_eq!(gone.status(), Some(404));
    assert_eq!(gone.message(), Some("mallory is not a user"));
}

#[test]
fn open_pull_requests_carry_check_counts_and_merge_only_at_the_ticked_head() {
    let bed = Bed::new();
    let number = bed
        .act(Act::OpenPull {
            repo: REPO.into(),
            author: "renovate[bot]".into(),
            title: "Update hashicorp/aws to v6".into(),
            files: vec![file("apps/web/versions.tf")],
        })
        .as_u64()
        .unwrap();
    let pulls = bed.github.open_pull_requests("main").unwrap();
    assert_eq!(pulls.len(), 1);
    let pull = &pulls[0];
    assert_eq!(
        (pull.number, pull.draft, pull.mergeable.as_str()),
        (number, false, "MERGEABLE")
    );
    assert_eq!(pull.author.as_ref().unwrap().kind, ActorKind::Bot);
    assert_eq!(pull.files[0].path, "apps/web/versions.tf");
    assert_eq!(pull.checks, None, "no checks at all");
    assert!(bed.github.open_pull_requests("release").unwrap().is_empty());

    let stale = "1111111111111111111111111111111111111111";
    let refused = bed
        .github
        .merge_pull_request(number, stale, MergeMethod::Squash)
        .unwrap_err();
    assert_eq!(refused.status(), Some(409));
    assert!(refused.to_string().contains("contents: write"));
    bed.github
        .merge_pull_request(number, &pull.head_sha, MergeMethod::Squash)
        .unwrap();
    assert!(bed.github.open_pull_requests("main").unwrap().is_empty());
    assert_eq!(
        bed.github
            .merge_pull_request(number, &pull.head_sha, MergeMethod::Squash)
            .unwrap_err()
            .status(),
        Some(405)
    );
}

#[test]
fn check_counts_come_per_state() {
    let bed = Bed::new();
    bed.act(Act::OpenPull {
        repo: REPO.into(),
        author: "alice".into(),
        title: "t".into(),
        files: vec![file("a.tf")],
    });
    let head = bed.github.open_pull_requests("main").unwrap()[0]
        .head_sha
        .clone();
    bed.emulator
        .act(Act::SetChecks {
            repo: REPO.into(),
            sha: head,
            rollup: Rollup {
                state: "FAILURE".into(),
                check_runs: BTreeMap::from([("SUCCESS".into(), 3), ("FAILURE".into(), 1)]),
                status_contexts: BTreeMap::from([("PENDING".into(), 2)]),
            },
        })
        .unwrap();
    let checks = bed.github.open_pull_requests("main").unwrap()[0]
        .checks
        .clone()
        .unwrap();
    assert_eq!(checks.state, "FAILURE");
    assert_eq!(
        checks.check_runs,
        BTreeMap::from([("FAILURE".into(), 1), ("SUCCESS".into(), 3)])
    );
    assert_eq!(
        checks.status_contexts,
        BTreeMap::from([("PENDING".into(), 2)])
    );
}

#[test]
fn every_graphql_document_the_client_sends_is_valid_against_github_s_schema() {
    let descriptions = support::descriptions();
    for (name, document) in sluiceway_github::client::documents::DOCUMENTS {
        let problems = descriptions.check_graphql(document);
        assert!(problems.is_empty(), "{name}: {problems:?}");
    }
}

/// The port calls of a later full scan (decision 0017: find, read, records, write,
/// read back), counted on the wire for dashboards of 1, 50 and 500 stacks, each stack
/// with a deployment record in the one environment.
#[test]
fn a_full_scan_makes_the_same_five_requests_whatever_the_number_of_stacks() {
    for stacks in [1, 50, 500] {
        let bed = Bed::new();
        let rows: String = (0..stacks)
            .map(|n| format!("- [ ] **apps/s{n}** <!-- row -->\n"))
            .collect();
        let issue = bed
            .github
            .create_issue(&NewIssue {
                title: "Sluiceway".into(),
                body: rows.clone(),
                labels: vec!["sluiceway".into()],
            })
            .unwrap();
        for n in 0..stacks {
            record(&bed, &format!("apps/s{n}"), "sluiceway");
        }
        let before = bed.github.requests_made();
        let found = bed.github.open_issues_labelled("sluiceway").unwrap();
        let live = bed.github.read_body(found[0].number, None).unwrap();
        let records = bed.github.deployment_records("sluiceway").unwrap();
        assert_eq!(records.records.len(), stacks.min(100));
        bed.github
            .write_body(issue.number, &format!("{}scanned\n", live.body))
            .unwrap();
        let read_back = bed.github.read_body(issue.number, None).unwrap();
        assert!(read_back.body.ends_with("scanned\n"));
        assert_eq!(bed.github.requests_made() - before, 5, "{stacks} stacks");
    }
}

#[test]
fn long_lists_are_read_to_their_end_over_both_apis() {
    let bed = Bed::new();
    let sha = bed.emulator.world().repos[REPO].branches["main"].clone();
    for n in 0..130 {
        let page = PreviewPage {
            sha: sha.clone(),
            name: format!("sluiceway / s{n}"),
            external_id: String::new(),
            title: "t".into(),
            summary: "s".into(),
            text: String::new(),
        };
        bed.github.write_check_run(&page, None).unwrap();
        bed.act(Act::OpenPull {
            repo: REPO.into(),
            author: "alice".into(),
            title: format!("p{n}"),
            files: vec![file("a.tf")],
        });
    }
    for _ in 0..105 {
        record(&bed, "apps/web", "prod");
    }
    let before = bed.github.requests_made();
    assert_eq!(bed.github.check_runs(&sha).unwrap().len(), 130);
    assert_eq!(bed.github.requests_made() - before, 2, "two REST pages");
    let before = bed.github.requests_made();
    let pulls = bed.github.open_pull_requests("main").unwrap();
    assert_eq!(pulls.len(), 130);
    assert_eq!(bed.github.requests_made() - before, 2, "two GraphQL pages");
    assert_eq!(
        pulls
            .iter()
            .map(|p| p.number)
            .collect::<std::collections::BTreeSet<_>>()
            .len(),
        130
    );
    let before = bed.github.requests_made();
    assert_eq!(
        bed.github
            .deployment_records_of_task("sluiceway:apps/web", "prod")
            .unwrap()
            .len(),
        105
    );
    assert_eq!(
        bed.github.requests_made() - before,
        2 + 105,
        "two pages and a status request per record"
    );
}

/// A first scan (decision 0017): no dashboard open or closed, so it is created with its
/// body, read back, and pinned.
#[test]
fn a_first_scan_makes_seven_requests() {
    let bed = Bed::new();
    let before = bed.github.requests_made();
    assert!(
        bed.github
            .open_issues_labelled("sluiceway")
            .unwrap()
            .is_empty()
    );
    assert!(
        bed.github
            .closed_issues_labelled("sluiceway")
            .unwrap()
            .is_empty()
    );
    let records = bed.github.deployment_records("sluiceway").unwrap();
    assert!(records.records.is_empty());
    let issue = dashboard(&bed);
    let read_back = bed.github.read_body(issue.number, None).unwrap();
    assert!(read_back.body.starts_with("<!-- sluiceway:dashboard -->"));
    if !bed.github.pinned_issues().unwrap().contains(&issue.number) {
        bed.github.pin_issue(&issue).unwrap();
    }
    assert_eq!(bed.github.requests_made() - before, 7);
}

#[test]
fn on_enterprise_server_both_apis_are_found_from_the_rest_address() {
    let bed = Bed::enterprise();
    assert!(bed.emulator.api_url().ends_with("/api/v3"));
    let issue = dashboard(&bed);
    assert!(
        !issue.html_url.contains("/api/v3"),
        "pages are not under the API"
    );
    bed.act(Act::Tick {
        repo: REPO.into(),
        issue: issue.number,
        person: "alice".into(),
        line: "apps/web".into(),
    });
    let read = bed.github.read_body(issue.number, None).unwrap();
    assert_eq!(read.edits[0].editor.as_ref().unwrap().login, "alice");
    assert!(bed.github.permission("alice").unwrap().push);
    let traffic = bed.emulator.traffic();
    assert!(
        traffic.contains(&"graphql ReadBody".to_string()),
        "{traffic:?}"
    );
}

#[test]
fn a_files_text_is_read_at_a_commit_and_a_missing_or_removed_one_is_none() {
    let bed = Bed::new();
    let with = |path: &str, status: &str, content: Option<&str>| FileChange {
        path: path.into(),
        status: status.into(),
        previous_path: None,
        content: content.map(str::to_owned),
    };
    let first = bed.act(Act::Push {
        repo: REPO.into(),
        branch: "main".into(),
        author: Some("alice".into()),
        message: "first".into(),
        files: vec![
            with(
                "apps/web/main.tf",
                "added",
                Some("resource \"x\" \"é\" {}\n"),
            ),
            with("apps/old.tf", "added", Some("old\n")),
        ],
    });
    let first = first.as_str().unwrap().to_owned();
    bed.act(Act::Push {
        repo: REPO.into(),
        branch: "main".into(),
        author: Some("alice".into()),
        message: "second".into(),
        files: vec![with("apps/old.tf", "removed", None)],
    });
    assert_eq!(
        bed.github
            .file_at("apps/web/main.tf", "main")
            .unwrap()
            .as_deref(),
        Some("resource \"x\" \"é\" {}\n")
    );
    assert_eq!(bed.github.file_at("apps/old.tf", "main").unwrap(), None);
    assert_eq!(
        bed.github
            .file_at("apps/old.tf", &first)
            .unwrap()
            .as_deref(),
        Some("old\n")
    );
    assert_eq!(bed.github.file_at("nowhere.tf", "main").unwrap(), None);
}

#[test]
fn a_settings_change_goes_out_as_a_branch_a_commit_and_one_pull_request() {
    let bed = Bed::new();
    let settings = |text: &str| FileChange {
        path: "sluiceway.yaml".into(),
        status: "added".into(),
        previous_path: None,
        content: Some(text.into()),
    };
    bed.act(Act::Push {
        repo: REPO.into(),
        branch: "main".into(),
        author: Some("alice".into()),
        message: "settings".into(),
        files: vec![settings("dashboard:\n  title: a\n")],
    });
    let github = &bed.github;
    assert_eq!(github.default_branch().unwrap(), "main");
    let base = github.branch_head("main").unwrap().unwrap();
    assert_eq!(github.branch_head("sluiceway/dashboard").unwrap(), None);
    let read = github.repo_file("sluiceway.yaml", "main").unwrap().unwrap();
    assert_eq!(read.text, "dashboard:\n  title: a\n");

    github.point_branch("sluiceway/dashboard", &base).unwrap();
    assert_eq!(
        github
            .branch_head("sluiceway/dashboard")
            .unwrap()
            .as_deref(),
        Some(base.as_str())
    );
    let write = sluiceway_github::FileWrite {
        path: "sluiceway.yaml",
        branch: "sluiceway/dashboard",
        text: "dashboard:\n  title: b\n",
        message: "Change the dashboard's title",
        replacing: Some(&read.sha),
    };
    let commit = github.write_file(&write).unwrap();
    // A write that names a blob the branch no longer has is GitHub's conflict.
    let stale = github.write_file(&write).unwrap_err();
    assert!(stale.to_string().contains("409"), "{stale}");
    assert_eq!(
        github
            .file_at("sluiceway.yaml", "sluiceway/dashboard")
            .unwrap()
            .as_deref(),
        Some("dashboard:\n  title: b\n")
    );
    assert_eq!(
        github.file_at("sluiceway.yaml", "main").unwrap().as_deref(),
        Some(read.text.as_str())
    );

    assert_eq!(
        github.pull_request_from("sluiceway/dashboard").unwrap(),
        None
    );
    let new = sluiceway_github::NewPullRequest {
        title: "Change the Sluiceway dashboard's settings",
        body: "asked by alice",
        head: "sluiceway/dashboard",
        base: "main",
    };
    let opened = github.open_pull_request(&new).unwrap();
    assert!(
        opened
            .html_url
            .ends_with(&format!("/pull/{}", opened.number))
    );
    assert_eq!(
        github.pull_request_from("sluiceway/dashboard").unwrap(),
        Some(opened.clone())
    );
    // A second pull request from the same branch is GitHub's refusal.
    assert!(github.open_pull_request(&new).is_err());
    // A branch that exists is moved, even backwards.
    github.point_branch("sluiceway/dashboard", &base).unwrap();
    assert_ne!(
        Some(commit),
        github.branch_head("sluiceway/dashboard").unwrap()
    );
}

//! The wire's promises, against the emulator's faults: one retry of a 5xx, waits on
//! GitHub's rate limits within a bound, a count of every request, errors that name the
//! call and its permission, and a token that never shows.

mod support;

use std::time::Duration;

use github_emulator::world::Level;
use github_emulator::{Fault, FaultKind};
use sluiceway_github::{Failure, GitHub, NewIssue, Pauses};
use support::{Bed, TOKEN};

const PATCH_ISSUE: &str = "PATCH /repos/{owner}/{repo}/issues/{issue_number}";
const PERMISSION: &str = "GET /repos/{owner}/{repo}/collaborators/{username}/permission";

fn arm(bed: &Bed, on: &str, times: u32, kind: FaultKind) {
    bed.emulator.arm(Fault {
        on: on.into(),
        times,
        kind,
    });
}

fn bad_gateway() -> FaultKind {
    FaultKind::Status {
        status: 502,
        message: "Server Error".into(),
    }
}

#[test]
fn one_5xx_is_retried_once_after_a_second() {
    let bed = Bed::new();
    arm(&bed, PERMISSION, 1, bad_gateway());
    let before = bed.github.requests_made();
    assert!(bed.github.permission("alice").unwrap().push);
    assert_eq!(
        bed.github.requests_made() - before,
        2,
        "the refused request counts too"
    );
    assert_eq!(bed.waits.seen(), [Duration::from_secs(1)]);
}

#[test]
fn a_second_5xx_fails_the_call_naming_it_and_its_permission() {
    let bed = Bed::new();
    arm(&bed, PERMISSION, 2, bad_gateway());
    let error = bed.github.permission("alice").unwrap_err();
    assert_eq!(error.status(), Some(502));
    assert_eq!(
        error.to_string(),
        "could not read the repository permission of alice (the token needs `metadata: read`): GitHub answered 502: Server Error"
    );
}

#[test]
fn a_4xx_is_never_retried() {
    let bed = Bed::new();
    arm(
        &bed,
        PERMISSION,
        1,
        FaultKind::Status {
            status: 422,
            message: "Validation Failed".into(),
        },
    );
    let before = bed.github.requests_made();
    assert_eq!(
        bed.github.permission("alice").unwrap_err().status(),
        Some(422)
    );
    assert_eq!(bed.github.requests_made() - before, 1);
    assert!(bed.waits.seen().is_empty());
}

#[test]
fn a_secondary_rate_limit_is_waited_out_for_as_long_as_github_asks() {
    let bed = Bed::new();
    arm(
        &bed,
        PERMISSION,
        1,
        FaultKind::SecondaryRateLimit {
            retry_after: Some(7),
        },
    );
    assert!(bed.github.permission("alice").is_ok());
    assert_eq!(bed.waits.seen(), [Duration::from_secs(7)]);
}

#[test]
fn a_secondary_rate_limit_without_retry_after_waits_a_minute() {
    let bed = Bed::new();
    arm(
        &bed,
        PERMISSION,
        1,
        FaultKind::SecondaryRateLimit { retry_after: None },
    );
    assert!(bed.github.permission("alice").is_ok());
    assert_eq!(bed.waits.seen(), [Duration::from_secs(60)]);
}

#[test]
fn an_exhausted_primary_limit_waits_until_its_reset() {
    let bed = Bed::new();
    arm(
        &bed,
        PERMISSION,
        1,
        FaultKind::PrimaryRateLimit { reset_in: 20 },
    );
    assert!(bed.github.permission("alice").is_ok());
    let waited = bed.waits.seen();
    assert_eq!(waited.len(), 1);
    assert!(
        (Duration::from_secs(18)..=Duration::from_secs(21)).contains(&waited[0]),
        "{waited:?}"
    );
}

#[test]
fn a_wait_longer_than_the_bound_fails_the_call_instead() {
    let bed = Bed::with_pauses(Pauses {
        retry: Duration::from_secs(1),
        wait_bound: Duration::from_secs(30),
    });
    arm(
        &bed,
        PERMISSION,
        1,
        FaultKind::SecondaryRateLimit {
            retry_after: Some(90),
        },
    );
    let error = bed.github.permission("alice").unwrap_err();
    assert_eq!(
        error.failure,
        Failure::RateLimited {
            wait_seconds: 90,
            bound_seconds: 30
        }
    );
    assert!(bed.waits.seen().is_empty());
}

#[test]
fn waits_within_one_call_add_up_to_the_bound() {
    let bed = Bed::with_pauses(Pauses {
        retry: Duration::from_secs(1),
        wait_bound: Duration::from_secs(30),
    });
    arm(
        &bed,
        PERMISSION,
        3,
        FaultKind::SecondaryRateLimit {
            retry_after: Some(12),
        },
    );
    let error = bed.github.permission("alice").unwrap_err();
    assert_eq!(
        error.failure,
        Failure::RateLimited {
            wait_seconds: 12,
            bound_seconds: 30
        }
    );
    assert_eq!(
        bed.waits.seen(),
        [Duration::from_secs(12), Duration::from_secs(12)]
    );
}

#[test]
fn a_slow_answer_is_still_an_answer() {
    let bed = Bed::new();
    arm(&bed, PERMISSION, 1, FaultKind::Slow { millis: 300 });
    assert!(bed.github.permission("alice").unwrap().push);
    assert!(bed.waits.seen().is_empty());
}

#[test]
fn an_edit_that_lands_between_the_read_and_the_write_is_seen_in_the_history() {
    let bed = Bed::new();
    let issue = bed
        .github
        .create_issue(&NewIssue {
            title: "Sluiceway".into(),
            body: "- [ ] **apps/web**".into(),
            labels: vec![],
        })
        .unwrap();
    let read = bed.github.read_body(issue.number, None).unwrap();
    arm(
        &bed,
        PATCH_ISSUE,
        1,
        FaultKind::TickFirst {
            repo: support::REPO.into(),
            issue: issue.number,
            editor: "alice".into(),
            line: "apps/web".into(),
        },
    );
    bed.github
        .write_body(issue.number, "- [ ] **apps/web** rewritten")
        .unwrap();
    let after = bed.github.read_body(issue.number, None).unwrap();
    assert_eq!(
        after.body, "- [ ] **apps/web** rewritten",
        "our write went over the tick"
    );
    let replaced = after.edits[1].body.as_deref().unwrap();
    assert_ne!(
        replaced, read.body,
        "the entry before ours is not the body our write was built from"
    );
    assert_eq!(replaced, "- [x] **apps/web**");
    assert_eq!(after.edits[1].editor.as_ref().unwrap().login, "alice");
}

#[test]
fn a_token_without_the_permission_is_refused_and_the_error_says_which_it_needs() {
    let bed = Bed::new();
    let issue = bed
        .github
        .create_issue(&NewIssue {
            title: "Sluiceway".into(),
            body: String::new(),
            labels: vec![],
        })
        .unwrap();
    let reader = bed.client_with("ghs_reader", &[("issues", Level::Read)]);
    assert!(reader.read_body(issue.number, None).is_ok());
    let error = reader.write_body(issue.number, "x").unwrap_err();
    assert_eq!(error.status(), Some(403));
    assert_eq!(
        error.to_string(),
        format!(
            "could not write the body of issue #{} (the token needs `issues: write`): GitHub answered 403: Resource not accessible by integration",
            issue.number
        )
    );
}

#[test]
fn a_token_github_does_not_know_is_refused_as_bad_credentials() {
    let bed = Bed::new();
    let stranger = sluiceway_github::HttpGitHub::new(
        sluiceway_github::Endpoints::at(&bed.emulator.base_url()).unwrap(),
        "ghs_unknown",
        support::REPO,
    );
    let error = stranger.permission("alice").unwrap_err();
    assert_eq!(
        (error.status(), error.message()),
        (Some(401), Some("Bad credentials"))
    );
}

#[test]
fn the_token_never_shows_in_an_error_or_a_debug_print() {
    let bed = Bed::new();
    arm(&bed, PERMISSION, 2, bad_gateway());
    let error = bed.github.permission("alice").unwrap_err();
    for text in [
        error.to_string(),
        format!("{error:?}"),
        format!("{:?}", bed.github),
    ] {
        assert!(!text.contains(TOKEN), "{text}");
    }
    let unreachable = sluiceway_github::HttpGitHub::with_pauses(
        sluiceway_github::Endpoints::at("http://127.0.0.1:9").unwrap(),
        TOKEN,
        support::REPO,
        Pauses::default(),
        bed.waits.clone(),
    );
    let error = unreachable.permission("alice").unwrap_err();
    assert!(matches!(error.failure, Failure::Transport(_)), "{error}");
    assert!(!format!("{error} {error:?}").contains(TOKEN));
}

#[test]
fn graphql_errors_carry_github_s_type_and_message() {
    let bed = Bed::new();
    let error = bed.github.read_body(999, None).unwrap_err();
    match &error.failure {
        Failure::GraphQl { kind, message } => {
            assert_eq!(kind, "NOT_FOUND");
            assert!(
                message.contains("Could not resolve to an Issue"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(error.to_string().contains("issues: read"));
}

#[test]
fn a_graphql_query_meets_the_same_retry_and_waits() {
    let bed = Bed::new();
    let issue = bed
        .github
        .create_issue(&NewIssue {
            title: "Sluiceway".into(),
            body: "b".into(),
            labels: vec![],
        })
        .unwrap();
    arm(&bed, "graphql ReadBody", 1, bad_gateway());
    arm(
        &bed,
        "graphql ReadBody",
        1,
        FaultKind::SecondaryRateLimit {
            retry_after: Some(3),
        },
    );
    let before = bed.github.requests_made();
    assert_eq!(bed.github.read_body(issue.number, None).unwrap().body, "b");
    assert_eq!(bed.github.requests_made() - before, 3);
    assert_eq!(
        bed.waits.seen(),
        [Duration::from_secs(1), Duration::from_secs(3)]
    );
}

#[test]
fn a_graphql_field_the_token_may_not_read_is_github_s_forbidden() {
    let bed = Bed::new();
    let reader = bed.client_with("ghs_issues_only", &[("issues", Level::Write)]);
    let error = reader.deployment_records("prod").unwrap_err();
    assert_eq!(
        error.failure,
        Failure::GraphQl {
            kind: "FORBIDDEN".into(),
            message: "Resource not accessible by integration".into()
        }
    );
    assert!(error.to_string().contains("deployments: read"), "{error}");
}

use jiff::Timestamp;

use super::*;
use crate::facts::Scan;
use crate::store::RepoPlace;

fn repo() -> KeptRepo {
    KeptRepo {
        place: RepoPlace {
            org: "octo".into(),
            org_kind: "Organization".into(),
            name: "infra".into(),
            html_url: "https://github.example/octo/infra".into(),
            dashboard_number: 7,
            dashboard_url: "https://github.example/octo/infra/issues/7".into(),
        },
        scan: Scan {
            sha: "0123456789abcdef0123456789abcdef01234567".into(),
            run: 42,
            at: "2026-03-01T09:00:00Z".parse().unwrap(),
        },
        stacks: Vec::new(),
        record_writer: None,
    }
}

fn deleting() -> StackFacts {
    StackFacts {
        stack: "apps/api:prod".into(),
        state: RowState::Pending,
        creates: 1,
        updates: 0,
        replaces: 1,
        deletes: 1,
        destroys: 2,
        tracking: 0,
        changed: 0,
        gone: 0,
        failed: false,
        busy: false,
        ticked: false,
    }
}

fn session() -> KeptSession {
    KeptSession {
        login: "alice".into(),
        form_token: "form-token".into(),
        expires_at: Timestamp::MAX,
    }
}

#[test]
fn a_stack_s_address_is_its_id_as_one_segment() {
    assert_eq!(
        address("octo", "infra", "apps/api:prod"),
        "/octo/infra/stacks/apps%2Fapi%3Aprod"
    );
}

#[test]
fn a_tick_that_deletes_says_so_and_sends_back_what_the_person_saw() {
    let page = stack_body(
        &repo(),
        &deleting(),
        Some(&Ok(Err(PreviewError::NoPage))),
        &[],
        &session(),
    )
    .into_string();
    let main = page.split("<script>").next().unwrap();
    insta::assert_snapshot!(main.replace("><", ">\n<"));
}

#[test]
fn a_stack_in_sync_has_no_tick_and_no_preview() {
    let in_sync = StackFacts {
        state: RowState::InSync,
        destroys: 0,
        ..deleting()
    };
    let page = stack_body(&repo(), &in_sync, None, &[], &session()).into_string();
    assert!(!page.contains("<form"), "{page}");
    assert!(!page.contains("What would change"), "{page}");
    assert!(page.contains("No deploy of this stack is on record."));
}

use super::*;
use crate::testing::{kept_repo, session, stack};

fn repo() -> KeptRepo {
    kept_repo("octo", "infra", "2026-03-01T09:00:00Z", Vec::new())
}

fn deleting() -> StackFacts {
    StackFacts {
        creates: 1,
        replaces: 1,
        deletes: 1,
        destroys: 2,
        ..stack("apps/api:prod", RowState::Pending)
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

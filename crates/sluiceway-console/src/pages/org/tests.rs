use sluiceway_dashboard::facts::RowState;

use super::*;
use crate::testing::{kept_repo, stack};

fn repo(name: &str, at: &str, stacks: Vec<StackFacts>) -> KeptRepo {
    kept_repo("Octo", name, at, stacks)
}

/// Two repositories with a stack in each state, one deleting, and one that found none.
fn org() -> Vec<KeptRepo> {
    let deleting = StackFacts {
        creates: 1,
        deletes: 2,
        destroys: 2,
        ..stack("storage:prod", RowState::Pending)
    };
    let drifted = StackFacts {
        changed: 1,
        ..stack("dns", RowState::Drift)
    };
    vec![
        repo(
            "infra",
            "2026-03-01T09:00:00Z",
            vec![
                deleting,
                stack("network", RowState::InSync),
                stack("queue", RowState::Queued),
                drifted,
            ],
        ),
        repo(
            "platform",
            "2026-03-01T10:30:00Z",
            vec![
                stack("<script>alert(1)</script>", RowState::PreviewFailed),
                stack("cluster", RowState::Pending),
            ],
        ),
        repo("docs", "2026-02-28T08:00:00Z", vec![]),
    ]
}

/// What the app reaches: two kept repositories, and one never scanned.
fn reached() -> Vec<InstalledRepo> {
    ["infra", "Platform", "billing"]
        .iter()
        .map(|name| InstalledRepo {
            name: (*name).into(),
            html_url: format!("https://github.example/Octo/{name}"),
        })
        .collect()
}

fn not_set_up_yet() -> Vec<InstalledRepo> {
    not_set_up(&reached(), &org())
}

#[test]
fn a_repository_the_app_reaches_without_a_dashboard_is_not_set_up_yet() {
    let names: Vec<String> = not_set_up_yet().into_iter().map(|r| r.name).collect();
    assert_eq!(names, ["billing"], "GitHub's names ignore case");
    let silent = org_view_body(&org(), ALL, None).into_string();
    assert!(
        silent.contains("GitHub did not say which repositories"),
        "{silent}"
    );
}

fn drawn(shown: Shown) -> String {
    org_view_body(&org(), shown, Some(&not_set_up_yet())).into_string()
}

/// The page with each block on a line of its own, for a snapshot a person can read.
fn lines(html: &str) -> String {
    let mut out = String::new();
    for (i, part) in html.split('<').enumerate() {
        let block = [
            "p", "div", "ul", "li", "nav", "section", "h2", "table", "thead", "tbody", "tr",
        ]
        .iter()
        .any(|tag| part.starts_with(tag) && part[tag.len()..].starts_with([' ', '>']));
        if i > 0 && block {
            out.push('\n');
        }
        if i > 0 {
            out.push('<');
        }
        out.push_str(part);
    }
    out
}

const ALL: Shown = Shown {
    only: None,
    by: Grouping::Attention,
};

#[test]
fn the_org_view_counts_groups_and_names_what_deletes() {
    insta::assert_snapshot!(lines(&drawn(ALL)));
}

#[test]
fn grouped_by_repository_each_links_its_dashboard() {
    insta::assert_snapshot!(lines(&drawn(Shown {
        only: None,
        by: Grouping::Repository,
    })));
}

#[test]
fn a_chip_shows_one_state_and_says_when_none_is_in_it() {
    let pending = drawn(Shown {
        only: Some(AppState::Pending),
        by: Grouping::Attention,
    });
    assert!(pending.contains("storage:prod") && pending.contains("cluster"));
    assert!(!pending.contains("network") && !pending.contains("queue"));
    assert!(pending.contains(
        r#"<a href="?state=pending&amp;by=attention" aria-current="true">Pending 2</a>"#
    ));
    let only_in_sync = org_view_body(
        &[repo(
            "infra",
            "2026-03-01T09:00:00Z",
            vec![stack("network", RowState::InSync)],
        )],
        Shown {
            only: Some(AppState::Drifted),
            by: Grouping::Repository,
        },
        Some(&[]),
    )
    .into_string();
    assert!(only_in_sync.contains("No stack is drifted now."));
    assert!(!only_in_sync.contains("banner"));
}

#[test]
fn every_name_is_text() {
    let page = drawn(ALL);
    assert!(!page.contains("<script>"));
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
}

#[test]
fn an_address_that_names_no_state_or_grouping_is_refused_by_its_name() {
    let asked = |state: Option<&str>, by: Option<&str>| {
        Shown::read(&Asked {
            state: state.map(str::to_owned),
            by: by.map(str::to_owned),
        })
    };
    assert_eq!(asked(None, None), Ok(ALL));
    assert_eq!(
        asked(Some("in-sync"), Some("repository")),
        Ok(Shown {
            only: Some(AppState::InSync),
            by: Grouping::Repository
        })
    );
    assert_eq!(asked(Some("sunk"), None), Err(PageError::BadQuery("state")));
    assert_eq!(asked(None, Some("team")), Err(PageError::BadQuery("by")));
}

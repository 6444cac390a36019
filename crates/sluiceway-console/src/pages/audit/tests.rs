use sluiceway_dashboard::view::TrailResult;

use super::*;
use crate::facts::{DeployFacts, Ended, StatusFacts};

fn deploy(id: u64, repo: &str, stack: &str, at: &str, ended: Option<Ended>) -> KeptDeploy {
    let at: Timestamp = at.parse().unwrap();
    KeptDeploy {
        repo: repo.into(),
        html_url: format!("https://github.example/octo/{repo}/deployments/{id}"),
        facts: DeployFacts {
            id,
            stack: stack.into(),
            sha: "0123456789abcdef0123456789abcdef01234567".into(),
            ticker: "alice".into(),
            on_merge: id.is_multiple_of(2),
            drift: false,
            run: 42,
            created_at: at,
            status: Some(StatusFacts {
                state: "success".into(),
                at,
                ended,
            }),
        },
    }
}

fn kept() -> Vec<KeptDeploy> {
    vec![
        deploy(
            1,
            "infra",
            "network",
            "2026-02-01T09:00:00Z",
            Some(Ended::Trail(TrailResult::Deployed)),
        ),
        deploy(
            2,
            "infra",
            "storage:prod",
            "2026-02-28T10:00:00Z",
            Some(Ended::Trail(TrailResult::Failed)),
        ),
        deploy(
            3,
            "platform",
            "=HYPERLINK(\"x\")",
            "2026-02-27T08:00:00Z",
            Some(Ended::Trail(TrailResult::NoChanges)),
        ),
        deploy(
            4,
            "platform",
            "cluster",
            "2026-02-26T08:00:00Z",
            Some(Ended::NotADeploy),
        ),
    ]
}

const NOW: &str = "2026-03-01T12:00:00Z";

#[test]
fn the_log_lists_each_deploy_newest_first_with_its_filters_as_links() {
    let kept = kept();
    let lines = Filter::default().lines(&kept, NOW.parse().unwrap());
    let ids: Vec<u64> = lines.iter().map(|d| d.facts.id).collect();
    assert_eq!(ids, [2, 3, 1], "a record that deployed nothing is no line");
    let page = audit_body("octo", &Filter::default(), &lines, &[]).into_string();
    insta::assert_snapshot!(page.replace("><", ">\n<"));
}

#[test]
fn a_period_keeps_the_deploys_within_it_and_links_keep_the_other_filters() {
    let kept = kept();
    let filter = Filter {
        repo: Some("infra".into()),
        days: Some(7),
        ..Filter::default()
    };
    let lines = filter.lines(&kept, NOW.parse().unwrap());
    let ids: Vec<u64> = lines.iter().map(|d| d.facts.id).collect();
    assert_eq!(ids, [2, 3], "network's deploy is a month old");
    let page = audit_body("octo", &filter, &lines, &[]).into_string();
    assert!(
        page.contains(r#"href="/octo/-/audit.csv?repo=infra&amp;days=7""#),
        "{page}"
    );
    assert!(
        page.contains(r#"<a href="/octo/-/audit?repo=infra">Everything</a>"#),
        "{page}"
    );
    assert!(
        page.contains(
            r#"<a href="/octo/-/audit?repo=infra&amp;days=7" aria-current="true">Last 7 days</a>"#
        ),
        "{page}"
    );
}

#[test]
fn the_csv_holds_the_same_lines_and_no_cell_is_a_formula() {
    let kept = kept();
    let lines = Filter::default().lines(&kept, NOW.parse().unwrap());
    let text = csv_text(&lines).unwrap();
    insta::assert_snapshot!(text);
    let mut read = csv::Reader::from_reader(text.as_bytes());
    let stacks: Vec<String> = read.records().map(|r| r.unwrap()[2].to_owned()).collect();
    assert_eq!(stacks, ["storage:prod", "'=HYPERLINK(\"x\")", "network"]);
}

#[test]
fn a_filter_the_log_does_not_offer_is_refused_by_its_name() {
    let read = |days: Option<&str>, flagged: Option<&str>| {
        Filter::read(Asked {
            days: days.map(str::to_owned),
            flagged: flagged.map(str::to_owned),
            ..Asked::default()
        })
    };
    assert_eq!(
        read(Some("30"), Some("1")).map(|f| (f.days, f.flagged)),
        Ok((Some(30), true))
    );
    assert_eq!(read(Some("31"), None), Err(PageError::BadQuery("days")));
    assert_eq!(read(None, Some("yes")), Err(PageError::BadQuery("flagged")));
}

//! The refusal comment a person reads when a tick deployed nothing (decision 0018).

use sluiceway_core::config::PermissionLevel;
use sluiceway_core::stack::{StackId, TickRule};
use sluiceway_dashboard::comment::{self, Unmet, Why};

fn unmet(ticker: &str, stack: &str, why: Why) -> Unmet {
    Unmet {
        ticker: ticker.into(),
        stack: StackId::given(stack),
        why,
        through: None,
    }
}

#[test]
fn a_refusal_through_a_confirm_box_says_so() {
    let text = comment::refusals(&[Unmet {
        through: Some(sluiceway_dashboard::view::BulkSection::Pending),
        ..unmet("alice", "storage:prod", Why::NoWriteAccess)
    }])
    .unwrap();
    assert!(
        text.starts_with(
            "@alice ticked **storage:prod** through the confirm box of the pending stacks, but"
        ),
        "{text}"
    );
}

#[test]
fn every_unmet_tick_in_row_order_in_one_comment() {
    let twelve: Vec<String> = (1..=12).map(|n| format!("person{n}")).collect();
    let text = comment::refusals(&[
        unmet("erin", "apps/web:prod", Why::NoWriteAccess),
        unmet(
            "alice",
            "infra/db",
            Why::RuleNotMet(TickRule::AtLeast(PermissionLevel::Maintain)),
        ),
        unmet(
            "dana",
            "infra/dns",
            Why::RuleNotMet(TickRule::AtLeast(PermissionLevel::Admin)),
        ),
        unmet(
            "bob",
            "infra/net",
            Why::RuleNotMet(TickRule::Logins(vec![
                "carol".into(),
                "dave".into(),
                "ed_x".into(),
            ])),
        ),
        unmet(
            "bob",
            "infra/vpc",
            Why::RuleNotMet(TickRule::Logins(twelve)),
        ),
        unmet("frank", "apps/api", Why::Unverified),
        unmet(
            "gina",
            "apps/@team_[x]",
            Why::RuleNotMet(TickRule::Logins(vec!["carol".into()])),
        ),
    ])
    .unwrap();
    insta::assert_snapshot!(text);
}

#[test]
fn no_unmet_tick_no_comment() {
    assert_eq!(comment::refusals(&[]), None);
}

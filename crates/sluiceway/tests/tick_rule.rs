//! The tick rule, checked live against the emulator's permissions (decision 0018).

mod support;

use github_emulator::world::{AccountKind, Role};
use github_emulator::{Act, FaultKind};
use sluiceway::modes::tick_rule::{Refusal, TickCheck, Verdict};
use sluiceway_core::config::PermissionLevel;
use sluiceway_core::stack::TickRule;
use sluiceway_github::{Actor, ActorKind, GitHub};
use support::{Bed, REPO};

const PERMISSION: &str = "GET /repos/{owner}/{repo}/collaborators/{username}/permission";

fn bed() -> Bed {
    let bed = Bed::new();
    for (login, role) in [
        ("bob", Role::Admin),
        ("dana", Role::Maintain),
        ("erin", Role::Read),
    ] {
        bed.emulator
            .act(Act::AddCollaborator {
                repo: REPO.into(),
                login: login.into(),
                role,
            })
            .unwrap();
    }
    bed.emulator
        .act(Act::AddAccount {
            login: "renovate[bot]".into(),
            kind: AccountKind::Bot,
        })
        .unwrap();
    bed
}

fn user(login: &str) -> Actor {
    Actor {
        login: login.into(),
        kind: ActorKind::User,
    }
}

const WRITE: TickRule = TickRule::AtLeast(PermissionLevel::Write);

#[test]
fn write_access_comes_first_and_the_rule_only_narrows() {
    let bed = bed();
    let mut check = TickCheck::new(&bed.github);
    let maintain = TickRule::AtLeast(PermissionLevel::Maintain);
    let admin = TickRule::AtLeast(PermissionLevel::Admin);
    let listed = TickRule::Logins(vec!["alice".into(), "erin".into()]);
    let cases = [
        ("alice", &WRITE, Verdict::Allowed),
        ("alice", &maintain, Verdict::Refused(Refusal::RuleNotMet)),
        ("dana", &maintain, Verdict::Allowed),
        ("dana", &admin, Verdict::Refused(Refusal::RuleNotMet)),
        ("bob", &admin, Verdict::Allowed),
        ("erin", &WRITE, Verdict::Refused(Refusal::NoWriteAccess)),
        ("ALICE", &listed, Verdict::Allowed),
        ("erin", &listed, Verdict::Refused(Refusal::NoWriteAccess)),
        ("bob", &listed, Verdict::Refused(Refusal::RuleNotMet)),
    ];
    for (login, rule, verdict) in cases {
        assert_eq!(
            check.judge(Some(&user(login)), rule),
            verdict,
            "{login} under {rule}"
        );
    }
}

#[test]
fn each_person_is_looked_up_once_per_run() {
    let bed = bed();
    let mut check = TickCheck::new(&bed.github);
    let before = bed.github.requests_made();
    for _ in 0..3 {
        assert_eq!(check.judge(Some(&user("alice")), &WRITE), Verdict::Allowed);
    }
    assert_eq!(check.judge(Some(&user("Alice")), &WRITE), Verdict::Allowed);
    assert_eq!(bed.github.requests_made() - before, 1);
}

#[test]
fn bots_ghost_and_deleted_accounts_are_not_people_and_cost_no_request() {
    let bed = bed();
    let mut check = TickCheck::new(&bed.github);
    let before = bed.github.requests_made();
    let bot = Actor {
        login: "renovate[bot]".into(),
        kind: ActorKind::Bot,
    };
    assert_eq!(check.judge(Some(&bot), &WRITE), Verdict::NotAPerson);
    assert_eq!(
        check.judge(Some(&user("Ghost")), &WRITE),
        Verdict::NotAPerson
    );
    assert_eq!(check.judge(None, &WRITE), Verdict::NotAPerson);
    assert_eq!(bed.github.requests_made() - before, 0);
}

#[test]
fn an_account_github_no_longer_knows_is_refused() {
    let bed = bed();
    let mut check = TickCheck::new(&bed.github);
    assert_eq!(
        check.judge(Some(&user("mallory")), &WRITE),
        Verdict::Refused(Refusal::AccountGone)
    );
}

#[test]
fn a_permission_github_will_not_tell_leaves_the_tick_unverified() {
    let bed = bed();
    for _ in 0..2 {
        bed.arm(
            PERMISSION,
            FaultKind::Status {
                status: 502,
                message: "Server Error".into(),
            },
        );
    }
    let mut check = TickCheck::new(&bed.github);
    assert_eq!(
        check.judge(Some(&user("alice")), &WRITE),
        Verdict::Unverified
    );
    bed.arm(
        PERMISSION,
        FaultKind::Status {
            status: 404,
            message: "Not Found".into(),
        },
    );
    assert_eq!(
        check.judge(Some(&user("dana")), &WRITE),
        Verdict::Unverified,
        "a 404 without GitHub's words is not 'gone'"
    );
}

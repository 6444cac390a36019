//! The facts the unit tests draw from: a stack with nothing counted, a kept repository
//! on an example GitHub, and a signed-in session.

use jiff::Timestamp;
use sluiceway_dashboard::facts::RowState;

use crate::facts::{Scan, StackFacts};
use crate::store::{KeptRepo, KeptSession, RepoPlace};

/// A stack in `state` with nothing counted.
pub(crate) fn stack(id: &str, state: RowState) -> StackFacts {
    StackFacts {
        stack: id.into(),
        state,
        creates: 0,
        updates: 0,
        replaces: 0,
        deletes: 0,
        destroys: 0,
        tracking: 0,
        changed: 0,
        gone: 0,
        failed: false,
        busy: false,
        ticked: false,
    }
}

/// `org`'s repository `name`, its dashboard issue 7, scanned at `at` by run 42.
pub(crate) fn kept_repo(org: &str, name: &str, at: &str, stacks: Vec<StackFacts>) -> KeptRepo {
    KeptRepo {
        place: RepoPlace {
            org: org.into(),
            org_kind: "Organization".into(),
            name: name.into(),
            html_url: format!("https://github.example/{org}/{name}"),
            dashboard_number: 7,
            dashboard_url: format!("https://github.example/{org}/{name}/issues/7"),
        },
        scan: Scan {
            sha: "0123456789abcdef0123456789abcdef01234567".into(),
            run: 42,
            at: at.parse().unwrap(),
        },
        stacks,
        record_writer: None,
    }
}

/// alice, signed in, whose forms carry `form-token`.
pub(crate) fn session() -> KeptSession {
    KeptSession {
        login: "alice".into(),
        form_token: "form-token".into(),
        expires_at: Timestamp::MAX,
    }
}

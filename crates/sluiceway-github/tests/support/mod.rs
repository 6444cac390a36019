#![allow(dead_code)] // each test binary uses its own part of the bed
//! A test bed: the emulator holding GitHub's published descriptions, a world with one
//! repository and its people, and the real client pointed at it. Dropping the bed
//! fails the test if any request or response departed from the descriptions.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use github_emulator::world::{AccountKind, Level, Role};
use github_emulator::{Act, Descriptions, Emulator, Layout, Options, World};
use jiff::Timestamp;
use sluiceway_github::{Endpoints, HttpGitHub, Pauses, Sleeper};

pub(crate) const REPO: &str = "octo/infra";
/// A canary: no error, log line or `Debug` may ever show it.
pub(crate) const TOKEN: &str = "ghs_canary0token0never0shown";

pub(crate) fn descriptions() -> Arc<Descriptions> {
    Descriptions::shared().unwrap_or_else(|e| panic!("{e}"))
}

/// Waits seen, not spent.
#[derive(Debug, Default)]
pub(crate) struct Waits(Mutex<Vec<Duration>>);

impl Waits {
    pub(crate) fn seen(&self) -> Vec<Duration> {
        self.0.lock().unwrap().clone()
    }
}

impl Sleeper for Waits {
    fn sleep(&self, duration: Duration) {
        self.0.lock().unwrap().push(duration);
    }

    fn now(&self) -> Timestamp {
        Timestamp::now()
    }
}

pub(crate) struct Bed {
    pub(crate) emulator: Emulator,
    pub(crate) github: HttpGitHub,
    pub(crate) waits: Arc<Waits>,
}

impl Bed {
    pub(crate) fn new() -> Bed {
        Bed::with_pauses(Pauses::default())
    }

    pub(crate) fn with_pauses(pauses: Pauses) -> Bed {
        Bed::start(pauses, Layout::GitHubCom)
    }

    /// The emulator on Enterprise Server's layout, the client configured the way the
    /// runner configures it there: `GITHUB_API_URL` alone.
    pub(crate) fn enterprise() -> Bed {
        Bed::start(Pauses::default(), Layout::EnterpriseServer)
    }

    fn start(pauses: Pauses, layout: Layout) -> Bed {
        let world = World::new("2026-03-01T09:00:00Z".parse().unwrap());
        let emulator = Emulator::start(
            world,
            Options {
                descriptions: Some(descriptions()),
                layout,
                ..Options::default()
            },
        )
        .unwrap();
        for act in [
            Act::AddRepo {
                repo: REPO.into(),
                default_branch: "main".into(),
            },
            Act::AddCollaborator {
                repo: REPO.into(),
                login: "alice".into(),
                role: Role::Write,
            },
            Act::AddCollaborator {
                repo: REPO.into(),
                login: "bob".into(),
                role: Role::Admin,
            },
            Act::AddCollaborator {
                repo: REPO.into(),
                login: "dana".into(),
                role: Role::Maintain,
            },
            Act::AddCollaborator {
                repo: REPO.into(),
                login: "erin".into(),
                role: Role::Read,
            },
            Act::AddAccount {
                login: "carol".into(),
                kind: AccountKind::User,
            },
            Act::AddAccount {
                login: "renovate[bot]".into(),
                kind: AccountKind::Bot,
            },
            Act::AddWorkflow {
                repo: REPO.into(),
                file: "sluiceway.yml".into(),
            },
            Act::AddToken {
                token: TOKEN.into(),
                login: "github-actions[bot]".into(),
                permissions: None,
            },
        ] {
            emulator.act(act).unwrap();
        }
        let waits = Arc::new(Waits::default());
        let github = client(&emulator, TOKEN, pauses, &waits);
        Bed {
            emulator,
            github,
            waits,
        }
    }

    /// A second client with a token of its own, granted only `permissions`.
    pub(crate) fn client_with(&self, token: &str, permissions: &[(&str, Level)]) -> HttpGitHub {
        self.emulator
            .act(Act::AddToken {
                token: token.into(),
                login: "github-actions[bot]".into(),
                permissions: Some(
                    permissions
                        .iter()
                        .map(|(k, v)| (k.to_string(), *v))
                        .collect(),
                ),
            })
            .unwrap();
        client(
            &self.emulator,
            token,
            Pauses::default(),
            &Arc::new(Waits::default()),
        )
    }

    pub(crate) fn act(&self, act: Act) -> serde_json::Value {
        self.emulator.act(act).unwrap()
    }
}

/// A client configured as the runner configures it: `GITHUB_API_URL` alone.
fn client(emulator: &Emulator, token: &str, pauses: Pauses, waits: &Arc<Waits>) -> HttpGitHub {
    let api = emulator.api_url();
    let endpoints =
        Endpoints::from_vars(|name| (name == "GITHUB_API_URL").then(|| api.clone())).unwrap();
    HttpGitHub::with_pauses(endpoints, token, REPO, pauses, waits.clone())
}

impl Drop for Bed {
    fn drop(&mut self) {
        let violations = self.emulator.violations();
        if !std::thread::panicking() {
            assert!(
                violations.is_empty(),
                "departures from GitHub's descriptions:\n{}",
                violations.join("\n")
            );
        }
    }
}

//! A GitHub test bed: the emulator holding GitHub's published descriptions, one
//! repository with alice as a writer, and the real client with the workflow token.
//! Dropping it fails the test on any departure from the descriptions.
#![allow(dead_code)] // each test binary uses its own part of the bed

use github_emulator::world::Role;
use github_emulator::{Act, Descriptions, Emulator, Fault, FaultKind, Options, World};
use sluiceway_github::{Endpoints, GitHub, HttpGitHub};

pub(crate) const REPO: &str = "octo/infra";

pub(crate) struct Bed {
    pub(crate) emulator: Emulator,
    pub(crate) github: HttpGitHub,
}

impl Bed {
    pub(crate) fn new() -> Bed {
        let descriptions = Descriptions::shared().unwrap_or_else(|e| panic!("{e}"));
        let emulator = Emulator::start(
            World::new("2026-03-01T09:00:00Z".parse().unwrap()),
            Options {
                descriptions: Some(descriptions),
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
            Act::AddToken {
                token: "t".into(),
                login: "github-actions[bot]".into(),
                permissions: None,
            },
        ] {
            emulator.act(act).unwrap();
        }
        let github = HttpGitHub::new(Endpoints::at(&emulator.base_url()).unwrap(), "t", REPO);
        Bed { emulator, github }
    }

    /// An issue written by `author`; answers its number.
    pub(crate) fn issue(&self, author: &str, title: &str, body: &str, labels: &[&str]) -> u64 {
        self.emulator
            .act(Act::CreateIssue {
                repo: REPO.into(),
                author: author.into(),
                title: title.into(),
                body: body.into(),
                labels: labels.iter().map(|l| l.to_string()).collect(),
            })
            .unwrap()
            .as_u64()
            .unwrap()
    }

    pub(crate) fn arm(&self, on: &str, kind: FaultKind) {
        self.emulator.arm(Fault {
            on: on.into(),
            times: 1,
            kind,
        });
    }

    pub(crate) fn body(&self, number: u64) -> String {
        self.github.read_body(number, None).unwrap().body
    }
}

impl Drop for Bed {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            assert_eq!(self.emulator.violations(), Vec::<String>::new());
        }
    }
}

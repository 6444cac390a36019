//! A GitHub test bed: the emulator holding GitHub's published descriptions, one
//! repository with alice as a writer, and the real client with the workflow token.
//! Dropping it fails the test on any departure from the descriptions.
#![allow(dead_code)] // each test binary uses its own part of the bed

pub(crate) mod browser;
pub(crate) mod console;
pub(crate) mod homelab;
pub(crate) mod job;
pub(crate) mod receivers;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

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
        Bed::starting("2026-03-01T09:00:00Z".parse().unwrap())
    }

    /// A bed whose GitHub's clock starts at `now`.
    pub(crate) fn starting(now: jiff::Timestamp) -> Bed {
        let descriptions = Descriptions::shared().unwrap_or_else(|e| panic!("{e}"));
        let emulator = Emulator::start(
            World::new(now),
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

pub(crate) fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The directory of the pinned OpenTofu, installed into the cache by the project's own
/// script when it is not there yet.
pub(crate) fn tofu_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let out = Command::new(workspace().join("scripts/install-tofu.sh"))
            .arg("v1.6.2")
            .output()
            .expect("scripts/install-tofu.sh runs");
        assert!(
            out.status.success(),
            "OpenTofu could not be installed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        path.parent().unwrap().to_owned()
    })
}

/// Copies a folder's files (an example into a checkout).
pub(crate) fn copy_dir(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Runs the real `kubectl` against a control plane, as a person changing the cluster by
/// hand would; the test fails when it fails.
pub(crate) fn kubectl_run(kubectl: &Path, kubeconfig: &Path, args: &[&str], cwd: &Path) {
    let out = Command::new(kubectl)
        .args(args)
        .current_dir(cwd)
        .env("KUBECONFIG", kubeconfig)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "kubectl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `sluiceway-stand-in`, the tool that answers from recordings: beside the binary under
/// test when the whole workspace was built, else built now.
pub(crate) fn stand_in() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let path = Path::new(env!("CARGO_BIN_EXE_sluiceway")).with_file_name("sluiceway-stand-in");
        if !path.exists() {
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            let built = Command::new(cargo)
                .args([
                    "build",
                    "-p",
                    "sluiceway-fixtures",
                    "--bin",
                    "sluiceway-stand-in",
                ])
                .current_dir(workspace())
                .status()
                .expect("cargo runs");
            assert!(built.success(), "sluiceway-stand-in could not be built");
        }
        path
    })
}

/// A folder for PATH with the stand-in under the tool's name.
pub(crate) fn stand_in_as(tool: &str) -> tempfile::TempDir {
    let bin = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(stand_in(), bin.path().join(tool)).unwrap();
    bin
}

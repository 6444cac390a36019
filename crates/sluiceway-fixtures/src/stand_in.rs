//! `sluiceway-stand-in`: a tool that answers from recordings of the real one. Linked or
//! copied under the tool's name (`tofu`, `terraform`, `kubectl`) onto a job's PATH, it
//! lets the real `sluiceway` binary run a scan whose every tool call is a real recorded
//! run, so end-to-end tests and benchmarks need no cluster and no cloud.
//!
//! `SLUICEWAY_STAND_IN` lists the scenario directories to answer from, separated by `:`,
//! searched in order for the first recorded command with the same arguments (plan and
//! rendered-set files in place of their placeholders), the same distinguishing variables
//! (`TF_WORKSPACE`, `KUBECTL_EXTERNAL_DIFF`), and a recorded working directory the call's
//! ends with. `SLUICEWAY_STAND_IN_DELAY_MS` makes each answer take that long, as a
//! slower tool would. A call no recording holds is said on stderr and exits 127.

#![allow(
    clippy::print_stderr,
    clippy::exit,
    reason = "a stand-in tool speaks and exits as the tool would"
)]

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use sluiceway_core::runner::{Invocation, Outcome, Runner};
use sluiceway_tools::kubernetes;
use sluiceway_tools::opentofu;
use sluiceway_tools::recording::Scenario;
use sluiceway_tools::replay::{Library, Placeholder};

fn main() {
    let mut args = std::env::args();
    let name = args
        .next()
        .map(PathBuf::from)
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let dirs = std::env::var("SLUICEWAY_STAND_IN").unwrap_or_default();
    let mut scenarios = Vec::new();
    for dir in dirs.split(':').filter(|d| !d.is_empty()) {
        match Scenario::load(std::path::Path::new(dir)) {
            Ok(scenario) => scenarios.push(scenario),
            Err(e) => {
                eprintln!("sluiceway-stand-in: {dir}: {e}");
                std::process::exit(127);
            }
        }
    }
    let library = Library::new(
        scenarios,
        vec![
            Placeholder {
                token: "{plan}",
                file_name: if name == "kubectl" {
                    kubernetes::rendered_set::SET_FILE
                } else {
                    opentofu::PLAN_FILE
                },
            },
            Placeholder {
                token: "{prune}",
                file_name: kubernetes::rendered_set::PRUNE_FILE,
            },
        ],
        vec![opentofu::WORKSPACE_VAR, kubernetes::EXTERNAL_DIFF_VAR],
    );
    let invocation = Invocation {
        argv: std::iter::once(name).chain(args).collect(),
        cwd: std::env::current_dir().unwrap_or_default(),
        env: std::env::vars().collect(),
        time_limit: None,
        stdout_file: None,
        grace: None,
    };
    if let Some(ms) = std::env::var("SLUICEWAY_STAND_IN_DELAY_MS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        std::thread::sleep(Duration::from_millis(ms));
    }
    match library.run(&invocation) {
        Outcome::Exited {
            code,
            stdout,
            stderr,
            ..
        } => {
            let _ = std::io::stdout().write_all(&stdout);
            let _ = std::io::stderr().write_all(&stderr);
            std::process::exit(code.unwrap_or(1));
        }
        Outcome::NotStarted { why } => {
            eprintln!("sluiceway-stand-in: {why}");
            std::process::exit(127);
        }
        Outcome::TimedOut { .. } => std::process::exit(124),
    }
}

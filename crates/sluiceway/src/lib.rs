//! The `sluiceway` command: wiring, output and exit codes around the pure core.

pub mod backend_check;
pub mod check;
pub mod checkout;
pub mod cli;
pub mod dashboard;
pub mod dashboard_issue;
mod env_files;
mod files;
pub mod identity;
pub mod init;
pub mod modes;
pub mod printer;
mod setup;
pub mod tick_rule;
pub mod ticker;
mod wiring;
pub mod write_loop;

use std::process::ExitCode;

use cli::{Cli, Command, DashboardCommand};
use printer::Printer;

/// How a command ended, as documented exit codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The command did what was asked.
    Done,
    /// It ran and found the setup invalid, or refused to write.
    Failed,
}

impl From<Outcome> for ExitCode {
    fn from(outcome: Outcome) -> ExitCode {
        match outcome {
            Outcome::Done => ExitCode::SUCCESS,
            Outcome::Failed => ExitCode::from(1),
        }
    }
}

pub fn run(cli: Cli, printer: &mut Printer) -> ExitCode {
    let outcome = match cli.command {
        Command::Check {
            repo,
            json,
            backend,
        } => check::run(&repo, json, backend, printer),
        Command::Init { repo, force } => init::run(&repo, force, printer),
        Command::Dashboard(DashboardCommand::Read { file, json }) => {
            dashboard::read(&file, json, printer)
        }
        Command::Dashboard(DashboardCommand::Html { file }) => dashboard::html(&file, printer),
        Command::Dashboard(DashboardCommand::Pictures { dir }) => {
            dashboard::write_pictures(&dir, printer)
        }
        Command::Scan {
            local: true,
            repo,
            out,
        } => wiring::local_scan(&repo, &out, printer),
        Command::Scan { local: false, .. } => {
            wiring::action(Some(modes::inputs::Mode::Scan), printer)
        }
        Command::Run => wiring::action(None, printer),
        Command::Schema {
            result_file,
            apply_result_file,
        } => {
            let schema = if result_file {
                modes::scan::result_file::schema()
            } else if apply_result_file {
                modes::apply::result_schema()
            } else {
                sluiceway_core::config::json_schema()
            };
            printer.result(&format!(
                "{}\n",
                serde_json::to_string_pretty(&schema).unwrap_or_default()
            ));
            Outcome::Done
        }
    };
    outcome.into()
}

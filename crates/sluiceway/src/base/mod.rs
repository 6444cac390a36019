//! What every command and mode stands on: the checkout and its setup, the stacks' env
//! files and policies, the one printer, whole-file writes, this build's identity, and how a command
//! ended. Nothing here knows a mode or a command.

pub mod checkout;
pub(crate) mod env_files;
pub(crate) mod files;
pub mod identity;
pub mod page;
pub mod policies;
pub mod printer;
pub(crate) mod setup;

use std::process::ExitCode;

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

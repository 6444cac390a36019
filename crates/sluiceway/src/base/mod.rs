//! What every command and mode stands on: the checkout and its setup, the stacks' env
//! files and policies, the one printer, whole-file writes, this build's identity, and how a command
//! ended. Nothing here knows a mode or a command.

pub mod checkout;
pub(crate) mod env_files;
pub(crate) mod files;
pub mod identity;
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
    /// It was asked for something it cannot do as asked (clap's own usage errors exit 2
    /// too).
    Usage,
    /// The console's command line: nobody is signed in, or the token no longer works.
    SignedOut,
    /// The console's command line: the console knows no such thing.
    NotFound,
    /// The console's command line: the console, or the command line itself, refused.
    Refused,
    /// The console's command line: try again later (the rate limit, a silent database).
    RetryLater,
}

impl From<Outcome> for ExitCode {
    fn from(outcome: Outcome) -> ExitCode {
        match outcome {
            Outcome::Done => ExitCode::SUCCESS,
            Outcome::Failed => ExitCode::from(1),
            Outcome::Usage => ExitCode::from(2),
            Outcome::SignedOut => ExitCode::from(3),
            Outcome::NotFound => ExitCode::from(4),
            Outcome::Refused => ExitCode::from(5),
            Outcome::RetryLater => ExitCode::from(6),
        }
    }
}

//! Sluiceway's only stores are GitHub's: the dashboard issue and its edit history,
//! deployment records, check runs and workflow runs. This crate says what Sluiceway asks
//! of GitHub, in its own words ([`GitHub`], the port), and answers it over HTTP
//! ([`HttpGitHub`]). Modes depend on the port alone, so a test can hand them the
//! emulator, and a failure always names the call and the permission it needs.

mod call;
pub mod client;
mod error;
mod port;

pub use call::Call;
pub use client::{Endpoints, HttpGitHub, Pauses, SetupError, Sleeper, SystemSleeper};
pub use error::{Failure, GitHubError};
pub use port::*;

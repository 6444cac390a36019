//! Sluiceway's domain, without I/O.
//!
//! Everything here takes values and returns values: the configuration, the stacks that
//! discovery finds in a snapshot of the repository's files, which stack claims which
//! file, and the reports `check` and `init` print. The edges (the binary, the tool
//! adapters, the GitHub client) read files, run tools and talk to GitHub.

pub mod calendar;
pub mod claim;
pub mod config;
pub mod cost;
pub mod credentials;
pub mod diff;
pub mod discovery;
pub mod env_file;
pub mod failure;
pub mod fingerprint;
pub mod gate;
pub mod glob;
pub mod identity;
pub mod init;
pub mod named;
pub mod property_path;
pub mod record;
pub mod renovate;
pub mod repo;
pub mod runner;
pub mod stack;
pub mod values;
pub mod workflow;

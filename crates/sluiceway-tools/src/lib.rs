//! Sluiceway's edge to the tools.
//!
//! One process runner ([`process::SystemRunner`]) runs every tool; recordings of real
//! runs ([`recording`]) and their [`replay`] stand in for it in tests. Each tool has one
//! adapter module; an adapter turns what its tool printed into a
//! [`Diff`](sluiceway_core::diff::Diff) and never lets a value out.

pub mod adapter;
pub mod changed_paths;
pub mod helm;
pub mod kubectl;
pub mod kubernetes;
pub mod opentofu;
pub mod preview_document;
pub mod process;
pub mod pulumi;
pub mod recording;
pub mod replay;
pub mod tool_log;
pub mod tool_run;
pub mod version;

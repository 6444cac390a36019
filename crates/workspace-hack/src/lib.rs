//! This crate has no code. It exists for its `Cargo.toml`: see ADR 0043.

//! Cargo resolves a crate's build dependencies only for its build script, so this empty
//! one makes the `[build-dependencies]` of `Cargo.toml` count (ADR 0043).
fn main() {}

//! Sluiceway's fixtures: recordings of real tool runs and the tools that make and read
//! them. [`replay`] runs an adapter against a recorded scenario and says what came out.

pub mod race;
pub mod replay;

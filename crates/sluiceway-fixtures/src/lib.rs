//! Sluiceway's fixtures: recordings of real tool runs and the tools that make and read
//! them. [`replay`] runs an adapter against a recorded scenario and says what came out.

pub mod control_plane;
pub mod race;
pub mod recorder;
pub mod replay;
pub mod scenario;

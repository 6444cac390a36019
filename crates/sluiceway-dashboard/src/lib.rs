//! The dashboard issue body: rendered from a view of the scan, read back from its markers,
//! and kept under GitHub's limits. Pure: no I/O, the clock is handed in.

pub mod marker;

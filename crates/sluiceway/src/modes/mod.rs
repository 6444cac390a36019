//! The modes: the one hall that joins discovery, the adapter seam, the dashboard and the
//! GitHub port. Each mode is a function of the job, its inputs and its ports (the tool
//! runner, GitHub, the clock); `run` reads the `mode` input and picks one.

pub mod inputs;
pub mod job;
pub mod outputs;
pub mod scan;

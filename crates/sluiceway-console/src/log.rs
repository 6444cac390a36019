//! The console's log, for its operator: a line each on standard error. GitHub's own
//! words go here when a request fails, and never into an answer.

#[allow(
    clippy::print_stderr,
    reason = "the console's log is its standard error"
)]
pub(crate) fn note(line: &str) {
    eprintln!("{line}");
}

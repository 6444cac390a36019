//! The step's outputs, written to `$GITHUB_OUTPUT` on every way out. A scan sets its
//! counts to 0 at the start (decision 0041), so a scan that stops early still says
//! something true.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use crate::base::printer::Printer;
use crate::modes::job::Job;
use crate::modes::scan::result_file::ScanResult;

/// Adds a mode's part to the step's job summary (`$GITHUB_STEP_SUMMARY`): in the auto
/// mode one step runs several modes, and the summary is each one's part in turn.
pub fn add_to_summary(job: &Job, text: &str, printer: &mut Printer) {
    let Some(file) = &job.summary_file else {
        return;
    };
    if let Err(e) = crate::base::files::append(file, text) {
        printer.say(&format!(
            "::warning::The job summary could not be written: {e}"
        ));
    }
}

/// Every output a mode sets (`action.yml` lists the same; a test holds the two together).
pub const NAMES: [&str; 12] = [
    "matrix",
    "dashboard-url",
    "pending",
    "preview-failed",
    "in-sync",
    "dashboard-changed",
    "outcome",
    "stack",
    "result-file",
    "shards",
    "shard-plan",
    "partial-result",
];

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outputs(BTreeMap<&'static str, String>);

impl Outputs {
    pub fn scan_defaults() -> Outputs {
        let mut outputs = Outputs::default();
        for (name, value) in [
            ("dashboard-url", ""),
            ("pending", "0"),
            ("preview-failed", "0"),
            ("in-sync", "0"),
            ("dashboard-changed", "false"),
            ("matrix", "[]"),
        ] {
            outputs.set(name, value);
        }
        outputs
    }

    pub fn set(&mut self, name: &'static str, value: impl Into<String>) {
        self.0.insert(name, value.into());
    }

    pub fn set_scan(&mut self, result: &ScanResult) {
        self.set(
            "dashboard-url",
            result.dashboard_url.clone().unwrap_or_default(),
        );
        self.set("pending", result.pending.to_string());
        self.set("preview-failed", result.preview_failed.to_string());
        self.set("in-sync", result.in_sync.to_string());
        self.set("dashboard-changed", result.dashboard_changed.to_string());
    }

    pub fn unset(&mut self, name: &str) {
        self.0.remove(name);
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// Appends every output to the file, one `name=value` line each (no value holds a
    /// line break). Without a file (a local run) there is nothing to write.
    pub fn write(&self, file: Option<&Path>) -> std::io::Result<()> {
        let Some(file) = file else { return Ok(()) };
        let mut out = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(file)?;
        for (name, value) in &self.0 {
            writeln!(out, "{name}={value}")?;
        }
        Ok(())
    }
}

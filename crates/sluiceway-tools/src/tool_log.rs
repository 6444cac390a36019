//! The tool's own words.
//!
//! What a tool prints on stderr may hold anything, values included, so it goes to the job
//! log and nowhere else. The type has no `Display`: a renderer cannot format it by
//! accident; only the job-log printer asks for its lines.

/// Lines a tool printed, ANSI sequences removed, for the job log only.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolLog(Vec<String>);

impl ToolLog {
    /// Adds what a tool printed, each line with its escape sequences removed.
    pub fn push_output(&mut self, bytes: &[u8]) {
        let clean = strip_ansi_escapes::strip(bytes);
        let text = String::from_utf8_lossy(&clean);
        self.0.extend(text.lines().map(str::to_owned));
    }

    /// Adds a line of Sluiceway's own about the run (what was run, how it ended).
    pub fn note(&mut self, line: impl Into<String>) {
        self.0.push(line.into());
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The lines, for the job-log printer.
    pub fn job_log_lines(&self) -> &[String] {
        &self.0
    }
}

/// Text that may hold values; it has no `Display`, only the job-log printer reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolDiffText(String);

impl ToolDiffText {
    pub(crate) fn new(text: String) -> ToolDiffText {
        ToolDiffText(text)
    }

    pub fn job_log_text(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_are_removed() {
        let mut log = ToolLog::default();
        log.push_output(b"\x1b[31merror:\x1b[0m it broke\nsecond\n");
        assert_eq!(log.job_log_lines(), ["error: it broke", "second"]);
    }
}

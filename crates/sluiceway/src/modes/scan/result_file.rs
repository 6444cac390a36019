//! The scan's result file, `sluiceway-scan-result.json` under `RUNNER_TEMP` (decisions
//! 0041, 0061, 0096): what a later step or an agent may build on. It holds counts,
//! states and fixed reasons; never a value, an address, a tool's words or a time of day.
//! Its JSON Schema is generated from these types and published as
//! `docs/formats/scan-result.schema.json`; a test keeps the two the same.

use schemars::JsonSchema;
use serde::Serialize;

pub const FILE_NAME: &str = "sluiceway-scan-result.json";

/// The whole file.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(title = "Sluiceway scan result, version 1")]
pub struct ScanResult {
    /// Always 1; a change that breaks a reader raises it.
    #[schemars(range(min = 1, max = 1))]
    pub version: u8,
    /// A full scan previewed every stack; a narrowed one only those a push touched.
    pub full: bool,
    /// The dashboard issue's address, when the scan found or made one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dashboard_url: Option<String>,
    /// The scan wrote a body that differs from the one it found.
    pub dashboard_changed: bool,
    /// Counts after the scan, carried rows included; a busy stack is not failed.
    pub pending: usize,
    pub preview_failed: usize,
    pub in_sync: usize,
    pub busy: usize,
    /// Requests this scan made to the GitHub API.
    pub github_requests: u64,
    /// Every stack previewed by this scan, in stack-id order.
    pub stacks: Vec<StackResult>,
}

/// One previewed stack.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StackResult {
    pub stack: String,
    pub tool: String,
    pub state: StackState,
    /// The diff hash a tick approves, for a pending or drifted stack.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[0-9a-f]{16}$"))]
    pub hash: Option<String>,
    pub creates: usize,
    pub updates: usize,
    pub replaces: usize,
    pub deletes: usize,
    /// Changes that only change how the tool tracks a resource (imports, moves and
    /// forgets), counted as the row counts them.
    pub tracking: usize,
    /// Resources drifted outside the code, when a drift check ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drifted: Option<usize>,
    /// Sluiceway's fixed reason, for a preview that failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// 1, or 2 when the preview was tried once more.
    #[schemars(range(min = 1, max = 2))]
    pub tries: u8,
    /// How long its previews took, both tries together.
    pub seconds: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum StackState {
    Pending,
    Drift,
    InSync,
    PreviewFailed,
    Busy,
}

/// The schema, as published.
pub fn schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(ScanResult)).unwrap_or_default()
}

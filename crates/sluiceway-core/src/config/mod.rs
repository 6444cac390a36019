//! `sluiceway.yaml`: read strictly, every problem reported at once.
//!
//! Loading runs in three passes over one [`Document`]: the YAML syntax, the JSON Schema
//! generated from [`raw::RawConfig`], then the rules a schema cannot say (globs, paths,
//! tool options, references between keys). Parts that broke the schema are not read by
//! the later passes, so each mistake is reported once.

mod document;
pub mod edit;
mod problem;
pub mod raw;
mod schema;
pub mod unacted;
mod validate;

pub use document::{Document, KeyPath, Position, Segment};
pub use problem::ConfigProblem;
pub use raw::{PermissionLevel, RawConfig, RawDashboard, Wrapper};
pub use schema::json_schema;

use crate::calendar::{Calendar, Windows};
use crate::stack::{NamedPath, TickRule, Tool, ToolOptions};
pub use raw::DeployTrigger;

/// The names the file may have at the repository root; both at once is an error.
pub const FILE_NAMES: [&str; 2] = ["sluiceway.yaml", "sluiceway.yml"];

/// A validated configuration.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// The file it was read from, or `None` when the repository has none.
    pub file: Option<String>,
    /// Every setting as written, with defaults filled in; all of it passed validation.
    pub settings: RawConfig,
    pub tick_rule: TickRule,
    pub ignore: Vec<IgnoreRule>,
    pub entries: Vec<StackEntry>,
    /// The dashboard's zone and the freezes, whole.
    pub calendar: Calendar,
    /// The top-level `deployWindows`, whole; none means any time.
    pub deploy_windows: Windows,
    /// The top-level `policies`, every stack's first.
    pub policies: Vec<NamedPath>,
    /// Keys the file sets that this version does not act on yet, which every run names.
    pub unacted: Vec<unacted::Unacted>,
    /// The paths whose values rows may show (`dashboard.showValues`; none under
    /// `dashboard.redact`).
    pub values: crate::values::ValueList,
    /// Settings accepted that cannot do what they seem to ask (a value-list entry no
    /// adapter writes), said by `check` and every run, in file order.
    pub warnings: Vec<ConfigProblem>,
}

/// An `ignore` glob over stack ids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IgnoreRule {
    pub glob: String,
    pub reason: Option<String>,
    pub position: Position,
}

/// One `stacks` entry after validation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StackEntry {
    /// Its index in `stacks`, to name it in messages.
    pub index: usize,
    pub position: Position,
    /// Normalised: `/`-separated, no `./`, no trailing `/`, `.` for the root.
    pub path: String,
    pub name: Option<String>,
    /// Present when the entry declares a stack with `tool`.
    pub declaration: Option<(Tool, ToolOptions)>,
    pub id: Option<String>,
    pub environment: Option<String>,
    pub tick_rule: Option<TickRule>,
    pub inputs: Vec<String>,
    pub depends_on: Option<EntryDependsOn>,
    pub phase: Option<EntryPhase>,
    /// `drift.enabled` for the stacks it covers.
    pub drift: Option<bool>,
    /// `previewTimeout`, in minutes.
    pub preview_timeout_minutes: Option<u32>,
    /// `valueFingerprint` for the stacks it covers.
    pub value_fingerprint: Option<bool>,
    /// `createInBackend` (Pulumi only): the scan makes the stack when its backend lacks it.
    pub create_in_backend: Option<bool>,
    /// `deployWindows`, replacing the top-level ones for these stacks.
    pub deploy_windows: Option<Windows>,
    /// `deploy`: on a tick (the default) or on merge.
    pub deploy: Option<DeployTrigger>,
    /// `envFile`, over the step's own.
    pub env_file: Option<NamedPath>,
    /// `policies`, added to the top-level ones for the stacks it covers.
    pub policies: Vec<NamedPath>,
    /// `cost`, over the top-level one key by key.
    pub cost: Option<EntryCost>,
}

impl StackEntry {
    /// How messages name this entry: `stacks[3] (path apps/web)`.
    pub fn label(&self) -> String {
        match &self.name {
            Some(name) => format!("stacks[{}] (path {}, name {name})", self.index, self.path),
            None => format!("stacks[{}] (path {})", self.index, self.path),
        }
    }
}

/// `stacks[].cost`, each key as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EntryCost {
    pub enabled: Option<bool>,
    pub threshold: Option<crate::cost::Amount>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryDependsOn {
    Auto,
    Ids(Vec<String>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryPhase {
    Named(String),
    FromProjectKey(String),
}

/// Reads and validates the text of `file`. On failure, every problem, in file order.
pub fn load(file: &str, text: &str) -> Result<Config, Vec<ConfigProblem>> {
    let document = Document::parse(text).map_err(|errors| {
        errors
            .into_iter()
            .map(|e| ConfigProblem {
                file: file.to_owned(),
                position: e.position,
                key: KeyPath::default(),
                message: format!("not valid YAML: {}", e.message),
            })
            .collect::<Vec<_>>()
    })?;
    let mut problems = schema::check(&document, file);
    let config = validate::validate(&document, file, &mut problems);
    if problems.is_empty() {
        Ok(Config {
            file: Some(file.to_owned()),
            unacted: unacted::find(&document),
            ..config
        })
    } else {
        problem::in_file_order(&mut problems);
        Err(problems)
    }
}

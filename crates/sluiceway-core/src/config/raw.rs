//! The exact shape of `sluiceway.yaml`.
//!
//! These types are the single source of the file's grammar: the JSON Schema that
//! `sluiceway schema` prints and the loader validates against is generated from them,
//! so the published schema and the loader cannot disagree. Rules that a JSON Schema
//! cannot say well (globs, paths, cross-references) live in `validate`.

use schemars::JsonSchema;
use serde::Deserialize;

/// The whole file. Every key is optional; an absent file means every default.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
#[schemars(
    title = "sluiceway.yaml",
    description = "Settings for the Sluiceway deploy dashboard."
)]
pub struct RawConfig {
    /// How the dashboard issue looks.
    pub dashboard: RawDashboard,
    /// Who may tick a box: `write`, `maintain`, `admin`, or a list of GitHub logins.
    #[schemars(example = &"maintain")]
    pub tickers: Option<RawTickers>,
    /// `false` stops every dashboard deploy; ticks are cleared with a note.
    pub deploys: bool,
    /// Logins (a deploy bot, a console) whose deployment records, opened outside the
    /// dashboard, a scheduled or dispatched run starts and deploys after the same hash and
    /// value checks as a tick; an open record anyone else opened is ended, never deployed.
    #[schemars(example = &examples::CONFIG_RECORD_WRITERS)]
    pub record_writers: Vec<String>,
    /// Weekly windows in the dashboard's time zone; a tick outside them waits.
    pub deploy_windows: Vec<RawDeployWindow>,
    /// Dated periods in which nothing deploys.
    pub freezes: Vec<RawFreeze>,
    /// Globs over stack ids that leave stacks out, optionally with a reason.
    pub ignore: Vec<RawIgnore>,
    /// How scans choose and log their work.
    pub scan: RawScan,
    /// The drift check in scheduled and manual scans.
    pub drift: RawDrift,
    /// Whether rows carry a fingerprint of the values they do not show.
    pub value_fingerprint: bool,
    /// Rego files or folders, from the repository root, that judge every pending change.
    /// Sluiceway evaluates them itself, with the meaning `conftest test --all-namespaces`
    /// gives them, against the tool's own preview document (the plan JSON, the rendered
    /// manifests, Pulumi's preview): a `deny` or `violation` result takes the row's box
    /// off and shows its message, and stops a deploy on merge; a `warn` result goes to
    /// the job log. Policies that cannot be read or parsed are a warning, and the rows
    /// keep their boxes.
    #[schemars(example = &examples::CONFIG_POLICIES)]
    pub policies: Vec<String>,
    /// Cost estimates for OpenTofu and Terraform stacks.
    pub cost: RawCost,
    /// How rows name the changes that reached a stack.
    pub attribution: RawAttribution,
    /// Ordered phase names; a stack in a phase waits on every stack of earlier phases.
    #[schemars(example = &examples::CONFIG_PHASES)]
    pub phases: Vec<String>,
    /// Per-stack settings, and the declaration of stacks files alone cannot name.
    pub stacks: Vec<RawStackEntry>,
    /// Switches for discovery from files.
    pub discovery: RawDiscovery,
    /// Pull requests by listed authors that one tick merges and deploys.
    pub merge_and_deploy: RawMergeAndDeploy,
    /// Which events are sent to the notification channels set in the workflow.
    pub notify: RawNotify,
}

impl Default for RawConfig {
    fn default() -> Self {
        Self {
            dashboard: RawDashboard::default(),
            tickers: None,
            deploys: true,
            record_writers: Vec::new(),
            deploy_windows: Vec::new(),
            freezes: Vec::new(),
            ignore: Vec::new(),
            scan: RawScan::default(),
            drift: RawDrift::default(),
            value_fingerprint: true,
            policies: Vec::new(),
            cost: RawCost::default(),
            attribution: RawAttribution::default(),
            phases: Vec::new(),
            stacks: Vec::new(),
            discovery: RawDiscovery::default(),
            merge_and_deploy: RawMergeAndDeploy::default(),
            notify: RawNotify::default(),
        }
    }
}

/// `dashboard:`
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct RawDashboard {
    /// The title; a scan renames the issue when it differs.
    pub title: String,
    /// The label that identifies the dashboard issue.
    pub label: String,
    /// Pin the issue on every scan.
    pub pin: bool,
    /// Keep resource types, names and property paths out of the issue.
    pub redact: bool,
    /// The header picture and its two voiced lines.
    pub personality: bool,
    /// Draw no boxes at all: the dashboard only shows.
    pub read_only: bool,
    /// Property paths whose old and new values may appear on a row.
    #[schemars(example = &examples::DASHBOARD_SHOW_VALUES)]
    pub show_values: Vec<String>,
    /// How many ended deploys the trail lists (0 hides it).
    #[schemars(range(min = 0, max = 50))]
    pub recently_deployed: u32,
    /// An IANA time zone such as `Europe/Amsterdam`.
    pub time_zone: String,
    /// The order of the sections; unnamed sections follow in their default order.
    #[schemars(example = &examples::DASHBOARD_SECTIONS)]
    pub sections: Vec<Section>,
    /// `false` moves deploying and queued rows into one closed fold at the end.
    pub deploying_section: bool,
    /// `false` moves drifted rows into one closed fold at the end, but for a row whose
    /// resources are gone or whose last deploy failed, which stays in sight.
    pub drifted_section: bool,
    /// How stacks in sync are shown.
    pub in_sync_section: InSyncSection,
    /// `false` hides counts that are zero (pending is always shown).
    pub zero_counts: bool,
    /// When the caution block about deletes and replaces is drawn.
    pub destroy_alert: DestroyAlert,
    /// How much of a pending diff a row shows.
    pub pending_detail: PendingDetail,
    /// The "Deploy all" box.
    pub deploy_all: bool,
    /// The "Repair all" box.
    pub repair_all: bool,
    /// The box that asks for a full scan.
    pub rescan_box: bool,
    /// The footer line.
    pub footer: bool,
}

impl Default for RawDashboard {
    fn default() -> Self {
        Self {
            title: "Sluiceway dashboard".to_owned(),
            label: "sluiceway".to_owned(),
            pin: true,
            redact: false,
            personality: true,
            read_only: false,
            show_values: Vec::new(),
            recently_deployed: 10,
            time_zone: "UTC".to_owned(),
            sections: Vec::new(),
            deploying_section: true,
            drifted_section: true,
            in_sync_section: InSyncSection::Fold,
            zero_counts: true,
            destroy_alert: DestroyAlert::Destroys,
            pending_detail: PendingDetail::Full,
            deploy_all: true,
            repair_all: true,
            rescan_box: true,
            footer: true,
        }
    }
}

/// A dashboard section, by its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, serde::Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Section {
    Deploying,
    Updates,
    Pending,
    Drifted,
    PreviewFailed,
    InSync,
    RecentlyDeployed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum InSyncSection {
    Fold,
    List,
    Off,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum DestroyAlert {
    Destroys,
    Always,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum PendingDetail {
    Full,
    Compact,
    Names,
}

/// A tick rule as written: a permission level or a list of logins.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum RawTickers {
    Level(PermissionLevel),
    Logins(Vec<String>),
}

/// The least repository permission a ticker must hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum PermissionLevel {
    Write,
    Maintain,
    Admin,
}

/// `deployWindows[]`
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawDeployWindow {
    /// The weekdays the window opens on.
    #[schemars(length(min = 1))]
    #[schemars(example = &examples::DEPLOY_WINDOW_DAYS)]
    pub days: Vec<Weekday>,
    /// Opening time, `HH:MM`.
    #[schemars(example = &"09:00")]
    pub from: String,
    /// Closing time, `HH:MM` (exclusive; `24:00` allowed).
    #[schemars(example = &"16:00")]
    pub to: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Weekday {
    Monday,
    Tuesday,
    Wednesday,
    Thursday,
    Friday,
    Saturday,
    Sunday,
}

impl Weekday {
    /// The day as the calendar counts it.
    pub fn civil(self) -> jiff::civil::Weekday {
        use jiff::civil::Weekday as Civil;
        match self {
            Weekday::Monday => Civil::Monday,
            Weekday::Tuesday => Civil::Tuesday,
            Weekday::Wednesday => Civil::Wednesday,
            Weekday::Thursday => Civil::Thursday,
            Weekday::Friday => Civil::Friday,
            Weekday::Saturday => Civil::Saturday,
            Weekday::Sunday => Civil::Sunday,
        }
    }
}

/// `freezes[]`
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawFreeze {
    /// Start, `YYYY-MM-DDTHH:MM` in the dashboard's zone.
    #[schemars(example = &"2026-12-21T00:00")]
    pub from: String,
    /// End (exclusive), `YYYY-MM-DDTHH:MM` in the dashboard's zone.
    #[schemars(example = &"2027-01-04T09:00")]
    pub to: String,
    /// Shown on the dashboard while the freeze is near or active.
    #[schemars(example = &"End-of-year freeze")]
    pub reason: Option<String>,
}

/// `ignore[]`: a glob, or a glob with the reason the stack is left out.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum RawIgnore {
    Glob(String),
    WithReason(RawIgnoreWithReason),
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawIgnoreWithReason {
    /// A glob over stack ids; the stacks it matches are left out.
    #[schemars(example = &"sandbox/*")]
    pub glob: String,
    /// Why the stacks are left out; `check` shows it beside them.
    #[schemars(example = &"experiments, deployed by hand")]
    pub reason: String,
}

/// `scan:`
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct RawScan {
    /// Globs of files that claim no stack and never force a full scan.
    #[schemars(example = &examples::SCAN_UNRELATED)]
    pub unrelated: Vec<String>,
    /// Print the tool's own diff, values included, into the job log.
    pub log_diff: bool,
}

/// `drift:` (also `stacks[].drift:`)
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct RawDrift {
    /// Compare state with reality on scheduled and manual scans.
    pub enabled: bool,
}

/// `cost:`
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct RawCost {
    /// Estimate the monthly cost change of every OpenTofu and Terraform stack with
    /// changes, with `infracost diff` over its plan; the row shows it (`about 31.20 USD
    /// more a month`), and it is never part of what a tick approves.
    pub enabled: bool,
    /// Monthly increase, in the estimate's currency, above which a deploy on merge waits
    /// for a tick; a change whose cost could not be estimated waits too.
    #[schemars(range(min = 0))]
    #[schemars(example = 50.0)]
    pub threshold: Option<f64>,
}

/// `stacks[].cost:`, over the top-level `cost` key by key for the stacks it covers.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct RawStackCost {
    /// Turn the estimate on or off for these stacks; the top-level `cost.enabled` when
    /// absent.
    #[schemars(example = true)]
    pub enabled: Option<bool>,
    /// These stacks' own threshold; the top-level `cost.threshold` when absent.
    #[schemars(range(min = 0))]
    #[schemars(example = 100.0)]
    pub threshold: Option<f64>,
}

/// `attribution:`
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct RawAttribution {
    /// Commits walked to name the changes that reached a stack.
    #[schemars(range(min = 1, max = 1000))]
    pub lookback: u32,
    /// Pull requests and pushes named before "and N more".
    #[schemars(range(min = 0, max = 20))]
    pub names: u32,
}

impl Default for RawAttribution {
    fn default() -> Self {
        Self {
            lookback: 100,
            names: 5,
        }
    }
}

/// `discovery:`, one switch per discovery rule.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct RawDiscovery {
    /// Find OpenTofu and Terraform root modules from the repository's own files.
    pub root_modules: bool,
}

impl Default for RawDiscovery {
    fn default() -> Self {
        Self { root_modules: true }
    }
}

/// `mergeAndDeploy:`
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct RawMergeAndDeploy {
    /// Pull-request authors whose updates one tick merges, such as `renovate[bot]`.
    #[schemars(example = &examples::MERGE_AND_DEPLOY_AUTHORS)]
    pub authors: Vec<String>,
    /// Preview each listed update as it would be after the merge.
    pub preview: bool,
}

/// `notify:`
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct RawNotify {
    /// The events sent: `pending`, `drift`, `deployed`, `failed`, `refused`.
    pub events: Vec<NotifyEvent>,
}

impl Default for RawNotify {
    fn default() -> Self {
        use NotifyEvent::*;
        Self {
            events: vec![Pending, Drift, Failed, Refused],
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum NotifyEvent {
    Pending,
    Drift,
    Deployed,
    Failed,
    Refused,
}

impl NotifyEvent {
    /// The event's name, as `notify.events` writes it.
    pub fn name(self) -> &'static str {
        match self {
            NotifyEvent::Pending => "pending",
            NotifyEvent::Drift => "drift",
            NotifyEvent::Deployed => "deployed",
            NotifyEvent::Failed => "failed",
            NotifyEvent::Refused => "refused",
        }
    }
}

/// `stacks[]`: settings for the stacks in one directory, or the declaration of one.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RawStackEntry {
    /// The stack's directory, relative to the repository root (`.` is the root).
    #[schemars(example = &"infra/network")]
    pub path: String,
    /// The stack's name within its directory; without it the entry covers every stack there.
    #[schemars(example = &"prod")]
    pub name: Option<String>,
    /// Declares a stack driven by this tool.
    pub tool: Option<ToolName>,
    /// An explicit id for the one stack this entry covers.
    #[schemars(example = &"network")]
    pub id: Option<String>,
    /// The deployment environment the stack deploys to.
    #[schemars(example = &"production")]
    pub environment: Option<String>,
    /// Replaces the top-level tick rule for these stacks.
    #[schemars(example = &examples::STACK_ENTRY_TICKERS)]
    pub tickers: Option<RawTickers>,
    /// Extra globs (from the repository root) whose changes this stack claims.
    #[serde(default)]
    #[schemars(example = &examples::STACK_ENTRY_INPUTS)]
    pub inputs: Vec<String>,
    /// Minutes a preview may take.
    #[schemars(range(min = 1))]
    #[schemars(example = 20)]
    pub preview_timeout: Option<u32>,
    /// Stack ids this stack waits on, or `auto` to read them from Pulumi stack references.
    #[schemars(example = &examples::STACK_ENTRY_DEPENDS_ON)]
    pub depends_on: Option<RawDependsOn>,
    /// The phase this stack belongs to, or `{ from: <Pulumi project key> }`.
    #[schemars(example = &"network")]
    pub phase: Option<RawPhase>,
    /// `on-tick` (default) or `on-merge`.
    pub deploy: Option<DeployTrigger>,
    /// Replaces the top-level deploy windows; `[]` means any time.
    pub deploy_windows: Option<Vec<RawDeployWindow>>,
    /// The drift check for these stacks.
    pub drift: Option<RawDrift>,
    /// Whether these rows carry a hidden-value fingerprint.
    #[schemars(example = false)]
    pub value_fingerprint: Option<bool>,
    /// A `NAME=value` file loaded for the tool, over the step's own.
    #[schemars(example = &".env.network")]
    pub env_file: Option<String>,
    /// Rego files or folders added to the top-level `policies` for the stacks this entry
    /// covers.
    #[serde(default)]
    #[schemars(example = &examples::STACK_ENTRY_POLICIES)]
    pub policies: Vec<String>,
    /// Pulumi only: create the stack in its backend when the scan finds it missing.
    #[schemars(example = true)]
    pub create_in_backend: Option<bool>,
    /// Cost settings for these stacks.
    pub cost: Option<RawStackCost>,
    /// The tool's named options.
    pub options: Option<RawOptions>,
}

/// The tools a `stacks` entry may declare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ToolName {
    Opentofu,
    Terraform,
    Helm,
    Kubectl,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum RawDependsOn {
    Auto(AutoKeyword),
    Ids(Vec<String>),
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AutoKeyword {
    Auto,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum RawPhase {
    Name(String),
    From(RawPhaseFrom),
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawPhaseFrom {
    /// The Pulumi project key that holds the phase name: `config.<key>` as text, or its
    /// `value` or `default`, else the top-level key; a secret is never read.
    #[schemars(example = &"phase")]
    pub from: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum DeployTrigger {
    OnTick,
    OnMerge,
}

/// Every named tool option. Which ones a tool accepts is checked against the entry's `tool`.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RawOptions {
    /// opentofu/terraform: the workspace, passed as `TF_WORKSPACE`.
    #[schemars(example = &"prod")]
    pub workspace: Option<String>,
    /// opentofu/terraform: `-var-file` arguments, relative to the stack's directory.
    #[schemars(example = &examples::OPTIONS_VAR_FILES)]
    pub var_files: Option<Vec<String>>,
    /// opentofu/terraform: a wrapper in front of the tool.
    pub wrapper: Option<Wrapper>,
    /// helm: the release name.
    #[schemars(example = &"web")]
    pub release: Option<String>,
    /// helm (required) and kubectl: the namespace, a DNS label.
    #[schemars(example = &"web")]
    pub namespace: Option<String>,
    /// helm: `./…` or `../…` for a local chart, else `repo/name` or `oci://…`.
    #[schemars(example = &"./charts/web")]
    pub chart: Option<String>,
    /// helm: the exact chart version, required for chart references.
    #[schemars(example = &"1.4.2")]
    pub version: Option<String>,
    /// helm: `--values` files, in order.
    #[schemars(example = &examples::OPTIONS_VALUES_FILES)]
    pub values_files: Option<Vec<String>>,
    /// helm: create the namespace on deploy.
    #[schemars(example = true)]
    pub create_namespace: Option<bool>,
    /// kubectl: the kubeconfig context.
    #[schemars(example = &"homelab")]
    pub context: Option<String>,
    /// kubectl: include manifests in every subdirectory.
    #[schemars(example = true)]
    pub recursive: Option<bool>,
    /// kubectl: delete objects removed from the manifests, through Sluiceway's own inventory.
    #[schemars(example = true)]
    pub prune: Option<bool>,
    /// kubectl: take over fields another manager owns.
    #[schemars(example = true)]
    pub force_conflicts: Option<bool>,
    /// kubectl: the server-side apply field manager.
    #[schemars(example = &"platform-team")]
    pub field_manager: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Wrapper {
    Terragrunt,
    Cdktf,
}

impl Wrapper {
    /// The wrapper's name, as the file writes it.
    pub fn name(self) -> &'static str {
        match self {
            Wrapper::Terragrunt => "terragrunt",
            Wrapper::Cdktf => "cdktf",
        }
    }
}

/// The examples of list keys, for the schema and the book: `#[schemars(example)]` takes
/// an expression, and an array literal is one only syn's full parser reads, which a
/// crate built alone does not enable.
mod examples {
    pub(super) const CONFIG_RECORD_WRITERS: [&str; 1] = ["deploy-bot[bot]"];
    pub(super) const CONFIG_POLICIES: [&str; 1] = ["policy/"];
    pub(super) const CONFIG_PHASES: [&str; 3] = ["network", "platform", "apps"];
    pub(super) const DASHBOARD_SHOW_VALUES: [&str; 2] = ["spec.replicas", "tags.*"];
    pub(super) const DASHBOARD_SECTIONS: [&str; 2] = ["deploying", "pending"];
    pub(super) const DEPLOY_WINDOW_DAYS: [&str; 4] = ["monday", "tuesday", "wednesday", "thursday"];
    pub(super) const SCAN_UNRELATED: [&str; 2] = ["docs/**", "*.md"];
    pub(super) const MERGE_AND_DEPLOY_AUTHORS: [&str; 1] = ["renovate[bot]"];
    pub(super) const STACK_ENTRY_TICKERS: [&str; 2] = ["alice", "bob"];
    pub(super) const STACK_ENTRY_INPUTS: [&str; 1] = ["modules/vpc/**"];
    pub(super) const STACK_ENTRY_DEPENDS_ON: [&str; 1] = ["network"];
    pub(super) const STACK_ENTRY_POLICIES: [&str; 1] = ["policy/network/"];
    pub(super) const OPTIONS_VAR_FILES: [&str; 1] = ["prod.tfvars"];
    pub(super) const OPTIONS_VALUES_FILES: [&str; 2] = ["values.yaml", "values-prod.yaml"];
}

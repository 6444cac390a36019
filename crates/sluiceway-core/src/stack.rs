//! Stacks: the unit Sluiceway previews, shows as one row, and deploys.

use std::fmt;

use crate::calendar::Windows;
use crate::config::{ConfigProblem, DeployTrigger, KeyPath, PermissionLevel, Position, Wrapper};

/// The tool that previews and deploys a stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tool {
    Pulumi,
    OpenTofu,
    Terraform,
    Helm,
    Kubectl,
}

impl Tool {
    pub fn name(self) -> &'static str {
        match self {
            Tool::Pulumi => "pulumi",
            Tool::OpenTofu => "opentofu",
            Tool::Terraform => "terraform",
            Tool::Helm => "helm",
            Tool::Kubectl => "kubectl",
        }
    }
}

impl fmt::Display for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A stack's id: `path` or `path:name`, the repository root being `.`.
///
/// The id is frozen into row markers, deployment records and concurrency groups, so it
/// is derived once, here, and never split again.
#[derive(
    Debug,
    Clone,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(transparent)]
pub struct StackId(String);

impl StackId {
    pub fn derive(path: &str, name: Option<&str>) -> StackId {
        match name {
            Some(name) => StackId(format!("{path}:{name}")),
            None => StackId(path.to_owned()),
        }
    }

    /// An id given by a `stacks` entry's `id`; its characters were checked at load.
    pub fn given(id: &str) -> StackId {
        StackId(id.to_owned())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for StackId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Who may ask for a deploy by ticking a box.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TickRule {
    /// Anyone with at least this permission on the repository.
    AtLeast(PermissionLevel),
    /// Only these logins (compared without regard to case), who also need write access.
    Logins(Vec<String>),
}

impl Default for TickRule {
    fn default() -> Self {
        TickRule::AtLeast(PermissionLevel::Write)
    }
}

impl fmt::Display for TickRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TickRule::AtLeast(PermissionLevel::Write) => f.write_str("anyone with write access"),
            TickRule::AtLeast(PermissionLevel::Maintain) => {
                f.write_str("anyone with maintain access or more")
            }
            TickRule::AtLeast(PermissionLevel::Admin) => f.write_str("admins only"),
            TickRule::Logins(logins) => write!(f, "only {}", logins.join(", ")),
        }
    }
}

/// What GitHub says one person may do in a repository, asked live at each tick.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Access {
    pub login: String,
    pub push: bool,
    pub maintain: bool,
    pub admin: bool,
}

/// Why a tick rule turns a person away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleRefusal {
    /// The person cannot write to the repository.
    NoWriteAccess,
    /// The person can write, but the stack's rule asks for more.
    RuleNotMet,
}

impl TickRule {
    /// Whether a person with `access` may ask for a deploy: write access first, then the
    /// rule, which only narrows (decision 0018). The action's modes and the console both
    /// judge with this, so a tick is judged alike wherever it is made.
    pub fn admits(&self, access: &Access) -> Result<(), RuleRefusal> {
        if !access.push {
            return Err(RuleRefusal::NoWriteAccess);
        }
        let meets = match self {
            TickRule::AtLeast(PermissionLevel::Write) => true,
            TickRule::AtLeast(PermissionLevel::Maintain) => access.maintain || access.admin,
            TickRule::AtLeast(PermissionLevel::Admin) => access.admin,
            TickRule::Logins(logins) => {
                logins.iter().any(|l| l.eq_ignore_ascii_case(&access.login))
            }
        };
        if meets {
            Ok(())
        } else {
            Err(RuleRefusal::RuleNotMet)
        }
    }
}

/// A Helm chart: in the repository, or a reference pinned to an exact version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Chart {
    /// A directory relative to the stack's directory, starting `./` or `../`.
    Local(String),
    Reference {
        name: String,
        version: String,
    },
}

/// The named options of a stack's tool. No free-form tool arguments exist.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolOptions {
    Pulumi,
    /// OpenTofu and Terraform share one adapter.
    RootModule {
        workspace: Option<String>,
        var_files: Vec<String>,
        wrapper: Option<Wrapper>,
    },
    Helm {
        release: String,
        namespace: String,
        chart: Chart,
        values_files: Vec<String>,
        create_namespace: bool,
    },
    Kubectl {
        context: Option<String>,
        namespace: Option<String>,
        recursive: bool,
        prune: bool,
        force_conflicts: bool,
        field_manager: Option<String>,
    },
}

/// Why a stack exists: found from files, or declared by a `stacks` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A Pulumi project's stack file.
    PulumiStackFile(String),
    /// A root module found by the rules of root-module discovery; the evidence in words.
    FoundRootModule(String),
    /// Declared by the `stacks` entry at this index.
    Declared(usize),
}

/// The deployment-record environment of a stack no entry gives one.
pub const DEFAULT_ENVIRONMENT: &str = "sluiceway";

/// Per-stack settings after every `stacks` entry that covers the stack was applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StackSettings {
    pub environment: String,
    pub tick_rule: TickRule,
    /// Globs from the repository root whose changes the stack claims besides its directory.
    pub inputs: Vec<String>,
    pub depends_on: Vec<StackId>,
    /// `dependsOn: auto`: the stacks its YAML program references were added to
    /// `depends_on` at discovery (decision 0059).
    pub depends_on_auto: bool,
    pub phase: Option<String>,
    /// Scheduled and manual full scans look for drift (`drift.enabled`, per stack or
    /// for all).
    pub drift: bool,
    /// The stack's own preview limit in minutes (`previewTimeout`), over the input's.
    pub preview_timeout_minutes: Option<u32>,
    /// Rows carry a fingerprint of the values they do not show (`valueFingerprint`).
    pub value_fingerprint: bool,
    /// A scan makes the Pulumi stack in its backend when the backend lacks it
    /// (`createInBackend`, decision 0107); no other mode does.
    pub create_in_backend: bool,
    /// When it may deploy: its entry's `deployWindows`, else the top-level ones.
    pub deploy_windows: Windows,
    /// `deploy`: on a tick, or on merge (decision 0095).
    pub deploy: DeployTrigger,
    /// The env file its tool gets over the step's (decision 0103).
    pub env_file: Option<NamedPath>,
    /// Whether its changes' monthly cost is estimated, and above what a deploy on merge
    /// waits for a tick (decision 0105): the top-level `cost`, its entry's key by key.
    pub cost: CostSetting,
    /// The Rego files and folders its pending previews are judged by: the top-level
    /// `policies`, then those of every entry that covers it (decision 0106).
    pub policies: Vec<NamedPath>,
}

/// A stack's `cost` settings, resolved.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CostSetting {
    /// Estimate the monthly cost of its changes (OpenTofu and Terraform only).
    pub enabled: bool,
    /// The monthly increase above which a deploy on merge waits for a tick.
    pub threshold: Option<crate::cost::Amount>,
}

/// A file or folder from the repository root, and where `sluiceway.yaml` names it
/// (`stacks[].envFile`, `policies[]`), so one that cannot be loaded is reported at its key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedPath {
    pub path: String,
    pub key: KeyPath,
    pub position: Position,
}

impl NamedPath {
    /// A problem with the file, pointing at the key that names it in `file`.
    pub fn problem(&self, file: &str, message: impl Into<String>) -> ConfigProblem {
        ConfigProblem {
            file: file.to_owned(),
            position: self.position,
            key: self.key.clone(),
            message: message.into(),
        }
    }
}

impl Default for StackSettings {
    fn default() -> Self {
        StackSettings {
            environment: DEFAULT_ENVIRONMENT.to_owned(),
            tick_rule: TickRule::default(),
            inputs: Vec::new(),
            depends_on: Vec::new(),
            depends_on_auto: false,
            phase: None,
            drift: false,
            preview_timeout_minutes: None,
            value_fingerprint: true,
            create_in_backend: false,
            deploy_windows: Windows::default(),
            deploy: DeployTrigger::OnTick,
            env_file: None,
            policies: Vec::new(),
            cost: CostSetting::default(),
        }
    }
}

/// A stack as discovery hands it on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stack {
    pub id: StackId,
    /// Relative to the repository root, `/`-separated, `.` for the root.
    pub path: String,
    pub name: Option<String>,
    pub tool: Tool,
    pub options: ToolOptions,
    pub origin: Origin,
    pub settings: StackSettings,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_path_or_path_colon_name() {
        assert_eq!(StackId::derive(".", Some("prod")).as_str(), ".:prod");
        assert_eq!(
            StackId::derive("infra/network", None).as_str(),
            "infra/network"
        );
        assert_eq!(
            StackId::derive("apps/web", Some("dev")).as_str(),
            "apps/web:dev"
        );
    }
}

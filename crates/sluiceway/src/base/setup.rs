//! Reading a repository's setup: its configuration file and what discovery finds.
//! `check` and `init` both start here, with the same code and messages as a scan.

use sluiceway_core::claim::{Claimants, Claims};
use sluiceway_core::config::{self, Config, ConfigProblem, KeyPath, Position};
use sluiceway_core::discovery::{Discovery, discover};
use sluiceway_core::repo::{FileSource, RepoFiles};

use crate::base::checkout::Checkout;

pub(crate) struct Setup {
    pub config: Config,
    pub files: RepoFiles,
    pub discovery: Discovery,
}

pub(crate) enum SetupError {
    /// The checkout could not be listed at all.
    Unreadable(String),
    /// The configuration or discovery is invalid.
    Problems(Vec<ConfigProblem>),
}

/// The claim rule over the setup's stacks: which files each claims, and the reverse.
/// `None` only when a glob cannot be read, which the loader already refused, so a caller
/// treats it as its own doubt and fails open.
pub(crate) fn claims(config: &Config, discovery: &Discovery) -> Option<(Claims, Claimants)> {
    let stacks = &discovery.stacks;
    let claims = Claims::new(
        stacks,
        &config.settings.scan.unrelated,
        config.file.as_deref(),
    )
    .ok()?;
    Some((claims, Claimants::new(stacks).ok()?))
}

/// Finds and loads `sluiceway.yaml` (or `.yml`); none means every default.
pub(crate) fn load_config(
    files: &RepoFiles,
    source: &impl FileSource,
) -> Result<Config, Vec<ConfigProblem>> {
    let present: Vec<&str> = config::FILE_NAMES
        .into_iter()
        .filter(|name| files.contains(name))
        .collect();
    match present.as_slice() {
        [] => Ok(Config::default()),
        [name] => {
            let text = source.read_text(name).ok_or_else(|| {
                vec![ConfigProblem {
                    file: (*name).to_owned(),
                    position: Position { line: 1, column: 1 },
                    key: KeyPath::default(),
                    message: "the file could not be read as UTF-8 text".to_owned(),
                }]
            })?;
            config::load(name, &text)
        }
        _ => Err(vec![ConfigProblem {
            file: "sluiceway.yml".to_owned(),
            position: Position { line: 1, column: 1 },
            key: KeyPath::default(),
            message: "both sluiceway.yaml and sluiceway.yml exist; keep one (sluiceway.yaml)"
                .to_owned(),
        }]),
    }
}

pub(crate) fn read(checkout: &Checkout) -> Result<Setup, SetupError> {
    let files = checkout.files().map_err(|e| {
        SetupError::Unreadable(format!(
            "{} could not be read: {e}",
            checkout.root().display()
        ))
    })?;
    let config = load_config(&files, checkout).map_err(SetupError::Problems)?;
    let discovery = discover(&config, &files, checkout).map_err(SetupError::Problems)?;
    Ok(Setup {
        config,
        files,
        discovery,
    })
}

/// The dashboard's label as `sluiceway.yaml` sets it, read as leniently as can be: a
/// run that cannot read its setup still says so on the dashboard the team labelled.
/// Every doubt gives the default label.
pub(crate) fn configured_label(checkout: &Checkout) -> String {
    let default = config::RawDashboard::default().label;
    config::FILE_NAMES
        .into_iter()
        .find_map(|name| checkout.read_text(name))
        .and_then(|text| config::Document::parse(&text).ok())
        .and_then(|document| {
            document
                .value
                .pointer("/dashboard/label")
                .and_then(|label| label.as_str())
                .filter(|label| !label.trim().is_empty())
                .map(str::to_owned)
        })
        .unwrap_or(default)
}

/// The events `notify.events` lists; the defaults when the file cannot be loaded, so a
/// run that failed early still tells of it.
pub(crate) fn configured_events(checkout: &Checkout) -> Vec<config::raw::NotifyEvent> {
    config::FILE_NAMES
        .into_iter()
        .find_map(|name| Some((name, checkout.read_text(name)?)))
        .and_then(|(name, text)| config::load(name, &text).ok())
        .map(|config| config.settings.notify.events)
        .unwrap_or_else(|| config::raw::RawNotify::default().events)
}

/// The workflow annotations for the keys this version does not act on yet (ADR 0026)
/// and the settings that cannot do what they seem to ask: one warning per place, naming
/// the file, its line and the key.
pub(crate) fn unacted_annotations(config: &Config) -> Vec<String> {
    let file = config.file.as_deref().unwrap_or(config::FILE_NAMES[0]);
    config
        .unacted
        .iter()
        .map(|u| {
            format!(
                "::warning file={file},line={},col={}::{}",
                u.position.line,
                u.position.column,
                u.warning(file)
            )
        })
        .chain(config.warnings.iter().map(|w| {
            format!(
                "::warning file={},line={},col={}::{w}",
                w.file, w.position.line, w.position.column
            )
        }))
        .collect()
}

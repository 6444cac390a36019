//! The action's inputs, read as GitHub Actions passes them: `INPUT_<NAME>`, the name
//! upper-cased with its dashes kept. An input set to the empty string means its default,
//! so a workflow can pass an optional input through; a wrong value that is not empty
//! fails the step, naming the input.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::modes::notify::channels::{self, Channel};

/// What a run was asked to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Auto,
    Scan,
    Resolve,
    Apply,
    Settle,
    Check,
    /// A sharded scan's three steps (ADR 0037): plan the shards, preview one, join them.
    Plan,
    Shard,
    Join,
}

impl Mode {
    const NAMES: [(&'static str, Mode); 9] = [
        ("auto", Mode::Auto),
        ("scan", Mode::Scan),
        ("resolve", Mode::Resolve),
        ("apply", Mode::Apply),
        ("settle", Mode::Settle),
        ("check", Mode::Check),
        ("plan", Mode::Plan),
        ("shard", Mode::Shard),
        ("join", Mode::Join),
    ];

    pub fn name(self) -> &'static str {
        Mode::NAMES
            .iter()
            .find(|(_, m)| *m == self)
            .map_or("auto", |(n, _)| n)
    }
}

/// Every input a mode reads, with its default filled in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inputs {
    pub mode: Mode,
    /// The pool's size when the workflow sets it; otherwise it follows the cores.
    pub concurrency: Option<usize>,
    /// Each preview's limit, counted from its start.
    pub preview_timeout: Duration,
    /// A preview that failed twice makes the job red.
    pub strict: bool,
    pub dry_run: bool,
    pub deployment_id: Option<u64>,
    pub deploy_timeout: Option<Duration>,
    /// The job's check-run id, for links to its log.
    pub job_id: Option<u64>,
    /// How the job's earlier steps went; anything but success means Sluiceway only says
    /// so on the dashboard.
    pub job_status: JobStatus,
    /// A `NAME=value` file whose variables the tool gets, relative to the checkout.
    pub env_file: Option<String>,
    /// `check`'s inputs: ask the backend which stacks exist; preview pull requests.
    pub backend: bool,
    pub pull_request_preview: bool,
    /// The notification channels the workflow set up.
    pub channels: Vec<Channel>,
    /// A sharded scan's inputs: how many shards the plan makes, which one a shard step
    /// previews, the plan each shard and the join read back, where the join finds the
    /// partial results, and the file the preview times are kept in between scans.
    pub shards: Option<u32>,
    pub shard: Option<u32>,
    pub shard_plan: Option<String>,
    pub partial_results: Option<String>,
    pub timings_file: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobStatus {
    Success,
    Failure,
    Cancelled,
}

/// A wrong input value; the message names the input and what it takes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the input `{input}` is {value:?}; it takes {takes}")]
pub struct InputError {
    pub input: &'static str,
    pub value: String,
    pub takes: &'static str,
}

/// Every input the action has (`action.yml` lists the same; a test holds the two
/// together). `github-token` is read by the GitHub client.
pub const NAMES: [&str; 23] = [
    "mode",
    "concurrency",
    "preview-timeout",
    "strict",
    "github-token",
    "deployment-id",
    "dry-run",
    "backend",
    "pull-request-preview",
    "deploy-timeout",
    "env-file",
    "slack-webhook-url",
    "telegram-bot-token",
    "telegram-chat-id",
    "telegram-thread-id",
    "webhook-url",
    "job-id",
    "job-status",
    "shards",
    "shard",
    "shard-plan",
    "partial-results",
    "timings-file",
];

/// The largest pool a workflow may ask for.
const MOST_CONCURRENCY: usize = 64;
/// The most shards a sharded scan has: GitHub runs at most 256 jobs from one matrix.
pub const MOST_SHARDS: u32 = 256;
const DEFAULT_PREVIEW_MINUTES: u64 = 10;

impl Inputs {
    pub fn mode_is_auto(&self) -> bool {
        self.mode == Mode::Auto
    }

    /// Reads every input from the job's environment.
    pub fn read(env: &BTreeMap<String, String>) -> Result<Inputs, InputError> {
        let get = |name: &'static str| -> Option<(&'static str, &str)> {
            env.get(&format!("INPUT_{}", name.to_uppercase()))
                .map(|v| v.trim())
                .filter(|v| !v.is_empty())
                .map(|v| (name, v))
        };
        let mode = match get("mode") {
            None => Mode::Auto,
            Some((input, value)) => Mode::NAMES
                .iter()
                .find(|(n, _)| *n == value)
                .map(|(_, m)| *m)
                .ok_or_else(|| InputError {
                    input,
                    value: value.to_owned(),
                    takes: "one of auto, scan, resolve, apply, settle, check, plan, shard, join",
                })?,
        };
        let concurrency = get("concurrency")
            .map(|(input, value)| {
                whole(
                    input,
                    value,
                    1,
                    MOST_CONCURRENCY as u64,
                    "a whole number from 1 to 64",
                )
                .map(|n| n as usize)
            })
            .transpose()?;
        let preview_timeout = get("preview-timeout")
            .map(minutes)
            .transpose()?
            .unwrap_or(Duration::from_secs(DEFAULT_PREVIEW_MINUTES * 60));
        let deploy_timeout = get("deploy-timeout").map(minutes).transpose()?;
        let deployment_id = get("deployment-id")
            .map(|(input, value)| whole(input, value, 1, u64::MAX, "a deployment record's id"))
            .transpose()?;
        let job_id = get("job-id")
            .map(|(input, value)| whole(input, value, 1, u64::MAX, "a job's check-run id"))
            .transpose()?;
        let most_shards = u64::from(MOST_SHARDS);
        let shards = get("shards")
            .map(|(input, value)| {
                whole(input, value, 1, most_shards, "a whole number from 1 to 256")
            })
            .transpose()?
            .map(|n| n as u32);
        let shard = get("shard")
            .map(|(input, value)| {
                whole(
                    input,
                    value,
                    1,
                    most_shards,
                    "a shard's index, a whole number from 1 to 256 (`${{ matrix.shard }}`)",
                )
            })
            .transpose()?
            .map(|n| n as u32);
        let job_status = match get("job-status") {
            None | Some((_, "success")) => JobStatus::Success,
            Some((_, "failure")) => JobStatus::Failure,
            Some((_, "cancelled")) => JobStatus::Cancelled,
            Some((input, value)) => {
                return Err(InputError {
                    input,
                    value: value.to_owned(),
                    takes: "success, failure or cancelled (`${{ job.status }}`)",
                });
            }
        };
        let telegram_api = env
            .get("SLUICEWAY_TELEGRAM_API")
            .map_or(channels::TELEGRAM_API, String::as_str);
        let channels = channels::read(|name| get(name).map(|(_, v)| v), telegram_api)?;
        Ok(Inputs {
            job_status,
            env_file: get("env-file").map(|(_, v)| v.to_owned()),
            backend: get("backend").map(yes_or_no).transpose()?.unwrap_or(false),
            pull_request_preview: get("pull-request-preview")
                .map(yes_or_no)
                .transpose()?
                .unwrap_or(false),
            channels,
            shards,
            shard,
            shard_plan: get("shard-plan").map(|(_, v)| v.to_owned()),
            partial_results: get("partial-results").map(|(_, v)| v.to_owned()),
            timings_file: get("timings-file").map(|(_, v)| v.to_owned()),
            mode,
            concurrency,
            preview_timeout,
            strict: get("strict").map(yes_or_no).transpose()?.unwrap_or(false),
            dry_run: get("dry-run").map(yes_or_no).transpose()?.unwrap_or(false),
            deployment_id,
            deploy_timeout,
            job_id,
        })
    }
}

fn whole(
    input: &'static str,
    value: &str,
    least: u64,
    most: u64,
    takes: &'static str,
) -> Result<u64, InputError> {
    value
        .parse::<u64>()
        .ok()
        .filter(|n| (least..=most).contains(n))
        .ok_or_else(|| InputError {
            input,
            value: value.to_owned(),
            takes,
        })
}

fn minutes((input, value): (&'static str, &str)) -> Result<Duration, InputError> {
    whole(
        input,
        value,
        1,
        24 * 60,
        "a whole number of minutes from 1 to 1440",
    )
    .map(|m| Duration::from_secs(m * 60))
}

fn yes_or_no((input, value): (&'static str, &str)) -> Result<bool, InputError> {
    match value {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(InputError {
            input,
            value: value.to_owned(),
            takes: "true or false",
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn nothing_set_is_every_default() {
        let inputs = Inputs::read(&env(&[])).unwrap();
        assert_eq!(inputs.mode, Mode::Auto);
        assert_eq!(inputs.concurrency, None);
        assert_eq!(inputs.preview_timeout, Duration::from_secs(600));
        assert!(!inputs.strict && !inputs.dry_run);
    }

    #[test]
    fn an_empty_input_is_its_default_and_names_keep_their_dashes() {
        let inputs = Inputs::read(&env(&[
            ("INPUT_MODE", ""),
            ("INPUT_CONCURRENCY", " "),
            ("INPUT_PREVIEW-TIMEOUT", "3"),
            ("INPUT_STRICT", "true"),
        ]))
        .unwrap();
        assert_eq!(inputs.mode, Mode::Auto);
        assert_eq!(inputs.concurrency, None);
        assert_eq!(inputs.preview_timeout, Duration::from_secs(180));
        assert!(inputs.strict);
        // The variable GitHub Actions would never set (dash turned underscore) is not read.
        let other = Inputs::read(&env(&[("INPUT_PREVIEW_TIMEOUT", "3")])).unwrap();
        assert_eq!(other.preview_timeout, Duration::from_secs(600));
    }

    #[test]
    fn a_wrong_value_names_its_input() {
        let cases = [
            ("INPUT_MODE", "deploy", "mode"),
            ("INPUT_CONCURRENCY", "0", "concurrency"),
            ("INPUT_CONCURRENCY", "four", "concurrency"),
            ("INPUT_PREVIEW-TIMEOUT", "-1", "preview-timeout"),
            ("INPUT_STRICT", "yes", "strict"),
            ("INPUT_DEPLOYMENT-ID", "abc", "deployment-id"),
            ("INPUT_JOB-STATUS", "skipped", "job-status"),
            (
                "INPUT_SLACK-WEBHOOK-URL",
                "http://hooks.example/x",
                "slack-webhook-url",
            ),
            ("INPUT_WEBHOOK-URL", "ftp://x", "webhook-url"),
            ("INPUT_TELEGRAM-BOT-TOKEN", "123:abc", "telegram-chat-id"),
            ("INPUT_TELEGRAM-THREAD-ID", "topic", "telegram-thread-id"),
            ("INPUT_BACKEND", "yes", "backend"),
        ];
        for (name, value, input) in cases {
            let error = Inputs::read(&env(&[(name, value)])).unwrap_err();
            assert_eq!(error.input, input);
            assert!(
                error
                    .to_string()
                    .starts_with(&format!("the input `{input}` is"))
            );
        }
    }
}

#[cfg(test)]
mod more_tests {
    use super::*;

    #[test]
    fn a_webhook_address_is_never_echoed() {
        let env: BTreeMap<String, String> = [(
            "INPUT_SLACK-WEBHOOK-URL".to_owned(),
            "http://hooks.example/T000/B000/secret".to_owned(),
        )]
        .into();
        let error = Inputs::read(&env).unwrap_err();
        assert!(!error.to_string().contains("secret"), "{error}");
    }

    #[test]
    fn the_job_status_and_the_channels_are_read() {
        let env: BTreeMap<String, String> = [
            ("INPUT_JOB-STATUS", "failure"),
            ("INPUT_TELEGRAM-BOT-TOKEN", "123:abc"),
            ("INPUT_TELEGRAM-CHAT-ID", "-100"),
            ("INPUT_ENV-FILE", "ci/tools.env"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        let inputs = Inputs::read(&env).unwrap();
        assert_eq!(inputs.job_status, JobStatus::Failure);
        let channels: Vec<&str> = inputs.channels.iter().map(Channel::name).collect();
        assert_eq!(channels, ["Telegram"]);
        assert_eq!(inputs.env_file.as_deref(), Some("ci/tools.env"));
    }
}

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command as Process, ExitCode};
use std::time::Instant;

use anyhow::{Context as _, bail};
use clap::{Parser, Subcommand};
use sluiceway_core::runner::{Invocation, Outcome, Runner};
use sluiceway_fixtures::control_plane::{self, Binaries, ControlPlane};
use sluiceway_fixtures::recorder::Recorder;
use sluiceway_fixtures::replay::{self, Tool};
use sluiceway_fixtures::scenario;
use sluiceway_tools::kubectl;
use sluiceway_tools::process::SystemRunner;
use sluiceway_tools::version::Version;

/// Sluiceway's fixtures: recordings of real tool runs, and what Sluiceway reads from them.
#[derive(Debug, Parser)]
#[command(name = "sluiceway-fixtures", version, about, max_term_width = 100)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run an adapter against a recorded scenario and print what it made of it.
    ///
    /// Works on any scenario directory in the recording format. Exits 1 when the scenario
    /// cannot be replayed (an unreadable recording, a call the recording does not hold, a
    /// recorded command the adapter never asked for).
    Replay {
        #[arg(long, value_enum)]
        tool: Tool,
        /// The example project the scenario was recorded from, as it was then.
        #[arg(long, value_name = "PROJECT-DIR")]
        example: PathBuf,
        /// The scenario directory (it holds recording.json).
        scenario: PathBuf,
        /// Print one JSON document.
        #[arg(long)]
        json: bool,
    },
    /// Record scenarios with a real tool: kubectl and helm against the cluster KUBECONFIG
    /// names, OpenTofu or Terraform against a local backend.
    ///
    /// kubectl and helm record only against the context `sluiceway-fixtures` (the local
    /// control plane) or `kind-*`. Writes <OUT>/<version>/<scenario>/; a scenario that fails leaves
    /// nothing.
    Record {
        #[arg(long, value_enum)]
        tool: RecordTool,
        /// The tool's binary.
        #[arg(long, value_name = "PATH")]
        binary: PathBuf,
        /// The kubectl helm's scenarios set the stage with and drift-check through.
        #[arg(long, value_name = "PATH", required_if_eq("tool", "helm"))]
        kubectl: Option<PathBuf>,
        /// The OpenTofu that plans what cdktf synthesizes.
        #[arg(long, value_name = "PATH", required_if_eq("tool", "cdktf"))]
        tofu: Option<PathBuf>,
        /// The installed modules of the CDKTF app (`scripts/install-cdktf.sh` prints them).
        #[arg(long, value_name = "DIR", required_if_eq("tool", "cdktf"))]
        node_modules: Option<PathBuf>,
        /// Record only this scenario.
        #[arg(long, value_name = "SCENARIO")]
        only: Option<String>,
        /// Default: fixtures/<tool>.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
        /// The example project the scenarios edit copies of (default: the tool's own).
        #[arg(long, value_name = "DIR")]
        example: Option<PathBuf>,
        /// A fixed working directory (tool output holds its paths).
        #[arg(long, value_name = "DIR", default_value = "/tmp/sluiceway-fixtures")]
        work: PathBuf,
    },
    /// Start the local control plane, run a command with KUBECONFIG pointing at it, and
    /// stop everything when the command ends.
    ControlPlane {
        /// The kubectl used to wait for the API server.
        #[arg(long, value_name = "PATH")]
        kubectl: PathBuf,
        /// The server version to run, from the cache `scripts/build-control-plane.sh
        /// <version>` fills.
        #[arg(long, value_name = "VERSION", value_parser = clap::builder::PossibleValuesParser::new(control_plane::SERVERS), required_unless_present = "binaries")]
        server: Option<String>,
        /// The directory of etcd, kube-apiserver and kube-controller-manager, instead of
        /// a cached server.
        #[arg(long, value_name = "DIR", conflicts_with = "server")]
        binaries: Option<PathBuf>,
        /// The command to run, after `--`.
        #[arg(last = true, required = true)]
        command: Vec<String>,
    },
}

/// The tools the recorder has scenarios for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum RecordTool {
    Kubectl,
    Opentofu,
    Terraform,
    /// A CDK for Terraform app, synthesized by cdktf and planned by OpenTofu.
    Cdktf,
    Helm,
    Pulumi,
}

impl RecordTool {
    fn name(self) -> &'static str {
        match self {
            RecordTool::Kubectl => "kubectl",
            RecordTool::Helm => "helm",
            RecordTool::Opentofu => "opentofu",
            RecordTool::Terraform => "terraform",
            RecordTool::Cdktf => "cdktf",
            RecordTool::Pulumi => "pulumi",
        }
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(e) => {
            say(&format!("error: {e:#}"));
            ExitCode::from(1)
        }
    }
}

fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Replay {
            tool,
            example,
            scenario,
            json,
        } => {
            let report = replay::replay(tool, &example, &scenario)?;
            let text = if json {
                format!("{}\n", serde_json::to_string_pretty(&report)?)
            } else {
                replay::text(&report)
            };
            use std::io::Write;
            std::io::stdout().write_all(text.as_bytes())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Record {
            tool,
            binary,
            kubectl,
            tofu,
            node_modules,
            only,
            out,
            example,
            work,
        } => {
            let out = out.unwrap_or_else(|| PathBuf::from("fixtures").join(tool.name()));
            let example = example.unwrap_or_else(|| {
                PathBuf::from(match tool {
                    RecordTool::Kubectl => "examples/homelab/k8s",
                    RecordTool::Helm => "examples/helm-lab",
                    RecordTool::Opentofu | RecordTool::Terraform => "examples/tofu-lab",
                    RecordTool::Cdktf => "examples/cdktf-lab",
                    RecordTool::Pulumi => "examples/pulumi-lab",
                })
            });
            let tools = Tools {
                binary: &binary,
                kubectl: kubectl.as_deref(),
                tofu: tofu.as_deref(),
                node_modules: node_modules.as_deref(),
            };
            record(tool, &tools, only.as_deref(), &out, &example, &work)
        }
        Command::ControlPlane {
            kubectl,
            server,
            binaries,
            command,
        } => {
            let binaries = match (binaries, server) {
                (Some(dir), _) => Binaries::in_dir(&dir)?,
                (None, Some(server)) => Binaries::cached(&server)?,
                (None, None) => anyhow::bail!("name the server with --server or give --binaries"),
            };
            let plane = ControlPlane::start(&binaries, &kubectl)?;
            say(&format!(
                "control plane up: context {}, kubeconfig {}",
                control_plane::CONTEXT,
                plane.kubeconfig().display()
            ));
            let status = Process::new(&command[0])
                .args(&command[1..])
                .env("KUBECONFIG", plane.kubeconfig())
                .status()
                .with_context(|| format!("running {}", command[0]))?;
            drop(plane);
            say("control plane stopped");
            Ok(ExitCode::from(
                status.code().map_or(1, |c| u8::try_from(c).unwrap_or(1)),
            ))
        }
    }
}

/// The binaries a recording runs: the tool's, for helm the kubectl beside it, for cdktf
/// the OpenTofu behind it and the app's modules.
struct Tools<'a> {
    binary: &'a Path,
    kubectl: Option<&'a Path>,
    tofu: Option<&'a Path>,
    node_modules: Option<&'a Path>,
}

fn record(
    tool: RecordTool,
    tools: &Tools<'_>,
    only: Option<&str>,
    out: &Path,
    example: &Path,
    work: &Path,
) -> anyhow::Result<ExitCode> {
    let binary = tools
        .binary
        .canonicalize()
        .with_context(|| format!("no {} at {}", tool.name(), tools.binary.display()))?;
    // The other binaries a scenario runs, on PATH after the tool's.
    let mut beside = String::new();
    for (name, path) in [("kubectl", tools.kubectl), ("tofu", tools.tofu)] {
        if let Some(path) = path {
            let path = path
                .canonicalize()
                .with_context(|| format!("no {name} at {}", path.display()))?;
            beside.push_str(&format!(
                "{}:",
                path.parent().unwrap_or(Path::new("/")).display()
            ));
        }
    }
    let example = example
        .canonicalize()
        .with_context(|| format!("no example project at {}", example.display()))?;
    if work.exists() {
        std::fs::remove_dir_all(work).with_context(|| format!("clearing {}", work.display()))?;
    }
    std::fs::create_dir_all(work.join("home"))
        .with_context(|| format!("making {}", work.display()))?;
    let binary_dir = binary.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut env = BTreeMap::from([
        (
            "PATH".to_owned(),
            format!("{}:{beside}/usr/bin:/bin", binary_dir.display()),
        ),
        ("HOME".to_owned(), work.join("home").display().to_string()),
    ]);
    let command_name = binary
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_owned();
    let runner = SystemRunner::default();
    let ask = |env: &BTreeMap<String, String>, args: &[&str]| {
        let argv = std::iter::once(command_name.as_str())
            .chain(args.iter().copied())
            .map(str::to_owned)
            .collect();
        let invocation = Invocation {
            argv,
            cwd: work.to_owned(),
            env: env.clone(),
            time_limit: Some(std::time::Duration::from_secs(60)),
            stdout_file: None,
            grace: None,
        };
        match runner.run(&invocation) {
            Outcome::Exited {
                code: Some(0),
                stdout,
                ..
            } => Ok(String::from_utf8_lossy(&stdout).trim().to_owned()),
            other => Err(anyhow::anyhow!(
                "`{command_name} {}` failed: {other:?}",
                args.join(" ")
            )),
        }
    };
    let (cli_version, mut scenarios) = if matches!(
        tool,
        RecordTool::Kubectl | RecordTool::Helm | RecordTool::Pulumi
    ) {
        let Some(kubeconfig) = std::env::var_os("KUBECONFIG") else {
            bail!(
                "KUBECONFIG is not set; run the recorder inside `sluiceway-fixtures control-plane` or point it at a kind cluster"
            );
        };
        env.insert(
            "KUBECONFIG".to_owned(),
            kubeconfig.to_string_lossy().into_owned(),
        );
        let context = std::process::Command::new("kubectl")
            .args(["config", "current-context"])
            .env_clear()
            .envs(&env)
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
            .context("kubectl could not say the kubeconfig's context")?;
        if context != control_plane::CONTEXT && !context.starts_with("kind-") {
            bail!(
                "the kubeconfig's context is {context}; the recorder records only against `{}` or a kind cluster",
                control_plane::CONTEXT
            );
        }
        if tool == RecordTool::Pulumi {
            // Each scenario's own backend inside its project copy; the plugins beside the
            // CLI on PATH; nothing downloaded; the example's secrets under a fixed
            // passphrase, which is the fixtures' and guards nothing.
            env.extend(
                [
                    ("PULUMI_BACKEND_URL", "file://{project}/.backend"),
                    ("PULUMI_SKIP_UPDATE_CHECK", "true"),
                    ("PULUMI_CONFIG_PASSPHRASE", "sluiceway-fixtures"),
                ]
                .map(|(k, v)| (k.to_owned(), v.to_owned())),
            );
            let version = Version::parse(&ask(&env, &["version"])?)
                .context("pulumi did not say its version")?;
            (version.to_string(), scenario::pulumi_scenarios())
        } else if tool == RecordTool::Helm {
            let version = Version::parse(&ask(&env, &["version", "--template={{.Version}}"])?)
                .context("helm did not say its version")?;
            (version.to_string(), scenario::helm_scenarios(version.major))
        } else {
            let version = kubectl::version::client_version(&ask(
                &env,
                &["version", "--client", "--output=json"],
            )?)
            .context("kubectl did not say its version")?;
            (version.to_string(), scenario::kubectl_scenarios())
        }
    } else if tool == RecordTool::Cdktf {
        let Some(node_modules) = tools.node_modules else {
            bail!("--tool cdktf needs --node-modules");
        };
        let node_modules = node_modules
            .canonicalize()
            .with_context(|| format!("no modules at {}", node_modules.display()))?;
        // No telemetry call home while recording.
        env.insert("CHECKPOINT_DISABLE".to_owned(), "1".to_owned());
        let said = ask(&env, &["--version"])?;
        let version = said
            .lines()
            .find_map(|l| Version::parse(l.trim()))
            .context("cdktf did not say its version")?;
        (
            version.to_string(),
            scenario::cdktf_scenarios(&node_modules),
        )
    } else {
        env.insert("TF_IN_AUTOMATION".to_owned(), "true".to_owned());
        let said: serde_json::Value = serde_json::from_str(&ask(&env, &["version", "-json"])?)
            .context("the version is not JSON")?;
        let version = said
            .get("terraform_version")
            .and_then(|v| v.as_str())
            .and_then(Version::parse)
            .context("the tool did not say its version")?;
        let name = if tool == RecordTool::Terraform {
            "terraform"
        } else {
            "tofu"
        };
        (version.to_string(), scenario::opentofu_scenarios(name))
    };
    if let Some(only) = only {
        let names: Vec<&str> = scenarios.iter().map(|s| s.name).collect();
        scenarios.retain(|s| s.name == only);
        if scenarios.is_empty() {
            bail!(
                "no scenario is called {only}; the scenarios are {}",
                names.join(", ")
            );
        }
    }
    let out = out.join(&cli_version);
    if only.is_none() && out.exists() {
        std::fs::remove_dir_all(&out).with_context(|| format!("clearing {}", out.display()))?;
    }
    let recorder = Recorder {
        runner: &runner,
        env,
        example,
        work: work.to_owned(),
        out,
        cli_version: cli_version.clone(),
    };
    let mut failed = Vec::new();
    for scenario in &scenarios {
        let started = Instant::now();
        match recorder.record(scenario) {
            Ok(retaken) => {
                let races: String = retaken
                    .iter()
                    .map(|(id, runs)| format!(", {id} raced and took {runs} runs"))
                    .collect();
                let seconds = started.elapsed().as_secs_f64();
                say(&format!(
                    "ok   {cli_version} {} ({seconds:.1} s{races})",
                    scenario.name
                ));
            }
            Err(e) => {
                say(&format!("FAIL {cli_version} {}: {e}", scenario.name));
                failed.push(scenario.name);
            }
        }
    }
    let _ = std::fs::remove_dir_all(work);
    if failed.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        say(&format!(
            "{} of {} scenarios failed: {}",
            failed.len(),
            scenarios.len(),
            failed.join(", ")
        ));
        Ok(ExitCode::from(1))
    }
}

//! Ticks to deploys, measured: resolve's own time and GitHub requests for 1, 10 and 100
//! ticks in one edit of the dashboard, and apply's own time beside the tool's (the real
//! `tofu` deploying one stack of `examples/quickstart`). The emulator runs in a child
//! process (this binary again, with `--emulator`), so the figures are Sluiceway's.
//!
//! `cargo bench -p sluiceway --bench ticks`; it prints one line per measurement. Needs
//! OpenTofu in the cache (scripts/install-tofu.sh v1.6.2).

#![allow(
    clippy::print_stdout,
    reason = "a benchmark binary reports its figures"
)]

use sluiceway::modes::notify::Notifier;
use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use github_emulator::world::Role;
use github_emulator::{Act, Emulator, Options, World};
use sluiceway::base::printer::Printer;
use sluiceway::modes::apply::{self, Applying};
use sluiceway::modes::inputs::Inputs;
use sluiceway::modes::job::{Job, SystemClock};
use sluiceway::modes::outputs::Outputs;
use sluiceway::modes::resolve;
use sluiceway_core::runner::{Invocation, Outcome, Runner};
use sluiceway_github::{Endpoints, GitHub, HttpGitHub};
use sluiceway_tools::process::SystemRunner;

/// No value list: nothing shows.
static NO_VALUES: sluiceway_core::values::ValueList = sluiceway_core::values::ValueList::none();

const REPO: &str = "octo/infra";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The child: an emulator with alice as a writer, a commit, and a dashboard of
/// `stacks` pending rows that alice ticked all at once; prints the address, the commit
/// and the issue, and serves until stdin closes.
fn serve_emulator(stacks: usize) {
    let emulator = Emulator::start(
        World::new("2026-03-01T09:00:00Z".parse().unwrap()),
        Options::default(),
    )
    .unwrap();
    for act in [
        Act::AddRepo {
            repo: REPO.into(),
            default_branch: "main".into(),
        },
        Act::AddToken {
            token: "t".into(),
            login: "github-actions[bot]".into(),
            permissions: None,
        },
        Act::AddCollaborator {
            repo: REPO.into(),
            login: "alice".into(),
            role: Role::Write,
        },
    ] {
        emulator.act(act).unwrap();
    }
    let sha = emulator
        .act(Act::Push {
            repo: REPO.into(),
            branch: "main".into(),
            author: Some("alice".into()),
            message: "the stacks".into(),
            files: Vec::new(),
        })
        .unwrap();
    let rows = |tick: &str| -> String {
        (0..stacks)
            .map(|i| {
                format!(
                    "- [{tick}] **s{i:03}** · 1 create <!-- sluiceway:row stack=\"s{i:03}\" state=\"pending\" hash=\"{i:016x}\" creates=\"1\" -->\n  <!-- /sluiceway:row -->\n"
                )
            })
            .collect()
    };
    let root = "<!-- sluiceway:dashboard v=\"1\" scan-sha=\"34e410f2ce7bd7cfd94d9a2f1d5bc0b2dcc6aa91\" scan-run=\"1\" scan-at=\"2026-03-01T09:00:00Z\" -->\n\n## Pending\n\n";
    let number = emulator
        .act(Act::CreateIssue {
            repo: REPO.into(),
            author: "github-actions[bot]".into(),
            title: "Sluiceway dashboard".into(),
            body: format!("{root}{}", rows(" ")),
            labels: vec!["sluiceway".into()],
        })
        .unwrap();
    emulator
        .act(Act::EditBody {
            repo: REPO.into(),
            issue: number.as_u64().unwrap(),
            editor: "alice".into(),
            body: format!("{root}{}", rows("x")),
        })
        .unwrap();
    println!(
        "{} {} {}",
        emulator.base_url(),
        sha.as_str().unwrap(),
        number
    );
    let _ = std::io::stdout().flush();
    let mut rest = String::new();
    let _ = std::io::stdin().read_line(&mut rest);
}

fn emulator(stacks: usize) -> (std::process::Child, String, String, u64) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--emulator", &stacks.to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let mut parts = line.split_whitespace();
    let base = parts.next().unwrap().to_owned();
    let sha = parts.next().unwrap().to_owned();
    let number = parts.next().unwrap().parse().unwrap();
    (child, base, sha, number)
}

fn job(checkout: &Path, sha: &str, number: u64, runner_temp: &Path) -> Job {
    let env: BTreeMap<String, String> = [
        ("GITHUB_EVENT_NAME", "issues"),
        ("GITHUB_REPOSITORY", REPO),
        ("GITHUB_SHA", sha),
        ("GITHUB_RUN_ID", "77"),
        ("GITHUB_WORKSPACE", checkout.to_str().unwrap()),
        ("RUNNER_TEMP", runner_temp.to_str().unwrap()),
        ("PATH", &std::env::var("PATH").unwrap_or_default()),
        ("HOME", runner_temp.to_str().unwrap()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    let payload = serde_json::json!({
        "action": "edited",
        "issue": {
            "number": number, "state": "open",
            "user": { "login": "github-actions[bot]" },
            "body": "<!-- sluiceway:dashboard ",
            "labels": [{ "name": "sluiceway" }],
        },
    });
    Job::from_env(&env, Some(&payload.to_string()))
}

/// `stacks` declared kubectl directories: resolve runs no tool, it only needs them found.
fn repository(root: &Path, stacks: usize) {
    let mut config = String::from("stacks:\n");
    for i in 0..stacks {
        std::fs::create_dir_all(root.join(format!("s{i:03}"))).unwrap();
        std::fs::write(
            root.join(format!("s{i:03}/settings.yaml")),
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n",
        )
        .unwrap();
        config.push_str(&format!("  - path: s{i:03}\n    tool: kubectl\n"));
    }
    std::fs::write(root.join("sluiceway.yaml"), config).unwrap();
}

fn sink() -> Printer {
    Printer::new(Box::new(std::io::sink()), Box::new(std::io::sink()))
}

/// The real runner, with the time its processes took added up.
struct Timed {
    inner: SystemRunner,
    spent: Mutex<Duration>,
}

impl Runner for Timed {
    fn run(&self, invocation: &Invocation) -> Outcome {
        let started = Instant::now();
        let outcome = self.inner.run(invocation);
        *self.spent.lock().unwrap() += started.elapsed();
        outcome
    }
}

fn main() {
    let mut args = std::env::args().skip_while(|a| a != "--emulator");
    if args.next().is_some() {
        serve_emulator(args.next().and_then(|n| n.parse().ok()).unwrap_or(1));
        return;
    }
    for ticks in [1, 10, 100] {
        let (mut child, base, sha, number) = emulator(ticks);
        let checkout = tempfile::tempdir().unwrap();
        repository(checkout.path(), ticks);
        let temp = tempfile::tempdir().unwrap();
        let job = job(checkout.path(), &sha, number, temp.path());
        let github = HttpGitHub::new(Endpoints::at(&base).unwrap(), "t", REPO);
        let log = tempfile::NamedTempFile::new().unwrap();
        let mut printer = Printer::new(Box::new(std::io::sink()), Box::new(log.reopen().unwrap()));
        let started = Instant::now();
        let (_, opened) = resolve::run(
            &job,
            &github,
            &SystemClock,
            &Notifier::none(),
            false,
            &mut Outputs::default(),
            &mut printer,
        );
        let took = started.elapsed();
        assert_eq!(
            opened.len(),
            ticks,
            "every tick opened a record:\n{}",
            std::fs::read_to_string(log.path()).unwrap_or_default()
        );
        println!(
            "resolve of {ticks} ticks in one edit: {:.1} ms, {} requests",
            took.as_secs_f64() * 1000.0,
            github.requests_made()
        );
        drop(child.stdin.take());
        let _ = child.wait();
    }

    // apply with the real tofu: one stack of the quickstart, ticked at its hash.
    let tofu = workspace().join("scripts/install-tofu.sh");
    let out = Command::new(tofu).arg("v1.6.2").output().unwrap();
    let tofu_dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
        .parent()
        .unwrap()
        .to_owned();
    let (mut child, base, sha, _) = emulator(1);
    let checkout = tempfile::tempdir().unwrap();
    for entry in walkdir::WalkDir::new(workspace().join("examples/quickstart")) {
        let entry = entry.unwrap();
        let target = checkout.path().join(
            entry
                .path()
                .strip_prefix(workspace().join("examples/quickstart"))
                .unwrap(),
        );
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
    let temp = tempfile::tempdir().unwrap();
    let mut job = job(checkout.path(), &sha, 1, temp.path());
    job.tool_env.insert(
        "PATH".into(),
        format!("{}:/usr/bin:/bin", tofu_dir.display()),
    );
    job.issue = None;
    let github = HttpGitHub::new(Endpoints::at(&base).unwrap(), "t", REPO);
    let (hash, fingerprint) = {
        // The hash and the value fingerprint a scan would show: the fresh preview's.
        use sluiceway_tools::adapter::{Adapter, Asks, Context};
        let stack = sluiceway_core::stack::StackId::given("network");
        let runner = SystemRunner::default();
        let files = checkout.path().to_owned();
        let config = sluiceway_core::config::load(
            "sluiceway.yaml",
            &std::fs::read_to_string(files.join("sluiceway.yaml")).unwrap(),
        )
        .unwrap();
        let stacks = quickstart_stacks(&files, &config);
        let found = stacks.iter().find(|s| s.id == stack).unwrap();
        let adapter = Adapter::for_stack(found, &files).unwrap();
        let ctx = Context {
            runner: &runner,
            env: &job.tool_env,
            repository: REPO,
            scratch: temp.path(),
            time_limit: Duration::from_secs(600),
            deploy_limit: None,
            values: &NO_VALUES,
        };
        adapter.preparations()[0].run(&ctx).result.unwrap();
        let diff = adapter.preview(&ctx, Asks::default()).result.unwrap().diff;
        (diff.hash(), diff.fingerprint())
    };
    let record = github
        .create_deployment_record(&sluiceway_github::NewDeploymentRecord {
            sha: sha.clone(),
            task: "sluiceway:network".into(),
            environment: "sluiceway".into(),
            payload: serde_json::json!({"v": 1, "hash": hash, "fingerprint": fingerprint, "ticker": "alice", "run": "77"}),
            description: "bench".into(),
        })
        .unwrap();
    let inputs = Inputs::read(&BTreeMap::new()).unwrap();
    let runner = Timed {
        inner: SystemRunner::default(),
        spent: Mutex::new(Duration::ZERO),
    };
    let applying = Applying {
        job: &job,
        inputs: &inputs,
        runner: &runner,
        clock: &SystemClock,
        notifier: &Notifier::none(),
    };
    let started = Instant::now();
    let mut outputs = Outputs::default();
    let _ = apply::run(&applying, &github, record.id, &mut outputs, &mut sink());
    let took = started.elapsed();
    let tool = *runner.spent.lock().unwrap();
    println!(
        "apply of one OpenTofu stack ({}): {:.2} s in all, {:.2} s of it the tool's, {:.0} ms Sluiceway's own",
        outputs.get("outcome").unwrap_or("?"),
        took.as_secs_f64(),
        tool.as_secs_f64(),
        (took - tool).as_secs_f64() * 1000.0
    );
    drop(child.stdin.take());
    let _ = child.wait();
}

fn quickstart_stacks(
    root: &Path,
    config: &sluiceway_core::config::Config,
) -> Vec<sluiceway_core::stack::Stack> {
    let checkout = sluiceway::base::checkout::Checkout::new(root);
    let files = checkout.files().unwrap();
    sluiceway_core::discovery::discover(config, &files, &checkout)
        .unwrap()
        .stacks
}

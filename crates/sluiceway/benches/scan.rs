//! A full scan of many stacks, end to end through the scan mode, against the emulator over
//! HTTP. The tools are answered from our OpenTofu recordings (`sluiceway-tools`'s replay
//! library), so what is measured is Sluiceway: its own wall and CPU time, its peak memory,
//! and the GitHub requests it makes. The emulator runs in a child process (this binary
//! again, with `--emulator`), so the CPU and memory figures are the scan's alone.
//!
//! Four measurements:
//! - 500 and 50 stacks in sync (`no-changes`): the requests of an ordinary full scan do
//!   not grow with the stacks, and Sluiceway's own CPU per stack (the process's CPU
//!   less the replay's, the median of five later scans);
//! - 3 and 140 pending stacks (`new-stack`, all creates): every row, page and attribution
//!   (500 pending rows do not fit one issue body even at their shortest), and what a
//!   later scan of the same commit asks again (nothing per row);
//! - 50 and 100 pending stacks whose previews take 200 ms each, at a pool of 4 (the
//!   median of three scans): the pool's own wall, from the first tool run after the
//!   version check to the end of the last, against the ideal schedule (whole rounds of
//!   four 200 ms previews) and against the tools' measured time over four;
//! - a sharded scan (ADR 0037) of 2,000 stacks in sync over 8 shards, whose previews
//!   take 10 to 70 ms each by a fixed rule, at a pool of 4 in each shard: the slowest
//!   shard's wall against the ideal (every preview's time / 8 / 4), the join's own wall,
//!   CPU and requests, and the size of the body it wrote; once with no recorded times and
//!   once balanced by the times the first join kept. The shards run one after another in
//!   this process, each as its own job would run it.
//!
//! `cargo bench -p sluiceway --bench scan`; it prints one line per measurement.
//! `cargo bench -p sluiceway --bench scan -- sharded` runs the sharded one alone (and
//! likewise `in-sync`, `pending` and `pool`).

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark binary reports its figures"
)]

use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use github_emulator::{Act, Emulator, Options, World};
use sluiceway::base::printer::Printer;
use sluiceway::modes::inputs::Inputs;
use sluiceway::modes::job::{Job, SystemClock};
use sluiceway::modes::scan::{self, Surroundings, Target};
use sluiceway_core::runner::{Invocation, Outcome, Runner};
use sluiceway_github::{Endpoints, GitHub, HttpGitHub};
use sluiceway_tools::opentofu;
use sluiceway_tools::recording::Scenario;
use sluiceway_tools::replay::{Library, Placeholder};

const REPO: &str = "octo/infra";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The child: an emulator with the repository, a commit and the workflow token; prints
/// its address and the commit, and serves until its stdin closes.
fn serve_emulator() {
    let emulator = Emulator::start(
        World::new("2026-03-01T09:00:00Z".parse().unwrap()),
        Options::default(),
    )
    .unwrap();
    emulator
        .act(Act::AddRepo {
            repo: REPO.into(),
            default_branch: "main".into(),
        })
        .unwrap();
    emulator
        .act(Act::AddWorkflow {
            repo: REPO.into(),
            file: "sluiceway.yml".into(),
        })
        .unwrap();
    emulator
        .act(Act::AddToken {
            token: "t".into(),
            login: "github-actions[bot]".into(),
            permissions: None,
        })
        .unwrap();
    let sha = emulator
        .act(Act::Push {
            repo: REPO.into(),
            branch: "main".into(),
            author: Some("alice".into()),
            message: "the stacks".into(),
            files: Vec::new(),
        })
        .unwrap();
    println!("{} {}", emulator.base_url(), sha.as_str().unwrap());
    let _ = std::io::stdout().flush();
    let mut rest = String::new();
    let _ = std::io::stdin().read_line(&mut rest);
}

/// `stacks` root modules, each a `lab` directory in the workspace dev, as our recordings
/// were made.
fn repository(root: &Path, stacks: usize) {
    let mut config = String::from("stacks:\n");
    for i in 0..stacks {
        let dir = format!("stacks/s{i:04}/lab");
        std::fs::create_dir_all(root.join(&dir)).unwrap();
        std::fs::write(
            root.join(&dir).join("main.tf"),
            "terraform {\n  backend \"local\" {}\n}\n",
        )
        .unwrap();
        std::fs::write(root.join(&dir).join("dev.tfvars"), "env = \"dev\"\n").unwrap();
        config.push_str(&format!(
            "  - path: {dir}\n    name: dev\n    tool: opentofu\n    options:\n      workspace: dev\n      varFiles: [dev.tfvars]\n"
        ));
    }
    std::fs::write(root.join("sluiceway.yaml"), config).unwrap();
}

/// The replay, with every plan taking `delay` as a slower tool would, or, with `varied`,
/// its stack's own fixed time.
struct Recorded {
    library: Library,
    delay: Duration,
    varied: bool,
    /// The CPU time the replay itself spent, which is the tools' and not Sluiceway's.
    replay_cpu: AtomicU64,
    /// From the start of the first tool run after the version check to the end of the
    /// last: the pool's own wall.
    pool: Mutex<Option<(Instant, Instant)>>,
    /// The wall time of every tool run in the pool, added up: the tools' own time.
    tool_time: AtomicU64,
}

impl Recorded {
    fn replay_cpu(&self) -> Duration {
        Duration::from_nanos(self.replay_cpu.load(Ordering::Relaxed))
    }

    fn pool_wall(&self) -> Duration {
        self.pool
            .lock()
            .unwrap()
            .map_or(Duration::ZERO, |(first, last)| last - first)
    }

    fn tool_time(&self) -> Duration {
        Duration::from_nanos(self.tool_time.load(Ordering::Relaxed))
    }

    fn restart(&self) {
        self.replay_cpu.store(0, Ordering::Relaxed);
        self.tool_time.store(0, Ordering::Relaxed);
        *self.pool.lock().unwrap() = None;
    }
}

/// This thread's CPU time, to the nanosecond.
fn thread_cpu() -> Duration {
    let spent = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(spent.tv_sec as u64, spent.tv_nsec as u32)
}

impl Runner for Recorded {
    fn run(&self, invocation: &Invocation) -> Outcome {
        let in_pool = invocation.argv.get(1).is_some_and(|a| a != "version");
        let started = Instant::now();
        if invocation.argv.get(1).is_some_and(|a| a == "plan") {
            let delay = if self.varied {
                stack_number(&invocation.cwd).map_or(self.delay, preview_time)
            } else {
                self.delay
            };
            std::thread::sleep(delay);
        }
        let cpu_before = thread_cpu();
        let outcome = self.library.run(invocation);
        let spent = thread_cpu().saturating_sub(cpu_before);
        self.replay_cpu
            .fetch_add(spent.as_nanos() as u64, Ordering::Relaxed);
        if in_pool {
            let ended = Instant::now();
            self.tool_time
                .fetch_add((ended - started).as_nanos() as u64, Ordering::Relaxed);
            let mut pool = self.pool.lock().unwrap();
            *pool = Some(pool.map_or((started, ended), |(first, last)| {
                (first.min(started), last.max(ended))
            }));
        }
        outcome
    }
}

/// The number of the stack whose folder holds `cwd` (`stacks/s0042/lab`).
fn stack_number(cwd: &Path) -> Option<usize> {
    cwd.components()
        .filter_map(|c| c.as_os_str().to_str()?.strip_prefix('s')?.parse().ok())
        .next_back()
}

/// Stack `i`'s preview time in the sharded measurement: 10 to 70 ms by a fixed rule.
fn preview_time(i: usize) -> Duration {
    Duration::from_millis(10 + ((i * 7919) % 13) as u64 * 5)
}

fn recorded(scenarios: &[&str], delay: Duration) -> Recorded {
    let dir = workspace().join("fixtures/opentofu/v1.6.2");
    Recorded {
        library: Library::new(
            scenarios
                .iter()
                .map(|s| Scenario::load(&dir.join(s)).unwrap())
                .collect(),
            vec![Placeholder {
                token: "{plan}",
                file_name: opentofu::PLAN_FILE,
            }],
            vec![opentofu::WORKSPACE_VAR],
        ),
        delay,
        varied: false,
        replay_cpu: AtomicU64::new(0),
        pool: Mutex::new(None),
        tool_time: AtomicU64::new(0),
    }
}

/// This process's CPU time (all threads), to the nanosecond.
fn cpu() -> Duration {
    let spent = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    Duration::new(spent.tv_sec as u64, spent.tv_nsec as u32)
}

/// This process's peak resident memory, in MiB.
fn peak_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

struct Measured {
    wall: Duration,
    /// Sluiceway's own CPU: the process's, less what the replay spent.
    cpu: Duration,
    requests: u64,
    /// The pool's own wall, as the tools saw it.
    pool: Duration,
    /// The tools' own time in the pool, every run added up.
    tool_time: Duration,
}

fn measure(
    base: &str,
    sha: &str,
    stacks: usize,
    runner: &Recorded,
    concurrency: Option<usize>,
    run: u64,
) -> Measured {
    runner.restart();
    let checkout = tempfile::tempdir().unwrap();
    repository(checkout.path(), stacks);
    let temp = tempfile::tempdir().unwrap();
    let job = scheduled_job(checkout.path(), temp.path(), sha, run);
    let mut inputs = Inputs::read(&BTreeMap::new()).unwrap();
    inputs.concurrency = concurrency;
    let github = HttpGitHub::new(Endpoints::at(base).unwrap(), "t", REPO);
    let surroundings = Surroundings {
        job: &job,
        inputs: &inputs,
        runner,
        clock: &SystemClock,
        pause: &|_| {},
        cores: std::thread::available_parallelism().ok().map(usize::from),
        progress: &sluiceway::base::printer::Quiet,
        notifier: &sluiceway::modes::notify::Notifier::none(),
    };
    let log = tempfile::NamedTempFile::new().unwrap();
    let mut printer = Printer::new(Box::new(std::io::sink()), Box::new(log.reopen().unwrap()));
    let started = Instant::now();
    let cpu_before = cpu();
    let (outcome, _) = scan::run(&surroundings, Target::GitHub(&github), &mut printer);
    let measured = Measured {
        wall: started.elapsed(),
        cpu: (cpu() - cpu_before).saturating_sub(runner.replay_cpu()),
        requests: github.requests_made(),
        pool: runner.pool_wall(),
        tool_time: runner.tool_time(),
    };
    assert_eq!(
        outcome,
        sluiceway::Outcome::Done,
        "the scan ended red:\n{}",
        std::fs::read_to_string(log.path()).unwrap_or_default()
    );
    measured
}

/// A scheduled job of run `run` at `sha`, its checkout and runner's folder given; its
/// step outputs go to `output.txt` in the runner's folder.
fn scheduled_job(checkout: &Path, temp: &Path, sha: &str, run: u64) -> Job {
    let run = run.to_string();
    let workflow = format!("{REPO}/.github/workflows/sluiceway.yml@refs/heads/main");
    let output = temp.join("output.txt");
    let env: BTreeMap<String, String> = [
        ("GITHUB_EVENT_NAME", "schedule"),
        ("GITHUB_REPOSITORY", REPO),
        ("GITHUB_SHA", sha),
        ("GITHUB_RUN_ID", run.as_str()),
        ("GITHUB_WORKFLOW_REF", workflow.as_str()),
        ("GITHUB_WORKSPACE", checkout.to_str().unwrap()),
        ("GITHUB_OUTPUT", output.to_str().unwrap()),
        ("RUNNER_TEMP", temp.to_str().unwrap()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    Job::from_env(&env, None)
}

/// One sharded scan, step by step as the workflow's jobs run them.
struct Sharded {
    /// Each shard's stacks, as the plan split them.
    plan: Vec<Vec<usize>>,
    /// Each shard's own wall time.
    shards: Vec<Duration>,
    join: Measured,
    /// The size of the dashboard the join wrote, in GitHub's characters.
    body_units: usize,
}

fn sharded_scan(
    base: &str,
    sha: &str,
    checkout: &Path,
    count: u32,
    runner: &Recorded,
    run: u64,
) -> Sharded {
    use sluiceway::modes::scan::sharded;
    let mut inputs = Inputs::read(&BTreeMap::new()).unwrap();
    inputs.concurrency = Some(4);
    inputs.timings_file = Some("timings.json".to_owned());
    let notifier = sluiceway::modes::notify::Notifier::none();
    let step =
        |job: &Job, f: &mut dyn FnMut(&Surroundings<'_>, &mut Printer) -> sluiceway::Outcome| {
            let surroundings = Surroundings {
                job,
                inputs: &inputs,
                runner,
                clock: &SystemClock,
                pause: &|_| {},
                cores: Some(4),
                progress: &sluiceway::base::printer::Quiet,
                notifier: &notifier,
            };
            let log = tempfile::NamedTempFile::new().unwrap();
            let mut printer =
                Printer::new(Box::new(std::io::sink()), Box::new(log.reopen().unwrap()));
            let outcome = f(&surroundings, &mut printer);
            assert_eq!(
                outcome,
                sluiceway::Outcome::Done,
                "a step ended red:\n{}",
                std::fs::read_to_string(log.path()).unwrap_or_default()
            );
        };
    let output = |temp: &Path, name: &str| -> String {
        std::fs::read_to_string(temp.join("output.txt"))
            .unwrap()
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{name}=")).map(str::to_owned))
            .unwrap()
    };

    let planning = tempfile::tempdir().unwrap();
    let job = scheduled_job(checkout, planning.path(), sha, run);
    let github = HttpGitHub::new(Endpoints::at(base).unwrap(), "t", REPO);
    step(&job, &mut |s, p| sharded::plan(s, &github, count, p));
    let plan_text = output(planning.path(), "shard-plan");
    let plan: sharded::split::ShardPlan = serde_json::from_str(&plan_text).unwrap();

    let partials = tempfile::tempdir().unwrap();
    let mut shards = Vec::new();
    for index in 1..=count {
        let temp = tempfile::tempdir().unwrap();
        let job = scheduled_job(checkout, temp.path(), sha, run);
        let started = Instant::now();
        step(&job, &mut |s, p| sharded::shard(s, index, &plan_text, p));
        shards.push(started.elapsed());
        let name = sharded::partial::file_name(index);
        std::fs::copy(temp.path().join(&name), partials.path().join(&name)).unwrap();
    }

    let joining = tempfile::tempdir().unwrap();
    let job = scheduled_job(checkout, joining.path(), sha, run);
    let github = HttpGitHub::new(Endpoints::at(base).unwrap(), "t", REPO);
    let folder = partials.path().to_str().unwrap().to_owned();
    runner.restart();
    let started = Instant::now();
    let cpu_before = cpu();
    step(&job, &mut |s, p| {
        sharded::join(s, &github, &plan_text, &folder, p).0
    });
    let join = Measured {
        wall: started.elapsed(),
        cpu: (cpu() - cpu_before).saturating_sub(runner.replay_cpu()),
        requests: github.requests_made(),
        pool: Duration::ZERO,
        tool_time: Duration::ZERO,
    };
    let dashboard = github.open_issues_labelled("sluiceway").unwrap()[0].number;
    let body = github.read_body(dashboard, None).unwrap().body;
    assert_eq!(
        sluiceway_dashboard::reader::read(&body).rows.len(),
        plan.shards.iter().map(Vec::len).sum::<usize>(),
        "every stack has its row"
    );
    Sharded {
        body_units: body.encode_utf16().count(),
        plan: plan
            .shards
            .iter()
            .map(|shard| {
                shard
                    .iter()
                    .filter_map(|id| stack_number(Path::new(id.as_str())))
                    .collect()
            })
            .collect(),
        shards,
        join,
    }
}

/// The sharded measurement: 2,000 stacks over 8 shards, before and after the times. The
/// dashboard holds them because a calm in-sync row is one line of a list (ADR 0039).
fn measure_sharded(emulator: &dyn Fn() -> (std::process::Child, String, String)) {
    const STACKS: usize = 2_000;
    const SHARDS: u32 = 8;
    let (mut child, base, sha) = emulator();
    let mut runner = recorded(&["version", "no-changes", "new-stack"], Duration::ZERO);
    runner.varied = true;
    let checkout = tempfile::tempdir().unwrap();
    repository(checkout.path(), STACKS);
    let total: Duration = (0..STACKS).map(preview_time).sum();
    let ideal = total / SHARDS / 4;
    for (label, run) in [
        ("no recorded times", 4242),
        ("balanced by the first join's times", 4243),
    ] {
        let measured = sharded_scan(&base, &sha, checkout.path(), SHARDS, &runner, run);
        let slowest = measured.shards.iter().max().copied().unwrap_or_default();
        let loads: Vec<Duration> = measured
            .plan
            .iter()
            .map(|shard| shard.iter().map(|i| preview_time(*i)).sum())
            .collect();
        let heaviest = loads.iter().max().copied().unwrap_or_default();
        println!(
            "{STACKS} stacks over {SHARDS} shards, {label}: slowest shard {:.2} s wall against an ideal {:.2} s (ratio {:.3}); heaviest shard holds {:.3}× an even share of the preview time; the join {:.2} s wall, {:.0} ms CPU, {} requests, a body of {} characters",
            slowest.as_secs_f64(),
            ideal.as_secs_f64(),
            slowest.as_secs_f64() / ideal.as_secs_f64(),
            heaviest.as_secs_f64() / (total / SHARDS).as_secs_f64(),
            measured.join.wall.as_secs_f64(),
            measured.join.cpu.as_secs_f64() * 1000.0,
            measured.join.requests,
            measured.body_units,
        );
    }
    drop(child.stdin.take());
    let _ = child.wait();
}

fn main() {
    if std::env::args().any(|a| a == "--emulator") {
        serve_emulator();
        return;
    }
    // One emulator per measurement, so each starts without a dashboard.
    let emulator = || {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .arg("--emulator")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let (base, sha) = line.trim().split_once(' ').unwrap();
        (child, base.to_owned(), sha.to_owned())
    };
    // `-- in-sync`, `-- pending`, `-- pool` or `-- sharded` runs that measurement alone.
    let named: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let wanted = |name: &str| named.is_empty() || named.iter().any(|n| n == name);
    let instant = |scenario| recorded(&["version", scenario, "new-stack"], Duration::ZERO);

    // 500 pending rows cannot fit one issue body (65,536 characters) even at their
    // shortest; 140 do (each row's marker carries its `drawn` digest since ADR 0029).
    // A later full scan of the same commit with nothing new makes at most 8 requests,
    // pending rows or not (their pages and attribution are the ones the live rows
    // show).
    for (label, scenario, stacks) in [
        ("in sync", "no-changes", 500),
        ("in sync", "no-changes", 50),
        ("pending", "new-stack", 3),
        ("pending", "new-stack", 140),
    ] {
        if !wanted(if label == "in sync" {
            "in-sync"
        } else {
            "pending"
        }) {
            continue;
        }
        let (mut child, base, sha) = emulator();
        let runner = instant(scenario);
        let first = measure(&base, &sha, stacks, &runner, None, 4242);
        // Later scans of the same commit, five times: the median of Sluiceway's own CPU.
        let mut later: Vec<Measured> = (0..5)
            .map(|n| measure(&base, &sha, stacks, &runner, None, 4243 + n))
            .collect();
        later.sort_by_key(|m| m.cpu);
        let later = &later[2];
        let per_stack = |m: &Measured| m.cpu.as_secs_f64() * 1000.0 / stacks as f64;
        println!(
            "{stacks} stacks {label}: first scan {:.2} s wall, {:.3} ms own CPU per stack, {} requests; later full scans (median of 5) {:.2} s wall, {:.3} ms own CPU per stack, {} requests",
            first.wall.as_secs_f64(),
            per_stack(&first),
            first.requests,
            later.wall.as_secs_f64(),
            per_stack(later),
            later.requests,
        );
        drop(child.stdin.take());
        let _ = child.wait();
    }
    for stacks in [50, 100] {
        if !wanted("pool") {
            continue;
        }
        let (mut child, base, sha) = emulator();
        let runner = recorded(&["version", "new-stack"], Duration::from_millis(200));
        // Three scans; the one with the median pool wall.
        let mut runs: Vec<Measured> = (0..3)
            .map(|n| measure(&base, &sha, stacks, &runner, Some(4), 4242 + n))
            .collect();
        runs.sort_by_key(|m| m.pool);
        let slow = &runs[1];
        // Equal previews four at a time: whole rounds of 200 ms.
        let ideal = Duration::from_millis(200) * stacks.div_ceil(4) as u32;
        // The tools' own time includes the replay's reading and writing, which a
        // 200 ms sleep leaves out; the schedule of that time is what the pool controls.
        let tools = slow.tool_time / 4;
        println!(
            "{stacks} stacks at 200 ms a preview, pool 4: the pool {:.3} s against an ideal {:.2} s of sleeps alone (ratio {:.4}) and {:.3} s of the tools' measured time (ratio {:.4}); the whole scan {:.2} s",
            slow.pool.as_secs_f64(),
            ideal.as_secs_f64(),
            slow.pool.as_secs_f64() / ideal.as_secs_f64(),
            tools.as_secs_f64(),
            slow.pool.as_secs_f64() / tools.as_secs_f64(),
            slow.wall.as_secs_f64(),
        );
        drop(child.stdin.take());
        let _ = child.wait();
    }
    if wanted("sharded") {
        measure_sharded(&emulator);
    }
    println!(
        "peak resident memory of the scanning process: {:.1} MiB",
        peak_mib()
    );
}

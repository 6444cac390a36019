//! A scan with the real OpenTofu beside a plain parallel loop of the same tool calls.
//!
//! Forty small root modules (local state, the built-in `terraform_data` resource, so no
//! provider is downloaded) are scanned by the release `sluiceway scan --local`, and by
//! `xargs -P <cores>` running `tofu init`, `tofu plan -refresh=false -out` and `tofu show
//! -json` in each folder: the least any tool-driving scan could spend, and the comparison
//! issue 39 holds the scan to (1.03x at most). A second loop passes the very flags the
//! scan passes (`-json` to the plan too), so the two differ only in what Sluiceway does
//! around the tool. Every run starts from folders that were never initialised. Each is
//! run eleven times, in turn; the medians of wall time and of the children's CPU time are
//! compared, and the best wall times beside them.
//!
//! `cargo bench -p sluiceway --bench real_tofu`; it prints one line per measurement.
//! Installs OpenTofu into the cache if needed (scripts/install-tofu.sh v1.6.2).

#![allow(
    clippy::print_stdout,
    reason = "a benchmark binary reports its figures"
)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const MODULES: usize = 40;
const RUNS: usize = 11;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The folder holding the pinned `tofu`.
fn tofu_dir() -> PathBuf {
    let out = Command::new(workspace().join("scripts/install-tofu.sh"))
        .arg("v1.6.2")
        .output()
        .expect("scripts/install-tofu.sh runs");
    assert!(out.status.success(), "OpenTofu could not be installed");
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
        .parent()
        .expect("the binary's folder")
        .to_owned()
}

/// A repository of root modules, each with its own range so each plan differs.
fn repository(root: &Path) {
    let mut config = String::from("stacks:\n");
    for m in 1..=MODULES {
        let dir = root.join(format!("m{m:02}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("main.tf"),
            format!(
                r#"terraform {{
  backend "local" {{}}
}}

variable "cidr" {{
  type    = string
  default = "10.{m}.0.0/16"
}}

resource "terraform_data" "vpc" {{
  input = {{ cidr = var.cidr }}
}}

resource "terraform_data" "subnets" {{
  input            = [cidrsubnet(var.cidr, 8, 1), cidrsubnet(var.cidr, 8, 2)]
  triggers_replace = [var.cidr]
}}
"#
            ),
        )
        .unwrap();
        let _ = writeln!(config, "  - path: m{m:02}\n    tool: opentofu");
    }
    std::fs::write(root.join("sluiceway.yaml"), config).unwrap();
}

/// Forgets every init and plan, so the next run starts where a fresh checkout does.
fn clean(root: &Path) {
    for m in 1..=MODULES {
        let dir = root.join(format!("m{m:02}"));
        let _ = std::fs::remove_dir_all(dir.join(".terraform"));
        for file in [".terraform.lock.hcl", "tfplan"] {
            let _ = std::fs::remove_file(dir.join(file));
        }
    }
}

/// CPU time of every child waited for so far, from /proc (in clock ticks of 10 ms).
fn children_cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command's closing parenthesis; cutime and cstime are the
    // 14th and 15th of them.
    let rest = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let ticks: u64 = rest
        .split_whitespace()
        .skip(13)
        .take(2)
        .filter_map(|f| f.parse::<u64>().ok())
        .sum();
    Duration::from_millis(ticks * 10)
}

/// Runs a command to its end, its wall time and its CPU time.
fn measure(command: &mut Command) -> (Duration, Duration) {
    let cpu = children_cpu();
    let started = Instant::now();
    let out = command.output().expect("the command starts");
    let wall = started.elapsed();
    assert!(
        out.status.success(),
        "{:?} failed:\n{}\n{}",
        command,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (wall, children_cpu() - cpu)
}

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values[values.len() / 2]
}

fn main() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let tofu = tofu_dir();
    let path = format!(
        "{}:{}",
        tofu.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let repo = tempfile::tempdir().unwrap();
    repository(repo.path());
    let out = tempfile::tempdir().unwrap();
    let temp = tempfile::tempdir().unwrap();
    let with_env = |command: &mut Command| {
        command
            .env("PATH", &path)
            .env_remove("TF_CLI_CONFIG_FILE")
            .env_remove("TF_PLUGIN_CACHE_DIR")
            .env("RUNNER_TEMP", temp.path());
    };
    let plain_step = "cd \"$0\" && tofu init -input=false -no-color >/dev/null \
        && tofu plan -input=false -no-color -refresh=false -out=tfplan >/dev/null \
        && tofu show -json tfplan >/dev/null";
    let same_step = "cd \"$0\" && tofu init -input=false -no-color >/dev/null \
        && tofu plan -input=false -no-color -refresh=false -json -out=tfplan >/dev/null \
        && tofu show -json -no-color tfplan >/dev/null";
    let xargs = |step: &str| {
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(format!("ls -d m* | xargs -P {cores} -n 1 sh -c '{step}'"))
            .current_dir(repo.path());
        with_env(&mut command);
        command
    };
    let (mut scans, mut plains, mut sames) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..RUNS {
        clean(repo.path());
        let mut scan = Command::new(env!("CARGO_BIN_EXE_sluiceway"));
        scan.args(["scan", "--local", "--repo"])
            .arg(repo.path())
            .arg("--out")
            .arg(out.path());
        with_env(&mut scan);
        scans.push(measure(&mut scan));
        clean(repo.path());
        plains.push(measure(&mut xargs(plain_step)));
        clean(repo.path());
        sames.push(measure(&mut xargs(same_step)));
    }
    let report = |name: &str, runs: &[(Duration, Duration)]| {
        let wall = median(runs.iter().map(|r| r.0).collect());
        let cpu = median(runs.iter().map(|r| r.1).collect());
        let best = runs.iter().map(|r| r.0).min().unwrap_or_default();
        println!(
            "{name}: {MODULES} root modules, median of {RUNS}: {:.3} s wall, {:.2} s CPU; best {:.3} s wall",
            wall.as_secs_f64(),
            cpu.as_secs_f64(),
            best.as_secs_f64()
        );
        (wall, cpu, best)
    };
    let scan = report("sluiceway scan --local", &scans);
    for (name, runs) in [
        (format!("xargs -P {cores} loop (issue 39's)"), &plains),
        (
            format!("xargs -P {cores} loop with the scan's flags"),
            &sames,
        ),
    ] {
        let (wall, cpu, best) = report(&name, runs);
        println!(
            "  the scan against it: {:.3}x wall (best against best {:.3}x), {:.3}x CPU",
            scan.0.as_secs_f64() / wall.as_secs_f64(),
            scan.2.as_secs_f64() / best.as_secs_f64(),
            scan.1.as_secs_f64() / cpu.as_secs_f64()
        );
    }
}

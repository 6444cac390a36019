//! Decision 0090's live drill, against the real local control plane: while a writer
//! keeps annotating the Deployment, the recorder still saves a recording that raced
//! nothing; and when the cluster never holds still (the writer on a fast link, kubectl
//! on a slow one, so every diff's read and dry run straddle a write) the scenario fails
//! with the message and nothing is saved.
//!
//! Needs the control plane built by scripts/build-control-plane.sh and kubectl installed
//! by scripts/install-kubectl.sh (CI does both); without them it says so and checks
//! nothing.

#![allow(
    clippy::print_stderr,
    reason = "the drill reports what it saw and what it skipped"
)]

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;
use std::time::Duration;

use sluiceway_fixtures::control_plane::{ControlPlane, cached_pair};
use sluiceway_fixtures::race::raced_write;
use sluiceway_fixtures::recorder::{Recorder, RecorderError};
use sluiceway_fixtures::scenario::{NAMESPACE, Step, kubectl_scenarios};
use sluiceway_tools::process::SystemRunner;

/// Annotates the scenario's Deployment in a loop, on threads of its own, until stopped.
struct Writer {
    stop: Arc<AtomicBool>,
    count: Arc<AtomicUsize>,
    threads: Vec<thread::JoinHandle<()>>,
}

impl Writer {
    fn start(kubectl: &Path, kubeconfig: &Path, threads: usize) -> Writer {
        let stop = Arc::new(AtomicBool::new(false));
        let count = Arc::new(AtomicUsize::new(0));
        let threads = (0..threads)
            .map(|n| {
                let (stop, count) = (stop.clone(), count.clone());
                let (kubectl, kubeconfig) = (kubectl.to_owned(), kubeconfig.to_owned());
                thread::spawn(move || {
                    let mut writes = 0;
                    while !stop.load(Ordering::Relaxed) {
                        let ok = Command::new(&kubectl)
                            .env("KUBECONFIG", &kubeconfig)
                            .args([
                                "annotate",
                                "deployment",
                                "web",
                                &format!("--namespace={NAMESPACE}"),
                                "--overwrite",
                            ])
                            .arg(format!("drill.sluiceway.dev/writer-{n}={writes}"))
                            .stdout(Stdio::null())
                            .stderr(Stdio::null())
                            .status()
                            .is_ok_and(|s| s.success());
                        writes += 1;
                        if ok {
                            count.fetch_add(1, Ordering::Relaxed);
                        } else {
                            thread::sleep(Duration::from_millis(50));
                        }
                    }
                })
            })
            .collect();
        Writer {
            stop,
            count,
            threads,
        }
    }

    fn writes(&self) -> usize {
        self.count.load(Ordering::Relaxed)
    }

    fn stop(self) -> usize {
        self.stop.store(true, Ordering::Relaxed);
        for thread in self.threads {
            let _ = thread.join();
        }
        self.count.load(Ordering::Relaxed)
    }
}

/// A loopback TCP relay that holds every chunk from the client for `delay` before
/// passing it on: a slow link, with TLS untouched end to end.
fn slow_link(target: u16, delay: Duration) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    thread::spawn(move || {
        for client in listener.incoming().flatten() {
            let Ok(server) = TcpStream::connect(("127.0.0.1", target)) else {
                continue;
            };
            let relay = |mut from: TcpStream, mut to: TcpStream, delay: Duration| {
                thread::spawn(move || {
                    let mut buffer = [0u8; 16 * 1024];
                    while let Ok(n) = from.read(&mut buffer) {
                        if n == 0 {
                            break;
                        }
                        thread::sleep(delay);
                        if to.write_all(&buffer[..n]).is_err() {
                            break;
                        }
                    }
                    let _ = to.shutdown(Shutdown::Write);
                })
            };
            relay(
                client.try_clone().unwrap(),
                server.try_clone().unwrap(),
                delay,
            );
            relay(server, client, Duration::ZERO);
        }
    });
    port
}

#[test]
fn the_recorder_holds_a_race_off_and_gives_up_on_a_cluster_that_never_holds_still() {
    let Some((kubectl, binaries)) = cached_pair("v1.34.5") else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must build the control plane and install kubectl"
        );
        eprintln!(
            "notice: the control plane or kubectl v1.34.5 is not in the cache; the live drill did not run"
        );
        return;
    };
    let plane = ControlPlane::start(&binaries, &kubectl).unwrap();
    let example = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/homelab/k8s")
        .canonicalize()
        .unwrap();
    let work = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let env = |kubeconfig: &Path| {
        BTreeMap::from([
            (
                "PATH".to_owned(),
                format!("{}:/usr/bin:/bin", kubectl.parent().unwrap().display()),
            ),
            ("KUBECONFIG".to_owned(), kubeconfig.display().to_string()),
            ("HOME".to_owned(), work.path().display().to_string()),
        ])
    };
    let runner = SystemRunner::default();

    let namespace = format!("--namespace={NAMESPACE}");
    let set = work.path().join("web.yaml");
    std::fs::write(
        &set,
        sluiceway_tools::kubernetes::rendered_set::plain_manifests(&example.join("web"), false)
            .unwrap(),
    )
    .unwrap();
    let kubectl_ok = |args: &[&str]| {
        Command::new(&kubectl)
            .env("KUBECONFIG", plane.kubeconfig())
            .args(args)
            .stdout(Stdio::null())
            .status()
            .unwrap()
            .success()
    };
    assert!(kubectl_ok(&["create", "namespace", NAMESPACE]));
    assert!(kubectl_ok(&[
        "apply",
        "--server-side",
        &namespace,
        "-f",
        set.to_str().unwrap()
    ]));

    // The scenario's recorded diff alone, on the deployed web: bundle, then record.
    let mut scenario = kubectl_scenarios()
        .into_iter()
        .find(|s| s.name == "no-changes")
        .unwrap();
    scenario
        .steps
        .retain(|s| matches!(s, Step::Record(_) | Step::Bundle { .. }));
    let api = plane.kubeconfig().to_owned();
    let through = |delay: Duration, name: &str| {
        let config = std::fs::read_to_string(&api).unwrap();
        let port: u16 = config
            .split("https://127.0.0.1:")
            .nth(1)
            .unwrap()
            .split('\n')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let slow = slow_link(port, delay);
        let path = work.path().join(format!("{name}-kubeconfig"));
        std::fs::write(
            &path,
            config.replace(&format!("127.0.0.1:{port}"), &format!("127.0.0.1:{slow}")),
        )
        .unwrap();
        path
    };

    // A writer that keeps writing: now and then a diff races, is taken again, and what
    // is saved raced nothing.
    let writer = Writer::start(&kubectl, plane.kubeconfig(), 3);
    while writer.writes() == 0 {
        thread::sleep(Duration::from_millis(100));
    }
    let steady = plane.kubeconfig().to_owned();
    let mut runs = Vec::new();
    for attempt in 0..10 {
        let recorder = Recorder {
            runner: &runner,
            env: env(&steady),
            example: example.clone(),
            work: work.path().join(format!("steady-{attempt}")),
            out: out.path().join(format!("steady-{attempt}")),
            cli_version: "v1.34.5".into(),
        };
        let retaken = recorder.record(&scenario).unwrap();
        let saved = std::fs::read_to_string(
            out.path()
                .join(format!("steady-{attempt}/no-changes/diff.stdout")),
        )
        .unwrap();
        assert!(!raced_write(&saved), "a saved recording raced");
        runs.push(retaken.first().map_or(1, |(_, n)| *n));
    }
    let writes = writer.stop();
    eprintln!("drill: {writes} writes; runs per recording of 10: {runs:?}");

    // On a slow link every read and dry run straddle a write: the cluster never holds
    // still, the scenario fails with the message, and nothing is saved.
    let restless = through(Duration::from_millis(300), "restless");
    let recorder = Recorder {
        runner: &runner,
        env: env(&restless),
        example: example.clone(),
        work: work.path().join("restless"),
        out: out.path().join("restless"),
        cli_version: "v1.34.5".into(),
    };
    let writer = Writer::start(&kubectl, plane.kubeconfig(), 3);
    let error = recorder.record(&scenario).unwrap_err();
    writer.stop();
    assert!(
        matches!(error, RecorderError::NeverHeldStill { .. }),
        "{error}"
    );
    assert!(error.to_string().contains("The cluster never held still"));
    assert!(
        !out.path().join("restless/no-changes").exists(),
        "nothing of the scenario is saved"
    );

    let pids = plane.pids();
    drop(plane);
    for pid in pids {
        assert!(
            !Path::new(&format!("/proc/{pid}")).exists(),
            "process {pid} outlived the control plane"
        );
    }
}

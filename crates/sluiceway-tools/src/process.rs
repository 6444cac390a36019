//! The one process runner: argv without a shell, a whole environment, a time limit, and
//! a cap on what it keeps of each stream.

use std::fs::OpenOptions;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, kill_process_group};
use sluiceway_core::runner::{Invocation, Outcome, Runner, Stream};

/// How much of one stream a run keeps in memory: 128 MiB.
pub const STREAM_CAP: usize = 128 * 1024 * 1024;

/// How long a tool gets between SIGINT and SIGKILL.
pub const GRACE: Duration = Duration::from_secs(5);

/// How long the runner waits for the pipes to close after the process ended; a
/// grandchild that keeps them open is not waited for.
const PIPE_GRACE: Duration = Duration::from_secs(1);

/// Runs real processes. Each run's child leads its own process group, so a time limit
/// stops the tool and everything it started.
#[derive(Debug, Clone)]
pub struct SystemRunner {
    cap: usize,
    grace: Duration,
}

impl Default for SystemRunner {
    fn default() -> Self {
        SystemRunner {
            cap: STREAM_CAP,
            grace: GRACE,
        }
    }
}

impl SystemRunner {
    /// A runner with a smaller cap and grace, for tests of the limits themselves.
    pub fn with_limits(cap: usize, grace: Duration) -> SystemRunner {
        SystemRunner { cap, grace }
    }
}

struct Captured {
    bytes: Vec<u8>,
    cut: bool,
}

/// Reads a stream to its end, keeping at most `cap` bytes; the rest is read and dropped
/// so the child never blocks on a full pipe.
fn drain(mut stream: impl Read + Send + 'static, cap: usize) -> mpsc::Receiver<Captured> {
    let (send, receive) = mpsc::channel();
    thread::spawn(move || {
        let mut kept = Vec::new();
        let mut cut = false;
        let mut buffer = vec![0u8; 64 * 1024];
        loop {
            match stream.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let room = cap.saturating_sub(kept.len());
                    kept.extend_from_slice(&buffer[..n.min(room)]);
                    cut |= n > room;
                }
            }
        }
        let _ = send.send(Captured { bytes: kept, cut });
    });
    receive
}

impl Runner for SystemRunner {
    fn run(&self, invocation: &Invocation) -> Outcome {
        let Some((program, args)) = invocation.argv.split_first() else {
            return Outcome::NotStarted {
                why: "no program was named".to_owned(),
            };
        };
        let stdout_target = match &invocation.stdout_file {
            Some(path) => match OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .mode(0o600)
                .open(path)
            {
                Ok(file) => Stdio::from(file),
                Err(e) => {
                    return Outcome::NotStarted {
                        why: format!("{} could not be written: {}", path.display(), e.kind()),
                    };
                }
            },
            None => Stdio::piped(),
        };
        let spawned = Command::new(program)
            .args(args)
            .current_dir(&invocation.cwd)
            .env_clear()
            .envs(&invocation.env)
            .stdin(Stdio::null())
            .stdout(stdout_target)
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn();
        let mut child = match spawned {
            Ok(child) => child,
            Err(e) => {
                return Outcome::NotStarted {
                    why: format!("{program} could not be started: {}", e.kind()),
                };
            }
        };
        let stdout = match child.stdout.take() {
            Some(pipe) => drain(pipe, self.cap),
            None => {
                let (send, receive) = mpsc::channel();
                let _ = send.send(Captured {
                    bytes: Vec::new(),
                    cut: false,
                });
                receive
            }
        };
        let stderr = drain(child.stderr.take().expect("stderr is piped"), self.cap);
        let grace = invocation.grace.unwrap_or(self.grace);
        let (code, timed_out) = self.wait(&mut child, invocation.time_limit, grace);
        let collect = |receiver: mpsc::Receiver<Captured>| {
            receiver.recv_timeout(PIPE_GRACE).unwrap_or(Captured {
                bytes: Vec::new(),
                cut: false,
            })
        };
        let (stdout, stderr) = (collect(stdout), collect(stderr));
        if timed_out {
            return Outcome::TimedOut {
                stdout: stdout.bytes,
                stderr: stderr.bytes,
            };
        }
        let cut = if stdout.cut {
            Some(Stream::Stdout)
        } else if stderr.cut {
            Some(Stream::Stderr)
        } else {
            None
        };
        Outcome::Exited {
            code,
            stdout: stdout.bytes,
            stderr: stderr.bytes,
            cut,
        }
    }
}

impl SystemRunner {
    /// Waits for the child; past the limit, SIGINT to its group, then SIGKILL after the
    /// grace. Returns the exit code and whether the limit was hit.
    fn wait(
        &self,
        child: &mut Child,
        limit: Option<Duration>,
        grace: Duration,
    ) -> (Option<i32>, bool) {
        let started = Instant::now();
        let group = Pid::from_raw(child.id() as i32);
        let mut interrupted_at: Option<Instant> = None;
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                return (status.code(), interrupted_at.is_some());
            }
            match (limit, interrupted_at, group) {
                (Some(limit), None, Some(group)) if started.elapsed() >= limit => {
                    let _ = kill_process_group(group, Signal::INT);
                    interrupted_at = Some(Instant::now());
                }
                (_, Some(at), Some(group)) if at.elapsed() >= grace => {
                    let _ = kill_process_group(group, Signal::KILL);
                    let status = child.wait().ok();
                    return (status.and_then(|s| s.code()), true);
                }
                _ => thread::sleep(Duration::from_millis(10)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn sh(script: &str, limit: Option<Duration>) -> Invocation {
        Invocation {
            argv: vec!["/bin/sh".into(), "-c".into(), script.into()],
            cwd: std::env::temp_dir(),
            env: BTreeMap::from([("GREETING".to_owned(), "hello".to_owned())]),
            time_limit: limit,
            stdout_file: None,
            grace: None,
        }
    }

    #[test]
    fn exit_code_streams_and_only_the_given_environment() {
        let outcome = SystemRunner::default()
            .run(&sh("echo $GREETING; echo ${HOME:-none} >&2; exit 3", None));
        assert_eq!(
            outcome,
            Outcome::Exited {
                code: Some(3),
                stdout: b"hello\n".to_vec(),
                stderr: b"none\n".to_vec(),
                cut: None
            }
        );
    }

    #[test]
    fn an_invocation_may_ask_for_its_own_grace() {
        // The shell waits out SIGINT; only SIGKILL after the grace ends it.
        let mut invocation = sh("trap '' INT; sleep 30", Some(Duration::from_millis(100)));
        invocation.grace = Some(Duration::from_millis(200));
        let started = Instant::now();
        let outcome = SystemRunner::with_limits(1024, Duration::from_secs(60)).run(&invocation);
        assert!(matches!(outcome, Outcome::TimedOut { .. }), "{outcome:?}");
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the invocation's grace, not the runner's minute"
        );
    }

    #[test]
    fn stdout_can_go_to_a_private_file() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let mut invocation = sh("echo kept", None);
        invocation.stdout_file = Some(dir.path().join("out"));
        let outcome = SystemRunner::default().run(&invocation);
        assert!(
            matches!(outcome, Outcome::Exited { code: Some(0), ref stdout, .. } if stdout.is_empty())
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("out")).unwrap(),
            "kept\n"
        );
        assert_eq!(
            std::fs::metadata(dir.path().join("out"))
                .unwrap()
                .permissions()
                .mode()
                & 0o777,
            0o600
        );
    }

    #[test]
    fn a_missing_program_is_not_started() {
        let mut invocation = sh("", None);
        invocation.argv = vec!["/nonexistent/tool".into()];
        assert!(matches!(
            SystemRunner::default().run(&invocation),
            Outcome::NotStarted { .. }
        ));
    }

    #[test]
    fn a_stream_over_the_cap_is_cut_and_reported() {
        let runner = SystemRunner::with_limits(1000, GRACE);
        let Outcome::Exited {
            stdout, cut, code, ..
        } = runner.run(&sh("head -c 5000 /dev/zero", None))
        else {
            panic!()
        };
        assert_eq!(
            (stdout.len(), cut, code),
            (1000, Some(Stream::Stdout), Some(0))
        );
    }

    #[test]
    fn the_time_limit_interrupts_the_whole_group() {
        // The shell ignores SIGINT; its child `sleep` does not, and SIGKILL ends the rest.
        let runner = SystemRunner::with_limits(STREAM_CAP, Duration::from_millis(300));
        let started = Instant::now();
        let outcome = runner.run(&sh(
            "trap '' INT; sleep 30 & wait; sleep 30",
            Some(Duration::from_millis(200)),
        ));
        assert!(matches!(outcome, Outcome::TimedOut { .. }), "{outcome:?}");
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}

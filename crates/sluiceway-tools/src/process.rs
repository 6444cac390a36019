//! The one process runner: argv without a shell, a whole environment, a time limit, and
//! a cap on what it keeps of each stream.

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io::Read;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use rustix::process::{Pid, Signal, kill_process_group};
use sluiceway_core::runner::{Invocation, Outcome, Runner, Stream};

/// How much of one stream a run keeps in memory: 128 MiB.
pub const STREAM_CAP: usize = 128 * 1024 * 1024;

/// How long a tool gets between SIGINT and SIGKILL.
pub const GRACE: Duration = Duration::from_secs(5);

/// How long the runner waits for the pipes to close after the process ended; a
/// grandchild that keeps them open is not waited for.
const PIPE_GRACE: Duration = Duration::from_secs(1);

/// The program's file, found on the PATH of the environment it runs in; the name as it
/// is when it holds a slash or is on no folder of that PATH, so the start fails as it
/// would have. Naming the file keeps the
/// start cheap: the standard library spawns a program looked up on a PATH other than its
/// own process's by copying this whole process first (`fork`), and a scan starts three
/// tools for every stack.
fn on_path(program: &str, env: &BTreeMap<String, String>, cwd: &Path) -> PathBuf {
    if program.contains('/') {
        return PathBuf::from(program);
    }
    env.get("PATH")
        .into_iter()
        .flat_map(|path| std::env::split_paths(path))
        // A relative folder (an empty one is `.`) is the child's, as `execvp` reads it.
        .map(|folder| cwd.join(folder).join(program))
        .find(|file| {
            file.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
        .unwrap_or_else(|| PathBuf::from(program))
}

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
        let spawned = Command::new(on_path(program, &invocation.env, &invocation.cwd))
            .arg0(program)
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
        let (code, timed_out) = self.wait(child, invocation.time_limit, grace);
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
    /// grace. Returns the exit code and whether the limit was hit. The child is waited for
    /// on a thread of its own, so its end is seen the moment it comes: a scan runs a
    /// hundred tool commands and more, and a polling wait lost a few milliseconds on each.
    fn wait(
        &self,
        mut child: Child,
        limit: Option<Duration>,
        grace: Duration,
    ) -> (Option<i32>, bool) {
        let group = Pid::from_raw(child.id() as i32);
        let (send, ended) = mpsc::channel();
        thread::spawn(move || {
            let _ = send.send(child.wait().ok().and_then(|status| status.code()));
        });
        let in_time = match limit {
            Some(limit) => ended.recv_timeout(limit),
            None => ended
                .recv()
                .map_err(|_| mpsc::RecvTimeoutError::Disconnected),
        };
        match in_time {
            Ok(code) => return (code, false),
            Err(mpsc::RecvTimeoutError::Disconnected) => return (None, false),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        if let Some(group) = group {
            let _ = kill_process_group(group, Signal::INT);
        }
        if let Ok(code) = ended.recv_timeout(grace) {
            return (code, true);
        }
        if let Some(group) = group {
            let _ = kill_process_group(group, Signal::KILL);
        }
        (ended.recv().ok().flatten(), true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::time::Instant;

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
    fn a_program_is_found_on_the_path_it_runs_with() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("tools");
        std::fs::create_dir(&bin).unwrap();
        let tool = bin.join("greet");
        std::fs::write(&tool, "#!/bin/sh\necho \"$GREETING\"\n").unwrap();
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        // Not executable: passed over for the next folder's.
        std::fs::write(dir.path().join("greet"), "").unwrap();
        for path in [format!(".:{}", bin.display()), "tools".to_owned()] {
            let mut invocation = sh("", None);
            invocation.argv = vec!["greet".into()];
            invocation.cwd = dir.path().to_owned();
            invocation.env.insert("PATH".into(), path.clone());
            let outcome = SystemRunner::default().run(&invocation);
            assert!(
                matches!(&outcome, Outcome::Exited { code: Some(0), stdout, .. } if stdout == b"hello\n"),
                "{path}: {outcome:?}"
            );
        }
        assert_eq!(
            on_path("greet", &BTreeMap::new(), dir.path()),
            PathBuf::from("greet"),
            "no PATH: the name as it is"
        );
        assert_eq!(
            on_path(
                "greet",
                &BTreeMap::from([("PATH".into(), "tools".into())]),
                dir.path()
            ),
            tool
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

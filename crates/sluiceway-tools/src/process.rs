//! The one process runner: argv without a shell, a whole environment, a time limit, and
//! a cap on what it keeps of each stream.

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io::{PipeReader, PipeWriter};
use std::os::fd::OwnedFd;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};
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

/// One output stream while the run reads it: the pipe until it closes, and at most `cap`
/// bytes of what came through it; the rest is read and dropped, so the child never blocks
/// on a full pipe.
struct Capture {
    pipe: Option<OwnedFd>,
    kept: Vec<u8>,
    cut: bool,
    cap: usize,
}

impl Capture {
    fn of(pipe: Option<impl Into<OwnedFd>>, cap: usize) -> Capture {
        Capture {
            pipe: pipe.map(Into::into),
            kept: Vec::new(),
            cut: false,
            cap,
        }
    }

    /// Reads once what the pipe holds; its end (or an error reading it) closes it.
    fn read(&mut self, buffer: &mut [u8]) {
        let Some(pipe) = &self.pipe else { return };
        match rustix::io::read(pipe, &mut *buffer) {
            Ok(0) => self.pipe = None,
            Ok(n) => {
                let room = self.cap.saturating_sub(self.kept.len());
                self.kept.extend_from_slice(&buffer[..n.min(room)]);
                self.cut |= n > room;
            }
            Err(rustix::io::Errno::INTR | rustix::io::Errno::AGAIN) => {}
            Err(_) => self.pipe = None,
        }
    }
}

/// Where a run stands against its time limit.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Within the limit, or under none.
    Running,
    /// Past the limit: SIGINT went to the group, and SIGKILL follows the grace.
    Interrupted,
    /// SIGKILL went to the group; its end is waited for however long it takes.
    Killed,
    /// The child ended; its pipes get [`PIPE_GRACE`] to close.
    Ended,
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
        // Made before the child, and closed on exec as the standard library makes every
        // pipe, so no child (this run's or another pool thread's) holds its writing end.
        let (ended, end_signal) = match std::io::pipe() {
            Ok(pipe) => pipe,
            Err(e) => {
                return Outcome::NotStarted {
                    why: format!("{program} could not be started: {}", e.kind()),
                };
            }
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
        let mut outputs = [
            Capture::of(child.stdout.take(), self.cap),
            Capture::of(child.stderr.take(), self.cap),
        ];
        let grace = invocation.grace.unwrap_or(self.grace);
        let (code, timed_out) = self.follow(
            child,
            (ended, end_signal),
            &mut outputs,
            invocation.time_limit,
            grace,
        );
        let [stdout, stderr] = outputs;
        if timed_out {
            return Outcome::TimedOut {
                stdout: stdout.kept,
                stderr: stderr.kept,
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
            stdout: stdout.kept,
            stderr: stderr.kept,
            cut,
        }
    }
}

impl SystemRunner {
    /// Reads the child's streams in the calling thread until it has ended and they have
    /// closed; past the limit, SIGINT to its group, then SIGKILL after the grace. Returns
    /// the exit code and whether the limit was hit.
    ///
    /// The child is waited for on a thread of its own that holds the writing end of the
    /// `ended` pipe and drops it at the end, so `poll` sees the end the moment it comes,
    /// beside the streams: a scan runs a hundred tool commands and more, a polling wait
    /// lost a few milliseconds on each, and a thread for each stream cost more than the
    /// reading did (issue 39).
    fn follow(
        &self,
        mut child: Child,
        (ended, end_signal): (PipeReader, PipeWriter),
        outputs: &mut [Capture; 2],
        limit: Option<Duration>,
        grace: Duration,
    ) -> (Option<i32>, bool) {
        let group = Pid::from_raw(child.id() as i32);
        let waiter = thread::spawn(move || {
            let code = child.wait().ok().and_then(|status| status.code());
            drop(end_signal);
            code
        });
        let mut ended = Some(ended);
        let mut stage = Stage::Running;
        let mut timed_out = false;
        let mut deadline = limit.map(|limit| Instant::now() + limit);
        let mut buffer = vec![0u8; 64 * 1024];
        while ended.is_some() || outputs.iter().any(|output| output.pipe.is_some()) {
            let now = Instant::now();
            if deadline.is_some_and(|at| at <= now) {
                (stage, deadline) = match stage {
                    Stage::Running => {
                        timed_out = true;
                        signal(group, Signal::INT);
                        (Stage::Interrupted, Some(now + grace))
                    }
                    Stage::Interrupted => {
                        signal(group, Signal::KILL);
                        (Stage::Killed, None)
                    }
                    // A grandchild holds the pipes open: it is not waited for.
                    Stage::Ended | Stage::Killed => break,
                };
                continue;
            }
            for ready in ready(outputs, ended.as_ref(), deadline.map(|at| at - now)) {
                match ready {
                    Ready::Output(index) => outputs[index].read(&mut buffer),
                    Ready::Ended => {
                        ended = None;
                        stage = Stage::Ended;
                        deadline = Some(Instant::now() + PIPE_GRACE);
                    }
                }
            }
        }
        (waiter.join().ok().flatten(), timed_out)
    }
}

/// Sends a signal to the run's process group, if it has one.
fn signal(group: Option<Pid>, signal: Signal) {
    if let Some(group) = group {
        let _ = kill_process_group(group, signal);
    }
}

/// What `poll` found ready to read.
enum Ready {
    /// A stream of the child's: `0` its stdout, `1` its stderr.
    Output(usize),
    /// The child ended.
    Ended,
}

/// Waits, for at most `timeout` (`None`: however long it takes), until a stream still
/// open has something to read or the child has ended, and says which.
fn ready(
    outputs: &[Capture; 2],
    ended: Option<&PipeReader>,
    timeout: Option<Duration>,
) -> Vec<Ready> {
    let mut watched = Vec::with_capacity(3);
    let mut which = Vec::with_capacity(3);
    for (index, output) in outputs.iter().enumerate() {
        if let Some(pipe) = &output.pipe {
            watched.push(PollFd::new(pipe, PollFlags::IN));
            which.push(Ready::Output(index));
        }
    }
    if let Some(ended) = ended {
        watched.push(PollFd::new(ended, PollFlags::IN));
        which.push(Ready::Ended);
    }
    // A timeout too long for a timespec is no timeout; an interrupted poll is asked again
    // by the caller's loop.
    let timeout = timeout.and_then(|timeout| Timespec::try_from(timeout).ok());
    if poll(&mut watched, timeout.as_ref()).is_err() {
        return Vec::new();
    }
    which
        .into_iter()
        .zip(&watched)
        .filter(|(_, fd)| !fd.revents().is_empty())
        .map(|(ready, _)| ready)
        .collect()
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
    fn both_streams_are_read_whole_however_much_they_hold() {
        // More than a pipe holds, on each stream: a run that read one to its end before
        // the other would never end.
        let Outcome::Exited {
            stdout,
            stderr,
            code,
            cut,
        } = SystemRunner::default().run(&sh(
            "for i in 1 2 3 4; do head -c 300000 /dev/zero; head -c 300000 /dev/zero >&2; done",
            Some(Duration::from_secs(60)),
        ))
        else {
            panic!()
        };
        assert_eq!(
            (stdout.len(), stderr.len(), code, cut),
            (1_200_000, 1_200_000, Some(0), None)
        );
    }

    #[test]
    fn a_grandchild_holding_the_streams_open_is_not_waited_for() {
        let started = Instant::now();
        let outcome = SystemRunner::default().run(&sh("echo started; sleep 20 & exit 4", None));
        assert_eq!(
            outcome,
            Outcome::Exited {
                code: Some(4),
                stdout: b"started\n".to_vec(),
                stderr: Vec::new(),
                cut: None
            }
        );
        let waited = started.elapsed();
        assert!(
            waited >= PIPE_GRACE && waited < PIPE_GRACE * 5,
            "the pipes' grace after the end, and no more: {waited:?}"
        );
    }

    #[test]
    fn what_a_tool_said_before_its_time_limit_is_kept() {
        let outcome = SystemRunner::with_limits(STREAM_CAP, Duration::from_millis(300)).run(&sh(
            "echo planning; echo waiting >&2; sleep 30",
            Some(Duration::from_millis(300)),
        ));
        assert_eq!(
            outcome,
            Outcome::TimedOut {
                stdout: b"planning\n".to_vec(),
                stderr: b"waiting\n".to_vec()
            }
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

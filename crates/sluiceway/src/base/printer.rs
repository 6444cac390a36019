//! The one place output leaves the program.
//!
//! stdout carries the command's result (a report, JSON, a schema); stderr carries
//! everything said about the run. In a GitHub Actions job the lines are written as they
//! are, workflow commands (`::group::`, `::error::`) included, for the job page to read;
//! anywhere else the printer speaks to a person and turns each workflow command into
//! plain words. Tests hand in buffers instead of the real streams.

use std::io::{self, IsTerminal, Write};
use std::sync::Mutex;
use std::time::Duration;

/// Who reads the lines about the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience {
    /// The job page of a GitHub Actions run: workflow commands are written as they are.
    Actions,
    /// A person at a terminal or reading a file: no workflow command reaches them.
    Person,
}

pub struct Printer {
    out: Box<dyn Write>,
    err: Box<dyn Write>,
    audience: Audience,
}

impl Printer {
    pub fn stdio() -> Printer {
        Printer {
            out: Box::new(io::stdout()),
            err: Box::new(io::stderr()),
            audience: Audience::Actions,
        }
    }

    pub fn new(out: Box<dyn Write>, err: Box<dyn Write>) -> Printer {
        Printer {
            out,
            err,
            audience: Audience::Actions,
        }
    }

    /// The same printer, for another audience.
    pub fn for_audience(self, audience: Audience) -> Printer {
        Printer { audience, ..self }
    }

    /// From now on, speaks to `audience`.
    pub fn set_audience(&mut self, audience: Audience) {
        self.audience = audience;
    }

    /// Writes the command's result. A closed pipe is not an error worth a panic.
    pub fn result(&mut self, text: &str) {
        let _ = self.out.write_all(text.as_bytes());
        let _ = self.out.flush();
    }

    /// Writes a line about the run, in the audience's terms.
    pub fn say(&mut self, line: &str) {
        let line = match self.audience {
            Audience::Actions => Some(line.to_owned()),
            Audience::Person => for_a_person(line),
        };
        if let Some(line) = line {
            let _ = writeln!(self.err, "{line}");
        }
    }
}

/// A line with its workflow command turned into words: a group's title stands alone,
/// its end and a mask say nothing, an annotation reads `error: …`, `warning: …` or
/// `notice: …` (the place it names kept in the text).
fn for_a_person(line: &str) -> Option<String> {
    let Some(rest) = line.strip_prefix("::") else {
        return Some(line.to_owned());
    };
    let Some((command, message)) = rest.split_once("::") else {
        return Some(line.to_owned());
    };
    let name = command.split([' ', ',']).next().unwrap_or("");
    match name {
        "group" => Some(format!("── {message}")),
        "endgroup" | "add-mask" | "stop-commands" => None,
        "error" | "warning" | "notice" => Some(format!("{name}: {message}")),
        _ => Some(line.to_owned()),
    }
}

/// Hears how far the previews are: told the count first, then each stack as it ends.
pub trait Progress: Sync {
    fn begin(&self, previews: usize);
    fn previewed(&self, stack: &str, outcome: &str);
    fn end(&self);
}

/// Says nothing: a job's log gets each preview's line after the pool.
pub struct Quiet;

impl Progress for Quiet {
    fn begin(&self, _: usize) {}
    fn previewed(&self, _: &str, _: &str) {}
    fn end(&self) {}
}

/// A person's progress: a bar on a terminal, a plain line per stack anywhere else.
pub struct ForAPerson {
    bar: Option<indicatif::ProgressBar>,
    lines: Mutex<(usize, usize)>,
}

impl ForAPerson {
    /// A bar when stderr is a terminal, lines otherwise.
    pub fn on_stderr() -> ForAPerson {
        ForAPerson {
            bar: io::stderr()
                .is_terminal()
                .then(indicatif::ProgressBar::hidden),
            lines: Mutex::new((0, 0)),
        }
    }
}

impl Progress for ForAPerson {
    fn begin(&self, previews: usize) {
        if let Some(bar) = &self.bar {
            bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            bar.set_length(previews as u64);
            bar.set_style(
                indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} previewed · {msg}")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            bar.enable_steady_tick(Duration::from_millis(200));
        }
        let mut lines = self
            .lines
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *lines = (0, previews);
    }

    fn previewed(&self, stack: &str, outcome: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!("{stack}: {outcome}"));
            bar.inc(1);
            return;
        }
        let mut lines = self
            .lines
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        lines.0 += 1;
        let _ = writeln!(
            io::stderr(),
            "[{}/{}] previewed {stack}: {outcome}",
            lines.0,
            lines.1
        );
    }

    fn end(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_person_reads_words_where_actions_reads_workflow_commands() {
        let said = |line: &str| for_a_person(line);
        assert_eq!(said("::group::[network]").as_deref(), Some("── [network]"));
        assert_eq!(said("::endgroup::"), None);
        assert_eq!(said("::add-mask::hunter2"), None);
        assert_eq!(
            said("::error::tofu could not be run").as_deref(),
            Some("error: tofu could not be run")
        );
        assert_eq!(
            said("::warning file=sluiceway.yaml,line=2,col=3::sluiceway.yaml:2:3: a key")
                .as_deref(),
            Some("warning: sluiceway.yaml:2:3: a key")
        );
        assert_eq!(
            said("Previewed network").as_deref(),
            Some("Previewed network")
        );
        assert_eq!(said("::not a command").as_deref(), Some("::not a command"));
    }
}

//! The one place output leaves the program.
//!
//! stdout carries the command's result (a report, JSON, a schema); stderr carries
//! everything said about the run. Tests hand in buffers instead of the real streams.

use std::io::{self, Write};

pub struct Printer {
    out: Box<dyn Write>,
    err: Box<dyn Write>,
}

impl Printer {
    pub fn stdio() -> Printer {
        Printer {
            out: Box::new(io::stdout()),
            err: Box::new(io::stderr()),
        }
    }

    pub fn new(out: Box<dyn Write>, err: Box<dyn Write>) -> Printer {
        Printer { out, err }
    }

    /// Writes the command's result. A closed pipe is not an error worth a panic.
    pub fn result(&mut self, text: &str) {
        let _ = self.out.write_all(text.as_bytes());
        let _ = self.out.flush();
    }

    /// Writes a line about the run.
    pub fn say(&mut self, line: &str) {
        let _ = writeln!(self.err, "{line}");
    }
}

//! Faults on demand: a test arms one, and the next calls of an operation meet it.
//! Operations are named as the traffic log names them: `PATCH
//! /repos/{owner}/{repo}/issues/{issue_number}`, or `graphql ReadBody`.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fault {
    /// The operation, as the traffic log names it.
    pub on: String,
    /// How many calls meet it.
    pub times: u32,
    pub kind: FaultKind,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// Answer with this status and GitHub's error body.
    Status { status: u16, message: String },
    /// Answer, but only after this long.
    Slow { millis: u64 },
    /// GitHub's secondary rate limit: 403, its message, and `Retry-After` when given.
    SecondaryRateLimit { retry_after: Option<u64> },
    /// An exhausted primary rate limit that resets in this many seconds.
    PrimaryRateLimit { reset_in: u64 },
    /// Before the call is served, `editor` writes `body` to the issue: a person's edit
    /// landing between someone's read and their write.
    EditFirst {
        repo: String,
        issue: u64,
        editor: String,
        body: String,
    },
    /// As `EditFirst`, but ticking the box on the line that holds `line`.
    TickFirst {
        repo: String,
        issue: u64,
        editor: String,
        line: String,
    },
}

/// The faults armed, in the order they were armed.
#[derive(Debug, Default)]
pub struct Faults(Vec<Fault>);

impl Faults {
    pub fn arm(&mut self, fault: Fault) {
        if fault.times > 0 {
            self.0.push(fault);
        }
    }

    /// The first armed fault for the operation, used up by one.
    pub fn take(&mut self, operation: &str) -> Option<FaultKind> {
        let index = self.0.iter().position(|f| f.on == operation)?;
        let fault = &mut self.0[index];
        fault.times -= 1;
        let kind = fault.kind.clone();
        if fault.times == 0 {
            self.0.remove(index);
        }
        Some(kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fault_meets_exactly_its_count_of_calls_and_only_its_operation() {
        let mut faults = Faults::default();
        let kind = FaultKind::Status {
            status: 502,
            message: "Bad Gateway".into(),
        };
        faults.arm(Fault {
            on: "GET /a".into(),
            times: 2,
            kind: kind.clone(),
        });
        assert_eq!(faults.take("GET /b"), None);
        assert_eq!(faults.take("GET /a"), Some(kind.clone()));
        assert_eq!(faults.take("GET /a"), Some(kind));
        assert_eq!(faults.take("GET /a"), None);
    }
}

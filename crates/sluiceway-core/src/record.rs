//! Deployment records: Sluiceway's lock and history for one stack's deploys, stored as
//! GitHub deployments (decision 0003). A record's task names its stack; its payload
//! says what was approved, by whom, in which run. A payload this version cannot read
//! whole is not read at all: a record is a fact only when every fact is there.

use serde_json::{Map, Value, json};

use crate::stack::StackId;

/// Tasks of Sluiceway's records start with this; every other task is not ours.
pub const TASK_PREFIX: &str = "sluiceway:";

pub fn task_for(stack: &StackId) -> String {
    format!("{TASK_PREFIX}{stack}")
}

/// The stack a task names, when the task is Sluiceway's.
pub fn stack_of_task(task: &str) -> Option<&str> {
    task.strip_prefix(TASK_PREFIX).filter(|id| !id.is_empty())
}

/// The fixed descriptions a record's statuses end with: the last status's description
/// says how a record ended, for the modes that end it and every reader of the trail.
pub mod ended {
    pub const DEPLOYED: &str = "deployed";
    pub const IN_SYNC: &str = "nothing to deploy, already in sync";
    pub const REHEARSED: &str = "rehearsed, nothing was deployed";
    pub const MOVED: &str = "the change moved since the tick";
    pub const NO_RESULT: &str = "the run ended without a result";
    pub const DEPLOYS_OFF: &str = "deploys are turned off in sluiceway.yaml";
    /// A queued record whose deploy a later run started as a record of its own.
    pub const STARTED_LATER: &str = "started in a later run";
    /// A merge record whose change the scan after the merge deploys in a record of its
    /// own (decision 0054).
    pub const MERGED_FOLLOWS: &str = "merged, the deploy follows in a record of its own";
    pub const DEPENDENCY_FAILED: &str = "a stack it depends on did not deploy";
    /// A record a record writer opened for a box ticked on the dashboard, whose run did
    /// not let that tick through (ADR 0051): nothing was deployed.
    pub const TICK_NOT_LET_THROUGH: &str = "the dashboard's run did not let the tick through";
    /// A deploy freeze was on when the record came to deploy (ADR 0025).
    pub const FROZEN: &str = "a deploy freeze is on";
    /// A record opened outside the dashboard by an account `recordWriters` does not
    /// name (decision 0109): it is never deployed.
    pub const NOT_A_WRITER: &str =
        "opened outside the dashboard by an account recordWriters does not name";
    pub const VALUE_CHANGED: &str = "a value changed since the tick";
    /// The same, when the dashboard's last scan was of this very commit (decision 0102).
    pub const VALUE_NOISY: &str = "a value changed since the tick with no new commit, so it may differ on every run: see valueFingerprint in sluiceway.yaml";
}

/// What a record approved: a diff hash, or the pull request a tick merged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approved {
    Hash(String),
    Merge(u64),
}

/// Payload version 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payload {
    pub approved: Approved,
    pub ticker: String,
    /// The workflow run that opened the record.
    pub run: u64,
    pub attempt: Option<u32>,
    /// Stacks this record waits behind (a queued record).
    pub behind: Vec<StackId>,
    pub drift: bool,
    pub on_merge: bool,
    pub fingerprint: Option<String>,
    /// Opened outside a deploy window, waiting for it.
    pub window: bool,
}

impl Payload {
    /// Reads a payload; `None` unless it is version 1 with every fact a record needs.
    /// Keys it does not know are left alone (a later version-1 writer may add some).
    pub fn read(value: &Value) -> Option<Payload> {
        let object = value.as_object()?;
        if object.get("v")?.as_u64()? != 1 {
            return None;
        }
        let text = |key: &str| -> Option<Option<String>> {
            match object.get(key) {
                None => Some(None),
                Some(Value::String(s)) if !s.is_empty() => Some(Some(s.clone())),
                Some(_) => None,
            }
        };
        let flag = |key: &str| -> Option<bool> {
            match object.get(key) {
                None => Some(false),
                Some(Value::Bool(b)) => Some(*b),
                Some(_) => None,
            }
        };
        let hash = text("hash")?;
        let merge = match object.get("merge") {
            None => None,
            Some(value) => Some(value.as_u64().filter(|n| *n > 0)?),
        };
        let behind: Vec<StackId> = match object.get("behind") {
            None => Vec::new(),
            Some(Value::Array(ids)) => ids
                .iter()
                .map(|id| id.as_str().filter(|s| !s.is_empty()).map(StackId::given))
                .collect::<Option<_>>()?,
            Some(_) => return None,
        };
        let approved = match (hash, merge) {
            (Some(hash), None) => Approved::Hash(hash),
            (None, Some(pr)) if behind.is_empty() => Approved::Merge(pr),
            _ => return None,
        };
        // Written as digits in a string; a bare whole number says the same.
        let run = match object.get("run")? {
            Value::String(digits) if digits.bytes().all(|b| b.is_ascii_digit()) => {
                digits.parse().ok()?
            }
            Value::Number(number) => number.as_u64()?,
            _ => return None,
        };
        let attempt = match object.get("attempt") {
            None => None,
            Some(value) => Some(u32::try_from(value.as_u64()?).ok()?),
        };
        Some(Payload {
            approved,
            ticker: text("ticker")??,
            run,
            attempt,
            behind,
            drift: flag("drift")?,
            on_merge: flag("onMerge")?,
            fingerprint: text("fingerprint")?,
            window: flag("window")?,
        })
    }

    /// The payload as it is written: absent facts are left out, the run in digits.
    pub fn to_json(&self) -> Value {
        let mut object = Map::new();
        object.insert("v".into(), json!(1));
        match &self.approved {
            Approved::Hash(hash) => object.insert("hash".into(), json!(hash)),
            Approved::Merge(pr) => object.insert("merge".into(), json!(pr)),
        };
        object.insert("ticker".into(), json!(self.ticker));
        object.insert("run".into(), json!(self.run.to_string()));
        if let Some(attempt) = self.attempt {
            object.insert("attempt".into(), json!(attempt));
        }
        if !self.behind.is_empty() {
            let ids: Vec<&str> = self.behind.iter().map(StackId::as_str).collect();
            object.insert("behind".into(), json!(ids));
        }
        for (key, set) in [
            ("drift", self.drift),
            ("onMerge", self.on_merge),
            ("window", self.window),
        ] {
            if set {
                object.insert(key.into(), json!(true));
            }
        }
        if let Some(fingerprint) = &self.fingerprint {
            object.insert("fingerprint".into(), json!(fingerprint));
        }
        Value::Object(object)
    }

    /// The payload of the record that starts a queued one in a later run: what was
    /// approved and by whom is carried, key by key; the run, attempt, queue and window
    /// are the new run's.
    pub fn started_in(&self, run: u64, attempt: Option<u32>) -> Payload {
        Payload {
            approved: self.approved.clone(),
            ticker: self.ticker.clone(),
            run,
            attempt,
            behind: Vec::new(),
            drift: self.drift,
            on_merge: self.on_merge,
            fingerprint: self.fingerprint.clone(),
            window: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn payload() -> Payload {
        Payload {
            approved: Approved::Hash("0123456789abcdef".into()),
            ticker: "alice".into(),
            run: 17034455121,
            attempt: Some(2),
            behind: vec![StackId::given("apps/db")],
            drift: true,
            on_merge: false,
            fingerprint: Some("f00d".into()),
            window: true,
        }
    }

    #[test]
    fn tasks_name_their_stack_and_only_ours_are_read() {
        assert_eq!(
            task_for(&StackId::given("apps/web:prod")),
            "sluiceway:apps/web:prod"
        );
        assert_eq!(
            stack_of_task("sluiceway:apps/web:prod"),
            Some("apps/web:prod")
        );
        assert_eq!(stack_of_task("deploy"), None);
        assert_eq!(stack_of_task("sluiceway:"), None);
    }

    #[test]
    fn a_payload_is_written_with_the_run_in_digits_and_absent_facts_left_out() {
        let minimal = Payload {
            attempt: None,
            behind: vec![],
            drift: false,
            fingerprint: None,
            window: false,
            ..payload()
        };
        assert_eq!(
            minimal.to_json(),
            json!({ "v": 1, "hash": "0123456789abcdef", "ticker": "alice", "run": "17034455121" })
        );
    }

    #[test]
    fn a_payload_missing_a_fact_or_of_another_version_is_not_read() {
        let good = json!({ "v": 1, "hash": "0123456789abcdef", "ticker": "alice", "run": "42" });
        assert!(Payload::read(&good).is_some());
        let without = |key: &str| {
            let mut v = good.clone();
            v.as_object_mut().unwrap().remove(key);
            v
        };
        let with = |key: &str, value: Value| {
            let mut v = good.clone();
            v[key] = value;
            v
        };
        for unreadable in [
            without("v"),
            without("hash"),
            without("ticker"),
            without("run"),
            with("v", json!(2)),
            with("run", json!("42a")),
            with("run", json!(-42)),
            with("run", json!("")),
            with("ticker", json!("")),
            with("drift", json!("yes")),
            with("merge", json!(418)),
            with("behind", json!("apps/db")),
            Value::Null,
            json!("{\"v\":1}"),
        ] {
            assert_eq!(Payload::read(&unreadable), None, "{unreadable}");
        }
        let merged = json!({ "v": 1, "merge": 418, "ticker": "alice", "run": "42" });
        assert_eq!(
            Payload::read(&merged).unwrap().approved,
            Approved::Merge(418)
        );
        let merge_behind =
            json!({ "v": 1, "merge": 418, "ticker": "alice", "run": "42", "behind": ["a"] });
        assert_eq!(
            Payload::read(&merge_behind),
            None,
            "a merge record is never queued"
        );
        assert!(Payload::read(&with("later", json!("a key of a later writer"))).is_some());
        assert_eq!(Payload::read(&with("run", json!(42))).unwrap().run, 42);
    }

    #[test]
    fn a_started_record_carries_the_approval_and_takes_the_new_run() {
        let started = payload().started_in(99, Some(1));
        assert_eq!(started.approved, payload().approved);
        assert_eq!(
            (
                started.ticker.as_str(),
                started.drift,
                started.fingerprint.as_deref()
            ),
            ("alice", true, Some("f00d"))
        );
        assert_eq!(
            (
                started.run,
                started.attempt,
                started.behind.len(),
                started.window
            ),
            (99, Some(1), 0, false)
        );
    }

    proptest! {
        #[test]
        fn what_is_written_reads_back(
            hash in "[0-9a-f]{16}",
            merge in proptest::option::of(1u64..100_000),
            ticker in "[A-Za-z0-9-]{1,39}",
            run in any::<u64>(),
            attempt in proptest::option::of(1u32..100),
            behind in proptest::collection::vec("[a-z/]{1,12}", 0..3),
            flags in any::<(bool, bool, bool)>(),
            fingerprint in proptest::option::of("[0-9a-f]{8}"),
        ) {
            let behind = if merge.is_some() { vec![] } else { behind.iter().map(|s| StackId::given(s)).collect() };
            let written = Payload {
                approved: merge.map_or(Approved::Hash(hash), Approved::Merge),
                ticker,
                run,
                attempt,
                behind,
                drift: flags.0,
                on_merge: flags.1,
                fingerprint,
                window: flags.2,
            };
            prop_assert_eq!(Payload::read(&written.to_json()), Some(written));
        }
    }
}

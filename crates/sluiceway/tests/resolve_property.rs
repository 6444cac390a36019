//! Nothing deploys unless a named person with access ticked it, stated as a property:
//! for generated ticks by generated people with generated permissions and tick rules,
//! and a generated deletion in the edit history, resolve opens a record for a stack
//! exactly when the first person to tick it meets the rule and no deleted entry breaks
//! the stretch that names them, and a second resolve of the same body opens nothing more.

mod support;

use sluiceway::modes::notify::Notifier;
use std::collections::BTreeMap;

use github_emulator::Act;
use github_emulator::world::Role;
use proptest::prelude::*;
use sluiceway::base::printer::Printer;
use sluiceway::modes::job::{Job, SystemClock};
use sluiceway::modes::outputs::Outputs;
use sluiceway::modes::resolve;
use sluiceway_github::GitHub;
use support::{Bed, REPO, copy_dir, workspace};

const PEOPLE: [(&str, Role); 4] = [
    ("alice", Role::Write),
    ("bob", Role::Admin),
    ("mallory", Role::Read),
    ("dave", Role::Maintain),
];
const STACKS: [&str; 3] = ["network", "storage:dev", "storage:prod"];

#[derive(Debug, Clone, Copy)]
enum Rule {
    Write,
    Admin,
    OnlyAlice,
}

impl Rule {
    fn config(self) -> &'static str {
        match self {
            Rule::Write => "tickers: write\n",
            Rule::Admin => "tickers: admin\n",
            Rule::OnlyAlice => "tickers: [alice]\n",
        }
    }

    fn allows(self, person: &str, role: Role) -> bool {
        let writes = !matches!(role, Role::Read | Role::Triage);
        match self {
            Rule::Write => writes,
            Rule::Admin => matches!(role, Role::Admin),
            Rule::OnlyAlice => writes && person == "alice",
        }
    }
}

fn rule() -> impl Strategy<Value = Rule> {
    prop_oneof![Just(Rule::Write), Just(Rule::Admin), Just(Rule::OnlyAlice)]
}

/// Ticks as (person, stack) indexes, in order.
fn ticks() -> impl Strategy<Value = Vec<(usize, usize)>> {
    proptest::collection::vec((0..PEOPLE.len(), 0..STACKS.len()), 1..6)
}

fn job(bed: &Bed, checkout: &std::path::Path, number: u64, sha: &str) -> Job {
    let env: BTreeMap<String, String> = [
        ("GITHUB_EVENT_NAME", "issues"),
        ("GITHUB_REPOSITORY", REPO),
        ("GITHUB_SHA", sha),
        ("GITHUB_RUN_ID", "77"),
        ("GITHUB_WORKSPACE", checkout.to_str().unwrap()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    let payload = serde_json::json!({
        "action": "edited",
        "issue": {
            "number": number, "state": "open",
            "user": { "login": "github-actions[bot]" },
            "body": bed.body(number),
            "labels": [{ "name": "sluiceway" }],
        },
    });
    Job::from_env(&env, Some(&payload.to_string()))
}

fn resolve_once(bed: &Bed, job: &Job) -> Vec<(String, String)> {
    let log = tempfile::NamedTempFile::new().unwrap();
    let mut printer = Printer::new(Box::new(std::io::sink()), Box::new(log.reopen().unwrap()));
    let mut outputs = Outputs::default();
    let (_, started) = resolve::run(
        job,
        &bed.github,
        &SystemClock,
        &Notifier::none(),
        false,
        &mut outputs,
        &mut printer,
    );
    assert!(
        !std::fs::read_to_string(log.path())
            .unwrap()
            .contains("::error::"),
        "resolve failed: {}",
        std::fs::read_to_string(log.path()).unwrap()
    );
    started
        .into_iter()
        .map(|s| (s.stack.to_string(), s.ticker))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn a_record_is_opened_only_for_an_allowed_ticker_and_never_twice(
        rule in rule(),
        ticks in ticks(),
        deleted in proptest::option::of(0..6usize),
    ) {
        let bed = Bed::new();
        for (login, role) in PEOPLE.iter().skip(1) {
            bed.emulator.act(Act::AddCollaborator { repo: REPO.into(), login: (*login).into(), role: *role }).unwrap();
        }
        let checkout = tempfile::tempdir().unwrap();
        copy_dir(&workspace().join("examples/quickstart"), checkout.path());
        let config = std::fs::read_to_string(checkout.path().join("sluiceway.yaml")).unwrap();
        std::fs::write(checkout.path().join("sluiceway.yaml"), format!("{}{config}", rule.config())).unwrap();
        // A dashboard as a scan writes it: every stack pending, at its hash.
        let rows: String = STACKS
            .iter()
            .enumerate()
            .map(|(i, s)| format!("- [ ] **{s}** · 1 create <!-- sluiceway:row stack=\"{s}\" state=\"pending\" hash=\"{i:016x}\" creates=\"1\" -->\n  <!-- /sluiceway:row -->\n"))
            .collect();
        let body = format!("<!-- sluiceway:dashboard v=\"1\" scan-sha=\"34e410f2ce7bd7cfd94d9a2f1d5bc0b2dcc6aa91\" scan-run=\"1\" scan-at=\"2026-03-01T09:00:00Z\" -->\n\n## Pending\n\n{rows}");
        let number = bed.issue("github-actions[bot]", "Sluiceway dashboard", &body, &["sluiceway"]);

        // The first person to tick a stack is its ticker; later ticks change nothing.
        let mut expected: BTreeMap<String, String> = BTreeMap::new();
        // Each stack's first ticker, and the edit (in order) that ticked it.
        let mut first: BTreeMap<&str, (&str, Role, usize)> = BTreeMap::new();
        for (person, stack) in &ticks {
            let (login, role) = PEOPLE[*person];
            if !first.contains_key(STACKS[*stack]) {
                bed.emulator.act(Act::Tick { repo: REPO.into(), issue: number, person: login.into(), line: STACKS[*stack].into() }).unwrap();
                first.insert(STACKS[*stack], (login, role, first.len()));
            }
        }
        let edits = first.len();
        // History newest first: the edits, then the original. A deleted entry at or
        // after a tick's own entry, or the one just older (which might have held the
        // tick too), leaves its stretch in doubt: it names nobody.
        let deleted = deleted.filter(|d| *d <= edits);
        if let Some(index) = deleted {
            bed.emulator.act(Act::DeleteEdit { repo: REPO.into(), issue: number, newest_first_index: index, by: "bob".into() }).unwrap();
        }
        for (stack, (login, role, order)) in &first {
            let entry = edits - 1 - order;
            let broken = deleted.is_some_and(|d| d <= entry + 1);
            if rule.allows(login, *role) && !broken {
                expected.insert((*stack).to_owned(), (*login).to_owned());
            }
        }
        let sha = support::job::push(&bed, "the stacks", &["network/main.tf"]);
        let job = job(&bed, checkout.path(), number, &sha);
        let opened: BTreeMap<String, String> = resolve_once(&bed, &job).into_iter().collect();
        prop_assert_eq!(&opened, &expected);
        // The same edit delivered again, or a re-run: the open records drop every tick.
        let again = resolve_once(&bed, &job);
        prop_assert!(again.is_empty(), "a second record for {:?}", again);
        let records = bed.github.deployment_records("sluiceway").unwrap().records;
        prop_assert_eq!(records.len(), expected.len());
    }
}

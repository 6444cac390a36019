//! The kubectl adapter's behaviour around the diff: command lines, environment, the
//! rendered set's life, failure reasons, and output it cannot read. Tool output here is
//! always a recording of the conformance corpus, answered as recorded or damaged in a
//! named way (cut, doubled, shifted); never written by hand.

#![allow(
    clippy::print_stderr,
    reason = "a skipped corpus is announced on stderr"
)]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use sluiceway_core::failure::FailureReason;
use sluiceway_core::runner::{Invocation, Outcome, Runner, Stream};
use sluiceway_core::stack::StackId;
use sluiceway_tools::kubectl::{self, Context, Options, Stack};
use sluiceway_tools::kubernetes;

/// No value list: nothing shows.
static NO_VALUES: sluiceway_core::values::ValueList = sluiceway_core::values::ValueList::none();

fn recorded(scenario: &str, file: &str) -> Option<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/conformance/kubectl/v1.34.0")
        .join(scenario)
        .join(file);
    match fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(_) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must have the shared corpus beside the checkout (.ci/run checks it is there)"
            );
            eprintln!(
                "notice: {} is absent; this test was not run",
                path.display()
            );
            None
        }
    }
}

/// Answers every call with one outcome and keeps what it was asked.
struct Answering {
    answer: Box<dyn Fn(&Invocation) -> Outcome + Sync>,
    asked: Mutex<Vec<Invocation>>,
}

impl Answering {
    fn new(answer: impl Fn(&Invocation) -> Outcome + Sync + 'static) -> Answering {
        Answering {
            answer: Box::new(answer),
            asked: Mutex::new(Vec::new()),
        }
    }

    fn asked(&self) -> Vec<Invocation> {
        self.asked.lock().unwrap().clone()
    }
}

impl Runner for Answering {
    fn run(&self, invocation: &Invocation) -> Outcome {
        self.asked.lock().unwrap().push(invocation.clone());
        (self.answer)(invocation)
    }
}

fn exited(code: i32, stdout: &str) -> Outcome {
    Outcome::Exited {
        code: Some(code),
        stdout: stdout.as_bytes().to_vec(),
        stderr: b"warning: from the tool\n".to_vec(),
        cut: None,
    }
}

fn web() -> Stack {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/homelab/k8s/web")
        .canonicalize()
        .unwrap();
    Stack {
        id: StackId::derive("k8s/web", None),
        dir,
        options: Options {
            namespace: Some("web".into()),
            ..Options::default()
        },
    }
}

struct Job {
    env: BTreeMap<String, String>,
    scratch: tempfile::TempDir,
}

impl Job {
    fn new() -> Job {
        let env = BTreeMap::from([
            ("KUBECONFIG".to_owned(), "/tmp/kubeconfig".to_owned()),
            ("PATH".to_owned(), "/usr/bin".to_owned()),
        ]);
        Job {
            env,
            scratch: tempfile::tempdir().unwrap(),
        }
    }

    fn ctx<'a>(&'a self, runner: &'a dyn Runner) -> Context<'a> {
        Context {
            runner,
            env: &self.env,
            repository: "",
            scratch: self.scratch.path(),
            time_limit: Duration::from_secs(120),
            deploy_limit: None,
            values: &NO_VALUES,
        }
    }
}

fn preview_failure(stdout: String, code: i32) -> (FailureReason, Vec<String>) {
    let job = Job::new();
    let runner = Answering::new(move |_| exited(code, &stdout));
    let preview = kubectl::preview(&web(), &job.ctx(&runner), false, false);
    let failure = preview.result.unwrap_err();
    (failure.reason, failure.detail)
}

#[test]
fn damaged_output_is_the_fixed_unreadable_reason_naming_a_place() {
    let Some(update) = recorded("update", "diff.stdout") else {
        return;
    };
    let Some(new_stack) = recorded("new-stack", "diff.stdout") else {
        return;
    };
    let cut = update[..update.len() / 2].to_owned();
    let first_object_end = update
        .match_indices("\ndiff ")
        .next()
        .map_or(update.len(), |(i, _)| i + 1);
    let first = &update[..first_object_end];
    let second_hunk = format!("{first}@@ -1,1 +1,1 @@\n-a\n+b\n");
    let shifted = update.replacen("@@ -1,", "@@ -2,", 1);
    let twice = format!("{first}{first}");
    let not_a_mapping = new_stack.replacen("\n-null\n", "\n-- a list\n", 1);
    assert_ne!(
        not_a_mapping, new_stack,
        "the Secret's absent side is the line `null`"
    );
    let cases: Vec<(&str, String, &str)> = vec![
        ("cut", cut, "at line"),
        ("second hunk", second_hunk, "one hunk per object"),
        (
            "partial hunk",
            shifted,
            "a hunk that holds the whole object",
        ),
        ("twice", twice, "expected each object once"),
        (
            "not a mapping",
            not_a_mapping,
            "one YAML object on each side",
        ),
        ("garbled", "this is not a diff\n".to_owned(), "at line 1"),
    ];
    for (name, output, expected) in cases {
        let (reason, detail) = preview_failure(output, 1);
        assert_eq!(reason, FailureReason::UnreadableOutput, "{name}");
        assert!(detail[0].contains(expected), "{name}: {detail:?}");
        assert!(
            !detail[0].contains("CANARY") && !detail[0].contains("sluiceway-example"),
            "{name}: {detail:?}"
        );
    }
    let (reason, detail) = preview_failure(String::new(), 1);
    assert_eq!(
        reason,
        FailureReason::UnreadableOutput,
        "exit 1 with nothing read is never in sync"
    );
    assert!(detail[0].contains("at least one object"));
}

#[test]
fn exit_codes_time_limits_and_caps_map_to_fixed_reasons() {
    let job = Job::new();
    let cases: Vec<(Outcome, FailureReason)> = vec![
        (
            exited(2, ""),
            FailureReason::ToolError { exit_code: Some(2) },
        ),
        (
            Outcome::TimedOut {
                stdout: vec![],
                stderr: vec![],
            },
            FailureReason::TimedOut { minutes: 2 },
        ),
        (
            Outcome::NotStarted {
                why: "kubectl could not be started".into(),
            },
            FailureReason::ToolError { exit_code: None },
        ),
        (
            Outcome::Exited {
                code: Some(1),
                stdout: vec![],
                stderr: vec![],
                cut: Some(Stream::Stdout),
            },
            FailureReason::OutputTooLarge,
        ),
    ];
    for (outcome, reason) in cases {
        let runner = Answering::new(move |_| outcome.clone());
        let preview = kubectl::preview(&web(), &job.ctx(&runner), false, false);
        assert_eq!(preview.result.unwrap_err().reason, reason);
    }
    let runner = Answering::new(|_| exited(2, ""));
    let preview = kubectl::preview(&web(), &job.ctx(&runner), false, false);
    assert_eq!(
        preview.log.job_log_lines(),
        ["warning: from the tool"],
        "the tool's words go to the job log"
    );
}

#[test]
fn command_lines_and_environment_of_preview_tool_diff_and_deploy() {
    let Some(update) = recorded("update", "diff.stdout") else {
        return;
    };
    let job = Job::new();
    let runner = Answering::new(move |inv| {
        if inv.argv[1] == "diff" {
            exited(1, &update)
        } else {
            exited(0, "")
        }
    });
    let mut stack = web();
    stack.options = Options {
        context: Some("homelab".into()),
        namespace: Some("web".into()),
        recursive: false,
        prune: false,
        force_conflicts: true,
        field_manager: Some("sluiceway-web".into()),
    };
    let ctx = job.ctx(&runner);
    let previewed = kubectl::preview(&stack, &ctx, true, false).result.unwrap();
    kubectl::tool_diff(&stack, &ctx).result.unwrap();
    let set = previewed.set.unwrap();
    kubectl::deploy(&stack, &ctx, &set).result.unwrap();
    let asked = runner.asked();
    let argv = |i: usize| asked[i].argv[..asked[i].argv.len() - 1].join(" ");
    assert_eq!(
        argv(0),
        "kubectl diff --server-side --context=homelab --namespace=web --force-conflicts --field-manager=sluiceway-web -f"
    );
    assert_eq!(argv(1), argv(0));
    assert_eq!(
        argv(2),
        "kubectl apply --server-side --context=homelab --namespace=web --force-conflicts --field-manager=sluiceway-web -f"
    );
    assert!(asked[0].argv.last().unwrap().ends_with("/manifests.yaml"));
    assert_eq!(
        asked[2].argv.last(),
        Some(&set.path().display().to_string()),
        "the deploy applies the previewed file"
    );
    assert_eq!(
        asked[0]
            .env
            .get("KUBECTL_EXTERNAL_DIFF")
            .map(String::as_str),
        Some("diff -N -U1000000")
    );
    for invocation in &asked[1..] {
        assert_eq!(invocation.env, job.env, "only the preview adds a variable");
    }
    assert_eq!(asked[0].cwd, stack.dir);
    assert_eq!(asked[0].time_limit, Some(Duration::from_secs(120)));
    assert_eq!(
        asked[2].time_limit, None,
        "a deploy has no limit of its own"
    );
}

#[test]
fn the_rendered_set_is_private_removed_and_refused_when_changed() {
    use std::os::unix::fs::PermissionsExt;
    let Some(update) = recorded("update", "diff.stdout") else {
        return;
    };
    let job = Job::new();
    let seen: std::sync::Arc<Mutex<Option<PathBuf>>> = Default::default();
    let seen_in_runner = seen.clone();
    let runner = Answering::new(move |inv| {
        let set = PathBuf::from(inv.argv.last().unwrap());
        assert_eq!(
            fs::metadata(&set).unwrap().permissions().mode() & 0o777,
            0o600
        );
        let text = fs::read_to_string(&set).unwrap();
        assert!(
            text.contains("kind: ConfigMap\n") && text.contains("---\n"),
            "the set joins the manifests"
        );
        *seen_in_runner.lock().unwrap() = Some(set);
        exited(1, &update)
    });
    let ctx = job.ctx(&runner);
    kubectl::preview(&web(), &ctx, false, false).result.unwrap();
    let removed = seen.lock().unwrap().clone().unwrap();
    assert!(!removed.exists(), "a preview that keeps no set removes it");

    let kept = kubectl::preview(&web(), &ctx, true, false)
        .result
        .unwrap()
        .set
        .unwrap();
    fs::write(kept.path(), "kind: Tampered\n").unwrap();
    let deploy = kubectl::deploy(&web(), &ctx, &kept);
    assert_eq!(
        deploy.result.unwrap_err().reason,
        FailureReason::ChangedSincePreview
    );
    assert_eq!(
        runner.asked().len(),
        2,
        "nothing ran for the refused deploy"
    );
}

/// The recorded version output, with its version swapped for another one.
#[test]
fn the_version_floor_and_vendor_builds() {
    let Some(recorded) = recorded("version", "version.stdout") else {
        return;
    };
    let job = Job::new();
    let answer = |version: &'static str| {
        let stdout = recorded.replace("\"v1.34.0\"", &format!("\"{version}\""));
        assert_ne!(stdout, recorded);
        Answering::new(move |_| exited(0, &stdout))
    };
    let root = Path::new("/");
    assert!(kubectl::check_version(&job.ctx(&answer("v1.35.2-eks-1234567")), root).is_ok());
    let old = kubectl::check_version(&job.ctx(&answer("v1.33.4")), root).unwrap_err();
    assert_eq!(
        old.to_string(),
        "kubectl v1.33.4 is too old; Sluiceway needs kubectl v1.34.0 or newer"
    );
    let missing = Answering::new(|_| Outcome::NotStarted {
        why: "missing".into(),
    });
    assert_eq!(
        kubectl::check_version(&job.ctx(&missing), root),
        Err(kubectl::VersionError::Missing {
            tool: "kubectl",
            floor: kubectl::FLOOR
        })
    );
}

#[test]
fn a_recorded_version_reads() {
    let Some(stdout) = recorded("version", "version.stdout") else {
        return;
    };
    let job = Job::new();
    let runner = Answering::new(move |_| exited(0, &stdout));
    assert_eq!(
        kubectl::check_version(&job.ctx(&runner), Path::new("/"))
            .unwrap()
            .to_string(),
        "v1.34.0"
    );
}

/// Inputs the fuzzer once broke the diff reader with (fuzz/regressions), read without a
/// panic.
#[test]
fn fuzzer_finds_stay_fixed() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions");
    let mut seen = 0;
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("kubectl_diff-")
        {
            let text = String::from_utf8_lossy(&fs::read(&path).unwrap()).into_owned();
            if let Ok(pairs) = kubernetes::hunks::read(&text) {
                let _ = kubernetes::fold::read_pairs(&pairs);
            }
            seen += 1;
        }
    }
    assert!(seen >= 1);
}

#[test]
fn the_rendered_objects_are_the_document_one_by_one_when_asked() {
    let Some(update) = recorded("update", "diff.stdout") else {
        return;
    };
    let job = Job::new();
    let runner = Answering::new(move |_| exited(1, &update));
    let ctx = job.ctx(&runner);
    let previewed = kubectl::preview(&web(), &ctx, false, true).result.unwrap();
    let document = previewed.document.expect("the objects, asked for");
    let kinds: Vec<&str> = document
        .documents()
        .iter()
        .map(|o| o["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["ConfigMap", "Deployment", "Secret", "Service"],
        "one document per object of the four files, in the set's order"
    );
    assert!(
        kubectl::preview(&web(), &ctx, false, false)
            .result
            .unwrap()
            .document
            .is_none()
    );
}

//! A job's world for the end-to-end tests: a checkout copied from an example, the
//! runner's folders, and the real `sluiceway` binary run the way a GitHub Actions job
//! runs it (the job's variables, the event payload, `INPUT_*`, `GITHUB_OUTPUT`,
//! `GITHUB_STEP_SUMMARY`, `RUNNER_TEMP`), against the emulator.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

use github_emulator::Act;
use github_emulator::world::FileChange;
use sluiceway_dashboard::reader;
use sluiceway_github::GitHub;

use super::{Bed, REPO, copy_dir, tofu_dir, workspace};

pub(crate) const CANARY: &str = "CANARY-SECRET";
pub(crate) const PATCH_ISSUE: &str = "PATCH /repos/{owner}/{repo}/issues/{issue_number}";

/// A job's world: a checkout copied from the example, and the runner's folders.
pub(crate) struct Job {
    pub(crate) checkout: tempfile::TempDir,
    pub(crate) runner: tempfile::TempDir,
    /// More of the job's variables, as a workflow sets them.
    pub(crate) env: Vec<(String, String)>,
    /// The event payload; a push to main when unset.
    pub(crate) payload: Option<String>,
    /// Run through the action's shim in this folder rather than the binary itself.
    pub(crate) action: Option<PathBuf>,
    /// The shim's script: the main step, or `post.js` for the post step.
    pub(crate) script: &'static str,
}

/// What one run of the binary left.
pub(crate) struct Ran {
    pub(crate) code: Option<i32>,
    pub(crate) log: String,
    pub(crate) outputs: BTreeMap<String, String>,
    pub(crate) summary: String,
    pub(crate) result: Option<serde_json::Value>,
    pub(crate) result_text: String,
}

impl Job {
    pub(crate) fn new() -> Job {
        Job::of("examples/quickstart")
    }

    /// A job whose checkout is a copy of the example at `path`.
    pub(crate) fn of(path: &str) -> Job {
        let checkout = tempfile::tempdir().unwrap();
        copy_dir(&workspace().join(path), checkout.path());
        Job {
            checkout,
            runner: tempfile::tempdir().unwrap(),
            env: Vec::new(),
            payload: None,
            action: None,
            script: "main.js",
        }
    }

    pub(crate) fn file(&self, path: &str) -> PathBuf {
        self.checkout.path().join(path)
    }

    /// Runs `sluiceway run` as the job's step would, with `path` as PATH.
    pub(crate) fn run_with(
        &self,
        bed: &Bed,
        event: &str,
        sha: &str,
        path: &str,
        inputs: &[(&str, &str)],
    ) -> Ran {
        let out = self
            .command(bed, event, sha, path, inputs)
            .output()
            .unwrap();
        self.ran(&out)
    }

    /// What a finished step left: its exit, log, outputs, summary and result file.
    pub(crate) fn ran(&self, out: &std::process::Output) -> Ran {
        let temp = self.runner.path();
        let output = temp.join("output.txt");
        let summary = temp.join("summary.md");
        let result_text =
            std::fs::read_to_string(temp.join("sluiceway-scan-result.json")).unwrap_or_default();
        Ran {
            code: out.status.code(),
            log: format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ),
            outputs: std::fs::read_to_string(&output)
                .unwrap_or_default()
                .lines()
                .filter_map(|l| l.split_once('='))
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect(),
            summary: std::fs::read_to_string(&summary).unwrap_or_default(),
            result: serde_json::from_str(&result_text).ok(),
            result_text,
        }
    }

    /// The step's command as a job's runner starts it, not yet started.
    pub(crate) fn command(
        &self,
        bed: &Bed,
        event: &str,
        sha: &str,
        path: &str,
        inputs: &[(&str, &str)],
    ) -> Command {
        let temp = self.runner.path();
        let output = temp.join("output.txt");
        let summary = temp.join("summary.md");
        let _ = std::fs::remove_file(&output);
        let _ = std::fs::remove_file(&summary);
        let _ = std::fs::remove_file(temp.join("sluiceway-scan-result.json"));
        let payload = temp.join("event.json");
        std::fs::write(
            &payload,
            self.payload
                .as_deref()
                .unwrap_or(r#"{"ref":"refs/heads/main","repository":{"default_branch":"main"}}"#),
        )
        .unwrap();
        let base = bed.emulator.base_url();
        let mut command = match &self.action {
            // As the action runs it: its shim picks and checks the binary.
            Some(action) => {
                let mut node = Command::new("node");
                node.arg(action.join("shim").join(self.script));
                node
            }
            None => {
                let mut binary = Command::new(env!("CARGO_BIN_EXE_sluiceway"));
                binary.arg("run");
                binary
            }
        };
        command
            .env_clear()
            .env("PATH", path)
            .env("HOME", temp)
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_EVENT_NAME", event)
            .env("GITHUB_EVENT_PATH", &payload)
            .env("GITHUB_REPOSITORY", REPO)
            .env("GITHUB_SHA", sha)
            .env("GITHUB_RUN_ID", "4242")
            .env("GITHUB_RUN_ATTEMPT", "1")
            .env("GITHUB_SERVER_URL", "https://github.com")
            .env("GITHUB_API_URL", &base)
            .env("GITHUB_GRAPHQL_URL", format!("{base}/graphql"))
            .env("GITHUB_WORKSPACE", self.checkout.path())
            .env("GITHUB_OUTPUT", &output)
            .env("GITHUB_STEP_SUMMARY", &summary)
            .env("RUNNER_TEMP", temp)
            .env("INPUT_GITHUB-TOKEN", "t")
            .env("INPUT_MODE", "scan")
            .env("INPUT_CONCURRENCY", "");
        command.envs(self.env.iter().map(|(k, v)| (k, v)));
        for (name, value) in inputs {
            command.env(format!("INPUT_{}", name.to_uppercase()), value);
        }
        command
    }

    pub(crate) fn run(&self, bed: &Bed, event: &str, sha: &str) -> Ran {
        let path = format!("{}:/usr/bin:/bin", tofu_dir().display());
        self.run_with(bed, event, sha, &path, &[])
    }
}

pub(crate) fn push(bed: &Bed, message: &str, files: &[&str]) -> String {
    bed.emulator
        .act(Act::Push {
            repo: REPO.into(),
            branch: "main".into(),
            author: Some("alice".into()),
            message: message.into(),
            files: files
                .iter()
                .map(|path| FileChange {
                    path: (*path).into(),
                    status: "modified".into(),
                    previous_path: None,
                    content: None,
                })
                .collect(),
        })
        .unwrap()
        .as_str()
        .unwrap()
        .to_owned()
}

pub(crate) fn dashboard(bed: &Bed) -> u64 {
    let open = bed.github.open_issues_labelled("sluiceway").unwrap();
    assert_eq!(open.len(), 1, "one dashboard");
    open[0].number
}

/// Each row's block, by stack.
pub(crate) fn blocks(body: &str) -> BTreeMap<String, String> {
    reader::read(body)
        .rows
        .into_iter()
        .map(|r| (r.facts.stack.clone(), r.text))
        .collect()
}

pub(crate) fn previewed(log: &str) -> Vec<String> {
    log.lines()
        .filter_map(|l| l.strip_prefix("Previewed "))
        .filter_map(|l| l.split(" in ").next())
        .map(str::to_owned)
        .collect()
}

/// The published schema, which must be the one the code generates.
pub(crate) fn schema() -> serde_json::Value {
    let text = std::fs::read_to_string(workspace().join("docs/formats/scan-result.schema.json"))
        .expect("docs/formats/scan-result.schema.json");
    serde_json::from_str(&text).unwrap()
}

pub(crate) fn assert_valid_result(ran: &Ran) {
    let result = ran.result.as_ref().expect("a result file");
    let validator = jsonschema::validator_for(&schema()).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(result)
        .map(|e| e.to_string())
        .collect();
    assert!(
        errors.is_empty(),
        "the result file departs from its schema: {errors:?}"
    );
}

pub(crate) fn tick(bed: &Bed, number: u64, person: &str, stack: &str) {
    bed.emulator
        .act(Act::Tick {
            repo: REPO.into(),
            issue: number,
            person: person.into(),
            line: stack.into(),
        })
        .unwrap();
}

/// `sluiceway run` on the dashboard's edit, in auto mode unless `inputs` name a mode,
/// with the pinned OpenTofu on PATH.
pub(crate) fn on_edit(
    bed: &Bed,
    job: &mut Job,
    sha: &str,
    number: u64,
    inputs: &[(&str, &str)],
) -> Ran {
    job.payload = Some(edit_event(bed, number));
    let path = format!("{}:/usr/bin:/bin", tofu_dir().display());
    let mut all = vec![("mode", "")];
    all.extend_from_slice(inputs);
    let ran = job.run_with(bed, "issues", sha, &path, &all);
    job.payload = None;
    ran
}

/// The payload GitHub sends when the dashboard's body is edited.
pub(crate) fn edit_event(bed: &Bed, number: u64) -> String {
    serde_json::json!({
        "action": "edited",
        "issue": {
            "number": number,
            "state": "open",
            "user": { "login": "github-actions[bot]" },
            "body": bed.body(number),
            "labels": [{ "name": "sluiceway" }],
            "html_url": format!("https://github.com/{REPO}/issues/{number}"),
        },
        "repository": { "default_branch": "main" },
    })
    .to_string()
}

/// The network stack with a real provisioner that sleeps for ten minutes, scanned and
/// ticked by alice: a deploy long enough to be timed out or killed in its middle.
/// Answers the commit and the dashboard's number.
pub(crate) fn slow_deploy_ticked(bed: &Bed, job: &Job) -> (String, u64) {
    let main = job.file("network/main.tf");
    let text = std::fs::read_to_string(&main).unwrap();
    std::fs::write(
        &main,
        format!("{text}\nresource \"terraform_data\" \"slow\" {{\n  provisioner \"local-exec\" {{\n    command = \"sleep 600\"\n  }}\n}}\n"),
    )
    .unwrap();
    let sha = push(bed, "the first commit", &["network/main.tf"]);
    let ran = job.run(bed, "push", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let number = dashboard(bed);
    tick(bed, number, "alice", "network");
    (sha, number)
}

/// A `tofu` in a folder of its own that does `act` when asked for `step` in the dev
/// workspace, and is the real tool otherwise.
pub(crate) fn misbehaving(step: &str, act: &str) -> tempfile::TempDir {
    wrapped_tofu(&format!(
        "if [ \"$1\" = {step} ] && [ \"$TF_WORKSPACE\" = dev ]; then\n  {act}\nfi"
    ))
}

/// A `tofu` in a folder of its own that runs the shell lines `first`, then is the real
/// tool.
pub(crate) fn wrapped_tofu(first: &str) -> tempfile::TempDir {
    let bin = tempfile::tempdir().unwrap();
    let wrapper = bin.path().join("tofu");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\n{first}\nexec {real} \"$@\"\n",
            real = tofu_dir().join("tofu").display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(
        &wrapper,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    bin
}

/// A successful deploy of `stack` at `sha`, as a record the dashboard did not open.
pub(crate) fn deployed(bed: &Bed, stack: &str, sha: &str) {
    deployed_at_hash(bed, stack, sha, "0123456789abcdef");
}

/// A successful deploy of `stack` at `sha` that deployed the diff with `hash`.
pub(crate) fn deployed_at_hash(bed: &Bed, stack: &str, sha: &str, hash: &str) {
    use sluiceway_github::{NewDeploymentRecord, NewDeploymentStatus, RecordState};
    let record = bed
        .github
        .create_deployment_record(&NewDeploymentRecord {
            sha: sha.into(),
            task: format!("sluiceway:{stack}"),
            environment: "sluiceway".into(),
            payload: serde_json::json!({"v": 1, "hash": hash, "ticker": "alice", "run": 41, "attempt": 1}),
            description: "deploy".into(),
        })
        .unwrap();
    bed.github
        .set_deployment_status(
            record.id,
            &NewDeploymentStatus {
                state: RecordState::Success,
                description: "deployed".into(),
                log_url: None,
            },
        )
        .unwrap();
}

/// Network's code without its subnets: a change that deletes a resource.
pub(crate) fn drop_the_subnets(job: &Job) {
    let main = job.file("network/main.tf");
    let text = std::fs::read_to_string(&main).unwrap();
    let kept = &text[..text
        .find("resource \"terraform_data\" \"subnets\"")
        .unwrap()];
    std::fs::write(
        &main,
        format!("{kept}output \"vpc\" {{\n  value = terraform_data.vpc.output\n}}\n"),
    )
    .unwrap();
}

/// A push to the default branch, as `login` sent it.
pub(crate) fn pushed_by(login: &str) -> String {
    serde_json::json!({
        "ref": "refs/heads/main",
        "repository": { "default_branch": "main" },
        "sender": { "login": login },
    })
    .to_string()
}

//! The binary the way a newcomer uses it: start it, read its address, `curl` an issue,
//! act as a person, and find the state kept in its file.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_newcomer_starts_it_and_reads_an_issue() {
    github_emulator::Descriptions::shared().unwrap_or_else(|e| panic!("{e}"));
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_sluiceway-github-emulator"))
        .args(["--port", "0", "--state"])
        .arg(&state)
        .arg("--check-against")
        .arg(github_emulator::Descriptions::default_dir())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let running = Running(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let base = line.split_whitespace().nth(2).unwrap().to_owned();
    assert!(base.starts_with("http://127.0.0.1:"), "{line}");

    let http = reqwest::blocking::Client::new();
    let issue: serde_json::Value = http
        .get(format!("{base}/repos/octo/infra/issues/1"))
        .bearer_auth("emulator-token")
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(issue["title"], "Sluiceway");
    assert_eq!(issue["user"]["login"], "github-actions[bot]");

    let refused = http
        .get(format!("{base}/repos/octo/infra/issues/1"))
        .send()
        .unwrap();
    assert_eq!(refused.status().as_u16(), 401);

    let tick = serde_json::json!({ "tick": { "repo": "octo/infra", "issue": 1, "person": "alice", "line": "apps/web" } });
    let acted = http
        .post(format!("{base}/_emulator/act"))
        .json(&tick)
        .send()
        .unwrap();
    assert_eq!(acted.status().as_u16(), 200);
    let fault = serde_json::json!({
        "on": "GET /repos/{owner}/{repo}/issues/{issue_number}",
        "times": 1,
        "kind": { "status": { "status": 502, "message": "Server Error" } },
    });
    assert_eq!(
        http.post(format!("{base}/_emulator/faults"))
            .json(&fault)
            .send()
            .unwrap()
            .status()
            .as_u16(),
        204
    );
    let issue = |http: &reqwest::blocking::Client| {
        http.get(format!("{base}/repos/octo/infra/issues/1"))
            .bearer_auth("emulator-token")
            .send()
            .unwrap()
    };
    assert_eq!(issue(&http).status().as_u16(), 502);
    assert_eq!(issue(&http).status().as_u16(), 200);
    let violations: Vec<String> = http
        .get(format!("{base}/_emulator/violations"))
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert!(violations.is_empty(), "{violations:?}");

    let saved: serde_json::Value = serde_json::from_slice(&std::fs::read(&state).unwrap()).unwrap();
    let edits = saved["repos"]["octo/infra"]["issues"]["1"]["edits"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(edits, 2, "the original and alice's tick");
    drop(running);
}

//! The console end to end: the real `sluiceway console serve`, GitHub's webhook
//! deliveries from the emulator after a real scan with the real OpenTofu, and the API's
//! answers held to the reference's published description (`v1.1.0`) itself.

/// The console crate's own PostgreSQL for tests, shared rather than copied.
#[path = "../../sluiceway-console/tests/support/mod.rs"]
mod postgres;
mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use github_emulator::Act;
use github_emulator::hooks::DeliveryFault;
use serde_json::Value;
use sluiceway_github::GitHub;
use support::Bed;
use support::job::*;

const SECRET: &str = "webhook-secret-for-the-tests";
/// Names and a value only a row's text holds: none may reach the console's database.
const RESOURCE_CANARY: &str = "canary-resource-7f3a";
const PATH_CANARY: &str = "canaryPath7f3a";

/// A console the binary serves, on a port of its own, with its SQLite in `data` or its
/// facts in the PostgreSQL database at `database`.
struct Console {
    child: Child,
    url: String,
    data: tempfile::TempDir,
    database: Option<String>,
}

impl Console {
    fn start() -> Console {
        Console::on(None)
    }

    fn on(database: Option<String>) -> Console {
        let data = tempfile::tempdir().unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_sluiceway"))
            .args(["console", "serve", "--listen", "127.0.0.1:0", "--data"])
            .arg(data.path())
            .args(database.iter().flat_map(|url| ["--database-url", url]))
            .env("SLUICEWAY_CONSOLE_WEBHOOK_SECRET", SECRET)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .trim()
            .strip_prefix("console listening on ")
            .unwrap_or_else(|| panic!("the console said {line:?}"))
            .to_owned();
        Console {
            child,
            url,
            data,
            database,
        }
    }

    /// A personal token made by the operator's command, against the same database.
    fn token(&self, org: &str, login: &str) -> String {
        let out = Command::new(env!("CARGO_BIN_EXE_sluiceway"))
            .args([
                "console", "token", "--org", org, "--login", login, "--name", "tests", "--data",
            ])
            .arg(self.data.path())
            .args(self.database.iter().flat_map(|url| ["--database-url", url]))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    }

    fn get(&self, path: &str, token: Option<&str>) -> (u16, Value) {
        let client = reqwest::blocking::Client::new();
        let mut request = client.get(format!("{}{path}", self.url));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let response = request.send().unwrap();
        let status = response.status().as_u16();
        (status, response.json().unwrap())
    }

    fn files(&self) -> Vec<PathBuf> {
        std::fs::read_dir(self.data.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect()
    }
}

impl Drop for Console {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The reference's API description, beside the checkout.
fn reference() -> Value {
    let path = support::workspace().join("../shared/conformance/app/v1.1.0/openapi.json");
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; CI has the shared corpus beside the checkout",
            path.display()
        )
    }))
    .unwrap()
}

/// Holds `answer` to a schema of the reference's document.
fn assert_valid(reference: &Value, schema: &str, answer: &Value) {
    let root = serde_json::json!({
        "$ref": format!("#/components/schemas/{schema}"),
        "components": reference["components"],
    });
    assert_eq!(
        problems(&root, answer),
        Vec::<String>::new(),
        "{schema}: {answer:#}"
    );
}

/// Holds `answer` to what the console's own document says `path` answers.
fn assert_valid_by_ours(ours: &Value, path: &str, answer: &Value) {
    let schema =
        &ours["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]["schema"];
    assert!(
        schema.is_object(),
        "the console's document describes {path}"
    );
    let mut root = schema.clone();
    root["components"] = ours["components"].clone();
    assert_eq!(
        problems(&root, answer),
        Vec::<String>::new(),
        "{path}: {answer:#}"
    );
}

/// What a JSON Schema (2020-12) finds wrong with `answer`, each with its place.
fn problems(schema: &Value, answer: &Value) -> Vec<String> {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .build(schema)
        .unwrap()
        .iter_errors(answer)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

/// Waits until `at_least` deliveries were made (a delivery is listed once it was
/// answered, dropped or found nobody), for a minute at most.
fn deliveries_answered(bed: &Bed, at_least: usize) -> Vec<github_emulator::hooks::Made> {
    let started = Instant::now();
    loop {
        let made = bed.emulator.deliveries();
        if made.len() >= at_least {
            return made;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "{made:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn with_canaries(job: &Job) {
    let main = job.file("network/main.tf");
    let mut text = std::fs::read_to_string(&main).unwrap();
    text.push_str(&format!(
        "\nresource \"terraform_data\" \"{RESOURCE_CANARY}\" {{\n  input = {{ {PATH_CANARY} = \"{CANARY}\" }}\n}}\n"
    ));
    std::fs::write(&main, text).unwrap();
}

/// `kept` names where each text was read from.
fn assert_no_canary(kept: &[(String, String)]) {
    assert!(!kept.is_empty());
    for (place, text) in kept {
        for canary in [RESOURCE_CANARY, PATH_CANARY, CANARY] {
            assert!(!text.contains(canary), "{canary} reached {place}");
        }
    }
}

/// Every file of the console's data folder, as text.
fn files(console: &Console) -> Vec<(String, String)> {
    console
        .files()
        .iter()
        .map(|file| {
            let bytes = std::fs::read(file).unwrap();
            (
                file.display().to_string(),
                String::from_utf8_lossy(&bytes).into_owned(),
            )
        })
        .collect()
}

#[test]
fn the_console_learns_a_scanned_dashboard_from_webhooks_and_answers_as_the_reference_describes() {
    let console = Console::start();
    learns_and_answers(&console);
    let kept = files(&console);
    assert!(kept.iter().any(|(file, _)| file.ends_with("console.db")));
    assert_no_canary(&kept);
}

#[test]
fn the_console_on_postgresql_learns_and_answers_alike_and_keeps_no_canary() {
    let Some(postgres) = postgres::Postgres::start() else {
        return;
    };
    let console = Console::on(Some(postgres.database("console")));
    learns_and_answers(&console);
    assert!(
        files(&console).is_empty(),
        "no SQLite file beside PostgreSQL"
    );
    let dump = postgres.dump("console");
    assert!(dump.contains("storage:dev"), "the dump holds the facts");
    assert_no_canary(&[("the PostgreSQL dump".to_owned(), dump)]);
}

/// The example scanned with the real OpenTofu, its rows naming canaries, with the
/// console's webhook registered first; answers the commit and the dashboard's number once
/// the console has been told.
fn scanned(bed: &Bed, console: &Console) -> (Job, String, u64) {
    bed.emulator
        .act(Act::AddHook {
            url: format!("{}/webhooks/github", console.url),
            secret: SECRET.into(),
        })
        .unwrap();
    let job = Job::new();
    with_canaries(&job);
    let sha = push(bed, "the first commit", &["network/main.tf"]);
    let ran = job.run(bed, "push", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let number = dashboard(bed);
    assert!(
        bed.body(number).contains(RESOURCE_CANARY),
        "the row names the resource"
    );
    let made = deliveries_answered(bed, 1);
    assert!(
        made.iter()
            .all(|m| m.event == "issues" && m.status == Some(200)),
        "{made:?}"
    );
    (job, sha, number)
}

/// A real scan whose rows name canaries, its deliveries, and every operation of this
/// version asked and held to the reference's description.
fn learns_and_answers(console: &Console) {
    let reference = reference();
    let bed = Bed::new();
    let (_, sha, number) = scanned(&bed, console);
    let made = bed.emulator.deliveries();

    let token = console.token("octo", "alice");
    let (status, me) = console.get("/api/v1/me", Some(&token));
    assert_eq!(status, 200, "{me}");
    assert_valid(&reference, "Me", &me);
    assert_eq!(
        (me["login"].as_str(), me["org"].as_str()),
        (Some("alice"), Some("octo"))
    );

    let (_, ours) = console.get("/api/v1/openapi.json", None);
    assert_valid_by_ours(&ours, "/api/v1/me", &me);
    let (status, org) = console.get("/api/v1/orgs/octo", Some(&token));
    assert_eq!(status, 200, "{org}");
    assert_valid(&reference, "Org", &org);
    assert_valid_by_ours(&ours, "/api/v1/orgs/{org}", &org);
    assert_eq!(org["repos"][0]["name"], "infra");
    assert_eq!(org["lastScan"]["sha"], sha.as_str());
    let stacks: Vec<(&str, &str)> = org["stacks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["stack"].as_str().unwrap(), s["state"].as_str().unwrap()))
        .collect();
    assert_eq!(
        stacks,
        [
            ("network", "pending"),
            ("storage:dev", "pending"),
            ("storage:prod", "pending")
        ]
    );
    assert_eq!(org["counts"]["pending"], 3);

    let (status, repo) = console.get("/api/v1/orgs/octo/repos/infra", Some(&token));
    assert_eq!(status, 200, "{repo}");
    assert_valid(&reference, "Repo", &repo);
    assert_valid_by_ours(&ours, "/api/v1/orgs/{org}/repos/{repo}", &repo);
    assert_eq!(repo["total"], 3);

    let (status, stack) = console.get(
        "/api/v1/orgs/octo/repos/infra/stacks/storage%3Adev",
        Some(&token),
    );
    assert_eq!(status, 200, "{stack}");
    assert_valid(&reference, "Stack", &stack);
    assert_eq!(stack["stack"], "storage:dev");
    let (_, network) = console.get("/api/v1/orgs/octo/repos/infra/stacks/network", Some(&token));
    assert_valid(&reference, "Stack", &network);
    assert_valid_by_ours(
        &ours,
        "/api/v1/orgs/{org}/repos/{repo}/stacks/{stack}",
        &network,
    );
    assert_eq!(network["counts"]["creates"], 3);
    assert_eq!(network["ticked"], false);

    // A tick on the issue reaches the console by its delivery; the same delivery twice
    // is applied once and answered both times.
    bed.emulator.arm_delivery(DeliveryFault::Repeat);
    tick(&bed, number, "alice", "network");
    let made = deliveries_answered(&bed, made.len() + 2);
    let (last, before) = (&made[made.len() - 1], &made[made.len() - 2]);
    assert_eq!(
        (last.id.as_str(), last.action.as_str()),
        (before.id.as_str(), "edited")
    );
    assert_eq!((last.status, before.status), (Some(200), Some(200)));
    let (_, network) = console.get("/api/v1/orgs/octo/repos/infra/stacks/network", Some(&token));
    assert_eq!(network["ticked"], true);

    // A dropped delivery is never applied; the next one brings the dashboard up to date.
    bed.emulator.arm_delivery(DeliveryFault::Drop);
    tick(&bed, number, "alice", "storage:dev");
    let made = deliveries_answered(&bed, made.len() + 1);
    assert_eq!(made.last().unwrap().status, None);
    let (_, dev) = console.get(
        "/api/v1/orgs/octo/repos/infra/stacks/storage%3Adev",
        Some(&token),
    );
    assert_eq!(
        dev["ticked"], false,
        "the dropped delivery told the console nothing"
    );
    tick(&bed, number, "alice", "storage:prod");
    deliveries_answered(&bed, made.len() + 1);
    let (_, dev) = console.get(
        "/api/v1/orgs/octo/repos/infra/stacks/storage%3Adev",
        Some(&token),
    );
    assert_eq!(dev["ticked"], true);
}

#[test]
fn every_bad_request_gets_the_described_error_and_changes_nothing() {
    let reference = reference();
    let console = Console::start();
    let token = console.token("octo", "alice");
    let other = console.token("elsewhere", "mallory");
    let cases: [(&str, Option<&str>, u16, &str); 6] = [
        ("/api/v1/me", None, 401, "no-token"),
        (
            "/api/v1/me",
            Some("sluiceway_notatokenthisconsolemade"),
            401,
            "token-not-working",
        ),
        (
            "/api/v1/me",
            Some("ghp_aGitHubToken"),
            401,
            "token-not-working",
        ),
        ("/api/v1/orgs/octo", Some(&other), 403, "not-a-member"),
        (
            "/api/v1/orgs/octo/repos/infra",
            Some(&token),
            404,
            "not-found",
        ),
        (
            "/api/v1/orgs/octo/repos/infra/stacks/apps/api",
            Some(&token),
            404,
            "not-found",
        ),
    ];
    for (path, token, status, code) in cases {
        let (got, error) = console.get(path, token);
        assert_eq!(
            (got, error["code"].as_str()),
            (status, Some(code)),
            "{path}: {error}"
        );
        assert_valid(&reference, "Error", &error);
    }

    // A delivery signed with another secret, or unsigned, or not JSON, is refused.
    let client = reqwest::blocking::Client::new();
    let body = br#"{"action":"opened"}"#;
    for (signature, status) in [
        (Some("sha256=00".to_owned()), 401),
        (None, 401),
        (
            Some(sluiceway_console::webhook::sign(SECRET.as_bytes(), b"[")),
            400,
        ),
    ] {
        let mut request = client
            .post(format!("{}/webhooks/github", console.url))
            .header("x-github-event", "issues")
            .header("x-github-delivery", "00000000-0000-4000-8000-000000000001")
            .body(if status == 400 {
                b"[".to_vec()
            } else {
                body.to_vec()
            });
        if let Some(signature) = signature {
            request = request.header("x-hub-signature-256", signature);
        }
        assert_eq!(request.send().unwrap().status().as_u16(), status);
    }
    let (_, org) = console.get("/api/v1/orgs/octo", Some(&token));
    assert_eq!(org["total"], 0, "nothing was written: {org}");
    assert_valid(&reference, "Org", &org);
}

#[test]
fn a_bad_setting_stops_the_console_by_its_name_and_never_its_value() {
    let data = tempfile::tempdir().unwrap();
    for (args, env, said) in [
        (
            vec!["--listen", "canary-host:port"],
            Some("x"),
            "--listen (SLUICEWAY_CONSOLE_LISTEN) is not an address and port",
        ),
        (vec![], None, "SLUICEWAY_CONSOLE_WEBHOOK_SECRET is not set"),
        (
            vec!["--database-url", "mysql://canary"],
            Some("x"),
            "--database-url (SLUICEWAY_CONSOLE_DATABASE_URL) is not a sqlite: or postgres: URL",
        ),
    ] {
        let mut command = Command::new(env!("CARGO_BIN_EXE_sluiceway"));
        command
            .args(["console", "serve", "--data"])
            .arg(data.path())
            .args(&args)
            .env_remove("SLUICEWAY_CONSOLE_WEBHOOK_SECRET");
        if let Some(secret) = env {
            command.env("SLUICEWAY_CONSOLE_WEBHOOK_SECRET", secret);
        }
        let out = command.output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(said), "{stderr}");
        assert!(!stderr.contains("canary"), "{stderr}");
        assert!(
            std::fs::read_dir(data.path()).unwrap().next().is_none(),
            "nothing was written"
        );
    }
}

/// `sluiceway <args>` as a person at a terminal without one: the token on standard input,
/// the configuration folder `home`'s.
fn person(home: &Path, args: &[&str], stdin: &str) -> (Option<i32>, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_sluiceway"))
        .args(args)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_person_signs_in_and_asks_the_console_from_the_command_line() {
    use std::os::unix::fs::PermissionsExt;
    let bed = Bed::new();
    let console = Console::start();
    scanned(&bed, &console);
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let token = console.token("octo", "alice");
    let app = console.url.as_str();

    let (code, _, said) = person(home, &["status"], "");
    assert_eq!(code, Some(3), "nobody is signed in: {said}");
    let (code, out, _) = person(home, &["status", "--json"], "");
    assert_eq!(code, Some(3));
    let failure: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (failure["code"].as_str(), failure["exit"].as_u64()),
        (Some("not-signed-in"), Some(3))
    );

    let (code, _, said) = person(home, &["login", "--app", app], "ghp_aGitHubToken\n");
    assert_eq!(code, Some(2), "not a Sluiceway token: {said}");
    let (code, _, said) = person(
        home,
        &["login", "--app", app],
        "sluiceway_unknowntothisconsole\n",
    );
    assert_eq!(code, Some(3), "a token the console does not know: {said}");
    let (code, _, said) = person(
        home,
        &["login", "--app", "http://console.example.com"],
        &token,
    );
    assert_eq!(code, Some(2), "plain http away from this machine: {said}");
    assert!(
        !home.join(".config/sluiceway/tokens.json").exists(),
        "nothing kept"
    );

    let (code, _, said) = person(home, &["login", "--app", app], &format!("{token}\n"));
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains("Signed in to") && said.contains("as alice for octo"),
        "{said}"
    );
    assert!(!said.contains(&token), "the token is never printed");
    let folder = home.join(".config/sluiceway");
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(
        (mode(&folder), mode(&folder.join("tokens.json"))),
        (0o700, 0o600)
    );

    let (code, out, said) = person(home, &["status", "--json"], "");
    assert_eq!(code, Some(0), "{said}");
    let (_, org) = console.get("/api/v1/orgs/octo", Some(&token));
    assert_eq!(
        serde_json::from_str::<Value>(&out).unwrap(),
        org,
        "--json prints the answer as it came"
    );
    let (code, out, _) = person(home, &["status"], "");
    assert_eq!(code, Some(0));
    insta::assert_snapshot!("console-status", out);
    let (code, out, _) = person(home, &["stack", "octo/infra", "network"], "");
    assert_eq!(code, Some(0));
    insta::assert_snapshot!(
        "console-stack",
        out.replace(&bed.emulator.base_url(), "<github>")
    );

    for (args, exit) in [
        (&["stack", "infra", "nowhere"][..], 4),
        (&["status", "elsewhere/infra"][..], 5),
        (&["status", "nothing-here"][..], 4),
    ] {
        let (code, out, _) = person(home, &[args, &["--json"]].concat(), "");
        assert_eq!(code, Some(exit), "{args:?}: {out}");
        assert_eq!(serde_json::from_str::<Value>(&out).unwrap()["exit"], exit);
    }

    let (code, _, said) = person(home, &["logout"], "");
    assert_eq!(code, Some(0), "{said}");
    let (code, _, _) = person(home, &["status"], "");
    assert_eq!(code, Some(3), "signed out");
}

#[test]
fn the_command_line_follows_no_redirect() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let mut stream = stream.unwrap();
            let mut request = [0u8; 4096];
            let _ = stream.read(&mut request);
            let _ = stream.write_all(
                b"HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:9/api/v1/me\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            );
        }
    });
    let home = tempfile::tempdir().unwrap();
    let (code, _, said) = person(
        home.path(),
        &["login", "--app", &format!("http://{address}")],
        "sluiceway_sometoken\n",
    );
    assert_eq!(code, Some(1), "{said}");
    assert!(said.contains("not a Sluiceway console"), "{said}");
}

#[test]
fn a_ticked_deploy_reaches_the_audit_log_from_its_records() {
    let reference = reference();
    let bed = Bed::new();
    let console = Console::start();
    let (mut job, sha, number) = scanned(&bed, &console);
    let token = console.token("octo", "alice");
    let network_in_org_view = || {
        let (_, org) = console.get("/api/v1/orgs/octo", Some(&token));
        org["stacks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["stack"] == "network")
            .map(|s| s["word"].as_str().unwrap().to_owned())
            .unwrap()
    };
    assert_eq!(network_in_org_view(), "pending");
    tick(&bed, number, "alice", "network");
    let resolved = on_edit(&bed, &mut job, &sha, number, &[("mode", "resolve")]);
    assert_eq!(resolved.code, Some(0), "{}", resolved.log);
    let record = bed.github.deployment_records("sluiceway").unwrap().records[0].id;
    let made = bed.emulator.deliveries().len();
    let applied = job.run_with(
        &bed,
        "issues",
        &sha,
        &format!("{}:/usr/bin:/bin", support::tofu_dir().display()),
        &[("mode", "apply"), ("deployment-id", &record.to_string())],
    );
    assert_eq!(applied.code, Some(0), "{}", applied.log);
    let made = deliveries_answered(&bed, made + 2);
    assert!(
        made.iter().any(|m| m.event == "deployment")
            && made.iter().any(|m| m.event == "deployment_status"),
        "{made:?}"
    );
    assert!(made.iter().all(|m| m.status == Some(200)), "{made:?}");

    let started = Instant::now();
    let deploy = loop {
        let (status, deploy) = console.get(
            &format!("/api/v1/orgs/octo/repos/infra/deployments/{record}"),
            Some(&token),
        );
        assert_eq!(status, 200, "{deploy}");
        if deploy["result"] != "waiting to start" || started.elapsed() > Duration::from_secs(30) {
            break deploy;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_valid(&reference, "Deploy", &deploy);
    let started = Instant::now();
    while network_in_org_view() == "pending" {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the org view, drawn again once the dashboard moved on, no longer says pending"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let (_, ours) = console.get("/api/v1/openapi.json", None);
    assert_valid_by_ours(
        &ours,
        "/api/v1/orgs/{org}/repos/{repo}/deployments/{deployment}",
        &deploy,
    );
    assert_eq!(
        (
            deploy["who"].as_str(),
            deploy["result"].as_str(),
            deploy["state"].as_str(),
            deploy["sha"].as_str()
        ),
        (
            Some("ticked by alice"),
            Some("went out"),
            Some("in-sync"),
            Some(sha.as_str())
        )
    );

    let (status, audit) = console.get("/api/v1/orgs/octo/audit", Some(&token));
    assert_eq!(status, 200, "{audit}");
    assert_valid(&reference, "Audit", &audit);
    assert_valid_by_ours(&ours, "/api/v1/orgs/{org}/audit", &audit);
    assert_eq!(audit["lines"].as_array().unwrap().len(), 1, "{audit}");
    assert_eq!(audit["lines"][0]["stack"], "network");
    let (_, other) = console.get("/api/v1/orgs/octo/audit?stack=storage%3Adev", Some(&token));
    assert_valid(&reference, "Audit", &other);
    assert!(other["lines"].as_array().unwrap().is_empty());

    let (_, stack) = console.get("/api/v1/orgs/octo/repos/infra/stacks/network", Some(&token));
    assert_valid(&reference, "Stack", &stack);
    assert_eq!(stack["lastDeploy"]["result"], "went out");
    assert_eq!(stack["lastDeploy"]["deployment"], record);
    let (status, missing) = console.get(
        "/api/v1/orgs/octo/repos/infra/deployments/999999",
        Some(&token),
    );
    assert_eq!((status, missing["code"].as_str()), (404, Some("not-found")));
}

#[test]
fn the_console_describes_its_own_api_at_the_reference_s_paths() {
    let reference = reference();
    let console = Console::start();
    let (status, ours) = console.get("/api/v1/openapi.json", None);
    assert_eq!(status, 200);
    assert_eq!(ours["openapi"], "3.1.0");
    let paths = ours["paths"].as_object().unwrap();
    let mut operations = Vec::new();
    for (path, item) in paths {
        let id = item["get"]["operationId"].as_str().unwrap();
        assert_eq!(
            reference["paths"][path]["get"]["operationId"].as_str(),
            Some(id),
            "{path} is the reference's path for {id}"
        );
        operations.push(id);
    }
    operations.sort_unstable();
    assert_eq!(
        operations,
        ["audit", "deployment", "me", "org", "repo", "stack"]
    );
    let (_, error) = console.get("/api/v1/me", None);
    assert_valid_by_ours(
        &{
            let mut doc = ours.clone();
            doc["paths"]["/error"]["get"]["responses"]["200"] =
                ours["paths"]["/api/v1/me"]["get"]["responses"]["401"].clone();
            doc
        },
        "/error",
        &error,
    );
}

#[test]
fn a_revoked_token_stops_working_and_a_token_has_120_reads_a_minute() {
    let reference = reference();
    let console = Console::start();
    let token = console.token("octo", "alice");
    assert_eq!(console.get("/api/v1/me", Some(&token)).0, 200);
    let revoke = |name: &str| {
        Command::new(env!("CARGO_BIN_EXE_sluiceway"))
            .args([
                "console", "revoke", "--org", "octo", "--login", "alice", "--name", name, "--data",
            ])
            .arg(console.data.path())
            .output()
            .unwrap()
    };
    assert_eq!(
        revoke("somewhere else").status.code(),
        Some(1),
        "no such token"
    );
    let revoked = revoke("tests");
    assert_eq!(
        revoked.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&revoked.stderr)
    );
    let (status, error) = console.get("/api/v1/me", Some(&token));
    assert_eq!(
        (status, error["code"].as_str()),
        (401, Some("token-not-working"))
    );

    let token = console.token("octo", "alice");
    let client = reqwest::blocking::Client::new();
    let mut answers = (0..121).map(|_| {
        client
            .get(format!("{}/api/v1/me", console.url))
            .bearer_auth(&token)
            .send()
            .unwrap()
    });
    // The minute may turn during the run: then the count starts again, and a second
    // run of 121 meets the limit.
    let limited = answers.find(|a| a.status().as_u16() == 429).or_else(|| {
        (0..121)
            .map(|_| {
                client
                    .get(format!("{}/api/v1/me", console.url))
                    .bearer_auth(&token)
                    .send()
                    .unwrap()
            })
            .find(|a| a.status().as_u16() == 429)
    });
    let limited = limited.expect("the 121st read in a minute is refused");
    let retry: u64 = limited.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    let error: Value = limited.json().unwrap();
    assert_eq!(error["code"], "rate-limited");
    assert_valid(&reference, "Error", &error);
}

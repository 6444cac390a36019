//! The console end to end: the real `sluiceway console serve`, GitHub's webhook
//! deliveries from the emulator after a real scan with the real OpenTofu, and the API's
//! answers held to the reference's published description (`v1.1.0`) itself.

/// The console crate's own PostgreSQL for tests, shared rather than copied.
#[path = "../../sluiceway-console/tests/support/mod.rs"]
mod postgres;
mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use github_emulator::Act;
use github_emulator::hooks::DeliveryFault;
use serde_json::Value;
use sluiceway_github::GitHub;
use support::console::*;
use support::job::*;
use support::{Bed, REPO};

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

#[test]
fn the_console_learns_a_scanned_dashboard_from_webhooks_and_answers_as_the_reference_describes() {
    let bed = Bed::new();
    let app = installed_app(&bed);
    let console = Console::of_app_by_deliveries(&bed, &app, None);
    learns_and_answers(&bed, &console);
    let kept = files(&console);
    assert!(kept.iter().any(|(file, _)| file.ends_with("console.db")));
    assert_no_canary(&kept);
}

#[test]
fn the_console_on_postgresql_learns_and_answers_alike_and_keeps_no_canary() {
    let Some(postgres) = postgres::Postgres::start() else {
        return;
    };
    let bed = Bed::new();
    let app = installed_app(&bed);
    let console = Console::of_app_by_deliveries(&bed, &app, Some(postgres.database("console")));
    learns_and_answers(&bed, &console);
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
fn learns_and_answers(bed: &Bed, console: &Console) {
    let reference = reference();
    let (_, sha, number) = scanned(bed, console);
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
    tick(bed, number, "alice", "network");
    let made = deliveries_answered(bed, made.len() + 2);
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
    tick(bed, number, "alice", "storage:dev");
    let made = deliveries_answered(bed, made.len() + 1);
    assert_eq!(made.last().unwrap().status, None);
    let (_, dev) = console.get(
        "/api/v1/orgs/octo/repos/infra/stacks/storage%3Adev",
        Some(&token),
    );
    assert_eq!(
        dev["ticked"], false,
        "the dropped delivery told the console nothing"
    );
    tick(bed, number, "alice", "storage:prod");
    deliveries_answered(bed, made.len() + 1);
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
    let app = installed_app(&bed);
    let console = Console::of_app_by_deliveries(&bed, &app, None);
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
    let app = installed_app(&bed);
    let console = Console::of_app_by_deliveries(&bed, &app, None);
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
        let (method, operation) = item.as_object().unwrap().iter().next().unwrap();
        let id = operation["operationId"].as_str().unwrap();
        assert_eq!(
            reference["paths"][path][method]["operationId"].as_str(),
            Some(id),
            "{method} {path} is the reference's for {id}"
        );
        operations.push(id);
    }
    operations.sort_unstable();
    // Every operation the reference describes, and no other.
    let mut described: Vec<&str> = reference["paths"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|item| item.as_object().unwrap().values())
        .filter_map(|operation| operation["operationId"].as_str())
        .collect();
    described.sort_unstable();
    assert_eq!(operations, described);
    assert_eq!(operations.len(), 11);
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

/// The runs GitHub started for dispatches of the dashboard's workflow, oldest first.
fn dispatched(bed: &Bed) -> Vec<u64> {
    let filter = sluiceway_github::RunsFilter {
        event: Some("workflow_dispatch".into()),
        status: None,
    };
    let mut runs: Vec<u64> = bed
        .github
        .workflow_runs("sluiceway.yml", &filter)
        .unwrap()
        .iter()
        .map(|r| r.id)
        .collect();
    runs.sort_unstable();
    runs
}

/// A person signed in to the console from a home folder of their own.
fn signed_in(console: &Console, login: &str) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let token = console.token("octo", login);
    let (code, _, said) = person(
        home.path(),
        &["login", "--app", &console.url],
        &format!("{token}\n"),
    );
    assert_eq!(code, Some(0), "{said}");
    home
}

#[test]
fn a_tick_from_the_command_line_opens_a_record_the_workflow_then_deploys() {
    let reference = reference();
    let bed = Bed::new();
    let app = installed_app(&bed);
    let console = Console::of_app(&bed, &app);
    let (mut job, sha, number) = scanned_for_the_app(&bed, &console);
    let alice = signed_in(&console, "alice");
    bed.emulator
        .act(Act::AddAccount {
            login: "bob".into(),
            kind: github_emulator::world::AccountKind::User,
        })
        .unwrap();
    member(&bed, "bob");
    let bob = signed_in(&console, "bob");

    // The preview is read from network's page on GitHub, as the description says.
    let token = console.token("octo", "alice");
    let (status, preview) = console.get(
        "/api/v1/orgs/octo/repos/infra/stacks/network/preview",
        Some(&token),
    );
    assert_eq!(status, 200, "{preview}");
    assert_valid(&reference, "Preview", &preview);
    let changes: Vec<(&str, &str)> = preview["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["action"].as_str().unwrap(), c["type"].as_str().unwrap()))
        .collect();
    assert_eq!(changes.len(), 2, "{preview}");
    assert!(
        changes.iter().all(|(action, _)| *action == "create"),
        "{preview}"
    );
    assert_eq!(
        (preview["unread"].as_u64(), preview["unlisted"].as_u64()),
        (Some(0), Some(0))
    );
    let (code, out, said) = person(alice.path(), &["preview", "infra", "network"], "");
    assert_eq!(code, Some(0), "{said}");
    assert!(out.starts_with("network · 2 creates"), "{out}");

    // The settings as the repository's file gives them, read at the scanned commit.
    let (status, config) = console.get("/api/v1/orgs/octo/repos/infra/config", Some(&token));
    assert_eq!(status, 200, "{config}");
    assert_valid(&reference, "Config", &config);
    assert_eq!(
        (
            config["file"].as_str(),
            config["problem"].as_str(),
            config["sha"].as_str()
        ),
        (Some("sluiceway.yaml"), None, Some(sha.as_str()))
    );
    assert_eq!(
        config["keys"]["recordWriters"],
        serde_json::json!([APP_BOT])
    );
    assert_eq!(config["keys"]["drift.enabled"], Value::Null);
    assert_eq!(config["pullRequest"]["base"], "main");

    // Once the console has read that file at the scanned commit, the repository's line
    // no longer says recordWriters may not name its bot.
    let started = Instant::now();
    loop {
        let (_, repo) = console.get("/api/v1/orgs/octo/repos/infra", Some(&token));
        assert_valid(&reference, "Repo", &repo);
        if repo["repo"]["recordWriter"].is_null() {
            break;
        }
        assert!(
            repo["repo"]["recordWriter"]
                .as_str()
                .unwrap()
                .starts_with("The console has not read sluiceway.yaml"),
            "{repo}"
        );
        assert!(started.elapsed() < Duration::from_secs(20), "never read");
        std::thread::sleep(Duration::from_millis(100));
    }

    // Bob cannot write to the repository: the tick is refused, and nothing is opened.
    let (code, out, said) = person(bob.path(), &["tick", "infra", "network", "--json"], "");
    assert_eq!(code, Some(5), "{said}");
    let answer: Value = serde_json::from_str(&out).unwrap();
    assert_valid(&reference, "TickAnswer", &answer);
    assert_eq!(answer["outcome"], "refused");
    assert_eq!(answer["sentence"], "bob cannot write to the repository.");
    assert!(
        bed.github
            .deployment_records("sluiceway")
            .unwrap()
            .records
            .is_empty()
    );

    // Alice can: the console opens network's record as its bot, for her, at the row's
    // hash, and asks for a run of the workflow.
    let (code, out, said) = person(
        alice.path(),
        &["tick", "infra", "network", "--wait", "0"],
        "",
    );
    assert_eq!(code, Some(0), "{said}");
    let records = bed.github.deployment_records("sluiceway").unwrap().records;
    assert_eq!(records.len(), 1, "{records:?}");
    let record = &records[0];
    let row_hash = row_hash(&bed, number, "network");
    assert_eq!(
        (
            record.task.as_str(),
            record.sha.as_str(),
            record.creator.as_deref(),
            record.payload["ticker"].as_str(),
            record.payload["hash"].as_str(),
        ),
        (
            "sluiceway:network",
            sha.as_str(),
            Some(APP_BOT),
            Some("alice"),
            Some(row_hash.as_str()),
        )
    );
    assert!(
        said.contains(&format!(
            "Record {} of network is open, and a run of sluiceway.yml was asked for",
            record.id
        )) && said.contains(&format!("Record {}", record.id)),
        "{said}{out}"
    );
    let runs = dispatched(&bed);
    assert_eq!(runs.len(), 1, "one run asked for");

    // A rescan while that run is queued asks for nothing more.
    let (code, out, said) = person(alice.path(), &["rescan", "infra", "--json"], "");
    assert_eq!(code, Some(5), "{said}");
    let answer: Value = serde_json::from_str(&out).unwrap();
    assert_valid(&reference, "RescanAnswer", &answer);
    assert_eq!(answer["outcome"], "refused");
    assert_eq!(dispatched(&bed).len(), 1);

    // The dispatched run's resolve starts the record and its apply deploys it.
    job.env.push(("GITHUB_RUN_ID".into(), runs[0].to_string()));
    job.payload = Some(
        r#"{"ref":"refs/heads/main","repository":{"default_branch":"main"},"inputs":{}}"#.into(),
    );
    let path = format!("{}:/usr/bin:/bin", support::tofu_dir().display());
    let ran = job.run_with(&bed, "workflow_dispatch", &sha, &path, &[("mode", "")]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(
        ran.log.contains(&format!(
            "network: {APP_BOT}, a record writer, opened record {} outside the dashboard, so its deploy starts now.",
            record.id
        )) && ran.log.contains("network: deployed."),
        "{}",
        ran.log
    );
    assert!(job.file("network/terraform.tfstate").exists());
    end_run(&bed, runs[0]);

    // The box is taken while nothing waits: a second tick of network is refused.
    let (code, _, said) = person(
        alice.path(),
        &["tick", "infra", "network", "--wait", "0"],
        "",
    );
    assert_eq!(code, Some(5), "{said}");

    // With no run under way, a rescan is asked for.
    let (code, _, said) = person(alice.path(), &["rescan", "infra"], "");
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains("A full scan was asked for: a run of sluiceway.yml on main."),
        "{said}"
    );
    assert_eq!(dispatched(&bed).len(), 2);
    // Only the rescan that was asked for is in the audit log's asked lines.
    let (_, audit) = console.get("/api/v1/orgs/octo/audit", Some(&token));
    assert_valid(&reference, "Audit", &audit);
    let asked: Vec<(&str, &str)> = audit["asked"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["who"].as_str().unwrap(), a["words"].as_str().unwrap()))
        .collect();
    assert_eq!(asked, [("alice", "asked for a full scan")]);
}

/// The hash of a stack's row on the dashboard now.
fn row_hash(bed: &Bed, number: u64, stack: &str) -> String {
    sluiceway_dashboard::reader::read(&bed.body(number))
        .rows
        .into_iter()
        .find(|r| r.facts.stack == stack)
        .and_then(|r| r.facts.hash)
        .unwrap()
}

/// The record of `stack` the console opens once its tick's delivery is picked up.
fn picked_up(bed: &Bed, stack: &str) -> sluiceway_github::DeploymentRecord {
    let task = format!("sluiceway:{stack}");
    let started = Instant::now();
    loop {
        let records = bed.github.deployment_records("sluiceway").unwrap().records;
        if let Some(found) = records.into_iter().find(|r| r.task == task) {
            return found;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{stack} never picked up"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_tick_on_the_dashboard_is_picked_up_and_the_run_for_the_edit_takes_its_record_over() {
    let bed = Bed::new();
    let app = installed_app(&bed);
    let console = Console::of_app(&bed, &app);
    let (mut job, sha, number) = scanned_for_the_app(&bed, &console);
    let row_hash = row_hash(&bed, number, "network");

    // Alice ticks network's box on the issue; the edit's delivery reaches the console,
    // which opens the record as its bot, for her, at the row's hash, before any run.
    tick(&bed, number, "alice", "network");
    let record = &picked_up(&bed, "network");
    assert_eq!(
        bed.github
            .deployment_records("sluiceway")
            .unwrap()
            .records
            .len(),
        1
    );
    assert_eq!(
        (
            record.task.as_str(),
            record.creator.as_deref(),
            record.payload["ticker"].as_str(),
            record.payload["hash"].as_str(),
        ),
        (
            "sluiceway:network",
            Some(APP_BOT),
            Some("alice"),
            Some(row_hash.as_str())
        )
    );
    assert!(
        dispatched(&bed).is_empty(),
        "the edit's own run is on its way"
    );

    // The run GitHub starts for the edit takes the record over and deploys network.
    let ran = on_edit(&bed, &mut job, &sha, number, &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(
        ran.log.contains(&format!(
            "network: record {}, opened by a record writer for this tick, is carried on in this run's record.",
            record.id
        )) && ran.log.contains("network: deployed."),
        "{}",
        ran.log
    );
    assert!(job.file("network/terraform.tfstate").exists());
    let records = bed.github.deployment_records("sluiceway").unwrap().records;
    let ended = |id: u64| {
        let status = records
            .iter()
            .find(|r| r.id == id)
            .and_then(|r| r.latest_status.clone())
            .unwrap();
        (status.state, status.description)
    };
    assert_eq!(
        ended(record.id),
        (
            sluiceway_github::RecordState::Inactive,
            "started in a later run".to_owned()
        )
    );
    let own: Vec<_> = records.iter().filter(|r| r.id != record.id).collect();
    assert_eq!(own.len(), 1, "{records:?}");
    assert_eq!(
        ended(own[0].id).0,
        sluiceway_github::RecordState::Success,
        "{records:?}"
    );

    // A tick the run does not let through (alice lost write access after the console
    // opened the record) ends the console's record, and nothing is deployed.
    tick(&bed, number, "alice", "storage:dev");
    let picked = picked_up(&bed, "storage:dev").id;
    bed.emulator
        .act(Act::AddCollaborator {
            repo: REPO.into(),
            login: "alice".into(),
            role: github_emulator::world::Role::Read,
        })
        .unwrap();
    let ran = on_edit(&bed, &mut job, &sha, number, &[]);
    assert!(
        ran.log.contains(&format!(
            "storage:dev: record {picked}, opened by a record writer for this tick, was ended: the tick was not let through."
        )),
        "{}",
        ran.log
    );
    let records = bed.github.deployment_records("sluiceway").unwrap().records;
    let status = records
        .iter()
        .find(|r| r.id == picked)
        .and_then(|r| r.latest_status.clone())
        .unwrap();
    assert_eq!(
        (status.state, status.description.as_str()),
        (
            sluiceway_github::RecordState::Inactive,
            "the dashboard's run did not let the tick through"
        )
    );
    assert!(
        records
            .iter()
            .all(|r| r.task != "sluiceway:storage:dev" || r.id == picked),
        "{records:?}"
    );
    assert!(!ran.log.contains("storage:dev: deployed."), "{}", ran.log);
}

#[test]
fn a_settings_change_opens_one_pull_request_that_changes_only_its_keys() {
    let reference = reference();
    let bed = Bed::new();
    let app = installed_app(&bed);
    let console = Console::of_app(&bed, &app);
    let (_job, sha, _) = scanned_for_the_app(&bed, &console);
    let before = bed.github.file_at("sluiceway.yaml", &sha).unwrap().unwrap();
    let alice = signed_in(&console, "alice");

    // Keys that are not the editor's are refused before GitHub is asked anything.
    let (code, _, said) = person(
        alice.path(),
        &[
            "settings",
            "infra",
            "set",
            "dashboard.colour=red",
            "tickers=[a]",
        ],
        "",
    );
    assert_eq!(code, Some(5), "{said}");
    assert!(said.contains("dashboard.colour is not a key"), "{said}");
    let token = console.token("octo", "alice");
    let client = reqwest::blocking::Client::new();
    let post = |token: &str, body: &str| -> (u16, Value) {
        let response = client
            .post(format!(
                "{}/api/v1/orgs/octo/repos/infra/config/pull-request",
                console.url
            ))
            .bearer_auth(token)
            .header("content-type", "application/json")
            .body(body.to_owned())
            .send()
            .unwrap();
        (response.status().as_u16(), response.json().unwrap())
    };
    let (status, refused) = post(&token, "not json");
    assert_eq!(status, 400, "{refused}");
    assert_valid(&reference, "ChangesRefused", &refused);
    assert_eq!(bed.github.branch_head("sluiceway/dashboard").unwrap(), None);

    // A person who cannot write to the repository is refused.
    bed.emulator
        .act(Act::AddAccount {
            login: "bob".into(),
            kind: github_emulator::world::AccountKind::User,
        })
        .unwrap();
    member(&bed, "bob");
    let bob = console.token("octo", "bob");
    let (status, error) = post(
        &bob,
        r#"{"changes":[{"key":"drift.enabled","value":false}]}"#,
    );
    assert_eq!(
        (status, error["code"].as_str()),
        (403, Some("no-write-access"))
    );
    assert_valid(&reference, "Error", &error);

    // Alice's change: one pull request from sluiceway/dashboard to main.
    let (code, out, said) = person(
        alice.path(),
        &[
            "settings",
            "infra",
            "set",
            "dashboard.title=Platform deploys",
            "drift.enabled=false",
            "stacks[storage:prod].deploy=on-merge",
        ],
        "",
    );
    assert_eq!(code, Some(0), "{said}");
    assert!(said.starts_with("Opened pull request #"), "{said}");
    let opened = bed
        .github
        .pull_request_from("sluiceway/dashboard")
        .unwrap()
        .unwrap();
    assert_eq!(out.trim(), opened.html_url);
    let after = bed
        .github
        .file_at("sluiceway.yaml", "sluiceway/dashboard")
        .unwrap()
        .unwrap();
    // Every line of the file stays, in order, but the title's; three lines are new.
    let kept: Vec<&str> = before
        .lines()
        .filter(|l| *l != "  title: Quickstart deploys")
        .collect();
    let mut rest = after.lines();
    for line in &kept {
        assert!(rest.any(|l| l == *line), "lost {line:?}:\n{after}");
    }
    assert_eq!(after.lines().count(), before.lines().count() + 3, "{after}");
    assert!(
        after.starts_with("# yaml-language-server: $schema="),
        "{after}"
    );
    let loaded = sluiceway_core::config::load("sluiceway.yaml", &after).unwrap();
    assert_eq!(loaded.settings.dashboard.title, "Platform deploys");
    assert_eq!(
        loaded.entries[2].deploy,
        Some(sluiceway_core::config::DeployTrigger::OnMerge)
    );
    assert!(loaded.entries[..2].iter().all(|e| e.deploy.is_none()));
    // The default branch is the person's to change, by merging.
    assert_eq!(
        bed.github
            .file_at("sluiceway.yaml", "main")
            .unwrap()
            .unwrap(),
        before
    );

    // The audit log keeps what alice asked, with the pull request's address.
    let (status, audit) = console.get("/api/v1/orgs/octo/audit?repo=infra", Some(&token));
    assert_eq!(status, 200, "{audit}");
    assert_valid(&reference, "Audit", &audit);
    assert_eq!(
        audit["asked"],
        serde_json::json!([{
            "at": audit["asked"][0]["at"],
            "repo": "infra",
            "who": "alice",
            "words": format!("opened pull request #{} to change 3 settings", opened.number),
            "link": opened.html_url,
            "via": "command line",
        }])
    );

    // A token of someone who does not belong to the org reads nothing, and when GitHub
    // does not say whether one does, nothing is answered.
    let dave = console.token("octo", "dave");
    let (status, error) = console.get("/api/v1/orgs/octo", Some(&dave));
    assert_eq!(
        (status, error["code"].as_str()),
        (403, Some("not-a-member"))
    );
    assert_valid(&reference, "Error", &error);
    bed.arm(
        "GET /orgs/{org}/members/{username}",
        github_emulator::FaultKind::Status {
            status: 502,
            message: "Server Error".into(),
        },
    );
    let erin = console.token("octo", "erin");
    let (status, error) = console.get("/api/v1/me", Some(&erin));
    assert_eq!(
        (status, error["code"].as_str()),
        (503, Some("github-silent"))
    );
    assert_valid(&reference, "Error", &error);

    // A second change waits for that pull request.
    let (status, answer) = post(
        &token,
        r#"{"changes":[{"key":"dashboard.title","value":null}]}"#,
    );
    assert_eq!(status, 200, "{answer}");
    assert_valid(&reference, "PullRequestAnswer", &answer);
    assert_eq!(answer["outcome"], "pull-request-open");
    assert_eq!(answer["pullRequest"].as_u64(), Some(opened.number));

    // The settings as the command line lists them.
    let (code, out, said) = person(alice.path(), &["settings", "infra"], "");
    assert_eq!(code, Some(0), "{said}");
    assert!(
        out.contains("dashboard.title = \"Quickstart deploys\""),
        "{out}"
    );
    assert!(
        out.contains("stacks[storage:prod].deploy = (default)"),
        "{out}"
    );

    // Once the app is uninstalled from the org, a token of it answers that the app left.
    bed.emulator
        .act(Act::Uninstall {
            app: app.id,
            account: "octo".into(),
            sender: "alice".into(),
        })
        .unwrap();
    let started = Instant::now();
    loop {
        let (status, error) = console.get("/api/v1/orgs/octo", Some(&token));
        if status == 403 {
            assert_eq!(error["code"], "org-gone", "{error}");
            assert_valid(&reference, "Error", &error);
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{status} {error}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let uninstalled = bed.emulator.deliveries();
    let last = uninstalled.last().unwrap();
    assert_eq!(
        (last.event.as_str(), last.action.as_str(), last.status),
        ("installation", "deleted", Some(200))
    );
}

#[test]
fn a_delivery_that_never_came_is_caught_up_from_github() {
    let bed = Bed::new();
    let app = installed_app(&bed);
    let console = Console::of_app(&bed, &app);
    let (_, _, number) = scanned_for_the_app(&bed, &console);
    let token = console.token("octo", "alice");

    bed.emulator.arm_delivery(DeliveryFault::Drop);
    tick(&bed, number, "alice", "storage:dev");
    let started = Instant::now();
    while !bed.emulator.deliveries().iter().any(|m| m.status.is_none()) {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the tick's delivery was never lost"
        );
        std::thread::sleep(Duration::from_millis(50));
    }

    // Within a few rounds of the catch-up, the console reads the dashboard from GitHub.
    let started = Instant::now();
    loop {
        let (_, dev) = console.get(
            "/api/v1/orgs/octo/repos/infra/stacks/storage%3Adev",
            Some(&token),
        );
        if dev["ticked"] == true {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "never caught up: {dev}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn a_person_signs_in_with_github_and_makes_a_token_shown_once() {
    let reference = reference();
    let bed = Bed::new();
    let app = installed_app(&bed);
    let console = Console::of_app(&bed, &app);
    scanned_for_the_app(&bed, &console);
    bed.emulator
        .act(Act::AddMember {
            org: "octo".into(),
            login: "alice".into(),
        })
        .unwrap();
    let browser = reqwest::blocking::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();

    // A callback whose state is not the cookie's signs nobody in.
    let forged = browser
        .get(format!(
            "{}/signin/callback?code=anything&state=guessed",
            console.url
        ))
        .header("cookie", "sluiceway_signin=another")
        .send()
        .unwrap();
    assert_eq!(forged.status().as_u16(), 400);
    assert!(set_cookie(&forged, "sluiceway_session").is_none());

    // alice, a member of octo, is signed in for eight hours.
    let signed = sign_in(&console, "alice");
    assert_eq!(signed.status().as_u16(), 303);
    assert_eq!(
        location(&signed),
        "/",
        "a person signed in lands on the front door"
    );
    let (session, header) = set_cookie(&signed, "sluiceway_session").expect("a session");
    assert!(
        header.contains("HttpOnly")
            && header.contains("SameSite=Lax")
            && header.contains("Max-Age=28800"),
        "{header}"
    );
    let cookie = format!("sluiceway_session={session}");
    let page = browser
        .get(format!("{}/tokens", console.url))
        .header("cookie", &cookie)
        .send()
        .unwrap()
        .text()
        .unwrap();
    assert!(
        page.contains("Signed in as <strong>alice</strong>"),
        "{page}"
    );
    let form_token = page
        .split("name=\"form_token\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap()
        .to_owned();

    // The session is no key to the API.
    let api = browser
        .get(format!("{}/api/v1/me", console.url))
        .header("cookie", &cookie)
        .send()
        .unwrap();
    assert_eq!(api.status().as_u16(), 401);

    // A form without the page's form token makes nothing.
    let forged = browser
        .post(format!("{}/tokens", console.url))
        .header("cookie", &cookie)
        .form(&[
            ("form_token", "not-it"),
            ("org", "octo"),
            ("name", "laptop"),
            ("days", "30"),
        ])
        .send()
        .unwrap();
    assert_eq!(forged.status().as_u16(), 403);

    // With it, a token is made and shown once; it works on the API as alice in octo.
    let made = browser
        .post(format!("{}/tokens", console.url))
        .header("cookie", &cookie)
        .form(&[
            ("form_token", form_token.as_str()),
            ("org", "octo"),
            ("name", "laptop"),
            ("days", "30"),
        ])
        .send()
        .unwrap();
    assert_eq!(made.status().as_u16(), 200);
    let page = made.text().unwrap();
    let token = page
        .split("<code id=\"token\">")
        .nth(1)
        .and_then(|rest| rest.split('<').next())
        .unwrap()
        .to_owned();
    assert!(token.starts_with("sluiceway_"), "{page}");
    let (status, me) = console.get("/api/v1/me", Some(&token));
    assert_eq!(status, 200, "{me}");
    assert_valid(&reference, "Me", &me);
    assert_eq!(
        (me["login"].as_str(), me["org"].as_str()),
        (Some("alice"), Some("octo"))
    );
    let kept = files(&console);
    assert!(
        kept.iter()
            .all(|(_, text)| !text.contains(&token) && !text.contains(&session)),
        "only hashes are kept"
    );

    // Signing out ends the session.
    let out = browser
        .post(format!("{}/signout", console.url))
        .header("cookie", &cookie)
        .form(&[("form_token", form_token.as_str())])
        .send()
        .unwrap();
    assert_eq!(out.status().as_u16(), 200);
    let after = browser
        .get(format!("{}/tokens", console.url))
        .header("cookie", &cookie)
        .send()
        .unwrap();
    assert_eq!(
        (after.status().as_u16(), location(&after)),
        (303, "/signin".to_owned())
    );

    // carol belongs to no org this console serves: she is not signed in.
    bed.emulator
        .act(Act::AddAccount {
            login: "carol".into(),
            kind: github_emulator::world::AccountKind::User,
        })
        .unwrap();
    let refused = sign_in(&console, "carol");
    assert_eq!(refused.status().as_u16(), 403);
    assert!(set_cookie(&refused, "sluiceway_session").is_none());
}

/// `scripts/playground.sh`, started as a person starts it, with the binaries the tests
/// built; its lines by key once it has printed them all.
struct Playground {
    child: Child,
    said: std::collections::BTreeMap<String, String>,
}

impl Playground {
    fn start() -> Playground {
        use std::os::unix::process::CommandExt;
        let binaries = Path::new(env!("CARGO_BIN_EXE_sluiceway")).parent().unwrap();
        let mut child = Command::new(support::workspace().join("scripts/playground.sh"))
            .env("SLUICEWAY_PLAYGROUND_BINARIES", binaries)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .process_group(0)
            .spawn()
            .unwrap();
        let mut said = std::collections::BTreeMap::new();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        while said.len() < 6 {
            let line = lines
                .next()
                .unwrap_or_else(|| panic!("the playground ended having said {said:?}"))
                .unwrap();
            if let Some((key, value)) = line.split_once('=') {
                said.insert(key.to_owned(), value.to_owned());
            }
        }
        Playground { child, said }
    }

    fn said(&self, key: &str) -> &str {
        &self.said[key]
    }

    /// Interrupts it as Ctrl-C would, and waits for it to end.
    fn interrupt(&mut self) {
        let group = format!("-{}", self.child.id());
        // `--`: the system's kill would read a negative process group as an option.
        let sent = Command::new("kill")
            .args(["-s", "INT", "--", &group])
            .status()
            .unwrap();
        assert!(sent.success());
        self.child.wait().unwrap();
    }
}

impl Drop for Playground {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-s", "TERM", "--", &format!("-{}", self.child.id())])
            .status();
        let _ = self.child.wait();
    }
}

#[test]
fn the_playground_brings_up_a_console_that_answers_every_operation_as_described() {
    let reference = reference();
    let mut playground = Playground::start();
    let keys: Vec<&str> = playground.said.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        ["console", "github", "org", "repo", "signin", "token"]
    );
    let (github, console, token) = (
        playground.said("github").to_owned(),
        playground.said("console").to_owned(),
        playground.said("token").to_owned(),
    );
    let (org, repo) = (playground.said("org"), playground.said("repo"));
    let client = reqwest::blocking::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let ask = |method: reqwest::Method, path: &str| -> (u16, Value) {
        let response = client
            .request(method, format!("{console}{path}"))
            .bearer_auth(&token)
            .send()
            .unwrap();
        (response.status().as_u16(), response.json().unwrap())
    };
    let get = |path: &str| ask(reqwest::Method::GET, path);

    // Every operation of the reference's description answers, each as it describes.
    let base = format!("/api/v1/orgs/{org}/repos/{repo}");
    for (path, schema) in [
        ("/api/v1/me".to_owned(), "Me"),
        (format!("/api/v1/orgs/{org}"), "Org"),
        (base.clone(), "Repo"),
        (format!("{base}/stacks/network"), "Stack"),
        (format!("{base}/stacks/network/preview"), "Preview"),
        (format!("{base}/config"), "Config"),
        (format!("/api/v1/orgs/{org}/audit"), "Audit"),
    ] {
        let (status, answer) = get(&path);
        assert_eq!(status, 200, "{path}: {answer}");
        assert_valid(&reference, schema, &answer);
    }
    let (status, ticked) = ask(
        reqwest::Method::POST,
        &format!("{base}/stacks/network/tick"),
    );
    assert_eq!(status, 200, "{ticked}");
    assert_valid(&reference, "TickAnswer", &ticked);
    assert_eq!(ticked["outcome"], "asked", "{ticked}");
    let id = ticked["deployment"]["id"].as_u64().unwrap();
    let (status, deploy) = get(&format!("{base}/deployments/{id}"));
    // The record reaches the console by its delivery.
    let started = Instant::now();
    let mut deploy = (status, deploy);
    while deploy.0 != 200 && started.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(200));
        deploy = get(&format!("{base}/deployments/{id}"));
    }
    assert_eq!(deploy.0, 200, "{}", deploy.1);
    assert_valid(&reference, "Deploy", &deploy.1);
    let (status, rescan) = ask(reqwest::Method::POST, &format!("{base}/rescan"));
    assert_eq!(status, 200, "{rescan}");
    assert_valid(&reference, "RescanAnswer", &rescan);
    let changed = client
        .post(format!("{console}{base}/config/pull-request"))
        .bearer_auth(&token)
        .json(&serde_json::json!({ "changes": [{ "key": "drift.enabled", "value": false }] }))
        .send()
        .unwrap();
    assert_eq!(changed.status().as_u16(), 200);
    let changed: Value = changed.json().unwrap();
    assert_valid(&reference, "PullRequestAnswer", &changed);
    assert_eq!(changed["outcome"], "opened", "{changed}");

    // The sign-in link signs alice in through the emulator and lands on a page of hers.
    let started = client.get(playground.said("signin")).send().unwrap();
    assert_eq!(started.status().as_u16(), 302);
    let (state, _) = set_cookie(&started, "sluiceway_signin").unwrap();
    let approved = client.get(location(&started)).send().unwrap();
    let landed = client
        .get(location(&approved))
        .header("cookie", format!("sluiceway_signin={state}"))
        .send()
        .unwrap();
    assert_eq!(landed.status().as_u16(), 303);
    assert!(set_cookie(&landed, "sluiceway_session").is_some());

    // Interrupted, it stops everything it started.
    playground.interrupt();
    for address in [&github, &console] {
        assert!(
            client.get(address.as_str()).send().is_err(),
            "{address} still answers"
        );
    }
}

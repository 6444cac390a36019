//! The console, measured: the org view's answer over HTTP from a console holding 10 to
//! 200 repositories of 50 stacks (10,000 stacks at the top), against the same console's
//! smallest answer (`/me`: the same token check and HTTP, no facts) as the plain baseline;
//! the org view's page, drawn for a signed-in person, against the API's answer of the
//! same facts;
//! the store's own read of those facts; and the resident memory of the real `sluiceway
//! console serve` idle and holding 10,000 stacks.
//!
//! And a box ticked on a dashboard, picked up: from the tick on GitHub's emulator to
//! the console's record open there, against the emulator's own round trip of a record
//! opened directly (one request for the record, one for its status) as the baseline.
//! The console is the app on GitHub's emulator throughout: a token's membership is asked
//! of it once a minute.
//!
//! `cargo bench -p sluiceway --bench console`; it prints one line per measurement.

#![allow(
    clippy::print_stdout,
    reason = "a benchmark binary reports its figures"
)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use sluiceway_console::facts::{Dashboard, Scan, StackFacts};
use sluiceway_console::store::{RepoPlace, Store};
use sluiceway_dashboard::facts::RowState;

const STACKS_A_REPO: usize = 50;
const ROUNDS: usize = 41;

/// `repos` repositories of fifty stacks in every state, written as deliveries would.
async fn fill(store: &Store, repos: usize) {
    let states = [
        RowState::Pending,
        RowState::InSync,
        RowState::Drift,
        RowState::Queued,
        RowState::PreviewFailed,
    ];
    for r in 0..repos {
        let name = format!("repo-{r:03}");
        let place = RepoPlace {
            org: "octo".into(),
            org_kind: "Organization".into(),
            name: name.clone(),
            html_url: format!("https://github.example/octo/{name}"),
            dashboard_number: 1,
            dashboard_url: format!("https://github.example/octo/{name}/issues/1"),
        };
        let dashboard = Dashboard {
            scan: Scan {
                sha: format!("{r:040}"),
                run: 7,
                at: "2026-12-07T12:00:00Z".parse().unwrap(),
            },
            stacks: (0..STACKS_A_REPO)
                .map(|s| StackFacts {
                    stack: format!("apps/service-{s:02}:prod"),
                    state: states[s % states.len()],
                    creates: 2,
                    updates: 1,
                    replaces: u64::from(s % 7 == 0),
                    deletes: 0,
                    destroys: u64::from(s % 7 == 0),
                    tracking: 0,
                    changed: 1,
                    gone: 0,
                    failed: false,
                    busy: false,
                    ticked: false,
                })
                .collect(),
        };
        store
            .apply_dashboard(
                &format!("delivery-{r}"),
                "issues",
                "2026-12-07T12:00:00Z".parse().unwrap(),
                &place,
                &dashboard,
            )
            .await
            .unwrap();
    }
}

/// GitHub's emulator with the console's app installed on `octo` (its repositories
/// `repos`, alice a member who may write to each); answers it, the app's id and its
/// private key.
fn github(repos: &[&str]) -> (github_emulator::Emulator, u64, String) {
    use github_emulator::world::{Level, Role, World};
    use github_emulator::{Act, Emulator, Options};
    let emulator = Emulator::start(World::new(jiff::Timestamp::now()), Options::default()).unwrap();
    let (private, public) = github_emulator::apps::key_pair();
    let act = |act: Act| emulator.act(act).unwrap();
    for repo in repos {
        act(Act::AddRepo {
            repo: format!("octo/{repo}"),
            default_branch: "main".into(),
        });
        act(Act::AddCollaborator {
            repo: format!("octo/{repo}"),
            login: "alice".into(),
            role: Role::Write,
        });
    }
    act(Act::AddMember {
        org: "octo".into(),
        login: "alice".into(),
    });
    let app = act(Act::AddApp {
        slug: "sluiceway-console".into(),
        public_key_pem: public,
    })["id"]
        .as_u64()
        .unwrap();
    let permissions = [
        ("actions", Level::Write),
        ("contents", Level::Read),
        ("deployments", Level::Write),
        ("issues", Level::Read),
        ("members", Level::Read),
        ("metadata", Level::Read),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    act(Act::Install {
        app,
        account: "octo".into(),
        permissions,
    });
    (emulator, app, private)
}

/// A served console on its own port, and its address: the app `app` on the GitHub at
/// `api`, never catching up while measured.
fn serve(data: &std::path::Path, api: &str, app: u64, private: &str) -> (Child, String) {
    let key = data.join("app.pem");
    std::fs::write(&key, private).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_sluiceway"))
        .args(["console", "serve", "--listen", "127.0.0.1:0", "--data"])
        .arg(data)
        .args(["--app-id", &app.to_string(), "--app-key-file"])
        .arg(&key)
        .args(["--github-api-url", api, "--catch-up-every", "86400"])
        .env("SLUICEWAY_CONSOLE_WEBHOOK_SECRET", "bench")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .trim()
        .strip_prefix("console listening on ")
        .unwrap()
        .to_owned();
    (child, url)
}

fn token(data: &std::path::Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_sluiceway"))
        .args([
            "console", "token", "--org", "octo", "--login", "alice", "--name", "bench", "--data",
        ])
        .arg(data)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// The median of `ROUNDS` GETs of `path`, after one to warm the connection.
fn timed_get(client: &reqwest::blocking::Client, url: &str, token: &str) -> (Duration, usize) {
    timed(client, url, &|request| request.bearer_auth(token))
}

/// A page's median over `ROUNDS` gets with the session's cookie, and its size.
fn timed_page(client: &reqwest::blocking::Client, url: &str, session: &str) -> (Duration, usize) {
    let cookie = format!("sluiceway_session={session}");
    timed(client, url, &|request| request.header("cookie", &cookie))
}

fn timed(
    client: &reqwest::blocking::Client,
    url: &str,
    sign: &dyn Fn(reqwest::blocking::RequestBuilder) -> reqwest::blocking::RequestBuilder,
) -> (Duration, usize) {
    let get = || {
        let answer = sign(client.get(url)).send().unwrap();
        assert!(answer.status().is_success());
        answer.bytes().unwrap().len()
    };
    let size = get();
    let times = (0..ROUNDS)
        .map(|_| {
            let started = Instant::now();
            get();
            started.elapsed()
        })
        .collect();
    (median(times), size)
}

/// A process's resident memory now and at its peak, in MiB.
fn memory(pid: u32) -> (f64, f64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse::<f64>().ok())
            .map_or(0.0, |kb| kb / 1024.0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The pick-up, `ROUNDS` times: a dashboard of that many pending stacks on the
/// emulator, the console installed as its app and named a record writer, alice ticking
/// one box after another.
fn pick_up() {
    use github_emulator::Act;
    use github_emulator::world::FileChange;
    use sluiceway_core::diff::{Change, Diff, Op};
    use sluiceway_core::stack::StackId;
    use sluiceway_dashboard::body;
    use sluiceway_dashboard::view::*;

    const REPO: &str = "octo/infra";
    let (emulator, app, private) = github(&["infra"]);
    let act = |act: Act| emulator.act(act).unwrap();
    let sha = act(Act::Push {
        repo: REPO.into(),
        branch: "main".into(),
        author: Some("alice".into()),
        message: "settings".into(),
        files: vec![FileChange {
            path: "sluiceway.yaml".into(),
            status: "added".into(),
            previous_path: None,
            content: Some("recordWriters: [\"sluiceway-console[bot]\"]\n".into()),
        }],
    })
    .as_str()
    .unwrap()
    .to_owned();
    let stack = |i: usize| format!("apps/service-{i:02}:prod");
    let rows = (0..ROUNDS)
        .map(|i| {
            let id = StackId::given(&stack(i));
            let change = Change::new("aws_s3_bucket.logs", "aws_s3_bucket", "logs", Op::Create);
            let diff = Diff {
                stack: id.clone(),
                changes: vec![change],
                drift: None,
            };
            let state = State::Pending {
                diff,
                preview: None,
                attribution: None,
            };
            RowSource::Fresh(Row::new(id, state))
        })
        .collect();
    let view = View {
        root: Root {
            scan_sha: sha,
            scan_run: 1,
            scan_at: jiff::Timestamp::now(),
            full_scan_at: None,
            full_scan_run: None,
            waiting: None,
            failed_runs: None,
        },
        links: Links {
            server: emulator.base_url(),
            repository: REPO.into(),
            summary: format!("{}/{REPO}/actions/runs/1", emulator.base_url()),
            pictures: "https://example.invalid/pictures".into(),
            reach: Reach::Runs,
        },
        rows,
        unknown: vec![],
        trail: vec![],
        outside: vec![],
        ignored: vec![],
        confirms: vec![],
        bulk_notes: Vec::new(),
        ticked_boxes: Vec::new(),
        hints: vec![],
        layout: sluiceway_core::config::RawDashboard::default(),
        attribution_names: 5,
        version: "0.1.0".into(),
        updates: Default::default(),
    };

    let data = tempfile::tempdir().unwrap();
    let (mut child, console) = serve(data.path(), &emulator.api_url(), app, &private);
    act(Act::AddHook {
        url: format!("{console}/webhooks/github"),
        secret: "bench".into(),
    });
    let number = act(Act::CreateIssue {
        repo: REPO.into(),
        author: "github-actions[bot]".into(),
        title: "Sluiceway dashboard".into(),
        body: body::render(&view).unwrap(),
        labels: vec!["sluiceway".into()],
    })
    .as_u64()
    .unwrap();
    let token = token(data.path());
    let client = reqwest::blocking::Client::new();
    let started = Instant::now();
    while !client
        .get(format!("{console}/api/v1/orgs/octo/repos/infra"))
        .bearer_auth(&token)
        .send()
        .unwrap()
        .status()
        .is_success()
    {
        assert!(started.elapsed() < Duration::from_secs(20), "never learned");
        std::thread::sleep(Duration::from_millis(5));
    }
    let records = || emulator.world().repo(REPO).unwrap().deployments.len();
    let picked: Vec<Duration> = (0..ROUNDS)
        .map(|i| {
            let before = records();
            let started = Instant::now();
            act(Act::Tick {
                repo: REPO.into(),
                issue: number,
                person: "alice".into(),
                line: stack(i),
            });
            while records() == before {
                assert!(
                    started.elapsed() < Duration::from_secs(20),
                    "never picked up"
                );
                std::thread::sleep(Duration::from_millis(1));
            }
            started.elapsed()
        })
        .collect();
    let github = sluiceway_github::HttpGitHub::new(
        sluiceway_github::Endpoints::at(&emulator.base_url()).unwrap(),
        "bench",
        REPO,
    );
    act(Act::AddToken {
        token: "bench".into(),
        login: "github-actions[bot]".into(),
        permissions: None,
    });
    let direct: Vec<Duration> = (0..ROUNDS)
        .map(|i| {
            use sluiceway_github::GitHub as _;
            let started = Instant::now();
            let made = github
                .create_deployment_record(&sluiceway_github::NewDeploymentRecord {
                    sha: "main".into(),
                    task: format!("baseline:{i}"),
                    environment: "baseline".into(),
                    payload: serde_json::json!({}),
                    description: "baseline".into(),
                })
                .unwrap();
            github
                .set_deployment_status(
                    made.id,
                    &sluiceway_github::NewDeploymentStatus {
                        state: sluiceway_github::RecordState::Queued,
                        description: "baseline".into(),
                        log_url: None,
                    },
                )
                .unwrap();
            started.elapsed()
        })
        .collect();
    let (picked, direct) = (median(picked), median(direct));
    println!(
        "a tick on the dashboard picked up: median {:.1} ms from the tick to the console's record open on the emulator ({ROUNDS} ticks), {:.1}× a record opened directly ({:.1} ms)",
        ms(picked),
        picked.as_secs_f64() / direct.as_secs_f64(),
        ms(direct),
    );
    let _ = child.kill();
    let _ = child.wait();
}

fn main() {
    pick_up();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let client = reqwest::blocking::Client::new();
    let repos: Vec<String> = (0..200).map(|r| format!("repo-{r:03}")).collect();
    let names: Vec<&str> = repos.iter().map(String::as_str).collect();
    let (emulator, app, private) = github(&names);
    let idle = tempfile::tempdir().unwrap();
    let (mut child, _) = serve(idle.path(), &emulator.api_url(), app, &private);
    std::thread::sleep(Duration::from_millis(300));
    let (rss, _) = memory(child.id());
    println!("console idle, nothing kept: {rss:.1} MiB resident");
    let _ = child.kill();
    let _ = child.wait();

    for repos in [10, 50, 200] {
        let data = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", data.path().join("console.db").display());
        let store = runtime.block_on(Store::open(&url)).unwrap();
        runtime.block_on(fill(&store, repos));
        let times = (0..ROUNDS)
            .map(|_| {
                let started = Instant::now();
                let kept = runtime.block_on(store.repos("octo")).unwrap();
                assert_eq!(kept.len(), repos);
                started.elapsed()
            })
            .collect();
        let read = median(times);
        let session = "a-session-of-the-benchmark";
        runtime
            .block_on(store.add_session(
                &sluiceway_console::tokens::hash(session),
                &sluiceway_console::store::KeptSession {
                    login: "alice".into(),
                    form_token: "form".into(),
                    expires_at: jiff::Timestamp::MAX,
                },
            ))
            .unwrap();
        drop(store);
        let token = token(data.path());
        let (mut child, console) = serve(data.path(), &emulator.api_url(), app, &private);
        let (org, size) = timed_get(&client, &format!("{console}/api/v1/orgs/octo"), &token);
        let (me, _) = timed_get(&client, &format!("{console}/api/v1/me"), &token);
        let (page, page_size) = timed_page(&client, &format!("{console}/octo"), session);
        let (rss, peak) = memory(child.id());
        println!(
            "org view, {repos} repositories × {STACKS_A_REPO} stacks: median {:.2} ms over HTTP ({size} bytes), {:.1}× /me's {:.2} ms; the store's read {:.2} ms; console {rss:.1} MiB resident, {peak:.1} MiB at its peak",
            ms(org),
            org.as_secs_f64() / me.as_secs_f64(),
            ms(me),
            ms(read),
        );
        println!(
            "org view's page, {repos} repositories × {STACKS_A_REPO} stacks: median {:.2} ms ({page_size} bytes), {:.1}× the API's answer of the same facts",
            ms(page),
            page.as_secs_f64() / org.as_secs_f64(),
        );
        let _ = child.kill();
        let _ = child.wait();
    }
}

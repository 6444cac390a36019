//! The console as a test drives it: the real `sluiceway console serve` on a port of its
//! own, as the GitHub App registered and installed on the bed's GitHub, the example
//! scanned for it, and a person signed in through GitHub's web flow as a browser would.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use github_emulator::Act;
use serde_json::Value;

use super::job::*;
use super::{Bed, REPO};

pub(crate) const SECRET: &str = "webhook-secret-for-the-tests";
/// Names and a value only a row's text holds: none may reach the console's database.
pub(crate) const RESOURCE_CANARY: &str = "canary-resource-7f3a";
pub(crate) const PATH_CANARY: &str = "canaryPath7f3a";

/// A console the binary serves, on a port of its own, with its SQLite in `data` or its
/// facts in the PostgreSQL database at `database`.
pub(crate) struct Console {
    pub(crate) child: Child,
    pub(crate) url: String,
    pub(crate) data: tempfile::TempDir,
    pub(crate) database: Option<String>,
}

/// The console's GitHub App as GitHub holds it: a key pair made by OpenSSL once per run
/// of the tests, the private half in a file the console reads.
struct AppKey {
    file: tempfile::NamedTempFile,
    public_pem: String,
}

fn app_key() -> &'static AppKey {
    static KEY: std::sync::OnceLock<AppKey> = std::sync::OnceLock::new();
    KEY.get_or_init(|| {
        let (private, public_pem) = github_emulator::apps::key_pair();
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), private).unwrap();
        AppKey { file, public_pem }
    })
}

/// The app's slug on the emulator: its bot is `sluiceway-console[bot]`.
pub(crate) const APP_SLUG: &str = "sluiceway-console";
pub(crate) const APP_BOT: &str = "sluiceway-console[bot]";

/// The console's app as GitHub registered it: its id, and its sign-in's client.
pub(crate) struct InstalledApp {
    pub(crate) id: u64,
    pub(crate) client_id: String,
    pub(crate) client_secret: String,
}

/// Registers the console's app on the bed's GitHub and installs it on the org with the
/// permissions the book asks for.
pub(crate) fn installed_app(bed: &Bed) -> InstalledApp {
    use github_emulator::world::Level;
    let registered = bed
        .emulator
        .act(Act::AddApp {
            slug: APP_SLUG.into(),
            public_key_pem: app_key().public_pem.clone(),
        })
        .unwrap();
    let app = InstalledApp {
        id: registered["id"].as_u64().unwrap(),
        client_id: registered["client_id"].as_str().unwrap().to_owned(),
        client_secret: registered["client_secret"].as_str().unwrap().to_owned(),
    };
    let permissions = [
        ("actions", Level::Write),
        ("checks", Level::Read),
        ("contents", Level::Write),
        ("deployments", Level::Write),
        ("issues", Level::Read),
        ("members", Level::Read),
        ("metadata", Level::Read),
        ("pull-requests", Level::Write),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    bed.emulator
        .act(Act::Install {
            app: app.id,
            account: "octo".into(),
            permissions,
        })
        .unwrap();
    member(bed, "alice");
    app
}

/// Makes `login` a member of the org `octo` on the bed's GitHub.
pub(crate) fn member(bed: &Bed, login: &str) {
    bed.emulator
        .act(Act::AddMember {
            org: "octo".into(),
            login: login.into(),
        })
        .unwrap();
}

impl Console {
    pub(crate) fn start() -> Console {
        Console::serving(None, None)
    }

    /// A console that is the app `app` on the bed's GitHub, catching up every second.
    pub(crate) fn of_app(bed: &Bed, app: &InstalledApp) -> Console {
        Console::serving(None, Some((bed.emulator.base_url(), app)))
    }

    /// The same, on `database`, catching up only as it starts: what it learns after, it
    /// learns from deliveries alone.
    pub(crate) fn of_app_by_deliveries(
        bed: &Bed,
        app: &InstalledApp,
        database: Option<String>,
    ) -> Console {
        Console::serving_every(database, Some((bed.emulator.base_url(), app)), "3600")
    }

    pub(crate) fn serving(
        database: Option<String>,
        github: Option<(String, &InstalledApp)>,
    ) -> Console {
        Console::serving_every(database, github, "1")
    }

    pub(crate) fn serving_every(
        database: Option<String>,
        github: Option<(String, &InstalledApp)>,
        catch_up_every: &str,
    ) -> Console {
        let data = tempfile::tempdir().unwrap();
        let app_id = github.as_ref().map_or(1, |(_, app)| app.id).to_string();
        let mut child = Command::new(env!("CARGO_BIN_EXE_sluiceway"))
            .args(["console", "serve", "--listen", "127.0.0.1:0", "--data"])
            .arg(data.path())
            .args(database.iter().flat_map(|url| ["--database-url", url]))
            .args(github.iter().flat_map(|(url, app)| {
                [
                    "--github-api-url",
                    url,
                    "--github-url",
                    url,
                    "--client-id",
                    &app.client_id,
                    "--catch-up-every",
                    catch_up_every,
                ]
            }))
            .envs(github.iter().map(|(_, app)| {
                (
                    "SLUICEWAY_CONSOLE_CLIENT_SECRET",
                    app.client_secret.as_str(),
                )
            }))
            .args(["--app-id", &app_id, "--app-key-file"])
            .arg(app_key().file.path())
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
    pub(crate) fn token(&self, org: &str, login: &str) -> String {
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

    pub(crate) fn get(&self, path: &str, token: Option<&str>) -> (u16, Value) {
        let client = reqwest::blocking::Client::new();
        let mut request = client.get(format!("{}{path}", self.url));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let response = request.send().unwrap();
        let status = response.status().as_u16();
        (status, response.json().unwrap())
    }

    pub(crate) fn files(&self) -> Vec<PathBuf> {
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

/// Waits until `at_least` deliveries were made (a delivery is listed once it was
/// answered, dropped or found nobody), for a minute at most.
pub(crate) fn deliveries_answered(bed: &Bed, at_least: usize) -> Vec<github_emulator::hooks::Made> {
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

pub(crate) fn with_canaries(job: &Job) {
    let main = job.file("network/main.tf");
    let mut text = std::fs::read_to_string(&main).unwrap();
    text.push_str(&format!(
        "\nresource \"terraform_data\" \"{RESOURCE_CANARY}\" {{\n  input = {{ {PATH_CANARY} = \"{CANARY}\" }}\n}}\n"
    ));
    std::fs::write(&main, text).unwrap();
}

/// `kept` names where each text was read from.
pub(crate) fn assert_no_canary(kept: &[(String, String)]) {
    assert!(!kept.is_empty());
    for (place, text) in kept {
        for canary in [RESOURCE_CANARY, PATH_CANARY, CANARY] {
            assert!(!text.contains(canary), "{canary} reached {place}");
        }
    }
}

/// Every file of the console's data folder, as text.
pub(crate) fn files(console: &Console) -> Vec<(String, String)> {
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

/// The example with `recordWriters` naming the console's bot, pushed with its
/// `sluiceway.yaml` (the console reads it from GitHub) and scanned by a run GitHub knows
/// of, as the dashboard's workflow; answers the job, the commit and the dashboard.
pub(crate) fn scanned_for_the_app(bed: &Bed, console: &Console) -> (Job, String, u64) {
    scanned_for_the_app_after(bed, console, |_| {})
}

/// The same, with the checkout changed by `prepare` first.
pub(crate) fn scanned_for_the_app_after(
    bed: &Bed,
    console: &Console,
    prepare: impl FnOnce(&Job),
) -> (Job, String, u64) {
    bed.emulator
        .act(Act::AddHook {
            url: format!("{}/webhooks/github", console.url),
            secret: SECRET.into(),
        })
        .unwrap();
    let mut job = Job::new();
    prepare(&job);
    let config = std::fs::read_to_string(job.file("sluiceway.yaml")).unwrap()
        + &format!("recordWriters: [\"{APP_BOT}\"]\n");
    std::fs::write(job.file("sluiceway.yaml"), &config).unwrap();
    bed.emulator
        .act(Act::AddWorkflow {
            repo: REPO.into(),
            file: "sluiceway.yml".into(),
        })
        .unwrap();
    let sha = bed
        .emulator
        .act(Act::Push {
            repo: REPO.into(),
            branch: "main".into(),
            author: Some("alice".into()),
            message: "name the console's bot a record writer".into(),
            files: vec![github_emulator::world::FileChange {
                path: "sluiceway.yaml".into(),
                status: "modified".into(),
                previous_path: None,
                content: Some(config),
            }],
        })
        .unwrap()
        .as_str()
        .unwrap()
        .to_owned();
    let run = workflow_run(bed, "push");
    job.env.push(("GITHUB_RUN_ID".into(), run.to_string()));
    let ran = job.run(bed, "push", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    end_run(bed, run);
    deliveries_answered(bed, 1);
    (job, sha, dashboard(bed))
}

/// A run of the dashboard's workflow GitHub has started; its id.
pub(crate) fn workflow_run(bed: &Bed, event: &str) -> u64 {
    bed.emulator
        .act(Act::StartRun {
            repo: REPO.into(),
            workflow: "sluiceway.yml".into(),
            event: event.into(),
            actor: "alice".into(),
        })
        .unwrap()
        .as_u64()
        .unwrap()
}

pub(crate) fn end_run(bed: &Bed, run: u64) {
    bed.emulator
        .act(Act::EndRun {
            repo: REPO.into(),
            run,
            conclusion: "success".into(),
        })
        .unwrap();
}

/// A cookie's value among a response's `Set-Cookie` headers, with the header whole.
pub(crate) fn set_cookie(
    response: &reqwest::blocking::Response,
    name: &str,
) -> Option<(String, String)> {
    response
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with(&format!("{name}=")))
        .map(|v| {
            let value = v[name.len() + 1..].split(';').next().unwrap().to_owned();
            (value, v.to_owned())
        })
}

pub(crate) fn location(response: &reqwest::blocking::Response) -> String {
    response.headers()["location"].to_str().unwrap().to_owned()
}

/// Signs `login` in through the emulator's OAuth flow, as a browser would (no redirect
/// followed by itself); the callback's answer.
pub(crate) fn sign_in(console: &Console, login: &str) -> reqwest::blocking::Response {
    let browser = reqwest::blocking::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let started = browser
        .get(format!("{}/signin?login={login}", console.url))
        .send()
        .unwrap();
    assert_eq!(started.status().as_u16(), 302);
    let (state, header) = set_cookie(&started, "sluiceway_signin").expect("a state cookie");
    assert!(
        header.contains("HttpOnly")
            && header.contains("SameSite=Lax")
            && !header.contains("Secure"),
        "on loopback the cookie is not Secure: {header}"
    );
    let approved = browser.get(location(&started)).send().unwrap();
    assert_eq!(
        approved.status().as_u16(),
        302,
        "GitHub approves without a form"
    );
    let back = location(&approved);
    assert!(
        back.starts_with(&format!("{}/signin/callback?code=", console.url)),
        "{back}"
    );
    browser
        .get(back)
        .header("cookie", format!("sluiceway_signin={state}"))
        .send()
        .unwrap()
}

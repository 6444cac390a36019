//! A person's command line to a console (the reference's decision 0116): `login`,
//! `logout`, `status`, `stack`, `preview`, `tick`, `rescan` and `settings`. Each talks to the console's API
//! alone, never to GitHub; `--json` prints the console's answer as it came, or
//! `{error, code, exit}`.

use std::io::{BufRead, IsTerminal};

use serde_json::Value;

use super::remote::{self, App, Failure};
use super::saved::{self, SignIn};
use crate::base::Outcome;
use crate::base::printer::Printer;

/// Ends a command with a failure, said or printed as JSON.
fn failed(failure: Failure, json: bool, printer: &mut Printer) -> Outcome {
    if json {
        printer.result(&format!("{:#}\n", failure.json()));
    } else {
        printer.say(&format!("error: {}", failure.sentence));
    }
    failure.outcome
}

fn saved_failure(e: saved::SavedError) -> Failure {
    Failure::own("not-signed-in", &e.to_string(), Outcome::Failed)
}

/// The console a command talks to: `--app`, else the one console signed in to.
fn signed_in(app: Option<&str>) -> Result<(App, SignIn), Failure> {
    let all = saved::all().map_err(saved_failure)?;
    let not_signed_in =
        |sentence: &str| Failure::own("not-signed-in", sentence, Outcome::SignedOut);
    match app {
        Some(given) => {
            let app = App::parse(given)?;
            let sign_in = all.get(app.as_str()).cloned().ok_or_else(|| {
                not_signed_in("Not signed in to that console; run sluiceway login --app first.")
            })?;
            Ok((app, sign_in))
        }
        None => {
            let mut all = all.into_iter();
            match (all.next(), all.next()) {
                (Some((app, sign_in)), None) => Ok((App::parse(&app)?, sign_in)),
                (None, _) => Err(not_signed_in(
                    "Not signed in; run sluiceway login --app <console> first.",
                )),
                (Some(_), Some(_)) => Err(Failure::own(
                    "not-signed-in",
                    "Signed in to more than one console; say which with --app.",
                    Outcome::Usage,
                )),
            }
        }
    }
}

/// Reads a token: from a prompt that does not echo on a terminal, else one line of
/// standard input. Never from the environment or an argument.
fn read_token(app: &App) -> Result<String, Failure> {
    let unread = || Failure::own("no-token", "No token was given.", Outcome::Usage);
    let token = if std::io::stdin().is_terminal() {
        rpassword::prompt_password(format!("Personal token for {}: ", app.as_str()))
            .map_err(|_| unread())?
    } else {
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .map_err(|_| unread())?;
        line
    };
    let token = token.trim().to_owned();
    if token.is_empty() {
        return Err(unread());
    }
    if !token.starts_with(sluiceway_console::tokens::PREFIX) {
        return Err(Failure::own(
            "not-a-sluiceway-token",
            "That is not a Sluiceway personal token (they start sluiceway_); make one on the console.",
            Outcome::Usage,
        ));
    }
    Ok(token)
}

pub fn login(app: &str, printer: &mut Printer) -> Outcome {
    let asked = || -> Result<(App, Value, SignIn), Failure> {
        let app = App::parse(app)?;
        let token = read_token(&app)?;
        let me = remote::get(&app, &token, "/api/v1/me")?;
        let sign_in = SignIn {
            token,
            org: text(&me["org"]).to_owned(),
            login: text(&me["login"]).to_owned(),
        };
        saved::keep(app.as_str(), sign_in.clone()).map_err(saved_failure)?;
        Ok((app, me, sign_in))
    };
    match asked() {
        Ok((app, me, sign_in)) => {
            printer.say(&format!(
                "Signed in to {} as {} for {}; the token works until {}.",
                app.as_str(),
                sign_in.login,
                sign_in.org,
                text(&me["token"]["expiresAt"])
            ));
            Outcome::Done
        }
        Err(failure) => failed(failure, false, printer),
    }
}

pub fn logout(app: Option<&str>, printer: &mut Printer) -> Outcome {
    let forgotten = signed_in(app).and_then(|(app, _)| {
        saved::forget(app.as_str())
            .map(|_| app)
            .map_err(saved_failure)
    });
    match forgotten {
        Ok(app) => {
            printer.say(&format!(
                "Signed out of {} on this machine; the token itself still works until it is revoked on the console.",
                app.as_str()
            ));
            Outcome::Done
        }
        Err(failure) => failed(failure, false, printer),
    }
}

/// `org/name` of the token's org, or a name: the repository's name; another org's is
/// refused here, before anything is asked.
fn repo_name<'a>(given: &'a str, sign_in: &SignIn) -> Result<&'a str, Failure> {
    match given.split_once('/') {
        Some((org, name)) if org.eq_ignore_ascii_case(&sign_in.org) && !name.is_empty() => Ok(name),
        Some(_) => Err(Failure::own(
            "not-a-member",
            "That repository is not in the org this token is for.",
            Outcome::Refused,
        )),
        None => Ok(given),
    }
}

fn segment(text: &str) -> String {
    percent_encoding::utf8_percent_encode(text, percent_encoding::NON_ALPHANUMERIC).to_string()
}

pub fn status(app: Option<&str>, repo: Option<&str>, json: bool, printer: &mut Printer) -> Outcome {
    let asked = || -> Result<Value, Failure> {
        let (app, sign_in) = signed_in(app)?;
        let path = match repo {
            Some(repo) => repo_path(&sign_in, repo)?,
            None => format!("/api/v1/orgs/{}", segment(&sign_in.org)),
        };
        remote::get(&app, &sign_in.token, &path)
    };
    print(asked(), json, printer, |answer| {
        status_text(answer, repo.is_some())
    })
}

pub fn stack(
    app: Option<&str>,
    repo: &str,
    id: &str,
    json: bool,
    printer: &mut Printer,
) -> Outcome {
    let asked = || -> Result<Value, Failure> {
        let (app, sign_in) = signed_in(app)?;
        let path = stack_path(&sign_in, repo, id)?;
        remote::get(&app, &sign_in.token, &path)
    };
    print(asked(), json, printer, stack_text)
}

/// The API's address of a repository of the token's org.
fn repo_path(sign_in: &SignIn, repo: &str) -> Result<String, Failure> {
    Ok(format!(
        "/api/v1/orgs/{}/repos/{}",
        segment(&sign_in.org),
        segment(repo_name(repo, sign_in)?)
    ))
}

/// The API's address of a stack of the token's org.
fn stack_path(sign_in: &SignIn, repo: &str, id: &str) -> Result<String, Failure> {
    Ok(format!(
        "{}/stacks/{}",
        repo_path(sign_in, repo)?,
        segment(id)
    ))
}

/// One stack's full preview, read by the console from its page on GitHub now.
pub fn preview(
    app: Option<&str>,
    repo: &str,
    id: &str,
    json: bool,
    printer: &mut Printer,
) -> Outcome {
    let asked = || -> Result<Value, Failure> {
        let (app, sign_in) = signed_in(app)?;
        let path = format!("{}/preview", stack_path(&sign_in, repo, id)?);
        remote::get(&app, &sign_in.token, &path)
    };
    print(asked(), json, printer, preview_text)
}

/// What `preview` prints: the page's title, the policies that failed, then a line per
/// change and per drifted resource.
fn preview_text(answer: &Value) -> String {
    let list = |v: &Value| v.as_array().cloned().unwrap_or_default();
    let mut out = format!("{}\n", text(&answer["title"]));
    for policy in list(&answer["policies"]) {
        out.push_str(&format!(
            "  policy failed  {}: {}\n",
            text(&policy["namespace"]),
            text(&policy["message"])
        ));
    }
    for change in list(&answer["changes"]) {
        let mut line = format!(
            "  {:7}  {} {}",
            text(&change["action"]),
            text(&change["type"]),
            text(&change["name"])
        );
        let properties: Vec<String> = list(&change["properties"])
            .iter()
            .filter_map(|p| p.as_str().map(str::to_owned))
            .collect();
        if !properties.is_empty() {
            line.push_str(&format!(" · {}", properties.join(", ")));
        }
        out.push_str(&line);
        out.push('\n');
    }
    for drift in list(&answer["drift"]) {
        out.push_str(&format!(
            "  drift {:7} {} {}\n",
            text(&drift["action"]),
            text(&drift["type"]),
            text(&drift["name"])
        ));
    }
    if let Some(left) = answer["unlisted"].as_u64().filter(|n| *n > 0) {
        out.push_str(&format!(
            "  … and {left} more the page leaves out; the scan's job log lists them\n"
        ));
    }
    out.push_str(&format!("page: {}\n", text(&answer["page"]["url"])));
    out
}

/// The longest a tick waits for its record to move, and how often it asks.
pub const LONGEST_WAIT_SECONDS: u64 = 60;
const POLL_SECONDS: u64 = 2;

/// Ticks a stack as the signed-in person. A stack that deletes or replaces is ticked only
/// with `--yes`, and then with the confirm the console gave for the row as it stands.
/// When a record is opened, its deploy is polled for up to `wait` seconds; what is said
/// is what the record says, never that a deploy went out before it did.
pub fn tick(
    app: Option<&str>,
    repo: &str,
    id: &str,
    yes: bool,
    wait: u64,
    json: bool,
    printer: &mut Printer,
) -> Outcome {
    let asked = || -> Result<(App, SignIn, Value), Failure> {
        let (app, sign_in) = signed_in(app)?;
        let stack_path = stack_path(&sign_in, repo, id)?;
        let stack = remote::get(&app, &sign_in.token, &stack_path)?;
        let body = match stack["confirm"].as_object() {
            Some(_) if !yes => {
                return Err(Failure::own(
                    "needs-yes",
                    &format!(
                        "{id} deletes or replaces {} as it stands; run again with --yes to tick it all the same.",
                        text(&stack["destroys"])
                    ),
                    Outcome::Refused,
                ));
            }
            Some(_) => Some(serde_json::json!({ "confirm": stack["confirm"] })),
            None => None,
        };
        let answer = remote::post(
            &app,
            &sign_in.token,
            &format!("{stack_path}/tick"),
            body.as_ref(),
        )?;
        Ok((app, sign_in, answer))
    };
    let (app, sign_in, answer) = match asked() {
        Ok(asked) => asked,
        Err(failure) => return failed(failure, json, printer),
    };
    let outcome = match text(&answer["outcome"]) {
        "asked" | "queued" => Outcome::Done,
        "failed" => Outcome::Failed,
        _ => Outcome::Refused,
    };
    if json {
        printer.result(&format!("{answer:#}\n"));
        return outcome;
    }
    printer.say(text(&answer["sentence"]));
    if matches!(text(&answer["outcome"]), "github" | "unconfirmed" | "taken") {
        printer.say(&format!("The dashboard: {}", text(&answer["dashboard"])));
    }
    if let (Some(id), Some(status)) = (
        answer["deployment"]["id"].as_u64(),
        answer["deployment"]["status"].as_str(),
    ) {
        let path = status
            .find("/api/v1/")
            .map_or(status, |start| &status[start..]);
        printer.say(&follow(
            &app,
            &sign_in,
            id,
            path,
            wait.min(LONGEST_WAIT_SECONDS),
        ));
    }
    outcome
}

/// Polls a record until its deploy is past waiting to start, or `wait` seconds pass;
/// the last thing the console said of it.
fn follow(app: &App, sign_in: &SignIn, id: u64, path: &str, wait: u64) -> String {
    let started = std::time::Instant::now();
    let mut last = None;
    loop {
        if let Ok(deploy) = remote::get(app, &sign_in.token, path) {
            let result = text(&deploy["result"]).to_owned();
            if result != "waiting to start" {
                return format!("Record {id}: {result}.");
            }
            last = Some(result);
        }
        if started.elapsed().as_secs() + POLL_SECONDS > wait {
            break;
        }
        std::thread::sleep(std::time::Duration::from_secs(POLL_SECONDS));
    }
    match last {
        Some(result) => format!(
            "Record {id}: {result} after {wait} s; follow it with sluiceway status or on the dashboard."
        ),
        None => format!(
            "Record {id} is open; the console has not heard of it yet. Follow it with sluiceway status or on the dashboard."
        ),
    }
}

/// Asks for a full scan of a repository as the signed-in person.
pub fn rescan(app: Option<&str>, repo: &str, json: bool, printer: &mut Printer) -> Outcome {
    let asked = || -> Result<Value, Failure> {
        let (app, sign_in) = signed_in(app)?;
        let path = format!("{}/rescan", repo_path(&sign_in, repo)?);
        remote::post(&app, &sign_in.token, &path, None)
    };
    let answer = match asked() {
        Ok(answer) => answer,
        Err(failure) => return failed(failure, json, printer),
    };
    let outcome = match text(&answer["outcome"]) {
        "asked" => Outcome::Done,
        "failed" => Outcome::Failed,
        _ => Outcome::Refused,
    };
    if json {
        printer.result(&format!("{answer:#}\n"));
    } else {
        printer.say(text(&answer["sentence"]));
    }
    outcome
}

/// The settings, or a pull request that changes those `pairs` name.
pub fn settings(
    app: Option<&str>,
    repo: &str,
    pairs: Option<&[String]>,
    json: bool,
    printer: &mut Printer,
) -> Outcome {
    let changes = match pairs.map(key_changes).transpose() {
        Ok(changes) => changes,
        Err(failure) => return failed(failure, json, printer),
    };
    let asked = || -> Result<Value, Failure> {
        let (app, sign_in) = signed_in(app)?;
        let path = format!("{}/config", repo_path(&sign_in, repo)?);
        match &changes {
            None => remote::get(&app, &sign_in.token, &path),
            Some(changes) => remote::post(
                &app,
                &sign_in.token,
                &format!("{path}/pull-request"),
                Some(&serde_json::json!({ "changes": changes })),
            ),
        }
    };
    if changes.is_none() {
        return print(asked(), json, printer, settings_text);
    }
    let answer = match asked() {
        Ok(answer) => answer,
        Err(failure) => return failed(failure, json, printer),
    };
    if json {
        printer.result(&format!("{answer:#}\n"));
    } else {
        printer.say(text(&answer["sentence"]));
        for line in answer["changes"].as_array().into_iter().flatten() {
            printer.say(&format!("  {}", text(line)));
        }
        for line in answer["problems"].as_array().into_iter().flatten() {
            printer.say(&format!("  problem: {}", text(line)));
        }
        if let Some(url) = answer["url"].as_str() {
            printer.result(&format!("{url}\n"));
        }
    }
    match text(&answer["outcome"]) {
        "opened" | "nothing-to-change" => Outcome::Done,
        "read-failed" | "write-failed" => Outcome::Failed,
        _ => Outcome::Refused,
    }
}

/// `key=value` pairs as the API's changes, each value read as YAML.
fn key_changes(pairs: &[String]) -> Result<Vec<Value>, Failure> {
    pairs
        .iter()
        .map(|pair| {
            let usage = |sentence: String| Failure::own("usage", &sentence, Outcome::Usage);
            let (key, value) = pair
                .split_once('=')
                .ok_or_else(|| usage(format!("{pair}: expected key=value")))?;
            if key.is_empty() || value.trim().is_empty() {
                return Err(usage(format!(
                    "{pair}: expected key=value (null puts the default back)"
                )));
            }
            let value = sluiceway_core::config::Document::parse(value)
                .map_err(|_| usage(format!("{pair}: the value is not YAML")))?
                .value;
            Ok(serde_json::json!({ "key": key, "value": value }))
        })
        .collect()
}

/// `sluiceway.yaml at 1a2b3c4` and a line per key with the file's value.
fn settings_text(answer: &Value) -> String {
    let mut out = match (answer["file"].as_str(), answer["sha"].as_str()) {
        (Some(file), Some(sha)) => format!("{file} at {}\n", &sha[..sha.len().min(7)]),
        _ => "No sluiceway.yaml: the action's defaults hold.\n".to_owned(),
    };
    if let Some(problem) = answer["problem"].as_str() {
        out.push_str(&format!("problem: {problem}\n"));
    }
    for (key, value) in answer["keys"].as_object().into_iter().flatten() {
        let shown = if value.is_null() {
            "(default)".to_owned()
        } else {
            value.to_string()
        };
        out.push_str(&format!("{key} = {shown}\n"));
    }
    out
}

/// Prints what the console answered: as it came with `--json`, else as `text` draws it.
fn print(
    asked: Result<Value, Failure>,
    json: bool,
    printer: &mut Printer,
    text: impl Fn(&Value) -> String,
) -> Outcome {
    match asked {
        Ok(answer) if json => {
            printer.result(&format!("{answer:#}\n"));
            Outcome::Done
        }
        Ok(answer) => {
            printer.result(&text(&answer));
            Outcome::Done
        }
        Err(failure) => failed(failure, json, printer),
    }
}

fn text(value: &Value) -> &str {
    value.as_str().unwrap_or("")
}

/// `3 stacks: 1 pending, 2 in sync`: the counts that are not zero.
fn counted(total: &Value, counts: &Value) -> String {
    let total = total.as_u64().unwrap_or(0);
    let parts: Vec<String> = ["pending", "deploying", "drifted", "failed", "in-sync"]
        .iter()
        .filter_map(|state| {
            let n = counts[*state].as_u64().filter(|n| *n > 0)?;
            Some(format!("{n} {}", state.replace('-', " ")))
        })
        .collect();
    let stacks = if total == 1 {
        "1 stack".to_owned()
    } else {
        format!("{total} stacks")
    };
    if parts.is_empty() {
        stacks
    } else {
        format!("{stacks}: {}", parts.join(", "))
    }
}

/// What `status` prints: the counts, then a line per stack, those needing a person first
/// (the console's order).
fn status_text(answer: &Value, one_repo: bool) -> String {
    let mut out = String::new();
    let org = text(&answer["org"]["login"]);
    if one_repo {
        out.push_str(&format!(
            "{org}/{} · {}\n",
            text(&answer["repo"]["name"]),
            counted(&answer["total"], &answer["counts"])
        ));
        if let Some(scan) = answer["scan"].as_object() {
            out.push_str(&format!(
                "last scan {} at {}\n",
                text(&scan["sha"]).chars().take(7).collect::<String>(),
                text(&scan["at"])
            ));
        }
    } else {
        out.push_str(&format!(
            "{org} · {}\n",
            counted(&answer["total"], &answer["counts"])
        ));
    }
    let stacks = answer["stacks"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let place = |s: &Value| {
        if one_repo {
            text(&s["stack"]).to_owned()
        } else {
            format!("{}  {}", text(&s["repo"]), text(&s["stack"]))
        }
    };
    let width = stacks
        .iter()
        .map(|s| place(s).chars().count())
        .max()
        .unwrap_or(0);
    let word_width = stacks
        .iter()
        .map(|s| text(&s["word"]).chars().count())
        .max()
        .unwrap_or(0);
    for s in stacks {
        out.push_str(&format!(
            "  {:width$}  {:word_width$}  {}\n",
            place(s),
            text(&s["word"]),
            text(&s["line"]),
        ));
    }
    out
}

/// What `stack` prints: the row's facts, one to a line.
fn stack_text(answer: &Value) -> String {
    let or_none = |v: &Value| v.as_str().map_or_else(|| "none".to_owned(), str::to_owned);
    let mut out = format!(
        "{} in {}: {}\n{}\n",
        text(&answer["stack"]),
        text(&answer["repo"]),
        text(&answer["word"]),
        text(&answer["line"])
    );
    out.push_str(&format!("changes: {}\n", or_none(&answer["changes"])));
    out.push_str(&format!(
        "deletes or replaces: {}\n",
        or_none(&answer["destroys"])
    ));
    out.push_str(&format!("drift: {}\n", or_none(&answer["drift"])));
    out.push_str(&format!(
        "ticked: {}\n",
        if answer["ticked"] == true {
            "yes"
        } else {
            "no"
        }
    ));
    out.push_str(&format!("dashboard: {}\n", text(&answer["dashboard"])));
    if let Some(run) = answer["run"].as_str() {
        out.push_str(&format!("run: {run}\n"));
    }
    out
}

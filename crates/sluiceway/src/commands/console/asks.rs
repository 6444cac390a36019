//! A person's command line to a console (the reference's decision 0116): `login`,
//! `logout`, `status` and `stack`. Each talks to the console's API alone, never to GitHub;
//! `--json` prints the console's answer as it came, or `{error, code, exit}`.

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
        let org = segment(&sign_in.org);
        let path = match repo {
            Some(repo) => format!(
                "/api/v1/orgs/{org}/repos/{}",
                segment(repo_name(repo, &sign_in)?)
            ),
            None => format!("/api/v1/orgs/{org}"),
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
        let path = format!(
            "/api/v1/orgs/{}/repos/{}/stacks/{}",
            segment(&sign_in.org),
            segment(repo_name(repo, &sign_in)?),
            segment(id)
        );
        remote::get(&app, &sign_in.token, &path)
    };
    print(asked(), json, printer, stack_text)
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

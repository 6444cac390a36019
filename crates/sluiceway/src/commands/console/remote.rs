//! Talking to a console: its address held to https (or http to this machine), no redirect
//! followed, the token in `Authorization`, and every failure, the console's or the
//! network's, given one code and the command line's exit code for it.

use std::time::Duration;

use serde_json::Value;

use crate::base::Outcome;

/// A console's address, checked: `https://…`, or `http://` to a loopback host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct App(String);

impl App {
    pub(super) fn parse(given: &str) -> Result<App, Failure> {
        let refused = || {
            Failure::own(
                "not-the-app",
                "--app must be an https:// address, or http:// to this machine (localhost, 127.0.0.1 or ::1)",
                Outcome::Usage,
            )
        };
        let url = reqwest::Url::parse(given).map_err(|_| refused())?;
        let host = url.host_str().ok_or_else(refused)?;
        let loopback = host.eq_ignore_ascii_case("localhost")
            || host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback());
        let fits = match url.scheme() {
            "https" => true,
            "http" => loopback,
            _ => false,
        };
        if !fits || url.query().is_some() || url.fragment().is_some() || !url.username().is_empty()
        {
            return Err(refused());
        }
        Ok(App(url.as_str().trim_end_matches('/').to_owned()))
    }

    pub(super) fn as_str(&self) -> &str {
        &self.0
    }
}

/// Why a command did not get its answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Failure {
    /// The console's code, or the command line's own.
    pub(super) code: String,
    pub(super) sentence: String,
    pub(super) outcome: Outcome,
}

impl Failure {
    pub(super) fn own(code: &str, sentence: &str, outcome: Outcome) -> Failure {
        Failure {
            code: code.to_owned(),
            sentence: sentence.to_owned(),
            outcome,
        }
    }

    /// The console's own error, with the exit code its code means.
    fn console(code: &str, sentence: &str) -> Failure {
        let outcome = match code {
            "no-token" | "token-not-working" => Outcome::SignedOut,
            "not-found" | "org-gone" | "no-preview" => Outcome::NotFound,
            "not-a-member" | "changes-refused" | "no-write-access" => Outcome::Refused,
            "rate-limited" | "github-silent" => Outcome::RetryLater,
            _ => Outcome::Failed,
        };
        Failure::own(code, sentence, outcome)
    }

    /// The document `--json` prints for it.
    pub(super) fn json(&self) -> Value {
        serde_json::json!({
            "error": self.sentence,
            "code": self.code,
            "exit": exit_code(self.outcome),
        })
    }
}

pub(super) fn exit_code(outcome: Outcome) -> u8 {
    match outcome {
        Outcome::Done => 0,
        Outcome::Failed => 1,
        Outcome::Usage => 2,
        Outcome::SignedOut => 3,
        Outcome::NotFound => 4,
        Outcome::Refused => 5,
        Outcome::RetryLater => 6,
    }
}

/// GETs `path` (which starts `/api/v1/`) from the console as the token's person.
pub(super) fn get(app: &App, token: &str, path: &str) -> Result<Value, Failure> {
    ask(app, token, reqwest::Method::GET, path, None)
}

/// POSTs `body` (or nothing) to `path` as the token's person.
pub(super) fn post(
    app: &App,
    token: &str,
    path: &str,
    body: Option<&Value>,
) -> Result<Value, Failure> {
    ask(app, token, reqwest::Method::POST, path, body)
}

fn ask(
    app: &App,
    token: &str,
    method: reqwest::Method,
    path: &str,
    body: Option<&Value>,
) -> Result<Value, Failure> {
    let client = reqwest::blocking::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(30))
        .build()
        .map_err(|_| {
            Failure::own(
                "unreachable",
                "The HTTP client could not start.",
                Outcome::Failed,
            )
        })?;
    let mut request = client
        .request(method, format!("{}{path}", app.as_str()))
        .bearer_auth(token)
        .header("accept", "application/json");
    if let Some(body) = body {
        request = request.json(body);
    }
    let response = request.send().map_err(|_| {
        Failure::own(
            "unreachable",
            "The console did not answer; check --app and the network, then try again.",
            Outcome::RetryLater,
        )
    })?;
    let status = response.status();
    let not_the_app = || {
        Failure::own(
            "not-the-app",
            "What answered is not a Sluiceway console (it redirected, or did not answer in JSON); check --app.",
            Outcome::Failed,
        )
    };
    if status.is_redirection() {
        return Err(not_the_app());
    }
    let body: Value = response.json().map_err(|_| not_the_app())?;
    if status.is_success() {
        return Ok(body);
    }
    match (body["code"].as_str(), body["error"].as_str()) {
        (Some(code), Some(sentence)) => {
            // Refused changes say why, one sentence each.
            let mut said = sentence.to_owned();
            for problem in body["problems"].as_array().into_iter().flatten() {
                said.push_str(&format!("\n  {}", problem.as_str().unwrap_or_default()));
            }
            Err(Failure::console(code, &said))
        }
        _ => Err(not_the_app()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_is_https_or_http_to_this_machine() {
        for good in [
            "https://console.example.com",
            "https://console.example.com/",
            "http://127.0.0.1:8080",
            "http://localhost:3000",
            "http://[::1]:80",
        ] {
            assert!(App::parse(good).is_ok(), "{good}");
        }
        assert_eq!(
            App::parse("https://console.example.com/").unwrap().as_str(),
            "https://console.example.com"
        );
        for bad in [
            "http://console.example.com",
            "http://10.0.0.1",
            "ftp://localhost",
            "console.example.com",
            "https://user@console.example.com",
            "https://console.example.com/?next=x",
        ] {
            let failure = App::parse(bad).unwrap_err();
            assert_eq!(
                (failure.code.as_str(), failure.outcome),
                ("not-the-app", Outcome::Usage),
                "{bad}"
            );
        }
    }

    #[test]
    fn each_console_code_has_its_exit_code() {
        for (code, exit) in [
            ("no-token", 3),
            ("token-not-working", 3),
            ("not-found", 4),
            ("not-a-member", 5),
            ("rate-limited", 6),
            ("github-silent", 6),
            ("something-new", 1),
        ] {
            assert_eq!(
                exit_code(Failure::console(code, "").outcome),
                exit,
                "{code}"
            );
        }
    }
}

//! The one way a notification leaves: a JSON document posted to an address. The port
//! lets tests count and fail posts; `HttpPost` is the real one, which follows no
//! redirect (a 3xx is an answer, not a new address to send a secret's message to) and
//! gives each post ten seconds.

use std::time::Duration;

/// How long one post may take.
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// Why a post has no answer; the kind only, never the address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoAnswer {
    TimedOut,
    Unreachable,
}

impl NoAnswer {
    pub fn words(self) -> &'static str {
        match self {
            NoAnswer::TimedOut => "no answer within 10 seconds",
            NoAnswer::Unreachable => "the address could not be reached",
        }
    }
}

pub trait Post: Sync {
    /// Posts `body` as JSON; the answer's status.
    fn post(&self, address: &str, body: &[u8]) -> Result<u16, NoAnswer>;
}

pub struct HttpPost {
    client: Option<reqwest::blocking::Client>,
}

impl HttpPost {
    pub fn new() -> HttpPost {
        let client = reqwest::blocking::Client::builder()
            .timeout(TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("sluiceway/", env!("CARGO_PKG_VERSION")))
            .build()
            .ok();
        HttpPost { client }
    }
}

impl Default for HttpPost {
    fn default() -> Self {
        HttpPost::new()
    }
}

impl Post for HttpPost {
    fn post(&self, address: &str, body: &[u8]) -> Result<u16, NoAnswer> {
        let client = self.client.as_ref().ok_or(NoAnswer::Unreachable)?;
        client
            .post(address)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.to_vec())
            .send()
            .map(|answer| answer.status().as_u16())
            .map_err(|e| {
                if e.is_timeout() {
                    NoAnswer::TimedOut
                } else {
                    NoAnswer::Unreachable
                }
            })
    }
}

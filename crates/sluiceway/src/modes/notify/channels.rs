//! The notification channels a workflow sets up as inputs (decision 0078): a Slack
//! incoming webhook, a Telegram bot and chat, a webhook of the team's own. Their values
//! are secrets: they are masked in the job log before anything else is said, never
//! formatted (`Debug` says only which channel), and each address is judged before any
//! tool runs, so a wrong one stops the step rather than sending half.

use std::fmt;
use std::net::IpAddr;

use crate::modes::inputs::InputError;

/// Where a channel's messages go, and what it needs to send one.
#[derive(Clone, PartialEq, Eq)]
pub enum Channel {
    Slack { url: String },
    Telegram(Telegram),
    Webhook { url: String },
}

#[derive(Clone, PartialEq, Eq)]
pub struct Telegram {
    /// The Bot API's address: Telegram's own, or a local Bot API server's.
    pub api: String,
    pub token: String,
    pub chat: String,
    /// A forum topic of the chat.
    pub thread: Option<u64>,
}

impl Channel {
    /// The channel's name in the job log.
    pub fn name(&self) -> &'static str {
        match self {
            Channel::Slack { .. } => "Slack",
            Channel::Telegram(_) => "Telegram",
            Channel::Webhook { .. } => "the webhook",
        }
    }

    /// The values the job log must mask.
    pub fn secrets(&self) -> Vec<&str> {
        match self {
            Channel::Slack { url } | Channel::Webhook { url } => vec![url],
            Channel::Telegram(t) => vec![&t.token, &t.chat],
        }
    }

    /// Where a message is posted.
    pub fn address(&self) -> String {
        match self {
            Channel::Slack { url } | Channel::Webhook { url } => url.clone(),
            Channel::Telegram(t) => {
                format!("{}/bot{}/sendMessage", t.api.trim_end_matches('/'), t.token)
            }
        }
    }
}

impl fmt::Debug for Channel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Channel({})", self.name())
    }
}

/// Telegram's own Bot API; `SLUICEWAY_TELEGRAM_API` names a local Bot API server.
pub const TELEGRAM_API: &str = "https://api.telegram.org";

/// Reads the channels from the inputs; `get` answers an input's value when it is set.
/// `telegram_api` is the Bot API's address.
pub fn read<'a>(
    get: impl Fn(&'static str) -> Option<&'a str>,
    telegram_api: &str,
) -> Result<Vec<Channel>, InputError> {
    let mut channels = Vec::new();
    if let Some(url) = get("slack-webhook-url") {
        channels.push(Channel::Slack {
            url: address("slack-webhook-url", url)?,
        });
    }
    let thread = get("telegram-thread-id")
        .map(|value| {
            value
                .parse::<u64>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or(InputError {
                    input: "telegram-thread-id",
                    value: value.to_owned(),
                    takes: "a forum topic's whole-number id",
                })
        })
        .transpose()?;
    match (get("telegram-bot-token"), get("telegram-chat-id")) {
        (Some(token), Some(chat)) => {
            if !is_bot_token(token) {
                return Err(hidden(
                    "telegram-bot-token",
                    "a bot token as BotFather gives it (digits, a colon, then letters, digits, _ or -)",
                ));
            }
            if !is_chat(chat) {
                return Err(hidden(
                    "telegram-chat-id",
                    "a chat's whole-number id (negative for a group) or a channel's @name",
                ));
            }
            channels.push(Channel::Telegram(Telegram {
                api: address("SLUICEWAY_TELEGRAM_API", telegram_api)?,
                token: token.to_owned(),
                chat: chat.to_owned(),
                thread,
            }));
        }
        (None, None) if thread.is_some() => {
            return Err(InputError {
                input: "telegram-thread-id",
                value: "(set alone)".to_owned(),
                takes: "a topic id together with telegram-bot-token and telegram-chat-id",
            });
        }
        (None, None) => {}
        (Some(_), None) | (None, Some(_)) => {
            return Err(InputError {
                input: "telegram-chat-id",
                value: "(set alone)".to_owned(),
                takes: "a chat id together with telegram-bot-token",
            });
        }
    }
    if let Some(url) = get("webhook-url") {
        channels.push(Channel::Webhook {
            url: address("webhook-url", url)?,
        });
    }
    Ok(channels)
}

/// A secret input's error, which never quotes the value.
fn hidden(input: &'static str, takes: &'static str) -> InputError {
    InputError {
        input,
        value: "(hidden)".to_owned(),
        takes,
    }
}

/// An address a message may go to: `https://`, or plain `http://` to this machine
/// (how a test or a local relay receives). Anything else is refused, naming the input
/// and never the address.
fn address(input: &'static str, value: &str) -> Result<String, InputError> {
    let refused = || {
        hidden(
            input,
            "an https:// address, or http:// to a loopback address",
        )
    };
    let url = reqwest::Url::parse(value).map_err(|_| refused())?;
    let loopback = url.host_str().is_some_and(|host| {
        host == "localhost"
            || host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .parse::<IpAddr>()
                .is_ok_and(|ip| ip.is_loopback())
    });
    match url.scheme() {
        "https" if url.host_str().is_some() => Ok(value.to_owned()),
        "http" if loopback => Ok(value.to_owned()),
        _ => Err(refused()),
    }
}

/// `123456:ABC-def_1`: nothing that could change the address it is put into.
fn is_bot_token(token: &str) -> bool {
    token.split_once(':').is_some_and(|(id, key)| {
        !id.is_empty()
            && id.bytes().all(|b| b.is_ascii_digit())
            && !key.is_empty()
            && key
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    })
}

/// `-1001234567890` or `@channel_name`.
fn is_chat(chat: &str) -> bool {
    let digits = chat.strip_prefix('-').unwrap_or(chat);
    let name = chat.strip_prefix('@');
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        || name.is_some_and(|n| {
            !n.is_empty() && n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn channels(pairs: &[(&'static str, &'static str)]) -> Result<Vec<Channel>, InputError> {
        let map: BTreeMap<&str, &str> = pairs.iter().copied().collect();
        read(|name| map.get(name).copied(), TELEGRAM_API)
    }

    #[test]
    fn each_channel_is_read_with_its_address() {
        let read = channels(&[
            ("slack-webhook-url", "https://hooks.example/T/B/x"),
            ("telegram-bot-token", "123:AbC_d-e"),
            ("telegram-chat-id", "-100200"),
            ("telegram-thread-id", "7"),
            ("webhook-url", "http://127.0.0.1:8080/in"),
        ])
        .unwrap();
        let names: Vec<&str> = read.iter().map(Channel::name).collect();
        assert_eq!(names, ["Slack", "Telegram", "the webhook"]);
        assert_eq!(
            read[1].address(),
            "https://api.telegram.org/bot123:AbC_d-e/sendMessage"
        );
        assert!(matches!(&read[1], Channel::Telegram(t) if t.thread == Some(7)));
        assert_eq!(
            format!("{read:?}"),
            "[Channel(Slack), Channel(Telegram), Channel(the webhook)]"
        );
        assert!(channels(&[("webhook-url", "http://[::1]:9/x")]).is_ok());
        assert!(channels(&[("webhook-url", "http://localhost/x")]).is_ok());
        assert!(
            channels(&[
                ("telegram-bot-token", "1:a"),
                ("telegram-chat-id", "@ops_room")
            ])
            .is_ok()
        );
    }

    #[test]
    fn a_wrong_value_names_the_input_and_never_quotes_a_secret() {
        for (pairs, input) in [
            (
                &[("webhook-url", "http://hooks.example/secret-path")][..],
                "webhook-url",
            ),
            (&[("webhook-url", "ftp://127.0.0.1/x")][..], "webhook-url"),
            (
                &[("slack-webhook-url", "not an address")][..],
                "slack-webhook-url",
            ),
            (
                &[("slack-webhook-url", "http://10.0.0.1/secret-path")][..],
                "slack-webhook-url",
            ),
            (
                &[
                    ("telegram-bot-token", "1:a/../x"),
                    ("telegram-chat-id", "5"),
                ][..],
                "telegram-bot-token",
            ),
            (
                &[
                    ("telegram-bot-token", "1:a"),
                    ("telegram-chat-id", "5?x=secret-path"),
                ][..],
                "telegram-chat-id",
            ),
            (
                &[
                    ("telegram-bot-token", "1:a"),
                    ("telegram-chat-id", "5"),
                    ("telegram-thread-id", "4.5"),
                ][..],
                "telegram-thread-id",
            ),
            (&[("telegram-bot-token", "1:a")][..], "telegram-chat-id"),
            (&[("telegram-thread-id", "4")][..], "telegram-thread-id"),
        ] {
            let e = channels(pairs).unwrap_err();
            assert_eq!(e.input, input, "{pairs:?}");
            assert!(!e.to_string().contains("secret-path"), "{e}");
        }
    }
}

//! Notifications (decision 0078): a team hears of news without opening the dashboard.
//! A scan tells of stacks newly pending or newly drifted, resolve of the ticks it
//! refused, apply of a deploy that went out, failed or was refused. Each notice goes to
//! every channel the workflow set up, for the events `notify.events` lists.
//!
//! A notice names stacks and links; nothing else reaches it, so no value and no tool's
//! words can. Sending is best effort: a post gets ten seconds and one retry when it had
//! no answer or GitHub-style trouble (a 5xx or 429), and a failure is a warning in the
//! log that names the channel and the status, never the address. It never turns the
//! job red.

pub mod channels;
pub mod message;
pub mod news;
pub mod post;

use sluiceway_core::config::raw::NotifyEvent;

use crate::base::printer::Printer;
use channels::Channel;
use post::{NoAnswer, Post};

pub use sluiceway_core::config::raw::NotifyEvent as Event;

/// What happened, for the channels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub event: Event,
    /// Stack ids, in the order the dashboard lists them.
    pub stacks: Vec<String>,
    pub dashboard: Option<String>,
    pub run: Option<String>,
}

/// The channels and the way to post to them.
pub struct Notifier<'a> {
    channels: Vec<Channel>,
    post: &'a dyn Post,
    /// `owner/name`.
    repository: String,
}

/// The post of a notifier with no channel, which is never asked to send.
struct Nowhere;

impl Post for Nowhere {
    fn post(&self, _: &str, _: &[u8]) -> Result<u16, NoAnswer> {
        Err(NoAnswer::Unreachable)
    }
}

/// How one channel's post ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sent {
    Delivered,
    Answered(u16),
    NoAnswer(NoAnswer),
}

impl<'a> Notifier<'a> {
    pub fn new(channels: Vec<Channel>, post: &'a dyn Post, repository: &str) -> Notifier<'a> {
        Notifier {
            channels,
            post,
            repository: repository.to_owned(),
        }
    }

    /// No channel: nothing is ever sent.
    pub fn none() -> Notifier<'static> {
        Notifier::new(Vec::new(), &Nowhere, "")
    }

    /// Sends `notice` to every channel at once when `events` lists its event; says in
    /// the log what was sent and what was not.
    pub fn tell(&self, notice: &Notice, events: &[NotifyEvent], printer: &mut Printer) {
        if self.channels.is_empty() || !events.contains(&notice.event) {
            return;
        }
        let sent: Vec<(&'static str, Sent)> = std::thread::scope(|scope| {
            let posts: Vec<_> = self
                .channels
                .iter()
                .map(|channel| {
                    let body = self.document(channel, notice);
                    scope.spawn(move || (channel.name(), self.send(channel, &body)))
                })
                .collect();
            posts
                .into_iter()
                .filter_map(|post| post.join().ok())
                .collect()
        });
        for (channel, sent) in sent {
            match sent {
                Sent::Delivered => printer.say(&format!(
                    "The {} notification went to {channel}.",
                    notice.event.name()
                )),
                Sent::Answered(status) => printer.say(&format!(
                    "::warning::Notification not sent to {channel}: it answered {status}."
                )),
                Sent::NoAnswer(why) => printer.say(&format!(
                    "::warning::Notification not sent to {channel}: {}.",
                    why.words()
                )),
            }
        }
    }

    fn document(&self, channel: &Channel, notice: &Notice) -> Vec<u8> {
        let document = match channel {
            Channel::Slack { .. } => message::slack(notice, &self.repository),
            Channel::Telegram(t) => message::telegram(notice, &self.repository, &t.chat, t.thread),
            Channel::Webhook { .. } => {
                serde_json::to_value(message::webhook(notice, &self.repository)).unwrap_or_default()
            }
        };
        serde_json::to_vec(&document).unwrap_or_default()
    }

    /// One post, and one more when the first had no answer or a server's trouble.
    fn send(&self, channel: &Channel, body: &[u8]) -> Sent {
        let address = channel.address();
        let once = || match self.post.post(&address, body) {
            Ok(status) if (200..300).contains(&status) => Sent::Delivered,
            Ok(status) => Sent::Answered(status),
            Err(why) => Sent::NoAnswer(why),
        };
        match once() {
            Sent::Answered(status) if status < 500 && status != 429 => Sent::Answered(status),
            Sent::Delivered => Sent::Delivered,
            _ => once(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    /// Answers each post from a script and keeps what it was sent.
    struct Scripted {
        answers: Mutex<Vec<Result<u16, NoAnswer>>>,
        posted: Mutex<Vec<(String, String)>>,
    }

    impl Post for Scripted {
        fn post(&self, address: &str, body: &[u8]) -> Result<u16, NoAnswer> {
            self.posted.lock().unwrap().push((
                address.to_owned(),
                String::from_utf8_lossy(body).into_owned(),
            ));
            let mut answers = self.answers.lock().unwrap();
            if answers.is_empty() {
                Ok(200)
            } else {
                answers.remove(0)
            }
        }
    }

    fn scripted(answers: Vec<Result<u16, NoAnswer>>) -> Scripted {
        Scripted {
            answers: Mutex::new(answers),
            posted: Mutex::new(Vec::new()),
        }
    }

    fn webhook() -> Vec<Channel> {
        vec![Channel::Webhook {
            url: "https://hooks.example/secret-path".to_owned(),
        }]
    }

    fn notice(event: Event) -> Notice {
        Notice {
            event,
            stacks: vec!["app:prod".to_owned()],
            dashboard: None,
            run: None,
        }
    }

    fn said(post: &Scripted, events: &[Event], event: Event) -> String {
        let log = tempfile::NamedTempFile::new().unwrap();
        let mut printer = Printer::new(Box::new(std::io::sink()), Box::new(log.reopen().unwrap()));
        Notifier::new(webhook(), post, "o/r").tell(&notice(event), events, &mut printer);
        std::fs::read_to_string(log.path()).unwrap()
    }

    #[test]
    fn only_the_listed_events_are_sent() {
        let post = scripted(vec![]);
        assert_eq!(said(&post, &[Event::Drift], Event::Pending), "");
        assert!(post.posted.lock().unwrap().is_empty());
        assert!(said(&post, &[Event::Drift], Event::Drift).contains("went to the webhook"));
        assert_eq!(post.posted.lock().unwrap().len(), 1);
    }

    #[test]
    fn a_server_error_or_no_answer_is_tried_once_more_and_then_only_warned_of() {
        let post = scripted(vec![Ok(500), Ok(204)]);
        assert!(said(&post, &[Event::Drift], Event::Drift).contains("went to"));
        assert_eq!(post.posted.lock().unwrap().len(), 2);

        let post = scripted(vec![Err(NoAnswer::TimedOut), Err(NoAnswer::TimedOut)]);
        let log = said(&post, &[Event::Drift], Event::Drift);
        assert_eq!(
            log.trim(),
            "::warning::Notification not sent to the webhook: no answer within 10 seconds."
        );
        assert_eq!(post.posted.lock().unwrap().len(), 2);

        let post = scripted(vec![Ok(404)]);
        let log = said(&post, &[Event::Drift], Event::Drift);
        assert_eq!(
            post.posted.lock().unwrap().len(),
            1,
            "a refusal is not retried"
        );
        assert!(
            log.contains("answered 404") && !log.contains("secret-path"),
            "{log}"
        );
    }
}

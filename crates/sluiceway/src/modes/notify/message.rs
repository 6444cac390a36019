//! What a notification says, and the document each channel takes (decision 0078). A
//! message names its event, the stacks (at most ten, the rest counted) and where to
//! look; it never holds a value, a resource, a reason or a tool's words, so it is built
//! from a `Notice` alone, which carries nothing else.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};

use super::{Event, Notice};

/// How many stacks a message names before it counts the rest.
const NAMED: usize = 10;

/// The webhook's document, version 1 (`docs/formats/notification.schema.json`; keys
/// are only ever added).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "Sluiceway notification, version 1")]
pub struct WebhookDocument {
    #[schemars(range(min = 1, max = 1))]
    pub version: u8,
    pub event: Event,
    /// `owner/name`.
    pub repository: String,
    /// Every stack the event is about, by id; empty when a deploy failed before its
    /// stack was known.
    pub stacks: Vec<String>,
    /// The dashboard issue, when known.
    pub dashboard: Option<String>,
    /// The workflow run that sent it.
    pub run: Option<String>,
    /// The one line the chat channels show, without links.
    pub text: String,
}

pub fn webhook_schema() -> Value {
    serde_json::to_value(schemars::schema_for!(WebhookDocument)).unwrap_or_default()
}

/// The sentence, in plain words.
pub fn sentence(notice: &Notice) -> String {
    let listed = list(&notice.stacks);
    let many = notice.stacks.len() > 1;
    match (notice.event, notice.stacks.is_empty()) {
        (Event::Pending, _) => format!(
            "{listed} {} a change waiting to deploy.",
            if many { "each have" } else { "has" }
        ),
        (Event::Drift, _) => format!(
            "{listed} {} from {} code.",
            if many { "have drifted" } else { "has drifted" },
            if many { "their" } else { "its" }
        ),
        (Event::Deployed, _) => format!("{listed} deployed."),
        (Event::Failed, true) => "A deploy failed before its stack was known.".to_owned(),
        (Event::Failed, false) => format!("The deploy of {listed} failed."),
        (Event::Refused, true) => "A tick was refused.".to_owned(),
        (Event::Refused, false) => format!(
            "{} of {listed} {} refused.",
            if many { "Ticks" } else { "A tick" },
            if many { "were" } else { "was" }
        ),
    }
}

/// The whole line: a dot for the event, the repository, the sentence.
pub fn text(notice: &Notice, repository: &str) -> String {
    format!(
        "{} Sluiceway in {repository}: {}",
        dot(notice.event),
        sentence(notice)
    )
}

fn dot(event: Event) -> &'static str {
    match event {
        Event::Pending => "🟡",
        Event::Drift => "🟠",
        Event::Deployed => "🟢",
        Event::Failed => "🔴",
        Event::Refused => "⚪",
    }
}

/// `a, b and c`, at most ten names, then `and N more`.
fn list(stacks: &[String]) -> String {
    let named: Vec<&str> = stacks.iter().take(NAMED).map(String::as_str).collect();
    let rest = stacks.len().saturating_sub(NAMED);
    match (named.as_slice(), rest) {
        ([], _) => String::new(),
        ([one], 0) => one.to_string(),
        (names, 0) => {
            let (last, first) = names.split_last().unwrap_or((&"", &[]));
            format!("{} and {last}", first.join(", "))
        }
        (names, rest) => format!("{} and {rest} more", names.join(", ")),
    }
}

/// The links under the sentence, as (label, address).
fn links(notice: &Notice) -> Vec<(&'static str, &str)> {
    let mut links = Vec::new();
    if let Some(dashboard) = &notice.dashboard {
        links.push(("dashboard", dashboard.as_str()));
    }
    if let Some(run) = &notice.run {
        links.push(("run", run.as_str()));
    }
    links
}

/// Slack's incoming webhook: `text` for notifications and clients without blocks, and
/// the same line as a Block Kit section with the links in a context block. Slack's
/// three control characters are escaped; nothing unfurls.
pub fn slack(notice: &Notice, repository: &str) -> Value {
    let escape = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    let line = escape(&text(notice, repository));
    let links: Vec<String> = links(notice)
        .into_iter()
        .map(|(label, url)| format!("<{}|{label}>", escape(url)))
        .collect();
    let mut blocks = vec![json!({
        "type": "section",
        "text": { "type": "mrkdwn", "text": line },
    })];
    if !links.is_empty() {
        blocks.push(json!({
            "type": "context",
            "elements": [{ "type": "mrkdwn", "text": links.join(" · ") }],
        }));
    }
    let with_links = if links.is_empty() {
        line
    } else {
        format!("{line} {}", links.join(" · "))
    };
    json!({
        "text": with_links,
        "blocks": blocks,
        "unfurl_links": false,
        "unfurl_media": false,
    })
}

/// Telegram's `sendMessage`: plain text (no `parse_mode`), the links on their own
/// lines, no link preview, in the topic when one is named.
pub fn telegram(notice: &Notice, repository: &str, chat: &str, thread: Option<u64>) -> Value {
    let mut message = text(notice, repository);
    for (label, url) in links(notice) {
        message.push_str(&format!("\n{label}: {url}"));
    }
    let chat: Value = chat
        .parse::<i64>()
        .map_or_else(|_| Value::from(chat), Value::from);
    let mut document = json!({
        "chat_id": chat,
        "text": message,
        "link_preview_options": { "is_disabled": true },
    });
    if let Some(thread) = thread {
        document["message_thread_id"] = Value::from(thread);
    }
    document
}

pub fn webhook(notice: &Notice, repository: &str) -> WebhookDocument {
    WebhookDocument {
        version: 1,
        event: notice.event,
        repository: repository.to_owned(),
        stacks: notice.stacks.clone(),
        dashboard: notice.dashboard.clone(),
        run: notice.run.clone(),
        text: text(notice, repository),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn notice(event: Event, stacks: &[&str]) -> Notice {
        Notice {
            event,
            stacks: stacks.iter().map(|s| (*s).to_owned()).collect(),
            dashboard: Some("https://github.example/o/r/issues/3".to_owned()),
            run: Some("https://github.example/o/r/actions/runs/9".to_owned()),
        }
    }

    #[test]
    fn the_sentences() {
        let many: Vec<String> = (1..=12).map(|i| format!("s{i:02}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let lines: Vec<String> = [
            notice(Event::Pending, &["app:prod"]),
            notice(Event::Pending, &["app:prod", "network:prod"]),
            notice(Event::Drift, &["app:prod"]),
            notice(Event::Drift, &["a", "b", "c"]),
            notice(Event::Deployed, &["app:prod"]),
            notice(Event::Failed, &["app:prod"]),
            notice(Event::Failed, &[]),
            notice(Event::Refused, &["app:prod"]),
            notice(Event::Refused, &["app:prod", "db:prod"]),
            notice(Event::Pending, &many),
        ]
        .iter()
        .map(|n| text(n, "o/r"))
        .collect();
        insta::assert_snapshot!(lines.join("\n"));
    }

    #[test]
    fn the_documents_each_channel_takes() {
        let n = notice(Event::Drift, &["app:<prod>&"]);
        insta::assert_json_snapshot!("slack", slack(&n, "o/r"));
        insta::assert_json_snapshot!("telegram", telegram(&n, "o/r", "-1002", Some(7)));
        insta::assert_json_snapshot!("telegram_channel", telegram(&n, "o/r", "@ops", None));
        insta::assert_json_snapshot!("webhook", webhook(&n, "o/r"));
    }
}

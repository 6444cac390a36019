//! Reading a webhook delivery: its signature checked in constant time against the
//! webhook secret, its event and delivery id from GitHub's headers, and from an `issues`
//! event only the repository's place and the issue's body. Everything else in a payload
//! is left unread.

use hmac::{Hmac, Mac};
use serde::Deserialize;
use sha2::Sha256;

use crate::facts::{Dashboard, DeployFacts};
use crate::store::RepoPlace;

/// Why a delivery was not taken; each is answered with a fixed sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum WebhookError {
    #[error("the delivery has no X-Hub-Signature-256 header")]
    Unsigned,
    #[error("the delivery's signature does not match the webhook secret")]
    BadSignature,
    #[error("the delivery has no X-GitHub-Event header")]
    NoEvent,
    #[error("the delivery's X-GitHub-Delivery header is missing or not a delivery id")]
    BadDeliveryId,
    #[error("the delivery's body is not the JSON its event describes")]
    BadBody,
}

/// The headers of a delivery the console reads.
#[derive(Debug, Clone, Copy)]
pub struct Headers<'a> {
    pub event: Option<&'a str>,
    pub delivery: Option<&'a str>,
    pub signature: Option<&'a str>,
}

/// A delivery whose signature holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    pub id: String,
    pub event: String,
    pub news: News,
}

/// What a delivery tells the console.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum News {
    /// An issue that is a dashboard was opened or edited.
    Dashboard {
        place: RepoPlace,
        dashboard: Dashboard,
        /// The person who edited it, for an edit by a person.
        editor: Option<String>,
    },
    /// One of Sluiceway's deployment records was opened or given a status.
    Deploy {
        org: String,
        repo: String,
        /// The repository's page on GitHub.
        html_url: String,
        deploy: DeployFacts,
    },
    /// The app was uninstalled from an org, or suspended there: the console no longer
    /// serves it.
    AppLeft { org: String },
    /// Nothing the console keeps: another event, an issue that is no dashboard, or a
    /// record that is not Sluiceway's.
    Nothing,
}

/// Checks `body` against `signature` (`sha256=<hex>`) with `secret`, in constant time.
pub fn verify(secret: &[u8], body: &[u8], signature: Option<&str>) -> Result<(), WebhookError> {
    let signature = signature.ok_or(WebhookError::Unsigned)?;
    let digest = signature
        .strip_prefix("sha256=")
        .and_then(|hex_digest| hex::decode(hex_digest).ok())
        .ok_or(WebhookError::BadSignature)?;
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).map_err(|_| WebhookError::BadSignature)?;
    mac.update(body);
    mac.verify_slice(&digest)
        .map_err(|_| WebhookError::BadSignature)
}

/// The signature GitHub gives `body` under `secret`, as its header carries it.
pub fn sign(secret: &[u8], body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes a key of any length");
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

/// Reads a delivery: the signature first, so nothing of an unsigned body is read.
pub fn read(secret: &[u8], headers: Headers<'_>, body: &[u8]) -> Result<Delivery, WebhookError> {
    verify(secret, body, headers.signature)?;
    let event = headers.event.ok_or(WebhookError::NoEvent)?.to_owned();
    let id = headers
        .delivery
        .filter(|id| is_delivery_id(id))
        .ok_or(WebhookError::BadDeliveryId)?
        .to_owned();
    let news = match event.as_str() {
        "issues" => issues_news(body)?,
        "deployment" | "deployment_status" => deploy_news(body)?,
        "installation" => installation_news(body)?,
        _ => News::Nothing,
    };
    Ok(Delivery { id, event, news })
}

/// GitHub's delivery ids are GUIDs; anything of their letters up to 64 long is taken.
fn is_delivery_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 64 && id.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')
}

#[derive(Deserialize)]
struct IssuesEvent {
    action: String,
    issue: Issue,
    repository: Repository,
    sender: Option<Sender>,
}

/// Who made the change a delivery tells of.
#[derive(Deserialize)]
struct Sender {
    login: String,
    #[serde(rename = "type")]
    kind: String,
}

#[derive(Deserialize)]
struct Issue {
    number: u64,
    html_url: String,
    body: Option<String>,
}

#[derive(Deserialize)]
struct Repository {
    name: String,
    html_url: String,
    owner: Owner,
}

#[derive(Deserialize)]
struct Owner {
    login: String,
    #[serde(rename = "type")]
    kind: String,
}

#[derive(Deserialize)]
struct DeploymentEvent {
    action: String,
    deployment: Deployment,
    deployment_status: Option<DeploymentStatus>,
    repository: Repository,
}

#[derive(Deserialize)]
struct Deployment {
    id: u64,
    sha: String,
    task: String,
    payload: serde_json::Value,
    created_at: jiff::Timestamp,
}

#[derive(Deserialize)]
struct DeploymentStatus {
    state: String,
    description: Option<String>,
    created_at: jiff::Timestamp,
}

fn deploy_news(body: &[u8]) -> Result<News, WebhookError> {
    let event: DeploymentEvent = serde_json::from_slice(body).map_err(|_| WebhookError::BadBody)?;
    if event.action != "created" {
        return Ok(News::Nothing);
    }
    let d = event.deployment;
    let Some(mut deploy) = DeployFacts::read(d.id, &d.task, &d.payload, &d.sha, d.created_at)
    else {
        return Ok(News::Nothing);
    };
    if let Some(status) = event.deployment_status {
        deploy = deploy.with_status(
            &status.state,
            status.description.as_deref().unwrap_or(""),
            status.created_at,
        );
    }
    Ok(News::Deploy {
        org: event.repository.owner.login,
        repo: event.repository.name,
        html_url: event.repository.html_url,
        deploy,
    })
}

#[derive(Deserialize)]
struct InstallationEvent {
    action: String,
    installation: InstallationOf,
}

#[derive(Deserialize)]
struct InstallationOf {
    account: Owner,
}

fn installation_news(body: &[u8]) -> Result<News, WebhookError> {
    let event: InstallationEvent =
        serde_json::from_slice(body).map_err(|_| WebhookError::BadBody)?;
    Ok(match event.action.as_str() {
        "deleted" | "suspend" => News::AppLeft {
            org: event.installation.account.login,
        },
        _ => News::Nothing,
    })
}

fn issues_news(body: &[u8]) -> Result<News, WebhookError> {
    let event: IssuesEvent = serde_json::from_slice(body).map_err(|_| WebhookError::BadBody)?;
    if !matches!(event.action.as_str(), "opened" | "edited" | "reopened") {
        return Ok(News::Nothing);
    }
    let Some(dashboard) = event.issue.body.as_deref().and_then(Dashboard::read) else {
        return Ok(News::Nothing);
    };
    // The person whose edit this is: a box they ticked is theirs to have picked up.
    let editor = event
        .sender
        .filter(|sender| event.action == "edited" && sender.kind == "User")
        .map(|sender| sender.login);
    Ok(News::Dashboard {
        editor,
        place: RepoPlace {
            org: event.repository.owner.login,
            org_kind: event.repository.owner.kind,
            name: event.repository.name,
            html_url: event.repository.html_url,
            dashboard_number: event.issue.number,
            dashboard_url: event.issue.html_url,
        },
        dashboard,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_signature_made_with_the_secret_holds_and_any_other_does_not() {
        let body = br#"{"zen":"Keep it logically awesome."}"#;
        let signature = sign(b"secret", body);
        assert_eq!(verify(b"secret", body, Some(&signature)), Ok(()));
        assert_eq!(
            verify(b"another", body, Some(&signature)),
            Err(WebhookError::BadSignature)
        );
        assert_eq!(verify(b"secret", body, None), Err(WebhookError::Unsigned));
        for forged in [
            "sha256=",
            "sha1=00",
            "sha256=zz",
            &signature[..signature.len() - 2],
        ] {
            assert_eq!(
                verify(b"secret", body, Some(forged)),
                Err(WebhookError::BadSignature),
                "{forged}"
            );
        }
    }

    #[test]
    fn an_unsigned_delivery_is_refused_before_its_body_is_read() {
        let headers = Headers {
            event: Some("issues"),
            delivery: Some("72d3162e-cc78-11e3-81ab-4c9367dc0958"),
            signature: None,
        };
        assert_eq!(
            read(b"s", headers, b"not json"),
            Err(WebhookError::Unsigned)
        );
    }

    #[test]
    fn a_delivery_id_is_a_guid_s_letters() {
        assert!(is_delivery_id("72d3162e-cc78-11e3-81ab-4c9367dc0958"));
        for bad in ["", "../x", "a b", &"a".repeat(65), "72d3162e;drop"] {
            assert!(!is_delivery_id(bad), "{bad}");
        }
    }

    proptest! {
        #[test]
        fn a_body_changed_anywhere_fails_its_signature(
            body in proptest::collection::vec(any::<u8>(), 1..256),
            at in any::<proptest::sample::Index>(),
            flip in 1u8..=255,
        ) {
            let signature = sign(b"secret", &body);
            let mut changed = body.clone();
            let i = at.index(changed.len());
            changed[i] ^= flip;
            prop_assert_eq!(verify(b"secret", &changed, Some(&signature)), Err(WebhookError::BadSignature));
            prop_assert_eq!(verify(b"secret", &body, Some(&signature)), Ok(()));
        }
    }
}

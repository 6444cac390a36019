//! Webhook deliveries, as GitHub makes them to a GitHub App's webhook: a POST of the
//! event's payload to the registered address with GitHub's headers (`X-GitHub-Event`,
//! `X-GitHub-Delivery`, `X-Hub-Signature-256`), one after another in the order things
//! happened. A test can drop, repeat or delay the next delivery, and read every delivery
//! made with the status it was answered.

use std::collections::VecDeque;
use std::time::Duration;

use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::Sha256;

use crate::shapes::{self, Site, Urls};
use crate::world::World;

/// A webhook: where deliveries go and the secret that signs them.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Hook {
    pub url: String,
    pub secret: String,
}

/// Something that happened on GitHub that a webhook hears of.
#[derive(Debug, Clone)]
pub(crate) enum Happening {
    Issue {
        repo: String,
        number: u64,
        action: &'static str,
        sender: String,
        /// The body before an edit.
        from: Option<String>,
    },
    /// An app was uninstalled (`deleted`): the installation as it was.
    Installation {
        installation: crate::apps::Installation,
        action: &'static str,
        sender: String,
    },
    /// A deployment was created (`status` none), or given a status.
    Deployment {
        repo: String,
        deployment: u64,
        status: Option<u64>,
        sender: String,
    },
}

/// What a test can do to the next delivery.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryFault {
    /// It is never made.
    Drop,
    /// It is made twice, with the same delivery id.
    Repeat,
    /// It is made after this many milliseconds.
    Delay(u64),
}

/// A delivery as it was made.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Made {
    pub id: String,
    pub event: String,
    pub action: String,
    /// The status the hook answered, or `None` when it could not be reached (or the
    /// delivery was dropped).
    pub status: Option<u16>,
}

/// A delivery on its way.
#[derive(Debug, Clone)]
pub(crate) struct Outgoing {
    pub(crate) hook: Hook,
    pub(crate) id: String,
    pub(crate) event: &'static str,
    pub(crate) action: String,
    pub(crate) body: Vec<u8>,
    pub(crate) schema: String,
}

/// The signature GitHub puts in `X-Hub-Signature-256`.
pub(crate) fn signature(secret: &str, body: &[u8]) -> String {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes a key of any length");
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

/// The payloads of what happened, one per hook, each with GitHub's schema name for it.
pub(crate) fn outgoing(world: &World, site: &Site, happened: &[Happening]) -> Vec<Outgoing> {
    let mut out = Vec::new();
    let mut serial = world.deliveries_made;
    for happening in happened {
        let Some((event, schema, payload)) = payload(world, site, happening) else {
            continue;
        };
        let body = serde_json::to_vec(&payload).unwrap_or_default();
        let action = payload["action"].as_str().unwrap_or_default().to_owned();
        for hook in &world.hooks {
            serial += 1;
            out.push(Outgoing {
                hook: hook.clone(),
                id: delivery_id(serial),
                event,
                action: action.clone(),
                body: body.clone(),
                schema: schema.clone(),
            });
        }
    }
    out
}

/// The event's name, GitHub's schema name for its payload, and the payload.
fn payload(
    world: &World,
    site: &Site,
    happening: &Happening,
) -> Option<(&'static str, String, Value)> {
    match happening {
        Happening::Issue {
            repo,
            number,
            action,
            sender,
            from,
        } => {
            let repo = world.repo(repo).ok()?;
            let account = world.account(sender)?;
            let issue = repo.issues.get(number)?;
            let urls = Urls { site, repo };
            let mut payload = json!({
                "action": action,
                "issue": shapes::issue(world, &urls, issue),
                "repository": shapes::repository(world, &urls, false),
                "sender": shapes::user(site, account),
            });
            // A webhook's issue carries its reactions, which the REST answer may leave out.
            payload["issue"]["reactions"] = json!({
                "url": urls.api(&format!("/issues/{number}/reactions")),
                "total_count": 0, "+1": 0, "-1": 0, "laugh": 0, "confused": 0,
                "heart": 0, "hooray": 0, "eyes": 0, "rocket": 0,
            });
            if let Some(from) = from {
                payload["changes"] = json!({ "body": { "from": from } });
            }
            Some(("issues", format!("webhook-issues-{action}"), payload))
        }
        Happening::Installation {
            installation,
            action,
            sender,
        } => {
            let account = world.account(sender)?;
            let repositories: Vec<Value> = world
                .repos
                .values()
                .filter(|r| r.owner.eq_ignore_ascii_case(&installation.account))
                .map(|r| {
                    json!({
                        "id": r.id,
                        "node_id": format!("R_{}", r.id),
                        "name": r.name,
                        "full_name": r.full_name(),
                        "private": r.private,
                    })
                })
                .collect();
            let payload = json!({
                "action": action,
                "installation": shapes::installation(world, site, installation),
                "repositories": repositories,
                "requester": null,
                "sender": shapes::user(site, account),
            });
            Some((
                "installation",
                format!("webhook-installation-{action}"),
                payload,
            ))
        }
        Happening::Deployment {
            repo,
            deployment,
            status,
            sender,
        } => {
            let repo = world.repo(repo).ok()?;
            let account = world.account(sender)?;
            let deployment = repo.deployments.get(deployment)?;
            let urls = Urls { site, repo };
            let mut payload = json!({
                "action": "created",
                "deployment": shapes::deployment(world, &urls, deployment),
                "repository": shapes::repository(world, &urls, false),
                "sender": shapes::user(site, account),
            });
            match status {
                None => {
                    payload["workflow"] = Value::Null;
                    payload["workflow_run"] = Value::Null;
                    Some((
                        "deployment",
                        "webhook-deployment-created".to_owned(),
                        payload,
                    ))
                }
                Some(id) => {
                    let status = deployment.statuses.iter().find(|s| s.id == *id)?;
                    payload["deployment_status"] =
                        shapes::deployment_status(world, &urls, deployment, status);
                    Some((
                        "deployment_status",
                        "webhook-deployment-status-created".to_owned(),
                        payload,
                    ))
                }
            }
        }
    }
}

/// GitHub's delivery ids are GUIDs; the emulator's count up, so runs repeat.
fn delivery_id(serial: u64) -> String {
    format!("00000000-0000-4000-8000-{serial:012x}")
}

/// Makes deliveries one after another, applying the faults armed for them.
pub(crate) async fn deliver(
    mut queue: tokio::sync::mpsc::UnboundedReceiver<Outgoing>,
    shared: crate::server::Shared,
) {
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap_or_default();
    while let Some(outgoing) = queue.recv().await {
        let fault = shared.next_delivery_fault();
        let times = match fault {
            Some(DeliveryFault::Drop) => 0,
            Some(DeliveryFault::Repeat) => 2,
            Some(DeliveryFault::Delay(ms)) => {
                tokio::time::sleep(Duration::from_millis(ms)).await;
                1
            }
            None => 1,
        };
        if times == 0 {
            shared.made(made(&outgoing, None));
        }
        for _ in 0..times {
            let status = client
                .post(&outgoing.hook.url)
                .header("content-type", "application/json")
                .header("user-agent", "GitHub-Hookshot/emulator")
                .header("x-github-event", outgoing.event)
                .header("x-github-delivery", &outgoing.id)
                .header(
                    "x-hub-signature-256",
                    signature(&outgoing.hook.secret, &outgoing.body),
                )
                .body(outgoing.body.clone())
                .send()
                .await
                .ok()
                .map(|r| r.status().as_u16());
            shared.made(made(&outgoing, status));
        }
    }
}

fn made(outgoing: &Outgoing, status: Option<u16>) -> Made {
    Made {
        id: outgoing.id.clone(),
        event: outgoing.event.to_owned(),
        action: outgoing.action.clone(),
        status,
    }
}

/// Faults armed for the next deliveries, oldest first.
#[derive(Debug, Default)]
pub(crate) struct DeliveryFaults(pub(crate) VecDeque<DeliveryFault>);

pub(crate) fn checked(
    descriptions: Option<&crate::Descriptions>,
    outgoing: &Outgoing,
) -> Vec<String> {
    let Some(descriptions) = descriptions else {
        return Vec::new();
    };
    let Ok(payload) = serde_json::from_slice::<Value>(&outgoing.body) else {
        return vec![format!("{}: the payload is not JSON", outgoing.schema)];
    };
    descriptions.check_webhook(&outgoing.schema, &payload)
}

//! GitHub Apps, as GitHub authenticates them: an app signs a JSON Web Token (RS256) with
//! its private key, and with it alone may ask for its installations and buy an
//! installation access token, which then speaks as `<slug>[bot]` with the permissions
//! the installation was given. A token bought lives an hour.

use std::collections::BTreeMap;

use jiff::{Timestamp, ToSpan};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::world::{AccountKind, Grant, Level, Refusal, World};

/// An app registered on this GitHub: its id, its slug and the public half of its key.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct App {
    pub id: u64,
    pub slug: String,
    pub public_key_pem: String,
    /// What its sign-in (the OAuth web flow) is known by, and its secret.
    pub client_id: String,
    pub client_secret: String,
    pub created_at: Timestamp,
}

impl App {
    /// The bot account an installation token speaks as.
    pub fn bot(&self) -> String {
        format!("{}[bot]", self.slug)
    }
}

/// An app installed on an account (an organization or a person), with the permissions
/// the account granted it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Installation {
    pub id: u64,
    pub app: u64,
    pub account: String,
    pub permissions: BTreeMap<String, Level>,
    pub created_at: Timestamp,
}

/// The claims GitHub reads from an app's token. `iss` is the app's id, as a number or
/// as digits in a string.
#[derive(Deserialize)]
struct Claims {
    iss: Value,
    iat: i64,
    exp: i64,
}

/// GitHub's answers to a token it cannot take as an app's.
const UNDECODABLE: &str = "A JSON web token could not be decoded";
const EXPIRED: &str = "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires";
const TOO_LONG: &str = "'Expiration time' claim ('exp') is too far in the future";
const NOT_YET: &str = "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued";

/// GitHub refuses an app's token that claims to live more than ten minutes.
const LONGEST_SECONDS: i64 = 600;

/// Whether a bearer token looks like a JSON Web Token: three parts joined by dots.
pub(crate) fn looks_like_jwt(token: &str) -> bool {
    token.split('.').count() == 3 && token.starts_with("eyJ")
}

/// The app a JSON Web Token speaks for, when its signature is the app's and its times
/// are good at `now`.
pub(crate) fn app_of_jwt(world: &World, token: &str, now: Timestamp) -> Result<u64, Refusal> {
    let undecodable = || Refusal::new(401, UNDECODABLE);
    // The issuer is read before the signature is checked, to know whose key checks it.
    let header_and_claims =
        jsonwebtoken::dangerous::insecure_decode::<Claims>(token).map_err(|_| undecodable())?;
    let issuer = match &header_and_claims.claims.iss {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
    .ok_or_else(undecodable)?;
    let app = world
        .apps
        .iter()
        .find(|a| a.id == issuer)
        .ok_or_else(|| Refusal::new(401, "Integration not found"))?;
    let key =
        DecodingKey::from_rsa_pem(app.public_key_pem.as_bytes()).map_err(|_| undecodable())?;
    let mut validation = Validation::new(Algorithm::RS256);
    // The times are checked below against the world's clock, as GitHub's own.
    validation.validate_exp = false;
    // The issuer is read above: GitHub takes the app's id as a number, which the crate's
    // own issuer check (text only) would call missing.
    validation.set_required_spec_claims(&["iat", "exp"]);
    let claims = jsonwebtoken::decode::<Claims>(token, &key, &validation)
        .map_err(|_| undecodable())?
        .claims;
    let now = now.as_second();
    if claims.exp <= now {
        return Err(Refusal::new(401, EXPIRED));
    }
    if claims.exp - claims.iat > LONGEST_SECONDS {
        return Err(Refusal::new(401, TOO_LONG));
    }
    if claims.iat > now + 60 {
        return Err(Refusal::new(401, NOT_YET));
    }
    Ok(app.id)
}

impl World {
    /// Registers an app and its bot account; answers the app.
    pub fn add_app(&mut self, slug: &str, public_key_pem: &str) -> App {
        let id = self.id();
        let created_at = self.now;
        let app = App {
            id,
            slug: slug.to_owned(),
            public_key_pem: public_key_pem.to_owned(),
            client_id: format!("Iv1.emulated{id:08}"),
            client_secret: format!("emulated-client-secret-{id:08}"),
            created_at,
        };
        self.add_account(&app.bot(), AccountKind::Bot);
        self.apps.push(app.clone());
        app
    }

    /// Makes `login` a member of the organization `org`.
    pub fn add_member(&mut self, org: &str, login: &str) -> Result<(), Refusal> {
        if self.account(org).is_none() || self.account(login).is_none() {
            return Err(Refusal::new(404, "Not Found"));
        }
        self.members
            .entry(org.to_ascii_lowercase())
            .or_default()
            .insert(login.to_ascii_lowercase());
        Ok(())
    }

    pub fn remove_member(&mut self, org: &str, login: &str) {
        if let Some(members) = self.members.get_mut(&org.to_ascii_lowercase()) {
            members.remove(&login.to_ascii_lowercase());
        }
    }

    pub(crate) fn is_member(&self, org: &str, login: &str) -> bool {
        self.members
            .get(&org.to_ascii_lowercase())
            .is_some_and(|members| members.contains(&login.to_ascii_lowercase()))
    }

    /// Installs an app on an account with the permissions given; answers the
    /// installation's id.
    pub fn install(
        &mut self,
        app: u64,
        account: &str,
        permissions: BTreeMap<String, Level>,
    ) -> Result<u64, Refusal> {
        if !self.apps.iter().any(|a| a.id == app) {
            return Err(Refusal::new(404, "Not Found"));
        }
        if self.account(account).is_none() {
            return Err(Refusal::new(404, "Not Found"));
        }
        let id = self.id();
        let created_at = self.now;
        self.installations.push(Installation {
            id,
            app,
            account: account.to_owned(),
            permissions,
            created_at,
        });
        Ok(id)
    }

    /// Uninstalls the app from an account, as `sender` does on GitHub: the
    /// installation's tokens stop working, and the app's webhook hears of it.
    pub fn uninstall(&mut self, app: u64, account: &str, sender: &str) -> Result<(), Refusal> {
        let at = self
            .installations
            .iter()
            .position(|i| i.app == app && i.account.eq_ignore_ascii_case(account))
            .ok_or_else(|| Refusal::new(404, "Not Found"))?;
        let installation = self.installations.remove(at);
        let minted: Vec<String> = self
            .minted
            .iter()
            .filter(|(_, id)| **id == installation.id)
            .map(|(token, _)| token.clone())
            .collect();
        for token in minted {
            self.tokens.remove(&token);
            self.minted.remove(&token);
        }
        self.happened.push(crate::hooks::Happening::Installation {
            installation,
            action: "deleted",
            sender: sender.to_owned(),
        });
        Ok(())
    }

    /// The app's installation on the account that owns `repo`.
    pub(crate) fn installation_for(&self, app: u64, repo: &str) -> Option<&Installation> {
        let owner = repo.split_once('/').map_or(repo, |(owner, _)| owner);
        self.installations
            .iter()
            .find(|i| i.app == app && i.account.eq_ignore_ascii_case(owner))
    }

    /// Buys a token for one of the app's installations, living an hour from now.
    pub(crate) fn installation_token(
        &mut self,
        app: u64,
        installation: u64,
    ) -> Result<(String, Timestamp, BTreeMap<String, Level>), Refusal> {
        let found = self
            .installations
            .iter()
            .find(|i| i.id == installation && i.app == app)
            .ok_or_else(|| Refusal::new(404, "Not Found"))?
            .clone();
        let bot = self
            .apps
            .iter()
            .find(|a| a.id == app)
            .map(App::bot)
            .ok_or_else(|| Refusal::new(404, "Not Found"))?;
        let serial = self.id();
        let token = format!("ghs_emulated{serial:0>24}");
        // An hour from the machine's clock, which the app keeps its tokens by (the
        // world's clock is the tests' to set).
        let now = Timestamp::now();
        let expires_at = now.checked_add(1.hour()).unwrap_or(now);
        self.add_token(
            &token,
            Grant {
                login: bot,
                permissions: Some(found.permissions.clone()),
            },
        );
        self.minted.insert(token.clone(), installation);
        Ok((token, expires_at, found.permissions))
    }
}

/// A key pair for an app, as a test registers one: made by the system's OpenSSL, the
/// private half in PEM (PKCS #8) and the public (SPKI).
pub fn key_pair() -> (String, String) {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let made = Command::new("openssl")
        .args([
            "genpkey",
            "-algorithm",
            "RSA",
            "-pkeyopt",
            "rsa_keygen_bits:2048",
        ])
        .output()
        .expect("openssl makes a key");
    assert!(made.status.success(), "openssl made no key");
    let mut public = Command::new("openssl")
        .args(["pkey", "-pubout"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("openssl gives the public half");
    public
        .stdin
        .take()
        .expect("its input")
        .write_all(&made.stdout)
        .expect("the key written to it");
    let public = public.wait_with_output().expect("the public half");
    (
        String::from_utf8_lossy(&made.stdout).into_owned(),
        String::from_utf8_lossy(&public.stdout).into_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signed(private: &str, iss: u64, iat: i64, exp: i64) -> String {
        #[derive(serde::Serialize)]
        struct Claims {
            iss: u64,
            iat: i64,
            exp: i64,
        }
        jsonwebtoken::encode(
            &jsonwebtoken::Header::new(Algorithm::RS256),
            &Claims { iss, iat, exp },
            &jsonwebtoken::EncodingKey::from_rsa_pem(private.as_bytes()).unwrap(),
        )
        .unwrap()
    }

    #[test]
    fn an_apps_token_is_taken_only_when_its_key_signed_it_and_its_times_hold() {
        let (private, public) = key_pair();
        let (other, _) = key_pair();
        let now: Timestamp = "2026-12-07T12:00:00Z".parse().unwrap();
        let mut world = World::new(now);
        let app = world.add_app("console", &public).id;
        let at = now.as_second();
        let good = signed(&private, app, at - 60, at + 540);
        assert!(looks_like_jwt(&good));
        assert_eq!(
            app_of_jwt(&world, &good, now).map_err(|r| r.message),
            Ok(app)
        );
        let refused = |token: &str| app_of_jwt(&world, token, now).unwrap_err().message;
        assert_eq!(
            refused(&signed(&other, app, at - 60, at + 540)),
            UNDECODABLE
        );
        assert_eq!(refused(&signed(&private, app, at - 700, at - 100)), EXPIRED);
        assert_eq!(refused(&signed(&private, app, at, at + 900)), TOO_LONG);
        assert_eq!(
            refused(&signed(&private, app + 1, at, at + 60)),
            "Integration not found"
        );
    }

    #[test]
    fn only_a_three_part_token_is_taken_for_an_apps() {
        assert!(looks_like_jwt("eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOjF9.c2ln"));
        assert!(!looks_like_jwt("ghs_emulated000000000000000000000001"));
        assert!(!looks_like_jwt("eyJ.two"));
    }
}

//! The console's settings, from flags and the environment. A setting that is missing or
//! bad stops the console before it listens, with the setting's name and never its value:
//! a secret in a start-up log is a secret given away.

use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use sluiceway_github::Endpoints;

/// A setting, by the flag and the environment variable that give it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting {
    Listen,
    PublicUrl,
    Data,
    DatabaseUrl,
    WebhookSecret,
    WebhookSecretFile,
    GitHubApiUrl,
    AppId,
    AppKey,
    AppKeyFile,
    CatchUpEvery,
    GitHubUrl,
    SignInClientId,
    SignInClientSecret,
    SignInClientSecretFile,
}

impl Setting {
    pub fn flag(self) -> &'static str {
        match self {
            Setting::Listen => "--listen",
            Setting::PublicUrl => "--public-url",
            Setting::Data => "--data",
            Setting::DatabaseUrl => "--database-url",
            Setting::WebhookSecret => "--webhook-secret",
            Setting::WebhookSecretFile => "--webhook-secret-file",
            Setting::GitHubApiUrl => "--github-api-url",
            Setting::AppId => "--app-id",
            Setting::AppKey => "--app-key",
            Setting::AppKeyFile => "--app-key-file",
            Setting::CatchUpEvery => "--catch-up-every",
            Setting::GitHubUrl => "--github-url",
            Setting::SignInClientId => "--client-id",
            Setting::SignInClientSecret => "--client-secret",
            Setting::SignInClientSecretFile => "--client-secret-file",
        }
    }

    pub fn env(self) -> &'static str {
        match self {
            Setting::Listen => "SLUICEWAY_CONSOLE_LISTEN",
            Setting::PublicUrl => "SLUICEWAY_CONSOLE_PUBLIC_URL",
            Setting::Data => "SLUICEWAY_CONSOLE_DATA",
            Setting::DatabaseUrl => "SLUICEWAY_CONSOLE_DATABASE_URL",
            Setting::WebhookSecret => "SLUICEWAY_CONSOLE_WEBHOOK_SECRET",
            Setting::WebhookSecretFile => "SLUICEWAY_CONSOLE_WEBHOOK_SECRET_FILE",
            Setting::GitHubApiUrl => "SLUICEWAY_CONSOLE_GITHUB_API_URL",
            Setting::AppId => "SLUICEWAY_CONSOLE_APP_ID",
            Setting::AppKey => "SLUICEWAY_CONSOLE_APP_KEY",
            Setting::AppKeyFile => "SLUICEWAY_CONSOLE_APP_KEY_FILE",
            Setting::CatchUpEvery => "SLUICEWAY_CONSOLE_CATCH_UP_EVERY",
            Setting::GitHubUrl => "SLUICEWAY_CONSOLE_GITHUB_URL",
            Setting::SignInClientId => "SLUICEWAY_CONSOLE_CLIENT_ID",
            Setting::SignInClientSecret => "SLUICEWAY_CONSOLE_CLIENT_SECRET",
            Setting::SignInClientSecretFile => "SLUICEWAY_CONSOLE_CLIENT_SECRET_FILE",
        }
    }
}

impl fmt::Display for Setting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // The secret itself is never a flag: a command line is seen by every user
            // of the machine.
            Setting::WebhookSecret | Setting::AppKey | Setting::SignInClientSecret => {
                write!(f, "{}", self.env())
            }
            _ => write!(f, "{} ({})", self.flag(), self.env()),
        }
    }
}

#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum SettingsError {
    #[error("{0} is not set, and the console cannot start without it")]
    Missing(Setting),
    #[error("{setting} is not {expected}")]
    Bad {
        setting: Setting,
        expected: &'static str,
    },
    #[error("{0} and {1} are both set; give one")]
    Both(Setting, Setting),
    #[error("{setting} names a file that could not be read: {reason}")]
    Unreadable { setting: Setting, reason: String },
}

/// The settings as given, before they are checked.
#[derive(Debug, Clone, Default)]
pub struct Given {
    pub listen: Option<String>,
    pub public_url: Option<String>,
    pub data: Option<PathBuf>,
    pub database_url: Option<String>,
    pub webhook_secret: Option<String>,
    pub webhook_secret_file: Option<PathBuf>,
    pub github_api_url: Option<String>,
    pub app_id: Option<String>,
    /// The app's private key in PEM, from the environment only.
    pub app_key: Option<String>,
    pub app_key_file: Option<PathBuf>,
    pub catch_up_every: Option<String>,
    pub github_url: Option<String>,
    pub client_id: Option<String>,
    /// The app's client secret, from the environment only.
    pub client_secret: Option<String>,
    pub client_secret_file: Option<PathBuf>,
}

/// The settings a console runs with.
#[derive(Clone)]
pub struct Settings {
    pub listen: SocketAddr,
    /// Where people and the command line reach the console, without a final slash: the
    /// start of every page address an answer gives.
    pub public_url: String,
    /// No public URL was given, so it is the address the console binds (port 0 picks
    /// one when it listens).
    pub public_url_follows_listen: bool,
    /// The folder the SQLite database lives in when no database URL is given.
    pub data: PathBuf,
    pub database_url: String,
    pub webhook_secret: Vec<u8>,
    /// Where GitHub's API is, GitHub.com's or an Enterprise Server's.
    pub github: Endpoints,
    /// The GitHub App the console is: its id and the key that signs its tokens.
    pub app: AppIdentity,
    /// How often every kept dashboard is read again from GitHub, for deliveries lost or
    /// sent while the console was down.
    pub catch_up_every: std::time::Duration,
    /// Signing in with GitHub, when the app's client id and secret are given.
    pub sign_in: Option<SignInClient>,
}

/// What the console's sign-in asks GitHub with: the app's client id and secret, and
/// GitHub's web address, where a person approves.
#[derive(Clone)]
pub struct SignInClient {
    pub client_id: String,
    pub client_secret: String,
    /// GitHub's pages, without a final slash: `https://github.com` unless given.
    pub web: String,
}

/// A GitHub App's id and private key.
#[derive(Clone)]
pub struct AppIdentity {
    pub id: u64,
    pub key: jsonwebtoken::EncodingKey,
}

impl fmt::Debug for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Settings")
            .field("listen", &self.listen)
            .field("public_url", &self.public_url)
            .field("data", &self.data)
            .field("database_url", &"(not shown)")
            .field("webhook_secret", &"(not shown)")
            .field("github", &self.github.rest.as_str())
            .field("app", &self.app.id)
            .field("catch_up_every", &self.catch_up_every)
            .field(
                "sign_in",
                &self.sign_in.as_ref().map(|c| (&c.client_id, &c.web)),
            )
            .finish()
    }
}

const DEFAULT_LISTEN: &str = "127.0.0.1:8080";
/// Five minutes: a lost delivery is mended within them, at one read per dashboard.
const DEFAULT_CATCH_UP_SECONDS: u64 = 300;

impl Settings {
    /// Checks what was given; `default_data` is the data folder when none is.
    pub fn check(given: Given, default_data: &Path) -> Result<Settings, SettingsError> {
        let listen: SocketAddr = given
            .listen
            .as_deref()
            .unwrap_or(DEFAULT_LISTEN)
            .parse()
            .map_err(|_| SettingsError::Bad {
                setting: Setting::Listen,
                expected: "an address and port, such as 127.0.0.1:8080",
            })?;
        let public_url_follows_listen = given.public_url.is_none();
        let public_url = match given.public_url {
            Some(url) => checked_url(&url)?,
            None => format!("http://{listen}"),
        };
        let (data, database_url) = database(given.data, given.database_url, default_data)?;
        let webhook_secret = secret_of(
            given.webhook_secret,
            given.webhook_secret_file,
            (Setting::WebhookSecret, Setting::WebhookSecretFile),
        )?
        .trim_end_matches(['\n', '\r'])
        .as_bytes()
        .to_vec();
        if webhook_secret.is_empty() {
            return Err(SettingsError::Bad {
                setting: Setting::WebhookSecret,
                expected: "a secret of at least one character",
            });
        }
        let api = given
            .github_api_url
            .unwrap_or_else(|| "https://api.github.com".to_owned());
        let github = Endpoints::from_vars(|name| (name == "GITHUB_API_URL").then(|| api.clone()))
            .map_err(|_| SettingsError::Bad {
            setting: Setting::GitHubApiUrl,
            expected: "an http or https address",
        })?;
        let id = given
            .app_id
            .ok_or(SettingsError::Missing(Setting::AppId))?
            .trim()
            .parse::<u64>()
            .ok()
            .filter(|id| *id > 0)
            .ok_or(SettingsError::Bad {
                setting: Setting::AppId,
                expected: "the app's number, as GitHub shows it on the app's page",
            })?;
        let key_setting = if given.app_key_file.is_some() {
            Setting::AppKeyFile
        } else {
            Setting::AppKey
        };
        let pem = secret_of(
            given.app_key,
            given.app_key_file,
            (Setting::AppKey, Setting::AppKeyFile),
        )?;
        let key = jsonwebtoken::EncodingKey::from_rsa_pem(pem.as_bytes()).map_err(|_| {
            SettingsError::Bad {
                setting: key_setting,
                expected: "the app's RSA private key in PEM, as GitHub gave it",
            }
        })?;
        let catch_up_every = match given.catch_up_every {
            None => DEFAULT_CATCH_UP_SECONDS,
            Some(seconds) => seconds
                .trim()
                .parse::<u64>()
                .ok()
                .filter(|s| *s > 0)
                .ok_or(SettingsError::Bad {
                    setting: Setting::CatchUpEvery,
                    expected: "a whole number of seconds, 1 or more",
                })?,
        };
        let sign_in = match (
            given.client_id,
            given.client_secret,
            given.client_secret_file,
        ) {
            (None, None, None) => None,
            (None, _, _) => return Err(SettingsError::Missing(Setting::SignInClientId)),
            (Some(client_id), secret, file) => {
                let client_secret = secret_of(
                    secret,
                    file,
                    (Setting::SignInClientSecret, Setting::SignInClientSecretFile),
                )?
                .trim()
                .to_owned();
                let web = match given.github_url {
                    Some(url) => checked(&url, Setting::GitHubUrl)?,
                    None => "https://github.com".to_owned(),
                };
                Some(SignInClient {
                    client_id: client_id.trim().to_owned(),
                    client_secret,
                    web,
                })
            }
        };
        Ok(Settings {
            listen,
            public_url,
            public_url_follows_listen,
            data,
            database_url,
            webhook_secret,
            github,
            app: AppIdentity { id, key },
            catch_up_every: std::time::Duration::from_secs(catch_up_every),
            sign_in,
        })
    }
}

/// A secret given in the environment or in a file, never both; the file's text whole.
fn secret_of(
    given: Option<String>,
    file: Option<PathBuf>,
    (by_env, by_file): (Setting, Setting),
) -> Result<String, SettingsError> {
    match (given, file) {
        (Some(_), Some(_)) => Err(SettingsError::Both(by_env, by_file)),
        (Some(secret), None) => Ok(secret),
        (None, Some(file)) => {
            std::fs::read_to_string(&file).map_err(|e| SettingsError::Unreadable {
                setting: by_file,
                reason: e.kind().to_string(),
            })
        }
        (None, None) => Err(SettingsError::Missing(by_env)),
    }
}

/// The data folder and the database URL: the one given, or a SQLite file in the folder.
pub fn database(
    data: Option<PathBuf>,
    url: Option<String>,
    default_data: &Path,
) -> Result<(PathBuf, String), SettingsError> {
    let data = data.unwrap_or_else(|| default_data.to_owned());
    let url = match url {
        Some(url) if is_database_url(&url) => url,
        Some(_) => {
            return Err(SettingsError::Bad {
                setting: Setting::DatabaseUrl,
                expected: "a sqlite: or postgres: URL",
            });
        }
        None => format!("sqlite://{}", data.join("console.db").display()),
    };
    Ok((data, url))
}

fn is_database_url(url: &str) -> bool {
    ["sqlite:", "postgres://", "postgresql://"]
        .iter()
        .any(|scheme| url.starts_with(scheme))
}

fn checked_url(url: &str) -> Result<String, SettingsError> {
    checked(url, Setting::PublicUrl)
}

fn checked(url: &str, setting: Setting) -> Result<String, SettingsError> {
    let bad = SettingsError::Bad {
        setting,
        expected: "an http or https address with a host and no query",
    };
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))
        .ok_or_else(|| bad.clone())?;
    if rest.is_empty() || rest.starts_with('/') || rest.contains(['?', '#', ' ']) {
        return Err(bad);
    }
    Ok(url.trim_end_matches('/').to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh RSA key in PEM, as GitHub gives an app's, made by the system's OpenSSL.
    fn app_key() -> String {
        static KEY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
        KEY.get_or_init(|| github_emulator::apps::key_pair().0)
            .clone()
    }

    fn given() -> Given {
        Given {
            webhook_secret: Some("s3cret-canary".into()),
            app_id: Some("4242".into()),
            app_key: Some(app_key()),
            ..Given::default()
        }
    }

    #[test]
    fn the_defaults_listen_on_loopback_and_keep_sqlite_in_the_data_folder() {
        let settings = Settings::check(given(), Path::new("/var/lib/console")).unwrap();
        assert_eq!(settings.listen.to_string(), "127.0.0.1:8080");
        assert_eq!(settings.public_url, "http://127.0.0.1:8080");
        assert_eq!(
            settings.database_url,
            "sqlite:///var/lib/console/console.db"
        );
        assert_eq!(settings.webhook_secret, b"s3cret-canary");
        assert_eq!(settings.github.rest.as_str(), "https://api.github.com/");
        assert_eq!(settings.app.id, 4242);
        assert_eq!(settings.catch_up_every.as_secs(), 300);
        let shown = format!("{settings:?}");
        assert!(
            !shown.contains("canary") && !shown.contains("PRIVATE"),
            "{shown}"
        );
    }

    #[test]
    fn a_bad_setting_is_refused_by_its_name_and_never_its_value() {
        let cases = [
            (
                Given {
                    listen: Some("canary:port".into()),
                    ..given()
                },
                "--listen (SLUICEWAY_CONSOLE_LISTEN) is not an address and port, such as 127.0.0.1:8080",
            ),
            (
                Given {
                    public_url: Some("ftp://canary".into()),
                    ..given()
                },
                "--public-url (SLUICEWAY_CONSOLE_PUBLIC_URL) is not an http or https address with a host and no query",
            ),
            (
                Given {
                    database_url: Some("mysql://canary".into()),
                    ..given()
                },
                "--database-url (SLUICEWAY_CONSOLE_DATABASE_URL) is not a sqlite: or postgres: URL",
            ),
            (
                Given {
                    webhook_secret: None,
                    ..given()
                },
                "SLUICEWAY_CONSOLE_WEBHOOK_SECRET is not set, and the console cannot start without it",
            ),
            (
                Given {
                    webhook_secret_file: Some("/nonexistent/canary".into()),
                    ..given()
                },
                "SLUICEWAY_CONSOLE_WEBHOOK_SECRET and --webhook-secret-file (SLUICEWAY_CONSOLE_WEBHOOK_SECRET_FILE) are both set; give one",
            ),
            (
                Given {
                    webhook_secret: None,
                    webhook_secret_file: Some("/nonexistent/canary".into()),
                    ..given()
                },
                "--webhook-secret-file (SLUICEWAY_CONSOLE_WEBHOOK_SECRET_FILE) names a file that could not be read: entity not found",
            ),
            (
                Given {
                    app_id: None,
                    ..given()
                },
                "--app-id (SLUICEWAY_CONSOLE_APP_ID) is not set, and the console cannot start without it",
            ),
            (
                Given {
                    app_id: Some("canary".into()),
                    ..given()
                },
                "--app-id (SLUICEWAY_CONSOLE_APP_ID) is not the app's number, as GitHub shows it on the app's page",
            ),
            (
                Given {
                    app_key: Some(
                        "-----BEGIN PRIVATE KEY-----\ncanary\n-----END PRIVATE KEY-----\n".into(),
                    ),
                    ..given()
                },
                "SLUICEWAY_CONSOLE_APP_KEY is not the app's RSA private key in PEM, as GitHub gave it",
            ),
            (
                Given {
                    app_key: None,
                    ..given()
                },
                "SLUICEWAY_CONSOLE_APP_KEY is not set, and the console cannot start without it",
            ),
            (
                Given {
                    client_secret: Some("canary".into()),
                    ..given()
                },
                "--client-id (SLUICEWAY_CONSOLE_CLIENT_ID) is not set, and the console cannot start without it",
            ),
            (
                Given {
                    client_id: Some("Iv1.abc".into()),
                    ..given()
                },
                "SLUICEWAY_CONSOLE_CLIENT_SECRET is not set, and the console cannot start without it",
            ),
            (
                Given {
                    client_id: Some("Iv1.abc".into()),
                    client_secret: Some("canary".into()),
                    github_url: Some("canary".into()),
                    ..given()
                },
                "--github-url (SLUICEWAY_CONSOLE_GITHUB_URL) is not an http or https address with a host and no query",
            ),
            (
                Given {
                    catch_up_every: Some("0".into()),
                    ..given()
                },
                "--catch-up-every (SLUICEWAY_CONSOLE_CATCH_UP_EVERY) is not a whole number of seconds, 1 or more",
            ),
            (
                Given {
                    github_api_url: Some("canary".into()),
                    ..given()
                },
                "--github-api-url (SLUICEWAY_CONSOLE_GITHUB_API_URL) is not an http or https address",
            ),
        ];
        for (given, said) in cases {
            let error = Settings::check(given, Path::new("/data")).unwrap_err();
            assert_eq!(error.to_string(), said);
            assert!(!said.contains("canary"));
        }
    }
}

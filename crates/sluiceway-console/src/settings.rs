//! The console's settings, from flags and the environment. A setting that is missing or
//! bad stops the console before it listens, with the setting's name and never its value:
//! a secret in a start-up log is a secret given away.

use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

/// A setting, by the flag and the environment variable that give it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Setting {
    Listen,
    PublicUrl,
    Data,
    DatabaseUrl,
    WebhookSecret,
    WebhookSecretFile,
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
        }
    }
}

impl fmt::Display for Setting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // The secret itself is never a flag: a command line is seen by every user
            // of the machine.
            Setting::WebhookSecret => write!(f, "{}", self.env()),
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
}

/// The settings a console runs with.
#[derive(Clone)]
pub struct Settings {
    pub listen: SocketAddr,
    /// Where people and the command line reach the console, without a final slash: the
    /// start of every page address an answer gives.
    pub public_url: String,
    /// The folder the SQLite database lives in when no database URL is given.
    pub data: PathBuf,
    pub database_url: String,
    pub webhook_secret: Vec<u8>,
}

impl fmt::Debug for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Settings")
            .field("listen", &self.listen)
            .field("public_url", &self.public_url)
            .field("data", &self.data)
            .field("database_url", &"(not shown)")
            .field("webhook_secret", &"(not shown)")
            .finish()
    }
}

const DEFAULT_LISTEN: &str = "127.0.0.1:8080";

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
        let public_url = match given.public_url {
            Some(url) => checked_url(&url)?,
            None => format!("http://{listen}"),
        };
        let (data, database_url) = database(given.data, given.database_url, default_data)?;
        let webhook_secret = match (given.webhook_secret, given.webhook_secret_file) {
            (Some(_), Some(_)) => {
                return Err(SettingsError::Both(
                    Setting::WebhookSecret,
                    Setting::WebhookSecretFile,
                ));
            }
            (Some(secret), None) => secret.into_bytes(),
            (None, Some(file)) => std::fs::read_to_string(&file)
                .map_err(|e| SettingsError::Unreadable {
                    setting: Setting::WebhookSecretFile,
                    reason: e.kind().to_string(),
                })?
                .trim_end_matches(['\n', '\r'])
                .as_bytes()
                .to_vec(),
            (None, None) => return Err(SettingsError::Missing(Setting::WebhookSecret)),
        };
        if webhook_secret.is_empty() {
            return Err(SettingsError::Bad {
                setting: Setting::WebhookSecret,
                expected: "a secret of at least one character",
            });
        }
        Ok(Settings {
            listen,
            public_url,
            data,
            database_url,
            webhook_secret,
        })
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
    let bad = SettingsError::Bad {
        setting: Setting::PublicUrl,
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

    fn given() -> Given {
        Given {
            webhook_secret: Some("s3cret-canary".into()),
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
        assert!(!format!("{settings:?}").contains("canary"));
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
        ];
        for (given, said) in cases {
            let error = Settings::check(given, Path::new("/data")).unwrap_err();
            assert_eq!(error.to_string(), said);
            assert!(!said.contains("canary"));
        }
    }
}

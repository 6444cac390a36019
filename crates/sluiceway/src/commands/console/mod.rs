//! The console's commands: `sluiceway console` runs the service (settings from flags and
//! the environment, the machine's clock, a stop on Ctrl-C or SIGTERM) and makes tokens;
//! `login`, `logout`, `status` and `stack` are a person's command line to a console
//! (`asks`), through its API alone and never GitHub.

pub mod asks;
mod remote;
mod saved;

use std::path::PathBuf;

use sluiceway_console::store::KeptToken;
use sluiceway_console::{Given, Settings, Store, tokens};

use crate::base::Outcome;
use crate::base::printer::Printer;

/// The data folder when none is given: the console's under XDG_DATA_HOME, or
/// ~/.local/share.
fn default_data() -> PathBuf {
    std::env::var_os("XDG_DATA_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".local/share")))
        .unwrap_or_else(|| PathBuf::from("."))
        .join("sluiceway-console")
}

fn runtime(printer: &mut Printer) -> Option<tokio::runtime::Runtime> {
    match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => Some(runtime),
        Err(e) => {
            printer.say(&format!(
                "error: the console's runtime could not start: {e}"
            ));
            None
        }
    }
}

pub fn serve(given: Given, printer: &mut Printer) -> Outcome {
    let settings = match Settings::check(given, &default_data()) {
        Ok(settings) => settings,
        Err(e) => {
            printer.say(&format!("error: {e}"));
            return Outcome::Failed;
        }
    };
    let Some(runtime) = runtime(printer) else {
        return Outcome::Failed;
    };
    let served = runtime.block_on(sluiceway_console::serve(settings, stopped(), |address| {
        // Said on stdout, alone on its line, so a script that starts the console can read
        // the address it bound (port 0 picks a free one).
        printer.result(&format!("console listening on http://{address}\n"));
    }));
    match served {
        Ok(()) => Outcome::Done,
        Err(e) => {
            printer.say(&format!("error: {e}"));
            Outcome::Failed
        }
    }
}

/// Resolves on Ctrl-C or SIGTERM.
async fn stopped() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = interrupt => {}
                    _ = terminate.recv() => {}
                }
            }
            Err(_) => {
                let _ = interrupt.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
}

/// Where a console keeps its facts: its data folder and database URL, as given.
pub struct Place {
    pub data: Option<PathBuf>,
    pub database_url: Option<String>,
}

/// Opens the store a place names, making its data folder for SQLite.
fn open_store(runtime: &tokio::runtime::Runtime, place: Place) -> Result<Store, String> {
    let (data, url) =
        sluiceway_console::settings::database(place.data, place.database_url, &default_data())
            .map_err(|e| e.to_string())?;
    runtime.block_on(async {
        if url.starts_with("sqlite:") {
            std::fs::create_dir_all(&data)
                .map_err(|e| format!("the data folder could not be made: {}", e.kind()))?;
        }
        Store::open(&url).await.map_err(|e| e.to_string())
    })
}

pub fn revoke(place: Place, org: &str, login: &str, name: &str, printer: &mut Printer) -> Outcome {
    let Some(runtime) = runtime(printer) else {
        return Outcome::Failed;
    };
    let revoked = open_store(&runtime, place).and_then(|store| {
        runtime
            .block_on(store.revoke_tokens(org, login, name, jiff::Timestamp::now()))
            .map_err(|e| e.to_string())
    });
    match revoked {
        Ok(0) => {
            printer.say(&format!(
                "error: {login} has no live token named {name:?} in {org}."
            ));
            Outcome::Failed
        }
        Ok(n) => {
            printer.say(&format!(
                "Revoked {n} token{} of {login} in {org} named {name:?}.",
                if n == 1 { "" } else { "s" }
            ));
            Outcome::Done
        }
        Err(e) => {
            printer.say(&format!("error: {e}"));
            Outcome::Failed
        }
    }
}

pub fn token(
    place: Place,
    org: &str,
    login: &str,
    name: &str,
    days: u16,
    printer: &mut Printer,
) -> Outcome {
    let minted = match tokens::mint(days, jiff::Timestamp::now()) {
        Ok(minted) => minted,
        Err(e) => {
            printer.say(&format!("error: {e}"));
            return Outcome::Failed;
        }
    };
    let Some(runtime) = runtime(printer) else {
        return Outcome::Failed;
    };
    let kept = KeptToken {
        org: org.to_owned(),
        login: login.to_owned(),
        name: name.to_owned(),
        expires_at: minted.expires_at,
        revoked: false,
    };
    let added = open_store(&runtime, place).and_then(|store| {
        runtime
            .block_on(store.add_token(&minted.hash, &kept))
            .map_err(|e| e.to_string())
    });
    match added {
        Ok(()) => {
            printer.say(&format!(
                "A token for {login} in {org}, named {name:?}, until {}. It is shown once; the console keeps only its hash.",
                minted.expires_at
            ));
            printer.result(&format!("{}\n", minted.secret));
            Outcome::Done
        }
        Err(e) => {
            printer.say(&format!("error: {e}"));
            Outcome::Failed
        }
    }
}

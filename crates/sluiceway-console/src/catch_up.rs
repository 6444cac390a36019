//! Catching up with GitHub: a delivery can be lost, and a console can be down while
//! GitHub sends. Every so often the console reads each dashboard it keeps from GitHub, as
//! its GitHub App, and writes what it finds when it differs from what it keeps: the same
//! facts through the same reader as a delivery's. It reads, too, whether the scanned
//! commit's `recordWriters` names the app's bot, once per scanned commit.

use std::time::Duration;

use sluiceway_github::GitHub;

use crate::Console;
use crate::facts::Dashboard;
use crate::store::KeptRepo;

/// Reads every kept dashboard once; how many were out of date and written anew.
pub async fn once(console: &Console) -> usize {
    let Ok(orgs) = console.store.orgs().await else {
        return 0;
    };
    let mut written = 0;
    for org in orgs {
        let Ok(repos) = console.store.repos(&org).await else {
            continue;
        };
        for repo in repos {
            // When the app cannot reach the org's installation, the org's other
            // repositories wait for the next round rather than ask again each.
            let Ok(read) = read(console, &repo).await else {
                break;
            };
            let Some(dashboard) = read else {
                continue;
            };
            if !same(&repo, &dashboard)
                && console
                    .store
                    .refresh_dashboard(&repo.place, &dashboard)
                    .await
                    .is_ok()
            {
                written += 1;
            }
            if repo
                .record_writer
                .as_ref()
                .is_none_or(|(sha, _)| *sha != dashboard.scan.sha)
                && let Ok(named) = record_writer(console, &repo, &dashboard.scan.sha).await
            {
                // A store that does not answer is asked again next round.
                let _ = console
                    .store
                    .set_record_writer(
                        &repo.place.org,
                        &repo.place.name,
                        &dashboard.scan.sha,
                        named,
                    )
                    .await;
            }
        }
    }
    written
}

/// Catches up every `every`, for as long as the console runs.
pub async fn every(console: Console, every: Duration) {
    let mut ticks = tokio::time::interval(every);
    // The first tick is at once: a console that starts catches up with what it missed.
    loop {
        ticks.tick().await;
        once(&console).await;
    }
}

/// The dashboard's facts as GitHub has them now; `None` when GitHub does not say or the
/// issue is no dashboard this version reads; `Err` when the app's installation on the
/// org could not be reached.
async fn read(console: &Console, repo: &KeptRepo) -> Result<Option<Dashboard>, ()> {
    let app = console.app.clone();
    let now = (console.clock)();
    let (org, name, number) = (
        repo.place.org.clone(),
        repo.place.name.clone(),
        repo.place.dashboard_number,
    );
    tokio::task::spawn_blocking(move || {
        let installed = app.repo(&org, &name, now).map_err(|_| ())?;
        Ok(installed
            .github
            .read_body(number, None)
            .ok()
            .and_then(|read| Dashboard::read(&read.body)))
    })
    .await
    .map_err(|_| ())?
}

/// Whether `recordWriters` at `sha` names the app's bot, read as the app.
async fn record_writer(console: &Console, repo: &KeptRepo, sha: &str) -> Result<bool, ()> {
    let app = console.app.clone();
    let now = (console.clock)();
    let (org, name, sha) = (
        repo.place.org.clone(),
        repo.place.name.clone(),
        sha.to_owned(),
    );
    tokio::task::spawn_blocking(move || {
        let installed = app.repo(&org, &name, now).map_err(|_| ())?;
        crate::config::names_record_writer(&installed.github, &sha, &installed.bot).map_err(|_| ())
    })
    .await
    .map_err(|_| ())?
}

/// Whether the kept facts are the dashboard's (the store keeps rows by stack id).
fn same(kept: &KeptRepo, dashboard: &Dashboard) -> bool {
    let mut read = dashboard.stacks.clone();
    read.sort_by(|a, b| a.stack.cmp(&b.stack));
    kept.scan == dashboard.scan && kept.stacks == read
}

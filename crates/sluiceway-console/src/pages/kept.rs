//! An org's kept repositories, read once for each version of its facts: the store moves
//! the version on in every delivery's transaction, so an instance draws the org view from
//! what it read until any instance sharing the database learns something new. The
//! org view of 10,000 stacks is then drawn without reading them all again. And the
//! repositories the app reaches, asked of GitHub for the ones not set up yet.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use jiff::{Timestamp, ToSpan};

use crate::Console;
use crate::github_app::InstalledRepo;
use crate::store::{KeptRepo, Store, StoreError};

/// An org's repositories as read at one version of its facts.
type Read = (i64, Arc<Vec<KeptRepo>>);

#[derive(Default)]
pub(crate) struct KeptRepos {
    read: Mutex<HashMap<String, Read>>,
}

impl KeptRepos {
    pub(crate) async fn of(
        &self,
        store: &Store,
        org: &str,
    ) -> Result<Arc<Vec<KeptRepo>>, StoreError> {
        // The version is read before the facts: what is kept is never labelled newer
        // than it is.
        let version = store.version(org).await?;
        {
            let read = self.read.lock().unwrap_or_else(|p| p.into_inner());
            if let Some((at, repos)) = read.get(org)
                && *at == version
            {
                return Ok(repos.clone());
            }
        }
        let repos = Arc::new(store.repos(org).await?);
        let mut read = self.read.lock().unwrap_or_else(|p| p.into_inner());
        read.insert(org.to_owned(), (version, repos.clone()));
        Ok(repos)
    }
}

/// How long the repositories an installation reaches are remembered.
const REACHED_FOR: i64 = 300;

/// What the app's installation on an org reaches, asked of GitHub and remembered for
/// five minutes: a repository given to the app shows in the org view as not set up yet
/// within five minutes, and a page view asks GitHub at most that often.
#[derive(Default)]
pub(crate) struct Reached {
    asked: Mutex<HashMap<String, Asked>>,
}

/// What GitHub said an installation reaches, and when it was asked.
type Asked = (Timestamp, Arc<Vec<InstalledRepo>>);

impl Reached {
    /// The repositories, or `None` when GitHub did not say.
    pub(crate) async fn of(
        &self,
        console: &Console,
        org: &str,
        a_repo: &str,
    ) -> Option<Arc<Vec<InstalledRepo>>> {
        let now = (console.clock)();
        let key = org.to_ascii_lowercase();
        {
            let asked = self.asked.lock().unwrap_or_else(|p| p.into_inner());
            if let Some((at, repos)) = asked.get(&key)
                && now < *at + REACHED_FOR.seconds()
            {
                return Some(repos.clone());
            }
        }
        let (app, org, a_repo) = (console.app.clone(), org.to_owned(), a_repo.to_owned());
        let repos = tokio::task::spawn_blocking(move || app.installed_repos(&org, &a_repo, now))
            .await
            .ok()?
            .ok()?;
        let repos = Arc::new(repos);
        let mut asked = self.asked.lock().unwrap_or_else(|p| p.into_inner());
        asked.insert(key, (now, repos.clone()));
        Some(repos)
    }
}

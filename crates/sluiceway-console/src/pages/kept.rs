//! An org's kept repositories, read once for each version of its facts: the store moves
//! the version on in every delivery's transaction, so an instance draws the org view from
//! what it read until any instance sharing the database learns something new. The
//! org view of 10,000 stacks is then drawn without reading them all again.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

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

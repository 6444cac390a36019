//! The org views an instance has drawn, each kept with the version of the org's facts it
//! was drawn at (the store moves the version on in every delivery's transaction), and
//! given again while that version stands. An org of thousands of stacks is answered
//! without reading them all again; a delivery taken by any instance sharing the database
//! makes every instance draw anew.

use std::collections::HashMap;
use std::sync::Mutex;

use axum::body::Bytes;

#[derive(Default)]
pub struct OrgViews {
    drawn: Mutex<HashMap<String, (i64, Bytes)>>,
}

impl OrgViews {
    /// The answer drawn for `org` at `version`, if that is the one kept.
    pub(crate) fn answer(&self, org: &str, version: i64) -> Option<Bytes> {
        let drawn = self.drawn.lock().unwrap_or_else(|p| p.into_inner());
        drawn
            .get(org)
            .filter(|(at, _)| *at == version)
            .map(|(_, bytes)| bytes.clone())
    }

    pub(crate) fn keep(&self, org: &str, version: i64, answer: Bytes) {
        let mut drawn = self.drawn.lock().unwrap_or_else(|p| p.into_inner());
        drawn.insert(org.to_owned(), (version, answer));
    }
}

//! The two kinds of glob in `sluiceway.yaml`.
//!
//! Both follow one rule: `*` matches within one `/`-separated part, `**` crosses parts.
//! A stack id such as `apps/web:prod` is matched like a path, so `apps/*` matches it
//! (the trailing `*` crosses the `:`), while `apps/web` matches only the stack `apps/web`.

use globset::{Glob, GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};
use thiserror::Error;

#[derive(Debug, Error, PartialEq, Eq)]
#[error("`{glob}` is not a valid glob: {reason}")]
pub struct GlobError {
    pub glob: String,
    pub reason: String,
}

fn build(text: &str) -> Result<Glob, GlobError> {
    if text.is_empty() {
        return Err(GlobError {
            glob: text.to_owned(),
            reason: "it is empty".to_owned(),
        });
    }
    GlobBuilder::new(text)
        .literal_separator(true)
        .backslash_escape(true)
        .empty_alternates(true)
        .build()
        .map_err(|e| GlobError {
            glob: text.to_owned(),
            reason: e.kind().to_string(),
        })
}

/// A glob over stack ids, as `ignore` uses.
#[derive(Debug, Clone)]
pub struct IdGlob {
    text: String,
    matcher: GlobMatcher,
}

impl IdGlob {
    pub fn new(text: &str) -> Result<IdGlob, GlobError> {
        Ok(IdGlob {
            text: text.to_owned(),
            matcher: build(text)?.compile_matcher(),
        })
    }

    pub fn matches(&self, id: &str) -> bool {
        self.matcher.is_match(id)
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }
}

/// A glob over repository file paths, as `inputs` and `scan.unrelated` use.
#[derive(Debug, Clone)]
pub struct FileGlob {
    matcher: GlobMatcher,
}

impl FileGlob {
    pub fn new(text: &str) -> Result<FileGlob, GlobError> {
        Ok(FileGlob {
            matcher: build(text)?.compile_matcher(),
        })
    }

    pub fn matches(&self, path: &str) -> bool {
        self.matcher.is_match(path)
    }
}

/// Many file globs matched at once; used where thousands of files meet many globs.
#[derive(Debug, Clone)]
pub struct FileGlobs {
    set: GlobSet,
}

impl FileGlobs {
    pub fn new<'a>(texts: impl IntoIterator<Item = &'a str>) -> Result<FileGlobs, GlobError> {
        let mut builder = GlobSetBuilder::new();
        for text in texts {
            builder.add(build(text)?);
        }
        let set = builder.build().map_err(|e| GlobError {
            glob: String::new(),
            reason: e.to_string(),
        })?;
        Ok(FileGlobs { set })
    }

    pub fn matches(&self, path: &str) -> bool {
        self.set.is_match(path)
    }

    /// The indexes, in the order given to [`FileGlobs::new`], of the globs that match.
    pub fn matching(&self, path: &str) -> Vec<usize> {
        self.set.matches(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn star_stays_within_a_part_and_crosses_the_colon() {
        let glob = IdGlob::new("apps/*").unwrap();
        assert!(glob.matches("apps/web"));
        assert!(glob.matches("apps/web:prod"));
        assert!(!glob.matches("apps/web/api:prod"));
        assert!(IdGlob::new("apps/**").unwrap().matches("apps/web/api:prod"));
        assert!(!IdGlob::new("apps/web").unwrap().matches("apps/web:prod"));
        assert!(IdGlob::new("apps/web:*").unwrap().matches("apps/web:prod"));
    }

    #[test]
    fn bad_globs_say_why() {
        let error = IdGlob::new("apps/[web").unwrap_err();
        assert_eq!(error.glob, "apps/[web");
        assert!(
            error
                .to_string()
                .starts_with("`apps/[web` is not a valid glob")
        );
        assert!(IdGlob::new("").is_err());
    }

    proptest! {
        /// A glob that is just a plain id matches exactly that id.
        #[test]
        fn a_plain_id_matches_itself(id in "[a-z]{1,8}(/[a-z]{1,8}){0,3}(:[a-z]{1,6})?") {
            let glob = IdGlob::new(&id).unwrap();
            prop_assert!(glob.matches(&id));
            let longer = format!("{id}x");
            prop_assert!(!glob.matches(&longer));
        }
    }
}

//! Which stack claims which file.
//!
//! A push scan previews only the stacks that claim a changed file, and falls back to a
//! full scan when a file is claimed by none; `check` lists such files so a team sees
//! them before a push does. A stack claims the files inside its directory and those its
//! `inputs` globs match; `scan.unrelated` globs claim nothing and force nothing.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use crate::glob::{FileGlobs, GlobError};
use crate::repo::{RepoFiles, split};
use crate::stack::Stack;

/// Files that never force a full scan when no stack claims them.
pub const BUILT_IN_UNRELATED: [&str; 6] = [
    "**/*.md",
    "**/LICENSE*",
    "**/.gitignore",
    "**/.gitattributes",
    ".editorconfig",
    ".github/**",
];

/// The globs `check` may offer for `scan.unrelated`; never lock files, manifests or config.
pub const SUGGESTED_UNRELATED: [&str; 7] = [
    "**/*.md",
    "docs/**",
    ".github/**",
    "LICENSE*",
    "**/.gitignore",
    "**/.gitattributes",
    ".editorconfig",
];

/// How one file stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claim {
    /// At least one stack claims it.
    Stacks,
    /// `scan.unrelated` or a built-in glob: it claims nothing and forces nothing.
    Unrelated,
    /// `sluiceway.yaml` itself: a change previews every stack.
    Config,
    /// No stack claims it: a push that changes it gives a full scan.
    Unclaimed,
}

pub struct Claims {
    stack_dirs: HashSet<String>,
    root_claims_all: bool,
    inputs: FileGlobs,
    unrelated: FileGlobs,
    built_in: FileGlobs,
    config_file: Option<String>,
}

impl Claims {
    pub fn new(
        stacks: &[Stack],
        unrelated: &[String],
        config_file: Option<&str>,
    ) -> Result<Claims, GlobError> {
        Ok(Claims {
            stack_dirs: stacks.iter().map(|s| s.path.clone()).collect(),
            root_claims_all: stacks.iter().any(|s| s.path == "."),
            inputs: FileGlobs::new(
                stacks
                    .iter()
                    .flat_map(|s| s.settings.inputs.iter().map(String::as_str)),
            )?,
            unrelated: FileGlobs::new(unrelated.iter().map(String::as_str))?,
            built_in: FileGlobs::new(BUILT_IN_UNRELATED)?,
            config_file: config_file.map(str::to_owned),
        })
    }

    pub fn claim(&self, path: &str) -> Claim {
        if self.unrelated.matches(path) {
            return Claim::Unrelated;
        }
        if self.config_file.as_deref() == Some(path) {
            return Claim::Config;
        }
        if self.root_claims_all || self.in_stack_dir(path) || self.inputs.matches(path) {
            return Claim::Stacks;
        }
        if self.built_in.matches(path) {
            return Claim::Unrelated;
        }
        Claim::Unclaimed
    }

    /// Walks up the file's directories; a few hash lookups per file however many stacks.
    fn in_stack_dir(&self, path: &str) -> bool {
        let mut dir = split(path).0;
        loop {
            if self.stack_dirs.contains(dir) {
                return true;
            }
            if dir == "." {
                return false;
            }
            dir = split(dir).0;
        }
    }
}

/// Which stacks claim a file, for narrowing a push scan to them: the stacks whose
/// directory holds it (the root stack holds every file) and those whose `inputs` match.
pub struct Claimants {
    by_dir: HashMap<String, Vec<usize>>,
    inputs: FileGlobs,
    /// For each glob of `inputs`, the stack it belongs to.
    input_owner: Vec<usize>,
}

impl Claimants {
    pub fn new(stacks: &[Stack]) -> Result<Claimants, GlobError> {
        let mut by_dir: HashMap<String, Vec<usize>> = HashMap::new();
        let mut input_owner = Vec::new();
        for (i, stack) in stacks.iter().enumerate() {
            by_dir.entry(stack.path.clone()).or_default().push(i);
            input_owner.extend(stack.settings.inputs.iter().map(|_| i));
        }
        let inputs = FileGlobs::new(
            stacks
                .iter()
                .flat_map(|s| s.settings.inputs.iter().map(String::as_str)),
        )?;
        Ok(Claimants {
            by_dir,
            inputs,
            input_owner,
        })
    }

    /// The indexes (into the stacks given to [`Claimants::new`]) of the stacks that
    /// claim `path`, sorted.
    pub fn of(&self, path: &str) -> BTreeSet<usize> {
        let mut found: BTreeSet<usize> = self
            .inputs
            .matching(path)
            .into_iter()
            .map(|g| self.input_owner[g])
            .collect();
        let mut dir = split(path).0;
        loop {
            found.extend(self.by_dir.get(dir).into_iter().flatten().copied());
            if dir == "." {
                return found;
            }
            dir = split(dir).0;
        }
    }
}

/// The unclaimed files, grouped by their top-level directory (`.` for files at the root,
/// which sorts first).
pub fn unclaimed_by_directory(files: &RepoFiles, claims: &Claims) -> BTreeMap<String, Vec<String>> {
    let mut groups: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in files
        .files()
        .filter(|f| claims.claim(f) == Claim::Unclaimed)
    {
        let top = match file.split_once('/') {
            Some((top, _)) => top.to_owned(),
            None => ".".to_owned(),
        };
        groups.entry(top).or_default().push(file.to_owned());
    }
    groups
}

/// The suggested `scan.unrelated` globs that cover at least one unclaimed file and are
/// not already listed.
pub fn suggested_unrelated(
    unclaimed: &BTreeMap<String, Vec<String>>,
    existing: &[String],
) -> Vec<String> {
    SUGGESTED_UNRELATED
        .iter()
        .filter(|glob| !existing.iter().any(|e| e == *glob))
        .filter(|glob| {
            FileGlobs::new([**glob])
                .is_ok_and(|g| unclaimed.values().flatten().any(|file| g.matches(file)))
        })
        .map(|glob| (*glob).to_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stack::{Origin, StackId, StackSettings, Tool, ToolOptions};

    fn stack(path: &str, inputs: &[&str]) -> Stack {
        Stack {
            id: StackId::derive(path, None),
            path: path.to_owned(),
            name: None,
            tool: Tool::Kubectl,
            options: ToolOptions::Pulumi,
            origin: Origin::Declared(0),
            settings: StackSettings {
                inputs: inputs.iter().map(|s| (*s).to_owned()).collect(),
                ..Default::default()
            },
        }
    }

    #[test]
    fn the_claim_table() {
        let stacks = [
            stack("apps/web", &["shared/**"]),
            stack("apps/web/nested", &[]),
        ];
        let claims =
            Claims::new(&stacks, &["scripts/**".to_owned()], Some("sluiceway.yaml")).unwrap();
        assert_eq!(claims.claim("apps/web/main.ts"), Claim::Stacks);
        assert_eq!(claims.claim("apps/web/nested/x.ts"), Claim::Stacks);
        assert_eq!(claims.claim("apps/web2/x.ts"), Claim::Unclaimed);
        assert_eq!(claims.claim("shared/lib/a.ts"), Claim::Stacks);
        assert_eq!(claims.claim("scripts/deploy.sh"), Claim::Unrelated);
        assert_eq!(claims.claim("README.md"), Claim::Unrelated);
        assert_eq!(claims.claim("apps/web/README.md"), Claim::Stacks);
        assert_eq!(claims.claim(".github/workflows/x.yml"), Claim::Unrelated);
        assert_eq!(claims.claim("sluiceway.yaml"), Claim::Config);
        assert_eq!(claims.claim("package.json"), Claim::Unclaimed);
    }

    #[test]
    fn unrelated_wins_over_a_stack_and_the_root_stack_claims_everything() {
        let claims = Claims::new(&[stack(".", &[])], &["**/*.lock".to_owned()], None).unwrap();
        assert_eq!(claims.claim("deep/dir/file.ts"), Claim::Stacks);
        assert_eq!(claims.claim("yarn.lock"), Claim::Unrelated);
    }

    #[test]
    fn claimants_are_the_stacks_of_every_enclosing_directory_and_matching_inputs() {
        let stacks = [
            stack(".", &[]),
            stack("apps/web", &["shared/**"]),
            stack("apps/web/nested", &[]),
            stack("apps/api", &["shared/**", "proto/*.proto"]),
        ];
        let claimants = Claimants::new(&stacks).unwrap();
        let of = |path| claimants.of(path).into_iter().collect::<Vec<_>>();
        assert_eq!(of("apps/web/nested/x.ts"), [0, 1, 2]);
        assert_eq!(of("apps/web/main.ts"), [0, 1]);
        assert_eq!(of("shared/lib/a.ts"), [0, 1, 3]);
        assert_eq!(of("proto/a.proto"), [0, 3]);
        assert_eq!(of("README.md"), [0]);
        let without_root = Claimants::new(&stacks[1..]).unwrap();
        assert!(without_root.of("package.json").is_empty());
    }

    #[test]
    fn grouping_and_suggestions() {
        let files = RepoFiles::new(
            ["package.json", "docs/a.txt", "docs/b.txt", "apps/web/x"].map(str::to_owned),
        );
        let claims = Claims::new(&[stack("apps/web", &[])], &[], None).unwrap();
        let groups = unclaimed_by_directory(&files, &claims);
        assert_eq!(groups.keys().collect::<Vec<_>>(), [".", "docs"]);
        assert_eq!(suggested_unrelated(&groups, &[]), ["docs/**"]);
        assert!(suggested_unrelated(&groups, &["docs/**".to_owned()]).is_empty());
    }
}

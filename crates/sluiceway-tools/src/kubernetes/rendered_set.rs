//! The rendered set: the one YAML stream a stack's preview diffs and its deploy applies.
//!
//! It holds every value, Secret data included, so it lives in a private directory, is
//! written 0600, and is removed when dropped, on every way out. Its SHA-256 is taken when
//! it is written, and a deploy refuses a set whose bytes changed since.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use sluiceway_core::stack::StackId;
use tempfile::TempDir;

/// The set's file name; replays match the plan placeholder on it.
pub const SET_FILE: &str = "manifests.yaml";
/// The prune file's name, beside the set.
pub const PRUNE_FILE: &str = "prune.yaml";

const KUSTOMIZATIONS: [&str; 3] = ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// Whether the directory is a kustomization (decided when the preview runs).
pub fn is_kustomization(dir: &Path) -> bool {
    KUSTOMIZATIONS.iter().any(|name| dir.join(name).is_file())
}

fn is_manifest(name: &str) -> bool {
    (name.ends_with(".yaml") || name.ends_with(".yml") || name.ends_with(".json"))
        && !KUSTOMIZATIONS.contains(&name)
}

/// The manifests of a plain directory, in the order `kubectl apply -f` (and `-R`) reads
/// them: names in byte order, a subdirectory visited where its name sorts (so `a/x.yaml`
/// comes before `a.yaml`), symlinks not followed. Each file byte for byte with a final
/// newline, joined by `---` lines.
pub fn plain_manifests(dir: &Path, recursive: bool) -> io::Result<String> {
    let mut files = Vec::new();
    collect(dir, recursive, &mut files)?;
    let mut text = String::new();
    for (i, file) in files.iter().enumerate() {
        if i > 0 {
            text.push_str("---\n");
        }
        let content = fs::read_to_string(file)?;
        text.push_str(&content);
        if !content.ends_with('\n') {
            text.push('\n');
        }
    }
    Ok(text)
}

fn collect(dir: &Path, recursive: bool, files: &mut Vec<PathBuf>) -> io::Result<()> {
    let mut entries: Vec<(String, fs::FileType, PathBuf)> = fs::read_dir(dir)?
        .map(|e| {
            e.and_then(|e| {
                Ok((
                    e.file_name().to_string_lossy().into_owned(),
                    e.file_type()?,
                    e.path(),
                ))
            })
        })
        .collect::<io::Result<_>>()?;
    entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    for (name, kind, path) in entries {
        if kind.is_dir() && recursive {
            collect(&path, recursive, files)?;
        } else if kind.is_file() && is_manifest(&name) {
            files.push(path);
        }
    }
    Ok(())
}

/// A written set, with the prune file when the stack prunes.
#[derive(Debug)]
pub struct RenderedSet {
    dir: TempDir,
    stack: StackId,
    digest: [u8; 32],
    has_prune_file: bool,
}

impl RenderedSet {
    /// A fresh private directory under `scratch` for a set about to be written.
    pub fn directory(scratch: &Path) -> io::Result<TempDir> {
        tempfile::Builder::new()
            .prefix("sluiceway-set-")
            .tempdir_in(scratch)
    }

    /// Writes the set (and the prune file) into `dir` and keeps their digest.
    pub fn write(
        dir: TempDir,
        stack: &StackId,
        set: &str,
        prune: Option<&str>,
    ) -> io::Result<RenderedSet> {
        write_private(&dir.path().join(SET_FILE), set)?;
        match prune {
            Some(prune) => write_private(&dir.path().join(PRUNE_FILE), prune)?,
            None => match fs::remove_file(dir.path().join(PRUNE_FILE)) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                _ => {}
            },
        }
        let digest = digest_of(dir.path(), prune.is_some())?;
        Ok(RenderedSet {
            dir,
            stack: stack.clone(),
            digest,
            has_prune_file: prune.is_some(),
        })
    }

    pub fn path(&self) -> PathBuf {
        self.dir.path().join(SET_FILE)
    }

    pub fn prune_path(&self) -> Option<PathBuf> {
        self.has_prune_file
            .then(|| self.dir.path().join(PRUNE_FILE))
    }

    pub fn stack(&self) -> &StackId {
        &self.stack
    }

    /// Whether the files still hold exactly what was written.
    pub fn is_unchanged(&self) -> bool {
        digest_of(self.dir.path(), self.has_prune_file).is_ok_and(|d| d == self.digest)
    }

    /// Whether `text` is exactly the set that was written (a render taken again, which
    /// must not have moved), and the file still holds it.
    pub fn holds(&self, text: &str) -> bool {
        let digest: [u8; 32] = Sha256::digest(text.as_bytes()).into();
        !self.has_prune_file && digest == self.digest && self.is_unchanged()
    }
}

pub(crate) fn write_private(path: &Path, text: &str) -> io::Result<()> {
    let mut file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(text.as_bytes())
}

fn digest_of(dir: &Path, with_prune: bool) -> io::Result<[u8; 32]> {
    let mut hasher = Sha256::new();
    hasher.update(fs::read(dir.join(SET_FILE))?);
    if with_prune {
        hasher.update([0u8]);
        hasher.update(fs::read(dir.join(PRUNE_FILE))?);
    }
    Ok(hasher.finalize().into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn walk_order_visits_a_subdirectory_where_its_name_sorts() {
        let root = tempfile::tempdir().unwrap();
        let write = |p: &str, t: &str| {
            let path = root.path().join(p);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, t).unwrap();
        };
        write("a.yaml", "kind: A");
        write("a/x.yaml", "kind: AX\n");
        write("b.json", "{\"kind\": \"B\"}\n");
        write("notes.txt", "not a manifest");
        assert_eq!(
            plain_manifests(root.path(), false).unwrap(),
            "kind: A\n---\n{\"kind\": \"B\"}\n"
        );
        assert_eq!(
            plain_manifests(root.path(), true).unwrap(),
            "kind: AX\n---\nkind: A\n---\n{\"kind\": \"B\"}\n"
        );
    }

    #[test]
    fn private_digested_and_removed_when_dropped() {
        let scratch = tempfile::tempdir().unwrap();
        let stack = StackId::derive("web", None);
        let set = RenderedSet::write(
            RenderedSet::directory(scratch.path()).unwrap(),
            &stack,
            "kind: A\n",
            Some("kind: B\n"),
        )
        .unwrap();
        let mode = fs::metadata(set.path()).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert!(set.is_unchanged());
        fs::write(set.prune_path().unwrap(), "kind: C\n").unwrap();
        assert!(!set.is_unchanged());
        let dir = set.path().parent().unwrap().to_owned();
        drop(set);
        assert!(!dir.exists());
    }
}

//! Where the command line keeps a person's tokens: `tokens.json` under the user's
//! configuration folder (`XDG_CONFIG_HOME`, else `~/.config`), in a `sluiceway` folder
//! only its owner may enter, readable by its owner alone, one entry per console address.
//! Never read from the environment: a token in a variable leaks into every child process.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// One console's sign-in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct SignIn {
    pub(super) token: String,
    pub(super) org: String,
    pub(super) login: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct File {
    consoles: BTreeMap<String, SignIn>,
}

#[derive(Debug, thiserror::Error)]
pub(super) enum SavedError {
    #[error("there is no configuration folder: neither XDG_CONFIG_HOME nor HOME is set")]
    NoFolder,
    #[error("{path} could not be {doing}: {source}")]
    Io {
        path: PathBuf,
        doing: &'static str,
        source: std::io::Error,
    },
    #[error("{0} is not a token file this version reads; remove it and sign in again")]
    Unreadable(PathBuf),
}

/// The token file's folder.
pub(super) fn folder() -> Result<PathBuf, SavedError> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".config")))
        .ok_or(SavedError::NoFolder)?;
    Ok(base.join("sluiceway"))
}

fn read(path: &Path) -> Result<File, SavedError> {
    match std::fs::read(path) {
        Ok(bytes) => {
            serde_json::from_slice(&bytes).map_err(|_| SavedError::Unreadable(path.to_owned()))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(File::default()),
        Err(source) => Err(SavedError::Io {
            path: path.to_owned(),
            doing: "read",
            source,
        }),
    }
}

/// Every console signed in to, by address.
pub(super) fn all() -> Result<BTreeMap<String, SignIn>, SavedError> {
    Ok(read(&folder()?.join("tokens.json"))?.consoles)
}

/// Keeps `sign_in` for the console at `app`, replacing any before it.
pub(super) fn keep(app: &str, sign_in: SignIn) -> Result<(), SavedError> {
    change(|file| {
        file.consoles.insert(app.to_owned(), sign_in);
    })
}

/// Forgets the console at `app`; answers whether it was kept.
pub(super) fn forget(app: &str) -> Result<bool, SavedError> {
    let mut was = false;
    change(|file| was = file.consoles.remove(app).is_some())?;
    Ok(was)
}

/// Reads the file, changes it, and writes it whole: beside it first, readable by its owner
/// alone, then renamed over it, so a crash leaves the old file.
fn change(edit: impl FnOnce(&mut File)) -> Result<(), SavedError> {
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
    let folder = folder()?;
    let io = |doing, path: &Path| {
        let path = path.to_owned();
        move |source| SavedError::Io {
            path,
            doing,
            source,
        }
    };
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&folder)
        .map_err(io("made", &folder))?;
    std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o700))
        .map_err(io("kept to its owner", &folder))?;
    let path = folder.join("tokens.json");
    let mut file = read(&path)?;
    edit(&mut file);
    let partial = folder.join("tokens.json.partial");
    let text = serde_json::to_vec_pretty(&file).unwrap_or_default();
    {
        use std::io::Write;
        let _ = std::fs::remove_file(&partial);
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&partial)
            .map_err(io("written", &partial))?;
        out.write_all(&text).map_err(io("written", &partial))?;
    }
    std::fs::rename(&partial, &path).map_err(io("written", &path))
}

//! Writing a file whole or not at all: into a temporary file beside it, then renamed, so
//! a reader never sees half of it.

use std::io::Write;
use std::path::Path;

pub(crate) fn write_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut temp = tempfile::NamedTempFile::new_in(dir)?;
    temp.write_all(bytes)?;
    temp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Appends `text` to a file, made when missing: the job summary, which every mode of a
/// step (and the check) adds its own part to.
pub(crate) fn append(path: &Path, text: &str) -> std::io::Result<()> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut out| out.write_all(text.as_bytes()))
}

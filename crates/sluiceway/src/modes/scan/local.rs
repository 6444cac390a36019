//! `scan --local`: what a GitHub scan would write, written into a folder instead, so a
//! person sees the dashboard before adopting Sluiceway.

use std::path::{Path, PathBuf};

use sluiceway_dashboard::view::View;

use crate::base::files::write_whole;

/// Writes `dashboard.md` (the exact body), `dashboard.html` (that body as GitHub shows
/// it, pictures embedded) and `summary.md`; gives back the page's path.
pub(super) fn write(out: &Path, body: &str, summary: &str, view: &View) -> Result<PathBuf, String> {
    let fail = |name: &str, e: std::io::Error| {
        format!("{} could not be written: {e}", out.join(name).display())
    };
    write_whole(&out.join("dashboard.md"), body.as_bytes()).map_err(|e| fail("dashboard.md", e))?;
    write_whole(&out.join("summary.md"), summary.as_bytes()).map_err(|e| fail("summary.md", e))?;
    let page = crate::dashboard::page(body, &view.layout.title, Some(&view.links.pictures));
    let path = out.join("dashboard.html");
    write_whole(&path, page.as_bytes()).map_err(|e| fail("dashboard.html", e))?;
    Ok(std::path::absolute(&path).unwrap_or(path))
}

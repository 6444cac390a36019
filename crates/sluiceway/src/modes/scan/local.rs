//! `scan --local`: what a GitHub scan would write, written into a folder instead, so a
//! person sees the dashboard before adopting Sluiceway.

use std::path::{Path, PathBuf};

use sluiceway_dashboard::view::View;

use crate::base::files::write_whole;
use crate::modes::job::LOCAL_SUMMARY;

/// Where a local scan's files are.
pub(super) struct Written {
    pub body: PathBuf,
    pub summary: PathBuf,
    pub page: PathBuf,
}

/// Writes `dashboard.md` (the exact body), `dashboard.html` (that body as GitHub shows
/// it, pictures embedded) and `summary.md`, where the page's preview links point.
pub(super) fn write(out: &Path, body: &str, summary: &str, view: &View) -> Result<Written, String> {
    let fail = |name: &str, e: std::io::Error| {
        format!("{} could not be written: {e}", out.join(name).display())
    };
    let absolute = |name: &str| {
        let path = out.join(name);
        std::path::absolute(&path).unwrap_or(path)
    };
    write_whole(&out.join("dashboard.md"), body.as_bytes()).map_err(|e| fail("dashboard.md", e))?;
    write_whole(&out.join(LOCAL_SUMMARY), summary.as_bytes())
        .map_err(|e| fail(LOCAL_SUMMARY, e))?;
    let page =
        sluiceway_dashboard::page::page(body, &view.layout.title, Some(&view.links.pictures));
    write_whole(&out.join("dashboard.html"), page.as_bytes())
        .map_err(|e| fail("dashboard.html", e))?;
    Ok(Written {
        body: absolute("dashboard.md"),
        summary: absolute(LOCAL_SUMMARY),
        page: absolute("dashboard.html"),
    })
}

//! The built book in a real browser: headless Chromium (Debian's `chromium`, which
//! `.ci/run` installs) opens the start page and the configuration reference, and a small
//! page beside them reports what the browser built: the title, the headings, and every
//! picture with the width it decoded to (0 for a picture that did not load). The book
//! is the one `.ci/run` built (`SLUICEWAY_BOOK`), or built here by
//! `scripts/build-book.sh`. Without Chromium the test says so and passes, but not in CI.

#![allow(
    clippy::print_stderr,
    reason = "a test that cannot run here says so in the test log"
)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn chromium() -> Option<PathBuf> {
    let found = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.exists());
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must install Debian's chromium for the browser test"
        );
        eprintln!("notice: no chromium on this machine; the book's browser test did not run");
    }
    found
}

/// The built book: `.ci/run`'s, or one built now into `scratch`.
fn book(scratch: &Path) -> PathBuf {
    if let Some(built) = std::env::var_os("SLUICEWAY_BOOK") {
        return PathBuf::from(built);
    }
    let dest = scratch.join("book");
    let built = Command::new(root().join("scripts/build-book.sh"))
        .arg(&dest)
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    dest
}

/// What Chromium built for `page`: read from inside a frame by a page beside it.
fn rendered(chromium: &Path, scratch: &Path, page: &Path) -> Value {
    let probe = scratch.join("probe.html");
    std::fs::write(
        &probe,
        format!(
            r#"<!doctype html><html><body><iframe id="f" src="file://{}" width="1200" height="900"></iframe><pre id="out"></pre>
<script>
document.getElementById('f').onload = () => {{
  const d = document.getElementById('f').contentDocument;
  const main = d.querySelector('main');
  document.getElementById('out').textContent = 'RENDERED' + JSON.stringify({{
    title: d.title,
    heading: main.querySelector('h1').textContent,
    headings: main.querySelectorAll('h2').length,
    pictures: [...main.querySelectorAll('img')].map(i => [i.getAttribute('src'), i.naturalWidth]),
  }});
}};
</script></body></html>"#,
            page.display()
        ),
    )
    .unwrap();
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--allow-file-access-from-files",
            "--virtual-time-budget=10000",
            "--dump-dom",
        ])
        .arg(format!(
            "--user-data-dir={}",
            scratch.join("profile").display()
        ))
        .arg(format!("file://{}", probe.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&out.stdout);
    let report = dom
        .split("RENDERED")
        .nth(1)
        .and_then(|rest| rest.split("</pre>").next())
        .unwrap_or_else(|| panic!("the probe reported nothing: {dom}"));
    serde_json::from_str(&report.replace("&amp;", "&").replace("&quot;", "\"")).unwrap()
}

#[test]
fn the_start_page_and_the_configuration_reference_render_with_their_pictures() {
    let Some(chromium) = chromium() else { return };
    let scratch = tempfile::tempdir().unwrap();
    let book = book(scratch.path());

    let start = rendered(&chromium, scratch.path(), &book.join("index.html"));
    assert_eq!(start["heading"], "What Sluiceway is", "{start}");
    let pictures = start["pictures"].as_array().unwrap();
    assert!(
        !pictures.is_empty(),
        "the start page shows a dashboard: {start}"
    );
    for picture in pictures {
        assert!(
            picture[1].as_u64().unwrap() > 0,
            "a picture did not load: {picture}"
        );
    }

    let configuration = rendered(
        &chromium,
        scratch.path(),
        &book.join("reference/configuration.html"),
    );
    assert_eq!(
        configuration["heading"], "Configuration reference",
        "{configuration}"
    );
    assert_eq!(configuration["title"], "Configuration - Sluiceway");
    let keys = sluiceway_book::configuration::key_paths(&sluiceway_core::config::json_schema())
        .unwrap()
        .len();
    assert_eq!(
        configuration["headings"].as_u64(),
        Some(keys as u64),
        "one heading per key: {configuration}"
    );
    for picture in configuration["pictures"].as_array().unwrap() {
        assert!(
            picture[1].as_u64().unwrap() > 0,
            "a picture did not load: {picture}"
        );
    }
}

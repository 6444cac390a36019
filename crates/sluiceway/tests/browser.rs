//! The HTML dashboard in a real browser: `scan --local` on a copy of the quickstart
//! example with the real `tofu`, then headless Chromium (Debian's `chromium`, which
//! `.ci/run` installs) draws `dashboard.html`. The page must show the header picture
//! (embedded, since the page may have no network), every row with its box on the row's
//! own line, and emoji as emoji. Without Chromium the test says so and passes, but
//! not in CI, where `.ci/run` installs it.
//!
//! The book's pictures are drawn the same way, by `scripts/draw-dashboards.sh`.

#![allow(
    clippy::print_stderr,
    reason = "a test that cannot run here says so in the test log"
)]

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use support::{copy_dir, tofu_dir, workspace};

const FLAGS: [&str; 8] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
];

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
        eprintln!("notice: no chromium on this machine; the browser test did not run");
    }
    found
}

fn browse(chromium: &Path, profile: &Path, args: &[String]) -> Output {
    Command::new(chromium)
        .args(FLAGS)
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .output()
        .unwrap()
}

/// The page a local scan of the quickstart example writes.
fn scanned_page(out: &Path) -> PathBuf {
    let checkout = tempfile::tempdir().unwrap();
    copy_dir(&workspace().join("examples/quickstart"), checkout.path());
    let ran = Command::new(env!("CARGO_BIN_EXE_sluiceway"))
        .args(["scan", "--local", "--repo"])
        .arg(checkout.path())
        .arg("--out")
        .arg(out)
        .env("PATH", format!("{}:/usr/bin:/bin", tofu_dir().display()))
        .output()
        .unwrap();
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let printed = String::from_utf8_lossy(&ran.stdout).trim().to_owned();
    assert_eq!(Path::new(&printed), out.join("dashboard.html"));
    out.join("dashboard.html")
}

#[test]
fn the_local_dashboard_shows_the_picture_every_row_and_emoji_in_a_real_browser() {
    let Some(chromium) = chromium() else { return };
    let out = tempfile::tempdir().unwrap();
    let page = scanned_page(out.path());
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        !html.contains("https://raw.githubusercontent.com"),
        "pictures are embedded"
    );
    assert!(html.contains("src=\"data:image/svg+xml"));

    let profile = tempfile::tempdir().unwrap();
    let url = format!("file://{}", page.display());

    // What the browser built: every row is a task-list item whose box is its first child.
    let dom = browse(
        &chromium,
        profile.path(),
        &["--dump-dom".into(), url.clone()],
    );
    let dom = String::from_utf8_lossy(&dom.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for stack in ["network", "storage:dev", "storage:prod"] {
        let row = format!(
            "<li class=\"task-list-item\"><input type=\"checkbox\" class=\"task-list-item-checkbox\" disabled=\"\"> <p><strong>{stack}</strong>"
        );
        assert!(dom.contains(&row), "{stack}'s box is on its own row: {dom}");
    }
    assert!(dom.contains("🟡"), "the pending dot is an emoji");

    // What the browser drew: the header picture's water fills the top of the page.
    let shot = out.path().join("shot.png");
    let drawn = browse(
        &chromium,
        profile.path(),
        &[
            format!("--screenshot={}", shot.display()),
            "--window-size=1000,900".into(),
            url,
        ],
    );
    assert!(shot.exists(), "{}", String::from_utf8_lossy(&drawn.stderr));
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&shot).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader.next_frame(&mut pixels).unwrap();
    let channels = frame.color_type.samples();
    let width = frame.width as usize;
    let water = (0..200 * width)
        .map(|i| &pixels[i * channels..i * channels + 3])
        .filter(|rgb| {
            rgb[0].abs_diff(0x54) < 12 && rgb[1].abs_diff(0xae) < 12 && rgb[2].abs_diff(0xff) < 12
        })
        .count();
    assert!(
        water > 20_000,
        "the header picture's water should fill the top of the page; {water} pixels of it"
    );
}

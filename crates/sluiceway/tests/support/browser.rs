//! A real browser for the console's pages: Debian's Chromium, driven by the pinned
//! playwright-core (`scripts/install-playwright.sh`, which `.ci/run` runs and names in
//! `SLUICEWAY_PLAYWRIGHT`). A test hands it a script of its own that prints one JSON
//! report; under CI a missing browser or driver fails the test, elsewhere it says so.

#![allow(
    clippy::print_stderr,
    reason = "a test that cannot run here says so in the test log"
)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::workspace;

/// The version of playwright-core the tests drive Chromium with.
const PLAYWRIGHT: &str = "1.65.2";

/// What every script is given: the driver, Chromium launched (awaited before the
/// script's body runs), and a page signed in as a session's person.
const PRELUDE: &str = "const playwright = require('playwright-core');
let browser;
const launched = playwright.chromium.launch({ executablePath: process.env.CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] }).then(b => (browser = b));
const signedIn = async (address, session, options = {}) => {
  const context = await browser.newContext(options);
  await context.addCookies([{ name: 'sluiceway_session', value: session, url: address }]);
  return context.newPage();
};
";

pub(crate) struct Browser {
    chromium: PathBuf,
    modules: PathBuf,
}

impl Browser {
    /// Chromium and the driver, or `None` (with a notice) where this machine has neither.
    pub(crate) fn find() -> Option<Browser> {
        let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
            .into_iter()
            .map(PathBuf::from)
            .find(|p| p.exists());
        let modules = std::env::var_os("SLUICEWAY_PLAYWRIGHT")
            .map(PathBuf::from)
            .or_else(installed_driver);
        match (chromium, modules) {
            (Some(chromium), Some(modules)) => Some(Browser { chromium, modules }),
            _ => {
                assert!(
                    std::env::var_os("CI").is_none(),
                    "CI must install Debian's chromium and playwright-core for the page tests"
                );
                eprintln!("notice: no chromium or playwright-core here; the page test did not run");
                None
            }
        }
    }

    /// Runs `script`, the body of an async function, with `args` in
    /// `process.argv.slice(2)`, and answers what it returns, as JSON. It is given
    /// `browser` (Chromium, launched for it and closed after) and `signedIn(address,
    /// session, options)`, a new page in a context of its own holding the session's
    /// cookie.
    pub(crate) fn run(&self, script: &str, args: &[&str]) -> Value {
        let scratch = tempfile::tempdir().unwrap();
        let file = scratch.path().join("drive.cjs");
        std::fs::write(
            &file,
            format!(
                "{PRELUDE}(async () => {{\n  await launched;\n  try {{\n    const report = await (async () => {{\n{script}\n    }})();\n    console.log(JSON.stringify(report));\n  }} finally {{\n    await browser.close();\n  }}\n}})().catch(e => {{ console.error(e); process.exit(1); }});\n"
            ),
        )
        .unwrap();
        let out = Command::new("node")
            .arg(&file)
            .args(args)
            .env("NODE_PATH", &self.modules)
            .env("CHROMIUM", &self.chromium)
            .current_dir(scratch.path())
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "the browser's script failed: {said}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let last = said.lines().last().unwrap_or_default();
        serde_json::from_str(last).unwrap_or_else(|e| panic!("{e}: {said}"))
    }
}

/// The driver as the install script leaves it in the cache, when it is there.
fn installed_driver() -> Option<PathBuf> {
    let out = Command::new(workspace().join("scripts/install-playwright.sh"))
        .arg(PLAYWRIGHT)
        .output()
        .ok()?;
    let path = String::from_utf8(out.stdout).ok()?;
    let path = Path::new(path.trim());
    (out.status.success() && path.is_dir()).then(|| path.to_owned())
}

//! The book (`docs/book/`): its references drawn from the code, and the checks its pages
//! must pass before mdBook builds them.
//!
//! The references (every `sluiceway.yaml` key, every action input and output, every
//! failure reason, the decision records) are drawn here from the same sources the
//! product reads, written into the book's sources and committed, so a reader of the
//! repository sees them too; a test draws them again and fails when a committed page is
//! not what the code draws today. The pages people write are checked for what mdBook does
//! not check: a key of `sluiceway.yaml` named in code that the file does not have, a
//! YAML example written inline instead of included from a file the tests read, and an
//! include of a file that is not there. The built book's links are checked last
//! (`links`).

pub mod action;
pub mod configuration;
pub mod decisions;
pub mod links;
pub mod pages;
pub mod reasons;
mod yaml;

use std::path::{Path, PathBuf};

/// Where the book's inputs and sources are, from the repository root.
#[derive(Debug, Clone)]
pub struct Workspace {
    pub root: PathBuf,
}

/// The summary line under which the decision records are listed.
const DECISIONS_ENTRY: &str = "  - [Decision records](reference/decisions.md)";

impl Workspace {
    pub fn new(root: impl Into<PathBuf>) -> Workspace {
        Workspace { root: root.into() }
    }

    /// The book's sources.
    pub fn src(&self) -> PathBuf {
        self.root.join("docs/book/src")
    }

    fn read(&self, relative: &str) -> Result<String, BookError> {
        let path = self.root.join(relative);
        std::fs::read_to_string(&path).map_err(|e| BookError::read(&path, &e))
    }

    /// Every page the code draws, by its path under the book's sources, with the
    /// summary's decision lines brought up to date.
    pub fn drawn(&self) -> Result<Vec<(PathBuf, String)>, BookError> {
        let schema = sluiceway_core::config::json_schema();
        let decisions = decisions::decisions(&self.root.join("docs/adr"))?;
        let mut drawn = vec![
            (
                PathBuf::from("reference/configuration.md"),
                configuration::page(&schema)?,
            ),
            (
                PathBuf::from("reference/action.md"),
                action::page(&self.read("action.yml")?)?,
            ),
            (
                PathBuf::from("reference/failure-reasons.md"),
                reasons::page(),
            ),
            (
                PathBuf::from("reference/decisions.md"),
                decisions::index(&decisions),
            ),
        ];
        for decision in &decisions {
            drawn.push((
                PathBuf::from(format!("reference/decisions/{}.md", decision.stem)),
                decisions::page(decision),
            ));
        }
        let summary = self.read("docs/book/src/SUMMARY.md")?;
        drawn.push((
            PathBuf::from("SUMMARY.md"),
            with_decisions(&summary, &decisions::summary_lines(&decisions))?,
        ));
        Ok(drawn)
    }

    /// Everything that keeps the book from building as it should, one line each, naming
    /// the page (and the line, for a page people write): a drawn page that is not what
    /// the code draws today, a drawn page nothing draws any more, and every problem of the
    /// pages. Empty when the book is sound.
    pub fn problems(&self) -> Result<Vec<String>, BookError> {
        const REDRAW: &str = "run `cargo run -p sluiceway-book -- generate`";
        let mut problems = Vec::new();
        let drawn = self.drawn()?;
        for (page, text) in &drawn {
            let committed = std::fs::read_to_string(self.src().join(page)).ok();
            if committed.as_deref() != Some(text.as_str()) {
                problems.push(format!(
                    "docs/book/src/{}: not what the code draws today; {REDRAW}",
                    page.display()
                ));
            }
        }
        for stale in self.stale(&drawn) {
            problems.push(format!(
                "docs/book/src/{}: nothing draws it any more; {REDRAW}",
                stale.display()
            ));
        }
        let keys = configuration::key_paths(&sluiceway_core::config::json_schema())?;
        let pages =
            pages::check(&self.src(), &keys).map_err(|e| BookError::read(&self.src(), &e))?;
        problems.extend(pages.iter().map(|p| format!("docs/book/src/{p}")));
        Ok(problems)
    }

    /// Pages under the drawn folders that nothing draws any more (a removed record).
    pub fn stale(&self, drawn: &[(PathBuf, String)]) -> Vec<PathBuf> {
        let folder = self.src().join("reference/decisions");
        let Ok(entries) = std::fs::read_dir(&folder) else {
            return Vec::new();
        };
        let mut stale: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            .map(|e| PathBuf::from("reference/decisions").join(e.file_name()))
            .filter(|p| !drawn.iter().any(|(d, _)| d == p))
            .collect();
        stale.sort();
        stale
    }
}

/// The summary with the lines under the decision records' entry replaced.
fn with_decisions(summary: &str, lines: &[String]) -> Result<String, BookError> {
    let mut out = Vec::new();
    let mut all = summary.lines().peekable();
    let mut found = false;
    while let Some(line) = all.next() {
        out.push(line.to_owned());
        if line == DECISIONS_ENTRY {
            found = true;
            while all.peek().is_some_and(|l| l.starts_with("    - [")) {
                all.next();
            }
            out.extend(lines.iter().cloned());
        }
    }
    if !found {
        return Err(BookError::Summary(DECISIONS_ENTRY));
    }
    Ok(out.join("\n") + "\n")
}

#[derive(Debug, thiserror::Error)]
pub enum BookError {
    #[error("{path}: {reason}")]
    Read { path: String, reason: String },
    #[error("sluiceway.yaml key {key} has no {missing}")]
    Undocumented { key: String, missing: &'static str },
    #[error("{0}")]
    Action(String),
    #[error("{0}: a decision record needs a `# title` line")]
    Decision(String),
    #[error("docs/book/src/SUMMARY.md has no line `{0}` to list the decision records under")]
    Summary(&'static str),
}

impl BookError {
    fn read(path: &Path, error: &std::io::Error) -> BookError {
        BookError::Read {
            path: path.display().to_string(),
            reason: error.kind().to_string(),
        }
    }
}

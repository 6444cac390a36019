//! The index of the decision records (`docs/adr/`), and one book page per record that
//! includes the record itself, so the book never holds a second copy.

use std::path::Path;

use crate::BookError;

/// A decision record: its number and file stem (`0001-crate-layout`) and its title.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub stem: String,
    pub title: String,
}

/// Every record in `adr_dir`, in number order.
pub fn decisions(adr_dir: &Path) -> Result<Vec<Decision>, BookError> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(adr_dir).map_err(|e| BookError::read(adr_dir, &e))? {
        let path = entry.map_err(|e| BookError::read(adr_dir, &e))?.path();
        if path.extension().is_none_or(|x| x != "md") {
            continue;
        }
        let text = std::fs::read_to_string(&path).map_err(|e| BookError::read(&path, &e))?;
        let title = text
            .lines()
            .find_map(|l| l.strip_prefix("# "))
            .ok_or_else(|| BookError::Decision(path.display().to_string()))?
            .trim()
            .to_owned();
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_owned();
        found.push(Decision { stem, title });
    }
    found.sort_by(|a, b| a.stem.cmp(&b.stem));
    Ok(found)
}

/// The index page.
pub fn index(decisions: &[Decision]) -> String {
    let mut out = String::from(
        "# Decision records\n\n\
         <!-- Drawn by `cargo run -p sluiceway-book -- generate` from docs/adr; do not edit. -->\n\n\
         The decisions that shaped the code, each with its context and what it costs. They are \
         kept in `docs/adr/` beside the code; each page below includes the record itself.\n\n",
    );
    for decision in decisions {
        out.push_str(&format!(
            "- [{}](decisions/{}.md)\n",
            decision.title, decision.stem
        ));
    }
    out
}

/// The page of one record: the record, included from `docs/adr/`.
pub fn page(decision: &Decision) -> String {
    format!("{{{{#include ../../../../adr/{}.md}}}}\n", decision.stem)
}

/// The summary's lines for the records, nested under the index.
pub fn summary_lines(decisions: &[Decision]) -> Vec<String> {
    decisions
        .iter()
        .map(|d| format!("    - [{}](reference/decisions/{}.md)", d.title, d.stem))
        .collect()
}

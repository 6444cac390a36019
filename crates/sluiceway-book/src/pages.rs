//! What the book's pages must hold to, beyond what mdBook checks:
//!
//! - a key of `sluiceway.yaml` named in code (`` `dashboard.showValues` ``,
//!   `` `stacks[i].envFile` ``) exists in the schema, so a renamed or removed key cannot
//!   live on in a guide;
//! - every YAML block a page shows is included from a file (`{{#include …}}`), because
//!   the tests read those files: `sluiceway check` accepts each configuration and each
//!   workflow passes the workflow checks (the generated reference, whose snippets the
//!   drift test holds to the schema, is the one exception);
//! - every file a page includes exists, and a YAML file it includes is one of the
//!   examples the tests read (`examples/`, `docs/book/examples/`): mdBook only warns
//!   about a missing include and builds the page without it.
//!
//! Each problem names the page and its line.

use std::path::{Path, PathBuf};

use comrak::nodes::NodeValue;

/// A problem on a page, at a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub page: PathBuf,
    pub line: usize,
    pub what: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.page.display(), self.line, self.what)
    }
}

/// The pages under `src` the references draw: their snippets are not files.
fn drawn(page: &Path) -> bool {
    page.starts_with("reference/configuration.md")
}

/// Every problem of every page under `src`, in page order.
pub fn check(src: &Path, keys: &[String]) -> Result<Vec<Problem>, std::io::Error> {
    let mut problems = Vec::new();
    let mut pages: Vec<PathBuf> = walkdir::WalkDir::new(src)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "md"))
        .map(|e| e.path().to_owned())
        .collect();
    pages.sort();
    for path in pages {
        let text = std::fs::read_to_string(&path)?;
        let page = path.strip_prefix(src).unwrap_or(&path).to_owned();
        let mut found = check_page(&page, &text, keys);
        found.extend(includes(src, &page, &text));
        found.sort_by_key(|p| p.line);
        problems.extend(found);
    }
    Ok(problems)
}

/// The problems of one page.
pub fn check_page(page: &Path, text: &str, keys: &[String]) -> Vec<Problem> {
    let arena = comrak::Arena::new();
    let mut options = comrak::Options::default();
    options.extension.table = true;
    let root = comrak::parse_document(&arena, text, &options);
    let mut problems = Vec::new();
    for node in root.descendants() {
        let data = node.data();
        let line = data.sourcepos.start.line;
        match &data.value {
            NodeValue::Code(code) => {
                if let Some(named) = names_a_key(&code.literal, keys)
                    && !keys.contains(&named)
                {
                    problems.push(Problem {
                        page: page.to_owned(),
                        line,
                        what: format!(
                            "`{}` names no key of sluiceway.yaml (the configuration reference lists them)",
                            code.literal
                        ),
                    });
                }
            }
            NodeValue::CodeBlock(block) if !drawn(page) => {
                let language = block.info.split_whitespace().next().unwrap_or_default();
                let included = block
                    .literal
                    .lines()
                    .filter(|l| !l.trim().is_empty())
                    .all(|l| l.trim_start().starts_with("{{#include "));
                if matches!(language, "yaml" | "yml") && !included {
                    problems.push(Problem {
                        page: page.to_owned(),
                        line,
                        what: "a YAML example must be included from a file the tests read ({{#include ../examples/…}}), not written on the page".to_owned(),
                    });
                }
            }
            _ => {}
        }
    }
    problems
}

/// The examples the tests read, from the book's sources (`docs/book/src`).
const EXAMPLES: [&str; 2] = ["../../../examples", "../examples"];

/// The problems of the files one page includes: a file that is not there, and a YAML
/// file that is not one of the examples the tests read.
fn includes(src: &Path, page: &Path, text: &str) -> Vec<Problem> {
    let folder = src
        .join(page)
        .parent()
        .map(Path::to_owned)
        .unwrap_or_default();
    let examples: Vec<PathBuf> = EXAMPLES
        .iter()
        .filter_map(|e| src.join(e).canonicalize().ok())
        .collect();
    let mut problems = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let Some(rest) = line.trim().strip_prefix("{{#include ") else {
            continue;
        };
        let target = rest.trim_end_matches("}}").trim();
        let file = target.split(':').next().unwrap_or(target);
        let mut problem = |what: String| {
            problems.push(Problem {
                page: page.to_owned(),
                line: index + 1,
                what,
            });
        };
        match folder.join(file).canonicalize() {
            Err(_) => problem(format!("the included file {file} is not there")),
            Ok(found) => {
                let yaml = found.extension().is_some_and(|x| x == "yml" || x == "yaml");
                if yaml && !examples.iter().any(|e| found.starts_with(e)) {
                    problem(format!(
                        "the included file {file} is not one of the examples the tests read (examples/, docs/book/examples/)"
                    ));
                }
            }
        }
    }
    problems
}

/// The key path a code span means, when it reads as one: dotted words whose first is a
/// top-level key of the file or a slip of one (`deployWindow`), with `[i]` or `[0]` read
/// as `[]`. A file name
/// (`dashboard.md`) or anything with a space, a slash or a value is not a key.
fn names_a_key(span: &str, keys: &[String]) -> Option<String> {
    const FILES: [&str; 8] = ["md", "json", "yaml", "yml", "html", "png", "svg", "txt"];
    if !span.contains('.')
        || span.contains(['/', ' ', '=', ':', '<', '$', '{'])
        || span
            .rsplit('.')
            .next()
            .is_some_and(|last| FILES.contains(&last))
    {
        return None;
    }
    let path: Vec<String> = span
        .split('.')
        .map(|segment| match segment.split_once('[') {
            Some((name, _)) => format!("{name}[]"),
            None => segment.to_owned(),
        })
        .collect();
    let first = path.first()?;
    let first = first.trim_end_matches("[]");
    let top_level = keys
        .iter()
        .filter(|k| !k.contains(['.', '[']))
        .any(|k| k == first || slip(k, first));
    if !top_level
        || !path.iter().all(|s| {
            s.trim_end_matches("[]")
                .chars()
                .all(|c| c.is_ascii_alphanumeric())
        })
    {
        return None;
    }
    Some(path.join("."))
}

/// Whether `written` is `key` with one letter added, dropped or changed: a typo of a
/// key rather than another word (`deployWindow` for `deployWindows`).
fn slip(key: &str, written: &str) -> bool {
    let (key, written): (Vec<char>, Vec<char>) = (key.chars().collect(), written.chars().collect());
    let same_start = key.iter().zip(&written).take_while(|(a, b)| a == b).count();
    let same_end = key[same_start..]
        .iter()
        .rev()
        .zip(written[same_start..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let left = key.len() - same_start - same_end;
    let right = written.len() - same_start - same_end;
    key.len() > 4 && left <= 1 && right <= 1 && key != written
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys() -> Vec<String> {
        [
            "dashboard",
            "dashboard.showValues",
            "stacks",
            "stacks[].envFile",
        ]
        .map(str::to_owned)
        .to_vec()
    }

    #[test]
    fn a_code_span_is_a_key_only_when_it_reads_as_one() {
        let keys = keys();
        assert_eq!(
            names_a_key("dashboard.showValues", &keys).as_deref(),
            Some("dashboard.showValues")
        );
        assert_eq!(
            names_a_key("stacks[i].envFile", &keys).as_deref(),
            Some("stacks[].envFile")
        );
        assert_eq!(
            names_a_key("dashboard.showValue", &keys).as_deref(),
            Some("dashboard.showValue")
        );
        assert_eq!(
            names_a_key("dashbord.title", &keys).as_deref(),
            Some("dashbord.title"),
            "a slip of a top-level key is read as a key, so it is found missing"
        );
        for not_a_key in [
            "dashboard.md",
            "dashboard",
            "github.token",
            "dashboard.title: x",
            "docs/dashboard.png",
            "needs.scan.outputs",
        ] {
            assert_eq!(names_a_key(not_a_key, &keys), None, "{not_a_key}");
        }
    }
}

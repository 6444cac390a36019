//! The built book's own links: every relative `href`, `src` and `srcset` of every page leads to a
//! file the build wrote, and every `#fragment` to an element with that id. mdBook
//! rewrites `page.md#part` to `page.html#part` and checks neither, so a renamed page or
//! heading would otherwise leave a dead link behind.

use std::collections::{BTreeSet, HashMap};
use std::path::{Component, Path, PathBuf};

/// A link that leads nowhere.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broken {
    pub page: PathBuf,
    pub link: String,
    pub why: &'static str,
}

impl std::fmt::Display for Broken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {} ({})", self.page.display(), self.link, self.why)
    }
}

/// mdBook's own pages, whose links are its own business (the print page repeats every
/// page's links under other anchors).
const MDBOOK_PAGES: [&str; 3] = ["print.html", "toc.html", "404.html"];

/// Every broken link of the book built into `dest`.
pub fn check(dest: &Path) -> Result<Vec<Broken>, std::io::Error> {
    let mut pages = HashMap::new();
    for entry in walkdir::WalkDir::new(dest)
        .into_iter()
        .filter_map(Result::ok)
    {
        if entry.path().extension().is_some_and(|x| x == "html") {
            let relative = entry.path().strip_prefix(dest).unwrap_or(entry.path());
            pages.insert(relative.to_owned(), std::fs::read_to_string(entry.path())?);
        }
    }
    let ids: HashMap<&PathBuf, BTreeSet<String>> = pages
        .iter()
        .map(|(p, html)| (p, attribute(html, "id")))
        .collect();
    let mut broken = Vec::new();
    let mut names: Vec<&PathBuf> = pages.keys().collect();
    names.sort();
    for page in names {
        if MDBOOK_PAGES.iter().any(|m| page == Path::new(m)) {
            continue;
        }
        let html = &pages[page];
        let candidates = attribute(html, "srcset")
            .into_iter()
            .filter_map(|set| set.split_whitespace().next().map(str::to_owned));
        for link in attribute(html, "href")
            .into_iter()
            .chain(attribute(html, "src"))
            .chain(candidates)
        {
            if link.contains(':') || link.starts_with("//") {
                continue;
            }
            let (file, fragment) = match link.split_once('#') {
                Some((file, fragment)) => (file, Some(fragment)),
                None => (link.as_str(), None),
            };
            let target = if file.is_empty() {
                page.clone()
            } else {
                normalized(&page.parent().unwrap_or(Path::new("")).join(file))
            };
            let why = if !dest.join(&target).exists() {
                Some("no such file in the built book")
            } else {
                fragment.filter(|f| !f.is_empty()).and_then(|f| {
                    let known = ids.get(&target).is_some_and(|set| set.contains(f));
                    (!known).then_some("no element has that id")
                })
            };
            if let Some(why) = why {
                broken.push(Broken {
                    page: page.clone(),
                    link: link.clone(),
                    why,
                });
            }
        }
    }
    Ok(broken)
}

/// The values of every `name="…"` attribute of a page.
fn attribute(html: &str, name: &str) -> BTreeSet<String> {
    let needle = format!(" {name}=\"");
    let mut found = BTreeSet::new();
    let mut rest = html;
    while let Some(at) = rest.find(&needle) {
        let after = &rest[at + needle.len()..];
        let Some(end) = after.find('"') else { break };
        found.insert(after[..end].replace("&amp;", "&"));
        rest = &after[end..];
    }
    found
}

/// A relative path with its `..` and `.` folded.
fn normalized(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

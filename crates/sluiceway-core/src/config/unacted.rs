//! Keys this version accepts and does not act on yet (ADR 0026). A setting that passes
//! validation and then changes nothing is worse than one that is refused, so every such
//! key is listed here, and wherever a file sets one, `check` and every run say so by
//! name. The list holds only keys whose issues are still open; a test in the binary
//! holds every key of the schema either to a test that proves its effect or to this
//! list, so no key is ever again accepted and silently dropped.

use serde_json::Value;

use super::document::{Document, KeyPath, Position};

/// The keys, in the schema's notation (`stacks[].envFile`), each with the capability
/// it waits for. A key stands for everything under it.
/// Empty while every key acts; the guard stays for the next key that is accepted before
/// its effect is built.
pub const NOT_ACTED_ON: [(&str, &str); 0] = [];

/// A key the file sets that this version does not act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unacted {
    pub key: KeyPath,
    pub position: Position,
    /// What the key is for, in words.
    pub capability: &'static str,
}

impl Unacted {
    /// The warning, naming the file, the place and the key.
    pub fn warning(&self, file: &str) -> String {
        let Position { line, column } = self.position;
        format!(
            "{file}:{line}:{column}: {}: accepted, but this version does not act on it yet ({}), so it changes nothing",
            self.key, self.capability
        )
    }
}

/// Every place in the document that sets a listed key, in file order.
pub(super) fn find(document: &Document) -> Vec<Unacted> {
    find_listed(document, &NOT_ACTED_ON)
}

fn find_listed(document: &Document, listed: &[(&str, &'static str)]) -> Vec<Unacted> {
    let mut found = Vec::new();
    for &(pattern, capability) in listed {
        let parts: Vec<&str> = pattern.split('.').collect();
        walk(
            &document.value,
            &parts,
            KeyPath::default(),
            &mut |key: KeyPath| {
                found.push(Unacted {
                    position: document.position(&key),
                    key,
                    capability,
                });
            },
        );
    }
    found.sort_by_key(|u| (u.position, u.key.to_string()));
    found
}

fn walk(value: &Value, parts: &[&str], at: KeyPath, found: &mut dyn FnMut(KeyPath)) {
    let Some((part, rest)) = parts.split_first() else {
        found(at);
        return;
    };
    let (name, every_item) = match part.strip_suffix("[]") {
        Some(name) => (name, true),
        None => (*part, false),
    };
    let Some(child) = value.as_object().and_then(|map| map.get(name)) else {
        return;
    };
    let at = at.key(name);
    match (every_item, child) {
        (true, Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                walk(item, rest, at.index(i), found);
            }
        }
        (true, _) => {}
        (false, child) => walk(child, rest, at, found),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_place_that_sets_a_listed_key_is_found_in_file_order() {
        let text = "cost:\n  enabled: true\nstacks:\n  - path: a\n    options: { wrapper: cdktf }\n  - path: b\n  - path: c\n    options: { wrapper: terragrunt }\n    cost: { enabled: true }\n";
        let document = Document::parse(text).unwrap();
        let listed = [("stacks[].options.wrapper", "a capability to come")];
        let found: Vec<String> = find_listed(&document, &listed)
            .iter()
            .map(|u| format!("{}@{}", u.key, u.position.line))
            .collect();
        assert_eq!(
            found,
            ["stacks[0].options.wrapper@5", "stacks[2].options.wrapper@8"]
        );
        // The warning `check` and every run print for each, naming file, place and key.
        assert_eq!(
            find_listed(&document, &listed)[0].warning("sluiceway.yaml"),
            "sluiceway.yaml:5:16: stacks[0].options.wrapper: accepted, but this version does not act on it yet (a capability to come), so it changes nothing"
        );
        assert!(find(&document).is_empty(), "keys this version acts on");
    }
}

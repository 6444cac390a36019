//! The reference's snippets as YAML people write: maps and lists of maps as blocks,
//! everything else in flow form (JSON's own syntax, which YAML reads as it is).

use serde_json::Value;

/// `value` (a map) as block YAML, each line ending in a newline.
pub(crate) fn block(value: &Value) -> String {
    let mut out = String::new();
    if let Value::Object(map) = value {
        write_map(map, 0, &mut out);
    }
    out
}

fn write_map(map: &serde_json::Map<String, Value>, indent: usize, out: &mut String) {
    for (i, (key, value)) in map.iter().enumerate() {
        // The first key of a list item sits on the item's `- ` line.
        let pad = if i == 0 && out.ends_with("- ") {
            String::new()
        } else {
            " ".repeat(indent)
        };
        out.push_str(&format!("{pad}{key}:"));
        write_value(value, indent, out);
    }
}

fn write_value(value: &Value, indent: usize, out: &mut String) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            out.push('\n');
            write_map(map, indent + 2, out);
        }
        Value::Array(items) if items.iter().any(Value::is_object) => {
            out.push('\n');
            for item in items {
                out.push_str(&format!("{}- ", " ".repeat(indent + 2)));
                match item {
                    Value::Object(map) => write_map(map, indent + 4, out),
                    other => out.push_str(&format!("{}\n", flow(other))),
                }
            }
        }
        other => out.push_str(&format!(" {}\n", flow(other))),
    }
}

/// A scalar or a list of scalars; a string stays bare when YAML reads it back as the
/// same string.
fn flow(value: &Value) -> String {
    match value {
        Value::String(text) if bare(text) => text.clone(),
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(flow).collect();
            format!("[{}]", inner.join(", "))
        }
        other => other.to_string(),
    }
}

/// Whether a string needs no quotes: letters, digits and `-_/.` only, starting with a
/// letter, and not a word YAML reads as something else.
fn bare(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '/' | '.'))
        && !matches!(
            text.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "on" | "off" | "null" | "y" | "n"
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn maps_and_lists_of_maps_are_blocks_and_the_rest_is_flow() {
        let snippet = json!({"stacks": [{"path": "infra/network", "options": {"valuesFiles": ["values.yaml"]}}], "dashboard": {"timeZone": "Europe/Amsterdam", "pin": true, "title": "on"}});
        assert_eq!(
            block(&snippet),
            "dashboard:\n  pin: true\n  timeZone: Europe/Amsterdam\n  title: \"on\"\nstacks:\n  - options:\n      valuesFiles: [values.yaml]\n    path: infra/network\n"
        );
    }
}

//! Pulumi's property paths (`spec.containers[0].image`, `data["app.properties"]`) read
//! into the shared notation, so a row writes a Pulumi path the way it writes any other.

use sluiceway_core::property_path::{PropertyPath, Step};

/// Reads one path; `None` when it is not Pulumi's notation.
pub fn parse(text: &str) -> Option<PropertyPath> {
    let mut steps = Vec::new();
    let mut rest = text;
    let mut first = true;
    while !rest.is_empty() {
        if let Some(inner) = rest.strip_prefix('[') {
            let (step, after) = bracket(inner)?;
            steps.push(step);
            rest = after;
        } else {
            let name = if first { rest } else { rest.strip_prefix('.')? };
            let end = name.find(['.', '[']).unwrap_or(name.len());
            if end == 0 {
                return None;
            }
            steps.push(Step::Field(name[..end].to_owned()));
            rest = &name[end..];
        }
        first = false;
    }
    (!steps.is_empty()).then(|| PropertyPath::from_steps(steps))
}

/// What follows a `[`: an index `n]` or a quoted name `"…"]` with `\` escapes.
fn bracket(inner: &str) -> Option<(Step, &str)> {
    if let Some(quoted) = inner.strip_prefix('"') {
        let mut name = String::new();
        let mut chars = quoted.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => name.push(chars.next()?.1),
                '"' => {
                    let after = quoted[i + 1..].strip_prefix(']')?;
                    return Some((Step::Field(name), after));
                }
                c => name.push(c),
            }
        }
        None
    } else {
        let end = inner.find(']')?;
        let index = inner[..end].parse().ok()?;
        Some((Step::Index(index), &inner[end + 1..]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn pulumi_paths_in_the_shared_notation() {
        for (pulumi, shared) in [
            ("environment", "environment"),
            ("environment.TOKEN", "environment.TOKEN"),
            (
                "spec.template.spec.containers[0].env[0].value",
                "spec.template.spec.containers[0].env[0].value",
            ),
            (
                "metadata.annotations[\"example.com/revision\"]",
                "metadata.annotations[\"example.com/revision\"]",
            ),
            ("data[\"app.properties\"]", "data[\"app.properties\"]"),
            ("[\"a\\\"b\"].c", "[\"a\\\"b\"].c"),
            ("data.log-level", "data[\"log-level\"]"),
        ] {
            assert_eq!(
                parse(pulumi).map(|p| p.to_string()).as_deref(),
                Some(shared)
            );
        }
    }

    #[test]
    fn what_is_not_a_path() {
        for text in ["", ".a", "a..b", "a[", "a[x]", "a[\"b]", "a[\"b\"", "a.[0]"] {
            assert_eq!(parse(text), None, "{text}");
        }
    }

    proptest! {
        /// Any path in the shared notation reads back to itself.
        #[test]
        fn the_shared_notation_reads_back(
            steps in proptest::collection::vec(
                prop_oneof![
                    "[a-zA-Z_][a-zA-Z0-9_]{0,6}".prop_map(Step::Field),
                    "[ -~]{1,8}".prop_map(Step::Field),
                    (0usize..50).prop_map(Step::Index),
                ],
                1..6,
            )
        ) {
            let path = PropertyPath::from_steps(steps);
            let text = path.to_string();
            prop_assert_eq!(parse(&text).map(|p| p.to_string()), Some(text));
        }
    }
}

//! Which version of OpenTofu or Terraform a workflow sets up, where its setup step says
//! so (`opentofu/setup-opentofu` with `tofu_version`, `hashicorp/setup-terraform` with
//! `terraform_version`), so that `check` can hold a root module's `required_version` to
//! it before any run (issue 44). A version written as a range, or from an expression,
//! is not known here and says nothing.

use serde_json::Value;

use crate::config::{Document, KeyPath};

/// One setup step's tool and exact version, at the line of its version input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetUpTool {
    pub file: String,
    pub line: usize,
    /// `tofu` or `terraform`: the program the step puts on the PATH.
    pub binary: &'static str,
    pub version: String,
}

/// The actions that set a tool up, the program each installs, and its version input.
const SETUPS: [(&str, &str, &str); 2] = [
    ("opentofu/setup-opentofu", "tofu", "tofu_version"),
    (
        "hashicorp/setup-terraform",
        "terraform",
        "terraform_version",
    ),
];

/// Every setup step of `text` (a workflow file at `file`) that names an exact version.
pub fn set_up_tools(file: &str, text: &str) -> Vec<SetUpTool> {
    let Ok(document) = Document::parse(text) else {
        return Vec::new();
    };
    let Some(jobs) = document.value.get("jobs").and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (job, body) in jobs {
        let Some(steps) = body.get("steps").and_then(Value::as_array) else {
            continue;
        };
        for (index, step) in steps.iter().enumerate() {
            let Some(uses) = step.get("uses").and_then(Value::as_str) else {
                continue;
            };
            let action = uses.split('@').next().unwrap_or("").to_ascii_lowercase();
            let Some((_, binary, input)) = SETUPS.iter().find(|(name, ..)| *name == action) else {
                continue;
            };
            let Some(version) = step
                .get("with")
                .and_then(|with| with.get(*input))
                .and_then(|v| {
                    v.as_str()
                        .map(str::to_owned)
                        .or_else(|| v.is_number().then(|| v.to_string()))
                })
                .filter(|v| {
                    !v.is_empty()
                        && v.chars()
                            .all(|c| c.is_ascii_digit() || c == '.' || c == 'v')
                })
            else {
                continue;
            };
            let path = KeyPath::default()
                .key("jobs")
                .key(job)
                .key("steps")
                .index(index)
                .key("with")
                .key(input);
            found.push(SetUpTool {
                file: file.to_owned(),
                line: document.position(&path).line,
                binary,
                version,
            });
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exact_version_is_read_at_its_line_and_a_range_or_expression_is_not() {
        let text = "on: push\njobs:\n  sluiceway:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: opentofu/setup-opentofu@v1\n        with:\n          tofu_version: 1.6.2\n      - uses: hashicorp/setup-terraform@v3\n        with:\n          terraform_version: ~1.11\n  other:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: opentofu/setup-opentofu@v1\n        with:\n          tofu_version: ${{ vars.TOFU }}\n";
        assert_eq!(
            set_up_tools("w.yml", text),
            [SetUpTool {
                file: "w.yml".to_owned(),
                line: 9,
                binary: "tofu",
                version: "1.6.2".to_owned(),
            }]
        );
    }
}

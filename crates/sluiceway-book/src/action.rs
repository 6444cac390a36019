//! The action's reference, drawn from `action.yml`: every input with its default and
//! description, every output with its description. An input or output without a
//! description fails the drawing.

use saphyr::{LoadableYamlNode, Yaml};

use crate::BookError;

/// One input or output of the action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    pub description: String,
    pub default: Option<String>,
}

/// The inputs and the outputs `action.yml` declares, in its order.
pub fn entries(action_yml: &str) -> Result<(Vec<Entry>, Vec<Entry>), BookError> {
    let documents = Yaml::load_from_str(action_yml)
        .map_err(|e| BookError::Action(format!("action.yml is not YAML: {e}")))?;
    let document = documents
        .first()
        .ok_or_else(|| BookError::Action("action.yml is empty".to_owned()))?;
    Ok((section(document, "inputs")?, section(document, "outputs")?))
}

fn section(document: &Yaml<'_>, name: &str) -> Result<Vec<Entry>, BookError> {
    let Some(map) = document.as_mapping_get(name).and_then(Yaml::as_mapping) else {
        return Err(BookError::Action(format!("action.yml has no {name}")));
    };
    map.iter()
        .map(|(key, value)| {
            let key = key.as_str().unwrap_or_default().to_owned();
            let text = |field: &str| {
                value
                    .as_mapping_get(field)
                    .and_then(|v| v.as_str().map(str::to_owned).or_else(|| scalar(v)))
            };
            let description = text("description")
                .filter(|d| !d.trim().is_empty())
                .ok_or_else(|| BookError::Action(format!("{name}.{key} has no description")))?;
            Ok(Entry {
                name: key,
                description,
                default: text("default"),
            })
        })
        .collect()
}

/// A default written as a bare boolean or number.
fn scalar(value: &Yaml<'_>) -> Option<String> {
    value
        .as_bool()
        .map(|b| b.to_string())
        .or_else(|| value.as_integer().map(|i| i.to_string()))
}

/// The reference page.
pub fn page(action_yml: &str) -> Result<String, BookError> {
    let (inputs, outputs) = entries(action_yml)?;
    let mut out = String::from(
        "# Action reference\n\n\
         <!-- Drawn by `cargo run -p sluiceway-book -- generate` from action.yml; do not edit. -->\n\n\
         The inputs a workflow gives the action under `with:`, and the outputs a later step or \
         job reads as `steps.<id>.outputs.<name>` (or a job's `outputs`). Every input is optional.\n\n\
         ## Inputs\n\n| Input | Default | What it does |\n|---|---|---|\n",
    );
    for input in &inputs {
        let default = match &input.default {
            Some(d) if !d.is_empty() => format!("`{d}`"),
            _ => "empty".to_owned(),
        };
        out.push_str(&format!(
            "| <span id=\"input-{0}\">`{0}`</span> | {default} | {1} |\n",
            input.name,
            cell(&input.description)
        ));
    }
    out.push_str("\n## Outputs\n\n| Output | What it holds |\n|---|---|\n");
    for output in &outputs {
        out.push_str(&format!(
            "| <span id=\"output-{0}\">`{0}`</span> | {1} |\n",
            output.name,
            cell(&output.description)
        ));
    }
    Ok(out)
}

/// Text safe in a table cell: no pipe ends the cell early, and a `${{ … }}` shows as
/// code rather than as mdBook's own template syntax.
fn cell(text: &str) -> String {
    let text = text.replace('|', "\\|");
    let mut out = String::new();
    let mut rest = text.as_str();
    while let Some(start) = rest.find("${{") {
        let Some(end) = rest[start..].find("}}") else {
            break;
        };
        out.push_str(&rest[..start]);
        out.push('`');
        out.push_str(&rest[start..start + end + 2]);
        out.push('`');
        rest = &rest[start + end + 2..];
    }
    out.push_str(rest);
    out
}

//! The book against the code: the committed references are what the code draws today,
//! every key, input, output and failure reason has its entry (counted here from the
//! sources themselves, not from the drawing code), every example in the configuration
//! reference is a valid `sluiceway.yaml`, and a page that names a key the file does not
//! have stops the build with the page and the line.

use std::path::{Path, PathBuf};
use std::process::Command;

use saphyr::LoadableYamlNode;
use serde_json::Value;
use sluiceway_book::Workspace;
use sluiceway_core::failure::FailureReason;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn committed(page: &str) -> String {
    std::fs::read_to_string(root().join("docs/book/src").join(page)).unwrap()
}

#[test]
fn the_committed_book_is_what_the_code_draws_and_its_pages_pass() {
    let problems = Workspace::new(root()).problems().unwrap();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Every key path of a schema: `a.b` for a map's key, `a[].b` for a list's entries'.
fn key_paths(schema: &Value, prefix: &str, out: &mut Vec<String>) {
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (key, value) in properties {
            let path = format!("{prefix}{key}");
            out.push(path.clone());
            key_paths(value, &format!("{path}."), out);
            if let Some(items) = value.get("items") {
                key_paths(items, &format!("{path}[]."), out);
            }
            for alternative in value
                .get("anyOf")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                key_paths(alternative, &format!("{path}."), out);
                if let Some(items) = alternative.get("items") {
                    key_paths(items, &format!("{path}[]."), out);
                }
            }
        }
    }
}

#[test]
fn every_key_input_output_and_failure_reason_has_an_entry() {
    let schema = sluiceway_core::config::json_schema();
    let mut keys = Vec::new();
    key_paths(&schema, "", &mut keys);
    keys.sort();
    keys.dedup();
    assert!(keys.len() > 80, "the schema's keys were walked: {keys:?}");
    let configuration = committed("reference/configuration.md");
    for key in &keys {
        assert!(
            configuration.contains(&format!("\n## `{key}` {{#")),
            "the configuration reference has no entry for {key}"
        );
    }

    let action = std::fs::read_to_string(root().join("action.yml")).unwrap();
    let action = &saphyr::Yaml::load_from_str(&action).unwrap()[0];
    let reference = committed("reference/action.md");
    for (section, kind) in [("inputs", "input"), ("outputs", "output")] {
        let names = action
            .as_mapping_get(section)
            .and_then(saphyr::Yaml::as_mapping)
            .unwrap();
        assert!(!names.is_empty());
        for name in names.keys() {
            let name = name.as_str().unwrap();
            assert!(
                reference.contains(&format!("<span id=\"{kind}-{name}\">`{name}`</span>")),
                "the action reference has no entry for the {kind} {name}"
            );
        }
    }

    let reasons = committed("reference/failure-reasons.md");
    for reason in FailureReason::every() {
        let sentence = reason.to_string();
        let heading = sentence[..1].to_uppercase() + &sentence[1..];
        assert!(
            reasons.contains(&format!("\n## {heading}")),
            "the failure reasons have no entry for {sentence:?}"
        );
    }
}

#[test]
fn every_example_of_the_configuration_reference_is_a_valid_file() {
    let page = committed("reference/configuration.md");
    let examples: Vec<&str> = page
        .split("```yaml\n")
        .skip(1)
        .filter_map(|rest| rest.split("```").next())
        .collect();
    assert!(examples.len() > 80, "{} examples", examples.len());
    // The loader validates against the generated schema, then reads what the schema
    // cannot say.
    let refused: Vec<String> = examples
        .iter()
        .filter_map(|example| {
            let problems = sluiceway_core::config::load("sluiceway.yaml", example).err()?;
            let said: Vec<String> = problems.iter().map(ToString::to_string).collect();
            Some(format!("{example}{}", said.join("\n")))
        })
        .collect();
    assert!(refused.is_empty(), "{}", refused.join("\n\n"));
}

/// The files `sluiceway-book check` reads, copied into a scratch repository.
fn scratch() -> tempfile::TempDir {
    let scratch = tempfile::tempdir().unwrap();
    for part in ["docs", "examples", "action.yml"] {
        let from = root().join(part);
        for entry in walkdir::WalkDir::new(&from) {
            let entry = entry.unwrap();
            let within = entry.path().strip_prefix(&from).unwrap();
            let to = if within.as_os_str().is_empty() {
                scratch.path().join(part)
            } else {
                scratch.path().join(part).join(within)
            };
            if entry.file_type().is_dir() {
                std::fs::create_dir_all(&to).unwrap();
            } else {
                std::fs::create_dir_all(to.parent().unwrap()).unwrap();
                std::fs::copy(entry.path(), &to).unwrap();
            }
        }
    }
    scratch
}

/// What `sluiceway-book check` says of the scratch repository, which it must refuse.
fn refused(scratch: &tempfile::TempDir) -> String {
    let ran = Command::new(env!("CARGO_BIN_EXE_sluiceway-book"))
        .args(["--root"])
        .arg(scratch.path())
        .arg("check")
        .output()
        .unwrap();
    assert_eq!(ran.status.code(), Some(1));
    String::from_utf8_lossy(&ran.stderr).into_owned()
}

#[test]
fn a_page_that_names_a_key_that_does_not_exist_fails_with_its_page_and_line() {
    let scratch = scratch();
    let page = scratch.path().join("docs/book/src/deploy-timing.md");
    let text = std::fs::read_to_string(&page).unwrap();
    std::fs::write(
        &page,
        text.replacen(
            "`deployWindows` lists weekly windows",
            "`deployWindow.days` lists weekly windows",
            1,
        )
        .replacen("`freezes[].reason`", "`freezes[].why`", 1),
    )
    .unwrap();
    insta::assert_snapshot!(refused(&scratch));
}

#[test]
fn a_missing_include_and_an_inline_yaml_example_fail_with_their_page_and_line() {
    let scratch = scratch();
    let page = scratch.path().join("docs/book/src/workflows/read-only.md");
    let text = std::fs::read_to_string(&page).unwrap();
    std::fs::write(
        &page,
        text.replace(
            "examples/read-only/sluiceway.yaml",
            "examples/read-only/sluiceway.yml",
        ) + "\n```yaml\ndashboard:\n  readOnly: true\n```\n",
    )
    .unwrap();
    insta::assert_snapshot!(refused(&scratch));
}

//! A CDK for Terraform app, as discovery sees it: a directory whose `cdktf.json` names the
//! command that runs the app (`app`). Its stacks live in code and are named by the
//! entries that declare them; only `cdktf synth` can list them, and discovery never runs
//! a tool, so the file is read for what a synth needs and nothing else.

use crate::config::{ConfigProblem, Document, KeyPath, Position};
use crate::repo::{FileSource, child};

/// The app's configuration file, in the app's directory.
pub const APP_FILE: &str = "cdktf.json";

/// What is wrong with the app in `dir`, at the place in its `cdktf.json` that says so.
/// Discovery has already checked the file is there.
pub(crate) fn problem(source: &impl FileSource, dir: &str) -> Option<ConfigProblem> {
    let file = child(dir, APP_FILE);
    let at = |position: Position, key: KeyPath, message: &str| ConfigProblem {
        file: file.clone(),
        position,
        key,
        message: message.to_owned(),
    };
    let Some(text) = source.read_text(&file) else {
        return Some(at(
            Position { line: 1, column: 1 },
            KeyPath::default(),
            "the file cannot be read as UTF-8 text",
        ));
    };
    if let Err(e) = serde_json::from_str::<serde_json::Value>(&text) {
        return Some(at(
            Position {
                line: e.line().max(1),
                column: e.column().max(1),
            },
            KeyPath::default(),
            &format!("expected JSON: {}", json_words(&e)),
        ));
    }
    // JSON is YAML, and the YAML reader knows where each key stands.
    let document = Document::parse(&text).ok()?;
    let app = KeyPath::default().key("app");
    match document.value.get("app") {
        _ if !document.value.is_object() => Some(at(
            Position { line: 1, column: 1 },
            KeyPath::default(),
            "expected an object with `app`, the command that runs the CDKTF app",
        )),
        None => Some(at(
            document.position(&KeyPath::default()),
            app,
            "missing: `cdktf synth` needs the command that runs the app",
        )),
        Some(serde_json::Value::String(command)) if !command.trim().is_empty() => None,
        Some(_) => Some(at(
            document.position(&app),
            app,
            "expected the command that runs the app, as text that is not empty",
        )),
    }
}

/// serde_json's message without the position it appends, which the problem carries.
fn json_words(e: &serde_json::Error) -> String {
    let words = e.to_string();
    match words.rfind(" at line ") {
        Some(at) => words[..at].to_owned(),
        None => words,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo::MemoryRepo;

    fn problem_of(text: &str) -> Option<String> {
        let repo = MemoryRepo::default().with("app/cdktf.json", text);
        problem(&repo, "app").map(|p| p.to_string())
    }

    #[test]
    fn an_app_that_names_its_command_is_fine() {
        assert_eq!(
            problem_of(
                "{\n  \"language\": \"typescript\",\n  \"app\": \"npx ts-node main.ts\"\n}\n"
            ),
            None
        );
    }

    #[test]
    fn the_file_and_the_key_are_named() {
        assert_eq!(
            problem_of("{\n  \"language\": \"typescript\"\n}\n").unwrap(),
            "app/cdktf.json:1:1: app: missing: `cdktf synth` needs the command that runs the app"
        );
        assert_eq!(
            problem_of("{\n  \"language\": \"typescript\",\n  \"app\": \"  \"\n}\n").unwrap(),
            "app/cdktf.json:3:3: app: expected the command that runs the app, as text that is not empty"
        );
        assert_eq!(
            problem_of("{\n  \"app\": [\"node\", \"main.js\"]\n}\n").unwrap(),
            "app/cdktf.json:2:3: app: expected the command that runs the app, as text that is not empty"
        );
        assert_eq!(
            problem_of("{\n  \"app\": \"node main.js\",\n}\n").unwrap(),
            "app/cdktf.json:3:1: expected JSON: trailing comma"
        );
        assert_eq!(
            problem_of("[\"node main.js\"]").unwrap(),
            "app/cdktf.json:1:1: expected an object with `app`, the command that runs the CDKTF app"
        );
    }
}

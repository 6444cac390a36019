//! `sluiceway dashboard`: commands for people who debug a dashboard body.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use serde_json::{Map, Value, json};
use sluiceway_dashboard::{pictures, reader};

use crate::base::Outcome;
use crate::base::printer::Printer;

fn read_file(file: &Path, printer: &mut Printer) -> Option<String> {
    match fs::read_to_string(file) {
        Ok(text) => Some(text),
        Err(e) => {
            printer.say(&format!("error: {} could not be read: {e}", file.display()));
            None
        }
    }
}

fn marker_object(marker: &sluiceway_dashboard::marker::Marker) -> Map<String, Value> {
    marker
        .keys
        .iter()
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect()
}

/// What the reader finds in a body: root facts, rows with their marker facts and boxes,
/// the rescan box, and how many blocks are only ever carried (rows of unknown states).
pub fn read(file: &Path, json: bool, printer: &mut Printer) -> Outcome {
    let Some(body) = read_file(file, printer) else {
        return Outcome::Failed;
    };
    let found = reader::read(&body);
    let carried = found.unknown_rows().count();
    if json {
        let rows: Vec<Value> = found
            .rows
            .iter()
            .map(|row| {
                let mut object = marker_object(&row.marker);
                object.insert("ticked".into(), Value::Bool(row.ticked));
                Value::Object(object)
            })
            .collect();
        let doc = json!({
            "root": found.root.as_ref().map(|m| Value::Object(marker_object(m))),
            "rows": rows,
            "rescan": found.rescan.as_ref().map(|r| json!({ "ticked": r.ticked })),
            "carried": carried,
        });
        printer.result(&format!(
            "{}\n",
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        ));
    } else {
        let mut out = String::new();
        match &found.root {
            Some(root) => {
                let facts: Vec<String> =
                    root.keys.iter().map(|(k, v)| format!("{k}={v}")).collect();
                let _ = writeln!(out, "root: {}", facts.join(" "));
            }
            None => out.push_str("root: none (the first line is not a dashboard marker)\n"),
        }
        for row in &found.rows {
            let state = row.marker.get("state").unwrap_or("?");
            let hash = row
                .facts
                .hash
                .as_deref()
                .map(|h| format!(" {h}"))
                .unwrap_or_default();
            let tick = if row.ticked { " ticked" } else { "" };
            let _ = writeln!(out, "row: {} {state}{hash}{tick}", row.facts.stack);
        }
        if let Some(rescan) = &found.rescan {
            let _ = writeln!(
                out,
                "rescan box: {}",
                if rescan.ticked {
                    "ticked"
                } else {
                    "not ticked"
                }
            );
        }
        let _ = writeln!(out, "carried as they are: {carried}");
        printer.result(&out);
    }
    Outcome::Done
}

/// A self-contained HTML page that shows the body as GitHub-flavoured Markdown would,
/// its header pictures embedded from the address the body names, so it draws offline.
pub fn html(file: &Path, printer: &mut Printer) -> Outcome {
    let Some(body) = read_file(file, printer) else {
        return Outcome::Failed;
    };
    let title = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let pictures = sluiceway_dashboard::page::pictures_base(&body);
    printer.result(&sluiceway_dashboard::page::page(&body, &title, pictures));
    Outcome::Done
}

/// Writes the header pictures (light and dark for every state) into a directory.
pub fn write_pictures(dir: &Path, printer: &mut Printer) -> Outcome {
    if let Err(e) = fs::create_dir_all(dir) {
        printer.say(&format!("error: {} could not be made: {e}", dir.display()));
        return Outcome::Failed;
    }
    let all = pictures::all();
    for (name, svg) in &all {
        if let Err(e) = fs::write(dir.join(name), svg) {
            printer.say(&format!("error: {name} could not be written: {e}"));
            return Outcome::Failed;
        }
    }
    printer.say(&format!(
        "wrote {} pictures into {}",
        all.len(),
        dir.display()
    ));
    Outcome::Done
}

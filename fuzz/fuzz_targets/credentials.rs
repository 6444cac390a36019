//! Any text as a root module's file, a Pulumi project and a workflow: the credentials a
//! stack needs are named from the files, never a panic, and never a word of the text
//! that is not a provider's or backend's name.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sluiceway_core::credentials::{Given, needs};
use sluiceway_core::repo::MemoryRepo;
use sluiceway_core::stack::{Origin, Stack, StackId, StackSettings, Tool, ToolOptions};

fn stack(path: &str, name: Option<&str>, tool: Tool) -> Stack {
    Stack {
        id: StackId::derive(path, name),
        path: path.to_owned(),
        name: name.map(str::to_owned),
        tool,
        options: ToolOptions::Pulumi,
        origin: Origin::Declared(0),
        settings: StackSettings::default(),
    }
}

fuzz_target!(|text: &str| {
    let repo = MemoryRepo::default()
        .with("net/main.tf", text)
        .with("net/.terraform.lock.hcl", text)
        .with("app/Pulumi.yaml", text)
        .with("app/Pulumi.dev.yaml", text);
    let stacks = [
        stack("net", None, Tool::OpenTofu),
        stack("app", Some("dev"), Tool::Pulumi),
    ];
    for (_, found) in needs(&stacks, &repo.files(), &repo) {
        for need in found {
            assert!(need.file.starts_with("net/") || need.file.starts_with("app/"), "{need:?}");
        }
    }
    if let Ok(document) = sluiceway_core::config::Document::parse(text) {
        let _ = Given::of_job(&document.value, "deploy");
    }
});

//! OpenTofu and Terraform root modules, found when the repository's own files say so.
//!
//! A directory of `.tf`/`.tofu` files is only a stack when it is plainly deployed on its
//! own: not called as a module, holding a backend, using one workspace, and naming its
//! tool. The rules are asked in a fixed order and the first one that leaves a directory
//! out is its reason, so `check` can explain every directory. A miss is cheap (declare
//! it); a false stack is not.

use std::collections::{BTreeMap, BTreeSet};

use hcl::Body;

use crate::repo::{FileSource, RepoFiles, child, join, split};
use crate::stack::Tool;

/// What root-module discovery concluded about one directory of module files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Found { tool: Tool, evidence: String },
    LeftOut(String),
    Declared,
}

const MODULE_SUFFIXES: [&str; 4] = [".tf", ".tofu", ".tf.json", ".tofu.json"];
const TERRAGRUNT_FILES: [&str; 3] = [
    "terragrunt.hcl",
    "terragrunt.hcl.json",
    "terragrunt.stack.hcl",
];

fn is_module_file(name: &str) -> bool {
    MODULE_SUFFIXES.iter().any(|s| name.ends_with(s))
}

/// Directories never looked into: tool caches and generated output.
fn is_skipped(dir: &str) -> bool {
    dir.split('/').any(|part| {
        (part.starts_with('.') && part != ".") || part == "node_modules" || part == "cdktf.out"
    })
}

/// Every directory holding module files, with what the rules made of it. `declared` are
/// directories a `stacks` entry with a tool names.
pub fn examine(
    files: &RepoFiles,
    source: &impl FileSource,
    declared: &BTreeSet<String>,
) -> Result<BTreeMap<String, Verdict>, String> {
    if let Some(terragrunt) = files
        .files()
        .find(|f| TERRAGRUNT_FILES.contains(&split(f).1) && !is_skipped(split(f).0))
    {
        return Err(format!(
            "root-module discovery is off because the repository uses Terragrunt ({terragrunt})"
        ));
    }
    let dirs: Vec<&str> = files
        .dirs()
        .filter(|dir| !is_skipped(dir) && files.files_in(dir).iter().any(|n| is_module_file(n)))
        .collect();
    let parsed: BTreeMap<&str, Vec<ModuleFile>> = dirs
        .iter()
        .map(|dir| (*dir, read_module_files(files, source, dir)))
        .collect();
    let mut called: BTreeMap<String, String> = BTreeMap::new();
    for (dir, module_files) in &parsed {
        for file in module_files {
            for source in &file.local_sources {
                if let Some(target) = join(dir, source) {
                    called.entry(target).or_insert_with(|| (*dir).to_owned());
                }
            }
        }
    }
    Ok(dirs
        .iter()
        .map(|dir| {
            let verdict = judge(files, source, dir, &parsed[dir], declared, &called);
            ((*dir).to_owned(), verdict)
        })
        .collect())
}

fn judge(
    files: &RepoFiles,
    source: &impl FileSource,
    dir: &str,
    module_files: &[ModuleFile],
    declared: &BTreeSet<String>,
    called: &BTreeMap<String, String>,
) -> Verdict {
    use Verdict::LeftOut;
    if declared.contains(dir) {
        return Verdict::Declared;
    }
    if let Some(caller) = called.get(dir) {
        return LeftOut(format!("called as a local module from {caller}"));
    }
    if dir.split('/').any(|part| part == "modules") {
        return LeftOut("it lies under a directory named modules".to_owned());
    }
    if let Some(unreadable) = module_files.iter().find(|f| f.unreadable) {
        return LeftOut(format!("{} could not be read", unreadable.name));
    }
    let Some(backend) = module_files.iter().find_map(|f| f.backend.clone()) else {
        return LeftOut("it has no backend or cloud block".to_owned());
    };
    if module_files.iter().any(|f| f.reads_workspace) {
        return LeftOut("it reads its workspace, so it is deployed in more than one".to_owned());
    }
    if let Some(chooser) = choosing_file(files, dir) {
        return LeftOut(format!(
            "{chooser} suggests it is deployed with a choice of settings"
        ));
    }
    let names = files.files_in(dir);
    let has_tofu_files = names
        .iter()
        .any(|n| n.ends_with(".tofu") || n.ends_with(".tofu.json"));
    let lock = locked_registries(files, source, dir);
    let says_tofu = has_tofu_files || lock.contains(&Tool::OpenTofu);
    let says_terraform = lock.contains(&Tool::Terraform);
    match (says_tofu, says_terraform) {
        (true, false) => {
            let why = if has_tofu_files {
                ".tofu files"
            } else {
                "its lock file names the OpenTofu registry"
            };
            Verdict::Found {
                tool: Tool::OpenTofu,
                evidence: format!("{backend}; {why}"),
            }
        }
        (false, true) => Verdict::Found {
            tool: Tool::Terraform,
            evidence: format!("{backend}; its lock file names the Terraform registry"),
        },
        (true, true) => LeftOut("its files name both OpenTofu and Terraform".to_owned()),
        (false, false) => {
            LeftOut("nothing names its tool (no .terraform.lock.hcl, no .tofu files)".to_owned())
        }
    }
}

/// A `*.tfvars` (other than the automatic ones) or `*.tfbackend` in the directory, or in
/// a subdirectory that holds only such files.
fn choosing_file(files: &RepoFiles, dir: &str) -> Option<String> {
    let is_chooser = |name: &str| {
        (name.ends_with(".tfvars") && name != "terraform.tfvars" && !name.ends_with(".auto.tfvars"))
            || name.ends_with(".tfbackend")
    };
    if let Some(name) = files.files_in(dir).iter().find(|n| is_chooser(n)) {
        return Some(name.clone());
    }
    let prefix = if dir == "." {
        String::new()
    } else {
        format!("{dir}/")
    };
    files
        .dirs()
        .filter(|sub| sub.starts_with(&prefix) && *sub != dir && !sub[prefix.len()..].contains('/'))
        .find(|sub| {
            let names = files.files_in(sub);
            !names.is_empty() && names.iter().all(|n| is_chooser(n))
        })
        .map(|sub| format!("{sub}/"))
}

/// The tools whose registries a directory's `.terraform.lock.hcl` names.
fn locked_registries(files: &RepoFiles, source: &impl FileSource, dir: &str) -> BTreeSet<Tool> {
    let lock = child(dir, ".terraform.lock.hcl");
    let Some(body) = files
        .contains(&lock)
        .then(|| source.read_text(&lock))
        .flatten()
        .and_then(|t| hcl::parse(&t).ok())
    else {
        return BTreeSet::new();
    };
    body.blocks()
        .filter(|b| b.identifier() == "provider")
        .filter_map(|b| b.labels().first())
        .filter_map(|label| match label.as_str().split('/').next() {
            Some("registry.opentofu.org") => Some(Tool::OpenTofu),
            Some("registry.terraform.io") => Some(Tool::Terraform),
            _ => None,
        })
        .collect()
}

/// What the rules need from one module file.
#[derive(Debug, Default)]
struct ModuleFile {
    name: String,
    /// `backend "s3"` or `cloud`, in words, when the file has one in its `terraform` block.
    backend: Option<String>,
    reads_workspace: bool,
    /// `source` of `module` blocks that point into the repository (`./x`, `../x`).
    local_sources: Vec<String>,
    unreadable: bool,
}

fn read_module_files(files: &RepoFiles, source: &impl FileSource, dir: &str) -> Vec<ModuleFile> {
    files
        .files_in(dir)
        .iter()
        .filter(|n| is_module_file(n))
        .map(|name| {
            let path = child(dir, name);
            let text = source.read_text(&path);
            let mut file = match text {
                Some(text) if name.ends_with(".json") => read_json(&text),
                Some(text) => read_hcl(&text),
                None => None,
            }
            .unwrap_or(ModuleFile {
                unreadable: true,
                ..ModuleFile::default()
            });
            file.name = path;
            file
        })
        .collect()
}

/// A `required_version` a root module's `terraform` block sets: where, and the
/// constraint as written (`~> 1.7`). Read from the files alone, so that a runner's tool
/// that does not meet it fails the stack with a reason that names both (issue 44), and
/// `check` can say so before any run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequiredVersion {
    pub file: String,
    /// 1-based; the line of the attribute.
    pub line: usize,
    pub constraint: String,
}

/// Every `required_version` in the module files of `dir` (each must hold), in file order.
/// A file that cannot be read as HCL sets none here; the tool itself says what is wrong.
pub fn required_versions(
    files: &RepoFiles,
    source: &impl FileSource,
    dir: &str,
) -> Vec<RequiredVersion> {
    let mut found = Vec::new();
    for name in files
        .files_in(dir)
        .iter()
        .filter(|n| is_module_file(n) && !n.ends_with(".json"))
    {
        let path = child(dir, name);
        let Some(text) = source.read_text(&path) else {
            continue;
        };
        let Ok(body) = hcl::parse(&text) else {
            continue;
        };
        for block in body.blocks().filter(|b| b.identifier() == "terraform") {
            for attribute in block
                .body()
                .attributes()
                .filter(|a| a.key() == "required_version")
            {
                let hcl::Expression::String(constraint) = attribute.expr() else {
                    continue;
                };
                // The first line that sets it at or after the `terraform` block's
                // opening (perhaps on that line); the block's line when none reads so.
                let lines: Vec<&str> = text.lines().collect();
                let opens = lines
                    .iter()
                    .position(|l| {
                        l.trim_start()
                            .strip_prefix("terraform")
                            .is_some_and(|rest| rest.trim_start().starts_with('{'))
                    })
                    .unwrap_or(0);
                let line = lines[opens..]
                    .iter()
                    .position(|l| {
                        l.split("required_version")
                            .skip(1)
                            .any(|rest| rest.trim_start().starts_with('='))
                    })
                    .map_or(opens + 1, |index| opens + index + 1);
                found.push(RequiredVersion {
                    file: path.clone(),
                    line,
                    constraint: constraint.clone(),
                });
            }
        }
    }
    found
}

fn is_local_source(source: &str) -> bool {
    source.starts_with("./") || source.starts_with("../")
}

fn read_hcl(text: &str) -> Option<ModuleFile> {
    let body: Body = hcl::parse(text).ok()?;
    let mut file = ModuleFile::default();
    for block in body.blocks() {
        match block.identifier() {
            "terraform" => {
                for inner in block.body().blocks() {
                    match inner.identifier() {
                        "backend" => {
                            let kind = inner
                                .labels()
                                .first()
                                .map(|l| l.as_str().to_owned())
                                .unwrap_or_default();
                            file.backend = Some(format!("backend \"{kind}\""));
                        }
                        "cloud" => {
                            file.backend = Some("a cloud block".to_owned());
                            let by_tags = inner.body().blocks().any(|w| {
                                w.identifier() == "workspaces"
                                    && w.body().attributes().any(|a| a.key() == "tags")
                            });
                            file.reads_workspace |= by_tags;
                        }
                        _ => {}
                    }
                }
            }
            "module" => {
                let local = block
                    .body()
                    .attributes()
                    .find(|a| a.key() == "source")
                    .and_then(|a| match a.expr() {
                        hcl::Expression::String(s) if is_local_source(s) => Some(s.clone()),
                        _ => None,
                    });
                file.local_sources.extend(local);
            }
            _ => {}
        }
    }
    // Comments are gone once the body is written back, so a commented-out reference does not count.
    let code = hcl::format::to_string(&body).ok()?;
    file.reads_workspace |= code.contains("terraform.workspace") || code.contains("tofu.workspace");
    Some(file)
}

fn read_json(text: &str) -> Option<ModuleFile> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    let mut file = ModuleFile::default();
    let blocks = |v: &serde_json::Value| -> Vec<serde_json::Value> {
        match v {
            serde_json::Value::Array(items) => items.clone(),
            other => vec![other.clone()],
        }
    };
    if let Some(terraform) = value.get("terraform") {
        for block in blocks(terraform) {
            if let Some(backend) = block
                .get("backend")
                .and_then(|b| b.as_object())
                .and_then(|b| b.keys().next().cloned())
            {
                file.backend = Some(format!("backend \"{backend}\""));
            }
            if let Some(cloud) = block.get("cloud") {
                file.backend = Some("a cloud block".to_owned());
                file.reads_workspace |= cloud.pointer("/workspaces/tags").is_some();
            }
        }
    }
    if let Some(serde_json::Value::Object(modules)) = value.get("module") {
        for module in modules.values().flat_map(blocks) {
            if let Some(source) = module
                .get("source")
                .and_then(|s| s.as_str())
                .filter(|s| is_local_source(s))
            {
                file.local_sources.push(source.to_owned());
            }
        }
    }
    file.reads_workspace |= text.contains("terraform.workspace") || text.contains("tofu.workspace");
    Some(file)
}

/// The local module sources (`./x`, `../x`) the module files of `dir` name, each with
/// the file that names it.
pub(crate) fn local_module_sources(
    files: &RepoFiles,
    source: &impl FileSource,
    dir: &str,
) -> Vec<(String, String)> {
    read_module_files(files, source, dir)
        .into_iter()
        .flat_map(|file| {
            file.local_sources
                .into_iter()
                .map(move |s| (file.name.clone(), s))
        })
        .collect()
}

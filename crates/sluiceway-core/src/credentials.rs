//! Which credentials each stack's tool needs, from its files alone (decision 0099), and
//! which of them a workflow job gives it. Credentials are the hardest part of a first
//! setup; the check names them so a team sees the gap before the first scan fails.
//!
//! Only names are read: a provider's source, a backend's kind, whether a Pulumi stack
//! file has an encryption salt, and in a workflow the names its `env:` blocks set and the
//! login actions it uses. Never a value. One fixed table maps what a file asks for to
//! the variables (or login action) that satisfy it; what the table does not know is said.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::repo::{FileSource, RepoFiles};
use crate::stack::{Stack, Tool};

/// One thing a stack's tool needs to be given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Need {
    /// What asks for it, in words: `the hashicorp/aws provider`.
    pub what: String,
    /// The file that says so.
    pub file: String,
    pub give: Give,
}

/// How a job can give it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Give {
    /// Any one of these sets of variables, or one of these login actions.
    Variables {
        sets: &'static [&'static [&'static str]],
        logins: &'static [&'static str],
    },
    /// The fixed table has no row for it.
    Unknown,
}

impl Give {
    /// `AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or the
    /// aws-actions/configure-aws-credentials step`.
    pub fn words(&self) -> String {
        match self {
            Give::Unknown => "credentials the check has no table for".to_owned(),
            Give::Variables { sets, logins } => {
                let mut ways: Vec<String> = sets.iter().map(|set| set.join(" and ")).collect();
                ways.extend(logins.iter().map(|l| format!("the {l} step")));
                match ways.split_last() {
                    Some((last, [])) => last.clone(),
                    Some((last, first)) => format!("{}, or {last}", first.join(", ")),
                    None => String::new(),
                }
            }
        }
    }
}

const AWS: Give = Give::Variables {
    sets: &[
        &["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"],
        &["AWS_PROFILE"],
    ],
    logins: &["aws-actions/configure-aws-credentials"],
};
const GOOGLE: Give = Give::Variables {
    sets: &[&["GOOGLE_CREDENTIALS"], &["GOOGLE_APPLICATION_CREDENTIALS"]],
    logins: &["google-github-actions/auth"],
};
const AZURE: Give = Give::Variables {
    sets: &[&["ARM_CLIENT_ID", "ARM_TENANT_ID", "ARM_SUBSCRIPTION_ID"]],
    logins: &["azure/login"],
};
const CLUSTER: Give = Give::Variables {
    sets: &[&["KUBECONFIG"]],
    logins: &[
        "azure/aks-set-context",
        "google-github-actions/get-gke-credentials",
        "aws-actions/amazon-eks-kubeconfig",
    ],
};
const PULUMI_CLOUD: Give = Give::Variables {
    sets: &[&["PULUMI_ACCESS_TOKEN"]],
    logins: &["pulumi/auth-actions"],
};
const PASSPHRASE: Give = Give::Variables {
    sets: &[
        &["PULUMI_CONFIG_PASSPHRASE"],
        &["PULUMI_CONFIG_PASSPHRASE_FILE"],
    ],
    logins: &[],
};
const TERRAFORM_CLOUD: Give = Give::Variables {
    sets: &[&["TF_TOKEN_app_terraform_io"]],
    logins: &[],
};
const CLOUDFLARE: Give = Give::Variables {
    sets: &[&["CLOUDFLARE_API_TOKEN"]],
    logins: &[],
};
const GITHUB: Give = Give::Variables {
    sets: &[&["GITHUB_TOKEN"]],
    logins: &[],
};
const NOTHING: Give = Give::Variables {
    sets: &[],
    logins: &[],
};

/// A provider's short name (`aws` of `hashicorp/aws`, of Pulumi's `aws:s3:Bucket`).
fn provider(name: &str) -> Give {
    match name {
        "aws" => AWS,
        "google" | "google-beta" | "gcp" => GOOGLE,
        "azurerm" | "azuread" | "azure" | "azure-native" => AZURE,
        "kubernetes" | "helm" => CLUSTER,
        "cloudflare" => CLOUDFLARE,
        "github" => GITHUB,
        // Providers that reach nothing outside the runner.
        "random" | "null" | "local" | "tls" | "time" | "archive" | "external" | "terraform"
        | "command" | "pulumi" => NOTHING,
        _ => Give::Unknown,
    }
}

/// What every stack needs, by stack, in stack order; needs nothing is given for are left
/// out (a provider that reaches nothing).
pub fn needs(
    stacks: &[Stack],
    files: &RepoFiles,
    source: &impl FileSource,
) -> Vec<(String, Vec<Need>)> {
    stacks
        .iter()
        .map(|stack| {
            let mut found = match stack.tool {
                Tool::OpenTofu | Tool::Terraform => root_module(&stack.path, files, source),
                Tool::Pulumi => pulumi(stack, files, source),
                Tool::Helm | Tool::Kubectl => vec![Need {
                    what: "access to the cluster".to_owned(),
                    file: stack.path.clone(),
                    give: CLUSTER,
                }],
            };
            found.retain(|n| n.give != NOTHING);
            found.dedup_by(|a, b| a.what == b.what);
            (stack.id.to_string(), found)
        })
        .collect()
}

fn root_module(dir: &str, files: &RepoFiles, source: &impl FileSource) -> Vec<Need> {
    let mut needs = Vec::new();
    let mut seen = BTreeSet::new();
    for name in files.files_in(dir) {
        if !(name.ends_with(".tf") || name.ends_with(".tofu") || name == ".terraform.lock.hcl") {
            continue;
        }
        let path = if dir == "." {
            name.clone()
        } else {
            format!("{dir}/{name}")
        };
        let Some(text) = source.read_text(&path) else {
            continue;
        };
        for line in text.lines().map(str::trim) {
            // `source = "hashicorp/aws"` in required_providers; `provider "registry…/hashicorp/aws"` in the lock file.
            let named = line
                .match_indices("source")
                .find_map(|(at, _)| quoted_after(&line[at..], "source"))
                .filter(|s| is_provider_source(s))
                .or_else(|| quoted_after(line, "provider").filter(|s| s.contains('/')));
            if let Some(full) = named {
                let parts: Vec<&str> = full.split('/').collect();
                let short = parts.last().copied().unwrap_or_default();
                let source_name = parts[parts.len().saturating_sub(2)..].join("/");
                if seen.insert(short.to_owned()) {
                    needs.push(Need {
                        what: format!("the {source_name} provider"),
                        file: path.clone(),
                        give: provider(short),
                    });
                }
            }
            // `provider "aws" {`: a provider block with no source named above.
            if let Some(short) = quoted_after(line, "provider")
                .filter(|name| !name.contains('/') && line.ends_with('{'))
                && seen.insert(short.clone())
            {
                needs.push(Need {
                    what: format!("the {short} provider"),
                    file: path.clone(),
                    give: provider(&short),
                });
            }
            if let Some(kind) = quoted_after(line, "backend") {
                let give = match kind.as_str() {
                    "s3" => AWS,
                    "gcs" => GOOGLE,
                    "azurerm" => AZURE,
                    "remote" => TERRAFORM_CLOUD,
                    "local" => NOTHING,
                    "kubernetes" => CLUSTER,
                    _ => Give::Unknown,
                };
                needs.push(Need {
                    what: format!("the {kind} backend"),
                    file: path.clone(),
                    give,
                });
            }
            if line.starts_with("cloud {") || line == "cloud{" {
                needs.push(Need {
                    what: "HCP Terraform (the cloud block)".to_owned(),
                    file: path.clone(),
                    give: TERRAFORM_CLOUD,
                });
            }
        }
    }
    needs
}

/// `hashicorp/aws` or `registry.opentofu.org/hashicorp/aws`; not a module's source
/// (`./x`, `git::…`, `terraform-aws-modules/vpc/aws`).
fn is_provider_source(source: &str) -> bool {
    let parts: Vec<&str> = source.split('/').collect();
    let plain = |p: &&str| {
        !p.is_empty()
            && p.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    match parts.as_slice() {
        [_, _] => parts.iter().all(plain),
        [host, rest @ ..] if rest.len() == 2 => {
            host.contains('.') && !host.starts_with('.') && rest.iter().all(plain)
        }
        _ => false,
    }
}

/// `word "text"` at the start of a line, or `word = "text"`: the text.
fn quoted_after(line: &str, word: &str) -> Option<String> {
    let rest = line.strip_prefix(word)?.trim_start();
    let rest = rest.strip_prefix('=').map_or(rest, str::trim_start);
    let rest = rest.strip_prefix('"')?;
    let end = rest.find('"')?;
    Some(rest[..end].to_owned())
}

fn pulumi(stack: &Stack, files: &RepoFiles, source: &impl FileSource) -> Vec<Need> {
    let mut needs = Vec::new();
    let project = ["Pulumi.yaml", "Pulumi.yml"]
        .iter()
        .map(|name| join(&stack.path, name))
        .find(|path| files.contains(path));
    let Some(project_file) = project else {
        return needs;
    };
    let project: Value = source
        .read_text(&project_file)
        .and_then(|text| crate::config::Document::parse(&text).ok())
        .map(|d| d.value)
        .unwrap_or_default();
    let backend = project
        .pointer("/backend/url")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let (what, give) = match backend.split_once("://").map(|(scheme, _)| scheme) {
        None | Some("https") => ("Pulumi Cloud (the default backend)", PULUMI_CLOUD),
        Some("s3") => ("the s3:// backend", AWS),
        Some("gs") => ("the gs:// backend", GOOGLE),
        Some("azblob") => ("the azblob:// backend", AZURE),
        Some("file") => ("a file:// backend", NOTHING),
        Some(_) => ("the backend", Give::Unknown),
    };
    needs.push(Need {
        what: what.to_owned(),
        file: project_file.clone(),
        give,
    });
    if let Some(name) = &stack.name {
        let stack_file = join(&stack.path, &format!("Pulumi.{name}.yaml"));
        let salted = source.read_text(&stack_file).is_some_and(|text| {
            text.lines()
                .any(|l| l.trim_start().starts_with("encryptionsalt:"))
        });
        if salted {
            needs.push(Need {
                what: "the stack's passphrase secrets provider".to_owned(),
                file: stack_file,
                give: PASSPHRASE,
            });
        }
    }
    let mut seen = BTreeSet::new();
    if let Some(resources) = project.get("resources").and_then(Value::as_object) {
        for resource in resources.values() {
            let Some(kind) = resource.get("type").and_then(Value::as_str) else {
                continue;
            };
            let short = kind.split(':').next().unwrap_or_default();
            if seen.insert(short.to_owned()) {
                needs.push(Need {
                    what: format!("the {short} provider"),
                    file: project_file.clone(),
                    give: provider(short),
                });
            }
        }
    }
    needs
}

fn join(dir: &str, name: &str) -> String {
    if dir == "." {
        name.to_owned()
    } else {
        format!("{dir}/{name}")
    }
}

/// What one workflow job gives its steps: the names its `env:` blocks set (workflow, job
/// and step), the actions it uses, and whether a step may load more (it writes
/// `$GITHUB_ENV`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Given {
    pub names: BTreeSet<String>,
    pub actions: BTreeSet<String>,
    pub may_load_more: bool,
}

impl Given {
    /// From a workflow's parsed text and one of its jobs.
    pub fn of_job(workflow: &Value, job: &str) -> Given {
        let mut given = Given::default();
        let take_env = |env: Option<&Value>, given: &mut Given| {
            if let Some(map) = env.and_then(Value::as_object) {
                given.names.extend(map.keys().cloned());
            }
        };
        take_env(workflow.get("env"), &mut given);
        let job = &workflow["jobs"][job];
        take_env(job.get("env"), &mut given);
        for step in job
            .get("steps")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            take_env(step.get("env"), &mut given);
            if let Some(uses) = step.get("uses").and_then(Value::as_str) {
                given
                    .actions
                    .insert(uses.split('@').next().unwrap_or(uses).to_ascii_lowercase());
            }
            if step
                .get("run")
                .and_then(Value::as_str)
                .is_some_and(|run| run.contains("GITHUB_ENV"))
            {
                given.may_load_more = true;
            }
        }
        given
    }

    /// Whether the job gives what `give` asks for.
    pub fn gives(&self, give: &Give) -> bool {
        match give {
            Give::Unknown => false,
            Give::Variables { sets, logins } => {
                sets.iter()
                    .any(|set| set.iter().all(|n| self.names.contains(*n)))
                    || logins.iter().any(|l| self.actions.contains(*l))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    struct Files(BTreeMap<&'static str, &'static str>);

    impl FileSource for Files {
        fn read_text(&self, path: &str) -> Option<String> {
            self.0.get(path).map(|t| (*t).to_owned())
        }
    }

    #[test]
    fn a_root_module_needs_its_providers_and_its_backend() {
        let files = Files(BTreeMap::from([
            (
                "network/versions.tf",
                "terraform {\n  backend \"s3\" {\n    bucket = \"state\"\n  }\n  required_providers {\n    aws = {\n      source = \"hashicorp/aws\"\n    }\n    random = { source = \"hashicorp/random\" }\n    acme = { source = \"vancluever/acme\" }\n  }\n}\n",
            ),
            (
                "network/.terraform.lock.hcl",
                "provider \"registry.opentofu.org/hashicorp/aws\" {\n  version = \"5.0.0\"\n}\n",
            ),
        ]));
        let repo = RepoFiles::new(files.0.keys().map(|k| (*k).to_owned()));
        let needs = root_module("network", &repo, &files);
        let said: Vec<String> = needs
            .iter()
            .filter(|n| n.give != NOTHING)
            .map(|n| format!("{} ({}): {}", n.what, n.file, n.give.words()))
            .collect();
        assert_eq!(
            said,
            [
                "the hashicorp/aws provider (network/.terraform.lock.hcl): AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or the aws-actions/configure-aws-credentials step",
                "the s3 backend (network/versions.tf): AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or the aws-actions/configure-aws-credentials step",
                "the vancluever/acme provider (network/versions.tf): credentials the check has no table for",
            ]
        );
    }

    #[test]
    fn no_value_of_a_file_reaches_what_the_check_says() {
        let files = Files(BTreeMap::from([
            (
                "net/main.tf",
                "variable \"token\" {\n  default = \"CANARY-SECRET\"\n}\nterraform {\n  backend \"s3\" {\n    access_key = \"CANARY-SECRET\"\n  }\n}\nprovider \"aws\" {\n  secret_key = \"CANARY-SECRET\"\n}\n",
            ),
            (
                "app/Pulumi.yaml",
                "name: app\nruntime: yaml\nconfig:\n  token:\n    default: CANARY-SECRET\nresources:\n  b:\n    type: aws:s3:Bucket\n    properties:\n      name: CANARY-SECRET\n",
            ),
            (
                "app/Pulumi.dev.yaml",
                "encryptionsalt: CANARY-SECRET\nconfig:\n  app:token:\n    secure: CANARY-SECRET\n",
            ),
        ]));
        let repo = RepoFiles::new(files.0.keys().map(|k| (*k).to_owned()));
        let stack = |path: &str, name: Option<&str>, tool| Stack {
            id: crate::stack::StackId::derive(path, name),
            path: path.to_owned(),
            name: name.map(str::to_owned),
            tool,
            options: crate::stack::ToolOptions::Pulumi,
            origin: crate::stack::Origin::Declared(0),
            settings: Default::default(),
        };
        let found = needs(
            &[
                stack("net", None, Tool::OpenTofu),
                stack("app", Some("dev"), Tool::Pulumi),
            ],
            &repo,
            &files,
        );
        let said = format!("{found:?}");
        assert!(!said.contains("CANARY"), "{said}");
        assert!(
            said.contains("the s3 backend")
                && said.contains("passphrase")
                && said.contains("the aws provider"),
            "{said}"
        );
    }

    #[test]
    fn a_modules_source_is_no_provider() {
        assert!(is_provider_source("hashicorp/aws"));
        assert!(is_provider_source("registry.opentofu.org/hashicorp/aws"));
        for module in [
            "./modules/vpc",
            "terraform-aws-modules/vpc/aws",
            "git::https://x/y.git",
            "../up",
        ] {
            assert!(!is_provider_source(module), "{module}");
        }
    }

    #[test]
    fn a_job_gives_names_and_logins_and_may_load_more() {
        let workflow: Value = serde_json::json!({
            "env": { "AWS_PROFILE": "x" },
            "jobs": { "deploy": {
                "env": { "KUBECONFIG": "/k" },
                "steps": [
                    { "uses": "azure/login@v2" },
                    { "run": "echo \"A=b\" >> \"$GITHUB_ENV\"" },
                ]
            }}
        });
        let given = Given::of_job(&workflow, "deploy");
        assert!(given.gives(&AWS) && given.gives(&CLUSTER) && given.gives(&AZURE));
        assert!(!given.gives(&GOOGLE) && !given.gives(&Give::Unknown));
        assert!(given.may_load_more);
    }
}

//! What a job installs before Sluiceway can preview the stacks init found (decision
//! 0065): the tools themselves, and what the stacks' programs need beside them. A CDKTF
//! app or a Pulumi program in JavaScript needs Node and its packages, installed once per
//! lockfile; a Pulumi program in another language needs `pulumi install`; a local Helm
//! chart's dependencies need their repositories added. Read from the files alone, and
//! written out as the workflow's setup steps; what the files cannot say is an unknown.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use saphyr::{LoadableYamlNode, Yaml};

use crate::config::Wrapper;
use crate::repo::{FileSource, RepoFiles, child, split};
use crate::stack::{Chart, Stack, Tool, ToolOptions};

/// The CDKTF command line's version the workflow installs (the one our recordings use).
pub const CDKTF_CLI_VERSION: &str = "0.21.0";

/// Everything the setup steps install.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Toolchain {
    pub tools: BTreeSet<Tool>,
    /// Node, when a program needs it.
    pub node: Option<Node>,
    /// A CDKTF app is among the stacks: its command line is installed with npm.
    pub cdktf: bool,
    /// Pulumi project directories whose runtime's packages `pulumi install` installs.
    pub pulumi_installs: Vec<String>,
    /// `(name, url)` of each chart repository a local chart's dependencies name.
    pub helm_repositories: Vec<(String, String)>,
    /// What the files could not say, for init's list.
    pub unknowns: Vec<String>,
}

/// Node's version and the packages to install.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// `.nvmrc` or `.node-version`, when the repository has one; else the current LTS.
    pub version_file: Option<String>,
    /// One install per lockfile directory, in path order.
    pub installs: Vec<Install>,
}

/// The packages of one lockfile's directory.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Install {
    pub dir: String,
    pub manager: Manager,
}

/// The package manager a lockfile belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Manager {
    Npm,
    Pnpm,
    /// Yarn 1, without `.yarnrc.yml`.
    YarnClassic,
    /// Yarn 2 and later (`.yarnrc.yml` beside the lockfile), through corepack.
    YarnBerry,
    Bun,
}

impl Manager {
    /// The lockfiles, in the order one is looked for in a directory.
    const LOCKFILES: [(&'static str, Manager); 5] = [
        ("package-lock.json", Manager::Npm),
        ("pnpm-lock.yaml", Manager::Pnpm),
        ("yarn.lock", Manager::YarnClassic),
        ("bun.lock", Manager::Bun),
        ("bun.lockb", Manager::Bun),
    ];

    /// The command that installs exactly what the lockfile holds.
    fn install(self) -> &'static str {
        match self {
            Manager::Npm => "npm ci",
            Manager::Pnpm => "pnpm install --frozen-lockfile",
            Manager::YarnClassic => "yarn install --frozen-lockfile",
            Manager::YarnBerry => "yarn install --immutable",
            Manager::Bun => "bun install --frozen-lockfile",
        }
    }

    /// pnpm and Yarn 2 come through corepack, which Node carries.
    fn needs_corepack(self) -> bool {
        matches!(self, Manager::Pnpm | Manager::YarnBerry)
    }
}

impl Toolchain {
    /// What the stacks need, from the repository's files.
    pub fn read(stacks: &[Stack], files: &RepoFiles, source: &impl FileSource) -> Toolchain {
        let mut chain = Toolchain {
            tools: stacks.iter().map(|s| s.tool).collect(),
            ..Toolchain::default()
        };
        let mut node_dirs: BTreeSet<&str> = BTreeSet::new();
        let mut pulumi_installs: BTreeSet<String> = BTreeSet::new();
        let mut repositories: BTreeSet<(String, String)> = BTreeSet::new();
        for stack in stacks {
            match &stack.options {
                ToolOptions::RootModule {
                    wrapper: Some(Wrapper::Cdktf),
                    ..
                } => {
                    chain.cdktf = true;
                    node_dirs.insert(&stack.path);
                }
                ToolOptions::Pulumi => match pulumi_runtime(&stack.path, source).as_deref() {
                    Some("nodejs") => {
                        node_dirs.insert(&stack.path);
                    }
                    Some("yaml") | None => {}
                    Some(_) => {
                        pulumi_installs.insert(stack.path.clone());
                    }
                },
                ToolOptions::Helm {
                    chart: Chart::Local(chart),
                    ..
                } => {
                    let dir = normalise(&child(&stack.path, chart));
                    repositories.extend(chart_repositories(&dir, source));
                }
                _ => {}
            }
        }
        if !node_dirs.is_empty() {
            let mut installs = BTreeSet::new();
            for dir in &node_dirs {
                match lockfile_at_or_above(dir, files) {
                    Some(install) => {
                        installs.insert(install);
                    }
                    None => chain.unknowns.push(format!(
                        "{dir}: a Node program without a lockfile, so the workflow installs none of its packages; commit one"
                    )),
                }
            }
            if installs.iter().any(|i| i.manager == Manager::Pnpm) {
                chain.unknowns.push(
                    "pnpm: corepack gives the version package.json's `packageManager` names; without one, it picks its own".to_owned(),
                );
            }
            chain.node = Some(Node {
                version_file: node_dirs
                    .iter()
                    .find_map(|dir| version_file_at_or_above(dir, files)),
                installs: installs.into_iter().collect(),
            });
        }
        chain.pulumi_installs = pulumi_installs.into_iter().collect();
        // ADR 0046: no loader is written for a secret manager's references; the file is
        // named, with what to do, since its values reach the tool as written.
        let env_files: BTreeSet<&str> = stacks
            .iter()
            .filter_map(|s| s.settings.env_file.as_ref())
            .map(|f| f.path.as_str())
            .collect();
        for file in env_files {
            let references = source
                .read_text(file)
                .and_then(|text| crate::env_file::parse(file, &text).ok())
                .is_some_and(|vars| vars.iter().any(|v| v.value.starts_with("op://")));
            if references {
                chain.unknowns.push(format!(
                    "{file}: its values are 1Password references (op://…), which reach the tool as written; resolve them before the Sluiceway step (for example `op inject`, with a service account token the job loads)"
                ));
            }
        }
        // One name per address: the first, in name order, of the dependencies using it.
        let mut seen = BTreeSet::new();
        chain.helm_repositories = repositories
            .into_iter()
            .filter(|(_, url)| seen.insert(url.clone()))
            .collect();
        chain
    }

    /// The workflow's setup steps, in the order the tools need each other: Node and the
    /// packages, Pulumi, OpenTofu or Terraform (then the CDKTF command line), Helm with
    /// its repositories, kubectl.
    pub fn steps(&self) -> String {
        let mut steps = String::new();
        if let Some(node) = &self.node {
            match &node.version_file {
                Some(file) => writeln!(
                    steps,
                    "      - uses: actions/setup-node@v4\n        with:\n          node-version-file: {file}"
                ),
                None => writeln!(
                    steps,
                    "      - uses: actions/setup-node@v4\n        with:\n          node-version: lts/*"
                ),
            }
            .ok();
            if node.installs.iter().any(|i| i.manager.needs_corepack()) {
                steps.push_str("      - run: corepack enable\n");
            }
            if node.installs.iter().any(|i| i.manager == Manager::Bun) {
                steps.push_str("      - uses: oven-sh/setup-bun@v2\n");
            }
            for install in &node.installs {
                writeln!(steps, "      - run: {}", install.manager.install()).ok();
                if install.dir != "." {
                    writeln!(steps, "        working-directory: {}", install.dir).ok();
                }
            }
        }
        for tool in &self.tools {
            steps.push_str(tool_step(*tool));
            match tool {
                Tool::Pulumi => {
                    for dir in &self.pulumi_installs {
                        writeln!(
                            steps,
                            "      - run: pulumi install\n        working-directory: {dir}"
                        )
                        .ok();
                    }
                }
                Tool::Helm => {
                    for (name, url) in &self.helm_repositories {
                        writeln!(steps, "      - run: helm repo add {name} {url}").ok();
                    }
                }
                // After the tool it synthesizes for; one of them, once.
                Tool::OpenTofu | Tool::Terraform if self.cdktf && !steps.contains("cdktf-cli@") => {
                    writeln!(
                        steps,
                        "      - run: npm install --global cdktf-cli@{CDKTF_CLI_VERSION}"
                    )
                    .ok();
                }
                _ => {}
            }
        }
        steps
    }
}

/// The setup step of one tool, at the oldest version this release supports.
fn tool_step(tool: Tool) -> &'static str {
    match tool {
        Tool::Pulumi => {
            "      - uses: pulumi/actions@v6\n        with:\n          pulumi-version: 3.229.0\n"
        }
        Tool::OpenTofu => {
            "      - uses: opentofu/setup-opentofu@v1\n        with:\n          tofu_version: 1.11.0\n          tofu_wrapper: false\n"
        }
        Tool::Terraform => {
            "      - uses: hashicorp/setup-terraform@v3\n        with:\n          terraform_version: 1.14.0\n          terraform_wrapper: false\n"
        }
        Tool::Helm => {
            "      - uses: azure/setup-helm@v4\n        with:\n          version: v3.18.0\n"
        }
        Tool::Kubectl => {
            "      - uses: azure/setup-kubectl@v4\n        with:\n          version: v1.34.0\n"
        }
    }
}

/// The `runtime` of the Pulumi project in `dir`: a name, or a mapping's `name`.
fn pulumi_runtime(dir: &str, source: &impl FileSource) -> Option<String> {
    ["Pulumi.yaml", "Pulumi.yml"].iter().find_map(|name| {
        let text = source.read_text(&child(dir, name))?;
        let project = Yaml::load_from_str(&text).ok()?.into_iter().next()?;
        let runtime = project.as_mapping_get("runtime")?;
        runtime
            .as_str()
            .or_else(|| runtime.as_mapping_get("name").and_then(Yaml::as_str))
            .map(str::to_owned)
    })
}

/// The `http(s)://` repositories of a chart's `dependencies`, named as each dependency.
fn chart_repositories(chart_dir: &str, source: &impl FileSource) -> Vec<(String, String)> {
    let Some(chart) = source
        .read_text(&child(chart_dir, "Chart.yaml"))
        .and_then(|t| Yaml::load_from_str(&t).ok())
        .and_then(|d| d.into_iter().next())
    else {
        return Vec::new();
    };
    let Some(dependencies) = chart
        .as_mapping_get("dependencies")
        .and_then(Yaml::as_sequence)
    else {
        return Vec::new();
    };
    dependencies
        .iter()
        .filter_map(|d| {
            let name = d.as_mapping_get("name").and_then(Yaml::as_str)?;
            let url = d.as_mapping_get("repository").and_then(Yaml::as_str)?;
            let safe = !name.is_empty()
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
                && !url.contains(char::is_whitespace);
            ((url.starts_with("https://") || url.starts_with("http://")) && safe)
                .then(|| (name.to_owned(), url.to_owned()))
        })
        .collect()
}

/// The nearest lockfile in `dir` or a directory above it.
fn lockfile_at_or_above(dir: &str, files: &RepoFiles) -> Option<Install> {
    at_or_above(dir).find_map(|d| {
        Manager::LOCKFILES.iter().find_map(|(name, manager)| {
            files.contains(&child(d, name)).then(|| Install {
                dir: d.to_owned(),
                manager: match manager {
                    Manager::YarnClassic if files.contains(&child(d, ".yarnrc.yml")) => {
                        Manager::YarnBerry
                    }
                    other => *other,
                },
            })
        })
    })
}

/// The nearest `.nvmrc` or `.node-version` in `dir` or above it.
fn version_file_at_or_above(dir: &str, files: &RepoFiles) -> Option<String> {
    at_or_above(dir).find_map(|d| {
        [".nvmrc", ".node-version"]
            .iter()
            .map(|name| child(d, name))
            .find(|path| files.contains(path))
    })
}

/// `dir`, its parent, and so on up to the root (`.`).
fn at_or_above(dir: &str) -> impl Iterator<Item = &str> {
    std::iter::successors(Some(dir), |d| (*d != ".").then(|| split(d).0))
}

/// `a/./b/../c` as `a/c`; a path that climbs out of the root stays as it is.
fn normalise(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "." | "" => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config;
    use crate::discovery::discover;
    use crate::repo::MemoryRepo;

    fn toolchain(repo: &MemoryRepo, config_text: &str) -> Toolchain {
        let config = config::load("sluiceway.yaml", config_text).unwrap();
        let files = repo.files();
        let discovery = discover(&config, &files, repo).unwrap();
        Toolchain::read(&discovery.stacks, &files, repo)
    }

    /// A monorepo of each kind of program: a CDKTF app and a Pulumi program in
    /// TypeScript under one npm workspace, a Pulumi program in Python, one in YAML, and
    /// a chart whose dependencies come from a repository and from a folder.
    fn monorepo() -> MemoryRepo {
        MemoryRepo::default()
            .with(".nvmrc", "22\n")
            .with("package-lock.json", "{}")
            .with("apps/cdk/cdktf.json", r#"{"app": "npx ts-node main.ts"}"#)
            .with("apps/cdk/main.ts", "")
            .with("apps/web/Pulumi.yaml", "name: web\nruntime:\n  name: nodejs\n")
            .with("apps/web/Pulumi.prod.yaml", "")
            .with("apps/data/Pulumi.yaml", "name: data\nruntime: python\n")
            .with("apps/data/Pulumi.prod.yaml", "")
            .with("apps/data/requirements.txt", "")
            .with("apps/data/prod.env", "AWS_REGION=eu-west-1\n")
            .with("apps/site/Pulumi.yaml", "name: site\nruntime: yaml\n")
            .with("apps/site/Pulumi.prod.yaml", "")
            .with(
                "charts/shop/Chart.yaml",
                "apiVersion: v2\nname: shop\nversion: 1.0.0\ndependencies:\n  - name: redis\n    version: 19.0.0\n    repository: https://charts.example.com/bitnami\n  - name: cache\n    version: 19.0.0\n    repository: https://charts.example.com/bitnami\n  - name: local\n    version: 0.1.0\n    repository: file://../local\n  - name: oci\n    version: 1.0.0\n    repository: oci://registry.example.com/charts\n",
            )
    }

    const CONFIG: &str = "stacks:\n  - path: apps/cdk\n    name: cdk\n    tool: opentofu\n    options:\n      wrapper: cdktf\n  - path: charts/shop\n    tool: helm\n    options:\n      release: shop\n      namespace: shop\n      chart: .\n";

    #[test]
    fn each_program_gets_what_it_needs_before_its_preview() {
        let config = format!("{CONFIG}  - path: apps/data\n    envFile: apps/data/prod.env\n");
        let chain = toolchain(&monorepo(), &config);
        assert!(chain.unknowns.is_empty(), "{:?}", chain.unknowns);
        insta::assert_snapshot!("toolchain-monorepo", chain.steps());
    }

    #[test]
    fn the_nearest_lockfile_and_version_file_count_and_a_program_without_one_is_named() {
        let repo = MemoryRepo::default()
            .with("apps/web/Pulumi.yaml", "name: web\nruntime: nodejs\n")
            .with("apps/web/Pulumi.prod.yaml", "")
            .with("apps/web/.node-version", "20\n")
            .with("apps/web/pnpm-lock.yaml", "")
            .with("apps/api/Pulumi.yaml", "name: api\nruntime: nodejs\n")
            .with("apps/api/Pulumi.prod.yaml", "")
            .with("apps/api/yarn.lock", "")
            .with("apps/api/.yarnrc.yml", "")
            .with("apps/bare/Pulumi.yaml", "name: bare\nruntime: nodejs\n")
            .with("apps/bare/Pulumi.prod.yaml", "");
        let chain = toolchain(&repo, "stacks: []\n");
        let node = chain.node.clone().unwrap();
        assert_eq!(node.version_file.as_deref(), Some("apps/web/.node-version"));
        assert_eq!(
            node.installs,
            [
                Install {
                    dir: "apps/api".into(),
                    manager: Manager::YarnBerry
                },
                Install {
                    dir: "apps/web".into(),
                    manager: Manager::Pnpm
                },
            ]
        );
        assert_eq!(chain.unknowns.len(), 2, "{:?}", chain.unknowns);
        assert!(chain.unknowns[0].starts_with("apps/bare: a Node program without a lockfile"));
        assert!(chain.unknowns[1].starts_with("pnpm:"));
        let steps = chain.steps();
        assert!(
            steps.contains("      - run: corepack enable\n      - run: yarn install --immutable\n        working-directory: apps/api\n      - run: pnpm install --frozen-lockfile\n        working-directory: apps/web\n"),
            "{steps}"
        );
    }

    #[test]
    fn stacks_that_need_nothing_beside_their_tool_get_only_its_step() {
        let repo = MemoryRepo::default()
            .with("net/main.tf", "resource \"terraform_data\" \"a\" {}\n")
            .with("apps/site/Pulumi.yaml", "name: site\nruntime: yaml\n")
            .with("apps/site/Pulumi.prod.yaml", "");
        let chain = toolchain(&repo, "stacks:\n  - path: net\n    tool: opentofu\n");
        assert_eq!(chain.node, None);
        assert!(!chain.cdktf && chain.pulumi_installs.is_empty());
        assert_eq!(
            chain.steps(),
            format!("{}{}", tool_step(Tool::Pulumi), tool_step(Tool::OpenTofu))
        );
    }

    #[test]
    fn an_env_file_of_1password_references_is_named_and_given_no_loader() {
        let repo = monorepo().with(
            "apps/data/prod.env",
            "AWS_REGION=eu-west-1\nAWS_SECRET_ACCESS_KEY=op://infra/aws/secret\n",
        );
        let config = format!("{CONFIG}  - path: apps/data\n    envFile: apps/data/prod.env\n");
        let chain = toolchain(&repo, &config);
        assert_eq!(
            chain.unknowns,
            [
                "apps/data/prod.env: its values are 1Password references (op://…), which reach the tool as written; resolve them before the Sluiceway step (for example `op inject`, with a service account token the job loads)"
            ]
        );
        assert_eq!(chain.steps(), toolchain(&monorepo(), CONFIG).steps());
    }

    #[test]
    fn paths_climb_and_stay_in_the_repository() {
        assert_eq!(normalise("charts/shop/."), "charts/shop");
        assert_eq!(normalise("apps/x/../../charts/shop"), "charts/shop");
        assert_eq!(normalise("./."), ".");
        assert_eq!(at_or_above("a/b").collect::<Vec<_>>(), ["a/b", "a", "."]);
        assert_eq!(at_or_above(".").collect::<Vec<_>>(), ["."]);
    }
}

//! Recording scenarios, defined in code as ordered steps.
//!
//! Each scenario runs on a fresh copy of the example project and records only the
//! commands whose output is the fixture; everything else (edits, deploys to set the stage)
//! is a step that is run and not saved.

mod cdktf;
mod helm;
mod pulumi;

use std::collections::BTreeMap;

use sluiceway_tools::kubectl::inventory::Listing;
use sluiceway_tools::recording::StdoutFormat;

pub use cdktf::cdktf_scenarios;
pub use helm::helm_scenarios;
pub use pulumi::pulumi_scenarios;

/// The exit code a recorded command must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Zero,
    Nonzero,
}

/// What a recording must show to be kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expect {
    pub exit: Exit,
    /// Ops the tool's output must hold (read coarsely: one per object).
    pub ops: Vec<&'static str>,
}

/// A command whose output is saved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub id: &'static str,
    /// Relative to the project; `.` for its root.
    pub cwd: &'static str,
    /// With `{plan}` and `{prune}` for the plan and prune files.
    pub argv: Vec<String>,
    pub format: StdoutFormat,
    /// Variables this step adds to the recorder's environment.
    pub env: BTreeMap<String, String>,
    pub expect: Expect,
    /// Its stdout becomes the plan file (a rendered kustomization).
    pub stdout_to_plan: bool,
    /// Decision 0090: a diff is taken again while it raced a write.
    pub race_checked: bool,
}

/// One step of a scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Replaces text that must occur exactly once in a project file.
    Edit {
        file: &'static str,
        from: &'static str,
        to: &'static str,
    },
    Write {
        file: &'static str,
        text: &'static str,
    },
    Remove {
        file: &'static str,
    },
    /// Writes a plain directory's rendered set into the plan file, as the adapter does;
    /// with `inventory`, appends the inventory listing the set's objects and `also`.
    Bundle {
        stack: &'static str,
        recursive: bool,
        inventory: Option<Vec<Listing>>,
    },
    /// Writes the prune file: stubs for these objects.
    PruneFile {
        listings: Vec<Listing>,
    },
    /// Runs a command that must succeed; its output is not saved.
    Setup {
        cwd: &'static str,
        argv: Vec<String>,
        /// Variables this step adds to the recorder's environment.
        env: BTreeMap<String, String>,
        stdout_to_plan: bool,
    },
    /// Starts a command that keeps running until the scenario ends, and waits until it
    /// has made `until` (a project file): e.g. a deploy that holds a state lock.
    Hold {
        cwd: &'static str,
        argv: Vec<String>,
        env: BTreeMap<String, String>,
        until: &'static str,
    },
    Record(Record),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scenario {
    pub name: &'static str,
    pub description: &'static str,
    /// The file `{plan}` stands for, in the scenario's plan directory.
    pub plan_file: &'static str,
    pub steps: Vec<Step>,
}

impl Scenario {
    pub fn records(&self) -> impl Iterator<Item = &Record> {
        self.steps.iter().filter_map(|s| match s {
            Step::Record(r) => Some(r),
            _ => None,
        })
    }
}

/// The namespace every scenario works in, made afresh for each.
pub const NAMESPACE: &str = "sluiceway-fixtures";
const NS_FLAG: &str = "--namespace=sluiceway-fixtures";
const EXTERNAL_DIFF: &str = sluiceway_tools::kubernetes::EXTERNAL_DIFF;
/// The field manager of the drift scenarios.
const MANAGER_FLAG: &str = "--field-manager=sluiceway-web";

fn kubectl(args: &[&str]) -> Vec<String> {
    std::iter::once("kubectl")
        .chain(args.iter().copied())
        .map(str::to_owned)
        .collect()
}

pub(crate) fn setup(cwd: &'static str, args: &[&str]) -> Step {
    Step::Setup {
        cwd,
        argv: kubectl(args),
        env: BTreeMap::new(),
        stdout_to_plan: false,
    }
}

pub(crate) fn expect(exit: Exit, ops: &[&'static str]) -> Expect {
    Expect {
        exit,
        ops: ops.to_vec(),
    }
}

/// A `kubectl diff --server-side` of the plan: a preview (or, with
/// `--show-managed-fields`, a drift check) with the whole-object diff program, or the
/// tool diff with the machine's own.
fn diff(
    id: &'static str,
    stack: &'static str,
    flags: &[&str],
    whole: bool,
    expect: Expect,
) -> Step {
    let mut args = vec!["diff", "--server-side", NS_FLAG];
    args.extend_from_slice(flags);
    args.extend_from_slice(&["-f", "{plan}"]);
    let env = if whole {
        BTreeMap::from([(
            sluiceway_tools::kubernetes::EXTERNAL_DIFF_VAR.to_owned(),
            EXTERNAL_DIFF.to_owned(),
        )])
    } else {
        BTreeMap::new()
    };
    Step::Record(Record {
        id,
        cwd: stack,
        argv: kubectl(&args),
        format: if whole {
            StdoutFormat::Diff
        } else {
            StdoutFormat::Text
        },
        env,
        expect,
        stdout_to_plan: false,
        race_checked: true,
    })
}

fn preview(id: &'static str, stack: &'static str, expect: Expect) -> Step {
    diff(id, stack, &[], true, expect)
}

fn record(
    id: &'static str,
    cwd: &'static str,
    args: &[&str],
    format: StdoutFormat,
    expect: Expect,
) -> Record {
    Record {
        id,
        cwd,
        argv: kubectl(args),
        format,
        env: BTreeMap::new(),
        expect,
        stdout_to_plan: false,
        race_checked: false,
    }
}

impl From<Record> for Step {
    fn from(record: Record) -> Step {
        Step::Record(record)
    }
}

pub(crate) fn fresh_namespace() -> Vec<Step> {
    vec![
        setup(
            ".",
            &[
                "delete",
                "namespace",
                NAMESPACE,
                "--ignore-not-found",
                "--wait=true",
            ],
        ),
        setup(".", &["create", "namespace", NAMESPACE]),
    ]
}

fn bundle_web() -> Step {
    Step::Bundle {
        stack: "web",
        recursive: false,
        inventory: None,
    }
}

fn apply(stack: &'static str, flags: &[&str]) -> Step {
    let mut args = vec!["apply", "--server-side", NS_FLAG];
    args.extend_from_slice(flags);
    args.extend_from_slice(&["-f", "{plan}"]);
    setup(stack, &args)
}

/// The namespace made, and web deployed as the adapter would deploy it.
fn web_deployed(flags: &[&str]) -> Vec<Step> {
    [fresh_namespace(), vec![bundle_web(), apply("web", flags)]].concat()
}

fn render_cache() -> Step {
    Step::Setup {
        cwd: "cache",
        argv: kubectl(&["kustomize", "."]),
        env: BTreeMap::new(),
        stdout_to_plan: true,
    }
}

/// `kubectl kustomize` of `cache`, kept in the recording, its output the set later previews read.
fn recorded_kustomize(id: &'static str) -> Step {
    Record {
        stdout_to_plan: true,
        ..record(
            id,
            "cache",
            &["kustomize", "."],
            StdoutFormat::Text,
            expect(Exit::Zero, &[]),
        )
    }
    .into()
}

fn web_settings() -> Listing {
    Listing {
        api_version: "v1".into(),
        kind: "ConfigMap".into(),
        namespace: None,
        name: "web-settings".into(),
    }
}

/// The inventory's name for the stack `web` outside a repository.
fn inventory_name() -> String {
    sluiceway_tools::kubectl::inventory::name(
        "",
        &sluiceway_core::stack::StackId::derive("web", None),
    )
}

fn inventory_read(id: &'static str) -> Step {
    let name = inventory_name();
    let args = [
        "get",
        "configmap",
        name.as_str(),
        NS_FLAG,
        "--ignore-not-found",
        "--output=json",
    ];
    record(
        id,
        "web",
        &args,
        StdoutFormat::Text,
        expect(Exit::Zero, &[]),
    )
    .into()
}

fn live_read(id: &'static str) -> Step {
    let args = [
        "get",
        NS_FLAG,
        "--ignore-not-found",
        "--show-managed-fields",
        "--output=json",
        "-f",
        "{prune}",
    ];
    record(
        id,
        "web",
        &args,
        StdoutFormat::Text,
        expect(Exit::Zero, &[]),
    )
    .into()
}

fn bundle_with_inventory(also: Vec<Listing>) -> Step {
    Step::Bundle {
        stack: "web",
        recursive: false,
        inventory: Some(also),
    }
}

/// Every kubectl scenario, in the order they are recorded.
pub fn kubectl_scenarios() -> Vec<Scenario> {
    use Exit::*;
    let s = |name, description, steps: Vec<Vec<Step>>| Scenario {
        name,
        description,
        plan_file: sluiceway_tools::kubernetes::rendered_set::SET_FILE,
        steps: steps.concat(),
    };
    vec![
        s(
            "version",
            "kubectl version --client, which the version check reads, and the versions of client and server against the control plane, which say what the recordings were made against.",
            vec![vec![
                record(
                    "version",
                    ".",
                    &["version", "--client", "--output=json"],
                    StdoutFormat::Json,
                    expect(Zero, &[]),
                )
                .into(),
                record(
                    "server-version",
                    ".",
                    &["version", "--output=json"],
                    StdoutFormat::Json,
                    expect(Zero, &[]),
                )
                .into(),
            ]],
        ),
        s(
            "new-stack",
            "Both stacks before their first deploy, in an empty namespace: every object is a create.",
            vec![
                fresh_namespace(),
                vec![
                    bundle_web(),
                    preview("diff", "web", expect(Nonzero, &["create"])),
                    recorded_kustomize("kustomize-cache"),
                    preview("diff-cache", "cache", expect(Nonzero, &["create"])),
                ],
            ],
        ),
        s(
            "no-changes",
            "web deployed, and nothing changed.",
            vec![
                web_deployed(&[]),
                vec![preview("diff", "web", expect(Zero, &[]))],
            ],
        ),
        s(
            "update",
            "A new value in the ConfigMap, more replicas, a new image, and a new port in the JSON Service.",
            vec![
                web_deployed(&[]),
                vec![
                    Step::Edit {
                        file: "web/configmap.yaml",
                        from: "GREETING: CANARY-VALUE",
                        to: "GREETING: CANARY-VALUE, hello",
                    },
                    Step::Edit {
                        file: "web/deployment.yaml",
                        from: "replicas: 2",
                        to: "replicas: 3",
                    },
                    Step::Edit {
                        file: "web/deployment.yaml",
                        from: "image: nginx:1.27",
                        to: "image: nginx:1.28",
                    },
                    Step::Edit {
                        file: "web/service.json",
                        from: "\"targetPort\": 80",
                        to: "\"targetPort\": 8080",
                    },
                    bundle_web(),
                    preview("diff", "web", expect(Nonzero, &["update"])),
                ],
            ],
        ),
        s(
            "kustomize-update",
            "cache, a kustomization, with more replicas.",
            vec![
                fresh_namespace(),
                vec![
                    render_cache(),
                    apply("cache", &[]),
                    Step::Edit {
                        file: "cache/deployment.yaml",
                        from: "replicas: 1",
                        to: "replicas: 3",
                    },
                    recorded_kustomize("kustomize"),
                    preview("diff", "cache", expect(Nonzero, &["update"])),
                ],
            ],
        ),
        s(
            "changed-secret",
            "The Secret's token rotated: kubectl masks both sides.",
            vec![
                web_deployed(&[]),
                vec![
                    Step::Edit {
                        file: "web/secret.yaml",
                        from: "API_TOKEN: CANARY-SECRET",
                        to: "API_TOKEN: CANARY-SECRET-ROTATED",
                    },
                    bundle_web(),
                    preview("diff", "web", expect(Nonzero, &["update"])),
                ],
            ],
        ),
        s(
            "mixed",
            "A new ConfigMap next to an update of the Deployment.",
            vec![
                web_deployed(&[]),
                vec![
                    Step::Write {
                        file: "web/extra.yaml",
                        text: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-extra\ndata:\n  MOTD: CANARY-VALUE\n",
                    },
                    Step::Edit {
                        file: "web/deployment.yaml",
                        from: "replicas: 2",
                        to: "replicas: 3",
                    },
                    bundle_web(),
                    preview("diff", "web", expect(Nonzero, &["create", "update"])),
                ],
            ],
        ),
        s(
            "removed-object",
            "The ConfigMap taken out of the manifests: without pruning kubectl leaves it, and the diff is empty.",
            vec![
                web_deployed(&[]),
                vec![
                    Step::Remove {
                        file: "web/configmap.yaml",
                    },
                    bundle_web(),
                    preview("diff", "web", expect(Zero, &[])),
                ],
            ],
        ),
        s(
            "immutable-field",
            "A new selector of the Deployment, which the API server refuses to change.",
            vec![
                web_deployed(&[]),
                vec![
                    Step::Edit {
                        file: "web/deployment.yaml",
                        from: "  selector:\n    matchLabels:\n      app.kubernetes.io/name: web\n",
                        to: "  selector:\n    matchLabels:\n      app.kubernetes.io/name: web\n      tier: front\n",
                    },
                    Step::Edit {
                        file: "web/deployment.yaml",
                        from: "    metadata:\n      labels:\n        app.kubernetes.io/name: web\n",
                        to: "    metadata:\n      labels:\n        app.kubernetes.io/name: web\n        tier: front\n",
                    },
                    bundle_web(),
                    preview("diff", "web", expect(Nonzero, &[])),
                ],
            ],
        ),
        s(
            "conflict",
            "Another field manager took the Deployment's replicas: the server-side dry run meets the conflict the deploy would meet.",
            vec![
                web_deployed(&[]),
                vec![
                    Step::Write {
                        file: "other-team.yaml",
                        text: "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n",
                    },
                    setup(
                        ".",
                        &[
                            "apply",
                            "--server-side",
                            NS_FLAG,
                            "--field-manager=other-team",
                            "--force-conflicts",
                            "-f",
                            "other-team.yaml",
                        ],
                    ),
                    bundle_web(),
                    preview("diff", "web", expect(Nonzero, &[])),
                ],
            ],
        ),
        s(
            "invalid-manifest",
            "A manifest of a kind the cluster does not know.",
            vec![
                web_deployed(&[]),
                vec![
                    Step::Write {
                        file: "web/unknown.yaml",
                        text: "apiVersion: v1\nkind: NoSuchKind\nmetadata:\n  name: nothing\n",
                    },
                    bundle_web(),
                    preview("diff", "web", expect(Nonzero, &[])),
                ],
            ],
        ),
        s(
            "kustomize-error",
            "A kustomization that names a file that is not there: kustomize fails.",
            vec![vec![
                Step::Edit {
                    file: "cache/kustomization.yaml",
                    from: "  - service.yaml\n",
                    to: "  - service.yaml\n  - not-written-yet.yaml\n",
                },
                record(
                    "kustomize",
                    "cache",
                    &["kustomize", "."],
                    StdoutFormat::Text,
                    expect(Nonzero, &[]),
                )
                .into(),
            ]],
        ),
        s(
            "missing-namespace",
            "web's namespace does not exist: the server-side dry run cannot place the objects.",
            vec![vec![
                setup(
                    ".",
                    &[
                        "delete",
                        "namespace",
                        NAMESPACE,
                        "--ignore-not-found",
                        "--wait=true",
                    ],
                ),
                bundle_web(),
                preview("diff", "web", expect(Nonzero, &[])),
            ]],
        ),
        s(
            "same-diff-twice",
            "The same preview of an update twice, to see that the output holds still.",
            vec![
                web_deployed(&[]),
                vec![
                    Step::Edit {
                        file: "web/configmap.yaml",
                        from: "LOG_LEVEL: info",
                        to: "LOG_LEVEL: debug",
                    },
                    Step::Edit {
                        file: "web/deployment.yaml",
                        from: "replicas: 2",
                        to: "replicas: 3",
                    },
                    bundle_web(),
                    preview("diff", "web", expect(Nonzero, &["update"])),
                    preview("diff-again", "web", expect(Nonzero, &["update"])),
                ],
            ],
        ),
        s(
            "deploy",
            "web deployed from the rendered set its preview diffed, the way a deploy does it.",
            vec![
                fresh_namespace(),
                vec![
                    bundle_web(),
                    preview("diff", "web", expect(Nonzero, &["create"])),
                    record(
                        "apply",
                        "web",
                        &["apply", "--server-side", NS_FLAG, "-f", "{plan}"],
                        StdoutFormat::Text,
                        expect(Zero, &[]),
                    )
                    .into(),
                ],
            ],
        ),
        s(
            "deploy-failed",
            "A preview that works, then the namespace goes before the deploy: the deploy fails.",
            vec![
                fresh_namespace(),
                vec![
                    bundle_web(),
                    preview("diff", "web", expect(Nonzero, &["create"])),
                    setup(".", &["delete", "namespace", NAMESPACE, "--wait=true"]),
                    record(
                        "apply",
                        "web",
                        &["apply", "--server-side", NS_FLAG, "-f", "{plan}"],
                        StdoutFormat::Text,
                        expect(Nonzero, &[]),
                    )
                    .into(),
                ],
            ],
        ),
        s(
            "log-diff-changed-secret",
            "The tool's own diff of a rotated Secret and a new ConfigMap value, for the job log.",
            vec![
                web_deployed(&[]),
                vec![
                    Step::Edit {
                        file: "web/secret.yaml",
                        from: "API_TOKEN: CANARY-SECRET",
                        to: "API_TOKEN: CANARY-SECRET-ROTATED",
                    },
                    Step::Edit {
                        file: "web/configmap.yaml",
                        from: "GREETING: CANARY-VALUE",
                        to: "GREETING: CANARY-VALUE, hello",
                    },
                    bundle_web(),
                    diff("tool-diff", "web", &[], false, expect(Nonzero, &[])),
                ],
            ],
        ),
        s(
            "prune-first",
            "web with pruning before its first deploy: no inventory yet, and every object and the inventory are creates.",
            vec![
                fresh_namespace(),
                vec![
                    inventory_read("inventory"),
                    bundle_with_inventory(vec![]),
                    preview("diff", "web", expect(Nonzero, &["create"])),
                ],
            ],
        ),
        s(
            "prune",
            "web deployed with pruning, then its ConfigMap taken out of the manifests: the preview finds it through the inventory, the deploy deletes it, and the preview after lists it no more.",
            vec![
                fresh_namespace(),
                vec![
                    bundle_with_inventory(vec![]),
                    apply("web", &[]),
                    Step::Remove {
                        file: "web/configmap.yaml",
                    },
                    inventory_read("inventory"),
                    Step::PruneFile {
                        listings: vec![web_settings()],
                    },
                    live_read("live"),
                    Step::PruneFile {
                        listings: vec![Listing {
                            namespace: Some(NAMESPACE.into()),
                            ..web_settings()
                        }],
                    },
                    bundle_with_inventory(vec![web_settings()]),
                    preview("diff", "web", expect(Zero, &[])),
                    record(
                        "apply",
                        "web",
                        &["apply", "--server-side", NS_FLAG, "-f", "{plan}"],
                        StdoutFormat::Text,
                        expect(Zero, &[]),
                    )
                    .into(),
                    record(
                        "delete",
                        "web",
                        &["delete", NS_FLAG, "--ignore-not-found", "-f", "{prune}"],
                        StdoutFormat::Text,
                        expect(Zero, &[]),
                    )
                    .into(),
                    inventory_read("inventory-after"),
                    Step::PruneFile {
                        listings: vec![web_settings()],
                    },
                    live_read("live-after"),
                    bundle_with_inventory(vec![]),
                    preview("diff-after", "web", expect(Nonzero, &["update"])),
                ],
            ],
        ),
        s(
            "drift-deleted",
            "web deployed with pruning, then its ConfigMap deleted by hand: the preview shows a create, and the drift check knows the stack deployed it.",
            vec![
                fresh_namespace(),
                vec![
                    bundle_with_inventory(vec![]),
                    apply("web", &[]),
                    setup(
                        "web",
                        &[
                            "delete",
                            "configmap",
                            "web-settings",
                            NS_FLAG,
                            "--wait=true",
                        ],
                    ),
                    inventory_read("inventory"),
                    preview("diff", "web", expect(Nonzero, &["create"])),
                    inventory_read("inventory-drift"),
                    diff(
                        "drift",
                        "web",
                        &["--show-managed-fields"],
                        true,
                        expect(Nonzero, &["create"]),
                    ),
                ],
            ],
        ),
        s(
            "drift-changed",
            "web deployed with its own field manager, then scaled and patched by hand: with forceConflicts the preview takes both back, and the drift check names them.",
            vec![
                web_deployed(&["--force-conflicts", MANAGER_FLAG]),
                vec![
                    setup(
                        "web",
                        &["scale", "deployment", "web", NS_FLAG, "--replicas=3"],
                    ),
                    setup(
                        "web",
                        &[
                            "patch",
                            "configmap",
                            "web-settings",
                            NS_FLAG,
                            "--type=merge",
                            "--patch={\"data\":{\"LOG_LEVEL\":\"debug\"}}",
                        ],
                    ),
                    diff(
                        "diff",
                        "web",
                        &["--force-conflicts", MANAGER_FLAG],
                        true,
                        expect(Nonzero, &["update"]),
                    ),
                    diff(
                        "drift",
                        "web",
                        &["--force-conflicts", MANAGER_FLAG, "--show-managed-fields"],
                        true,
                        expect(Nonzero, &["update"]),
                    ),
                    record(
                        "apply",
                        "web",
                        &[
                            "apply",
                            "--server-side",
                            NS_FLAG,
                            "--force-conflicts",
                            MANAGER_FLAG,
                            "-f",
                            "{plan}",
                        ],
                        StdoutFormat::Text,
                        expect(Zero, &[]),
                    )
                    .into(),
                    diff(
                        "diff-after",
                        "web",
                        &["--force-conflicts", MANAGER_FLAG],
                        true,
                        expect(Zero, &[]),
                    ),
                ],
            ],
        ),
        s(
            "drift-conflict",
            "web deployed, then scaled by hand: without forceConflicts the preview meets the conflict, as a deploy would.",
            vec![
                web_deployed(&[]),
                vec![
                    setup(
                        "web",
                        &["scale", "deployment", "web", NS_FLAG, "--replicas=3"],
                    ),
                    preview("diff", "web", expect(Nonzero, &[])),
                ],
            ],
        ),
        s(
            "recursive",
            "web with recursive and a manifest in a subdirectory: the set holds it, as kubectl -R reads it.",
            vec![
                fresh_namespace(),
                vec![
                    Step::Write {
                        file: "web/more/extra.yaml",
                        text: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-more\ndata:\n  MOTD: CANARY-VALUE\n",
                    },
                    Step::Bundle {
                        stack: "web",
                        recursive: true,
                        inventory: None,
                    },
                    preview("diff", "web", expect(Nonzero, &["create"])),
                ],
            ],
        ),
    ]
}

/// The OpenTofu and Terraform scenarios for `binary` (`tofu` or `terraform`), on
/// `examples/tofu-lab`: `lab` in the workspace `dev` unless a scenario says otherwise.
/// `forget` needs a `removed` block, which OpenTofu has only from 1.7: it is recorded
/// for Terraform alone. `.tofu` files (the `dns` stack) need OpenTofu 1.8, newer than the
/// one the registries here serve, so no scenario records them.
pub fn opentofu_scenarios(binary: &'static str) -> Vec<Scenario> {
    use Exit::*;
    let tool = |args: &[&str]| -> Vec<String> {
        std::iter::once(binary)
            .chain(args.iter().copied())
            .map(str::to_owned)
            .collect()
    };
    let workspace = |name: &str| BTreeMap::from([("TF_WORKSPACE".to_owned(), name.to_owned())]);
    let dev = || workspace("dev");
    let init = |cwd: &'static str| Step::Setup {
        cwd,
        argv: tool(&["init", "-input=false", "-no-color"]),
        env: BTreeMap::new(),
        stdout_to_plan: false,
    };
    let deployed = |env: BTreeMap<String, String>, var_file: &str| Step::Setup {
        cwd: "lab",
        argv: tool(&[
            "apply",
            "-input=false",
            "-no-color",
            "-auto-approve",
            &format!("-var-file={var_file}"),
        ]),
        env,
        stdout_to_plan: false,
    };
    let record = |id: &'static str,
                  cwd: &'static str,
                  argv: Vec<String>,
                  format: StdoutFormat,
                  env: BTreeMap<String, String>,
                  expect: Expect| {
        Step::Record(Record {
            id,
            cwd,
            argv,
            format,
            env,
            expect,
            stdout_to_plan: false,
            race_checked: false,
        })
    };
    let plan_in = |id: &'static str,
                   cwd: &'static str,
                   env: BTreeMap<String, String>,
                   var_file: Option<&str>,
                   exit: Exit| {
        let mut argv = tool(&[
            "plan",
            "-input=false",
            "-no-color",
            "-refresh=false",
            "-json",
            "-out={plan}",
        ]);
        argv.extend(var_file.map(|f| format!("-var-file={f}")));
        record(id, cwd, argv, StdoutFormat::Text, env, expect(exit, &[]))
    };
    let plan = |id: &'static str, exit: Exit| plan_in(id, "lab", dev(), Some("dev.tfvars"), exit);
    let show_in = |id: &'static str,
                   cwd: &'static str,
                   env: BTreeMap<String, String>,
                   ops: &[&'static str]| {
        record(
            id,
            cwd,
            tool(&["show", "-json", "-no-color", "{plan}"]),
            StdoutFormat::Json,
            env,
            expect(Zero, ops),
        )
    };
    let show = |id: &'static str, ops: &[&'static str]| show_in(id, "lab", dev(), ops);
    let apply = |exit: Exit| {
        record(
            "apply",
            "lab",
            tool(&["apply", "-input=false", "-no-color", "-json", "{plan}"]),
            StdoutFormat::Text,
            dev(),
            expect(exit, &[]),
        )
    };
    let edit = |from, to| Step::Edit {
        file: "lab/main.tf",
        from,
        to,
    };
    let s = |name, description, steps: Vec<Step>| Scenario {
        name,
        description,
        plan_file: sluiceway_tools::opentofu::PLAN_FILE,
        steps,
    };
    let mut scenarios = vec![
        s(
            "version",
            "The version check's command.",
            vec![record(
                "version",
                ".",
                tool(&["version", "-json"]),
                StdoutFormat::Json,
                BTreeMap::new(),
                expect(Zero, &[]),
            )],
        ),
        s(
            "new-stack",
            "lab:dev before its first deploy: init, then a plan of all creates in the workspace dev.",
            vec![
                Step::Record(Record {
                    id: "init",
                    cwd: "lab",
                    argv: tool(&["init", "-input=false", "-no-color"]),
                    format: StdoutFormat::Text,
                    env: BTreeMap::new(),
                    expect: expect(Zero, &[]),
                    stdout_to_plan: false,
                    race_checked: false,
                }),
                plan("plan", Zero),
                show("show", &["create"]),
            ],
        ),
        s(
            "no-changes",
            "lab:dev, deployed, and nothing changed.",
            vec![
                init("lab"),
                deployed(dev(), "dev.tfvars"),
                plan("plan", Zero),
                show("show", &[]),
            ],
        ),
        s(
            "update",
            "A new greeting in terraform_data's input, which changes it in place.",
            vec![
                init("lab"),
                deployed(dev(), "dev.tfvars"),
                edit("  default = \"hello\"", "  default = \"hello again\""),
                plan("plan", Zero),
                show("show", &["update"]),
            ],
        ),
        s(
            "replace",
            "New notes, a replacing trigger of terraform_data: a new one replaces it.",
            vec![
                init("lab"),
                deployed(dev(), "dev.tfvars"),
                edit(
                    "  default = \"first notes\"",
                    "  default = \"second notes\"",
                ),
                plan("plan", Zero),
                show("show", &["delete,create"]),
            ],
        ),
        s(
            "delete",
            "The trigger taken out of the code.",
            vec![
                init("lab"),
                deployed(dev(), "dev.tfvars"),
                edit(
                    "resource \"terraform_data\" \"trigger\" {\n  triggers_replace = {\n    secret = var.secret\n  }\n}\n",
                    "",
                ),
                plan("plan", Zero),
                show("show", &["delete"]),
            ],
        ),
        s(
            "mixed",
            "An update, a replace, a delete and a create in one plan.",
            vec![
                init("lab"),
                deployed(dev(), "dev.tfvars"),
                edit("  default = \"hello\"", "  default = \"hello again\""),
                edit(
                    "  default = \"first notes\"",
                    "  default = \"second notes\"",
                ),
                edit(
                    "resource \"terraform_data\" \"trigger\" {\n  triggers_replace = {\n    secret = var.secret\n  }\n}\n",
                    "resource \"terraform_data\" \"extra\" {\n  input = \"more\"\n}\n",
                ),
                plan("plan", Zero),
                show("show", &["update", "delete,create", "delete", "create"]),
            ],
        ),
        s(
            "move",
            "terraform_data.name renamed with a moved block.",
            vec![
                init("lab"),
                deployed(dev(), "dev.tfvars"),
                edit(
                    "resource \"terraform_data\" \"name\" {",
                    "moved {\n  from = terraform_data.name\n  to   = terraform_data.pet\n}\n\nresource \"terraform_data\" \"pet\" {",
                ),
                edit(
                    "  value = terraform_data.name.output",
                    "  value = terraform_data.pet.output",
                ),
                plan("plan", Zero),
                show("show", &["move"]),
            ],
        ),
        s(
            "import",
            "An import block for a terraform_data the code then tracks.",
            vec![
                init("lab"),
                deployed(dev(), "dev.tfvars"),
                Step::Write {
                    file: "lab/imported.tf",
                    text: "import {\n  to = terraform_data.imported\n  id = \"9f0a1c2e-0000-4000-8000-000000000001\"\n}\n\nresource \"terraform_data\" \"imported\" {\n}\n",
                },
                plan("plan", Zero),
                show("show", &["import"]),
            ],
        ),
        s(
            "changed-secret",
            "The sensitive variable rotated: an update and a replace at sensitive paths.",
            vec![
                init("lab"),
                deployed(dev(), "dev.tfvars"),
                edit(
                    "  default   = \"CANARY-SECRET\"",
                    "  default   = \"CANARY-SECRET-ROTATED\"",
                ),
                plan("plan", Zero),
                show("show", &["update", "delete,create"]),
            ],
        ),
        s(
            "outputs-only",
            "A new root output and no resource change.",
            vec![
                init("lab"),
                deployed(dev(), "dev.tfvars"),
                Step::Write {
                    file: "lab/outputs.tf",
                    text: "output \"greeting\" {\n  value = var.motd\n}\n",
                },
                plan("plan", Zero),
                show("show", &[]),
            ],
        ),
        s(
            "other-workspace",
            "lab:prod, the same root module in the workspace prod with its own var file.",
            vec![
                init("lab"),
                plan_in("plan", "lab", workspace("prod"), Some("prod.tfvars"), Zero),
                show_in("show", "lab", workspace("prod"), &["create"]),
            ],
        ),
        s(
            "missing-variable",
            "The var file of lab:dev without the variable env: the plan cannot ask for it and fails.",
            vec![
                init("lab"),
                Step::Write {
                    file: "lab/dev.tfvars",
                    text: "# env is missing\n",
                },
                plan("plan", Nonzero),
            ],
        ),
        s(
            "program-error",
            "A resource block that is never closed: the plan fails with diagnostics in its JSON log.",
            vec![
                init("lab"),
                Step::Write {
                    file: "lab/broken.tf",
                    text: "resource \"terraform_data\" \"broken\" {\n  input = \"never closed\"\n",
                },
                plan("plan", Nonzero),
            ],
        ),
        s(
            "init-failed",
            "A backend type that does not exist: init fails, so no stack of the directory can be previewed.",
            vec![
                edit("  backend \"local\" {}", "  backend \"nosuchbackend\" {}"),
                Step::Record(Record {
                    id: "init",
                    cwd: "lab",
                    argv: tool(&["init", "-input=false", "-no-color"]),
                    format: StdoutFormat::Text,
                    env: BTreeMap::new(),
                    expect: expect(Nonzero, &[]),
                    stdout_to_plan: false,
                    race_checked: false,
                }),
            ],
        ),
        s(
            "same-plan-twice",
            "The same plan of lab:dev twice, to see that the order of resource_changes holds.",
            vec![
                init("lab"),
                plan("plan", Zero),
                show("show", &["create"]),
                plan("plan-again", Zero),
                show("show-again", &["create"]),
            ],
        ),
        s(
            "stale-plan",
            "A saved plan, then another deploy changes the state, then the saved plan is applied: the tool refuses it as stale.",
            vec![
                init("lab"),
                deployed(dev(), "dev.tfvars"),
                edit("  default = \"hello\"", "  default = \"hello again\""),
                plan("plan", Zero),
                show("show", &["update"]),
                deployed(dev(), "dev.tfvars"),
                apply(Nonzero),
            ],
        ),
        s(
            "deploy",
            "lab:dev deployed from the plan file of its own plan, the way a deploy does it.",
            vec![
                init("lab"),
                plan("plan", Zero),
                show("show", &["create"]),
                apply(Zero),
            ],
        ),
        s(
            "deploy-failed",
            "A plan that works and a deploy that fails: a provisioner of a new resource exits with 3.",
            vec![
                init("lab"),
                deployed(dev(), "dev.tfvars"),
                Step::Write {
                    file: "lab/fails.tf",
                    text: "resource \"terraform_data\" \"fails\" {\n  provisioner \"local-exec\" {\n    command = \"exit 3\"\n  }\n}\n",
                },
                plan("plan", Zero),
                show("show", &["create"]),
                apply(Nonzero),
            ],
        ),
        s(
            "state-locked",
            "lab:dev while another deploy of it runs and holds the state lock: the plan cannot take the lock and fails, which is read as busy.",
            vec![
                init("lab"),
                deployed(dev(), "dev.tfvars"),
                Step::Write {
                    file: "lab/hold.tf",
                    text: "resource \"terraform_data\" \"hold\" {\n  provisioner \"local-exec\" {\n    command = \"sleep 120\"\n  }\n}\n",
                },
                Step::Hold {
                    cwd: "lab",
                    argv: tool(&[
                        "apply",
                        "-input=false",
                        "-no-color",
                        "-auto-approve",
                        "-var-file=dev.tfvars",
                    ]),
                    env: dev(),
                    until: "lab/terraform.tfstate.d/dev/.terraform.tfstate.lock.info",
                },
                plan("plan", Nonzero),
            ],
        ),
        s(
            "log-diff-changed-secret",
            "The tool's own diff of a rotated sensitive variable, for the job log.",
            vec![
                init("lab"),
                deployed(dev(), "dev.tfvars"),
                edit(
                    "  default   = \"CANARY-SECRET\"",
                    "  default   = \"CANARY-SECRET-ROTATED\"",
                ),
                record(
                    "diff",
                    "lab",
                    tool(&[
                        "plan",
                        "-input=false",
                        "-no-color",
                        "-refresh=false",
                        "-var-file=dev.tfvars",
                    ]),
                    StdoutFormat::Text,
                    dev(),
                    expect(Zero, &[]),
                ),
            ],
        ),
    ];
    if binary == "terraform" {
        scenarios.push(s("forget", "terraform_data.trigger under a removed block with destroy = false: the record goes, the object stays.", vec![
            init("lab"),
            deployed(dev(), "dev.tfvars"),
            edit(
                "resource \"terraform_data\" \"trigger\" {\n  triggers_replace = {\n    secret = var.secret\n  }\n}\n",
                "removed {\n  from = terraform_data.trigger\n  lifecycle {\n    destroy = false\n  }\n}\n",
            ),
            plan("plan", Zero),
            show("show", &["forget"]),
        ]));
    }
    scenarios
}

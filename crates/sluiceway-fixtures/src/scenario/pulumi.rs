//! The Pulumi scenarios, over `examples/pulumi-lab`: the `network` project (stacks `dev`
//! and `prod`, a plain and a secret config value, two ConfigMaps and a Secret in the
//! control plane), the `app` project (a `Pulumi.yml` whose program reads network's
//! outputs through a stack reference), and `generated/` (no resources, nested paths,
//! three hundred resources).
//!
//! Every scenario has a backend of its own, `file://<project>/.backend` (the recorder
//! fills in `{project}`), so no stack exists until a step makes it. Scenarios that deploy
//! start from a fresh namespace.

use std::collections::BTreeMap;

use sluiceway_tools::pulumi::STREAMING_VAR;
use sluiceway_tools::recording::StdoutFormat;

use super::Exit::{Nonzero, Zero};
use super::{Expect, Record, Scenario, Step, expect, fresh_namespace, setup};

const NETWORK: &str = "network";
const PROGRAM: &str = "network/Pulumi.yaml";

fn pulumi(args: &[&str]) -> Vec<String> {
    std::iter::once("pulumi")
        .chain(args.iter().copied())
        .map(str::to_owned)
        .collect()
}

/// `pulumi <args> --non-interactive --color never [--stack <stack>]`, as the adapter runs it.
fn adapter_argv(args: &[&str], stack: Option<&str>) -> Vec<String> {
    let mut argv = pulumi(args);
    argv.extend(["--non-interactive", "--color", "never"].map(str::to_owned));
    if let Some(stack) = stack {
        argv.extend(["--stack".to_owned(), stack.to_owned()]);
    }
    argv
}

fn record(
    id: &'static str,
    cwd: &'static str,
    argv: Vec<String>,
    format: StdoutFormat,
    env: BTreeMap<String, String>,
    expect: Expect,
) -> Step {
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
}

fn preview(id: &'static str, cwd: &'static str, stack: &str, expect: Expect) -> Step {
    let argv = adapter_argv(&["preview", "--json"], Some(stack));
    record(id, cwd, argv, StdoutFormat::Json, BTreeMap::new(), expect)
}

fn drift(id: &'static str, cwd: &'static str, stack: &str, expect: Expect) -> Step {
    let argv = adapter_argv(&["refresh", "--preview-only", "--json"], Some(stack));
    let env = BTreeMap::from([(STREAMING_VAR.to_owned(), "true".to_owned())]);
    record(id, cwd, argv, StdoutFormat::Jsonl, env, expect)
}

fn tool_diff(id: &'static str, exit: super::Exit) -> Step {
    let argv = adapter_argv(&["preview", "--diff", "--suppress-outputs"], Some("dev"));
    let expect = expect(exit, &[]);
    record(
        id,
        NETWORK,
        argv,
        StdoutFormat::Text,
        BTreeMap::new(),
        expect,
    )
}

fn up(id: &'static str, cwd: &'static str, repair: bool, exit: super::Exit) -> Step {
    let mut args = vec!["up", "--yes", "--skip-preview"];
    if repair {
        args.push("--refresh");
    }
    args.push("--suppress-outputs");
    let argv = adapter_argv(&args, Some("dev"));
    let expect = expect(exit, &[]);
    record(id, cwd, argv, StdoutFormat::Text, BTreeMap::new(), expect)
}

fn history(id: &'static str, stack: &str, exit: super::Exit) -> Step {
    let argv = adapter_argv(
        &["stack", "history", "--json", "--page-size", "10"],
        Some(stack),
    );
    let expect = expect(exit, &[]);
    record(
        id,
        NETWORK,
        argv,
        StdoutFormat::Json,
        BTreeMap::new(),
        expect,
    )
}

fn stack_ls(id: &'static str) -> Step {
    let argv = adapter_argv(&["stack", "ls", "--json"], None);
    let expect = expect(Zero, &[]);
    record(
        id,
        NETWORK,
        argv,
        StdoutFormat::Json,
        BTreeMap::new(),
        expect,
    )
}

fn stack_init(id: &'static str, stack: &'static str, exit: super::Exit) -> Step {
    let argv = adapter_argv(&["stack", "init", stack], None);
    let expect = expect(exit, &[]);
    record(
        id,
        NETWORK,
        argv,
        StdoutFormat::Text,
        BTreeMap::new(),
        expect,
    )
}

fn run(cwd: &'static str, args: &[&str]) -> Step {
    Step::Setup {
        cwd,
        argv: pulumi(args),
        env: BTreeMap::new(),
        stdout_to_plan: false,
    }
}

/// The stack made in the scenario's backend (its config file is the example's).
fn init(cwd: &'static str, stack: &str) -> Step {
    run(cwd, &["stack", "init", stack, "--non-interactive"])
}

fn deploy_setup(cwd: &'static str, stack: &str) -> Step {
    run(
        cwd,
        &[
            "up",
            "--yes",
            "--skip-preview",
            "--non-interactive",
            "--stack",
            stack,
        ],
    )
}

/// A fresh namespace, and `network:dev` made and deployed.
fn network_deployed() -> Vec<Step> {
    [
        fresh_namespace(),
        vec![init(NETWORK, "dev"), deploy_setup(NETWORK, "dev")],
    ]
    .concat()
}

fn edit(from: &'static str, to: &'static str) -> Step {
    Step::Edit {
        file: PROGRAM,
        from,
        to,
    }
}

/// The routes ConfigMap as `network`'s program declares it.
macro_rules! routes {
    () => {
        "  routes:
    type: kubernetes:core/v1:ConfigMap
    properties:
      metadata:
        name: network-routes
        namespace: sluiceway-fixtures
        labels:
          tier: edge
      data:
        default: via-${zone}
"
    };
}
const ROUTES: &str = routes!();
/// The routes ConfigMap kept in the cluster when it leaves the program.
const RETAINED_ROUTES: &str = concat!(routes!(), "    options:\n      retainOnDelete: true\n");
const OUTPUTS: &str = "outputs:\n";
/// A Deployment the control plane never makes ready (it has no kubelet): Pulumi waits
/// for it until the timeout its annotation sets, in seconds.
macro_rules! stuck {
    ($seconds:literal) => {
        concat!(
            "  stuck:
    type: kubernetes:apps/v1:Deployment
    properties:
      metadata:
        name: stuck
        namespace: sluiceway-fixtures
        annotations:
          pulumi.com/timeoutSeconds: \"",
            $seconds,
            "\"
      spec:
        selector:
          matchLabels:
            app: stuck
        template:
          metadata:
            labels:
              app: stuck
          spec:
            containers:
              - name: stuck
                image: registry.invalid/stuck:1
outputs:
"
        )
    };
}
const STUCK_FAST: &str = stuck!("5");
const STUCK_LONG: &str = stuck!("600");
const EXTRA: &str = "  extra:
    type: kubernetes:core/v1:ConfigMap
    properties:
      metadata:
        name: network-extra
        namespace: sluiceway-fixtures
      data:
        added: \"yes\"
outputs:
";
const ADOPTED: &str = "  adopted:
    type: kubernetes:core/v1:ConfigMap
    properties:
      metadata:
        name: network-adopted
        namespace: sluiceway-fixtures
    options:
      import: sluiceway-fixtures/network-adopted
outputs:
";
const RENAMED: &str = "  paths:
    type: kubernetes:core/v1:ConfigMap
    options:
      aliases:
        - urn:pulumi:dev::network::kubernetes:core/v1:ConfigMap::routes
";

fn set_secret(value: &str) -> Step {
    run(
        NETWORK,
        &[
            "config", "set", "--secret", "token", value, "--stack", "dev",
        ],
    )
}

/// network:dev deployed, then changed in the cluster by `kubectl <change>`: the preview
/// sees nothing, the drift check sees `op`, the repair puts it back, and the drift check
/// after it sees nothing.
fn repaired(change: &[&str], op: &'static str) -> Vec<Vec<Step>> {
    vec![
        network_deployed(),
        vec![
            setup(".", change),
            preview("preview", NETWORK, "dev", expect(Zero, &["same"])),
            drift("drift", NETWORK, "dev", expect(Zero, &[op])),
            up("up", NETWORK, true, Zero),
            drift("drift-after", NETWORK, "dev", expect(Zero, &[])),
        ],
    ]
}

/// A deploy of `network:dev` that holds the stack's lock until the scenario ends: it
/// waits on a Deployment that never gets ready.
fn locked() -> Vec<Step> {
    [
        network_deployed(),
        vec![
            edit(OUTPUTS, STUCK_LONG),
            Step::Hold {
                cwd: NETWORK,
                argv: pulumi(&[
                    "up",
                    "--yes",
                    "--skip-preview",
                    "--non-interactive",
                    "--stack",
                    "dev",
                ]),
                env: BTreeMap::new(),
                until: ".backend/.pulumi/locks/organization/network/dev",
            },
        ],
    ]
    .concat()
}

/// A scenario, its backend's directory made first.
fn s(name: &'static str, description: &'static str, steps: Vec<Vec<Step>>) -> Scenario {
    let backend = Step::Write {
        file: ".backend/README",
        text: "This scenario's own Pulumi backend.\n",
    };
    Scenario {
        name,
        description,
        plan_file: "unused",
        steps: [vec![backend], steps.concat()].concat(),
    }
}

pub fn pulumi_scenarios() -> Vec<Scenario> {
    vec![
        s(
            "version",
            "The CLI's version, as the version check asks for it.",
            vec![vec![record(
                "version",
                ".",
                pulumi(&["version"]),
                StdoutFormat::Text,
                BTreeMap::new(),
                expect(Zero, &[]),
            )]],
        ),
        s(
            "new-stack",
            "network:dev made in the backend and never deployed: every resource a create.",
            vec![vec![
                init(NETWORK, "dev"),
                preview("preview", NETWORK, "dev", expect(Zero, &["create"])),
            ]],
        ),
        s(
            "new-stack-without-resources",
            "A new stack of a project with no resources: its only step is the root stack's create.",
            vec![vec![
                init("generated/empty", "dev"),
                preview(
                    "preview",
                    "generated/empty",
                    "dev",
                    expect(Zero, &["create"]),
                ),
            ]],
        ),
        s(
            "new-stack-yml-project",
            "app:dev, a Pulumi.yml project whose program lives in program/, never deployed; network:dev is.",
            vec![
                network_deployed(),
                vec![
                    init("app", "dev"),
                    preview("preview", "app", "dev", expect(Zero, &["create", "read"])),
                ],
            ],
        ),
        s(
            "same-preview-twice",
            "The same new stack previewed twice: the steps may come in another order.",
            vec![vec![
                init(NETWORK, "dev"),
                preview("preview-1", NETWORK, "dev", expect(Zero, &["create"])),
                preview("preview-2", NETWORK, "dev", expect(Zero, &["create"])),
            ]],
        ),
        s(
            "no-changes",
            "network:dev deployed, nothing changed since.",
            vec![
                network_deployed(),
                vec![preview("preview", NETWORK, "dev", expect(Zero, &["same"]))],
            ],
        ),
        s(
            "update",
            "A label of the routes ConfigMap changed: an update in place.",
            vec![
                network_deployed(),
                vec![
                    edit("tier: edge", "tier: core"),
                    preview("preview", NETWORK, "dev", expect(Zero, &["update"])),
                ],
            ],
        ),
        s(
            "replace",
            "The data of the settings ConfigMap changed: Pulumi replaces a ConfigMap.",
            vec![
                network_deployed(),
                vec![
                    edit("note: CANARY-VALUE", "note: CANARY-VALUE-2"),
                    preview("preview", NETWORK, "dev", expect(Zero, &["replace"])),
                ],
            ],
        ),
        s(
            "delete",
            "The routes ConfigMap left the program.",
            vec![
                network_deployed(),
                vec![
                    edit(ROUTES, ""),
                    preview("preview", NETWORK, "dev", expect(Zero, &["delete"])),
                ],
            ],
        ),
        s(
            "mixed",
            "Three kinds of change at once: the settings replaced, the routes relabelled, a ConfigMap added.",
            vec![
                network_deployed(),
                vec![
                    edit("note: CANARY-VALUE", "note: CANARY-VALUE-2"),
                    edit("tier: edge", "tier: core"),
                    edit(OUTPUTS, EXTRA),
                    preview(
                        "preview",
                        NETWORK,
                        "dev",
                        expect(Zero, &["replace", "update", "create"]),
                    ),
                ],
            ],
        ),
        s(
            "outputs-only",
            "A new stack output and nothing else: only the root stack's outputs change.",
            vec![
                network_deployed(),
                vec![
                    edit(OUTPUTS, "outputs:\n  zoneName: ${zone}\n"),
                    preview("preview", NETWORK, "dev", expect(Zero, &[])),
                ],
            ],
        ),
        s(
            "import",
            "A ConfigMap made by hand, then adopted by the program with the import option.",
            vec![
                network_deployed(),
                vec![
                    setup(
                        ".",
                        &[
                            "create",
                            "configmap",
                            "network-adopted",
                            "--namespace=sluiceway-fixtures",
                        ],
                    ),
                    edit(OUTPUTS, ADOPTED),
                    preview("preview", NETWORK, "dev", expect(Zero, &["import"])),
                ],
            ],
        ),
        s(
            "dropped-but-kept",
            "The routes ConfigMap, deployed with retainOnDelete, left the program: Pulumi forgets it and leaves it in the cluster.",
            vec![
                fresh_namespace(),
                vec![
                    edit(ROUTES, RETAINED_ROUTES),
                    init(NETWORK, "dev"),
                    deploy_setup(NETWORK, "dev"),
                    edit(RETAINED_ROUTES, ""),
                    preview("preview", NETWORK, "dev", expect(Zero, &["delete"])),
                ],
            ],
        ),
        s(
            "renamed-with-alias",
            "The routes resource renamed paths, with an alias to its old name: nothing to do.",
            vec![
                network_deployed(),
                vec![
                    edit(
                        "  routes:\n    type: kubernetes:core/v1:ConfigMap\n",
                        RENAMED,
                    ),
                    preview("preview", NETWORK, "dev", expect(Zero, &["same"])),
                ],
            ],
        ),
        s(
            "changed-secret",
            "The secret config value token changed; the Secret that holds it changes.",
            vec![
                network_deployed(),
                vec![
                    set_secret("CANARY-SECRET-2"),
                    preview("preview", NETWORK, "dev", expect(Zero, &[])),
                ],
            ],
        ),
        s(
            "deploy",
            "network:dev previewed, deployed as the adapter deploys, and previewed again: in sync.",
            vec![
                fresh_namespace(),
                vec![
                    init(NETWORK, "dev"),
                    preview("preview", NETWORK, "dev", expect(Zero, &["create"])),
                    up("up", NETWORK, false, Zero),
                    preview("preview-after", NETWORK, "dev", expect(Zero, &["same"])),
                ],
            ],
        ),
        s(
            "deploy-failed",
            "A Deployment the control plane never makes ready, with a five-second timeout: the preview works and the deploy fails.",
            vec![
                network_deployed(),
                vec![
                    edit(OUTPUTS, STUCK_FAST),
                    preview("preview", NETWORK, "dev", expect(Zero, &["create"])),
                    up("up", NETWORK, false, Nonzero),
                ],
            ],
        ),
        s(
            "program-error",
            "A resource type the provider does not have.",
            vec![vec![
                init(NETWORK, "dev"),
                edit(
                    "  routes:\n    type: kubernetes:core/v1:ConfigMap\n",
                    "  routes:\n    type: kubernetes:core/v1:NoSuchThing\n",
                ),
                preview("preview", NETWORK, "dev", expect(Nonzero, &[])),
            ]],
        ),
        s(
            "program-exception",
            "The program fails while it runs: a property reads a file that is not there (Pulumi YAML's kind of an unhandled exception).",
            vec![vec![
                init(NETWORK, "dev"),
                edit(
                    "        default: via-${zone}\n",
                    "        default:\n          fn::readFile: ./no-such-file.txt\n",
                ),
                preview("preview", NETWORK, "dev", expect(Nonzero, &[])),
            ]],
        ),
        s(
            "resource-error",
            "A ConfigMap whose name the API server refuses.",
            vec![vec![
                init(NETWORK, "dev"),
                edit("name: network-routes", "name: Network_Routes"),
                preview("preview", NETWORK, "dev", expect(Nonzero, &[])),
            ]],
        ),
        s(
            "missing-stack",
            "network:ghost, which has no stack file and which the backend has never held.",
            vec![vec![preview(
                "preview",
                NETWORK,
                "ghost",
                expect(Nonzero, &[]),
            )]],
        ),
        s(
            "missing-config",
            "network:dev without its zone.",
            vec![vec![
                init(NETWORK, "dev"),
                Step::Edit {
                    file: "network/Pulumi.dev.yaml",
                    from: "  network:zone: dev-a\n",
                    to: "",
                },
                preview("preview", NETWORK, "dev", expect(Nonzero, &[])),
            ]],
        ),
        s(
            "nested-paths",
            "A Deployment's image, env value and annotation, and a ConfigMap's dotted key, changed after a deploy.",
            vec![
                fresh_namespace(),
                vec![
                    init("generated/nested", "dev"),
                    deploy_setup("generated/nested", "dev"),
                    Step::Edit {
                        file: "generated/nested/Pulumi.yaml",
                        from: "image: nginx:1.27",
                        to: "image: nginx:1.28",
                    },
                    Step::Edit {
                        file: "generated/nested/Pulumi.yaml",
                        from: "value: CANARY-VALUE",
                        to: "value: CANARY-VALUE-2",
                    },
                    Step::Edit {
                        file: "generated/nested/Pulumi.yaml",
                        from: "example.com/revision: \"1\"",
                        to: "example.com/revision: \"2\"",
                    },
                    Step::Edit {
                        file: "generated/nested/Pulumi.yaml",
                        from: "app.properties: CANARY-VALUE",
                        to: "app.properties: CANARY-VALUE-3",
                    },
                    preview(
                        "preview",
                        "generated/nested",
                        "dev",
                        expect(Zero, &["update", "replace"]),
                    ),
                ],
            ],
        ),
        s(
            "log-diff-deploy",
            "The tool diff of a new stack for the job log, then its deploy.",
            vec![
                fresh_namespace(),
                vec![
                    init(NETWORK, "dev"),
                    preview("preview", NETWORK, "dev", expect(Zero, &["create"])),
                    tool_diff("diff", Zero),
                    up("up", NETWORK, false, Zero),
                ],
            ],
        ),
        s(
            "log-diff-changed-secret",
            "The tool diff of a changed secret: Pulumi shows it as [secret].",
            vec![
                network_deployed(),
                vec![
                    set_secret("CANARY-SECRET-2"),
                    preview("preview", NETWORK, "dev", expect(Zero, &[])),
                    tool_diff("diff", Zero),
                ],
            ],
        ),
        s(
            "log-diff-missing-config",
            "The tool diff of a stack without its zone.",
            vec![vec![
                init(NETWORK, "dev"),
                Step::Edit {
                    file: "network/Pulumi.dev.yaml",
                    from: "  network:zone: dev-a\n",
                    to: "",
                },
                tool_diff("diff", Nonzero),
            ]],
        ),
        s(
            "drift-gone",
            "The routes ConfigMap deleted by hand: the preview sees nothing, the drift check names it, and the repair puts it back.",
            repaired(
                &[
                    "delete",
                    "configmap",
                    "network-routes",
                    "--namespace=sluiceway-fixtures",
                ],
                "delete",
            ),
        ),
        s(
            "drift-changed",
            "The zone of the settings ConfigMap patched by hand: a property drifted, and the repair writes it back.",
            repaired(
                &[
                    "patch",
                    "configmap",
                    "network-settings",
                    "--namespace=sluiceway-fixtures",
                    "--patch={\"data\":{\"zone\":\"moved\"}}",
                ],
                "update",
            ),
        ),
        s(
            "drift-locked",
            "network:dev drift-checked while another update holds its lock: the check locks nothing, so it runs; an `up` beside it is refused.",
            vec![
                locked(),
                vec![
                    drift("drift", NETWORK, "dev", expect(Zero, &[])),
                    up("up-locked", NETWORK, false, Nonzero),
                ],
            ],
        ),
        s(
            "preview-locked",
            "network:dev previewed while another update holds its lock: a preview locks nothing, so it runs.",
            vec![
                locked(),
                vec![preview(
                    "preview",
                    NETWORK,
                    "dev",
                    expect(Zero, &["create"]),
                )],
            ],
        ),
        s(
            "drift-missing-stack",
            "A drift check of network:ghost, which the backend has never held.",
            vec![vec![drift("drift", NETWORK, "ghost", expect(Nonzero, &[]))]],
        ),
        s(
            "stack-list",
            "What network/'s backend lists: dev, which the scenario made; not prod, of which only the file exists; not app's dev, another project's.",
            vec![vec![
                init(NETWORK, "dev"),
                init("app", "dev"),
                stack_ls("stack-ls"),
            ]],
        ),
        s(
            "stack-list-empty",
            "The stacks of network/ in a backend that holds none.",
            vec![vec![stack_ls("stack-ls")]],
        ),
        s(
            "create-stack",
            "network:prod, whose file exists and whose backend lacks it, made as createInBackend makes it; its preview is all creates, and a second init is refused.",
            vec![vec![
                init(NETWORK, "dev"),
                stack_ls("stack-ls"),
                stack_init("stack-init", "prod", Zero),
                preview("preview", NETWORK, "prod", expect(Zero, &["create"])),
                stack_init("stack-init-again", "prod", Nonzero),
            ]],
        ),
        s(
            "stack-reference",
            "app:dev reads network:dev's outputs: previewed before and after its deploy; the reference is a read, never a change.",
            vec![
                network_deployed(),
                vec![
                    init("app", "dev"),
                    preview("preview", "app", "dev", expect(Zero, &["create", "read"])),
                    deploy_setup("app", "dev"),
                    preview("preview-deployed", "app", "dev", expect(Zero, &["read"])),
                ],
            ],
        ),
        s(
            "many-resources",
            "A new stack of three hundred ConfigMaps.",
            vec![vec![
                init("generated/many", "big"),
                preview(
                    "preview",
                    "generated/many",
                    "big",
                    expect(Zero, &["create"]),
                ),
            ]],
        ),
        s(
            "history",
            "network:dev's history read before any update, then after two deploys, a deploy that changed nothing, a refresh and a failed deploy.",
            vec![
                fresh_namespace(),
                vec![
                    init(NETWORK, "dev"),
                    history("history-before", "dev", Zero),
                    deploy_setup(NETWORK, "dev"),
                    edit("tier: edge", "tier: core"),
                    deploy_setup(NETWORK, "dev"),
                    deploy_setup(NETWORK, "dev"),
                    run(
                        NETWORK,
                        &["refresh", "--yes", "--non-interactive", "--stack", "dev"],
                    ),
                    edit(OUTPUTS, STUCK_FAST),
                    up("up-failed", NETWORK, false, Nonzero),
                    history("history", "dev", Zero),
                ],
            ],
        ),
        s(
            "history-missing-stack",
            "The history of network:ghost, which the backend has never held.",
            vec![vec![history("history", "ghost", Nonzero)]],
        ),
    ]
}

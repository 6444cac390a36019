//! The CDK for Terraform scenarios, on `examples/cdktf-lab`: a TypeScript app of two
//! stacks, `dev` and `prod`, synthesized by the real cdktf and planned by the real
//! OpenTofu in the directory synth wrote for each. Every scenario copies the app's
//! installed modules into its project copy first (`scripts/install-cdktf.sh` installs
//! them, keyed by the lock file): a copy, not a link, so a stack trace names the project's
//! own path and not the machine's cache. A synth, init or deploy that only sets the stage
//! is not recorded.

use std::collections::BTreeMap;
use std::path::Path;

use sluiceway_tools::opentofu::PLAN_FILE;
use sluiceway_tools::recording::StdoutFormat;

use super::{Exit, Record, Scenario, Step, expect};

const DEV: &str = "cdktf.out/stacks/dev";
const PROD: &str = "cdktf.out/stacks/prod";

fn argv(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| (*a).to_owned()).collect()
}

fn record(
    id: &'static str,
    cwd: &'static str,
    args: &[&str],
    format: StdoutFormat,
    exit: Exit,
    ops: &[&'static str],
) -> Step {
    Step::Record(Record {
        id,
        cwd,
        argv: argv(args),
        format,
        env: BTreeMap::new(),
        expect: expect(exit, ops),
        stdout_to_plan: false,
        race_checked: false,
    })
}

fn setup(cwd: &'static str, args: &[&str]) -> Step {
    Step::Setup {
        cwd,
        argv: argv(args),
        env: BTreeMap::new(),
        stdout_to_plan: false,
    }
}

const SYNTH: [&str; 4] = ["cdktf", "synth", "--output", "cdktf.out"];
const INIT: [&str; 4] = ["tofu", "init", "-input=false", "-no-color"];

fn plan(cwd: &'static str) -> Step {
    record(
        "plan",
        cwd,
        &[
            "tofu",
            "plan",
            "-input=false",
            "-no-color",
            "-refresh=false",
            "-json",
            "-out={plan}",
        ],
        StdoutFormat::Text,
        Exit::Zero,
        &[],
    )
}

fn show(cwd: &'static str, ops: &[&'static str]) -> Step {
    record(
        "show",
        cwd,
        &["tofu", "show", "-json", "-no-color", "{plan}"],
        StdoutFormat::Json,
        Exit::Zero,
        ops,
    )
}

/// The stack `dev` as a deploy leaves it.
fn deployed() -> Vec<Step> {
    vec![
        setup(".", &SYNTH),
        setup(DEV, &INIT),
        setup(
            DEV,
            &[
                "tofu",
                "apply",
                "-input=false",
                "-no-color",
                "-auto-approve",
            ],
        ),
    ]
}

fn edit(from: &'static str, to: &'static str) -> Step {
    Step::Edit {
        file: "main.ts",
        from,
        to,
    }
}

/// The scenarios, each starting from a project copy with `node_modules` copied in.
pub fn cdktf_scenarios(node_modules: &Path) -> Vec<Scenario> {
    let modules = Step::Setup {
        cwd: ".",
        argv: vec![
            "cp".to_owned(),
            "-R".to_owned(),
            node_modules.display().to_string(),
            "node_modules".to_owned(),
        ],
        env: BTreeMap::new(),
        stdout_to_plan: false,
    };
    let s = |name, description, steps: Vec<Step>| Scenario {
        name,
        description,
        plan_file: PLAN_FILE,
        steps: std::iter::once(modules.clone()).chain(steps).collect(),
    };
    vec![
        s(
            "version",
            "cdktf --version, which the version check reads.",
            vec![record(
                "version",
                ".",
                &["cdktf", "--version"],
                StdoutFormat::Text,
                Exit::Zero,
                &[],
            )],
        ),
        s(
            "new-stack",
            "The stack dev before its first deploy: the app synthesized, dev's directory initialised, then a plan of all creates.",
            vec![
                record("synth", ".", &SYNTH, StdoutFormat::Text, Exit::Zero, &[]),
                record("init", DEV, &INIT, StdoutFormat::Text, Exit::Zero, &[]),
                plan(DEV),
                show(DEV, &["create"]),
            ],
        ),
        s(
            "other-stack",
            "The stack prod of the same app, in its own directory with its own state.",
            vec![
                setup(".", &SYNTH),
                setup(PROD, &INIT),
                plan(PROD),
                show(PROD, &["create"]),
            ],
        ),
        s(
            "no-changes",
            "The stack dev, deployed, and nothing changed.",
            [deployed(), vec![plan(DEV), show(DEV, &[])]].concat(),
        ),
        s(
            "update",
            "A new greeting for dev in the app, synthesized again: terraform_data's input changes in place.",
            [
                deployed(),
                vec![
                    edit(
                        "new Lab(app, \"dev\", \"hello\", \"first notes\");",
                        "new Lab(app, \"dev\", \"hello again\", \"first notes\");",
                    ),
                    setup(".", &SYNTH),
                    plan(DEV),
                    show(DEV, &["update"]),
                ],
            ]
            .concat(),
        ),
        s(
            "replace",
            "New notes for dev, a replacing trigger: a new terraform_data replaces the old one.",
            [
                deployed(),
                vec![
                    edit(
                        "new Lab(app, \"dev\", \"hello\", \"first notes\");",
                        "new Lab(app, \"dev\", \"hello\", \"second notes\");",
                    ),
                    setup(".", &SYNTH),
                    plan(DEV),
                    show(DEV, &["delete,create"]),
                ],
            ]
            .concat(),
        ),
        s(
            "deploy",
            "The stack dev deployed from the plan file of its own plan, the way a deploy does it.",
            vec![
                setup(".", &SYNTH),
                setup(DEV, &INIT),
                plan(DEV),
                show(DEV, &["create"]),
                record(
                    "apply",
                    DEV,
                    &[
                        "tofu",
                        "apply",
                        "-input=false",
                        "-no-color",
                        "-json",
                        "{plan}",
                    ],
                    StdoutFormat::Text,
                    Exit::Zero,
                    &[],
                ),
            ],
        ),
        s(
            "program-error",
            "An app whose program throws before it synthesizes: synth fails, so no stack of the app can be previewed.",
            vec![
                edit(
                    "const app = new App();",
                    "const app = new App();\nthrow new Error(\"the app is broken\");",
                ),
                record("synth", ".", &SYNTH, StdoutFormat::Text, Exit::Nonzero, &[]),
            ],
        ),
    ]
}

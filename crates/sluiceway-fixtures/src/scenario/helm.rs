//! The Helm scenarios, recorded with helm against the local control plane on the example
//! `examples/helm-lab`: the release `shop` (chart `charts/shop`) and `queue` (chart
//! `charts/queue`, which depends on the local chart `shop`).
//!
//! Each scenario starts with both namespaces made afresh, so no release is installed.
//! The commands recorded are the adapter's without the plugin: a preview renders
//! (`helm template`), asks whether the release is installed (`helm list`) and reads it
//! as deployed (`helm get manifest`, `helm get hooks`); a drift check reads the manifest
//! and has the API server dry-run it (`kubectl diff --server-side`, decision 0090's
//! race check); a tool diff reads the release first and renders after; a deploy renders
//! again and upgrades.

use std::collections::BTreeMap;

use sluiceway_tools::recording::StdoutFormat;

use super::{Exit, Expect, Record, Scenario, Step};

/// A release of the example, as its stack's options name it.
#[derive(Debug, Clone, Copy)]
struct Release {
    stack: &'static str,
    name: &'static str,
    chart: &'static str,
    namespace: &'static str,
    values: &'static [&'static str],
}

const SHOP: Release = Release {
    stack: "shop",
    name: "shop",
    chart: "../charts/shop",
    namespace: "sluiceway-shop",
    values: &["values.yaml"],
};

const QUEUE: Release = Release {
    stack: "queue",
    name: "queue",
    chart: "../charts/queue",
    namespace: "sluiceway-queue",
    values: &["values.yaml", "overrides.yaml"],
};

fn words(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_owned()).collect()
}

impl Release {
    fn namespace_flag(&self) -> String {
        format!("--namespace={}", self.namespace)
    }

    fn target(&self) -> Vec<String> {
        vec![
            self.name.to_owned(),
            self.chart.to_owned(),
            self.namespace_flag(),
        ]
    }

    fn values(&self) -> Vec<String> {
        self.values
            .iter()
            .map(|v| format!("--values={v}"))
            .collect()
    }

    fn render(&self) -> Vec<String> {
        [
            words(&["helm", "template"]),
            self.target(),
            words(&["--dry-run=server"]),
            self.values(),
        ]
        .concat()
    }

    fn list(&self) -> Vec<String> {
        [
            words(&["helm", "list"]),
            vec![self.namespace_flag(), format!("--filter=^{}$", self.name)],
            words(&[
                "--deployed",
                "--failed",
                "--pending",
                "--uninstalling",
                "--output=json",
            ]),
        ]
        .concat()
    }

    fn get(&self, what: &str) -> Vec<String> {
        [
            words(&["helm", "get", what, self.name]),
            vec![self.namespace_flag()],
        ]
        .concat()
    }

    /// An upgrade as a scenario sets the stage with it (not recorded).
    fn upgrade(&self) -> Vec<String> {
        [
            words(&["helm", "upgrade"]),
            self.target(),
            words(&["--install", "--reset-values", "--hide-notes"]),
            self.values(),
        ]
        .concat()
    }
}

/// Which time in a scenario a preview or a drift check is taken: it names the commands.
#[derive(Debug, Clone, Copy)]
enum Take {
    First,
    Again,
    After,
}

impl Take {
    /// The ids of a preview's render, release list, manifest and hooks.
    fn preview_ids(self) -> [&'static str; 4] {
        match self {
            Take::First => ["render", "list", "manifest", "hooks"],
            Take::Again => [
                "render-again",
                "list-again",
                "manifest-again",
                "hooks-again",
            ],
            Take::After => [
                "render-after",
                "list-after",
                "manifest-after",
                "hooks-after",
            ],
        }
    }

    /// The ids of a drift check's release list, manifest and dry run.
    fn drift_ids(self) -> [&'static str; 3] {
        match self {
            Take::First => ["list-drift", "manifest-drift", "drift"],
            Take::Again => ["list-drift-again", "manifest-drift-again", "drift-again"],
            Take::After => ["list-drift-after", "manifest-drift-after", "drift-after"],
        }
    }
}

fn record(
    id: &'static str,
    cwd: &'static str,
    argv: Vec<String>,
    format: StdoutFormat,
    exit: Exit,
) -> Step {
    Step::Record(recorded(id, cwd, argv, format, exit))
}

fn recorded(
    id: &'static str,
    cwd: &'static str,
    argv: Vec<String>,
    format: StdoutFormat,
    exit: Exit,
) -> Record {
    Record {
        id,
        cwd,
        argv,
        format,
        env: BTreeMap::new(),
        expect: Expect {
            exit,
            ops: Vec::new(),
        },
        stdout_to_plan: false,
        race_checked: false,
    }
}

fn setup(cwd: &'static str, argv: Vec<String>) -> Step {
    Step::Setup {
        cwd,
        argv,
        env: BTreeMap::new(),
        stdout_to_plan: false,
    }
}

fn kubectl(args: &[&str]) -> Vec<String> {
    [words(&["kubectl"]), words(args)].concat()
}

/// Both namespaces deleted (with every release in them) and made again.
fn fresh() -> Vec<Step> {
    let mut steps = Vec::new();
    for release in [SHOP, QUEUE] {
        steps.push(setup(
            ".",
            kubectl(&[
                "delete",
                "namespace",
                release.namespace,
                "--ignore-not-found",
                "--wait=true",
            ]),
        ));
    }
    for release in [SHOP, QUEUE] {
        steps.push(setup(
            ".",
            kubectl(&["create", "namespace", release.namespace]),
        ));
    }
    steps
}

fn deployed(release: Release) -> Vec<Step> {
    let mut steps = fresh();
    if release.stack == QUEUE.stack {
        steps.push(setup(
            "charts/queue",
            words(&["helm", "dependency", "build", "."]),
        ));
    }
    steps.push(setup(release.stack, release.upgrade()));
    steps
}

/// A preview without the plugin; `installed` when the release is, so its manifest and
/// hooks are read.
fn preview(release: Release, take: Take, installed: bool) -> Vec<Step> {
    let [render, list, manifest, hooks] = take.preview_ids();
    let mut steps = vec![
        record(
            render,
            release.stack,
            release.render(),
            StdoutFormat::Text,
            Exit::Zero,
        ),
        record(
            list,
            release.stack,
            release.list(),
            StdoutFormat::Json,
            Exit::Zero,
        ),
    ];
    if installed {
        steps.push(record(
            manifest,
            release.stack,
            release.get("manifest"),
            StdoutFormat::Text,
            Exit::Zero,
        ));
        steps.push(record(
            hooks,
            release.stack,
            release.get("hooks"),
            StdoutFormat::Text,
            Exit::Zero,
        ));
    }
    steps
}

/// A drift check without the plugin of an installed release: its manifest, then the
/// server's dry run of it against the live objects.
fn drift_check(release: Release, take: Take) -> Vec<Step> {
    let [list, manifest, drift] = take.drift_ids();
    vec![
        record(
            list,
            release.stack,
            release.list(),
            StdoutFormat::Json,
            Exit::Zero,
        ),
        // The manifest is what the dry run is handed: the adapter writes it into a
        // private file, the recorder into the plan file.
        Step::Record(Record {
            stdout_to_plan: true,
            ..recorded(
                manifest,
                release.stack,
                release.get("manifest"),
                StdoutFormat::Text,
                Exit::Zero,
            )
        }),
        Step::Record(Record {
            id: drift,
            cwd: release.stack,
            argv: kubectl(&[
                "diff",
                "--server-side",
                "--force-conflicts",
                &release.namespace_flag(),
                "-f",
                "{plan}",
            ]),
            format: StdoutFormat::Diff,
            env: BTreeMap::from([(
                sluiceway_tools::kubernetes::EXTERNAL_DIFF_VAR.to_owned(),
                sluiceway_tools::kubernetes::EXTERNAL_DIFF.to_owned(),
            )]),
            expect: Expect {
                exit: Exit::Zero,
                ops: Vec::new(),
            },
            stdout_to_plan: false,
            race_checked: true,
        }),
    ]
}

/// The drift check's recorded diff finds something (kubectl exits 1).
fn drift_found(mut steps: Vec<Step>) -> Vec<Step> {
    if let Some(Step::Record(last)) = steps.last_mut() {
        last.expect.exit = Exit::Nonzero;
    }
    steps
}

/// A deploy as apply runs it: the render again, the version for the rollback flag, on
/// Helm 4 for a drift repair how the release is applied, and the upgrade.
fn deploy(release: Release, major: u32, flags: &[&str], repair: bool, exit: Exit) -> Vec<Step> {
    let mut steps = vec![
        record(
            "render-again",
            release.stack,
            release.render(),
            StdoutFormat::Text,
            Exit::Zero,
        ),
        record(
            "version",
            release.stack,
            words(&["helm", "version", "--template={{.Version}}"]),
            StdoutFormat::Text,
            Exit::Zero,
        ),
    ];
    let mut argv = [
        words(&["helm", "upgrade"]),
        release.target(),
        words(&["--install", "--reset-values"]),
    ]
    .concat();
    if major >= 4 {
        argv.push("--rollback-on-failure".to_owned());
        if repair {
            let mut metadata = release.get("metadata");
            metadata.push("--output=json".to_owned());
            steps.push(record(
                "metadata",
                release.stack,
                metadata,
                StdoutFormat::Json,
                Exit::Zero,
            ));
            argv.push("--force-conflicts".to_owned());
        }
    } else {
        argv.push("--atomic".to_owned());
    }
    argv.extend(words(flags));
    argv.push("--hide-notes".to_owned());
    argv.extend(release.values());
    steps.push(record(
        "deploy",
        release.stack,
        argv,
        StdoutFormat::Text,
        exit,
    ));
    steps
}

fn edit(file: &'static str, from: &'static str, to: &'static str) -> Step {
    Step::Edit { file, from, to }
}

const SHOP_NS: &str = "--namespace=sluiceway-shop";

/// The ConfigMap's greeting changed by hand.
fn greeting_by_hand() -> Step {
    setup(
        "shop",
        kubectl(&[
            "patch",
            "configmap",
            "shop-settings",
            SHOP_NS,
            "--type=merge",
            "--patch={\"data\":{\"motd\":\"CANARY-VALUE by hand\"}}",
        ]),
    )
}

/// The Secret deleted.
fn secret_deleted() -> Step {
    setup(
        "shop",
        kubectl(&[
            "delete",
            "secret",
            "shop-credentials",
            SHOP_NS,
            "--wait=true",
        ]),
    )
}

/// The greeting changed by hand, a label of its own added, the Service's target port
/// moved, and the Secret deleted.
fn drifted() -> Vec<Step> {
    vec![
        greeting_by_hand(),
        setup(
            "shop",
            kubectl(&[
                "label",
                "configmap",
                "shop-settings",
                SHOP_NS,
                "example.org/touched=yes",
            ]),
        ),
        setup(
            "shop",
            kubectl(&[
                "patch",
                "service",
                "shop-front",
                SHOP_NS,
                "--type=json",
                "--patch=[{\"op\":\"replace\",\"path\":\"/spec/ports/0/targetPort\",\"value\":9090}]",
            ]),
        ),
        secret_deleted(),
    ]
}

/// Every Helm scenario for a helm of this major version, in the order they are recorded.
pub fn helm_scenarios(major: u32) -> Vec<Scenario> {
    use Exit::*;
    let s = |name, description, steps: Vec<Vec<Step>>| Scenario {
        name,
        description,
        plan_file: sluiceway_tools::kubernetes::rendered_set::SET_FILE,
        steps: steps.concat(),
    };
    let theme = || edit("shop/values.yaml", "theme: light", "theme: dark");
    vec![
        s(
            "version",
            "helm's version, and helm-diff's, which this runner does not have: the version check reads both.",
            vec![vec![
                record(
                    "version",
                    ".",
                    words(&["helm", "version", "--template={{.Version}}"]),
                    StdoutFormat::Text,
                    Zero,
                ),
                record(
                    "plugin-version",
                    ".",
                    words(&["helm", "diff", "version"]),
                    StdoutFormat::Text,
                    Nonzero,
                ),
            ]],
        ),
        s(
            "new-stack",
            "shop before its first deploy: the release is not installed, so every object is a create.",
            vec![fresh(), preview(SHOP, Take::First, false)],
        ),
        s(
            "no-changes",
            "shop deployed, and nothing changed.",
            vec![deployed(SHOP), preview(SHOP, Take::First, true)],
        ),
        s(
            "update",
            "New values: a ConfigMap key with a dot, a label with a dot and a slash, and a port in a list.",
            vec![
                deployed(SHOP),
                vec![
                    theme(),
                    edit(
                        "shop/values.yaml",
                        "release: \"2026.1\"",
                        "release: \"2026.2\"",
                    ),
                    edit("shop/values.yaml", "port: 80", "port: 8080"),
                ],
                preview(SHOP, Take::First, true),
            ],
        ),
        s(
            "create",
            "A values switch that adds a ConfigMap.",
            vec![
                deployed(SHOP),
                vec![Step::Write {
                    file: "shop/banner.yaml",
                    text: "banner:\n  enabled: true\n",
                }],
                preview(SHOP_WITH_BANNER, Take::First, true),
            ],
        ),
        s(
            "delete",
            "The same switch off again: the ConfigMap goes.",
            vec![
                vec![Step::Write {
                    file: "shop/banner.yaml",
                    text: "banner:\n  enabled: true\n",
                }],
                deployed(SHOP_WITH_BANNER),
                vec![Step::Write {
                    file: "shop/banner.yaml",
                    text: "banner:\n  enabled: false\n",
                }],
                preview(SHOP_WITH_BANNER, Take::First, true),
            ],
        ),
        s(
            "mixed",
            "One ConfigMap added (the nonce), one changed and one removed (the banner) in one preview.",
            vec![
                vec![Step::Write {
                    file: "shop/banner.yaml",
                    text: "banner:\n  enabled: true\n",
                }],
                deployed(SHOP_WITH_BANNER),
                vec![
                    theme(),
                    Step::Write {
                        file: "shop/banner.yaml",
                        text: "banner:\n  enabled: false\nnonce: true\n",
                    },
                ],
                preview(SHOP_WITH_BANNER, Take::First, true),
            ],
        ),
        s(
            "changed-secret",
            "The key in the Secret rotated: one path, data, and no value.",
            vec![
                deployed(SHOP),
                vec![edit(
                    "shop/values.yaml",
                    "apiKey: CANARY-SECRET",
                    "apiKey: CANARY-SECRET-ROTATED",
                )],
                preview(SHOP, Take::First, true),
            ],
        ),
        s(
            "create-namespace",
            "shop into a namespace that is not there, with createNamespace: the preview works without it, and the deploy makes it.",
            vec![
                vec![setup(
                    ".",
                    kubectl(&[
                        "delete",
                        "namespace",
                        SHOP.namespace,
                        "--ignore-not-found",
                        "--wait=true",
                    ]),
                )],
                preview(SHOP, Take::First, false),
                deploy(SHOP, major, &["--create-namespace"], false, Zero),
                preview(SHOP, Take::After, true),
            ],
        ),
        s(
            "dependencies",
            "queue, whose chart depends on the local chart shop: helm dependency build in its chart directory, then a preview of all creates.",
            vec![
                fresh(),
                vec![record(
                    "dependencies",
                    "charts/queue",
                    words(&["helm", "dependency", "build", "."]),
                    StdoutFormat::Text,
                    Zero,
                )],
                preview(QUEUE, Take::First, false),
            ],
        ),
        s(
            "dependencies-failed",
            "A dependency on a local chart that is not there: helm dependency build fails, so queue cannot be previewed.",
            vec![vec![
                edit(
                    "charts/queue/Chart.yaml",
                    "repository: file://../shop",
                    "repository: file://../missing",
                ),
                record(
                    "dependencies",
                    "charts/queue",
                    words(&["helm", "dependency", "build", "."]),
                    StdoutFormat::Text,
                    Nonzero,
                ),
            ]],
        ),
        s(
            "dependencies-nested",
            "queue's dependency shop now depends on base: shop's dependencies are built first, then queue's, and the preview holds base's ConfigMap.",
            vec![
                fresh(),
                vec![
                    Step::Write {
                        file: "charts/base/Chart.yaml",
                        text: "apiVersion: v2\nname: base\nversion: 0.1.0\n",
                    },
                    Step::Write {
                        file: "charts/base/templates/labels.yaml",
                        text: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-base\ndata:\n  tier: base\n",
                    },
                    edit(
                        "charts/shop/Chart.yaml",
                        "version: 0.3.0\n",
                        "version: 0.3.0\ndependencies:\n  - name: base\n    version: 0.1.0\n    repository: file://../base\n",
                    ),
                    record(
                        "dependencies-shop",
                        "charts/shop",
                        words(&["helm", "dependency", "build", "."]),
                        StdoutFormat::Text,
                        Zero,
                    ),
                    record(
                        "dependencies",
                        "charts/queue",
                        words(&["helm", "dependency", "build", "."]),
                        StdoutFormat::Text,
                        Zero,
                    ),
                ],
                preview(QUEUE, Take::First, false),
            ],
        ),
        s(
            "deploy",
            "shop deployed the way apply does it: the preview and its render, the render again right before the deploy, the version for the deploy's flags, the deploy, and a preview after it.",
            vec![
                fresh(),
                preview(SHOP, Take::First, false),
                deploy(SHOP, major, &[], false, Zero),
                preview(SHOP, Take::After, true),
            ],
        ),
        s(
            "deploy-failed",
            "A preview that works and a deploy the API server refuses (a port out of range); the release is rolled back.",
            vec![
                deployed(SHOP),
                vec![edit("shop/values.yaml", "port: 80", "port: 70000")],
                preview(SHOP, Take::First, true),
                deploy(SHOP, major, &[], false, Nonzero),
            ],
        ),
        s(
            "drift",
            "shop deployed, then changed behind helm's back: the ConfigMap's greeting and a label of its own, the Service's target port, and the Secret deleted. The preview sees nothing; the drift check sees all but the label.",
            vec![
                deployed(SHOP),
                drifted(),
                preview(SHOP, Take::First, true),
                drift_found(drift_check(SHOP, Take::First)),
            ],
        ),
        s(
            "drift-and-change",
            "The ConfigMap's greeting changed behind helm's back, and new values in the code for the same ConfigMap and the Service: only the greeting is drift.",
            vec![
                deployed(SHOP),
                vec![
                    greeting_by_hand(),
                    theme(),
                    edit("shop/values.yaml", "port: 80", "port: 8080"),
                ],
                preview(SHOP, Take::First, true),
                drift_found(drift_check(SHOP, Take::First)),
            ],
        ),
        s(
            "drift-hooks",
            "A chart with a hook that deletes itself once it ran, deployed, and nothing changed: the hook is not in the cluster, and that is no drift.",
            vec![
                vec![edit("shop/values.yaml", "port: 80", "port: 80\nhook: true")],
                deployed(SHOP),
                preview(SHOP, Take::First, true),
                drift_check(SHOP, Take::First),
            ],
        ),
        s(
            "drift-repaired",
            "shop drifted (the greeting changed by hand, the Secret deleted), and apply deploys over it: the fresh preview and its render, the drift check, the render again, the version, on Helm 4 how the release is applied, the deploy, and the drift check after it, which finds nothing.",
            vec![
                deployed(SHOP),
                vec![greeting_by_hand(), secret_deleted()],
                preview(SHOP, Take::First, true),
                drift_found(drift_check(SHOP, Take::First)),
                deploy(SHOP, major, &[], true, Zero),
                drift_check(SHOP, Take::After),
            ],
        ),
        s(
            "log-diff",
            "The tool diff of new values and a rotated key, for the job log (record 0048): the release as deployed, then the render.",
            vec![
                deployed(SHOP),
                vec![
                    theme(),
                    edit(
                        "shop/values.yaml",
                        "apiKey: CANARY-SECRET",
                        "apiKey: CANARY-SECRET-ROTATED",
                    ),
                    record(
                        "tool-diff-list",
                        "shop",
                        SHOP.list(),
                        StdoutFormat::Json,
                        Zero,
                    ),
                    record(
                        "tool-diff-manifest",
                        "shop",
                        SHOP.get("manifest"),
                        StdoutFormat::Text,
                        Zero,
                    ),
                    record(
                        "tool-diff-hooks",
                        "shop",
                        SHOP.get("hooks"),
                        StdoutFormat::Text,
                        Zero,
                    ),
                    record(
                        "tool-diff-render",
                        "shop",
                        SHOP.render(),
                        StdoutFormat::Text,
                        Zero,
                    ),
                ],
            ],
        ),
        s(
            "program-error",
            "A values file that sets the greeting the chart requires to null: the render fails.",
            vec![
                fresh(),
                vec![
                    edit("shop/values.yaml", "motd: open", "motd: null"),
                    record("render", "shop", SHOP.render(), StdoutFormat::Text, Nonzero),
                ],
            ],
        ),
        s(
            "same-diff-twice",
            "The same preview of shop twice, to see that the order of the changes holds.",
            vec![
                deployed(SHOP),
                vec![theme(), edit("shop/values.yaml", "port: 80", "port: 8080")],
                preview(SHOP, Take::First, true),
                preview(SHOP, Take::Again, true),
            ],
        ),
        s(
            "unstable-render",
            "A template with a random value: two renders of the same chart and values differ, so the deploy is refused before it starts.",
            vec![
                fresh(),
                vec![edit(
                    "shop/values.yaml",
                    "port: 80",
                    "port: 80\nnonce: true",
                )],
                preview(SHOP, Take::First, false),
                vec![record(
                    "render-again",
                    "shop",
                    SHOP.render(),
                    StdoutFormat::Text,
                    Zero,
                )],
            ],
        ),
        s(
            "values-missing",
            "A values file the stack names is not there: the render fails before anything is compared.",
            vec![vec![
                Step::Remove {
                    file: "shop/values.yaml",
                },
                record("render", "shop", SHOP.render(), StdoutFormat::Text, Nonzero),
            ]],
        ),
        s(
            "failed-release",
            "shop installed by hand without a rollback, with a port the API server refuses: Helm holds the release failed, and the preview says so instead of comparing against it.",
            vec![
                fresh(),
                vec![
                    edit("shop/values.yaml", "port: 80", "port: 70000"),
                    // The install must fail, and a set-up step must succeed.
                    setup(
                        "shop",
                        vec![
                            "sh".to_owned(),
                            "-c".to_owned(),
                            format!("! {}", SHOP.upgrade().join(" ")),
                        ],
                    ),
                    edit("shop/values.yaml", "port: 70000", "port: 80"),
                ],
                preview(SHOP, Take::First, false),
            ],
        ),
    ]
}

/// shop with the banner's values file after its own.
const SHOP_WITH_BANNER: Release = Release {
    values: &["values.yaml", "banner.yaml"],
    ..SHOP
};

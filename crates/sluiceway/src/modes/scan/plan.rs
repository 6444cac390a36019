//! The scan plan: a full scan, or one narrowed to the stacks a push touched (decision
//! 0010). Narrowing fails open: whenever the push's changed files cannot be trusted or a
//! changed file is claimed by no stack, every stack is previewed, and the log says why.

use std::collections::BTreeSet;

use sluiceway_core::claim::{Claim, Claimants, Claims};
use sluiceway_core::stack::{Stack, StackId};
use sluiceway_dashboard::facts::RowState;
use sluiceway_dashboard::reader::ReadBody;
use sluiceway_github::{ChangedFile, Comparison};

use crate::modes::job::Event;

/// From this many changed files on, GitHub's compare may leave files out.
pub const MOST_COMPARED_FILES: usize = 300;

/// Which stacks this scan previews, and why, in a sentence for the job log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanPlan {
    /// `None` for a full scan.
    pub narrowed_to: Option<BTreeSet<StackId>>,
    pub why: String,
    /// Changed files no stack claims, listed in their own log group.
    pub unclaimed: Vec<String>,
}

impl ScanPlan {
    pub fn is_full(&self) -> bool {
        self.narrowed_to.is_none()
    }

    pub fn previews(&self, id: &StackId) -> bool {
        self.narrowed_to.as_ref().is_none_or(|set| set.contains(id))
    }

    fn full(why: String) -> ScanPlan {
        ScanPlan {
            narrowed_to: None,
            why,
            unclaimed: Vec::new(),
        }
    }

    /// `scan --local`: no dashboard to narrow from.
    pub fn local() -> ScanPlan {
        ScanPlan::full(
            "This is a full scan: a local scan has no dashboard to narrow from.".to_owned(),
        )
    }

    pub(super) fn fell_back(why: impl std::fmt::Display) -> ScanPlan {
        ScanPlan::full(format!(
            "This is a full scan. A push gives a narrowed scan, and this one fell back to a full scan: {why}."
        ))
    }
}

/// What the plan is made from.
pub struct Facts<'a> {
    pub event: &'a Event,
    pub stacks: &'a [Stack],
    pub claims: &'a Claims,
    pub claimants: &'a Claimants,
    /// The live dashboard body as read, or `None` when there is no dashboard.
    pub live: Option<&'a ReadBody>,
    /// The updates merged, when this is the scan a resolve asked for after merging them:
    /// it narrows like a push (decision 0064).
    pub merged: &'a [u64],
}

/// Plans the scan. `compare` asks GitHub for the files changed since a commit; it is
/// called at most once, and only for a push with a trustworthy dashboard.
pub fn plan(
    facts: &Facts<'_>,
    compare: impl FnOnce(&str) -> Result<Comparison, String>,
) -> ScanPlan {
    let after_merge = *facts.event == Event::Dispatch && !facts.merged.is_empty();
    if *facts.event != Event::Push && !after_merge {
        return ScanPlan::full(format!(
            "This is a full scan: the event is {}, and only a push or the scan after a merge gives a narrowed scan.",
            facts.event.name()
        ));
    }
    let Some(live) = facts.live else {
        return ScanPlan::fell_back("there is no dashboard yet");
    };
    let Some(root) = live.root.as_ref().filter(|r| r.get("v") == Some("1")) else {
        return ScanPlan::fell_back(
            "the dashboard's first line is not a marker this version reads",
        );
    };
    let Some(base) = root.get("scan-sha").filter(|sha| is_commit(sha)) else {
        return ScanPlan::fell_back("the dashboard does not say which commit it last scanned");
    };
    let comparison = match compare(base) {
        Ok(comparison) => comparison,
        Err(why) => return ScanPlan::fell_back(why),
    };
    if !matches!(comparison.status.as_str(), "ahead" | "identical") {
        return ScanPlan::fell_back(format_args!(
            "GitHub compares this commit with the last scanned one as {}, and only ahead or identical is trusted",
            comparison.status
        ));
    }
    if comparison.files.len() >= MOST_COMPARED_FILES {
        return ScanPlan::fell_back(format_args!(
            "the push changed {MOST_COMPARED_FILES} files or more, more than GitHub lists in full"
        ));
    }
    let Sorted {
        touched,
        unclaimed,
        config,
    } = sort(&comparison.files, facts.claims, facts.claimants);
    if let Some(path) = config {
        return ScanPlan::fell_back(format_args!("{path} changed, so every stack is previewed"));
    }
    if let Some(first) = unclaimed.first() {
        let more = match unclaimed.len() - 1 {
            0 => String::new(),
            1 => " and 1 more changed file".to_owned(),
            n => format!(" and {n} more changed files"),
        };
        let mut plan = ScanPlan::fell_back(format_args!("no stack claims {first}{more}"));
        plan.unclaimed = unclaimed.into_iter().collect();
        return plan;
    }
    let mut narrowed: BTreeSet<StackId> = touched
        .into_iter()
        .map(|i| facts.stacks[i].id.clone())
        .collect();
    let claimed = narrowed.len();
    for stack in facts.stacks {
        let row = live
            .rows
            .iter()
            .find(|r| r.facts.stack == stack.id.as_str());
        let again = match row {
            None => true,
            Some(row) => row.facts.state == Some(RowState::PreviewFailed),
        };
        if again {
            narrowed.insert(stack.id.clone());
        }
    }
    let extra = narrowed.len() - claimed;
    let why = format!(
        "This is a narrowed scan: {claimed} of {} stacks claim the {} changed files{}.",
        facts.stacks.len(),
        comparison.files.len(),
        match extra {
            0 => String::new(),
            1 => ", and 1 more has no row or failed its last preview".to_owned(),
            n => format!(", and {n} more have no row or failed their last preview"),
        }
    );
    ScanPlan {
        narrowed_to: Some(narrowed),
        why,
        unclaimed: Vec::new(),
    }
}

/// Changed files under the claim rule, a rename under both its paths.
pub(super) struct Sorted {
    /// The indexes of the stacks that claim a file.
    pub touched: BTreeSet<usize>,
    pub unclaimed: BTreeSet<String>,
    /// The first changed file that is the configuration itself.
    pub config: Option<String>,
}

pub(super) fn sort(files: &[ChangedFile], claims: &Claims, claimants: &Claimants) -> Sorted {
    let mut sorted = Sorted {
        touched: BTreeSet::new(),
        unclaimed: BTreeSet::new(),
        config: None,
    };
    let paths = files
        .iter()
        .flat_map(|f| std::iter::once(&f.path).chain(f.previous_path.as_ref()));
    for path in paths {
        match claims.claim(path) {
            Claim::Config => {
                sorted.config.get_or_insert_with(|| path.clone());
            }
            Claim::Unclaimed => {
                sorted.unclaimed.insert(path.clone());
            }
            Claim::Unrelated => {}
            Claim::Stacks => sorted.touched.extend(claimants.of(path)),
        }
    }
    sorted
}

/// A full commit id: 40 (SHA-1) or 64 (SHA-256) lower-case hex digits.
fn is_commit(sha: &str) -> bool {
    matches!(sha.len(), 40 | 64) && sha.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

#[cfg(test)]
mod tests {
    use sluiceway_core::stack::{Origin, StackSettings, Tool, ToolOptions};
    use sluiceway_dashboard::reader;
    use sluiceway_github::ChangedFile;

    use super::*;

    const SHA: &str = "34e410f2ce7bd7cfd94d9a2f1d5bc0b2dcc6aa91";

    fn stack(path: &str, inputs: &[&str]) -> Stack {
        Stack {
            id: StackId::derive(path, None),
            path: path.to_owned(),
            name: None,
            tool: Tool::Kubectl,
            options: ToolOptions::Pulumi,
            origin: Origin::Declared(0),
            settings: StackSettings {
                inputs: inputs.iter().map(|s| (*s).to_owned()).collect(),
                ..Default::default()
            },
        }
    }

    /// A live body with these rows (stack, state) under a root marker.
    fn body(root: &str, rows: &[(&str, &str)]) -> ReadBody {
        let mut text = format!("{root}\n\n");
        for (stack, state) in rows {
            text.push_str(&format!(
                "- [ ] **{stack}** <!-- sluiceway:row stack=\"{stack}\" state=\"{state}\" -->\n  <!-- /sluiceway:row -->\n"
            ));
        }
        reader::read(&text)
    }

    fn root(sha: &str) -> String {
        format!(
            "<!-- sluiceway:dashboard v=\"1\" scan-sha=\"{sha}\" scan-run=\"1\" scan-at=\"2026-11-30T10:00:00Z\" -->"
        )
    }

    fn files(paths: &[&str]) -> Comparison {
        Comparison {
            status: "ahead".to_owned(),
            ahead_by: 1,
            files: paths
                .iter()
                .map(|p| ChangedFile {
                    path: (*p).to_owned(),
                    previous_path: None,
                })
                .collect(),
            html_url: String::new(),
        }
    }

    struct Repo {
        stacks: Vec<Stack>,
        claims: Claims,
        claimants: Claimants,
    }

    fn repo() -> Repo {
        let stacks = vec![
            stack("apps/api", &["proto/**"]),
            stack("apps/web", &[]),
            stack("infra", &[]),
        ];
        Repo {
            claims: Claims::new(&stacks, &["scripts/**".to_owned()], Some("sluiceway.yaml"))
                .unwrap(),
            claimants: Claimants::new(&stacks).unwrap(),
            stacks,
        }
    }

    fn all_rows() -> ReadBody {
        body(
            &root(SHA),
            &[
                ("apps/api", "pending"),
                ("apps/web", "in-sync"),
                ("infra", "in-sync"),
            ],
        )
    }

    fn plan_with(
        event: Event,
        live: Option<&ReadBody>,
        compare: Result<Comparison, String>,
    ) -> ScanPlan {
        plan_after(event, &[], live, compare)
    }

    fn plan_after(
        event: Event,
        merged: &[u64],
        live: Option<&ReadBody>,
        compare: Result<Comparison, String>,
    ) -> ScanPlan {
        let repo = repo();
        let mut asked = None;
        let plan = plan(
            &Facts {
                event: &event,
                stacks: &repo.stacks,
                claims: &repo.claims,
                claimants: &repo.claimants,
                live,
                merged,
            },
            |base| {
                asked = Some(base.to_owned());
                compare
            },
        );
        if let Some(base) = asked {
            assert_eq!(base, SHA, "compared from the last scanned commit");
        }
        plan
    }

    fn narrowed(plan: &ScanPlan) -> Vec<&str> {
        plan.narrowed_to
            .as_ref()
            .expect("a narrowed scan")
            .iter()
            .map(StackId::as_str)
            .collect()
    }

    #[test]
    fn only_a_push_narrows() {
        for event in [
            Event::Schedule,
            Event::Dispatch,
            Event::Other("issues".into()),
        ] {
            let plan = plan_with(event.clone(), Some(&all_rows()), Ok(files(&["infra/a.tf"])));
            assert!(plan.is_full());
            assert_eq!(
                plan.why,
                format!(
                    "This is a full scan: the event is {}, and only a push or the scan after a merge gives a narrowed scan.",
                    event.name()
                )
            );
        }
        // The scan a resolve asked for after merging updates narrows like a push.
        let after = plan_after(
            Event::Dispatch,
            &[418],
            Some(&all_rows()),
            Ok(files(&["infra/a.tf"])),
        );
        assert!(!after.is_full(), "{}", after.why);
    }

    #[test]
    fn a_push_previews_the_stacks_that_claim_its_files() {
        let plan = plan_with(
            Event::Push,
            Some(&all_rows()),
            Ok(files(&["proto/a.proto", "scripts/x.sh"])),
        );
        assert_eq!(narrowed(&plan), ["apps/api"]);
        assert_eq!(
            plan.why,
            "This is a narrowed scan: 1 of 3 stacks claim the 2 changed files."
        );
    }

    #[test]
    fn a_renamed_file_counts_under_both_paths() {
        let mut comparison = files(&["infra/b.tf"]);
        comparison.files[0].previous_path = Some("apps/web/b.tf".into());
        let plan = plan_with(Event::Push, Some(&all_rows()), Ok(comparison));
        assert_eq!(narrowed(&plan), ["apps/web", "infra"]);
    }

    #[test]
    fn stacks_with_no_row_or_a_failed_row_are_always_previewed() {
        let live = body(
            &root(SHA),
            &[("apps/api", "in-sync"), ("apps/web", "preview-failed")],
        );
        let plan = plan_with(Event::Push, Some(&live), Ok(files(&["apps/api/x"])));
        assert_eq!(narrowed(&plan), ["apps/api", "apps/web", "infra"]);
        assert!(
            plan.why
                .ends_with(", and 2 more have no row or failed their last preview.")
        );
    }

    #[test]
    fn every_untrusted_comparison_falls_back_to_a_full_scan() {
        let fell_back = |why: &str| {
            format!(
                "This is a full scan. A push gives a narrowed scan, and this one fell back to a full scan: {why}."
            )
        };
        let cases: Vec<(Option<ReadBody>, Result<Comparison, String>, String)> = vec![
            (None, Ok(files(&[])), fell_back("there is no dashboard yet")),
            (
                Some(body("<!-- sluiceway:dashboard v=\"2\" -->", &[])),
                Ok(files(&[])),
                fell_back("the dashboard's first line is not a marker this version reads"),
            ),
            (
                Some(body("no marker here", &[])),
                Ok(files(&[])),
                fell_back("the dashboard's first line is not a marker this version reads"),
            ),
            (
                Some(body(&root("abc123"), &[])),
                Ok(files(&[])),
                fell_back("the dashboard does not say which commit it last scanned"),
            ),
            (
                Some(all_rows()),
                Err("GitHub could not compare the commits (404)".into()),
                fell_back("GitHub could not compare the commits (404)"),
            ),
            (
                Some(all_rows()),
                Ok(Comparison {
                    status: "diverged".into(),
                    ..files(&["infra/a.tf"])
                }),
                fell_back(
                    "GitHub compares this commit with the last scanned one as diverged, and only ahead or identical is trusted",
                ),
            ),
            (
                Some(all_rows()),
                Ok(files(&["sluiceway.yaml"])),
                fell_back("sluiceway.yaml changed, so every stack is previewed"),
            ),
            (
                Some(all_rows()),
                Ok(files(&["package.json", "infra/a.tf", "Makefile"])),
                fell_back("no stack claims Makefile and 1 more changed file"),
            ),
        ];
        for (live, compare, why) in cases {
            let plan = plan_with(Event::Push, live.as_ref(), compare);
            assert!(plan.is_full(), "{why}");
            assert_eq!(plan.why, why);
        }
    }

    #[test]
    fn three_hundred_files_are_not_trusted_and_two_hundred_ninety_nine_are() {
        let many = |n: usize| {
            let paths: Vec<String> = (0..n).map(|i| format!("infra/f{i}.tf")).collect();
            files(&paths.iter().map(String::as_str).collect::<Vec<_>>())
        };
        let trusted = plan_with(Event::Push, Some(&all_rows()), Ok(many(299)));
        assert_eq!(narrowed(&trusted), ["infra"]);
        let cut = plan_with(Event::Push, Some(&all_rows()), Ok(many(300)));
        assert!(cut.is_full());
        assert!(cut.why.contains("300 files or more"));
    }

    #[test]
    fn identical_commits_narrow_to_the_stacks_that_need_it_only() {
        let comparison = Comparison {
            status: "identical".into(),
            ..files(&[])
        };
        let plan = plan_with(Event::Push, Some(&all_rows()), Ok(comparison));
        assert!(narrowed(&plan).is_empty());
    }
}

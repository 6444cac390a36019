//! Attribution (decision 0026): the pull requests and direct pushes that reached a
//! pending stack since its last deploy from the dashboard, named on its row. The range
//! runs from the commit of the stack's newest successful deployment record to the
//! scanned commit, inside one walk of recent commits per job. A change the stack claims
//! is named; a change with a file no stack claims is only counted, as outside this
//! stack; a change only other stacks claim is left out. Pure: the walk and the pushes'
//! files come in.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use sluiceway_core::claim::{Claim, Claimants, Claims};
use sluiceway_dashboard::shipped::Shipped;
use sluiceway_dashboard::view::{Attributed, Attribution};
use sluiceway_github::{Actor, ActorKind, CommitFacts};

/// A pull request with more files than GitHub lists, or a push with this many, is only
/// counted: its files cannot all be known.
const MOST_PULL_FILES: u64 = 100;
const MOST_PUSH_FILES: usize = 300;

/// One change that reached the default branch: a merged pull request, or a direct push.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    pub attributed: Attributed,
    /// `None` when the files cannot all be known.
    pub files: Option<Vec<String>>,
}

/// The walk of one job: recent commits newest first, and what each brought.
pub struct Walk<'a> {
    pub commits: &'a [CommitFacts],
    /// The files of each direct push (a commit with no merged pull request), by sha;
    /// a push whose files could not be read is missing.
    pub push_files: &'a HashMap<String, Vec<String>>,
    /// Only pull requests merged into this branch count; `None` takes any.
    pub default_branch: Option<&'a str>,
}

impl Walk<'_> {
    /// The commits of the walk that `start` does not reach, newest first, and whether
    /// `start` lies inside the walk.
    fn since(&self, start: &str) -> (Vec<&CommitFacts>, bool) {
        let by_sha: HashMap<&str, &CommitFacts> =
            self.commits.iter().map(|c| (c.sha.as_str(), c)).collect();
        let inside = by_sha.contains_key(start);
        let mut reached = BTreeSet::new();
        let mut next = vec![start];
        while let Some(sha) = next.pop() {
            if reached.insert(sha)
                && let Some(commit) = by_sha.get(sha)
            {
                next.extend(commit.parents.iter().map(String::as_str));
            }
        }
        let range = self
            .commits
            .iter()
            .filter(|c| !reached.contains(c.sha.as_str()))
            .collect();
        (range, inside)
    }

    /// The commits of the walk that `to` reaches and `from` does not, newest first;
    /// whether `from` lies inside the walk; `None` when `to` is not in it.
    fn between(&self, from: &str, to: &str) -> Option<(Vec<&CommitFacts>, bool)> {
        let by_sha: HashMap<&str, &CommitFacts> =
            self.commits.iter().map(|c| (c.sha.as_str(), c)).collect();
        by_sha.get(to)?;
        let reach = |start: &str| {
            let mut reached = BTreeSet::new();
            let mut next = vec![start.to_owned()];
            while let Some(sha) = next.pop() {
                if let Some(commit) = by_sha.get(sha.as_str())
                    && reached.insert(commit.sha.clone())
                {
                    next.extend(commit.parents.iter().cloned());
                }
            }
            reached
        };
        let (reached, before) = (reach(to), reach(from));
        let range = self
            .commits
            .iter()
            .filter(|c| reached.contains(&c.sha) && !before.contains(&c.sha))
            .collect();
        Some((range, by_sha.contains_key(from)))
    }

    /// The changes in the commits given, newest first, each pull request once.
    fn units(&self, commits: &[&CommitFacts]) -> Vec<Unit> {
        let mut units = Vec::new();
        let mut seen = BTreeSet::new();
        for commit in commits {
            let merged: Vec<_> = commit
                .pull_requests
                .iter()
                .filter(|pr| self.default_branch.is_none_or(|b| pr.base == b))
                .collect();
            if merged.is_empty() {
                units.push(Unit {
                    attributed: Attributed::Push {
                        sha: commit.sha.clone(),
                        author: login(commit.author.as_ref()),
                    },
                    files: self
                        .push_files
                        .get(&commit.sha)
                        .filter(|f| f.len() < MOST_PUSH_FILES)
                        .cloned(),
                });
            }
            for pr in merged {
                if seen.insert(pr.number) {
                    units.push(Unit {
                        attributed: Attributed::PullRequest {
                            number: pr.number,
                            author: login(pr.author.as_ref()),
                        },
                        files: (pr.changed_files <= MOST_PULL_FILES).then(|| pr.files.clone()),
                    });
                }
            }
        }
        units
    }

    /// The direct pushes of the walk, whose files the scan must read.
    pub fn pushes(commits: &[CommitFacts], default_branch: Option<&str>) -> Vec<String> {
        commits
            .iter()
            .filter(|c| {
                !c.pull_requests
                    .iter()
                    .any(|pr| default_branch.is_none_or(|b| pr.base == b))
            })
            .map(|c| c.sha.clone())
            .collect()
    }
}

fn login(actor: Option<&Actor>) -> String {
    match actor {
        Some(actor) if actor.kind == ActorKind::Bot && !actor.login.ends_with("[bot]") => {
            format!("{}[bot]", actor.login)
        }
        Some(actor) => actor.login.clone(),
        None => "an unknown author".to_owned(),
    }
}

/// What the rows need to say who changed what.
pub struct Attributing<'a> {
    pub walk: Walk<'a>,
    pub claims: &'a Claims,
    pub claimants: &'a Claimants,
    /// The scanned commit.
    pub head: &'a str,
    /// `https://github.com/owner/name`, for the compare link.
    pub repository_url: String,
}

/// The attribution of the stack at `index` (into the stacks the claimants were made
/// from), whose last deploy was from `last_deploy` (a commit), if ever.
pub fn attribute(a: &Attributing<'_>, index: usize, last_deploy: Option<&str>) -> Attribution {
    let Some(start) = last_deploy else {
        return Attribution {
            changes: Vec::new(),
            outside: 0,
            compare: None,
            deployed: false,
            earlier: false,
        };
    };
    let (range, inside) = a.walk.since(start);
    let mut changes = Vec::new();
    let mut outside = 0;
    for unit in a.walk.units(&range) {
        let Some(files) = &unit.files else {
            outside += 1;
            continue;
        };
        if files.iter().any(|f| a.claimants.of(f).contains(&index)) {
            changes.push(unit.attributed);
        } else if files.iter().any(|f| a.claims.claim(f) == Claim::Unclaimed) {
            outside += 1;
        }
    }
    Attribution {
        changes,
        outside,
        compare: Some(format!(
            "{}/compare/{}...{}",
            a.repository_url,
            short(start),
            short(a.head)
        )),
        deployed: true,
        earlier: !inside,
    }
}

/// What the deploy of `record` shipped for the stack at `index`: the changes it claims
/// between the commit of its success before (`from`) and its own (`to`). `None` when its
/// own commit lies beyond the walk, or the range holds nothing (decision 0072).
pub fn shipped(
    a: &Attributing<'_>,
    index: usize,
    record: u64,
    from: &str,
    to: &str,
) -> Option<Shipped> {
    let (range, inside) = a.walk.between(from, to)?;
    let mut changes = Vec::new();
    let mut outside = 0;
    for unit in a.walk.units(&range) {
        let Some(files) = &unit.files else {
            outside += 1;
            continue;
        };
        if files.iter().any(|f| a.claimants.of(f).contains(&index)) {
            changes.push(unit.attributed);
        } else if files.iter().any(|f| a.claims.claim(f) == Claim::Unclaimed) {
            outside += 1;
        }
    }
    (!changes.is_empty() || outside > 0).then(|| Shipped {
        record,
        changes,
        outside,
        earlier: !inside,
        from: from.to_owned(),
        to: to.to_owned(),
    })
}

fn short(sha: &str) -> &str {
    sha.get(..12).unwrap_or(sha)
}

/// Every pending stack's attribution, by index.
pub fn all(
    a: &Attributing<'_>,
    stacks: &[usize],
    last_deploys: &BTreeMap<usize, String>,
) -> BTreeMap<usize, Attribution> {
    stacks
        .iter()
        .map(|&i| (i, attribute(a, i, last_deploys.get(&i).map(String::as_str))))
        .collect()
}

#[cfg(test)]
mod tests {
    use sluiceway_core::stack::{Origin, Stack, StackId, StackSettings, Tool, ToolOptions};
    use sluiceway_github::MergedPullRequest;

    use super::*;

    fn stack(path: &str) -> Stack {
        Stack {
            id: StackId::derive(path, None),
            path: path.to_owned(),
            name: None,
            tool: Tool::OpenTofu,
            options: ToolOptions::Pulumi,
            origin: Origin::Declared(0),
            settings: StackSettings::default(),
        }
    }

    fn person(login: &str) -> Option<Actor> {
        Some(Actor {
            login: login.to_owned(),
            kind: ActorKind::User,
        })
    }

    fn commit(sha: &str, parents: &[&str], pr: Option<(u64, &str, &[&str])>) -> CommitFacts {
        CommitFacts {
            sha: sha.to_owned(),
            parents: parents.iter().map(|p| (*p).to_owned()).collect(),
            author: person("pusher"),
            html_url: String::new(),
            pull_requests: pr
                .map(|(number, author, files)| MergedPullRequest {
                    number,
                    title: String::new(),
                    author: person(author),
                    base: "main".to_owned(),
                    html_url: String::new(),
                    files: files.iter().map(|f| (*f).to_owned()).collect(),
                    changed_files: files.len() as u64,
                })
                .into_iter()
                .collect(),
        }
    }

    /// `e` merges `d` (a side branch from `b`) into `c`; newest first.
    fn history() -> Vec<CommitFacts> {
        vec![
            commit("e", &["c", "d"], Some((7, "erin", &["infra/a.tf"]))),
            commit("d", &["b"], Some((7, "erin", &["infra/a.tf"]))),
            commit("c", &["b"], None),
            commit(
                "b",
                &["a"],
                Some((5, "bob", &["apps/x.ts", "package.json"])),
            ),
            commit("a", &[], None),
        ]
    }

    fn with<R>(push_files: &[(&str, &[&str])], f: impl FnOnce(&Attributing<'_>) -> R) -> R {
        let stacks = [stack("infra"), stack("apps")];
        let claims = Claims::new(&stacks, &[], None).unwrap();
        let claimants = Claimants::new(&stacks).unwrap();
        let commits = history();
        let push_files = push_files
            .iter()
            .map(|(sha, files)| {
                (
                    (*sha).to_owned(),
                    files.iter().map(|f| (*f).to_owned()).collect(),
                )
            })
            .collect();
        let a = Attributing {
            walk: Walk {
                commits: &commits,
                push_files: &push_files,
                default_branch: Some("main"),
            },
            claims: &claims,
            claimants: &claimants,
            head: "e",
            repository_url: "https://github.com/acme/infra".to_owned(),
        };
        f(&a)
    }

    #[test]
    fn the_range_is_what_the_last_deploy_does_not_reach_through_merges() {
        with(&[("c", &["infra/b.tf"])], |a| {
            let infra = attribute(a, 0, Some("b"));
            assert_eq!(
                infra.changes,
                [
                    Attributed::PullRequest {
                        number: 7,
                        author: "erin".into()
                    },
                    Attributed::Push {
                        sha: "c".into(),
                        author: "pusher".into()
                    },
                ],
                "newest first, the merged pull request once"
            );
            assert_eq!(
                (infra.outside, infra.deployed, infra.earlier),
                (0, true, false)
            );
            assert_eq!(
                infra.compare.as_deref(),
                Some("https://github.com/acme/infra/compare/b...e")
            );
        });
    }

    #[test]
    fn a_change_with_an_unclaimed_file_is_counted_outside_and_one_other_stacks_claim_is_left_out() {
        with(&[("c", &["infra/b.tf"]), ("a", &["README"])], |a| {
            let apps = attribute(a, 1, Some("a"));
            assert_eq!(
                apps.changes,
                [Attributed::PullRequest {
                    number: 5,
                    author: "bob".into()
                }]
            );
            assert_eq!(apps.outside, 0, "#7 and c touch only infra");
            let infra = attribute(a, 0, Some("a"));
            assert_eq!(
                infra.outside, 1,
                "#5 brought package.json, which no stack claims"
            );
        });
    }

    #[test]
    fn a_deploy_beyond_the_walk_says_there_are_earlier_changes_and_none_says_not_deployed() {
        with(&[], |a| {
            let far = attribute(a, 0, Some("0ld"));
            assert!(far.earlier && far.deployed);
            assert_eq!(
                far.outside, 3,
                "the two pushes whose files are unknown, and #5 with its unclaimed file"
            );
            let never = attribute(a, 0, None);
            assert!(!never.deployed && never.changes.is_empty() && never.compare.is_none());
        });
    }

    #[test]
    fn a_deploy_ships_what_its_commit_reaches_and_its_success_before_does_not() {
        with(&[("c", &["infra/b.tf"])], |a| {
            // A deploy of infra at d, after a success at b: only #7 (d), not c.
            let at_d = shipped(a, 0, 9, "b", "d").unwrap();
            assert_eq!(
                at_d.changes,
                [Attributed::PullRequest {
                    number: 7,
                    author: "erin".into()
                }]
            );
            assert_eq!((at_d.record, at_d.earlier, at_d.outside), (9, false, 0));
            // At e, after a success at b: the merge brings c too.
            assert_eq!(shipped(a, 0, 9, "b", "e").unwrap().changes.len(), 2);
            // A success before beyond the walk: its older changes are not named.
            assert!(shipped(a, 0, 9, "0ld", "b").unwrap().earlier);
            // A deploy's own commit beyond the walk, or a range with nothing: no line.
            assert_eq!(shipped(a, 0, 9, "a", "zz"), None);
            assert_eq!(shipped(a, 0, 9, "d", "d"), None);
            assert_eq!(shipped(a, 1, 9, "b", "d"), None, "#7 is infra's alone");
        });
    }

    #[test]
    fn pushes_are_the_commits_without_a_pull_request_into_the_branch() {
        assert_eq!(Walk::pushes(&history(), Some("main")), ["c", "a"]);
        assert_eq!(Walk::pushes(&history(), Some("release")).len(), 5);
    }
}

//! Deploys made outside the dashboard (decision 0073): lines on the trail read from a
//! tool's own history. Each line ends with a marker, so every writer reads the lines back
//! and draws them again; only a full scan that read a stack's history replaces them.

use std::collections::BTreeSet;

use jiff::Timestamp;
use sluiceway_core::stack::StackId;

use crate::marker::Marker;

/// What a deploy outside the dashboard did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OutsideKind {
    Deploy,
    Destroy,
}

impl OutsideKind {
    fn name(self) -> &'static str {
        match self {
            OutsideKind::Deploy => "deploy",
            OutsideKind::Destroy => "destroy",
        }
    }
}

/// One deploy the tool's history lists and no deployment record of Sluiceway's names.
/// Never who ran it: only when, what, and from which commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutsideDeploy {
    pub stack: StackId,
    pub kind: OutsideKind,
    pub at: Timestamp,
    /// Forty hex digits, when the history names the commit.
    pub commit: Option<String>,
    /// The tree it ran from held uncommitted changes.
    pub dirty: bool,
}

fn is_commit(text: &str) -> bool {
    text.len() == 40 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

impl OutsideDeploy {
    /// A deploy read from a history entry; a commit that is not forty hex digits is
    /// dropped.
    pub fn new(
        stack: StackId,
        kind: OutsideKind,
        at: Timestamp,
        commit: Option<String>,
        dirty: bool,
    ) -> OutsideDeploy {
        OutsideDeploy {
            stack,
            kind,
            at,
            commit: commit.filter(|c| is_commit(c)),
            dirty,
        }
    }

    pub fn marker(&self) -> Marker {
        Marker::new("outside")
            .with("stack", self.stack.as_str())
            .with("kind", self.kind.name())
            .with("at", self.at.to_string())
            .with("commit", self.commit.clone().unwrap_or_default())
            .with("dirty", if self.dirty { "true" } else { "" })
    }

    /// The deploy a marker names; `None` when a fact is missing or broken.
    pub fn from_marker(marker: &Marker) -> Option<OutsideDeploy> {
        if marker.kind != "outside" {
            return None;
        }
        let kind = match marker.get("kind")? {
            "deploy" => OutsideKind::Deploy,
            "destroy" => OutsideKind::Destroy,
            _ => return None,
        };
        let commit = match marker.get("commit") {
            Some(c) if is_commit(c) => Some(c.to_owned()),
            Some(_) => return None,
            None => None,
        };
        Some(OutsideDeploy {
            stack: StackId::given(marker.get("stack").filter(|s| !s.is_empty())?),
            kind,
            at: marker.get("at")?.parse().ok()?,
            commit,
            dirty: marker.get("dirty") == Some("true"),
        })
    }
}

/// The lines a body holds, from their markers: broken ones left out, and of two lines
/// with the same facts the first kept.
pub fn from_markers<'a>(markers: impl IntoIterator<Item = &'a Marker>) -> Vec<OutsideDeploy> {
    let mut seen = BTreeSet::new();
    markers
        .into_iter()
        .filter_map(OutsideDeploy::from_marker)
        .filter(|d| seen.insert((d.stack.clone(), d.kind, d.at, d.commit.clone(), d.dirty)))
        .collect()
}

/// The lines a full scan draws: those of every stack whose history it read are its
/// fresh ones; the others are carried, but only for stacks that still exist.
pub fn merge(
    carried: Vec<OutsideDeploy>,
    fresh: Vec<OutsideDeploy>,
    read: &BTreeSet<StackId>,
    existing: &BTreeSet<StackId>,
) -> Vec<OutsideDeploy> {
    let mut lines: Vec<OutsideDeploy> = carried
        .into_iter()
        .filter(|d| !read.contains(&d.stack))
        .chain(fresh)
        .filter(|d| existing.contains(&d.stack))
        .collect();
    lines.sort_by(|a, b| b.at.cmp(&a.at).then_with(|| a.stack.cmp(&b.stack)));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHA: &str = "7790ca54d9cff99a5dbeb4740ff3416ea32ce443";

    fn deploy(stack: &str, at: &str) -> OutsideDeploy {
        OutsideDeploy::new(
            StackId::given(stack),
            OutsideKind::Deploy,
            at.parse().unwrap(),
            Some(SHA.into()),
            true,
        )
    }

    #[test]
    fn a_marker_round_trips() {
        let line = deploy("network:dev", "2026-09-21T18:11:00Z");
        let rendered = line.marker().render();
        assert_eq!(
            rendered,
            format!(
                "<!-- sluiceway:outside stack=\"network:dev\" kind=\"deploy\" at=\"2026-09-21T18:11:00Z\" commit=\"{SHA}\" dirty=\"true\" -->"
            )
        );
        let read = Marker::at_end_of(&format!("- a line {rendered}")).unwrap();
        assert_eq!(OutsideDeploy::from_marker(&read), Some(line));
    }

    #[test]
    fn broken_markers_are_ignored_and_a_second_line_of_the_same_facts_dropped() {
        let good = deploy("a", "2026-09-21T18:11:00Z").marker();
        let broken = [
            Marker::new("outside")
                .with("stack", "a")
                .with("kind", "deploy"),
            Marker::new("outside")
                .with("stack", "a")
                .with("kind", "rollback")
                .with("at", "2026-09-21T18:11:00Z"),
            Marker::new("outside")
                .with("stack", "a")
                .with("kind", "deploy")
                .with("at", "yesterday"),
            Marker::new("outside")
                .with("stack", "a")
                .with("kind", "deploy")
                .with("at", "2026-09-21T18:11:00Z")
                .with("commit", "abc"),
        ];
        let markers: Vec<Marker> = [good.clone()]
            .into_iter()
            .chain(broken)
            .chain([good])
            .collect();
        assert_eq!(from_markers(&markers).len(), 1);
        assert!(
            OutsideDeploy::new(
                StackId::given("a"),
                OutsideKind::Destroy,
                "2026-09-21T18:11:00Z".parse().unwrap(),
                Some("zz".into()),
                false
            )
            .commit
            .is_none()
        );
    }

    #[test]
    fn a_full_scan_replaces_what_it_read_and_drops_stacks_that_are_gone() {
        let carried = vec![
            deploy("a", "2026-09-20T00:00:00Z"),
            deploy("b", "2026-09-20T00:00:00Z"),
            deploy("gone", "2026-09-20T00:00:00Z"),
        ];
        let fresh = vec![deploy("a", "2026-09-22T00:00:00Z")];
        let read = BTreeSet::from([StackId::given("a")]);
        let existing = BTreeSet::from(["a", "b"].map(StackId::given));
        let merged = merge(carried, fresh, &read, &existing);
        let names: Vec<(&str, String)> = merged
            .iter()
            .map(|d| (d.stack.as_str(), d.at.to_string()))
            .collect();
        assert_eq!(
            names,
            [
                ("a", "2026-09-22T00:00:00Z".to_owned()),
                ("b", "2026-09-20T00:00:00Z".to_owned())
            ]
        );
    }
}

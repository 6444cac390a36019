//! What a deploy on the trail shipped (decision 0072): the pull requests and pushes its
//! stack claims between the stack's success before and this deploy's commit, named on a
//! second line under the trail's line. Only a scan walks the commits; the line ends with
//! a marker, so every other writer reads it back and draws it again as it was.

use std::collections::BTreeMap;

use crate::marker::{Marker, join_list, split_list};
use crate::view::Attributed;

/// One trail line's second line, by the deployment record it belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shipped {
    /// The deployment record whose deploy shipped these.
    pub record: u64,
    /// The changes the stack claims, newest first.
    pub changes: Vec<Attributed>,
    /// Changes no stack claims, only counted.
    pub outside: usize,
    /// The success before lies beyond the commits walked: older changes are not named.
    pub earlier: bool,
    /// The commit of the success before, and of this deploy: the compare link's ends.
    pub from: String,
    pub to: String,
}

fn is_commit(text: &str) -> bool {
    text.len() == 40 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

impl Shipped {
    pub fn marker(&self) -> Marker {
        let changes: Vec<String> = self
            .changes
            .iter()
            .map(|change| match change {
                Attributed::PullRequest { number, author } => format!("pr/{number}/{author}"),
                Attributed::Push { sha, author } => format!("push/{sha}/{author}"),
            })
            .collect();
        Marker::new("shipped")
            .with("record", self.record.to_string())
            .with("changes", join_list(&changes))
            .with(
                "outside",
                if self.outside == 0 {
                    String::new()
                } else {
                    self.outside.to_string()
                },
            )
            .with("earlier", if self.earlier { "true" } else { "" })
            .with("from", self.from.clone())
            .with("to", self.to.clone())
    }

    /// The line a marker names; `None` when a fact is missing or broken.
    pub fn from_marker(marker: &Marker) -> Option<Shipped> {
        if marker.kind != "shipped" {
            return None;
        }
        let changes = split_list(marker.get("changes").unwrap_or(""))
            .iter()
            .map(|item| {
                let mut parts = item.splitn(3, '/');
                let (kind, id, author) = (parts.next()?, parts.next()?, parts.next()?);
                if author.is_empty() {
                    return None;
                }
                match kind {
                    "pr" => Some(Attributed::PullRequest {
                        number: id.parse().ok()?,
                        author: author.to_owned(),
                    }),
                    "push" if is_commit(id) => Some(Attributed::Push {
                        sha: id.to_owned(),
                        author: author.to_owned(),
                    }),
                    _ => None,
                }
            })
            .collect::<Option<Vec<_>>>()?;
        let (from, to) = (marker.get("from")?, marker.get("to")?);
        if !is_commit(from) || !is_commit(to) {
            return None;
        }
        Some(Shipped {
            record: marker.get("record")?.parse().ok()?,
            changes,
            outside: marker.get("outside").map_or(Some(0), |n| n.parse().ok())?,
            earlier: marker.get("earlier") == Some("true"),
            from: from.to_owned(),
            to: to.to_owned(),
        })
    }
}

/// The lines a body holds, by record; a broken marker is left out.
pub fn from_markers<'a>(markers: impl IntoIterator<Item = &'a Marker>) -> BTreeMap<u64, Shipped> {
    markers
        .into_iter()
        .filter_map(Shipped::from_marker)
        .map(|s| (s.record, s))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "7790ca54d9cff99a5dbeb4740ff3416ea32ce443";
    const B: &str = "34e410f2ce7bd7cfd94d9a2f1d5bc0b2dcc6aa91";

    #[test]
    fn a_marker_round_trips_and_a_broken_one_is_left_out() {
        let line = Shipped {
            record: 4711,
            changes: vec![
                Attributed::PullRequest {
                    number: 102,
                    author: "renovate[bot]".into(),
                },
                Attributed::Push {
                    sha: A.into(),
                    author: "alice".into(),
                },
            ],
            outside: 1,
            earlier: true,
            from: A.into(),
            to: B.into(),
        };
        let read = Marker::at_end_of(&format!("  shipped {}", line.marker().render())).unwrap();
        assert_eq!(Shipped::from_marker(&read), Some(line.clone()));
        let marker = |changes: &str, to: &str| {
            Marker::new("shipped")
                .with("record", "1")
                .with("changes", changes)
                .with("from", A)
                .with("to", to)
        };
        assert!(Shipped::from_marker(&marker("pr/102/dave", B)).is_some());
        for broken in [
            marker("pr/102/dave", "abc"),
            Marker::new("shipped").with("record", "1"),
            marker("pr/x/alice", B),
            marker("push/abc/alice", B),
            marker("pr/102/", B),
        ] {
            assert_eq!(Shipped::from_marker(&broken), None, "{}", broken.render());
        }
    }
}

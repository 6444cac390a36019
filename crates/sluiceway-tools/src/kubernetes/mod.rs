//! Kubernetes objects as the kubectl and Helm adapters both read them: `kubectl diff`'s
//! whole-object hunks, YAML sides read into JSON trees and named, pairs folded into
//! changes, and the rendered set a preview diffs and a deploy applies. Neither adapter
//! owns these; both stand on them.

pub mod block_yaml;
pub mod fold;
pub mod hunks;
pub mod objects;
pub mod rendered_set;

/// What makes kubectl diff whole objects: one hunk per object, from its first line.
pub const EXTERNAL_DIFF: &str = "diff -N -U1000000";
/// The variable kubectl reads its diff program from.
pub const EXTERNAL_DIFF_VAR: &str = "KUBECTL_EXTERNAL_DIFF";

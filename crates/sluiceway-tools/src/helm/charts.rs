//! Which local charts need `helm dependency build` before a release is rendered, and in
//! which order.
//!
//! A chart with dependencies renders only once they sit in its `charts/` directory. A
//! local dependency (`repository: file://…`) may have dependencies of its own, whose
//! build must come first, so each chart directory gets a level: one above the highest
//! of its local dependencies. Builds run lowest level first. Only the chart files are
//! read here; no tool runs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::kubernetes::objects::read_side;

/// A chart directory to build, with its level (1 = its dependencies have none to build).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Build {
    pub level: usize,
    pub dir: PathBuf,
}

/// The builds the chart in `chart_dir` needs, its own last, lowest level first.
pub fn builds(chart_dir: &Path) -> Vec<Build> {
    let mut levels = BTreeMap::new();
    level_of(&normal(chart_dir), &mut levels, &mut Vec::new());
    let mut builds: Vec<Build> = levels
        .into_iter()
        .filter(|(_, level)| *level > 0)
        .map(|(dir, level)| Build { level, dir })
        .collect();
    builds.sort();
    builds
}

/// 0 for a chart without dependencies (nothing to build); a chart on the way to itself
/// counts as none, and helm names the cycle when it builds.
fn level_of(dir: &Path, levels: &mut BTreeMap<PathBuf, usize>, path: &mut Vec<PathBuf>) -> usize {
    if let Some(level) = levels.get(dir) {
        return *level;
    }
    if path.iter().any(|p| p == dir) {
        return 0;
    }
    let Some(dependencies) = dependencies(dir) else {
        levels.insert(dir.to_owned(), 0);
        return 0;
    };
    path.push(dir.to_owned());
    let below = dependencies
        .iter()
        .filter_map(|repository| repository.strip_prefix("file://"))
        .map(|local| level_of(&normal(&dir.join(local)), levels, path))
        .max()
        .unwrap_or(0);
    path.pop();
    let level = below + 1;
    levels.insert(dir.to_owned(), level);
    level
}

/// The repositories of a chart's dependencies; `None` when it declares none (or its
/// `Chart.yaml` cannot be read, which the render then reports).
fn dependencies(dir: &Path) -> Option<Vec<String>> {
    let text = std::fs::read_to_string(dir.join("Chart.yaml")).ok()?;
    let chart = read_side(&text).ok()??;
    let listed = chart.get("dependencies")?.as_array()?;
    if listed.is_empty() {
        return None;
    }
    Some(
        listed
            .iter()
            .map(|d| {
                d.get("repository")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned()
            })
            .collect(),
    )
}

/// A path with `.` and `..` worked out, without touching the file system.
fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(root: &Path, name: &str, deps: &[&str]) {
        let dir = root.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        let mut text = format!("apiVersion: v2\nname: {name}\nversion: 0.1.0\n");
        if !deps.is_empty() {
            text.push_str("dependencies:\n");
            for dep in deps {
                text.push_str(&format!(
                    "  - name: {dep}\n    version: 0.1.0\n    repository: file://../{dep}\n"
                ));
            }
        }
        std::fs::write(dir.join("Chart.yaml"), text).unwrap();
    }

    #[test]
    fn nested_local_dependencies_build_from_the_bottom() {
        let root = tempfile::tempdir().unwrap();
        chart(root.path(), "base", &[]);
        chart(root.path(), "web", &["base"]);
        chart(root.path(), "worker", &["web", "base"]);
        let found: Vec<(usize, String)> = builds(&root.path().join("worker/./"))
            .into_iter()
            .map(|b| {
                (
                    b.level,
                    b.dir.file_name().unwrap().to_string_lossy().into_owned(),
                )
            })
            .collect();
        assert_eq!(found, [(1, "web".to_owned()), (2, "worker".to_owned())]);
        assert!(builds(&root.path().join("base")).is_empty());
    }

    #[test]
    fn a_cycle_ends_and_a_missing_chart_builds_nothing() {
        let root = tempfile::tempdir().unwrap();
        chart(root.path(), "a", &["b"]);
        chart(root.path(), "b", &["a"]);
        assert_eq!(builds(&root.path().join("a")).len(), 2);
        assert!(builds(&root.path().join("nowhere")).is_empty());
    }
}

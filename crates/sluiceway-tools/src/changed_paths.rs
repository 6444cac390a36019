//! Which property paths differ between the two sides of a resource.
//!
//! Both sides are compared in memory and only paths come out. A subtree marked as
//! sensitive is compared whole and reported at its own path, so no key under it (which
//! might itself say something) leaves.

use std::collections::BTreeSet;

use serde_json::Value;
use sluiceway_core::property_path::{PropertyPath, Step};

/// Every leaf path whose value differs between `before` and `after`. A missing key and
/// `null` are the same; a subtree that exists on one side only yields its leaves.
/// `is_sensitive` is asked of every path that has a name.
pub fn changed_paths(
    before: &Value,
    after: &Value,
    is_sensitive: &dyn Fn(&[Step]) -> bool,
) -> Vec<PropertyPath> {
    let mut walk = Walk {
        steps: Vec::new(),
        is_sensitive,
        found: Vec::new(),
    };
    walk.compare(Some(before), Some(after));
    walk.found
}

/// The walk keeps one stack of steps and makes a path only where a change is found, so a
/// large object costs no allocation per field.
struct Walk<'a> {
    steps: Vec<Step>,
    is_sensitive: &'a dyn Fn(&[Step]) -> bool,
    found: Vec<PropertyPath>,
}

impl Walk<'_> {
    fn here(&mut self) {
        self.found
            .push(PropertyPath::from_steps(self.steps.clone()));
    }

    fn descend(&mut self, step: Step, before: Option<&Value>, after: Option<&Value>) {
        self.steps.push(step);
        self.compare(before, after);
        self.steps.pop();
    }

    fn compare(&mut self, before: Option<&Value>, after: Option<&Value>) {
        let before = before.filter(|v| !v.is_null());
        let after = after.filter(|v| !v.is_null());
        // Nothing under equal sides differs: the walk goes down only where they part.
        if before == after {
            return;
        }
        if !self.steps.is_empty() && (self.is_sensitive)(&self.steps) {
            self.here();
            return;
        }
        match (before, after) {
            (None, None) => {}
            (Some(Value::Object(b)), Some(Value::Object(a))) => {
                let keys: BTreeSet<&String> = b.keys().chain(a.keys()).collect();
                for key in keys {
                    self.descend(Step::Field(key.clone()), b.get(key), a.get(key));
                }
            }
            (Some(Value::Array(b)), Some(Value::Array(a))) => {
                for i in 0..b.len().max(a.len()) {
                    self.descend(Step::Index(i), b.get(i), a.get(i));
                }
            }
            (Some(Value::Object(only)), None) | (None, Some(Value::Object(only))) => {
                let on_before = before.is_some();
                for (key, value) in only {
                    let (b, a) = if on_before {
                        (Some(value), None)
                    } else {
                        (None, Some(value))
                    };
                    self.descend(Step::Field(key.clone()), b, a);
                }
            }
            (Some(Value::Array(only)), None) | (None, Some(Value::Array(only))) => {
                let on_before = before.is_some();
                for (i, value) in only.iter().enumerate() {
                    let (b, a) = if on_before {
                        (Some(value), None)
                    } else {
                        (None, Some(value))
                    };
                    self.descend(Step::Index(i), b, a);
                }
            }
            _ => self.here(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn paths(before: Value, after: Value, sensitive: &[&str]) -> Vec<String> {
        let sensitive: Vec<String> = sensitive.iter().map(|s| (*s).to_owned()).collect();
        let is_sensitive = |steps: &[Step]| {
            sensitive.contains(&PropertyPath::from_steps(steps.to_vec()).to_string())
        };
        changed_paths(&before, &after, &is_sensitive)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn leaves_that_differ() {
        let before = json!({"spec": {"replicas": 1, "template": {"containers": [{"image": "a", "name": "web"}]}}});
        let after = json!({"spec": {"replicas": 2, "template": {"containers": [{"image": "b", "name": "web"}]}}});
        assert_eq!(
            paths(before, after, &[]),
            ["spec.replicas", "spec.template.containers[0].image"]
        );
    }

    #[test]
    fn added_subtrees_give_their_leaves_and_null_equals_missing() {
        let before = json!({"metadata": {"name": "x", "labels": null}});
        let after = json!({"metadata": {"name": "x", "labels": {"app.kubernetes.io/name": "web"}}, "extra": {}});
        assert_eq!(
            paths(before, after, &[]),
            ["metadata.labels[\"app.kubernetes.io/name\"]"]
        );
        assert!(paths(json!({"a": null}), json!({}), &[]).is_empty());
    }

    #[test]
    fn a_sensitive_subtree_is_one_path() {
        let before = json!({"data": {"password": "b2xk"}, "type": "Opaque"});
        let after = json!({"data": {"password": "bmV3", "token": "dA=="}, "type": "Opaque"});
        assert_eq!(paths(before.clone(), after, &["data"]), ["data"]);
        assert!(paths(before.clone(), before, &["data"]).is_empty());
    }

    #[test]
    fn a_list_that_grows_and_a_type_that_changes() {
        assert_eq!(
            paths(json!({"a": [1]}), json!({"a": [1, 2]}), &[]),
            ["a[1]"]
        );
        assert_eq!(paths(json!({"a": "x"}), json!({"a": ["x"]}), &[]), ["a"]);
    }
}

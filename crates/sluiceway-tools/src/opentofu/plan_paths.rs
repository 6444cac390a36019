//! Changed paths of one resource, from its `before`, `after`, `after_unknown` and
//! sensitive marks. A sensitive mark stops the walk: the path counts as changed if the
//! sides differ or anything below is unknown, and nothing below it is named.

use serde_json::Value;
use sluiceway_core::property_path::{PropertyPath, Step};

/// The marks at one node: whether it is sensitive before or after, unknown after.
#[derive(Clone, Copy)]
pub(super) struct Marks<'a> {
    pub before_sensitive: Option<&'a Value>,
    pub after_sensitive: Option<&'a Value>,
    pub after_unknown: Option<&'a Value>,
}

fn child<'a>(value: Option<&'a Value>, step: &Step) -> Option<&'a Value> {
    match (value?, step) {
        (Value::Object(map), Step::Field(key)) => map.get(key),
        (Value::Array(items), Step::Index(i)) => items.get(*i),
        _ => None,
    }
}

impl<'a> Marks<'a> {
    /// Whether the node at `steps` below this one is marked sensitive.
    pub(super) fn sensitive_at(&self, steps: &[Step]) -> bool {
        steps
            .iter()
            .fold(*self, |marks, step| marks.child(step))
            .sensitive()
    }

    fn child(&self, step: &Step) -> Marks<'a> {
        Marks {
            before_sensitive: child(self.before_sensitive, step),
            after_sensitive: child(self.after_sensitive, step),
            after_unknown: child(self.after_unknown, step),
        }
    }

    fn sensitive(&self) -> bool {
        self.before_sensitive == Some(&Value::Bool(true))
            || self.after_sensitive == Some(&Value::Bool(true))
    }

    fn unknown(&self) -> bool {
        self.after_unknown == Some(&Value::Bool(true))
    }

    /// Whether anything at or below is unknown after the plan.
    fn any_unknown(&self) -> bool {
        fn any(value: Option<&Value>) -> bool {
            match value {
                Some(Value::Bool(true)) => true,
                Some(Value::Object(map)) => map.values().any(|v| any(Some(v))),
                Some(Value::Array(items)) => items.iter().any(|v| any(Some(v))),
                _ => false,
            }
        }
        any(self.after_unknown)
    }
}

fn absent(value: Option<&Value>) -> Option<&Value> {
    value.filter(|v| !v.is_null())
}

pub(super) fn walk(
    before: Option<&Value>,
    after: Option<&Value>,
    marks: Marks<'_>,
    at: &mut Vec<Step>,
    found: &mut Vec<PropertyPath>,
) {
    let (before, after) = (absent(before), absent(after));
    if !at.is_empty() && marks.sensitive() {
        if before != after || marks.any_unknown() {
            found.push(PropertyPath::from_steps(at.clone()));
        }
        return;
    }
    if !at.is_empty() && marks.unknown() {
        found.push(PropertyPath::from_steps(at.clone()));
        return;
    }
    let steps: Vec<Step> = match (before, after) {
        (Some(Value::Object(b)), Some(Value::Object(a))) => {
            let mut keys: Vec<&String> = b.keys().chain(a.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().map(|k| Step::Field(k.clone())).collect()
        }
        (Some(Value::Array(b)), Some(Value::Array(a))) => {
            (0..b.len().max(a.len())).map(Step::Index).collect()
        }
        (Some(Value::Object(only)), None) | (None, Some(Value::Object(only))) => {
            only.keys().map(|k| Step::Field(k.clone())).collect()
        }
        (Some(Value::Array(only)), None) | (None, Some(Value::Array(only))) => {
            (0..only.len()).map(Step::Index).collect()
        }
        (b, a) => {
            if b != a && !at.is_empty() {
                found.push(PropertyPath::from_steps(at.clone()));
            }
            // Unknown marks below a leaf that is absent now still mean a change.
            if b == a && marks.any_unknown() && !at.is_empty() {
                found.push(PropertyPath::from_steps(at.clone()));
            }
            return;
        }
    };
    let with_unknown: Vec<Step> = match marks.after_unknown {
        Some(Value::Object(map)) => map.keys().map(|k| Step::Field(k.clone())).collect(),
        _ => Vec::new(),
    };
    let mut all = steps;
    for step in with_unknown {
        if !all.contains(&step) {
            all.push(step);
        }
    }
    for step in all {
        let marks = marks.child(&step);
        let (b, a) = (child(before, &step), child(after, &step));
        at.push(step);
        walk(b, a, marks, at, found);
        at.pop();
    }
}

/// A `replace_paths` entry as a property path, cut at the first sensitive mark.
pub(super) fn replace_path(steps: &[Value], marks: Marks<'_>) -> Option<PropertyPath> {
    let mut at = Vec::new();
    let mut marks = marks;
    for raw in steps {
        let step = match raw {
            Value::String(key) => Step::Field(key.clone()),
            Value::Number(n) => Step::Index(usize::try_from(n.as_u64()?).ok()?),
            _ => return None,
        };
        marks = marks.child(&step);
        at.push(step);
        if marks.sensitive() {
            break;
        }
    }
    (!at.is_empty()).then(|| PropertyPath::from_steps(at))
}

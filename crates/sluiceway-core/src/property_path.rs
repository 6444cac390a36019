//! The property path: where a value sits inside a resource, written the way every row,
//! summary and hash writes it: `spec.template.spec.containers[0].image`,
//! `metadata.labels["app.kubernetes.io/name"]`.

use std::fmt;

/// One step into a resource: a named field or a list index.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Step {
    Field(String),
    Index(usize),
}

/// A path built from steps; it renders to the shared notation and nothing else reads it.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PropertyPath(Vec<Step>);

impl PropertyPath {
    pub fn root() -> PropertyPath {
        PropertyPath(Vec::new())
    }

    pub fn from_steps(steps: Vec<Step>) -> PropertyPath {
        PropertyPath(steps)
    }

    pub fn field(&self, name: &str) -> PropertyPath {
        let mut steps = self.0.clone();
        steps.push(Step::Field(name.to_owned()));
        PropertyPath(steps)
    }

    pub fn index(&self, index: usize) -> PropertyPath {
        let mut steps = self.0.clone();
        steps.push(Step::Index(index));
        PropertyPath(steps)
    }

    pub fn steps(&self) -> &[Step] {
        &self.0
    }

    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `self` is `other` or lies below it.
    pub fn starts_with(&self, other: &PropertyPath) -> bool {
        self.0.starts_with(&other.0)
    }
}

/// A name written bare: a letter or `_`, then letters, digits and `_`.
fn is_bare(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl fmt::Display for PropertyPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, step) in self.0.iter().enumerate() {
            match step {
                Step::Field(name) if is_bare(name) && i == 0 => f.write_str(name)?,
                Step::Field(name) if is_bare(name) => write!(f, ".{name}")?,
                Step::Field(name) => write!(
                    f,
                    "[\"{}\"]",
                    name.replace('\\', "\\\\").replace('"', "\\\"")
                )?,
                Step::Index(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shared_notation() {
        let image = PropertyPath::root()
            .field("spec")
            .field("containers")
            .index(0)
            .field("image");
        assert_eq!(image.to_string(), "spec.containers[0].image");
        let label = PropertyPath::root()
            .field("metadata")
            .field("labels")
            .field("app.kubernetes.io/name");
        assert_eq!(
            label.to_string(),
            "metadata.labels[\"app.kubernetes.io/name\"]"
        );
        assert_eq!(
            PropertyPath::root()
                .field("data")
                .field("log-level")
                .to_string(),
            "data[\"log-level\"]"
        );
        assert_eq!(
            PropertyPath::root().field("a\"b").to_string(),
            "[\"a\\\"b\"]"
        );
        assert_eq!(PropertyPath::root().field("_x1").to_string(), "_x1");
    }
}

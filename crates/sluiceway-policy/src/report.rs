//! What the policies said about one document: per namespace, as Conftest reports it.

/// The answer for one preview document.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Report {
    /// One entry per namespace, sorted by name.
    pub namespaces: Vec<NamespaceReport>,
}

/// One namespace's answer.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NamespaceReport {
    pub namespace: String,
    /// Rules that gave no result, counted as Conftest counts them.
    pub successes: usize,
    /// Results of `deny` and `violation` rules.
    pub failures: Vec<Finding>,
    /// Results of `warn` rules.
    pub warnings: Vec<Finding>,
    /// Rules an `exception` waived.
    pub exceptions: usize,
}

/// One result of a rule: the message its author wrote, and anything else the rule put
/// beside it (`severity`, `link`). Sluiceway shows the message and never the metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub message: String,
    pub metadata: serde_json::Map<String, serde_json::Value>,
}

impl Report {
    /// Every failure, with its namespace, in namespace order.
    pub fn failures(&self) -> impl Iterator<Item = (&str, &Finding)> {
        self.namespaces
            .iter()
            .flat_map(|n| n.failures.iter().map(move |f| (n.namespace.as_str(), f)))
    }

    /// Every warning, with its namespace, in namespace order.
    pub fn warnings(&self) -> impl Iterator<Item = (&str, &Finding)> {
        self.namespaces
            .iter()
            .flat_map(|n| n.warnings.iter().map(move |f| (n.namespace.as_str(), f)))
    }

    pub fn has_failures(&self) -> bool {
        self.failures().next().is_some()
    }
}

//! The tool's own preview document, whole, for the policies (decision 0106): the plan as
//! `show -json` prints it, the rendered manifests of a kubectl or Helm stack, Pulumi's
//! preview JSON. It holds the tool's values, so it is read only when policies ask,
//! handed to them and dropped; it never reaches a row, a page or a log, and its `Debug`
//! says only how many documents it holds.

use sluiceway_core::failure::{Failure, FailureReason};

use crate::kubernetes::objects;
use crate::kubernetes::rendered_set::RenderedSet;

/// One preview's documents: one for a plan or a Pulumi preview, one per object for a
/// set of manifests (each judged on its own, as Conftest judges a YAML stream).
pub struct PreviewDocument(Vec<serde_json::Value>);

impl PreviewDocument {
    /// A JSON document as the tool printed it.
    pub fn from_json(text: &[u8]) -> Result<PreviewDocument, Failure> {
        serde_json::from_slice(text)
            .map(|one| PreviewDocument(vec![one]))
            .map_err(|_| {
                Failure::with_detail(
                    FailureReason::UnreadableOutput,
                    "The preview document: expected JSON",
                )
            })
    }

    /// The objects of a rendered set, in the set's order.
    pub fn of_set(set: &RenderedSet) -> Result<PreviewDocument, Failure> {
        let unreadable = || {
            Failure::with_detail(
                FailureReason::UnreadableOutput,
                "The rendered manifests: expected YAML",
            )
        };
        let text = std::fs::read_to_string(set.path()).map_err(|_| unreadable())?;
        objects::read_stream(&text)
            .map(PreviewDocument)
            .map_err(|_| unreadable())
    }

    pub fn documents(&self) -> &[serde_json::Value] {
        &self.0
    }
}

impl std::fmt::Debug for PreviewDocument {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PreviewDocument({} documents)", self.0.len())
    }
}

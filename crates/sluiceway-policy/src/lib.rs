//! Policies: Rego rules a team writes over a stack's preview document, evaluated inside
//! Sluiceway with the meaning Conftest gives them (decision 0106, as amended by 0034).
//!
//! A team's policies are the ones it already runs with `conftest test --all-namespaces`:
//! every package is a namespace; `deny`, `violation` (and `deny_*`, `violation_*`) rules
//! fail, `warn` (and `warn_*`) rules warn; an `exception` rule in a namespace waives the
//! rules it names; a rule's result is a message or an object with a `msg`. Sluiceway
//! reads them with the `regorus` interpreter, so a runner needs no `conftest` and a
//! scan starts no process per stack. The differential tests hold every answer to the
//! real Conftest.
//!
//! The document a policy reads holds the tool's values. It comes in from the adapter,
//! is read here and is dropped by the caller; what leaves is a [`Report`]: namespaces,
//! counts, and the messages the policies' authors wrote.
//!
//! Reading the files is [`sources`]; making them one set of rules is [`Policies::compile`];
//! asking them about a document is [`Policies::test`].

mod compile;
mod guard;
mod report;
pub mod sources;
mod test;

pub use compile::{CompileError, Policies};
pub use report::{Finding, NamespaceReport, Report};
pub use sources::{LoadError, Source};
pub use test::TestError;

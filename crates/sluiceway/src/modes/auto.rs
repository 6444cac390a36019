//! The auto mode's deploy path (decision 0077): resolve (or a merge's scan, decision
//! 0095), then apply every record it handed on, one after another in hand-on order, then
//! settle when anything was handed on. A red apply does not stop the next one or settle;
//! the step is red at the end.

use sluiceway_github::GitHub;

use crate::base::Outcome;
use crate::base::printer::Printer;
use crate::modes::apply::{self, Applying};
use crate::modes::outputs::Outputs;
use crate::modes::resolve::{self, Started};
use crate::modes::settle;

pub fn ticks(
    applying: &Applying<'_>,
    github: &dyn GitHub,
    outputs: &mut Outputs,
    printer: &mut Printer,
) -> Outcome {
    let (outcome, started) = resolve::run(
        applying.job,
        github,
        applying.clock,
        applying.notifier,
        true,
        outputs,
        printer,
    );
    deploy(applying, github, outcome, &started, outputs, printer)
}

/// Applies each deploy a step started, then settles; red when `before` was or any of
/// them is.
pub fn deploy(
    applying: &Applying<'_>,
    github: &dyn GitHub,
    before: Outcome,
    started: &[Started],
    outputs: &mut Outputs,
    printer: &mut Printer,
) -> Outcome {
    let mut outcome = before;
    for deploy in started {
        if apply::run(applying, github, deploy.deployment, outputs, printer) == Outcome::Failed {
            outcome = Outcome::Failed;
        }
    }
    if !started.is_empty()
        && settle::run(applying.job, github, applying.clock, outputs, printer) == Outcome::Failed
    {
        outcome = Outcome::Failed;
    }
    outcome
}

//! The pool: previews run a bounded number at once, started in stack-id order, one stack
//! never twice at once (decisions 0012 and 0085). The inits the previews wait for run in
//! the same slots, before the previews they free, one at a time unless the tool keeps a
//! shared plugin cache safe (ADR 0038). After the round, the previews that failed for a
//! reason that may pass are tried once more after a pause (decision 0117).

mod board;

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use sluiceway_core::diff::Diff;
use sluiceway_core::failure::{Failure, FailureReason};
use sluiceway_dashboard::view::{Policed, PolicyFailure};
use sluiceway_policy::Policies;
use sluiceway_tools::adapter::{
    Adapter, Asks, Context, Estimate, NotEstimated, Preparation, PreviewDocument, Step,
};
use sluiceway_tools::tool_log::ToolLog;

use board::{Board, Next, Task, Waited};

use crate::base::policies::Unusable;

use crate::base::printer::Progress;

/// The pause before the retry round.
pub const RETRY_PAUSE: Duration = Duration::from_secs(10);
/// The largest pool that follows the cores; an input may set more.
const MOST_FROM_CORES: usize = 8;

/// The pool's size and where it came from, for the log line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolSize {
    pub size: usize,
    pub from: SizeFrom,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeFrom {
    Input,
    Cores(usize),
    UnknownCores,
}

impl PoolSize {
    /// The input's size, else the machine's cores clamped to 1–8, else 1.
    pub fn choose(input: Option<usize>, cores: Option<usize>) -> PoolSize {
        match (input, cores) {
            (Some(size), _) => PoolSize {
                size,
                from: SizeFrom::Input,
            },
            (None, Some(cores)) if cores > 0 => PoolSize {
                size: cores.clamp(1, MOST_FROM_CORES),
                from: SizeFrom::Cores(cores),
            },
            _ => PoolSize {
                size: 1,
                from: SizeFrom::UnknownCores,
            },
        }
    }

    /// The log line that says the size and its source.
    pub fn sentence(&self) -> String {
        let previews = if self.size == 1 {
            "preview"
        } else {
            "previews"
        };
        let head = format!("The pool is {} {previews} at once", self.size);
        match self.from {
            SizeFrom::Input => format!("{head}, from the concurrency input."),
            SizeFrom::Cores(cores) if cores <= MOST_FROM_CORES => format!(
                "{head}, one for each core of this machine, which has {cores}. The concurrency input sets another size."
            ),
            SizeFrom::Cores(cores) => format!(
                "{head}: this machine has {cores} cores, and the pool follows them up to {MOST_FROM_CORES}. The concurrency input sets another size."
            ),
            SizeFrom::UnknownCores => format!(
                "{head}: this machine did not say how many cores it has. The concurrency input sets another size."
            ),
        }
    }
}

/// One stack's work in the pool.
pub struct Work<'a> {
    pub adapter: &'a Adapter,
    /// The stack's tool environment: the job's, with its own env file over it.
    pub env: &'a BTreeMap<String, String>,
    /// Run the drift check after the preview.
    pub drift: bool,
    /// Print the tool's own diff into this stack's log group.
    pub tool_diff: bool,
    /// This stack's preview limit, counted from the start of each of its tool's runs.
    pub time_limit: Duration,
    /// The rows carry value fingerprints (`valueFingerprint`).
    pub value_fingerprint: bool,
    /// The policies a pending change is judged by, or why they cannot be; `None` when
    /// the stack names none.
    pub policies: Option<Result<&'a Policies, &'a Unusable>>,
    /// Estimate what a change costs (`cost.enabled`; root modules only).
    pub cost: bool,
}

/// What the pool found for one stack, with everything for its log group.
#[derive(Debug)]
pub struct Previewed {
    pub result: Result<Diff, Failure>,
    /// The stack's log group: the tool's words and Sluiceway's notes, in order.
    pub log: Vec<String>,
    /// Both tries together.
    pub took: Duration,
    pub tries: u8,
    /// The drift check ran and failed; the preview still counts (decision 0121).
    pub drift_check: Option<Failure>,
    /// What the policies said about a pending change.
    pub policed: Option<Policed>,
    /// What a pending change costs a month, when asked.
    pub cost: Option<Result<Estimate, NotEstimated>>,
}

impl Previewed {
    /// The preview's outcome in a few words: `in sync`, `3 changes`, `failed: …`.
    pub fn outcome(&self) -> String {
        match &self.result {
            Ok(diff) if diff.is_empty() => "in sync".to_owned(),
            Ok(diff) => format!("{} changes", diff.changes.len()),
            Err(failure) => format!("failed: {}", failure.reason),
        }
    }
}

/// A preparation the pool runs before the previews that wait for it.
pub struct Prep<'a> {
    pub preparation: &'a Preparation,
    /// The environment it runs in: that of the first stack that needs it.
    pub env: &'a BTreeMap<String, String>,
    /// The works (indices into the works) whose previews wait for it.
    pub before: Vec<usize>,
    /// It may run while another preparation runs.
    pub beside_another: bool,
    /// It already ran, beside the version checks (ADR 0044): the pool starts with its
    /// step instead of running it.
    pub ended: Option<Step<()>>,
}

/// What the pool did.
pub struct Pooled {
    /// Each work's preview, in the order of the works; `None` when a preparation it
    /// waited for failed, so it never started.
    pub previewed: Vec<Option<Previewed>>,
    /// Each preparation's step, in the order given.
    pub prepared: Vec<Step<()>>,
}

/// Runs the preparations and previews every work item whose preparations passed.
pub fn preview_all(
    works: &[Work<'_>],
    preps: &mut [Prep<'_>],
    size: usize,
    ctx: &Context<'_>,
    pause: &dyn Fn(Duration),
    progress: &dyn Progress,
    say: &mut dyn FnMut(&str),
) -> Pooled {
    let (mut results, prepared) = round(
        works,
        preps,
        (0..works.len()).collect(),
        size,
        ctx,
        progress,
    );
    let failed: Vec<usize> = (0..works.len())
        .filter(|&i| results[i].as_ref().is_some_and(|p| p.result.is_err()))
        .collect();
    let again: Vec<usize> = failed
        .iter()
        .copied()
        .filter(|&i| {
            results[i]
                .as_ref()
                .is_some_and(|p| p.result.as_ref().is_err_and(|f| f.reason.is_retryable()))
        })
        .collect();
    if again.is_empty() || failed.len() == works.len() {
        return Pooled {
            previewed: results,
            prepared,
        };
    }
    let names: Vec<String> = again
        .iter()
        .map(|&i| works[i].adapter.id().to_string())
        .collect();
    say(&format!(
        "{} {} not work and {} tried once more after a pause of {} s: {}.",
        again.len(),
        if again.len() == 1 {
            "preview did"
        } else {
            "previews did"
        },
        if again.len() == 1 { "is" } else { "are" },
        RETRY_PAUSE.as_secs(),
        names.join(", ")
    ));
    pause(RETRY_PAUSE);
    let (mut second, _) = round(works, &mut [], again.clone(), size, ctx, progress);
    for i in again {
        let (Some(first), Some(retried)) = (results[i].as_mut(), second[i].take()) else {
            continue;
        };
        first.log.push(format!(
            "The first preview failed: {}. It was tried once more.",
            first
                .result
                .as_ref()
                .err()
                .map(|f| f.reason.to_string())
                .unwrap_or_default()
        ));
        first.log.extend(retried.log);
        first.result = retried.result;
        first.took += retried.took;
        first.tries = 2;
        first.drift_check = retried.drift_check;
        first.policed = retried.policed;
        first.cost = retried.cost;
    }
    Pooled {
        previewed: results,
        prepared,
    }
}

/// One round: the preparations, then the works at `order` (already in stack-id order),
/// each slot taking its next task from the board. The previews come back in the order of
/// the works (`None` for one not in `order` or never started), the steps in the order of
/// the preparations.
fn round(
    works: &[Work<'_>],
    preps: &mut [Prep<'_>],
    order: Vec<usize>,
    size: usize,
    ctx: &Context<'_>,
    progress: &dyn Progress,
) -> (Vec<Option<Previewed>>, Vec<Step<()>>) {
    let waited = preps
        .iter()
        .map(|prep| Waited {
            by: prep.before.clone(),
            beside_another: prep.beside_another,
        })
        .collect();
    let mut board = Board::new(waited, order, works.len());
    let ended: Vec<Option<Step<()>>> = preps.iter_mut().map(|prep| prep.ended.take()).collect();
    for (p, step) in ended.iter().enumerate() {
        if let Some(step) = step {
            board.ended_before(p, step.result.is_ok());
        }
    }
    let preps: &[Prep<'_>] = preps;
    let slots = size.clamp(1, (board.left() + preps.len()).max(1));
    let board = Mutex::new(board);
    let turn = Condvar::new();
    let previewed: Mutex<Vec<Option<Previewed>>> = Mutex::new(works.iter().map(|_| None).collect());
    let prepared: Mutex<Vec<Option<Step<()>>>> = Mutex::new(ended);
    std::thread::scope(|scope| {
        for _ in 0..slots {
            scope.spawn(|| {
                loop {
                    let task = {
                        let mut board = board.lock().unwrap_or_else(PoisonError::into_inner);
                        loop {
                            match board.next() {
                                Next::Run(task) => break task,
                                Next::Wait => {
                                    board =
                                        turn.wait(board).unwrap_or_else(PoisonError::into_inner);
                                }
                                Next::Done => return,
                            }
                        }
                    };
                    match task {
                        Task::Prepare(p) => {
                            let step = prepare(preps[p].preparation, preps[p].env, ctx);
                            let ok = step.result.is_ok();
                            prepared.lock().unwrap_or_else(PoisonError::into_inner)[p] = Some(step);
                            board
                                .lock()
                                .unwrap_or_else(PoisonError::into_inner)
                                .prepared(p, ok);
                        }
                        Task::Preview(i) => {
                            let done = one(&works[i], ctx);
                            progress.previewed(works[i].adapter.id().as_str(), &done.outcome());
                            previewed.lock().unwrap_or_else(PoisonError::into_inner)[i] =
                                Some(done);
                            board
                                .lock()
                                .unwrap_or_else(PoisonError::into_inner)
                                .previewed();
                        }
                    }
                    turn.notify_all();
                }
            });
        }
    });
    let prepared = prepared
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
        .into_iter()
        .map(|step| {
            step.unwrap_or_else(|| Step {
                result: Err(Failure::new(FailureReason::Internal)),
                log: ToolLog::default(),
            })
        })
        .collect();
    (
        previewed
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner),
        prepared,
    )
}

/// One preparation, in `env` (that of the first stack that needs it). A panic inside is
/// Sluiceway's own failure, and only its stacks'.
pub(super) fn prepare(
    preparation: &Preparation,
    env: &BTreeMap<String, String>,
    ctx: &Context<'_>,
) -> Step<()> {
    let ctx = Context { env, ..*ctx };
    catch_unwind(AssertUnwindSafe(|| preparation.run(&ctx))).unwrap_or_else(|_| Step {
        result: Err(Failure::new(FailureReason::Internal)),
        log: ToolLog::default(),
    })
}

/// One stack: preview, then the drift check and the tool diff when asked. A panic inside
/// is Sluiceway's own failure, and only this stack's.
fn one(work: &Work<'_>, ctx: &Context<'_>) -> Previewed {
    let ctx = &Context {
        env: work.env,
        time_limit: work.time_limit,
        ..*ctx
    };
    let started = Instant::now();
    let mut log = Vec::new();
    let mut drift_check = None;
    let mut policed = None;
    let mut cost = None;
    let result = catch_unwind(AssertUnwindSafe(|| {
        let asks = Asks {
            keep: false,
            document: work.policies.is_some(),
            cost: work.cost,
        };
        let step = work.adapter.preview(ctx, asks);
        log.extend(step.log.job_log_lines().iter().cloned());
        let previewed = step.result?;
        cost = previewed.cost;
        let mut diff = previewed.diff;
        if work.drift
            && let Some(check) = work.adapter.detect_drift(ctx)
        {
            log.extend(check.log.job_log_lines().iter().cloned());
            match check.result {
                Ok(drift) => diff.drift = Some(drift),
                Err(failure) => {
                    log.push(format!("The drift check failed: {}.", failure.reason));
                    drift_check = Some(failure);
                }
            }
        }
        if let Some(policies) = work.policies
            && !diff.changes.is_empty()
        {
            policed = Some(judge(
                policies,
                previewed.document,
                work.time_limit,
                &mut log,
            ));
        }
        if work.tool_diff {
            let step = work.adapter.tool_diff(ctx);
            log.extend(step.log.job_log_lines().iter().cloned());
            match step.result {
                Ok(text) => log.extend(text.job_log_text().lines().map(str::to_owned)),
                Err(failure) => {
                    log.push(format!("The tool's own diff failed: {}.", failure.reason))
                }
            }
        }
        Ok(diff.fingerprinted(work.value_fingerprint))
    }))
    .unwrap_or_else(|_| Err(Failure::new(FailureReason::Internal)));
    Previewed {
        result,
        log,
        took: started.elapsed(),
        tries: 1,
        drift_check,
        policed,
        cost,
    }
}

/// Judges a pending change by its policies; the document is dropped here. Failures and
/// warnings go to the stack's log group; only failures reach the row.
fn judge(
    policies: Result<&Policies, &Unusable>,
    document: Option<PreviewDocument>,
    limit: Duration,
    log: &mut Vec<String>,
) -> Policed {
    let policies = match policies {
        Ok(policies) => policies,
        Err(unusable) => {
            log.push(format!("The policies did not run: {}.", unusable.words));
            return Policed::NotRun(unusable.reason.to_owned());
        }
    };
    let Some(document) = document else {
        log.push("The policies did not run: the preview gave no document.".to_owned());
        return Policed::NotRun("the preview gave no document".to_owned());
    };
    let report = match policies.test(document.documents(), limit) {
        Ok(report) => report,
        Err(e) => {
            log.push(format!("The policies did not run: {e}."));
            return Policed::NotRun("a policy failed while it ran".to_owned());
        }
    };
    drop(document);
    for (namespace, warning) in report.warnings() {
        log.push(format!("Policy warning ({namespace}): {}", warning.message));
    }
    let failures: Vec<PolicyFailure> = report
        .failures()
        .map(|(namespace, finding)| PolicyFailure {
            namespace: namespace.to_owned(),
            message: finding.message.clone(),
        })
        .collect();
    for failure in &failures {
        log.push(format!(
            "Policy failed ({}): {}",
            failure.namespace, failure.message
        ));
    }
    if failures.is_empty() {
        log.push("The policies passed.".to_owned());
        return Policed::Passed;
    }
    Policed::Failed(failures)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_size_follows_the_input_then_the_cores() {
        assert_eq!(PoolSize::choose(Some(12), Some(2)).size, 12);
        assert_eq!(PoolSize::choose(None, Some(2)).size, 2);
        assert_eq!(PoolSize::choose(None, Some(64)).size, 8);
        assert_eq!(PoolSize::choose(None, Some(0)).size, 1);
        assert_eq!(PoolSize::choose(None, None).size, 1);
    }

    #[test]
    fn the_log_line_names_the_source() {
        assert_eq!(
            PoolSize::choose(Some(3), None).sentence(),
            "The pool is 3 previews at once, from the concurrency input."
        );
        assert_eq!(
            PoolSize::choose(None, Some(2)).sentence(),
            "The pool is 2 previews at once, one for each core of this machine, which has 2. The concurrency input sets another size."
        );
        assert_eq!(
            PoolSize::choose(None, Some(64)).sentence(),
            "The pool is 8 previews at once: this machine has 64 cores, and the pool follows them up to 8. The concurrency input sets another size."
        );
        assert_eq!(
            PoolSize::choose(None, None).sentence(),
            "The pool is 1 preview at once: this machine did not say how many cores it has. The concurrency input sets another size."
        );
    }
}

//! The version checks, with the first inits beside them (ADR 0044).
//!
//! A scan checks each program's version once, before the pool, and nothing else used to
//! run while it waited: one start of each tool, about as long as an init, with every core
//! but one idle. An init of a plain root module that sets no `required_version` needs
//! nothing the check finds (the check decides only whether two inits may overlap, and
//! until it has said, none do), so such inits run one at a time beside the checks until
//! they end, and the pool takes each as already done. Should a check then find its tool
//! unusable, those stacks fail as they would have, and their inits' words are dropped.

use std::collections::{BTreeMap, BTreeSet};
use std::panic::resume_unwind;
use std::path::Path;

use sluiceway_tools::adapter::{Checked, Context, Preparation, Program, Step, VersionError};

/// An init that may run before the version checks end, with what the pool knows it by:
/// the preparation and the env file of the stacks that share it.
pub(super) struct Ahead<'a> {
    pub(super) preparation: Preparation,
    pub(super) env_source: Option<&'a str>,
    /// The environment it runs in: that of the first stack that needs it.
    pub(super) env: &'a BTreeMap<String, String>,
}

/// What the checks found, program by program in order, and the inits that ran beside
/// them, by the pool's key.
pub(super) struct Checks<'a> {
    pub(super) found: Vec<(Program, Result<Checked, VersionError>)>,
    pub(super) ran: BTreeMap<(Preparation, Option<&'a str>), Step<()>>,
}

/// Checks each program's version on a thread of its own while the inits of `ahead` run
/// here, in order, one at a time, each started only while the checks still run.
pub(super) fn check_versions<'a>(
    programs: &BTreeSet<Program>,
    ahead: Vec<Ahead<'a>>,
    ctx: &Context<'_>,
    root: &Path,
) -> Checks<'a> {
    std::thread::scope(|scope| {
        let checking = scope.spawn(|| {
            programs
                .iter()
                .map(|&program| (program, program.check_version(ctx, root)))
                .collect::<Vec<_>>()
        });
        let mut ran = BTreeMap::new();
        for init in ahead {
            if checking.is_finished() {
                break;
            }
            let step = super::pool::prepare(&init.preparation, init.env, ctx);
            ran.insert((init.preparation, init.env_source), step);
        }
        let found = checking.join().unwrap_or_else(|panic| resume_unwind(panic));
        Checks { found, ran }
    })
}

//! The pool's board: which task a free slot takes next (ADR 0038). Pure bookkeeping, kept
//! apart from the threads that run the tasks so its rules can be checked on their own.
//!
//! The rules:
//! - a preparation goes before any preview, since previews wait for it;
//! - a preparation that may not run beside another waits while one such runs;
//! - a preview starts once every preparation it waits for has ended, in the order given;
//! - a preview whose preparation failed is never started.

/// A task for a free slot: a preparation, or the preview of a work, by index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Task {
    Prepare(usize),
    Preview(usize),
}

/// What a free slot learns from the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Next {
    Run(Task),
    /// Nothing can start until a running task ends.
    Wait,
    /// Nothing is left to start, or to wait for.
    Done,
}

/// A preparation as the board sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Waited {
    /// The works whose previews wait for it.
    pub(super) by: Vec<usize>,
    /// It may run while another preparation runs.
    pub(super) beside_another: bool,
}

#[derive(Debug)]
pub(super) struct Board {
    preparations: Vec<Waited>,
    /// Preparations not yet started, in order.
    unprepared: Vec<usize>,
    /// Works not yet started, in order; dropped when a preparation of theirs fails.
    unpreviewed: Vec<usize>,
    /// For each work, the preparations it still waits for.
    waiting_on: Vec<usize>,
    /// A preparation that may not run beside another is running.
    alone: bool,
    running: usize,
}

impl Board {
    /// A board for the previews of `order` (indices below `works`), each waiting for the
    /// preparations that name it.
    pub(super) fn new(preparations: Vec<Waited>, order: Vec<usize>, works: usize) -> Board {
        let mut waiting_on = vec![0; works];
        for waited in &preparations {
            for &work in &waited.by {
                waiting_on[work] += 1;
            }
        }
        Board {
            unprepared: (0..preparations.len()).collect(),
            preparations,
            unpreviewed: order,
            waiting_on,
            alone: false,
            running: 0,
        }
    }

    /// The next task for a free slot, marked as running.
    pub(super) fn next(&mut self) -> Next {
        let preparation = self
            .unprepared
            .iter()
            .position(|&p| !self.alone || self.preparations[p].beside_another);
        if let Some(at) = preparation {
            let p = self.unprepared.remove(at);
            self.alone |= !self.preparations[p].beside_another;
            self.running += 1;
            return Next::Run(Task::Prepare(p));
        }
        if let Some(at) = self
            .unpreviewed
            .iter()
            .position(|&w| self.waiting_on[w] == 0)
        {
            self.running += 1;
            return Next::Run(Task::Preview(self.unpreviewed.remove(at)));
        }
        if self.running > 0 {
            Next::Wait
        } else {
            Next::Done
        }
    }

    /// A preparation ended; when it failed, the previews waiting for it are dropped.
    pub(super) fn prepared(&mut self, p: usize, ok: bool) {
        self.running -= 1;
        let waited = &self.preparations[p];
        if !waited.beside_another {
            self.alone = false;
        }
        for &work in &waited.by {
            self.waiting_on[work] -= 1;
        }
        if !ok {
            self.unpreviewed.retain(|w| !waited.by.contains(w));
        }
    }

    /// A preview ended.
    pub(super) fn previewed(&mut self) {
        self.running -= 1;
    }

    /// A preparation that ran before the board was made (ADR 0044): taken off the
    /// board as if a slot had run it first.
    pub(super) fn ended_before(&mut self, p: usize, ok: bool) {
        self.unprepared.retain(|&q| q != p);
        self.running += 1;
        self.alone |= !self.preparations[p].beside_another;
        self.prepared(p, ok);
    }

    /// The previews not yet started.
    pub(super) fn left(&self) -> usize {
        self.unpreviewed.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Runs a board to its end with `slots` slots, ending running tasks in the order
    /// `picks` chooses; the events in order: `(task, started)`.
    fn play(
        board: &mut Board,
        slots: usize,
        failing: &[bool],
        picks: &[usize],
    ) -> Vec<(Task, bool)> {
        let mut running: Vec<Task> = Vec::new();
        let mut events = Vec::new();
        let mut pick = picks.iter().cycle();
        loop {
            while running.len() < slots {
                match board.next() {
                    Next::Run(task) => {
                        events.push((task, true));
                        running.push(task);
                    }
                    Next::Wait => break,
                    Next::Done => {
                        assert!(running.is_empty(), "done while tasks still run");
                        return events;
                    }
                }
            }
            assert!(!running.is_empty(), "a slot waits while nothing runs");
            let ended = running.remove(pick.next().copied().unwrap_or(0) % running.len());
            events.push((ended, false));
            match ended {
                Task::Prepare(p) => board.prepared(p, !failing[p]),
                Task::Preview(_) => board.previewed(),
            }
        }
    }

    #[test]
    fn inits_run_one_at_a_time_beside_the_previews_they_have_freed() {
        let preparations = vec![
            Waited {
                by: vec![0],
                beside_another: false,
            },
            Waited {
                by: vec![1],
                beside_another: false,
            },
        ];
        let mut board = Board::new(preparations, vec![0, 1], 2);
        assert_eq!(board.next(), Next::Run(Task::Prepare(0)));
        assert_eq!(
            board.next(),
            Next::Wait,
            "the second init waits for the first"
        );
        board.prepared(0, true);
        assert_eq!(board.next(), Next::Run(Task::Prepare(1)));
        assert_eq!(board.next(), Next::Run(Task::Preview(0)));
        assert_eq!(board.next(), Next::Wait);
        board.prepared(1, false);
        board.previewed();
        assert_eq!(
            board.next(),
            Next::Done,
            "the failed init's preview never starts"
        );
    }

    #[test]
    fn a_preparation_that_ended_before_frees_its_previews_and_holds_no_slot() {
        let preparations = vec![
            Waited {
                by: vec![0],
                beside_another: false,
            },
            Waited {
                by: vec![1],
                beside_another: false,
            },
            Waited {
                by: vec![2],
                beside_another: false,
            },
        ];
        let mut board = Board::new(preparations, vec![0, 1, 2], 3);
        board.ended_before(0, true);
        board.ended_before(2, false);
        assert_eq!(board.left(), 2, "the failed one's preview is dropped");
        assert_eq!(
            board.next(),
            Next::Run(Task::Prepare(1)),
            "the one left runs first, alone as before"
        );
        assert_eq!(
            board.next(),
            Next::Run(Task::Preview(0)),
            "the preview of the one that ended before starts at once"
        );
        assert_eq!(board.next(), Next::Wait);
        board.prepared(1, true);
        assert_eq!(board.next(), Next::Run(Task::Preview(1)));
        board.previewed();
        board.previewed();
        assert_eq!(board.next(), Next::Done, "nothing else, and nothing twice");
    }

    proptest! {
        #[test]
        fn every_rule_holds_in_any_order_of_endings(
            works in 0usize..12,
            raw in prop::collection::vec((prop::collection::vec(0usize..12, 0..4), any::<bool>(), any::<bool>()), 0..8),
            slots in 1usize..5,
            picks in prop::collection::vec(0usize..8, 1..16),
        ) {
            let preparations: Vec<Waited> = raw
                .iter()
                .map(|(by, beside, _)| {
                    let mut by: Vec<usize> = by.iter().filter(|&&w| w < works).copied().collect();
                    by.sort_unstable();
                    by.dedup();
                    Waited { by, beside_another: *beside }
                })
                .collect();
            let failing: Vec<bool> = raw.iter().map(|(_, _, fails)| *fails).collect();
            let mut board = Board::new(preparations.clone(), (0..works).collect(), works);
            let events = play(&mut board, slots, &failing, &picks);

            let mut ended_preparations = vec![false; preparations.len()];
            let mut alone_running = 0;
            let mut previewed = vec![0; works];
            for (task, started) in &events {
                match (*task, *started) {
                    (Task::Prepare(p), true) => {
                        if !preparations[p].beside_another {
                            alone_running += 1;
                            prop_assert!(alone_running <= 1, "two lone preparations at once");
                        }
                    }
                    (Task::Prepare(p), false) => {
                        ended_preparations[p] = true;
                        if !preparations[p].beside_another {
                            alone_running -= 1;
                        }
                    }
                    (Task::Preview(w), true) => {
                        previewed[w] += 1;
                        for (p, waited) in preparations.iter().enumerate() {
                            if waited.by.contains(&w) {
                                prop_assert!(ended_preparations[p], "a preview before its preparation");
                                prop_assert!(!failing[p], "a preview after its preparation failed");
                            }
                        }
                    }
                    (Task::Preview(_), false) => {}
                }
            }
            prop_assert!(ended_preparations.iter().all(|&e| e), "every preparation runs");
            for (w, count) in previewed.iter().enumerate() {
                let blocked = preparations
                    .iter()
                    .zip(&failing)
                    .any(|(waited, &fails)| fails && waited.by.contains(&w));
                prop_assert_eq!(*count, usize::from(!blocked), "work {} previewed {} times", w, count);
            }
        }
    }
}

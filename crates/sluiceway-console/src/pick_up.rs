//! A tick made on the dashboard itself, picked up from its delivery: the box a person
//! ticked, judged as a console tick is, opens the stack's record as the console's bot
//! before the run GitHub starts for the edit gets that far; that run's `resolve` takes
//! the record over (decision 0109's fallback keeps working when the console is down:
//! `resolve` then opens its own). Nothing is dispatched, the run is on its way.

use jiff::Timestamp;

use crate::Console;
use crate::facts::Dashboard;
use crate::store::RepoPlace;
use crate::tick::{Asked, Judged, Via};
use sluiceway_dashboard::facts::RowState;

/// The stacks whose boxes `now` ticks and `before` did not, pending and waiting for one.
pub fn newly_ticked(before: &[crate::facts::StackFacts], now: &Dashboard) -> Vec<String> {
    now.stacks
        .iter()
        .filter(|s| s.ticked && s.state == RowState::Pending)
        .filter(|s| !before.iter().any(|b| b.stack == s.stack && b.ticked))
        .map(|s| s.stack.clone())
        .collect()
}

/// Judges and opens each of `stacks` for `editor`, on a blocking thread, as the app's
/// installation on the dashboard's org; answers what came of each.
pub async fn pick_up(
    console: &Console,
    place: &RepoPlace,
    editor: &str,
    stacks: Vec<String>,
    now: Timestamp,
) -> Vec<(String, Result<Judged, String>)> {
    let app = console.app.clone();
    let (org, name, number) = (
        place.org.clone(),
        place.name.clone(),
        place.dashboard_number,
    );
    let editor = editor.to_owned();
    let picked = tokio::task::spawn_blocking(move || {
        let installed = match app.repo(&org, &name, now) {
            Ok(installed) => installed,
            Err(e) => {
                return stacks
                    .into_iter()
                    .map(|stack| (stack, Err(e.to_string())))
                    .collect();
            }
        };
        stacks
            .into_iter()
            .map(|stack| {
                let asked = Asked {
                    stack: stack.clone(),
                    person: editor.clone(),
                    confirm: None,
                    via: Via::Dashboard,
                };
                let judged = crate::tick::tick(&installed.github, &installed.bot, number, &asked)
                    .map_err(|e| e.to_string());
                (stack, judged)
            })
            .collect()
    })
    .await;
    picked.unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::StackFacts;

    fn stack(id: &str, state: RowState, ticked: bool) -> StackFacts {
        StackFacts {
            stack: id.to_owned(),
            state,
            creates: 1,
            updates: 0,
            replaces: 0,
            deletes: 0,
            destroys: 0,
            tracking: 0,
            changed: 0,
            gone: 0,
            failed: false,
            busy: false,
            ticked,
        }
    }

    #[test]
    fn only_a_box_ticked_by_this_edit_on_a_pending_row_is_picked_up() {
        let before = vec![
            stack("a", RowState::Pending, false),
            stack("b", RowState::Pending, true),
            stack("c", RowState::Pending, false),
        ];
        let now = Dashboard {
            scan: crate::facts::Scan {
                sha: "0".repeat(40),
                run: 1,
                at: Timestamp::UNIX_EPOCH,
            },
            stacks: vec![
                stack("a", RowState::Pending, true),
                stack("b", RowState::Pending, true),
                stack("c", RowState::Drift, true),
                stack("d", RowState::Pending, false),
            ],
        };
        assert_eq!(newly_ticked(&before, &now), ["a"]);
    }
}

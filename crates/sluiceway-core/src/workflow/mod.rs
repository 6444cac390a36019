//! What `check` reads of the repository's own workflows: `lint` holds each file that
//! runs this action to what its modes need (decisions 0061, 0074), and (decision 0095) a split
//! workflow whose scan job runs this action with `mode: scan` hands a merge's deploys on
//! in the job's `matrix` output, and they deploy only when another job of the workflow
//! reads it (`needs.<scan job>.outputs.matrix`). A workflow these readers cannot follow
//! says nothing more than that: a warning the check cannot stand behind is noise.

pub mod lint;
pub mod tool_setup;

use saphyr::{LoadableYamlNode, Yaml};

/// The ids of the jobs of `text` that scan with this action while no job reads their
/// `matrix` output. `action` is how a step's `uses` names this action (its repository).
pub fn scans_nobody_applies(text: &str, action: &str) -> Vec<String> {
    let Ok(documents) = Yaml::load_from_str(text) else {
        return Vec::new();
    };
    let Some(jobs) = documents
        .first()
        .and_then(|d| d.as_mapping_get("jobs"))
        .and_then(Yaml::as_mapping)
    else {
        return Vec::new();
    };
    let action = action.to_ascii_lowercase();
    jobs.iter()
        .filter_map(|(id, job)| {
            let id = id.as_str()?;
            let steps = job.as_mapping_get("steps")?.as_sequence()?;
            let scans = steps.iter().any(|step| {
                let uses = step.as_mapping_get("uses").and_then(Yaml::as_str);
                let mode = step
                    .as_mapping_get("with")
                    .and_then(|with| with.as_mapping_get("mode"))
                    .and_then(Yaml::as_str);
                uses.is_some_and(|u| u.to_ascii_lowercase().starts_with(&action))
                    && matches!(mode, Some("scan" | "join"))
            });
            let read = text.contains(&format!("needs.{id}.outputs.matrix"));
            (scans && !read).then(|| id.to_owned())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ACTION: &str = "sluiceway/sluiceway-rs";

    #[test]
    fn a_scan_job_whose_matrix_no_job_reads_is_named() {
        let split = "jobs:\n  scan:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: Sluiceway/sluiceway-rs@v1\n        with:\n          mode: scan\n";
        assert_eq!(scans_nobody_applies(split, ACTION), ["scan"]);
        let applied = format!(
            "{split}  apply:\n    needs: scan\n    strategy:\n      matrix:\n        include: ${{{{ fromJSON(needs.scan.outputs.matrix) }}}}\n    steps:\n      - uses: sluiceway/sluiceway-rs@v1\n        with:\n          mode: apply\n"
        );
        assert!(scans_nobody_applies(&applied, ACTION).is_empty());
    }

    #[test]
    fn the_auto_mode_another_action_and_a_workflow_it_cannot_read_say_nothing() {
        let auto = "jobs:\n  sluiceway:\n    steps:\n      - uses: sluiceway/sluiceway-rs@v1\n        with:\n          job-status: ok\n";
        assert!(scans_nobody_applies(auto, ACTION).is_empty());
        let other = "jobs:\n  scan:\n    steps:\n      - uses: someone/else@v1\n        with:\n          mode: scan\n";
        assert!(scans_nobody_applies(other, ACTION).is_empty());
        assert!(scans_nobody_applies("jobs: [\n", ACTION).is_empty());
        assert!(scans_nobody_applies("", ACTION).is_empty());
    }
}

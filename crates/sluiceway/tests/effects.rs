//! No key without its effect (ADR 0026). Every key of `docs/sluiceway.schema.json` and
//! every input of `action.yml` is either named here beside the test that proves what it
//! changes, or on the list of keys this version does not act on yet; and every key on
//! that list makes `sluiceway check` and a scan warn by name wherever a file sets it.
//! A proving test is an integration or end-to-end test that sets its key: in its own
//! text, a helper or constant of its file, or an example or fixture it names by path,
//! read through the YAML's nesting (issue 40).

mod support;

use std::collections::BTreeSet;

use sluiceway_core::config::unacted::NOT_ACTED_ON;
use support::workspace;

/// A key, the test file (from `crates/`) and the test in it that proves the key's effect.
const PROVEN: &[(&str, &str, &str)] = &[
    (
        "cost.enabled",
        "sluiceway/tests/cost.rs",
        "a_row_says_what_its_change_costs_and_a_failed_estimate_is_a_warning",
    ),
    (
        "cost.threshold",
        "sluiceway/tests/cost.rs",
        "a_threshold_turns_a_costly_deploy_on_merge_back_into_a_tick",
    ),
    (
        "stacks[].cost.enabled",
        "sluiceway/tests/cost.rs",
        "a_stacks_own_cost_settings_win_key_by_key",
    ),
    (
        "stacks[].cost.threshold",
        "sluiceway/tests/cost.rs",
        "a_stacks_own_cost_settings_win_key_by_key",
    ),
    (
        "policies",
        "sluiceway/tests/policies.rs",
        "a_policy_that_denies_a_delete_takes_the_box_off_that_row_and_the_scan_after_the_fix_restores_it",
    ),
    (
        "stacks[].policies",
        "sluiceway/tests/policies.rs",
        "policies_that_cannot_be_used_are_named_by_check_and_a_scan_keeps_the_boxes",
    ),
    (
        "mergeAndDeploy.preview",
        "sluiceway/tests/ticks.rs",
        "a_green_update_merges_on_alices_tick_and_the_scan_after_deploys_it_once",
    ),
    (
        "mergeAndDeploy.authors",
        "sluiceway/tests/ticks.rs",
        "a_green_update_merges_on_alices_tick_and_the_scan_after_deploys_it_once",
    ),
    (
        "notify.events",
        "sluiceway/tests/scan_kubectl.rs",
        "a_changed_manifest_is_pending_with_its_path_and_drift_is_found_where_asked",
    ),
    (
        "dashboard.showValues",
        "sluiceway/tests/scan.rs",
        "the_value_list_shows_old_and_new_on_the_row_and_its_pages_and_never_a_secret",
    ),
    (
        "stacks[].deploy",
        "sluiceway/tests/calendar.rs",
        "a_stack_that_deploys_on_merge_deploys_on_the_push_for_the_pusher_and_a_delete_waits_for_a_tick",
    ),
    (
        "stacks[].phase.from",
        "sluiceway/tests/cli.rs",
        "check_gives_a_pulumi_stack_the_phase_its_project_key_holds",
    ),
    (
        "stacks[].envFile",
        "sluiceway/tests/settings.rs",
        "a_stacks_env_file_reaches_its_tool_alone_over_the_steps_and_a_missing_one_fails_that_stack_only",
    ),
    (
        "recordWriters",
        "sluiceway/tests/calendar.rs",
        "a_record_writers_record_deploys_in_a_scheduled_run_and_a_strangers_never_does",
    ),
    (
        "attribution.lookback",
        "sluiceway/tests/settings.rs",
        "attribution_walks_as_many_commits_as_lookback_and_names_as_many_as_names",
    ),
    (
        "attribution.names",
        "sluiceway/tests/settings.rs",
        "attribution_walks_as_many_commits_as_lookback_and_names_as_many_as_names",
    ),
    (
        "dashboard.deployAll",
        "sluiceway-dashboard/tests/body.rs",
        "the_layout_keys_move_and_hide_but_never_drop_a_row",
    ),
    (
        "dashboard.deployingSection",
        "sluiceway-dashboard/tests/body.rs",
        "the_layout_keys_move_and_hide_but_never_drop_a_row",
    ),
    (
        "dashboard.destroyAlert",
        "sluiceway-dashboard/tests/body.rs",
        "the_layout_keys_move_and_hide_but_never_drop_a_row",
    ),
    (
        "dashboard.driftedSection",
        "sluiceway-dashboard/tests/body.rs",
        "the_layout_keys_move_and_hide_but_never_drop_a_row",
    ),
    (
        "dashboard.footer",
        "sluiceway-dashboard/tests/body.rs",
        "the_layout_keys_move_and_hide_but_never_drop_a_row",
    ),
    (
        "dashboard.inSyncSection",
        "sluiceway-dashboard/tests/body.rs",
        "the_layout_keys_move_and_hide_but_never_drop_a_row",
    ),
    (
        "dashboard.label",
        "sluiceway/tests/settings.rs",
        "the_title_label_and_pin_keys_shape_the_dashboard_issue",
    ),
    (
        "dashboard.pendingDetail",
        "sluiceway-dashboard/tests/body.rs",
        "the_layout_keys_move_and_hide_but_never_drop_a_row",
    ),
    (
        "dashboard.personality",
        "sluiceway-dashboard/tests/body.rs",
        "without_personality_and_in_another_zone",
    ),
    (
        "dashboard.pin",
        "sluiceway/tests/settings.rs",
        "the_title_label_and_pin_keys_shape_the_dashboard_issue",
    ),
    (
        "dashboard.readOnly",
        "sluiceway/tests/ticks.rs",
        "a_read_only_dashboard_in_the_auto_mode_acts_on_no_tick",
    ),
    (
        "dashboard.recentlyDeployed",
        "sluiceway-dashboard/tests/body.rs",
        "the_repair_all_box_and_the_trails_length_follow_their_keys",
    ),
    (
        "dashboard.redact",
        "sluiceway-dashboard/tests/body.rs",
        "a_redacted_row_names_no_type_name_or_path_and_keeps_its_hash",
    ),
    (
        "dashboard.repairAll",
        "sluiceway-dashboard/tests/body.rs",
        "the_repair_all_box_and_the_trails_length_follow_their_keys",
    ),
    (
        "dashboard.rescanBox",
        "sluiceway-dashboard/tests/body.rs",
        "the_layout_keys_move_and_hide_but_never_drop_a_row",
    ),
    (
        "dashboard.sections",
        "sluiceway-dashboard/tests/body.rs",
        "the_layout_keys_move_and_hide_but_never_drop_a_row",
    ),
    (
        "dashboard.timeZone",
        "sluiceway/tests/calendar.rs",
        "a_tick_outside_every_window_waits_and_a_scheduled_run_in_the_window_deploys_it_once",
    ),
    (
        "dashboard.title",
        "sluiceway/tests/settings.rs",
        "the_title_label_and_pin_keys_shape_the_dashboard_issue",
    ),
    (
        "dashboard.zeroCounts",
        "sluiceway-dashboard/tests/body.rs",
        "the_layout_keys_move_and_hide_but_never_drop_a_row",
    ),
    (
        "deployWindows",
        "sluiceway/tests/calendar.rs",
        "a_tick_outside_every_window_waits_and_a_scheduled_run_in_the_window_deploys_it_once",
    ),
    (
        "deploys",
        "sluiceway/tests/ticks.rs",
        "deploys_off_refuses_before_any_tool_runs",
    ),
    (
        "discovery.rootModules",
        "sluiceway-core/tests/discovery.rs",
        "root_module_discovery_can_be_switched_off_or_overridden",
    ),
    (
        "drift.enabled",
        "sluiceway/tests/scan_kubectl.rs",
        "a_changed_manifest_is_pending_with_its_path_and_drift_is_found_where_asked",
    ),
    (
        "freezes",
        "sluiceway/tests/calendar.rs",
        "a_freeze_in_force_stops_a_writers_tick_and_the_dashboard_names_it",
    ),
    (
        "ignore",
        "sluiceway-core/tests/discovery.rs",
        "an_id_override_is_seen_by_ignore_and_dependencies",
    ),
    (
        "phases",
        "sluiceway/tests/ticks.rs",
        "a_tick_in_a_later_phase_waits_while_an_earlier_phase_has_a_change_waiting",
    ),
    (
        "scan.logDiff",
        "sluiceway/tests/scan.rs",
        "log_diff_prints_the_tools_own_diff_into_the_stacks_group_only",
    ),
    (
        "scan.unrelated",
        "sluiceway/tests/scan.rs",
        "files_listed_as_unrelated_claim_nothing_and_leave_a_push_narrowed",
    ),
    (
        "stacks[].createInBackend",
        "sluiceway/tests/scan_pulumi.rs",
        "pulumi_stacks_preview_drift_check_deploy_and_repair",
    ),
    (
        "stacks[].dependsOn",
        "sluiceway/tests/ticks.rs",
        "a_chain_ticked_together_deploys_one_layer_per_run",
    ),
    (
        "stacks[].deployWindows",
        "sluiceway/tests/calendar.rs",
        "a_stacks_own_empty_window_list_means_any_time",
    ),
    (
        "stacks[].drift.enabled",
        "sluiceway/tests/scan_kubectl.rs",
        "a_changed_manifest_is_pending_with_its_path_and_drift_is_found_where_asked",
    ),
    (
        "stacks[].environment",
        "sluiceway/tests/ticks.rs",
        "a_stacks_environment_holds_its_records_and_reaches_the_matrix",
    ),
    (
        "stacks[].id",
        "sluiceway-core/tests/discovery.rs",
        "an_id_override_is_seen_by_ignore_and_dependencies",
    ),
    (
        "stacks[].inputs",
        "sluiceway-core/tests/discovery.rs",
        "named_entries_win_key_by_key_and_inputs_add_up",
    ),
    (
        "stacks[].name",
        "sluiceway-core/tests/discovery.rs",
        "named_entries_win_key_by_key_and_inputs_add_up",
    ),
    (
        "stacks[].options.chart",
        "sluiceway-core/tests/config.rs",
        "a_full_helm_declaration_is_read_into_typed_options",
    ),
    (
        "stacks[].options.context",
        "sluiceway-tools/tests/kubectl_adapter.rs",
        "command_lines_and_environment_of_preview_tool_diff_and_deploy",
    ),
    (
        "stacks[].options.createNamespace",
        "sluiceway/tests/scan_helm.rs",
        "helm_3_previews_drift_checks_deploys_and_repairs_without_the_plugin",
    ),
    (
        "stacks[].options.fieldManager",
        "sluiceway-tools/tests/kubectl_adapter.rs",
        "command_lines_and_environment_of_preview_tool_diff_and_deploy",
    ),
    (
        "stacks[].options.forceConflicts",
        "sluiceway/tests/scan_kubectl.rs",
        "a_changed_manifest_is_pending_with_its_path_and_drift_is_found_where_asked",
    ),
    (
        "stacks[].options.namespace",
        "sluiceway-tools/tests/kubectl_adapter.rs",
        "command_lines_and_environment_of_preview_tool_diff_and_deploy",
    ),
    (
        "stacks[].options.prune",
        "sluiceway/tests/scan_kubectl.rs",
        "a_pruning_stack_deletes_what_left_its_manifests_and_shows_the_delete_first",
    ),
    (
        "stacks[].options.recursive",
        "sluiceway-tools/tests/kubectl_adapter.rs",
        "command_lines_and_environment_of_preview_tool_diff_and_deploy",
    ),
    (
        "stacks[].options.release",
        "sluiceway/tests/scan_helm.rs",
        "helm_3_previews_drift_checks_deploys_and_repairs_without_the_plugin",
    ),
    (
        "stacks[].options.valuesFiles",
        "sluiceway/tests/scan_helm.rs",
        "helm_3_previews_drift_checks_deploys_and_repairs_without_the_plugin",
    ),
    (
        "stacks[].options.varFiles",
        "sluiceway/tests/settings.rs",
        "each_stacks_var_files_reach_its_own_plan_and_no_other",
    ),
    (
        "stacks[].options.version",
        "sluiceway/tests/scan_helm.rs",
        "a_chart_from_a_repository_is_previewed_and_deployed_at_the_version_its_stack_pins",
    ),
    (
        "stacks[].options.wrapper",
        "sluiceway/tests/wrappers.rs",
        "a_cdktf_app_of_two_stacks_is_scanned_and_one_is_deployed_by_a_tick",
    ),
    (
        "stacks[].options.wrapper",
        "sluiceway/tests/wrappers.rs",
        "a_terragrunt_unit_is_scanned_and_deployed_through_terragrunt",
    ),
    (
        "stacks[].options.workspace",
        "sluiceway/tests/settings.rs",
        "a_stacks_env_file_reaches_its_tool_alone_over_the_steps_and_a_missing_one_fails_that_stack_only",
    ),
    (
        "stacks[].path",
        "sluiceway-core/tests/discovery.rs",
        "named_entries_win_key_by_key_and_inputs_add_up",
    ),
    (
        "stacks[].phase",
        "sluiceway/tests/ticks.rs",
        "a_tick_in_a_later_phase_waits_while_an_earlier_phase_has_a_change_waiting",
    ),
    (
        "stacks[].previewTimeout",
        "sluiceway/tests/settings.rs",
        "a_stacks_own_preview_timeout_ends_a_hanging_preview_of_that_stack",
    ),
    (
        "stacks[].tickers",
        "sluiceway-core/tests/discovery.rs",
        "named_entries_win_key_by_key_and_inputs_add_up",
    ),
    (
        "stacks[].tool",
        "sluiceway-core/tests/discovery.rs",
        "declared_kubectl_directories_must_hold_manifests",
    ),
    (
        "stacks[].valueFingerprint",
        "sluiceway/tests/ticks.rs",
        "a_stacks_own_value_fingerprint_wins_over_the_top_level_one",
    ),
    (
        "tickers",
        "sluiceway/tests/resolve_property.rs",
        "a_record_is_opened_only_for_an_allowed_ticker_and_never_twice",
    ),
    (
        "valueFingerprint",
        "sluiceway/tests/ticks.rs",
        "with_value_fingerprints_off_no_row_carries_one_and_a_value_change_deploys",
    ),
];

/// Every input of the action and the test that proves what it changes.
const PROVEN_INPUTS: &[(&str, &str, &str)] = &[
    (
        "pull-request-preview",
        "sluiceway/tests/scan.rs",
        "a_pull_request_gets_one_page_per_stack_it_touches_and_never_touches_the_dashboard",
    ),
    (
        "backend",
        "sluiceway/tests/scan_pulumi.rs",
        "pulumi_stacks_preview_drift_check_deploy_and_repair",
    ),
    (
        "concurrency",
        "sluiceway/tests/scan.rs",
        "the_concurrency_input_sets_how_many_previews_run_at_once",
    ),
    (
        "deploy-timeout",
        "sluiceway/tests/ticks.rs",
        "a_deploy_past_its_deploy_timeout_is_interrupted_and_ends_with_a_fixed_reason",
    ),
    (
        "deployment-id",
        "sluiceway/tests/ticks.rs",
        "a_re_run_of_apply_on_an_ended_record_deploys_nothing",
    ),
    (
        "dry-run",
        "sluiceway/tests/ticks.rs",
        "a_dry_run_rehearses_and_deploys_nothing",
    ),
    (
        "env-file",
        "sluiceway/tests/scan.rs",
        "an_env_file_reaches_the_tool_masked_first",
    ),
    (
        "github-token",
        "sluiceway/tests/settings.rs",
        "the_github_token_input_is_the_one_github_is_asked_with",
    ),
    (
        "job-id",
        "sluiceway/tests/scan.rs",
        "a_preview_that_fails_twice_turns_the_job_red_only_under_strict_and_links_the_job_given",
    ),
    (
        "job-status",
        "sluiceway/tests/calendar.rs",
        "a_failed_earlier_step_on_the_dashboards_edit_deploys_nothing",
    ),
    (
        "mode",
        "sluiceway/tests/ticks.rs",
        "settle_ends_a_record_its_run_left_open_and_the_row_says_so",
    ),
    (
        "preview-timeout",
        "sluiceway/tests/scan.rs",
        "a_preview_that_hangs_times_out_and_leaves_no_process_behind",
    ),
    (
        "strict",
        "sluiceway/tests/scan.rs",
        "a_preview_that_fails_twice_turns_the_job_red_only_under_strict_and_links_the_job_given",
    ),
    (
        "slack-webhook-url",
        "sluiceway/tests/ticks.rs",
        "the_channels_hear_of_a_refused_tick_and_a_deploy_and_one_that_hangs_never_turns_the_job_red",
    ),
    (
        "telegram-bot-token",
        "sluiceway/tests/ticks.rs",
        "the_channels_hear_of_a_refused_tick_and_a_deploy_and_one_that_hangs_never_turns_the_job_red",
    ),
    (
        "telegram-chat-id",
        "sluiceway/tests/ticks.rs",
        "the_channels_hear_of_a_refused_tick_and_a_deploy_and_one_that_hangs_never_turns_the_job_red",
    ),
    (
        "telegram-thread-id",
        "sluiceway/tests/ticks.rs",
        "the_channels_hear_of_a_refused_tick_and_a_deploy_and_one_that_hangs_never_turns_the_job_red",
    ),
    (
        "shards",
        "sluiceway/tests/sharded_scan.rs",
        "a_sharded_scan_writes_the_dashboard_a_one_runner_scan_writes",
    ),
    (
        "shard",
        "sluiceway/tests/sharded_scan.rs",
        "partial_results_that_do_not_fit_the_plan_are_refused_and_nothing_is_written",
    ),
    (
        "shard-plan",
        "sluiceway/tests/sharded_scan.rs",
        "a_shard_killed_mid_way_leaves_its_rows_and_turns_the_join_red",
    ),
    (
        "partial-results",
        "sluiceway/tests/sharded_scan.rs",
        "a_sharded_scan_writes_the_dashboard_a_one_runner_scan_writes",
    ),
    (
        "timings-file",
        "sluiceway/tests/sharded_scan.rs",
        "the_join_keeps_the_preview_times_and_the_next_plan_balances_by_them",
    ),
    (
        "webhook-url",
        "sluiceway/tests/ticks.rs",
        "the_channels_hear_of_a_refused_tick_and_a_deploy_and_one_that_hangs_never_turns_the_job_red",
    ),
];

/// Inputs this version accepts and does not act on yet; each warns when set.
const NOT_ACTED_ON_INPUTS: &[&str] = &[];

/// Every key of the schema, as `a.b`, `stacks[].c`; containers included.
fn schema_keys() -> Vec<(String, bool)> {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(workspace().join("docs/sluiceway.schema.json")).unwrap(),
    )
    .unwrap();
    let defs = schema["$defs"].clone();
    let mut keys = Vec::new();
    walk(&schema, "", &defs, &mut keys);
    keys
}

fn walk(
    node: &serde_json::Value,
    prefix: &str,
    defs: &serde_json::Value,
    out: &mut Vec<(String, bool)>,
) {
    if let Some(reference) = node.get("$ref").and_then(|r| r.as_str()) {
        let name = reference.rsplit('/').next().unwrap();
        return walk(&defs[name], prefix, defs, out);
    }
    for either in ["anyOf", "oneOf", "allOf"] {
        for branch in node
            .get(either)
            .and_then(|b| b.as_array())
            .into_iter()
            .flatten()
        {
            walk(branch, prefix, defs, out);
        }
    }
    if let Some(items) = node.get("items") {
        walk(items, &format!("{prefix}[]"), defs, out);
    }
    if let Some(properties) = node.get("properties").and_then(|p| p.as_object()) {
        for (name, child) in properties {
            let key = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}.{name}")
            };
            let container = has_properties(child, defs);
            if !out.iter().any(|(k, _)| *k == key) {
                out.push((key.clone(), container));
            }
            walk(child, &key, defs, out);
        }
    }
}

fn has_properties(node: &serde_json::Value, defs: &serde_json::Value) -> bool {
    if let Some(reference) = node.get("$ref").and_then(|r| r.as_str()) {
        return has_properties(&defs[reference.rsplit('/').next().unwrap()], defs);
    }
    node.get("properties").is_some()
        || node.get("items").is_some_and(|i| has_properties(i, defs))
        || ["anyOf", "oneOf"].iter().any(|e| {
            node.get(*e).and_then(|b| b.as_array()).is_some_and(|bs| {
                bs.iter()
                    .all(|b| has_properties(b, defs) || b.get("type") == Some(&"null".into()))
            })
        })
}

/// The key, or a key above it, is one this version does not act on.
fn not_acted_on(key: &str) -> bool {
    NOT_ACTED_ON.iter().any(|(listed, _)| {
        key == *listed
            || key.starts_with(&format!("{listed}."))
            || key.starts_with(&format!("{listed}[]"))
    })
}

/// The test exists: a `#[test]` (or a property) named so in that file.
fn test_exists(file: &str, name: &str) -> bool {
    let text = std::fs::read_to_string(workspace().join("crates").join(file))
        .unwrap_or_else(|e| panic!("{file}: {e}"));
    let lines: Vec<&str> = text.lines().collect();
    lines.iter().enumerate().any(|(i, line)| {
        line.trim_start().starts_with(&format!("fn {name}("))
            && (lines[i.saturating_sub(3)..i]
                .iter()
                .any(|l| l.contains("#[test]"))
                || text[..text.find(line).unwrap()]
                    .rfind("proptest!")
                    .is_some())
    })
}

#[test]
fn every_key_of_the_schema_is_proven_by_a_test_or_listed_as_not_acted_on_yet() {
    let proven: BTreeSet<&str> = PROVEN.iter().map(|(k, _, _)| *k).collect();
    let mut missing = Vec::new();
    for (key, container) in schema_keys() {
        // The test of a list proves the keys of its items (`freezes` holds `from`).
        let item_of_proven = proven.iter().any(|p| key.starts_with(&format!("{p}[].")));
        let covered = proven.contains(key.as_str()) || item_of_proven || not_acted_on(&key);
        // A container's keys speak for it, each one on its own.
        if !covered && !container {
            missing.push(key);
        }
    }
    assert!(
        missing.is_empty(),
        "these keys are accepted, but no test proves their effect and they are not listed as not acted on yet: {missing:?}"
    );
    for (key, _, _) in PROVEN {
        assert!(!not_acted_on(key), "{key} is both proven and not acted on");
        assert!(
            schema_keys().iter().any(|(k, _)| k == key),
            "{key} is not a key of the schema"
        );
    }
    for (key, _) in NOT_ACTED_ON {
        assert!(
            schema_keys().iter().any(|(k, _)| k == key),
            "{key} is not a key of the schema"
        );
    }
}

#[test]
fn every_named_test_exists() {
    for (key, file, name) in PROVEN.iter().chain(PROVEN_INPUTS) {
        assert!(test_exists(file, name), "{key}: no test {name} in {file}");
    }
}

#[test]
fn every_input_of_the_action_is_proven_by_a_test_or_listed_as_not_acted_on_yet() {
    let action = std::fs::read_to_string(workspace().join("action.yml")).unwrap();
    let inputs: Vec<String> = action
        .split("\ninputs:\n")
        .nth(1)
        .unwrap()
        .split("\noutputs:")
        .next()
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("   ") && l.trim_end().ends_with(':'))
        .map(|l| l.trim().trim_end_matches(':').to_owned())
        .collect();
    assert!(inputs.len() > 10, "{inputs:?}");
    for input in &inputs {
        let proven = PROVEN_INPUTS.iter().any(|(i, _, _)| i == input);
        let listed = NOT_ACTED_ON_INPUTS.contains(&input.as_str());
        assert!(
            proven ^ listed,
            "{input}: proven {proven}, listed as not acted on {listed}"
        );
    }
}

/// What a proof reads, and where a key can be set in it: the test's own text, the
/// helpers of its file it calls (and theirs), and the fixtures and examples it names by
/// path (issue 40).
mod proof {
    use std::collections::BTreeSet;
    use std::path::Path;

    use super::workspace;

    /// A proving test, read.
    pub(super) struct Proof {
        /// Each string literal of the test and its helpers, unescaped, and each file the
        /// literals name.
        blocks: Vec<Block>,
        /// The test's and its helpers' own source.
        source: String,
        /// The test is a library's (not the binary's end-to-end tests), so it may set a
        /// key through the library's own field for it.
        library: bool,
    }

    /// A piece of text where YAML may be written: a literal, or a file.
    struct Block {
        text: String,
        /// Indented as a whole (a literal that opens on a line of its own, or a file):
        /// its least indented key is at the top. Otherwise its first character is.
        dedented: bool,
    }

    impl Proof {
        pub(super) fn read(file: &str, name: &str) -> Proof {
            let source = std::fs::read_to_string(workspace().join("crates").join(file))
                .unwrap_or_else(|e| panic!("{file}: {e}"));
            let mut read = BTreeSet::new();
            let mut texts = Vec::new();
            let mut waiting = vec![name.to_owned()];
            while let Some(function) = waiting.pop() {
                if !read.insert(function.clone()) {
                    continue;
                }
                let Some(text) =
                    function_text(&source, &function).or_else(|| const_text(&source, &function))
                else {
                    continue;
                };
                for called in calls(&text) {
                    if !read.contains(&called) {
                        waiting.push(called);
                    }
                }
                texts.push(text);
            }
            assert!(!texts.is_empty(), "no test {name} in {file}");
            let crate_dir = workspace()
                .join("crates")
                .join(file.split('/').next().unwrap());
            let mut blocks = Vec::new();
            for text in &texts {
                for literal in literals(text) {
                    for named in [workspace().join(&literal), crate_dir.join(&literal)] {
                        if names_a_fixture(&literal) && named.exists() {
                            files_under(&named, &mut blocks);
                        }
                    }
                    let dedented = literal.starts_with('\n');
                    blocks.push(Block {
                        text: literal,
                        dedented,
                    });
                }
            }
            Proof {
                blocks,
                source: texts.join("\n"),
                library: !file.starts_with("sluiceway/"),
            }
        }

        /// Whether the proof sets the key (`a.b`, `stacks[].c`) of `sluiceway.yaml`.
        pub(super) fn sets_key(&self, key: &str) -> bool {
            let path: Vec<&str> = key.split('.').map(|s| s.trim_end_matches("[]")).collect();
            if self.blocks.iter().any(|block| block.sets(&path)) {
                return true;
            }
            // A library's test may set it through the library's field of that name.
            let field = snake(path[path.len() - 1]);
            self.library
                && (self.source.contains(&format!(".{field} ="))
                    || self.source.contains(&format!(" {field}: ")))
        }

        /// Whether the proof sets the action's input: by its `INPUT_` variable, as an
        /// input named in the test, or as a key of the YAML it writes (a step's `with:`).
        pub(super) fn sets_input(&self, input: &str) -> bool {
            self.source
                .contains(&format!("INPUT_{}", input.to_uppercase()))
                || self.blocks.iter().any(|block| {
                    block.text == input
                        || key_lines(&block.text).iter().any(|line| line.key == input)
                })
        }
    }

    impl Block {
        /// The path is set here: a key line whose chain of parents is the path, from the
        /// top of the block; or, in a block whose top is nested in something it does not
        /// show, the path's tail.
        fn sets(&self, path: &[&str]) -> bool {
            let lines = key_lines(&self.text);
            let top = if self.dedented {
                lines.iter().map(|l| l.indent).min().unwrap_or(0)
            } else {
                0
            };
            (0..lines.len()).any(|i| {
                if lines[i].key != path[path.len() - 1] {
                    return false;
                }
                let chain = chain(&lines, i);
                let root = lines[chain[0]].indent;
                let names: Vec<&str> = chain.iter().map(|&j| lines[j].key.as_str()).collect();
                if root <= top {
                    names == path
                } else {
                    names.len() < path.len() && path.ends_with(&names)
                }
            })
        }
    }

    struct KeyLine {
        indent: usize,
        key: String,
    }

    /// The lines of a block that set a key, with their indentation (a list item's `- `
    /// counts as indentation, as YAML reads it).
    fn key_lines(text: &str) -> Vec<KeyLine> {
        let mut lines = Vec::new();
        for line in text.lines() {
            let mut indent = line.len() - line.trim_start_matches(' ').len();
            let mut rest = &line[indent..];
            while let Some(item) = rest.strip_prefix("- ") {
                indent += 2 + (item.len() - item.trim_start_matches(' ').len());
                rest = item.trim_start_matches(' ');
            }
            let unquoted = rest.strip_prefix('"').unwrap_or(rest);
            let name: String = unquoted
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
                .collect();
            let after = unquoted[name.len()..]
                .strip_prefix('"')
                .unwrap_or(&unquoted[name.len()..]);
            let is_key = !name.is_empty()
                && name.starts_with(|c: char| c.is_ascii_alphabetic())
                && (after == ":" || after.starts_with(": "));
            if is_key {
                let value = after.trim_start_matches(':').trim();
                lines.push(KeyLine { indent, key: name });
                // A flow mapping's keys (`phase: { from: tier }`) are beneath it.
                if let Some(flow) = value.strip_prefix('{').and_then(|v| v.strip_suffix('}')) {
                    for pair in flow.split(',') {
                        if let Some((inner, _)) = pair.split_once(':') {
                            lines.push(KeyLine {
                                indent: indent + 1,
                                key: inner.trim().trim_matches('"').to_owned(),
                            });
                        }
                    }
                }
            }
        }
        lines
    }

    /// The indices of a key line's parents and its own, from the top.
    fn chain(lines: &[KeyLine], at: usize) -> Vec<usize> {
        let mut chain = vec![at];
        let mut indent = lines[at].indent;
        for j in (0..at).rev() {
            if lines[j].indent < indent {
                chain.push(j);
                indent = lines[j].indent;
            }
        }
        chain.reverse();
        chain
    }

    /// The text of `fn name` in a source file, to its closing brace.
    fn function_text(source: &str, name: &str) -> Option<String> {
        let lines: Vec<&str> = source.lines().collect();
        let start = lines.iter().position(|line| {
            let line = line.trim_start();
            let line = line
                .strip_prefix("pub(crate) ")
                .or_else(|| line.strip_prefix("pub "))
                .unwrap_or(line);
            line.strip_prefix("fn ")
                .and_then(|rest| rest.strip_prefix(name))
                .is_some_and(|rest| rest.starts_with('(') || rest.starts_with('<'))
        })?;
        let indent = lines[start].len() - lines[start].trim_start().len();
        let end = (start + 1..lines.len())
            .find(|&j| {
                let line = lines[j];
                line.len() - line.trim_start().len() == indent && line.trim_start().starts_with('}')
            })
            .unwrap_or(lines.len() - 1);
        Some(lines[start..=end].join("\n"))
    }

    /// The text of `const NAME` in a source file, to the `;` that ends it.
    fn const_text(source: &str, name: &str) -> Option<String> {
        let start = source
            .find(&format!("\nconst {name}: "))
            .or_else(|| source.find(&format!("\npub(crate) const {name}: ")))?;
        let end = source[start..]
            .find(";\n")
            .map_or(source.len(), |end| start + end);
        Some(source[start..end].to_owned())
    }

    /// The names a text calls (`name(`, `name::<`) and the constants it reads (`NAME`).
    fn calls(text: &str) -> Vec<String> {
        let mut names = Vec::new();
        let mut word = String::new();
        for c in text.chars() {
            if c.is_ascii_alphanumeric() || c == '_' {
                word.push(c);
            } else {
                let constant =
                    word.len() > 1 && word.chars().all(|c| c.is_ascii_uppercase() || c == '_');
                if (c == '(' || c == ':' || constant) && !word.is_empty() {
                    names.push(word.clone());
                }
                word.clear();
            }
        }
        names
    }

    /// The string literals of Rust source, unescaped; comments skipped.
    fn literals(source: &str) -> Vec<String> {
        let chars: Vec<char> = source.chars().collect();
        let mut out = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            match chars[i] {
                '/' if chars.get(i + 1) == Some(&'/') => {
                    while i < chars.len() && chars[i] != '\n' {
                        i += 1;
                    }
                }
                '\'' => {
                    // A char literal ('x', '\n', '"'); a lifetime has no closing quote.
                    if chars.get(i + 1) == Some(&'\\') {
                        i += 3;
                        while i < chars.len() && chars[i] != '\'' {
                            i += 1;
                        }
                    } else if chars.get(i + 2) == Some(&'\'') {
                        i += 2;
                    }
                    i += 1;
                }
                'r' if !chars[..i]
                    .last()
                    .is_some_and(|c| c.is_alphanumeric() || *c == '_')
                    && matches!(chars.get(i + 1), Some('"' | '#')) =>
                {
                    let hashes = chars[i + 1..].iter().take_while(|c| **c == '#').count();
                    if chars.get(i + 1 + hashes) != Some(&'"') {
                        i += 1;
                        continue;
                    }
                    let open = i + 2 + hashes;
                    let close: String = std::iter::once('"')
                        .chain(std::iter::repeat_n('#', hashes))
                        .collect();
                    let rest: String = chars[open..].iter().collect();
                    let end = rest.find(&close).unwrap_or(rest.len());
                    out.push(rest[..end].to_owned());
                    i = open + rest[..end].chars().count() + close.chars().count();
                }
                '"' => {
                    let mut text = String::new();
                    i += 1;
                    while i < chars.len() && chars[i] != '"' {
                        if chars[i] == '\\' {
                            i += 1;
                            match chars.get(i) {
                                Some('n') => text.push('\n'),
                                Some('t') => text.push('\t'),
                                Some('\n') => {
                                    while chars.get(i + 1).is_some_and(|c| c.is_whitespace()) {
                                        i += 1;
                                    }
                                }
                                Some(&c) => text.push(c),
                                None => {}
                            }
                        } else {
                            text.push(chars[i]);
                        }
                        i += 1;
                    }
                    out.push(text);
                    i += 1;
                }
                _ => i += 1,
            }
        }
        out
    }

    /// A literal that names an example, a fixture, or a file of the tests, by a path
    /// below one of those folders.
    fn names_a_fixture(literal: &str) -> bool {
        ["examples/", "fixtures/", "docs/book/examples/", "tests/"]
            .iter()
            .any(|folder| literal.starts_with(folder) && literal.len() > folder.len())
            && !literal.contains(['\n', ' ', '{'])
    }

    /// The configuration files under a path a test names: a file, or the YAML and JSON
    /// files of a folder.
    fn files_under(path: &Path, blocks: &mut Vec<Block>) {
        if path.is_dir() {
            let Ok(entries) = std::fs::read_dir(path) else {
                return;
            };
            for entry in entries.flatten() {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                if name == "node_modules" || name == ".terraform" {
                    continue;
                }
                files_under(&entry.path(), blocks);
            }
        } else if path
            .extension()
            .is_some_and(|e| e == "yaml" || e == "yml" || e == "json")
            && let Ok(text) = std::fs::read_to_string(path)
        {
            blocks.push(Block {
                text,
                dedented: true,
            });
        }
    }

    /// `camelCase` as `snake_case`.
    fn snake(key: &str) -> String {
        let mut out = String::new();
        for c in key.chars() {
            if c.is_ascii_uppercase() {
                out.push('_');
                out.push(c.to_ascii_lowercase());
            } else {
                out.push(c);
            }
        }
        out
    }
}

/// A proving test must be an integration or end-to-end test (in a crate's `tests/`), and
/// must set its key: in its own text, in a helper of its file it calls, or in a fixture
/// or example it names by path (`proof`).
fn proves(file: &str, name: &str, sets: impl Fn(&proof::Proof) -> bool) -> bool {
    file.split('/').nth(1) == Some("tests") && sets(&proof::Proof::read(file, name))
}

#[test]
fn every_proving_test_is_an_integration_test_that_sets_its_key() {
    let mut unproven = Vec::new();
    for (key, file, name) in PROVEN {
        if !proves(file, name, |proof| proof.sets_key(key)) {
            unproven.push(key.to_string());
        }
    }
    for (input, file, name) in PROVEN_INPUTS {
        if !proves(file, name, |proof| proof.sets_input(input)) {
            unproven.push(format!("input {input}"));
        }
    }
    assert!(
        unproven.is_empty(),
        "these pairings' tests are not integration tests that set their key: {unproven:?}"
    );
}

#[test]
fn the_guard_tells_a_test_that_sets_its_key_from_one_that_does_not() {
    // Tests written out for the guard to read, not to run.
    let file = "sluiceway/tests/effects/proofs.rs.txt";
    let sets = proof::Proof::read(file, "a_test_of_the_guard_that_sets_keys");
    for key in [
        "valueFingerprint",
        "stacks[].drift.enabled",
        "dashboard.title",
        "stacks[].phase.from",
    ] {
        assert!(sets.sets_key(key), "{key}");
    }
    for key in [
        "stacks[].valueFingerprint",
        "drift.enabled",
        "title",
        "phase.from",
    ] {
        assert!(!sets.sets_key(key), "{key} is not set there");
    }
    assert!(sets.sets_input("dry-run") && !sets.sets_input("strict"));
    let fragment = proof::Proof::read(file, "a_test_of_the_guard_that_sets_a_fragment");
    assert!(fragment.sets_key("stacks[].valueFingerprint"));
    assert!(!fragment.sets_key("valueFingerprint"));
    let constant = proof::Proof::read(file, "a_test_of_the_guard_that_reads_a_constant");
    assert!(constant.sets_key("stacks[].createInBackend"));
    assert!(!constant.sets_key("createInBackend"));
    let example = proof::Proof::read(file, "a_test_of_the_guard_that_names_an_example");
    assert!(
        example.sets_key("stacks[].options.release"),
        "in examples/helm-lab"
    );
    assert!(!example.sets_key("stacks[].options.createNamespace"));
    assert!(!proves(
        "sluiceway/src/modes/scan/pool/mod.rs",
        "the_size_follows_the_input_then_the_cores",
        |_| true
    ));
}

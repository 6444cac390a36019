//! The shard plan: which stacks each shard of a sharded scan previews (ADR 0037). The
//! planning step writes it as the `shard-plan` output; every shard and the join read it
//! back, so they agree on the commit, the run, the scan's start and each shard's stacks
//! without asking GitHub again. Pure: the balance is a function of the stacks and the
//! preview times the last scan recorded.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sluiceway_core::stack::StackId;

/// The plan, as the `shard-plan` output carries it between jobs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(title = "Sluiceway shard plan, version 1")]
pub struct ShardPlan {
    /// Always 1; a change that breaks a reader raises it.
    #[schemars(range(min = 1, max = 1))]
    pub version: u8,
    /// The commit every shard must have checked out.
    pub commit: String,
    /// The workflow run the plan belongs to.
    pub run: u64,
    /// When the scan began (RFC 3339): the join draws the scan line from it.
    pub started_at: String,
    /// A full scan previews every stack; a narrowed one those a push touched.
    pub full: bool,
    /// The stacks whose drift is checked.
    pub drift: Vec<StackId>,
    /// Shard k previews `shards[k - 1]`, in stack-id order.
    pub shards: Vec<Vec<StackId>>,
}

impl ShardPlan {
    /// The stacks of shard `index` (1-based); `None` outside 1..=N.
    pub fn stacks_of(&self, index: u32) -> Option<&[StackId]> {
        let i = usize::try_from(index.checked_sub(1)?).ok()?;
        self.shards.get(i).map(Vec::as_slice)
    }

    pub fn count(&self) -> u32 {
        u32::try_from(self.shards.len()).unwrap_or(u32::MAX)
    }

    /// The shard indices, as the matrix takes them: `[1,2,3]`.
    pub fn indices(&self) -> String {
        let indices: Vec<u32> = (1..=self.count()).collect();
        serde_json::to_string(&indices).unwrap_or_else(|_| "[]".to_owned())
    }
}

/// Splits `stacks` (in stack-id order) into `count` shards, longest preview first onto
/// the shard with the least work so far. A stack with no recorded time weighs as the
/// mean of the recorded ones (one second when none is), so with no times at all the
/// stacks are dealt out in turn. Ties go to the lower shard, so the same input always
/// gives the same plan.
pub fn balance(
    stacks: &[StackId],
    count: u32,
    seconds: &BTreeMap<StackId, f64>,
) -> Vec<Vec<StackId>> {
    let count = usize::try_from(count.max(1)).unwrap_or(1);
    let known: Vec<f64> = stacks
        .iter()
        .filter_map(|id| seconds.get(id).copied())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .collect();
    let unknown = if known.is_empty() {
        1.0
    } else {
        known.iter().sum::<f64>() / known.len() as f64
    };
    let weight = |id: &StackId| {
        seconds
            .get(id)
            .copied()
            .filter(|s| s.is_finite() && *s >= 0.0)
            .unwrap_or(unknown)
    };
    let mut order: Vec<(usize, f64)> = stacks
        .iter()
        .enumerate()
        .map(|(i, id)| (i, weight(id)))
        .collect();
    // Heaviest first; equal weights keep stack-id order.
    order.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut loads = vec![0.0_f64; count];
    let mut shards: Vec<Vec<StackId>> = vec![Vec::new(); count];
    for (i, w) in order {
        let lightest = loads
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(b.1).then(a.0.cmp(&b.0)))
            .map_or(0, |(k, _)| k);
        loads[lightest] += w;
        shards[lightest].push(stacks[i].clone());
    }
    for shard in &mut shards {
        shard.sort();
    }
    shards
}

/// The preview times a sharded scan keeps between runs (the `timings-file` input): the
/// join writes them, the next plan balances by them. Seconds per stack; no value, no
/// address.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(title = "Sluiceway preview timings, version 1")]
pub struct Timings {
    #[schemars(range(min = 1, max = 1))]
    pub version: u8,
    pub seconds: BTreeMap<StackId, f64>,
}

impl Timings {
    /// Reads a timings file's text; anything else is no timings, which only costs balance.
    pub fn read(text: &str) -> Option<Timings> {
        serde_json::from_str::<Timings>(text)
            .ok()
            .filter(|t| t.version == 1)
    }

    /// These timings with `fresh` over them, kept to the stacks that still exist.
    pub fn updated(
        mut self,
        fresh: impl IntoIterator<Item = (StackId, f64)>,
        exists: impl Fn(&StackId) -> bool,
    ) -> Timings {
        self.version = 1;
        self.seconds.extend(fresh);
        self.seconds.retain(|id, _| exists(id));
        self
    }
}

/// The plan's schema, as published.
pub fn plan_schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(ShardPlan)).unwrap_or_default()
}

/// The timings file's schema, as published.
pub fn timings_schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(Timings)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn ids(n: usize) -> Vec<StackId> {
        (0..n)
            .map(|i| StackId::given(&format!("stack-{i:04}")))
            .collect()
    }

    #[test]
    fn with_no_times_the_stacks_are_dealt_out_in_turn() {
        let stacks = ids(7);
        let shards = balance(&stacks, 3, &BTreeMap::new());
        let names = |k: usize| -> Vec<&str> { shards[k].iter().map(StackId::as_str).collect() };
        assert_eq!(names(0), ["stack-0000", "stack-0003", "stack-0006"]);
        assert_eq!(names(1), ["stack-0001", "stack-0004"]);
        assert_eq!(names(2), ["stack-0002", "stack-0005"]);
    }

    #[test]
    fn recorded_times_put_a_slow_stack_alone() {
        let stacks = ids(5);
        let seconds = BTreeMap::from([
            (stacks[2].clone(), 40.0),
            (stacks[0].clone(), 10.0),
            (stacks[1].clone(), 10.0),
            (stacks[3].clone(), 10.0),
            (stacks[4].clone(), 10.0),
        ]);
        let shards = balance(&stacks, 2, &seconds);
        assert_eq!(shards[0], [stacks[2].clone()]);
        assert_eq!(shards[1].len(), 4);
    }

    #[test]
    fn timings_keep_what_exists_and_take_the_fresh_times() {
        let stacks = ids(3);
        let old = Timings {
            version: 1,
            seconds: BTreeMap::from([(stacks[0].clone(), 1.0), (stacks[1].clone(), 2.0)]),
        };
        let text = serde_json::to_string(&old).unwrap();
        let read = Timings::read(&text).unwrap();
        let new = read.updated([(stacks[1].clone(), 5.0), (stacks[2].clone(), 3.0)], |id| {
            id != &stacks[0]
        });
        assert_eq!(
            new.seconds,
            BTreeMap::from([(stacks[1].clone(), 5.0), (stacks[2].clone(), 3.0)])
        );
        assert_eq!(Timings::read("{\"version\":2,\"seconds\":{}}"), None);
        assert_eq!(Timings::read("not json"), None);
    }

    proptest! {
        /// Every stack lands in exactly one shard; no shard carries more than the ideal
        /// share plus its one heaviest stack (the greedy bound); with no times the
        /// shards' sizes differ by one at most; and the same input gives the same plan.
        #[test]
        fn every_stack_lands_once_and_no_shard_carries_more_than_its_share_and_one(
            times in proptest::collection::vec(proptest::option::of(0.0_f64..600.0), 0..300),
            count in 1_u32..40,
        ) {
            let stacks = ids(times.len());
            let seconds: BTreeMap<StackId, f64> = stacks
                .iter()
                .zip(&times)
                .filter_map(|(id, t)| Some((id.clone(), (*t)?)))
                .collect();
            let shards = balance(&stacks, count, &seconds);
            prop_assert_eq!(shards.len(), count as usize);
            let mut all: Vec<StackId> = shards.iter().flatten().cloned().collect();
            all.sort();
            prop_assert_eq!(&all, &stacks);
            let known: Vec<f64> = seconds.values().copied().collect();
            let unknown = if known.is_empty() { 1.0 } else { known.iter().sum::<f64>() / known.len() as f64 };
            let weight = |id: &StackId| seconds.get(id).copied().unwrap_or(unknown);
            let total: f64 = stacks.iter().map(weight).sum();
            let heaviest = stacks.iter().map(weight).fold(0.0, f64::max);
            for shard in &shards {
                let load: f64 = shard.iter().map(weight).sum();
                prop_assert!(load <= total / f64::from(count) + heaviest + 1e-6, "{load} > {total}/{count} + {heaviest}");
            }
            let plain = balance(&stacks, count, &BTreeMap::new());
            let sizes: Vec<usize> = plain.iter().map(Vec::len).collect();
            prop_assert!(sizes.iter().max().unwrap_or(&0) - sizes.iter().min().unwrap_or(&0) <= 1);
            prop_assert_eq!(balance(&stacks, count, &seconds), shards);
        }
    }
}

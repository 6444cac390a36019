//! The dependency gate (decisions 0056 and 0067): which ticks start now, which wait in a
//! queue behind a dependency, and which start nothing because a dependency has a change
//! waiting that nobody ticked.
//!
//! A stack waits only on what it names: its `dependsOn` ids, and every stack of every
//! earlier phase. Only a dependency's *pending* change holds a tick back, since only a
//! change can alter what the stack reads; a dependency that is deploying, or ticked in
//! the same run, puts the tick in a queue behind it instead, so a chain deploys one layer
//! per run.

use std::collections::{BTreeMap, BTreeSet};

use crate::stack::{Stack, StackId};

/// One edge: a stack waits on `on`, because it names it or because `on` is in `phase`,
/// an earlier phase than its own.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Wait {
    pub on: StackId,
    /// The earlier phase the edge comes from; `None` for a `dependsOn` id.
    pub phase: Option<String>,
}

/// What every stack waits on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Waits {
    of: BTreeMap<StackId, Vec<Wait>>,
}

impl Waits {
    /// The edges of discovered stacks. Discovery has checked them (known, kept, no
    /// cycle), so an edge to a stack that is not in `stacks` is simply left out.
    pub fn of(stacks: &[Stack], phases: &[String]) -> Waits {
        let known: BTreeSet<&StackId> = stacks.iter().map(|s| &s.id).collect();
        let phase_of = |stack: &Stack| {
            stack
                .settings
                .phase
                .as_deref()
                .and_then(|p| phases.iter().position(|name| name == p))
        };
        let mut of: BTreeMap<StackId, Vec<Wait>> = BTreeMap::new();
        for stack in stacks {
            let mut waits: BTreeMap<StackId, Option<String>> = BTreeMap::new();
            if let Some(own) = phase_of(stack) {
                for other in stacks {
                    if let Some(theirs) = phase_of(other).filter(|p| *p < own) {
                        waits.insert(other.id.clone(), Some(phases[theirs].clone()));
                    }
                }
            }
            // A named edge beats a phase edge to the same stack: the note names it so.
            for id in &stack.settings.depends_on {
                if known.contains(id) && *id != stack.id {
                    waits.insert(id.clone(), None);
                }
            }
            if !waits.is_empty() {
                of.insert(
                    stack.id.clone(),
                    waits
                        .into_iter()
                        .map(|(on, phase)| Wait { on, phase })
                        .collect(),
                );
            }
        }
        Waits { of }
    }

    pub fn on(&self, stack: &StackId) -> &[Wait] {
        self.of.get(stack).map_or(&[], Vec::as_slice)
    }

    /// Whether any stack waits on another at all.
    pub fn any(&self) -> bool {
        !self.of.is_empty()
    }
}

/// What the gate does with one allowed tick.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gated {
    /// Deploys in this run.
    Start,
    /// Gets a record now, queued behind these stacks (ticked in this run or deploying).
    Behind(Vec<StackId>),
    /// Starts nothing: these dependencies have a change waiting that was not ticked (or
    /// whose tick was itself held).
    Held(Vec<Wait>),
}

/// The gate for the allowed ticks of one run. `pending` says whether a stack's row shows
/// a change waiting; `deploying` whether it has an open record.
pub fn gate(
    allowed: &BTreeSet<StackId>,
    waits: &Waits,
    pending: impl Fn(&StackId) -> bool,
    deploying: impl Fn(&StackId) -> bool,
) -> BTreeMap<StackId, Gated> {
    // Holds cascade: a tick held back holds back the ticks that wait on it.
    let mut held: BTreeMap<&StackId, Vec<Wait>> = BTreeMap::new();
    loop {
        let mut grew = false;
        for stack in allowed {
            if held.contains_key(stack) {
                continue;
            }
            let blocking: Vec<Wait> = waits
                .on(stack)
                .iter()
                .filter(|w| {
                    pending(&w.on) && (!allowed.contains(&w.on) || held.contains_key(&w.on))
                })
                .cloned()
                .collect();
            if !blocking.is_empty() {
                held.insert(stack, blocking);
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    allowed
        .iter()
        .map(|stack| {
            let gated = match held.get(stack) {
                Some(blocking) => Gated::Held(blocking.clone()),
                None => {
                    let behind: Vec<StackId> = waits
                        .on(stack)
                        .iter()
                        .filter(|w| allowed.contains(&w.on) || deploying(&w.on))
                        .map(|w| w.on.clone())
                        .collect();
                    if behind.is_empty() {
                        Gated::Start
                    } else {
                        Gated::Behind(behind)
                    }
                }
            };
            (stack.clone(), gated)
        })
        .collect()
}

/// Whether a queued record may start: the newest record of every stack it waits behind
/// has ended, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Readiness {
    /// Every one deployed (or rehearsed, or found nothing to deploy).
    Ready,
    /// One still deploys.
    Waiting,
    /// One failed, or has no record at all: the queued record ends, it never deploys.
    DependencyFailed,
}

/// How a dependency's newest record stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Newest {
    Open,
    WentOut,
    Failed,
    None,
}

pub fn readiness(behind: &[StackId], newest: impl Fn(&StackId) -> Newest) -> Readiness {
    let states: Vec<Newest> = behind.iter().map(newest).collect();
    if states
        .iter()
        .any(|s| matches!(s, Newest::Failed | Newest::None))
    {
        Readiness::DependencyFailed
    } else if states.contains(&Newest::Open) {
        Readiness::Waiting
    } else {
        Readiness::Ready
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stack::{Origin, StackSettings, Tool, ToolOptions};

    fn stack(id: &str, depends_on: &[&str], phase: Option<&str>) -> Stack {
        Stack {
            id: StackId::given(id),
            path: id.to_owned(),
            name: None,
            tool: Tool::Kubectl,
            options: ToolOptions::Pulumi,
            origin: Origin::Declared(0),
            settings: StackSettings {
                depends_on: depends_on.iter().map(|d| StackId::given(d)).collect(),
                phase: phase.map(str::to_owned),
                ..StackSettings::default()
            },
        }
    }

    fn ids(list: &[&str]) -> BTreeSet<StackId> {
        list.iter().map(|i| StackId::given(i)).collect()
    }

    #[test]
    fn a_stack_waits_on_what_it_names_and_on_every_stack_of_earlier_phases() {
        let phases = ["base".to_owned(), "platform".to_owned(), "apps".to_owned()];
        let stacks = [
            stack("net", &[], Some("base")),
            stack("dns", &[], Some("base")),
            stack("db", &["dns"], Some("platform")),
            stack("web", &["db"], Some("apps")),
            stack("loose", &[], None),
        ];
        let waits = Waits::of(&stacks, &phases);
        let on = |id: &str| -> Vec<(String, Option<String>)> {
            waits
                .on(&StackId::given(id))
                .iter()
                .map(|w| (w.on.to_string(), w.phase.clone()))
                .collect()
        };
        assert_eq!(on("net"), vec![]);
        assert_eq!(
            on("db"),
            vec![("dns".into(), None), ("net".into(), Some("base".into()))]
        );
        assert_eq!(
            on("web"),
            vec![
                ("db".into(), None),
                ("dns".into(), Some("base".into())),
                ("net".into(), Some("base".into()))
            ]
        );
        assert_eq!(on("loose"), vec![]);
        assert!(waits.any());
        assert!(!Waits::of(&[stack("a", &[], None)], &[]).any());
    }

    #[test]
    fn a_pending_unticked_dependency_holds_the_tick_and_the_hold_cascades() {
        let stacks = [
            stack("a", &[], None),
            stack("b", &["a"], None),
            stack("c", &["b"], None),
        ];
        let waits = Waits::of(&stacks, &[]);
        let gated = gate(
            &ids(&["b", "c"]),
            &waits,
            |s| s.as_str() == "a" || s.as_str() == "b",
            |_| false,
        );
        assert!(matches!(&gated[&StackId::given("b")], Gated::Held(w) if w[0].on.as_str() == "a"));
        assert!(matches!(&gated[&StackId::given("c")], Gated::Held(w) if w[0].on.as_str() == "b"));
    }

    #[test]
    fn ticked_together_the_chain_deploys_one_layer_per_run() {
        let stacks = [
            stack("a", &[], None),
            stack("b", &["a"], None),
            stack("c", &["b"], None),
        ];
        let waits = Waits::of(&stacks, &[]);
        let gated = gate(&ids(&["a", "b", "c"]), &waits, |_| true, |_| false);
        assert_eq!(gated[&StackId::given("a")], Gated::Start);
        assert_eq!(
            gated[&StackId::given("b")],
            Gated::Behind(vec![StackId::given("a")])
        );
        assert_eq!(
            gated[&StackId::given("c")],
            Gated::Behind(vec![StackId::given("b")])
        );
    }

    #[test]
    fn a_deploying_dependency_queues_and_one_in_sync_lets_it_start() {
        let stacks = [stack("a", &[], None), stack("b", &["a"], None)];
        let waits = Waits::of(&stacks, &[]);
        let deploying = gate(&ids(&["b"]), &waits, |_| false, |s| s.as_str() == "a");
        assert_eq!(
            deploying[&StackId::given("b")],
            Gated::Behind(vec![StackId::given("a")])
        );
        let in_sync = gate(&ids(&["b"]), &waits, |_| false, |_| false);
        assert_eq!(in_sync[&StackId::given("b")], Gated::Start);
    }

    proptest::proptest! {
        /// For any acyclic edges, pending rows, ticks and open records: a tick that
        /// starts waits on nothing ticked or deploying; a queued one waits only behind
        /// its own dependencies, each ticked now or deploying; and no tick goes on while
        /// a dependency has a pending change that does not go on with it.
        #[test]
        fn the_gate_never_lets_a_tick_past_a_waiting_change(
            edges in proptest::collection::vec((0..8usize, 0..8usize), 0..16),
            pending in proptest::collection::btree_set(0..8usize, 0..8),
            ticked in proptest::collection::btree_set(0..8usize, 0..8),
            open in proptest::collection::btree_set(0..8usize, 0..3),
        ) {
            let name = |i: usize| format!("s{i}");
            // Edges only from a larger index to a smaller one: no cycle.
            let stacks: Vec<Stack> = (0..8)
                .map(|i| {
                    let on: Vec<String> = edges
                        .iter()
                        .filter(|(a, b)| *a == i && b < a)
                        .map(|(_, b)| name(*b))
                        .collect();
                    let on: Vec<&str> = on.iter().map(String::as_str).collect();
                    stack(&name(i), &on, None)
                })
                .collect();
            let waits = Waits::of(&stacks, &[]);
            let allowed: BTreeSet<StackId> = ticked.iter().map(|i| StackId::given(&name(*i))).collect();
            let is = |set: &BTreeSet<usize>, id: &StackId| set.iter().any(|i| name(*i) == id.as_str());
            let gated = gate(&allowed, &waits, |id| is(&pending, id), |id| is(&open, id));
            let goes = |id: &StackId| !matches!(gated.get(id), Some(Gated::Held(_)) | None);
            for (id, verdict) in &gated {
                let deps: Vec<&StackId> = waits.on(id).iter().map(|w| &w.on).collect();
                if !matches!(verdict, Gated::Held(_)) {
                    for dep in &deps {
                        proptest::prop_assert!(!is(&pending, dep) || goes(dep), "{id} went past {dep}");
                    }
                }
                match verdict {
                    Gated::Start => {
                        for dep in &deps {
                            proptest::prop_assert!(!allowed.contains(*dep) && !is(&open, dep));
                        }
                    }
                    Gated::Behind(behind) => {
                        proptest::prop_assert!(!behind.is_empty());
                        for b in behind {
                            proptest::prop_assert!(deps.contains(&b));
                            proptest::prop_assert!(allowed.contains(b) || is(&open, b));
                        }
                    }
                    Gated::Held(blocking) => {
                        proptest::prop_assert!(!blocking.is_empty());
                        for w in blocking {
                            proptest::prop_assert!(is(&pending, &w.on) && !goes(&w.on));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_queued_record_starts_when_every_dependency_went_out() {
        let behind = [StackId::given("a"), StackId::given("b")];
        let with =
            |a: Newest, b: Newest| readiness(&behind, |s| if s.as_str() == "a" { a } else { b });
        assert_eq!(with(Newest::WentOut, Newest::WentOut), Readiness::Ready);
        assert_eq!(with(Newest::WentOut, Newest::Open), Readiness::Waiting);
        assert_eq!(
            with(Newest::Open, Newest::Failed),
            Readiness::DependencyFailed
        );
        assert_eq!(
            with(Newest::None, Newest::WentOut),
            Readiness::DependencyFailed
        );
    }
}

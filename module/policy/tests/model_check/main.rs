//! Exhaustive bounded model check of the GCAPS decision.
//!
//! Breadth-first search over every sequence of events up to `DEPTH` events long,
//! starting from a populated initial state, with 4 clients of mixed priorities (two
//! equal real-time, one higher real-time, one best-effort that shares its process key
//! with the first: two open files of one process), GPU-priority overrides, the class
//! read at begin differing from the registered one, client exit and
//! re-registration, and driver TSG events (create, destroy with id reuse by another process, content change, always-eligible marks,
//! out-of-range ids) over 4 TSG ids spanning two bit-set words.
//!
//! After every step the implementation is compared with a deliberately simple
//! reference model (an arrival-ordered queue of open segments and a map of TSGs,
//! recomputed from scratch) and all invariants are asserted. Visited states are
//! deduplicated on the pair (canonical implementation state, reference state), so the
//! search stays fast. Set `GCAPS_MC_DEPTH` to change the depth.
//!
//! This file holds the events and the search; `reference.rs` the reference model,
//! `node.rs` a search state and its checks.

mod node;
mod reference;

use node::{initial, Node};

use gcaps_policy::{ClientId, ClientStatus, Error, GpuPriority, Policy, SchedClass, Segment};
use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::time::Instant;

/// Two words of TSG ids (0..128), 4 client slots.
type P = Policy<2, 4>;

const ROLES: usize = 4;
/// Process keys of the roles: role 3 is a second open file (client) of role 0's
/// process, so both own that process's TSGs.
const KEYS: [u64; ROLES] = [10, 11, 12, 10];
/// Key of a process that never uses gcaps.
const OTHER: u64 = 99;
/// Initial classes: two equal real-time, one higher real-time, one best-effort.
const CLASSES: [SchedClass; ROLES] = [
    SchedClass::RealTime(50),
    SchedClass::RealTime(50),
    SchedClass::RealTime(70),
    SchedClass::BestEffort,
];
/// TSG ids used (two bit-set words).
const TSGS: [u32; 4] = [0, 1, 2, 64];
/// TSGs that exist initially: one per real-time role and one of a non-gcaps process.
const INITIAL_TSGS: [(u32, u64); 4] = [(0, KEYS[0]), (1, KEYS[1]), (2, KEYS[2]), (64, OTHER)];
/// The two processes each TSG id can be (re)created for (id reuse by another process).
const OWNERS: [(u32, [u64; 2]); 4] = [
    (0, [KEYS[0], OTHER]),
    (1, [KEYS[1], KEYS[3]]),
    (2, [KEYS[2], KEYS[0]]),
    (64, [OTHER, KEYS[2]]),
];

/// Deepest search supported (the trace kept for error messages is a fixed array).
const MAX_DEPTH: usize = 16;
/// Events leading to a state (for error messages).
type Trace = [Option<Ev>; MAX_DEPTH];

#[derive(Clone, Copy, Debug)]
enum Ev {
    Register(usize),
    Unregister(usize),
    Gone(usize),
    Begin(usize, Segment),
    End(usize),
    Create(u32, u64),
    Destroy(u32),
    Changed(u32),
    Always(u32, bool),
}

/// The segment of a caller of class `class` asking for `gpu` (the alphabet has no best-effort
/// caller asking for an explicit priority: that is the permission rule, not the policy's).
fn seg(class: SchedClass, gpu: GpuPriority) -> Segment {
    match class {
        SchedClass::BestEffort => Segment::BestEffort,
        SchedClass::RealTime(cpu) => Segment::RealTime { cpu, gpu },
    }
}

fn alphabet() -> Vec<Ev> {
    let mut v = Vec::new();
    for (r, &class) in CLASSES.iter().enumerate() {
        v.push(Ev::Register(r));
        v.push(Ev::Gone(r));
        v.push(Ev::Begin(r, seg(class, GpuPriority::Inherit)));
        // Roles 0/1: 70 ties with role 2's CPU priority and beats their own 50;
        // role 2: 40 is below its CPU priority.
        match r {
            // Role 1: 51 is one above role 0's 50 (the strict boundary of preemption).
            1 => {
                v.push(Ev::Begin(r, seg(class, GpuPriority::Explicit(70))));
                v.push(Ev::Begin(r, seg(class, GpuPriority::Explicit(51))));
            }
            0 => v.push(Ev::Begin(r, seg(class, GpuPriority::Explicit(70)))),
            2 => v.push(Ev::Begin(r, seg(class, GpuPriority::Explicit(40)))),
            _ => {}
        }
        v.push(Ev::End(r));
    }
    // Orderly unregistration (an error while a segment is open).
    v.push(Ev::Unregister(0));
    v.push(Ev::Unregister(3));
    v.push(Ev::Begin(0, seg(CLASSES[0], GpuPriority::Explicit(0)))); // out of range
    v.push(Ev::Begin(
        0,
        seg(SchedClass::RealTime(0), GpuPriority::Inherit),
    )); // out of range
        // The class read at begin differs from the registered one (sched_setscheduler
        // between segments): promoted, demoted.
    v.push(Ev::Begin(
        0,
        seg(SchedClass::RealTime(80), GpuPriority::Inherit),
    ));
    v.push(Ev::Begin(
        2,
        seg(SchedClass::BestEffort, GpuPriority::Inherit),
    ));
    v.push(Ev::Begin(
        3,
        seg(SchedClass::RealTime(70), GpuPriority::Inherit),
    ));
    for (t, ks) in OWNERS {
        for k in ks {
            v.push(Ev::Create(t, k));
        }
        v.push(Ev::Destroy(t));
        v.push(Ev::Changed(t));
    }
    v.push(Ev::Create(128, KEYS[0])); // out of range
    v.push(Ev::Always(64, true));
    v.push(Ev::Always(64, false));
    v.push(Ev::Always(1, true));
    v
}

#[test]
fn exhaustive_bounded_model_check() {
    let depth: usize = std::env::var("GCAPS_MC_DEPTH")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(8)
        .min(MAX_DEPTH);
    let alphabet = alphabet();
    let start = Instant::now();
    let mut init = initial();
    init.check(None, &|| "initial".into());
    let mut visited: HashSet<u128> = HashSet::new();
    visited.insert(init.fingerprint());
    // Frontier entries keep a short trace for error messages.
    let mut frontier: Vec<(Node, Trace)> = vec![(init, [None; MAX_DEPTH])];
    let mut transitions: u64 = 0;
    let mut rejected: u64 = 0;
    for level in 1..=depth {
        let mut next = Vec::new();
        let last = level == depth;
        for (node, trace) in &frontier {
            for &ev in &alphabet {
                transitions += 1;
                let Some(n) = node.step(ev, trace) else {
                    rejected += 1;
                    continue;
                };
                if visited.insert(n.fingerprint()) && !last {
                    let mut t = *trace;
                    t[level - 1] = Some(ev);
                    next.push((n, t));
                }
            }
        }
        eprintln!(
            "model check: depth {level}: {} distinct states so far, frontier {}, {:.1?}",
            visited.len(),
            next.len(),
            start.elapsed()
        );
        frontier = next;
    }
    let msg = format!(
        "model check: {} distinct (implementation, reference) states explored within {depth} \
         events ({} events in the alphabet, {transitions} transitions checked, {rejected} \
         rejected), {:.1?}",
        visited.len(),
        alphabet.len(),
        start.elapsed()
    );
    eprintln!("{msg}");
    println!("{msg}");
    assert!(visited.len() > 1000);
}

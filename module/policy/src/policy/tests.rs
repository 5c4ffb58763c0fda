//! Unit tests for the decision rules, the error contract and the change contract: the
//! helpers here, the tests by concept in `tests/`.

extern crate std;

mod clients;
mod contract;
mod defects;
mod rules;

use super::*;
use std::boxed::Box;
use std::vec::Vec;

/// 128 TSG ids (two words, so ids above 64 are exercised), 8 clients.
type P = Policy<2, 8>;

const RT: fn(u8) -> SchedClass = SchedClass::RealTime;
const BE: SchedClass = SchedClass::BestEffort;
const INH: GpuPriority = GpuPriority::Inherit;

fn reg(p: &mut P, key: ProcessKey, class: SchedClass) -> ClientId {
    let (id, out) = p.register(key, class).unwrap();
    assert!(!out.changed, "register never changes the eligible set");
    id
}

/// The class a client registered with (or began its last segment with): what the
/// kernel would read from an unchanged task at the next begin.
fn cls<const W: usize, const C: usize>(p: &Policy<W, C>, id: ClientId) -> SchedClass {
    p.client_info(id).map(|i| i.class).unwrap_or(BE)
}

/// The segment of a caller of class `class` asking for `gpu`: the permission rule is not
/// the policy's (a best-effort caller with an explicit GPU priority has no `Segment`), so
/// these tests never ask for one.
fn seg(class: SchedClass, gpu: GpuPriority) -> Segment {
    match (class, gpu) {
        (SchedClass::BestEffort, GpuPriority::Inherit) => Segment::BestEffort,
        (SchedClass::BestEffort, GpuPriority::Explicit(_)) => {
            panic!("a best-effort caller has no explicit GPU priority")
        }
        (SchedClass::RealTime(cpu), gpu) => Segment::RealTime { cpu, gpu },
    }
}

fn set(ids: &[u32]) -> TsgSet<2> {
    let mut s = TsgSet::EMPTY;
    for &i in ids {
        assert!(s.insert(i));
    }
    s
}

fn elig(p: &P) -> Vec<u32> {
    p.eligible().iter().collect()
}

/// Asserts that an event failed with `err` and left the state unchanged.
fn rejects(p: &mut P, err: Error, f: impl FnOnce(&mut P) -> Result<Outcome, Error>) {
    let before = p.clone();
    assert_eq!(f(p), Err(err));
    assert_eq!(*p, before, "a rejected event must not change the state");
}

// SPDX-License-Identifier: GPL-2.0

//! Model check of the client and segment lifecycle: every sequence of up to `DEPTH` events
//! (opens, begins, ends, closes, owner exits at any point, TSG creation, release and change
//! reported by the driver, the event work, a statistics reset) over three files of two
//! processes and two TSG ids, explored depth-first with states merged by their abstract
//! (reference) state. After every event the core is compared with a reference model written
//! from the rules in `docs/module.md`, and its invariants are checked:
//!
//! * call results (`EPERM` on a file whose owner exited, `EALREADY`, `ENOENT`) and the state a
//!   begin returns (running iff it is the winner);
//! * the decision: no real-time segment open => every TSG eligible; otherwise exactly the
//!   TSGs (applied so far) of the winner's process (highest priority, first come first served);
//! * the published snapshot equals the policy's decision (generation included), except for
//!   ids the driver released and the core has not taken yet (the host keeps them off);
//! * a resubmit happened iff the published decision changed;
//! * statistics balance (`open_at_reset + begins == ends + ends_by_close + segments_open`),
//!   client and open-segment counts;
//! * LIST: every TSG's owner is the lowest-slot client of its process;
//! * `Core::check` (mirror = policy, running slot, unique ids).
//!
//! `GCAPS_MC_DEPTH` overrides the depth (default 6 in a debug build, 7 with `--release`).

#![allow(clippy::needless_range_loop)]

mod common;

use common::{fifo, opener, TestHost};
use gcaps_core::ioctl::begin_request;
use gcaps_core::stats::ResetScope;
use gcaps_core::uapi::{self, SegBegin};
use gcaps_core::{Call, ClientRef, Core, Errno, Exits, ListBuf};
use std::collections::HashMap;

const FILES: usize = 3;
/// File `i` belongs to process `PROC[i]`.
const PROC: [usize; FILES] = [0, 0, 1];
const TSGS: u32 = 2;
const PRIOS: [i32; 3] = [0, 10, 20];

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum File {
    Closed,
    /// A file with its client; `seg`: the open segment's priority and begin order.
    Live {
        seg: Option<(i32, u32)>,
    },
    /// The file lives on after its owner exited: its client is gone.
    Stale,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Ev {
    Open(usize),
    Begin(usize, i32),
    End(usize),
    Close(usize),
    Exit(usize),
    /// A wake of a live process's pid queue (the exit mark of a client whose owner lives).
    Wake(usize),
    TsgNew(u32, usize),
    TsgRelease(u32),
    TsgChange(u32),
    Work,
    StatsReset,
}

fn events() -> Vec<Ev> {
    let mut v = Vec::new();
    for f in 0..FILES {
        v.push(Ev::Open(f));
        for p in PRIOS {
            v.push(Ev::Begin(f, p));
        }
        v.push(Ev::End(f));
        v.push(Ev::Close(f));
    }
    for p in 0..2 {
        v.push(Ev::Exit(p));
    }
    for f in 0..FILES {
        v.push(Ev::Wake(f));
    }
    for t in 0..TSGS {
        for p in 0..2 {
            v.push(Ev::TsgNew(t, p));
        }
        v.push(Ev::TsgRelease(t));
        v.push(Ev::TsgChange(t));
    }
    v.push(Ev::Work);
    v.push(Ev::StatsReset);
    v
}

/// The reference model (the abstract state).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Model {
    /// Concrete core facts that the abstraction must not merge: each file's client slot (for
    /// live and stale files) and the core's running-slot cache.
    slots: [Option<u32>; FILES],
    running: Option<usize>,
    /// The host's released marks not yet taken.
    released: u64,
    files: [File; FILES],
    /// Incarnation of each process (an exit makes a new process of the same program).
    inc: [u32; 2],
    /// The driver's TSGs: owner process and incarnation.
    driver: [Option<(usize, u32)>; TSGS as usize],
    /// What the core applied: owner process and incarnation.
    applied: [Option<(usize, u32)>; TSGS as usize],
    /// Events in the driver's table not yet drained.
    pending: bool,
    next_order: u32,
}

impl Model {
    /// The abstract state for merging: begin orders by rank, incarnations relative.
    fn key(&self) -> Model {
        let mut k = self.clone();
        let mut orders: Vec<u32> = k
            .files
            .iter()
            .filter_map(|f| match f {
                File::Live { seg: Some((_, o)) } => Some(*o),
                _ => None,
            })
            .collect();
        orders.sort_unstable();
        for f in k.files.iter_mut() {
            if let File::Live { seg: Some((_, o)) } = f {
                *o = orders.iter().position(|x| x == o).unwrap() as u32;
            }
        }
        k.next_order = 0;
        for t in k.driver.iter_mut().chain(k.applied.iter_mut()).flatten() {
            t.1 = u32::from(t.1 == self.inc[t.0]);
        }
        k.inc = [0; 2];
        k
    }

    /// The winner: the file with the highest real-time priority, first come first served.
    fn winner(&self) -> Option<usize> {
        let mut best: Option<(i32, u32, usize)> = None;
        for (i, f) in self.files.iter().enumerate() {
            if let File::Live { seg: Some((p, o)) } = *f {
                if p > 0 && best.is_none_or(|(bp, bo, _)| p > bp || (p == bp && o < bo)) {
                    best = Some((p, o, i));
                }
            }
        }
        best.map(|b| b.2)
    }
}

fn tgid(p: usize, inc: u32) -> u32 {
    100 * (p as u32 + 1) + inc
}

#[derive(Clone)]
struct Sys {
    core: Box<Core>,
    host: TestHost,
    refs: [ClientRef; FILES],
    m: Model,
}

fn call(rt: bool) -> Call {
    Call { entry_ns: 0, rt }
}

impl Sys {
    fn new() -> Self {
        let mut core = Box::new(Core::new());
        core.backend_bound();
        Self {
            core,
            host: TestHost::new(16),
            refs: [ClientRef::default(); FILES],
            m: Model {
                files: [File::Closed; FILES],
                inc: [0; 2],
                driver: [None; TSGS as usize],
                applied: [None; TSGS as usize],
                pending: false,
                next_order: 0,
                slots: [None; FILES],
                running: None,
                released: 0,
            },
        }
    }

    /// The work item / an RT caller's drain: the model applies the driver's table.
    fn drained(&mut self) {
        self.m.applied = self.m.driver;
        self.m.pending = false;
    }

    /// The host's update path for a caller of class `rt`: drains pending events first.
    fn pre_update(&mut self, rt: bool, exits: &Exits) {
        if rt {
            self.core.apply_events(&mut self.host, exits);
            self.drained();
        }
    }

    /// Applies `ev`; `None` if it does not apply in this state.
    fn step(&self, ev: Ev) -> Option<Sys> {
        let mut n = self.clone();
        let exits = Exits::new();
        let pubs = n.host.published.len();
        let subs = n.host.resubmits;
        match ev {
            Ev::Open(f) => {
                if matches!(n.m.files[f], File::Live { .. }) {
                    return None;
                }
                if n.m.files[f] == File::Stale {
                    // The stale file goes first: its release does nothing.
                    n.core.release(&mut n.host, n.refs[f]);
                }
                let p = PROC[f];
                let r = n
                    .core
                    .open(&mut n.host, &opener(tgid(p, n.m.inc[p]), 0, 0), 8)
                    .expect("open");
                n.refs[f] = r;
                n.m.files[f] = File::Live { seg: None };
            }
            Ev::Begin(f, prio) => {
                if n.m.files[f] == File::Closed {
                    return None;
                }
                let a = SegBegin {
                    size: 24,
                    ..Default::default()
                };
                let req = begin_request(&a, fifo(prio), |_| true).unwrap();
                let keeps = n.core.begin_keeps_decision(n.refs[f], &req);
                let before = n.core.policy().decision();
                n.pre_update(prio > 0, &exits);
                let r = n
                    .core
                    .seg_begin(&mut n.host, n.refs[f], req, call(prio > 0));
                match n.m.files[f] {
                    File::Stale => assert_eq!(r, Err(Errno::EPERM)),
                    File::Live { seg: Some(_) } => assert_eq!(r, Err(Errno::EALREADY)),
                    File::Live { seg: None } => {
                        n.m.files[f] = File::Live {
                            seg: Some((prio, n.m.next_order)),
                        };
                        n.m.next_order += 1;
                        let (state, generation) = r.expect("begin");
                        let w = n.m.winner();
                        let running = w == Some(f) || w.is_none();
                        let want = if running {
                            uapi::STATE_RUNNING
                        } else {
                            uapi::STATE_PENDING
                        };
                        assert_eq!(state, want, "begin state");
                        assert_eq!(generation, n.core.generation());
                        if keeps && prio == 0 {
                            let after = n.core.policy().decision();
                            assert_eq!((before.all, before.eligible), (after.all, after.eligible));
                        }
                    }
                    File::Closed => unreachable!(),
                }
            }
            Ev::End(f) => {
                if n.m.files[f] == File::Closed {
                    return None;
                }
                let rt = matches!(n.m.files[f], File::Live { seg: Some((p, _)) } if p > 0);
                n.pre_update(rt, &exits);
                let r = n.core.seg_end(&mut n.host, n.refs[f], call(rt));
                match n.m.files[f] {
                    File::Stale => assert_eq!(r, Err(Errno::EPERM)),
                    File::Live { seg: None } => assert_eq!(r, Err(Errno::ENOENT)),
                    File::Live { seg: Some(_) } => {
                        assert_eq!(r, Ok(n.core.generation()));
                        n.m.files[f] = File::Live { seg: None };
                    }
                    File::Closed => unreachable!(),
                }
            }
            Ev::Close(f) => {
                if n.m.files[f] == File::Closed {
                    return None;
                }
                let keeps = n.core.release_keeps_decision(n.refs[f]);
                n.core.release(&mut n.host, n.refs[f]);
                if keeps {
                    // What a caller that must not submit may apply (LIST, STATUS, STATS).
                    assert_eq!(n.host.published.len(), pubs, "a keeping release published");
                }
                n.m.files[f] = File::Closed;
            }
            Ev::Exit(p) => {
                let mut any = false;
                for f in 0..FILES {
                    if PROC[f] == p && matches!(n.m.files[f], File::Live { .. }) {
                        exits.mark(n.refs[f].slot);
                        n.m.files[f] = File::Stale;
                        any = true;
                    }
                }
                if !any {
                    return None;
                }
                n.host.exited.insert(tgid(p, n.m.inc[p]) as usize);
                n.m.inc[p] += 1;
                // A LIST, STATUS or STATS call comes first: it removes the clients whose
                // removal keeps the decision, publishing nothing, and leaves the running one's.
                let left = n.core.apply_exits_keeping(&mut n.host, &exits);
                assert_eq!(n.host.published.len(), pubs, "a keeping exit published");
                assert_eq!(left, exits.any(), "left marks");
                // The work item runs (it also drains TSG events).
                n.core.apply_events(&mut n.host, &exits);
                n.drained();
            }
            Ev::Wake(f) => {
                if !matches!(n.m.files[f], File::Live { .. }) {
                    return None;
                }
                exits.mark(n.refs[f].slot);
                n.core.apply_events(&mut n.host, &exits);
                n.drained();
            }
            Ev::TsgNew(t, p) => {
                if n.m.driver[t as usize].is_some() {
                    return None;
                }
                let inc = n.m.inc[p];
                let tg = tgid(p, inc);
                n.host.tsg(t, tg as i32, u64::from(tg) * 10, 1);
                n.m.driver[t as usize] = Some((p, inc));
                n.m.pending = true;
            }
            Ev::TsgRelease(t) => {
                n.m.driver[t as usize]?;
                n.host.tsg_release(t);
                n.m.driver[t as usize] = None;
                n.m.pending = true;
            }
            Ev::TsgChange(t) => {
                let (p, inc) = n.m.driver[t as usize]?;
                let tg = tgid(p, inc);
                let ch = n.host.table.get(&t).map_or(1, |e| e.num_channels) + 1;
                n.host.tsg(t, tg as i32, u64::from(tg) * 10, ch % 3);
                n.m.pending = true;
            }
            Ev::Work => {
                n.core.apply_events(&mut n.host, &exits);
                n.drained();
            }
            Ev::StatsReset => {
                let mut s = uapi::Stats::default();
                n.core.stats(&mut s, Some(ResetScope::new(528)));
            }
        }
        // A resubmit iff something was published (the backend is bound).
        let published = n.host.published.len() > pubs;
        assert_eq!(n.host.resubmits > subs, published, "resubmit iff a publish");
        for f in 0..FILES {
            n.m.slots[f] = (n.m.files[f] != File::Closed).then_some(n.refs[f].slot);
        }
        n.m.running = n.core.running_slot();
        n.m.released = n.host.released[0];
        n.check();
        Some(n)
    }

    fn check(&self) {
        let c = &self.core;
        c.check().unwrap();
        let d = c.policy().decision();
        // The decision from the reference.
        let applied_of = |p: usize, inc: u32| -> Vec<u32> {
            (0..TSGS)
                .filter(|t| self.m.applied[*t as usize] == Some((p, inc)))
                .collect()
        };
        match self.m.winner() {
            None => assert!(d.all, "no real-time segment: everything eligible"),
            Some(w) => {
                assert!(!d.all, "a real-time segment runs");
                let p = PROC[w];
                let want = applied_of(p, self.m.inc[p]);
                assert_eq!(d.eligible.iter().collect::<Vec<_>>(), want, "eligible set");
            }
        }
        // The host's snapshot (what the driver reads) is the policy's decision, but for ids
        // released and not yet taken (kept off by the host).
        let (all, gen, words) = self.host.snap;
        let mut want = *d.eligible.words();
        for (x, r) in want.iter_mut().zip(self.host.released) {
            *x &= !r;
        }
        assert_eq!(
            (all, gen, words),
            (d.all, d.generation, want),
            "published snapshot"
        );
        // Statistics.
        let mut s = uapi::Stats::default();
        c.clone().stats(&mut s, None);
        let live = self
            .m
            .files
            .iter()
            .filter(|f| matches!(f, File::Live { .. }))
            .count();
        let open = self
            .m
            .files
            .iter()
            .filter(|f| matches!(f, File::Live { seg: Some(_) }))
            .count();
        assert_eq!(s.clients_now as usize, live, "clients_now");
        assert_eq!(s.segments_open as usize, open, "segments_open");
        assert_eq!(
            s.open_at_reset + s.begins,
            s.ends + s.ends_by_close + s.segments_open,
            "balance"
        );
        let applied = self.m.applied.iter().flatten().count();
        assert_eq!(s.tsgs_now as usize, applied, "tsgs_now");
        // LIST owners: the lowest-slot live client of the TSG's process.
        let mut buf = Box::new(ListBuf {
            clients: [uapi::ClientInfo::default(); gcaps_core::MAX_CLIENTS],
            tsgs: [uapi::TsgInfo::default(); gcaps_core::MAX_TSGS],
        });
        let mut l = uapi::List::default();
        c.list(&self.host, &mut buf, &mut l);
        assert_eq!(l.tsgs_count as usize, applied);
        assert_eq!(l.clients_count as usize, live);
        for ti in buf.tsgs.iter().take(applied) {
            let (p, inc) = self.m.applied[ti.tsgid as usize].unwrap();
            let owner = (0..FILES)
                .filter(|f| {
                    PROC[*f] == p
                        && inc == self.m.inc[p]
                        && matches!(self.m.files[*f], File::Live { .. })
                })
                .min_by_key(|f| self.refs[*f].slot)
                .map_or(0, |f| self.refs[f].id);
            assert_eq!(ti.owner_client_id, owner, "owner of TSG {}", ti.tsgid);
            let eligible = d.all || d.eligible.contains(ti.tsgid);
            assert_eq!(ti.flags & uapi::TSG_ELIGIBLE != 0, eligible);
        }
    }
}

#[test]
fn lifecycle_model_check() {
    let depth: usize = std::env::var("GCAPS_MC_DEPTH")
        .ok()
        .and_then(|s| s.parse().ok())
        // Depth 6 (23 383 states) already catches every mutation listed in docs/core.md; a
        // debug build (`cargo test`) stops there, a release build goes one deeper.
        .unwrap_or(if cfg!(debug_assertions) { 6 } else { 7 });
    let evs = events();
    let start = Sys::new();
    start.check();
    // Depth-first (only the path's states are kept), each abstract state expanded again only
    // if reached by a shorter path.
    let mut seen: HashMap<Model, usize> = HashMap::new();
    seen.insert(start.m.key(), 0);
    let mut transitions = 0usize;
    let mut stack = vec![(start, 0usize)];
    while let Some((s, d)) = stack.pop() {
        if d == depth {
            continue;
        }
        for &ev in &evs {
            let Some(n) = s.step(ev) else { continue };
            transitions += 1;
            let k = n.m.key();
            if seen.get(&k).is_none_or(|&old| d + 1 < old) {
                seen.insert(k, d + 1);
                stack.push((n, d + 1));
            }
        }
    }
    let states = seen.len();
    eprintln!(
        "lifecycle model check: {states} abstract states, {transitions} transitions, depth {depth}"
    );
    assert!(states > 1000, "{states}");
}

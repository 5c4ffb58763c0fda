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

// ---------------------------------------------------------------- reference model

/// Index of a TSG id in `TSGS` (the reference model's TSG table is indexed by it).
fn slot_of(t: u32) -> Option<usize> {
    TSGS.iter().position(|&x| x == t)
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct RefClient {
    registered: bool,
    /// `None` = best-effort.
    cpu: Option<u8>,
    /// `Some(gpu)` while a segment is open; `gpu` is the explicit GPU priority.
    seg: Option<Option<u8>>,
}

/// The reference model: plain data, recomputed from scratch, no sequence numbers
/// (first come, first served is the position in `queue`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct Ref {
    clients: [RefClient; ROLES],
    /// Roles with an open segment, in the order the segments began (`queue[..qlen]`).
    queue: [usize; ROLES],
    qlen: usize,
    /// Per entry of `TSGS`: `Some((owner key, always eligible))` if it exists.
    tsgs: [Option<(u64, bool)>; TSGS.len()],
}

impl Ref {
    fn queue(&self) -> &[usize] {
        &self.queue[..self.qlen]
    }

    fn dequeue(&mut self, r: usize) {
        if let Some(i) = self.queue().iter().position(|&q| q == r) {
            self.queue.copy_within(i + 1..self.qlen, i);
            self.qlen -= 1;
            self.queue[self.qlen] = 0; // keep unused entries canonical
        }
    }

    fn effective(&self, r: usize) -> Option<u8> {
        let c = &self.clients[r];
        match (c.registered, c.cpu, c.seg) {
            (true, Some(cpu), Some(gpu)) => Some(gpu.unwrap_or(cpu)),
            _ => None,
        }
    }

    /// The first segment in arrival order among those with the highest priority.
    fn winner(&self) -> Option<usize> {
        let mut best: Option<(usize, u8)> = None;
        for &r in self.queue() {
            if let Some(p) = self.effective(r) {
                if best.is_none_or(|(_, bp)| p > bp) {
                    best = Some((r, p));
                }
            }
        }
        best.map(|(r, _)| r)
    }

    /// Bit i = TSG `TSGS[i]` exists.
    fn exists(&self) -> u32 {
        (0..TSGS.len())
            .filter(|&i| self.tsgs[i].is_some())
            .map(|i| 1 << i)
            .sum()
    }

    /// Bit i = TSG `TSGS[i]` is owned by role `r`.
    fn owned_by(&self, r: usize) -> u32 {
        (0..TSGS.len())
            .filter(|&i| matches!(self.tsgs[i], Some((k, _)) if k == KEYS[r]))
            .map(|i| 1 << i)
            .sum()
    }

    /// Bit i = TSG `TSGS[i]` is eligible.
    fn eligible(&self) -> u32 {
        match self.winner() {
            None => self.exists(),
            Some(w) => (0..TSGS.len())
                .filter(|&i| matches!(self.tsgs[i], Some((k, always)) if k == KEYS[w] || always))
                .map(|i| 1 << i)
                .sum(),
        }
    }

    fn status(&self, r: usize) -> Option<ClientStatus> {
        let c = &self.clients[r];
        if !c.registered {
            return None;
        }
        Some(match (c.seg, self.winner()) {
            (None, _) => ClientStatus::Idle,
            (Some(_), None) => ClientStatus::Running,
            (Some(_), Some(w)) if w == r => ClientStatus::Running,
            (Some(_), Some(_)) => ClientStatus::Pending,
        })
    }

    fn prio_ok(p: u8) -> bool {
        (1..=99).contains(&p)
    }

    fn cpu_of(class: SchedClass) -> Option<u8> {
        match class {
            SchedClass::RealTime(p) => Some(p),
            SchedClass::BestEffort => None,
        }
    }

    /// Looks up an existing TSG for an event, with the implementation's error order.
    fn tsg(&mut self, t: u32) -> Result<&mut Option<(u64, bool)>, Error> {
        if t >= 128 {
            return Err(Error::TsgOutOfRange);
        }
        match slot_of(t) {
            Some(i) => Ok(&mut self.tsgs[i]),
            None => Err(Error::UnknownTsg), // ids outside TSGS never exist
        }
    }

    /// Applies an event. Returns whether the content of an eligible TSG changed
    /// (the caller compares the eligible sets before and after for the rest).
    fn apply(&mut self, ev: Ev) -> Result<bool, Error> {
        let mut content = false;
        match ev {
            Ev::Register(r) => {
                // Role r always registers with its initial class; `Node::step` never
                // registers a role twice (a second client of a process is another role).
                assert!(!self.clients[r].registered);
                self.clients[r] = RefClient {
                    registered: true,
                    cpu: Self::cpu_of(CLASSES[r]),
                    seg: None,
                };
            }
            Ev::Unregister(r) | Ev::Gone(r) => {
                if !self.clients[r].registered {
                    return Err(Error::UnknownClient);
                }
                if matches!(ev, Ev::Unregister(_)) && self.clients[r].seg.is_some() {
                    return Err(Error::SegmentOpen);
                }
                self.clients[r] = RefClient {
                    registered: false,
                    cpu: None,
                    seg: None,
                };
                self.dequeue(r);
            }
            Ev::Begin(r, segment) => {
                let class = segment.class();
                let gpu = match segment {
                    Segment::BestEffort => GpuPriority::Inherit,
                    Segment::RealTime { gpu, .. } => gpu,
                };
                if !self.clients[r].registered {
                    return Err(Error::UnknownClient);
                }
                if let SchedClass::RealTime(p) = class {
                    if !Self::prio_ok(p) {
                        return Err(Error::PriorityOutOfRange);
                    }
                }
                let cpu = Self::cpu_of(class);
                let g = match gpu {
                    GpuPriority::Inherit => None,
                    GpuPriority::Explicit(p) if Self::prio_ok(p) => Some(p),
                    GpuPriority::Explicit(_) => return Err(Error::PriorityOutOfRange),
                };
                if self.clients[r].seg.is_some() {
                    return Err(Error::SegmentAlreadyOpen);
                }
                self.clients[r].cpu = cpu;
                self.clients[r].seg = Some(g);
                self.queue[self.qlen] = r;
                self.qlen += 1;
            }
            Ev::End(r) => {
                if !self.clients[r].registered {
                    return Err(Error::UnknownClient);
                }
                if self.clients[r].seg.is_none() {
                    return Err(Error::NoOpenSegment);
                }
                self.clients[r].seg = None;
                self.dequeue(r);
            }
            Ev::Create(t, k) => {
                let e = self.tsg(t)?;
                if e.is_some() {
                    return Err(Error::TsgExists);
                }
                *e = Some((k, false));
            }
            Ev::Destroy(t) => {
                let e = self.tsg(t)?;
                if e.take().is_none() {
                    return Err(Error::UnknownTsg);
                }
            }
            Ev::Changed(t) => {
                if self.tsg(t)?.is_none() {
                    return Err(Error::UnknownTsg);
                }
                content = self.eligible() & (1 << slot_of(t).unwrap()) != 0;
            }
            Ev::Always(t, on) => match self.tsg(t)? {
                Some(e) => e.1 = on,
                None => return Err(Error::UnknownTsg),
            },
        }
        Ok(content)
    }
}

// ---------------------------------------------------------------- search node

/// A 128-bit fingerprint hasher (two multiply-rotate lanes), written to stay fast in
/// debug builds; no dependencies.
struct Fp(u64, u64);

impl Hasher for Fp {
    fn finish(&self) -> u64 {
        self.0 ^ self.1
    }
    fn write(&mut self, bytes: &[u8]) {
        // The TSG owner table is mostly zeros: fold all-zero 64-byte blocks in one step.
        let mut i = 0;
        while i + 8 <= bytes.len() {
            if i % 64 == 0 && i + 64 <= bytes.len() && bytes[i..i + 64] == [0u8; 64] {
                self.write_u64(0x5a5a_0000_0000_0040);
                i += 64;
                continue;
            }
            let b = &bytes[i..i + 8];
            let x = u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
            self.write_u64(x);
            i += 8;
        }
        while i < bytes.len() {
            self.write_u64(u64::from(bytes[i]));
            i += 1;
        }
    }
    fn write_u8(&mut self, x: u8) {
        self.write_u64(u64::from(x));
    }
    fn write_u32(&mut self, x: u32) {
        self.write_u64(u64::from(x));
    }
    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        self.1 = (self.1.rotate_left(23) ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

#[derive(Clone)]
struct Node {
    imp: P,
    /// Current handle of each registered role.
    ids: [Option<ClientId>; ROLES],
    /// A handle to use for unregistered roles (stale or never valid).
    stale: [ClientId; ROLES],
    reference: Ref,
    /// Eligible set as a bit mask over `TSGS` (cached by `check`).
    elig: u32,
}

impl Node {
    fn handle(&self, r: usize) -> ClientId {
        self.ids[r].unwrap_or(self.stale[r])
    }

    /// Fingerprint of (canonical implementation state, role slots, reference state).
    fn fingerprint(&self) -> u128 {
        let mut h = Fp(0x243f_6a88_85a3_08d3, 0x1319_8a2e_0370_7344);
        self.imp.canonical().hash(&mut h);
        self.ids.map(|id| id.map(|i| i.slot())).hash(&mut h);
        self.reference.hash(&mut h);
        (u128::from(h.0) << 64) | u128::from(h.1)
    }

    /// The implementation's eligible set as a bit mask over `TSGS`.
    fn imp_eligible(&self) -> u32 {
        let mask = (0..TSGS.len())
            .filter(|&i| self.imp.is_eligible(TSGS[i]))
            .map(|i| 1 << i)
            .sum::<u32>();
        assert_eq!(
            self.imp.eligible().len() as u32,
            mask.count_ones(),
            "stray eligible id"
        );
        mask
    }

    /// Applies `ev` to a copy of `self` (both models), compares them and checks every
    /// invariant. Returns `None` if the event was rejected (after checking that).
    fn step(&self, ev: Ev, trace: &Trace) -> Option<Node> {
        let ctx = || {
            format!(
                "after {:?} then {ev:?}",
                trace.iter().flatten().collect::<Vec<_>>()
            )
        };
        if let Ev::Register(r) = ev {
            if self.reference.clients[r].registered {
                return None; // not applicable: the role's handle is in use
            }
        }
        let keeps = match ev {
            Ev::Begin(r, sg) => Some(self.imp.begin_keeps_decision(self.handle(r), sg)),
            Ev::End(r) => Some(self.imp.end_keeps_decision(self.handle(r))),
            _ => None,
        };
        let mut n = self.clone();
        let want = n.reference.apply(ev);
        let got = match ev {
            Ev::Register(r) => n.imp.register(KEYS[r], CLASSES[r]).map(|(id, o)| {
                n.ids[r] = Some(id);
                o
            }),
            Ev::Unregister(r) => n.imp.unregister(self.handle(r)),
            Ev::Gone(r) => n.imp.client_gone(self.handle(r)),
            Ev::Begin(r, sg) => n.imp.seg_begin(self.handle(r), sg),
            Ev::End(r) => n.imp.seg_end(self.handle(r)),
            Ev::Create(t, k) => n.imp.tsg_create(t, k),
            Ev::Destroy(t) => n.imp.tsg_destroy(t),
            Ev::Changed(t) => n.imp.tsg_changed(t),
            Ev::Always(t, on) => n.imp.set_always_eligible(t, on),
        };
        match (&want, &got) {
            (Err(w), Err(g)) => {
                assert_eq!(w, g, "error kind, {}", ctx());
                assert!(
                    n.imp == self.imp,
                    "rejected event changed the state, {}",
                    ctx()
                );
                assert_eq!(n.reference, self.reference);
                return None;
            }
            (Ok(content), Ok(out)) => {
                // The runlist must change iff the eligible set changed or an eligible
                // TSG's content changed.
                let changed = *content || n.reference.eligible() != self.elig;
                assert_eq!(changed, out.changed, "changed flag, {}", ctx());
                let g0 = self.imp.generation();
                let expect_gen = if out.changed { g0.wrapping_add(1) } else { g0 };
                assert_eq!(out.generation, expect_gen, "generation, {}", ctx());
                assert_eq!(n.imp.generation(), expect_gen);
                // The decision snapshot changes iff the `all` flag or (while not `all`) the
                // eligible set differs; its generation counts exactly those events.
                let (d0, d1) = (self.imp.decision(), n.imp.decision());
                let visible = d0.all != d1.all || d0.eligible != d1.eligible;
                assert_eq!(visible, out.decision_changed, "decision_changed, {}", ctx());
                let dg = if visible {
                    d0.generation.wrapping_add(1)
                } else {
                    d0.generation
                };
                assert_eq!(d1.generation, dg, "decision generation, {}", ctx());
                assert_eq!(n.imp.decision_generation(), dg);
            }
            _ => panic!("reference {want:?} vs implementation {got:?}, {}", ctx()),
        }
        // The fast-path predicates: "keeps" must mean the decision is unchanged; and they are
        // exact for begins and ends whose outcome changed the running segment.
        if keeps == Some(true) {
            let (d0, d1) = (self.imp.decision(), n.imp.decision());
            assert!(
                d0.all == d1.all && d0.eligible == d1.eligible,
                "keeps_decision was true but the decision changed, {}",
                ctx()
            );
        }
        if keeps == Some(false) {
            assert_ne!(
                self.imp.running_rt(),
                n.imp.running_rt(),
                "keeps_decision was false but the running segment stayed, {}",
                ctx()
            );
        }
        if let Ev::Unregister(r) | Ev::Gone(r) = ev {
            n.stale[r] = n.ids[r].take().unwrap_or(n.stale[r]);
        }
        n.check(Some(self), &ctx);
        Some(n)
    }

    /// All invariants, plus agreement with the reference model.
    fn check(&mut self, before: Option<&Node>, ctx: &dyn Fn() -> String) {
        let elig = self.imp_eligible();
        self.elig = elig;
        let imp = &self.imp;
        let rf = &self.reference;
        let exists = rf.exists();
        // Same decision and same TSGs as the reference.
        assert_eq!(elig, rf.eligible(), "eligible set, {}", ctx());
        for (i, &t) in TSGS.iter().enumerate() {
            assert_eq!(
                imp.tsg_owner(t),
                rf.tsgs[i].map(|(k, _)| k),
                "owner of {t}, {}",
                ctx()
            );
            assert_eq!(
                imp.is_always_eligible(t),
                rf.tsgs[i].is_some_and(|(_, a)| a)
            );
        }
        assert_eq!(
            elig & !exists,
            0,
            "eligible TSG that does not exist, {}",
            ctx()
        );

        let mut running = 0u32; // bit r = role r running
        let mut pending = 0u32;
        for r in 0..ROLES {
            let st = self.ids[r].map(|id| imp.client_status(id).expect("registered handle"));
            assert_eq!(st, rf.status(r), "status of role {r}, {}", ctx());
            assert_eq!(
                imp.client_status(self.stale[r]),
                Err(Error::UnknownClient),
                "{}",
                ctx()
            );
            match st {
                Some(ClientStatus::Running) => running |= 1 << r,
                Some(ClientStatus::Pending) => pending |= 1 << r,
                _ => {}
            }
        }
        // Eligible (running) and pending clients are disjoint.
        assert_eq!(running & pending, 0, "{}", ctx());
        let winner = rf.winner();
        assert_eq!(imp.rt_active(), winner.is_some(), "{}", ctx());
        for r in 0..ROLES {
            let mine = rf.owned_by(r);
            if pending & (1 << r) != 0 {
                // A pending client's TSGs are off the runlist, unless always-eligible
                // or also the winner's (a client of the same process runs).
                let always = (0..TSGS.len())
                    .filter(|&i| rf.tsgs[i].is_some_and(|(_, a)| a))
                    .map(|i| 1 << i)
                    .sum::<u32>();
                let winners = winner.map_or(0, |w| rf.owned_by(w));
                assert_eq!(
                    elig & mine & !always & !winners,
                    0,
                    "pending role {r} eligible, {}",
                    ctx()
                );
            }
            if running & (1 << r) != 0 {
                // A running client has all its TSGs on the runlist.
                assert_eq!(elig & mine, mine, "running role {r} lacks a TSG, {}", ctx());
            }
            // Every open segment is running or pending.
            if rf.clients[r].seg.is_some() {
                assert_ne!(
                    (running | pending) & (1 << r),
                    0,
                    "lost role {r}, {}",
                    ctx()
                );
            }
        }
        // At most one real-time client runs, and it is the highest (FCFS among equals).
        let rt_running = (0..ROLES)
            .filter(|&r| running & (1 << r) != 0 && rf.effective(r).is_some())
            .fold(0u32, |m, r| m | 1 << r);
        assert!(
            rt_running.count_ones() <= 1,
            "two real-time clients run, {}",
            ctx()
        );
        if rt_running != 0 {
            let w = rt_running.trailing_zeros() as usize;
            assert_eq!(Some(w), winner);
            assert_eq!(imp.running_rt(), self.ids[w], "{}", ctx());
            assert_eq!(
                running,
                1 << w,
                "someone runs beside the real-time winner, {}",
                ctx()
            );
            let pw = rf.effective(w).unwrap();
            let pos = |r: usize| rf.queue().iter().position(|&q| q == r).unwrap();
            for r in 0..ROLES {
                if pending & (1 << r) == 0 {
                    continue;
                }
                if let Some(p) = rf.effective(r) {
                    assert!(
                        p < pw || (p == pw && pos(r) > pos(w)),
                        "not the highest, {}",
                        ctx()
                    );
                }
            }
        } else {
            assert_eq!(winner, None);
            assert!(imp.running_rt().is_none(), "{}", ctx());
            // No real-time segment: everything eligible, nobody pending.
            assert_eq!(elig, exists, "not everything eligible, {}", ctx());
            assert_eq!(pending, 0, "{}", ctx());
        }
        // No event removes the TSGs of a client that was running and still runs.
        if let Some(b) = before {
            let was_elig = b.elig;
            for r in 0..ROLES {
                if b.reference.status(r) == Some(ClientStatus::Running) && running & (1 << r) != 0 {
                    let kept = was_elig & rf.owned_by(r);
                    assert_eq!(elig & kept, kept, "running role {r} lost a TSG, {}", ctx());
                }
            }
        }
    }
}

fn initial() -> Node {
    let mut imp = P::new();
    let mut ids = [None; ROLES];
    let mut clients = [RefClient {
        registered: false,
        cpu: None,
        seg: None,
    }; ROLES];
    for r in 0..ROLES {
        ids[r] = Some(imp.register(KEYS[r], CLASSES[r]).unwrap().0);
        clients[r] = RefClient {
            registered: true,
            cpu: Ref::cpu_of(CLASSES[r]),
            seg: None,
        };
    }
    let mut tsgs = [None; TSGS.len()];
    for (t, k) in INITIAL_TSGS {
        imp.tsg_create(t, k).unwrap();
        tsgs[slot_of(t).unwrap()] = Some((k, false));
    }
    Node {
        imp,
        ids,
        // Never-valid handles (slot out of range) until a role leaves.
        stale: [ClientId::from_raw(1000); ROLES],
        reference: Ref {
            clients,
            queue: [0; ROLES],
            qlen: 0,
            tsgs,
        },
        elig: 0,
    }
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

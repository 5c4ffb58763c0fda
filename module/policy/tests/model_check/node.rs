//! A search node (the implementation and the reference model side by side, with the
//! roles' handles), its fingerprint, one event applied to both, the invariants checked
//! after each step, and the initial state.

use super::reference::{slot_of, Ref, RefClient};
use super::*;

/// A 128-bit fingerprint hasher (two multiply-rotate lanes), written to stay fast in
/// debug builds; no dependencies.
pub(crate) struct Fp(u64, u64);

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
pub(crate) struct Node {
    pub(crate) imp: P,
    /// Current handle of each registered role.
    pub(crate) ids: [Option<ClientId>; ROLES],
    /// A handle to use for unregistered roles (stale or never valid).
    pub(crate) stale: [ClientId; ROLES],
    pub(crate) reference: Ref,
    /// Eligible set as a bit mask over `TSGS` (cached by `check`).
    pub(crate) elig: u32,
}

impl Node {
    pub(crate) fn handle(&self, r: usize) -> ClientId {
        self.ids[r].unwrap_or(self.stale[r])
    }

    /// Fingerprint of (canonical implementation state, role slots, reference state).
    pub(crate) fn fingerprint(&self) -> u128 {
        let mut h = Fp(0x243f_6a88_85a3_08d3, 0x1319_8a2e_0370_7344);
        self.imp.canonical().hash(&mut h);
        self.ids.map(|id| id.map(|i| i.slot())).hash(&mut h);
        self.reference.hash(&mut h);
        (u128::from(h.0) << 64) | u128::from(h.1)
    }

    /// The implementation's eligible set as a bit mask over `TSGS`.
    pub(crate) fn imp_eligible(&self) -> u32 {
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
    pub(crate) fn step(&self, ev: Ev, trace: &Trace) -> Option<Node> {
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
    pub(crate) fn check(&mut self, before: Option<&Node>, ctx: &dyn Fn() -> String) {
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

pub(crate) fn initial() -> Node {
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

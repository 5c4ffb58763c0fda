//! The backend contract as a driver sees it, with a fake driver written in Rust (C-ABI
//! callbacks): registration and its refusals, replayed TSGs, begin/preempt/end with the
//! resubmits and what each resubmit's `eligible()` read, releases during a segment, calls
//! from inside `ops->resubmit`, recovery, resubmit failures, unload (detach), unregister,
//! owner exits, and the API's errors.
//!
//! The state is process-global (as gcaps.ko's): every test holds `SERIAL` and starts from a
//! fresh load. The driver's callbacks never panic (a panic cannot unwind out of an
//! `extern "C"` function): they record, and the tests assert afterwards.

use std::ffi::{c_int, c_void};
use std::sync::{Mutex, MutexGuard, PoisonError};

use gcaps_contract_host::backend::{
    gcaps_backend, gcaps_backend_ops, gcaps_backend_register, gcaps_be_calls, gcaps_be_eligible,
    gcaps_be_tsg, GCAPS_BACKEND_ABI, GCAPS_BE_GATE_HANDOVER, GCAPS_BE_GATE_PREEMPTED,
    GCAPS_BE_MECH_GATE, GCAPS_BE_MECH_RELOAD,
};
use gcaps_contract_host::*;

const EPERM: c_int = 1;
const ENOENT: c_int = 2;
const ESRCH: c_int = 3;
const EBADF: c_int = 9;
const EAGAIN: c_int = 11;
const EBUSY: c_int = 16;
const ENODEV: c_int = 19;
const EEXIST: c_int = 17;
const EINVAL: c_int = 22;
const EOPNOTSUPP: c_int = 95;
const EDEADLK: c_int = 35;
const ETIMEDOUT: c_int = 110;
const EALREADY: c_int = 114;

static SERIAL: Mutex<()> = Mutex::new(());

/// What one `eligible()` call returned.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Seen {
    all: bool,
    generation: u64,
    ids: Vec<u32>,
}

/// Something the fake driver does inside its next `ops->resubmit` (one-shot).
type Hook = fn(&mut Drv);

struct Drv {
    calls: Option<&'static gcaps_be_calls>,
    be: usize,
    resubmit_rc: c_int,
    /// What each resubmit read with `eligible()`.
    seen: Vec<Seen>,
    /// What `ops->gate` returns, and what each call read with `eligible()` (with its `gate`).
    gate_rc: c_int,
    gated: Vec<(bool, Seen)>,
    detaches: u32,
    /// Inside `ops->detach`: call `unregister` (the unload/unregister race).
    unregister_in_detach: bool,
    hook: Option<Hook>,
    /// Results of calls the hook made.
    inner: Vec<(&'static str, i64)>,
}

static DRV: Mutex<Drv> = Mutex::new(Drv {
    calls: None,
    be: 0,
    resubmit_rc: 0,
    seen: Vec::new(),
    gate_rc: 0,
    gated: Vec::new(),
    detaches: 0,
    unregister_in_detach: false,
    hook: None,
    inner: Vec::new(),
});

fn drv() -> MutexGuard<'static, Drv> {
    DRV.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Drv {
    fn be(&self) -> *mut gcaps_backend {
        self.be as *mut gcaps_backend
    }

    fn calls(&self) -> &'static gcaps_be_calls {
        self.calls.expect("bound")
    }

    fn eligible(&self) -> Seen {
        self.eligible_gate().1
    }

    /// `eligible()` with the snapshot's `gate` (the binding's mechanism).
    fn eligible_gate(&self) -> (bool, Seen) {
        let mut e = gcaps_be_eligible::default();
        let f = self.calls().eligible.expect("eligible");
        // SAFETY: gcaps's table with its handle and a writable result.
        unsafe { f(self.be(), &mut e) };
        let ids = (0..1024u32)
            .filter(|t| e.bits[(t / 64) as usize] & (1 << (t % 64)) != 0)
            .collect();
        let seen = Seen {
            all: e.all,
            generation: e.generation,
            ids: if e.all { Vec::new() } else { ids },
        };
        (e.gate, seen)
    }

    /// `calls->tsg_update` of TSG `t` owned by process `tgid` (start time `tgid * 10`).
    fn tsg(&self, t: u32, tgid: i32, channels: u32) {
        // Other fields the header may gain (a flags word) stay zero.
        #[allow(clippy::needless_update)]
        let tsg = gcaps_be_tsg {
            tsgid: t,
            tgid,
            owner_start: start(tgid),
            timeslice_us: 1024,
            num_channels: channels,
            ..Default::default()
        };
        let f = self.calls().tsg_update.expect("tsg_update");
        // SAFETY: gcaps's table with its handle and a valid TSG.
        unsafe { f(self.be(), &tsg) };
    }

    fn release(&self, t: u32) {
        let f = self.calls().tsg_release.expect("tsg_release");
        // SAFETY: gcaps's table with its handle.
        unsafe { f(self.be(), t) };
    }

    fn recovered(&self) {
        let f = self.calls().recovered.expect("recovered");
        // SAFETY: gcaps's table with its handle.
        unsafe { f(self.be()) };
    }

    fn stock(&self, on: bool) {
        let f = self.calls().stock.expect("stock");
        // SAFETY: gcaps's table with its handle.
        unsafe { f(self.be(), on) };
    }

    fn unregister(&self) {
        let f = self.calls().unregister.expect("unregister");
        // SAFETY: gcaps's table with its handle.
        unsafe { f(self.be()) };
    }
}

unsafe extern "C" fn fake_resubmit(_drv: *mut c_void) -> c_int {
    let mut d = drv();
    let seen = d.eligible();
    d.seen.push(seen);
    if let Some(h) = d.hook.take() {
        h(&mut d);
    }
    d.resubmit_rc
}

unsafe extern "C" fn fake_gate(_drv: *mut c_void) -> c_int {
    let mut d = drv();
    let seen = d.eligible_gate();
    d.gated.push(seen);
    d.gate_rc
}

unsafe extern "C" fn fake_detach(_drv: *mut c_void) {
    let mut d = drv();
    d.detaches += 1;
    if d.unregister_in_detach {
        d.unregister();
    }
}

/// A driver with the reload mechanism only.
fn ops() -> &'static gcaps_backend_ops {
    Box::leak(Box::new(gcaps_backend_ops {
        name: c"fake".as_ptr(),
        abi: GCAPS_BACKEND_ABI,
        detail: c"fake gv11b".as_ptr(),
        runlists: 1,
        resubmit: Some(fake_resubmit),
        detach: Some(fake_detach),
        mechanisms: GCAPS_BE_MECH_RELOAD,
        gate: None,
    }))
}

/// A driver with both mechanisms.
fn gate_ops() -> &'static gcaps_backend_ops {
    Box::leak(Box::new(gcaps_backend_ops {
        mechanisms: GCAPS_BE_MECH_RELOAD | GCAPS_BE_MECH_GATE,
        gate: Some(fake_gate),
        ..*ops()
    }))
}

fn register(ops: *const gcaps_backend_ops) -> (*mut gcaps_backend, *const gcaps_be_calls) {
    let mut calls = std::ptr::null();
    // SAFETY: `ops` is NULL or leaked (valid forever); `calls` is writable.
    let be = unsafe { gcaps_backend_register(ops, std::ptr::null_mut(), &mut calls) };
    (be, calls)
}

/// Binds the fake driver.
fn bind() {
    bind_ops(ops());
}

fn bind_ops(ops: &'static gcaps_backend_ops) {
    let (be, calls) = register(ops);
    assert!(
        !gcaps_host_is_err(be.cast()),
        "{}",
        gcaps_host_ptr_err(be.cast())
    );
    let mut d = drv();
    d.be = be as usize;
    // SAFETY: gcaps's table is a static of the library.
    d.calls = Some(unsafe { &*calls });
}

fn start(tgid: i32) -> u64 {
    tgid as u64 * 10
}

/// A fresh gcaps and a fresh fake driver, under the test lock.
fn fresh() -> MutexGuard<'static, ()> {
    let g = SERIAL.lock().unwrap_or_else(PoisonError::into_inner);
    gcaps_host_unload();
    assert_eq!(gcaps_host_load(), 0);
    *drv() = Drv {
        calls: None,
        be: 0,
        resubmit_rc: 0,
        seen: Vec::new(),
        gate_rc: 0,
        gated: Vec::new(),
        detaches: 0,
        unregister_in_detach: false,
        hook: None,
        inner: Vec::new(),
    };
    g
}

fn counters() -> Counters {
    gcaps_contract_host::counters().expect("counters")
}

fn rt_client(tgid: i32, prio: i32) -> i64 {
    let c = gcaps_host_client_open(tgid, start(tgid), true, prio);
    assert!(c > 0, "open: {c}");
    c
}

fn seen() -> Vec<Seen> {
    drv().seen.clone()
}

fn only(ids: &[u32]) -> Seen {
    let p = published();
    Seen {
        all: false,
        generation: p.generation,
        ids: ids.to_vec(),
    }
}

/// Bound, with TSGs 1, 2 of process 100 and 3 of process 200 applied.
fn bound_with_tsgs() {
    bind();
    {
        let d = drv();
        d.tsg(1, 100, 2);
        d.tsg(2, 100, 1);
        d.tsg(3, 200, 2);
    }
    assert_eq!(gcaps_host_run_work(), 0);
}

#[test]
fn register_refuses_a_bad_ops_table_or_abi() {
    let _g = fresh();
    // gcaps keeps the ops pointer of a registration until unload: it must outlive the test
    // (the next test's unload calls its detach), so it is leaked, never a local.
    let good: &'static gcaps_backend_ops = ops();
    let mut calls = std::ptr::null();
    // SAFETY: `good` is valid; a NULL `calls` is what is tested.
    let be = unsafe { gcaps_backend_register(good, std::ptr::null_mut(), std::ptr::null_mut()) };
    assert_eq!(gcaps_host_ptr_err(be.cast()), -EINVAL as i64, "NULL calls");
    assert_eq!(
        gcaps_host_ptr_err(register(std::ptr::null()).0.cast()),
        -EINVAL as i64,
        "NULL ops"
    );
    let bad: [(&str, gcaps_backend_ops); 5] = [
        (
            "ABI + 1",
            gcaps_backend_ops {
                abi: GCAPS_BACKEND_ABI + 1,
                ..*good
            },
        ),
        ("ABI 0", gcaps_backend_ops { abi: 0, ..*good }),
        (
            "no name",
            gcaps_backend_ops {
                name: std::ptr::null(),
                ..*good
            },
        ),
        (
            "no resubmit",
            gcaps_backend_ops {
                resubmit: None,
                ..*good
            },
        ),
        (
            "no detach",
            gcaps_backend_ops {
                detach: None,
                ..*good
            },
        ),
    ];
    let bad = {
        let mut bad = bad.to_vec();
        let long = c"a name of thirty-two characters.";
        for (what, name) in [
            ("empty name", c"".as_ptr()),
            ("name too long", long.as_ptr()),
            ("name not printable", c"fa\tke".as_ptr()),
        ] {
            bad.push((what, gcaps_backend_ops { name, ..*good }));
        }
        bad.push((
            "no detail",
            gcaps_backend_ops {
                detail: std::ptr::null(),
                ..*good
            },
        ));
        bad.push((
            "no runlists",
            gcaps_backend_ops {
                runlists: 0,
                ..*good
            },
        ));
        let gate = gate_ops();
        for (what, mechanisms, g) in [
            ("no mechanism", 0, None),
            ("gate without reload", GCAPS_BE_MECH_GATE, gate.gate),
            ("an unknown mechanism", GCAPS_BE_MECH_RELOAD | 4, None),
            (
                "GATE without gate()",
                GCAPS_BE_MECH_RELOAD | GCAPS_BE_MECH_GATE,
                None,
            ),
            ("gate() without GATE", GCAPS_BE_MECH_RELOAD, gate.gate),
        ] {
            bad.push((
                what,
                gcaps_backend_ops {
                    mechanisms,
                    gate: g,
                    ..*good
                },
            ));
        }
        bad
    };
    for (what, o) in bad {
        let (be, c) = register(Box::leak(Box::new(o)));
        assert!(gcaps_host_is_err(be.cast()), "{what}");
        assert_eq!(gcaps_host_ptr_err(be.cast()), -EINVAL as i64, "{what}");
        assert!(c.is_null(), "{what}: calls written");
    }
    // SAFETY: `good` is valid (leaked), `calls` writable.
    let be = unsafe { gcaps_backend_register(good, std::ptr::null_mut(), &mut calls) };
    assert!(!gcaps_host_is_err(be.cast()));
    assert!(!calls.is_null());
    let c = counters();
    assert_eq!((c.bound, c.registrations), (1, 1));
}

#[test]
fn register_twice_is_busy_and_the_first_stays_bound() {
    let _g = fresh();
    bind();
    let (be, calls) = register(ops());
    assert_eq!(gcaps_host_ptr_err(be.cast()), -EBUSY as i64);
    assert!(calls.is_null());
    let c = counters();
    assert_eq!((c.bound, c.registrations), (1, 1));
    // The first binding still works.
    drv().tsg(7, 100, 1);
    assert_eq!(gcaps_host_run_work(), 0);
    assert_eq!(counters().tsgs, 1);
}

#[test]
fn replayed_tsgs_are_recorded_then_applied_by_the_work_item() {
    let _g = fresh();
    bind();
    {
        let d = drv();
        d.tsg(1, 100, 2);
        d.tsg(2, 100, 1);
        d.tsg(3, 200, 2);
        // A newer report of the same TSG overwrites the older one.
        d.tsg(3, 200, 1);
    }
    assert_eq!(gcaps_host_work_pending(), 1);
    assert_eq!(counters().tsgs, 0, "applied before the work item ran");
    assert_eq!(gcaps_host_run_work(), 0);
    assert_eq!(gcaps_host_work_pending(), 0);
    let c = counters();
    assert_eq!((c.tsgs, c.events), (3, 3));
    // No real-time segment: every TSG stays eligible, nothing to resubmit.
    assert_eq!(c.resubmits, 0);
    assert!(published().all != 0);
    assert!(drv().eligible().all);
}

#[test]
fn begin_resubmits_with_the_owners_tsgs_eligible() {
    let _g = fresh();
    bound_with_tsgs();
    let gen0 = counters().generation;
    // A best-effort segment changes nothing the driver lists.
    let be = gcaps_host_client_open(300, start(300), false, 0);
    assert_eq!(gcaps_host_begin(be, 0), GCAPS_HOST_RUNNING);
    assert_eq!(counters().resubmits, 0);
    let a = rt_client(100, 50);
    assert_eq!(gcaps_host_begin(a, 0), GCAPS_HOST_RUNNING);
    let c = counters();
    assert_eq!(c.resubmits, 1);
    assert!(c.generation > gen0);
    assert_eq!(seen(), vec![only(&[1, 2])]);
    assert_eq!(seen()[0].generation, c.generation);
    assert_eq!(decision().unwrap().ids(), vec![1, 2]);
    assert_eq!(gcaps_host_client_state(a), GCAPS_HOST_RUNNING);
    // The segment ends: every TSG is eligible again.
    assert_eq!(gcaps_host_end(a), 0);
    assert_eq!(counters().resubmits, 2);
    assert!(seen()[1].all);
}

#[test]
fn higher_priority_preempts_and_end_hands_over() {
    let _g = fresh();
    bound_with_tsgs();
    let a = rt_client(100, 10);
    let b = rt_client(200, 20);
    assert_eq!(gcaps_host_begin(a, 0), GCAPS_HOST_RUNNING);
    assert_eq!(gcaps_host_begin(b, 0), GCAPS_HOST_RUNNING);
    assert_eq!(gcaps_host_client_state(a), GCAPS_HOST_PENDING);
    assert_eq!(seen().last().unwrap().ids, vec![3]);
    let c = counters();
    assert_eq!((c.resubmits, c.preemptions), (2, 1));
    // A lower explicit priority waits without a resubmit.
    let a2 = rt_client(100, 10);
    assert_eq!(gcaps_host_begin(a2, 5), GCAPS_HOST_PENDING);
    assert_eq!(counters().resubmits, 2);
    // B ends: A (the highest waiting) runs again.
    assert_eq!(gcaps_host_end(b), 0);
    assert_eq!(gcaps_host_client_state(a), GCAPS_HOST_RUNNING);
    assert_eq!(seen().last().unwrap().ids, vec![1, 2]);
    let c = counters();
    assert_eq!((c.resubmits, c.resumes), (3, 1));
    assert_eq!(gcaps_host_end(a), 0);
    // A's other client still has a segment: A's TSGs stay, no resubmit needed.
    assert_eq!(counters().resubmits, 3);
    assert_eq!(gcaps_host_end(a2), 0);
    assert!(seen().last().unwrap().all);
    assert_eq!(counters().resubmits, 4);
}

#[test]
fn a_release_leaves_the_published_set_at_once() {
    let _g = fresh();
    bound_with_tsgs();
    let a = rt_client(100, 50);
    assert_eq!(gcaps_host_begin(a, 0), GCAPS_HOST_RUNNING);
    let gen = counters().generation;
    // The driver releases TSG 2 and reuses its id for process 200's new TSG.
    {
        let d = drv();
        d.release(2);
        assert_eq!(d.eligible().ids, vec![1], "released id still eligible");
        assert_eq!(d.eligible().generation, gen);
        d.tsg(2, 200, 1);
        assert_eq!(
            d.eligible().ids,
            vec![1],
            "reused id eligible before gcaps applied it"
        );
    }
    // Not applied yet: the policy's decision still has the old TSG 2.
    assert_eq!(decision().unwrap().ids(), vec![1, 2]);
    assert_eq!(gcaps_host_run_work(), 0);
    assert_eq!(decision().unwrap().ids(), vec![1]);
    assert_eq!(published().ids(), vec![1]);
    assert_eq!(counters().resubmits, 2);
    assert_eq!(seen().last().unwrap().ids, vec![1]);
    // The winner's process reopens a TSG that gets a released id: eligible again after the
    // work item (a republish, not a leftover).
    {
        let d = drv();
        d.release(1);
        assert!(d.eligible().ids.is_empty());
        d.tsg(1, 100, 1);
    }
    assert_eq!(gcaps_host_run_work(), 0);
    assert_eq!(published().ids(), vec![1]);
    assert_eq!(seen().last().unwrap().ids, vec![1]);
    assert_eq!(counters().resubmits, 3);
}

#[test]
fn an_id_released_during_an_update_stays_off_its_later_publish() {
    let _g = fresh();
    bound_with_tsgs();
    let b = rt_client(200, 60);
    assert_eq!(gcaps_host_begin(b, 0), GCAPS_HOST_RUNNING);
    let a = rt_client(100, 70);
    // A's begin first applies the pending recovery (a resubmit, in which the driver releases
    // TSG 2), then preempts B: the decision the policy publishes still has A's old TSG 2 (the
    // release is not applied yet), the snapshot must not.
    drv().recovered();
    drv().hook = Some(|d| d.release(2));
    assert_eq!(gcaps_host_begin(a, 0), GCAPS_HOST_RUNNING);
    assert_eq!(decision().unwrap().ids(), vec![1, 2]);
    assert_eq!(published().ids(), vec![1]);
    assert_eq!(seen().last().unwrap().ids, vec![1]);
    assert_eq!(counters().resubmits, 3);
    // Applied by the work item: the decision loses it too.
    assert_eq!(gcaps_host_run_work(), 0);
    assert_eq!(decision().unwrap().ids(), vec![1]);
    assert_eq!(published().ids(), vec![1]);
}

#[test]
fn calls_from_inside_resubmit_are_recorded_not_applied() {
    let _g = fresh();
    bound_with_tsgs();
    let a = rt_client(100, 50);
    let b = rt_client(200, 40);
    drv().hook = Some(|d| {
        // The driver's events during its rebuild: recorded.
        d.tsg(5, 100, 1);
        d.recovered();
        // What would deadlock gcaps.ko.
        d.inner.push(("begin", gcaps_host_begin(2, 0).into()));
        d.inner.push(("run_work", gcaps_host_run_work().into()));
        d.inner.push(("unload", gcaps_host_unload().into()));
        let (be, _) = register(ops());
        d.inner
            .push(("register", gcaps_host_ptr_err(be.cast()) as i64));
        d.unregister();
        // What works: the snapshot.
        let mut p = DecisionOut::default();
        // SAFETY: `p` is writable.
        d.inner
            .push(("published", unsafe { gcaps_host_published(&mut p) }.into()));
    });
    assert_eq!(gcaps_host_begin(a, 0), GCAPS_HOST_RUNNING);
    let inner = drv().inner.clone();
    let ed = -(EDEADLK as i64);
    assert_eq!(
        inner,
        vec![
            ("begin", ed),
            ("run_work", -(EAGAIN as i64)),
            ("unload", ed),
            ("register", ed),
            ("published", 0)
        ]
    );
    let c = counters();
    assert_eq!((c.bound, c.violations, c.tsgs), (1, 1, 3), "{c:?}");
    assert_eq!(gcaps_host_work_pending(), 1);
    // B's real-time begin drains them first: TSG 5 joins A's set, the recovery resubmits.
    assert_eq!(gcaps_host_begin(b, 0), GCAPS_HOST_PENDING);
    let c = counters();
    assert_eq!((c.tsgs, c.recoveries, c.resubmits), (4, 1, 2));
    assert_eq!(seen().last().unwrap().ids, vec![1, 2, 5]);
}

#[test]
fn recovered_forces_a_resubmit() {
    let _g = fresh();
    bound_with_tsgs();
    assert_eq!(gcaps_host_run_work(), 0);
    assert_eq!(counters().resubmits, 0);
    drv().recovered();
    assert_eq!(gcaps_host_work_pending(), 1);
    assert_eq!(gcaps_host_run_work(), 0);
    let c = counters();
    assert_eq!((c.recoveries, c.resubmits), (1, 1));
    assert!(seen()[0].all);
    // Once.
    assert_eq!(gcaps_host_run_work(), 0);
    assert_eq!(counters().resubmits, 1);
}

#[test]
fn failed_resubmits_are_counted_not_returned() {
    let _g = fresh();
    bound_with_tsgs();
    drv().resubmit_rc = -ETIMEDOUT;
    let a = rt_client(100, 50);
    assert_eq!(gcaps_host_begin(a, 0), GCAPS_HOST_RUNNING);
    drv().resubmit_rc = -ENODEV;
    assert_eq!(gcaps_host_end(a), 0);
    let c = counters();
    assert_eq!(
        (
            c.resubmits,
            c.resubmit_errors,
            c.resubmit_timeouts,
            c.warnings
        ),
        (2, 2, 1, 1)
    );
    // The decision is published all the same.
    assert!(published().all != 0);
}

#[test]
fn unload_detaches_the_driver_and_load_starts_afresh() {
    let _g = fresh();
    bound_with_tsgs();
    let a = rt_client(100, 50);
    assert_eq!(gcaps_host_begin(a, 0), GCAPS_HOST_RUNNING);
    drv().unregister_in_detach = true;
    assert_eq!(gcaps_host_unload(), 1);
    assert_eq!(drv().detaches, 1);
    let c = counters();
    assert_eq!((c.detaches, c.bound, c.loaded, c.violations), (1, 0, 0, 0));
    assert_eq!(
        (c.clients, c.ends_by_close),
        (0, 1),
        "clients closed at unload"
    );
    assert_eq!(
        c.unregistrations, 0,
        "the racing unregister must find nothing to do"
    );
    assert_eq!(c.resubmits, 1, "no resubmit after the detach");
    assert_eq!(gcaps_host_begin(a, 0), -ENODEV);
    assert_eq!(
        gcaps_host_client_open(100, start(100), true, 5),
        -ENODEV as i64
    );
    assert_eq!(gcaps_host_ptr_err(register(ops()).0.cast()), -ENODEV as i64);
    assert_eq!(gcaps_host_unload(), 0);
    assert_eq!(gcaps_host_load(), 0);
    assert_eq!(gcaps_host_load(), -17);
    let c = counters();
    assert_eq!((c.loaded, c.clients, c.tsgs, c.generation), (1, 0, 0, 0));
    bind();
    assert_eq!(counters().bound, 1);
}

#[test]
fn stock_is_recorded_per_binding_and_changes_no_decision() {
    let _g = fresh();
    assert_eq!(gcaps_host_backend_stock(), 0, "nothing bound");
    bound_with_tsgs();
    assert_eq!(gcaps_host_backend_stock(), 0, "off at registration");
    drv().stock(true);
    assert_eq!(gcaps_host_backend_stock(), 1);
    // Only reported: the decision is still taken, published and resubmitted.
    let a = rt_client(100, 50);
    assert_eq!(gcaps_host_begin(a, 0), GCAPS_HOST_RUNNING);
    assert_eq!(counters().resubmits, 1);
    assert_eq!(gcaps_host_backend_stock(), 1);
    drv().stock(false);
    assert_eq!(gcaps_host_backend_stock(), 0);
    drv().stock(true);
    assert_eq!(counters().violations, 0);
    // Unbinding forgets it; a new binding starts off; a call while unbound is a violation.
    drv().unregister();
    assert_eq!(gcaps_host_backend_stock(), 0);
    drv().stock(true);
    assert_eq!(counters().violations, 1);
    assert_eq!(gcaps_host_backend_stock(), 0);
    bind();
    assert_eq!(gcaps_host_backend_stock(), 0);
    drv().stock(true);
    assert_eq!(gcaps_host_unload(), 1);
    assert_eq!(gcaps_host_backend_stock(), 0, "detach forgets it");
}

#[test]
fn unregister_unbinds_and_later_calls_are_violations() {
    let _g = fresh();
    bound_with_tsgs();
    let a = rt_client(100, 50);
    assert_eq!(gcaps_host_begin(a, 0), GCAPS_HOST_RUNNING);
    drv().tsg(9, 100, 1);
    drv().unregister();
    let c = counters();
    assert_eq!((c.bound, c.unregistrations, c.tsgs), (0, 1, 0));
    assert_eq!(c.resubmits, 1, "no resubmit into an unbound driver");
    assert_eq!(drv().detaches, 0);
    // The decision without the driver's TSGs: nothing eligible while A runs.
    assert!(published().all == 0 && published().ids().is_empty());
    // A call after unregistering counts; the pending event was dropped.
    drv().tsg(10, 100, 1);
    assert_eq!(counters().violations, 1);
    assert_eq!(gcaps_host_run_work(), 0);
    assert_eq!(counters().tsgs, 0);
    // A second unregister finds nothing; registering works again.
    drv().unregister();
    assert_eq!(counters().unregistrations, 1);
    bind();
    drv().tsg(1, 100, 1);
    assert_eq!(gcaps_host_run_work(), 0);
    assert_eq!(seen().last().unwrap().ids, vec![1]);
}

#[test]
fn owner_exit_ends_the_segment_at_the_work_item() {
    let _g = fresh();
    bound_with_tsgs();
    let a = rt_client(100, 50);
    let b = rt_client(200, 40);
    assert_eq!(gcaps_host_begin(a, 0), GCAPS_HOST_RUNNING);
    assert_eq!(gcaps_host_begin(b, 0), GCAPS_HOST_PENDING);
    assert_eq!(gcaps_host_owner_exit(100, start(100)), 1);
    assert_eq!(gcaps_host_owner_exit(100, start(100)), -ESRCH);
    assert_eq!(gcaps_host_work_pending(), 1);
    assert_eq!(gcaps_host_client_state(b), GCAPS_HOST_PENDING);
    assert_eq!(gcaps_host_run_work(), 0);
    assert_eq!(gcaps_host_client_state(b), GCAPS_HOST_RUNNING);
    assert_eq!(seen().last().unwrap().ids, vec![3]);
    let c = counters();
    assert_eq!((c.ends_by_close, c.clients, c.resubmits), (1, 1, 2));
    // The dead process's file: every call is EPERM until it is closed.
    assert_eq!(gcaps_host_client_state(a), -EPERM);
    assert_eq!(gcaps_host_begin(a, 0), -EPERM);
    assert_eq!(gcaps_host_client_close(a), 0);
    assert_eq!(gcaps_host_client_close(a), -EBADF);
    // Its identity is gone for good.
    assert_eq!(
        gcaps_host_client_open(100, start(100), true, 5),
        -ESRCH as i64
    );
}

#[test]
fn close_ends_an_open_segment() {
    let _g = fresh();
    bound_with_tsgs();
    let a = rt_client(100, 50);
    assert_eq!(gcaps_host_begin(a, 0), GCAPS_HOST_RUNNING);
    assert_eq!(gcaps_host_client_close(a), 0);
    assert!(seen().last().unwrap().all);
    let c = counters();
    assert_eq!((c.ends_by_close, c.clients, c.resubmits), (1, 0, 2));
}

#[test]
fn api_errors() {
    let _g = fresh();
    assert_eq!(gcaps_host_client_open(0, 1, false, 0), -EINVAL as i64);
    assert_eq!(gcaps_host_client_open(5, 1, true, 0), -EINVAL as i64);
    assert_eq!(gcaps_host_client_open(5, 1, true, 100), -EINVAL as i64);
    assert_eq!(gcaps_host_client_open(5, 1, false, 3), -EINVAL as i64);
    let be = gcaps_host_client_open(5, 1, false, 0);
    let rt = gcaps_host_client_open(6, 1, true, 10);
    assert!(be > 0 && rt > 0 && be != rt);
    assert_eq!(
        gcaps_host_begin(be, 3),
        -EPERM,
        "explicit priority, best-effort"
    );
    assert_eq!(gcaps_host_begin(rt, 100), -EINVAL);
    assert_eq!(gcaps_host_begin(rt, -1), -EINVAL);
    assert_eq!(gcaps_host_end(rt), -ENOENT);
    assert_eq!(gcaps_host_begin(rt, 99), GCAPS_HOST_RUNNING, "may raise");
    assert_eq!(gcaps_host_begin(rt, 0), -EALREADY);
    assert_eq!(gcaps_host_begin(12345, 0), -EBADF);
    assert_eq!(gcaps_host_begin(-3, 0), -EBADF);
    assert_eq!(gcaps_host_owner_exit(77, 1), -ESRCH);
    // SAFETY: NULL is what is tested.
    assert_eq!(
        unsafe { gcaps_host_counters(std::ptr::null_mut()) },
        -EINVAL
    );
    // SAFETY: As above.
    assert_eq!(
        unsafe { gcaps_host_decision(std::ptr::null_mut()) },
        -EINVAL
    );
    assert!(!gcaps_host_is_err(std::ptr::null()));
    assert!(!gcaps_host_is_err(&be as *const i64 as *const c_void));
    assert!(gcaps_host_is_err((-4095isize) as usize as *const c_void));
    assert!(!gcaps_host_is_err((-4096isize) as usize as *const c_void));
    assert_eq!(
        gcaps_host_ptr_err((-16isize) as usize as *const c_void),
        -16
    );
    gcaps_host_set_time_ns(42);
    assert_eq!(gcaps_host_time_ns(), 42);
}

#[test]
fn driver_misuse_is_counted() {
    let _g = fresh();
    bind();
    let d = drv();
    d.tsg(1024, 100, 1);
    d.release(5000);
    let bogus = 0x1000usize as *mut gcaps_backend;
    let f = d.calls().recovered.unwrap();
    // SAFETY: gcaps's table; a wrong handle is what is tested (it is not dereferenced).
    unsafe { f(bogus) };
    drop(d);
    let c = counters();
    assert_eq!((c.violations, c.tsgs), (3, 0));
    assert_eq!(gcaps_host_work_pending(), 0);
}

/// ABI 2: a TSG the driver reports as its own (`GCAPS_BE_TSG_ALWAYS`) stays eligible during
/// every segment; clearing the flag in a later report ends that.
#[cfg(gcaps_be_tsg_flags)]
#[test]
fn driver_internal_tsgs_stay_eligible() {
    let _g = fresh();
    bound_with_tsgs();
    let internal = |flags| {
        #[allow(clippy::needless_update)]
        let tsg = gcaps_be_tsg {
            tsgid: 9,
            tgid: 900,
            owner_start: start(900),
            timeslice_us: 1024,
            num_channels: 1,
            flags,
            ..Default::default()
        };
        let d = drv();
        let f = d.calls().tsg_update.unwrap();
        // SAFETY: gcaps's table with its handle and a valid TSG.
        unsafe { f(d.be(), &tsg) };
    };
    internal(gcaps_contract_host::backend::GCAPS_BE_TSG_ALWAYS);
    assert_eq!(gcaps_host_run_work(), 0);
    let a = rt_client(100, 50);
    assert_eq!(gcaps_host_begin(a, 0), GCAPS_HOST_RUNNING);
    assert_eq!(seen().last().unwrap().ids, vec![1, 2, 9]);
    internal(0);
    assert_eq!(gcaps_host_run_work(), 0);
    assert_eq!(seen().last().unwrap().ids, vec![1, 2]);
}

#[test]
fn under_gate_a_reload_only_driver_is_refused_and_a_gate_driver_binds() {
    let _g = fresh();
    assert_eq!(gcaps_host_unload(), 0);
    assert_eq!(gcaps_host_load_mechanism(7), -EINVAL);
    assert_eq!(gcaps_host_load_mechanism(GCAPS_BE_MECH_GATE), 0);
    assert_eq!(gcaps_host_load_mechanism(GCAPS_BE_MECH_GATE), -EEXIST);
    let (be, calls) = register(ops());
    assert_eq!(gcaps_host_ptr_err(be.cast()), -EOPNOTSUPP as i64);
    assert!(calls.is_null());
    assert_eq!(counters().bound, 0);
    // Under reload, a driver with both mechanisms binds and is asked to resubmit.
    assert_eq!(gcaps_host_unload(), 0);
    assert_eq!(gcaps_host_load(), 0);
    bind_ops(gate_ops());
    let a = rt_client(100, 10);
    drv().tsg(1, 100, 1);
    assert_eq!(gcaps_host_begin(a, 0), GCAPS_HOST_RUNNING);
    assert_eq!((seen().len(), drv().gated.len()), (1, 0));
    assert!(!drv().eligible_gate().0, "reload: gate off in the snapshot");
}

#[test]
fn under_gate_every_change_is_a_gate_and_its_answer_is_the_kind() {
    let _g = fresh();
    assert_eq!(gcaps_host_unload(), 0);
    assert_eq!(gcaps_host_load_mechanism(GCAPS_BE_MECH_GATE), 0);
    bind_ops(gate_ops());
    {
        let d = drv();
        d.tsg(1, 100, 2);
        d.tsg(2, 100, 1);
        d.tsg(3, 200, 2);
    }
    assert_eq!(gcaps_host_run_work(), 0);
    let a = rt_client(100, 10);
    let b = rt_client(200, 20);
    // A takes the GPU from best-effort work: the driver preempted.
    drv().gate_rc = GCAPS_BE_GATE_PREEMPTED as c_int;
    assert_eq!(gcaps_host_begin(a, 0), GCAPS_HOST_RUNNING);
    // B preempts A.
    assert_eq!(gcaps_host_begin(b, 0), GCAPS_HOST_RUNNING);
    // B ends idle: a hand-over to A.
    drv().gate_rc = GCAPS_BE_GATE_HANDOVER as c_int;
    assert_eq!(gcaps_host_end(b), 0);
    assert_eq!(gcaps_host_end(a), 0);
    let gated = drv().gated.clone();
    assert!(seen().is_empty(), "no resubmit under gate");
    let ids: Vec<(bool, bool, Vec<u32>)> = gated
        .iter()
        .map(|(g, s)| (*g, s.all, s.ids.clone()))
        .collect();
    assert_eq!(
        ids,
        vec![
            (true, false, vec![1, 2]),
            (true, false, vec![3]),
            (true, false, vec![1, 2]),
            (true, true, vec![]),
        ]
    );
    let c = counters();
    assert_eq!((c.resubmits, c.gate_preempts, c.gate_handovers), (4, 2, 2));
    // A failed gate is counted like a failed resubmit.
    drv().gate_rc = -ETIMEDOUT;
    assert_eq!(gcaps_host_begin(a, 0), GCAPS_HOST_RUNNING);
    let c = counters();
    assert_eq!((c.resubmit_errors, c.resubmit_timeouts), (1, 1));
}

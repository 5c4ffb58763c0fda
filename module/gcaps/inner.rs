// SPDX-License-Identifier: GPL-2.0

//! The module's state under the update lock: the policy, the client table, the mirror of the
//! driver's TSGs and the last published decision, with the operations the ioctls, `release`,
//! the work item and the backend binding perform on it. Safe Rust only; every call into C
//! goes through [`Backend`] (which needs the lock).
//!
//! Invariants (hold whenever the update lock is free):
//! * `published` equals `policy.decision()` in `all` and `eligible` (every mutation ends with
//!   [`Inner::sync`]); its `generation` is the module's own counter, bumped on every change of
//!   what a driver filtering through the snapshot would list (also when `all` flips while no
//!   TSG exists, which the policy does not count as a change of its eligible set). It mirrors
//!   the C side's snapshot, which may lack TSG ids the driver released since the last
//!   [`Inner::apply_events`] (kept off until then); that call removes them from the mirror
//!   too, before it applies their releases.
//! * A client slot is `in_use` from its file's open until the file's last reference is gone or
//!   the owner's thread group exited, whichever comes first; its `handle` names a registered
//!   policy client whose key is `key`. Files reach their client by [`ClientRef`] (slot and id),
//!   so a file outliving its client never reaches the slot's next client.
//! * `tsgs[t].exists` iff the policy has TSG `t` (`policy.tsgs()`), with owner key `key`.
//! * Keys are never reused: a key names one process identity `(tgid, start)` for as long as a
//!   client or a TSG carries it, and new identities get `next_key`, which only grows.

use core::mem::{offset_of, size_of_val};
use core::sync::atomic::{AtomicU64, Ordering};
use kernel::prelude::*;

use super::glue::{now_ns, Backend, Caller, ClientRef, PidToken, TsgEvent};
use super::policy::{
    ClientId, ClientStatus, Decision, Error as PolicyError, GpuPriority, Policy, ProcessKey,
    SchedClass,
};
use super::stats::ResetScope;
use super::trace::TraceRing;
use super::uapi::{self, IoctlArg, TraceEvent};

/// Client slots: the policy's client capacity.
pub(crate) const MAX_CLIENTS: usize = Policy::<16, 128>::CLIENT_CAPACITY;
/// Words of the [`Exits`] bit set (one bit per client slot).
const EXIT_WORDS: usize = MAX_CLIENTS.div_ceil(64);

/// Client slots whose owner's thread group may have exited, marked lock-free from the pid's
/// wake function (any context) and taken under the update lock by [`Inner::apply_events`].
pub(crate) struct Exits([AtomicU64; EXIT_WORDS]);

impl Exits {
    pub(crate) const fn new() -> Self {
        Self([const { AtomicU64::new(0) }; EXIT_WORDS])
    }

    /// Marks slot `slot` (ignored if out of range).
    pub(crate) fn mark(&self, slot: u32) {
        let s = slot as usize;
        if let Some(w) = self.0.get(s / 64) {
            // Release: what the exiting task wrote before its wake is seen by the taker.
            w.fetch_or(1 << (s % 64), Ordering::Release);
        }
    }

    /// Whether any slot is marked (a hint for the fast path).
    pub(crate) fn any(&self) -> bool {
        self.0.iter().any(|w| w.load(Ordering::Relaxed) != 0)
    }

    /// Takes (and clears) the marks.
    fn take(&self) -> [u64; EXIT_WORDS] {
        let mut out = [0; EXIT_WORDS];
        for (o, w) in out.iter_mut().zip(self.0.iter()) {
            *o = w.swap(0, Ordering::Acquire);
        }
        out
    }
}
/// TSG ids: the policy's TSG capacity (= `GCAPS_BE_MAX_TSGS`).
pub(crate) const MAX_TSGS: usize = Policy::<16, 128>::TSG_CAPACITY;

/// One open `/dev/gcaps` file. All-zero = free slot.
#[derive(Clone, Copy, Default)]
pub(crate) struct Client {
    in_use: bool,
    /// UAPI client id, never reused while the system runs.
    id: u64,
    /// The policy's handle (`ClientId::to_raw`).
    handle: u64,
    key: ProcessKey,
    tgid: u32,
    start: u64,
    uid: u32,
    pid: PidToken,
    comm: [u8; 16],
    /// `uapi::CLASS_*` and `rt_priority` at the last begin (at open before the first).
    cpu_class: u32,
    cpu_prio: i32,
}

/// The driver's view of one TSG, as last applied. All-zero = no such TSG.
#[derive(Clone, Copy, Default)]
pub(crate) struct Tsg {
    exists: bool,
    tgid: i32,
    start: u64,
    key: ProcessKey,
    timeslice_us: u32,
    num_channels: u32,
}

/// What `seg_begin` needs from the caller.
#[derive(Clone, Copy)]
pub(crate) struct BeginRequest {
    pub(crate) class: SchedClass,
    pub(crate) uclass: u32,
    pub(crate) cpu_prio: i32,
    pub(crate) gpu: GpuPriority,
    /// The `gpu_priority` the caller asked for (for the trace).
    pub(crate) requested: i32,
}

/// A begin/end call: when it entered the module (`CLOCK_MONOTONIC` ns) and whether its caller
/// is real-time (only real-time updates are sampled for the update-delay histogram).
#[derive(Clone, Copy)]
pub(crate) struct Call {
    pub(crate) entry_ns: u64,
    pub(crate) rt: bool,
}

/// Counters reported by `GCAPS_IOC_STATS` (all but `events`) and in the kernel log at unload.
#[derive(Clone, Copy, Default)]
pub(crate) struct Counters {
    pub(crate) submits: u64,
    pub(crate) submit_errors: u64,
    pub(crate) submit_timeouts: u64,
    pub(crate) recoveries: u64,
    pub(crate) events: u64,
    pub(crate) begins: u64,
    pub(crate) ends: u64,
    pub(crate) ends_by_close: u64,
    pub(crate) preemptions: u64,
    pub(crate) resumes: u64,
    pub(crate) clients_max: u32,
    pub(crate) tsgs_max: u32,
    pub(crate) delay: uapi::DelayHistogram,
    /// Segments open when `begins`/`ends`/`ends_by_close` were last reset.
    pub(crate) open_at_reset: u64,
}

/// What [`Inner::sync`] did about the runlist.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Submit {
    /// Nothing a driver lists changed (or no backend is bound).
    None,
    /// Resubmitted; the submit is no longer pending.
    Done,
    /// The backend refused or timed out.
    Failed,
}

impl Submit {
    fn trace_flags(self) -> u32 {
        match self {
            Submit::None => 0,
            Submit::Done => uapi::TRACE_F_SUBMIT,
            Submit::Failed => uapi::TRACE_F_SUBMIT | uapi::TRACE_F_SUBMIT_FAILED,
        }
    }
}

/// Everything the update lock guards.
pub(crate) struct Inner {
    policy: Policy,
    clients: [Client; MAX_CLIENTS],
    tsgs: [Tsg; MAX_TSGS],
    next_client_id: u64,
    next_key: u64,
    published: Decision,
    bound: bool,
    /// Client slot of the running real-time segment (`policy.running_rt()`), kept by `sync`.
    running: Option<usize>,
    pub(crate) be: Backend,
    pub(crate) counters: Counters,
}

// SAFETY: All fields are integers, bools, arrays of them, `PidToken` (a `usize`), `Backend`
// (a zero-sized token) and `Policy`/`Decision`, whose all-zero bit pattern is documented to be
// the empty policy / a valid decision. Zeroed `Inner` = no clients, no TSGs, nothing bound.
unsafe impl kernel::init::Zeroable for Inner {}

/// `ETIMEDOUT` (not among 6.12's `kernel::error::code` constants).
fn etimedout() -> Error {
    Error::from_errno(-(kernel::bindings::ETIMEDOUT as i32))
}

/// `EALREADY` (not among 6.12's `kernel::error::code` constants).
fn ealready() -> Error {
    Error::from_errno(-(kernel::bindings::EALREADY as i32))
}

fn map_policy_error(e: PolicyError) -> Error {
    match e {
        PolicyError::SegmentAlreadyOpen => ealready(),
        PolicyError::NoOpenSegment => ENOENT,
        PolicyError::GpuPriorityNeedsRealTime => EPERM,
        PolicyError::PriorityOutOfRange => EINVAL,
        PolicyError::ClientTableFull => ENOSPC,
        // Handles and TSG ids are the module's own: these mean a bug, reported as EINVAL.
        _ => EINVAL,
    }
}

/// `uapi::CLASS_*`, the policy class and the priority of a task's scheduling state. SCHED_DEADLINE
/// and every other non-FIFO/RR policy count as best-effort.
pub(crate) fn classify(policy: i32, rt_priority: i32) -> (u32, SchedClass, i32) {
    let rt = u8::try_from(rt_priority)
        .ok()
        .filter(|p| (1..=99).contains(p));
    match (policy, rt) {
        (super::glue::SCHED_FIFO, Some(p)) => {
            (uapi::CLASS_FIFO, SchedClass::RealTime(p), rt_priority)
        }
        (super::glue::SCHED_RR, Some(p)) => (uapi::CLASS_RR, SchedClass::RealTime(p), rt_priority),
        _ => (uapi::CLASS_OTHER, SchedClass::BestEffort, 0),
    }
}

impl Inner {
    /// Called once after zeroed allocation, before the state is shared: the initial
    /// decision (every TSG eligible, generation 0) is what the C side's snapshot starts with.
    pub(crate) fn start(&mut self) {
        self.published = self.policy.decision();
        self.published.generation = 0;
    }

    fn publish(&mut self) {
        let d = self.published;
        self.be.publish(d.generation, d.all, d.eligible.words());
    }

    /// The client `r` names, if it still exists (`EPERM` if it is gone: its owner exited, and
    /// only another process can still call on its file).
    fn client(&self, r: ClientRef) -> Result<&Client> {
        let c = self.clients.get(r.slot as usize).ok_or(EINVAL)?;
        if c.in_use && c.id == r.id {
            Ok(c)
        } else {
            Err(EPERM)
        }
    }

    fn handle(&self, r: ClientRef) -> Result<ClientId> {
        Ok(ClientId::from_raw(self.client(r)?.handle))
    }

    /// The key of process `(tgid, start)`: the one a client or TSG of it already carries, else
    /// a new one. O(C + T).
    fn key_for(&mut self, tgid: u32, start: u64) -> ProcessKey {
        let from_client = self
            .clients
            .iter()
            .find(|c| c.in_use && c.tgid == tgid && c.start == start)
            .map(|c| c.key);
        let from_tsg = || {
            self.tsgs
                .iter()
                .find(|t| t.exists && t.tgid as u32 == tgid && t.start == start)
                .map(|t| t.key)
        };
        if let Some(k) = from_client.or_else(from_tsg) {
            return k;
        }
        self.next_key += 1;
        self.next_key
    }

    /// Publishes the decision if it changed, and has the driver resubmit if what it lists
    /// changed (or `force`, after a recovery). Restores the `published` and `running`
    /// invariants.
    pub(crate) fn sync(&mut self, force: bool) -> Submit {
        let mut d = self.policy.decision();
        let visible = d.all != self.published.all || d.eligible != self.published.eligible;
        if visible {
            d.generation = self.published.generation.wrapping_add(1);
            self.published = d;
            self.publish();
        }
        // A freed slot keeps no handle (all-zero), and 0 is also a valid handle (the policy's
        // first client): only a slot in use can still be the running one.
        let run = self.policy.running_rt().map(ClientId::to_raw);
        let cached = self
            .running
            .and_then(|s| self.clients.get(s))
            .filter(|c| c.in_use)
            .map(|c| c.handle);
        if run != cached {
            self.running =
                run.and_then(|h| self.clients.iter().position(|c| c.in_use && c.handle == h));
        }
        if !(visible || force) || !self.bound {
            return Submit::None;
        }
        self.counters.submits += 1;
        match self.be.resubmit() {
            Ok(()) => Submit::Done,
            Err(e) => {
                // The decision is published: the driver's own rebuild paths (resume, recovery)
                // list exactly it, so there is nothing to retry here.
                self.counters.submit_errors += 1;
                if e == etimedout() {
                    self.counters.submit_timeouts += 1;
                }
                if self.counters.submit_errors == 1 {
                    pr_warn!(
                        "backend resubmit failed ({:?}); further failures are only counted\n",
                        e
                    );
                }
                Submit::Failed
            }
        }
    }

    // ------------------------------------------------------------------ trace

    /// A trace event about client `slot` (0/none for driver events), with the decision now.
    fn event(&self, kind: u32, slot: Option<usize>) -> TraceEvent {
        let c = slot.and_then(|s| self.clients.get(s)).filter(|c| c.in_use);
        let mut ev = TraceEvent {
            client_id: c.map_or(0, |c| c.id),
            tgid: c.map_or(0, |c| c.tgid),
            kind,
            effective_priority: c.map_or(0, |c| self.effective_of(c)),
            comm: c.map_or([0; 16], |c| c.comm),
            ..TraceEvent::default()
        };
        self.stamp(&mut ev);
        ev
    }

    /// Sets `ev`'s time and the decision now (running client, generation).
    fn stamp(&self, ev: &mut TraceEvent) {
        let r = self.running.and_then(|s| self.clients.get(s));
        ev.time_ns = now_ns();
        ev.running_client_id = r.map_or(0, |c| c.id);
        ev.running_tgid = r.map_or(0, |c| c.tgid);
        ev.generation = self.published.generation;
    }

    /// Effective GPU priority of `c`'s open segment (0: none or best-effort).
    fn effective_of(&self, c: &Client) -> i32 {
        self.policy
            .client_info(ClientId::from_raw(c.handle))
            .ok()
            .and_then(|i| i.effective_priority)
            .map_or(0, i32::from)
    }

    /// After a begin/end/close by `slot` (recorded as `cause`) that left `prev` running
    /// before: counts and records the preemption or resumption it caused (a begin can only
    /// preempt, an end or close can only resume), at the cause's time.
    fn handover(&mut self, slot: usize, prev: Option<usize>, cause: &TraceEvent, tr: &TraceRing) {
        let (kind, who) = match (prev, self.running) {
            (Some(p), Some(n)) if n == slot && p != slot => {
                self.counters.preemptions += 1;
                (uapi::TRACE_PREEMPT, p)
            }
            (Some(p), Some(n)) if p == slot && n != slot => {
                self.counters.resumes += 1;
                (uapi::TRACE_RESUME, n)
            }
            _ => return,
        };
        let mut ev = self.event(kind, Some(who));
        ev.time_ns = cause.time_ns;
        tr.record(ev);
    }

    /// The update delay of a successful begin/end: sampled for real-time callers.
    fn delay_of(&mut self, call: Call) -> u64 {
        if !call.rt {
            return 0;
        }
        let d = now_ns().saturating_sub(call.entry_ns);
        self.counters.delay.record(d);
        d
    }

    // ------------------------------------------------------------------ clients

    /// A file is opened: a new client. Never changes the decision.
    pub(crate) fn open(
        &mut self,
        caller: &Caller,
        pid: PidToken,
        max_per_user: u32,
        tr: &TraceRing,
    ) -> Result<ClientRef> {
        let mine = self
            .clients
            .iter()
            .filter(|c| c.in_use && c.uid == caller.uid)
            .count();
        if mine >= max_per_user as usize {
            return Err(EMFILE);
        }
        let slot = self.clients.iter().position(|c| !c.in_use).ok_or(ENOSPC)?;
        let key = self.key_for(caller.tgid, caller.start);
        let (uclass, class, prio) = classify(caller.policy, caller.rt_priority);
        let (id, _) = self.policy.register(key, class).map_err(map_policy_error)?;
        self.next_client_id += 1;
        let c = self.clients.get_mut(slot).ok_or(ENOSPC)?;
        *c = Client {
            in_use: true,
            id: self.next_client_id,
            handle: id.to_raw(),
            key,
            tgid: caller.tgid,
            start: caller.start,
            uid: caller.uid,
            pid,
            comm: caller.comm,
            cpu_class: uclass,
            cpu_prio: prio,
        };
        let now = self.clients_now();
        self.counters.clients_max = self.counters.clients_max.max(now);
        tr.record(self.event(uapi::TRACE_OPEN, Some(slot)));
        Ok(ClientRef {
            id: self.next_client_id,
            // `slot < MAX_CLIENTS = 128`.
            slot: slot as u32,
            pad: 0,
        })
    }

    /// The file's last reference is gone: end its segment, remove the client (nothing if the
    /// owner's exit removed it already).
    pub(crate) fn release(&mut self, r: ClientRef, tr: &TraceRing) {
        if self.client(r).is_ok() {
            self.remove(r.slot as usize, tr);
        }
    }

    /// The owners of the clients in `slots` (a bit per slot) may have exited: removes each
    /// client whose owner's thread group is gone (its file may live on in another process,
    /// which can do nothing with it). A mark whose slot is free or held by a live process's
    /// client (the slot was reused since, or another wake of the pid's queue) is ignored.
    fn apply_exits(&mut self, slots: [u64; EXIT_WORDS], tr: &TraceRing) {
        for (w, word) in slots.iter().enumerate() {
            for b in (0..64usize).filter(|b| word & (1 << b) != 0) {
                let s = w * 64 + b;
                let gone = self
                    .clients
                    .get(s)
                    .is_some_and(|c| c.in_use && c.pid.group_exited());
                if gone {
                    self.remove(s, tr);
                }
            }
        }
    }

    /// Ends client `s`'s open segment and removes the client, in one policy event.
    fn remove(&mut self, s: usize, tr: &TraceRing) {
        let prev = self.running;
        let mut ev = self.event(uapi::TRACE_CLOSE, Some(s));
        if let Some(c) = self.clients.get(s).filter(|c| c.in_use) {
            let id = ClientId::from_raw(c.handle);
            if self.state_of(id) != uapi::STATE_IDLE {
                self.counters.ends_by_close += 1;
                ev.flags |= uapi::TRACE_F_ENDED;
            }
            // Cannot fail for a registered handle.
            let _ = self.policy.client_gone(id);
        }
        if let Some(c) = self.clients.get_mut(s) {
            *c = Client::default();
        }
        ev.flags |= self.sync(false).trace_flags();
        // The client is gone: its fields were taken before, the decision is the one after.
        self.stamp(&mut ev);
        tr.record(ev);
        self.handover(s, prev, &ev, tr);
    }

    /// `GCAPS_IOC_SEG_BEGIN`. Returns the client's state after the call.
    pub(crate) fn seg_begin(
        &mut self,
        r: ClientRef,
        req: BeginRequest,
        call: Call,
        tr: &TraceRing,
    ) -> Result<u32> {
        let id = self.handle(r)?;
        let slot = r.slot as usize;
        let prev = self.running;
        self.policy
            .seg_begin(id, req.class, req.gpu)
            .map_err(map_policy_error)?;
        if let Some(c) = self.clients.get_mut(slot) {
            c.cpu_class = req.uclass;
            c.cpu_prio = req.cpu_prio;
        }
        self.counters.begins += 1;
        let submit = self.sync(false);
        let delay = self.delay_of(call);
        let state = self.state_of(id);
        let mut ev = self.event(uapi::TRACE_BEGIN, Some(slot));
        ev.delay_ns = delay;
        ev.cpu_priority = req.cpu_prio;
        ev.requested_priority = req.requested;
        ev.flags = submit.trace_flags();
        if state == uapi::STATE_PENDING {
            ev.flags |= uapi::TRACE_F_PENDING;
        }
        tr.record(ev);
        self.handover(slot, prev, &ev, tr);
        Ok(state)
    }

    /// Whether `seg_begin(slot, req)` certainly keeps the published decision (the policy's
    /// predicate; an unknown slot keeps it too: the event fails).
    pub(crate) fn begin_keeps_decision(&self, r: ClientRef, req: &BeginRequest) -> bool {
        self.handle(r).map_or(true, |id| {
            self.policy.begin_keeps_decision(id, req.class, req.gpu)
        })
    }

    /// Whether `seg_end(slot)` certainly keeps the published decision.
    pub(crate) fn end_keeps_decision(&self, r: ClientRef) -> bool {
        self.handle(r)
            .map_or(true, |id| self.policy.end_keeps_decision(id))
    }

    /// `GCAPS_IOC_SEG_END`.
    pub(crate) fn seg_end(&mut self, r: ClientRef, call: Call, tr: &TraceRing) -> Result {
        let id = self.handle(r)?;
        let slot = r.slot as usize;
        let prev = self.running;
        self.policy.seg_end(id).map_err(map_policy_error)?;
        self.counters.ends += 1;
        let submit = self.sync(false);
        let mut ev = self.event(uapi::TRACE_END, Some(slot));
        ev.delay_ns = self.delay_of(call);
        ev.flags = submit.trace_flags();
        tr.record(ev);
        self.handover(slot, prev, &ev, tr);
        Ok(())
    }

    /// TSGs the driver reported (the policy's set: O(T/64)). At most 1024.
    fn tsgs_now(&self) -> u32 {
        self.policy.tsgs().len() as u32
    }

    fn clients_now(&self) -> u32 {
        // At most `MAX_CLIENTS = 128`.
        self.clients.iter().filter(|c| c.in_use).count() as u32
    }

    /// Open segments (real-time and best-effort): O(C).
    fn segments_open(&self) -> u64 {
        self.clients
            .iter()
            .filter(|c| c.in_use && self.state_of(ClientId::from_raw(c.handle)) != uapi::STATE_IDLE)
            .count() as u64
    }

    /// `GCAPS_IOC_STATS`: fills the counters, then resets those within `reset`'s scope (the
    /// caller checked the permission): a counter becomes 0, `clients_max`/`tsgs_max` the
    /// current counts. `begins`, `ends` and `ends_by_close` are reset by every reset, together,
    /// and `open_at_reset` then records the segments open, so that `open_at_reset + begins ==
    /// ends + ends_by_close + segments_open` always holds.
    pub(crate) fn stats(&mut self, out: &mut uapi::Stats, reset: Option<ResetScope>) {
        let c = self.counters;
        out.begins = c.begins;
        out.ends = c.ends;
        out.ends_by_close = c.ends_by_close;
        out.submits = c.submits;
        out.submit_errors = c.submit_errors;
        out.clients_now = self.clients_now();
        out.clients_max = c.clients_max;
        out.preemptions = c.preemptions;
        out.resumes = c.resumes;
        out.submit_timeouts = c.submit_timeouts;
        out.recoveries = c.recoveries;
        out.tsgs_now = self.tsgs_now();
        out.tsgs_max = c.tsgs_max;
        out.delay = c.delay;
        out.open_at_reset = c.open_at_reset;
        out.segments_open = self.segments_open();
        let Some(scope) = reset else {
            return;
        };
        let c = &mut self.counters;
        // Every caller's struct holds the VER0 fields (smaller sizes are EINVAL).
        const _: () = assert!(offset_of!(uapi::Stats, ends_by_close) + 8 <= uapi::Stats::SIZE_VER0);
        c.begins = 0;
        c.ends = 0;
        c.ends_by_close = 0;
        c.open_at_reset = out.segments_open;
        macro_rules! zero_within {
            ($($f:ident),*) => {$(
                if scope.covers(offset_of!(uapi::Stats, $f), size_of_val(&out.$f)) {
                    c.$f = 0;
                }
            )*};
        }
        zero_within!(
            submits,
            submit_errors,
            preemptions,
            resumes,
            submit_timeouts,
            recoveries
        );
        if scope.covers(offset_of!(uapi::Stats, clients_max), 4) {
            c.clients_max = out.clients_now;
        }
        if scope.covers(offset_of!(uapi::Stats, tsgs_max), 4) {
            c.tsgs_max = out.tsgs_now;
        }
        if scope.covers(offset_of!(uapi::Stats, delay), size_of_val(&out.delay)) {
            c.delay = uapi::DelayHistogram::default();
        }
    }

    /// Generation of the published decision.
    pub(crate) fn generation(&self) -> u64 {
        self.published.generation
    }

    fn state_of(&self, id: ClientId) -> u32 {
        match self.policy.client_status(id) {
            Ok(ClientStatus::Running) => uapi::STATE_RUNNING,
            Ok(ClientStatus::Pending) => uapi::STATE_PENDING,
            _ => uapi::STATE_IDLE,
        }
    }

    fn info_of(&self, c: &Client) -> uapi::ClientInfo {
        let id = ClientId::from_raw(c.handle);
        let gpu = self.effective_of(c);
        let num_tsgs = self.policy.owned_tsgs(id);
        uapi::ClientInfo {
            client_id: c.id,
            tgid: c.pid.vnr(),
            cpu_class: c.cpu_class,
            cpu_priority: c.cpu_prio,
            gpu_priority: gpu,
            state: self.state_of(id),
            num_tsgs: num_tsgs as u32,
            comm: c.comm,
        }
    }

    /// `GCAPS_IOC_STATUS` (everything but `size`/`flags`).
    pub(crate) fn status(&self, r: ClientRef, out: &mut uapi::Status) -> Result {
        let c = self.client(r)?;
        out.self_ = self.info_of(c);
        out.generation = self.published.generation;
        out.rt_active = u32::from(self.policy.rt_active());
        out.num_clients = self.clients.iter().filter(|c| c.in_use).count() as u32;
        Ok(())
    }

    /// `GCAPS_IOC_LIST`: one consistent copy into `buf`; returns the counts.
    pub(crate) fn list(&self, buf: &mut ListBuf, out: &mut uapi::List) {
        let mut n = 0;
        for (c, dst) in self
            .clients
            .iter()
            .filter(|c| c.in_use)
            .zip(buf.clients.iter_mut())
        {
            *dst = self.info_of(c);
            n += 1;
        }
        out.clients_count = n;
        let d = self.published;
        let mut n = 0;
        for ((t, tsgid), dst) in self
            .tsgs
            .iter()
            .zip(0u32..)
            .filter(|(t, _)| t.exists)
            .zip(buf.tsgs.iter_mut())
        {
            let mut flags = 0;
            if d.all || d.eligible.contains(tsgid) {
                flags |= uapi::TSG_ELIGIBLE;
            }
            if self.policy.is_always_eligible(tsgid) {
                flags |= uapi::TSG_ALWAYS;
            }
            let owner = self.clients.iter().find(|c| c.in_use && c.key == t.key);
            *dst = uapi::TsgInfo {
                tsgid,
                flags,
                owner_client_id: owner.map_or(0, |c| c.id),
                owner_tgid: t.tgid as u32,
                timeslice_us: t.timeslice_us,
            };
            n += 1;
        }
        out.tsgs_count = n;
        out.generation = d.generation;
        out.rt_active = u32::from(!d.all);
    }

    // ------------------------------------------------------------------ backend

    /// Removes the clients whose owners exited (marked in `exits`), applies every pending TSG
    /// event (at most one per TSG id) and, after a reported recovery, forces a resubmit. Ends
    /// with [`Inner::sync`].
    pub(crate) fn apply_events(&mut self, exits: &Exits, tr: &TraceRing) {
        self.apply_exits(exits.take(), tr);
        // Released ids are off the published set (the C side cleared them): say so in its
        // mirror, so that `sync` republishes an id that is eligible again (e.g. the winner
        // reopened a TSG that got the same id).
        for (w, word) in self.be.take_released().iter().enumerate() {
            for b in (0..64u32).filter(|b| word & (1 << b) != 0) {
                self.published.eligible.remove(w as u32 * 64 + b);
            }
        }
        while let Some(ev) = self.be.next_event() {
            self.counters.events += 1;
            self.apply(&ev, tr);
        }
        let force = self.be.take_recovered();
        if force {
            self.counters.recoveries += 1;
            tr.record(self.event(uapi::TRACE_RECOVERY, None));
        }
        self.sync(force);
    }

    /// A TSG appeared or disappeared: records it (with its owner's client if it has one) and
    /// the new maximum count.
    fn tsg_counted(&mut self, kind: u32, t: u32, tgid: i32, key: ProcessKey, tr: &TraceRing) {
        if kind == uapi::TRACE_TSG_NEW {
            self.counters.tsgs_max = self.counters.tsgs_max.max(self.tsgs_now());
        }
        let owner = self.clients.iter().position(|c| c.in_use && c.key == key);
        let mut ev = self.event(kind, owner);
        ev.tgid = tgid as u32;
        ev.cpu_priority = t as i32;
        tr.record(ev);
    }

    fn apply(&mut self, ev: &TsgEvent, tr: &TraceRing) {
        let t = ev.tsgid;
        let Some(old) = self.tsgs.get(t as usize).copied() else {
            return;
        };
        let same_owner = old.exists && old.tgid == ev.tgid && old.start == ev.start;
        if old.exists && (ev.present == 0 || !same_owner) {
            let _ = self.policy.tsg_destroy(t);
            if let Some(m) = self.tsgs.get_mut(t as usize) {
                *m = Tsg::default();
            }
            self.tsg_counted(uapi::TRACE_TSG_GONE, t, old.tgid, old.key, tr);
        }
        if ev.present == 0 {
            return;
        }
        if same_owner {
            if old.timeslice_us != ev.timeslice_us || old.num_channels != ev.num_channels {
                let _ = self.policy.tsg_changed(t);
            }
            if let Some(m) = self.tsgs.get_mut(t as usize) {
                m.timeslice_us = ev.timeslice_us;
                m.num_channels = ev.num_channels;
            }
            return;
        }
        let key = self.key_for(ev.tgid as u32, ev.start);
        if self.policy.tsg_create(t, key).is_ok() {
            if let Some(m) = self.tsgs.get_mut(t as usize) {
                *m = Tsg {
                    exists: true,
                    tgid: ev.tgid,
                    start: ev.start,
                    key,
                    timeslice_us: ev.timeslice_us,
                    num_channels: ev.num_channels,
                };
            }
            self.tsg_counted(uapi::TRACE_TSG_NEW, t, ev.tgid, key, tr);
        }
    }

    /// A backend registers.
    ///
    /// # Safety
    ///
    /// As [`Backend::attach`].
    pub(crate) unsafe fn bind(
        &mut self,
        ops: *const core::ffi::c_void,
        drv: *mut core::ffi::c_void,
    ) -> Result {
        // SAFETY: Forwarded from the caller.
        unsafe { self.be.attach(ops, drv) }?;
        self.bound = true;
        Ok(())
    }

    /// The backend is gone (it unregistered, or gcaps detached it): forget its TSGs.
    fn forget_tsgs(&mut self) {
        self.bound = false;
        for (m, t) in self.tsgs.iter_mut().zip(0u32..) {
            if m.exists {
                let _ = self.policy.tsg_destroy(t);
                *m = Tsg::default();
            }
        }
        self.sync(false);
    }

    /// The driver unregisters (`calls->unregister`).
    pub(crate) fn unbind(&mut self) {
        if self.be.forget() {
            self.forget_tsgs();
        }
    }

    /// gcaps unloads: detach the driver (it reverts to stock scheduling).
    pub(crate) fn detach(&mut self) {
        if self.be.detach() {
            self.forget_tsgs();
        }
    }

    /// The bound backend's name and ABI.
    pub(crate) fn backend_name(&mut self, buf: &mut [u8; 32]) -> u32 {
        self.be.name(buf)
    }
}

/// Preallocated output of `GCAPS_IOC_LIST` (filled under the update lock, copied to user space
/// after it is released, under its own mutex).
pub(crate) struct ListBuf {
    pub(crate) clients: [uapi::ClientInfo; MAX_CLIENTS],
    pub(crate) tsgs: [uapi::TsgInfo; MAX_TSGS],
}

// SAFETY: Arrays of UAPI structs made of integers: all-zero is valid.
unsafe impl kernel::init::Zeroable for ListBuf {}

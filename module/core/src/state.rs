// SPDX-License-Identifier: GPL-2.0

//! The module's state under the update lock ([`Core`]): the policy, the client table, the
//! mirror of the driver's TSGs, and the counters, with the operations the ioctls, the file's
//! release, the event work and the backend binding perform on it. Everything the core needs
//! from the kernel (the clock, publishing the decision, the backend's resubmit and event
//! table, pids, the trace ring's lock, logging) it asks through [`Host`], which the host
//! implements with the update lock held.
//!
//! Invariants (hold whenever the update lock is free):
//! * The published decision is the policy's [`Decision`](super::policy::Decision): every
//!   event whose [`Outcome`] reports `decision_changed` ends with [`Host::publish`] of
//!   `policy.decision()` (the policy owns its generation). The host's snapshot may lack TSG
//!   ids the driver released since the last [`Core::apply_events`] (kept off until then); that
//!   call applies those releases first, so that a released id that is eligible again (e.g.
//!   the winner reopened a TSG and got the same id) is a decision change and republished.
//! * A client slot is `in_use` from its file's open until the file's last reference is gone or
//!   the owner's thread group exited, whichever comes first; its `handle` names a registered
//!   policy client whose key is `key`. Files reach their client by [`ClientRef`] (slot and id,
//!   ids never reused), so a file outliving its client never reaches the slot's next client.
//! * TSG existence and owner keys are the policy's (`policy.tsgs()`, `policy.tsg_owner`); the
//!   mirror `tsgs[t]` adds what only the driver's events say (owner tgid and start time,
//!   timeslice, channels) and is all-zero for ids the policy does not have. `tsgs[t].owner` is
//!   1 + the lowest client slot in use with the TSG's key (0: none), kept on every open,
//!   removal and TSG event, so LIST costs O(C + T).
//! * `running` is 1 + the slot of the policy's running real-time client (0: none).
//! * Keys are never reused: a key names one process identity `(tgid, start)` for as long as a
//!   client or a TSG carries it, and new identities get `next_key`, which only grows.
//! * All-zero is [`Core::new`] (integers, bools and arrays of them, and a policy whose
//!   all-zero pattern is documented to be empty): a host may allocate it zeroed.

use core::mem::{offset_of, size_of_val};
use core::sync::atomic::{AtomicU64, Ordering};

use super::boost::TaskToken;
use super::errno::Errno;
use super::ioctl::{BeginRequest, Class, Sched};
use super::policy::{self, ClientId, ClientStatus, Error as PolicyError, Outcome, ProcessKey};
use super::stats::ResetScope;
use super::uapi::{self, IoctlArg, TraceEvent};

/// Words of a TSG bit set (`GCAPS_BE_MAX_TSGS / 64`).
pub const TSG_WORDS: usize = 16;
/// Client slots.
pub const MAX_CLIENTS: usize = 128;
/// The policy as the module uses it.
pub type Policy = policy::Policy<TSG_WORDS, MAX_CLIENTS>;
/// The published decision.
pub type Decision = policy::Decision<TSG_WORDS>;
/// TSG ids: the policy's TSG capacity (= `GCAPS_BE_MAX_TSGS`).
pub const MAX_TSGS: usize = Policy::TSG_CAPACITY;
const _: () = assert!(uapi::MAX_TSGS as usize == MAX_TSGS);
/// Words of the [`Exits`] bit set (one bit per client slot).
const EXIT_WORDS: usize = MAX_CLIENTS.div_ceil(64);

/// What the core needs from its host, called with the update lock held.
pub trait Host {
    /// `CLOCK_MONOTONIC` now, in ns.
    fn now_ns(&self) -> u64;
    /// Appends `ev` to the trace ring (the host takes the ring's lock and calls
    /// [`Ring::record`](super::trace::Ring::record)).
    fn record(&mut self, ev: &TraceEvent);
    /// Publishes the decision for the driver's runlist builder.
    fn publish(&mut self, d: &Decision);
    /// Has the bound driver rebuild and submit its runlist and wait for it.
    fn resubmit(&mut self) -> Result<(), Errno>;
    /// The thread group id of `pid` in the calling task's pid namespace (0: not visible).
    fn pid_vnr(&self, pid: PidToken) -> u32;
    /// Whether `pid`'s whole thread group has exited.
    fn pid_group_exited(&self, pid: PidToken) -> bool;
    /// TSG ids the driver released since the last call (the host keeps them off every
    /// publish until they are taken; taken before the event table is drained).
    fn take_released(&mut self) -> [u64; TSG_WORDS];
    /// The next pending TSG event (at most one per TSG id: its latest state).
    fn next_tsg_event(&mut self) -> Option<TsgEvent>;
    /// Whether the driver reported a recovery since the last call.
    fn take_recovered(&mut self) -> bool;
    /// A condition worth one line in the log (the core says when: once, not per call).
    fn warn(&mut self, w: Warning);

    // Holder boost (`super::boost`); hosts without threads keep the defaults (nothing
    // boosted, no references).

    /// A counted reference to the calling thread (0: none).
    fn task_current(&mut self) -> TaskToken {
        TaskToken(0)
    }
    /// Another counted reference to `t` (which the caller holds one of).
    fn task_get(&mut self, _t: TaskToken) {}
    /// Drops a reference taken by [`Host::task_current`] or [`Host::task_get`].
    fn task_put(&mut self, _t: TaskToken) {}
    /// The thread id of `t` (initial pid namespace).
    fn task_tid(&self, _t: TaskToken) -> u32 {
        0
    }
    /// `t` (a reference held) becomes the holder of the running segment: boost it.
    fn boost(&mut self, _t: TaskToken) {}
    /// `t` stops being the holder: end its boost. Returns the priority it returns to, if
    /// gcaps restores it (`None`: its parameters are left as they are).
    fn unboost(&mut self, _t: TaskToken) -> Option<i32> {
        None
    }
    /// Whether `t` is boosted now.
    fn boosted(&self, _t: TaskToken) -> bool {
        false
    }
}

/// Log lines the core asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Warning {
    /// The first failed resubmit (later ones are only counted).
    ResubmitFailed(Errno),
}

/// An opaque host token for an open file's process (the kernel's counted `struct pid *`),
/// valid while the client that stores it exists. 0: none (counts as exited).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PidToken(pub usize);

/// An open file's client, by slot and by id (`struct gcaps_client_ref` of the C glue). The id
/// is never reused, so a file whose client is gone (its owner exited and the slot was reused)
/// never reaches another client: every lookup matches both.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClientRef {
    /// The client's UAPI id.
    pub id: u64,
    /// Its slot.
    pub slot: u32,
    /// Zero.
    pub pad: u32,
}

/// The latest state of one TSG as the driver reported it (`struct gcaps_ev` of the C glue).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TsgEvent {
    /// Start time of the owning process (with `tgid`, its identity).
    pub start: u64,
    /// TSG id.
    pub tsgid: u32,
    /// Owning process.
    pub tgid: i32,
    /// Timeslice.
    pub timeslice_us: u32,
    /// Channels bound.
    pub num_channels: u32,
    /// 0: the TSG is gone.
    pub present: u32,
    /// `GCAPS_BE_TSG_*` of the driver's report (`GCAPS_BE_TSG_ALWAYS`: driver-internal).
    pub flags: u32,
}

/// `GCAPS_BE_TSG_ALWAYS` of `gcaps_backend.h`: the driver's own TSG, always eligible.
pub const BE_TSG_ALWAYS: u32 = 1 << 0;

/// Who opens a file.
#[derive(Clone, Copy, Debug, Default)]
pub struct Opener {
    /// Thread group id (init namespace).
    pub tgid: u32,
    /// Start time of the thread group leader (with `tgid`, the process identity).
    pub start: u64,
    /// Real uid (for `max_clients_per_user`).
    pub uid: u32,
    /// Scheduling state now.
    pub sched: Sched,
    /// Command name.
    pub comm: [u8; 16],
    /// The file's pid reference.
    pub pid: PidToken,
}

/// Client slots whose owner's thread group may have exited, marked lock-free from the pid's
/// wake function (any context) and taken under the update lock by [`Core::apply_events`].
pub struct Exits([AtomicU64; EXIT_WORDS]);

impl Default for Exits {
    fn default() -> Self {
        Self::new()
    }
}

impl Exits {
    /// No marks.
    pub const fn new() -> Self {
        Self([const { AtomicU64::new(0) }; EXIT_WORDS])
    }

    /// Marks slot `slot` (ignored if out of range).
    pub fn mark(&self, slot: u32) {
        let s = slot as usize;
        if let Some(w) = self.0.get(s / 64) {
            // Release: what the exiting task wrote before its wake is seen by the taker.
            w.fetch_or(1 << (s % 64), Ordering::Release);
        }
    }

    /// Whether any slot is marked (a hint for the fast path).
    pub fn any(&self) -> bool {
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

/// One open `/dev/gcaps` file. All-zero = free slot.
#[derive(Clone, Copy, Debug)]
struct Client {
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
    /// The thread that began the open real-time segment (a counted reference), with boosting
    /// on; 0 otherwise.
    task: TaskToken,
}

impl Client {
    const FREE: Self = Self {
        in_use: false,
        id: 0,
        handle: 0,
        key: 0,
        tgid: 0,
        start: 0,
        uid: 0,
        pid: PidToken(0),
        comm: [0; 16],
        cpu_class: 0,
        cpu_prio: 0,
        task: TaskToken(0),
    };
}

/// The driver's view of one TSG, as last applied (existence and key: the policy's). All-zero
/// for ids the policy does not have.
#[derive(Clone, Copy, Debug)]
struct Tsg {
    tgid: i32,
    start: u64,
    timeslice_us: u32,
    num_channels: u32,
    /// 1 + lowest client slot in use with `key`, 0: none.
    owner: u32,
    /// Why the TSG is always eligible: `uapi::TSG_ALWAYS_DRIVER` (the driver's flag, as its
    /// last event said) and `uapi::TSG_ALWAYS_ADMIN` (`GCAPS_IOC_SET_ALWAYS`). The policy's
    /// mark is set exactly when one of them is.
    always: u32,
}

impl Tsg {
    const NONE: Self = Self {
        tgid: 0,
        start: 0,
        timeslice_us: 0,
        num_channels: 0,
        owner: 0,
        always: 0,
    };
}

/// A begin/end call: when it entered the module (`CLOCK_MONOTONIC` ns) and whether its caller
/// is real-time (only real-time updates are sampled for the update-delay histogram).
#[derive(Clone, Copy, Debug)]
pub struct Call {
    /// Entry time.
    pub entry_ns: u64,
    /// Real-time caller.
    pub rt: bool,
}

/// Counters reported by `GCAPS_IOC_STATS` (all but `events`) and in the kernel log at unload.
#[derive(Clone, Copy, Debug)]
pub struct Counters {
    /// Successful begins.
    pub begins: u64,
    /// Successful ends.
    pub ends: u64,
    /// Segments ended by a close or the owner's exit.
    pub ends_by_close: u64,
    /// Resubmits asked for.
    pub submits: u64,
    /// Failed resubmits.
    pub submit_errors: u64,
    /// Resubmits that timed out.
    pub submit_timeouts: u64,
    /// Driver recoveries.
    pub recoveries: u64,
    /// TSG events applied.
    pub events: u64,
    /// Preemptions (a begin took the GPU from a running segment).
    pub preemptions: u64,
    /// Resumptions (an end or close gave it back).
    pub resumes: u64,
    /// Most clients at once.
    pub clients_max: u32,
    /// Most TSGs at once.
    pub tsgs_max: u32,
    /// Update delays of real-time callers.
    pub delay: uapi::DelayHistogram,
    /// Segments open when `begins`/`ends`/`ends_by_close` were last reset.
    pub open_at_reset: u64,
}

impl Counters {
    const ZERO: Self = Self {
        begins: 0,
        ends: 0,
        ends_by_close: 0,
        submits: 0,
        submit_errors: 0,
        submit_timeouts: 0,
        recoveries: 0,
        events: 0,
        preemptions: 0,
        resumes: 0,
        clients_max: 0,
        tsgs_max: 0,
        delay: uapi::DelayHistogram::EMPTY,
        open_at_reset: 0,
    };
}

/// What [`Core::sync`] did about the runlist.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Submit {
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

/// Preallocated output of `GCAPS_IOC_LIST` (filled under the update lock, copied to user space
/// after it is released). All-zero is valid.
pub struct ListBuf {
    /// Client records.
    pub clients: [uapi::ClientInfo; MAX_CLIENTS],
    /// TSG records.
    pub tsgs: [uapi::TsgInfo; MAX_TSGS],
}

/// Everything the update lock guards. `Clone` is for tests (a copy is large).
#[derive(Clone)]
pub struct Core {
    policy: Policy,
    clients: [Client; MAX_CLIENTS],
    tsgs: [Tsg; MAX_TSGS],
    next_client_id: u64,
    next_key: u64,
    bound: bool,
    /// 1 + slot of the running real-time client (`policy.running_rt()`), 0: none.
    running: u32,
    counters: Counters,
    /// `boost_prio` (0: boosting off) and `update_prio`, as loaded.
    boost_prio: i32,
    update_prio: i32,
    /// The thread the core has boosted (its own counted reference), 0: none.
    boosted: TaskToken,
    /// The BOOST/UNBOOST events of the last sync, recorded after the event that caused them
    /// (`kind` 0: none).
    notes: [TraceEvent; 2],
    /// The trace fields (client, tgid, comm, tid) of the boosted thread's event.
    boosted_ev: TraceEvent,
}

impl Default for Core {
    fn default() -> Self {
        Self::new()
    }
}

fn map_policy_error(e: PolicyError) -> Errno {
    match e {
        PolicyError::SegmentAlreadyOpen => Errno::EALREADY,
        PolicyError::NoOpenSegment => Errno::ENOENT,
        PolicyError::PriorityOutOfRange => Errno::EINVAL,
        PolicyError::ClientTableFull => Errno::ENOSPC,
        // Handles and TSG ids are the core's own: these mean a bug, reported as EINVAL.
        _ => Errno::EINVAL,
    }
}

/// `slot + 1` as stored in `running`/`owner` (slots are below `MAX_CLIENTS`).
fn plus1(slot: usize) -> u32 {
    u32::try_from(slot).map_or(0, |s| s.saturating_add(1))
}

/// The slot a `plus1` value names.
fn slot_of(p1: u32) -> Option<usize> {
    usize::try_from(p1.checked_sub(1)?).ok()
}

/// Calls `f` with every id set in `words`.
fn for_each_bit(words: &[u64], mut f: impl FnMut(usize)) {
    for (w, word) in words.iter().enumerate() {
        let mut bits = *word;
        while bits != 0 {
            let b = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            f(w.saturating_mul(64).saturating_add(b));
        }
    }
}

impl Core {
    /// No clients, no TSGs, nothing bound, every TSG eligible (generation 0): the state the
    /// host's snapshot starts with. Large (about 100 KiB): a kernel host allocates it zeroed.
    pub const fn new() -> Self {
        Self {
            policy: Policy::new(),
            clients: [Client::FREE; MAX_CLIENTS],
            tsgs: [Tsg::NONE; MAX_TSGS],
            next_client_id: 0,
            next_key: 0,
            bound: false,
            running: 0,
            counters: Counters::ZERO,
            boost_prio: 0,
            update_prio: 0,
            boosted: TaskToken(0),
            notes: [TraceEvent::ZERO; 2],
            boosted_ev: TraceEvent::ZERO,
        }
    }

    /// The module parameters the core reports and acts on: the update ceiling and the holder
    /// boost's priority (0: off). Set once, before the first client.
    pub fn configure(&mut self, update_prio: i32, boost_prio: i32) {
        self.update_prio = update_prio;
        self.boost_prio = boost_prio;
    }

    /// The thread the core has boosted (for tests and diagnostics).
    pub fn boosted_task(&self) -> TaskToken {
        self.boosted
    }

    /// The counters (for the unload message).
    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    /// The policy (read-only: for tests and diagnostics).
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The slot the core believes runs the real-time segment (its cache of the policy's
    /// running client, for the trace; for tests and diagnostics).
    pub fn running_slot(&self) -> Option<usize> {
        slot_of(self.running)
    }

    /// Generation of the published decision.
    pub fn generation(&self) -> u64 {
        self.policy.decision_generation()
    }

    /// The client `r` names, if it still exists (`EPERM` if it is gone: its owner exited, and
    /// only another process can still call on its file; `EINVAL` for a slot out of range).
    fn client(&self, r: ClientRef) -> Result<&Client, Errno> {
        let c = self.clients.get(r.slot as usize).ok_or(Errno::EINVAL)?;
        if c.in_use && c.id == r.id {
            Ok(c)
        } else {
            Err(Errno::EPERM)
        }
    }

    fn handle(&self, r: ClientRef) -> Result<ClientId, Errno> {
        Ok(ClientId::from_raw(self.client(r)?.handle))
    }

    /// The lowest slot in use with `key`. O(C).
    fn first_with_key(&self, key: ProcessKey) -> Option<usize> {
        self.clients.iter().position(|c| c.in_use && c.key == key)
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
                .zip(0u32..)
                .filter(|(t, _)| t.tgid as u32 == tgid && t.start == start)
                .find_map(|(_, id)| self.policy.tsg_owner(id))
        };
        if let Some(k) = from_client.or_else(from_tsg) {
            return k;
        }
        self.next_key = self.next_key.wrapping_add(1);
        self.next_key
    }

    /// Publishes the decision if `changed` (an [`Outcome`] since the last sync said so), has
    /// the driver resubmit if so or if `force` (after a recovery), and restores `running`.
    fn sync(&mut self, h: &mut impl Host, changed: bool, force: bool) -> Submit {
        if changed {
            h.publish(&self.policy.decision());
        }
        // A freed slot keeps no handle (all-zero), and 0 is also a valid handle (the policy's
        // first client): only a slot in use can still be the running one. Without a running
        // client the cache is cleared whatever it names (a removed running client's slot is
        // free now and may be reused before the next sync).
        let run = self.policy.running_rt().map(ClientId::to_raw);
        let cached = slot_of(self.running)
            .and_then(|s| self.clients.get(s))
            .filter(|c| c.in_use)
            .map(|c| c.handle);
        if run.is_none() {
            self.running = 0;
        } else if run != cached {
            self.running = run
                .and_then(|h| self.clients.iter().position(|c| c.in_use && c.handle == h))
                .map_or(0, plus1);
        }
        // U8 (`docs/analysis.md`): the old holder loses the boost before its TSGs lose the
        // GPU (here, before the submit), the new one gets it only once its TSGs have it (after
        // the submit and its pending wait), still inside this update.
        self.sync_boost(h, false);
        if !(changed || force) || !self.bound {
            self.sync_boost(h, true);
            return Submit::None;
        }
        self.counters.submits = self.counters.submits.wrapping_add(1);
        let done = h.resubmit();
        self.sync_boost(h, true);
        match done {
            Ok(()) => Submit::Done,
            Err(e) => {
                // The decision is published: the driver's own rebuild paths (resume, recovery)
                // list exactly it, so there is nothing to retry here.
                self.counters.submit_errors = self.counters.submit_errors.wrapping_add(1);
                if e == Errno::ETIMEDOUT {
                    self.counters.submit_timeouts = self.counters.submit_timeouts.wrapping_add(1);
                }
                if self.counters.submit_errors == 1 {
                    h.warn(Warning::ResubmitFailed(e));
                }
                Submit::Failed
            }
        }
    }

    // ------------------------------------------------------------------ holder boost

    /// Boosts the running segment's owner thread and ends the previous one's boost, if the
    /// holder changed (`docs/module.md`, "Holder boost"); notes the trace events. The core
    /// holds its own reference to the boosted thread, so a client's end or removal (which
    /// drops the client's reference) never frees a thread it still has to unboost. With
    /// `boost_new` false only the previous holder's boost ends (U8: before the submit).
    fn sync_boost(&mut self, h: &mut impl Host, boost_new: bool) {
        let run = slot_of(self.running).and_then(|s| self.clients.get(s).map(|c| (s, c)));
        let want = match run {
            Some((_, c)) if self.boost_prio > 0 && c.in_use => c.task,
            _ => TaskToken(0),
        };
        if want == self.boosted {
            return;
        }
        // The next free note (the unboost of a first call may already be noted).
        let mut n = self
            .notes
            .iter()
            .position(|e| e.kind == 0)
            .unwrap_or(self.notes.len());
        if self.boosted.is_some() {
            let old = self.boosted;
            let prio = h.unboost(old);
            h.task_put(old);
            let mut ev = self.boosted_ev;
            ev.kind = uapi::TRACE_UNBOOST;
            ev.cpu_priority = prio.unwrap_or(-1);
            if let Some(slot) = self.notes.get_mut(n) {
                *slot = ev;
                n += 1;
            }
            self.boosted = TaskToken(0);
        }
        if let (true, true, Some((s, c))) = (boost_new, want.is_some(), run) {
            h.task_get(want);
            h.boost(want);
            self.boosted = want;
            let mut ev = self.event(h, uapi::TRACE_BOOST, Some(s));
            ev.tid = h.task_tid(want);
            ev.cpu_priority = self.boost_prio;
            ev.requested_priority = c.cpu_prio;
            self.boosted_ev = ev;
            if let Some(slot) = self.notes.get_mut(n) {
                *slot = ev;
            }
        }
    }

    /// Records the BOOST/UNBOOST events the last sync noted, at `time_ns` (the cause's).
    fn flush_boost(&mut self, h: &mut impl Host, time_ns: Option<u64>) {
        for i in 0..self.notes.len() {
            let Some(mut ev) = self.notes.get(i).copied().filter(|e| e.kind != 0) else {
                continue;
            };
            self.stamp(h, &mut ev);
            if let Some(t) = time_ns {
                ev.time_ns = t;
            }
            h.record(&ev);
            if let Some(n) = self.notes.get_mut(i) {
                *n = TraceEvent::ZERO;
            }
        }
    }

    /// Drops the client's reference to the thread that began its segment.
    fn drop_task(&mut self, h: &mut impl Host, slot: usize) {
        if let Some(c) = self.clients.get_mut(slot) {
            let t = core::mem::take(&mut c.task);
            if t.is_some() {
                h.task_put(t);
            }
        }
    }

    // ------------------------------------------------------------------ trace

    /// A trace event about client `slot` (none for driver events), with the decision now.
    fn event(&self, h: &impl Host, kind: u32, slot: Option<usize>) -> TraceEvent {
        let c = slot.and_then(|s| self.clients.get(s)).filter(|c| c.in_use);
        let mut ev = TraceEvent {
            client_id: c.map_or(0, |c| c.id),
            tgid: c.map_or(0, |c| c.tgid),
            kind,
            effective_priority: c.map_or(0, |c| self.effective_of(c)),
            comm: c.map_or([0; 16], |c| c.comm),
            ..TraceEvent::default()
        };
        self.stamp(h, &mut ev);
        ev
    }

    /// Sets `ev`'s time and the decision now (running client, generation).
    fn stamp(&self, h: &impl Host, ev: &mut TraceEvent) {
        let r = slot_of(self.running).and_then(|s| self.clients.get(s));
        ev.time_ns = h.now_ns();
        ev.running_client_id = r.map_or(0, |c| c.id);
        ev.running_tgid = r.map_or(0, |c| c.tgid);
        ev.generation = self.generation();
    }

    /// Effective GPU priority of `c`'s open segment (0: none or best-effort).
    fn effective_of(&self, c: &Client) -> i32 {
        self.policy
            .client_info(ClientId::from_raw(c.handle))
            .ok()
            .and_then(|i| i.effective_priority)
            .map_or(0, i32::from)
    }

    /// After a begin/end/close by `slot` (recorded as `cause`) that left `prev` (1 + slot)
    /// running before: counts and records the preemption or resumption it caused (a begin can
    /// only preempt, an end or close can only resume), at the cause's time.
    fn handover(&mut self, h: &mut impl Host, slot: usize, prev: u32, cause: &TraceEvent) {
        let me = plus1(slot);
        let now = self.running;
        let (kind, who) = match (prev, now) {
            (p, n) if p != 0 && n != 0 && n == me && p != me => {
                self.counters.preemptions = self.counters.preemptions.wrapping_add(1);
                (uapi::TRACE_PREEMPT, p)
            }
            (p, n) if p != 0 && n != 0 && p == me && n != me => {
                self.counters.resumes = self.counters.resumes.wrapping_add(1);
                (uapi::TRACE_RESUME, n)
            }
            _ => return,
        };
        let mut ev = self.event(h, kind, slot_of(who));
        ev.time_ns = cause.time_ns;
        h.record(&ev);
    }

    /// The update delay of a successful begin/end: sampled for real-time callers.
    fn delay_of(&mut self, h: &impl Host, call: Call) -> u64 {
        if !call.rt {
            return 0;
        }
        let d = h.now_ns().saturating_sub(call.entry_ns);
        self.counters.delay.record(d);
        d
    }

    // ------------------------------------------------------------------ clients

    /// A file is opened: a new client (`EMFILE` beyond `max_per_user` clients of the uid,
    /// `ENOSPC` if the table is full). Never changes the decision.
    pub fn open(
        &mut self,
        h: &mut impl Host,
        o: &Opener,
        max_per_user: u32,
    ) -> Result<ClientRef, Errno> {
        let mine = self
            .clients
            .iter()
            .filter(|c| c.in_use && c.uid == o.uid)
            .count();
        if mine >= max_per_user as usize {
            return Err(Errno::EMFILE);
        }
        let slot = self
            .clients
            .iter()
            .position(|c| !c.in_use)
            .ok_or(Errno::ENOSPC)?;
        let key = self.key_for(o.tgid, o.start);
        let Class {
            uclass,
            class,
            cpu_prio,
        } = o.sched.classify();
        let (id, _) = self.policy.register(key, class).map_err(map_policy_error)?;
        let cid = self.next_client_id.wrapping_add(1);
        let c = self.clients.get_mut(slot).ok_or(Errno::ENOSPC)?;
        self.next_client_id = cid;
        *c = Client {
            in_use: true,
            id: cid,
            handle: id.to_raw(),
            key,
            tgid: o.tgid,
            start: o.start,
            uid: o.uid,
            pid: o.pid,
            comm: o.comm,
            cpu_class: uclass,
            cpu_prio,
            task: TaskToken(0),
        };
        // The new client owns its process's TSGs unless a lower slot of the process does.
        let me = plus1(slot);
        for (t, id) in self.tsgs.iter_mut().zip(0u32..) {
            if self.policy.tsg_owner(id) == Some(key) && (t.owner == 0 || t.owner > me) {
                t.owner = me;
            }
        }
        let now = self.clients_now();
        self.counters.clients_max = self.counters.clients_max.max(now);
        let ev = self.event(h, uapi::TRACE_OPEN, Some(slot));
        h.record(&ev);
        Ok(ClientRef {
            id: cid,
            slot: u32::try_from(slot).map_err(|_| Errno::ENOSPC)?,
            pad: 0,
        })
    }

    /// The file's last reference is gone: end its segment, remove the client (nothing if the
    /// owner's exit removed it already).
    pub fn release(&mut self, h: &mut impl Host, r: ClientRef) {
        if self.client(r).is_ok() {
            self.remove(h, r.slot as usize);
        }
    }

    /// Whether removing client `r` (the release of its file, its owner's exit) certainly keeps
    /// the published decision: its segment, if any, is not the running real-time one (the
    /// policy's `end_keeps_decision`: `client_gone` ends the segment like an end and drops only
    /// the client's own TSG set, never the winner's). An unknown client keeps it too (nothing
    /// is removed). Such a removal publishes nothing, submits nothing and changes no holder:
    /// bookkeeping any caller may do, a best-effort one included (U5).
    pub fn release_keeps_decision(&self, r: ClientRef) -> bool {
        self.end_keeps_decision(r)
    }

    /// The owner exits marked in `exits` whose removal keeps the decision
    /// ([`Core::release_keeps_decision`]), for a caller that must not publish or submit (LIST,
    /// STATUS, STATS): removes each marked client whose owner's group has exited and whose
    /// segment is not the running one, drops the marks of live owners (as
    /// [`Core::apply_events`] does) and marks the running client's slot again for an update.
    /// Returns whether it left such a mark (the caller kicks the work item).
    pub fn apply_exits_keeping(&mut self, h: &mut impl Host, exits: &Exits) -> bool {
        let mut left = false;
        for_each_bit(&exits.take(), |s| {
            let Some(c) = self.clients.get(s).filter(|c| c.in_use).copied() else {
                return;
            };
            if !h.pid_group_exited(c.pid) {
                return;
            }
            let Ok(slot) = u32::try_from(s) else {
                return;
            };
            let r = ClientRef {
                id: c.id,
                slot,
                pad: 0,
            };
            if self.release_keeps_decision(r) {
                self.remove(h, s);
            } else {
                exits.mark(slot);
                left = true;
            }
        });
        left
    }

    /// The owners of the clients in `slots` (a bit per slot) may have exited: removes each
    /// client whose owner's thread group is gone (its file may live on in another process,
    /// which can do nothing with it). A mark whose slot is free or held by a live process's
    /// client (the slot was reused since, or another wake of the pid's queue) is ignored.
    fn apply_exits(&mut self, h: &mut impl Host, slots: [u64; EXIT_WORDS]) {
        for_each_bit(&slots, |s| {
            let gone = self
                .clients
                .get(s)
                .is_some_and(|c| c.in_use && h.pid_group_exited(c.pid));
            if gone {
                self.remove(h, s);
            }
        });
    }

    /// Ends client `s`'s open segment and removes the client, in one policy event.
    fn remove(&mut self, h: &mut impl Host, s: usize) {
        let prev = self.running;
        let mut ev = self.event(h, uapi::TRACE_CLOSE, Some(s));
        let mut changed = false;
        let Some(c) = self.clients.get(s).filter(|c| c.in_use).copied() else {
            return;
        };
        let id = ClientId::from_raw(c.handle);
        if self.state_of(id) != uapi::STATE_IDLE {
            self.counters.ends_by_close = self.counters.ends_by_close.wrapping_add(1);
            ev.flags |= uapi::TRACE_F_ENDED;
        }
        // Cannot fail for a registered handle.
        if let Ok(out) = self.policy.client_gone(id) {
            changed = out.decision_changed;
        }
        self.drop_task(h, s);
        if let Some(slot) = self.clients.get_mut(s) {
            *slot = Client::FREE;
        }
        // Its TSGs pass to the next client of the process, if any.
        let next = self.first_with_key(c.key).map_or(0, plus1);
        let me = plus1(s);
        for t in self.tsgs.iter_mut() {
            if t.owner == me {
                t.owner = next;
            }
        }
        ev.flags |= self.sync(h, changed, false).trace_flags();
        // The client is gone: its fields were taken before, the decision is the one after.
        self.stamp(h, &mut ev);
        h.record(&ev);
        self.handover(h, s, prev, &ev);
        self.flush_boost(h, Some(ev.time_ns));
    }

    /// `GCAPS_IOC_SEG_BEGIN` (after the checks of [`super::ioctl`]). Returns the client's
    /// `uapi::STATE_*` after the call and the generation.
    pub fn seg_begin(
        &mut self,
        h: &mut impl Host,
        r: ClientRef,
        req: BeginRequest,
        call: Call,
    ) -> Result<(u32, u64), Errno> {
        let id = self.handle(r)?;
        let slot = r.slot as usize;
        let prev = self.running;
        let out = self
            .policy
            .seg_begin(id, req.segment)
            .map_err(map_policy_error)?;
        // The thread that began a real-time segment is the one boosted while it runs.
        let task = if self.boost_prio > 0 && req.class.is_rt() {
            h.task_current()
        } else {
            TaskToken(0)
        };
        if let Some(c) = self.clients.get_mut(slot) {
            c.cpu_class = req.class.uclass;
            c.cpu_prio = req.class.cpu_prio;
            c.task = task;
        } else if task.is_some() {
            h.task_put(task);
        }
        self.counters.begins = self.counters.begins.wrapping_add(1);
        let submit = self.sync(h, out.decision_changed, false);
        let delay = self.delay_of(h, call);
        let state = self.state_of(id);
        let mut ev = self.event(h, uapi::TRACE_BEGIN, Some(slot));
        ev.delay_ns = delay;
        ev.cpu_priority = req.class.cpu_prio;
        ev.requested_priority = req.requested;
        ev.flags = submit.trace_flags();
        if state == uapi::STATE_PENDING {
            ev.flags |= uapi::TRACE_F_PENDING;
        }
        h.record(&ev);
        self.handover(h, slot, prev, &ev);
        self.flush_boost(h, Some(ev.time_ns));
        Ok((state, self.generation()))
    }

    /// Whether `seg_begin(r, req)` certainly keeps the published decision (the policy's
    /// predicate; an unknown client keeps it too: the event fails).
    pub fn begin_keeps_decision(&self, r: ClientRef, req: &BeginRequest) -> bool {
        self.handle(r)
            .map_or(true, |id| self.policy.begin_keeps_decision(id, req.segment))
    }

    /// Whether `seg_end(r)` certainly keeps the published decision.
    pub fn end_keeps_decision(&self, r: ClientRef) -> bool {
        self.handle(r)
            .map_or(true, |id| self.policy.end_keeps_decision(id))
    }

    /// `GCAPS_IOC_SEG_END`. Returns the generation.
    pub fn seg_end(&mut self, h: &mut impl Host, r: ClientRef, call: Call) -> Result<u64, Errno> {
        let id = self.handle(r)?;
        let slot = r.slot as usize;
        let prev = self.running;
        let out = self.policy.seg_end(id).map_err(map_policy_error)?;
        self.drop_task(h, slot);
        self.counters.ends = self.counters.ends.wrapping_add(1);
        let submit = self.sync(h, out.decision_changed, false);
        let mut ev = self.event(h, uapi::TRACE_END, Some(slot));
        ev.delay_ns = self.delay_of(h, call);
        ev.flags = submit.trace_flags();
        h.record(&ev);
        self.handover(h, slot, prev, &ev);
        self.flush_boost(h, Some(ev.time_ns));
        Ok(self.generation())
    }

    /// TSGs the driver reported (the policy's set: O(T/64)). At most 1024.
    fn tsgs_now(&self) -> u32 {
        u32::try_from(self.policy.tsgs().len()).unwrap_or(u32::MAX)
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

    /// `GCAPS_IOC_STATS` (without `rejected`): fills the counters, then resets those within
    /// `reset`'s scope (the caller checked the permission): a counter becomes 0,
    /// `clients_max`/`tsgs_max` the current counts. `begins`, `ends` and `ends_by_close` are
    /// reset by every reset, together, and `open_at_reset` then records the segments open, so
    /// that `open_at_reset + begins == ends + ends_by_close + segments_open` always holds.
    pub fn stats(&mut self, out: &mut uapi::Stats, reset: Option<ResetScope>) {
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
            c.delay = uapi::DelayHistogram::EMPTY;
        }
    }

    fn state_of(&self, id: ClientId) -> u32 {
        match self.policy.client_status(id) {
            Ok(ClientStatus::Running) => uapi::STATE_RUNNING,
            Ok(ClientStatus::Pending) => uapi::STATE_PENDING,
            _ => uapi::STATE_IDLE,
        }
    }

    fn info_of(&self, h: &impl Host, c: &Client) -> uapi::ClientInfo {
        let id = ClientId::from_raw(c.handle);
        uapi::ClientInfo {
            client_id: c.id,
            tgid: h.pid_vnr(c.pid),
            cpu_class: c.cpu_class,
            cpu_priority: c.cpu_prio,
            gpu_priority: self.effective_of(c),
            state: self.state_of(id),
            num_tsgs: u32::try_from(self.policy.owned_tsgs(id)).unwrap_or(u32::MAX),
            comm: c.comm,
        }
    }

    /// `GCAPS_IOC_STATUS` (everything but `size`/`flags`).
    pub fn status(&self, h: &impl Host, r: ClientRef, out: &mut uapi::Status) -> Result<(), Errno> {
        let c = self.client(r)?;
        out.self_ = self.info_of(h, c);
        out.generation = self.generation();
        out.rt_active = u32::from(self.policy.rt_active());
        out.num_clients = self.clients_now();
        out.boost = 0;
        if self.boost_prio > 0 {
            out.boost |= uapi::BOOST_ON;
            let running = slot_of(self.running) == Some(r.slot as usize);
            if running && c.task.is_some() && h.boosted(c.task) {
                out.boost |= uapi::BOOST_SELF;
            }
        }
        out.boost_prio = self.boost_prio;
        out.update_prio = self.update_prio;
        out.reserved = 0;
        Ok(())
    }

    /// `GCAPS_IOC_LIST`: one consistent copy into `buf`; sets the counts. O(C + T): each TSG's
    /// owner is kept in the mirror.
    pub fn list(&self, h: &impl Host, buf: &mut ListBuf, out: &mut uapi::List) {
        let mut n = 0;
        for (c, dst) in self
            .clients
            .iter()
            .filter(|c| c.in_use)
            .zip(buf.clients.iter_mut())
        {
            *dst = self.info_of(h, c);
            n += 1;
        }
        out.clients_count = n;
        let d = self.policy.decision();
        let d_exists = self.policy.tsgs();
        let mut n = 0;
        for ((t, tsgid), dst) in self
            .tsgs
            .iter()
            .zip(0u32..)
            .filter(|(_, id)| d_exists.contains(*id))
            .zip(buf.tsgs.iter_mut())
        {
            let mut flags = 0;
            if d.all || d.eligible.contains(tsgid) {
                flags |= uapi::TSG_ELIGIBLE;
            }
            if self.policy.is_always_eligible(tsgid) {
                flags |= uapi::TSG_ALWAYS;
            }
            flags |= t.always & (uapi::TSG_ALWAYS_DRIVER | uapi::TSG_ALWAYS_ADMIN);
            let owner = slot_of(t.owner).and_then(|s| self.clients.get(s));
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

    /// Removes the clients whose owners exited (marked in `exits`), applies the releases the
    /// driver reported, every pending TSG event (at most one per TSG id) and, after a reported
    /// recovery, forces a resubmit. Ends with a sync.
    pub fn apply_events(&mut self, h: &mut impl Host, exits: &Exits) {
        self.apply_exits(h, exits.take());
        let mut changed = false;
        // Released ids are off the host's snapshot: release them here first, so that an id
        // that is eligible again after the drain (the winner reopened a TSG and got the same
        // id, which the event table reports as one present TSG) is a decision change.
        let released = h.take_released();
        for_each_bit(&released, |t| {
            if let Ok(t) = u32::try_from(t) {
                changed |= self.tsg_gone(h, t);
            }
        });
        while let Some(ev) = h.next_tsg_event() {
            self.counters.events = self.counters.events.wrapping_add(1);
            changed |= self.apply(h, &ev);
        }
        let force = h.take_recovered();
        if force {
            self.counters.recoveries = self.counters.recoveries.wrapping_add(1);
            let ev = self.event(h, uapi::TRACE_RECOVERY, None);
            h.record(&ev);
        }
        self.sync(h, changed, force);
        self.flush_boost(h, None);
    }

    /// Removes TSG `t` if the mirror has it; returns whether the decision changed.
    fn tsg_gone(&mut self, h: &mut impl Host, t: u32) -> bool {
        if !self.policy.tsgs().contains(t) {
            return false;
        }
        let Some(old) = self.tsgs.get(t as usize).copied() else {
            return false;
        };
        let out = self.policy.tsg_destroy(t);
        if let Some(m) = self.tsgs.get_mut(t as usize) {
            *m = Tsg::NONE;
        }
        self.tsg_counted(h, uapi::TRACE_TSG_GONE, t, old.tgid, old.owner);
        out.is_ok_and(|o: Outcome| o.decision_changed)
    }

    /// A TSG appeared or disappeared: records it (with its owner's client if it has one) and
    /// the new maximum count.
    fn tsg_counted(&mut self, h: &mut impl Host, kind: u32, t: u32, tgid: i32, owner: u32) {
        if kind == uapi::TRACE_TSG_NEW {
            self.counters.tsgs_max = self.counters.tsgs_max.max(self.tsgs_now());
        }
        let mut ev = self.event(h, kind, slot_of(owner));
        ev.tgid = tgid as u32;
        ev.cpu_priority = t as i32;
        h.record(&ev);
    }

    /// Applies one TSG event; returns whether the decision changed.
    fn apply(&mut self, h: &mut impl Host, ev: &TsgEvent) -> bool {
        let t = ev.tsgid;
        let Some(old) = self.tsgs.get(t as usize).copied() else {
            return false;
        };
        let exists = self.policy.tsgs().contains(t);
        let same_owner = exists && old.tgid == ev.tgid && old.start == ev.start;
        let mut changed = false;
        if exists && (ev.present == 0 || !same_owner) {
            changed |= self.tsg_gone(h, t);
        }
        if ev.present == 0 {
            return changed;
        }
        let driver = if ev.flags & BE_TSG_ALWAYS != 0 {
            uapi::TSG_ALWAYS_DRIVER
        } else {
            0
        };
        if same_owner {
            if old.timeslice_us != ev.timeslice_us || old.num_channels != ev.num_channels {
                // A content change: the driver rebuilds its own runlist for it.
                let _ = self.policy.tsg_changed(t);
            }
            if let Some(m) = self.tsgs.get_mut(t as usize) {
                m.timeslice_us = ev.timeslice_us;
                m.num_channels = ev.num_channels;
            }
            let reasons = (old.always & !uapi::TSG_ALWAYS_DRIVER) | driver;
            changed |= self.set_reasons(h, t, reasons, None);
            return changed;
        }
        let key = self.key_for(ev.tgid as u32, ev.start);
        if let Ok(out) = self.policy.tsg_create(t, key) {
            changed |= out.decision_changed;
            let owner = self.first_with_key(key).map_or(0, plus1);
            if let Some(m) = self.tsgs.get_mut(t as usize) {
                *m = Tsg {
                    tgid: ev.tgid,
                    start: ev.start,
                    timeslice_us: ev.timeslice_us,
                    num_channels: ev.num_channels,
                    owner,
                    always: 0,
                };
            }
            self.tsg_counted(h, uapi::TRACE_TSG_NEW, t, ev.tgid, owner);
            changed |= self.set_reasons(h, t, driver, None);
        }
        changed
    }

    /// Sets existing TSG `t`'s always-eligible reasons (`uapi::TSG_ALWAYS_DRIVER`/`_ADMIN`)
    /// and the policy's mark to match (set iff a reason is); records a `TSG_ALWAYS` event if
    /// the reasons changed (about client `by`, none for the driver). Returns whether the
    /// decision changed.
    fn set_reasons(&mut self, h: &mut impl Host, t: u32, reasons: u32, by: Option<usize>) -> bool {
        let Some(m) = self.tsgs.get_mut(t as usize) else {
            return false;
        };
        let old = m.always;
        m.always = reasons;
        let on = reasons != 0;
        let mut changed = false;
        if self.policy.is_always_eligible(t) != on {
            changed = self
                .policy
                .set_always_eligible(t, on)
                .is_ok_and(|o| o.decision_changed);
        }
        if old != reasons && by.is_none() {
            let ev = self.always_event(h, t, by);
            h.record(&ev);
        }
        changed
    }

    /// A `TSG_ALWAYS` trace event about TSG `t` (its reasons now), caused by client `by`.
    fn always_event(&self, h: &impl Host, t: u32, by: Option<usize>) -> TraceEvent {
        let mut ev = self.event(h, uapi::TRACE_TSG_ALWAYS, by);
        let m = self.tsgs.get(t as usize).copied().unwrap_or(Tsg::NONE);
        if by.is_none() {
            ev.tgid = m.tgid as u32;
        }
        ev.cpu_priority = t as i32;
        ev.requested_priority = m.always as i32;
        ev
    }

    /// `GCAPS_IOC_SET_ALWAYS` by client `r` (after [`super::ioctl::check_set_always`]: the
    /// caller is an administrator): sets or clears the administrator's reason of TSG `tsgid`
    /// (`ENOENT` if the driver has not reported it, `EINVAL` out of range), publishes and
    /// resubmits if the decision changed. The driver's reason is the driver's: it stays.
    /// Returns the reasons after the call and the generation.
    pub fn set_always(
        &mut self,
        h: &mut impl Host,
        r: ClientRef,
        tsgid: u32,
        on: bool,
    ) -> Result<(u32, u64), Errno> {
        self.client(r)?;
        let old = self.tsgs.get(tsgid as usize).ok_or(Errno::EINVAL)?.always;
        if !self.policy.tsgs().contains(tsgid) {
            return Err(Errno::ENOENT);
        }
        let reasons = if on {
            old | uapi::TSG_ALWAYS_ADMIN
        } else {
            old & !uapi::TSG_ALWAYS_ADMIN
        };
        let slot = r.slot as usize;
        let changed = self.set_reasons(h, tsgid, reasons, Some(slot));
        let submit = self.sync(h, changed, false);
        if old != reasons {
            let mut ev = self.always_event(h, tsgid, Some(slot));
            ev.flags = submit.trace_flags();
            h.record(&ev);
        }
        self.flush_boost(h, None);
        Ok((reasons, self.generation()))
    }

    /// A backend bound (the host attached it).
    pub fn backend_bound(&mut self) {
        self.bound = true;
    }

    /// The backend is gone (it unregistered, or the module detached it on unload): forget its
    /// TSGs (publishing the decision without them).
    pub fn backend_gone(&mut self, h: &mut impl Host) {
        self.bound = false;
        let mut changed = false;
        for (m, t) in self.tsgs.iter_mut().zip(0u32..) {
            if let Ok(out) = self.policy.tsg_destroy(t) {
                changed |= out.decision_changed;
            }
            *m = Tsg::NONE;
        }
        self.sync(h, changed, false);
        self.flush_boost(h, None);
    }

    /// Checks the invariants that tie the core's tables to the policy (for tests and the model
    /// check; O(C * T)). Returns the first violation.
    pub fn check(&self) -> Result<(), &'static str> {
        for (t, tsgid) in self.tsgs.iter().zip(0u32..) {
            let key = self.policy.tsg_owner(tsgid);
            if key.is_none() && (t.tgid, t.start, t.timeslice_us, t.always) != (0, 0, 0, 0) {
                return Err("TSG mirror has an id the policy does not");
            }
            if self.policy.is_always_eligible(tsgid) != (t.always != 0) {
                return Err("the policy's always-eligible mark is not the OR of its reasons");
            }
            let want = key.map_or(0, |k| self.first_with_key(k).map_or(0, plus1));
            if t.owner != want {
                return Err("TSG owner is not the lowest client slot with its key");
            }
        }
        let mut registered = 0;
        for c in self.clients.iter().filter(|c| c.in_use) {
            registered += 1;
            let id = ClientId::from_raw(c.handle);
            if self.policy.client_info(id).map(|i| i.key) != Ok(c.key) {
                return Err("client slot without its policy client");
            }
            if self
                .clients
                .iter()
                .filter(|d| d.in_use && d.id == c.id)
                .count()
                != 1
            {
                return Err("client id used twice");
            }
        }
        if self.policy.clients().count() != registered {
            return Err("policy has clients the table does not");
        }
        let run = slot_of(self.running)
            .and_then(|s| self.clients.get(s))
            .filter(|c| c.in_use)
            .map(|c| c.handle);
        if run != self.policy.running_rt().map(ClientId::to_raw) {
            return Err("running slot is not the policy's running client");
        }
        Ok(())
    }
}

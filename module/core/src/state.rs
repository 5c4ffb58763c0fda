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
//!   event whose [`Outcome`](super::policy::Outcome) reports `decision_changed` ends with
//!   [`Host::publish`] of `policy.decision()` (the policy owns its generation). The host's
//!   snapshot may lack TSG ids the driver released since the last [`Core::apply_events`]
//!   (kept off until then); that call applies those releases first, so that a released id
//!   that is eligible again (e.g. the winner reopened a TSG and got the same id) is a
//!   decision change and republished.
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
//!
//! This file owns [`Core`] itself, the [`Host`] interface, the client and TSG records and
//! the invariant check ([`Core::check`]); each concept's operations are an `impl Core` block
//! of their own file:
//! * `clients`: a file's open and release, the owner's exit ([`Exits`]), a client's removal;
//! * `segments`: SEG_BEGIN and SEG_END;
//! * `tsgs`: the mirror of the driver's TSGs: its events, always-eligible marks, binding;
//! * `observe`: STATUS, LIST and STATS (read-only but for the stats reset);
//! * `publish`: what every event ends with: the decision published, the driver's resubmit;
//! * `holder`: the holder boost of the running segment's thread (the rules are `boost`'s);
//! * `record`: the trace events an event writes (begin, end, preemption, resumption).

use super::boost::TaskToken;
use super::errno::Errno;
use super::policy::{self, ClientId, Error as PolicyError, ProcessKey};
use super::stats::Applied;
use super::uapi::{self, TraceEvent};

mod clients;
mod holder;
mod observe;
mod publish;
mod record;
mod segments;
mod tsgs;

pub use self::clients::{Exits, Opener};
pub use self::observe::ListBuf;
pub use self::tsgs::TsgEvent;

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
    /// Has the bound driver apply the published decision with the loaded [`Mechanism`]:
    /// rebuild, submit and wait for its runlist (reload), or set its channels' enable state,
    /// preempting what lost the GPU while it ran (gate). Says what the driver did.
    fn apply(&mut self) -> Result<Applied, Errno>;
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

/// The eligibility mechanism gcaps.ko was loaded with (module parameter `mechanism`,
/// `GCAPS_MECH_*`): how the driver keeps the TSGs that are not eligible off the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Mechanism {
    /// The runlist lists only the eligible TSGs; each change is a reload.
    #[default]
    Reload,
    /// Every TSG is listed; only the eligible ones' channels are enabled.
    Gate,
}

impl Mechanism {
    /// From its `GCAPS_MECH_*` value.
    pub const fn from_uapi(v: u32) -> Option<Self> {
        match v {
            uapi::MECH_RELOAD => Some(Self::Reload),
            uapi::MECH_GATE => Some(Self::Gate),
            _ => None,
        }
    }

    /// The module parameter's value.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Reload => "reload",
            Self::Gate => "gate",
        }
    }

    /// Its `GCAPS_MECH_*` value.
    pub const fn uapi(self) -> u32 {
        match self {
            Self::Reload => uapi::MECH_RELOAD,
            Self::Gate => uapi::MECH_GATE,
        }
    }

    /// What a failed application may have cost: a reload's submit, or a gate whose preempt
    /// timed out (`ETIMEDOUT`: the driver preempted and recovered) or wrote nothing.
    pub const fn failed(self, e: Errno) -> Applied {
        match self {
            Self::Reload => Applied::Reload,
            Self::Gate if e.0 == Errno::ETIMEDOUT.0 => Applied::Preempt,
            Self::Gate => Applied::Handover,
        }
    }
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
    /// `boost_prio` (0: boosting off), `update_prio` and the mechanism, as loaded.
    boost_prio: i32,
    update_prio: i32,
    mechanism: Mechanism,
    /// The costliest application since [`Core::take_applied`] (`None`: none).
    applied: Option<Applied>,
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
            mechanism: Mechanism::Reload,
            applied: None,
            boosted: TaskToken(0),
            notes: [TraceEvent::ZERO; 2],
            boosted_ev: TraceEvent::ZERO,
        }
    }

    /// The module parameters the core reports and acts on: the update ceiling, the holder
    /// boost's priority (0: off) and the mechanism. Set once, before the first client.
    pub fn configure(&mut self, update_prio: i32, boost_prio: i32, mechanism: Mechanism) {
        self.update_prio = update_prio;
        self.boost_prio = boost_prio;
        self.mechanism = mechanism;
    }

    /// The costliest application since the last call, and forgets it: an update takes it
    /// when it holds the lock and again before it releases it, which tells its kind.
    pub fn take_applied(&mut self) -> Option<Applied> {
        self.applied.take()
    }

    /// The thread the core has boosted (for tests and diagnostics).
    #[allow(dead_code)] // for tests and the contract host: gcaps.ko does not call it
    pub fn boosted_task(&self) -> TaskToken {
        self.boosted
    }

    /// The counters (for the unload message).
    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    /// The policy (read-only: for tests and diagnostics).
    #[allow(dead_code)] // for tests and the contract host: gcaps.ko does not call it
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The slot the core believes runs the real-time segment (its cache of the policy's
    /// running client, for the trace; for tests and diagnostics).
    #[allow(dead_code)] // for tests and the contract host: gcaps.ko does not call it
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

    /// Checks the invariants that tie the core's tables to the policy (for tests and the model
    /// check; O(C * T)). Returns the first violation.
    #[allow(dead_code)] // for tests and the contract host: gcaps.ko does not call it
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

//! The GCAPS decision: which TSGs belong on the runlist now.
//!
//! See the crate documentation for the rules and contracts. The implementation is
//! deliberately *stateless in its decision*: every successful event updates the
//! bookkeeping (clients, segments, TSGs) and then recomputes the eligible set from
//! scratch. There are no incremental "running"/"pending" lists that could drift from
//! the truth, which is exactly how the published prototype lost tasks (defects 1
//! and 2 in `docs/policy.md`).
//!
//! This file owns the types of the interface, [`Policy`]'s bookkeeping with its
//! construction and handle lookup; the operations are an `impl Policy` block per
//! concept: `clients` (register, unregister, gone), `segments` (begin, end and whether
//! they keep the decision), `tsgs` (the driver's TSGs, always-eligible marks, owner
//! keys), `decide` (the winner, the recomputed eligible set, the change report) and
//! `query` (the read-only views).

use super::set::TsgSet;

mod clients;
mod decide;
mod query;
mod segments;
mod tsgs;

/// Lowest valid real-time (CPU or GPU) priority.
pub const MIN_PRIORITY: u8 = 1;
/// Highest valid real-time (CPU or GPU) priority.
pub const MAX_PRIORITY: u8 = 99;

/// Whether `p` is a valid real-time priority, CPU or GPU (`MIN_PRIORITY..=MAX_PRIORITY`):
/// the one check of that range, for every layer that validates a priority before it
/// reaches the policy (the policy's own events, the analysis's taskset rules, the
/// simulator's tasksets).
pub const fn priority_in_range(p: i64) -> bool {
    p >= MIN_PRIORITY as i64 && p <= MAX_PRIORITY as i64
}

/// Default number of 64-bit words of TSG ids (16 words = 1024 TSG ids).
pub const DEFAULT_TSG_WORDS: usize = 16;
/// Default client (process) capacity.
pub const DEFAULT_CLIENTS: usize = 128;

/// Identity of a process, as the kernel module assigns it: a 64-bit value that is
/// never reused while the system runs (unlike a tgid), so a new process that happens to
/// get a dead one's pid never inherits its TSGs. Key 0 is an ordinary value.
pub type ProcessKey = u64;

/// CPU scheduling class of a client, as read from the task by the kernel.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum SchedClass {
    /// Not a real-time task (`SCHED_OTHER`, `SCHED_BATCH`, `SCHED_IDLE`).
    BestEffort,
    /// Real-time task with `rt_priority` in `1..=99` (larger = more important).
    RealTime(u8),
}

/// GPU priority requested for one segment (paper Sec. 5.3).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum GpuPriority {
    /// Use the client's CPU real-time priority.
    Inherit,
    /// Use this priority (`1..=99`) for the segment; only real-time clients may ask.
    Explicit(u8),
}

/// What a segment runs as: best-effort, or real-time at the caller's CPU priority with a GPU
/// priority. A best-effort segment has no GPU priority, so the policy cannot be handed one:
/// asking for an explicit GPU priority without being real-time is refused by whoever builds
/// the `Segment` (in gcaps.ko the core's `ioctl::begin_request`, the one place the
/// permission rules live).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Segment {
    /// A best-effort (non-real-time) caller's segment: never decides what runs.
    BestEffort,
    /// A real-time caller's segment.
    RealTime {
        /// The caller's `rt_priority` (`1..=99`).
        cpu: u8,
        /// The GPU priority asked for.
        gpu: GpuPriority,
    },
}

impl Segment {
    /// The caller's CPU class.
    pub fn class(self) -> SchedClass {
        match self {
            Self::BestEffort => SchedClass::BestEffort,
            Self::RealTime { cpu, .. } => SchedClass::RealTime(cpu),
        }
    }
}

/// Handle of a registered client, returned by [`Policy::register`].
///
/// It names a slot and the slot's generation, so a handle kept after its client was
/// unregistered (or died) is rejected with [`Error::UnknownClient`] even when the slot
/// has been reused. The generation is 32 bits and wraps: a stale handle could only
/// alias after 2^32 reuses of the same slot.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct ClientId {
    slot: u32,
    gen: u32,
}

impl ClientId {
    /// Slot index of the handle (`< CLIENTS` for handles returned by `register`).
    // Not used by gcaps.ko (the tests' and the simulator's API): dead where it includes this.
    #[allow(dead_code)]
    pub const fn slot(self) -> u32 {
        self.slot
    }

    /// Packs the handle into a `u64` (generation in the high half, slot in the low
    /// half), e.g. to store it in a file's private data.
    pub const fn to_raw(self) -> u64 {
        ((self.gen as u64) << 32) | self.slot as u64
    }

    /// Unpacks a handle made by [`ClientId::to_raw`]. Any value is accepted; invalid
    /// handles are rejected by the policy's events with [`Error::UnknownClient`].
    pub const fn from_raw(raw: u64) -> Self {
        Self {
            slot: raw as u32,
            gen: (raw >> 32) as u32,
        }
    }
}

/// Scheduling status of a client.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum ClientStatus {
    /// Registered, no open segment.
    Idle,
    /// Open segment whose TSGs are eligible.
    Running,
    /// Open segment that currently does not win; it waits for the GPU.
    Pending,
}

/// Everything known about one client, see [`Policy::client_info`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct ClientInfo {
    /// Process key the client registered with.
    pub key: ProcessKey,
    /// CPU scheduling class: the one given with the last `seg_begin` (the one given
    /// to `register` before the first segment).
    pub class: SchedClass,
    /// The open segment's requested GPU priority, `None` if no segment is open.
    pub segment: Option<GpuPriority>,
    /// Effective priority of the open segment: `None` if there is no open segment or
    /// the segment is best-effort.
    pub effective_priority: Option<u8>,
    /// Current status.
    pub status: ClientStatus,
}

/// A copy of the decision, small enough to publish to a reader that must not take the
/// policy's lock (the kernel module publishes it under a seqcount for the GPU driver's
/// runlist builder). Two decisions are equal iff a driver filtering its TSGs through them
/// lists the same TSGs.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Decision<const W: usize = DEFAULT_TSG_WORDS> {
    /// `true` while no real-time segment is open: every TSG is eligible, including TSGs
    /// the driver has created but not reported yet (rule 3). `eligible` is then empty.
    pub all: bool,
    /// The eligible TSGs while a real-time segment is open (`all == false`).
    pub eligible: TsgSet<W>,
    /// [`Policy::decision_generation`] when the decision was taken: two decisions with
    /// the same generation from the same policy are equal.
    pub generation: u64,
}

/// Result of a successful event.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Outcome {
    /// `true` if the runlist content must be rebuilt and resubmitted: the eligible set
    /// changed, or a TSG in the eligible set changed its content (see
    /// [`Policy::tsg_changed`]).
    pub changed: bool,
    /// The policy's change generation after the event (see [`Policy::generation`]).
    pub generation: u64,
    /// `true` if the [`Decision`] snapshot changed, i.e. what a driver that filters its
    /// TSGs through it lists: the `all` flag flipped (a real-time segment began to run
    /// or the last one ended, also while no TSG exists), or, while a real-time segment
    /// runs, the eligible set changed. A caller that publishes the decision publishes it
    /// (and has the driver resubmit) exactly after such events. Content changes
    /// ([`Policy::tsg_changed`]) and TSGs appearing or disappearing while every TSG is
    /// eligible are not decision changes: the driver lists them itself.
    pub decision_changed: bool,
}

/// Why an event was rejected. A rejected event leaves the policy state unchanged.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Error {
    /// The client handle does not name a registered client (never registered,
    /// unregistered, gone, or slot out of range).
    UnknownClient,
    /// No free client slot.
    ClientTableFull,
    /// A priority outside `1..=99`.
    PriorityOutOfRange,
    /// `seg_begin` while the client already has an open segment.
    SegmentAlreadyOpen,
    /// `seg_end` without an open segment.
    NoOpenSegment,
    /// `unregister` while the client has an open segment (use `client_gone`).
    #[allow(dead_code)] // gcaps.ko never unregisters (see `Policy::unregister`)
    SegmentOpen,
    /// TSG id not below the capacity.
    TsgOutOfRange,
    /// `tsg_create` for an id that already exists (deliver the release first).
    TsgExists,
    /// The TSG id does not exist.
    UnknownTsg,
}

/// One client slot. All-zero = free slot of generation 0.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct Client {
    registered: bool,
    /// Generation of the slot, bumped when the client leaves.
    gen: u32,
    /// Process key used to match TSGs.
    key: ProcessKey,
    /// 0 = best-effort, 1..=99 = real-time priority.
    cpu_prio: u8,
    /// Whether a segment is open.
    open: bool,
    /// 0 = inherit, 1..=99 = explicit GPU priority (only meaningful while `open`).
    gpu_prio: u8,
    /// Arrival order of the open segment (only meaningful while `open`).
    seq: u64,
}

impl Client {
    const EMPTY: Self = Self {
        registered: false,
        gen: 0,
        key: 0,
        cpu_prio: 0,
        open: false,
        gpu_prio: 0,
        seq: 0,
    };

    /// Effective priority of the open segment, `None` if closed or best-effort.
    fn effective(&self) -> Option<u8> {
        if !self.registered || !self.open || self.cpu_prio == 0 {
            return None;
        }
        if self.gpu_prio != 0 {
            Some(self.gpu_prio)
        } else {
            Some(self.cpu_prio)
        }
    }

    fn class(&self) -> SchedClass {
        if self.cpu_prio == 0 {
            SchedClass::BestEffort
        } else {
            SchedClass::RealTime(self.cpu_prio)
        }
    }

    /// Frees the slot, bumping its generation so old handles become stale.
    fn free(&mut self) {
        let gen = self.gen.wrapping_add(1);
        *self = Self::EMPTY;
        self.gen = gen;
    }
}

fn check_priority(p: u8) -> Result<u8, Error> {
    if priority_in_range(i64::from(p)) {
        Ok(p)
    } else {
        Err(Error::PriorityOutOfRange)
    }
}

fn class_to_raw(class: SchedClass) -> Result<u8, Error> {
    match class {
        SchedClass::BestEffort => Ok(0),
        SchedClass::RealTime(p) => check_priority(p),
    }
}

/// The GCAPS policy state: clients, their segments, the driver's TSGs and the
/// resulting eligible set.
///
/// `W` is the TSG capacity in 64-bit words (TSG ids `0 .. 64 * W`, default 1024 ids),
/// `C` the client capacity (default 128).
///
/// Construction: [`Policy::new`] is a `const fn` (usable for a `static`), and
/// [`Policy::reset`] re-initialises in place. **The all-zero bit pattern is exactly the
/// value of `Policy::new()`**, so zeroed memory (e.g. a `__GFP_ZERO`/`kvzalloc`
/// allocation) is a valid empty policy. The default instance is about 27.4 KiB: in the
/// kernel do not build it on the stack (no `KBox::new(Policy::new())`); allocate it
/// zeroed or put it in a static.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Policy<const W: usize = DEFAULT_TSG_WORDS, const C: usize = DEFAULT_CLIENTS> {
    clients: [Client; C],
    /// Owner key of every TSG id (0 for absent TSGs).
    tsg_key: [[ProcessKey; 64]; W],
    /// Per client slot: the existing TSGs whose owner key is the client's key (empty
    /// for free slots). Maintained by `register`, the client-leave events and the TSG
    /// events; lets the decision run in O(C + T/64).
    owned: [TsgSet<W>; C],
    /// TSGs that exist in the driver.
    exists: TsgSet<W>,
    /// Always-eligible TSGs (subset of `exists`).
    always: TsgSet<W>,
    /// The current decision.
    eligible: TsgSet<W>,
    /// Slot + 1 of the running real-time client, 0 if none.
    winner: u32,
    /// Next segment arrival number.
    next_seq: u64,
    /// Bumped every time an event reports `changed`.
    generation: u64,
    /// Bumped every time an event reports `decision_changed`.
    decision_generation: u64,
}

impl<const W: usize, const C: usize> Default for Policy<W, C> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const C: usize> Policy<W, C> {
    /// Number of TSG ids (`0 .. TSG_CAPACITY`).
    pub const TSG_CAPACITY: usize = 64 * W;
    /// Number of client slots.
    // Not used by gcaps.ko (the tests' and the simulator's API): dead where it includes this.
    #[allow(dead_code)]
    pub const CLIENT_CAPACITY: usize = C;

    /// An empty policy: no clients, no TSGs, empty eligible set, generation 0.
    pub const fn new() -> Self {
        Self {
            clients: [Client::EMPTY; C],
            tsg_key: [[0; 64]; W],
            owned: [TsgSet::EMPTY; C],
            exists: TsgSet::EMPTY,
            always: TsgSet::EMPTY,
            eligible: TsgSet::EMPTY,
            winner: 0,
            next_seq: 0,
            generation: 0,
            decision_generation: 0,
        }
    }

    /// Re-initialises the policy in place to the state of [`Policy::new`], without
    /// building a temporary on the stack.
    // Not used by gcaps.ko (the tests' and the simulator's API): dead where it includes this.
    #[allow(dead_code)]
    pub fn reset(&mut self) {
        for c in self.clients.iter_mut() {
            *c = Client::EMPTY;
        }
        for w in self.tsg_key.iter_mut() {
            for k in w.iter_mut() {
                *k = 0;
            }
        }
        for o in self.owned.iter_mut() {
            o.clear();
        }
        self.exists.clear();
        self.always.clear();
        self.eligible.clear();
        self.winner = 0;
        self.next_seq = 0;
        self.generation = 0;
        self.decision_generation = 0;
    }

    /// Validates a handle and returns its slot index.
    fn lookup(&self, id: ClientId) -> Result<usize, Error> {
        let slot = usize::try_from(id.slot).map_err(|_| Error::UnknownClient)?;
        match self.clients.get(slot) {
            Some(c) if c.registered && c.gen == id.gen => Ok(slot),
            _ => Err(Error::UnknownClient),
        }
    }

    fn status_of(&self, slot: usize) -> ClientStatus {
        let Some(c) = self.clients.get(slot) else {
            return ClientStatus::Idle;
        };
        if !c.registered || !c.open {
            return ClientStatus::Idle;
        }
        let running = match self.winner.checked_sub(1) {
            None => true,
            Some(w) => usize::try_from(w).is_ok_and(|w| w == slot),
        };
        if running {
            ClientStatus::Running
        } else {
            ClientStatus::Pending
        }
    }
}

#[cfg(test)]
mod tests;

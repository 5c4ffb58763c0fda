//! The GCAPS decision: which TSGs belong on the runlist now.
//!
//! See the crate documentation for the rules and contracts. The implementation is
//! deliberately *stateless in its decision*: every successful event updates the
//! bookkeeping (clients, segments, TSGs) and then recomputes the eligible set from
//! scratch. There are no incremental "running"/"pending" lists that could drift from
//! the truth, which is exactly how the published prototype lost tasks (defects 1
//! and 2 in `docs/policy.md`).

use super::set::TsgSet;

/// Lowest valid real-time (CPU or GPU) priority.
pub const MIN_PRIORITY: u8 = 1;
/// Highest valid real-time (CPU or GPU) priority.
pub const MAX_PRIORITY: u8 = 99;

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
    if (MIN_PRIORITY..=MAX_PRIORITY).contains(&p) {
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

    // ------------------------------------------------------------------ queries

    /// The eligible set: the TSGs that belong on the runlist now.
    pub fn eligible(&self) -> &TsgSet<W> {
        &self.eligible
    }

    /// Whether `tsgid` belongs on the runlist now (`false` for unknown ids).
    pub fn is_eligible(&self, tsgid: u32) -> bool {
        self.eligible.contains(tsgid)
    }

    /// The TSGs that exist in the driver (as reported by `tsg_create`/`tsg_destroy`).
    pub fn tsgs(&self) -> &TsgSet<W> {
        &self.exists
    }

    /// Owner key of an existing TSG, `None` if it does not exist.
    pub fn tsg_owner(&self, tsgid: u32) -> Option<ProcessKey> {
        if !self.exists.contains(tsgid) {
            return None;
        }
        self.key_slot(tsgid).copied()
    }

    /// Whether an existing TSG is marked always-eligible.
    pub fn is_always_eligible(&self, tsgid: u32) -> bool {
        self.always.contains(tsgid)
    }

    /// Change generation: incremented (wrapping) by every event that reports
    /// `changed`. A caller that records the generation of the last runlist it got onto
    /// the hardware can detect a missed or failed submit by comparing it with this.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Decision generation: incremented (wrapping) by every event that reports
    /// `decision_changed`, so it names the [`Decision`] snapshot (see
    /// [`Outcome::decision_changed`]). The kernel module publishes it with the snapshot.
    pub fn decision_generation(&self) -> u64 {
        self.decision_generation
    }

    /// The current decision as a copyable snapshot (see [`Decision`]). O(T/64).
    pub fn decision(&self) -> Decision<W> {
        let all = !self.rt_active();
        Decision {
            all,
            eligible: if all { TsgSet::EMPTY } else { self.eligible },
            generation: self.decision_generation,
        }
    }

    /// Whether a real-time segment is open (the GPU is exclusive to one client).
    pub fn rt_active(&self) -> bool {
        self.winner != 0
    }

    /// The real-time client whose segment is running, if any.
    pub fn running_rt(&self) -> Option<ClientId> {
        let slot = self.winner.checked_sub(1)?;
        let c = self.clients.get(usize::try_from(slot).ok()?)?;
        Some(ClientId { slot, gen: c.gen })
    }

    /// The first registered client (in slot order) with this key, if any (O(clients)).
    pub fn client_by_key(&self, key: ProcessKey) -> Option<ClientId> {
        self.clients
            .iter()
            .zip(0u32..)
            .find(|(c, _)| c.registered && c.key == key)
            .map(|(c, slot)| ClientId { slot, gen: c.gen })
    }

    /// Status of a client.
    pub fn client_status(&self, id: ClientId) -> Result<ClientStatus, Error> {
        let slot = self.lookup(id)?;
        Ok(self.status_of(slot))
    }

    /// Everything about a client.
    pub fn client_info(&self, id: ClientId) -> Result<ClientInfo, Error> {
        let slot = self.lookup(id)?;
        let c = self.clients.get(slot).ok_or(Error::UnknownClient)?;
        let segment = if !c.open {
            None
        } else if c.gpu_prio == 0 {
            Some(GpuPriority::Inherit)
        } else {
            Some(GpuPriority::Explicit(c.gpu_prio))
        };
        Ok(ClientInfo {
            key: c.key,
            class: c.class(),
            segment,
            effective_priority: c.effective(),
            status: self.status_of(slot),
        })
    }

    /// Iterates over all registered clients and their status, in slot order.
    pub fn clients(&self) -> impl Iterator<Item = (ClientId, ClientStatus)> + '_ {
        self.clients
            .iter()
            .zip(0u32..)
            .filter(|(c, _)| c.registered)
            .map(move |(c, slot)| {
                let st = self.status_of(usize::try_from(slot).unwrap_or(usize::MAX));
                (ClientId { slot, gen: c.gen }, st)
            })
    }

    /// Iterates over the clients with a pending segment, in slot order.
    pub fn pending(&self) -> impl Iterator<Item = ClientId> + '_ {
        self.clients()
            .filter(|(_, st)| *st == ClientStatus::Pending)
            .map(|(id, _)| id)
    }

    /// A copy with path-dependent counters normalised: segment arrival numbers
    /// replaced by their ranks, the change generation and all handle generations set
    /// to 0. Two policies with equal canonical forms make the same decisions for every
    /// future event sequence (up to handle generations). Meant for model checking and
    /// tests (it returns a full copy by value: not for kernel stacks).
    pub fn canonical(&self) -> Self {
        let mut c = self.clone();
        c.renumber();
        c.generation = 0;
        c.decision_generation = 0;
        for cl in c.clients.iter_mut() {
            cl.gen = 0;
        }
        c
    }

    // ------------------------------------------------------------------ events

    /// A process starts using gcaps. `key` identifies the process (never reused while
    /// the system runs) and links it to the TSGs created with the same key, before or
    /// after this call. `class` is its initial class (each `seg_begin` gives the class
    /// anew). Never changes the eligible set.
    ///
    /// Several clients may share a key (a process with several open files): each of
    /// them owns the process's TSGs.
    ///
    /// Errors: [`Error::PriorityOutOfRange`], [`Error::ClientTableFull`] (checked in
    /// this order).
    pub fn register(
        &mut self,
        key: ProcessKey,
        class: SchedClass,
    ) -> Result<(ClientId, Outcome), Error> {
        let prio = class_to_raw(class)?;
        let (c, slot) = self
            .clients
            .iter_mut()
            .zip(0u32..)
            .find(|(c, _)| !c.registered)
            .ok_or(Error::ClientTableFull)?;
        c.registered = true;
        c.key = key;
        c.cpu_prio = prio;
        c.open = false;
        c.gpu_prio = 0;
        c.seq = 0;
        let id = ClientId { slot, gen: c.gen };
        let mine = self.tsgs_with_key(key);
        if let Some(o) = usize::try_from(slot)
            .ok()
            .and_then(|s| self.owned.get_mut(s))
        {
            *o = mine;
        }
        Ok((id, self.finish(false)))
    }

    /// A client stops using gcaps normally. Its TSGs stay (they are the driver's) and
    /// are treated like those of any non-gcaps process from now on.
    ///
    /// Errors: [`Error::UnknownClient`], [`Error::SegmentOpen`].
    pub fn unregister(&mut self, id: ClientId) -> Result<Outcome, Error> {
        let slot = self.lookup(id)?;
        let c = self.clients.get_mut(slot).ok_or(Error::UnknownClient)?;
        if c.open {
            return Err(Error::SegmentOpen);
        }
        c.free();
        self.clear_owned(slot);
        Ok(self.finish(false))
    }

    /// The client's process died or closed its file: its open segment, if any, ends
    /// and the client is removed. Never fails for a valid handle.
    ///
    /// Errors: [`Error::UnknownClient`].
    pub fn client_gone(&mut self, id: ClientId) -> Result<Outcome, Error> {
        let slot = self.lookup(id)?;
        let c = self.clients.get_mut(slot).ok_or(Error::UnknownClient)?;
        c.free();
        self.clear_owned(slot);
        Ok(self.finish(false))
    }

    /// The client begins a GPU segment (`gcapsGpuSegBegin`). The segment's class is the
    /// caller's CPU scheduling class at the moment of the call (the kernel reads it from
    /// the task); it becomes the client's class, in the same event, so no intermediate
    /// decision is ever taken with a stale class.
    ///
    /// Errors: [`Error::UnknownClient`], [`Error::PriorityOutOfRange`] (CPU or GPU
    /// priority), [`Error::SegmentAlreadyOpen`] (checked in this order).
    pub fn seg_begin(&mut self, id: ClientId, seg: Segment) -> Result<Outcome, Error> {
        let slot = self.lookup(id)?;
        let cpu_raw = class_to_raw(seg.class())?;
        let gpu_raw = match seg {
            Segment::RealTime {
                gpu: GpuPriority::Explicit(p),
                ..
            } => check_priority(p)?,
            _ => 0,
        };
        let c = self.clients.get(slot).ok_or(Error::UnknownClient)?;
        if c.open {
            return Err(Error::SegmentAlreadyOpen);
        }
        // Validation done: from here on the event cannot fail.
        let keeps = self.begin_keeps_decision(id, seg);
        if self.next_seq == u64::MAX {
            self.renumber();
        }
        let seq = self.next_seq;
        self.next_seq = seq.saturating_add(1);
        let c = self.clients.get_mut(slot).ok_or(Error::UnknownClient)?;
        c.cpu_prio = cpu_raw;
        c.open = true;
        c.gpu_prio = gpu_raw;
        c.seq = seq;
        Ok(self.finish_unless(keeps))
    }

    /// Whether [`Policy::seg_begin`] with these arguments certainly leaves [`Policy::decision`]
    /// unchanged (apart from the generation, which does not move either): the segment is
    /// best-effort, or a real-time segment of at least its effective priority runs (the new
    /// segment will be pending), or the event would be rejected. `false` means the running
    /// segment changes (checked exhaustively by the model check). O(1). Lets a caller that
    /// must not sleep apply the event only when no runlist submit can follow (the kernel
    /// module's non-preemptive fast path).
    pub fn begin_keeps_decision(&self, id: ClientId, seg: Segment) -> bool {
        let Ok(slot) = self.lookup(id) else {
            return true;
        };
        if self.clients.get(slot).is_none_or(|c| c.open) {
            return true;
        }
        let effective = match seg {
            Segment::BestEffort => return true,
            Segment::RealTime {
                gpu: GpuPriority::Explicit(p),
                ..
            } => p,
            Segment::RealTime {
                cpu,
                gpu: GpuPriority::Inherit,
            } => cpu,
        };
        // A higher or equal effective priority that arrived earlier keeps the lead.
        self.running_effective().is_some_and(|w| w >= effective)
    }

    /// Whether [`Policy::seg_end`] certainly leaves [`Policy::decision`] unchanged: the
    /// client's segment is not the running real-time one (or the event would be rejected).
    /// `false` means the running segment changes. O(1).
    pub fn end_keeps_decision(&self, id: ClientId) -> bool {
        match self.lookup(id) {
            Ok(slot) => usize::try_from(self.winner).ok() != slot.checked_add(1),
            Err(_) => true,
        }
    }

    /// Number of existing TSGs the client owns (O(T/64)).
    pub fn owned_tsgs(&self, id: ClientId) -> usize {
        self.lookup(id)
            .ok()
            .and_then(|slot| self.owned.get(slot))
            .map_or(0, TsgSet::len)
    }

    /// Effective priority of the running real-time segment, if any.
    fn running_effective(&self) -> Option<u8> {
        let slot = usize::try_from(self.winner.checked_sub(1)?).ok()?;
        self.clients.get(slot)?.effective()
    }

    /// The client ends its GPU segment (`gcapsGpuSegEnd`).
    ///
    /// Errors: [`Error::UnknownClient`], [`Error::NoOpenSegment`].
    pub fn seg_end(&mut self, id: ClientId) -> Result<Outcome, Error> {
        let slot = self.lookup(id)?;
        let keeps = self.end_keeps_decision(id);
        let c = self.clients.get_mut(slot).ok_or(Error::UnknownClient)?;
        if !c.open {
            return Err(Error::NoOpenSegment);
        }
        c.open = false;
        c.gpu_prio = 0;
        c.seq = 0;
        Ok(self.finish_unless(keeps))
    }

    /// The driver created TSG `tsgid` for the process with key `owner_key` (for every
    /// process, gcaps client or not). Reports `changed` iff the new TSG is eligible.
    ///
    /// Errors: [`Error::TsgOutOfRange`], [`Error::TsgExists`].
    pub fn tsg_create(&mut self, tsgid: u32, owner_key: ProcessKey) -> Result<Outcome, Error> {
        self.check_tsg_range(tsgid)?;
        if self.exists.contains(tsgid) {
            return Err(Error::TsgExists);
        }
        let k = self.key_slot_mut(tsgid).ok_or(Error::TsgOutOfRange)?;
        *k = owner_key;
        self.exists.insert(tsgid);
        self.for_owned_by_key(owner_key, |o| {
            o.insert(tsgid);
        });
        Ok(self.finish(false))
    }

    /// The driver released TSG `tsgid`. Its always-eligible mark is dropped (the id may
    /// be reused for another process). Reports `changed` iff it was eligible.
    ///
    /// Errors: [`Error::TsgOutOfRange`], [`Error::UnknownTsg`].
    pub fn tsg_destroy(&mut self, tsgid: u32) -> Result<Outcome, Error> {
        self.check_tsg_exists(tsgid)?;
        let k = self.key_slot_mut(tsgid).ok_or(Error::TsgOutOfRange)?;
        let owner_key = *k;
        *k = 0;
        self.exists.remove(tsgid);
        self.always.remove(tsgid);
        self.for_owned_by_key(owner_key, |o| {
            o.remove(tsgid);
        });
        Ok(self.finish(false))
    }

    /// The content of TSG `tsgid` changed in the driver (channel bound/unbound, made
    /// runnable/unrunnable, timeslice or interleave changed). The eligible set does not
    /// change, but `changed` is reported iff the TSG is eligible, because its runlist
    /// entries must then be rebuilt.
    ///
    /// Errors: [`Error::TsgOutOfRange`], [`Error::UnknownTsg`].
    pub fn tsg_changed(&mut self, tsgid: u32) -> Result<Outcome, Error> {
        self.check_tsg_exists(tsgid)?;
        let content_changed = self.eligible.contains(tsgid);
        Ok(self.finish(content_changed))
    }

    /// The administrator marks (or unmarks) an existing TSG as always eligible (e.g.
    /// the display compositor's), so it stays on the runlist during real-time segments.
    ///
    /// Errors: [`Error::TsgOutOfRange`], [`Error::UnknownTsg`].
    pub fn set_always_eligible(&mut self, tsgid: u32, on: bool) -> Result<Outcome, Error> {
        self.check_tsg_exists(tsgid)?;
        if on {
            self.always.insert(tsgid);
        } else {
            self.always.remove(tsgid);
        }
        Ok(self.finish(false))
    }

    // ------------------------------------------------------------------ internals

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

    fn check_tsg_range(&self, tsgid: u32) -> Result<(), Error> {
        match usize::try_from(tsgid) {
            Ok(t) if t < Self::TSG_CAPACITY => Ok(()),
            _ => Err(Error::TsgOutOfRange),
        }
    }

    fn check_tsg_exists(&self, tsgid: u32) -> Result<(), Error> {
        self.check_tsg_range(tsgid)?;
        if self.exists.contains(tsgid) {
            Ok(())
        } else {
            Err(Error::UnknownTsg)
        }
    }

    fn key_slot(&self, tsgid: u32) -> Option<&ProcessKey> {
        let t = usize::try_from(tsgid).ok()?;
        self.tsg_key.get(t / 64)?.get(t % 64)
    }

    fn key_slot_mut(&mut self, tsgid: u32) -> Option<&mut ProcessKey> {
        let t = usize::try_from(tsgid).ok()?;
        self.tsg_key.get_mut(t / 64)?.get_mut(t % 64)
    }

    /// Applies `f` to the owned-TSG set of every registered client with this key.
    /// O(C + T/64 per match).
    fn for_owned_by_key(&mut self, key: ProcessKey, mut f: impl FnMut(&mut TsgSet<W>)) {
        for (c, o) in self.clients.iter().zip(self.owned.iter_mut()) {
            if c.registered && c.key == key {
                f(o);
            }
        }
    }

    fn clear_owned(&mut self, slot: usize) {
        if let Some(o) = self.owned.get_mut(slot) {
            o.clear();
        }
    }

    /// The existing TSGs owned by `key`, by a scan of the owner table. O(T); used only
    /// when a client registers.
    fn tsgs_with_key(&self, key: ProcessKey) -> TsgSet<W> {
        let mut words = [0u64; W];
        for ((out, keys), ex) in words
            .iter_mut()
            .zip(self.tsg_key.iter())
            .zip(self.exists.words().iter())
        {
            let mut mine = 0u64;
            for (b, k) in keys.iter().enumerate() {
                mine |= u64::from(*k == key) << (b % 64);
            }
            *out = mine & *ex;
        }
        TsgSet::from_words(words)
    }

    /// The open real-time segment with the highest effective priority; among equal
    /// priorities the one that began first (smallest arrival number). O(C), branch-free
    /// per client: candidates are ranked by `priority << 64 | !seq`.
    fn find_winner(&self) -> Option<usize> {
        let mut best: u128 = 0;
        let mut best_slot = None;
        for (slot, c) in self.clients.iter().enumerate() {
            let rank = match c.effective() {
                // p >= 1, so any candidate ranks above 0.
                Some(p) => (u128::from(p) << 64) | u128::from(!c.seq),
                None => 0,
            };
            if rank > best {
                best = rank;
                best_slot = Some(slot);
            }
        }
        best_slot
    }

    /// Recomputes the decision from the bookkeeping; returns whether the eligible set
    /// changed. O(C + T/64).
    fn recompute(&mut self) -> bool {
        let winner = self.find_winner();
        let mut new = self.exists;
        let mut winner_raw = 0;
        if let Some(slot) = winner {
            // `find_winner` returns an index of `clients` (and `owned` has the same
            // length), and client capacities beyond u32 are not supported, so the
            // `else` case cannot happen; it would fail open (no real-time segment:
            // everything eligible).
            if let (Some(mine), Ok(s)) = (self.owned.get(slot), u32::try_from(slot)) {
                new = *mine;
                new.union_with(&self.always);
                new.intersect_with(&self.exists);
                winner_raw = s.saturating_add(1);
            }
        }
        self.winner = winner_raw;
        let changed = new != self.eligible;
        self.eligible = new;
        changed
    }

    /// Common tail of every successful event.
    /// [`Policy::finish`], or, if the event `keeps` the decision (a `*_keeps_decision`
    /// predicate held: the winner and hence the eligible set stay), the outcome without the
    /// O(C) winner search.
    fn finish_unless(&mut self, keeps: bool) -> Outcome {
        if keeps {
            return Outcome {
                changed: false,
                generation: self.generation,
                decision_changed: false,
            };
        }
        self.finish(false)
    }

    fn finish(&mut self, content_changed: bool) -> Outcome {
        let was_all = self.winner == 0;
        let set_changed = self.recompute();
        let all = self.winner == 0;
        let changed = set_changed || content_changed;
        if changed {
            self.generation = self.generation.wrapping_add(1);
        }
        // While every TSG is eligible the snapshot's set is empty, whatever exists.
        let decision_changed = was_all != all || (!all && set_changed);
        if decision_changed {
            self.decision_generation = self.decision_generation.wrapping_add(1);
        }
        Outcome {
            changed,
            generation: self.generation,
            decision_changed,
        }
    }

    /// Replaces the arrival numbers of open segments by their ranks (0, 1, ...),
    /// preserving their order; closed segments get 0. O(clients^2), runs only when the
    /// 64-bit counter is exhausted (never in practice) and in [`Policy::canonical`].
    /// Uses `C` bytes of stack.
    fn renumber(&mut self) {
        let mut done = [false; C];
        let mut rank: u64 = 0;
        loop {
            let mut best: Option<(usize, u64)> = None;
            for (i, (c, d)) in self.clients.iter().zip(done.iter()).enumerate() {
                if !c.registered || !c.open || *d {
                    continue;
                }
                let smaller = match best {
                    None => true,
                    Some((_, s)) => c.seq < s,
                };
                if smaller {
                    best = Some((i, c.seq));
                }
            }
            let Some((i, _)) = best else { break };
            if let (Some(c), Some(d)) = (self.clients.get_mut(i), done.get_mut(i)) {
                c.seq = rank;
                *d = true;
            } else {
                break;
            }
            rank = rank.saturating_add(1);
        }
        for c in self.clients.iter_mut() {
            if !c.open {
                c.seq = 0;
            }
        }
        self.next_seq = rank;
    }

    /// Test hook: pretend `n` segments have begun so far.
    #[cfg(test)]
    fn set_next_seq(&mut self, n: u64) {
        self.next_seq = n;
    }
}

#[cfg(test)]
mod tests;

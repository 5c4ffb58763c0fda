//! `GCAPS_IOC_TRACE_READ`: the module's trace ring, decoded into typed events.
use crate::uapi;
use std::fmt;

/// What a trace event records (`GCAPS_TRACE_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TraceKind {
    /// A client registered (open of /dev/gcaps).
    Open,
    /// A client left (close, exit, kill); [`TraceFlags::ended`] if its segment was open.
    Close,
    /// SEG_BEGIN; [`TraceFlags::pending`] if the segment waits.
    Begin,
    /// SEG_END.
    End,
    /// The client's running segment became pending (the BEGIN just before is the cause).
    Preempt,
    /// The client's pending segment became running.
    Resume,
    /// The driver reported a recovery.
    Recovery,
    /// The driver reported a new TSG ([`TraceEvent::tsgid`]).
    TsgNew,
    /// A TSG was released ([`TraceEvent::tsgid`]).
    TsgGone,
    /// A TSG's always-eligible reasons changed ([`TraceEvent::tsgid`],
    /// [`TraceEvent::always_reasons`]): the driver's flag (no client) or an administrator's
    /// mark (the administrator's client).
    TsgAlways,
    /// Holder boost: the client's segment became the running one and its owner thread
    /// ([`TraceEvent::tid`]) runs at SCHED_FIFO [`TraceEvent::cpu_priority`] (`boost_prio`).
    Boost,
    /// The boost of thread [`TraceEvent::tid`] ended; [`TraceEvent::cpu_priority`] is the rt
    /// priority it returns to (-1: its parameters were left as they were).
    Unboost,
    /// A kind this library does not know (a newer module).
    Unknown(u32),
}

impl TraceKind {
    pub(crate) fn from_uapi(k: u32) -> Self {
        match k {
            uapi::GCAPS_TRACE_OPEN => Self::Open,
            uapi::GCAPS_TRACE_CLOSE => Self::Close,
            uapi::GCAPS_TRACE_BEGIN => Self::Begin,
            uapi::GCAPS_TRACE_END => Self::End,
            uapi::GCAPS_TRACE_PREEMPT => Self::Preempt,
            uapi::GCAPS_TRACE_RESUME => Self::Resume,
            uapi::GCAPS_TRACE_RECOVERY => Self::Recovery,
            uapi::GCAPS_TRACE_TSG_NEW => Self::TsgNew,
            uapi::GCAPS_TRACE_TSG_GONE => Self::TsgGone,
            uapi::GCAPS_TRACE_TSG_ALWAYS => Self::TsgAlways,
            uapi::GCAPS_TRACE_BOOST => Self::Boost,
            uapi::GCAPS_TRACE_UNBOOST => Self::Unboost,
            k => Self::Unknown(k),
        }
    }

    /// The lower-case name tools print (`begin`, `tsg_new`, ..., `kind12`).
    pub fn name(self) -> String {
        match self {
            Self::Open => "open".into(),
            Self::Close => "close".into(),
            Self::Begin => "begin".into(),
            Self::End => "end".into(),
            Self::Preempt => "preempt".into(),
            Self::Resume => "resume".into(),
            Self::Recovery => "recovery".into(),
            Self::TsgNew => "tsg_new".into(),
            Self::TsgGone => "tsg_gone".into(),
            Self::TsgAlways => "tsg_always".into(),
            Self::Boost => "boost".into(),
            Self::Unboost => "unboost".into(),
            Self::Unknown(k) => format!("kind{k}"),
        }
    }
}

impl fmt::Display for TraceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// The `GCAPS_TRACE_F_*` flags of an event.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TraceFlags(pub u32);

impl TraceFlags {
    /// BEGIN: the new segment is pending.
    pub fn pending(self) -> bool {
        self.0 & uapi::GCAPS_TRACE_F_PENDING != 0
    }
    /// CLOSE: an open segment ended with the client.
    pub fn ended(self) -> bool {
        self.0 & uapi::GCAPS_TRACE_F_ENDED != 0
    }
    /// The event's update resubmitted the runlist.
    pub fn submit(self) -> bool {
        self.0 & uapi::GCAPS_TRACE_F_SUBMIT != 0
    }
    /// ... and the backend refused or timed out.
    pub fn submit_failed(self) -> bool {
        self.0 & uapi::GCAPS_TRACE_F_SUBMIT_FAILED != 0
    }

    /// The names of the set flags (`pending`, `ended`, `submit`, `submit_failed`, `flagN` for
    /// unknown bits), in bit order.
    pub fn names(self) -> Vec<String> {
        (0..32)
            .filter(|b| self.0 & (1 << b) != 0)
            .map(|b| match 1u32 << b {
                uapi::GCAPS_TRACE_F_PENDING => "pending".into(),
                uapi::GCAPS_TRACE_F_ENDED => "ended".into(),
                uapi::GCAPS_TRACE_F_SUBMIT => "submit".into(),
                uapi::GCAPS_TRACE_F_SUBMIT_FAILED => "submit_failed".into(),
                _ => format!("flag{b}"),
            })
            .collect()
    }
}

/// One event of the trace ring (`struct gcaps_trace_event`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceEvent {
    /// 1, 2, 3, ... never reused while the module is loaded.
    pub seq: u64,
    /// CLOCK_MONOTONIC when the event was recorded.
    pub time_ns: u64,
    pub kind: TraceKind,
    pub flags: TraceFlags,
    /// The client the event is about, 0 for driver events.
    pub client_id: u64,
    /// The client's (or the TSG owner's) process id, in the initial pid namespace.
    pub pid: u32,
    /// Decision after the event: the client whose real-time segment runs, 0 = none.
    pub running_client_id: u64,
    /// Process id of `running_client_id`, 0 if none.
    pub running_pid: u32,
    /// Eligible-set generation after the event.
    pub generation: u64,
    /// BEGIN/END of a real-time caller: its update delay; 0 otherwise.
    pub delay_ns: u64,
    /// BEGIN: the caller's rt_priority (0 best-effort); the raw field for other kinds.
    pub cpu_priority: i32,
    /// BEGIN: the GPU priority asked (0 = inherit).
    pub requested_priority: i32,
    /// BEGIN/PREEMPT/RESUME: the segment's GPU priority (0: best-effort).
    pub effective_priority: i32,
    /// The client's (or the TSG owner's client's) command name, "" if none.
    pub comm: String,
    /// BOOST/UNBOOST: the owner thread's id (initial pid namespace); 0 otherwise.
    pub tid: u32,
    /// TSG_NEW/TSG_GONE/TSG_ALWAYS: the TSG's id (`tsgid`, the event's VER1 field); 0
    /// otherwise. See [`TraceEvent::tsgid`].
    pub tsg: u32,
}

impl TraceEvent {
    pub(crate) fn from_uapi(e: &uapi::gcaps_trace_event) -> Self {
        Self {
            seq: e.seq,
            time_ns: e.time_ns,
            kind: TraceKind::from_uapi(e.kind),
            flags: TraceFlags(e.flags),
            client_id: e.client_id,
            pid: e.tgid,
            running_client_id: e.running_client_id,
            running_pid: e.running_tgid,
            generation: e.generation,
            delay_ns: e.delay_ns,
            cpu_priority: e.cpu_priority,
            requested_priority: e.requested_priority,
            effective_priority: e.effective_priority,
            comm: crate::info::c_string(&e.comm),
            tid: e.tid,
            tsg: e.tsgid,
        }
    }

    /// TSG_NEW/TSG_GONE/TSG_ALWAYS: the TSG id.
    pub fn tsgid(&self) -> Option<u32> {
        matches!(
            self.kind,
            TraceKind::TsgNew | TraceKind::TsgGone | TraceKind::TsgAlways
        )
        .then_some(self.tsg)
    }

    /// TSG_ALWAYS: the TSG's always-eligible reasons after the event (carried in the
    /// `requested_priority` field).
    pub fn always_reasons(&self) -> Option<crate::AlwaysReasons> {
        (self.kind == TraceKind::TsgAlways)
            .then(|| crate::AlwaysReasons::from_uapi(self.requested_priority as u32))
    }
}

/// One read of the ring.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceBatch {
    /// Oldest first.
    pub events: Vec<TraceEvent>,
    /// Pass as `from_seq` to continue.
    pub next_seq: u64,
    /// Events from `from_seq` on that were overwritten before this read (lost to this reader).
    pub dropped: u64,
    /// Events overwritten since the module was loaded (for every reader).
    pub overwritten: u64,
    /// Capacity of the ring; 0: tracing is disabled (module parameter).
    pub ring_size: u32,
}

/// Reusable buffer of raw events for [`crate::Gcaps::read_trace`]; its capacity is the most
/// events one read returns.
#[derive(Clone, Debug)]
pub struct TraceBuf {
    pub(crate) raw: Vec<uapi::gcaps_trace_event>,
}

impl TraceBuf {
    /// Room for `events` events per read (at least 1).
    pub fn with_capacity(events: usize) -> Self {
        Self {
            raw: vec![uapi::gcaps_trace_event::default(); events.max(1)],
        }
    }

    /// Events one read returns at most.
    pub fn capacity(&self) -> usize {
        self.raw.len()
    }
}

impl TraceBatch {
    pub(crate) fn from_uapi(r: &uapi::gcaps_trace_read, raw: &[uapi::gcaps_trace_event]) -> Self {
        let n = (r.events_count as usize).min(raw.len());
        Self {
            events: raw[..n].iter().map(TraceEvent::from_uapi).collect(),
            next_seq: r.next_seq,
            dropped: r.dropped,
            overwritten: r.overwritten,
            ring_size: r.ring_size,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_events_kinds_and_flags() {
        let raw = [
            uapi::gcaps_trace_event {
                seq: 5,
                time_ns: 1000,
                client_id: 3,
                running_client_id: 2,
                generation: 9,
                delay_ns: 40_000,
                tgid: 77,
                kind: uapi::GCAPS_TRACE_BEGIN,
                cpu_priority: 10,
                requested_priority: 0,
                effective_priority: 10,
                flags: uapi::GCAPS_TRACE_F_PENDING | uapi::GCAPS_TRACE_F_SUBMIT,
                running_tgid: 66,
                tid: 0,
                comm: b"app\0\0\0\0\0\0\0\0\0\0\0\0\0".map(|c| c as libc::c_char),
                ..Default::default()
            },
            uapi::gcaps_trace_event {
                seq: 6,
                kind: uapi::GCAPS_TRACE_TSG_NEW,
                tsgid: 12,
                flags: 1 << 7,
                ..Default::default()
            },
            uapi::gcaps_trace_event {
                seq: 7,
                kind: 42,
                ..Default::default()
            },
        ];
        let r = uapi::gcaps_trace_read {
            events_count: 2, // the third element is not part of the batch
            next_seq: 7,
            dropped: 4,
            overwritten: 10,
            ring_size: 64,
            ..Default::default()
        };
        let b = TraceBatch::from_uapi(&r, &raw);
        assert_eq!(b.events.len(), 2);
        assert_eq!(
            (b.next_seq, b.dropped, b.overwritten, b.ring_size),
            (7, 4, 10, 64)
        );
        let e = &b.events[0];
        assert_eq!(e.kind, TraceKind::Begin);
        assert!(e.flags.pending() && e.flags.submit() && !e.flags.ended());
        assert_eq!(e.flags.names(), ["pending", "submit"]);
        assert_eq!((e.pid, e.running_pid, e.running_client_id), (77, 66, 2));
        assert_eq!((e.delay_ns, e.generation, e.cpu_priority), (40_000, 9, 10));
        assert_eq!(e.tsgid(), None);
        assert_eq!((e.comm.as_str(), b.events[1].comm.as_str()), ("app", ""));
        let t = &b.events[1];
        assert_eq!((t.kind, t.tsgid()), (TraceKind::TsgNew, Some(12)));
        assert_eq!(t.flags.names(), ["flag7"]);
        assert_eq!(TraceEvent::from_uapi(&raw[2]).kind.name(), "kind42");
        // a count above the buffer (a misbehaving kernel) is cut at the buffer
        let r = uapi::gcaps_trace_read {
            events_count: 9,
            ..Default::default()
        };
        assert_eq!(TraceBatch::from_uapi(&r, &raw).events.len(), 3);
    }

    #[test]
    fn kind_names_round_trip_the_header() {
        for k in 1..=10 {
            assert!(
                !matches!(TraceKind::from_uapi(k), TraceKind::Unknown(_)),
                "{k}"
            );
        }
        assert_eq!(
            TraceKind::from_uapi(uapi::GCAPS_TRACE_TSG_GONE).to_string(),
            "tsg_gone"
        );
        assert_eq!(TraceKind::from_uapi(0), TraceKind::Unknown(0));
    }
}

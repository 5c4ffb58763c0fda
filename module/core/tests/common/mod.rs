// SPDX-License-Identifier: GPL-2.0

//! A host for tests: records what the core asks for, with a driver event table, pids that
//! exit on request and a resubmit that can be told to fail.

#![allow(dead_code)]

use gcaps_core::ioctl::{Sched, SCHED_FIFO};
use gcaps_core::stats::Applied;
use gcaps_core::trace::Ring;
use gcaps_core::uapi::TraceEvent;
use gcaps_core::TaskToken;
use gcaps_core::{Decision, Errno, Host, Opener, PidToken, TsgEvent, Warning, TSG_WORDS};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone)]
pub struct TestHost {
    pub now: u64,
    pub ring: Ring<Vec<TraceEvent>>,
    pub published: Vec<Decision>,
    /// The host's snapshot as the driver reads it (`all`, generation, words): the last
    /// publish, with the ids released since the last take cleared at once (the C glue).
    pub snap: (bool, u64, [u64; TSG_WORDS]),
    pub resubmits: u32,
    pub fail_resubmit: Option<Errno>,
    /// What the driver says it did on each successful application.
    pub applies_as: Applied,
    pub exited: BTreeSet<usize>,
    pub released: [u64; TSG_WORDS],
    /// The driver's event table: the latest state per TSG id.
    pub table: BTreeMap<u32, TsgEvent>,
    pub recovered: bool,
    pub warnings: Vec<Warning>,
    /// The calling thread (a token; 0: this host has no threads, as before the holder boost).
    pub thread: usize,
    /// Counted references per thread token.
    pub refs: BTreeMap<usize, i64>,
    /// Boost calls in order: (true = boost, thread).
    pub boosts: Vec<(bool, usize)>,
    /// `resubmits` at each boost call (U8: unboost before, boost after the submit).
    pub boost_submits: Vec<u32>,
}

impl TestHost {
    pub fn new(trace_cap: usize) -> Self {
        Self {
            now: 1000,
            ring: Ring::new(vec![TraceEvent::default(); trace_cap]),
            published: Vec::new(),
            snap: (true, 0, [0; TSG_WORDS]),
            resubmits: 0,
            fail_resubmit: None,
            applies_as: Applied::Reload,
            exited: BTreeSet::new(),
            released: [0; TSG_WORDS],
            table: BTreeMap::new(),
            recovered: false,
            warnings: Vec::new(),
            thread: 0,
            refs: BTreeMap::new(),
            boosts: Vec::new(),
            boost_submits: Vec::new(),
        }
    }

    /// All events recorded so far (the ring must be large enough).
    pub fn events(&self) -> Vec<TraceEvent> {
        let mut pos = gcaps_core::trace::ReadPosition::new(0);
        let mut out = Vec::new();
        while let Some(e) = self.ring.step(&mut pos, usize::MAX) {
            out.push(e);
            pos.handed_out();
        }
        out
    }

    pub fn kinds(&self) -> Vec<u32> {
        self.events().iter().map(|e| e.kind).collect()
    }

    /// The driver creates (or changes) TSG `t` of process `(tgid, start)`.
    pub fn tsg(&mut self, t: u32, tgid: i32, start: u64, channels: u32) {
        self.table.insert(
            t,
            TsgEvent {
                start,
                tsgid: t,
                tgid,
                timeslice_us: 1000,
                num_channels: channels,
                present: 1,
                flags: 0,
            },
        );
    }

    /// The driver creates (or changes) TSG `t` of process `(tgid, start)` with `flags`
    /// (`GCAPS_BE_TSG_*`: 1 = driver-internal).
    pub fn tsg_flags(&mut self, t: u32, tgid: i32, start: u64, flags: u32) {
        self.tsg(t, tgid, start, 1);
        if let Some(e) = self.table.get_mut(&t) {
            e.flags = flags;
        }
    }

    /// The driver releases TSG `t` (the event, then the released mark, as the C glue does).
    pub fn tsg_release(&mut self, t: u32) {
        let mut ev = self.table.get(&t).copied().unwrap_or_default();
        ev.tsgid = t;
        ev.present = 0;
        self.table.insert(t, ev);
        self.released[t as usize / 64] |= 1 << (t % 64);
        self.snap.2[t as usize / 64] &= !(1 << (t % 64));
    }

    /// What the published snapshot says now (with released ids kept off, as the C glue does).
    pub fn snapshot(&self) -> Option<Decision> {
        self.published.last().copied()
    }
}

impl Host for TestHost {
    fn now_ns(&self) -> u64 {
        self.now
    }
    fn record(&mut self, ev: &TraceEvent) {
        self.ring.record(*ev);
    }
    fn publish(&mut self, d: &Decision) {
        self.published.push(*d);
        let mut words = *d.eligible.words();
        for (w, r) in words.iter_mut().zip(self.released) {
            *w &= !r;
        }
        self.snap = (d.all, d.generation, words);
    }
    fn apply(&mut self) -> Result<Applied, Errno> {
        self.resubmits += 1;
        match self.fail_resubmit {
            Some(e) => Err(e),
            None => Ok(self.applies_as),
        }
    }
    fn pid_vnr(&self, pid: PidToken) -> u32 {
        pid.0 as u32
    }
    fn pid_group_exited(&self, pid: PidToken) -> bool {
        pid.0 == 0 || self.exited.contains(&pid.0)
    }
    fn take_released(&mut self) -> [u64; TSG_WORDS] {
        std::mem::take(&mut self.released)
    }
    fn next_tsg_event(&mut self) -> Option<TsgEvent> {
        self.table.pop_first().map(|(_, e)| e)
    }
    fn take_recovered(&mut self) -> bool {
        std::mem::take(&mut self.recovered)
    }
    fn warn(&mut self, w: Warning) {
        self.warnings.push(w);
    }
    fn task_current(&mut self) -> TaskToken {
        if self.thread != 0 {
            *self.refs.entry(self.thread).or_default() += 1;
        }
        TaskToken(self.thread)
    }
    fn task_get(&mut self, t: TaskToken) {
        let r = self.refs.entry(t.0).or_default();
        assert!(*r > 0, "task_get without a reference");
        *r += 1;
    }
    fn task_put(&mut self, t: TaskToken) {
        let r = self.refs.entry(t.0).or_default();
        assert!(*r > 0, "task_put without a reference");
        *r -= 1;
    }
    fn task_tid(&self, t: TaskToken) -> u32 {
        t.0 as u32
    }
    fn boost(&mut self, t: TaskToken) {
        assert!(
            self.refs.get(&t.0).copied().unwrap_or(0) > 0,
            "boost without a reference"
        );
        self.boosts.push((true, t.0));
        self.boost_submits.push(self.resubmits);
    }
    fn unboost(&mut self, t: TaskToken) -> Option<i32> {
        assert!(
            self.refs.get(&t.0).copied().unwrap_or(0) > 0,
            "unboost without a reference"
        );
        self.boosts.push((false, t.0));
        self.boost_submits.push(self.resubmits);
        Some(1)
    }
}

/// An opener: process `tgid` (start time `tgid * 10`), uid `uid`, FIFO `prio` (0: SCHED_OTHER).
pub fn opener(tgid: u32, uid: u32, prio: i32) -> Opener {
    Opener {
        tgid,
        start: u64::from(tgid) * 10,
        uid,
        sched: fifo(prio),
        comm: *b"test\0\0\0\0\0\0\0\0\0\0\0\0",
        pid: PidToken(tgid as usize),
    }
}

pub fn fifo(prio: i32) -> Sched {
    if prio == 0 {
        Sched::default()
    } else {
        Sched {
            policy: SCHED_FIFO,
            rt_priority: prio,
        }
    }
}

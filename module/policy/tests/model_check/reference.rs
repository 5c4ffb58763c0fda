//! The reference model: plain data recomputed from scratch (an arrival-ordered queue of
//! open segments and a map of TSGs), what the implementation is compared with.

use super::*;

/// Index of a TSG id in `TSGS` (the reference model's TSG table is indexed by it).
pub(crate) fn slot_of(t: u32) -> Option<usize> {
    TSGS.iter().position(|&x| x == t)
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) struct RefClient {
    pub(crate) registered: bool,
    /// `None` = best-effort.
    pub(crate) cpu: Option<u8>,
    /// `Some(gpu)` while a segment is open; `gpu` is the explicit GPU priority.
    pub(crate) seg: Option<Option<u8>>,
}

/// The reference model: plain data, recomputed from scratch, no sequence numbers
/// (first come, first served is the position in `queue`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) struct Ref {
    pub(crate) clients: [RefClient; ROLES],
    /// Roles with an open segment, in the order the segments began (`queue[..qlen]`).
    pub(crate) queue: [usize; ROLES],
    pub(crate) qlen: usize,
    /// Per entry of `TSGS`: `Some((owner key, always eligible))` if it exists.
    pub(crate) tsgs: [Option<(u64, bool)>; TSGS.len()],
}

impl Ref {
    pub(crate) fn queue(&self) -> &[usize] {
        &self.queue[..self.qlen]
    }

    pub(crate) fn dequeue(&mut self, r: usize) {
        if let Some(i) = self.queue().iter().position(|&q| q == r) {
            self.queue.copy_within(i + 1..self.qlen, i);
            self.qlen -= 1;
            self.queue[self.qlen] = 0; // keep unused entries canonical
        }
    }

    pub(crate) fn effective(&self, r: usize) -> Option<u8> {
        let c = &self.clients[r];
        match (c.registered, c.cpu, c.seg) {
            (true, Some(cpu), Some(gpu)) => Some(gpu.unwrap_or(cpu)),
            _ => None,
        }
    }

    /// The first segment in arrival order among those with the highest priority.
    pub(crate) fn winner(&self) -> Option<usize> {
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
    pub(crate) fn exists(&self) -> u32 {
        (0..TSGS.len())
            .filter(|&i| self.tsgs[i].is_some())
            .map(|i| 1 << i)
            .sum()
    }

    /// Bit i = TSG `TSGS[i]` is owned by role `r`.
    pub(crate) fn owned_by(&self, r: usize) -> u32 {
        (0..TSGS.len())
            .filter(|&i| matches!(self.tsgs[i], Some((k, _)) if k == KEYS[r]))
            .map(|i| 1 << i)
            .sum()
    }

    /// Bit i = TSG `TSGS[i]` is eligible.
    pub(crate) fn eligible(&self) -> u32 {
        match self.winner() {
            None => self.exists(),
            Some(w) => (0..TSGS.len())
                .filter(|&i| matches!(self.tsgs[i], Some((k, always)) if k == KEYS[w] || always))
                .map(|i| 1 << i)
                .sum(),
        }
    }

    pub(crate) fn status(&self, r: usize) -> Option<ClientStatus> {
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

    pub(crate) fn prio_ok(p: u8) -> bool {
        (1..=99).contains(&p)
    }

    pub(crate) fn cpu_of(class: SchedClass) -> Option<u8> {
        match class {
            SchedClass::RealTime(p) => Some(p),
            SchedClass::BestEffort => None,
        }
    }

    /// Looks up an existing TSG for an event, with the implementation's error order.
    pub(crate) fn tsg(&mut self, t: u32) -> Result<&mut Option<(u64, bool)>, Error> {
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
    pub(crate) fn apply(&mut self, ev: Ev) -> Result<bool, Error> {
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

// SPDX-License-Identifier: GPL-2.0

//! Queries: the eligible set and the decision snapshot, TSG ownership, the running and
//! pending clients, a client's status and information, and the canonical form.

use super::super::set::TsgSet;
use super::{ClientId, ClientInfo, ClientStatus, Decision, Error, GpuPriority, Policy, ProcessKey};

impl<const W: usize, const C: usize> Policy<W, C> {
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
}

/// Queries the simulator, the tests and the model checks make and gcaps.ko does not: where the
/// module includes this file they are dead code, allowed here and nowhere wider.
#[allow(dead_code)]
impl<const W: usize, const C: usize> Policy<W, C> {
    /// The eligible set: the TSGs that belong on the runlist now.
    pub fn eligible(&self) -> &TsgSet<W> {
        &self.eligible
    }

    /// Whether `tsgid` belongs on the runlist now (`false` for unknown ids).
    pub fn is_eligible(&self, tsgid: u32) -> bool {
        self.eligible.contains(tsgid)
    }

    /// Change generation: incremented (wrapping) by every event that reports
    /// `changed`. A caller that records the generation of the last runlist it got onto
    /// the hardware can detect a missed or failed submit by comparing it with this.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The first registered client (in slot order) with this key, if any (O(clients)).
    pub fn client_by_key(&self, key: ProcessKey) -> Option<ClientId> {
        self.clients
            .iter()
            .zip(0u32..)
            .find(|(c, _)| c.registered && c.key == key)
            .map(|(c, slot)| ClientId { slot, gen: c.gen })
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
}

// SPDX-License-Identifier: GPL-2.0

//! Client events: a process registers (and collects the TSGs already created with its key),
//! unregisters, or is gone (its open segment ends).

use super::{class_to_raw, ClientId, Error, Outcome, Policy, ProcessKey, SchedClass};

impl<const W: usize, const C: usize> Policy<W, C> {
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
    ///
    /// gcaps.ko does not call it: a client of the module goes only by `client_gone` (close or
    /// exit), so this is dead where the module includes this file.
    #[allow(dead_code)]
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
}

// SPDX-License-Identifier: GPL-2.0

//! TSG events: the driver creates, destroys or changes a TSG, always-eligible marks, and the
//! bookkeeping of TSG ids, their owner keys and each client's owned set.

use super::super::set::TsgSet;
use super::{Error, Outcome, Policy, ProcessKey};

impl<const W: usize, const C: usize> Policy<W, C> {
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

    pub(super) fn check_tsg_range(&self, tsgid: u32) -> Result<(), Error> {
        match usize::try_from(tsgid) {
            Ok(t) if t < Self::TSG_CAPACITY => Ok(()),
            _ => Err(Error::TsgOutOfRange),
        }
    }

    pub(super) fn check_tsg_exists(&self, tsgid: u32) -> Result<(), Error> {
        self.check_tsg_range(tsgid)?;
        if self.exists.contains(tsgid) {
            Ok(())
        } else {
            Err(Error::UnknownTsg)
        }
    }

    pub(super) fn key_slot(&self, tsgid: u32) -> Option<&ProcessKey> {
        let t = usize::try_from(tsgid).ok()?;
        self.tsg_key.get(t / 64)?.get(t % 64)
    }

    pub(super) fn key_slot_mut(&mut self, tsgid: u32) -> Option<&mut ProcessKey> {
        let t = usize::try_from(tsgid).ok()?;
        self.tsg_key.get_mut(t / 64)?.get_mut(t % 64)
    }

    /// Applies `f` to the owned-TSG set of every registered client with this key.
    /// O(C + T/64 per match).
    pub(super) fn for_owned_by_key(&mut self, key: ProcessKey, mut f: impl FnMut(&mut TsgSet<W>)) {
        for (c, o) in self.clients.iter().zip(self.owned.iter_mut()) {
            if c.registered && c.key == key {
                f(o);
            }
        }
    }

    pub(super) fn clear_owned(&mut self, slot: usize) {
        if let Some(o) = self.owned.get_mut(slot) {
            o.clear();
        }
    }

    /// The existing TSGs owned by `key`, by a scan of the owner table. O(T); used only
    /// when a client registers.
    pub(super) fn tsgs_with_key(&self, key: ProcessKey) -> TsgSet<W> {
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
}

// SPDX-License-Identifier: GPL-2.0

//! The bound backend and what the driver reports, under the update lock ([`Backend`]: the
//! published decision, released TSGs, the TSG event table, recovery, attach/detach, the
//! application of a decision, the backend's identity), and the work item's kick and pending
//! hint.

use super::*;

/// Operations that need the update lock held; the C side also asserts it with lockdep.
///
/// Invariant: the only `Backend` is the one inside the locked state (`Locked`, created by
/// zeroing; there is no constructor), so a `&mut Backend` proves the update lock is held.
pub(crate) struct Backend {
    _private: (),
}

impl Backend {
    /// Publishes the decision for the driver's runlist builder (seqcount write).
    pub(crate) fn publish(&mut self, generation: u64, all: bool, words: &[u64; TSG_WORDS]) {
        // SAFETY: Update lock held (`&mut self` is reachable only through the guard);
        // `words` has the 16 words the C side reads.
        unsafe { gcaps_glue_publish(generation, all, words.as_ptr()) };
    }

    /// The TSG ids released since the last call: the C side cleared them in the published set
    /// and keeps them off every publish until they are taken here. Take them before draining
    /// the event table (their release events are in it by then).
    pub(crate) fn take_released(&mut self) -> [u64; TSG_WORDS] {
        let mut words = [0; TSG_WORDS];
        // SAFETY: Update lock held; `words` has the 16 words the C side writes.
        unsafe { gcaps_glue_take_released(words.as_mut_ptr()) };
        words
    }

    /// The next dirty TSG of the event table, if any.
    pub(crate) fn next_event(&mut self) -> Option<TsgEvent> {
        let mut ev = TsgEvent::default();
        // SAFETY: Update lock held; `ev` is valid for writes.
        unsafe { gcaps_glue_ev_next(&mut ev) }.then_some(ev)
    }

    /// Whether the driver reported a recovery since the last call.
    pub(crate) fn take_recovered(&mut self) -> bool {
        // SAFETY: Update lock held.
        unsafe { gcaps_glue_ev_take_recovered() }
    }

    /// Binds a backend (`EBUSY` if one is bound).
    ///
    /// # Safety
    ///
    /// `ops` must be a valid `struct gcaps_backend_ops` that stays valid until the backend is
    /// forgotten or detached (the backend contract).
    pub(crate) unsafe fn attach(&mut self, ops: *const c_void, drv: *mut c_void) -> Result {
        // SAFETY: Update lock held; the caller guarantees `ops`.
        check(unsafe { gcaps_glue_be_attach(ops, drv) })
    }

    /// The driver unbinds; returns whether one was bound.
    pub(crate) fn forget(&mut self) -> bool {
        // SAFETY: Update lock held.
        unsafe { gcaps_glue_be_forget() }
    }

    /// gcaps unloads: `ops->detach` then forget; returns whether one was bound.
    pub(crate) fn detach(&mut self) -> bool {
        // SAFETY: Update lock held; the bound driver's ops are valid until detached.
        unsafe { gcaps_glue_be_detach() }
    }

    /// `ops->resubmit()` (reload: rebuild, submit, wait until not pending) or `ops->gate()`
    /// (gate: enable state, a preempt if one ran), by the loaded mechanism; what the driver
    /// did. `ENODEV` if unbound.
    pub(crate) fn apply(&mut self) -> Result<Applied> {
        // SAFETY: Update lock held; the bound driver's ops are valid while bound.
        Applied::from_kind(unsafe { gcaps_glue_be_apply() })
    }

    /// The bound backend's name, detail, runlists and flags (`GCAPS_BACKEND_STOCK`) into `v`
    /// (`""`/0 if none); its ABI as `backend_abi`, 0 if none.
    pub(crate) fn info(&mut self, v: &mut uapi::Version) {
        // SAFETY: Update lock held; the arrays are valid for their lengths, `runlists` and
        // `flags` for a write.
        v.backend_abi = unsafe {
            gcaps_glue_be_info(
                v.backend_name.as_mut_ptr().cast(),
                v.backend_name.len(),
                v.backend_detail.as_mut_ptr().cast(),
                v.backend_detail.len(),
                &mut v.backend_runlists,
                &mut v.backend_flags,
            )
        };
    }
}

/// Kicks the work item (any context): it runs soon and applies what is pending.
pub(crate) fn kick_work() {
    // SAFETY: No preconditions (`mod_delayed_work`).
    unsafe { gcaps_glue_work_kick() }
}

/// Whether TSG events may be waiting (a lock-free hint).
pub(crate) fn events_pending() -> bool {
    // SAFETY: No preconditions (reads a bitmap and a flag).
    unsafe { gcaps_glue_ev_pending() }
}

// SPDX-License-Identifier: GPL-2.0

//! Handed-over files ([`ClosedFile`]: a released file whose client is removed later) and the
//! owners' `struct pid` references (`pid_vnr`, `pid_group_exited`).

use super::*;

// A `PidToken` here is a counted reference to a thread group's `struct pid`, held by the open
// file (C side) until its release (or, for a file handed over at its release, until the
// [`ClosedFile`] is dropped after its client's removal), stored by the core in the file's
// client, which asks about it only while that client exists: so it is valid whenever it is used.

/// A file handed over at its release (`gcaps_rust_release` returned false): its record still
/// holds the pid reference its client names. Taken under the update lock; dropping it frees
/// the record, so remove the client first.
pub(crate) struct ClosedFile {
    file: NonNull<c_void>,
    client: ClientRef,
}

impl ClosedFile {
    /// The oldest handed-over file, if any (call with the update lock held).
    pub(crate) fn pop() -> Option<Self> {
        let mut client = ClientRef::default();
        // SAFETY: `client` is valid for writes; the list is the C side's, under its spinlock.
        let file = NonNull::new(unsafe { gcaps_glue_closed_pop(&mut client) })?;
        Some(Self { file, client })
    }

    /// Its client (possibly gone already: the owner's exit removes it too).
    pub(crate) fn client(&self) -> ClientRef {
        self.client
    }

    /// Puts it back at the head of the list, for a later drain (call with the update lock
    /// held; its client is still there).
    pub(crate) fn unpop(self) {
        let me = core::mem::ManuallyDrop::new(self);
        // SAFETY: `file` was popped off the list (ours alone) and goes back once; `me` is never
        // dropped, so it is not freed.
        unsafe { gcaps_glue_closed_unpop(me.file.as_ptr()) }
    }
}

impl Drop for ClosedFile {
    fn drop(&mut self) {
        // SAFETY: `file` was popped off the list (so it is ours alone) and is freed once.
        unsafe { gcaps_glue_closed_free(self.file.as_ptr()) }
    }
}

/// The tgid of `pid` in the calling task's pid namespace (0 if not visible there).
pub(crate) fn pid_vnr(pid: PidToken) -> u32 {
    if pid.0 == 0 {
        return 0;
    }
    // SAFETY: The token is a `struct pid *` with a reference held (see above).
    unsafe { gcaps_glue_pid_vnr(pid.0) }
}

/// Whether `pid`'s whole thread group has exited (its leader is gone, or a zombie without
/// other threads). A null token counts as exited.
pub(crate) fn pid_group_exited(pid: PidToken) -> bool {
    if pid.0 == 0 {
        return true;
    }
    // SAFETY: The token is a `struct pid *` with a reference held (see above).
    unsafe { gcaps_glue_pid_group_exited(pid.0) }
}

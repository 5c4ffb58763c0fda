// SPDX-License-Identifier: GPL-2.0

//! Linux error numbers (`include/uapi/asm-generic/errno*.h`, the same on x86 and arm64).
//! The core decides which error a call gets; a host converts [`Errno`] to its own error type
//! (`-errno` for the kernel).

/// A positive Linux error number.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Errno(pub i32);

impl Errno {
    /// Operation not permitted.
    pub const EPERM: Self = Self(1);
    /// No such file or directory (no open segment).
    pub const ENOENT: Self = Self(2);
    /// Interrupted system call (a fatal signal while waiting for the update lock).
    pub const EINTR: Self = Self(4);
    /// A signal while waiting for the update lock on a kernel without
    /// `rt_mutex_lock_killable` (before 5.15): the kernel restarts the call after the handler,
    /// or gives `EINTR` (never seen by userspace as 512).
    pub const ERESTARTSYS: Self = Self(512);
    /// Argument list too long (a larger struct whose tail is not zero).
    pub const E2BIG: Self = Self(7);
    /// Out of memory (allocations at load).
    pub const ENOMEM: Self = Self(12);
    /// Bad address.
    pub const EFAULT: Self = Self(14);
    /// Device or resource busy (a backend is already bound).
    #[allow(dead_code)] // the C glue returns it, not gcaps.ko's Rust
    pub const EBUSY: Self = Self(16);
    /// No such device (no backend bound).
    #[allow(dead_code)] // the C glue returns it, not gcaps.ko's Rust
    pub const ENODEV: Self = Self(19);
    /// Invalid argument.
    pub const EINVAL: Self = Self(22);
    /// Too many open files (`max_clients_per_user`).
    pub const EMFILE: Self = Self(24);
    /// Inappropriate ioctl for device.
    pub const ENOTTY: Self = Self(25);
    /// No space left on device (client table full).
    pub const ENOSPC: Self = Self(28);
    /// Connection timed out (the backend's submit did not finish).
    pub const ETIMEDOUT: Self = Self(110);
    /// Operation already in progress (a segment is already open).
    pub const EALREADY: Self = Self(114);

    /// The `GCAPS_REJ_*` class of a failed call with this error (`GCAPS_IOC_STATS`).
    pub fn reject_class(self) -> usize {
        use super::uapi;
        match self {
            Self::EPERM => uapi::REJ_EPERM,
            Self::ENOENT => uapi::REJ_ENOENT,
            Self::EINTR | Self::ERESTARTSYS => uapi::REJ_EINTR,
            Self::E2BIG => uapi::REJ_E2BIG,
            Self::EFAULT => uapi::REJ_EFAULT,
            Self::EINVAL => uapi::REJ_EINVAL,
            Self::EMFILE => uapi::REJ_EMFILE,
            Self::ENOTTY => uapi::REJ_ENOTTY,
            Self::ENOSPC => uapi::REJ_ENOSPC,
            Self::EALREADY => uapi::REJ_EALREADY,
            _ => uapi::REJ_OTHER,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::uapi;
    use super::Errno;

    #[test]
    fn reject_classes() {
        assert_eq!(Errno::EPERM.reject_class(), uapi::REJ_EPERM);
        assert_eq!(Errno::EALREADY.reject_class(), uapi::REJ_EALREADY);
        assert_eq!(Errno::EINTR.reject_class(), uapi::REJ_EINTR);
        assert_eq!(Errno::ERESTARTSYS.reject_class(), uapi::REJ_EINTR);
        assert_eq!(Errno::ETIMEDOUT.reject_class(), uapi::REJ_OTHER);
        assert_eq!(Errno(-3).reject_class(), uapi::REJ_OTHER);
    }
}

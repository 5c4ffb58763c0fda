// SPDX-License-Identifier: GPL-2.0

//! The ioctl rules that need no state: command decoding, argument sizes, flags, reserved
//! fields and priority ranges, the caller's class, and the permission rules. Each function
//! returns the [`Errno`] a call gets, checked in the order the UAPI documents
//! (`uapi/linux/gcaps.h`): a host calls them in the order `module/gcaps/device.rs` shows and performs
//! the user copies (`EFAULT`) in between.
//!
//! One rule stays with the host: a struct longer than the module's must be zero beyond it
//! (`E2BIG`), which needs the user memory (the kernel's `copy_struct_from_user`).

use super::errno::Errno;
use super::policy::{priority_in_range, GpuPriority, SchedClass, Segment};
use super::stats::ResetScope;
use super::uapi::{self, IoctlArg};

/// `SCHED_FIFO` (`include/uapi/linux/sched.h`).
pub const SCHED_FIFO: i32 = 1;
/// `SCHED_RR`.
pub const SCHED_RR: i32 = 2;

/// A decoded `/dev/gcaps` ioctl command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// `GCAPS_IOC_VERSION`.
    Version,
    /// `GCAPS_IOC_SEG_BEGIN`.
    SegBegin,
    /// `GCAPS_IOC_SEG_END`.
    SegEnd,
    /// `GCAPS_IOC_STATUS`.
    Status,
    /// `GCAPS_IOC_LIST`.
    List,
    /// `GCAPS_IOC_SET_ALWAYS`.
    SetAlways,
    /// `GCAPS_IOC_STATS`.
    Stats,
    /// `GCAPS_IOC_TRACE_READ`.
    TraceRead,
}

impl Command {
    /// Decodes `cmd` of a call on a file; `foreign`: the caller's thread group is not the
    /// file's (nobody acts for somebody else: `EPERM` before anything else). Only the type and
    /// number select the command (the size and direction bits are not checked: the argument's
    /// own `size` field versions it). Unknown: `ENOTTY`.
    pub fn decode(cmd: u32, foreign: bool) -> Result<Self, Errno> {
        if foreign {
            return Err(Errno::EPERM);
        }
        if (cmd >> 8) & 0xff != uapi::IOC_MAGIC {
            return Err(Errno::ENOTTY);
        }
        match cmd & 0xff {
            uapi::NR_VERSION => Ok(Self::Version),
            uapi::NR_SEG_BEGIN => Ok(Self::SegBegin),
            uapi::NR_SEG_END => Ok(Self::SegEnd),
            uapi::NR_STATUS => Ok(Self::Status),
            uapi::NR_LIST => Ok(Self::List),
            uapi::NR_SET_ALWAYS => Ok(Self::SetAlways),
            uapi::NR_STATS => Ok(Self::Stats),
            uapi::NR_TRACE_READ => Ok(Self::TraceRead),
            _ => Err(Errno::ENOTTY),
        }
    }
}

/// The size of a caller's `T` (its first field): below `SIZE_VER0` is `EINVAL`. A shorter
/// struct (down to `SIZE_VER0`) is zero-extended, a longer one must be zero beyond ours.
pub fn arg_size<T: IoctlArg>(user_size: u32) -> Result<usize, Errno> {
    let size = usize::try_from(user_size).map_err(|_| Errno::EINVAL)?;
    if size < T::SIZE_VER0 {
        return Err(Errno::EINVAL);
    }
    Ok(size)
}

/// The caller's scheduling state as the host read it from the task.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sched {
    /// `SCHED_*` policy.
    pub policy: i32,
    /// `rt_priority` (0 for non-real-time policies).
    pub rt_priority: i32,
}

/// A task's class: `uapi::CLASS_*`, the policy class, and the CPU priority to report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Class {
    /// `uapi::CLASS_*`.
    pub uclass: u32,
    /// The policy's class.
    pub class: SchedClass,
    /// `rt_priority` for real-time tasks, 0 otherwise.
    pub cpu_prio: i32,
}

impl Class {
    /// Whether the class is real-time (its updates run at the ceiling).
    pub fn is_rt(self) -> bool {
        matches!(self.class, SchedClass::RealTime(_))
    }
}

impl Sched {
    /// The class of a task in this state: SCHED_FIFO/SCHED_RR with a real-time priority
    /// ([`priority_in_range`]) are real-time; SCHED_DEADLINE and every other policy count as
    /// best-effort.
    pub fn classify(self) -> Class {
        let rt = u8::try_from(self.rt_priority)
            .ok()
            .filter(|&p| priority_in_range(p.into()));
        match (self.policy, rt) {
            (SCHED_FIFO, Some(p)) => Class {
                uclass: uapi::CLASS_FIFO,
                class: SchedClass::RealTime(p),
                cpu_prio: self.rt_priority,
            },
            (SCHED_RR, Some(p)) => Class {
                uclass: uapi::CLASS_RR,
                class: SchedClass::RealTime(p),
                cpu_prio: self.rt_priority,
            },
            _ => Class {
                uclass: uapi::CLASS_OTHER,
                class: SchedClass::BestEffort,
                cpu_prio: 0,
            },
        }
    }
}

/// What a segment begin asks for, after validation and the permission check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BeginRequest {
    /// The caller's class now.
    pub class: Class,
    /// The segment for the policy (a best-effort one has no GPU priority).
    pub segment: Segment,
    /// The `gpu_priority` the caller asked for (for the trace).
    pub requested: i32,
}

/// The permission rule that refused a begin (`EPERM`), reported to the caller in
/// `struct gcaps_seg_begin.refused`: every permission rule of a begin, in one place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The file belongs to another thread group (every call of a foreign caller is refused).
    NotOwner,
    /// An explicit GPU priority from a caller that is not real-time.
    NeedsRealTime,
    /// A GPU priority above the caller's own without the right to raise it.
    AboveOwn,
}

impl Refusal {
    /// `GCAPS_REFUSED_*`.
    pub fn code(self) -> u32 {
        match self {
            Self::NotOwner => uapi::REFUSED_NOT_OWNER,
            Self::NeedsRealTime => uapi::REFUSED_NEEDS_REALTIME,
            Self::AboveOwn => uapi::REFUSED_ABOVE_OWN,
        }
    }

    /// Fills the reply of a refused begin: the rule and the CPU priority it judged.
    pub fn report(self, a: &mut uapi::SegBegin, sched: Sched) {
        a.refused = self.code();
        a.cpu_priority = sched.classify().cpu_prio;
    }
}

/// `GCAPS_IOC_SEG_BEGIN`'s argument rules: `flags` 0 and `gpu_priority` inherit or a real-time
/// priority (else `EINVAL`). Checked before the reply is written back.
pub fn check_seg_begin(a: &uapi::SegBegin) -> Result<(), Errno> {
    let prio_ok =
        a.gpu_priority == uapi::GPU_PRIO_INHERIT || priority_in_range(a.gpu_priority.into());
    if a.flags != 0 || !prio_ok {
        return Err(Errno::EINVAL);
    }
    Ok(())
}

/// The permission rules of a begin (after [`check_seg_begin`]), from the caller's scheduling
/// state now (never the caller's word): an explicit GPU priority needs a real-time caller
/// ([`Refusal::NeedsRealTime`]), and one above the caller's own priority needs what
/// `sched_setscheduler` would need to raise it (`may_raise(p)`: `RLIMIT_RTPRIO` or
/// `CAP_SYS_NICE`, asked only then; [`Refusal::AboveOwn`]). The third rule, the file's
/// owner, is [`Command::decode`]'s. A refusal is `EPERM`.
pub fn begin_request(
    a: &uapi::SegBegin,
    sched: Sched,
    may_raise: impl FnOnce(i32) -> bool,
) -> Result<BeginRequest, Refusal> {
    let class = sched.classify();
    let gpu = match u8::try_from(a.gpu_priority) {
        Ok(0) | Err(_) => GpuPriority::Inherit,
        Ok(p) => GpuPriority::Explicit(p),
    };
    let segment = match (class.class, gpu) {
        (SchedClass::BestEffort, GpuPriority::Inherit) => Segment::BestEffort,
        (SchedClass::BestEffort, GpuPriority::Explicit(_)) => return Err(Refusal::NeedsRealTime),
        (SchedClass::RealTime(own), GpuPriority::Explicit(p))
            if p > own && !may_raise(i32::from(p)) =>
        {
            return Err(Refusal::AboveOwn)
        }
        (SchedClass::RealTime(cpu), gpu) => Segment::RealTime { cpu, gpu },
    };
    Ok(BeginRequest {
        class,
        segment,
        requested: a.gpu_priority,
    })
}

/// `GCAPS_IOC_SEG_END`: `flags` 0.
pub fn check_seg_end(a: &uapi::SegEnd) -> Result<(), Errno> {
    if a.flags != 0 {
        return Err(Errno::EINVAL);
    }
    Ok(())
}

/// `GCAPS_IOC_STATUS`: `flags` 0.
pub fn check_status(a: &uapi::Status) -> Result<(), Errno> {
    if a.flags != 0 {
        return Err(Errno::EINVAL);
    }
    Ok(())
}

/// `GCAPS_IOC_LIST`: `flags` and `reserved` 0.
pub fn check_list(a: &uapi::List) -> Result<(), Errno> {
    if a.flags != 0 || a.reserved != 0 {
        return Err(Errno::EINVAL);
    }
    Ok(())
}

/// `GCAPS_IOC_SET_ALWAYS`: `flags` and `reserved` 0, `on` 0 or 1, `tsgid` below
/// `GCAPS_MAX_TSGS` (else `EINVAL`), then `CAP_SYS_ADMIN` (`is_admin()`, asked only then;
/// `EPERM`). Returns the TSG id and whether to mark it. Whether the TSG exists (`ENOENT`) is
/// the core's question ([`super::state::Core::set_always`]).
pub fn check_set_always(
    a: &uapi::SetAlways,
    is_admin: impl FnOnce() -> bool,
) -> Result<(u32, bool), Errno> {
    if a.flags != 0 || a.reserved != 0 || a.on > 1 || a.tsgid >= uapi::MAX_TSGS {
        return Err(Errno::EINVAL);
    }
    if !is_admin() {
        return Err(Errno::EPERM);
    }
    Ok((a.tsgid, a.on == 1))
}

/// `GCAPS_IOC_STATS` of a caller whose struct has `size` bytes: unknown flags are `EINVAL`; a
/// reset needs `CAP_SYS_ADMIN` (`is_admin()`, asked only then; `EPERM`) and resets what the
/// caller's struct holds (the returned scope).
pub fn stats_reset(
    a: &uapi::Stats,
    size: usize,
    is_admin: impl FnOnce() -> bool,
) -> Result<Option<ResetScope>, Errno> {
    if a.flags & !uapi::STATS_RESET != 0 {
        return Err(Errno::EINVAL);
    }
    if a.flags & uapi::STATS_RESET == 0 {
        return Ok(None);
    }
    if !is_admin() {
        return Err(Errno::EPERM);
    }
    Ok(Some(ResetScope::new(size)))
}

/// `GCAPS_IOC_TRACE_READ`: `flags` 0 (`EINVAL`), then `CAP_SYS_ADMIN` (`EPERM`), then an
/// `event_size` of at least the first version's (`EINVAL`). Returns the stride of the user's
/// event array; from `uapi::TRACE_EVENT_SIZE_VER1` on, the host copies each event's
/// [`uapi::TraceEvent::ver1`], below it the event as recorded (VER0).
pub fn trace_read_stride(
    a: &uapi::TraceRead,
    is_admin: impl FnOnce() -> bool,
) -> Result<usize, Errno> {
    if a.flags != 0 {
        return Err(Errno::EINVAL);
    }
    if !is_admin() {
        return Err(Errno::EPERM);
    }
    let stride = usize::try_from(a.event_size).map_err(|_| Errno::EINVAL)?;
    if stride < uapi::TRACE_EVENT_SIZE_VER0 {
        return Err(Errno::EINVAL);
    }
    Ok(stride)
}

#[cfg(test)]
mod tests;

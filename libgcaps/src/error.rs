//! Typed errors: each says what went wrong and what to do, in one line.
use nix::errno::Errno;
use std::fmt;

/// What a gcaps call was doing when it failed (for errors that are not specific).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Open,
    Version,
    Begin,
    End,
    Status,
    List,
    Stats,
    ResetStats,
    TraceRead,
    SetAlways,
    Close,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Open => "open /dev/gcaps",
            Op::Version => "GCAPS_IOC_VERSION",
            Op::Begin => "GCAPS_IOC_SEG_BEGIN",
            Op::End => "GCAPS_IOC_SEG_END",
            Op::Status => "GCAPS_IOC_STATUS",
            Op::List => "GCAPS_IOC_LIST",
            Op::Stats => "GCAPS_IOC_STATS",
            Op::ResetStats => "GCAPS_IOC_STATS (reset)",
            Op::TraceRead => "GCAPS_IOC_TRACE_READ",
            Op::SetAlways => "GCAPS_IOC_SET_ALWAYS",
            Op::Close => "close of the gcaps descriptor",
        }
    }
}

/// Every way a libgcaps call can fail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The device node does not exist: gcaps.ko is not loaded (ENOENT on open).
    NotLoaded { path: String },
    /// The device node exists but may not be opened by this user (EACCES on open).
    DeviceAccess { path: String },
    /// The file is not a gcaps device (ENOTTY): wrong path or an incompatible module.
    NotGcapsDevice { path: String },
    /// The module speaks another ABI version than this library.
    AbiMismatch { kernel: u32, library: u32 },
    /// This user already has the maximum number of clients (EMFILE on open).
    TooManyClients,
    /// The module's client table is full (ENOSPC on open).
    ClientTableFull,
    /// The file descriptor belongs to another process (inherited over fork or passed) (EPERM).
    NotOwner,
    /// A best-effort (SCHED_OTHER) caller asked for an explicit GPU priority (EPERM).
    BestEffortExplicit { requested: i32 },
    /// A real-time caller asked for a GPU priority above its CPU priority without
    /// CAP_SYS_NICE (EPERM).
    AboveCpuPriority { requested: i32, cpu_priority: i32 },
    /// A GPU priority outside 0..99 (EINVAL).
    InvalidPriority { value: i64 },
    /// A GPU priority given as text that is not `inherit` or 0..99.
    BadPriorityText { text: String },
    /// An environment variable the library reads holds a bad value.
    BadEnvironment {
        var: &'static str,
        value: String,
        reason: &'static str,
    },
    /// Resetting the statistics, reading the trace or marking a TSG always eligible without
    /// CAP_SYS_ADMIN (EPERM).
    NeedsAdmin { op: Op },
    /// No TSG with this id: the bound GPU driver has not reported it, or none is bound
    /// (ENOENT of GCAPS_IOC_SET_ALWAYS).
    NoSuchTsg { tsgid: u32 },
    /// Begin while this client's segment is already open (EALREADY).
    AlreadyInSegment,
    /// End without an open segment (ENOENT on end).
    NotInSegment,
    /// Any other failure of a call, with its errno.
    Sys { op: Op, errno: Errno },
}

impl Error {
    /// The errno this error corresponds to (the C ABI returns its negation).
    pub fn errno(&self) -> Errno {
        match self {
            Error::NotLoaded { .. } | Error::NotInSegment | Error::NoSuchTsg { .. } => {
                Errno::ENOENT
            }
            Error::DeviceAccess { .. } => Errno::EACCES,
            Error::NotGcapsDevice { .. } => Errno::ENOTTY,
            Error::AbiMismatch { .. } => Errno::EPROTO,
            Error::TooManyClients => Errno::EMFILE,
            Error::ClientTableFull => Errno::ENOSPC,
            Error::NotOwner
            | Error::BestEffortExplicit { .. }
            | Error::AboveCpuPriority { .. }
            | Error::NeedsAdmin { .. } => Errno::EPERM,
            Error::InvalidPriority { .. }
            | Error::BadPriorityText { .. }
            | Error::BadEnvironment { .. } => Errno::EINVAL,
            Error::AlreadyInSegment => Errno::EALREADY,
            Error::Sys { errno, .. } => *errno,
        }
    }

    /// The error of a failed open of `path`.
    pub(crate) fn from_open(path: &str, errno: Errno) -> Self {
        match errno {
            Errno::ENOENT | Errno::ENXIO | Errno::ENODEV => Error::NotLoaded { path: path.into() },
            Errno::EACCES => Error::DeviceAccess { path: path.into() },
            Errno::EMFILE => Error::TooManyClients,
            Errno::ENOSPC => Error::ClientTableFull,
            errno => Error::Sys {
                op: Op::Open,
                errno,
            },
        }
    }

    /// The error of a failed ioctl; `Begin` EPERMs are classified by the rule the module
    /// reported ([`Error::begin_refused`]).
    pub(crate) fn from_ioctl(op: Op, errno: Errno) -> Self {
        match (op, errno) {
            (Op::ResetStats | Op::TraceRead | Op::SetAlways, Errno::EPERM) => {
                Error::NeedsAdmin { op }
            }
            (_, Errno::EPERM) => Error::NotOwner,
            (Op::Begin, Errno::EALREADY) => Error::AlreadyInSegment,
            (Op::End, Errno::ENOENT) => Error::NotInSegment,
            (_, Errno::ENOTTY) => Error::NotGcapsDevice {
                path: "the file descriptor".into(),
            },
            (op, errno) => Error::Sys { op, errno },
        }
    }

    /// The error of a begin asking for `requested` (0 = inherit) that the module refused
    /// (EPERM) with rule `refused` (`GCAPS_REFUSED_*`, written back by the module with the
    /// CPU priority it judged). The library never re-derives the rule.
    pub(crate) fn begin_refused(requested: i32, refused: u32, cpu_priority: i32) -> Self {
        match refused {
            crate::uapi::GCAPS_REFUSED_NOT_OWNER => Error::NotOwner,
            crate::uapi::GCAPS_REFUSED_NEEDS_REALTIME => Error::BestEffortExplicit { requested },
            crate::uapi::GCAPS_REFUSED_ABOVE_OWN => Error::AboveCpuPriority {
                requested,
                cpu_priority,
            },
            _ => Error::Sys {
                op: Op::Begin,
                errno: Errno::EPERM,
            },
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NotLoaded { path } => write!(
                f,
                "{}: no such device: the gcaps module is not loaded (load it: modprobe gcaps)",
                path.escape_debug()
            ),
            Error::DeviceAccess { path } => write!(
                f,
                "{}: permission denied: this user may not open the gcaps device (ask the \
                 administrator for access to it)",
                path.escape_debug()
            ),
            Error::NotGcapsDevice { path } => write!(
                f,
                "{} is not a gcaps device (ENOTTY): wrong path, or a gcaps module too old for \
                 this library",
                path.escape_debug()
            ),
            Error::AbiMismatch { kernel, library } => write!(
                f,
                "gcaps ABI mismatch: the module speaks version {kernel}, this library version \
                 {library}; install a matching libgcaps"
            ),
            Error::TooManyClients => f.write_str(
                "open /dev/gcaps: this user already has the maximum number of gcaps clients \
                 (EMFILE); close unused ones",
            ),
            Error::ClientTableFull => {
                f.write_str("open /dev/gcaps: the gcaps client table is full (ENOSPC); retry later")
            }
            Error::NotOwner => f.write_str(
                "permission denied: this /dev/gcaps descriptor belongs to another process \
                 (inherited over fork or passed over a socket); open your own with Gcaps::open",
            ),
            Error::BestEffortExplicit { requested } => write!(
                f,
                "permission denied: a best-effort (SCHED_OTHER) task may not ask for GPU \
                 priority {requested}; run it under SCHED_FIFO/RR (gcapsctl run --priority P) \
                 or let it inherit (0)"
            ),
            Error::AboveCpuPriority {
                requested,
                cpu_priority,
            } => write!(
                f,
                "permission denied: GPU priority {requested} is above the task's CPU priority \
                 {cpu_priority}, which needs CAP_SYS_NICE or RLIMIT_RTPRIO >= {requested}; ask \
                 for at most {cpu_priority} or grant the capability"
            ),
            Error::InvalidPriority { value } => write!(
                f,
                "invalid GPU priority {value}: expected 1..99, or 0 to inherit the CPU priority"
            ),
            Error::BadPriorityText { text } => write!(
                f,
                "invalid GPU priority \"{}\": expected 1..99, or inherit (0)",
                text.escape_debug()
            ),
            Error::BadEnvironment { var, value, reason } => {
                write!(f, "{var}=\"{}\": {reason}", value.escape_debug())
            }
            Error::NeedsAdmin { op } => {
                let what = match op {
                    Op::TraceRead => {
                        "reading the gcaps trace needs CAP_SYS_ADMIN (it shows other processes' \
                         pids and timing)"
                    }
                    Op::ResetStats => "resetting the gcaps statistics needs CAP_SYS_ADMIN",
                    Op::SetAlways => "marking a TSG always eligible needs CAP_SYS_ADMIN",
                    _ => "this call needs CAP_SYS_ADMIN",
                };
                write!(
                    f,
                    "{} failed: permission denied: {what}; run it as root",
                    op.name()
                )
            }
            Error::NoSuchTsg { tsgid } => write!(
                f,
                "GCAPS_IOC_SET_ALWAYS failed: no TSG {tsgid} (ENOENT): the GPU driver has not \
                 reported it, or no driver is bound (see gcapsctl status)"
            ),
            Error::AlreadyInSegment => f.write_str(
                "GPU segment begin while this client's segment is open (EALREADY); end it first \
                 (segments do not nest)",
            ),
            Error::NotInSegment => {
                f.write_str("GPU segment end without an open segment (ENOENT); call begin first")
            }
            Error::Sys { op, errno } => {
                write!(f, "{} failed: {} ({errno:?})", op.name(), errno.desc())
            }
        }
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_errors_say_what_to_do() {
        let e = Error::from_open("/dev/gcaps", Errno::ENOENT);
        assert_eq!(e.errno(), Errno::ENOENT);
        assert!(e.to_string().contains("modprobe gcaps"), "{e}");
        let e = Error::from_open("/dev/gcaps", Errno::EACCES);
        assert!(e.to_string().contains("permission denied"), "{e}");
        assert_eq!(Error::from_open("x", Errno::EMFILE), Error::TooManyClients);
        assert_eq!(Error::from_open("x", Errno::ENOSPC), Error::ClientTableFull);
        assert_eq!(
            Error::from_open("x", Errno::EIO),
            Error::Sys {
                op: Op::Open,
                errno: Errno::EIO
            }
        );
    }

    #[test]
    fn misuse_is_named() {
        assert_eq!(
            Error::from_ioctl(Op::Begin, Errno::EALREADY),
            Error::AlreadyInSegment
        );
        assert_eq!(
            Error::from_ioctl(Op::End, Errno::ENOENT),
            Error::NotInSegment
        );
        assert_eq!(Error::from_ioctl(Op::Status, Errno::EPERM), Error::NotOwner);
        assert_eq!(Error::from_ioctl(Op::Stats, Errno::EPERM), Error::NotOwner);
        for op in [Op::ResetStats, Op::TraceRead] {
            let e = Error::from_ioctl(op, Errno::EPERM);
            assert_eq!(e, Error::NeedsAdmin { op });
            assert!(e.to_string().contains("needs CAP_SYS_ADMIN"), "{e}");
        }
        assert!(Error::from_ioctl(Op::TraceRead, Errno::EPERM)
            .to_string()
            .starts_with(
                "GCAPS_IOC_TRACE_READ failed: permission denied: reading the gcaps trace"
            ));
        // ENOENT means "not in a segment" only for end.
        assert_eq!(
            Error::from_ioctl(Op::Begin, Errno::ENOENT),
            Error::Sys {
                op: Op::Begin,
                errno: Errno::ENOENT
            }
        );
    }

    #[test]
    fn eperm_of_begin_is_the_rule_the_module_reported() {
        use crate::uapi::{
            GCAPS_REFUSED_ABOVE_OWN, GCAPS_REFUSED_NEEDS_REALTIME, GCAPS_REFUSED_NOT_OWNER,
        };
        assert_eq!(
            Error::begin_refused(10, GCAPS_REFUSED_NEEDS_REALTIME, 0),
            Error::BestEffortExplicit { requested: 10 }
        );
        assert_eq!(
            Error::begin_refused(60, GCAPS_REFUSED_ABOVE_OWN, 50),
            Error::AboveCpuPriority {
                requested: 60,
                cpu_priority: 50
            }
        );
        assert_eq!(
            Error::begin_refused(0, GCAPS_REFUSED_NOT_OWNER, 50),
            Error::NotOwner
        );
        // No rule reported (a module without the field): a plain EPERM, no guess.
        assert_eq!(
            Error::begin_refused(60, 0, 0),
            Error::Sys {
                op: Op::Begin,
                errno: Errno::EPERM
            }
        );
        assert!(Error::begin_refused(60, GCAPS_REFUSED_ABOVE_OWN, 50)
            .to_string()
            .contains("CAP_SYS_NICE"));
    }

    #[test]
    fn every_message_is_one_line_and_maps_to_its_errno() {
        let all = [
            Error::NotLoaded {
                path: "/dev/gcaps\n".into(),
            },
            Error::DeviceAccess { path: "p".into() },
            Error::NotGcapsDevice { path: "p".into() },
            Error::AbiMismatch {
                kernel: 2,
                library: 1,
            },
            Error::TooManyClients,
            Error::ClientTableFull,
            Error::NotOwner,
            Error::BestEffortExplicit { requested: 3 },
            Error::AboveCpuPriority {
                requested: 3,
                cpu_priority: 2,
            },
            Error::InvalidPriority { value: 100 },
            Error::BadPriorityText {
                text: "a\nb".into(),
            },
            Error::BadEnvironment {
                var: "V",
                value: "\n".into(),
                reason: "r",
            },
            Error::NeedsAdmin { op: Op::TraceRead },
            Error::NeedsAdmin { op: Op::ResetStats },
            Error::AlreadyInSegment,
            Error::NotInSegment,
            Error::Sys {
                op: Op::List,
                errno: Errno::EFAULT,
            },
        ];
        let errnos = [
            Errno::ENOENT,
            Errno::EACCES,
            Errno::ENOTTY,
            Errno::EPROTO,
            Errno::EMFILE,
            Errno::ENOSPC,
            Errno::EPERM,
            Errno::EPERM,
            Errno::EPERM,
            Errno::EINVAL,
            Errno::EINVAL,
            Errno::EINVAL,
            Errno::EPERM,
            Errno::EPERM,
            Errno::EALREADY,
            Errno::ENOENT,
            Errno::EFAULT,
        ];
        for (e, want) in all.iter().zip(errnos) {
            let msg = e.to_string();
            assert!(!msg.contains('\n') && !msg.is_empty(), "{msg:?}");
            assert_eq!(e.errno(), want, "{msg}");
        }
    }
}

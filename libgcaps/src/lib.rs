//! libgcaps: the user-space side of gcaps. An application opens `/dev/gcaps` once and wraps
//! each GPU segment (the code from the first GPU call to the last synchronisation) in a
//! segment, so gcaps.ko can put its GPU contexts on the runlist by priority:
//!
//! ```no_run
//! use libgcaps::{Gcaps, GpuPriority};
//! let gcaps = Gcaps::open()?;
//! {
//!     let _seg = gcaps.segment(GpuPriority::ProcessDefault)?; // begin
//!     // ... launch kernels, copy, synchronise ...
//! } // end (also when the code panics)
//! # Ok::<(), libgcaps::Error>(())
//! ```
//!
//! Every call acts for the calling process (the kernel knows the caller); the interface is
//! `uapi/linux/gcaps.h`, translated by bindgen at build time ([`uapi`]).
mod error;
mod info;
mod priority;
mod stats;
mod trace;
pub mod uapi;

pub use error::{Error, Op};
pub use info::{
    AlwaysReasons, ClientInfo, CpuClass, List, Mechanism, Priorities, SegState, Status, TsgInfo,
    Version,
};
pub use priority::{GpuPriority, ENV_GPU_PRIORITY, GPU_PRIORITY_MAX, GPU_PRIORITY_MIN};
pub use stats::{DelayHistogram, Stats, UpdateCost, UpdateKind, DELAY_BUCKETS, UPDATE_KINDS};
pub use trace::{TraceBatch, TraceBuf, TraceEvent, TraceFlags, TraceKind};

use nix::errno::Errno;
use nix::fcntl::{open, OFlag};
use nix::sys::stat::Mode;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, IntoRawFd, OwnedFd, RawFd};

/// The device node of gcaps.ko.
pub const DEVICE_PATH: &str = "/dev/gcaps";

/// One client of gcaps.ko: an open file of `/dev/gcaps`, owned by this process.
#[derive(Debug)]
pub struct Gcaps {
    fd: OwnedFd,
    default_priority: GpuPriority,
}

impl Gcaps {
    /// Opens `/dev/gcaps` and checks the module's ABI version. Reads the process default GPU
    /// priority from `$GCAPS_GPU_PRIORITY` (an error if it is malformed).
    pub fn open() -> Result<Self, Error> {
        Self::open_path(DEVICE_PATH)
    }

    /// [`Gcaps::open`] on another device node (tests, containers).
    pub fn open_path(path: &str) -> Result<Self, Error> {
        let default_priority = GpuPriority::from_env()?;
        let fd = open(path, OFlag::O_RDWR | OFlag::O_CLOEXEC, Mode::empty())
            .map_err(|e| Error::from_open(path, e))?;
        // SAFETY: `open` just returned this descriptor and nothing else owns it.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let gcaps = Self::from_fd(fd, default_priority);
        let v = gcaps.version().map_err(|e| match e {
            Error::NotGcapsDevice { .. } => Error::NotGcapsDevice { path: path.into() },
            e => e,
        })?;
        if v.abi != uapi::GCAPS_ABI_VERSION {
            return Err(Error::AbiMismatch {
                kernel: v.abi,
                library: uapi::GCAPS_ABI_VERSION,
            });
        }
        tracing::debug!(fd = gcaps.fd.as_raw_fd(), module = %v.module_string(), "gcaps opened");
        Ok(gcaps)
    }

    /// Wraps a descriptor of `/dev/gcaps` (no check); `default_priority` replaces
    /// [`GpuPriority::ProcessDefault`] at begin (e.g. [`GpuPriority::from_env`]).
    pub fn from_fd(fd: OwnedFd, default_priority: GpuPriority) -> Self {
        Self {
            fd,
            default_priority,
        }
    }

    /// The GPU priority [`GpuPriority::ProcessDefault`] stands for in this client.
    pub fn default_priority(&self) -> GpuPriority {
        self.default_priority
    }

    /// Module and backend versions.
    pub fn version(&self) -> Result<Version, Error> {
        let mut v = uapi::gcaps_version {
            size: size_of_u32::<uapi::gcaps_version>(),
            ..Default::default()
        };
        ioctl(self.fd.as_fd(), uapi::GCAPS_IOC_VERSION, &mut v)
            .map_err(|e| Error::from_ioctl(Op::Version, e))?;
        Ok(Version::from_uapi(&v))
    }

    /// Opens a GPU segment and returns a guard that ends it when dropped (also while
    /// unwinding from a panic). The guard holds a `tracing` span `gpu_segment`.
    pub fn segment(&self, priority: GpuPriority) -> Result<Segment<'_>, Error> {
        let state = self.begin(priority)?;
        let span = tracing::info_span!(
            "gpu_segment",
            gpu_priority = %self.resolve(priority),
            state = ?state
        )
        .entered();
        Ok(Segment {
            gcaps: self,
            state,
            ended: false,
            _span: span,
        })
    }

    /// Opens a GPU segment (`gcapsGpuSegBegin`); returns whether its TSGs run at once or wait.
    /// Prefer [`Gcaps::segment`], which cannot forget the end.
    pub fn begin(&self, priority: GpuPriority) -> Result<SegState, Error> {
        let requested = self.resolve(priority).raw();
        if let GpuPriority::Explicit(l) = priority {
            // (Explicit(0) or Explicit(100..) built by hand rather than with GpuPriority::new)
            if !(GPU_PRIORITY_MIN..=GPU_PRIORITY_MAX).contains(&l) {
                return Err(Error::InvalidPriority { value: l.into() });
            }
        }
        let mut b = uapi::gcaps_seg_begin {
            size: size_of_u32::<uapi::gcaps_seg_begin>(),
            gpu_priority: requested,
            ..Default::default()
        };
        match ioctl(self.fd.as_fd(), uapi::GCAPS_IOC_SEG_BEGIN, &mut b) {
            Ok(()) => {
                let state = SegState::from_uapi(b.state);
                tracing::debug!(
                    gpu_priority = requested,
                    ?state,
                    generation = b.generation,
                    "gcaps begin"
                );
                Ok(state)
            }
            // The module says which permission rule refused (it wrote `refused` back).
            Err(Errno::EPERM) => Err(Error::begin_refused(requested, b.refused, b.cpu_priority)),
            Err(Errno::EINVAL) if requested != 0 => Err(Error::InvalidPriority {
                value: requested.into(),
            }),
            Err(e) => Err(Error::from_ioctl(Op::Begin, e)),
        }
    }

    /// Ends this client's open GPU segment (`gcapsGpuSegEnd`).
    pub fn end(&self) -> Result<(), Error> {
        let mut e = uapi::gcaps_seg_end {
            size: size_of_u32::<uapi::gcaps_seg_end>(),
            ..Default::default()
        };
        ioctl(self.fd.as_fd(), uapi::GCAPS_IOC_SEG_END, &mut e)
            .map_err(|e| Error::from_ioctl(Op::End, e))?;
        tracing::debug!(generation = e.generation, "gcaps end");
        Ok(())
    }

    /// This client's own state and the global decision.
    pub fn status(&self) -> Result<Status, Error> {
        let mut s = uapi::gcaps_status {
            size: size_of_u32::<uapi::gcaps_status>(),
            ..Default::default()
        };
        ioctl(self.fd.as_fd(), uapi::GCAPS_IOC_STATUS, &mut s)
            .map_err(|e| Error::from_ioctl(Op::Status, e))?;
        Ok(Status::from_uapi(&s))
    }

    /// Every client and every TSG, one consistent snapshot (retried with larger buffers while
    /// the tables grow between calls).
    pub fn list(&self) -> Result<List, Error> {
        let (mut ccap, mut tcap) = (32u32, 64u32);
        for _ in 0..8 {
            let mut clients = vec![uapi::gcaps_client_info::default(); ccap as usize];
            let mut tsgs = vec![uapi::gcaps_tsg_info::default(); tcap as usize];
            let mut l = uapi::gcaps_list {
                size: size_of_u32::<uapi::gcaps_list>(),
                clients_ptr: clients.as_mut_ptr() as u64,
                tsgs_ptr: tsgs.as_mut_ptr() as u64,
                clients_cap: ccap,
                tsgs_cap: tcap,
                ..Default::default()
            };
            ioctl(self.fd.as_fd(), uapi::GCAPS_IOC_LIST, &mut l)
                .map_err(|e| Error::from_ioctl(Op::List, e))?;
            if l.clients_count <= ccap && l.tsgs_count <= tcap {
                clients.truncate(l.clients_count as usize);
                tsgs.truncate(l.tsgs_count as usize);
                return Ok(List::from_uapi(&l, &clients, &tsgs));
            }
            ccap = l.clients_count.max(ccap).saturating_add(16);
            tcap = l.tsgs_count.max(tcap).saturating_add(16);
        }
        Err(Error::Sys {
            op: Op::List,
            errno: Errno::EAGAIN,
        })
    }

    /// The module's counters and update-delay histogram (any caller may read them).
    pub fn stats(&self) -> Result<Stats, Error> {
        self.stats_ioctl(0, Op::Stats)
    }

    /// Reads the statistics and zeroes them (needs CAP_SYS_ADMIN: [`Error::NeedsAdmin`]);
    /// returns the figures as they were before the reset.
    pub fn reset_stats(&self) -> Result<Stats, Error> {
        self.stats_ioctl(uapi::GCAPS_STATS_RESET, Op::ResetStats)
    }

    fn stats_ioctl(&self, flags: u32, op: Op) -> Result<Stats, Error> {
        let mut s = uapi::gcaps_stats {
            size: size_of_u32::<uapi::gcaps_stats>(),
            flags,
            ..Default::default()
        };
        ioctl(self.fd.as_fd(), uapi::GCAPS_IOC_STATS, &mut s)
            .map_err(|e| Error::from_ioctl(op, e))?;
        Ok(Stats::from_uapi(&s))
    }

    /// Reads trace events with `seq >= from_seq` (0: the oldest the ring holds), at most
    /// `buf.capacity()` of them; nothing is consumed. Continue with the batch's `next_seq`.
    /// Needs CAP_SYS_ADMIN ([`Error::NeedsAdmin`]).
    pub fn read_trace(&self, from_seq: u64, buf: &mut TraceBuf) -> Result<TraceBatch, Error> {
        let cap = u32::try_from(buf.raw.len()).unwrap_or(u32::MAX);
        let mut r = uapi::gcaps_trace_read {
            size: size_of_u32::<uapi::gcaps_trace_read>(),
            events_ptr: buf.raw.as_mut_ptr() as u64,
            events_cap: cap,
            event_size: size_of_u32::<uapi::gcaps_trace_event>(),
            from_seq,
            ..Default::default()
        };
        ioctl(self.fd.as_fd(), uapi::GCAPS_IOC_TRACE_READ, &mut r)
            .map_err(|e| Error::from_ioctl(Op::TraceRead, e))?;
        Ok(TraceBatch::from_uapi(&r, &buf.raw))
    }

    /// Marks TSG `tsgid` always eligible (`on`) or removes the mark (needs CAP_SYS_ADMIN:
    /// [`Error::NeedsAdmin`]; a TSG the driver has not reported: [`Error::NoSuchTsg`]). The
    /// driver's own flag (driver-internal TSG) is a separate reason the administrator cannot
    /// clear: the reply says which reasons hold after the call.
    pub fn set_always_eligible(&self, tsgid: u32, on: bool) -> Result<AlwaysReasons, Error> {
        let mut a = uapi::gcaps_set_always {
            size: size_of_u32::<uapi::gcaps_set_always>(),
            tsgid,
            on: on.into(),
            ..Default::default()
        };
        match ioctl(self.fd.as_fd(), uapi::GCAPS_IOC_SET_ALWAYS, &mut a) {
            Ok(()) => Ok(AlwaysReasons::from_uapi(a.reasons)),
            Err(Errno::ENOENT) => Err(Error::NoSuchTsg { tsgid }),
            Err(e) => Err(Error::from_ioctl(Op::SetAlways, e)),
        }
    }

    fn resolve(&self, priority: GpuPriority) -> GpuPriority {
        match priority {
            GpuPriority::ProcessDefault => self.default_priority,
            p => p,
        }
    }
}

impl AsFd for Gcaps {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

impl AsRawFd for Gcaps {
    fn as_raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

impl IntoRawFd for Gcaps {
    fn into_raw_fd(self) -> RawFd {
        self.fd.into_raw_fd()
    }
}

/// An open GPU segment; dropping it ends the segment (errors are then only logged with
/// `tracing`; call [`Segment::end`] to see them).
#[must_use = "dropping the guard ends the segment at once"]
#[derive(Debug)]
pub struct Segment<'a> {
    gcaps: &'a Gcaps,
    state: SegState,
    ended: bool,
    _span: tracing::span::EnteredSpan,
}

impl Segment<'_> {
    /// Whether the segment's TSGs were eligible at once ([`SegState::Running`]) or waited.
    pub fn state_at_begin(&self) -> SegState {
        self.state
    }

    /// Ends the segment now, reporting a failure.
    pub fn end(mut self) -> Result<(), Error> {
        self.ended = true;
        self.gcaps.end()
    }
}

impl Drop for Segment<'_> {
    fn drop(&mut self) {
        if !self.ended {
            if let Err(e) = self.gcaps.end() {
                tracing::warn!(error = %e, "gcaps: ending the GPU segment failed");
            }
        }
    }
}

fn size_of_u32<T>() -> u32 {
    std::mem::size_of::<T>() as u32
}

/// `ioctl(fd, request, arg)` for the gcaps structs (all `_IOWR`: read and written back).
fn ioctl<T>(fd: BorrowedFd<'_>, request: libc::c_ulong, arg: &mut T) -> Result<(), Errno> {
    // SAFETY: `arg` is a valid, exclusively borrowed `T` whose size is the one encoded in
    // `request` and in its `size` field; the kernel reads and writes at most that many bytes.
    // Pointers inside `T` (GCAPS_IOC_LIST, GCAPS_IOC_TRACE_READ) point to live buffers of the
    // advertised capacity and element size.
    let r = unsafe { libc::ioctl(fd.as_raw_fd(), request as _, arg as *mut T) };
    Errno::result(r).map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_without_module_says_so() {
        let e = Gcaps::open_path("/nonexistent/gcaps").unwrap_err();
        assert_eq!(
            e,
            Error::NotLoaded {
                path: "/nonexistent/gcaps".into()
            }
        );
        assert!(e.to_string().contains("modprobe gcaps"));
    }

    #[test]
    fn open_of_another_device_is_refused() {
        let e = Gcaps::open_path("/dev/null").unwrap_err();
        assert_eq!(
            e,
            Error::NotGcapsDevice {
                path: "/dev/null".into()
            }
        );
    }

    #[test]
    fn calls_on_a_foreign_file_are_enotty() {
        let f = std::fs::File::open("/dev/null").unwrap();
        let g = Gcaps::from_fd(f.into(), GpuPriority::ProcessDefault);
        assert!(matches!(
            g.begin(GpuPriority::ProcessDefault),
            Err(Error::NotGcapsDevice { .. })
        ));
        assert!(matches!(g.end(), Err(Error::NotGcapsDevice { .. })));
        assert!(matches!(g.status(), Err(Error::NotGcapsDevice { .. })));
        assert!(matches!(g.list(), Err(Error::NotGcapsDevice { .. })));
        assert!(matches!(g.stats(), Err(Error::NotGcapsDevice { .. })));
        assert!(matches!(g.reset_stats(), Err(Error::NotGcapsDevice { .. })));
        assert!(matches!(
            g.set_always_eligible(3, true),
            Err(Error::NotGcapsDevice { .. })
        ));
        let mut buf = TraceBuf::with_capacity(4);
        assert!(matches!(
            g.read_trace(0, &mut buf),
            Err(Error::NotGcapsDevice { .. })
        ));
        assert!(g.segment(GpuPriority::Explicit(3)).is_err());
    }

    #[test]
    fn default_priority_is_resolved_at_begin() {
        let f = std::fs::File::open("/dev/null").unwrap();
        let g = Gcaps::from_fd(f.into(), GpuPriority::Explicit(7));
        assert_eq!(
            g.resolve(GpuPriority::ProcessDefault),
            GpuPriority::Explicit(7)
        );
        assert_eq!(
            g.resolve(GpuPriority::Explicit(3)),
            GpuPriority::Explicit(3)
        );
    }

    #[test]
    fn hand_built_levels_are_checked_before_the_kernel() {
        let f = std::fs::File::open("/dev/null").unwrap();
        let g = Gcaps::from_fd(f.into(), GpuPriority::ProcessDefault);
        for l in [0, 100, 255] {
            assert_eq!(
                g.begin(GpuPriority::Explicit(l)),
                Err(Error::InvalidPriority { value: l.into() })
            );
        }
    }
}

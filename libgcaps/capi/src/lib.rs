//! The C ABI of libgcaps (`include/gcaps.h`): thin functions over [`libgcaps::Gcaps`] that
//! take the descriptor as an `int` and return `-errno`, and `gcaps_strerror`, which gives the
//! library's one-line explanation of the calling thread's last failure.
use libgcaps::{Error, Gcaps, GpuPriority, Op};
use std::cell::RefCell;
use std::ffi::{c_char, c_int, CString};
use std::mem::ManuallyDrop;
use std::os::fd::{FromRawFd, IntoRawFd, OwnedFd};
use std::sync::OnceLock;

thread_local! {
    /// (-errno, text) of this thread's last failed call.
    static LAST: RefCell<(c_int, CString)> = RefCell::new((0, CString::default()));
    /// Storage for the text gcaps_strerror returns when it is not LAST's.
    static TEXT: RefCell<CString> = RefCell::new(CString::default());
}

/// The process default GPU priority, `$GCAPS_GPU_PRIORITY` read once.
fn default_priority() -> Result<GpuPriority, Error> {
    static DEFAULT: OnceLock<Result<GpuPriority, Error>> = OnceLock::new();
    DEFAULT.get_or_init(GpuPriority::from_env).clone()
}

fn c_text(s: String) -> CString {
    CString::new(s.replace('\0', "\\0")).unwrap_or_default()
}

/// Records `e` as this thread's last failure and returns `-errno`.
fn fail(e: Error) -> c_int {
    let code = -(e.errno() as c_int);
    LAST.with(|l| *l.borrow_mut() = (code, c_text(e.to_string())));
    code
}

fn result(r: Result<(), Error>) -> c_int {
    match r {
        Ok(()) => 0,
        Err(e) => fail(e),
    }
}

/// Runs `f` on the client of descriptor `fd` without taking ownership of it.
fn with_client(fd: c_int, op: Op, f: impl FnOnce(&Gcaps) -> Result<(), Error>) -> c_int {
    if fd < 0 {
        return fail(Error::Sys {
            op,
            errno: nix::errno::Errno::EBADF,
        });
    }
    let default = match default_priority() {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    // SAFETY: `fd` is not -1 (checked), and ManuallyDrop never closes it: the caller keeps
    // ownership. If the caller passes a descriptor that is not open, the ioctls fail with
    // EBADF; nothing else is done with it.
    let gcaps = ManuallyDrop::new(Gcaps::from_fd(unsafe { OwnedFd::from_raw_fd(fd) }, default));
    result(f(&gcaps))
}

/// `int gcaps_open(void)`.
#[no_mangle]
pub extern "C" fn gcaps_open() -> c_int {
    if let Err(e) = default_priority() {
        return fail(e);
    }
    match Gcaps::open() {
        Ok(g) => g.into_raw_fd(),
        Err(e) => fail(e),
    }
}

/// `int gcaps_seg_begin(int fd, int gpu_prio)`.
#[no_mangle]
pub extern "C" fn gcaps_seg_begin(fd: c_int, gpu_prio: c_int) -> c_int {
    let prio = match GpuPriority::new(gpu_prio.into()) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    with_client(fd, Op::Begin, |g| g.begin(prio).map(drop))
}

/// `int gcaps_seg_end(int fd)`.
#[no_mangle]
pub extern "C" fn gcaps_seg_end(fd: c_int) -> c_int {
    with_client(fd, Op::End, Gcaps::end)
}

/// `int gcaps_close(int fd)`.
#[no_mangle]
pub extern "C" fn gcaps_close(fd: c_int) -> c_int {
    match nix::unistd::close(fd) {
        Ok(()) => 0,
        Err(errno) => fail(Error::Sys {
            op: Op::Close,
            errno,
        }),
    }
}

/// The generic text of `-errno` values in gcaps's context.
fn generic_text(err: c_int) -> String {
    use nix::errno::Errno;
    if err >= 0 {
        return "success".into();
    }
    let errno = Errno::from_raw(err.saturating_neg());
    let what = match errno {
        Errno::ENOENT => "the gcaps module is not loaded (modprobe gcaps), or a segment end without begin",
        Errno::EPERM => "permission denied: the descriptor belongs to another process, a best-effort task asked for a GPU priority, or a GPU priority above the CPU priority needs CAP_SYS_NICE",
        Errno::EALREADY => "a GPU segment is already open (segments do not nest)",
        Errno::EINVAL => "invalid argument: GPU priority outside 0..99, or a malformed $GCAPS_GPU_PRIORITY",
        Errno::EACCES => "permission denied opening /dev/gcaps",
        Errno::EMFILE => "this user has the maximum number of gcaps clients",
        Errno::ENOSPC => "the gcaps client table is full",
        Errno::ENOTTY => "not a gcaps device, or a gcaps module too old for this library",
        Errno::EPROTO => "gcaps ABI mismatch between the module and libgcaps",
        e => e.desc(),
    };
    format!("gcaps: {what} ({errno:?})")
}

/// `const char *gcaps_strerror(int err)`.
#[no_mangle]
pub extern "C" fn gcaps_strerror(err: c_int) -> *const c_char {
    let last = LAST.with(|l| {
        let l = l.borrow();
        (l.0 == err && err < 0).then(|| l.1.as_ptr())
    });
    if let Some(p) = last {
        return p;
    }
    TEXT.with(|t| {
        let mut t = t.borrow_mut();
        *t = c_text(generic_text(err));
        t.as_ptr()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    fn text(err: c_int) -> String {
        // SAFETY: gcaps_strerror returns a NUL-terminated string valid until the next call.
        unsafe { CStr::from_ptr(gcaps_strerror(err)) }
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn last_failure_is_explained() {
        assert_eq!(gcaps_seg_begin(3, 100), -libc::EINVAL);
        assert!(
            text(-libc::EINVAL).contains("invalid GPU priority 100"),
            "{}",
            text(-libc::EINVAL)
        );
        assert_eq!(gcaps_seg_end(-1), -libc::EBADF);
        // The EINVAL text is generic again once another failure happened.
        assert!(text(-libc::EINVAL).contains("GCAPS_GPU_PRIORITY"));
        assert!(text(-libc::EBADF).contains("EBADF"));
    }

    #[test]
    fn generic_texts() {
        assert!(text(-libc::ENOENT).contains("modprobe gcaps"));
        assert!(text(-libc::EPERM).contains("CAP_SYS_NICE"));
        assert_eq!(text(0), "success");
        assert!(text(-libc::EIO).contains("EIO"));
        assert!(text(c_int::MIN).starts_with("gcaps: "));
    }

    #[test]
    fn calls_on_a_foreign_descriptor() {
        let fd = std::fs::File::open("/dev/null").unwrap().into_raw_fd();
        assert_eq!(gcaps_seg_begin(fd, 0), -libc::ENOTTY);
        assert_eq!(gcaps_seg_end(fd), -libc::ENOTTY);
        assert_eq!(gcaps_close(fd), 0);
        // (not `fd` again: another test thread may have reused the number)
        assert_eq!(gcaps_close(1 << 30), -libc::EBADF);
    }
}

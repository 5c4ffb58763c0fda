// SPDX-License-Identifier: GPL-2.0

//! Kernel memory ([`KvBox`]: kvzalloc'd, [`Zeroable`] contents) and the kernel log ([`Msg`],
//! [`log`], [`bug`]), without `core::fmt`.

use super::*;

/// Types whose all-zero bit pattern is a valid value.
///
/// # Safety
///
/// Implementors must be valid when every byte is zero.
pub(crate) unsafe trait Zeroable {}

// SAFETY: Plain old data: any bytes are valid.
unsafe impl<T: PlainData> Zeroable for T {}

/// A value in kernel memory from `kvzalloc` (`kmalloc`, or `vmalloc` for large ones), freed
/// with `kvfree` when dropped. Invariant: `ptr` points to a valid `T` that this box owns.
pub(crate) struct KvBox<T: ?Sized> {
    ptr: NonNull<T>,
}

// SAFETY: The box owns its `T` (like `Box<T>`).
unsafe impl<T: ?Sized + Send> Send for KvBox<T> {}
// SAFETY: Shared access is to `&T` only (like `Box<T>`).
unsafe impl<T: ?Sized + Sync> Sync for KvBox<T> {}

/// Zeroed memory for `size` bytes aligned for `align`, or `ENOMEM`.
fn kvzalloc(size: usize, align: usize) -> Result<NonNull<u8>> {
    // kvzalloc aligns to at least 8 bytes (kmalloc's minimum alignment on every arch, and
    // pages for vmalloc); nothing here needs more.
    if align > 8 {
        return Err(Errno::EINVAL);
    }
    // SAFETY: No preconditions; a size of 0 gives a non-null special pointer (ZERO_SIZE_PTR)
    // that `kvfree` accepts.
    NonNull::new(unsafe { gcaps_glue_kvzalloc(size) }.cast()).ok_or(Errno::ENOMEM)
}

impl<T: Zeroable> KvBox<T> {
    /// A zeroed `T`, allocated now.
    pub(crate) fn new_zeroed() -> Result<Self> {
        let ptr = kvzalloc(size_of::<T>(), core::mem::align_of::<T>())?.cast();
        // Invariant: zeroed memory of `T`'s size and alignment is a valid `T` (`Zeroable`).
        Ok(Self { ptr })
    }
}

impl<T: Zeroable> KvBox<[T]> {
    /// `len` zeroed `T`s, allocated now.
    pub(crate) fn new_zeroed_slice(len: usize) -> Result<Self> {
        let size = size_of::<T>().checked_mul(len).ok_or(Errno::ENOMEM)?;
        let ptr = kvzalloc(size, core::mem::align_of::<T>())?.cast::<T>();
        // Invariant: `len` zeroed `T`s are valid (`Zeroable`).
        Ok(Self {
            ptr: NonNull::slice_from_raw_parts(ptr, len),
        })
    }
}

impl<T> KvBox<T> {
    /// `value`, moved into memory allocated now.
    pub(crate) fn new(value: T) -> Result<Self> {
        let ptr = kvzalloc(size_of::<T>(), core::mem::align_of::<T>())?.cast::<T>();
        // SAFETY: `ptr` is valid for writes of a `T` (size and alignment checked above).
        unsafe { ptr.as_ptr().write(value) };
        Ok(Self { ptr })
    }

    /// The box's pointer; the caller owns the `T` until [`KvBox::from_raw`].
    #[cfg_attr(not(gcaps_host_c), allow(dead_code))] // host B only
    pub(crate) fn into_raw(self) -> *mut T {
        let ptr = self.ptr.as_ptr();
        core::mem::forget(self);
        ptr
    }

    /// Undoes [`KvBox::into_raw`].
    ///
    /// # Safety
    ///
    /// `ptr` came from `into_raw` and is used once.
    #[cfg_attr(not(gcaps_host_c), allow(dead_code))] // host B only
    pub(crate) unsafe fn from_raw(ptr: *mut T) -> Self {
        Self {
            // SAFETY: `into_raw` returned the non-null pointer of a box (function contract).
            ptr: unsafe { NonNull::new_unchecked(ptr) },
        }
    }
}

impl<T: ?Sized> Deref for KvBox<T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: `ptr` points to a valid `T` this box owns (type invariant).
        unsafe { self.ptr.as_ref() }
    }
}

impl<T: ?Sized> DerefMut for KvBox<T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: As for `deref`, and `&mut self` makes the reference unique.
        unsafe { self.ptr.as_mut() }
    }
}

impl<T: ?Sized> Drop for KvBox<T> {
    fn drop(&mut self) {
        // SAFETY: The box owns a valid `T` (type invariant), dropped once here.
        unsafe { core::ptr::drop_in_place(self.ptr.as_ptr()) };
        // SAFETY: `ptr` came from `gcaps_glue_kvzalloc` and is freed once.
        unsafe { gcaps_glue_kvfree(self.ptr.as_ptr().cast()) };
    }
}

/// A kernel log message, built without `core::fmt` (which would pull its formatting machinery
/// and indirect calls into the freestanding object): text and decimal numbers in a fixed
/// buffer, truncated if too long.
pub(crate) struct Msg {
    buf: [u8; 160],
    len: usize,
}

impl Msg {
    /// An empty message.
    pub(crate) fn new() -> Self {
        Self {
            buf: [0; 160],
            len: 0,
        }
    }

    /// Appends `s`.
    pub(crate) fn str(mut self, s: &str) -> Self {
        for &b in s.as_bytes() {
            if let Some(slot) = self.buf.get_mut(self.len) {
                *slot = b;
                self.len += 1;
            }
        }
        self
    }

    /// Appends `n` in decimal.
    pub(crate) fn num(self, n: i64) -> Self {
        if n < 0 {
            self.str("-").unum(n.unsigned_abs())
        } else {
            self.unum(n.unsigned_abs())
        }
    }

    /// Appends `v` in decimal.
    pub(crate) fn unum(self, mut v: u64) -> Self {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        loop {
            i -= 1;
            if let Some(d) = digits.get_mut(i) {
                *d = b'0' + (v % 10) as u8;
            }
            v /= 10;
            if v == 0 || i == 0 {
                break;
            }
        }
        self.str(core::str::from_utf8(digits.get(i..).unwrap_or(&[])).unwrap_or("?"))
    }

    /// The text so far.
    fn bytes(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or(&[])
    }
}

/// The kernel log, with the module's `gcaps: ` prefix.
pub(crate) mod log {
    use super::Msg;

    fn print(level: core::ffi::c_int, m: Msg) {
        let b = m.bytes();
        // SAFETY: `b` is valid for reads of `b.len()` bytes; the C side prints them as `%.*s`.
        unsafe { super::gcaps_glue_log(level, b.as_ptr().cast(), b.len()) };
    }

    /// `pr_err`.
    pub(crate) fn err(m: Msg) {
        print(3, m);
    }

    /// `pr_warn`.
    pub(crate) fn warn(m: Msg) {
        print(4, m);
    }

    /// `pr_info`.
    pub(crate) fn info(m: Msg) {
        print(6, m);
    }
}

/// Logs `m` at `KERN_EMERG` and `BUG()`s: the calling task oopses; never returns.
#[cfg_attr(not(gcaps_host_c), allow(dead_code))] // host B's panic handler only
pub(crate) fn bug(m: &Msg) -> ! {
    let b = m.bytes();
    // SAFETY: `b` is valid for reads of `b.len()` bytes; the C side never returns.
    unsafe { gcaps_glue_bug(b.as_ptr().cast(), b.len()) }
}

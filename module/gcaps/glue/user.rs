// SPDX-License-Identifier: GPL-2.0

//! User memory: the UAPI structs as plain old data, and the ioctl argument copies with the
//! UAPI size rules (`read_arg`: zero-extended, `E2BIG` for a non-zero tail; `write_arg`,
//! `write_array`).

use super::*;

/// Plain old data: any bytes are a valid value and every byte of a value is initialised.
///
/// # Safety
///
/// Implementors are `repr(C)` structs of integers and byte arrays with explicit padding fields
/// only (the core's size assertions and the C side's `BUILD_BUG_ON`s check there is no
/// implicit padding).
pub(crate) unsafe trait PlainData: Copy {}

macro_rules! plain_data {
    ($($t:ty),*) => {$(
        // SAFETY: `repr(C)` struct of integers and byte arrays with explicit padding only.
        unsafe impl PlainData for $t {}
    )*};
}
plain_data!(
    uapi::Version,
    uapi::SetAlways,
    uapi::SegBegin,
    uapi::SegEnd,
    uapi::ClientInfo,
    uapi::Status,
    uapi::TsgInfo,
    uapi::List,
    uapi::Stats,
    uapi::TraceEvent,
    uapi::TraceEventV1,
    uapi::TraceRead
);

/// Reads an ioctl argument struct with the UAPI size rules: the user's `size` (first field)
/// below `SIZE_VER0` is `EINVAL`; a shorter struct is zero-extended; a longer one must be zero
/// beyond ours (`E2BIG`). Returns the struct and the user's size.
pub(crate) fn read_arg<T: IoctlArg + PlainData>(arg: usize) -> Result<(T, usize)> {
    let mut usize_ = 0u32;
    // SAFETY: `usize_` is valid for writes; the C side checks the user address.
    check(unsafe { gcaps_glue_get_user_u32(arg as c_ulong, &mut usize_) })?;
    let usize_ = ioctl::arg_size::<T>(usize_)?;
    let mut val = T::default();
    // SAFETY: `val` is a valid `T` of `size_of::<T>()` writable bytes, and any bytes are a
    // valid `T` (`PlainData`); the C side checks the user range.
    check(unsafe {
        gcaps_glue_copy_struct_from_user(
            (&mut val as *mut T).cast(),
            size_of::<T>(),
            arg as c_ulong,
            usize_,
        )
    })?;
    Ok((val, usize_))
}

/// Copies `n` bytes from `src` to user address `dst` (`EFAULT` if not all were copied).
///
/// # Safety
///
/// `src` is valid for reads of `n` initialised bytes.
unsafe fn copy_to_user(dst: usize, src: *const c_void, n: usize) -> Result {
    // SAFETY: The caller guarantees `src`; the C side checks the user range.
    check(unsafe { gcaps_glue_copy_to_user(dst as c_ulong, src, n) })
}

/// Writes a UAPI struct (an ioctl argument, a trace event) to user address `arg`, its first
/// `min(user_size, size_of::<T>())` bytes.
pub(crate) fn write_arg<T: PlainData>(arg: usize, val: &T, user_size: usize) -> Result {
    let n = user_size.min(size_of::<T>());
    // SAFETY: `T: PlainData`: the first `n <= size_of::<T>()` bytes of `val` are initialised.
    unsafe { copy_to_user(arg, (val as *const T).cast(), n) }
}

/// Writes an array of UAPI structs to user address `dst`.
pub(crate) fn write_array<T: PlainData>(dst: usize, vals: &[T]) -> Result {
    // SAFETY: `T: PlainData`: the slice's `size_of_val` bytes are initialised.
    unsafe { copy_to_user(dst, vals.as_ptr().cast(), core::mem::size_of_val(vals)) }
}

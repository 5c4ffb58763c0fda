// SPDX-License-Identifier: GPL-2.0

//! VM-harness fixture module (test-only, not part of the product).
//!
//! Proves that the harness can build an out-of-tree Rust + C module against the test kernel,
//! load it, exercise it through an ioctl from a static userspace program and unload it. With
//! `selftest_knobs=1` it can also commit deliberate bugs (WARN, lock inversion, KASAN, UBSAN,
//! list corruption, hung task, memory leak) so that `make vm-selftest` can prove the harness
//! fails the run on each of them.
//!
//! The C half (`vmfixture_glue.c`) owns the misc device: Linux 6.12 has no `kernel::miscdevice`.

use core::ffi::{c_int, c_long, c_uint, c_ulong, c_void};
use kernel::ioctl::{_IO, _IOC_SIZE, _IOWR};
use kernel::prelude::*;
use kernel::sync::{new_mutex, Mutex};
use kernel::types::{AsBytes, FromBytes};
use kernel::uaccess::UserSlice;

module! {
    type: VmFixture,
    name: "vmfixture",
    author: "gcaps",
    description: "gcaps VM test harness fixture (test-only)",
    license: "GPL",
}

/// Mirrors `struct vmfixture_msg` in `vmfixture.h`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct VmFixtureMsg {
    input: u64,
    output: u64,
    calls: u64,
    pid: i32,
    pad: u32,
}

// SAFETY: `VmFixtureMsg` is `repr(C)` and made of integers only, so any bit pattern is valid.
unsafe impl FromBytes for VmFixtureMsg {}
// SAFETY: `VmFixtureMsg` is `repr(C)` with no padding (8 + 8 + 8 + 4 + 4 = 32 bytes, 8-aligned),
// so it exposes no uninitialised bytes.
unsafe impl AsBytes for VmFixtureMsg {}

const IOC_MAGIC: u32 = b'v' as u32;
const IOC_QUERY: u32 = _IOWR::<VmFixtureMsg>(IOC_MAGIC, 1);
const IOC_KNOB: u32 = _IO(IOC_MAGIC, 2);

const KNOB_WARN: usize = 1;
const KNOB_LOCKDEP: usize = 2;
const KNOB_KASAN: usize = 3;
const KNOB_UBSAN: usize = 4;
const KNOB_LIST: usize = 5;
const KNOB_HUNG: usize = 6;
const KNOB_LEAK: usize = 7;
const KNOB_PANIC: usize = 8;

// The glue of `vmfixture_glue.h`.
extern "C" {
    fn vmfixture_glue_register(ctx: *mut c_void) -> c_int;
    fn vmfixture_glue_unregister();
    fn vmfixture_glue_knobs_enabled() -> bool;
    fn vmfixture_glue_warn();
    fn vmfixture_glue_kasan_oob() -> c_int;
    fn vmfixture_glue_ubsan_oob() -> c_int;
    fn vmfixture_glue_list_corrupt();
    fn vmfixture_glue_hung();
    fn vmfixture_glue_leak() -> c_int;
    fn vmfixture_glue_panic();
}

#[pin_data]
struct State {
    #[pin]
    calls: Mutex<u64>,
    /// Two locks that the lockdep knob takes in both orders.
    #[pin]
    lock_a: Mutex<()>,
    #[pin]
    lock_b: Mutex<()>,
}

impl State {
    fn ioctl(&self, cmd: u32, arg: usize) -> Result<i64> {
        match cmd {
            IOC_QUERY => self.query(arg),
            IOC_KNOB => self.knob(arg),
            _ => Err(ENOTTY),
        }
    }

    fn query(&self, arg: usize) -> Result<i64> {
        let (mut reader, mut writer) = UserSlice::new(arg, _IOC_SIZE(IOC_QUERY)).reader_writer();
        let mut msg: VmFixtureMsg = reader.read()?;
        if msg.pad != 0 {
            return Err(EINVAL);
        }
        msg.calls = {
            let mut calls = self.calls.lock();
            *calls += 1;
            *calls
        };
        msg.output = msg.input.wrapping_mul(2).wrapping_add(1);
        msg.pid = kernel::current!().pid();
        writer.write(&msg)?;
        Ok(0)
    }

    fn knob(&self, knob: usize) -> Result<i64> {
        // SAFETY: Plain read of a module parameter through the C glue.
        if !unsafe { vmfixture_glue_knobs_enabled() } {
            return Err(EPERM);
        }
        pr_warn!("self-test knob {} (deliberate bug)\n", knob);
        match knob {
            // SAFETY: Calls `WARN()`; no preconditions.
            KNOB_WARN => unsafe { vmfixture_glue_warn() },
            KNOB_LOCKDEP => {
                // A -> B, then B -> A: single-threaded, so no real deadlock, but lockdep must
                // report a possible circular locking dependency.
                {
                    let _a = self.lock_a.lock();
                    let _b = self.lock_b.lock();
                }
                {
                    let _b = self.lock_b.lock();
                    let _a = self.lock_a.lock();
                }
            }
            KNOB_KASAN => {
                // SAFETY: Deliberately buggy C helper (reads one byte past a kmalloc'd buffer);
                // it only exists for the self-test and only runs with `selftest_knobs=1`.
                return Ok(unsafe { vmfixture_glue_kasan_oob() }.into());
            }
            KNOB_UBSAN => {
                // SAFETY: Deliberately buggy C helper (indexes past an array, reading the next
                // field of the same struct); self-test only.
                return Ok(unsafe { vmfixture_glue_ubsan_oob() }.into());
            }
            // SAFETY: Deliberately corrupts a list on its own stack; DEBUG_LIST refuses the
            // second add, so no memory is written through the bad pointer. Self-test only.
            KNOB_LIST => unsafe { vmfixture_glue_list_corrupt() },
            // SAFETY: Sleeps uninterruptibly (`msleep`) in process context; no lock is held.
            KNOB_HUNG => unsafe { vmfixture_glue_hung() },
            KNOB_LEAK => {
                // SAFETY: Deliberately leaks a 64-byte allocation; self-test only.
                let ret = unsafe { vmfixture_glue_leak() };
                if ret != 0 {
                    return Err(Error::from_errno(ret));
                }
            }
            // SAFETY: Has a work item panic the kernel while this thread sleeps (process
            // context, no lock held); self-test only.
            KNOB_PANIC => unsafe { vmfixture_glue_panic() },
            _ => return Err(EINVAL),
        }
        Ok(0)
    }
}

/// Called by `vmfixture_glue.c` for every `unlocked_ioctl`.
#[no_mangle]
extern "C" fn vmfixture_host_ioctl(ctx: *mut c_void, cmd: c_uint, arg: c_ulong) -> c_long {
    if ctx.is_null() {
        return ENODEV.to_errno() as c_long;
    }
    // SAFETY: `ctx` is the pinned `State` registered in `init`; it stays valid until
    // `vmfixture_glue_unregister()` returns in `drop`, after which no ioctl can reach us.
    let state = unsafe { &*(ctx as *const State) };
    match state.ioctl(cmd, arg as usize) {
        Ok(v) => v as c_long,
        Err(e) => e.to_errno() as c_long,
    }
}

struct VmFixture {
    state: Pin<KBox<State>>,
}

impl kernel::Module for VmFixture {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let state = KBox::pin_init(
            pin_init!(State {
                calls <- new_mutex!(0),
                lock_a <- new_mutex!(()),
                lock_b <- new_mutex!(()),
            }),
            GFP_KERNEL,
        )?;
        let ctx = &*state as *const State as *mut c_void;
        // SAFETY: `state` is pinned and outlives the registration, which `drop` undoes.
        let ret = unsafe { vmfixture_glue_register(ctx) };
        if ret != 0 {
            return Err(Error::from_errno(ret));
        }
        pr_info!("loaded\n");
        Ok(VmFixture { state })
    }
}

impl Drop for VmFixture {
    fn drop(&mut self) {
        // SAFETY: Registered in `init`; once this returns no ioctl can reach `state`.
        unsafe { vmfixture_glue_unregister() };
        pr_info!(
            "unloaded after {} query ioctl(s)\n",
            *self.state.calls.lock()
        );
    }
}

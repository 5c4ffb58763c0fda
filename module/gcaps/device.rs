// SPDX-License-Identifier: GPL-2.0

//! The `/dev/gcaps` device: gcaps.ko's kernel side, the same Rust in both hosts.
//!
//! Processes open `/dev/gcaps` (one client per open file, bound to the opening thread group)
//! and bracket their GPU segments with `GCAPS_IOC_SEG_BEGIN`/`SEG_END`. The module decides,
//! with the core (`module/core`, which includes the policy crate `module/policy`), which TSGs
//! may be on the GPU runlist, publishes that decision for the GPU driver (the backend,
//! `module/include/gcaps_backend.h`) and asks it to resubmit. `docs/module.md` describes the
//! UAPI, the update path (assumptions U1-U5 of `docs/analysis.md`), locking and the unload
//! rules; `docs/core.md` the split between the core and this file.
//!
//! This file: the entry points the C glue calls (their signatures checked against
//! `gcaps_glue.h`'s), and load and unload ([`Loaded`]). `update.rs` owns the update path (the
//! state, the update lock and the ceiling around the core's calls, the [`Host`] the core acts
//! through, draining, release), `commands.rs` the ioctl commands and their user copies,
//! `glue.rs` (with `glue/`) wraps the C glue (`gcaps_glue.c`: the kernel services both hosts
//! use), `trace.rs` holds the trace ring's storage and lock.
//!
//! It uses neither the `kernel` crate nor anything but `core`, so it builds two ways:
//! - host A (`host_rust.rs`, kernels with `CONFIG_RUST`): included as a module by the
//!   Rust-for-Linux module, compiled by the kernel's rustc;
//! - host B (`host_c.c`, kernels without Rust: the Jetson kernels 5.10, 5.15, 6.8): built by
//!   cargo as a freestanding object (`object.sh`, with `--cfg gcaps_host_c`, which adds the
//!   panic handler and the `gcaps_rust_load`/`unload` entries) and linked into a C module.

#![no_std]

use core::ffi::{c_int, c_long, c_uint, c_ulong, c_void};

// The core and the policy are compiled into this crate with `#[path]` (docs/ARCHITECTURE.md
// says why not as crates). Their `pub` items are their crates' API (unreachable from here),
// and the core's `#![no_std]` is an inner attribute of a module here: those two lints only.
// Dead code is reported: what gcaps.ko does not use carries its own allow where it is.
#[allow(unreachable_pub, unused_attributes)]
#[path = "../core/src/lib.rs"]
mod gcaps_core;

mod commands;
mod glue;
mod trace;
mod update;

use self::gcaps_core::ioctl::{self, Command, Refusal, Sched};
use self::gcaps_core::policy::{priority_in_range, MAX_PRIORITY, MIN_PRIORITY};
use self::gcaps_core::stats::{Applied, Rejected, UpdateCosts, UpdateKind};
use self::gcaps_core::uapi::{self, TraceEvent};
use self::gcaps_core::{
    Call, ClientRef, Core, Decision, Errno, Exits, Holder, Host, ListBuf, Opener, PidToken,
    TaskToken, TsgEvent, Warning, TSG_WORDS,
};
use self::glue::{
    log, now_ns, Backend, Caller, Ceiling, KvBox, ListLock, Msg, SchedLock, UpdateLock, Zeroable,
};
use self::trace::TraceRing;
use self::update::{Locked, State};

/// Results of this file: errors are Linux error numbers.
type Result<T = (), E = Errno> = core::result::Result<T, E>;

/// `ctx` back to the state.
///
/// # Safety
///
/// `ctx` must be the pointer passed to `glue::init` by [`Loaded::load`]; the C side calls back
/// only between `glue::init` and `glue::exit_final` (open files pin the module; the work item
/// is cancelled and the backend detached before the state is freed).
unsafe fn state<'a>(ctx: *mut c_void) -> &'a State {
    // SAFETY: See the function's safety section.
    unsafe { &*(ctx as *const State) }
}

/// `gcaps_open`: a new client for the calling process.
///
/// # Safety
///
/// `ctx` is the registered state; `caller` points to an initialised `struct gcaps_caller` and
/// `client` to writable memory for the result; `pid` is the counted `struct pid` reference the
/// file keeps until its release (the [`PidToken`] contract).
#[no_mangle]
unsafe extern "C" fn gcaps_rust_open(
    ctx: *mut c_void,
    caller: *const Caller,
    pid: usize,
    client: *mut ClientRef,
) -> c_int {
    // SAFETY: `ctx` is the registered state (function contract).
    let st = unsafe { state(ctx) };
    // SAFETY: `caller` points to an initialised `struct gcaps_caller` (function contract).
    let caller = unsafe { &*caller };
    let opener = Opener {
        tgid: caller.tgid,
        start: caller.start,
        uid: caller.uid,
        sched: Sched {
            policy: caller.policy,
            rt_priority: caller.rt_priority,
        },
        // `c_char` is i8 on x86 and u8 on arm64: the bytes as they are.
        comm: caller.comm.map(|c| c as u8),
        pid: PidToken(pid),
    };
    // Handed-over files first: a client closed but not yet removed must not count against
    // the per-user and total limits (a process that closes and opens again under a real-time
    // load would be refused).
    let r = st.update.lock_killable().and_then(|mut l| {
        l.with(st.env(), |c, env| {
            st.apply_releases(c, env);
            c.open(env, &opener, st.max_per_user)
        })
    });
    match r {
        Ok(c) => {
            // SAFETY: `client` is valid for writes (function contract).
            unsafe { *client = c };
            0
        }
        Err(e) => {
            st.rejected.count(e);
            -e.0
        }
    }
}

/// `gcaps_release`: the file's last reference is gone.
///
/// # Safety
///
/// `ctx` is the registered state.
#[no_mangle]
unsafe extern "C" fn gcaps_rust_release(ctx: *mut c_void, client: ClientRef) -> bool {
    // SAFETY: `ctx` is the registered state (function contract).
    unsafe { state(ctx) }.release(client)
}

/// The wake function of the owner's pid queue (any context, locks held): marks the client
/// lock-free; the C side kicks the work item.
///
/// # Safety
///
/// `ctx` is the registered state.
#[no_mangle]
unsafe extern "C" fn gcaps_rust_owner_exited(ctx: *mut c_void, client: ClientRef) {
    // SAFETY: `ctx` is the registered state (function contract).
    unsafe { state(ctx) }.exits.mark(client.slot);
}

/// `gcaps_ioctl`; `foreign`: the caller's thread group is not the file's.
///
/// # Safety
///
/// `ctx` is the registered state.
#[no_mangle]
unsafe extern "C" fn gcaps_rust_ioctl(
    ctx: *mut c_void,
    client: ClientRef,
    cmd: c_uint,
    arg: c_ulong,
    foreign: bool,
) -> c_long {
    // SAFETY: `ctx` is the registered state (function contract).
    let st = unsafe { state(ctx) };
    match st.ioctl(client, cmd, arg as usize, foreign) {
        Ok(v) => v as c_long,
        Err(e) => {
            st.rejected.count(e);
            -c_long::from(e.0)
        }
    }
}

/// `gcaps_backend_register`: a driver binds.
///
/// # Safety
///
/// `ctx` is the registered state; `ops` a checked `struct gcaps_backend_ops` the driver keeps
/// valid until it unregisters or is detached (backend contract).
#[no_mangle]
unsafe extern "C" fn gcaps_rust_bind(
    ctx: *mut c_void,
    ops: *const c_void,
    drv: *mut c_void,
) -> c_int {
    // SAFETY: `ctx` is the registered state (function contract).
    let st = unsafe { state(ctx) };
    let mut l = st.update.lock();
    // SAFETY: `ops` is valid until the driver unbinds (function contract).
    match unsafe { l.be.attach(ops, drv) } {
        Ok(()) => {
            l.core.backend_bound();
            0
        }
        Err(e) => -e.0,
    }
}

/// `calls->unregister`, with a module reference held.
///
/// # Safety
///
/// `ctx` is the registered state.
#[no_mangle]
unsafe extern "C" fn gcaps_rust_unbind(ctx: *mut c_void) {
    // SAFETY: `ctx` is the registered state (function contract).
    let st = unsafe { state(ctx) };
    let mut l = st.update.lock();
    if l.be.forget() {
        l.with(st.env(), |c, env| c.backend_gone(env));
    }
}

/// The work item: applies handed-over files, exits and TSG events if the update lock is free.
/// Returns false if it must run again (the C side tries again a jiffy later): the lock was
/// taken and something is still pending. Once a real-time update (which drains everything
/// itself) or a LIST/STATUS/STATS call has applied it, the retries stop; whatever comes later
/// kicks the work item anew.
///
/// # Safety
///
/// `ctx` is the registered state (module exit cancels the work item before freeing it).
#[no_mangle]
unsafe extern "C" fn gcaps_rust_work(ctx: *mut c_void) -> bool {
    // SAFETY: `ctx` is the registered state (function contract).
    let st = unsafe { state(ctx) };
    // Never waits behind real-time updaters (which drain events themselves): the C side
    // tries again later if the lock is taken.
    let Some(mut locked) = st.update.try_lock_free() else {
        return !st.events_pending();
    };
    locked.with(st.env(), |c, env| st.apply_events(c, env));
    true
}

// The entry points have the signatures `gcaps_glue.h` declares (bindgen's declarations in
// `glue::bindings`): each pair below must coerce to one function pointer type.
const _: () = {
    use self::glue::bindings as c;
    let _ = [
        c::gcaps_rust_open as unsafe extern "C" fn(_, _, _, _) -> _,
        gcaps_rust_open,
    ];
    let _ = [
        c::gcaps_rust_release as unsafe extern "C" fn(_, _) -> _,
        gcaps_rust_release,
    ];
    let _ = [
        c::gcaps_rust_ioctl as unsafe extern "C" fn(_, _, _, _, _) -> _,
        gcaps_rust_ioctl,
    ];
    let _ = [
        c::gcaps_rust_owner_exited as unsafe extern "C" fn(_, _),
        gcaps_rust_owner_exited,
    ];
    let _ = [
        c::gcaps_rust_bind as unsafe extern "C" fn(_, _, _) -> _,
        gcaps_rust_bind,
    ];
    let _ = [
        c::gcaps_rust_unbind as unsafe extern "C" fn(_),
        gcaps_rust_unbind,
    ];
    let _ = [
        c::gcaps_rust_work as unsafe extern "C" fn(_) -> _,
        gcaps_rust_work,
    ];
};

/// The loaded device: the state, registered with the C glue (`/dev/gcaps` exists, backends
/// may bind) from [`Loaded::load`] until the drop, which unregisters and frees it. Invariant:
/// at most one exists (each host makes one at module init and drops it at module exit).
pub struct Loaded {
    state: KvBox<State>,
}

/// Largest `trace_size` (80 MiB of events).
const MAX_TRACE_SIZE: u32 = 1 << 20;

impl Loaded {
    /// Checks the module parameters, allocates everything (nothing is allocated later) and
    /// registers `/dev/gcaps`.
    ///
    /// # Safety
    ///
    /// Called once per module load (from module init), and no other `Loaded` exists.
    pub unsafe fn load() -> Result<Self> {
        let ceiling = glue::param_update_prio();
        if !priority_in_range(ceiling.into()) {
            log::err(
                Msg::new()
                    .str("update_prio=")
                    .num(ceiling.into())
                    .str(" is outside ")
                    .num(MIN_PRIORITY.into())
                    .str("..")
                    .num(MAX_PRIORITY.into()),
            );
            return Err(Errno::EINVAL);
        }
        let mechanism = glue::param_mechanism()?;
        let boost = glue::param_boost();
        let boost_prio = glue::param_boost_prio();
        if boost && !(priority_in_range(boost_prio.into()) && boost_prio < ceiling) {
            log::err(
                Msg::new()
                    .str("boost_prio=")
                    .num(boost_prio.into())
                    .str(" is outside ")
                    .num(MIN_PRIORITY.into())
                    .str("..")
                    .num((ceiling - 1).into())
                    .str(" (it must be below update_prio=")
                    .num(ceiling.into())
                    .str("; or load with boost=0)"),
            );
            return Err(Errno::EINVAL);
        }
        let boost_prio = if boost { boost_prio } else { 0 };
        let max_per_user = glue::param_max_clients_per_user();
        if max_per_user == 0 {
            log::err(Msg::new().str("max_clients_per_user must be at least 1"));
            return Err(Errno::EINVAL);
        }
        let trace_size = glue::param_trace_size();
        if trace_size > MAX_TRACE_SIZE {
            log::err(
                Msg::new()
                    .str("trace_size=")
                    .unum(trace_size.into())
                    .str(" is above ")
                    .unum(MAX_TRACE_SIZE.into()),
            );
            return Err(Errno::EINVAL);
        }
        // SAFETY: Module init runs once per load (function contract); the state that owns
        // this ring is freed only at exit, so no other ring exists.
        let trace = unsafe { TraceRing::new(trace_size as usize) }?;
        // All runlist-related memory is allocated here, zeroed (never on the stack).
        let mut locked = KvBox::<Locked>::new_zeroed()?;
        locked.core.configure(ceiling, boost_prio, mechanism);
        let listbuf = KvBox::<ListBuf>::new_zeroed()?;
        let state = KvBox::new(State {
            // SAFETY: Module init runs once per load (function contract), and the state it
            // builds (freed only at exit) owns the only `UpdateLock` and `ListLock`.
            update: unsafe { UpdateLock::new(locked) },
            // SAFETY: As above.
            list: unsafe { ListLock::new(listbuf) },
            trace,
            rejected: Rejected::new(),
            costs: KvBox::<UpdateCosts>::new_zeroed()?,
            exits: Exits::new(),
            // SAFETY: As above: the only `SchedLock`.
            sched: unsafe { SchedLock::new(Holder::new(boost_prio, ceiling)) },
            max_per_user,
        })?;
        let ctx = &*state as *const State as *mut c_void;
        // SAFETY: `state` is boxed (fixed address) and outlives the registration: `drop`
        // ends it with `exit_final` before the box is freed.
        unsafe { glue::init(ctx, mechanism) }?;
        log::info(
            Msg::new()
                .str("loaded (update_prio=")
                .num(ceiling.into())
                .str(", boost=")
                .unum(boost.into())
                .str(", boost_prio=")
                .num(boost_prio.into())
                .str(", max_clients_per_user=")
                .unum(max_per_user.into())
                .str(", trace_size=")
                .unum(trace_size.into())
                .str(", mechanism=")
                .str(mechanism.name())
                .str(")"),
        );
        Ok(Self { state })
    }
}

impl Drop for Loaded {
    fn drop(&mut self) {
        // No file is open (each holds a module reference); the clients of files handed over
        // at their release are removed here, before the driver goes.
        glue::exit_dev();
        let c = {
            let st = &*self.state;
            let mut l = st.update.lock();
            l.with(st.env(), |c, env| st.apply_events(c, env));
            if l.be.detach() {
                l.with(st.env(), |c, env| c.backend_gone(env));
            }
            *l.core.counters()
        };
        glue::exit_final();
        log::info(
            Msg::new()
                .str("unloaded (")
                .unum(c.submits)
                .str(" submits, ")
                .unum(c.submit_errors)
                .str(" failed, ")
                .unum(c.events)
                .str(" TSG events)"),
        );
    }
}

/// Host B's module init: loads the device and hands its state to C as `*ctx`.
///
/// # Safety
///
/// Called once per module load, from `host_c.c`'s module init; `ctx` is valid for writes.
#[cfg(gcaps_host_c)]
#[no_mangle]
unsafe extern "C" fn gcaps_rust_load(ctx: *mut *mut c_void) -> c_int {
    // SAFETY: Module init, once per load (function contract).
    match unsafe { Loaded::load() } {
        Ok(loaded) => {
            // SAFETY: `ctx` is valid for writes (function contract).
            unsafe { *ctx = loaded.into_raw() };
            0
        }
        Err(e) => -e.0,
    }
}

/// Host B's module exit: unloads the device.
///
/// # Safety
///
/// `ctx` is what [`gcaps_rust_load`] stored, and this is the module exit after it.
#[cfg(gcaps_host_c)]
#[no_mangle]
unsafe extern "C" fn gcaps_rust_unload(ctx: *mut c_void) {
    // SAFETY: `ctx` came from `Loaded::into_raw` (function contract), once.
    drop(unsafe { Loaded::from_raw(ctx) });
}

#[cfg(gcaps_host_c)]
impl Loaded {
    /// The state's address, owned by the caller until [`Loaded::from_raw`].
    fn into_raw(self) -> *mut c_void {
        let me = core::mem::ManuallyDrop::new(self);
        // SAFETY: `me` is never dropped, so the box moves out exactly once.
        let state = unsafe { core::ptr::read(&me.state) };
        state.into_raw().cast()
    }

    /// Undoes [`Loaded::into_raw`].
    ///
    /// # Safety
    ///
    /// `ctx` came from `into_raw` and is used once.
    unsafe fn from_raw(ctx: *mut c_void) -> Self {
        Self {
            // SAFETY: `ctx` is the box's pointer (function contract).
            state: unsafe { KvBox::from_raw(ctx.cast()) },
        }
    }
}

/// The panic handler of host B's freestanding object (host A uses the kernel's): reports the
/// location and `BUG()`s in C; it never returns into Rust. The core has no panicking
/// operations (its lints deny them); a bounds check the compiler could not remove is the
/// only way here.
#[cfg(gcaps_host_c)]
#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    let mut m = Msg::new().str("Rust panic");
    if let Some(l) = info.location() {
        m = m.str(" at ").str(l.file()).str(":").unum(l.line().into());
    }
    glue::bug(&m)
}

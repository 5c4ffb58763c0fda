// SPDX-License-Identifier: GPL-2.0

//! gcaps.ko: GPU context-aware preemptive priority-based scheduling (GCAPS, ECRTS 2024) for
//! Tegra-style GPU runlists.
//!
//! Processes open `/dev/gcaps` (one client per open file, bound to the opening thread group)
//! and bracket their GPU segments with `GCAPS_IOC_SEG_BEGIN`/`SEG_END`. The module decides,
//! with the policy crate (`module/policy`, included unchanged), which TSGs may be on the GPU
//! runlist, publishes that decision for the GPU driver (the backend, `module/include/
//! gcaps_backend.h`) and asks it to resubmit. `docs/module.md` describes the UAPI, the update
//! path (assumptions U1-U5 of `docs/analysis.md`), locking and the unload rules.
//!
//! Files: `gcaps_main.rs` (this: module, entry points from C, ioctl decoding and the update
//! path), `inner.rs` (state under the update lock), `trace.rs` (the trace ring), `stats.rs`
//! (delay histogram, rejected-call counters), `glue.rs` (safe wrappers of the C glue),
//! `uapi.rs` (UAPI mirror), `gcaps_glue.c` (what 6.12 has no Rust abstraction for).

use core::ffi::{c_int, c_long, c_uint, c_ulong, c_void};
use core::mem::size_of;
use kernel::ioctl::{_IOC_NR, _IOC_TYPE};
use kernel::prelude::*;
use kernel::sync::{new_mutex, Mutex};
use kernel::uaccess::UserSlice;

#[allow(unreachable_pub, unused_attributes, dead_code, unused_imports)]
#[path = "../policy/src/lib.rs"]
mod policy;

mod glue;
mod inner;
mod stats;
mod trace;
mod uapi;

use self::glue::{now_ns, Caller, Ceiling, ClientRef, PidToken, UpdateLock};
use self::inner::{classify, BeginRequest, Call, Exits, Inner, ListBuf};
use self::policy::{GpuPriority, SchedClass};
use self::stats::{Rejected, ResetScope};
use self::trace::TraceRing;

// SAFETY: `Policy`'s all-zero bit pattern is exactly `Policy::new()` (documented guarantee of
// the policy crate: only integers, bools and arrays of them).
unsafe impl kernel::init::Zeroable for policy::Policy {}

module! {
    type: Gcaps,
    name: "gcaps",
    author: "gcaps",
    description: "GCAPS: GPU context-aware preemptive priority-based scheduling",
    license: "GPL",
}

/// The module's state. Invariant: exactly one exists while the module is loaded (it owns the
/// only [`UpdateLock`]), at a fixed address (boxed) published to C as `ctx`.
#[pin_data]
struct State {
    /// Everything decisions depend on; its rt_mutex serialises every update.
    update: UpdateLock<KVBox<Inner>>,
    /// The LIST output buffer (lock order: `list` before `update`).
    #[pin]
    list: Mutex<KVBox<ListBuf>>,
    /// The trace ring (its own raw spinlock, taken under `update` by writers, alone by readers).
    trace: TraceRing,
    /// Failed open/ioctl calls per errno class (lock-free).
    rejected: Rejected,
    /// Clients whose owner may have exited (lock-free; drained under `update`).
    exits: Exits,
    /// `update_prio`: the ceiling of real-time updates (U2).
    ceiling: i32,
    /// `max_clients_per_user`.
    max_per_user: u32,
}

impl State {
    fn ioctl(&self, client: ClientRef, cmd: u32, arg: usize, foreign: bool) -> Result<i64> {
        // Nobody acts for somebody else: the fd belongs to the thread group that opened it.
        if foreign {
            return Err(EPERM);
        }
        if _IOC_TYPE(cmd) != uapi::IOC_MAGIC {
            return Err(ENOTTY);
        }
        match _IOC_NR(cmd) {
            uapi::NR_VERSION => self.version(arg),
            uapi::NR_SEG_BEGIN => self.seg_begin(client, arg),
            uapi::NR_SEG_END => self.seg_end(client, arg),
            uapi::NR_STATUS => self.status(client, arg),
            uapi::NR_LIST => self.list(arg),
            uapi::NR_STATS => self.stats(arg),
            uapi::NR_TRACE_READ => self.trace_read(arg),
            _ => Err(ENOTTY),
        }?;
        Ok(0)
    }

    fn version(&self, arg: usize) -> Result {
        let (mut v, size) = glue::read_arg::<uapi::Version>(arg)?;
        v.abi_version = uapi::ABI_VERSION;
        v.module_version = uapi::MODULE_VERSION;
        v.backend_abi = self
            .update
            .lock_killable()?
            .backend_name(&mut v.backend_name);
        glue::write_arg(arg, &v, size)
    }

    /// The update path of a begin/end (U1-U5): a real-time caller is raised to the ceiling
    /// *before* it requests the lock (U1/U2), applies pending TSG events, takes the decision,
    /// and, if what the driver lists changed, has it resubmitted and waits for the submit,
    /// all under the lock; then unlocks and restores its own priority (drop order: the guard
    /// before the ceiling). A best-effort caller is never raised and never drains events (U5):
    /// its events never change the eligible set (policy rule 3), so it never submits.
    ///
    /// Fast path: a real-time event that `keeps` the decision (checked under the lock) and
    /// finds no TSG event pending runs with preemption disabled instead of at the ceiling, if
    /// the lock is free at once: the same non-preemptive update (nothing can submit, so
    /// nothing sleeps), without the two `sched_setattr` calls.
    fn update<R>(
        &self,
        rt: bool,
        keeps: impl FnOnce(&Inner) -> bool,
        f: impl FnOnce(&mut Inner) -> Result<R>,
    ) -> Result<R> {
        let mut ceiling = None;
        let fast = if rt {
            self.update
                .try_lock_nonpreemptible()
                .filter(|inner| !self.events_pending() && keeps(inner))
        } else {
            None
        };
        let mut inner = match fast {
            Some(inner) => inner,
            None => {
                if rt {
                    ceiling = Some(Ceiling::raise(self.ceiling)?);
                }
                let mut inner = self.update.lock_killable()?;
                if rt && self.events_pending() {
                    inner.apply_events(&self.exits, &self.trace);
                }
                inner
            }
        };
        let r = f(&mut inner);
        drop(inner);
        drop(ceiling);
        r
    }

    /// Whether exits or TSG events wait to be applied (lock-free hints).
    fn events_pending(&self) -> bool {
        self.exits.any() || glue::events_pending()
    }

    fn seg_begin(&self, client: ClientRef, arg: usize) -> Result {
        let entry_ns = now_ns();
        let (mut a, size) = glue::read_arg::<uapi::SegBegin>(arg)?;
        if a.flags != 0 || !(uapi::GPU_PRIO_INHERIT..=uapi::GPU_PRIO_MAX).contains(&a.gpu_priority)
        {
            return Err(EINVAL);
        }
        // The reply must be deliverable before anything happens: an EFAULT means nothing
        // changed (unless another thread unmaps the struct during the call, uapi header).
        glue::write_arg(arg, &a, size)?;
        // The class and priority are the task's, now (never the caller's word).
        let (policy, rt_priority) = glue::current_sched();
        let (uclass, class, cpu_prio) = classify(policy, rt_priority);
        let gpu = match u8::try_from(a.gpu_priority) {
            Ok(0) | Err(_) => GpuPriority::Inherit,
            Ok(p) => GpuPriority::Explicit(p),
        };
        // Permissions (the rule of sched_setscheduler for the explicit priority).
        match (class, gpu) {
            (SchedClass::BestEffort, GpuPriority::Explicit(_)) => return Err(EPERM),
            (SchedClass::RealTime(own), GpuPriority::Explicit(p))
                if p > own && !glue::may_raise_rt_prio(i32::from(p)) =>
            {
                return Err(EPERM)
            }
            _ => {}
        }
        let req = BeginRequest {
            class,
            uclass,
            cpu_prio,
            gpu,
            requested: a.gpu_priority,
        };
        let rt = matches!(class, SchedClass::RealTime(_));
        let call = Call { entry_ns, rt };
        let keeps = |inner: &Inner| inner.begin_keeps_decision(client, &req);
        let (state, generation) = self.update(rt, keeps, |inner| {
            let state = inner.seg_begin(client, req, call, &self.trace)?;
            Ok((state, inner.generation()))
        })?;
        a.state = state;
        a.generation = generation;
        glue::write_arg(arg, &a, size)
    }

    fn seg_end(&self, client: ClientRef, arg: usize) -> Result {
        let entry_ns = now_ns();
        let (mut a, size) = glue::read_arg::<uapi::SegEnd>(arg)?;
        if a.flags != 0 {
            return Err(EINVAL);
        }
        // As for a begin: an EFAULT means the segment is still open.
        glue::write_arg(arg, &a, size)?;
        let (policy, rt_priority) = glue::current_sched();
        let rt = matches!(classify(policy, rt_priority).1, SchedClass::RealTime(_));
        let call = Call { entry_ns, rt };
        let keeps = |inner: &Inner| inner.end_keeps_decision(client);
        a.generation = self.update(rt, keeps, |inner| {
            inner.seg_end(client, call, &self.trace)?;
            Ok(inner.generation())
        })?;
        glue::write_arg(arg, &a, size)
    }

    fn status(&self, client: ClientRef, arg: usize) -> Result {
        let (mut s, size) = glue::read_arg::<uapi::Status>(arg)?;
        if s.flags != 0 {
            return Err(EINVAL);
        }
        self.update.lock_killable()?.status(client, &mut s)?;
        glue::write_arg(arg, &s, size)
    }

    fn list(&self, arg: usize) -> Result {
        let (mut l, size) = glue::read_arg::<uapi::List>(arg)?;
        if l.flags != 0 || l.reserved != 0 {
            return Err(EINVAL);
        }
        let mut buf = self.list.lock();
        self.update.lock_killable()?.list(&mut buf, &mut l);
        // Copy out without the update lock (a user page fault must not extend a lock hold).
        let n = (l.clients_cap.min(l.clients_count)) as usize;
        let mut w =
            UserSlice::new(l.clients_ptr as usize, n * size_of::<uapi::ClientInfo>()).writer();
        for c in buf.clients.iter().take(n) {
            w.write(c)?;
        }
        let n = (l.tsgs_cap.min(l.tsgs_count)) as usize;
        let mut w = UserSlice::new(l.tsgs_ptr as usize, n * size_of::<uapi::TsgInfo>()).writer();
        for t in buf.tsgs.iter().take(n) {
            w.write(t)?;
        }
        drop(buf);
        glue::write_arg(arg, &l, size)
    }

    fn stats(&self, arg: usize) -> Result {
        let (mut s, size) = glue::read_arg::<uapi::Stats>(arg)?;
        if s.flags & !uapi::STATS_RESET != 0 {
            return Err(EINVAL);
        }
        let reset = (s.flags & uapi::STATS_RESET != 0).then(|| ResetScope::new(size));
        if reset.is_some() {
            if !glue::capable_admin() {
                return Err(EPERM);
            }
            // A reset whose counters cannot be delivered must not happen (EFAULT: unchanged).
            glue::write_arg(arg, &s, size)?;
        }
        self.update.lock_killable()?.stats(&mut s, reset);
        self.rejected.read(&mut s.rejected, reset);
        glue::write_arg(arg, &s, size)
    }

    /// `GCAPS_IOC_TRACE_READ`: copies events to the user array one at a time, never holding
    /// the ring's lock (nor the update lock) while touching user memory.
    fn trace_read(&self, arg: usize) -> Result {
        let (mut t, size) = glue::read_arg::<uapi::TraceRead>(arg)?;
        if t.flags != 0 {
            return Err(EINVAL);
        }
        if !glue::capable_admin() {
            return Err(EPERM);
        }
        let stride = t.event_size as usize;
        if stride < uapi::TRACE_EVENT_SIZE_VER0 {
            return Err(EINVAL);
        }
        let mut addr = t.events_ptr as usize;
        let pos = self.trace.read(t.from_seq, t.events_cap as usize, |ev| {
            glue::write_arg(addr, ev, stride)?;
            addr = addr.checked_add(stride).ok_or(EFAULT)?;
            Ok(())
        })?;
        t.events_count = pos.count as u32;
        t.ring_size = self.trace.capacity();
        t.next_seq = pos.next_seq;
        t.dropped = pos.dropped;
        t.overwritten = pos.overwritten;
        glue::write_arg(arg, &t, size)
    }

    /// The file's last reference is gone: end the open segment and remove the client (if the
    /// owner's exit has not done so). An update like a begin/end (raised to the ceiling if the
    /// closing thread is real-time), but it cannot fail: the lock is taken uninterruptibly and
    /// a failed raise only loses the ceiling.
    fn release(&self, client: ClientRef) {
        let (policy, rt_priority) = glue::current_sched();
        let rt = matches!(classify(policy, rt_priority).1, SchedClass::RealTime(_));
        let _ceiling = if rt {
            Ceiling::raise(self.ceiling).ok()
        } else {
            None
        };
        let mut inner = self.update.lock();
        if rt {
            inner.apply_events(&self.exits, &self.trace);
        }
        inner.release(client, &self.trace);
    }
}

/// `ctx` back to the state.
///
/// # Safety
///
/// `ctx` must be the pointer passed to `glue::init` by `Gcaps::init`; the C side calls back
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
/// file keeps until its release (the [`PidToken`] invariant).
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
    let r = st
        .update
        .lock_killable()
        .and_then(|mut inner| inner.open(caller, PidToken(pid), st.max_per_user, &st.trace));
    match r {
        Ok(c) => {
            // SAFETY: `client` is valid for writes (function contract).
            unsafe { *client = c };
            0
        }
        Err(e) => {
            st.rejected.count(e.to_errno());
            e.to_errno()
        }
    }
}

/// `gcaps_release`: the file's last reference is gone.
///
/// # Safety
///
/// `ctx` is the registered state.
#[no_mangle]
unsafe extern "C" fn gcaps_rust_release(ctx: *mut c_void, client: ClientRef) {
    // SAFETY: `ctx` is the registered state (function contract).
    unsafe { state(ctx) }.release(client);
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
            st.rejected.count(e.to_errno());
            e.to_errno() as c_long
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
    let mut inner = st.update.lock();
    // SAFETY: `ops` is valid until the driver unbinds (function contract).
    match unsafe { inner.bind(ops, drv) } {
        Ok(()) => 0,
        Err(e) => e.to_errno(),
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
    unsafe { state(ctx) }.update.lock().unbind();
}

/// The work item: applies exits and TSG events.
///
/// # Safety
///
/// `ctx` is the registered state (module exit cancels the work item before freeing it).
#[no_mangle]
unsafe extern "C" fn gcaps_rust_work(ctx: *mut c_void) {
    // SAFETY: `ctx` is the registered state (function contract).
    let st = unsafe { state(ctx) };
    st.update.lock().apply_events(&st.exits, &st.trace);
}

struct Gcaps {
    state: Pin<KBox<State>>,
}

/// Largest `trace_size` (80 MiB of events).
const MAX_TRACE_SIZE: u32 = 1 << 20;

impl kernel::Module for Gcaps {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let ceiling = glue::param_update_prio();
        if !(1..=99).contains(&ceiling) {
            pr_err!("update_prio={} is outside 1..99\n", ceiling);
            return Err(EINVAL);
        }
        let max_per_user = glue::param_max_clients_per_user();
        if max_per_user == 0 {
            pr_err!("max_clients_per_user must be at least 1\n");
            return Err(EINVAL);
        }
        let trace_size = glue::param_trace_size();
        if trace_size > MAX_TRACE_SIZE {
            pr_err!("trace_size={} is above {}\n", trace_size, MAX_TRACE_SIZE);
            return Err(EINVAL);
        }
        let trace = TraceRing::new(trace_size as usize)?;
        // All runlist-related memory is allocated here, zeroed (never on the stack).
        let mut inner: KVBox<Inner> = KVBox::init(kernel::init::zeroed(), GFP_KERNEL)?;
        let listbuf: KVBox<ListBuf> = KVBox::init(kernel::init::zeroed(), GFP_KERNEL)?;
        inner.start();
        let state = KBox::pin_init(
            pin_init!(State {
                update: UpdateLock::new(inner),
                list <- new_mutex!(listbuf),
                trace,
                rejected: Rejected::new(),
                exits: Exits::new(),
                ceiling,
                max_per_user,
            }),
            GFP_KERNEL,
        )?;
        let ctx = &*state as *const State as *mut c_void;
        // SAFETY: `state` is pinned and outlives the registration: `drop` ends it with
        // `exit_final` before the box is freed.
        unsafe { glue::init(ctx) }?;
        pr_info!(
            "loaded (update_prio={}, max_clients_per_user={}, trace_size={})\n",
            ceiling,
            max_per_user,
            trace_size
        );
        Ok(Gcaps { state })
    }
}

impl Drop for Gcaps {
    fn drop(&mut self) {
        // No file is open (each holds a module reference), so no client exists.
        glue::exit_misc();
        let c = {
            let mut inner = self.state.update.lock();
            inner.detach();
            inner.counters
        };
        glue::exit_final();
        pr_info!(
            "unloaded ({} submits, {} failed, {} TSG events)\n",
            c.submits,
            c.submit_errors,
            c.events
        );
    }
}

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
//! This file: the entry points the C glue calls, ioctl decoding and user copies, the update
//! lock and the ceiling around the core's calls, the [`Host`] the core acts through, and load
//! and unload ([`Loaded`]). `glue.rs` wraps the C glue (`gcaps_glue.c`: the kernel services
//! both hosts use), `trace.rs` holds the trace ring's storage and lock.
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

mod glue;
mod trace;

use self::gcaps_core::ioctl::{self, Command, Refusal, Sched};
use self::gcaps_core::stats::Rejected;
use self::gcaps_core::uapi::{self, TraceEvent};
use self::gcaps_core::{
    Call, ClientRef, Core, Decision, Errno, Exits, Holder, Host, ListBuf, Opener, PidToken,
    TaskToken, TsgEvent, Warning, TSG_WORDS,
};
use self::glue::{
    log, now_ns, Backend, Caller, Ceiling, KvBox, ListLock, Msg, SchedLock, UpdateLock, Zeroable,
};
use self::trace::TraceRing;

/// Results of this file: errors are Linux error numbers.
type Result<T = (), E = Errno> = core::result::Result<T, E>;

/// What the update lock guards: the core and the backend token.
struct Locked {
    core: Core,
    be: Backend,
}

// SAFETY: `Core`'s all-zero bit pattern is `Core::new()` (documented by the core: integers,
// bools and arrays of them, and a policy whose all-zero pattern is documented to be empty);
// `Backend` is a zero-sized token.
unsafe impl Zeroable for Locked {}

// SAFETY: Arrays of UAPI structs made of integers: all-zero is valid.
unsafe impl Zeroable for ListBuf {}

/// The core's view of the kernel while the update lock is held.
struct Env<'a> {
    be: &'a mut Backend,
    trace: &'a TraceRing,
    sched: &'a SchedLock,
}

impl Host for Env<'_> {
    fn now_ns(&self) -> u64 {
        now_ns()
    }

    fn record(&mut self, ev: &TraceEvent) {
        self.trace.record(*ev);
    }

    fn publish(&mut self, d: &Decision) {
        self.be.publish(d.generation, d.all, d.eligible.words());
    }

    fn resubmit(&mut self) -> Result {
        self.be.resubmit()
    }

    fn pid_vnr(&self, pid: PidToken) -> u32 {
        glue::pid_vnr(pid)
    }

    fn pid_group_exited(&self, pid: PidToken) -> bool {
        glue::pid_group_exited(pid)
    }

    fn take_released(&mut self) -> [u64; TSG_WORDS] {
        self.be.take_released()
    }

    fn next_tsg_event(&mut self) -> Option<TsgEvent> {
        self.be.next_event()
    }

    fn take_recovered(&mut self) -> bool {
        self.be.take_recovered()
    }

    fn warn(&mut self, w: Warning) {
        match w {
            Warning::ResubmitFailed(e) => log::warn(
                Msg::new()
                    .str("backend resubmit failed (errno ")
                    .num(e.0.into())
                    .str("); further failures are only counted"),
            ),
        }
    }

    fn task_current(&mut self) -> TaskToken {
        glue::task_self_get()
    }

    fn task_get(&mut self, t: TaskToken) {
        glue::task_get(t);
    }

    fn task_put(&mut self, t: TaskToken) {
        glue::task_put(t);
    }

    fn task_tid(&self, t: TaskToken) -> u32 {
        glue::task_tid(t)
    }

    fn boost(&mut self, t: TaskToken) {
        self.sched.boost(t);
    }

    fn unboost(&mut self, t: TaskToken) -> Option<i32> {
        self.sched.unboost(t)
    }

    fn boosted(&self, t: TaskToken) -> bool {
        self.sched.is_boosted(t)
    }
}

impl Locked {
    /// Runs `f` on the core with the host it acts through.
    fn with<R>(
        &mut self,
        st: (&TraceRing, &SchedLock),
        f: impl FnOnce(&mut Core, &mut Env<'_>) -> R,
    ) -> R {
        let mut env = Env {
            be: &mut self.be,
            trace: st.0,
            sched: st.1,
        };
        f(&mut self.core, &mut env)
    }
}

/// The module's state. Invariant: exactly one exists while the module is loaded (it owns the
/// only [`UpdateLock`], [`ListLock`] and [`TraceRing`]), at a fixed address (boxed by
/// [`Loaded`]) published to C as `ctx`.
struct State {
    /// Everything decisions depend on; its rt_mutex serialises every update.
    update: UpdateLock<KvBox<Locked>>,
    /// The LIST output buffer (lock order: `list` before `update`).
    list: ListLock<KvBox<ListBuf>>,
    /// The trace ring (its own raw spinlock, taken under `update` by writers, alone by readers).
    trace: TraceRing,
    /// Failed open/ioctl calls per errno class (lock-free).
    rejected: Rejected,
    /// Clients whose owner may have exited (lock-free; drained under `update`).
    exits: Exits,
    /// Who is boosted and the ceiling's rules (`update_prio`, U2; `boost_prio`): every change
    /// gcaps makes to a thread's scheduling parameters (lock order: after `update`).
    sched: SchedLock,
    /// `max_clients_per_user`.
    max_per_user: u32,
}

impl State {
    /// What the core's host needs besides the locked state.
    fn env(&self) -> (&TraceRing, &SchedLock) {
        (&self.trace, &self.sched)
    }

    fn ioctl(&self, client: ClientRef, cmd: u32, arg: usize, foreign: bool) -> Result<i64> {
        let command = match Command::decode(cmd, foreign) {
            Ok(c) => c,
            Err(e) => {
                // A foreign begin learns which rule refused it, like any other refused begin.
                if foreign && Command::decode(cmd, false) == Ok(Command::SegBegin) {
                    Self::refused(arg, Refusal::NotOwner);
                }
                return Err(e);
            }
        };
        match command {
            Command::Version => self.version(arg),
            Command::SegBegin => self.seg_begin(client, arg),
            Command::SegEnd => self.seg_end(client, arg),
            Command::Status => self.status(client, arg),
            Command::List => self.list(arg),
            Command::SetAlways => self.set_always(client, arg),
            Command::Stats => self.stats(arg),
            Command::TraceRead => self.trace_read(arg),
        }?;
        Ok(0)
    }

    /// Reports a refused begin to its caller: the rule and the CPU priority it judged, in a
    /// VER1 struct (a VER0 caller gets nothing). Nothing else changed, so a struct that cannot
    /// be read or written back changes nothing either.
    fn refused(arg: usize, r: Refusal) {
        if let Ok((mut a, size)) = glue::read_arg::<uapi::SegBegin>(arg) {
            r.report(&mut a, glue::current_sched());
            let _ = glue::write_arg(arg, &a, size);
        }
    }

    fn version(&self, arg: usize) -> Result {
        let (mut v, size) = glue::read_arg::<uapi::Version>(arg)?;
        v.abi_version = uapi::ABI_VERSION;
        v.module_version = uapi::MODULE_VERSION;
        self.update.lock_killable()?.be.info(&mut v);
        glue::write_arg(arg, &v, size)
    }

    /// `GCAPS_IOC_SET_ALWAYS`: an administrator's always-eligible mark. An update like a
    /// begin/end (at the ceiling for a real-time caller): pending TSG events first (so a TSG
    /// the driver just reported exists), then the mark, publish and resubmit if the decision
    /// changed.
    fn set_always(&self, client: ClientRef, arg: usize) -> Result {
        let (mut a, size) = glue::read_arg::<uapi::SetAlways>(arg)?;
        let (tsgid, on) = ioctl::check_set_always(&a, glue::capable_admin)?;
        // As for a begin: an EFAULT means nothing changed.
        glue::write_arg(arg, &a, size)?;
        let rt = glue::current_sched().classify().is_rt();
        (a.reasons, a.generation) = self.update(
            rt,
            |_| false,
            |c, env| {
                self.apply_events(c, env);
                c.set_always(env, client, tsgid, on)
            },
        )?;
        glue::write_arg(arg, &a, size)
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
        keeps: impl FnOnce(&Core) -> bool,
        f: impl FnOnce(&mut Core, &mut Env<'_>) -> Result<R>,
    ) -> Result<R> {
        let mut ceiling = None;
        let fast = if rt {
            self.update
                .try_lock_nonpreemptible()
                .filter(|l| !self.events_pending() && keeps(&l.core))
        } else {
            None
        };
        let mut locked = match fast {
            Some(l) => l,
            None => {
                if rt {
                    ceiling = Some(Ceiling::raise(&self.sched)?);
                }
                let mut l = self.update.lock_killable()?;
                if rt && self.events_pending() {
                    l.with(self.env(), |c, env| self.apply_events(c, env));
                }
                l
            }
        };
        let r = locked.with(self.env(), f);
        drop(locked);
        drop(ceiling);
        r
    }

    /// Whether exits, handed-over files or TSG events wait to be applied (lock-free hints).
    fn events_pending(&self) -> bool {
        self.exits.any() || glue::events_pending()
    }

    /// Applies everything that waits (update lock held): the files handed over at their release
    /// (each record freed after its client's removal), then owner exits and TSG events.
    fn apply_events(&self, c: &mut Core, env: &mut Env<'_>) {
        while let Some(f) = glue::ClosedFile::pop() {
            c.release(env, f.client());
        }
        c.apply_events(env, &self.exits);
    }

    /// Applies the hand-overs that any caller may apply (update lock held; open, LIST, STATUS
    /// and STATS, from callers of any class, before they act): the handed-over files and owner
    /// exits whose removal keeps the decision ([`Core::release_keeps_decision`]: no publish, no
    /// submit, no boost; U5). So a client whose file is released, or whose owner has exited, is
    /// not in their replies, except the running real-time segment's: its removal changes what
    /// the driver lists, which only an update may do (the next real-time update or the work
    /// item, kicked again here); until then its TSGs still hold the GPU and the replies say so.
    fn apply_releases(&self, c: &mut Core, env: &mut Env<'_>) {
        let mut left = None;
        while let Some(f) = glue::ClosedFile::pop() {
            if c.release_keeps_decision(f.client()) {
                c.release(env, f.client());
            } else if left.is_none() {
                left = Some(f);
            } else {
                // Not reached: only the running segment's removal changes the decision, and
                // one client has one file. Left for an update too.
                f.unpop();
                break;
            }
        }
        let mut kick = c.apply_exits_keeping(env, &self.exits);
        if let Some(f) = left {
            f.unpop();
            kick = true;
        }
        if kick {
            glue::kick_work();
        }
    }

    fn seg_begin(&self, client: ClientRef, arg: usize) -> Result {
        let entry_ns = now_ns();
        let (mut a, size) = glue::read_arg::<uapi::SegBegin>(arg)?;
        ioctl::check_seg_begin(&a)?;
        // The reply must be deliverable before anything happens: an EFAULT means nothing
        // changed (unless another thread unmaps the struct during the call, uapi header).
        glue::write_arg(arg, &a, size)?;
        // The class and priority are the task's own, now (never the caller's word, nor the
        // holder boost gcaps gave it).
        let sched = self.sched.own_sched(glue::current_sched());
        let req = match ioctl::begin_request(&a, sched, glue::may_raise_rt_prio) {
            Ok(req) => req,
            Err(r) => {
                // Which rule refused, for the caller (deliverable: checked above).
                r.report(&mut a, sched);
                let _ = glue::write_arg(arg, &a, size);
                return Err(Errno::EPERM);
            }
        };
        let rt = req.class.is_rt();
        let call = Call { entry_ns, rt };
        let keeps = |c: &Core| c.begin_keeps_decision(client, &req);
        (a.state, a.generation) =
            self.update(rt, keeps, |c, env| c.seg_begin(env, client, req, call))?;
        glue::write_arg(arg, &a, size)
    }

    fn seg_end(&self, client: ClientRef, arg: usize) -> Result {
        let entry_ns = now_ns();
        let (mut a, size) = glue::read_arg::<uapi::SegEnd>(arg)?;
        ioctl::check_seg_end(&a)?;
        // As for a begin: an EFAULT means the segment is still open.
        glue::write_arg(arg, &a, size)?;
        let rt = glue::current_sched().classify().is_rt();
        let call = Call { entry_ns, rt };
        let keeps = |c: &Core| c.end_keeps_decision(client);
        a.generation = self.update(rt, keeps, |c, env| c.seg_end(env, client, call))?;
        glue::write_arg(arg, &a, size)
    }

    fn status(&self, client: ClientRef, arg: usize) -> Result {
        let (mut s, size) = glue::read_arg::<uapi::Status>(arg)?;
        ioctl::check_status(&s)?;
        self.update.lock_killable()?.with(self.env(), |c, env| {
            self.apply_releases(c, env);
            c.status(env, client, &mut s)
        })?;
        glue::write_arg(arg, &s, size)
    }

    fn list(&self, arg: usize) -> Result {
        let (mut l, size) = glue::read_arg::<uapi::List>(arg)?;
        ioctl::check_list(&l)?;
        let mut buf = self.list.lock();
        self.update.lock_killable()?.with(self.env(), |c, env| {
            self.apply_releases(c, env);
            c.list(env, &mut buf, &mut l);
        });
        // Copy out without the update lock (a user page fault must not extend a lock hold).
        let n = (l.clients_cap.min(l.clients_count)) as usize;
        glue::write_array(l.clients_ptr as usize, buf.clients.get(..n).unwrap_or(&[]))?;
        let n = (l.tsgs_cap.min(l.tsgs_count)) as usize;
        glue::write_array(l.tsgs_ptr as usize, buf.tsgs.get(..n).unwrap_or(&[]))?;
        drop(buf);
        glue::write_arg(arg, &l, size)
    }

    fn stats(&self, arg: usize) -> Result {
        let (mut s, size) = glue::read_arg::<uapi::Stats>(arg)?;
        let reset = ioctl::stats_reset(&s, size, glue::capable_admin)?;
        if reset.is_some() {
            // A reset whose counters cannot be delivered must not happen (EFAULT: unchanged).
            glue::write_arg(arg, &s, size)?;
        }
        self.update.lock_killable()?.with(self.env(), |c, env| {
            self.apply_releases(c, env);
            c.stats(&mut s, reset);
        });
        self.rejected.read(&mut s.rejected, reset);
        glue::write_arg(arg, &s, size)
    }

    /// `GCAPS_IOC_TRACE_READ`: copies events to the user array one at a time, never holding
    /// the ring's lock (nor the update lock) while touching user memory.
    fn trace_read(&self, arg: usize) -> Result {
        let (mut t, size) = glue::read_arg::<uapi::TraceRead>(arg)?;
        let stride = ioctl::trace_read_stride(&t, glue::capable_admin)?;
        let mut addr = t.events_ptr as usize;
        let pos = self.trace.read(t.from_seq, t.events_cap as usize, |ev| {
            // The reader's event size picks the version (VER0: a TSG's id in cpu_priority).
            if stride >= uapi::TRACE_EVENT_SIZE_VER1 {
                glue::write_arg(addr, &ev.ver1(), stride)?;
            } else {
                glue::write_arg(addr, ev, stride)?;
            }
            addr = addr.checked_add(stride).ok_or(Errno::EFAULT)?;
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
    /// owner's exit has not done so). An update like a begin/end: a real-time closer is raised
    /// to the ceiling (a failed or interrupted raise only loses it) and waits its turn among
    /// the updaters there (bounded, U1), so a killed real-time owner ends its segment itself.
    /// Below the ceiling a closer never waits for the update lock, alive or dying: it takes
    /// the lock only if nobody owns it or waits for it. Otherwise (or if a fatal signal ended
    /// a real-time closer's wait) the removal is handed over: this returns false, and the C
    /// side keeps the file's record (its client names its pid reference) on the list
    /// [`State::apply_events`] drains: the next real-time update, or the work item (kicked);
    /// LIST, STATUS and STATS apply it first if it keeps the decision
    /// ([`State::apply_releases`]), and so does an open before it counts the clients.
    fn release(&self, client: ClientRef) -> bool {
        let rt = glue::current_sched().classify().is_rt();
        let ceiling = if rt {
            Ceiling::raise(&self.sched).ok()
        } else {
            None
        };
        let locked = match (ceiling.is_some(), glue::current_exiting()) {
            // Its turn among the updaters at the ceiling (on 5.10 an interruptible wait would
            // end at once: the group's SIGKILL is still pending in the exit).
            (true, true) => Some(self.update.lock()),
            (true, false) => self.update.lock_killable().ok(),
            (false, _) => self.update.try_lock_free(),
        };
        let Some(mut locked) = locked else {
            return false;
        };
        locked.with(self.env(), |c, env| {
            if rt {
                self.apply_events(c, env);
            }
            c.release(env, client);
        });
        drop(locked);
        drop(ceiling);
        true
    }
}

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
        if !(1..=99).contains(&ceiling) {
            log::err(
                Msg::new()
                    .str("update_prio=")
                    .num(ceiling.into())
                    .str(" is outside 1..99"),
            );
            return Err(Errno::EINVAL);
        }
        let boost = glue::param_boost();
        let boost_prio = glue::param_boost_prio();
        if boost && !(1..ceiling).contains(&boost_prio) {
            log::err(
                Msg::new()
                    .str("boost_prio=")
                    .num(boost_prio.into())
                    .str(" is outside 1..")
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
        locked.core.configure(ceiling, boost_prio);
        let listbuf = KvBox::<ListBuf>::new_zeroed()?;
        let state = KvBox::new(State {
            // SAFETY: Module init runs once per load (function contract), and the state it
            // builds (freed only at exit) owns the only `UpdateLock` and `ListLock`.
            update: unsafe { UpdateLock::new(locked) },
            // SAFETY: As above.
            list: unsafe { ListLock::new(listbuf) },
            trace,
            rejected: Rejected::new(),
            exits: Exits::new(),
            // SAFETY: As above: the only `SchedLock`.
            sched: unsafe { SchedLock::new(Holder::new(boost_prio, ceiling)) },
            max_per_user,
        })?;
        let ctx = &*state as *const State as *mut c_void;
        // SAFETY: `state` is boxed (fixed address) and outlives the registration: `drop`
        // ends it with `exit_final` before the box is freed.
        unsafe { glue::init(ctx) }?;
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

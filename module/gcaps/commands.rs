// SPDX-License-Identifier: GPL-2.0

//! The ioctl commands of `/dev/gcaps` (`uapi/linux/gcaps.h`): decoding and dispatch, and each
//! command's user copies around the core's call (VERSION, SEG_BEGIN/SEG_END through the
//! update path, STATUS, LIST, SET_ALWAYS, STATS, TRACE_READ).

use super::*;

impl State {
    pub(super) fn ioctl(
        &self,
        client: ClientRef,
        cmd: u32,
        arg: usize,
        foreign: bool,
    ) -> Result<i64> {
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

    // Not inlined: its struct (2736 bytes, VER3) then takes stack only during STATS, never in
    // the frame of the begin/end paths, which go deep into the driver's resubmit.
    #[inline(never)]
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
        self.costs.read(&mut s.updates, reset);
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
}

// SPDX-License-Identifier: GPL-2.0

//! Publication: what every event ends with ([`Core::sync`]): the policy's decision handed to
//! the host when it changed, the driver's application of it (a reload or a gate), the cached
//! running slot, and the holder boost's order around the application (U8).

use super::super::errno::Errno;
use super::super::policy::ClientId;
use super::super::uapi;
use super::{plus1, slot_of, Core, Host, Warning};

/// What [`Core::sync`] did about the runlist.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Submit {
    /// Nothing a driver lists changed (or no backend is bound).
    None,
    /// Applied (resubmitted and no longer pending, or gated).
    Done,
    /// The backend refused or timed out.
    Failed,
}

impl Submit {
    pub(super) fn trace_flags(self) -> u32 {
        match self {
            Submit::None => 0,
            Submit::Done => uapi::TRACE_F_SUBMIT,
            Submit::Failed => uapi::TRACE_F_SUBMIT | uapi::TRACE_F_SUBMIT_FAILED,
        }
    }
}

impl Core {
    /// Publishes the decision if `changed` (an [`Outcome`](super::super::policy::Outcome) since the last sync said so), has
    /// the driver resubmit if so or if `force` (after a recovery), and restores `running`.
    pub(super) fn sync(&mut self, h: &mut impl Host, changed: bool, force: bool) -> Submit {
        if changed {
            h.publish(&self.policy.decision());
        }
        // A freed slot keeps no handle (all-zero), and 0 is also a valid handle (the policy's
        // first client): only a slot in use can still be the running one. Without a running
        // client the cache is cleared whatever it names (a removed running client's slot is
        // free now and may be reused before the next sync).
        let run = self.policy.running_rt().map(ClientId::to_raw);
        let cached = slot_of(self.running)
            .and_then(|s| self.clients.get(s))
            .filter(|c| c.in_use)
            .map(|c| c.handle);
        if run.is_none() {
            self.running = 0;
        } else if run != cached {
            self.running = run
                .and_then(|h| self.clients.iter().position(|c| c.in_use && c.handle == h))
                .map_or(0, plus1);
        }
        // U8 (`docs/analysis.md`): the old holder loses the boost before its TSGs lose the
        // GPU (here, before the submit), the new one gets it only once its TSGs have it (after
        // the submit and its pending wait), still inside this update.
        self.sync_boost(h, false);
        if !(changed || force) || !self.bound {
            self.sync_boost(h, true);
            return Submit::None;
        }
        self.counters.submits = self.counters.submits.wrapping_add(1);
        let done = h.apply();
        self.sync_boost(h, true);
        let applied = match done {
            Ok(a) => a,
            Err(e) => self.mechanism.failed(e),
        };
        self.applied = Some(self.applied.map_or(applied, |a| a.costlier(applied)));
        match done {
            Ok(_) => Submit::Done,
            Err(e) => {
                // The decision is published: the driver's own rebuild paths (resume, recovery)
                // list exactly it, so there is nothing to retry here.
                self.counters.submit_errors = self.counters.submit_errors.wrapping_add(1);
                if e == Errno::ETIMEDOUT {
                    self.counters.submit_timeouts = self.counters.submit_timeouts.wrapping_add(1);
                }
                if self.counters.submit_errors == 1 {
                    h.warn(Warning::ResubmitFailed(e));
                }
                Submit::Failed
            }
        }
    }
}

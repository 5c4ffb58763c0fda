// SPDX-License-Identifier: GPL-2.0

//! # gcaps-policy: the GCAPS scheduling decision
//!
//! GCAPS (GPU Context-Aware Preemptive priority-based Scheduling, ECRTS 2024) decides
//! which TSGs (GPU time-sliced groups, one per process and runlist) may be on a Tegra
//! GPU runlist. This crate is the decision (the runlist entry encoding and the
//! double-buffer submit model are `gcaps-runlist`, `module/runlist`): `no_std`, no allocation, no `unsafe`, no
//! dependencies, no panicking paths (no `unwrap`, no unchecked indexing or arithmetic
//! that can overflow), no floating point. The same source is used as a normal crate
//! by userspace (simulator, tests) and included with `#[path]` into the Rust kernel
//! module (see "Kernel inclusion" below and `docs/policy.md`).
//!
//! ## State and events ([`Policy`])
//!
//! * **Clients** are processes that use gcaps. [`Policy::register`] takes a
//!   [`ProcessKey`] (a 64-bit process identity that is never reused while the system
//!   runs) and an initial [`SchedClass`] (real-time priority `1..=99`, larger = more
//!   important, or best-effort) and returns a [`ClientId`] handle (slot + generation;
//!   stale handles are rejected).
//! * **Segments**: [`Policy::seg_begin`] with the caller's [`SchedClass`] at that moment
//!   (one event: the class and the segment take effect in one decision) and a
//!   [`GpuPriority`] (inherit the CPU priority, or an explicit `1..=99`, real-time
//!   clients only), [`Policy::seg_end`].
//! * **Client gone** ([`Policy::client_gone`]): the process died or closed its file;
//!   an open segment ends. [`Policy::unregister`] is the orderly variant.
//! * **Decision snapshot**: [`Policy::decision`] returns a copyable [`Decision`]
//!   (eligible set, `all` flag, generation) that the kernel publishes for the GPU
//!   driver's runlist builder, which must not take the policy's lock.
//! * **TSGs** are reported by the driver for *every* process ([`Policy::tsg_create`]
//!   with the owner's key, [`Policy::tsg_destroy`]); [`Policy::tsg_changed`] reports
//!   channel or parameter changes of a TSG. A TSG belongs to the client registered with
//!   the same key, whenever that registration happens.
//! * **Always-eligible** TSGs ([`Policy::set_always_eligible`]), e.g. the display
//!   compositor's, chosen by the administrator, never by process names.
//!
//! ## Rules (paper Alg. 1 and Sec. 5.3, with the prototype's defects fixed)
//!
//! The decision is a pure function of the bookkeeping, recomputed after every event:
//!
//! 1. A segment is *real-time* if its client is real-time; its effective priority is
//!    the explicit GPU priority, else the client's CPU priority.
//! 2. While at least one real-time segment is open, the **winner** is the open
//!    real-time segment with the highest effective priority, ties broken by the order
//!    the segments began (first come, first served; no interleaving). The eligible set
//!    is exactly the winner's TSGs plus the always-eligible TSGs.
//! 3. While no real-time segment is open, **every** TSG is eligible: best-effort
//!    clients in segments, clients between segments and processes that do not use
//!    gcaps share the GPU time-sliced, as with the stock driver.
//! 4. Every other open segment is *pending* ([`ClientStatus::Pending`]) and becomes
//!    running as soon as it is the winner by rule 2 or rule 3.
//!
//! Consequences (checked by the exhaustive model check in `tests/model_check/`):
//! eligible and pending clients are disjoint; every open segment is running or
//! pending; at most one real-time segment runs and it has the highest priority; no
//! event removes the TSGs of a client that still should run.
//!
//! ## Errors
//!
//! Every event validates all its inputs before it changes anything: an `Err` leaves
//! the state bit-for-bit unchanged (see [`Error`]; the order in which errors are
//! checked is documented per event). Out-of-range ids, stale handles and bad
//! priorities are errors, never panics.
//!
//! ## Change reporting contract
//!
//! Each successful event returns an [`Outcome`]. `changed` is `true` exactly when the
//! hardware runlist content derived from the policy must change:
//!
//! * the eligible set (a set of TSG ids) differs from before the event; this includes
//!   creating or destroying an eligible TSG, so a TSG id destroyed and re-created for
//!   another process is two reported changes if either incarnation is eligible;
//! * or [`Policy::tsg_changed`] was reported for an eligible TSG (its channels or
//!   timeslice changed, so its entries differ).
//!
//! `decision_changed` is `true` exactly when the [`Decision`] snapshot changed: the `all`
//! flag flipped (also while no TSG exists) or, while a real-time segment runs, the
//! eligible set changed. [`Policy::decision_generation`] counts those events and is the
//! snapshot's `generation`; the kernel module publishes the snapshot (and has the driver
//! resubmit) after exactly these events and keeps no copy of its own.
//!
//! A TSG that is created while a real-time segment is open and is not the winner's is
//! not eligible (`changed == false`) and must not appear on the runlist. The policy
//! keeps no cache of "what is on the hardware": [`Policy::generation`] counts reported
//! changes, and a caller that remembers the generation it last got onto the hardware
//! (`gcaps_runlist::DoubleBuffer::needs_submit`) resubmits after a failed or skipped submit even
//! when a later event reports no change.
//!
//! ## Complexity
//!
//! With C = client capacity and T = TSG capacity: segment and client events cost
//! O(C + T/64) (one pass over the clients to find the winner; the eligible set is the
//! winner's TSG bit set, maintained per client, OR the always-eligible set, AND the
//! existing set, compared word by word); `register` costs O(C + T) (it collects the
//! TSGs already created for its key); TSG events cost O(C + T/64). `benches/decide.rs`
//! measures it.
//!
//! ## Kernel inclusion
//!
//! The kernel module cannot use Cargo crates; the module's core (`module/core`,
//! `gcaps-core`), which the module includes the same way, includes this crate as a module:
//!
//! ```text
//! #[allow(unreachable_pub, unused_attributes, clippy::module_inception)]
//! #[path = "../../policy/src/lib.rs"]
//! pub mod policy;
//! ```
//!
//! The code therefore never uses `crate::` paths (they would resolve to the kernel
//! module's root), only `super::`/`self::`, and uses no crate-level attribute other
//! than `#![no_std]` and lint levels; it avoids code whose panic paths objtool flags
//! (e.g. chunk iterators). The default [`Policy`] is about 27.4 KiB: never build it on
//! the kernel stack. Its all-zero bit pattern equals [`Policy::new`], so the module can
//! declare `unsafe impl kernel::init::Zeroable for policy::Policy {}` (the type is local
//! to the module's crate) and allocate it with
//! `KBox::init(kernel::init::zeroed(), GFP_KERNEL)`; a `static` (via the `const fn
//! new`) also works, and [`Policy::reset`] re-initialises in place. See `docs/policy.md`
//! for the exact fixture used to check this against the test kernel.

#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing,
        clippy::float_arithmetic
    )
)]

pub mod policy;
pub mod set;

// The re-exports are the crate's API for userspace; inside the kernel module (where
// this file is a private module) unused ones must not warn.
#[allow(unused_imports)]
pub use self::policy::{
    priority_in_range, ClientId, ClientInfo, ClientStatus, Decision, Error, GpuPriority, Outcome,
    Policy, ProcessKey, SchedClass, Segment, MAX_PRIORITY, MIN_PRIORITY,
};
#[allow(unused_imports)]
pub use self::set::{TsgSet, TsgSetIter};

// SPDX-License-Identifier: GPL-2.0

//! # gcaps-core: gcaps.ko's logic, without a kernel
//!
//! Everything `gcaps.ko` decides, as a `no_std` crate with no allocation, no `unsafe`, no
//! `kernel` crate and no C function: the client table and its lifecycle (open, begin, end,
//! release, owner exit, with the slot + id identity of [`ClientRef`]), the permission rules
//! (from the class, priorities and capabilities the host reads), the policy calls (the
//! `gcaps-policy` crate, included below), the mirror of the driver's TSGs and the application
//! of its events, the statistics (counters, reset scope, histogram, rejected calls), the trace
//! ring's contents (sequence numbers, overwritten and dropped events), the UAPI structs and
//! their validation, and the Linux error numbers ([`Errno`]).
//!
//! A host (the Rust-for-Linux module in `module/gcaps/`) keeps what needs the kernel: ioctl
//! entry and user copies, the update lock and the trace lock, the update ceiling, the C glue
//! (the published snapshot, the driver's event table and binding, pids). It feeds events in
//! (calls on [`Core`] with the update lock held) and the core acts through the [`Host`]
//! trait: publish this decision, resubmit, record this trace event, warn. `docs/core.md`
//! describes the interface.
//!
//! ## Kernel inclusion
//!
//! The kernel module includes this file as a module, like the policy:
//!
//! ```text
//! #[allow(unreachable_pub, unused_attributes)]
//! #[path = "../core/src/lib.rs"]
//! mod gcaps_core;
//! ```
//!
//! and this file includes the policy's source the same way (below), in the cargo build and in
//! the kernel build alike, so the policy is `gcaps_core::policy` in both. The code therefore
//! never uses `crate::` paths, only `super::`/`self::`, and no crate-level attribute other than
//! `#![no_std]` and lint levels.

#![no_std]
#![forbid(unsafe_code)]
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

/// The scheduling decision (`module/policy`, the same source as the `gcaps-policy` crate).
/// Allowed: what the inclusion makes wrong (the crate API's `pub`, its `#![no_std]`, a module
/// `policy` in a module `policy`); dead code is reported, the policy's items gcaps.ko does not
/// use carry their own allow.
#[allow(unreachable_pub, unused_attributes, clippy::module_inception)]
#[path = "../../policy/src/lib.rs"]
pub mod policy;

pub mod boost;
pub mod errno;
pub mod ioctl;
pub mod state;
pub mod stats;
pub mod trace;
pub mod uapi;

// The re-exports are the crate's API for userspace; inside the kernel module (where this file
// is a private module) unused ones must not warn.
#[allow(unused_imports)]
pub use self::boost::{Holder, Params, Saved, Set, TaskToken};
#[allow(unused_imports)]
pub use self::errno::Errno;
#[allow(unused_imports)]
pub use self::state::{
    Call, ClientRef, Core, Counters, Decision, Exits, Host, ListBuf, Mechanism, Opener, PidToken,
    TsgEvent, Warning, MAX_CLIENTS, MAX_TSGS, TSG_WORDS,
};

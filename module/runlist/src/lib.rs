// SPDX-License-Identifier: GPL-2.0

//! # gcaps-runlist: Tegra GPU runlists as GCAPS drives them
//!
//! What a GPU driver does with the policy's decision (`gcaps-policy`), as plain code for
//! tests and models of the driver side: the Volta/Ampere (gv11b, ga10b) runlist entry
//! encoding and decoding and a runlist built from an eligible set ([`runlist`],
//! `docs/nvgpu-facts.md`: the format and its source in nvgpu), and the double-buffered submit as a state machine
//! ([`dbuf`]). Not part of `gcaps.ko`: the driver that builds the real runlist is C (the
//! emulated GPU `module/simgpu`, the nvgpu patch), and this crate is the reference its tests
//! decode against. `benches/decide.rs` measures a decision plus the rebuild it triggers.
//! `no_std`, no allocation, no `unsafe`.

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

#[cfg(test)]
extern crate std;

pub mod dbuf;
pub mod runlist;

pub use self::dbuf::{Buffer, DbError, DoubleBuffer, Phase};
pub use self::runlist::{
    build_runlist, decode_entry, encode_channel_entry, encode_tsg_entry, read_entry, Aperture,
    ChannelDesc, ChannelEntry, Entry, RunlistError, RunlistWriter, Timeslice, TsgSource,
    ENTRY_SIZE, MAX_CHANNELS_PER_TSG,
};

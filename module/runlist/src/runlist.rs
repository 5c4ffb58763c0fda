//! Volta/Ampere (gv11b, ga10b) runlist entry encoding and runlist construction.
//!
//! Every entry is 16 bytes: four little-endian 32-bit words `w0..w3`. A TSG entry is
//! followed immediately by its channel entries; the TSG entry's length field equals
//! the number of channel entries that follow (at most 128).
//!
//! TSG entry: `w0 = 1 | scale << 16 | timeout << 24`, `w1 = channel count`,
//! `w2 = tsgid` (12 bits), `w3 = 0`.
//!
//! Channel entry: `w0 = runqueue << 1 | inst_aperture << 4 | userd_aperture << 6 |
//! USERD address bits 8..31 in place`, `w1 = USERD address bits 32..63`,
//! `w2 = chid (12 bits) | instance block address bits 12..31 in place`,
//! `w3 = instance block address bits 32..63`.

use gcaps_policy::TsgSet;

/// Size of one runlist entry in bytes.
pub const ENTRY_SIZE: usize = 16;
/// Maximum number of channel entries after one TSG entry.
pub const MAX_CHANNELS_PER_TSG: usize = 128;
/// Largest TSG id or channel id the 12-bit entry fields can hold.
pub const MAX_HW_ID: u32 = 0xfff;
/// Largest number of entries in one runlist (the submit length field is 16 bits).
pub const MAX_ENTRIES: usize = 0xffff;
/// Required alignment of a channel's instance block address.
pub const INST_ALIGN: u64 = 1 << 12;
/// Required alignment of a channel's USERD address.
pub const USERD_ALIGN: u64 = 1 << 8;

/// Why a runlist entry or runlist could not be built. Nothing is written when a
/// [`RunlistWriter::push_tsg`] call fails.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum RunlistError {
    /// The buffer holds `capacity` entries but `needed` are required.
    BufferTooSmall {
        /// Entries needed so far, including the TSG being written.
        needed: usize,
        /// Entries the buffer can hold.
        capacity: usize,
    },
    /// More than [`MAX_ENTRIES`] entries in total.
    TooManyEntries,
    /// A TSG with more than [`MAX_CHANNELS_PER_TSG`] channels.
    TooManyChannels {
        /// The TSG.
        tsgid: u32,
        /// Its number of channels.
        count: usize,
    },
    /// A TSG id above [`MAX_HW_ID`].
    TsgIdOutOfRange(u32),
    /// A channel id above [`MAX_HW_ID`].
    ChannelIdOutOfRange(u32),
    /// A runqueue selector other than 0 or 1.
    InvalidRunqueue(u8),
    /// An instance block address not aligned to [`INST_ALIGN`].
    MisalignedInstBlock(u64),
    /// A USERD address not aligned to [`USERD_ALIGN`].
    MisalignedUserd(u64),
    /// A timeslice scale above 15.
    TimesliceScaleOutOfRange(u8),
    /// Decoding: an aperture code that is not 0, 2 or 3.
    InvalidAperture(u8),
    /// Decoding: a non-zero reserved field.
    ReservedBitsSet,
}

/// Memory aperture of an instance block or USERD.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Aperture {
    /// Video memory (code 0; not used on Tegra).
    VidMem,
    /// System memory, coherent (code 2).
    SysMemCoherent,
    /// System memory, non-coherent (code 3).
    SysMemNonCoherent,
}

impl Aperture {
    /// The 2-bit hardware code.
    pub const fn code(self) -> u32 {
        match self {
            Aperture::VidMem => 0,
            Aperture::SysMemCoherent => 2,
            Aperture::SysMemNonCoherent => 3,
        }
    }

    /// Decodes a 2-bit hardware code.
    pub const fn from_code(code: u8) -> Result<Self, RunlistError> {
        match code {
            0 => Ok(Aperture::VidMem),
            2 => Ok(Aperture::SysMemCoherent),
            3 => Ok(Aperture::SysMemNonCoherent),
            c => Err(RunlistError::InvalidAperture(c)),
        }
    }
}

/// A TSG timeslice as encoded in the TSG entry: `timeout << scale` units of 1024 ns.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Timeslice {
    timeout: u8,
    scale: u8,
}

impl Timeslice {
    /// nvgpu's default timeslice: timeout 128, scale 3 (1024 units).
    pub const DEFAULT: Self = Self {
        timeout: 128,
        scale: 3,
    };

    /// Encodes a timeslice given in hardware units of 1024 ns. nvgpu passes its
    /// `timeslice_us` (after ptimer scaling) as this value, so `encode(1024)` is the
    /// default entry (128, 3).
    ///
    /// Algorithm: `while value > 255 && scale < 15 { value >>= 1; scale += 1 }`, then
    /// the timeout is clamped to 255 (so anything at or above `255 << 15` units
    /// encodes as (255, 15)). Bits shifted out are truncated, as nvgpu does. 0 encodes
    /// as (0, 0); the caller should bound timeslices (nvgpu uses 1000..=50000 us).
    pub const fn encode(units: u64) -> Self {
        let mut v = units;
        let mut scale: u8 = 0;
        while v > 255 && scale < 15 {
            v >>= 1;
            scale += 1;
        }
        let timeout = if v > 255 { 255 } else { v as u8 };
        Self { timeout, scale }
    }

    /// Builds a timeslice from raw fields; `scale` must be at most 15.
    pub const fn from_raw(timeout: u8, scale: u8) -> Result<Self, RunlistError> {
        if scale > 15 {
            Err(RunlistError::TimesliceScaleOutOfRange(scale))
        } else {
            Ok(Self { timeout, scale })
        }
    }

    /// The 8-bit timeout field.
    pub const fn timeout(self) -> u8 {
        self.timeout
    }

    /// The 4-bit scale field.
    pub const fn scale(self) -> u8 {
        self.scale
    }

    /// `timeout << scale`, in units of 1024 ns (at most `255 << 15`).
    pub const fn units(self) -> u64 {
        (self.timeout as u64) << (self.scale & 15)
    }

    /// The effective timeslice in nanoseconds: `(timeout << scale) * 1024`.
    pub const fn effective_ns(self) -> u64 {
        self.units() << 10
    }
}

/// Everything the runlist needs about one channel.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct ChannelDesc {
    /// Channel id (at most [`MAX_HW_ID`]).
    pub chid: u32,
    /// Runqueue selector, 0 or 1 (1 for subcontexts above VEID 0).
    pub runqueue: u8,
    /// Instance block address (aligned to [`INST_ALIGN`]).
    pub inst_addr: u64,
    /// Aperture of the instance block.
    pub inst_aperture: Aperture,
    /// USERD address (aligned to [`USERD_ALIGN`]).
    pub userd_addr: u64,
    /// Aperture of USERD.
    pub userd_aperture: Aperture,
}

/// A decoded runlist entry.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Entry {
    /// A TSG header.
    Tsg {
        /// TSG id.
        tsgid: u32,
        /// Timeslice.
        timeslice: Timeslice,
        /// Number of channel entries that follow.
        channels: u32,
    },
    /// A channel entry.
    Channel(ChannelDesc),
}

/// Encodes a TSG entry for `tsgid` with `channels` channel entries following.
pub fn encode_tsg_entry(
    tsgid: u32,
    timeslice: Timeslice,
    channels: usize,
) -> Result<[u32; 4], RunlistError> {
    if tsgid > MAX_HW_ID {
        return Err(RunlistError::TsgIdOutOfRange(tsgid));
    }
    let n = match u32::try_from(channels) {
        Ok(n) if channels <= MAX_CHANNELS_PER_TSG => n,
        _ => {
            return Err(RunlistError::TooManyChannels {
                tsgid,
                count: channels,
            })
        }
    };
    let w0 = 1 | (u32::from(timeslice.scale & 15) << 16) | (u32::from(timeslice.timeout) << 24);
    Ok([w0, n, tsgid, 0])
}

/// Checks that a channel can be encoded.
fn check_channel(ch: &ChannelDesc) -> Result<(), RunlistError> {
    if ch.chid > MAX_HW_ID {
        return Err(RunlistError::ChannelIdOutOfRange(ch.chid));
    }
    if ch.runqueue > 1 {
        return Err(RunlistError::InvalidRunqueue(ch.runqueue));
    }
    if ch.inst_addr % INST_ALIGN != 0 {
        return Err(RunlistError::MisalignedInstBlock(ch.inst_addr));
    }
    if ch.userd_addr % USERD_ALIGN != 0 {
        return Err(RunlistError::MisalignedUserd(ch.userd_addr));
    }
    Ok(())
}

/// Encodes a channel that passed `check_channel` (pure bit operations; fields are
/// masked, so any input gives some value without panicking).
fn channel_words(ch: &ChannelDesc) -> [u32; 4] {
    let w0 = (u32::from(ch.runqueue & 1) << 1)
        | (ch.inst_aperture.code() << 4)
        | (ch.userd_aperture.code() << 6)
        | ((ch.userd_addr & 0xffff_ff00) as u32);
    let w1 = (ch.userd_addr >> 32) as u32;
    let w2 = (ch.chid & MAX_HW_ID) | ((ch.inst_addr & 0xffff_f000) as u32);
    let w3 = (ch.inst_addr >> 32) as u32;
    [w0, w1, w2, w3]
}

/// The 16 little-endian bytes of an entry.
fn entry_bytes(words: [u32; 4]) -> [u8; ENTRY_SIZE] {
    let [w0, w1, w2, w3] = words;
    let v =
        u128::from(w0) | (u128::from(w1) << 32) | (u128::from(w2) << 64) | (u128::from(w3) << 96);
    v.to_le_bytes()
}

/// The four words of 16 little-endian bytes (the inverse of [`entry_bytes`]).
fn entry_words(bytes: [u8; ENTRY_SIZE]) -> [u32; 4] {
    let v = u128::from_le_bytes(bytes);
    [
        v as u32,
        (v >> 32) as u32,
        (v >> 64) as u32,
        (v >> 96) as u32,
    ]
}

/// Encodes a channel entry.
pub fn encode_channel_entry(ch: &ChannelDesc) -> Result<[u32; 4], RunlistError> {
    check_channel(ch)?;
    Ok(channel_words(ch))
}

/// A channel's runlist entry, validated and encoded once, when the driver binds the
/// channel or its parameters change (the caller keeps it next to the channel), so a
/// runlist rebuild only copies bytes. The only way to make one is [`ChannelEntry::new`],
/// so every `ChannelEntry` is a valid channel entry.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct ChannelEntry([u8; ENTRY_SIZE]);

impl ChannelEntry {
    /// Validates and encodes `ch`.
    pub fn new(ch: &ChannelDesc) -> Result<Self, RunlistError> {
        encode_channel_entry(ch).map(|words| Self(entry_bytes(words)))
    }

    /// The entry's four words.
    pub fn words(&self) -> [u32; 4] {
        entry_words(self.0)
    }
}

/// Decodes one entry (the inverse of the two encoders).
pub fn decode_entry(w: [u32; 4]) -> Result<Entry, RunlistError> {
    let [w0, w1, w2, w3] = w;
    if w0 & 1 == 1 {
        // Reserved: w0 bits 1..15 and 20..23, w1 bits 8..31, w2 bits 12..31, w3.
        if w0 & 0x00f0_fffe != 0 || w1 & !0xff != 0 || w2 & !MAX_HW_ID != 0 || w3 != 0 {
            return Err(RunlistError::ReservedBitsSet);
        }
        let timeslice = Timeslice::from_raw((w0 >> 24) as u8, ((w0 >> 16) & 15) as u8)?;
        Ok(Entry::Tsg {
            tsgid: w2,
            timeslice,
            channels: w1,
        })
    } else {
        if w0 & 0x8 != 0 {
            return Err(RunlistError::ReservedBitsSet);
        }
        Ok(Entry::Channel(ChannelDesc {
            chid: w2 & MAX_HW_ID,
            runqueue: ((w0 >> 1) & 1) as u8,
            inst_addr: (u64::from(w3) << 32) | u64::from(w2 & 0xffff_f000),
            inst_aperture: Aperture::from_code(((w0 >> 4) & 3) as u8)?,
            userd_addr: (u64::from(w1) << 32) | u64::from(w0 & 0xffff_ff00),
            userd_aperture: Aperture::from_code(((w0 >> 6) & 3) as u8)?,
        }))
    }
}

/// Reads entry `index` of a runlist buffer, `None` if it lies outside the buffer.
pub fn read_entry(buf: &[u8], index: usize) -> Option<[u32; 4]> {
    let start = index.checked_mul(ENTRY_SIZE)?;
    let bytes: &[u8; ENTRY_SIZE] = buf
        .get(start..start.checked_add(ENTRY_SIZE)?)?
        .try_into()
        .ok()?;
    Some(entry_words(*bytes))
}

/// Writes runlist entries into a caller-provided byte buffer (e.g. the DMA buffer the
/// hardware is not reading), TSG by TSG.
#[derive(Debug)]
pub struct RunlistWriter<'a> {
    buf: &'a mut [u8],
    entries: usize,
}

impl<'a> RunlistWriter<'a> {
    /// Starts an empty runlist at the beginning of `buf`.
    pub fn new(buf: &'a mut [u8]) -> Self {
        Self { buf, entries: 0 }
    }

    /// Number of entries written so far (the submit length).
    pub fn entries(&self) -> usize {
        self.entries
    }

    /// Number of bytes written so far.
    pub fn bytes(&self) -> usize {
        self.entries.saturating_mul(ENTRY_SIZE)
    }

    /// Number of entries the buffer can hold.
    pub fn capacity(&self) -> usize {
        self.buf.len() / ENTRY_SIZE
    }

    /// Appends one TSG entry followed by its channel entries. A TSG without channels
    /// is skipped (nothing written, `Ok`), as nvgpu only lists TSGs with active
    /// channels. All inputs are validated before anything is written, so on error
    /// the buffer and the entry count are unchanged.
    pub fn push_tsg(
        &mut self,
        tsgid: u32,
        timeslice: Timeslice,
        channels: &[ChannelEntry],
    ) -> Result<(), RunlistError> {
        if channels.is_empty() {
            return Ok(());
        }
        let header = encode_tsg_entry(tsgid, timeslice, channels.len())?;
        // channels.len() <= 128 here, so these cannot overflow in practice; checked
        // anyway.
        let needed = self
            .entries
            .checked_add(1)
            .and_then(|n| n.checked_add(channels.len()))
            .ok_or(RunlistError::TooManyEntries)?;
        if needed > MAX_ENTRIES {
            return Err(RunlistError::TooManyEntries);
        }
        let capacity = self.capacity();
        let too_small = RunlistError::BufferTooSmall { needed, capacity };
        if needed > capacity {
            return Err(too_small);
        }
        // Space is checked, so the writes below cannot fail; they are still bounds
        // checked without panicking paths (no chunk iterators: their length division
        // has a panic path that objtool flags in kernel builds).
        let start = self.bytes();
        let end = needed.checked_mul(ENTRY_SIZE).ok_or(too_small)?;
        let mut rest = self.buf.get_mut(start..end).ok_or(too_small)?;
        let entries = core::iter::once(entry_bytes(header)).chain(channels.iter().map(|c| c.0));
        for bytes in entries {
            let (slot, tail) = rest
                .split_first_chunk_mut::<ENTRY_SIZE>()
                .ok_or(too_small)?;
            *slot = bytes;
            rest = tail;
        }
        self.entries = needed;
        Ok(())
    }
}

/// Where [`build_runlist`] gets each eligible TSG's timeslice and channels from.
pub trait TsgSource {
    /// Timeslice of the TSG.
    fn timeslice(&self, tsgid: u32) -> Timeslice;
    /// The TSG's runnable channels, already encoded (empty: the TSG is not listed).
    fn channels(&self, tsgid: u32) -> &[ChannelEntry];
}

/// Builds a whole runlist for the TSGs in `set` (in increasing TSG id order) into
/// `buf` and returns the number of entries. On error the buffer content is
/// unspecified and must not be submitted.
pub fn build_runlist<S: TsgSource + ?Sized, const W: usize>(
    buf: &mut [u8],
    set: &TsgSet<W>,
    src: &S,
) -> Result<usize, RunlistError> {
    let mut w = RunlistWriter::new(buf);
    for tsgid in set.iter() {
        w.push_tsg(tsgid, src.timeslice(tsgid), src.channels(tsgid))?;
    }
    Ok(w.entries())
}

#[cfg(test)]
mod tests;

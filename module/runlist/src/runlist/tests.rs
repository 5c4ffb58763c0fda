//! Runlist encoding tests: the worked examples of the facts file, own vectors,
//! timeslice edge cases, errors.

extern crate std;

use super::*;
use gcaps_policy::TsgSet;
use std::vec;
use std::vec::Vec;

fn enc(descs: &[ChannelDesc]) -> Vec<ChannelEntry> {
    descs
        .iter()
        .map(|c| ChannelEntry::new(c).unwrap())
        .collect()
}

fn ch(chid: u32, inst: u64, userd: u64) -> ChannelDesc {
    ChannelDesc {
        chid,
        runqueue: 0,
        inst_addr: inst,
        inst_aperture: Aperture::SysMemCoherent,
        userd_addr: userd,
        userd_aperture: Aperture::SysMemCoherent,
    }
}

/// Facts file, worked example: TSG 5, default timeslice, two channels.
#[test]
fn worked_example_tsg_entry() {
    assert_eq!(
        encode_tsg_entry(5, Timeslice::DEFAULT, 2),
        Ok([0x8003_0001, 0x0000_0002, 0x0000_0005, 0x0000_0000])
    );
    // nouveau's literal form of the same header.
    assert_eq!(
        encode_tsg_entry(5, Timeslice::DEFAULT, 2).unwrap()[0],
        (128 << 24) | (3 << 16) | 1
    );
}

/// Facts file, worked example: channel 17, runqueue 0, instance block at
/// 0x1_2345_6000 and USERD at 0x8000_0200, both system memory coherent.
#[test]
fn worked_example_channel_entry() {
    let c = ch(17, 0x1_2345_6000, 0x8000_0200);
    assert_eq!(
        encode_channel_entry(&c),
        Ok([0x8000_02a0, 0x0000_0000, 0x2345_6011, 0x0000_0001])
    );
    assert_eq!(
        decode_entry([0x8000_02a0, 0, 0x2345_6011, 1]),
        Ok(Entry::Channel(c))
    );
}

#[test]
fn own_channel_vectors() {
    // Non-coherent sysmem, runqueue 1, high USERD bits, max chid.
    let c = ChannelDesc {
        chid: 0xfff,
        runqueue: 1,
        inst_addr: 0xdead_beef_f000,
        inst_aperture: Aperture::SysMemNonCoherent,
        userd_addr: 0x0000_00ab_cdef_0100,
        userd_aperture: Aperture::SysMemNonCoherent,
    };
    let w = encode_channel_entry(&c).unwrap();
    assert_eq!(w, [0xcdef_01f2, 0x0000_00ab, 0xbeef_ffff, 0x0000_dead]);
    assert_eq!(decode_entry(w), Ok(Entry::Channel(c)));
    // Video memory, zero addresses, chid 0.
    let z = ChannelDesc {
        chid: 0,
        runqueue: 0,
        inst_addr: 0,
        inst_aperture: Aperture::VidMem,
        userd_addr: 0,
        userd_aperture: Aperture::VidMem,
    };
    assert_eq!(encode_channel_entry(&z), Ok([0, 0, 0, 0]));
    // Mixed apertures land in their own fields.
    let m = ChannelDesc {
        inst_aperture: Aperture::SysMemNonCoherent,
        userd_aperture: Aperture::VidMem,
        ..z
    };
    assert_eq!(encode_channel_entry(&m).unwrap()[0], 3 << 4);
    let m = ChannelDesc {
        inst_aperture: Aperture::VidMem,
        userd_aperture: Aperture::SysMemCoherent,
        ..z
    };
    assert_eq!(encode_channel_entry(&m).unwrap()[0], 2 << 6);
}

#[test]
fn own_tsg_vectors() {
    let ts = Timeslice::from_raw(0xff, 0xf).unwrap();
    assert_eq!(
        encode_tsg_entry(0xfff, ts, 128),
        Ok([0xff0f_0001, 128, 0xfff, 0])
    );
    assert_eq!(
        decode_entry([0xff0f_0001, 128, 0xfff, 0]),
        Ok(Entry::Tsg {
            tsgid: 0xfff,
            timeslice: ts,
            channels: 128
        })
    );
    assert_eq!(
        encode_tsg_entry(0, Timeslice::encode(1), 1),
        Ok([0x0100_0001, 1, 0, 0])
    );
}

#[test]
fn timeslice_encoding_edges() {
    let e = |v: u64| {
        let t = Timeslice::encode(v);
        (t.timeout(), t.scale())
    };
    assert_eq!(e(0), (0, 0));
    assert_eq!(e(1), (1, 0));
    assert_eq!(e(255), (255, 0));
    assert_eq!(e(256), (128, 1));
    assert_eq!(e(257), (128, 1)); // truncation, as nvgpu
    assert_eq!(e(511), (255, 1));
    assert_eq!(e(512), (128, 2));
    assert_eq!(e(1024), (128, 3)); // nvgpu default 1024 us
    assert_eq!(Timeslice::encode(1024), Timeslice::DEFAULT);
    assert_eq!(e(1000), (250, 2)); // nvgpu minimum
    assert_eq!(e(50_000), (195, 8)); // nvgpu maximum
    assert_eq!(e(255 << 15), (255, 15)); // largest exact value
    assert_eq!(e((255 << 15) + (1 << 15)), (255, 15)); // clamped
    assert_eq!(e(256 << 15), (255, 15));
    assert_eq!(e(u64::MAX), (255, 15));
    assert_eq!(Timeslice::DEFAULT.units(), 1024);
    assert_eq!(Timeslice::DEFAULT.effective_ns(), 1_048_576);
    assert_eq!(
        Timeslice::encode(u64::MAX).effective_ns(),
        (255u64 << 15) * 1024
    );
    // Encoding never makes the timeslice longer, and loses less than a factor 2.
    for v in (1u64..5000).chain([1 << 20, 8_000_000]) {
        let u = Timeslice::encode(v).units();
        assert!(u <= v && u * 2 > v, "{v} -> {u}");
    }
    assert_eq!(
        Timeslice::from_raw(1, 16),
        Err(RunlistError::TimesliceScaleOutOfRange(16))
    );
}

#[test]
fn entry_validation_errors() {
    assert_eq!(
        encode_tsg_entry(0x1000, Timeslice::DEFAULT, 1),
        Err(RunlistError::TsgIdOutOfRange(0x1000))
    );
    assert_eq!(
        encode_tsg_entry(1, Timeslice::DEFAULT, 129),
        Err(RunlistError::TooManyChannels {
            tsgid: 1,
            count: 129
        })
    );
    let ok = ch(1, 0x1000, 0x100);
    assert!(encode_channel_entry(&ok).is_ok());
    let bad = |f: fn(&mut ChannelDesc)| {
        let mut c = ok;
        f(&mut c);
        encode_channel_entry(&c).unwrap_err()
    };
    assert_eq!(
        bad(|c| c.chid = 0x1000),
        RunlistError::ChannelIdOutOfRange(0x1000)
    );
    assert_eq!(bad(|c| c.runqueue = 2), RunlistError::InvalidRunqueue(2));
    assert_eq!(
        bad(|c| c.inst_addr = 0x1800),
        RunlistError::MisalignedInstBlock(0x1800)
    );
    assert_eq!(
        bad(|c| c.userd_addr = 0x180),
        RunlistError::MisalignedUserd(0x180)
    );
    // Decoding rejects what the encoder never produces.
    assert_eq!(
        decode_entry([0x0000_0010 | (1 << 4), 0, 0, 0]),
        Err(RunlistError::InvalidAperture(1))
    );
    assert_eq!(
        decode_entry([0x8003_0003, 2, 5, 0]),
        Err(RunlistError::ReservedBitsSet)
    );
    assert_eq!(
        decode_entry([0x8003_0001, 2, 5, 1]),
        Err(RunlistError::ReservedBitsSet)
    );
    assert_eq!(
        decode_entry([8, 0, 0, 0]),
        Err(RunlistError::ReservedBitsSet)
    );
}

#[test]
fn writer_produces_the_worked_example_bytes() {
    let mut buf = [0u8; 3 * ENTRY_SIZE];
    let chans = enc(&[
        ch(17, 0x1_2345_6000, 0x8000_0200),
        ch(18, 0x1_2345_7000, 0x8000_0300),
    ]);
    let mut w = RunlistWriter::new(&mut buf);
    assert_eq!(w.capacity(), 3);
    w.push_tsg(5, Timeslice::DEFAULT, &chans).unwrap();
    assert_eq!((w.entries(), w.bytes()), (3, 48));
    assert_eq!(
        buf[..16],
        [0x01, 0x00, 0x03, 0x80, 2, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0]
    );
    assert_eq!(read_entry(&buf, 0), Some([0x8003_0001, 2, 5, 0]));
    assert_eq!(read_entry(&buf, 1), Some([0x8000_02a0, 0, 0x2345_6011, 1]));
    assert_eq!(read_entry(&buf, 2), Some([0x8000_03a0, 0, 0x2345_7012, 1]));
    assert_eq!(read_entry(&buf, 3), None);
    assert_eq!(read_entry(&buf, usize::MAX), None);
}

#[test]
fn writer_buffer_too_small_writes_nothing() {
    let mut buf = [0xeeu8; 4 * ENTRY_SIZE + 7]; // 4 entries and a ragged tail
    let chans = enc(&[ch(1, 0x1000, 0x100), ch(2, 0x2000, 0x200)]);
    let mut w = RunlistWriter::new(&mut buf);
    assert_eq!(w.capacity(), 4);
    w.push_tsg(1, Timeslice::DEFAULT, &chans).unwrap();
    assert_eq!(
        w.push_tsg(2, Timeslice::DEFAULT, &chans),
        Err(RunlistError::BufferTooSmall {
            needed: 6,
            capacity: 4
        })
    );
    assert_eq!(w.entries(), 3);
    // The failed TSG left the rest of the buffer untouched.
    assert!(buf[3 * ENTRY_SIZE..].iter().all(|b| *b == 0xee));
    // An empty buffer.
    let mut w = RunlistWriter::new(&mut []);
    assert_eq!(
        w.push_tsg(0, Timeslice::DEFAULT, &chans[..1]),
        Err(RunlistError::BufferTooSmall {
            needed: 2,
            capacity: 0
        })
    );
}

#[test]
fn writer_validates_everything_before_writing() {
    // Channels are validated when they are encoded, before any runlist is written.
    assert_eq!(
        ChannelEntry::new(&ch(2, 0x2001, 0x200)),
        Err(RunlistError::MisalignedInstBlock(0x2001))
    );
    let good = ch(17, 0x1_2345_6000, 0x8000_0200);
    assert_eq!(
        ChannelEntry::new(&good).unwrap().words(),
        encode_channel_entry(&good).unwrap()
    );
    let many = enc(&[ch(1, 0x1000, 0x100); 129]);
    let mut big = vec![0u8; 200 * ENTRY_SIZE];
    let mut w = RunlistWriter::new(&mut big);
    assert_eq!(
        w.push_tsg(3, Timeslice::DEFAULT, &many),
        Err(RunlistError::TooManyChannels {
            tsgid: 3,
            count: 129
        })
    );
    assert_eq!(w.entries(), 0);
    assert_eq!(
        w.push_tsg(0x1000, Timeslice::DEFAULT, &many[..1]),
        Err(RunlistError::TsgIdOutOfRange(0x1000))
    );
    assert_eq!(w.entries(), 0);
    w.push_tsg(3, Timeslice::DEFAULT, &many[..128]).unwrap();
    assert_eq!(w.entries(), 129);
    // A TSG without channels is skipped.
    w.push_tsg(4, Timeslice::DEFAULT, &[]).unwrap();
    assert_eq!(w.entries(), 129);
    // Nothing past the 129 entries was written by the rejected calls.
    assert!(big[129 * ENTRY_SIZE..].iter().all(|b| *b == 0));
}

struct Src {
    descs: Vec<Vec<ChannelDesc>>,
    chans: Vec<Vec<ChannelEntry>>,
}

impl TsgSource for Src {
    fn timeslice(&self, tsgid: u32) -> Timeslice {
        Timeslice::encode(1000 + u64::from(tsgid))
    }
    fn channels(&self, tsgid: u32) -> &[ChannelEntry] {
        self.chans.get(tsgid as usize).map_or(&[], |v| v.as_slice())
    }
}

#[test]
fn build_runlist_lists_eligible_tsgs_in_id_order_and_round_trips() {
    let descs: Vec<Vec<ChannelDesc>> = (0..130u32)
        .map(|t| {
            (0..t % 3)
                .map(|i| ch(t * 3 + i, u64::from(t) << 12, u64::from(i) << 8))
                .collect()
        })
        .collect();
    let chans = descs.iter().map(|d| enc(d)).collect();
    let src = Src { descs, chans };
    let mut set = TsgSet::<3>::EMPTY;
    for t in [129, 1, 2, 3, 64, 65] {
        set.insert(t);
    }
    let mut buf = vec![0u8; 64 * ENTRY_SIZE];
    let n = build_runlist(&mut buf, &set, &src).unwrap();
    // 3 and 129 have no channels (t % 3 == 0) and are skipped.
    let mut decoded = Vec::new();
    for i in 0..n {
        decoded.push(decode_entry(read_entry(&buf, i).unwrap()).unwrap());
    }
    let mut expect = Vec::new();
    for t in [1u32, 2, 64, 65] {
        let c = &src.descs[t as usize];
        expect.push(Entry::Tsg {
            tsgid: t,
            timeslice: src.timeslice(t),
            channels: c.len() as u32,
        });
        expect.extend(c.iter().map(|c| Entry::Channel(*c)));
    }
    assert_eq!(decoded, expect);
    assert_eq!(n, 4 + 1 + 2 + 2 + 1);
    // Too small a buffer is a clear error.
    let mut small = vec![0u8; 5 * ENTRY_SIZE];
    assert_eq!(
        build_runlist(&mut small, &set, &src),
        Err(RunlistError::BufferTooSmall {
            needed: 7,
            capacity: 5
        })
    );
}

#[test]
fn aperture_codes() {
    for a in [
        Aperture::VidMem,
        Aperture::SysMemCoherent,
        Aperture::SysMemNonCoherent,
    ] {
        assert_eq!(Aperture::from_code(a.code() as u8), Ok(a));
    }
    assert_eq!(
        Aperture::from_code(1),
        Err(RunlistError::InvalidAperture(1))
    );
}

#[test]
fn runlist_length_is_limited_to_the_16_bit_submit_field() {
    let mut buf = vec![0u8; (MAX_ENTRIES + 200) * ENTRY_SIZE];
    let chans = enc(&[ch(1, 0x1000, 0x100); 128]);
    let mut w = RunlistWriter::new(&mut buf);
    let mut pushed = 0;
    loop {
        match w.push_tsg(1, Timeslice::DEFAULT, &chans) {
            Ok(()) => pushed += 1,
            Err(e) => {
                assert_eq!(e, RunlistError::TooManyEntries);
                break;
            }
        }
    }
    assert_eq!(pushed, MAX_ENTRIES / 129);
    assert_eq!(w.entries(), pushed * 129);
    // A smaller TSG still fits exactly up to the limit.
    let rest = MAX_ENTRIES - w.entries() - 1;
    w.push_tsg(2, Timeslice::DEFAULT, &chans[..rest]).unwrap();
    assert_eq!(w.entries(), MAX_ENTRIES);
}

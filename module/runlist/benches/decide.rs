//! Benchmark: one SegBegin/SegEnd decision plus the runlist rebuild it triggers, with
//! 1024 TSGs of which 64 belong to active (gcaps) clients. Run with
//! `cargo bench -p gcaps-runlist`. No external harness: plain `Instant` timing.

use gcaps_policy::{ClientId, GpuPriority, Policy, SchedClass, Segment};
use gcaps_runlist::{
    build_runlist, Aperture, ChannelDesc, ChannelEntry, DoubleBuffer, Timeslice, TsgSource,
    ENTRY_SIZE,
};
use std::hint::black_box;
use std::time::Instant;

const TSGS: u32 = 1024;
const CLIENTS: u32 = 16;
const TSGS_PER_CLIENT: u32 = 4; // 16 * 4 = 64 TSGs of active clients
const CHANNELS_PER_TSG: u32 = 2;
const NON_GCAPS_KEY: u32 = 1_000_000;

/// Channel entries are encoded once, when the driver binds a channel (as the kernel
/// backend keeps them), so a rebuild copies them.
struct Channels(Vec<Vec<ChannelEntry>>);

impl TsgSource for Channels {
    fn timeslice(&self, _tsgid: u32) -> Timeslice {
        Timeslice::DEFAULT
    }
    fn channels(&self, tsgid: u32) -> &[ChannelEntry] {
        self.0.get(tsgid as usize).map_or(&[], |v| v.as_slice())
    }
}

struct Setup {
    policy: Box<Policy>,
    clients: Vec<ClientId>,
    chans: Channels,
    bufs: [Vec<u8>; 2],
    db: DoubleBuffer,
}

fn setup() -> Setup {
    let mut policy: Box<Policy> = Box::default();
    let mut clients = Vec::new();
    for c in 0..CLIENTS {
        // Distinct real-time priorities 20..35, key = 100 + c.
        let (id, _) = policy
            .register(u64::from(100 + c), SchedClass::RealTime(20 + c as u8))
            .unwrap();
        clients.push(id);
    }
    // Client c owns TSGs c*64 .. c*64+3 (spread over all 16 words); everything else
    // belongs to processes that do not use gcaps.
    for t in 0..TSGS {
        let (c, i) = (t / 64, t % 64);
        let key = if i < TSGS_PER_CLIENT {
            100 + c
        } else {
            NON_GCAPS_KEY + t
        };
        policy.tsg_create(t, u64::from(key)).unwrap();
    }
    let chans = Channels(
        (0..TSGS)
            .map(|t| {
                (0..CHANNELS_PER_TSG)
                    .map(|k| {
                        ChannelEntry::new(&ChannelDesc {
                            chid: (t * CHANNELS_PER_TSG + k) % 4096,
                            runqueue: 0,
                            inst_addr: 0x1_0000_0000 + (u64::from(t) << 13) + (u64::from(k) << 12),
                            inst_aperture: Aperture::SysMemCoherent,
                            userd_addr: 0x8000_0000 + (u64::from(t * CHANNELS_PER_TSG + k) << 9),
                            userd_aperture: Aperture::SysMemCoherent,
                        })
                        .unwrap()
                    })
                    .collect()
            })
            .collect(),
    );
    let entries = (TSGS * (1 + CHANNELS_PER_TSG)) as usize;
    Setup {
        policy,
        clients,
        chans,
        bufs: [
            vec![0u8; entries * ENTRY_SIZE],
            vec![0u8; entries * ENTRY_SIZE],
        ],
        db: DoubleBuffer::new(),
    }
}

/// If the event changed the runlist: build into the free buffer, "submit", and
/// complete the double-buffer cycle. Returns the number of entries written.
fn rebuild(s: &mut Setup, changed: bool) -> usize {
    if !changed && !s.db.needs_submit(s.policy.generation()) {
        return 0;
    }
    let b = s.db.begin_build(s.policy.generation()).unwrap();
    let n = build_runlist(&mut s.bufs[b.index()], s.policy.eligible(), &s.chans).unwrap();
    s.db.submitted().unwrap();
    s.db.poll(false).unwrap();
    black_box(n)
}

/// Who keeps a segment open during a run.
#[derive(Clone, Copy)]
enum Background {
    None,
    /// The lowest-priority client: every other begin preempts it.
    Lowest,
    /// Client 0 at priority 90: every other begin is pending (the decision is kept).
    Highest,
}

fn run(name: &str, iters: u32, with_rebuild: bool, background: Background) {
    let mut s = setup();
    let prio = match background {
        Background::None => None,
        Background::Lowest => Some(20),
        Background::Highest => Some(90),
    };
    if let Some(p) = prio {
        // Client 0 stays in a segment: the GPU is always exclusive.
        s.policy
            .seg_begin(
                s.clients[0],
                Segment::RealTime {
                    cpu: p,
                    gpu: GpuPriority::Inherit,
                },
            )
            .unwrap();
    }
    rebuild(&mut s, true);
    let mut entries = [0usize; 2];
    let mut split = [0u128; 2];
    let start = Instant::now();
    for i in 0..iters {
        let c = s.clients[1 + (i % (CLIENTS - 1)) as usize];
        let t0 = Instant::now();
        let out = s
            .policy
            .seg_begin(
                black_box(c),
                Segment::RealTime {
                    cpu: 21 + (i % (CLIENTS - 1)) as u8,
                    gpu: GpuPriority::Inherit,
                },
            )
            .unwrap();
        if with_rebuild {
            entries[0] += rebuild(&mut s, out.changed);
        }
        let t1 = Instant::now();
        let out = s.policy.seg_end(black_box(c)).unwrap();
        if with_rebuild {
            entries[1] += rebuild(&mut s, out.changed);
        }
        let t2 = Instant::now();
        split[0] += (t1 - t0).as_nanos();
        split[1] += (t2 - t1).as_nanos();
    }
    let total = start.elapsed().as_nanos() as f64;
    let n = f64::from(iters);
    println!(
        "{name:<52} {:>7.0} ns/event | SegBegin {:>6.0} ns ({:>4.0} entries) | SegEnd {:>6.0} ns ({:>4.0} entries)",
        total / (2.0 * n),
        split[0] as f64 / n,
        entries[0] as f64 / n,
        split[1] as f64 / n,
        entries[1] as f64 / n,
    );
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing: quick run.
    let full = std::env::args().any(|a| a == "--bench");
    let iters = if full { 100_000 } else { 1_000 };
    println!(
        "gcaps-policy decision benchmark: {TSGS} TSGs ({} of {CLIENTS} gcaps clients, \
         {CHANNELS_PER_TSG} channels each), {} client slots",
        CLIENTS * TSGS_PER_CLIENT,
        <Policy>::CLIENT_CAPACITY
    );
    println!("(per-phase times include ~20-40 ns of timer overhead)");
    run(
        "decision only, RT preemption",
        iters,
        false,
        Background::Lowest,
    );
    run(
        "decision only, sole RT segment",
        iters,
        false,
        Background::None,
    );
    run(
        "decision only, pending (decision kept)",
        iters,
        false,
        Background::Highest,
    );
    run(
        "decision + rebuild, RT preemption",
        iters,
        true,
        Background::Lowest,
    );
    run(
        "decision + rebuild, sole RT segment",
        iters / 10,
        true,
        Background::None,
    );
    println!(
        "scenarios: 'RT preemption' = the lowest-priority client keeps a segment open while \
         each other client begins (preempting it) and ends; 'sole RT segment' = no other \
         segment is open, so SegEnd makes all {TSGS} TSGs eligible and the rebuild lists them \
         all; 'pending' = a priority-90 segment stays open, so every begin is pending and every \
         end is of a pending segment (the O(1) events the kernel's fast path runs)"
    );
    println!(
        "complexity: decision O(C + T/64) per segment/client event (C = client slots, \
         T = TSG capacity: one pass over the clients for the winner, word operations on \
         T-bit sets), O(1) when the decision is kept; register O(C + T); TSG events \
         O(C + T/64); runlist rebuild O(T/64 + E) for E entries written"
    );
}

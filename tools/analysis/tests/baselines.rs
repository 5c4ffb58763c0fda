//! Hand-computed WCRTs of the lock-based baselines (MPCP, FMLP+), one test
//! per term and mode at least (arithmetic in ms in the comments; B-numbers
//! refer to the departures in docs/analysis.md). The worked example is the
//! one of the specification (`docs/analysis.md` "Lock-based baselines").

mod common;

use common::{cpu, gpu, task, taskset};
use gcaps_analysis::model::{Task, Taskset};
use gcaps_analysis::{analyze, is_schedulable, Config, GpuPolicy, WaitMode};

fn ts(theta: f64, tasks: Vec<Task>) -> Taskset {
    // Runlist updates do not exist under the lock-based baselines: epsilon (7 ms here)
    // must not be charged (B2).
    taskset(4, 7.0, theta, 1.024, tasks)
}

const MPCP: GpuPolicy = GpuPolicy::Mpcp;
const FMLP: GpuPolicy = GpuPolicy::FmlpPlus;
const BUSY: WaitMode = WaitMode::Busy;
const SUSP: WaitMode = WaitMode::Suspend;

/// All WCRTs (ms) in file order; checks that the fast test agrees.
fn wcrts(t: &Taskset, policy: GpuPolicy, mode: WaitMode) -> Vec<Option<f64>> {
    let c = Config {
        policy,
        mode,
        gpu_priority_assignment: false,
    };
    let r = analyze(t, &c);
    assert_eq!(r.schedulable, is_schedulable(t, &c), "fast path disagrees");
    r.tasks
        .iter()
        .map(|x| x.wcrt.map(|w| w as f64 / 1e6))
        .collect()
}
fn some(v: &[f64]) -> Vec<Option<f64>> {
    v.iter().map(|&x| Some(x)).collect()
}

/// The specification's worked example (§5): 2 cores, 3 tasks.
fn example() -> Taskset {
    ts(
        0.0,
        vec![
            task(
                "t1",
                0,
                Some(3),
                80.0,
                vec![cpu(2.5), gpu(2.0, 8.0), cpu(2.5)],
            ),
            task(
                "t2",
                1,
                Some(2),
                100.0,
                vec![cpu(5.0), gpu(3.0, 9.0), cpu(5.0)],
            ),
            task(
                "t3",
                0,
                Some(1),
                200.0,
                vec![cpu(10.0), gpu(2.0, 6.0), cpu(5.0), gpu(1.0, 4.0), cpu(5.0)],
            ),
        ],
    )
}

// MPCP, worked example. W = G (B3), self not charged (B6, B7: DEV-2, DEV-6).
// t1: own 15; B^L = max lower cs = 12 (t2); B^P = 2 boosted sections of t3
//     (eta+1 = 2, t3 has ceil((t+200)/200) = 2 jobs): suspend 2*G^m = 4,
//     busy 2*G = 16.  -> 31 / 43.
// t2: own 22; B^L = 8 (t3's longest); t1 remote: beta = 8 + 10 = 18, one
//     job in 18 + J -> 10. -> 40.
// t3: own 33; t1 same core, e = C+G = 15, J = R1-15 (16 / 28); t2 remote
//     cs 12, J = 28, request cap 2*ceil((22+28)/100) = 2.
//     suspend: 33 -> 60 -> 60.  busy: 33 -> 60 -> 75 -> 87 -> 87.
#[test]
fn mpcp_worked_example() {
    assert_eq!(wcrts(&example(), MPCP, SUSP), some(&[31.0, 40.0, 60.0]));
    assert_eq!(wcrts(&example(), MPCP, BUSY), some(&[43.0, 40.0, 87.0]));
}

// FMLP+, worked example. t1: 15 + 2*8 (t3 boosted or ahead, eta+1 = 2)
//     + 12 (t2 ahead once) = 43.  t2: 22 + 10 + 8 = 40.
// t3: t1 same core with its whole segment (B8: t1 can be ahead in the FIFO
//     queue, suspend mode too): e = 15, J = 28; t2: min(2, ceil((t+40)/100))*12.
//     33 -> 60 -> 75 -> 87 -> 87 in both modes (the reference: 71 / 87).
#[test]
fn fmlp_worked_example() {
    assert_eq!(wcrts(&example(), FMLP, SUSP), some(&[43.0, 40.0, 87.0]));
    assert_eq!(wcrts(&example(), FMLP, BUSY), some(&[43.0, 40.0, 87.0]));
}

/// The specification's second check: t2 CPU-only on core 0, t3 on core 1.
fn example2() -> Taskset {
    let mut t = example();
    t.tasks[1] = task("t2", 0, Some(2), 100.0, vec![cpu(22.0)]);
    t.tasks[2].cpu = 1;
    t
}

// t1: 15 + 8 (t3's longest section, B^L / FIFO) = 23.
// t2 (CPU-only): t1 same core: suspend C+G^m = 7, J = 16: 22 -> 29;
//     busy C+G = 15, J = 8: 22 -> 37.
// t3: t1 remote, cs 10, J = 13 (R1 = 23): 33 + 10 = 43 (the reference
//     counts ceil((t+T1)/T1) = 2 requests of t1 under FMLP+: 53).
#[test]
fn second_example_cpu_only_and_cross_core() {
    for p in [MPCP, FMLP] {
        assert_eq!(
            wcrts(&example2(), p, SUSP),
            some(&[23.0, 29.0, 43.0]),
            "{p:?}"
        );
        assert_eq!(
            wcrts(&example2(), p, BUSY),
            some(&[23.0, 37.0, 43.0]),
            "{p:?}"
        );
    }
}

// theta per lock acquisition (B2), epsilon never: 4 + 2*(1 + 5 + 0.5) = 17.
#[test]
fn theta_per_acquisition() {
    let t = ts(
        0.5,
        vec![task(
            "a",
            0,
            Some(5),
            100.0,
            vec![cpu(2.0), gpu(1.0, 5.0), cpu(1.0), gpu(1.0, 5.0), cpu(1.0)],
        )],
    );
    for p in [MPCP, FMLP] {
        for m in [BUSY, SUSP] {
            assert_eq!(wcrts(&t, p, m), some(&[17.0]), "{p:?} {m:?}");
        }
    }
}

/// A CPU-only task `a` under a same-core higher-priority GPU task `h`.
fn cpu_only_under_hpp() -> Taskset {
    ts(
        0.5,
        vec![
            task(
                "h",
                0,
                Some(9),
                50.0,
                vec![cpu(2.0), gpu(1.0, 10.0), cpu(1.0)],
            ),
            task("a", 0, Some(5), 100.0, vec![cpu(20.0)]),
        ],
    )
}

// h: 3 + 11.5 = 14.5. a busy: h spins through its section: e = 3 + 11.5,
// no jitter needed beyond R - e = 0: 20 + 14.5 = 34.5.
// a suspend: only C + G^m = 4, J = 10.5: 20 + 4 = 24 -> ceil(34.5/50) = 1.
#[test]
fn same_core_higher_priority_cpu_only_task() {
    for p in [MPCP, FMLP] {
        assert_eq!(
            wcrts(&cpu_only_under_hpp(), p, BUSY),
            some(&[14.5, 34.5]),
            "{p:?}"
        );
        assert_eq!(
            wcrts(&cpu_only_under_hpp(), p, SUSP),
            some(&[14.5, 24.0]),
            "{p:?}"
        );
    }
}

// A GPU-using `a` (cs 2) under a same-core higher-priority GPU task `h`
// (B4): in suspend mode `a` can wait for h's whole section at the lock
// (h's request is granted first: by priority under MPCP, by arrival under
// FMLP+), so e = C + cs = 14.5 in both modes: a = 20 + 2 + 14.5 = 36.5.
// h: 14.5 + a's sections. MPCP: B^L 2, B^P 2 sections of a (eta + 1, two
// jobs) busy 2*2, suspend 2*0.5: 20.5 / 17.5. FMLP+: 2*2: 18.5.
#[test]
fn same_core_higher_priority_gpu_task() {
    let mut t = cpu_only_under_hpp();
    t.tasks[1].segments = vec![cpu(10.0), gpu(0.5, 1.0), cpu(10.0)];
    assert_eq!(wcrts(&t, MPCP, BUSY), some(&[20.5, 36.5]));
    assert_eq!(wcrts(&t, MPCP, SUSP), some(&[17.5, 36.5]));
    assert_eq!(wcrts(&t, FMLP, BUSY), some(&[18.5, 36.5]));
    assert_eq!(wcrts(&t, FMLP, SUSP), some(&[18.5, 36.5]));
}

/// `a` (core 0, two requests) and a remote higher-priority GPU task `r`.
fn remote_higher() -> Taskset {
    ts(
        0.0,
        vec![
            task("r", 1, Some(9), 30.0, vec![cpu(1.0), gpu(1.0, 3.0)]),
            task(
                "a",
                0,
                Some(5),
                200.0,
                vec![
                    cpu(50.0),
                    gpu(0.5, 0.5),
                    cpu(50.0),
                    gpu(0.5, 0.5),
                    cpu(10.0),
                ],
            ),
        ],
    )
}

// r: 5 + a's section (lower, held at r's request; FIFO: ahead) 1 = 6.
// a: own 112.
// MPCP: r's sections, job-driven ceil((t + 6 - 4)/30)*4, capped by the
//   request-driven count (B6): beta = 4 (one job of r per wait), cap =
//   2*ceil((4+2)/30) = 2 -> +8: a = 120 (job-driven alone: 112 -> 128 -> 132).
// FMLP+: one request of r ahead of each of a's: min(2, n_r)*4 = 8: a = 120.
#[test]
fn remote_higher_priority_sections() {
    for p in [MPCP, FMLP] {
        for m in [BUSY, SUSP] {
            assert_eq!(
                wcrts(&remote_higher(), p, m),
                some(&[6.0, 120.0]),
                "{p:?} {m:?}"
            );
        }
    }
}

// The request-driven cap against the job-driven count: `a` with one
// request and long CPU work. r2 (remote, T = 10, cs 2): 3 + x's section 6
// (B^L / ahead in FIFO) = 9, J = 7. Lower x (remote, cs 6): 7 + one
// section of r2 and one of a = 10.
// MPCP: beta = 6 + ceil((B + 7)/10)*2: 1 -> 8 -> 10 -> 10, cap
//   1*ceil(17/10) = 2 jobs of r2 (job-driven: ceil((41+7)/10) = 5).
//   a: own 40 + 1 = 41; B^L 6; r2 2*2 -> 51.
// FMLP+: r2 waits for a and x once each: 3 + 1 + 6 = 10; a waits for r2
//   and x once each: 41 + 2 + 6 = 49.
#[test]
fn request_driven_cap_and_lower_direct_blocking() {
    let t = ts(
        0.0,
        vec![
            task("r2", 1, Some(9), 10.0, vec![cpu(1.0), gpu(1.0, 1.0)]),
            task("a", 0, Some(5), 100.0, vec![cpu(40.0), gpu(0.5, 0.5)]),
            task("x", 2, Some(1), 200.0, vec![cpu(1.0), gpu(1.0, 5.0)]),
        ],
    );
    for p in [MPCP, FMLP] {
        for m in [BUSY, SUSP] {
            let want = if p == MPCP {
                [9.0, 51.0, 10.0]
            } else {
                [10.0, 49.0, 10.0]
            };
            assert_eq!(wcrts(&t, p, m), some(&want), "{p:?} {m:?}");
        }
    }
}

// B^L over several requests: a has 2 requests; lower tasks x (cs 6, 4) and
// y (cs 5) on other cores: the 2 longest, each at most once per job of x:
// jobs_x = ceil((t + 200)/200) = 2, so 6 + 6 = 12 (MPCP). FMLP+ charges
// every other task once per request: x 2*6 + y 2*5 = 22.
#[test]
fn lower_priority_direct_blocking_two_requests() {
    let t = ts(
        0.0,
        vec![
            task(
                "a",
                0,
                Some(5),
                100.0,
                vec![cpu(10.0), gpu(0.5, 0.5), cpu(10.0), gpu(0.5, 0.5)],
            ),
            task(
                "x",
                1,
                Some(2),
                200.0,
                vec![cpu(1.0), gpu(1.0, 5.0), gpu(1.0, 3.0)],
            ),
            task("y", 2, Some(1), 200.0, vec![cpu(1.0), gpu(1.0, 4.0)]),
        ],
    );
    for m in [BUSY, SUSP] {
        assert_eq!(wcrts(&t, MPCP, m)[0], Some(34.0), "{m:?}");
        assert_eq!(wcrts(&t, FMLP, m)[0], Some(44.0), "{m:?}");
    }
}

/// `a` (core 0, `eta` requests) with a same-core lower-priority GPU task
/// `l` (one section G^m = 2, G^e = 8, theta = 1).
fn local_lower(eta: usize) -> Taskset {
    let mut segs = vec![cpu(10.0)];
    for _ in 0..eta {
        segs.push(gpu(0.5, 0.5));
        segs.push(cpu(1.0));
    }
    ts(
        1.0,
        vec![
            task("a", 0, Some(5), 100.0, segs),
            task("l", 0, Some(1), 100.0, vec![cpu(1.0), gpu(2.0, 8.0)]),
        ],
    )
}

// CPU-only a (eta = 0): one boosted section of l at release (B7 MPCP, B9
// FMLP+): busy G + theta = 11 -> 21; suspend G^m = 2 -> 12.
#[test]
fn local_lower_boosting_cpu_only_task() {
    for p in [MPCP, FMLP] {
        assert_eq!(wcrts(&local_lower(0), p, BUSY)[0], Some(21.0), "{p:?}");
        assert_eq!(wcrts(&local_lower(0), p, SUSP)[0], Some(12.0), "{p:?}");
    }
}

// a with 3 requests: own 10 + 3*1 + 3*2 = 19 (theta = 1). l can run a
// section once per non-critical interval of a (eta + 1 = 4), but has only
// ceil((t + 100)/100) = 2 jobs in the window: 2 sections.
// MPCP: B^P busy 2*11, suspend 2*2; B^L: l holds at a request, one per
//   request, 2 jobs: 2*11. busy 19 + 22 + 22 = 63, suspend 19 + 4 + 22 = 45.
// FMLP+: 2 sections of l, boosted or ahead in the queue, L = 11: 41.
#[test]
fn local_lower_boosting_gpu_task() {
    assert_eq!(wcrts(&local_lower(3), MPCP, BUSY)[0], Some(63.0));
    assert_eq!(wcrts(&local_lower(3), MPCP, SUSP)[0], Some(45.0));
    assert_eq!(wcrts(&local_lower(3), FMLP, BUSY)[0], Some(41.0));
    assert_eq!(wcrts(&local_lower(3), FMLP, SUSP)[0], Some(41.0));
}

// The eta + 1 limit: l has 4 sections per job (1 each, G^m = 0.5, theta 1
// -> cs 2), a has one request: at most 2 of them, though 2 jobs hold 8.
// a: own 10 + 1 + 1 + 1 = 13 (cs 2, plus cpu 1).
// MPCP busy: B^P 2*2, B^L 2 -> 19; suspend: B^P 2*0.5 + 2 -> 16.
// FMLP+: 2 * 2 = 4 -> 17 (both modes).
#[test]
fn boosting_limited_to_eta_plus_one() {
    let mut t = local_lower(1);
    t.tasks[1].segments = vec![
        cpu(1.0),
        gpu(0.5, 0.5),
        gpu(0.5, 0.5),
        gpu(0.5, 0.5),
        gpu(0.5, 0.5),
    ];
    assert_eq!(wcrts(&t, MPCP, BUSY)[0], Some(19.0));
    assert_eq!(wcrts(&t, MPCP, SUSP)[0], Some(16.0));
    assert_eq!(wcrts(&t, FMLP, BUSY)[0], Some(17.0));
    assert_eq!(wcrts(&t, FMLP, SUSP)[0], Some(17.0));
}

// Best-effort GPU tasks take the lock too (B1) and have no response-time
// bound, so their requests are not counted by jobs (B5): a best-effort `b`
// with one section of 3 on a's core blocks each of a's 3 requests + release.
// a: own 10 + 3*1 + 3*2 = 19 (theta 1, cs 2); b: cs 3 + 1 = 4.
// MPCP busy: B^P 4*4, B^L 3*4 -> 47; suspend: B^P 4*1 (G^m) + 12 -> 35.
// FMLP+: 4*4 -> 35.
#[test]
fn best_effort_lock_users_unbounded_count() {
    let mut t = local_lower(3);
    t.tasks[1] = task("b", 0, None, 1000.0, vec![cpu(1.0), gpu(1.0, 2.0)]);
    assert_eq!(wcrts(&t, MPCP, BUSY), vec![Some(47.0), None]);
    assert_eq!(wcrts(&t, MPCP, SUSP), vec![Some(35.0), None]);
    assert_eq!(wcrts(&t, FMLP, BUSY), vec![Some(35.0), None]);
    assert_eq!(wcrts(&t, FMLP, SUSP), vec![Some(35.0), None]);
}

// When the set fails, bounds are recomputed counting the requests of
// lower-priority tasks as unbounded (B5): the lowest task `l` misses, and
// a's bound no longer assumes R_l <= D_l: 4 sections instead of 2.
// MPCP busy a: 19 + B^P 4*11 + B^L 3*11 = 96.
#[test]
fn failing_set_bounds_do_not_assume_lower_deadlines() {
    let mut t = local_lower(3);
    t.tasks[1].segments = vec![cpu(90.0), gpu(2.0, 8.0)];
    assert_eq!(wcrts(&t, MPCP, BUSY), vec![Some(96.0), None]);
    // FMLP+: 19 + 4*11 = 63.
    assert_eq!(wcrts(&t, FMLP, BUSY), vec![Some(63.0), None]);
}

// Equal priorities interfere both ways (as for the other policies). `a`
// uses D_b for b's jitter (b is analysed later): ceil((20 + 90)/100) = 2
// jobs of b: 30; b then uses R_a = 30: 20. Valid since both pass (B5).
#[test]
fn equal_priorities_count_as_higher() {
    let t = ts(
        0.0,
        vec![
            task("a", 0, Some(5), 100.0, vec![cpu(10.0)]),
            task("b", 0, Some(5), 100.0, vec![cpu(10.0)]),
        ],
    );
    for p in [MPCP, FMLP] {
        for m in [BUSY, SUSP] {
            assert_eq!(wcrts(&t, p, m), some(&[30.0, 20.0]), "{p:?} {m:?}");
        }
    }
}

//! A check of the lock-based baseline bounds against schedules: a small
//! tick-based simulator of partitioned fixed-priority scheduling with the GPU
//! as one lock (MPCP: priority-ordered queue; FMLP+: FIFO queue; holders
//! boosted above every normal priority; busy-waiting holders keep their core
//! during `θ + G^e`, self-suspending ones do not). It runs random small
//! tasksets with random release offsets and execution times up to the WCETs,
//! and every observed response time must be within the analysis' bound. This
//! cannot prove a bound sound (random schedules rarely hit the worst case),
//! but it catches a term that misses a common delay.

use gcaps_analysis::model::{GpuSegment, Platform, Segment, Task, Taskset, Time};
use gcaps_analysis::{analyze, Config, GpuPolicy, WaitMode};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const MS: Time = 1_000_000;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    /// CPU segment, remaining ticks.
    Cpu(u64),
    /// About to request the lock: needs its core at its normal priority
    /// for the request (a job demoted at the end of a critical section is
    /// preempted at once by a higher-priority ready job, so it cannot ask
    /// again before it runs).
    Request,
    /// Waiting for the lock (suspended).
    Waiting,
    /// Holding the lock, `G^m` on the CPU (boosted), remaining ticks.
    Misc(u64),
    /// Holding the lock, `θ + G^e` on the GPU, remaining ticks.
    Gpu(u64),
}

struct Job {
    release: u64,
    seg: usize,
    phase: Phase,
    /// Execution times of this job's segments (each at most the WCET).
    lens: Vec<(u64, u64)>,
}

fn prio(t: &Task) -> u32 {
    t.priority.unwrap_or(0)
}

/// Starts segment `seg` of `job` (or reports completion).
fn enter(job: &mut Job) -> bool {
    match job.lens.get(job.seg) {
        None => true,
        Some(&(c, 0)) => {
            job.phase = Phase::Cpu(c);
            false
        }
        Some(_) => {
            job.phase = Phase::Request;
            false
        }
    }
}

/// Simulates `ts` and returns the largest response time (ticks) per task.
fn simulate(ts: &Taskset, fifo: bool, busy: bool, rng: &mut ChaCha8Rng, horizon: u64) -> Vec<u64> {
    let theta = ts.platform.theta / MS;
    let n = ts.tasks.len();
    let offsets: Vec<u64> = ts
        .tasks
        .iter()
        .map(|t| {
            if rng.gen_bool(0.3) {
                0
            } else {
                rng.gen_range(0..t.period / MS)
            }
        })
        .collect();
    let shorter = rng.gen_bool(0.3);
    let mut jobs: Vec<std::collections::VecDeque<Job>> =
        (0..n).map(|_| Default::default()).collect();
    let mut queue: Vec<usize> = Vec::new(); // tasks waiting, in request order
    let mut holder: Option<usize> = None;
    let mut worst = vec![0u64; n];
    let mut t = 0u64;
    loop {
        let pending = jobs.iter().any(|q| !q.is_empty());
        if t >= horizon && !pending {
            break;
        }
        assert!(t < horizon * 10, "simulation does not drain");
        // Releases.
        if t < horizon {
            for (i, task) in ts.tasks.iter().enumerate() {
                let p = task.period / MS;
                if t >= offsets[i] && (t - offsets[i]).is_multiple_of(p) {
                    let lens = task
                        .segments
                        .iter()
                        .map(|s| {
                            let mut draw = |w: u64| {
                                if shorter && w > 1 {
                                    rng.gen_range(1..=w)
                                } else {
                                    w
                                }
                            };
                            match s {
                                Segment::Cpu(c) => (draw(c / MS), 0),
                                Segment::Gpu(g) => (g.misc / MS, draw(g.exec / MS) + theta),
                            }
                        })
                        .collect();
                    let was_idle = jobs[i].is_empty();
                    jobs[i].push_back(Job {
                        release: t,
                        seg: 0,
                        phase: Phase::Cpu(0),
                        lens,
                    });
                    if was_idle {
                        assert!(!enter(jobs[i].front_mut().unwrap()));
                    }
                }
            }
        }
        // Grant the lock and pick one job per core (the boosted holder if it
        // needs its core, else the highest-priority ready job, earliest
        // release among equals); a picked job that is about to request the
        // lock asks at once, and the choice is made again.
        let run = loop {
            if holder.is_none() && !queue.is_empty() {
                let k = if fifo {
                    0
                } else {
                    // Highest priority, FIFO among equals.
                    let mut best = 0;
                    for k in 1..queue.len() {
                        if prio(&ts.tasks[queue[k]]) > prio(&ts.tasks[queue[best]]) {
                            best = k;
                        }
                    }
                    best
                };
                let i = queue.remove(k);
                holder = Some(i);
                let job = jobs[i].front_mut().unwrap();
                let (m, g) = job.lens[job.seg];
                job.phase = if m > 0 { Phase::Misc(m) } else { Phase::Gpu(g) };
            }
            let boosted = |j: &Job| match j.phase {
                Phase::Misc(_) => true,
                Phase::Gpu(_) => busy,
                _ => false,
            };
            let mut run = vec![None::<usize>; ts.platform.cpus as usize];
            for (i, q) in jobs.iter().enumerate() {
                let Some(job) = q.front() else { continue };
                let ready = boosted(job) || matches!(job.phase, Phase::Cpu(_) | Phase::Request);
                if !ready {
                    continue;
                }
                let c = ts.tasks[i].cpu as usize;
                let better = match run[c] {
                    None => true,
                    Some(o) => {
                        let oj = jobs[o].front().unwrap();
                        if boosted(job) != boosted(oj) {
                            boosted(job)
                        } else {
                            (prio(&ts.tasks[i]), std::cmp::Reverse(job.release))
                                > (prio(&ts.tasks[o]), std::cmp::Reverse(oj.release))
                        }
                    }
                };
                if better {
                    run[c] = Some(i);
                }
            }
            let asking: Vec<usize> = run
                .iter()
                .flatten()
                .copied()
                .filter(|&i| jobs[i].front().unwrap().phase == Phase::Request)
                .collect();
            if asking.is_empty() {
                break run;
            }
            for i in asking {
                jobs[i].front_mut().unwrap().phase = Phase::Waiting;
                queue.push(i);
            }
        };
        // Execute one tick: the chosen jobs, and the GPU for the holder.
        let mut progressed: Vec<usize> = run.iter().flatten().copied().collect();
        if let Some(h) = holder {
            if matches!(jobs[h].front().unwrap().phase, Phase::Gpu(_)) && !progressed.contains(&h) {
                progressed.push(h);
            }
        }
        t += 1;
        for i in progressed {
            let job = jobs[i].front_mut().unwrap();
            let next_seg = match &mut job.phase {
                Phase::Cpu(r) | Phase::Misc(r) | Phase::Gpu(r) => {
                    *r -= 1;
                    *r == 0
                }
                Phase::Waiting | Phase::Request => unreachable!(),
            };
            if !next_seg {
                continue;
            }
            if let Phase::Misc(_) = job.phase {
                job.phase = Phase::Gpu(job.lens[job.seg].1);
                continue;
            }
            if let Phase::Gpu(_) = job.phase {
                holder = None;
            }
            job.seg += 1;
            if enter(job) {
                let release = job.release;
                worst[i] = worst[i].max(t - release);
                jobs[i].pop_front();
                if let Some(job) = jobs[i].front_mut() {
                    assert!(!enter(job));
                }
            }
        }
    }
    worst
}

fn random_taskset(rng: &mut ChaCha8Rng) -> Taskset {
    let n = rng.gen_range(2..=5);
    let mut prios: Vec<u32> = (1..=98).collect();
    let tasks = (0..n)
        .map(|k| {
            let mut segments = vec![Segment::Cpu(rng.gen_range(1..=6) * MS)];
            for _ in 0..rng.gen_range(0..=2) {
                segments.push(Segment::Gpu(GpuSegment {
                    misc: rng.gen_range(0..=2) * MS,
                    exec: rng.gen_range(1..=8) * MS,
                    submissions: 1,
                }));
                if rng.gen_bool(0.7) {
                    segments.push(Segment::Cpu(rng.gen_range(1..=4) * MS));
                }
            }
            let period = rng.gen_range(20..=120) * MS;
            let priority = if rng.gen_bool(0.15) {
                None
            } else {
                Some(prios.remove(rng.gen_range(0..prios.len())))
            };
            Task {
                name: format!("t{k}"),
                period,
                deadline: period,
                cpu: rng.gen_range(0..2),
                priority,
                gpu_priority: None,
                segments,
            }
        })
        .collect();
    Taskset {
        platform: Platform {
            cpus: 2,
            epsilon: MS,
            epsilon_fast: None,
            epsilon_cpu: None,
            mechanism: Default::default(),
            epsilon_preempt: None,
            epsilon_handover: None,
            theta: rng.gen_range(0..=1) * MS,
            timeslice: MS,
        },
        tasks,
    }
}

#[test]
fn observed_response_times_are_within_the_bounds() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x6261_7365);
    let mut checked = 0;
    for _ in 0..400 {
        let ts = random_taskset(&mut rng);
        for (policy, fifo) in [(GpuPolicy::Mpcp, false), (GpuPolicy::FmlpPlus, true)] {
            for (mode, busy) in [(WaitMode::Busy, true), (WaitMode::Suspend, false)] {
                let cfg = Config {
                    policy,
                    mode,
                    gpu_priority_assignment: false,
                };
                let report = analyze(&ts, &cfg);
                if !report.schedulable {
                    continue;
                }
                let horizon = 4 * ts.tasks.iter().map(|t| t.period / MS).max().unwrap();
                for _ in 0..20 {
                    let worst = simulate(&ts, fifo, busy, &mut rng, horizon);
                    for (k, r) in report.tasks.iter().enumerate() {
                        if let Some(bound) = r.wcrt {
                            assert!(
                                worst[k] * MS <= bound,
                                "{policy:?} {mode:?}: task {} observed {} ms > bound {} ms in {ts:#?}",
                                r.name,
                                worst[k],
                                bound as f64 / MS as f64
                            );
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 10_000, "{checked}");
}

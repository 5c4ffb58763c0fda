//! Benchmark (prints figures, asserts nothing): the analysis of random
//! 20-task sets on 4 cores (up to 3 GPU segments per task), per policy and
//! waiting mode, with `is_schedulable` (the sweeps' fast path) and with
//! `analyze` (the full report). Run with `cargo bench -p gcaps-analysis`
//! (or `make bench`). No external harness: plain `Instant` timing.

use gcaps_analysis::model::{GpuSegment, Platform, Segment, Task, Taskset};
use gcaps_analysis::{analyze, is_schedulable, Config, GpuPolicy, WaitMode};
use std::hint::black_box;
use std::time::Instant;

const SETS: usize = 2000;

/// Deterministic tasksets (xorshift, fixed seed).
fn tasksets() -> Vec<Taskset> {
    let mut x: u64 = 12345;
    let mut rnd = |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    };
    (0..SETS)
        .map(|_| {
            let tasks = (0..20)
                .map(|i| {
                    let p = (30 + rnd(470)) * 1_000_000;
                    let mut segs = vec![Segment::Cpu(1 + rnd(p / 40))];
                    for _ in 0..rnd(4) {
                        segs.push(Segment::Gpu(GpuSegment::new(rnd(p / 100), 1 + rnd(p / 30))));
                        segs.push(Segment::Cpu(1 + rnd(p / 40)));
                    }
                    Task {
                        name: format!("t{i}"),
                        period: p,
                        deadline: p,
                        cpu: (i % 4) as u32,
                        priority: Some(99 - i as u32),
                        gpu_priority: None,
                        segments: segs,
                    }
                })
                .collect();
            Taskset {
                platform: Platform {
                    cpus: 4,
                    epsilon: 1_000_000,
                    epsilon_fast: None,
                    epsilon_cpu: None,
                    mechanism: Default::default(),
                    epsilon_preempt: None,
                    epsilon_handover: None,
                    theta: 200_000,
                    timeslice: 1_024_000,
                },
                tasks,
            }
        })
        .collect()
}

fn main() {
    let sets = tasksets();
    println!(
        "analysis benchmark: {SETS} tasksets of 20 tasks on 4 cores, release build, one thread"
    );
    println!(
        "{:<11} {:<8} {:<4} {:>11} {:>14} {:>12} {:>14}",
        "policy", "mode", "gpa", "schedulable", "is_sched us", "analyze us", "analyses/s"
    );
    for policy in [
        GpuPolicy::TsgRr,
        GpuPolicy::Gcaps,
        GpuPolicy::GcapsBoost,
        GpuPolicy::Mpcp,
        GpuPolicy::FmlpPlus,
    ] {
        for mode in [WaitMode::Busy, WaitMode::Suspend] {
            for gpa in [false, true] {
                if gpa && !policy.has_gpu_priorities() {
                    continue;
                }
                let cfg = Config {
                    policy,
                    mode,
                    gpu_priority_assignment: gpa,
                };
                let start = Instant::now();
                let ok = sets
                    .iter()
                    .filter(|ts| is_schedulable(black_box(ts), &cfg))
                    .count();
                let fast = start.elapsed();
                let start = Instant::now();
                for ts in &sets {
                    black_box(analyze(black_box(ts), &cfg));
                }
                let full = start.elapsed();
                let per = |d: std::time::Duration| d.as_secs_f64() * 1e6 / SETS as f64;
                println!(
                    "{:<11} {:<8} {:<4} {:>11} {:>14.2} {:>12.2} {:>14.0}",
                    policy.name(),
                    match mode {
                        WaitMode::Busy => "busy",
                        WaitMode::Suspend => "suspend",
                    },
                    if gpa { "yes" } else { "no" },
                    ok,
                    per(fast),
                    per(full),
                    SETS as f64 / fast.as_secs_f64()
                );
            }
        }
    }
}

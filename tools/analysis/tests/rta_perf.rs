//! Rough throughput check of `is_schedulable` (release builds matter; this
//! only guards against pathological slowness).

use gcaps_analysis::model::{GpuSegment, Platform, Segment, Task, Taskset};
use gcaps_analysis::{is_schedulable, Config, GpuPolicy, WaitMode};

#[test]
fn many_tasksets_quickly() {
    let mut x: u64 = 12345;
    let mut rnd = |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    };
    let start = std::time::Instant::now();
    let mut n = 0;
    for _ in 0..500 {
        let tasks: Vec<Task> = (0..20)
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
        let ts = Taskset {
            platform: Platform {
                cpus: 4,
                epsilon: 1_000_000,
                theta: 200_000,
                timeslice: 1_024_000,
            },
            tasks,
        };
        for policy in [GpuPolicy::TsgRr, GpuPolicy::Gcaps] {
            for mode in [WaitMode::Busy, WaitMode::Suspend] {
                is_schedulable(
                    &ts,
                    &Config {
                        policy,
                        mode,
                        gpu_priority_assignment: policy == GpuPolicy::Gcaps,
                    },
                );
                n += 1;
            }
        }
    }
    eprintln!("{n} analyses in {:?}", start.elapsed());
}

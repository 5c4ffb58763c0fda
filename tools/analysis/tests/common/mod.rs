//! Builders shared by the hand-computed analysis tests (times given in ms, stored in ns).
#![allow(dead_code)] // each test file uses the builders it needs

use gcaps_analysis::model::{GpuSegment, Platform, Segment, Task, Taskset, Time};
use gcaps_analysis::{analyze, is_schedulable, Config, GpuPolicy, WaitMode};

const US: Time = 1_000; // 1 microsecond in ns

/// `x` ms in ns, rounded to the microsecond.
pub fn ms(x: f64) -> Time {
    (x * 1000.0).round() as Time * US
}
pub fn cpu(x: f64) -> Segment {
    Segment::Cpu(ms(x))
}
/// A GPU segment with `G^m = m`, `G^e = e`, submitted at once.
pub fn gpu(m: f64, e: f64) -> Segment {
    Segment::Gpu(GpuSegment::new(ms(m), ms(e)))
}
/// A GPU segment whose `G^e` is submitted in `n` pieces (U7).
pub fn gpu_pieces(m: f64, e: f64, n: u32) -> Segment {
    Segment::Gpu(GpuSegment {
        misc: ms(m),
        exec: ms(e),
        submissions: n,
    })
}
/// A real-time implicit-deadline task at SCHED_FIFO `prio`.
pub fn rt_task(name: &str, core: u32, prio: u32, period: f64, segs: Vec<Segment>) -> Task {
    task(name, core, Some(prio), period, segs)
}
/// An implicit-deadline task (`prio: None` = best-effort).
pub fn task(name: &str, core: u32, prio: Option<u32>, period: f64, segs: Vec<Segment>) -> Task {
    Task {
        name: name.into(),
        period: ms(period),
        deadline: ms(period),
        cpu: core,
        priority: prio,
        gpu_priority: None,
        segments: segs,
    }
}
pub fn taskset(cpus: u32, eps: f64, theta: f64, l: f64, tasks: Vec<Task>) -> Taskset {
    Taskset {
        platform: Platform {
            cpus,
            epsilon: ms(eps),
            epsilon_fast: None,
            epsilon_cpu: None,
            mechanism: Default::default(),
            epsilon_preempt: None,
            epsilon_handover: None,
            theta: ms(theta),
            timeslice: ms(l),
        },
        tasks,
    }
}
/// A fixed GPU priority assignment (no Audsley search).
pub fn cfg(policy: GpuPolicy, mode: WaitMode) -> Config {
    Config {
        policy,
        mode,
        gpu_priority_assignment: false,
    }
}

/// The bound of task `name` under `c`, checking that `is_schedulable` (the fast path of the
/// experiments) agrees with the full analysis.
pub fn wcrt_cfg(t: &Taskset, c: Config, name: &str) -> Option<Time> {
    let r = analyze(t, &c);
    assert_eq!(r.schedulable, is_schedulable(t, &c), "fast path disagrees");
    r.tasks.iter().find(|x| x.name == name).unwrap().wcrt
}
/// [`wcrt_cfg`] without the GPU priority assignment.
pub fn wcrt(t: &Taskset, policy: GpuPolicy, mode: WaitMode, name: &str) -> Option<Time> {
    wcrt_cfg(t, cfg(policy, mode), name)
}

/// A (prio 5, one segment) with two lower GPU tasks on its core: M (prio 3,
/// two segments (0.4, 3) and (0.6, 1)) and L (prio 2, one segment (0.3,
/// 1)); three updaters.
pub fn local_lower_set() -> Vec<Task> {
    vec![
        rt_task("A", 0, 5, 100.0, vec![cpu(1.0), gpu(0.5, 2.0), cpu(1.0)]),
        rt_task(
            "M",
            0,
            3,
            100.0,
            vec![cpu(1.0), gpu(0.4, 3.0), cpu(1.0), gpu(0.6, 1.0)],
        ),
        rt_task("L", 0, 2, 1000.0, vec![gpu(0.3, 1.0)]),
    ]
}

/// eps = 1 on four cores. A (core 0, prio 5, deadline `d_a`): three
/// segments (0, 1) with CPU 1 between; L (core 0, prio 1, one segment (0,
/// 1), T 1000), A's only other updater.
pub fn three_segments_over_a_lower(d_a: f64) -> Taskset {
    let seg = || gpu(0.0, 1.0);
    let mut a = rt_task(
        "A",
        0,
        5,
        100.0,
        vec![seg(), cpu(1.0), seg(), cpu(1.0), seg()],
    );
    a.deadline = ms(d_a);
    let l = rt_task("L", 0, 1, 1000.0, vec![seg()]);
    taskset(4, 1.0, 0.0, 1.0, vec![a, l])
}

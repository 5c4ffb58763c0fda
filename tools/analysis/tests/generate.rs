//! Tests of the random taskset generator (Sec. 7.1, Table 3).

#![allow(clippy::field_reassign_with_default)]

use gcaps_analysis::generate::{core_loads, generate, task_utilisation, GenParams, Range};
use gcaps_analysis::model::{
    Segment, Taskset, MAX_BOOST_TASK_PRIORITY, MAX_PRIORITY, MIN_PRIORITY, NS_PER_MS,
};

fn check_structure(ts: &Taskset, p: &GenParams) {
    assert_eq!(ts.platform.cpus, p.cpus);
    let n = ts.tasks.len() as u32;
    assert!(n >= p.cpus * p.tasks_per_cpu.min && n <= p.cpus * p.tasks_per_cpu.max);
    for (k, t) in ts.tasks.iter().enumerate() {
        assert_eq!(t.name, format!("t{k}"));
        assert_eq!(t.deadline, t.period);
        assert!(t.period >= p.period.min && t.period <= p.period.max);
        assert!(t.cpu < p.cpus);
        if let Some(pr) = t.priority {
            assert!((MIN_PRIORITY..=MAX_PRIORITY).contains(&pr));
        }
        assert_eq!(t.gpu_priority, None);
        // Alternating C, G, C, ..., C, every part positive.
        assert!(matches!(t.segments.first(), Some(Segment::Cpu(_))));
        assert!(matches!(t.segments.last(), Some(Segment::Cpu(_))));
        for (j, s) in t.segments.iter().enumerate() {
            match s {
                Segment::Cpu(c) => {
                    assert_eq!(j % 2, 0);
                    assert!(*c > 0);
                }
                Segment::Gpu(g) => {
                    assert_eq!(j % 2, 1);
                    assert!(g.misc > 0 && g.exec > 0);
                }
            }
        }
        let eta = t.gpu_segment_count();
        if eta > 0 {
            assert!(eta >= p.gpu_segments.min as u64 && eta <= p.gpu_segments.max as u64);
            assert_eq!(t.cpu_segment_count(), eta + 1);
        } else {
            assert_eq!(t.segments.len(), 1);
        }
    }
}

#[test]
fn same_seed_same_taskset_different_seed_differs() {
    let p = GenParams::default();
    let a = generate(&p, 42).unwrap();
    let b = generate(&p, 42).unwrap();
    assert_eq!(a, b);
    let c = generate(&p, 43).unwrap();
    assert_ne!(a, c);
}

#[test]
fn golden_values_are_stable() {
    // Pins the random stream: if this changes, every published experiment
    // changes too. Update deliberately, never casually. (Priorities start
    // at 98, below the update ceiling, since issue 8, and at 97, below
    // gcaps-boost's boost priority, since issue 20: every priority moved
    // down by one, their order and so every bound is unchanged.)
    let ts = generate(&GenParams::default(), 1).unwrap();
    let summary: Vec<(u64, u32, Option<u32>, u64, u64)> = ts
        .tasks
        .iter()
        .map(|t| (t.period, t.cpu, t.priority, t.cpu_time(), t.gpu_time()))
        .collect();
    assert_eq!(summary.len(), 19, "{summary:?}");
    assert_eq!(summary[0], (41248335, 2, Some(97), 2127171, 0));
    assert_eq!(summary[4], (101075244, 1, Some(93), 2246201, 562198));
    assert_eq!(summary[18], (494490545, 0, Some(79), 662401, 1199570));
}

#[test]
fn every_taskset_is_well_formed() {
    let mut params = vec![GenParams::default()];
    let mut p = GenParams::default();
    p.cpus = 10;
    p.best_effort_ratio = 0.5;
    params.push(p);
    let mut p = GenParams::default();
    p.tasks_per_cpu = Range::fixed(1);
    p.util_per_cpu = Range::fixed(1.0);
    p.g_to_c_ratio = Range::fixed(0.0);
    p.gpu_task_ratio = Range::fixed(1.0);
    params.push(p);
    let mut p = GenParams::default();
    p.util_per_cpu = Range::fixed(1e-9);
    p.period = Range::fixed(NS_PER_MS);
    params.push(p);
    for p in &params {
        for seed in 0..300 {
            let ts = generate(p, seed).unwrap();
            check_structure(&ts, p);
            gcaps_analysis::validate(&ts).unwrap();
        }
    }
}

#[test]
fn statistics_follow_table3() {
    let p = GenParams::default();
    let sets = 2000;
    let mut gpu_tasks = 0usize;
    let mut tasks = 0usize;
    let mut util_sum = 0.0;
    for seed in 0..sets {
        let ts = generate(&p, seed).unwrap();
        let n = ts.tasks.len();
        let ng = ts.tasks.iter().filter(|t| t.uses_gpu()).count();
        // Per taskset: round(ratio * n) with ratio in [0.4, 0.6].
        assert!(ng as f64 >= (0.4 * n as f64).round() && ng as f64 <= (0.6 * n as f64).round());
        gpu_tasks += ng;
        tasks += n;
        let loads = core_loads(&ts);
        let total: f64 = loads.iter().sum();
        // Total utilisation is the sum of per-CPU draws in [0.4, 0.6]
        // (plus rounding to ns).
        assert!(
            (0.4 * 4.0 - 1e-6..=0.6 * 4.0 + 1e-6).contains(&total),
            "{total}"
        );
        util_sum += total / 4.0;
        for t in &ts.tasks {
            if t.uses_gpu() {
                let r = t.gpu_time() as f64 / t.cpu_time() as f64;
                assert!((0.2 - 1e-3..=2.0 + 1e-3).contains(&r), "G/C = {r}");
                for g in t.gpu_segments() {
                    let share = g.misc as f64 / (g.misc + g.exec) as f64;
                    let slack = 1.0 / (g.misc + g.exec) as f64;
                    assert!(share >= 0.1 - slack && share <= 0.3 + slack, "{share}");
                }
            }
        }
    }
    let mean_util = util_sum / sets as f64;
    assert!(
        (mean_util - 0.5).abs() < 0.01,
        "mean utilisation per CPU {mean_util}"
    );
    let mean_ratio = gpu_tasks as f64 / tasks as f64;
    assert!(
        (mean_ratio - 0.5).abs() < 0.02,
        "GPU task ratio {mean_ratio}"
    );
    let mean_tasks_per_cpu = tasks as f64 / (sets as f64 * 4.0);
    assert!(
        (mean_tasks_per_cpu - 4.5).abs() < 0.05,
        "{mean_tasks_per_cpu}"
    );
}

#[test]
fn rate_monotonic_priorities_are_distinct() {
    let mut p = GenParams::default();
    p.best_effort_ratio = 0.3;
    for seed in 0..200 {
        let ts = generate(&p, seed).unwrap();
        let n = ts.tasks.len();
        let rt: Vec<_> = ts.tasks.iter().filter(|t| !t.is_best_effort()).collect();
        assert_eq!(n - rt.len(), (0.3 * n as f64).round() as usize);
        // Listed in RM order, so priorities strictly decrease down the list.
        for w in rt.windows(2) {
            assert!(w[0].period <= w[1].period);
            assert!(w[0].priority > w[1].priority);
        }
        assert_eq!(rt[0].priority, Some(MAX_BOOST_TASK_PRIORITY));
        for w in ts.tasks.windows(2) {
            assert!(w[0].period <= w[1].period);
        }
    }
}

#[test]
fn worst_fit_decreasing_allocation() {
    let p = GenParams::default();
    for seed in 0..300 {
        let ts = generate(&p, seed).unwrap();
        // Replay WFD: decreasing utilisation (ties: the generator's order is
        // not visible, so only check the invariant on strict orders), each
        // task must land on a least-loaded core at its turn.
        let mut idx: Vec<usize> = (0..ts.tasks.len()).collect();
        let u: Vec<f64> = ts.tasks.iter().map(task_utilisation).collect();
        idx.sort_by(|&a, &b| u[b].total_cmp(&u[a]));
        let mut loads = vec![0.0f64; p.cpus as usize];
        for &i in &idx {
            let min = loads.iter().cloned().fold(f64::INFINITY, f64::min);
            let c = ts.tasks[i].cpu as usize;
            assert!(
                loads[c] <= min + 1e-12,
                "seed {seed}: task {i} not on a least-loaded core"
            );
            loads[c] += u[i];
        }
        // Balanced: the spread is at most the largest task utilisation.
        let max = loads.iter().cloned().fold(0.0, f64::max);
        let min = loads.iter().cloned().fold(f64::INFINITY, f64::min);
        assert!(max - min <= u[idx[0]] + 1e-12);
        for (a, b) in core_loads(&ts).iter().zip(&loads) {
            assert!((a - b).abs() < 1e-9);
        }
    }
}

#[test]
fn fixed_parameters_are_honoured() {
    let mut p = GenParams::default();
    p.tasks_per_cpu = Range::fixed(5);
    p.gpu_task_ratio = Range::fixed(0.2);
    p.util_per_cpu = Range::fixed(0.3);
    p.gpu_segments = Range::fixed(2);
    p.g_to_c_ratio = Range::fixed(1.0);
    for seed in 0..100 {
        let ts = generate(&p, seed).unwrap();
        assert_eq!(ts.tasks.len(), 20);
        assert_eq!(ts.tasks.iter().filter(|t| t.uses_gpu()).count(), 4);
        let total: f64 = core_loads(&ts).iter().sum();
        assert!((total - 1.2).abs() < 1e-6);
        for t in ts.tasks.iter().filter(|t| t.uses_gpu()) {
            assert_eq!(t.gpu_segment_count(), 2);
            let d = t.gpu_time() as i64 - t.cpu_time() as i64;
            assert!(d.abs() <= 1, "G = C up to rounding");
        }
    }
}

#[test]
fn invalid_parameters_are_rejected_with_clear_messages() {
    type Case = (Box<dyn Fn(&mut GenParams)>, &'static str);
    let cases: Vec<Case> = vec![
        (Box::new(|p| p.cpus = 0), "cpus"),
        (
            Box::new(|p| p.tasks_per_cpu = Range::new(6, 3)),
            "tasks-per-cpu: min 6 is greater than max 3",
        ),
        (
            Box::new(|p| p.tasks_per_cpu = Range::new(0, 3)),
            "tasks-per-cpu",
        ),
        (
            Box::new(|p| p.gpu_task_ratio = Range::new(0.4, 60.0)),
            "gpu-task-ratio: a ratio must lie in [0, 1]",
        ),
        (
            Box::new(|p| p.gpu_task_ratio = Range::new(0.6, 0.4)),
            "gpu-task-ratio: min 0.6 is greater than max 0.4",
        ),
        (
            Box::new(|p| p.util_per_cpu = Range::new(0.0, 0.5)),
            "util-per-cpu",
        ),
        (
            Box::new(|p| p.util_per_cpu = Range::new(0.5, 1.5)),
            "util-per-cpu",
        ),
        (Box::new(|p| p.period = Range::new(0, 5)), "period"),
        (
            Box::new(|p| p.gpu_segments = Range::new(0, 3)),
            "gpu-segments",
        ),
        (
            Box::new(|p| p.g_to_c_ratio = Range::new(-1.0, 2.0)),
            "g-to-c-ratio",
        ),
        (
            Box::new(|p| p.gm_share = Range::new(0.1, f64::NAN)),
            "gm-share",
        ),
        (Box::new(|p| p.best_effort_ratio = 1.5), "best-effort-ratio"),
        (Box::new(|p| p.timeslice = 0), "timeslice"),
        (
            Box::new(|p| {
                p.cpus = 20;
                p.tasks_per_cpu = Range::new(3, 6);
            }),
            "too many real-time tasks",
        ),
    ];
    for (f, msg) in cases {
        let mut p = GenParams::default();
        f(&mut p);
        let e = generate(&p, 0).unwrap_err().to_string();
        assert!(e.contains(msg), "expected {msg:?} in {e:?}");
    }
    // 20 CPUs x 6 tasks = 120 tasks fit if enough of them are best-effort.
    let mut p = GenParams::default();
    p.cpus = 20;
    p.best_effort_ratio = 0.2;
    assert!(generate(&p, 0).is_ok());
}

#[test]
fn every_sweep_point_generates_valid_tasksets() {
    use gcaps_analysis::experiment::{select, sweep_names, Worker, FIG8};
    let all = select("all").unwrap();
    assert_eq!(all.len(), 7);
    assert_eq!(select("all-fig8").unwrap().len(), 6);
    assert!(sweep_names().contains(&"gpu-priority-gain"));
    assert!(select("nope").is_none());
    for sweep in &all {
        assert!(sweep.points.len() >= 8, "{}", sweep.name);
        // Fig. 8: fourteen curves (with MPCP, FMLP+, gcaps-boost and both
        // GCAPS policies under gate); Fig. 9: eight (gcaps and gcaps-boost,
        // with and without assignment).
        let fig8 = sweep.name != "gpu-priority-gain";
        assert_eq!(sweep.series.len(), if fig8 { 14 } else { 8 });
        assert_eq!(FIG8.contains(&sweep.name), fig8);
        let mut w = Worker::default();
        for &x in &sweep.points {
            let p = sweep.params_at(&GenParams::default(), x);
            p.validate().unwrap();
            for k in 0..5 {
                let mask = w.evaluate(sweep, &p, 1, x, k);
                assert!(mask < 1 << sweep.series.len());
                gcaps_analysis::validate(w.taskset()).unwrap();
                // A series' own mechanism does not stay in the buffer.
                assert_eq!(w.taskset().platform.mechanism, p.mechanism);
                let fresh = generate_seeded_like(sweep, &p, x, k);
                assert_eq!(
                    w.taskset(),
                    &fresh,
                    "buffer reuse must not change the taskset"
                );
            }
        }
    }
}

fn generate_seeded_like(
    sweep: &gcaps_analysis::experiment::Sweep,
    p: &GenParams,
    x: f64,
    k: u64,
) -> gcaps_analysis::model::Taskset {
    generate(p, sweep.taskset_seed(1, x, k)).unwrap()
}

#[test]
fn a_series_name_means_one_configuration_in_every_sweep() {
    // Fig. 8 and Fig. 9 once both had a `gcaps_busy` series, one with and
    // one without the GPU priority assignment.
    use gcaps_analysis::experiment::sweeps;
    let mut seen: std::collections::HashMap<&str, gcaps_analysis::Config> = Default::default();
    for sw in sweeps() {
        for s in &sw.series {
            if let Some(prev) = seen.insert(s.name, s.config) {
                assert_eq!(prev, s.config, "series {} differs in {}", s.name, sw.name);
            }
        }
    }
    assert!(seen.contains_key("gcaps_busy_gpa") && seen.contains_key("gcaps_busy_no_gpa"));
}

//! Determinism and replay: a run depends only on (model, config, scenario); the witness
//! scenario of a search reproduces its maximum (what the regression files rely on); the
//! adversarial search never reports less than the synchronous candidates.

use gcaps_analysis::generate::{generate, GenParams};
use gcaps_sim::search::{explore, Search};
use gcaps_sim::soundness::PAIRS;
use gcaps_sim::{run, Config, Scenario, SimModel, NS_PER_MS};

fn model(seed: u64) -> SimModel {
    let ts = generate(&GenParams::default(), seed).expect("generates");
    SimModel::from_taskset(&ts).expect("simulable")
}

#[test]
fn same_scenario_same_run_different_seed_different_run() {
    let m = model(3);
    for (p, mode) in PAIRS {
        let cfg = Config::new(p, mode, 2_000 * NS_PER_MS);
        let a = run(&m, &cfg, &Scenario::random(&m, 7)).expect("runs");
        let b = run(&m, &cfg, &Scenario::random(&m, 7)).expect("runs");
        assert_eq!(a, b);
        let c = run(&m, &cfg, &Scenario::random(&m, 8)).expect("runs");
        assert_ne!(a.tasks, c.tasks);
    }
}

#[test]
fn witness_replays_its_maximum_and_search_dominates_synchronous() {
    let m = model(5);
    for (p, mode) in PAIRS {
        let cfg = Config::new(p, mode, 1_500 * NS_PER_MS);
        let search = Search {
            seed: 1,
            runs: 30,
            adversarial: true,
            horizon: cfg.horizon,
            stop_on_miss: false,
        };
        let obs = explore(&m, &cfg, &search).expect("explores");
        let sync = run(&m, &cfg, &Scenario::synchronous(m.tasks.len())).expect("runs");
        for i in 0..m.tasks.len() {
            assert!(obs.max[i] >= sync.tasks[i].max);
            let w = obs.witness[i].as_ref().expect("witness");
            let r = run(&m, &cfg, w).expect("runs");
            assert_eq!(r.tasks[i].max, obs.max[i], "task {i} under {p:?}/{mode:?}");
            assert_eq!(r.tasks[i].max_release, obs.witness_release[i]);
        }
    }
}

/// Update durations: every update holds the lock for epsilon (or `epsilon_fast`, which the
/// generated set leaves at epsilon) when execution times are the WCETs, and for a draw in
/// `[min, bound]` in a random scenario.
#[test]
fn random_scenarios_draw_update_durations_below_epsilon() {
    use gcaps_sim::trace::CpuKind;
    use gcaps_sim::{GpuPolicy, WaitMode};
    let m = model(3);
    let updates = |sc: &Scenario| -> Vec<u64> {
        let mut cfg = Config::new(GpuPolicy::Gcaps, WaitMode::Suspend, 1_000 * NS_PER_MS);
        cfg.record = true;
        let r = run(&m, &cfg, sc).expect("runs");
        let tr = r.trace.expect("recorded");
        tr.cpu
            .iter()
            .filter(|s| s.kind == CpuKind::Update)
            .map(|s| s.end - s.start)
            .collect()
    };
    let wcet = updates(&Scenario::synchronous(m.tasks.len()));
    assert!(!wcet.is_empty());
    assert!(wcet.iter().all(|&d| d == m.epsilon), "{wcet:?}");
    let random = updates(&Scenario::random(&m, 7));
    assert!(random.iter().all(|&d| d <= m.epsilon && 2 * d >= m.epsilon));
    assert!(random.iter().any(|&d| d < m.epsilon), "{random:?}");
}

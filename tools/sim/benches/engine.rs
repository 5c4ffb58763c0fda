//! Benchmark (not a test): simulated events per second, and 30 s of simulated time of the
//! paper's case study under each policy and mode. `cargo bench -p gcaps-sim`.

use gcaps_analysis::generate::{generate, GenParams};
use gcaps_analysis::{parse_taskset, Format};
use gcaps_sim::{run, Config, GpuPolicy, Scenario, SimModel, WaitMode, NS_PER_MS};
use std::time::Instant;

const CASE_STUDY: &str = include_str!("../../../examples/case-study.toml");

const PAIRS: [(GpuPolicy, WaitMode, &str); 4] = [
    (GpuPolicy::TsgRr, WaitMode::Busy, "tsg-rr busy"),
    (GpuPolicy::TsgRr, WaitMode::Suspend, "tsg-rr suspend"),
    (GpuPolicy::Gcaps, WaitMode::Busy, "gcaps busy"),
    (GpuPolicy::Gcaps, WaitMode::Suspend, "gcaps suspend"),
];

/// Best of `reps` runs: (seconds, events).
fn time(model: &SimModel, cfg: &Config, sc: &Scenario, reps: u32) -> (f64, u64) {
    let mut best = f64::MAX;
    let mut events = 0;
    for _ in 0..reps {
        let t = Instant::now();
        let r = run(model, cfg, sc).expect("runs");
        best = best.min(t.elapsed().as_secs_f64());
        events = r.events;
    }
    (best, events)
}

fn main() {
    let ts = parse_taskset(CASE_STUDY, "case-study.toml", Format::Toml).expect("case study");
    let model = SimModel::from_taskset(&ts).expect("simulable");
    println!("case study, 30 s of simulated time (best of 5, one core):");
    for (p, m, name) in PAIRS {
        let mut cfg = Config::new(p, m, 30_000 * NS_PER_MS);
        cfg.keep_responses = false;
        let sc = Scenario::random(&model, 1);
        let (secs, events) = time(&model, &cfg, &sc, 5);
        println!(
            "  {name:<15} {:>7.2} ms  {events:>9} events  {:>5.1} M events/s",
            secs * 1e3,
            events as f64 / secs / 1e6
        );
    }
    println!("generated tasksets (Table 3 defaults, 4 cores), 60 s simulated each:");
    let mut total_events = 0u64;
    let mut total_secs = 0.0;
    for (p, m, name) in PAIRS {
        let (mut ev, mut secs) = (0u64, 0.0);
        for seed in 0..8 {
            let ts = generate(&GenParams::default(), seed).expect("generates");
            let model = SimModel::from_taskset(&ts).expect("simulable");
            let mut cfg = Config::new(p, m, 60_000 * NS_PER_MS);
            cfg.keep_responses = false;
            let sc = Scenario::random(&model, seed);
            let (s, e) = time(&model, &cfg, &sc, 1);
            ev += e;
            secs += s;
        }
        println!(
            "  {name:<15} 8 sets: {ev:>9} events in {:>6.1} ms: {:>5.1} M events/s",
            secs * 1e3,
            ev as f64 / secs / 1e6
        );
        total_events += ev;
        total_secs += secs;
    }
    println!(
        "  all: {total_events} events in {:.3} s: {:.1} M events/s",
        total_secs,
        total_events as f64 / total_secs / 1e6
    );
}

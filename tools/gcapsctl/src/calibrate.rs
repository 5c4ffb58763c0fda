//! `gcapsctl calibrate`: the `[platform]` section of a taskset file (`docs/analysis.md`,
//! "Taskset file") from the update costs gcaps.ko measured (`GCAPS_IOC_STATS` VER3) under the
//! mechanism it was loaded with (STATUS): under reload epsilon from the longest update that
//! submitted a runlist, epsilon_fast from the longest one that applied nothing, epsilon_cpu
//! from the longest on-CPU time of one that submitted; under gate epsilon_preempt and
//! epsilon_handover from the preempting and handing-over updates as well; each with a margin
//! and rounded up to the file's resolution (1 ns). theta and timeslice are not measured by the
//! module: they come from options, by default the generator's (`gcaps generate`).
use crate::device::DeviceArg;
use crate::output::{human_ns, write_stdout};
use gcaps_analysis::generate::GenParams;
use gcaps_analysis::model::{within_epsilon, Time, NS_PER_MS};
use gcaps_analysis::taskset_file::{ms_string as ms, MAX_CPUS, MAX_TIME_MS};
use libgcaps::{Mechanism, Stats, UpdateCost, UpdateKind};
use std::fmt::Write as _;

/// The default margin in percent. A measured maximum is a sample of the workload that ran,
/// not a bound: 20 % is the usual engineering margin of measurement-based timing analysis for
/// a calibration run that exercised the paths (raise it for short or unrepresentative runs).
pub const DEFAULT_MARGIN_PCT: u32 = 20;

/// The largest margin accepted, in percent.
const MAX_MARGIN_PCT: u32 = 1000;

#[derive(clap::Args)]
pub struct Args {
    /// Margin added to every measured maximum, in percent (0..=1000).
    #[arg(long, value_name = "PCT", default_value_t = DEFAULT_MARGIN_PCT,
          value_parser = clap::value_parser!(u32).range(0..=MAX_MARGIN_PCT as i64))]
    margin: u32,
    /// TSG context-switch overhead theta in ms (not measured by gcaps.ko; default: gcaps
    /// generate's).
    #[arg(long, value_name = "MS", value_parser = parse_ms)]
    theta_ms: Option<Time>,
    /// TSG time slice in ms (not measured by gcaps.ko; default: gcaps generate's).
    #[arg(long, value_name = "MS", value_parser = parse_ms)]
    timeslice_ms: Option<Time>,
    /// CPU count of the platform (default: the CPUs online on this machine).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=MAX_CPUS as i64))]
    cpus: Option<u32>,
    #[command(flatten)]
    device: DeviceArg,
}

/// A time in ms as the taskset file reads it: finite, >= 0, at most `MAX_TIME_MS`; to ns
/// rounded to the nearest, as the file's parser does.
fn parse_ms(s: &str) -> Result<Time, String> {
    let ms: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("expected a time in ms, got '{}'", s.escape_debug()))?;
    if !ms.is_finite() || !(0.0..=MAX_TIME_MS).contains(&ms) {
        return Err(format!("must be a time in 0..={MAX_TIME_MS} ms, got {ms}"));
    }
    Ok((ms * NS_PER_MS as f64).round() as Time)
}

/// What the platform is made of besides the measurements.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub margin_pct: u32,
    pub cpus: u32,
    pub theta: Time,
    pub timeslice: Time,
    /// theta and timeslice are the generator's defaults (said in the output).
    pub defaults: bool,
    /// The mechanism the module was loaded with (STATUS): which kinds the section uses.
    pub mechanism: Mechanism,
}

pub fn run(args: Args) -> Result<(), String> {
    let gen = GenParams::default();
    let cpus = match args.cpus {
        Some(n) => n,
        None => online_cpus()?,
    };
    if args.timeslice_ms == Some(0) {
        return Err("--timeslice-ms: the TSG time slice must be positive".into());
    }
    let opts = Options {
        margin_pct: args.margin,
        cpus,
        theta: args.theta_ms.unwrap_or(gen.theta),
        timeslice: args.timeslice_ms.unwrap_or(gen.timeslice),
        defaults: args.theta_ms.is_none() && args.timeslice_ms.is_none(),
        mechanism: Mechanism::Reload,
    };
    let gcaps = args.device.open()?;
    let stats = gcaps.stats().map_err(|e| e.to_string())?;
    let mechanism = gcaps.status().map_err(|e| e.to_string())?.mechanism;
    write_stdout(&platform(&stats, &Options { mechanism, ..opts })?)
}

/// The CPUs online on this machine.
fn online_cpus() -> Result<u32, String> {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    u32::try_from(n)
        .ok()
        .filter(|&n| (1..=MAX_CPUS).contains(&n))
        .ok_or_else(|| "cannot read the number of CPUs online (pass --cpus N)".to_string())
}

/// `ns` plus `pct` percent, rounded up to the ns.
pub fn with_margin(ns: u64, pct: u32) -> u64 {
    let v = (u128::from(ns) * (100 + u128::from(pct))).div_ceil(100);
    u64::try_from(v).unwrap_or(u64::MAX)
}

/// The kind's costs, or the error saying it has no samples and how to get them.
fn sampled(stats: &Stats, kind: UpdateKind, what: &str) -> Result<UpdateCost, String> {
    let c = stats.update(kind);
    if c.count == 0 {
        return Err(format!(
            "no {} updates measured since load or the last reset (needed for {what}): run a \
             real-time workload whose tasks begin and end GPU segments (SCHED_FIFO, libgcaps) \
             so that {}, then calibrate again",
            kind.name(),
            match kind {
                UpdateKind::Submit =>
                    "updates resubmit the runlist (a segment starts or ends running)",
                UpdateKind::Fast => {
                    "updates keep the decision (a begin that waits, the end of a waiting segment)"
                }
                UpdateKind::Preempt => {
                    "a higher segment begins while a lower one's GPU work runs (the begin preempts it)"
                }
                UpdateKind::Handover => {
                    "running segments end after their GPU work finished (the end hands over)"
                }
            }
        ));
    }
    Ok(c.clone())
}

/// What the section sets from the measurements (ns, margins applied).
struct Measured {
    /// The kinds it used, for the comment.
    kinds: Vec<(UpdateKind, UpdateCost)>,
    /// How each field was derived (the comment's lines).
    derivation: &'static [&'static str],
    /// `epsilon` before it is raised to keep the rules, then the other fields by name.
    epsilon: u64,
    fields: Vec<(&'static str, u64)>,
}

/// Reload: epsilon = SUBMIT's wall max, epsilon_fast = FAST's, epsilon_cpu = SUBMIT's on-CPU
/// max.
fn reload(stats: &Stats, m: u32) -> Result<Measured, String> {
    let submit = sampled(stats, UpdateKind::Submit, "epsilon and epsilon_cpu")?;
    let fast = sampled(stats, UpdateKind::Fast, "epsilon_fast")?;
    Ok(Measured {
        epsilon: with_margin(submit.wall_max_ns, m),
        fields: vec![
            ("epsilon_fast", with_margin(fast.wall_max_ns, m)),
            ("epsilon_cpu", with_margin(submit.cpu_max_ns, m)),
        ],
        derivation: &[
            "epsilon = SUBMIT's wall max, epsilon_fast = FAST's wall max, epsilon_cpu = \
             SUBMIT's on-CPU max,",
        ],
        kinds: vec![(UpdateKind::Submit, submit), (UpdateKind::Fast, fast)],
    })
}

/// Gate: a begin that takes the GPU preempts running work (PREEMPT) or, if the GPU's work
/// had finished, only gates (HANDOVER), so epsilon_preempt covers both; an end of a finished
/// segment hands over (HANDOVER). epsilon is no update's cost under gate (every update is a
/// preempt, a hand-over or a fast one): it is set to the largest so the file's rules hold.
fn gate(stats: &Stats, m: u32) -> Result<Measured, String> {
    let preempt = sampled(stats, UpdateKind::Preempt, "epsilon_preempt")?;
    let handover = sampled(stats, UpdateKind::Handover, "epsilon_handover")?;
    let fast = sampled(stats, UpdateKind::Fast, "epsilon_fast")?;
    let eps_preempt = with_margin(preempt.wall_max_ns.max(handover.wall_max_ns), m);
    let eps_handover = with_margin(handover.wall_max_ns, m);
    let eps_fast = with_margin(fast.wall_max_ns, m);
    let eps_cpu = with_margin(preempt.cpu_max_ns.max(handover.cpu_max_ns), m);
    Ok(Measured {
        epsilon: eps_preempt.max(eps_handover),
        fields: vec![
            ("epsilon_fast", eps_fast),
            ("epsilon_cpu", eps_cpu),
            ("epsilon_preempt", eps_preempt),
            ("epsilon_handover", eps_handover),
        ],
        derivation: &[
            "epsilon_preempt = the wall max of PREEMPT and HANDOVER (a begin that takes an idle \
             GPU only gates),",
            "epsilon_handover = HANDOVER's wall max (an end whose work finished; an end with \
             work still running preempts),",
            "epsilon_fast = FAST's wall max, epsilon_cpu = the on-CPU max of PREEMPT and \
             HANDOVER, epsilon = no gate",
            "update's cost: the largest of the others (the file's rules),",
        ],
        kinds: vec![
            (UpdateKind::Preempt, preempt),
            (UpdateKind::Handover, handover),
            (UpdateKind::Fast, fast),
        ],
    })
}

/// The `[platform]` section with comments saying where each value comes from, for the
/// mechanism the module was loaded with. Deterministic given its inputs; refuses (one line)
/// if a kind it needs has no samples.
pub fn platform(stats: &Stats, o: &Options) -> Result<String, String> {
    let m = o.margin_pct;
    let measured = match o.mechanism {
        Mechanism::Reload => reload(stats, m)?,
        Mechanism::Gate => gate(stats, m)?,
        Mechanism::Other(v) => {
            return Err(format!(
                "the module reports mechanism {v}, which this gcapsctl does not know: use the \
                 gcapsctl of the module's version"
            ))
        }
    };
    // The analysis needs epsilon_fast <= epsilon and epsilon_cpu <= epsilon.
    let epsilon = measured
        .fields
        .iter()
        .filter(|(f, _)| matches!(*f, "epsilon_fast" | "epsilon_cpu"))
        .fold(measured.epsilon, |e, (_, v)| e.max(*v));
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# Measured by gcaps.ko (GCAPS_IOC_STATS, since load or the last reset) under \
         mechanism={}, printed by gcapsctl calibrate:",
        o.mechanism.name()
    );
    for (k, c) in &measured.kinds {
        let _ = writeln!(
            s,
            "#   {:<8} {} updates, wall max {} ns ({}), on-CPU max {} ns ({})",
            k.name(),
            c.count,
            c.wall_max_ns,
            human_ns(c.wall_max_ns as f64),
            c.cpu_max_ns,
            human_ns(c.cpu_max_ns as f64)
        );
    }
    for line in measured.derivation {
        let _ = writeln!(s, "# {line}");
    }
    let _ = writeln!(
        s,
        "# each + {m} % (--margin), rounded up to the ns (the taskset file's resolution)."
    );
    if epsilon > measured.epsilon {
        let _ = writeln!(
            s,
            "# epsilon is raised from {} to {} ms: the analysis needs epsilon_fast <= epsilon \
             and epsilon_cpu <= epsilon.",
            ms(measured.epsilon),
            ms(epsilon)
        );
    }
    let _ = writeln!(
        s,
        "# theta and timeslice are not measured by gcaps.ko: {}.",
        if o.defaults {
            "gcaps generate's defaults (set them with --theta-ms and --timeslice-ms)"
        } else {
            "as given (--theta-ms, --timeslice-ms; a default is gcaps generate's)"
        }
    );
    let _ = writeln!(
        s,
        "# cpus: {} (--cpus, default: the CPUs online here).",
        o.cpus
    );
    s.push_str("[platform]\n");
    let _ = writeln!(s, "cpus = {}", o.cpus);
    if o.mechanism == Mechanism::Gate {
        let _ = writeln!(s, "mechanism = \"gate\"");
    }
    let _ = writeln!(s, "epsilon = {}", ms(epsilon));
    for (f, v) in &measured.fields {
        debug_assert!(
            !matches!(*f, "epsilon_fast" | "epsilon_cpu") || within_epsilon(Some(*v), epsilon)
        );
        let _ = writeln!(s, "{f} = {}", ms(*v));
    }
    let _ = writeln!(s, "theta = {}", ms(o.theta));
    let _ = writeln!(s, "timeslice = {}", ms(o.timeslice));
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gcaps_analysis::taskset_file::{parse_taskset, Format};

    fn stats(submit: (u64, u64, u64), fast: (u64, u64, u64)) -> Stats {
        let mut s = Stats::default();
        for (k, (count, wall, cpu)) in [(UpdateKind::Submit, submit), (UpdateKind::Fast, fast)] {
            let u = &mut s.updates[k.index()];
            u.count = count;
            u.wall_max_ns = wall;
            u.wall_sum_ns = wall * count;
            u.cpu_max_ns = cpu;
            u.cpu_sum_ns = cpu * count;
        }
        s
    }

    fn opts(margin_pct: u32) -> Options {
        let g = GenParams::default();
        Options {
            margin_pct,
            cpus: 2,
            theta: g.theta,
            timeslice: g.timeslice,
            defaults: true,
            mechanism: Mechanism::Reload,
        }
    }

    /// The printed section plus one task, through the analysis's own parser: the platform
    /// in ns.
    fn parsed(text: &str) -> gcaps_analysis::model::Platform {
        let file = format!(
            "{text}\n[[task]]\nname = \"t\"\nperiod = 100.0\ncpu = 0\npriority = 10\n\
             segments = [{{cpu = 1.0}}, {{gpu = {{misc = 0.5, exec = 2.0}}}}]\n"
        );
        parse_taskset(&file, "calibrate", Format::Toml)
            .unwrap_or_else(|e| panic!("the analysis refuses it: {e}\n{file}"))
            .platform
    }

    #[test]
    fn margin_rounds_up_to_the_ns() {
        assert_eq!(with_margin(1000, 20), 1200);
        assert_eq!(with_margin(1001, 20), 1202, "1201.2 rounds up");
        assert_eq!(with_margin(1, 20), 2);
        assert_eq!(with_margin(0, 20), 0);
        assert_eq!(with_margin(999, 0), 999);
        assert_eq!(with_margin(3, 1000), 33);
        assert_eq!(with_margin(u64::MAX, 20), u64::MAX);
    }

    #[test]
    fn ms_is_exact_to_the_ns() {
        assert_eq!(ms(200_000), "0.2");
        assert_eq!(ms(1_024_000), "1.024");
        assert_eq!(ms(974_815), "0.974815");
        assert_eq!(ms(1), "0.000001");
        assert_eq!(ms(0), "0.0");
        assert_eq!(ms(3_000_000), "3.0");
        assert_eq!(ms(12_345_678_901), "12345.678901");
    }

    #[test]
    fn platform_is_the_maxima_with_the_margin() {
        // SUBMIT wall 812 345 ns, on-CPU 45 001; FAST wall 12 001.
        let s = stats((100, 812_345, 45_001), (40, 12_001, 12_001));
        let text = platform(&s, &opts(20)).unwrap();
        assert!(text.contains("\nepsilon = 0.974814\n"), "{text}");
        assert!(text.contains("\nepsilon_fast = 0.014402\n"), "{text}");
        assert!(text.contains("\nepsilon_cpu = 0.054002\n"), "{text}");
        assert!(
            text.contains("\ntheta = 0.2\ntimeslice = 1.024\n"),
            "{text}"
        );
        assert!(text.contains("\ncpus = 2\n"), "{text}");
        assert!(text.contains("gcaps generate's defaults"), "{text}");
        assert!(!text.contains("raised"), "{text}");
        let p = parsed(&text);
        assert_eq!(p.cpus, 2);
        assert_eq!(p.epsilon, 974_814, "812345 * 1.2 = 974814");
        assert_eq!(p.epsilon_fast, Some(14_402), "12001 * 1.2 = 14401.2, up");
        assert_eq!(p.epsilon_cpu, Some(54_002), "45001 * 1.2 = 54001.2, up");
        assert_eq!((p.theta, p.timeslice), (200_000, 1_024_000));
        // Deterministic.
        assert_eq!(platform(&s, &opts(20)).unwrap(), text);
        // Another margin.
        let p = parsed(&platform(&s, &opts(0)).unwrap());
        assert_eq!(
            (p.epsilon, p.epsilon_fast, p.epsilon_cpu),
            (812_345, Some(12_001), Some(45_001))
        );
    }

    #[test]
    fn epsilon_is_raised_to_keep_the_analysis_rules() {
        // A fast update that took longer than every submitting one.
        let s = stats((3, 50_000, 10_000), (9, 80_000, 80_000));
        let text = platform(&s, &opts(20)).unwrap();
        assert!(
            text.contains("# epsilon is raised from 0.06 to 0.096 ms"),
            "{text}"
        );
        let p = parsed(&text);
        assert_eq!((p.epsilon, p.epsilon_fast), (96_000, Some(96_000)));
        assert!(within_epsilon(p.epsilon_fast, p.epsilon));
        assert!(within_epsilon(p.epsilon_cpu, p.epsilon));
        // An on-CPU maximum above the wall one (not from gcaps.ko, which counts at most the
        // wall time, but the rule holds whatever the figures).
        let s = stats((3, 50_000, 70_000), (9, 1_000, 1_000));
        let p = parsed(&platform(&s, &opts(20)).unwrap());
        assert_eq!((p.epsilon, p.epsilon_cpu), (84_000, Some(84_000)));
    }

    #[test]
    fn a_kind_without_samples_is_refused_in_one_line() {
        let e = platform(&stats((0, 0, 0), (5, 1_000, 1_000)), &opts(20)).unwrap_err();
        assert!(e.starts_with("no SUBMIT updates measured"), "{e}");
        assert!(
            e.contains("real-time workload") && e.contains("begin and end"),
            "{e}"
        );
        assert!(!e.contains('\n'));
        let e = platform(&stats((5, 1_000, 500), (0, 0, 0)), &opts(20)).unwrap_err();
        assert!(e.starts_with("no FAST updates measured"), "{e}");
        assert!(e.contains("epsilon_fast"), "{e}");
        assert!(!e.contains('\n'));
        assert!(platform(&Stats::default(), &opts(20)).is_err());
    }

    #[test]
    fn given_theta_and_timeslice_are_said_so() {
        let s = stats((1, 1_000, 500), (1, 100, 100));
        let o = Options {
            theta: 150_000,
            timeslice: 2_000_000,
            defaults: false,
            cpus: 6,
            ..opts(20)
        };
        let text = platform(&s, &o).unwrap();
        assert!(text.contains("as given (--theta-ms"), "{text}");
        let p = parsed(&text);
        assert_eq!((p.theta, p.timeslice, p.cpus), (150_000, 2_000_000, 6));
    }

    /// Stats with PREEMPT, HANDOVER and FAST samples (count, wall max, on-CPU max).
    fn gate_stats(
        preempt: (u64, u64, u64),
        handover: (u64, u64, u64),
        fast: (u64, u64, u64),
    ) -> Stats {
        let mut s = stats((0, 0, 0), fast);
        for (k, (count, wall, cpu)) in [
            (UpdateKind::Preempt, preempt),
            (UpdateKind::Handover, handover),
        ] {
            let u = &mut s.updates[k.index()];
            (u.count, u.wall_max_ns, u.cpu_max_ns) = (count, wall, cpu);
        }
        s
    }

    #[test]
    fn gate_sets_preempt_and_handover_from_their_kinds() {
        let o = Options {
            mechanism: Mechanism::Gate,
            ..opts(20)
        };
        // PREEMPT wall 700 000 (on-CPU 30 000), HANDOVER wall 20 000 (all on-CPU), FAST 9 000.
        let s = gate_stats(
            (4, 700_000, 30_000),
            (10, 20_000, 20_000),
            (6, 9_000, 9_000),
        );
        let text = platform(&s, &o).unwrap();
        assert!(text.contains("\nmechanism = \"gate\"\n"), "{text}");
        let p = parsed(&text);
        assert_eq!(p.mechanism, gcaps_analysis::model::Mechanism::Gate);
        assert_eq!(p.epsilon_preempt, Some(840_000), "700000 * 1.2");
        assert_eq!(p.epsilon_handover, Some(24_000));
        assert_eq!(p.epsilon_cpu, Some(36_000), "30000 * 1.2");
        assert_eq!(p.epsilon_fast, Some(10_800));
        assert_eq!(
            p.epsilon, 840_000,
            "the largest, charged nowhere under gate"
        );
        // A begin that took an idle GPU gated without a preempt: it bounds epsilon_preempt
        // too when it was the longer.
        let s = gate_stats((4, 10_000, 9_000), (10, 50_000, 40_000), (6, 9_000, 9_000));
        let p = parsed(&platform(&s, &o).unwrap());
        assert_eq!(p.epsilon_preempt, Some(60_000));
        assert_eq!(p.epsilon_cpu, Some(48_000));
        // Without preempting or handing-over samples it refuses, saying how to get them.
        let e = platform(&gate_stats((0, 0, 0), (1, 1, 1), (1, 1, 1)), &o).unwrap_err();
        assert!(e.starts_with("no PREEMPT updates measured"), "{e}");
        assert!(e.contains("preempts"), "{e}");
        let e = platform(&gate_stats((1, 1, 1), (0, 0, 0), (1, 1, 1)), &o).unwrap_err();
        assert!(e.starts_with("no HANDOVER updates measured"), "{e}");
        // Reload's section from the same module's reload kinds says no mechanism (the default).
        let r = platform(&stats((1, 1_000, 500), (1, 100, 100)), &opts(20)).unwrap();
        assert!(!r.contains("mechanism ="), "{r}");
        assert!(platform(
            &s,
            &Options {
                mechanism: Mechanism::Other(9),
                ..opts(20)
            }
        )
        .unwrap_err()
        .contains("mechanism 9"));
    }

    #[test]
    fn times_in_ms_are_checked() {
        assert_eq!(parse_ms("0.2"), Ok(200_000));
        assert_eq!(parse_ms("1.024"), Ok(1_024_000));
        assert_eq!(parse_ms("0"), Ok(0));
        assert!(parse_ms("-1").is_err());
        assert!(parse_ms("nan").is_err());
        assert!(parse_ms("1e10").is_err());
        assert!(parse_ms("x").unwrap_err().contains("expected a time in ms"));
    }
}

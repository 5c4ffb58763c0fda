//! `gcapsctl stats`: the module's counters, the update-delay histogram and the update costs
//! per kind as a table, as JSON, and the histogram as an SVG figure (`--svg`, like the GCAPS
//! paper's Fig. 12).
use crate::device::DeviceArg;
use crate::histogram_svg;
use crate::output::{human_ns, write_file, write_stdout, Format};
use libgcaps::{DelayHistogram, Stats, UpdateCost, UpdateKind};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// Zero the statistics after reading them (needs CAP_SYS_ADMIN); prints the figures as
    /// they were before the reset.
    #[arg(long)]
    reset: bool,
    /// Also draw the update-delay histogram into this SVG file.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    #[command(flatten)]
    device: DeviceArg,
}

pub fn run(args: Args) -> Result<(), String> {
    let gcaps = args.device.open()?;
    let stats = if args.reset {
        gcaps.reset_stats()
    } else {
        gcaps.stats()
    }
    .map_err(|e| e.to_string())?;
    let report = Report::new(&stats, args.reset);
    if let Some(path) = &args.svg {
        write_file(path, &histogram_svg::render(&stats.delay))?;
    }
    write_stdout(&match args.format {
        Format::Table => report.table(),
        Format::Json => report.json(),
    })
}

/// What `stats` prints (the JSON shape is the documented one).
#[derive(Serialize, Debug, PartialEq)]
pub struct Report {
    /// The figures were read just before a reset (`--reset`).
    reset: bool,
    /// Every plain counter, under libgcaps's field names.
    #[serde(flatten)]
    counters: Stats,
    /// Errno name -> failed calls (every named class, and unknown non-zero ones).
    rejected: BTreeMap<String, u64>,
    rejected_total: u64,
    update_delay: Delay,
    /// Kind name (`submit`, `fast`, `preempt`, `handover`) -> its update costs.
    updates: BTreeMap<String, Cost>,
}

/// The costs of one kind of update (`GCAPS_UPDATE_*`).
#[derive(Serialize, Debug, PartialEq)]
struct Cost {
    count: u64,
    wall_max_ns: u64,
    wall_sum_ns: u64,
    /// `null` without samples.
    wall_mean_ns: Option<f64>,
    cpu_max_ns: u64,
    cpu_sum_ns: u64,
    /// `null` without samples.
    cpu_mean_ns: Option<f64>,
    /// Every bucket, as `update_delay.buckets`.
    wall_buckets: Vec<Bucket>,
    cpu_buckets: Vec<Bucket>,
}

impl Cost {
    fn new(c: &UpdateCost) -> Self {
        Self {
            count: c.count,
            wall_max_ns: c.wall_max_ns,
            wall_sum_ns: c.wall_sum_ns,
            wall_mean_ns: c.wall_mean_ns(),
            cpu_max_ns: c.cpu_max_ns,
            cpu_sum_ns: c.cpu_sum_ns,
            cpu_mean_ns: c.cpu_mean_ns(),
            wall_buckets: buckets(&c.wall_buckets),
            cpu_buckets: buckets(&c.cpu_buckets),
        }
    }
}

/// Every bucket of a log2 histogram with its bounds.
fn buckets(counts: &[u64]) -> Vec<Bucket> {
    counts
        .iter()
        .enumerate()
        .map(|(b, &count)| {
            let (lo_ns, hi_ns) = DelayHistogram::bounds_ns(b);
            Bucket {
                lo_ns,
                hi_ns,
                count,
            }
        })
        .collect()
}

#[derive(Serialize, Debug, PartialEq)]
struct Delay {
    count: u64,
    sum_ns: u64,
    min_ns: u64,
    max_ns: u64,
    /// `null` without samples.
    mean_ns: Option<f64>,
    /// Every bucket, in order: `lo_ns <= delay < hi_ns` (`hi_ns` null for the last).
    buckets: Vec<Bucket>,
}

#[derive(Serialize, Debug, PartialEq)]
struct Bucket {
    lo_ns: u64,
    hi_ns: Option<u64>,
    count: u64,
}

impl Report {
    pub fn new(s: &Stats, reset: bool) -> Self {
        let d = &s.delay;
        Self {
            reset,
            counters: s.clone(),
            rejected: s.rejected_by_errno().into_iter().collect(),
            rejected_total: s.rejected_total(),
            update_delay: Delay {
                count: d.count,
                sum_ns: d.sum_ns,
                min_ns: d.min_ns,
                max_ns: d.max_ns,
                mean_ns: d.mean_ns(),
                buckets: buckets(&d.buckets),
            },
            updates: UpdateKind::ALL
                .iter()
                .map(|&k| (k.name().to_lowercase(), Cost::new(s.update(k))))
                .collect(),
        }
    }

    pub fn json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("plain data serialises");
        s.push('\n');
        s
    }

    pub fn table(&self) -> String {
        let c = &self.counters;
        let mut s = String::new();
        let when = if self.reset {
            "since load or the last reset, read just before this reset"
        } else {
            "since load or the last reset"
        };
        let _ = writeln!(s, "gcaps statistics ({when})");
        let _ = writeln!(
            s,
            "segments     begins {}  ends {}  ended by close {}  open {} (open at the reset {})",
            c.begins, c.ends, c.ends_by_close, c.segments_open, c.open_at_reset
        );
        let _ = writeln!(
            s,
            "preemption   preemptions {}  resumes {}",
            c.preemptions, c.resumes
        );
        let _ = writeln!(
            s,
            "runlist      submits {}  failed {} (timed out {})  recoveries {}",
            c.submits, c.submit_errors, c.submit_timeouts, c.recoveries
        );
        let _ = writeln!(
            s,
            "clients      now {}  most {}    TSGs  now {}  most {}",
            c.clients_now, c.clients_max, c.tsgs_now, c.tsgs_max
        );
        let nonzero: Vec<String> = self
            .rejected
            .iter()
            .filter(|(_, &n)| n > 0)
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        if nonzero.is_empty() {
            s.push_str("rejected     none\n");
        } else {
            let _ = writeln!(
                s,
                "rejected     {} ({})",
                self.rejected_total,
                nonzero.join(", ")
            );
        }
        let d = &self.update_delay;
        match d.mean_ns {
            None => s.push_str("update delay no samples\n"),
            Some(mean) => {
                let _ = writeln!(
                    s,
                    "update delay {} samples  min {}  mean {}  max {}",
                    d.count,
                    human_ns(d.min_ns as f64),
                    human_ns(mean),
                    human_ns(d.max_ns as f64)
                );
                s.push_str(&histogram_rows(&d.buckets));
            }
        }
        s.push_str(&self.cost_rows());
        s
    }

    /// The update costs: one row per kind, SUBMIT and FAST always, the gate kinds (PREEMPT,
    /// HANDOVER) only if they have samples.
    fn cost_rows(&self) -> String {
        let mut s =
            String::from("update costs (wall time of an update, on-CPU time of its caller)\n");
        let _ = writeln!(
            s,
            "  {:<9} {:>8}  {:>10}  {:>10}  {:>11}  {:>11}",
            "kind", "count", "wall max", "wall mean", "on-CPU max", "on-CPU mean"
        );
        for k in UpdateKind::ALL {
            let Some(c) = self.updates.get(&k.name().to_lowercase()) else {
                continue;
            };
            if c.count == 0 && !matches!(k, UpdateKind::Submit | UpdateKind::Fast) {
                continue;
            }
            let mean = |m: Option<f64>| m.map_or("-".to_string(), human_ns);
            let max = |v: u64| {
                if c.count == 0 {
                    "-".to_string()
                } else {
                    human_ns(v as f64)
                }
            };
            let _ = writeln!(
                s,
                "  {:<9} {:>8}  {:>10}  {:>10}  {:>11}  {:>11}",
                k.name(),
                c.count,
                max(c.wall_max_ns),
                mean(c.wall_mean_ns),
                max(c.cpu_max_ns),
                mean(c.cpu_mean_ns)
            );
        }
        s
    }
}

/// Width of the longest bar of the table's histogram, in characters.
const BAR_WIDTH: u64 = 40;

/// One row per bucket from the first to the last non-empty one: range, count, bar.
fn histogram_rows(buckets: &[Bucket]) -> String {
    let Some(first) = buckets.iter().position(|b| b.count > 0) else {
        return String::new();
    };
    let last = buckets.iter().rposition(|b| b.count > 0).unwrap_or(first);
    let most = buckets.iter().map(|b| b.count).max().unwrap_or(1).max(1);
    let mut s = String::new();
    let _ = writeln!(s, "  {:<23} {:>10}", "range", "count");
    for b in &buckets[first..=last] {
        let range = match b.hi_ns {
            Some(hi) if b.lo_ns == 0 => format!("< {}", human_ns(hi as f64)),
            Some(hi) => format!("{} - {}", human_ns(b.lo_ns as f64), human_ns(hi as f64)),
            None => format!(">= {}", human_ns(b.lo_ns as f64)),
        };
        // a non-empty bucket gets at least one character
        let len = (b.count * BAR_WIDTH).div_ceil(most) as usize;
        let row = format!("  {range:<23} {:>10}  {}", b.count, "#".repeat(len));
        let _ = writeln!(s, "{}", row.trim_end());
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Stats {
        let mut s = Stats {
            begins: 12,
            ends: 9,
            ends_by_close: 3,
            open_at_reset: 1,
            segments_open: 1,
            preemptions: 2,
            resumes: 2,
            submits: 8,
            submit_errors: 1,
            submit_timeouts: 1,
            recoveries: 1,
            clients_now: 1,
            clients_max: 4,
            tsgs_now: 2,
            tsgs_max: 5,
            ..Default::default()
        };
        s.rejected[0] = 3; // EPERM
        s.rejected[5] = 1; // EINVAL
        s.delay = DelayHistogram {
            count: 5,
            sum_ns: 5 * 3000 + 20_000,
            min_ns: 2100,
            max_ns: 40_000,
            ..Default::default()
        };
        s.delay.buckets[2] = 4; // 2.05 - 4.10 µs
        s.delay.buckets[6] = 1; // 32.8 - 65.5 µs
        let u = &mut s.updates[UpdateKind::Submit.index()];
        u.count = 4;
        u.wall_max_ns = 40_000;
        u.wall_sum_ns = 52_000;
        u.cpu_max_ns = 9_000;
        u.cpu_sum_ns = 20_000;
        u.wall_buckets[2] = 3;
        u.wall_buckets[6] = 1;
        u.cpu_buckets[3] = 2;
        u.cpu_buckets[4] = 2;
        let u = &mut s.updates[UpdateKind::Fast.index()];
        u.count = 1;
        u.wall_max_ns = 2100;
        u.wall_sum_ns = 2100;
        u.cpu_max_ns = 2100;
        u.cpu_sum_ns = 2100;
        u.wall_buckets[2] = 1;
        u.cpu_buckets[2] = 1;
        s
    }

    #[test]
    fn table_reads_like_a_report() {
        let t = Report::new(&sample(), false).table();
        let want = "\
gcaps statistics (since load or the last reset)
segments     begins 12  ends 9  ended by close 3  open 1 (open at the reset 1)
preemption   preemptions 2  resumes 2
runlist      submits 8  failed 1 (timed out 1)  recoveries 1
clients      now 1  most 4    TSGs  now 2  most 5
rejected     4 (EINVAL 1, EPERM 3)
update delay 5 samples  min 2.10 µs  mean 7.00 µs  max 40.0 µs
  range                        count
  2.05 µs - 4.10 µs                4  ########################################
  4.10 µs - 8.19 µs                0
  8.19 µs - 16.4 µs                0
  16.4 µs - 32.8 µs                0
  32.8 µs - 65.5 µs                1  ##########
update costs (wall time of an update, on-CPU time of its caller)
  kind         count    wall max   wall mean   on-CPU max  on-CPU mean
  SUBMIT           4     40.0 µs     13.0 µs      9.00 µs      5.00 µs
  FAST             1     2.10 µs     2.10 µs      2.10 µs      2.10 µs
";
        assert_eq!(t, want);
    }

    #[test]
    fn empty_statistics() {
        let t = Report::new(&Stats::default(), true).table();
        assert!(t.contains("read just before this reset"), "{t}");
        assert!(
            t.contains("rejected     none\nupdate delay no samples\nupdate costs "),
            "{t}"
        );
        assert!(
            t.contains(
                "\n  SUBMIT           0           -           -            -            -\n"
            ),
            "{t}"
        );
        assert!(
            t.ends_with(
                "\n  FAST             0           -           -            -            -\n"
            ),
            "{t}"
        );
    }

    #[test]
    fn json_has_every_bucket_and_named_errnos() {
        let j: serde_json::Value =
            serde_json::from_str(&Report::new(&sample(), false).json()).unwrap();
        assert_eq!(j["begins"], 12);
        assert_eq!(j["ends_by_close"], 3);
        assert_eq!(j["segments_open"], 1);
        assert_eq!(j["open_at_reset"], 1);
        assert_eq!(j["rejected"]["EPERM"], 3);
        assert_eq!(j["rejected"]["EALREADY"], 0);
        assert_eq!(j["rejected_total"], 4);
        let d = &j["update_delay"];
        assert_eq!(d["mean_ns"], 7000.0);
        let b = d["buckets"].as_array().unwrap();
        assert_eq!(b.len(), libgcaps::DELAY_BUCKETS);
        assert_eq!(
            b[0],
            serde_json::json!({"lo_ns": 0, "hi_ns": 1024, "count": 0})
        );
        assert_eq!(
            b[2],
            serde_json::json!({"lo_ns": 2048, "hi_ns": 4096, "count": 4})
        );
        assert_eq!(b[31]["hi_ns"], serde_json::Value::Null);
        assert_eq!(j["reset"], false);
        let keys = j.as_object().unwrap().len();
        assert_eq!(
            keys,
            1 + 15 + 4,
            "reset, the 15 counters, rejected(_total), update_delay, updates"
        );
        let u = &j["updates"];
        assert_eq!(
            u.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["fast", "handover", "preempt", "submit"]
        );
        let sub = &u["submit"];
        assert_eq!(
            (sub["count"].as_u64(), sub["wall_max_ns"].as_u64()),
            (Some(4), Some(40_000))
        );
        assert_eq!(
            (sub["cpu_max_ns"].as_u64(), sub["cpu_sum_ns"].as_u64()),
            (Some(9_000), Some(20_000))
        );
        assert_eq!(
            (sub["wall_mean_ns"].as_f64(), sub["cpu_mean_ns"].as_f64()),
            (Some(13_000.0), Some(5_000.0))
        );
        let wb = sub["wall_buckets"].as_array().unwrap();
        assert_eq!(wb.len(), libgcaps::DELAY_BUCKETS);
        assert_eq!(
            wb[6],
            serde_json::json!({"lo_ns": 32768, "hi_ns": 65536, "count": 1})
        );
        assert_eq!(sub["cpu_buckets"][4]["count"], 2);
        assert_eq!(u["fast"]["count"], 1);
        assert_eq!(u["preempt"]["count"], 0);
        assert_eq!(u["preempt"]["wall_mean_ns"], serde_json::Value::Null);
        let empty: serde_json::Value =
            serde_json::from_str(&Report::new(&Stats::default(), false).json()).unwrap();
        assert_eq!(empty["update_delay"]["mean_ns"], serde_json::Value::Null);
    }
}

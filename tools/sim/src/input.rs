//! A taskset file (the analysis format) with an optional `[simulation]` table that fixes
//! the scenario to replay:
//!
//! ```toml
//! [simulation]
//! horizon = 1000.0          # ms: releases happen in [0, horizon)
//! seed = 7                  # seed of the per-task random streams
//! exec = "wcet"             # or "random": uniform in [exec_min, 100 %] of the WCET
//! exec_min = 500            # thousandths of the WCET (default 500)
//! misc = "before"           # G^m placement: before | after | even | random
//! pieces = "even"           # G^e pieces: even | random
//! sporadic = 0              # largest extra inter-arrival delay, thousandths of T
//! offsets = { tau1 = 0.0, tau2 = 3.5 }          # first release, ms
//! releases = { tau3 = [0.0, 190.0, 380.0] }     # exact release times, ms
//! ```
//!
//! The table is taken out before the rest goes to the analysis parser, so every rule of the
//! taskset format applies unchanged. Errors are one line naming the file and the field,
//! with user text escaped.

use crate::model::{SimModel, Time, NS_PER_MS};
use crate::scenario::{Exec, MiscSplit, PieceSplit, Scenario};
use gcaps_analysis::model::Taskset;
use gcaps_analysis::{parse_taskset, Format};
use serde_json::Value;

/// The `[simulation]` table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SimSection {
    /// Horizon.
    pub horizon: Option<Time>,
    /// Seed.
    pub seed: Option<u64>,
    /// Execution times.
    pub exec: Option<Exec>,
    /// G^m placement.
    pub misc: Option<MiscSplit>,
    /// The CPU part of an update around its sleep (D23).
    pub update_cpu: Option<MiscSplit>,
    /// G^e pieces.
    pub pieces: Option<PieceSplit>,
    /// Sporadic delay (thousandths of T).
    pub sporadic: Option<u32>,
    /// Lower end of random execution times (thousandths of the WCET; default 500).
    pub exec_min: Option<u32>,
    /// First releases by task name.
    pub offsets: Vec<(String, Time)>,
    /// Exact releases by task name.
    pub releases: Vec<(String, Vec<Time>)>,
}

/// A loaded file.
#[derive(Debug, Clone)]
pub struct SimInput {
    /// The taskset, as the analysis reads it.
    pub taskset: Taskset,
    /// The simulation table (empty if absent).
    pub sim: SimSection,
}

fn esc(s: &str) -> String {
    s.escape_debug().to_string()
}

fn err(origin: &str, field: &str, why: impl AsRef<str>) -> String {
    format!(
        "{}: simulation field '{}': {}",
        esc(origin),
        esc(field),
        why.as_ref()
    )
}

/// Milliseconds (a finite, non-negative number up to 1e9) to nanoseconds.
pub fn ms_value(v: &Value, origin: &str, field: &str) -> Result<Time, String> {
    let x = v
        .as_f64()
        .ok_or_else(|| err(origin, field, "expected a number of milliseconds"))?;
    if !x.is_finite() || !(0.0..=1e9).contains(&x) {
        return Err(err(
            origin,
            field,
            format!("must be a finite number of ms in [0, 1e9], got {x}"),
        ));
    }
    Ok((x * NS_PER_MS as f64).round() as Time)
}

fn word<'a>(v: &'a Value, origin: &str, field: &str, allowed: &[&str]) -> Result<&'a str, String> {
    match v.as_str() {
        Some(s) if allowed.contains(&s) => Ok(s),
        _ => Err(err(
            origin,
            field,
            format!("expected one of: {}", allowed.join(", ")),
        )),
    }
}

/// The word of each [`MiscSplit`] in a `[simulation]` table.
fn split_word(s: MiscSplit) -> &'static str {
    match s {
        MiscSplit::Before => "before",
        MiscSplit::After => "after",
        MiscSplit::Even => "even",
        MiscSplit::Random => "random",
    }
}

fn split(v: &Value, origin: &str, field: &str) -> Result<MiscSplit, String> {
    let w = word(v, origin, field, &MiscSplit::ALL.map(split_word))?;
    Ok(MiscSplit::ALL
        .into_iter()
        .find(|&s| split_word(s) == w)
        .expect("word checked"))
}

fn uint(v: &Value, origin: &str, field: &str, max: u64) -> Result<u64, String> {
    match v.as_u64() {
        Some(x) if x <= max => Ok(x),
        _ => Err(err(
            origin,
            field,
            format!("expected an integer in 0..={max}"),
        )),
    }
}

fn section(v: &Value, origin: &str) -> Result<SimSection, String> {
    let obj = v
        .as_object()
        .ok_or_else(|| err(origin, "simulation", "must be a table"))?;
    let mut s = SimSection::default();
    for (k, v) in obj {
        match k.as_str() {
            "horizon" => s.horizon = Some(ms_value(v, origin, k)?.max(1)),
            "seed" => s.seed = Some(uint(v, origin, k, u64::MAX)?),
            "exec" => {
                s.exec = Some(match word(v, origin, k, &["wcet", "random"])? {
                    "wcet" => Exec::Wcet,
                    _ => Exec::Random {
                        min_permille: s.exec_min.unwrap_or(500),
                    },
                })
            }
            "exec_min" => s.exec_min = Some(uint(v, origin, k, 1000)? as u32),
            "misc" => s.misc = Some(split(v, origin, k)?),
            "update_cpu" => s.update_cpu = Some(split(v, origin, k)?),
            "pieces" => {
                s.pieces = Some(match word(v, origin, k, &["even", "random"])? {
                    "even" => PieceSplit::Even,
                    _ => PieceSplit::Random,
                })
            }
            "sporadic" => s.sporadic = Some(uint(v, origin, k, 10_000)? as u32),
            "offsets" => {
                let m = v
                    .as_object()
                    .ok_or_else(|| err(origin, k, "must be a table of task = ms"))?;
                for (name, t) in m {
                    let f = format!("offsets.{name}");
                    s.offsets.push((name.clone(), ms_value(t, origin, &f)?));
                }
            }
            "releases" => {
                let m = v
                    .as_object()
                    .ok_or_else(|| err(origin, k, "must be a table of task = [ms, ...]"))?;
                for (name, t) in m {
                    let f = format!("releases.{name}");
                    let arr = t
                        .as_array()
                        .ok_or_else(|| err(origin, &f, "must be an array of ms"))?;
                    let times = arr
                        .iter()
                        .map(|x| ms_value(x, origin, &f))
                        .collect::<Result<Vec<_>, _>>()?;
                    s.releases.push((name.clone(), times));
                }
            }
            other => {
                return Err(err(
                    origin,
                    other,
                    "unknown field (expected one of: horizon, seed, exec, exec_min, misc, update_cpu, pieces, sporadic, offsets, releases)",
                ))
            }
        }
    }
    // `exec_min` may come after `exec` in the table.
    if let (Some(Exec::Random { .. }), Some(m)) = (s.exec, s.exec_min) {
        s.exec = Some(Exec::Random { min_permille: m });
    }
    Ok(s)
}

/// Parses a taskset file with an optional `simulation` table.
pub fn parse(text: &str, origin: &str, format: Format) -> Result<SimInput, String> {
    let (rest, sim) = match format {
        Format::Toml => match toml::from_str::<toml::Table>(text) {
            // Syntax errors: let the analysis parser report them (with line:column).
            Err(_) => (text.to_string(), None),
            Ok(mut t) => match t.remove("simulation") {
                None => (text.to_string(), None),
                Some(v) => {
                    let json = serde_json::to_value(&v)
                        .map_err(|e| err(origin, "simulation", e.to_string()))?;
                    let rest = toml::to_string(&t)
                        .map_err(|e| format!("{}: cannot re-read the taskset: {e}", esc(origin)))?;
                    (rest, Some(json))
                }
            },
        },
        Format::Json => match serde_json::from_str::<Value>(text) {
            Err(_) => (text.to_string(), None),
            Ok(mut v) => match v.as_object_mut().and_then(|o| o.remove("simulation")) {
                None => (text.to_string(), None),
                Some(s) => (v.to_string(), Some(s)),
            },
        },
    };
    let taskset = parse_taskset(&rest, origin, format).map_err(|e| e.to_string())?;
    let sim = match sim {
        None => SimSection::default(),
        Some(v) => section(&v, origin)?,
    };
    for name in sim
        .offsets
        .iter()
        .map(|(n, _)| n)
        .chain(sim.releases.iter().map(|(n, _)| n))
    {
        if !taskset.tasks.iter().any(|t| &t.name == name) {
            return Err(err(
                origin,
                name,
                format!("no task named '{}' in the taskset", esc(name)),
            ));
        }
    }
    Ok(SimInput { taskset, sim })
}

/// Parses `NAME=MS,MS,...` (the `--release` flag).
pub fn parse_release_flag(s: &str) -> Result<(String, Vec<Time>), String> {
    let (name, times) = s
        .split_once('=')
        .ok_or_else(|| format!("--release '{}': expected NAME=MS[,MS...]", esc(s)))?;
    let times = times
        .split(',')
        .filter(|x| !x.trim().is_empty())
        .map(|x| {
            let v: f64 = x.trim().parse().map_err(|_| {
                format!("--release '{}': '{}' is not a number of ms", esc(s), esc(x))
            })?;
            ms_value(&Value::from(v), "--release", name)
                .map_err(|e| e.replace("simulation field", "task"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((name.to_string(), times))
}

impl SimSection {
    /// Applies the table to a scenario for `model` (names already checked).
    pub fn apply(&self, model: &SimModel, sc: &mut Scenario) {
        let idx = |name: &str| model.tasks.iter().position(|t| t.name == name);
        if let Some(s) = self.seed {
            sc.seed = s;
        }
        if let Some(e) = self.exec {
            sc.exec = e;
        }
        if let Some(m) = self.misc {
            sc.misc = m;
        }
        if let Some(u) = self.update_cpu {
            sc.update_cpu = u;
        }
        if let Some(p) = self.pieces {
            sc.pieces = p;
        }
        if let Some(s) = self.sporadic {
            sc.sporadic_permille = s;
        }
        for (name, t) in &self.offsets {
            if let Some(i) = idx(name) {
                sc.offsets[i] = *t;
            }
        }
        for (name, r) in &self.releases {
            if let Some(i) = idx(name) {
                sc.releases[i] = Some(r.clone());
            }
        }
    }
}

/// Serialises a scenario as a `[simulation]` table (for regression files).
pub fn scenario_toml(model: &SimModel, sc: &Scenario, horizon: Time) -> String {
    let ms = |t: Time| format!("{}.{:06}", t / NS_PER_MS, t % NS_PER_MS);
    let mut s = String::from("[simulation]\n");
    s += &format!("horizon = {}\n", ms(horizon));
    s += &format!("seed = {}\n", sc.seed);
    match sc.exec {
        Exec::Wcet => s += "exec = \"wcet\"\n",
        Exec::Random { min_permille } => {
            s += &format!("exec = \"random\"\nexec_min = {min_permille}\n")
        }
    }
    s += &format!("misc = \"{}\"\n", split_word(sc.misc));
    s += &format!("update_cpu = \"{}\"\n", split_word(sc.update_cpu));
    s += &format!(
        "pieces = \"{}\"\n",
        if sc.pieces == PieceSplit::Even {
            "even"
        } else {
            "random"
        }
    );
    s += &format!("sporadic = {}\n", sc.sporadic_permille);
    s += "offsets = { ";
    s += &model
        .tasks
        .iter()
        .zip(&sc.offsets)
        .map(|(t, o)| format!("{:?} = {}", t.name, ms(*o)))
        .collect::<Vec<_>>()
        .join(", ");
    s += " }\n";
    s
}

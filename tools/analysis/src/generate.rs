//! Random taskset generation following Sec. 7.1 and Table 3 of the GCAPS
//! paper.
//!
//! The procedure, for one taskset:
//!
//! 1. For every CPU: draw the number of tasks uniformly from
//!    [`GenParams::tasks_per_cpu`] and the CPU utilisation uniformly from
//!    [`GenParams::util_per_cpu`], then split that utilisation over the CPU's
//!    tasks with UUniFast (a uniform draw from the simplex).
//! 2. For every task: draw the period uniformly (integer nanoseconds) from
//!    [`GenParams::period`].
//! 3. Draw the taskset's ratio of GPU-using tasks from
//!    [`GenParams::gpu_task_ratio`]; `round(ratio * n)` tasks, chosen at
//!    random, use the GPU.
//! 4. Segments. A task's utilisation is `u_i = (C_i + G_i) / T_i`, with
//!    `G_i = G^m_i + G^e_i` (the model's [`Task::gpu_time`]). So
//!    `C_i + G_i = round(u_i * T_i)`. A CPU-only task has one CPU segment of
//!    that length. A GPU task draws `eta^g` from [`GenParams::gpu_segments`]
//!    and `r = G_i / C_i` from [`GenParams::g_to_c_ratio`], so
//!    `C_i = round(u_i T_i / (1 + r))` and `G_i` is the rest; `C_i` is split
//!    at uniform random breakpoints into `eta^g + 1` CPU segments and `G_i`
//!    into `eta^g` GPU segments (alternating C, G, C, ..., C). Each GPU
//!    segment draws its own share `G^m_{i,j} / G_{i,j}` from
//!    [`GenParams::gm_share`]; `misc = round(share * G_{i,j})`, `exec` is the
//!    rest. Every CPU segment, `misc` and `exec` is at least 1 ns (the
//!    total is bumped by a few nanoseconds for the rare tiny task).
//! 5. Best-effort tasks: `round(best_effort_ratio * n)` tasks, chosen at
//!    random, get no priority (Fig. 8f: designated after generation).
//! 6. Rate-Monotonic priorities over the real-time tasks of the whole
//!    taskset: shorter period = higher priority, ties broken by generation
//!    order; the highest gets 97 (below gcaps-boost's boost priority 98 and
//!    the update ceiling 99, U2 and D19, so that every set is valid under
//!    every policy), the next 96, and so on (distinct values; more than 97
//!    real-time tasks is an error).
//! 7. Re-allocation with Worst-Fit Decreasing: tasks in decreasing
//!    utilisation order (ties: generation order) each go to the currently
//!    least-loaded core (ties: lowest core index).
//! 8. The tasks are listed in Rate-Monotonic order (best-effort tasks by
//!    their period too) and named `t0`, `t1`, ...; deadline = period.
//!
//! Determinism: all randomness comes from one [`ChaCha8Rng`] seeded from a
//! `u64`; only portable operations are used (integer ranges on `u32`/`u64`,
//! IEEE `+ - * /` on `f64`, no `ln`/`pow`, no `usize` ranges, no hash maps),
//! so the same seed gives the same taskset on any machine.

use crate::model::{
    within_epsilon, GpuSegment, Mechanism, Platform, Segment, Task, Taskset, Time, BOOST_PRIORITY,
    EPS_CPU_RULE, EPS_FAST_RULE, MAX_BOOST_TASK_PRIORITY, MIN_PRIORITY, NS_PER_MS, UPDATE_CEILING,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::fmt;

/// An inclusive range `[min, max]` of a generation parameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Range<T> {
    /// Lower bound (inclusive).
    pub min: T,
    /// Upper bound (inclusive).
    pub max: T,
}

impl<T: Copy> Range<T> {
    /// The range `[min, max]`.
    pub const fn new(min: T, max: T) -> Self {
        Range { min, max }
    }

    /// The one-point range `[v, v]`.
    pub const fn fixed(v: T) -> Self {
        Range { min: v, max: v }
    }
}

impl<T: fmt::Display + PartialEq> fmt::Display for Range<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.min == self.max {
            write!(f, "{}", self.min)
        } else {
            write!(f, "[{}, {}]", self.min, self.max)
        }
    }
}

/// The generation parameters (Table 3). Ratios are fractions in `[0, 1]`.
#[derive(Debug, Clone, PartialEq)]
pub struct GenParams {
    /// Number of CPU cores.
    pub cpus: u32,
    /// Number of tasks per CPU (drawn per CPU).
    pub tasks_per_cpu: Range<u32>,
    /// Ratio of GPU-using tasks (drawn per taskset).
    pub gpu_task_ratio: Range<f64>,
    /// Utilisation per CPU (drawn per CPU, then UUniFast over its tasks).
    pub util_per_cpu: Range<f64>,
    /// Task period in nanoseconds (drawn per task).
    pub period: Range<Time>,
    /// Number of GPU segments of a GPU-using task (drawn per task).
    pub gpu_segments: Range<u32>,
    /// G_i / C_i of a GPU-using task (drawn per task).
    pub g_to_c_ratio: Range<f64>,
    /// G^m_{i,j} / G_{i,j} (drawn per GPU segment).
    pub gm_share: Range<f64>,
    /// Runlist update delay epsilon.
    pub epsilon: Time,
    /// Bound of a non-submitting update (`None`: epsilon; D20).
    pub epsilon_fast: Option<Time>,
    /// The on-CPU part of an update that submits (`None`: epsilon; D23).
    pub epsilon_cpu: Option<Time>,
    /// The eligibility mechanism (D24).
    pub mechanism: Mechanism,
    /// Under `gate`, a begin that takes the GPU (`None`: epsilon; D24).
    pub epsilon_preempt: Option<Time>,
    /// Under `gate`, a hand-over (`None`: epsilon; D24).
    pub epsilon_handover: Option<Time>,
    /// TSG context-switch overhead theta.
    pub theta: Time,
    /// TSG time slice.
    pub timeslice: Time,
    /// Ratio of best-effort tasks (fixed; `round(ratio * n)` tasks).
    pub best_effort_ratio: f64,
}

impl Default for GenParams {
    /// Table 3 of the paper, plus theta = 200 us and the driver's 1024 us
    /// time slice (Sec. 7.1.1) and no best-effort tasks.
    fn default() -> Self {
        GenParams {
            cpus: 4,
            tasks_per_cpu: Range::new(3, 6),
            gpu_task_ratio: Range::new(0.4, 0.6),
            util_per_cpu: Range::new(0.4, 0.6),
            period: Range::new(30 * NS_PER_MS, 500 * NS_PER_MS),
            gpu_segments: Range::new(1, 3),
            g_to_c_ratio: Range::new(0.2, 2.0),
            gm_share: Range::new(0.1, 0.3),
            epsilon: NS_PER_MS,
            epsilon_fast: None,
            epsilon_cpu: None,
            mechanism: Mechanism::Reload,
            epsilon_preempt: None,
            epsilon_handover: None,
            theta: 200_000,
            timeslice: 1_024_000,
            best_effort_ratio: 0.0,
        }
    }
}

/// A generation error: invalid parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GenError(pub String);

impl fmt::Display for GenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for GenError {}

fn err<T>(msg: String) -> Result<T, GenError> {
    Err(GenError(msg))
}

fn check_ratio(name: &str, r: Range<f64>) -> Result<(), GenError> {
    if !(r.min.is_finite() && r.max.is_finite()) {
        return err(format!("{name}: bounds must be finite numbers, got {r}"));
    }
    if r.min < 0.0 || r.max > 1.0 {
        return err(format!(
            "{name}: a ratio must lie in [0, 1] (a fraction, not a percentage), got {r}"
        ));
    }
    check_order(name, r)
}

fn check_order<T: PartialOrd + fmt::Display>(name: &str, r: Range<T>) -> Result<(), GenError> {
    if r.min > r.max {
        return err(format!(
            "{name}: min {} is greater than max {}",
            r.min, r.max
        ));
    }
    Ok(())
}

impl GenParams {
    /// The largest number of tasks a taskset can have.
    pub fn max_tasks(&self) -> u64 {
        self.cpus as u64 * self.tasks_per_cpu.max as u64
    }

    /// Number of best-effort tasks among `n`.
    pub fn best_effort_count(&self, n: usize) -> usize {
        ((self.best_effort_ratio * n as f64).round() as usize).min(n)
    }

    /// Checks every parameter; the message names the offending flag.
    pub fn validate(&self) -> Result<(), GenError> {
        if self.cpus == 0 {
            return err("cpus: need at least one CPU, got 0".into());
        }
        if self.tasks_per_cpu.min == 0 {
            return err(format!(
                "tasks-per-cpu: need at least one task per CPU, got {}",
                self.tasks_per_cpu
            ));
        }
        check_order("tasks-per-cpu", self.tasks_per_cpu)?;
        check_ratio("gpu-task-ratio", self.gpu_task_ratio)?;
        let u = self.util_per_cpu;
        if !(u.min.is_finite() && u.max.is_finite()) || u.min <= 0.0 || u.max > 1.0 {
            return err(format!(
                "util-per-cpu: utilisation per CPU must lie in (0, 1], got {u}"
            ));
        }
        check_order("util-per-cpu", u)?;
        if self.period.min == 0 {
            return err("period: the minimum period must be positive".into());
        }
        check_order("period", self.period)?;
        if self.gpu_segments.min == 0 {
            return err(format!(
                "gpu-segments: a GPU-using task needs at least one GPU segment, got {}",
                self.gpu_segments
            ));
        }
        check_order("gpu-segments", self.gpu_segments)?;
        let r = self.g_to_c_ratio;
        if !(r.min.is_finite() && r.max.is_finite()) || r.min < 0.0 {
            return err(format!(
                "g-to-c-ratio: G_i/C_i must be a non-negative number, got {r}"
            ));
        }
        check_order("g-to-c-ratio", r)?;
        check_ratio("gm-share", self.gm_share)?;
        if self.timeslice == 0 {
            return err("timeslice: the TSG time slice must be positive".into());
        }
        if !within_epsilon(self.epsilon_fast, self.epsilon) {
            return err(format!(
                "epsilon-fast-ms: must not exceed epsilon-ms ({EPS_FAST_RULE})"
            ));
        }
        if !within_epsilon(self.epsilon_cpu, self.epsilon) {
            return err(format!(
                "epsilon-cpu-ms: must not exceed epsilon-ms ({EPS_CPU_RULE})"
            ));
        }
        check_ratio("best-effort-ratio", Range::fixed(self.best_effort_ratio))?;
        let n = self.max_tasks();
        let be = (self.best_effort_ratio * n as f64).round() as u64;
        let rt = n - be.min(n);
        let slots = (MAX_BOOST_TASK_PRIORITY - MIN_PRIORITY + 1) as u64;
        if rt > slots {
            return err(format!(
                "too many real-time tasks: cpus ({}) x max tasks per CPU ({}) can give {rt} \
                 real-time tasks, but there are only {slots} distinct SCHED_FIFO priorities \
                 below the update ceiling {UPDATE_CEILING} and the boost priority {BOOST_PRIORITY} \
                 ({MIN_PRIORITY}..={MAX_BOOST_TASK_PRIORITY}); lower --cpus or --tasks-per-cpu, or raise \
                 --best-effort-ratio",
                self.cpus, self.tasks_per_cpu.max
            ));
        }
        Ok(())
    }
}

/// Uniform f64 in `[r.min, r.max]`. Always consumes one draw, also for a
/// one-point range, so the random stream does not depend on whether a
/// parameter is fixed.
fn uniform_f64(rng: &mut ChaCha8Rng, r: Range<f64>) -> f64 {
    let u: f64 = rng.gen();
    r.min + (r.max - r.min) * u
}

fn uniform_u32(rng: &mut ChaCha8Rng, r: Range<u32>) -> u32 {
    rng.gen_range(r.min..=r.max)
}

/// Uniform index in `0..n` using a `u32` range (portable across pointer
/// widths, unlike `usize` ranges).
fn index(rng: &mut ChaCha8Rng, n: usize) -> usize {
    rng.gen_range(0..n as u32) as usize
}

/// Picks `k` distinct indices out of `0..n` (partial Fisher-Yates); the
/// result is in `pool[..k]`.
fn choose(rng: &mut ChaCha8Rng, pool: &mut Vec<usize>, n: usize, k: usize) {
    pool.clear();
    pool.extend(0..n);
    for i in 0..k.min(n) {
        let j = i + index(rng, n - i);
        pool.swap(i, j);
    }
}

/// Fills `out` with `k` non-negative fractions summing to 1, uniformly
/// distributed on the simplex: the gaps between `k - 1` sorted uniform
/// breakpoints. This is the distribution UUniFast (Bini and Buttazzo)
/// draws from; the sorted-breakpoint form avoids `powf`, whose last bit
/// may differ between libms, so output stays identical on every machine.
fn simplex(rng: &mut ChaCha8Rng, k: usize, out: &mut Vec<f64>) {
    out.clear();
    for _ in 1..k {
        out.push(rng.gen::<f64>());
    }
    out.sort_by(f64::total_cmp);
    out.push(1.0);
    let mut prev = 0.0;
    for x in out.iter_mut() {
        let b = *x;
        *x = b - prev;
        prev = b;
    }
}

/// UUniFast: splits utilisation `total` over `k` tasks (uniform on the
/// simplex; see [`simplex`]). Appends to `out`.
pub fn uunifast(rng: &mut ChaCha8Rng, total: f64, k: usize, out: &mut Vec<f64>) {
    let mut buf = Vec::with_capacity(k);
    simplex(rng, k, &mut buf);
    out.extend(buf.iter().map(|f| f * total));
}

/// Splits the integer `total` into `k` pieces of at least `min_each` at
/// uniform random breakpoints. `total` must be at least `k * min_each`.
fn split_int(
    rng: &mut ChaCha8Rng,
    total: u64,
    k: usize,
    min_each: u64,
    fr: &mut Vec<f64>,
    out: &mut Vec<u64>,
) {
    debug_assert!(total >= k as u64 * min_each);
    let rest = total - k as u64 * min_each;
    simplex(rng, k, fr);
    let mut cum = 0.0;
    let mut prev = 0u64;
    out.clear();
    for (j, f) in fr.iter().enumerate() {
        cum += f;
        let b = if j + 1 == k {
            rest
        } else {
            ((rest as f64 * cum).floor() as u64).clamp(prev, rest)
        };
        out.push(b - prev + min_each);
        prev = b;
    }
}

/// Reusable scratch space for [`generate_into`].
#[derive(Default)]
pub struct Scratch {
    utils: Vec<f64>,
    periods: Vec<Time>,
    pool: Vec<usize>,
    is_gpu: Vec<bool>,
    frac: Vec<f64>,
    cpu_parts: Vec<u64>,
    gpu_parts: Vec<u64>,
    order: Vec<usize>,
    loads: Vec<f64>,
}

/// Generates one taskset from `seed` (a fresh [`ChaCha8Rng`]).
pub fn generate(params: &GenParams, seed: u64) -> Result<Taskset, GenError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    generate_with(params, &mut rng)
}

/// Generates one taskset drawing from `rng`.
pub fn generate_with(params: &GenParams, rng: &mut ChaCha8Rng) -> Result<Taskset, GenError> {
    params.validate()?;
    let mut ts = Taskset {
        platform: platform(params),
        tasks: Vec::new(),
    };
    generate_into(params, rng, &mut Scratch::default(), &mut ts);
    Ok(ts)
}

fn platform(params: &GenParams) -> Platform {
    Platform {
        cpus: params.cpus,
        epsilon: params.epsilon,
        epsilon_fast: params.epsilon_fast,
        epsilon_cpu: params.epsilon_cpu,
        mechanism: params.mechanism,
        epsilon_preempt: params.epsilon_preempt,
        epsilon_handover: params.epsilon_handover,
        theta: params.theta,
        timeslice: params.timeslice,
    }
}

/// The fast path used by the experiments: generates into `ts`, reusing its
/// allocations and `scratch`. `params` must have passed
/// [`GenParams::validate`] (checked in debug builds only).
pub fn generate_into(
    params: &GenParams,
    rng: &mut ChaCha8Rng,
    scratch: &mut Scratch,
    ts: &mut Taskset,
) {
    debug_assert!(params.validate().is_ok());
    ts.platform = platform(params);
    let s = scratch;

    // 1. Tasks and utilisation per CPU, UUniFast within each CPU.
    s.utils.clear();
    for _ in 0..params.cpus {
        let k = uniform_u32(rng, params.tasks_per_cpu) as usize;
        let u = uniform_f64(rng, params.util_per_cpu);
        simplex(rng, k, &mut s.frac);
        s.utils.extend(s.frac.iter().map(|f| f * u));
    }
    let n = s.utils.len();

    // 2. Periods.
    s.periods.clear();
    for _ in 0..n {
        s.periods
            .push(rng.gen_range(params.period.min..=params.period.max));
    }

    // 3. Which tasks use the GPU.
    let ratio = uniform_f64(rng, params.gpu_task_ratio);
    let n_gpu = ((ratio * n as f64).round() as usize).min(n);
    choose(rng, &mut s.pool, n, n_gpu);
    s.is_gpu.clear();
    s.is_gpu.resize(n, false);
    for &i in &s.pool[..n_gpu] {
        s.is_gpu[i] = true;
    }

    // 4. Segments. Reuse the task vector's allocations where possible.
    ts.tasks.truncate(n);
    while ts.tasks.len() < n {
        ts.tasks.push(Task {
            name: String::new(),
            period: 0,
            deadline: 0,
            cpu: 0,
            priority: None,
            gpu_priority: None,
            segments: Vec::new(),
        });
    }
    for i in 0..n {
        let period = s.periods[i];
        let mut total = (s.utils[i] * period as f64).round() as u64;
        let task = &mut ts.tasks[i];
        task.period = period;
        task.deadline = period;
        task.gpu_priority = None;
        task.priority = None;
        task.segments.clear();
        if !s.is_gpu[i] {
            task.segments.push(Segment::Cpu(total.max(1)));
            continue;
        }
        let eta = uniform_u32(rng, params.gpu_segments) as usize;
        let r = uniform_f64(rng, params.g_to_c_ratio);
        // Each CPU segment needs >= 1 ns, each GPU segment >= 2 (misc, exec).
        total = total.max((eta as u64 + 1) + 2 * eta as u64);
        let c = ((total as f64 / (1.0 + r)).round() as u64)
            .clamp(eta as u64 + 1, total - 2 * eta as u64);
        let g = total - c;
        split_int(rng, c, eta + 1, 1, &mut s.frac, &mut s.cpu_parts);
        split_int(rng, g, eta, 2, &mut s.frac, &mut s.gpu_parts);
        for j in 0..eta {
            task.segments.push(Segment::Cpu(s.cpu_parts[j]));
            let gj = s.gpu_parts[j];
            let share = uniform_f64(rng, params.gm_share);
            let misc = ((share * gj as f64).round() as u64).clamp(1, gj - 1);
            task.segments
                .push(Segment::Gpu(GpuSegment::new(misc, gj - misc)));
        }
        task.segments.push(Segment::Cpu(s.cpu_parts[eta]));
    }

    // 5. Best-effort tasks.
    let n_be = params.best_effort_count(n);
    choose(rng, &mut s.pool, n, n_be);
    let mut best_effort = std::mem::take(&mut s.is_gpu);
    best_effort.clear();
    best_effort.resize(n, false);
    for &i in &s.pool[..n_be] {
        best_effort[i] = true;
    }

    // 6. Rate-Monotonic order (stable: ties by generation order).
    s.order.clear();
    s.order.extend(0..n);
    s.order.sort_by_key(|&i| (ts.tasks[i].period, i));
    // From 97 down (below gcaps-boost's boost priority 98, D19), so that a
    // generated set is valid under every policy.
    let mut prio = MAX_BOOST_TASK_PRIORITY;
    for &i in &s.order {
        if !best_effort[i] {
            ts.tasks[i].priority = Some(prio);
            prio = prio.saturating_sub(1);
        }
    }
    s.is_gpu = best_effort;

    // 7. Worst-Fit Decreasing by utilisation (C_i + G_i) / T_i.
    let util = |t: &Task| (t.cpu_time() + t.gpu_time()) as f64 / t.period as f64;
    s.pool.clear();
    s.pool.extend(0..n);
    s.utils.clear();
    s.utils.extend(ts.tasks.iter().map(util));
    let utils = &s.utils;
    s.pool
        .sort_by(|&a, &b| utils[b].total_cmp(&utils[a]).then(a.cmp(&b)));
    s.loads.clear();
    s.loads.resize(params.cpus as usize, 0.0);
    for &i in &s.pool {
        let mut best = 0;
        for (c, &l) in s.loads.iter().enumerate() {
            if l < s.loads[best] {
                best = c;
            }
        }
        s.loads[best] += utils[i];
        ts.tasks[i].cpu = best as u32;
    }

    // 8. List in RM order and name t0, t1, ...
    apply_permutation(&mut ts.tasks, &s.order);
    for (k, t) in ts.tasks.iter_mut().enumerate() {
        t.name.clear();
        use std::fmt::Write;
        let _ = write!(t.name, "t{k}");
    }
}

/// Reorders `v` so that `v_new[k] = v_old[order[k]]`.
fn apply_permutation<T>(v: &mut [T], order: &[usize]) {
    let mut done = vec![false; v.len()];
    for start in 0..v.len() {
        if done[start] {
            continue;
        }
        // Follow the cycle: position k takes the element at order[k].
        let mut k = start;
        loop {
            done[k] = true;
            let src = order[k];
            if src == start {
                break;
            }
            v.swap(k, src);
            k = src;
        }
    }
}

/// Utilisation `(C_i + G_i) / T_i` of a task, as the generator defines it.
pub fn task_utilisation(t: &Task) -> f64 {
    (t.cpu_time() + t.gpu_time()) as f64 / t.period as f64
}

/// Per-core utilisation of a taskset (index = core).
pub fn core_loads(ts: &Taskset) -> Vec<f64> {
    let mut loads = vec![0.0; ts.platform.cpus as usize];
    for t in &ts.tasks {
        loads[t.cpu as usize] += task_utilisation(t);
    }
    loads
}

/// SplitMix64 finaliser: a well-mixed 64-bit hash step.
pub fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Derives a seed from a base seed and a path of integers (e.g. sweep,
/// point, taskset index), independent of evaluation order.
pub fn derive_seed(base: u64, path: &[u64]) -> u64 {
    path.iter()
        .fold(splitmix64(base), |h, &p| splitmix64(h ^ splitmix64(p)))
}

/// FNV-1a hash of a string (stable, for turning names into seed paths).
pub fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The seed of taskset number `k` of `gcaps generate --seed base`.
pub fn taskset_seed(base: u64, k: u64) -> u64 {
    derive_seed(base, &[fnv1a("generate"), k])
}

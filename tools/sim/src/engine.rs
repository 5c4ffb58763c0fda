//! The discrete-event engine: partitioned fixed-priority preemptive CPUs and one GPU.
//!
//! Model (the update path is U1-U7 of `docs/analysis.md`; `docs/simulator.md` has the full
//! list of rules and the choices made where the model is silent):
//!
//! * **CPUs.** Each task is pinned to one core. A core runs the runnable task with the
//!   highest priority: the update ceiling (an updater holding the runlist lock) above every
//!   SCHED_FIFO priority, SCHED_FIFO priorities, then best-effort tasks (as FIFO at priority
//!   0). Among equal priorities, FIFO: a woken or released task joins the tail, a preempted
//!   task keeps its place at the head, a task coming back from the ceiling goes to the head
//!   (Linux `__sched_setscheduler` enqueues a lowered task at the head; gcaps-boost: the
//!   tail).
//! * **Jobs** run their steps in order: CPU work, GPU work (submitted to the task's TSG, the
//!   task busy-waits on its core or self-suspends until it completes), and under GCAPS the
//!   begin/end updates of each GPU segment of a real-time task.
//! * **Updates (U1-U5).** The caller goes to the ceiling and requests the runlist lock; if it
//!   is held it sleeps in the lock's queue (FIFO, U3; or CPU-priority order for the old
//!   model). The holder makes the policy decision (the `gcaps-policy` crate) at once and
//!   holds the lock for epsilon: on its core at the ceiling for `epsilon_cpu` of it, split
//!   around a sleep in the pending wait for the rest as the scenario says (D23; an update
//!   that cannot submit runs `epsilon_fast` on its core); at the end the submitted runlist
//!   (if the eligible set changed) reaches the hardware, the lock passes to the next
//!   waiter, and the caller returns to its own priority. Best-effort tasks never update
//!   (U5). Under the gate mechanism (D24) an update that changes the running segment holds
//!   the lock for `epsilon_preempt` (a begin: `epsilon_cpu` of it on the core, asleep in
//!   the preempt's completion wait for the rest) or `epsilon_handover` (an end: all of it
//!   on the core), and the TSG it makes eligible loads after it (theta), not inside it.
//! * **Holder boost (gcaps-boost, issue 20).** The owner of the running segment
//!   (`Policy::running_rt()`) runs at `boost_prio`, between every task priority and the
//!   ceiling; the update that changes the running segment moves the boost (by default at
//!   its end, with the runlist: U8), and a thread that loses the boost or returns from the
//!   ceiling goes to the tail of its level (the tail rule; plain GCAPS: the head).
//! * **GPU.** The hardware runlist is every TSG (tsg-rr) or the eligible set last submitted
//!   (GCAPS). Runlisted TSGs with work are served round robin in TSG order, one time slice L
//!   per turn, a context switch theta whenever another TSG is loaded; a TSG that runs out of
//!   work gives up the rest of its turn. The first load after a submit that preempted the
//!   running TSG (or found the GPU idle) is free: epsilon includes the resulting context
//!   switch (Def. 2). A resubmission that keeps the running TSG does not disturb it.
//!
//! Time is integer nanoseconds; events at the same instant are processed in a fixed order
//! (GPU, then CPU step completions by core, then releases by task, then dispatch by core),
//! so a run depends only on the model, the configuration and the scenario.

use crate::model::{Mechanism, SimModel, SimSegment, Time};
use crate::scenario::{cut, scale, MiscSplit, PieceSplit, Scenario};
use crate::trace::{CpuKind, CpuSpan, GpuKind, GpuSpan, Mark, Marker, TaskSpan, TaskState, Trace};
use gcaps_policy::{ClientId, GpuPriority, Policy, SchedClass, Segment, TsgSet};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// GPU scheduling policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GpuPolicy {
    /// nvgpu's TSG round robin: every TSG with work time-shares.
    TsgRr,
    /// GCAPS: the eligible set decided by `gcaps-policy`, with runlist updates.
    Gcaps,
    /// GCAPS with the holder boost and the tail rule (issue 20, `docs/simulator.md`): the
    /// same decisions; [`Config::new`] turns on [`Config::boost`] and [`Config::tail`].
    GcapsBoost,
}

impl GpuPolicy {
    /// True for the GCAPS policies (runlist updates, decisions by `gcaps-policy`).
    pub fn is_gcaps(self) -> bool {
        matches!(self, GpuPolicy::Gcaps | GpuPolicy::GcapsBoost)
    }
}

/// How a task waits for its GPU work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WaitMode {
    /// Busy-waiting: the task keeps its core.
    Busy,
    /// Self-suspending.
    Suspend,
}

/// The order in which the runlist lock grants waiters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LockOrder {
    /// Arrival order: all updaters wait at the ceiling (U3). The model.
    Fifo,
    /// Highest CPU priority first, FIFO among equals: the model the analysis had before U3
    /// (kept to check that analysis against its own assumptions).
    CpuPriority,
}

/// When, inside the update that changes the running segment, the boost moves (issue 20).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BoostTiming {
    /// Both at the end of the update, with the runlist reaching the GPU: the new owner is
    /// boosted when its TSGs get the GPU, the old one unboosted when they lose it (what
    /// gcaps.ko does; U8 of `docs/analysis.md`).
    #[default]
    AtEnd,
    /// The old owner is unboosted at the decision, the new one boosted at the end (within
    /// U8).
    UnboostAtDecision,
    /// Both at the decision, before the submit (within U8: the new owner may busy-wait at
    /// `boost_prio` for the rest of the update before its TSGs are eligible, which D18's
    /// hand-over spin charges).
    AtDecision,
}

/// Engine configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Config {
    /// GPU policy.
    pub policy: GpuPolicy,
    /// Waiting mode.
    pub mode: WaitMode,
    /// Lock order.
    pub lock: LockOrder,
    /// Releases happen before this time; the run then continues until every released job
    /// has finished or had its full deadline (`horizon + max deadline`).
    pub horizon: Time,
    /// Record a [`Trace`].
    pub record: bool,
    /// Keep every response time (for percentiles).
    pub keep_responses: bool,
    /// Holder boost (gcaps-boost, issue 20): the owner of the running segment
    /// (`Policy::running_rt()`) runs at `boost_prio`, above every task priority and below
    /// the update ceiling. Applied and removed by the update that changes the running
    /// segment, at the instants `boost_timing` says. GCAPS policies only.
    pub boost: bool,
    /// When the boost moves inside the update (default: at its end, U8).
    pub boost_timing: BoostTiming,
    /// Tail rule (gcaps-boost): a thread that loses the boost or returns from the update
    /// ceiling goes to the tail of its priority level (plain GCAPS: the head, U6). GCAPS
    /// policies only.
    pub tail: bool,
}

impl Config {
    /// A configuration with FIFO lock order, no trace, responses kept; the holder boost
    /// and the tail rule on for `GcapsBoost` only.
    pub fn new(policy: GpuPolicy, mode: WaitMode, horizon: Time) -> Config {
        Config {
            policy,
            mode,
            lock: LockOrder::Fifo,
            horizon,
            record: false,
            keep_responses: true,
            boost: policy == GpuPolicy::GcapsBoost,
            boost_timing: BoostTiming::AtEnd,
            tail: policy == GpuPolicy::GcapsBoost,
        }
    }
}

/// Per-task results of a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskStats {
    /// Finished jobs.
    pub jobs: u64,
    /// Largest response time, including the age of unfinished jobs at the end.
    pub max: Time,
    /// Sum of finished response times.
    pub sum: u128,
    /// Jobs whose response (or age, if unfinished) exceeded the deadline.
    pub misses: u64,
    /// Jobs released but not finished when the run stopped.
    pub unfinished: u64,
    /// Release time of the job that gave `max`.
    pub max_release: Time,
    /// Finished response times in completion order (if `keep_responses`).
    pub responses: Vec<Time>,
}

/// The result of a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunResult {
    /// Per task, in model order.
    pub tasks: Vec<TaskStats>,
    /// Events processed (time advances plus instantaneous transitions).
    pub events: u64,
    /// Simulated time at the end.
    pub end: Time,
    /// The schedule, if recorded.
    pub trace: Option<Trace>,
}

/// Internal priority of an updater at the ceiling: above every SCHED_FIFO priority (U2).
const CEILING: u32 = 1000;

/// Internal priority of the boosted owner of the running segment (gcaps-boost's
/// `boost_prio`, 98 by default): above every task priority, below the ceiling. Only the
/// order of priorities matters, so a set that uses 98 (the generator's top priority) is
/// simulated as if every priority were one lower, which is what the module requires.
const BOOST: u32 = 999;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Cpu { t: Time, misc: bool },
    Begin,
    End,
    Gpu(Time),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// No job.
    Idle,
    /// Runnable; starts `steps[pc]` when it gets its core.
    Start,
    /// Runs a CPU step (`remaining`).
    Exec,
    /// Holds the runlist lock at the ceiling (`remaining` of this part of the update's CPU
    /// time).
    Hold,
    /// Holds the runlist lock and sleeps in the pending wait (`remaining` of the sleep,
    /// wall time), then holds it at the ceiling again for `update_tail` (D23).
    UpdateSleep,
    /// Sleeps on the runlist lock.
    LockWait,
    /// Busy-waits for its GPU work (runnable).
    Spin,
    /// Self-suspended until its GPU work completes.
    Suspended,
}

impl Phase {
    fn runnable(self) -> bool {
        matches!(self, Phase::Start | Phase::Exec | Phase::Hold | Phase::Spin)
    }
}

struct TaskRt {
    cpu: usize,
    /// Internal priority: SCHED_FIFO priority, 0 for best-effort.
    prio: u32,
    rt: bool,
    period: Time,
    deadline: Time,
    steps: Vec<Step>,
    pc: usize,
    phase: Phase,
    remaining: Time,
    seq: i64,
    job_release: Time,
    backlog: VecDeque<Time>,
    next_release: Time,
    explicit: Option<(Vec<Time>, usize)>,
    rng: ChaCha8Rng,
    /// Draws of this task's update durations (`Exec::Random`).
    update_rng: ChaCha8Rng,
    /// The policy client and the CPU class it begins its segments with.
    client: Option<(ClientId, Segment)>,
    /// Eligible set decided by this task's update, applied when the update ends.
    pending_runlist: Option<Box<TsgSet<16>>>,
    /// The sleep of the current update in the pending wait and the CPU time after it (D23).
    update_sleep: Time,
    update_tail: Time,
    // trace bookkeeping
    span: Option<(TaskState, Time)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GpuState {
    Idle,
    Switching { to: usize, until: Time },
    Running { tsg: usize, slice_end: Time },
}

struct Gpu {
    work: Vec<Time>,
    runlisted: Vec<bool>,
    state: GpuState,
    last: Option<usize>,
    free_load: bool,
    span: Option<(usize, GpuKind, Time)>,
}

/// One simulation.
pub struct Sim<'m> {
    m: &'m SimModel,
    cfg: Config,
    sc: &'m Scenario,
    t: Vec<TaskRt>,
    core_tasks: Vec<Vec<usize>>,
    running: Vec<Option<usize>>,
    /// Cores whose runnable set or order may have changed since their last dispatch.
    dirty: Vec<bool>,
    /// Earliest pending release (a lower bound; `Time::MAX` after the releases at `now`).
    next_rel_min: Time,
    core_span: Vec<Option<(usize, CpuKind, Time)>>,
    gpu: Gpu,
    lock_holder: Option<usize>,
    lock_queue: VecDeque<usize>,
    policy: Option<Box<Policy>>,
    /// The boosted task (owner of the running segment), if the holder boost is on.
    boosted: Option<usize>,
    now: Time,
    seq: i64,
    events: u64,
    stats: Vec<TaskStats>,
    trace: Option<Trace>,
    stop: Time,
    parts: Vec<Time>,
    pieces: Vec<Time>,
}

/// Runs one simulation. Errors only on a model the engine cannot run (see
/// [`SimModel::check`]).
pub fn run(model: &SimModel, cfg: &Config, sc: &Scenario) -> Result<RunResult, String> {
    model.check()?;
    if sc.offsets.len() != model.tasks.len() || sc.releases.len() != model.tasks.len() {
        return Err("scenario does not match the taskset (task count)".into());
    }
    let mut sim = Sim::new(model, cfg, sc)?;
    sim.run();
    Ok(sim.finish())
}

impl<'m> Sim<'m> {
    fn new(m: &'m SimModel, cfg: &Config, sc: &'m Scenario) -> Result<Sim<'m>, String> {
        let n = m.tasks.len();
        let gcaps = cfg.policy.is_gcaps();
        let mut policy = if gcaps {
            Some(Box::<Policy>::default())
        } else {
            None
        };
        let mut t = Vec::with_capacity(n);
        let mut core_tasks = vec![Vec::new(); m.cpus as usize];
        for (i, task) in m.tasks.iter().enumerate() {
            core_tasks[task.cpu as usize].push(i);
            let key = i as u64 + 1;
            let mut client = None;
            if let Some(p) = policy.as_mut() {
                p.tsg_create(i as u32, key)
                    .map_err(|e| format!("policy rejected TSG {i}: {e:?}"))?;
                if let Some(prio) = task.priority {
                    let class = SchedClass::RealTime(prio as u8);
                    let (id, _) = p
                        .register(key, class)
                        .map_err(|e| format!("policy rejected task {i}: {e:?}"))?;
                    let gpu = match task.gpu_priority {
                        Some(g) => GpuPriority::Explicit(g as u8),
                        None => GpuPriority::Inherit,
                    };
                    client = Some((
                        id,
                        Segment::RealTime {
                            cpu: prio as u8,
                            gpu,
                        },
                    ));
                }
            }
            let explicit = sc.releases[i].as_ref().map(|r| {
                let mut r = r.clone();
                r.sort_unstable();
                (r, 0usize)
            });
            let next_release = match &explicit {
                Some((r, _)) => r.first().copied().unwrap_or(Time::MAX),
                None => sc.offsets[i],
            };
            t.push(TaskRt {
                cpu: task.cpu as usize,
                prio: task.priority.unwrap_or(0),
                rt: task.priority.is_some(),
                period: task.period,
                deadline: task.deadline,
                steps: Vec::new(),
                pc: 0,
                phase: Phase::Idle,
                remaining: 0,
                seq: 0,
                job_release: 0,
                backlog: VecDeque::new(),
                next_release,
                explicit,
                rng: sc.task_rng(i),
                update_rng: sc.update_rng(i),
                client,
                pending_runlist: None,
                update_sleep: 0,
                update_tail: 0,
                span: None,
            });
        }
        let max_deadline = m.tasks.iter().map(|t| t.deadline).max().unwrap_or(0);
        let mut gpu = Gpu {
            work: vec![0; n],
            runlisted: vec![true; n],
            state: GpuState::Idle,
            last: None,
            // Under GCAPS with reloads the first load is free like every load after a
            // submit: the initial runlist counts as submitted (epsilon covers the switch).
            free_load: gcaps && m.mechanism == Mechanism::Reload,
            span: None,
        };
        if let Some(p) = policy.as_ref() {
            for (i, r) in gpu.runlisted.iter_mut().enumerate() {
                *r = p.is_eligible(i as u32);
            }
        }
        Ok(Sim {
            m,
            cfg: *cfg,
            sc,
            t,
            core_tasks,
            running: vec![None; m.cpus as usize],
            dirty: vec![true; m.cpus as usize],
            next_rel_min: 0,
            core_span: vec![None; m.cpus as usize],
            gpu,
            lock_holder: None,
            lock_queue: VecDeque::new(),
            policy,
            boosted: None,
            now: 0,
            seq: 0,
            events: 0,
            stats: vec![TaskStats::default(); n],
            trace: if cfg.record {
                Some(Trace::default())
            } else {
                None
            },
            stop: cfg.horizon.saturating_add(max_deadline),
            parts: Vec::new(),
            pieces: Vec::new(),
        })
    }

    /// Changes the phase of task `i` and marks its core for dispatch.
    fn set_phase(&mut self, i: usize, p: Phase) {
        self.t[i].phase = p;
        self.dirty[self.t[i].cpu] = true;
    }

    fn tail(&mut self) -> i64 {
        self.seq += 1;
        self.seq
    }

    fn head(&mut self) -> i64 {
        self.seq += 1;
        -self.seq
    }

    fn mark(&mut self, mark: Mark) {
        if let Some(tr) = self.trace.as_mut() {
            tr.markers.push(Marker {
                time: self.now,
                mark,
            });
        }
    }

    /// Builds the steps of a new job of task `i` (drawing the job's choices).
    fn build_job(&mut self, i: usize) {
        let gcaps_rt = self.cfg.policy.is_gcaps() && self.t[i].rt;
        let sc = self.sc;
        let task = &self.m.tasks[i];
        let tr = &mut self.t[i];
        tr.steps.clear();
        tr.pc = 0;
        for seg in &task.segments {
            match *seg {
                SimSegment::Cpu(c) => {
                    let c = scale(sc.exec, c, &mut tr.rng);
                    if c > 0 {
                        tr.steps.push(Step::Cpu { t: c, misc: false });
                    }
                }
                SimSegment::Gpu {
                    misc,
                    exec,
                    submissions,
                } => {
                    let n = submissions.max(1) as usize;
                    if gcaps_rt {
                        tr.steps.push(Step::Begin);
                    }
                    let misc = scale(sc.exec, misc, &mut tr.rng);
                    let exec = scale(sc.exec, exec, &mut tr.rng);
                    self.parts.resize(n + 1, 0);
                    cut(misc, &mut self.parts, sc.misc, &mut tr.rng);
                    self.pieces.resize(n, 0);
                    let how = match sc.pieces {
                        PieceSplit::Even => MiscSplit::Even,
                        PieceSplit::Random => MiscSplit::Random,
                    };
                    cut(exec, &mut self.pieces, how, &mut tr.rng);
                    for k in 0..=n {
                        if self.parts[k] > 0 {
                            tr.steps.push(Step::Cpu {
                                t: self.parts[k],
                                misc: true,
                            });
                        }
                        if k < n && self.pieces[k] > 0 {
                            tr.steps.push(Step::Gpu(self.pieces[k]));
                        }
                    }
                    if gcaps_rt {
                        tr.steps.push(Step::End);
                    }
                }
            }
        }
    }

    fn advance_release(&mut self, i: usize) {
        let tr = &mut self.t[i];
        match tr.explicit.as_mut() {
            Some((r, k)) => {
                *k += 1;
                tr.next_release = r.get(*k).copied().unwrap_or(Time::MAX);
            }
            None => {
                let extra = if self.sc.sporadic_permille == 0 {
                    0
                } else {
                    use rand::Rng;
                    let max =
                        (tr.period as u128 * self.sc.sporadic_permille as u128 / 1000) as Time;
                    tr.rng.gen_range(0..=max)
                };
                tr.next_release = tr.next_release.saturating_add(tr.period + extra);
            }
        }
    }

    /// Releases due at `now`.
    fn releases(&mut self) -> bool {
        if self.now < self.next_rel_min {
            return false;
        }
        let mut any = false;
        for i in 0..self.t.len() {
            while self.t[i].next_release == self.now && self.now < self.cfg.horizon {
                any = true;
                self.mark(Mark::Release { task: i });
                if self.t[i].phase == Phase::Idle {
                    self.start_job(i, self.now);
                } else {
                    self.t[i].backlog.push_back(self.now);
                }
                self.advance_release(i);
            }
        }
        // Later releases are all after `now`; the next-event scan recomputes the minimum.
        self.next_rel_min = Time::MAX;
        any
    }

    fn start_job(&mut self, i: usize, release: Time) {
        self.t[i].job_release = release;
        self.build_job(i);
        self.set_phase(i, Phase::Start);
        self.t[i].seq = self.tail();
    }

    fn finish_job(&mut self, i: usize) {
        let release = self.t[i].job_release;
        let resp = self.now - release;
        let miss = resp > self.t[i].deadline;
        let s = &mut self.stats[i];
        s.jobs += 1;
        s.sum += resp as u128;
        if resp > s.max {
            s.max = resp;
            s.max_release = release;
        }
        if miss {
            s.misses += 1;
        }
        if self.cfg.keep_responses {
            s.responses.push(resp);
        }
        self.mark(Mark::Finish {
            task: i,
            response: resp,
            miss,
        });
        if let Some(r) = self.t[i].backlog.pop_front() {
            // The thread goes on with its next job without leaving its core.
            self.t[i].job_release = r;
            self.build_job(i);
            self.set_phase(i, Phase::Start);
        } else {
            self.set_phase(i, Phase::Idle);
        }
    }

    /// Starts `steps[pc]` of task `i`, which is on its core. Loops over steps that take
    /// no time.
    fn start_step(&mut self, i: usize) {
        loop {
            self.events += 1;
            let pc = self.t[i].pc;
            let Some(&step) = self.t[i].steps.get(pc) else {
                self.finish_job(i);
                if self.t[i].phase == Phase::Start {
                    continue;
                }
                return;
            };
            match step {
                Step::Cpu { t, .. } => {
                    self.set_phase(i, Phase::Exec);
                    self.t[i].remaining = t;
                    return;
                }
                Step::Begin | Step::End => {
                    if self.lock_holder.is_none() && self.lock_queue.is_empty() {
                        self.acquire(i);
                    } else {
                        self.set_phase(i, Phase::LockWait);
                        self.lock_queue.push_back(i);
                    }
                    return;
                }
                Step::Gpu(w) => {
                    self.gpu.work[i] = w;
                    let p = match self.cfg.mode {
                        WaitMode::Busy => Phase::Spin,
                        WaitMode::Suspend => Phase::Suspended,
                    };
                    self.set_phase(i, p);
                    return;
                }
            }
        }
    }

    /// Task `i` takes the runlist lock: the policy decision happens now. An update that
    /// submits (the decision changed) holds the lock for epsilon, `epsilon_cpu` of it on its
    /// core at the ceiling and the rest asleep in the pending wait, the CPU time before and
    /// after the sleep cut as the scenario's `update_cpu` says (D23); one that cannot submit
    /// runs `epsilon_fast` on its core (D20). With `Exec::Random`, draws below those bounds.
    fn acquire(&mut self, i: usize) {
        self.lock_holder = Some(i);
        let mut bound = self.m.epsilon;
        let step = self.t[i].steps[self.t[i].pc];
        if let (Some(p), Some((id, segment))) = (self.policy.as_mut(), self.t[i].client) {
            let out = match step {
                Step::Begin => p.seg_begin(id, segment),
                _ => p.seg_end(id),
            };
            // The engine only issues begin/end in order for registered clients, so the
            // policy cannot reject them; a rejection would be an engine bug.
            let out = out.unwrap_or_else(|e| panic!("policy rejected a segment event: {e:?}"));
            self.t[i].pending_runlist = if out.changed {
                Some(Box::new(*p.eligible()))
            } else {
                bound = self.m.epsilon_fast;
                None
            };
            if out.changed && self.m.mechanism == Mechanism::Gate {
                bound = match step {
                    Step::Begin => self.m.epsilon_preempt,
                    _ => self.m.epsilon_handover,
                };
            }
            match (self.cfg.boost, self.cfg.boost_timing) {
                (false, _) | (true, BoostTiming::AtEnd) => {}
                (true, BoostTiming::UnboostAtDecision) => self.update_boost(i, false),
                (true, BoostTiming::AtDecision) => self.update_boost(i, true),
            }
        }
        self.set_phase(i, Phase::Hold);
        let tr = &mut self.t[i];
        let wall = scale(self.sc.exec, bound, &mut tr.update_rng);
        // What sleeps: a reload's pending wait, a preempting begin's completion wait
        // (gate); a hand-over and an update that changes nothing run on the core.
        let sleeps = tr.pending_runlist.is_some()
            && (self.m.mechanism == Mechanism::Reload || step == Step::Begin);
        let cpu = if sleeps {
            wall.min(self.m.epsilon_cpu)
        } else {
            wall
        };
        let mut around = [0; 2];
        cut(cpu, &mut around, self.sc.update_cpu, &mut tr.update_rng);
        tr.remaining = around[0];
        tr.update_sleep = wall - cpu;
        tr.update_tail = around[1];
    }

    /// The CPU time before the sleep of task `i`'s update has run: it sleeps in the pending
    /// wait (holding the lock), or, with nothing left, ends its update.
    fn update_cpu_done(&mut self, i: usize) {
        let tr = &mut self.t[i];
        if tr.update_sleep > 0 {
            tr.remaining = std::mem::take(&mut tr.update_sleep);
            self.set_phase(i, Phase::UpdateSleep);
        } else if tr.update_tail > 0 {
            tr.remaining = std::mem::take(&mut tr.update_tail);
        } else {
            self.release_lock(i);
        }
    }

    /// Updates whose sleep in the pending wait ended at `now`: back on their cores at the
    /// ceiling for the rest of their CPU time.
    fn update_wakeups(&mut self) -> bool {
        let mut any = false;
        for i in 0..self.t.len() {
            if self.t[i].phase == Phase::UpdateSleep && self.t[i].remaining == 0 {
                any = true;
                self.events += 1;
                self.t[i].remaining = std::mem::take(&mut self.t[i].update_tail);
                self.set_phase(i, Phase::Hold);
            }
        }
        any
    }

    /// The update of task `i` ends: runlist to the hardware (and the boost, U8), lock to
    /// the next waiter, task back at its own priority (head of its level; the tail with
    /// the tail rule).
    fn release_lock(&mut self, i: usize) {
        if let Some(set) = self.t[i].pending_runlist.take() {
            for (k, r) in self.gpu.runlisted.iter_mut().enumerate() {
                *r = set.contains(k as u32);
            }
            if self.trace.is_some() {
                let tsgs = set.iter().map(|x| x as usize).collect();
                self.mark(Mark::Runlist { by: i, tsgs });
            }
            self.gpu_runlist_changed(self.m.mechanism == Mechanism::Reload);
        }
        if self.cfg.boost && self.cfg.boost_timing != BoostTiming::AtDecision {
            self.update_boost(i, true);
        }
        self.lock_holder = None;
        self.t[i].pc += 1;
        self.set_phase(i, Phase::Start);
        // Back from the ceiling: head of its level (Linux, U6), or the tail (tail rule).
        self.t[i].seq = self.requeue();
        let next = match self.cfg.lock {
            LockOrder::Fifo => self.lock_queue.pop_front(),
            LockOrder::CpuPriority => {
                let mut best: Option<(usize, u32)> = None;
                for (k, &w) in self.lock_queue.iter().enumerate() {
                    let p = self.t[w].prio;
                    if best.is_none_or(|(_, bp)| p > bp) {
                        best = Some((k, p));
                    }
                }
                best.and_then(|(k, _)| self.lock_queue.remove(k))
            }
        };
        if let Some(w) = next {
            self.acquire(w);
        }
    }

    /// Where a thread whose priority drops (from the ceiling or the boost) is queued in
    /// its level: the head (Linux `__sched_setscheduler`, U6) or, with the tail rule, the
    /// tail.
    fn requeue(&mut self) -> i64 {
        if self.cfg.tail {
            self.tail()
        } else {
            self.head()
        }
    }

    /// Holder boost, in `by`'s update: the owner of the running segment
    /// (`Policy::running_rt()`, decided by the policy crate) is boosted (if `raise`), the
    /// previous owner (if another) loses the boost and is requeued in its own level.
    fn update_boost(&mut self, by: usize, raise: bool) {
        let owner = self.policy.as_ref().and_then(|p| p.running_rt()).map(|id| {
            self.t
                .iter()
                .position(|t| t.client.is_some_and(|(c, _)| c == id))
                .expect("the running client is a task of the set")
        });
        if owner == self.boosted {
            return;
        }
        if let Some(o) = self.boosted.take() {
            self.t[o].seq = self.requeue();
            self.dirty[self.t[o].cpu] = true;
            self.mark(Mark::Unboost { task: o, by });
        }
        if let Some(w) = owner.filter(|_| raise) {
            self.boosted = Some(w);
            self.dirty[self.t[w].cpu] = true;
            self.mark(Mark::Boost { task: w, by });
        }
    }

    // ---------------------------------------------------------------- GPU

    fn gpu_pick(&self, after: Option<usize>, exclude: Option<usize>) -> Option<usize> {
        let n = self.gpu.work.len();
        let start = after.map_or(0, |a| (a + 1) % n.max(1));
        (start..n)
            .chain(0..start)
            .find(|&x| Some(x) != exclude && self.gpu.work[x] > 0 && self.gpu.runlisted[x])
    }

    fn gpu_load(&mut self, x: usize) {
        let cost = if self.gpu.free_load || self.gpu.last == Some(x) {
            0
        } else {
            self.m.theta
        };
        self.gpu.free_load = false;
        self.gpu.last = Some(x);
        self.gpu.state = if cost == 0 {
            GpuState::Running {
                tsg: x,
                slice_end: self.now.saturating_add(self.m.timeslice),
            }
        } else {
            GpuState::Switching {
                to: x,
                until: self.now + cost,
            }
        };
    }

    /// The eligible set changed at the end of an update. `free`: the next load is part of
    /// the update (a reload: epsilon includes the switch, U1); else it costs theta (gate:
    /// the host scheduler switches to the enabled TSG after the update, D24).
    fn gpu_runlist_changed(&mut self, free: bool) {
        let cur = match self.gpu.state {
            GpuState::Idle => {
                self.gpu.free_load = free;
                return;
            }
            GpuState::Switching { to, .. } => to,
            GpuState::Running { tsg, .. } => tsg,
        };
        if !self.gpu.runlisted[cur] {
            self.gpu.free_load = free;
            match self.gpu_pick(Some(cur), None) {
                Some(y) => self.gpu_load(y),
                None => self.gpu.state = GpuState::Idle,
            }
        }
    }

    /// Starts the GPU if it is idle and a runlisted TSG has work.
    fn gpu_kick(&mut self) {
        if self.gpu.state == GpuState::Idle {
            if let Some(y) = self.gpu_pick(self.gpu.last, None) {
                self.gpu_load(y);
            }
        }
    }

    fn gpu_next_event(&self) -> Time {
        match self.gpu.state {
            GpuState::Idle => Time::MAX,
            GpuState::Switching { until, .. } => until,
            GpuState::Running { tsg, slice_end } => {
                (self.now.saturating_add(self.gpu.work[tsg])).min(slice_end)
            }
        }
    }

    /// GPU events due at `now`.
    fn gpu_events(&mut self) -> bool {
        let mut any = false;
        loop {
            match self.gpu.state {
                GpuState::Switching { to, until } if until == self.now => {
                    any = true;
                    self.events += 1;
                    if self.gpu.runlisted[to] && self.gpu.work[to] > 0 {
                        self.gpu.state = GpuState::Running {
                            tsg: to,
                            slice_end: self.now.saturating_add(self.m.timeslice),
                        };
                    } else {
                        self.gpu.state = GpuState::Idle;
                        self.gpu_kick();
                    }
                }
                GpuState::Running { tsg, .. } if self.gpu.work[tsg] == 0 => {
                    any = true;
                    self.events += 1;
                    self.gpu_done(tsg);
                    match self.gpu_pick(Some(tsg), None) {
                        Some(y) => self.gpu_load(y),
                        None => self.gpu.state = GpuState::Idle,
                    }
                }
                GpuState::Running { tsg, slice_end } if slice_end == self.now => {
                    any = true;
                    self.events += 1;
                    match self.gpu_pick(Some(tsg), Some(tsg)) {
                        Some(y) => self.gpu_load(y),
                        None => {
                            self.gpu.state = GpuState::Running {
                                tsg,
                                slice_end: self.now.saturating_add(self.m.timeslice),
                            }
                        }
                    }
                }
                _ => return any,
            }
        }
    }

    /// The GPU work of task `i` completed.
    fn gpu_done(&mut self, i: usize) {
        self.t[i].pc += 1;
        match self.t[i].phase {
            // Busy: still in place (running or preempted at the head).
            Phase::Spin => self.set_phase(i, Phase::Start),
            Phase::Suspended => {
                self.set_phase(i, Phase::Start);
                self.t[i].seq = self.tail();
            }
            p => panic!("GPU work completed for a task in phase {p:?}"),
        }
    }

    // ---------------------------------------------------------------- CPU

    /// CPU steps that completed at `now`.
    fn cpu_completions(&mut self) -> bool {
        let mut any = false;
        for c in 0..self.running.len() {
            let Some(i) = self.running[c] else { continue };
            if self.t[i].remaining != 0 {
                continue;
            }
            match self.t[i].phase {
                Phase::Exec => {
                    any = true;
                    self.events += 1;
                    self.t[i].pc += 1;
                    self.set_phase(i, Phase::Start);
                }
                Phase::Hold => {
                    any = true;
                    self.events += 1;
                    self.update_cpu_done(i);
                }
                _ => {}
            }
        }
        any
    }

    fn eff_prio(&self, i: usize) -> u32 {
        if self.t[i].phase == Phase::Hold {
            CEILING
        } else if self.boosted == Some(i) {
            BOOST
        } else {
            self.t[i].prio
        }
    }

    fn dispatch(&mut self) -> bool {
        let mut any = false;
        for c in 0..self.running.len() {
            if !self.dirty[c] {
                continue;
            }
            self.dirty[c] = false;
            loop {
                let mut best: Option<usize> = None;
                for &i in &self.core_tasks[c] {
                    if !self.t[i].phase.runnable() {
                        continue;
                    }
                    best = match best {
                        None => Some(i),
                        Some(b) => {
                            let (pi, pb) = (self.eff_prio(i), self.eff_prio(b));
                            if pi > pb || (pi == pb && self.t[i].seq < self.t[b].seq) {
                                Some(i)
                            } else {
                                Some(b)
                            }
                        }
                    };
                }
                let old = self.running[c];
                if best != old {
                    any = true;
                    self.events += 1;
                    if let (Some(o), Some(b)) = (old, best) {
                        if self.t[o].phase.runnable() && self.trace.is_some() {
                            self.mark(Mark::Preempt {
                                core: c as u32,
                                by: b,
                                victim: o,
                            });
                        }
                    }
                    self.running[c] = best;
                }
                match best {
                    Some(b) if self.t[b].phase == Phase::Start => {
                        any = true;
                        self.start_step(b);
                    }
                    _ => break,
                }
            }
        }
        // A step started above may have woken a lock waiter on a core already passed.
        any || self.dirty.iter().any(|&d| d)
    }

    // ---------------------------------------------------------------- trace

    fn record(&mut self) {
        let Some(tr) = self.trace.as_mut() else {
            return;
        };
        let now = self.now;
        for c in 0..self.running.len() {
            let cur = self.running[c].map(|i| {
                let kind = match self.t[i].phase {
                    Phase::Hold => CpuKind::Update,
                    Phase::Spin => CpuKind::Spin,
                    _ => match self.t[i].steps.get(self.t[i].pc) {
                        Some(Step::Cpu { misc: true, .. }) => CpuKind::Misc,
                        _ => CpuKind::Work,
                    },
                };
                (i, kind)
            });
            let open = self.core_span[c].map(|(i, k, _)| (i, k));
            if open != cur {
                if let Some((task, kind, start)) = self.core_span[c] {
                    if now > start {
                        tr.cpu.push(CpuSpan {
                            core: c as u32,
                            task,
                            kind,
                            start,
                            end: now,
                        });
                    }
                }
                self.core_span[c] = cur.map(|(i, k)| (i, k, now));
            }
        }
        let g = match self.gpu.state {
            GpuState::Idle => None,
            GpuState::Switching { to, .. } => Some((to, GpuKind::Switch)),
            GpuState::Running { tsg, .. } => Some((tsg, GpuKind::Run)),
        };
        if self.gpu.span.map(|(x, k, _)| (x, k)) != g {
            if let Some((task, kind, start)) = self.gpu.span {
                if now > start {
                    tr.gpu.push(GpuSpan {
                        task,
                        kind,
                        start,
                        end: now,
                    });
                }
            }
            self.gpu.span = g.map(|(x, k)| (x, k, now));
        }
        for i in 0..self.t.len() {
            let on_core = self.running[self.t[i].cpu] == Some(i);
            let st = match self.t[i].phase {
                Phase::Idle => None,
                Phase::LockWait => Some(TaskState::LockWait),
                Phase::UpdateSleep => Some(TaskState::UpdateSleep),
                Phase::Suspended => Some(TaskState::GpuWait),
                _ if on_core => Some(TaskState::Running),
                _ => Some(TaskState::Preempted),
            };
            if self.t[i].span.map(|(s, _)| s) != st {
                if let Some((state, start)) = self.t[i].span {
                    if now > start {
                        tr.tasks.push(TaskSpan {
                            task: i,
                            state,
                            start,
                            end: now,
                        });
                    }
                }
                self.t[i].span = st.map(|s| (s, now));
            }
        }
    }

    // ---------------------------------------------------------------- main loop

    fn run(&mut self) {
        loop {
            // Everything due at `now`, until nothing changes.
            loop {
                let mut any = self.gpu_events();
                any |= self.cpu_completions();
                any |= self.update_wakeups();
                any |= self.releases();
                any |= self.dispatch();
                self.gpu_kick();
                if !any {
                    break;
                }
            }
            self.record();
            // Next event.
            let mut next_rel = Time::MAX;
            for t in &self.t {
                if t.next_release < self.cfg.horizon {
                    next_rel = next_rel.min(t.next_release);
                }
            }
            self.next_rel_min = next_rel;
            let mut next = self.gpu_next_event().min(next_rel);
            for &r in self.running.iter().flatten() {
                if matches!(self.t[r].phase, Phase::Exec | Phase::Hold) {
                    next = next.min(self.now + self.t[r].remaining);
                }
            }
            for t in &self.t {
                if t.phase == Phase::UpdateSleep {
                    next = next.min(self.now + t.remaining);
                }
            }
            if next == Time::MAX || next > self.stop {
                break;
            }
            let dt = next - self.now;
            self.events += 1;
            for c in 0..self.running.len() {
                if let Some(r) = self.running[c] {
                    if matches!(self.t[r].phase, Phase::Exec | Phase::Hold) {
                        self.t[r].remaining -= dt;
                    }
                }
            }
            for t in &mut self.t {
                if t.phase == Phase::UpdateSleep {
                    t.remaining -= dt;
                }
            }
            if let GpuState::Running { tsg, .. } = self.gpu.state {
                self.gpu.work[tsg] -= dt;
            }
            self.now = next;
        }
    }

    fn finish(mut self) -> RunResult {
        // Jobs not finished: their age at the stop time is a lower bound of their response
        // (the run stops at `horizon + max deadline`, or earlier when nothing can happen any
        // more: then the unfinished jobs never finish).
        let unfinished = self.t.iter().any(|t| t.phase != Phase::Idle);
        let end = if unfinished {
            self.stop.max(self.now)
        } else {
            self.now
        };
        for i in 0..self.t.len() {
            let mut ages: Vec<Time> = Vec::new();
            if self.t[i].phase != Phase::Idle {
                ages.push(self.t[i].job_release);
            }
            ages.extend(self.t[i].backlog.iter().copied());
            for r in ages {
                let age = end - r;
                let s = &mut self.stats[i];
                s.unfinished += 1;
                if age > s.max {
                    s.max = age;
                    s.max_release = r;
                }
                if age > self.t[i].deadline {
                    s.misses += 1;
                }
            }
        }
        self.now = end;
        self.record_close();
        RunResult {
            tasks: self.stats,
            events: self.events,
            end,
            trace: self.trace,
        }
    }

    fn record_close(&mut self) {
        // Close every open span at the end.
        if self.trace.is_none() {
            return;
        }
        for c in 0..self.running.len() {
            self.running[c] = None;
        }
        self.gpu.state = GpuState::Idle;
        for t in &mut self.t {
            t.phase = Phase::Idle;
        }
        self.record();
        if let Some(tr) = self.trace.as_mut() {
            tr.end = self.now;
        }
    }
}

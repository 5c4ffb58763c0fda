//! The task model of the GCAPS paper (Sec. 4), in exact integer time.
//!
//! All times are integer nanoseconds ([`Time`]) so that fixed-point
//! iterations terminate and ceilings are exact. The taskset file uses
//! milliseconds; [`crate::taskset_file`] converts.

/// Time in integer nanoseconds.
pub type Time = u64;

/// Nanoseconds per millisecond.
pub const NS_PER_MS: Time = 1_000_000;

/// The update ceiling (U2): the SCHED_FIFO priority at which every runlist
/// update runs. Real-time tasks of an analysed taskset must stay below it.
pub const UPDATE_CEILING: u32 = 99;
/// Highest SCHED_FIFO priority accepted for a real-time task: one below the
/// update ceiling (U2).
pub const MAX_PRIORITY: u32 = UPDATE_CEILING - 1;
/// The SCHED_FIFO priority of the owner of the running segment under
/// gcaps-boost (issue 20, `docs/analysis.md` D17-D19): between the task
/// priorities and the update ceiling.
pub const BOOST_PRIORITY: u32 = UPDATE_CEILING - 1;
/// Highest task priority under gcaps-boost (below [`BOOST_PRIORITY`]); the
/// generator gives priorities from here down, so that every generated set
/// is valid for every policy.
pub const MAX_BOOST_TASK_PRIORITY: u32 = BOOST_PRIORITY - 1;
/// Highest accepted GPU-segment priority: gcaps's (a GPU priority is not a
/// CPU priority, so the ceiling does not limit it).
pub const MAX_GPU_PRIORITY: u32 = gcaps_policy::MAX_PRIORITY as u32;
/// Largest accepted number of submissions of one GPU segment (U7).
pub const MAX_SUBMISSIONS: u32 = 1_000_000;
/// Lowest SCHED_FIFO priority accepted for a real-time task, and lowest
/// GPU-segment priority: gcaps's.
pub const MIN_PRIORITY: u32 = gcaps_policy::MIN_PRIORITY as u32;

/// Whether `p` is an accepted CPU priority of a real-time task
/// (`MIN_PRIORITY..=MAX_PRIORITY`, below the update ceiling): the one check,
/// for the file's schema and rules.
pub fn cpu_priority_ok(p: i64) -> bool {
    (i64::from(MIN_PRIORITY)..=i64::from(MAX_PRIORITY)).contains(&p)
}

/// Whether `p` is an accepted GPU-segment priority
/// (`MIN_PRIORITY..=MAX_GPU_PRIORITY`): gcaps's own check
/// ([`gcaps_policy::priority_in_range`]).
pub fn gpu_priority_ok(p: i64) -> bool {
    gcaps_policy::priority_in_range(p)
}

/// Why `epsilon_fast` may not exceed `epsilon` (D20), for the messages of
/// [`within_epsilon`]'s callers.
pub const EPS_FAST_RULE: &str = "it bounds the updates that do not submit";

/// Why `epsilon_cpu` may not exceed `epsilon` (D23), for the messages of
/// [`within_epsilon`]'s callers.
pub const EPS_CPU_RULE: &str = "it is the part of an update spent on its caller's core";

/// Whether a part of an update's bound (`epsilon_fast`, `epsilon_cpu`;
/// `None`: `epsilon`) is within `epsilon`: the one check of those rules,
/// for the file's rules and the generator's parameters.
pub fn within_epsilon(part: Option<Time>, epsilon: Time) -> bool {
    part.is_none_or(|f| f <= epsilon)
}

/// How gcaps.ko makes the running segment's TSGs the ones the GPU may run
/// (its module parameter `mechanism`, `docs/module.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Mechanism {
    /// Every update that changes the decision submits a runlist of the
    /// eligible TSGs and waits until it is no longer pending (U1).
    #[default]
    Reload,
    /// The runlist stays complete; the eligible TSGs are the ones whose
    /// channels are enabled (D24): a begin that takes the GPU disables and
    /// preempts the running TSG and enables the winner's, an end hands the
    /// GPU over by channel enables alone, without a submit or a wait.
    Gate,
}

impl Mechanism {
    /// Both mechanisms, in report order.
    pub const ALL: [Mechanism; 2] = [Mechanism::Reload, Mechanism::Gate];

    /// The name in files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Mechanism::Reload => "reload",
            Mechanism::Gate => "gate",
        }
    }

    /// The mechanism called `name`.
    pub fn from_name(name: &str) -> Option<Mechanism> {
        Mechanism::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// The platform: CPU count and the GPU scheduling overheads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Platform {
    /// Number of CPU cores (omega in the paper).
    pub cpus: u32,
    /// Runlist update delay epsilon (Def. 2): ioctl + scheduler + runlist
    /// submit + the resulting context switch.
    pub epsilon: Time,
    /// Bound of an update that cannot submit (a begin that stays pending,
    /// the end of a segment that is not running: the module's fast path,
    /// U2), at most `epsilon`; `None`: `epsilon` (D20).
    pub epsilon_fast: Option<Time>,
    /// The on-CPU part of an update: the CPU time an update that submits
    /// spends on its caller's core (decision, build, submit, the wake-ups
    /// of its pending wait); the rest of its `epsilon` it sleeps in the
    /// pending wait, still holding the runlist lock. Under `gate` it bounds
    /// the same part of a begin that preempts (its completion wait sleeps
    /// too). At most `epsilon`; `None`: `epsilon` (D23, D24).
    pub epsilon_cpu: Option<Time>,
    /// The eligibility mechanism gcaps.ko runs (default: reload).
    pub mechanism: Mechanism,
    /// Under `gate`: bound of a begin that takes the GPU (disable the
    /// running TSG's channels, preempt it with its completion wait, enable
    /// the winner's), from holding the lock to its release; the winner's
    /// TSG then starts within theta. `None`: `epsilon` (D24).
    pub epsilon_preempt: Option<Time>,
    /// Under `gate`: bound of the end of the running segment (disable the
    /// owner's channels, enable the next winner's), from holding the lock
    /// to its release, all of it on the caller's core (no submit, no wait);
    /// the next winner's TSG then starts within theta. `None`: `epsilon`
    /// (D24).
    pub epsilon_handover: Option<Time>,
    /// TSG context-switch overhead theta (Def. 1).
    pub theta: Time,
    /// TSG time slice L of the default round-robin driver.
    pub timeslice: Time,
}

impl Platform {
    /// The bound of a non-submitting update: `epsilon_fast`, else
    /// `epsilon` (D20).
    pub fn eps_fast(&self) -> Time {
        self.epsilon_fast.unwrap_or(self.epsilon)
    }

    /// The on-CPU part of an update that submits: `epsilon_cpu`, else
    /// `epsilon` (D23).
    pub fn eps_cpu(&self) -> Time {
        self.epsilon_cpu.unwrap_or(self.epsilon)
    }

    /// Under `gate`, the bound of a begin that takes the GPU:
    /// `epsilon_preempt`, else `epsilon` (D24).
    pub fn eps_preempt(&self) -> Time {
        self.epsilon_preempt.unwrap_or(self.epsilon)
    }

    /// Under `gate`, the bound of a hand-over: `epsilon_handover`, else
    /// `epsilon` (D24).
    pub fn eps_handover(&self) -> Time {
        self.epsilon_handover.unwrap_or(self.epsilon)
    }

    /// The update costs of the platform's mechanism (D24).
    pub fn costs(&self) -> UpdateCosts {
        let fast = self.eps_fast();
        match self.mechanism {
            Mechanism::Reload => {
                let eps = self.epsilon;
                UpdateCosts {
                    begin_lock: eps,
                    end_lock: eps,
                    begin_gpu: eps,
                    end_gpu: eps,
                    switch_after: 0,
                    cpu: self.eps_cpu().max(fast),
                }
            }
            Mechanism::Gate => {
                let (preempt, handover) = (self.eps_preempt(), self.eps_handover());
                UpdateCosts {
                    begin_lock: preempt.max(fast),
                    end_lock: handover.max(fast),
                    begin_gpu: preempt.saturating_add(self.theta).max(fast),
                    end_gpu: handover.saturating_add(self.theta).max(fast),
                    switch_after: self.theta,
                    cpu: self.eps_cpu().min(preempt).max(fast).max(handover),
                }
            }
        }
    }
}

/// What one update can cost under a platform's mechanism: the terms of the
/// analysis charge these, never the platform's fields directly (D1, D13,
/// D14, D23, D24).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UpdateCosts {
    /// The longest a begin update holds the runlist lock.
    pub begin_lock: Time,
    /// The longest an end update holds the runlist lock.
    pub end_lock: Time,
    /// From a begin update holding the lock until the segment's TSG can run
    /// on the GPU, or until the begin returns if it stays pending: the
    /// caller's own cost of a begin and the GPU time a begin takes from
    /// the segments it preempts. Reload: `epsilon` (U1: it includes the
    /// switch the submit causes); gate: `epsilon_preempt + theta`.
    pub begin_gpu: Time,
    /// From the end update of the running segment holding the lock until
    /// the next winner's TSG can run: reload `epsilon`, gate
    /// `epsilon_handover + theta` (the caller returns after
    /// `epsilon_handover`).
    pub end_gpu: Time,
    /// The switch to the TSG an update makes eligible, after the update
    /// returned: reload 0 (epsilon includes it, U1), gate theta. A
    /// busy-waiting owner spins for it after its own winning begin, and the
    /// GPU delays a job causes reach this far past its response window (the
    /// switch after its last end update).
    pub switch_after: Time,
    /// The CPU time of one update on its caller's core (D23): reload
    /// `max(epsilon_cpu, epsilon_fast)`; gate also the hand-over, which
    /// never sleeps, and a preempting begin's CPU part is at most its
    /// `epsilon_preempt`.
    pub cpu: Time,
}

impl UpdateCosts {
    /// The longest any update holds the runlist lock.
    pub fn lock(&self) -> Time {
        self.begin_lock.max(self.end_lock)
    }
}

/// One GPU segment G_{i,j} = (G^m_{i,j}, G^e_{i,j}).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GpuSegment {
    /// G^m: CPU work inside the segment (kernel launches, driver calls).
    pub misc: Time,
    /// G^e: pure GPU work (copies, kernels); the task busy-waits or
    /// self-suspends meanwhile.
    pub exec: Time,
    /// Number of pieces G^e is submitted in (U7), >= 1: the segment
    /// submits a piece, waits for it (busy or suspended), runs part of its
    /// `misc` on the CPU, submits the next piece, and so on.
    pub submissions: u32,
}

impl GpuSegment {
    /// A segment that submits its GPU work at once (one submission).
    pub fn new(misc: Time, exec: Time) -> GpuSegment {
        GpuSegment {
            misc,
            exec,
            submissions: 1,
        }
    }
}

/// A segment of a task: CPU-only or GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Segment {
    /// A CPU segment with its WCET.
    Cpu(Time),
    /// A GPU segment.
    Gpu(GpuSegment),
}

/// A sporadic task (a process), partitioned to one CPU core.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Task {
    /// Unique name.
    pub name: String,
    /// Minimum inter-arrival time T_i.
    pub period: Time,
    /// Relative deadline D_i <= T_i.
    pub deadline: Time,
    /// The core the task is pinned to (0-based, < `Platform::cpus`).
    pub cpu: u32,
    /// SCHED_FIFO priority 1..=98, below the update ceiling (larger = more
    /// important); `None` for a
    /// best-effort task, which gets no bound and interferes as the lowest
    /// priority.
    pub priority: Option<u32>,
    /// Separate GPU-segment priority; `None` means "same as `priority`".
    pub gpu_priority: Option<u32>,
    /// The alternating sequence of CPU and GPU segments.
    pub segments: Vec<Segment>,
}

impl Task {
    /// True for a task without a real-time priority.
    pub fn is_best_effort(&self) -> bool {
        self.priority.is_none()
    }

    /// The effective GPU-segment priority: the separate one if given, else
    /// the CPU priority (None for best-effort tasks).
    pub fn effective_gpu_priority(&self) -> Option<u32> {
        self.gpu_priority.or(self.priority)
    }

    /// The GPU segments, in order.
    pub fn gpu_segments(&self) -> impl Iterator<Item = &GpuSegment> + '_ {
        self.segments.iter().filter_map(|s| match s {
            Segment::Gpu(g) => Some(g),
            Segment::Cpu(_) => None,
        })
    }

    /// eta^g: number of GPU segments.
    pub fn gpu_segment_count(&self) -> u64 {
        self.gpu_segments().count() as u64
    }

    /// eta^c: number of CPU segments.
    pub fn cpu_segment_count(&self) -> u64 {
        self.segments
            .iter()
            .filter(|s| matches!(s, Segment::Cpu(_)))
            .count() as u64
    }

    /// True if the task has at least one GPU segment.
    pub fn uses_gpu(&self) -> bool {
        self.gpu_segment_count() > 0
    }

    /// C_i: total WCET of the CPU segments.
    pub fn cpu_time(&self) -> Time {
        self.segments
            .iter()
            .map(|s| match s {
                Segment::Cpu(c) => *c,
                Segment::Gpu(_) => 0,
            })
            .sum()
    }

    /// G^m_i: total CPU work inside GPU segments.
    pub fn gpu_misc(&self) -> Time {
        self.gpu_segments().map(|g| g.misc).sum()
    }

    /// G^e_i: total pure GPU work.
    pub fn gpu_exec(&self) -> Time {
        self.gpu_segments().map(|g| g.exec).sum()
    }

    /// G_i: total GPU-segment time, taken as G^m_i + G^e_i (the paper notes
    /// G_{i,j} <= G^m_{i,j} + G^e_{i,j}; the sum is the safe choice).
    pub fn gpu_time(&self) -> Time {
        self.gpu_misc() + self.gpu_exec()
    }
}

/// A platform and its tasks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Taskset {
    /// The platform.
    pub platform: Platform,
    /// The tasks, in file order.
    pub tasks: Vec<Task>,
}

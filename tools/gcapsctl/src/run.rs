//! `gcapsctl run`: exec a command under SCHED_FIFO (optionally pinned to one CPU) with its
//! default GPU priority for libgcaps in `$GCAPS_GPU_PRIORITY`.
use libgcaps::{GpuPriority, ENV_GPU_PRIORITY};
use nix::sched::{sched_setaffinity, CpuSet};
use nix::unistd::Pid;
use std::ffi::OsString;
use std::os::unix::process::CommandExt;

/// SCHED_FIFO priorities: the range the module takes for CPU and GPU priorities alike.
const RT_PRIORITIES: std::ops::RangeInclusive<i64> =
    libgcaps::GPU_PRIORITY_MIN as i64..=libgcaps::GPU_PRIORITY_MAX as i64;

#[derive(clap::Args)]
pub struct Args {
    /// SCHED_FIFO priority of the command, 1..97: below gcaps's holder boost (`boost_prio`,
    /// 98, while boosting is on) and its update ceiling (`update_prio`, 99), as the loaded
    /// module reports them in STATUS.
    #[arg(long, short = 'p', value_name = "P", allow_hyphen_values = true,
          value_parser = clap::value_parser!(u8).range(RT_PRIORITIES))]
    priority: u8,
    /// Default GPU priority of its segments (1..99, or 0/inherit: the CPU priority, which is
    /// also what happens without this option).
    #[arg(long, short = 'g', value_name = "G", allow_hyphen_values = true,
          value_parser = parse_gpu_priority)]
    gpu_priority: Option<GpuPriority>,
    /// Pin the command to this CPU.
    #[arg(long, value_name = "N")]
    cpu: Option<usize>,
    /// The command and its arguments (after `--`).
    #[arg(last = true, required = true, value_name = "CMD")]
    command: Vec<OsString>,
}

fn parse_gpu_priority(s: &str) -> Result<GpuPriority, String> {
    s.parse().map_err(|e: libgcaps::Error| e.to_string())
}

/// Sets up the calling process and execs the command; returns only on failure.
pub fn run(args: Args) -> Result<(), String> {
    below_limit(args.priority, module_limit())?;
    if let Some(cpu) = args.cpu {
        pin_to(cpu)?;
    }
    set_fifo(args.priority)?;
    let (cmd, rest) = args.command.split_first().ok_or("no command given")?;
    let mut command = std::process::Command::new(cmd);
    command.args(rest);
    match args.gpu_priority {
        // (an inherited value must not override the default the caller asked for)
        None => command.env_remove(ENV_GPU_PRIORITY),
        Some(g) => command.env(ENV_GPU_PRIORITY, g.raw().to_string()),
    };
    let e = command.exec();
    Err(format!(
        "{}: cannot execute: {e}",
        cmd.to_string_lossy().escape_debug()
    ))
}

/// Where the loaded module shows its update ceiling.
const UPDATE_PRIO_PARAM: &str = "/sys/module/gcaps/parameters/update_prio";

/// The update ceiling: the loaded module's `update_prio`, else its default 99.
pub fn update_ceiling() -> u8 {
    std::fs::read_to_string(UPDATE_PRIO_PARAM)
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(99)
}

/// The priority a task of the set must stay below, and which module setting says so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// The holder boost's `boost_prio` (boosting on).
    Boost(u8),
    /// The update ceiling's `update_prio` (boosting off, or a module before STATUS VER1).
    Ceiling(u8),
}

/// The loaded module's limit, from STATUS (`/dev/gcaps`); without the device (module not
/// loaded) its `update_prio` parameter or the defaults (boost on at 98).
pub fn module_limit() -> Limit {
    let status = libgcaps::Gcaps::open().and_then(|g| g.status());
    match status.ok().and_then(|s| s.priorities) {
        Some(p) if p.boost => Limit::Boost(u8::try_from(p.boost_prio).unwrap_or(1)),
        Some(p) => Limit::Ceiling(u8::try_from(p.update_prio).unwrap_or(1)),
        None if std::path::Path::new(UPDATE_PRIO_PARAM).exists() => {
            // a module before the holder boost
            Limit::Ceiling(update_ceiling())
        }
        None => Limit::Boost(98),
    }
}

/// A task at or above the ceiling would delay every runlist update of the others (the
/// analysis assumes no task of the set reaches it: `docs/module.md`, U2); one at or above the
/// holder boost would delay the running segment's owner (`docs/module.md`, "Holder boost").
fn below_limit(priority: u8, limit: Limit) -> Result<(), String> {
    let (l, what) = match limit {
        Limit::Boost(b) => (
            b,
            format!(
                "gcaps's holder boost {b} (boost_prio), at which the running GPU segment's \
                 owner must outrank every real-time task"
            ),
        ),
        Limit::Ceiling(c) => (
            c,
            format!(
                "gcaps's update ceiling {c} (update_prio), which runlist updates need to \
                 outrank every real-time task"
            ),
        ),
    };
    if priority < l {
        return Ok(());
    }
    Err(format!(
        "--priority {priority}: at or above {what}; use 1..{}",
        l.saturating_sub(1)
    ))
}

fn pin_to(cpu: usize) -> Result<(), String> {
    let mut set = CpuSet::new();
    set.set(cpu)
        .map_err(|_| format!("--cpu {cpu}: CPU numbers are below {}", CpuSet::count()))?;
    sched_setaffinity(Pid::from_raw(0), &set).map_err(|e| {
        format!(
            "--cpu {cpu}: cannot pin to this CPU ({}): is it online and allowed?",
            e.desc()
        )
    })
}

fn set_fifo(priority: u8) -> Result<(), String> {
    let param = libc::sched_param {
        sched_priority: priority.into(),
    };
    // SAFETY: plain syscall on the calling process with a valid parameter struct.
    let r = unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) };
    if r == 0 {
        return Ok(());
    }
    let errno = nix::errno::Errno::last();
    Err(match errno {
        nix::errno::Errno::EPERM => format!(
            "SCHED_FIFO priority {priority}: permission denied (needs root, CAP_SYS_NICE or \
             RLIMIT_RTPRIO >= {priority})"
        ),
        e => format!("SCHED_FIFO priority {priority}: {}", e.desc()),
    })
}

#[cfg(test)]
mod tests {
    use super::{below_limit, Limit};

    #[test]
    fn priorities_at_or_above_the_limit_are_refused() {
        assert!(below_limit(98, Limit::Ceiling(99)).is_ok());
        let e = below_limit(99, Limit::Ceiling(99)).unwrap_err();
        assert!(
            e.contains("update ceiling 99") && e.contains("use 1..98"),
            "{e}"
        );
        assert!(below_limit(50, Limit::Ceiling(50)).is_err());
        assert!(below_limit(49, Limit::Ceiling(50)).is_ok());
        assert!(below_limit(97, Limit::Boost(98)).is_ok());
        let e = below_limit(98, Limit::Boost(98)).unwrap_err();
        assert!(
            e.contains("holder boost 98") && e.contains("use 1..97"),
            "{e}"
        );
        assert!(!e.contains('\n'));
    }
}

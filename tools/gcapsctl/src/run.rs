//! `gcapsctl run`: exec a command under SCHED_FIFO (optionally pinned to one CPU) with its
//! default GPU priority for libgcaps in `$GCAPS_GPU_PRIORITY`.
use libgcaps::{GpuPriority, ENV_GPU_PRIORITY};
use nix::sched::{sched_setaffinity, CpuSet};
use nix::unistd::Pid;
use std::ffi::OsString;
use std::os::unix::process::CommandExt;

#[derive(clap::Args)]
pub struct Args {
    /// SCHED_FIFO priority of the command, 1..98: below gcaps's update ceiling
    /// (`update_prio`, 99 unless the module was loaded with another value).
    #[arg(long, short = 'p', value_name = "P", allow_hyphen_values = true,
          value_parser = clap::value_parser!(u8).range(1..=99))]
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
    below_ceiling(args.priority, update_ceiling())?;
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

/// A task at or above the ceiling would delay every runlist update of the others (the
/// analysis assumes no task of the set reaches it: `docs/module.md`, U2).
fn below_ceiling(priority: u8, ceiling: u8) -> Result<(), String> {
    if priority < ceiling {
        return Ok(());
    }
    Err(format!(
        "--priority {priority}: at or above gcaps's update ceiling {ceiling} (update_prio), \
         which runlist updates need to outrank every real-time task; use 1..{}",
        ceiling.saturating_sub(1)
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
    use super::below_ceiling;

    #[test]
    fn priorities_at_or_above_the_ceiling_are_refused() {
        assert!(below_ceiling(98, 99).is_ok());
        let e = below_ceiling(99, 99).unwrap_err();
        assert!(
            e.contains("update ceiling 99") && e.contains("use 1..98"),
            "{e}"
        );
        assert!(below_ceiling(50, 50).is_err());
        assert!(below_ceiling(49, 50).is_ok());
    }
}

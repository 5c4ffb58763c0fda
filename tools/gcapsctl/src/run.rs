//! `gcapsctl run`: exec a command under SCHED_FIFO (optionally pinned to one CPU) with its
//! default GPU priority for libgcaps in `$GCAPS_GPU_PRIORITY`.
use libgcaps::{GpuPriority, ENV_GPU_PRIORITY};
use nix::sched::{sched_setaffinity, CpuSet};
use nix::unistd::Pid;
use std::ffi::OsString;
use std::os::unix::process::CommandExt;

#[derive(clap::Args)]
pub struct Args {
    /// SCHED_FIFO priority of the command, 1..99.
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

//! gpu_segment_rs: a periodic GPU task as an application writes it with libgcaps (Rust).
//!
//! Each job runs one GPU segment on the emulated GPU of the test VM: inside
//! `gcaps.segment(..)` it submits EXEC_MS of GPU work and waits for it; the guard ends the
//! segment, also if the job panics.
//!
//!     gpu_segment_rs EXEC_MS [JOBS [PERIOD_MS]]
//!
//! Prints one line per job (GPU timestamps, CLOCK_MONOTONIC ns), like the C example:
//! `job=N pid=P submit=NS start=NS end=NS preemptions=K`.
mod simgpu;

use libgcaps::{Gcaps, GpuPriority};
use nix::time::{clock_gettime, clock_nanosleep, ClockId, ClockNanosleepFlags};
use std::process::ExitCode;
use std::time::Duration;

fn arg(args: &[String], i: usize, what: &str, max: u64, default: u64) -> Result<u64, String> {
    let Some(s) = args.get(i) else {
        return Ok(default);
    };
    match s.parse::<u64>() {
        Ok(v) if v <= max => Ok(v),
        _ => Err(format!(
            "{what} \"{}\" is not an integer in 0..{max}",
            s.escape_debug()
        )),
    }
}

fn run(args: &[String]) -> Result<(), String> {
    if args.len() < 2 || args.len() > 4 {
        return Err("usage: gpu_segment_rs EXEC_MS [JOBS [PERIOD_MS]]".into());
    }
    let exec_ms = arg(args, 1, "EXEC_MS", 10_000, 1)?.max(1);
    let jobs = arg(args, 2, "JOBS", 1_000_000, 1)?;
    let period = Duration::from_millis(arg(args, 3, "PERIOD_MS", 100_000, 0)?);

    // GCAPS_GPU_PRIORITY (gcapsctl run --gpu-priority) is the default; a bad value is an error.
    let gcaps = Gcaps::open().map_err(|e| e.to_string())?;
    let gpu = simgpu::Tsg::open().map_err(|e| format!("{}: {e}", simgpu::DEVICE))?;

    let mut next = clock_gettime(ClockId::CLOCK_MONOTONIC).map_err(|e| e.to_string())?;
    for job in 0..jobs {
        let done = {
            let _segment = gcaps
                .segment(GpuPriority::ProcessDefault)
                .map_err(|e| e.to_string())?;
            gpu.run(exec_ms * 1_000_000)
                .map_err(|e| format!("GPU work: {}", e.desc()))?
        }; // segment ends here
        println!(
            "job={job} pid={} submit={} start={} end={} preemptions={}",
            std::process::id(),
            done.submit_ns,
            done.start_ns,
            done.end_ns,
            done.preemptions
        );
        next = next + period.into();
        let _ = clock_nanosleep(
            ClockId::CLOCK_MONOTONIC,
            ClockNanosleepFlags::TIMER_ABSTIME,
            &next,
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gpu_segment_rs: {e}");
            ExitCode::FAILURE
        }
    }
}

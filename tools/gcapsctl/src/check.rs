//! `gcapsctl check`: the setup problems `docs/jetson.md` lists, in one table: is the module
//! loaded and the device usable (ABI), is a GPU driver bound, does real-time throttling stop
//! real-time tasks, may this user run SCHED_FIFO tasks, which update ceiling and kernel.
//! The facts are read once ([`Facts::read`]); judging them ([`judge`]) is pure, so every rule
//! is unit-tested. Exit status 1 if any check fails (warnings do not fail).
use crate::device::{DeviceArg, ReportArgs};
use crate::output::{write_stdout, Format};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;

pub fn run(args: ReportArgs) -> Result<(), String> {
    let facts = Facts::read(&args.device);
    let rows = judge(&facts);
    write_stdout(&match args.format {
        Format::Table => table(&rows),
        Format::Json => json(&rows),
    })?;
    let failed: Vec<&str> = rows
        .iter()
        .filter(|r| r.status == Status::Fail)
        .map(|r| r.check)
        .collect();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "check: {} failed ({})",
            failed.len(),
            failed.join(", ")
        ))
    }
}

/// What the checks look at, read from the running system.
#[derive(Clone, Debug)]
pub struct Facts {
    /// `uname -r` and `uname -v`.
    pub kernel_release: String,
    pub kernel_version: String,
    /// `/sys/module/gcaps` exists.
    pub module_loaded: bool,
    /// The update ceiling (the module's `update_prio`, else its default).
    pub ceiling: u8,
    /// The holder boost's `boost_prio` while boosting is on (from STATUS), else `None`.
    pub boost: Option<u8>,
    /// The device opened (with its ABI checked by libgcaps) and its VERSION, or why not.
    pub device: Result<libgcaps::Version, String>,
    /// `/proc/sys/kernel/sched_rt_runtime_us` and `sched_rt_period_us`.
    pub rt_runtime_us: Option<i64>,
    pub rt_period_us: Option<i64>,
    /// This process's soft `RLIMIT_RTPRIO` and whether it has `CAP_SYS_NICE`.
    pub rtprio_limit: u64,
    pub cap_sys_nice: bool,
}

impl Facts {
    pub fn read(device: &DeviceArg) -> Self {
        let (kernel_release, kernel_version) = uname();
        let device = device
            .open()
            .and_then(|g| g.version().map_err(|e| e.to_string()));
        let num = |path: &str| read_trimmed(path).and_then(|s| s.parse().ok());
        Self {
            kernel_release,
            kernel_version,
            module_loaded: Path::new("/sys/module/gcaps").exists(),
            ceiling: crate::run::update_ceiling(),
            boost: match crate::run::module_limit() {
                crate::run::Limit::Boost(b) if Path::new("/sys/module/gcaps").exists() => Some(b),
                _ => None,
            },
            device,
            rt_runtime_us: num("/proc/sys/kernel/sched_rt_runtime_us"),
            rt_period_us: num("/proc/sys/kernel/sched_rt_period_us"),
            rtprio_limit: rtprio_limit(),
            cap_sys_nice: has_cap_sys_nice(),
        }
    }
}

fn read_trimmed(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
}

fn uname() -> (String, String) {
    match nix::sys::utsname::uname() {
        Ok(u) => (
            u.release().to_string_lossy().into_owned(),
            u.version().to_string_lossy().into_owned(),
        ),
        Err(_) => (String::new(), String::new()),
    }
}

fn rtprio_limit() -> u64 {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `r` is a valid, writable `rlimit`.
    if unsafe { libc::getrlimit(libc::RLIMIT_RTPRIO, &mut r) } != 0 {
        return 0;
    }
    r.rlim_cur
}

/// `CAP_SYS_NICE` (bit 23) in this process's effective set (`/proc/self/status` `CapEff`).
fn has_cap_sys_nice() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("CapEff:"))
                .and_then(|h| u64::from_str_radix(h.trim(), 16).ok())
        })
        .is_some_and(|caps| caps & (1 << 23) != 0)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    Info,
    Warn,
    Fail,
}

impl Status {
    fn word(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Info => "info",
            Status::Warn => "WARN",
            Status::Fail => "FAIL",
        }
    }
}

/// One line of the report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    pub check: &'static str,
    pub status: Status,
    pub detail: String,
    /// What to do about a warning or failure.
    pub fix: Option<String>,
}

fn row(check: &'static str, status: Status, detail: String, fix: Option<&str>) -> Row {
    Row {
        check,
        status,
        detail,
        fix: fix.map(str::to_string),
    }
}

/// Judges the facts: one row per check, in a fixed order.
pub fn judge(f: &Facts) -> Vec<Row> {
    let mut rows = Vec::new();
    let preempt = ["PREEMPT_RT", "PREEMPT_DYNAMIC", "PREEMPT"]
        .into_iter()
        .find(|p| f.kernel_version.split_whitespace().any(|w| w == *p))
        .unwrap_or("no PREEMPT");
    rows.push(row(
        "kernel",
        Status::Info,
        format!("{} ({preempt})", f.kernel_release.escape_debug()),
        None,
    ));
    let ceiling = f.ceiling;
    // Analysed tasks stay below the holder boost while it is on, else below the ceiling.
    let limit = f.boost.unwrap_or(ceiling);
    rows.push(if f.module_loaded {
        let boost = f.boost.map_or(String::new(), |b| {
            format!(", the running segment's owner at SCHED_FIFO {b} (holder boost)")
        });
        row(
            "module",
            Status::Ok,
            format!(
                "gcaps loaded; real-time updates run at SCHED_FIFO {ceiling}{boost}: give \
                 analysed tasks priorities 1..{}",
                limit.saturating_sub(1)
            ),
            None,
        )
    } else {
        row(
            "module",
            Status::Fail,
            "gcaps is not loaded".to_string(),
            Some("load it: insmod gcaps.ko (or modprobe gcaps after dkms install)"),
        )
    });
    match &f.device {
        Ok(v) => {
            rows.push(row(
                "device",
                Status::Ok,
                format!("ABI {}, module {}", v.abi, v.module_string()),
                None,
            ));
            rows.push(if v.backend_name.is_empty() {
                row(
                    "backend",
                    Status::Warn,
                    "no GPU driver is bound: gcaps decides, but no runlist follows".to_string(),
                    Some("load the patched GPU driver (nvgpu) or the emulated GPU after gcaps"),
                )
            } else if v.backend_stock {
                row(
                    "backend",
                    Status::Warn,
                    format!(
                        "{} bound ({}backend ABI {}), {}",
                        v.backend_name.escape_debug(),
                        if v.backend_detail.is_empty() {
                            String::new()
                        } else {
                            format!("{}, ", v.backend_detail.escape_debug())
                        },
                        v.backend_abi,
                        crate::status::STOCK
                    ),
                    Some(
                        "the driver lists every TSG while its own scheduler owns the runlists \
                         (nvgpu on R36: while a GSP user scheduling domain exists); remove that \
                         domain for gcaps's decisions to apply",
                    ),
                )
            } else {
                row(
                    "backend",
                    Status::Ok,
                    if v.backend_detail.is_empty() {
                        format!(
                            "{} bound (backend ABI {})",
                            v.backend_name.escape_debug(),
                            v.backend_abi
                        )
                    } else {
                        format!(
                            "{} bound ({}, backend ABI {})",
                            v.backend_name.escape_debug(),
                            v.backend_detail.escape_debug(),
                            v.backend_abi
                        )
                    },
                    None,
                )
            });
        }
        // (without the module, the module row says what to do)
        Err(e) => rows.push(row(
            "device",
            Status::Fail,
            e.clone(),
            f.module_loaded.then_some(
                "check the node's permissions; libgcaps and the module must have the same ABI",
            ),
        )),
    }
    rows.push(match (f.rt_runtime_us, f.rt_period_us) {
        (Some(-1), _) => row(
            "rt-throttling",
            Status::Ok,
            "off (sched_rt_runtime_us = -1)".to_string(),
            None,
        ),
        (Some(rt), Some(period)) => row(
            "rt-throttling",
            Status::Warn,
            format!(
                "real-time tasks are stopped after {rt} us of every {period} us: a segment's \
                 owner can be throttled while it holds the GPU, which no bound covers"
            ),
            Some("sysctl -w kernel.sched_rt_runtime_us=-1 (and keep real-time tasks from starving the GPU driver's threads)"),
        ),
        _ => row(
            "rt-throttling",
            Status::Warn,
            "cannot read /proc/sys/kernel/sched_rt_runtime_us".to_string(),
            None,
        ),
    });
    rows.push(if f.cap_sys_nice {
        row(
            "rt-priority",
            Status::Ok,
            "CAP_SYS_NICE: this user may run SCHED_FIFO tasks at any priority".to_string(),
            None,
        )
    } else if f.rtprio_limit == 0 {
        row(
            "rt-priority",
            Status::Warn,
            "RLIMIT_RTPRIO is 0 and no CAP_SYS_NICE: this user cannot run real-time tasks \
             (their segments would be best-effort)"
                .to_string(),
            Some("raise the limit (limits.conf rtprio, systemd LimitRTPRIO=) or run as root"),
        )
    } else {
        let most = f.rtprio_limit.min(u64::from(limit.saturating_sub(1)));
        row(
            "rt-priority",
            Status::Ok,
            format!(
                "RLIMIT_RTPRIO {}: SCHED_FIFO priorities up to {most} below the ceiling",
                f.rtprio_limit
            ),
            None,
        )
    });
    rows
}

fn table(rows: &[Row]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{:<14} {:<6} detail", "check", "status");
    for r in rows {
        let _ = writeln!(s, "{:<14} {:<6} {}", r.check, r.status.word(), r.detail);
        if let Some(fix) = &r.fix {
            let _ = writeln!(s, "{:<14} {:<6} fix: {fix}", "", "");
        }
    }
    s
}

fn json(rows: &[Row]) -> String {
    let mut s = serde_json::to_string_pretty(rows).expect("plain data serialises");
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn good() -> Facts {
        Facts {
            kernel_release: "6.12.117-gcaps-debug".into(),
            kernel_version: "#1 SMP PREEMPT Tue".into(),
            module_loaded: true,
            ceiling: 99,
            boost: None,
            device: Ok(libgcaps::Version {
                abi: 1,
                module: 0x0100,
                backend_abi: 1,
                backend_name: "gcaps_simgpu".into(),
                backend_detail: "emulated gv11b".into(),
                backend_runlists: 1,
                backend_stock: false,
            }),
            rt_runtime_us: Some(-1),
            rt_period_us: Some(1_000_000),
            rtprio_limit: 0,
            cap_sys_nice: true,
        }
    }

    fn status_of(rows: &[Row], check: &str) -> Status {
        rows.iter().find(|r| r.check == check).unwrap().status
    }

    #[test]
    fn a_good_setup_has_no_warning() {
        let rows = judge(&good());
        let checks: Vec<&str> = rows.iter().map(|r| r.check).collect();
        assert_eq!(
            checks,
            [
                "kernel",
                "module",
                "device",
                "backend",
                "rt-throttling",
                "rt-priority"
            ]
        );
        assert!(rows
            .iter()
            .all(|r| matches!(r.status, Status::Ok | Status::Info)));
        assert_eq!(rows[0].detail, "6.12.117-gcaps-debug (PREEMPT)");
        assert!(rows[1].detail.contains("SCHED_FIFO 99") && rows[1].detail.contains("1..98"));
        assert_eq!(rows[2].detail, "ABI 1, module 0.1.0");
    }

    #[test]
    fn throttling_warns_with_its_figures_and_the_fix() {
        let f = Facts {
            rt_runtime_us: Some(950_000),
            ..good()
        };
        let r = judge(&f);
        let t = r.iter().find(|r| r.check == "rt-throttling").unwrap();
        assert_eq!(t.status, Status::Warn);
        assert!(
            t.detail.contains("950000 us of every 1000000 us"),
            "{}",
            t.detail
        );
        assert!(t.fix.as_deref().unwrap().contains("sched_rt_runtime_us=-1"));
    }

    #[test]
    fn no_module_fails_and_no_backend_warns() {
        let f = Facts {
            module_loaded: false,
            device: Err("cannot open /dev/gcaps: No such file or directory".into()),
            ..good()
        };
        let r = judge(&f);
        assert_eq!(status_of(&r, "module"), Status::Fail);
        assert_eq!(status_of(&r, "device"), Status::Fail);
        assert!(!r.iter().any(|r| r.check == "backend"));
        assert_eq!(r[2].fix, None, "the module row says what to do");
        let f = Facts {
            device: Err("ABI mismatch".into()),
            ..good()
        };
        assert!(judge(&f)[2].fix.as_deref().unwrap().contains("same ABI"));
        let mut f = good();
        if let Ok(v) = &mut f.device {
            v.backend_name.clear();
        }
        assert_eq!(status_of(&judge(&f), "backend"), Status::Warn);
    }

    #[test]
    fn stock_runlists_warn_with_the_explanation() {
        let mut f = good();
        if let Ok(v) = &mut f.device {
            v.backend_stock = true;
        }
        let r = judge(&f);
        let b = r.iter().find(|r| r.check == "backend").unwrap();
        assert_eq!(b.status, Status::Warn);
        assert_eq!(
            b.detail,
            "gcaps_simgpu bound (emulated gv11b, backend ABI 1), STOCK: the driver's own \
             scheduler owns its runlists; gcaps's decision is not applied"
        );
        assert!(b
            .fix
            .as_deref()
            .unwrap()
            .contains("GSP user scheduling domain"));
    }

    #[test]
    fn rt_priority_follows_the_limit_and_the_ceiling() {
        let f = Facts {
            cap_sys_nice: false,
            rtprio_limit: 0,
            ..good()
        };
        assert_eq!(status_of(&judge(&f), "rt-priority"), Status::Warn);
        let f = Facts {
            cap_sys_nice: false,
            rtprio_limit: 99,
            ceiling: 60,
            ..good()
        };
        let r = judge(&f);
        let p = r.iter().find(|r| r.check == "rt-priority").unwrap();
        assert_eq!(p.status, Status::Ok);
        assert!(p.detail.contains("up to 59"), "{}", p.detail);
        assert!(r[1].detail.contains("SCHED_FIFO 60") && r[1].detail.contains("1..59"));
    }

    #[test]
    fn preempt_model_and_escaping() {
        let f = Facts {
            kernel_release: "5.10\n\u{1b}[31m".into(),
            kernel_version: "#1 SMP PREEMPT_RT Tue".into(),
            ..good()
        };
        let d = &judge(&f)[0].detail;
        assert_eq!(d, "5.10\\n\\u{1b}[31m (PREEMPT_RT)");
        let f = Facts {
            kernel_version: "#1 SMP Tue".into(),
            ..good()
        };
        assert!(judge(&f)[0].detail.ends_with("(no PREEMPT)"));
    }

    #[test]
    fn table_and_json_shapes() {
        let f = Facts {
            rt_runtime_us: Some(950_000),
            ..good()
        };
        let rows = judge(&f);
        let t = table(&rows);
        assert!(t.starts_with("check          status detail\n"), "{t}");
        assert!(t.contains("\nrt-throttling  WARN   real-time tasks"), "{t}");
        assert!(t.contains("\n                      fix: sysctl -w"), "{t}");
        let j: serde_json::Value = serde_json::from_str(&json(&rows)).unwrap();
        assert_eq!(j[4]["check"], "rt-throttling");
        assert_eq!(j[4]["status"], "warn");
        assert_eq!(j[0]["fix"], serde_json::Value::Null);
    }
}

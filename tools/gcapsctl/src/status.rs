//! `gcapsctl status`: module version, the bound backend (driver, line and chip, runlists),
//! every client, the eligible TSG set and the always-eligible TSGs with their reasons.
use crate::device::ReportArgs;
use crate::output::{write_stdout, Format};
use libgcaps::{AlwaysReasons, List, Mechanism, Priorities, Version};
use serde::Serialize;
use std::fmt::Write as _;

pub fn run(args: ReportArgs) -> Result<(), String> {
    let gcaps = args.device.open()?;
    let version = gcaps.version().map_err(|e| e.to_string())?;
    let list = gcaps.list().map_err(|e| e.to_string())?;
    let status = gcaps.status().map_err(|e| e.to_string())?;
    // gcapsctl's own client (opened only to ask) is not part of the picture.
    let report = Report::new(&version, &list, std::process::id())
        .with_priorities(status.priorities)
        .with_mechanism(status.mechanism);
    let text = match args.format {
        Format::Table => report.table(),
        Format::Json => report.json(),
    };
    write_stdout(&text)
}

/// What `status` prints, in both formats (the JSON shape is the documented one).
#[derive(Serialize, Debug, PartialEq)]
pub struct Report {
    module: ModuleInfo,
    generation: u64,
    rt_active: bool,
    clients: Vec<ClientRow>,
    eligible_tsgs: Vec<u32>,
    /// TSGs on the runlist during every real-time segment, and why.
    always_eligible_tsgs: Vec<AlwaysTsg>,
    /// TSGs whose process has no gcaps client (best-effort GPU users).
    unmanaged_tsgs: Vec<UnmanagedTsg>,
    /// The holder boost and the update ceiling (null: a module before STATUS VER1).
    boost: Option<BoostInfo>,
    /// The eligibility mechanism (module parameter `mechanism`): "reload" or "gate".
    mechanism: String,
}

#[derive(Serialize, Debug, PartialEq)]
struct BoostInfo {
    /// Holder boost on (module parameter `boost`).
    on: bool,
    /// SCHED_FIFO priority of the running segment's owner thread (0 while off).
    boost_prio: i32,
    /// SCHED_FIFO priority of every real-time update (the ceiling).
    update_prio: i32,
    /// Highest CPU priority for the tasks of an analysed set (`gcapsctl run` refuses more).
    max_task_priority: i32,
}

/// What the backend line says while the backend's runlists are stock (also `gcapsctl check`).
pub const STOCK: &str =
    "STOCK: the driver's own scheduler owns its runlists; gcaps's decision is not applied";

#[derive(Serialize, Debug, PartialEq)]
struct ModuleInfo {
    version: String,
    abi: u32,
    /// Short driver name ("nvgpu", "simgpu"), "" = none bound.
    backend: String,
    /// The driver's line and chip ("r36.4.2 ga10b", "emulated gv11b").
    backend_detail: String,
    backend_abi: u32,
    /// Hardware runlist ids whose builds the backend filters.
    runlists: Vec<u32>,
    /// The backend's runlists are stock: the driver's own scheduler owns them (e.g. nvgpu on
    /// R36 while a GSP user domain exists) and gcaps's decision is not applied.
    backend_stock: bool,
}

#[derive(Serialize, Debug, PartialEq)]
struct AlwaysTsg {
    tsgid: u32,
    pid: u32,
    /// The driver flagged it driver-internal.
    driver: bool,
    /// An administrator marked it (`gcapsctl always-eligible`).
    admin: bool,
}

#[derive(Serialize, Debug, PartialEq)]
struct ClientRow {
    pid: u32,
    comm: String,
    class: String,
    priority: i32,
    gpu_priority: i32,
    state: String,
    tsgs: Vec<u32>,
    client_id: u64,
}

#[derive(Serialize, Debug, PartialEq)]
struct UnmanagedTsg {
    tsgid: u32,
    pid: u32,
}

impl Report {
    /// The report of `list`, leaving out the clients of process `skip_pid` (the tool itself).
    pub fn new(v: &Version, list: &List, skip_pid: u32) -> Self {
        let mut clients: Vec<ClientRow> = list
            .clients
            .iter()
            .filter(|c| c.pid != skip_pid)
            .map(|c| ClientRow {
                pid: c.pid,
                comm: c.comm.clone(),
                class: c.class.to_string(),
                priority: c.cpu_priority,
                gpu_priority: c.gpu_priority,
                state: c.state.to_string(),
                tsgs: list.tsgs_of(c.client_id),
                client_id: c.client_id,
            })
            .collect();
        clients.sort_by_key(|c| (c.pid, c.client_id));
        let mut unmanaged: Vec<UnmanagedTsg> = list
            .tsgs
            .iter()
            .filter(|t| t.owner_client_id == 0)
            .map(|t| UnmanagedTsg {
                tsgid: t.tsgid,
                pid: t.owner_pid,
            })
            .collect();
        unmanaged.sort_by_key(|t| t.tsgid);
        let mut always: Vec<AlwaysTsg> = list
            .tsgs
            .iter()
            .filter(|t| t.always || t.always_driver || t.always_admin)
            .map(|t| AlwaysTsg {
                tsgid: t.tsgid,
                pid: t.owner_pid,
                driver: t.always_driver,
                admin: t.always_admin,
            })
            .collect();
        always.sort_by_key(|t| t.tsgid);
        Self {
            module: ModuleInfo {
                version: v.module_string(),
                abi: v.abi,
                backend: v.backend_name.clone(),
                backend_detail: v.backend_detail.clone(),
                backend_abi: v.backend_abi,
                runlists: v.runlist_ids(),
                backend_stock: v.backend_stock,
            },
            generation: list.generation,
            rt_active: list.rt_active,
            clients,
            eligible_tsgs: list.eligible_tsgs(),
            always_eligible_tsgs: always,
            unmanaged_tsgs: unmanaged,
            boost: None,
            mechanism: Mechanism::Reload.name(),
        }
    }

    /// Adds the module's eligibility mechanism (from STATUS).
    pub fn with_mechanism(mut self, m: Mechanism) -> Self {
        self.mechanism = m.name();
        self
    }

    /// Adds the module's priorities (from STATUS).
    pub fn with_priorities(mut self, p: Option<Priorities>) -> Self {
        self.boost = p.map(|p| BoostInfo {
            on: p.boost,
            boost_prio: p.boost_prio,
            update_prio: p.update_prio,
            max_task_priority: p.max_task_priority(),
        });
        self
    }

    pub fn json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("plain data serialises");
        s.push('\n');
        s
    }

    pub fn table(&self) -> String {
        let m = &self.module;
        let backend = if m.backend.is_empty() {
            "no GPU backend bound".to_string()
        } else {
            let detail = if m.backend_detail.is_empty() {
                String::new()
            } else {
                format!("{}, ", m.backend_detail.escape_debug())
            };
            format!(
                "backend {} ({detail}contract {}, runlists {}{})",
                m.backend.escape_debug(),
                m.backend_abi,
                ids(&m.runlists),
                if m.backend_stock {
                    format!(", {STOCK}")
                } else {
                    String::new()
                }
            )
        };
        let mut s = format!(
            "gcaps {} (ABI {}, mechanism {}), {backend}, generation {}, real-time segment open: {}\n",
            m.version,
            m.abi,
            self.mechanism,
            self.generation,
            if self.rt_active { "yes" } else { "no" }
        );
        if self.clients.is_empty() {
            s.push_str("no clients\n");
        } else {
            let _ = writeln!(
                s,
                "{:>7}  {:<16} {:<5} {:>4} {:>4}  {:<8} TSGS",
                "PID", "COMMAND", "CLASS", "PRIO", "GPU", "STATE"
            );
            for c in &self.clients {
                let _ = writeln!(
                    s,
                    "{:>7}  {:<16} {:<5} {:>4} {:>4}  {:<8} {}",
                    c.pid,
                    c.comm.escape_debug().to_string(),
                    c.class,
                    c.priority,
                    c.gpu_priority,
                    c.state,
                    ids(&c.tsgs)
                );
            }
        }
        let _ = writeln!(s, "eligible TSGs: {}", ids(&self.eligible_tsgs));
        if let Some(b) = &self.boost {
            let boost = if b.on {
                format!(
                    "on (running segment's owner at SCHED_FIFO {})",
                    b.boost_prio
                )
            } else {
                "off".into()
            };
            let _ = writeln!(
                s,
                "holder boost: {boost}; update ceiling SCHED_FIFO {}; task priorities 1..{}",
                b.update_prio, b.max_task_priority
            );
        }
        if !self.always_eligible_tsgs.is_empty() {
            let list: Vec<String> = self
                .always_eligible_tsgs
                .iter()
                .map(|t| {
                    let r = AlwaysReasons {
                        driver: t.driver,
                        admin: t.admin,
                    };
                    format!("{} ({}, pid {})", t.tsgid, reasons_text(r), t.pid)
                })
                .collect();
            let _ = writeln!(s, "always-eligible TSGs: {}", list.join(", "));
        }
        if !self.unmanaged_tsgs.is_empty() {
            let list: Vec<String> = self
                .unmanaged_tsgs
                .iter()
                .map(|t| format!("{} (pid {})", t.tsgid, t.pid))
                .collect();
            let _ = writeln!(s, "TSGs without a gcaps client: {}", list.join(", "));
        }
        s
    }
}

/// `driver`, `admin`, `driver+admin`, or `off`.
pub fn reasons_text(r: AlwaysReasons) -> &'static str {
    match (r.driver, r.admin) {
        (true, true) => "driver+admin",
        (true, false) => "driver",
        (false, true) => "admin",
        (false, false) => "off",
    }
}

fn ids(v: &[u32]) -> String {
    if v.is_empty() {
        return "-".into();
    }
    v.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
}

#[cfg(test)]
mod tests {
    use super::*;
    use libgcaps::{ClientInfo, CpuClass, SegState, TsgInfo};

    fn client(
        id: u64,
        pid: u32,
        comm: &str,
        class: CpuClass,
        prio: i32,
        gprio: i32,
        state: SegState,
    ) -> ClientInfo {
        ClientInfo {
            client_id: id,
            pid,
            comm: comm.into(),
            class,
            cpu_priority: prio,
            gpu_priority: gprio,
            state,
            num_tsgs: 0,
        }
    }

    fn tsg(id: u32, owner: u64, pid: u32, eligible: bool) -> TsgInfo {
        TsgInfo {
            tsgid: id,
            owner_client_id: owner,
            owner_pid: pid,
            timeslice_us: 1024,
            eligible,
            always: false,
            always_driver: false,
            always_admin: false,
        }
    }

    fn always(mut t: TsgInfo, driver: bool, admin: bool) -> TsgInfo {
        t.always = true;
        t.always_driver = driver;
        t.always_admin = admin;
        t
    }

    fn sample() -> (Version, List) {
        let v = Version {
            abi: 1,
            module: 0x000100,
            backend_abi: 2,
            backend_name: "simgpu".into(),
            backend_detail: "emulated gv11b".into(),
            backend_runlists: 1,
            backend_stock: false,
        };
        let list = List {
            clients: vec![
                client(
                    2,
                    200,
                    "low\tprio",
                    CpuClass::Other,
                    0,
                    0,
                    SegState::Pending,
                ),
                client(1, 123, "hi", CpuClass::Fifo, 50, 60, SegState::Running),
                client(3, 999, "gcapsctl", CpuClass::Other, 0, 0, SegState::Idle),
            ],
            tsgs: vec![
                tsg(4, 1, 123, true),
                tsg(3, 1, 123, true),
                tsg(5, 2, 200, false),
                tsg(9, 0, 77, false),
                always(tsg(12, 0, 0, true), true, false),
                always(tsg(13, 0, 88, true), false, true),
            ],
            generation: 7,
            rt_active: true,
        };
        (v, list)
    }

    #[test]
    fn json_has_the_documented_shape() {
        let (v, l) = sample();
        let j: serde_json::Value = serde_json::from_str(&Report::new(&v, &l, 999).json()).unwrap();
        assert_eq!(j["eligible_tsgs"], serde_json::json!([3, 4, 12, 13]));
        assert_eq!(
            j["always_eligible_tsgs"],
            serde_json::json!([
                {"tsgid": 12, "pid": 0, "driver": true, "admin": false},
                {"tsgid": 13, "pid": 88, "driver": false, "admin": true}
            ])
        );
        assert_eq!(j["module"]["backend_detail"], "emulated gv11b");
        assert_eq!(j["module"]["runlists"], serde_json::json!([0]));
        assert_eq!(j["mechanism"], "reload");
        assert_eq!(j["module"]["backend_abi"], 2);
        assert_eq!(j["module"]["backend_stock"], false);
        let c = &j["clients"];
        assert_eq!(
            c.as_array().unwrap().len(),
            2,
            "the tool's own client is left out"
        );
        assert_eq!(
            c[0],
            serde_json::json!({"pid": 123, "comm": "hi", "class": "fifo", "priority": 50,
                "gpu_priority": 60, "state": "running", "tsgs": [3, 4], "client_id": 1})
        );
        assert_eq!(c[1]["class"], "other");
        assert_eq!(c[1]["state"], "pending");
        assert_eq!(c[1]["comm"], "low\tprio");
        assert_eq!(j["module"]["backend"], "simgpu");
        assert_eq!(
            j["unmanaged_tsgs"],
            serde_json::json!([{"tsgid": 9, "pid": 77}, {"tsgid": 12, "pid": 0},
                {"tsgid": 13, "pid": 88}])
        );
    }

    #[test]
    fn table_lists_clients_and_the_eligible_set() {
        let (v, l) = sample();
        let t = Report::new(&v, &l, 999)
            .with_mechanism(Mechanism::Gate)
            .table();
        let want = "\
gcaps 0.1.0 (ABI 1, mechanism gate), backend simgpu (emulated gv11b, contract 2, runlists 0), generation 7, real-time segment open: yes
    PID  COMMAND          CLASS PRIO  GPU  STATE    TSGS
    123  hi               fifo    50   60  running  3,4
    200  low\\tprio        other    0    0  pending  5
eligible TSGs: 3,4,12,13
always-eligible TSGs: 12 (driver, pid 0), 13 (admin, pid 88)
TSGs without a gcaps client: 9 (pid 77), 12 (pid 0), 13 (pid 88)
";
        assert_eq!(t, want);
    }

    #[test]
    fn stock_runlists_are_said_in_the_backend_line_and_json() {
        let (mut v, l) = sample();
        v.backend_stock = true;
        let r = Report::new(&v, &l, 999);
        let first = r.table().lines().next().unwrap().to_string();
        assert_eq!(
            first,
            "gcaps 0.1.0 (ABI 1, mechanism reload), backend simgpu (emulated gv11b, contract 2, runlists 0, \
             STOCK: the driver's own scheduler owns its runlists; gcaps's decision is not \
             applied), generation 7, real-time segment open: yes"
        );
        let j: serde_json::Value = serde_json::from_str(&r.json()).unwrap();
        assert_eq!(j["module"]["backend_stock"], true);
    }

    #[test]
    fn empty_table() {
        let v = Version {
            abi: 1,
            module: 0x010203,
            backend_abi: 0,
            backend_name: String::new(),
            backend_detail: String::new(),
            backend_runlists: 0,
            backend_stock: false,
        };
        let t = Report::new(&v, &List::default(), 1).table();
        assert_eq!(
            t,
            "gcaps 1.2.3 (ABI 1, mechanism reload), no GPU backend bound, generation 0, real-time segment open: no\n\
             no clients\neligible TSGs: -\n"
        );
    }
}

//! What the module reports: versions, clients, TSGs (decoded from the UAPI structs).
use crate::uapi;
use std::fmt;

/// `GCAPS_IOC_VERSION`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    pub abi: u32,
    /// `major << 16 | minor << 8 | patch`.
    pub module: u32,
    /// Backend contract version, 0 = no GPU backend bound.
    pub backend_abi: u32,
    /// "" = no backend bound; short driver name ("nvgpu", "simgpu").
    pub backend_name: String,
    /// The driver's line and chip ("r36.4.2 ga10b", "emulated gv11b"); "" if none (or a
    /// module before VERSION VER1).
    pub backend_detail: String,
    /// Bit i: the backend filters hardware runlist i (0: none bound).
    pub backend_runlists: u32,
    /// The backend's runlists are stock (`GCAPS_BACKEND_STOCK`): the driver's own scheduler
    /// owns them (e.g. nvgpu on R36 while a GSP user domain exists) and lists every TSG, so
    /// gcaps's decision is not applied. False if none is bound (or a module before VER1).
    pub backend_stock: bool,
}

impl Version {
    pub(crate) fn from_uapi(v: &uapi::gcaps_version) -> Self {
        Self {
            abi: v.abi_version,
            module: v.module_version,
            backend_abi: v.backend_abi,
            backend_name: c_string(&v.backend_name),
            backend_detail: c_string(&v.backend_detail),
            backend_runlists: v.backend_runlists,
            backend_stock: v.backend_flags & uapi::GCAPS_BACKEND_STOCK != 0,
        }
    }

    /// The runlist ids the backend filters, ascending.
    pub fn runlist_ids(&self) -> Vec<u32> {
        (0..32)
            .filter(|i| self.backend_runlists & (1 << i) != 0)
            .collect()
    }

    /// `major.minor.patch` of the module.
    pub fn module_string(&self) -> String {
        let m = self.module;
        format!("{}.{}.{}", m >> 16, (m >> 8) & 0xff, m & 0xff)
    }
}

/// CPU scheduling class of a client, at its last begin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CpuClass {
    /// SCHED_OTHER, SCHED_BATCH or SCHED_IDLE.
    Other,
    Fifo,
    Rr,
    /// A value this library does not know (a newer module).
    Unknown(u32),
}

impl CpuClass {
    pub(crate) fn from_uapi(c: u32) -> Self {
        match c {
            uapi::GCAPS_CLASS_OTHER => Self::Other,
            uapi::GCAPS_CLASS_FIFO => Self::Fifo,
            uapi::GCAPS_CLASS_RR => Self::Rr,
            c => Self::Unknown(c),
        }
    }
}

impl fmt::Display for CpuClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Other => f.write_str("other"),
            Self::Fifo => f.write_str("fifo"),
            Self::Rr => f.write_str("rr"),
            Self::Unknown(c) => write!(f, "class{c}"),
        }
    }
}

/// Segment state of a client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegState {
    /// No open segment.
    Idle,
    /// Open segment, its TSGs are eligible.
    Running,
    /// Open segment, waiting for a higher or earlier one.
    Pending,
    Unknown(u32),
}

impl SegState {
    pub(crate) fn from_uapi(s: u32) -> Self {
        match s {
            uapi::GCAPS_STATE_IDLE => Self::Idle,
            uapi::GCAPS_STATE_RUNNING => Self::Running,
            uapi::GCAPS_STATE_PENDING => Self::Pending,
            s => Self::Unknown(s),
        }
    }
}

impl fmt::Display for SegState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Idle => f.write_str("idle"),
            Self::Running => f.write_str("running"),
            Self::Pending => f.write_str("pending"),
            Self::Unknown(s) => write!(f, "state{s}"),
        }
    }
}

/// One client (`struct gcaps_client_info`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientInfo {
    pub client_id: u64,
    pub pid: u32,
    pub comm: String,
    pub class: CpuClass,
    /// rt_priority at the last begin, 0 for best-effort.
    pub cpu_priority: i32,
    /// Effective GPU priority of the open segment, 0 if none or best-effort.
    pub gpu_priority: i32,
    pub state: SegState,
    pub num_tsgs: u32,
}

impl ClientInfo {
    pub(crate) fn from_uapi(c: &uapi::gcaps_client_info) -> Self {
        Self {
            client_id: c.client_id,
            pid: c.tgid,
            comm: c_string(&c.comm),
            class: CpuClass::from_uapi(c.cpu_class),
            cpu_priority: c.cpu_priority,
            gpu_priority: c.gpu_priority,
            state: SegState::from_uapi(c.state),
            num_tsgs: c.num_tsgs,
        }
    }
}

/// One TSG (`struct gcaps_tsg_info`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TsgInfo {
    pub tsgid: u32,
    /// 0: the owner process has no gcaps client.
    pub owner_client_id: u64,
    pub owner_pid: u32,
    pub timeslice_us: u32,
    /// On the runlist by the current decision.
    pub eligible: bool,
    /// Always eligible: on the runlist during every real-time segment (`always_driver` or
    /// `always_admin`).
    pub always: bool,
    /// ... because the driver flagged it driver-internal.
    pub always_driver: bool,
    /// ... because an administrator marked it ([`crate::Gcaps::set_always_eligible`]).
    pub always_admin: bool,
}

impl TsgInfo {
    pub(crate) fn from_uapi(t: &uapi::gcaps_tsg_info) -> Self {
        Self {
            tsgid: t.tsgid,
            owner_client_id: t.owner_client_id,
            owner_pid: t.owner_tgid,
            timeslice_us: t.timeslice_us,
            eligible: t.flags & uapi::GCAPS_TSG_ELIGIBLE != 0,
            always: t.flags & uapi::GCAPS_TSG_ALWAYS != 0,
            always_driver: t.flags & uapi::GCAPS_TSG_ALWAYS_DRIVER != 0,
            always_admin: t.flags & uapi::GCAPS_TSG_ALWAYS_ADMIN != 0,
        }
    }
}

/// Why a TSG is always eligible, after `GCAPS_IOC_SET_ALWAYS`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AlwaysReasons {
    /// The driver flagged it driver-internal (only the driver clears this).
    pub driver: bool,
    /// An administrator marked it.
    pub admin: bool,
}

impl AlwaysReasons {
    pub(crate) fn from_uapi(bits: u32) -> Self {
        Self {
            driver: bits & uapi::GCAPS_TSG_ALWAYS_DRIVER != 0,
            admin: bits & uapi::GCAPS_TSG_ALWAYS_ADMIN != 0,
        }
    }

    /// Whether the TSG is always eligible.
    pub fn any(&self) -> bool {
        self.driver || self.admin
    }
}

/// `GCAPS_IOC_STATUS`: the caller's own client and the global decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Status {
    pub me: ClientInfo,
    pub generation: u64,
    pub rt_active: bool,
    pub num_clients: u32,
    /// The module's priorities (STATUS VER1); `None` from a module before the holder boost.
    pub priorities: Option<Priorities>,
    /// The eligibility mechanism the module was loaded with (module parameter `mechanism`;
    /// a module before it reports 0, reload, the only mechanism it had).
    pub mechanism: Mechanism,
}

/// How the GPU driver keeps the TSGs that are not eligible off the GPU (`GCAPS_MECH_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mechanism {
    /// The runlist lists only the eligible TSGs; each change is a runlist reload.
    Reload,
    /// Every TSG is listed, only the eligible ones' channels are enabled; an end hands over
    /// without a reload.
    Gate,
    /// A value this library does not know (a newer module).
    Other(u32),
}

impl Mechanism {
    /// From its `GCAPS_MECH_*` value.
    pub fn from_uapi(v: u32) -> Self {
        match v {
            uapi::GCAPS_MECH_RELOAD => Self::Reload,
            uapi::GCAPS_MECH_GATE => Self::Gate,
            v => Self::Other(v),
        }
    }

    /// The module parameter's value (`reload`, `gate`), or `unknown (N)`.
    pub fn name(self) -> String {
        match self {
            Self::Reload => "reload".into(),
            Self::Gate => "gate".into(),
            Self::Other(v) => format!("unknown ({v})"),
        }
    }
}

/// The module's scheduling priorities and the holder boost (`GCAPS_IOC_STATUS` VER1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Priorities {
    /// Holder boost on (module parameter `boost`): the running real-time segment's owner
    /// thread runs at SCHED_FIFO `boost_prio`.
    pub boost: bool,
    /// SCHED_FIFO priority of the boosted owner (0 while boosting is off). Analysed task
    /// priorities must stay below it while boosting is on.
    pub boost_prio: i32,
    /// SCHED_FIFO priority of every real-time update (the ceiling).
    pub update_prio: i32,
    /// The caller's segment runs and its owner thread is boosted now.
    pub self_boosted: bool,
}

impl Priorities {
    /// The highest CPU priority a task of an analysed set may have: below the boost while it
    /// is on, below the ceiling otherwise.
    pub fn max_task_priority(&self) -> i32 {
        if self.boost {
            self.boost_prio - 1
        } else {
            self.update_prio - 1
        }
    }
}

impl Status {
    pub(crate) fn from_uapi(s: &uapi::gcaps_status) -> Self {
        Self {
            me: ClientInfo::from_uapi(&s.self_),
            generation: s.generation,
            rt_active: s.rt_active != 0,
            num_clients: s.num_clients,
            // A module before VER1 leaves the fields zero; its ceiling is never 0 (1..99).
            priorities: (s.update_prio != 0).then_some(Priorities {
                boost: s.boost & uapi::GCAPS_BOOST_ON != 0,
                boost_prio: s.boost_prio,
                update_prio: s.update_prio,
                self_boosted: s.boost & uapi::GCAPS_BOOST_SELF != 0,
            }),
            mechanism: Mechanism::from_uapi(s.mechanism),
        }
    }
}

/// `GCAPS_IOC_LIST`: every client and TSG.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct List {
    pub clients: Vec<ClientInfo>,
    pub tsgs: Vec<TsgInfo>,
    pub generation: u64,
    pub rt_active: bool,
}

impl List {
    pub(crate) fn from_uapi(
        l: &uapi::gcaps_list,
        clients: &[uapi::gcaps_client_info],
        tsgs: &[uapi::gcaps_tsg_info],
    ) -> Self {
        Self {
            clients: clients.iter().map(ClientInfo::from_uapi).collect(),
            tsgs: tsgs.iter().map(TsgInfo::from_uapi).collect(),
            generation: l.generation,
            rt_active: l.rt_active != 0,
        }
    }

    /// The TSG ids a client owns, ascending.
    pub fn tsgs_of(&self, client_id: u64) -> Vec<u32> {
        let mut v: Vec<u32> = self
            .tsgs
            .iter()
            .filter(|t| t.owner_client_id == client_id)
            .map(|t| t.tsgid)
            .collect();
        v.sort_unstable();
        v
    }

    /// The eligible set: TSG ids on the runlist by the current decision, ascending.
    pub fn eligible_tsgs(&self) -> Vec<u32> {
        let mut v: Vec<u32> = self
            .tsgs
            .iter()
            .filter(|t| t.eligible)
            .map(|t| t.tsgid)
            .collect();
        v.sort_unstable();
        v
    }
}

/// A NUL-terminated C string from a fixed array (no NUL: the whole array), lossily as UTF-8.
pub(crate) fn c_string(bytes: &[libc::c_char]) -> String {
    let b: Vec<u8> = bytes
        .iter()
        .map(|&c| c as u8)
        .take_while(|&c| c != 0)
        .collect();
    String::from_utf8_lossy(&b).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comm(s: &str) -> [libc::c_char; 16] {
        let mut a = [0 as libc::c_char; 16];
        for (d, b) in a.iter_mut().zip(s.bytes()) {
            *d = b as libc::c_char;
        }
        a
    }

    #[test]
    fn decodes_clients_and_tsgs() {
        let c = uapi::gcaps_client_info {
            client_id: 9,
            tgid: 123,
            cpu_class: uapi::GCAPS_CLASS_FIFO,
            cpu_priority: 50,
            gpu_priority: 40,
            state: uapi::GCAPS_STATE_PENDING,
            num_tsgs: 2,
            comm: comm("app"),
        };
        let t = |id, owner, flags| uapi::gcaps_tsg_info {
            tsgid: id,
            flags,
            owner_client_id: owner,
            owner_tgid: 123,
            timeslice_us: 1000,
        };
        let l = uapi::gcaps_list {
            generation: 5,
            rt_active: 1,
            ..Default::default()
        };
        let list = List::from_uapi(
            &l,
            &[c],
            &[
                t(4, 9, uapi::GCAPS_TSG_ELIGIBLE),
                t(3, 9, 0),
                t(7, 0, uapi::GCAPS_TSG_ALWAYS | uapi::GCAPS_TSG_ELIGIBLE),
                t(
                    8,
                    0,
                    uapi::GCAPS_TSG_ALWAYS
                        | uapi::GCAPS_TSG_ALWAYS_DRIVER
                        | uapi::GCAPS_TSG_ALWAYS_ADMIN,
                ),
            ],
        );
        assert!(list.tsgs[3].always && list.tsgs[3].always_driver && list.tsgs[3].always_admin);
        assert!(!list.tsgs[2].always_driver && !list.tsgs[2].always_admin);
        let ci = &list.clients[0];
        assert_eq!(
            (ci.pid, ci.comm.as_str(), ci.class, ci.state),
            (123, "app", CpuClass::Fifo, SegState::Pending)
        );
        assert_eq!((ci.cpu_priority, ci.gpu_priority), (50, 40));
        assert_eq!(list.tsgs_of(9), vec![3, 4]);
        assert_eq!(list.eligible_tsgs(), vec![4, 7]);
        assert!(list.tsgs[2].always && list.rt_active && list.generation == 5);
    }

    #[test]
    fn strings_and_versions() {
        assert_eq!(c_string(&comm("abcdefghijklmnop")), "abcdefghijklmnop");
        assert_eq!(c_string(&comm("")), "");
        let mut v = uapi::gcaps_version {
            abi_version: 1,
            module_version: 1 << 16 | 2 << 8 | 3,
            backend_abi: 1,
            ..Default::default()
        };
        v.backend_name[..6].copy_from_slice(&comm("simgpu")[..6]);
        v.backend_detail[..14].copy_from_slice(&comm("emulated gv11b")[..14]);
        v.backend_runlists = 0b101;
        let stock = Version::from_uapi(&uapi::gcaps_version {
            backend_flags: uapi::GCAPS_BACKEND_STOCK,
            ..v
        });
        assert!(stock.backend_stock);
        let v = Version::from_uapi(&v);
        assert!(!v.backend_stock);
        assert_eq!(v.backend_detail, "emulated gv11b");
        assert_eq!(v.runlist_ids(), vec![0, 2]);
        assert_eq!(v.module_string(), "1.2.3");
        assert_eq!(v.backend_name, "simgpu");
        assert_eq!(CpuClass::from_uapi(7).to_string(), "class7");
        assert_eq!(SegState::from_uapi(1).to_string(), "running");
    }
}

// SPDX-License-Identifier: GPL-2.0

//! Every lifecycle path of the core through its public interface, with a test host: the
//! helpers here, the tests by concept beside this file.

#[path = "../common/mod.rs"]
mod common;

mod always;
mod boost;
mod clients;
mod observe;
mod segments;
mod tsgs;

use common::{fifo, opener, TestHost};
use gcaps_core::ioctl::{begin_request, BeginRequest};
use gcaps_core::stats::ResetScope;
use gcaps_core::uapi::{self, SegBegin};
use gcaps_core::{Call, ClientRef, Core, Errno, Exits, ListBuf, Mechanism, TaskToken, Warning};

fn core() -> Box<Core> {
    Box::new(Core::new())
}

fn req(prio: i32, gpu: i32) -> BeginRequest {
    let a = SegBegin {
        size: 24,
        gpu_priority: gpu,
        ..Default::default()
    };
    begin_request(&a, fifo(prio), |_| true).unwrap()
}

fn call(rt: bool) -> Call {
    Call { entry_ns: 0, rt }
}

fn begin(c: &mut Core, h: &mut TestHost, r: ClientRef, prio: i32) -> Result<(u32, u64), Errno> {
    c.seg_begin(h, r, req(prio, 0), call(prio > 0))
}

fn list(c: &Core, h: &TestHost) -> (Box<ListBuf>, uapi::List) {
    let mut buf = Box::new(ListBuf {
        clients: [uapi::ClientInfo::default(); gcaps_core::MAX_CLIENTS],
        tsgs: [uapi::TsgInfo::default(); gcaps_core::MAX_TSGS],
    });
    let mut l = uapi::List::default();
    c.list(h, &mut buf, &mut l);
    (buf, l)
}

fn stats(c: &mut Core, reset: Option<ResetScope>) -> uapi::Stats {
    let mut s = uapi::Stats::default();
    c.stats(&mut s, reset);
    s
}

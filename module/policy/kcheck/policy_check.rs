// SPDX-License-Identifier: GPL-2.0
//! Compile-and-run check: the gcaps-policy crate included into a Rust kernel module
//! with `#[path]`, as the real gcaps module will do. Loading it runs a short scenario
//! and fails with -EINVAL if the policy misbehaves. Built by `../check-kernel.sh`.

use kernel::prelude::*;

#[allow(unreachable_pub, unused_attributes, dead_code)]
#[path = "../src/lib.rs"]
mod policy;

use policy::{GpuPriority, Policy, SchedClass};

// SAFETY: `Policy`'s all-zero bit pattern is exactly `Policy::new()` (documented
// guarantee of the policy crate: only integers, bools and arrays of them).
unsafe impl kernel::init::Zeroable for Policy {}

module! {
    type: PolicyCheck,
    name: "policy_check",
    author: "gcaps",
    description: "gcaps policy crate inclusion check",
    license: "GPL",
}

struct PolicyCheck;

fn check() -> Result {
    // 23 KiB: allocate zeroed on the heap, never on the 16 KiB kernel stack.
    let mut p: KBox<Policy> = KBox::init(kernel::init::zeroed(), GFP_KERNEL)?;
    let (lo, _) = p.register(100, SchedClass::RealTime(10)).map_err(|_| EINVAL)?;
    let (hi, _) = p.register(200, SchedClass::RealTime(90)).map_err(|_| EINVAL)?;
    for (tsgid, owner) in [(1, 100), (2, 200), (700, 200), (3, 999)] {
        p.tsg_create(tsgid, owner).map_err(|_| EINVAL)?;
    }
    p.seg_begin(lo, GpuPriority::Inherit).map_err(|_| EINVAL)?;
    let out = p.seg_begin(hi, GpuPriority::Inherit).map_err(|_| EINVAL)?;
    let mut n = 0;
    for t in p.eligible().iter() {
        pr_info!("eligible tsg {}\n", t);
        n += 1;
    }
    if !out.changed || n != 2 || !p.is_eligible(700) || p.is_eligible(1) {
        return Err(EINVAL);
    }
    p.seg_end(hi).map_err(|_| EINVAL)?;
    if !p.is_eligible(1) || p.is_eligible(2) || p.is_eligible(3) {
        return Err(EINVAL);
    }
    p.client_gone(lo).map_err(|_| EINVAL)?;
    if p.eligible().len() != 4 || p.seg_end(lo).is_ok() {
        return Err(EINVAL);
    }
    // Runlist entry of the facts file's worked example.
    let mut buf = [0u8; 2 * policy::ENTRY_SIZE];
    let ch = policy::ChannelDesc {
        chid: 17,
        runqueue: 0,
        inst_addr: 0x1_2345_6000,
        inst_aperture: policy::Aperture::SysMemCoherent,
        userd_addr: 0x8000_0200,
        userd_aperture: policy::Aperture::SysMemCoherent,
    };
    let ch = policy::ChannelEntry::new(&ch).map_err(|_| EINVAL)?;
    let mut w = policy::RunlistWriter::new(&mut buf);
    w.push_tsg(5, policy::Timeslice::DEFAULT, &[ch]).map_err(|_| EINVAL)?;
    if policy::read_entry(&buf, 1) != Some([0x8000_02a0, 0, 0x2345_6011, 1]) {
        return Err(EINVAL);
    }
    pr_info!("policy check passed (generation {})\n", p.generation());
    Ok(())
}

impl kernel::Module for PolicyCheck {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        check()?;
        Ok(PolicyCheck)
    }
}

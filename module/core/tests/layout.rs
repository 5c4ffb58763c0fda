// SPDX-License-Identifier: GPL-2.0

//! The construction guarantee the kernel host relies on (`unsafe impl Zeroable for Locked` in
//! `module/gcaps/device.rs`): a zeroed `Core` (as `kvzalloc` gives it) is a valid, empty
//! core that behaves like `Core::new()`.

mod common;

use common::{opener, TestHost};
use gcaps_core::uapi;
use gcaps_core::Core;
use std::alloc::{alloc_zeroed, Layout};
use std::mem::size_of;

/// A heap `Core` with all bytes zero.
fn zeroed() -> Box<Core> {
    let layout = Layout::new::<Core>();
    assert!(layout.size() > 0);
    // SAFETY: `layout` is `Core`'s and non-zero-sized; the pointer comes from the global
    // allocator with that layout, as `Box::from_raw` requires. Every field of `Core` is an
    // integer, a bool, an array of them or a policy documented valid when all-zero, so the
    // zero bytes are a valid `Core` (the claim under test, checked below by behaviour).
    unsafe {
        let p = alloc_zeroed(layout) as *mut Core;
        assert!(!p.is_null());
        Box::from_raw(p)
    }
}

#[test]
fn zeroed_core_is_new() {
    eprintln!("size_of::<Core>() = {} bytes", size_of::<Core>());
    let mut z = zeroed();
    let mut n = Box::new(Core::new());
    z.check().unwrap();
    assert_eq!(z.generation(), 0);
    assert_eq!(z.running_slot(), None);
    let (mut hz, mut hn) = (TestHost::new(8), TestHost::new(8));
    let rz = z.open(&mut hz, &opener(1, 0, 10), 4).unwrap();
    let rn = n.open(&mut hn, &opener(1, 0, 10), 4).unwrap();
    assert_eq!((rz.id, rz.slot), (rn.id, rn.slot));
    let (mut sz, mut sn) = (uapi::Stats::default(), uapi::Stats::default());
    z.stats(&mut sz, None);
    n.stats(&mut sn, None);
    assert_eq!(sz, sn);
    assert_eq!(hz.events(), hn.events());
    z.check().unwrap();
}

//! The documented construction guarantees: the all-zero bit pattern is the empty
//! policy (so the kernel may allocate it zeroed instead of building it on its stack),
//! `const fn new` works in a `static`, and the default instance size is as documented.

use gcaps_policy::{Policy, SchedClass, TsgSet};
use std::alloc::{alloc_zeroed, Layout};
use std::mem::size_of;

static EMPTY: Policy<2, 4> = Policy::new();

/// A heap allocation of `T` with all bytes zero, like the kernel's `kvzalloc`.
fn zeroed<T>() -> Box<T> {
    let layout = Layout::new::<T>();
    assert!(layout.size() > 0);
    // SAFETY: `layout` has a non-zero size; the pointer comes from the global allocator
    // with `T`'s layout, as `Box` requires. `T` is only instantiated with types documented
    // to be valid when all-zero (and the callers compare the result with `new()`).
    unsafe {
        let p = alloc_zeroed(layout) as *mut T;
        assert!(!p.is_null());
        Box::from_raw(p)
    }
}

#[test]
fn all_zero_is_new() {
    let z: Box<Policy> = zeroed();
    assert!(*z == Policy::new());
    let z: Box<Policy<2, 4>> = zeroed();
    assert!(*z == EMPTY);
    let s: Box<TsgSet<16>> = zeroed();
    assert_eq!(*s, TsgSet::EMPTY);
}

#[test]
fn zeroed_policy_works() {
    let mut p: Box<Policy> = zeroed();
    let (id, _) = p.register(1, SchedClass::RealTime(5)).unwrap();
    p.tsg_create(1000, 1).unwrap();
    p.tsg_create(3, 2).unwrap();
    p.seg_begin(
        id,
        gcaps_policy::Segment::RealTime {
            cpu: 5,
            gpu: gcaps_policy::GpuPriority::Inherit,
        },
    )
    .unwrap();
    assert_eq!(p.eligible().iter().collect::<Vec<_>>(), [1000]);
}

#[test]
fn default_size() {
    let n = size_of::<Policy>();
    eprintln!("size_of::<Policy>() = {n} bytes");
    assert!(n < 28 * 1024, "{n}");
}

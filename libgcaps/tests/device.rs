//! libgcaps against the real gcaps.ko (VM test `tests/vm/tests/51-libgcaps-module.sh` runs this binary
//! with `--ignored`; on a machine without /dev/gcaps they are ignored). Every test changes its
//! scheduling class or capabilities only on a thread of its own (both are per thread in Linux).
use libgcaps::{CpuClass, Error, Gcaps, GpuPriority, SegState};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Runs `f` on a new thread (so sched/capability changes stay there) and propagates a failure.
fn on_thread(f: impl FnOnce() + Send + 'static) {
    std::thread::spawn(f).join().expect("test thread failed");
}

fn set_fifo(prio: i32) {
    let p = libc::sched_param {
        sched_priority: prio,
    };
    // SAFETY: syscall on the calling thread with a valid parameter.
    let r = unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) };
    assert_eq!(
        r, 0,
        "sched_setscheduler(FIFO {prio}) (the VM runs tests as root)"
    );
}

/// Drops CAP_SYS_NICE from the calling thread's effective and permitted sets.
fn drop_cap_sys_nice() {
    #[repr(C)]
    struct Header {
        version: u32,
        pid: i32,
    }
    #[repr(C)]
    #[derive(Clone, Copy, Default)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    const CAP_SYS_NICE: u32 = 23;
    let mut h = Header {
        version: 0x2008_0522, // _LINUX_CAPABILITY_VERSION_3
        pid: 0,
    };
    let mut d = [Data::default(); 2];
    // SAFETY: capget/capset with a v3 header and two data structs, as the ABI requires.
    unsafe {
        assert_eq!(libc::syscall(libc::SYS_capget, &mut h, d.as_mut_ptr()), 0);
        d[0].effective &= !(1 << CAP_SYS_NICE);
        d[0].permitted &= !(1 << CAP_SYS_NICE);
        assert_eq!(libc::syscall(libc::SYS_capset, &mut h, d.as_ptr()), 0);
    }
}

#[test]
#[ignore = "needs /dev/gcaps (VM test 51-libgcaps-module)"]
fn version_and_own_status() {
    let g = Gcaps::open().unwrap();
    let v = g.version().unwrap();
    assert_eq!(v.abi, libgcaps::uapi::GCAPS_ABI_VERSION);
    let s = g.status().unwrap();
    assert_eq!(s.me.pid, std::process::id());
    assert_eq!(s.me.state, SegState::Idle);
    let l = g.list().unwrap();
    assert!(l.clients.iter().any(|c| c.client_id == s.me.client_id));
}

#[test]
#[ignore = "needs /dev/gcaps (VM test 51-libgcaps-module)"]
fn best_effort_segment_and_misuse() {
    on_thread(|| {
        let g = Gcaps::open().unwrap();
        assert_eq!(g.end(), Err(Error::NotInSegment));
        assert_eq!(g.begin(GpuPriority::ProcessDefault), Ok(SegState::Running));
        let me = g.status().unwrap().me;
        assert_eq!((me.class, me.state), (CpuClass::Other, SegState::Running));
        assert_eq!(
            g.begin(GpuPriority::ProcessDefault),
            Err(Error::AlreadyInSegment)
        );
        g.end().unwrap();
        assert_eq!(g.status().unwrap().me.state, SegState::Idle);
        assert_eq!(
            g.begin(GpuPriority::Explicit(10)),
            Err(Error::BestEffortExplicit { requested: 10 })
        );
        assert_eq!(g.status().unwrap().me.state, SegState::Idle);
    });
}

#[test]
#[ignore = "needs /dev/gcaps (VM test 51-libgcaps-module)"]
fn real_time_segment_inherits_and_escalation_needs_cap_sys_nice() {
    on_thread(|| {
        set_fifo(20);
        let g = Gcaps::open().unwrap();
        {
            let seg = g.segment(GpuPriority::ProcessDefault).unwrap();
            assert_eq!(seg.state_at_begin(), SegState::Running);
            let s = g.status().unwrap();
            let me = s.me;
            assert_eq!(
                (me.class, me.cpu_priority, me.gpu_priority),
                (CpuClass::Fifo, 20, 20)
            );
            assert!(s.rt_active);
        }
        assert_eq!(g.status().unwrap().me.state, SegState::Idle);
        // Root may ask above its CPU priority ...
        g.segment(GpuPriority::Explicit(30)).unwrap().end().unwrap();
        // ... without CAP_SYS_NICE it may not, and the error names the rule.
        drop_cap_sys_nice();
        let e = g.begin(GpuPriority::Explicit(30)).unwrap_err();
        assert_eq!(
            e,
            Error::AboveCpuPriority {
                requested: 30,
                cpu_priority: 20
            }
        );
        assert!(e.to_string().contains("CAP_SYS_NICE"));
        g.segment(GpuPriority::Explicit(10)).unwrap().end().unwrap();
    });
}

#[test]
#[ignore = "needs /dev/gcaps (VM test 51-libgcaps-module)"]
fn panic_inside_a_segment_ends_it() {
    on_thread(|| {
        set_fifo(15);
        let g = Gcaps::open().unwrap();
        let r = catch_unwind(AssertUnwindSafe(|| {
            let _seg = g.segment(GpuPriority::ProcessDefault).unwrap();
            assert_eq!(g.status().unwrap().me.state, SegState::Running);
            panic!("job failed inside its GPU segment (expected by the test)");
        }));
        assert!(r.is_err());
        let s = g.status().unwrap();
        assert_eq!(
            s.me.state,
            SegState::Idle,
            "the guard ended the segment while unwinding"
        );
        assert!(!s.rt_active);
    });
}

#[test]
#[ignore = "needs /dev/gcaps (VM test 51-libgcaps-module)"]
fn a_forked_child_cannot_use_the_parents_client() {
    let g = Gcaps::open().unwrap();
    // SAFETY: the child only makes ioctls on an existing fd and _exits (no allocation on the
    // paths taken: NotOwner carries no data).
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0);
    if pid == 0 {
        let code = match (g.begin(GpuPriority::ProcessDefault), g.status()) {
            (Err(Error::NotOwner), Err(Error::NotOwner)) => 0,
            _ => 1,
        };
        // SAFETY: leave the child without running the parent's destructors.
        unsafe { libc::_exit(code) };
    }
    let mut status = 0;
    // SAFETY: waiting for our own child.
    assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "child saw {status:#x}"
    );
    assert_eq!(g.status().unwrap().me.state, SegState::Idle);
}

/// Records the names and fields of the spans created while it is the default subscriber.
#[derive(Default)]
struct SpanRecorder(std::sync::Mutex<Vec<String>>);

impl tracing::Subscriber for SpanRecorder {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, span: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        struct Fields(String);
        impl tracing::field::Visit for Fields {
            fn record_debug(&mut self, f: &tracing::field::Field, v: &dyn std::fmt::Debug) {
                self.0 += &format!(" {}={v:?}", f.name());
            }
        }
        let mut fields = Fields(span.metadata().name().to_string());
        span.record(&mut fields);
        let mut spans = self.0.lock().unwrap();
        spans.push(fields.0);
        tracing::span::Id::from_u64(spans.len() as u64)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, _: &tracing::Event<'_>) {}
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

#[test]
#[ignore = "needs /dev/gcaps (VM test 51-libgcaps-module)"]
fn a_segment_is_a_tracing_span() {
    on_thread(|| {
        set_fifo(12);
        let g = Gcaps::open().unwrap();
        let rec = std::sync::Arc::new(SpanRecorder::default());
        tracing::subscriber::with_default(rec.clone(), || {
            let _seg = g.segment(GpuPriority::Explicit(7)).unwrap();
        });
        let spans = rec.0.lock().unwrap().clone();
        assert_eq!(
            spans,
            vec!["gpu_segment gpu_priority=7 state=Running".to_string()]
        );
    });
}

//! Every transition of the double-buffer state machine.

use super::*;

fn pending(buffer: Buffer, generation: u64) -> Phase {
    Phase::Pending { buffer, generation }
}

/// Drives a complete cycle and returns the buffer used.
fn cycle(db: &mut DoubleBuffer, g: u64) -> Buffer {
    let b = db.begin_build(g).unwrap();
    db.submitted().unwrap();
    assert_eq!(db.poll(true), Ok(false));
    assert_eq!(db.poll(false), Ok(true));
    b
}

#[test]
fn buffers() {
    assert_eq!(Buffer::A.other(), Buffer::B);
    assert_eq!(Buffer::B.other(), Buffer::A);
    assert_eq!((Buffer::A.index(), Buffer::B.index()), (0, 1));
}

#[test]
fn normal_cycles_alternate_and_never_build_into_the_hw_buffer() {
    let mut db = DoubleBuffer::default();
    assert_eq!(db, DoubleBuffer::new());
    assert_eq!(db.phase(), Phase::Idle);
    assert_eq!(db.hw_buffer(), None);
    assert!(db.needs_submit(0));
    let mut last = None;
    for g in 1..6 {
        let b = db.begin_build(g).unwrap();
        assert_ne!(Some(b), db.hw_buffer());
        assert_eq!(
            db.phase(),
            Phase::Building {
                buffer: b,
                generation: g
            }
        );
        db.submitted().unwrap();
        assert_eq!(db.phase(), pending(b, g));
        assert!(!db.can_build());
        assert_eq!(db.poll(true), Ok(false));
        assert_eq!(db.phase(), pending(b, g));
        assert_eq!(db.hw_buffer(), last, "hw buffer changes only on completion");
        assert_eq!(db.poll(false), Ok(true));
        assert_eq!(db.phase(), Phase::Idle);
        assert_eq!(db.hw_buffer(), Some(b));
        assert_eq!(db.hw_generation(), Some(g));
        assert!(!db.needs_submit(g));
        assert!(db.needs_submit(g + 1));
        if let Some(l) = last {
            assert_eq!(b, Buffer::other(l));
        }
        last = Some(b);
    }
}

#[test]
fn rebuild_while_building_reuses_the_same_free_buffer() {
    let mut db = DoubleBuffer::new();
    cycle(&mut db, 1); // hw = A
    let b = db.begin_build(2).unwrap();
    assert_eq!(b, Buffer::B);
    assert_eq!(db.begin_build(3), Ok(Buffer::B));
    assert_eq!(
        db.phase(),
        Phase::Building {
            buffer: Buffer::B,
            generation: 3
        }
    );
}

#[test]
fn busy_while_pending_or_timed_out() {
    let mut db = DoubleBuffer::new();
    db.begin_build(1).unwrap();
    db.submitted().unwrap();
    let before = db;
    assert_eq!(db.begin_build(2), Err(DbError::Busy));
    assert_eq!(db, before);
    db.timed_out().unwrap();
    let before = db;
    assert_eq!(db.begin_build(2), Err(DbError::Busy));
    assert_eq!(db, before);
}

#[test]
fn invalid_transitions_change_nothing() {
    let mut db = DoubleBuffer::new();
    // Idle
    for f in [
        DoubleBuffer::submitted as fn(&mut DoubleBuffer) -> Result<(), DbError>,
        DoubleBuffer::timed_out,
        DoubleBuffer::failed,
    ] {
        let before = db;
        assert_eq!(f(&mut db), Err(DbError::InvalidTransition));
        assert_eq!(db, before);
    }
    assert_eq!(db.poll(false), Err(DbError::InvalidTransition));
    assert_eq!(db.poll(true), Err(DbError::InvalidTransition));
    // Building
    db.begin_build(1).unwrap();
    let before = db;
    assert_eq!(db.poll(false), Err(DbError::InvalidTransition));
    assert_eq!(db.timed_out(), Err(DbError::InvalidTransition));
    assert_eq!(db, before);
    // Pending
    db.submitted().unwrap();
    let before = db;
    assert_eq!(db.submitted(), Err(DbError::InvalidTransition));
    assert_eq!(db, before);
    // TimedOut
    db.timed_out().unwrap();
    let before = db;
    assert_eq!(db.submitted(), Err(DbError::InvalidTransition));
    assert_eq!(db.timed_out(), Err(DbError::InvalidTransition));
    assert_eq!(db.failed(), Err(DbError::InvalidTransition));
    assert_eq!(db, before);
}

#[test]
fn failed_build_or_refused_submit_keeps_the_hw_buffer_and_owes_a_submit() {
    let mut db = DoubleBuffer::new();
    cycle(&mut db, 1); // hw = A (gen 1)
                       // Build failure.
    assert_eq!(db.begin_build(2), Ok(Buffer::B));
    db.failed().unwrap();
    assert_eq!(db.phase(), Phase::Idle);
    assert_eq!(
        (db.hw_buffer(), db.hw_generation()),
        (Some(Buffer::A), Some(1))
    );
    assert!(db.needs_submit(2));
    // Refused submit.
    assert_eq!(db.begin_build(2), Ok(Buffer::B));
    db.submitted().unwrap();
    db.failed().unwrap();
    assert_eq!(
        (db.hw_buffer(), db.hw_generation()),
        (Some(Buffer::A), Some(1))
    );
    // The next event recovers: rebuild into B again, never into A.
    assert_eq!(cycle(&mut db, 3), Buffer::B);
    assert!(!db.needs_submit(3));
}

#[test]
fn timeout_then_late_completion() {
    let mut db = DoubleBuffer::new();
    cycle(&mut db, 1); // hw = A
    db.begin_build(2).unwrap();
    db.submitted().unwrap();
    db.timed_out().unwrap();
    assert_eq!(
        db.phase(),
        Phase::TimedOut {
            buffer: Buffer::B,
            generation: 2
        }
    );
    assert!(!db.can_build());
    assert!(db.needs_submit(2));
    // Still pending: nothing is freed.
    assert_eq!(db.poll(true), Ok(false));
    assert_eq!(db.hw_buffer(), Some(Buffer::A));
    // It completes late: B is the hardware's, A is free.
    assert_eq!(db.poll(false), Ok(true));
    assert_eq!(
        (db.hw_buffer(), db.hw_generation()),
        (Some(Buffer::B), Some(2))
    );
    // A later event (generation 3) rebuilds into A.
    assert!(db.needs_submit(3));
    assert_eq!(cycle(&mut db, 3), Buffer::A);
}

#[test]
fn timeout_then_recovery() {
    let mut db = DoubleBuffer::new();
    cycle(&mut db, 1);
    db.begin_build(2).unwrap();
    db.submitted().unwrap();
    db.timed_out().unwrap();
    db.recovered();
    assert_eq!(db.phase(), Phase::Idle);
    assert_eq!(db.hw_buffer(), None);
    assert!(
        db.needs_submit(2),
        "the same generation must be resubmitted"
    );
    assert_eq!(cycle(&mut db, 2), Buffer::A);
    // recovered() is accepted in every phase.
    for setup in 0..4 {
        let mut db = DoubleBuffer::new();
        cycle(&mut db, 1);
        if setup >= 1 {
            db.begin_build(2).unwrap();
        }
        if setup >= 2 {
            db.submitted().unwrap();
        }
        if setup >= 3 {
            db.timed_out().unwrap();
        }
        db.recovered();
        assert_eq!(db, DoubleBuffer::new());
    }
}

//! Double-buffered runlist submission as a pure state machine.
//!
//! There are two runlist buffers, [`Buffer::A`] and [`Buffer::B`]. The rules:
//!
//! * build only into the buffer the hardware is **not** reading;
//! * after a submit, do not touch either buffer until the hardware reports the
//!   submit is no longer pending ([`DoubleBuffer::poll`] with `pending == false`);
//!   only then the submitted buffer becomes the hardware's and the other one is free;
//! * a submit that timed out leaves both buffers possibly in use: no build is allowed
//!   until either the pending bit clears late (`poll(false)`) or the caller reports a
//!   hardware recovery ([`DoubleBuffer::recovered`]);
//! * a submit the hardware never accepted ([`DoubleBuffer::failed`]) returns to
//!   `Idle` with the previous hardware buffer unchanged.
//!
//! Every buffer content carries the policy generation it was built from
//! (`gcaps_policy::Policy::generation`). [`DoubleBuffer::needs_submit`] compares
//! the generation on the hardware with the current one, so after any failure the next
//! event (even one that reports "unchanged") rebuilds and resubmits.
//!
//! Transitions (anything else returns [`DbError`] and changes nothing):
//!
//! | phase | `begin_build(g)` | `submitted()` | `poll(true)` | `poll(false)` | `timed_out()` | `failed()` | `recovered()` |
//! |---|---|---|---|---|---|---|---|
//! | Idle | Building(free, g) | - | - | - | - | - | Idle, no hw |
//! | Building(b, g) | Building(b, g') | Pending(b, g) | - | - | - | Idle | Idle, no hw |
//! | Pending(b, g) | Busy | - | Pending | Idle, hw = (b, g) | TimedOut(b, g) | Idle | Idle, no hw |
//! | TimedOut(b, g) | Busy | - | TimedOut | Idle, hw = (b, g) | - | - | Idle, no hw |

/// One of the two runlist buffers.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Buffer {
    /// Buffer 0.
    A,
    /// Buffer 1.
    B,
}

impl Buffer {
    /// 0 for `A`, 1 for `B`.
    pub const fn index(self) -> usize {
        match self {
            Buffer::A => 0,
            Buffer::B => 1,
        }
    }

    /// The other buffer.
    pub const fn other(self) -> Self {
        match self {
            Buffer::A => Buffer::B,
            Buffer::B => Buffer::A,
        }
    }
}

/// Phase of the submission state machine.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Phase {
    /// No build or submit in progress.
    Idle,
    /// The caller is writing `buffer` with the content of `generation`.
    Building {
        /// Buffer being written (never the hardware's).
        buffer: Buffer,
        /// Policy generation being built.
        generation: u64,
    },
    /// `buffer` was submitted; the hardware reports the submit pending.
    Pending {
        /// Submitted buffer.
        buffer: Buffer,
        /// Its policy generation.
        generation: u64,
    },
    /// Waiting for the submit of `buffer` timed out; both buffers may be in use.
    TimedOut {
        /// Submitted buffer.
        buffer: Buffer,
        /// Its policy generation.
        generation: u64,
    },
}

/// A transition not allowed in the current phase (state unchanged).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum DbError {
    /// A submit is pending or timed out: no buffer is free to build into.
    Busy,
    /// The step does not apply to the current phase.
    InvalidTransition,
}

/// The double-buffer state machine. See the module documentation.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct DoubleBuffer {
    phase: Phase,
    /// The buffer the hardware reads and the generation it holds.
    hw: Option<(Buffer, u64)>,
}

impl Default for DoubleBuffer {
    fn default() -> Self {
        Self::new()
    }
}

impl DoubleBuffer {
    /// Idle, the hardware reads neither buffer.
    pub const fn new() -> Self {
        Self {
            phase: Phase::Idle,
            hw: None,
        }
    }

    /// Current phase.
    pub const fn phase(&self) -> Phase {
        self.phase
    }

    /// The buffer the hardware reads (its last completed submit), if any.
    pub fn hw_buffer(&self) -> Option<Buffer> {
        self.hw.map(|(b, _)| b)
    }

    /// The policy generation the hardware's buffer was built from, if any.
    pub fn hw_generation(&self) -> Option<u64> {
        self.hw.map(|(_, g)| g)
    }

    /// Whether the hardware does not (yet) hold the runlist of `generation`: after a
    /// policy event, or after any failed, timed-out or lost submit. In `Pending` and
    /// `TimedOut` the caller must first `poll` (or `recovered`) before it can build.
    pub fn needs_submit(&self, generation: u64) -> bool {
        self.hw_generation() != Some(generation)
    }

    /// Whether `begin_build` would succeed.
    pub fn can_build(&self) -> bool {
        matches!(self.phase, Phase::Idle | Phase::Building { .. })
    }

    /// Starts (or restarts) building the content of `generation`; returns the buffer
    /// to write, which is never the one the hardware reads.
    pub fn begin_build(&mut self, generation: u64) -> Result<Buffer, DbError> {
        let buffer = match self.phase {
            Phase::Idle => match self.hw {
                Some((hw, _)) => hw.other(),
                None => Buffer::A,
            },
            Phase::Building { buffer, .. } => buffer,
            Phase::Pending { .. } | Phase::TimedOut { .. } => return Err(DbError::Busy),
        };
        self.phase = Phase::Building { buffer, generation };
        Ok(buffer)
    }

    /// The built buffer was handed to the hardware (base/length registers written).
    pub fn submitted(&mut self) -> Result<(), DbError> {
        match self.phase {
            Phase::Building { buffer, generation } => {
                self.phase = Phase::Pending { buffer, generation };
                Ok(())
            }
            _ => Err(DbError::InvalidTransition),
        }
    }

    /// Reports the hardware's pending bit for the current submit. Returns `true` when
    /// the submit completed: the submitted buffer is now the hardware's and the other
    /// one is free. Valid in `Pending` and `TimedOut` (a late completion).
    pub fn poll(&mut self, pending: bool) -> Result<bool, DbError> {
        match self.phase {
            Phase::Pending { buffer, generation } | Phase::TimedOut { buffer, generation } => {
                if pending {
                    Ok(false)
                } else {
                    self.phase = Phase::Idle;
                    self.hw = Some((buffer, generation));
                    Ok(true)
                }
            }
            _ => Err(DbError::InvalidTransition),
        }
    }

    /// Waiting for the pending bit gave up. Both buffers stay reserved until a late
    /// `poll(false)` or `recovered()`.
    pub fn timed_out(&mut self) -> Result<(), DbError> {
        match self.phase {
            Phase::Pending { buffer, generation } => {
                self.phase = Phase::TimedOut { buffer, generation };
                Ok(())
            }
            _ => Err(DbError::InvalidTransition),
        }
    }

    /// The build failed, or the submit was certainly not accepted by the hardware
    /// (e.g. the GPU was powered off and no register was written): back to `Idle` with
    /// the previous hardware buffer. If it is uncertain whether the hardware saw the
    /// submit, use [`DoubleBuffer::timed_out`] instead.
    pub fn failed(&mut self) -> Result<(), DbError> {
        match self.phase {
            Phase::Building { .. } | Phase::Pending { .. } => {
                self.phase = Phase::Idle;
                Ok(())
            }
            _ => Err(DbError::InvalidTransition),
        }
    }

    /// The hardware runlist was reset (driver recovery, power-on): the hardware reads
    /// neither buffer any more. Always allowed; afterwards `needs_submit` is true.
    pub fn recovered(&mut self) {
        self.phase = Phase::Idle;
        self.hw = None;
    }
}

#[cfg(test)]
mod tests;

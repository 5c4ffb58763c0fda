//! The few pieces of `module/simgpu/gcaps_simgpu.h` (the emulated GPU of the test VM) this
//! example uses: one TSG per open file, submit a work item, wait for it.
use nix::errno::Errno;
use std::fs::{File, OpenOptions};
use std::os::fd::AsRawFd;

pub const DEVICE: &str = "/dev/gcaps_simgpu";
const MAGIC: u8 = 0xC6;

#[repr(C)]
#[derive(Default)]
struct Submit {
    size: u32,
    flags: u32,
    exec_ns: u64,
    seqno: u64,
    submit_ns: u64,
}

/// A finished work item (GPU-side timestamps, CLOCK_MONOTONIC ns).
#[repr(C)]
#[derive(Default, Debug, Clone, Copy)]
pub struct Completion {
    pub seqno: u64,
    pub exec_ns: u64,
    pub submit_ns: u64,
    pub start_ns: u64,
    pub end_ns: u64,
    pub preemptions: u32,
    reserved: u32,
}

#[repr(C)]
#[derive(Default)]
struct Wait {
    size: u32,
    flags: u32,
    seqno: u64,
    timeout_ns: u64,
    done: Completion,
}

nix::ioctl_readwrite!(simgpu_submit, MAGIC, 0x01, Submit);
nix::ioctl_readwrite!(simgpu_wait, MAGIC, 0x02, Wait);

/// Our TSG on the emulated GPU.
pub struct Tsg(File);

impl Tsg {
    pub fn open() -> std::io::Result<Self> {
        OpenOptions::new()
            .read(true)
            .write(true)
            .open(DEVICE)
            .map(Tsg)
    }

    /// Runs `exec_ns` of GPU work and waits for it (self-suspension).
    pub fn run(&self, exec_ns: u64) -> Result<Completion, Errno> {
        let mut s = Submit {
            size: std::mem::size_of::<Submit>() as u32,
            exec_ns,
            ..Default::default()
        };
        // SAFETY: a valid, exclusively borrowed struct of the size the request encodes.
        unsafe { simgpu_submit(self.0.as_raw_fd(), &mut s) }?;
        let mut w = Wait {
            size: std::mem::size_of::<Wait>() as u32,
            seqno: s.seqno,
            ..Default::default()
        };
        // SAFETY: as above.
        unsafe { simgpu_wait(self.0.as_raw_fd(), &mut w) }?;
        Ok(w.done)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_the_headers() {
        // SIMGPU_SUBMIT_SIZE_VER0, SIMGPU_WAIT_SIZE_VER0
        assert_eq!(std::mem::size_of::<Submit>(), 32);
        assert_eq!(std::mem::size_of::<Wait>(), 72);
        assert_eq!(std::mem::size_of::<Completion>(), 48);
    }
}

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

    /// The value of `#define NAME value` in the emulated GPU's header.
    fn header_define(name: &str) -> &'static str {
        let h = include_str!("../../../module/simgpu/gcaps_simgpu.h");
        h.lines()
            .find_map(|l| {
                let mut w = l.split_whitespace();
                (w.next() == Some("#define") && w.next() == Some(name)).then(|| w.next().unwrap())
            })
            .unwrap_or_else(|| panic!("{name} not in gcaps_simgpu.h"))
    }

    #[test]
    fn sizes_are_the_headers() {
        let submit: usize = header_define("SIMGPU_SUBMIT_SIZE_VER0").parse().unwrap();
        let wait: usize = header_define("SIMGPU_WAIT_SIZE_VER0").parse().unwrap();
        assert_eq!(std::mem::size_of::<Submit>(), submit);
        assert_eq!(std::mem::size_of::<Wait>(), wait);
        assert_eq!(std::mem::size_of::<Completion>(), wait - 24);
        assert_eq!(
            header_define("SIMGPU_IOC_MAGIC"),
            format!("{MAGIC:#X}").replace("0X", "0x")
        );
        assert_eq!(
            header_define("SIMGPU_DEVICE_NAME"),
            format!("\"{}\"", &DEVICE[5..])
        );
    }
}

//! The ioctl interface of `/dev/gcaps`: bindgen's translation of `uapi/linux/gcaps.h` (with its
//! layout tests) and the ioctl request numbers, which the C header builds with `_IOWR()`.
#![allow(non_camel_case_types, non_upper_case_globals, dead_code)]
#![allow(clippy::all)]

include!(concat!(env!("OUT_DIR"), "/uapi.rs"));

/// `_IOWR(GCAPS_IOC_MAGIC, nr, T)`, as the kernel's `<asm-generic/ioctl.h>` builds it.
const fn iowr<T>(nr: u8) -> libc::c_ulong {
    nix::request_code_readwrite!(GCAPS_IOC_MAGIC, nr, core::mem::size_of::<T>()) as libc::c_ulong
}

pub const GCAPS_IOC_VERSION: libc::c_ulong = iowr::<gcaps_version>(0x00);
pub const GCAPS_IOC_SEG_BEGIN: libc::c_ulong = iowr::<gcaps_seg_begin>(0x01);
pub const GCAPS_IOC_SEG_END: libc::c_ulong = iowr::<gcaps_seg_end>(0x02);
pub const GCAPS_IOC_STATUS: libc::c_ulong = iowr::<gcaps_status>(0x03);
pub const GCAPS_IOC_LIST: libc::c_ulong = iowr::<gcaps_list>(0x04);
pub const GCAPS_IOC_SET_ALWAYS: libc::c_ulong = iowr::<gcaps_set_always>(0x05);
pub const GCAPS_IOC_STATS: libc::c_ulong = iowr::<gcaps_stats>(0x10);
pub const GCAPS_IOC_TRACE_READ: libc::c_ulong = iowr::<gcaps_trace_read>(0x11);

#[cfg(test)]
mod tests {
    use super::*;
    use core::mem::size_of;

    extern "C" {
        /// The request numbers as the C compiler expands them (`src/uapi_check.c`).
        static gcaps_check_ioc: [libc::c_ulong; 8];
    }

    #[test]
    fn ioctl_numbers_match_the_c_header() {
        // SAFETY: a constant array defined in uapi_check.c, never written.
        let c = unsafe { gcaps_check_ioc };
        assert_eq!(
            c,
            [
                GCAPS_IOC_VERSION,
                GCAPS_IOC_SEG_BEGIN,
                GCAPS_IOC_SEG_END,
                GCAPS_IOC_STATUS,
                GCAPS_IOC_LIST,
                GCAPS_IOC_STATS,
                GCAPS_IOC_TRACE_READ,
                GCAPS_IOC_SET_ALWAYS
            ]
        );
    }

    #[test]
    fn sizes_are_the_current_versions() {
        assert_eq!(size_of::<gcaps_version>(), GCAPS_VERSION_SIZE_VER1 as usize);
        // VER1 appended the backend's runlists and detail: VER0's fields keep their offsets.
        assert_eq!(
            std::mem::offset_of!(gcaps_version, backend_runlists),
            GCAPS_VERSION_SIZE_VER0 as usize
        );
        assert_eq!(
            size_of::<gcaps_set_always>(),
            GCAPS_SET_ALWAYS_SIZE_VER0 as usize
        );
        assert_eq!(
            size_of::<gcaps_seg_begin>(),
            GCAPS_SEG_BEGIN_SIZE_VER1 as usize
        );
        // VER1 appended `refused` and `cpu_priority`: VER0's fields keep their offsets.
        assert_eq!(
            std::mem::offset_of!(gcaps_seg_begin, refused),
            GCAPS_SEG_BEGIN_SIZE_VER0 as usize
        );
        assert_eq!(size_of::<gcaps_seg_end>(), GCAPS_SEG_END_SIZE_VER0 as usize);
        assert_eq!(size_of::<gcaps_status>(), GCAPS_STATUS_SIZE_VER1 as usize);
        assert_eq!(
            std::mem::offset_of!(gcaps_status, boost),
            GCAPS_STATUS_SIZE_VER0 as usize
        );
        assert_eq!(size_of::<gcaps_list>(), GCAPS_LIST_SIZE_VER0 as usize);
        assert_eq!(
            size_of::<gcaps_trace_event>(),
            GCAPS_TRACE_EVENT_SIZE_VER1 as usize
        );
        // VER1 appended the TSG id: VER0's fields keep their offsets.
        assert_eq!(
            std::mem::offset_of!(gcaps_trace_event, tsgid),
            GCAPS_TRACE_EVENT_SIZE_VER0 as usize
        );
        assert_eq!(
            size_of::<gcaps_trace_read>(),
            GCAPS_TRACE_READ_SIZE_VER0 as usize
        );
    }

    #[test]
    fn stats_grew_to_ver3_and_keeps_older_versions_in_front() {
        assert_eq!(size_of::<gcaps_stats>(), GCAPS_STATS_SIZE_VER3 as usize);
        assert_eq!(
            core::mem::offset_of!(gcaps_stats, updates),
            GCAPS_STATS_SIZE_VER2 as usize
        );
        assert_eq!(
            size_of::<gcaps_update_cost>(),
            GCAPS_UPDATE_COST_SIZE as usize
        );
        assert_eq!(
            GCAPS_STATS_SIZE_VER2 + GCAPS_UPDATE_KINDS * GCAPS_UPDATE_COST_SIZE,
            GCAPS_STATS_SIZE_VER3
        );
        assert!(GCAPS_UPDATE_SUBMIT < GCAPS_UPDATE_KINDS && GCAPS_UPDATE_FAST < GCAPS_UPDATE_KINDS);
        assert_eq!(
            core::mem::offset_of!(gcaps_stats, segments_open) + 8,
            GCAPS_STATS_SIZE_VER2 as usize
        );
        assert_eq!(
            core::mem::offset_of!(gcaps_stats, open_at_reset),
            GCAPS_STATS_SIZE_VER1 as usize
        );
        // The VER0 fields end where VER1's begin: an old caller's size cuts at a field edge.
        assert_eq!(
            core::mem::offset_of!(gcaps_stats, preemptions),
            GCAPS_STATS_SIZE_VER0 as usize
        );
        assert!(GCAPS_REJ_OTHER < GCAPS_REJ_NR);
        assert_eq!(
            core::mem::offset_of!(gcaps_stats, delay_buckets) + 8 * GCAPS_DELAY_BUCKETS as usize,
            GCAPS_STATS_SIZE_VER1 as usize
        );
    }
}

// SPDX-License-Identifier: GPL-2.0-only
/* The C compiler's view of uapi/linux/gcaps.h, compared with the library's by its unit tests. */
#include <linux/gcaps.h>

const unsigned long gcaps_check_ioc[8] = {
	GCAPS_IOC_VERSION, GCAPS_IOC_SEG_BEGIN, GCAPS_IOC_SEG_END, GCAPS_IOC_STATUS, GCAPS_IOC_LIST,
	GCAPS_IOC_STATS, GCAPS_IOC_TRACE_READ, GCAPS_IOC_SET_ALWAYS,
};

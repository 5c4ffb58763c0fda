// SPDX-License-Identifier: MIT
/*
 * Copyright (c) 2025 The gcaps authors.
 *
 * Permission is hereby granted, free of charge, to any person obtaining a
 * copy of this software and associated documentation files (the "Software"),
 * to deal in the Software without restriction, including without limitation
 * the rights to use, copy, modify, merge, publish, distribute, sublicense,
 * and/or sell copies of the Software, and to permit persons to whom the
 * Software is furnished to do so, subject to the following conditions:
 *
 * The above copyright notice and this permission notice shall be included in
 * all copies or substantial portions of the Software.
 *
 * THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 * IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
 * FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT.  IN NO EVENT SHALL
 * THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
 * LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING
 * FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER
 * DEALINGS IN THE SOFTWARE.
 */

/*
 * gcaps's replacement for nvgpu's drivers/gpu/nvgpu/os/posix/mock-registers.c.
 *
 * NVIDIA's file (a register dump of a real gv11b, ~18 MB) is not in the
 * public nvgpu sources. The POSIX build lists it in Makefile.sources and
 * nvgpu_posix_probe() (os/posix/nvgpu.c) calls it once per register space
 * MOCK_REGS_GR .. MOCK_REGS_LAST-1 to get a base, a size and initial contents;
 * the space is then allocated zero-filled and the contents copied in.
 * tests/nvgpu/run.sh copies this file into a build copy of the nvgpu tree.
 *
 * This is a synthesized Xavier (gv11b): every space is zero except the few
 * words below, each with the reason it is needed. Only what nvgpu's own FIFO
 * unit modules and gcaps's runlist tests need is filled in; anything else
 * reads as zero (as it would on a GPU fresh out of reset, mostly).
 *
 * One file for both lines: R35 (jetson 35.x) calls nvgpu_get_mock_reglist()
 * and has 13 spaces; R36 calls nvgpu_get_mock_reglist_gv11b() (or _ga10b()
 * when the host's device tree says Orin) and adds RUNLIST and CHRAM. R36's
 * mock-regs.h defines MOCK_REGS_RUNLIST, which tells the two apart.
 */

#include <nvgpu/types.h>
#include <nvgpu/bug.h>
#include <nvgpu/errno.h>
#include <nvgpu/utils.h>
#include <nvgpu/posix/mock-regs.h>

#include <nvgpu/hw/gv11b/hw_mc_gv11b.h>
#include <nvgpu/hw/gv11b/hw_top_gv11b.h>
#include <nvgpu/hw/gv11b/hw_fifo_gv11b.h>

/*
 * mc_boot_0 (PMC, offset 0): architecture 0x15 (Volta), implementation 0xB,
 * major revision 1. nvgpu_posix_probe() asserts that nvgpu_detect_chip()
 * succeeds, and that maps this to NVGPU_GPUID_GV11B (0x15B); with a zero
 * here the probe BUGs and nvgpu_unit dies (SIGSEGV) before any test runs.
 */
#define GCAPS_MC_BOOT_0_GV11B	((0x15U << 24) | (0xBU << 20) | (0x1U << 4))

/*
 * Word 0x800 of the PMC space. No gv11b programming sequence reads it, but
 * NVIDIA's channel_gv11b unit (test_gv11b_channel_unbind, both lines) checks
 * the channel's CCSR registers with the mask inside the address:
 * nvgpu_readl(g, (ccsr_channel_r(chid)) & ccsr_channel_enable_clr_true_f())
 * reads BAR0 offset 0x800 (0x800004 + 8 * chid masked with 0x800) and
 * asserts it is non-zero. Any non-zero word works (its twin reads offset 0,
 * mc_boot_0, already non-zero). Zeroing it fails exactly that test.
 */
#define GCAPS_PMC_WORD_0x800	0x1U

/*
 * TOP device_info table (top_device_info_r(i), 64 words). nvgpu's device
 * manager (common/device.c via gm20b_top_parse_next_dev) builds its list of
 * engines from it; with an all-zero table there are no engines, FIFO init
 * finds no runlists and nothing can be scheduled. Each device is a chain of
 * entries (bit 31 = more entries follow): an engine-type entry, an enum entry
 * (engine, runlist, interrupt and reset ids) and a data entry (instance id,
 * PRI base, MMU fault id). The table describes an Xavier-like layout:
 *   GR    engine 0, runlist 0 (graphics/compute)
 *   LCE0  engine 1, runlist 0 (the GR copy engine shares GR's runlist)
 *   LCE1  engine 2, runlist 1 (an async copy engine on the second runlist)
 * gv11b has 2 runlists (max_runlists), so both are populated. All three are
 * needed: without LCE1 (no runlist 1) channel's test_channel_open (it opens
 * channels on runlists 0 and 1) fails on both lines; without LCE0, R36's
 * nvs setup_sw and R35's channel setup_bind fail and the runner stops.
 * The interrupt/reset ids and fault ids are plausible values no FIFO test
 * checks.
 */
#define DI_CHAIN		(1U << 31)
#define DI_ENTRY_DATA		1U
#define DI_ENTRY_ENUM		2U
#define DI_ENTRY_ENGINE_TYPE	3U

#define DI_ENGINE_TYPE(type)	(((type) << 2) | DI_ENTRY_ENGINE_TYPE | DI_CHAIN)
#define DI_ENUM(engine, runlist, intr, reset)				\
	(((engine) << 26) | ((runlist) << 21) | ((intr) << 15) |	\
	 ((reset) << 9) | (1U << 5) | (1U << 4) | (1U << 3) |		\
	 (1U << 2) | DI_ENTRY_ENUM | DI_CHAIN)
/* Last entry of a device: no chain bit. Data type 0 is "enum2". */
#define DI_DATA(inst, pri_base, fault_id)				\
	(((inst) << 26) | (((pri_base) >> 12) << 12) |			\
	 ((fault_id) << 3) | (1U << 2) | DI_ENTRY_DATA)

#define DI_TYPE_GRAPHICS	0x00U	/* top_device_info_type_enum_graphics_v */
#define DI_TYPE_LCE		0x13U	/* top_device_info_type_enum_lce_v */

static const u32 top_device_info[] = {
	DI_ENGINE_TYPE(DI_TYPE_GRAPHICS),
	DI_ENUM(0U, 0U, 12U, 12U),
	DI_DATA(0U, 0x400000U, 0U),

	DI_ENGINE_TYPE(DI_TYPE_LCE),
	DI_ENUM(1U, 0U, 5U, 6U),
	DI_DATA(0U, 0x104000U, 15U),

	DI_ENGINE_TYPE(DI_TYPE_LCE),
	DI_ENUM(2U, 1U, 6U, 7U),
	DI_DATA(1U, 0x105000U, 16U),
};

/*
 * fifo_pbdma_map(i): bitmask of the runlists PBDMA i serves. Engine init
 * (g->ops.runlist.get_pbdma_info / gk20a_fifo_find_pbdma_for_runlist) fails
 * for an engine whose runlist no PBDMA serves, so each runlist needs one:
 * PBDMA 0 serves runlist 0, PBDMAs 1 and 2 serve runlist 1 (gv11b has 3
 * PBDMAs). All zero, FIFO init fails and the first module stops the run.
 *
 * fifo_cfg0 (number of PBDMAs, PBDMA fault id) is left zero: nvgpu takes the
 * PBDMA count from its litter values and reads fifo_cfg0 only to map an MMU
 * fault id to a PBDMA, which no FIFO test reaches (zero and the real value
 * give the same results on both lines).
 */
static const u32 fifo_pbdma_map[] = { 0x1U, 0x2U, 0x2U };

/* Register space bases and sizes (bytes), non-overlapping. */
#define SPACE_MASTER_BASE	0x000000U	/* PMC (mc_*) */
#define SPACE_MASTER_SIZE	0x001000U
#define SPACE_PBUS_BASE		0x001000U	/* bus_* */
#define SPACE_PBUS_SIZE		0x001000U
#define SPACE_FIFO_BASE		0x002000U	/* fifo_* */
#define SPACE_FIFO_SIZE		0x002000U
#define SPACE_FUSE_BASE		0x021000U	/* fuse_* */
#define SPACE_FUSE_SIZE		0x001000U
#define SPACE_TOP_BASE		0x022400U	/* top_* */
#define SPACE_TOP_SIZE		0x000400U
#define SPACE_PBDMA_BASE	0x040000U	/* pbdma_*, 3 x 0x2000 */
#define SPACE_PBDMA_SIZE	0x006000U
#define SPACE_FB_BASE		0x100000U	/* fb_*, fb_mmu_* */
#define SPACE_FB_SIZE		0x001000U
#define SPACE_CE_BASE		0x104000U	/* ce_* (LCE PRI bases above) */
#define SPACE_CE_SIZE		0x002000U
#define SPACE_PRI_BASE		0x120000U	/* pri_ringmaster_*, pri_ringstation_sys_* */
#define SPACE_PRI_SIZE		0x003000U
#define SPACE_HSHUB_BASE	0x1fbc00U	/* not used by gv11b code; kept disjoint */
#define SPACE_HSHUB_SIZE	0x000400U
#define SPACE_GR_BASE		0x400000U	/* gr_*, GPC/TPC broadcast and unicast */
#define SPACE_GR_SIZE		0x200000U
#define SPACE_CCSR_BASE		0x800000U	/* ccsr_channel_*(chid), 512 x 8 bytes */
#define SPACE_CCSR_SIZE		0x001000U
#define SPACE_USERMODE_BASE	0x810000U	/* usermode_* */
#define SPACE_USERMODE_SIZE	0x010000U

#define WORDS(bytes)		((bytes) / 4U)

/*
 * Initial contents. Only spaces with non-zero words have an array; the others
 * are allocated zero-filled by nvgpu_posix_probe() (data == NULL).
 */
static u32 master_regs[WORDS(SPACE_MASTER_SIZE)];
static u32 top_regs[WORDS(SPACE_TOP_SIZE)];
static u32 fifo_regs[WORDS(SPACE_FIFO_SIZE)];
static bool regs_filled;

static void set_reg(u32 *space, u32 base, u32 size, u32 addr, u32 value)
{
	nvgpu_assert(addr >= base && addr - base < size);
	space[WORDS(addr - base)] = value;
}

static void fill_regs(void)
{
	u32 i;

	if (regs_filled) {
		return;
	}

	set_reg(master_regs, SPACE_MASTER_BASE, SPACE_MASTER_SIZE,
		mc_boot_0_r(), GCAPS_MC_BOOT_0_GV11B);
	set_reg(master_regs, SPACE_MASTER_BASE, SPACE_MASTER_SIZE,
		0x800U, GCAPS_PMC_WORD_0x800);

	for (i = 0U; i < ARRAY_SIZE(top_device_info); i++) {
		set_reg(top_regs, SPACE_TOP_BASE, SPACE_TOP_SIZE,
			top_device_info_r(i), top_device_info[i]);
	}

	for (i = 0U; i < ARRAY_SIZE(fifo_pbdma_map); i++) {
		set_reg(fifo_regs, SPACE_FIFO_BASE, SPACE_FIFO_SIZE,
			fifo_pbdma_map_r(i), fifo_pbdma_map[i]);
	}

	regs_filled = true;
}

static int space(struct nvgpu_mock_iospace *iospace, u32 base, u32 size,
		 const u32 *data)
{
	iospace->base = base;
	iospace->size = size;
	iospace->data = data;
	return 0;
}

static int gcaps_mock_reglist_gv11b(u32 reg_space,
				    struct nvgpu_mock_iospace *iospace)
{
	fill_regs();

	switch (reg_space) {
	case MOCK_REGS_GR:
		return space(iospace, SPACE_GR_BASE, SPACE_GR_SIZE, NULL);
	case MOCK_REGS_FUSE:
		return space(iospace, SPACE_FUSE_BASE, SPACE_FUSE_SIZE, NULL);
	case MOCK_REGS_MASTER:
		return space(iospace, SPACE_MASTER_BASE, SPACE_MASTER_SIZE,
			     master_regs);
	case MOCK_REGS_TOP:
		return space(iospace, SPACE_TOP_BASE, SPACE_TOP_SIZE, top_regs);
	case MOCK_REGS_FIFO:
		return space(iospace, SPACE_FIFO_BASE, SPACE_FIFO_SIZE,
			     fifo_regs);
	case MOCK_REGS_PRI:
		return space(iospace, SPACE_PRI_BASE, SPACE_PRI_SIZE, NULL);
	case MOCK_REGS_PBDMA:
		return space(iospace, SPACE_PBDMA_BASE, SPACE_PBDMA_SIZE, NULL);
	case MOCK_REGS_CCSR:
		return space(iospace, SPACE_CCSR_BASE, SPACE_CCSR_SIZE, NULL);
	case MOCK_REGS_USERMODE:
		return space(iospace, SPACE_USERMODE_BASE, SPACE_USERMODE_SIZE,
			     NULL);
	case MOCK_REGS_CE:
		return space(iospace, SPACE_CE_BASE, SPACE_CE_SIZE, NULL);
	case MOCK_REGS_PBUS:
		return space(iospace, SPACE_PBUS_BASE, SPACE_PBUS_SIZE, NULL);
	case MOCK_REGS_HSHUB:
		return space(iospace, SPACE_HSHUB_BASE, SPACE_HSHUB_SIZE, NULL);
	case MOCK_REGS_FB:
		return space(iospace, SPACE_FB_BASE, SPACE_FB_SIZE, NULL);
	default:
		/*
		 * R36's RUNLIST and CHRAM spaces only exist on ga10b (Orin);
		 * the probe logs and skips a space we do not provide.
		 */
		return -EINVAL;
	}
}

#ifdef MOCK_REGS_RUNLIST	/* R36 */
int nvgpu_get_mock_reglist_gv11b(struct gk20a *g, u32 reg_space,
				 struct nvgpu_mock_iospace *iospace)
{
	(void)g;
	return gcaps_mock_reglist_gv11b(reg_space, iospace);
}

/*
 * Only called when the host's device tree says it is an Orin (i.e. this test
 * runs on a Jetson Orin). A ga10b register file (top_device_info2 runlist
 * bases, RUNLIST and CHRAM spaces) is not synthesized yet: fail loudly
 * rather than pretend to be a ga10b.
 */
int nvgpu_get_mock_reglist_ga10b(struct gk20a *g, u32 reg_space,
				 struct nvgpu_mock_iospace *iospace)
{
	(void)g;
	(void)reg_space;
	(void)iospace;
	return -ENODEV;
}
#else			/* R35 */
int nvgpu_get_mock_reglist(struct gk20a *g, u32 reg_space,
			   struct nvgpu_mock_iospace *iospace)
{
	(void)g;
	return gcaps_mock_reglist_gv11b(reg_space, iospace);
}
#endif

/*
 * The non-safety ("full") profile, which the L4T kernel build uses and `make nvgpu-test`
 * builds too (the TSG scheduling setters and recovery exist only there), references OS
 * functions that nvgpu's POSIX layer does not define. They are not reached by the FIFO and
 * runlist code the tests drive; each returns a neutral value.
 */
#ifdef CONFIG_NVGPU_NON_FUSA
#include <nvgpu/io.h>
#include <nvgpu/timers.h>

uintptr_t nvgpu_io_map(struct gk20a *g, uintptr_t addr, size_t size)
{
	(void)g;
	(void)size;
	return addr;
}

void nvgpu_io_unmap(struct gk20a *g, uintptr_t ptr, size_t size)
{
	(void)g;
	(void)ptr;
	(void)size;
}

#ifdef MOCK_REGS_RUNLIST	/* R36 */
#include <nvgpu/cic_mon.h>

u64 nvgpu_current_unix_time_us(void)
{
	return 0;
}

int nvgpu_cic_mon_init_epl(struct gk20a *g)
{
	(void)g;
	return 0;
}
#endif
#endif /* CONFIG_NVGPU_NON_FUSA */

// SPDX-License-Identifier: MIT
/*
 * gcaps's nvgpu unit module: drives nvgpu's real runlist code (nvgpu_runlist_update /
 * nvgpu_runlist_reload, the builder, the gv11b entry encoders and submit) on the host and
 * decodes the runlist buffer nvgpu wrote (rl->domain->mem_hw, 16-byte gv11b entries).
 *
 * Built on both the stock and the gcaps-patched nvgpu tree (run.sh). On both it checks the
 * stock order of a fixed scenario and writes a canonical dump of the runlists it saw to
 * $GCAPS_NVGPU_DUMP, which run.sh compares between the two trees ("nothing bound = stock").
 * On the patched tree (<nvgpu/gcaps.h> present) it also binds a hook and checks the filtered
 * runlists against a model of nvgpu's interleave order, the TSG events the hook receives
 * (replay at bind; open, bind, unbind, release; none once unbound) and, on R36, that a user
 * (GSP) domain leaves the runlist stock. Patch 0003: nvgpu_gcaps_resubmit (submit registers,
 * PENDING, the power reference counted by the preloaded power-count.so, nothing touched when
 * powered off), unbind back to stock, recovery, a stuck PENDING bit, 200 more TSGs, railgate
 * suspend/resume and ga10b's submit HAL. A runlist update that changes nothing (R36's patch
 * 0008: rebuilt from the current set; R35: nothing submitted).
 *
 * Scenario: four TSGs on runlist 0, in tsgid order (ids 63, 64, 130, 255)
 *   L0 (LOW, 2 channels), H1 (HIGH, 2), M2 (MEDIUM, 2), L3 (LOW, 1)
 * Stock interleaved order: H1 M2 H1 L0 H1 M2 H1 L3; flat: H1 M2 L0 L3.
 */
#define _GNU_SOURCE	/* RTLD_DEFAULT */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <unit/io.h>
#include <unit/unit.h>

#include <nvgpu/types.h>
#include <nvgpu/gk20a.h>
#include <nvgpu/channel.h>
#include <nvgpu/tsg.h>
#include <nvgpu/runlist.h>
#include <nvgpu/rc.h>
#include <nvgpu/enabled.h>
#include <nvgpu/io.h>
#include <nvgpu/nvgpu_mem.h>
#include <nvgpu/posix/mock-regs.h>
#include <nvgpu/posix/io.h>
#include <nvgpu/posix/posix-fault-injection.h>
#include <nvgpu/nvgpu_init.h>
#include <nvgpu/nvgpu_common.h>
#include <nvgpu/hw/gv11b/hw_fifo_gv11b.h>
#include <nvgpu/hw/gv11b/hw_ccsr_gv11b.h>
#include <nvgpu/hw/ga10b/hw_runlist_ga10b.h>

#ifdef MOCK_REGS_RUNLIST		/* R36 (see tests/nvgpu/mock-registers.c) */
#define GCAPS_R36 1
#include <nvgpu/nvs.h>
#endif

#if __has_include(<nvgpu/gcaps.h>)
#define GCAPS_PATCHED 1
#include <nvgpu/gcaps.h>
#endif

#include "../fifo/nvgpu-fifo-common.h"
#include "gcaps-fifo-setup.h"
#ifdef GCAPS_PATCHED
#include "hal/fifo/runlist_fifo_ga10b.h"
#include "hal/fifo/channel_ga10b.h"
#endif

#define NT		4U	/* TSGs */
#define MAX_CH		2U	/* channels per TSG at most */
#define MAX_ENTRIES	64U	/* the scenario needs at most 8 TSG entries + 14 channel entries */

/* Interleave level of each TSG (test_setters changes L0's for a while). */
static u32 levels[NT] = {
	NVGPU_FIFO_RUNLIST_INTERLEAVE_LEVEL_LOW,
	NVGPU_FIFO_RUNLIST_INTERLEAVE_LEVEL_HIGH,
	NVGPU_FIFO_RUNLIST_INTERLEAVE_LEVEL_MEDIUM,
	NVGPU_FIFO_RUNLIST_INTERLEAVE_LEVEL_LOW,
};
static const u32 nch[NT] = { 2, 2, 2, 1 };
static const char *const names[NT] = { "L0", "H1", "M2", "L3" };
/*
 * Their tsgids: across words of the eligible bitmap (63 | 64, 130, 255), so that a filter
 * reading the wrong word (e.g. only the first 64 TSGs) lists the wrong TSGs.
 */
static const u32 ids[NT] = { 63, 64, 130, 255 };

static struct {
	struct nvgpu_tsg *tsg[NT];
	struct nvgpu_channel *ch[NT][MAX_CH];
	struct nvgpu_mem userd;		/* dummy USERD memory (safety profile, facts step 4) */
	struct nvgpu_runlist *rl;
	/* Each TSG's block (header + channel entries) as the stock builder wrote it. */
	u32 ref[NT][(1U + MAX_CH) * 4U];
	bool have_ref;
	FILE *dump;
	bool dumping;		/* test_stock_order: the runs both trees make */
	bool no_submit;		/* R36 with a user domain: nvgpu builds but does not submit */
} s;

/* ---- decoding ---- */

struct rl_view {
	u32 count;
	u32 w[MAX_ENTRIES][4];
};

static int tsg_index(u32 tsgid)
{
	u32 i;

	for (i = 0; i < NT; i++) {
		if (s.tsg[i] != NULL && s.tsg[i]->tsgid == tsgid) {
			return (int)i;
		}
	}
	return -1;
}

static struct nvgpu_runlist_domain *build_domain(void)
{
#ifdef GCAPS_R36
	return NULL;		/* the shadow domain */
#else
	return s.rl->domain;	/* R35: the active ("(default)") domain, facts step 6 */
#endif
}

/*
 * Register recorder (patch 0003's scenarios): while installed, counts every register access,
 * the submits per runlist (0x2274 = runlist id [23:20] | length [15:0], 0x2270 = base) and the
 * PENDING polls (0x2284 + 8 * id), and can keep runlist 0's PENDING bit set (stuck).
 */
#define MAX_RL	4U
#define NCH	512U	/* gv11b's channels */
#define NENG	3U	/* engines of the register file: GR, LCE0, LCE1 */
static struct {
	struct nvgpu_posix_io_callbacks *orig;
	bool on;
	u32 seq;			/* register accesses (reads and writes) */
	u32 submits[MAX_RL];		/* 0x2274 writes per runlist id */
	u32 submit[MAX_RL];		/* last value written per runlist id */
	u32 submit_seq[MAX_RL];
	u32 bases;			/* 0x2270 writes */
	u32 base;			/* last base written */
	u32 polls[MAX_RL];		/* PENDING reads per runlist id */
	u32 poll_seq[MAX_RL];
	bool stuck;			/* runlist 0 stays PENDING */
	u32 legacy;			/* 0x2270/0x2274 writes (gv11b submit registers) */
	u32 base_hi;			/* ga10b: last submit base hi */
	/* patch 0009: CCSR channel enables (emulated: set/clr write bits, enable read bit 0) */
	u32 enables, disables;		/* writes that set / clear a channel's enable */
	u32 en_seq[NCH], dis_seq[NCH];	/* per chid: the last enable / disable write */
	u32 en_first[NCH];		/* per chid: the first enable write (0: none) */
	u32 preempts;			/* fifo_preempt (0x2634) writes */
	u32 preempt, preempt_seq;	/* the last one's value and position */
	u32 eng_reads, eng_read_seq;	/* engine status reads (engines 0..2), the last one */
	u32 ccsr;			/* CCSR channel register writes */
} io;

#ifdef GCAPS_PATCHED
/*
 * ga10b (Orin) channel enables: each runlist's CHRAM at a synthesized chram_bar0_offset (a
 * register space of our own): GA_CHRAM_BASE + id * GA_CHRAM_STRIDE. While `on`, the channel
 * enable state is CHRAM's (an enable_channel or disable_channel update written to the
 * channel's entry), kept here across io_reset().
 */
#define GA_CHRAM_BASE	0x00c10000U
#define GA_CHRAM_STRIDE	0x1000U
static struct {
	bool on;
	u8 ch[NCH];
} chram;

/* A CHRAM channel entry: its runlist id, and *chid the channel. */
static int chram_reg(u32 addr, u32 *chid)
{
	if (addr < GA_CHRAM_BASE || addr >= GA_CHRAM_BASE + MAX_RL * GA_CHRAM_STRIDE) {
		return -1;
	}
	*chid = ((addr - GA_CHRAM_BASE) % GA_CHRAM_STRIDE) / 4U;
	return (int)((addr - GA_CHRAM_BASE) / GA_CHRAM_STRIDE);
}
#endif

/* Copy what nvgpu last submitted on runlist 0; check the submit register's length. */
static int snapshot(struct unit_module *m, struct gk20a *g, struct rl_view *v)
{
	struct nvgpu_runlist_mem *hw = s.rl->domain->mem_hw;
	u32 reg = io.on ? io.submit[s.rl->id] : nvgpu_readl(g, fifo_runlist_r());

	v->count = hw->count;
	if (v->count > MAX_ENTRIES) {
		unit_err(m, "runlist has %u entries, more than the scenario can produce\n", v->count);
		return -1;
	}
	memcpy(v->w, hw->mem.cpu_va, (size_t)v->count * 16U);
	if (s.no_submit) {
		return 0;
	}
	/* 0x2274 (written on every submit): runlist id [23:20], length [15:0] */
	if ((reg & 0xffffU) != v->count || ((reg >> 20) & 0xfU) != s.rl->id) {
		unit_err(m, "submit register 0x2274 = 0x%08x, buffer has %u entries on runlist %u\n",
			 reg, v->count, s.rl->id);
		return -1;
	}
	return 0;
}

/*
 * Walk the entries: every TSG header is followed by exactly its length's channel entries,
 * each of a channel bound to that TSG (each once), with the instance block and USERD address
 * of that channel. Writes the TSG order to order[] and returns its length, or -1.
 */
static int decode(struct unit_module *m, struct gk20a *g, const struct rl_view *v, int *order)
{
	u32 e = 0, n = 0;

	while (e < v->count) {
		const u32 *h = v->w[e];
		u32 len, k, seen = 0;
		int t;

		if ((h[0] & 1U) != 1U) {
			unit_err(m, "entry %u: a channel entry where a TSG header must be\n", e);
			return -1;
		}
		len = h[1] & 0xffU;
		t = tsg_index(h[2] & 0xfffU);
		if (t < 0) {
			unit_err(m, "entry %u: TSG header of unknown tsgid %u\n", e, h[2] & 0xfffU);
			return -1;
		}
		if (len != nch[t] || len != s.tsg[t]->num_active_channels || h[3] != 0U) {
			unit_err(m, "entry %u: %s header length %u, %u channels are runnable\n",
				 e, names[t], len, nch[t]);
			return -1;
		}
		if (e + 1U + len > v->count) {
			unit_err(m, "entry %u: %s header runs past the end\n", e, names[t]);
			return -1;
		}
		for (k = 0; k < len; k++) {
			const u32 *c = v->w[e + 1U + k];
			u32 chid = c[2] & 0xfffU, j;
			int found = -1;

			if ((c[0] & 1U) != 0U) {
				unit_err(m, "entry %u: %s has %u channel entries, header says %u\n",
					 e, names[t], k, len);
				return -1;
			}
			for (j = 0; j < nch[t]; j++) {
				if (s.ch[t][j]->chid == chid) {
					found = (int)j;
				}
			}
			if (found < 0 || (seen & (1U << found)) != 0U) {
				unit_err(m, "entry %u: chid %u is not (or twice) a channel of %s\n",
					 e + 1U + k, chid, names[t]);
				return -1;
			} else {
				struct nvgpu_channel *ch = s.ch[t][found];
				u64 inst = nvgpu_inst_block_addr(g, &ch->inst_block);
				u64 userd = ((u64)c[1] << 32) | (c[0] & 0xffffff00U);
				u64 ia = ((u64)c[3] << 32) | (c[2] & 0xfffff000U);

				if (userd != ch->userd_iova || ia != (inst & ~0xfffULL)) {
					unit_err(m, "entry %u: chid %u addresses differ from the channel's\n",
						 e + 1U + k, chid);
					return -1;
				}
			}
			seen |= 1U << found;
		}
		if (s.have_ref && memcmp(v->w[e], s.ref[t], (size_t)(1U + len) * 16U) != 0) {
			unit_err(m, "entry %u: %s block differs from the stock builder's\n", e, names[t]);
			return -1;
		}
		order[n++] = t;
		e += 1U + len;
	}
	return (int)n;
}

/* Canonical text of a runlist (addresses replaced by the check decode() made). */
static void dump(const char *label, const struct rl_view *v)
{
	u32 e;

	if (s.dump == NULL || !s.dumping) {
		return;
	}
	fprintf(s.dump, "%s: %u entries\n", label, v->count);
	for (e = 0; e < v->count; e++) {
		const u32 *w = v->w[e];

		if (w[0] & 1U) {
			fprintf(s.dump, "  T %s len %u w0 %08x w3 %08x\n",
				names[tsg_index(w[2] & 0xfffU)], w[1] & 0xffU, w[0], w[3]);
		} else {
			fprintf(s.dump, "  C chid %u w0lo %02x addrs ok\n", w[2] & 0xfffU, w[0] & 0xffU);
		}
	}
	fflush(s.dump);
}

/* ---- the model: nvgpu's order (facts: nvgpu-hook-points.md 3.2) over an eligible subset ---- */

static void m_level(u32 lvl, u32 mask, int *out, u32 *n)
{
	u32 id, i;

	/* tsgid order */
	for (id = 0; id < 4096U; id++) {
		i = (u32)tsg_index(id);
		if ((int)i >= 0 && (mask & (1U << i)) && levels[i] == lvl) {
			out[(*n)++] = (int)i;
		}
	}
}

static void m_med(u32 mask, int *out, u32 *n)
{
	int med[NT];
	u32 nm = 0, k;

	m_level(NVGPU_FIFO_RUNLIST_INTERLEAVE_LEVEL_MEDIUM, mask, med, &nm);
	for (k = 0; k < nm; k++) {
		m_level(NVGPU_FIFO_RUNLIST_INTERLEAVE_LEVEL_HIGH, mask, out, n);
		out[(*n)++] = med[k];
	}
}

static u32 model(u32 mask, bool interleave, int *out)
{
	u32 n = 0, nl = 0, k;
	int low[NT];

	if (!interleave) {
		m_level(NVGPU_FIFO_RUNLIST_INTERLEAVE_LEVEL_HIGH, mask, out, &n);
		m_level(NVGPU_FIFO_RUNLIST_INTERLEAVE_LEVEL_MEDIUM, mask, out, &n);
		m_level(NVGPU_FIFO_RUNLIST_INTERLEAVE_LEVEL_LOW, mask, out, &n);
		return n;
	}
	m_level(NVGPU_FIFO_RUNLIST_INTERLEAVE_LEVEL_LOW, mask, low, &nl);
	for (k = 0; k < nl; k++) {
		m_med(mask, out, &n);
		m_level(NVGPU_FIFO_RUNLIST_INTERLEAVE_LEVEL_HIGH, mask, out, &n);
		out[n++] = low[k];
	}
	if (n == 0U) {
		m_med(mask, out, &n);
		if (n == 0U) {
			m_level(NVGPU_FIFO_RUNLIST_INTERLEAVE_LEVEL_HIGH, mask, out, &n);
		}
	}
	return n;
}

static void order_str(const int *o, u32 n, char *buf, size_t sz)
{
	u32 k;
	size_t p = 0;

	buf[0] = '\0';
	for (k = 0; k < n && p + 4 < sz; k++) {
		p += (size_t)snprintf(buf + p, sz - p, "%s%s", k ? " " : "", names[o[k]]);
	}
	if (n == 0U) {
		snprintf(buf, sz, "(empty)");
	}
}

/* What nvgpu last submitted on runlist 0 must be the model's runlist for @mask. */
static int check_submitted(struct unit_module *m, struct gk20a *g, const char *label, u32 mask,
			   bool interleave)
{
	struct rl_view v;
	int got[2U * MAX_ENTRIES], want[2U * MAX_ENTRIES];
	u32 nw, k;
	int ng;
	char a[160], b[160];

	if (snapshot(m, g, &v) != 0) {
		return -1;
	}
	ng = decode(m, g, &v, got);
	if (ng < 0) {
		unit_err(m, "%s: the runlist nvgpu wrote does not decode\n", label);
		return -1;
	}
	nw = model(mask, interleave, want);
	order_str(got, (u32)ng, a, sizeof(a));
	order_str(want, nw, b, sizeof(b));
	if ((u32)ng != nw) {
		unit_err(m, "%s: runlist %s, expected %s\n", label, a, b);
		return -1;
	}
	for (k = 0; k < nw; k++) {
		if (got[k] != want[k]) {
			unit_err(m, "%s: runlist %s, expected %s\n", label, a, b);
			return -1;
		}
	}
	unit_info(m, "%s: %s\n", label, a);
	dump(label, &v);
	return 0;
}

/* Rebuild runlist 0 from nvgpu's bitmaps and check it against the model for @mask. */
static int check_runlist(struct unit_module *m, struct gk20a *g, const char *label, u32 mask,
			 bool interleave)
{
	int err;

	g->runlist_interleave = interleave;
	err = nvgpu_runlist_reload(g, s.rl, build_domain(), true, true);
	if (err != 0) {
		unit_err(m, "%s: nvgpu_runlist_reload returned %d\n", label, err);
		return -1;
	}
	return check_submitted(m, g, label, mask, interleave);
}

/* ---- tests ---- */

static int test_setup(struct unit_module *m, struct gk20a *g, void *args)
{
	struct nvgpu_tsg *filler[256];
	u32 i, j, nf = 0;
	int err;

	if (gcaps_fifo_setup(m, g) != 0) {
		unit_return_fail(m, "FIFO setup failed\n");
	}
	s.userd.aperture = APERTURE_SYSMEM;
	s.dump = NULL;
	if (getenv("GCAPS_NVGPU_DUMP") != NULL) {
		s.dump = fopen(getenv("GCAPS_NVGPU_DUMP"), "w");
		if (s.dump == NULL) {
			unit_return_fail(m, "cannot write %s\n", getenv("GCAPS_NVGPU_DUMP"));
		}
	}

	for (i = 0; i < NT; i++) {
		/* open (and later release) fillers until the TSG gets its planned id */
		for (;;) {
			struct nvgpu_tsg *t = nvgpu_tsg_open(g, getpid());

			if (t == NULL || t->tsgid > ids[i] || nf == ARRAY_SIZE(filler)) {
				unit_return_fail(m, "cannot open TSG %s with id %u\n", names[i], ids[i]);
			}
			if (t->tsgid == ids[i]) {
				s.tsg[i] = t;
				break;
			}
			filler[nf++] = t;
		}
		s.tsg[i]->interleave_level = levels[i];
		for (j = 0; j < nch[i]; j++) {
			struct nvgpu_channel *ch = nvgpu_channel_open_new(g,
					NVGPU_INVALID_RUNLIST_ID, false, getpid(), getpid());

			if (ch == NULL) {
				unit_return_fail(m, "channel open failed\n");
			}
			s.ch[i][j] = ch;
			err = nvgpu_tsg_bind_channel(s.tsg[i], ch);
			if (err != 0) {
				unit_return_fail(m, "bind: %d\n", err);
			}
			ch->userd_mem = &s.userd;
			/* a distinct, recognisable USERD address per channel (256-byte aligned) */
			ch->userd_iova = 0x80000000ULL + ((u64)ch->chid << 9);
		}
	}
	for (j = 0; j < nf; j++) {
		nvgpu_ref_put(&filler[j]->refcount, nvgpu_tsg_release);
	}
	s.rl = s.tsg[0]->runlist;
	for (i = 0; i < NT; i++) {
		if (s.tsg[i]->runlist != s.rl) {
			unit_return_fail(m, "TSGs ended up on different runlists\n");
		}
		for (j = 0; j < nch[i]; j++) {
			err = nvgpu_runlist_update(g, s.rl, s.ch[i][j], true, true);
			if (err != 0) {
				unit_return_fail(m, "nvgpu_runlist_update(add): %d\n", err);
			}
		}
	}
	return UNIT_SUCCESS;
}

/* Nothing bound: the stock order, and record each TSG's block as the reference. */
static int test_stock_order(struct unit_module *m, struct gk20a *g, void *args)
{
	struct rl_view v;
	int order[2U * MAX_ENTRIES];
	u32 e = 0, k;
	int n;

	s.dumping = true;
	if (check_runlist(m, g, "unbound, interleaved", 0xfU, true) != 0 ||
	    check_runlist(m, g, "unbound, flat", 0xfU, false) != 0) {
		unit_return_fail(m, "stock order wrong\n");
	}
	/* The flat runlist holds each TSG's block once: keep them as the reference. */
	if (snapshot(m, g, &v) != 0 || (n = decode(m, g, &v, order)) != (int)NT) {
		unit_return_fail(m, "flat runlist does not list each TSG once\n");
	}
	for (k = 0; k < (u32)n; k++) {
		memcpy(s.ref[order[k]], v.w[e], (size_t)(1U + nch[order[k]]) * 16U);
		e += 1U + nch[order[k]];
	}
	s.have_ref = true;
	/* decode() now also checks every block of the interleaved runlist against them */
	if (check_runlist(m, g, "unbound, interleaved (blocks)", 0xfU, true) != 0) {
		unit_return_fail(m, "interleaved blocks differ from the flat ones\n");
	}
	s.dumping = false;
	return UNIT_SUCCESS;
}

#ifdef GCAPS_PATCHED
/* A stand-in for gcaps: a fixed eligible set (counting reads) and a recorder of TSG events. */
#define MAX_EV	64U
struct ev {
	char kind;		/* 'U' tsg_update, 'R' tsg_release */
	u32 tsgid;
	pid_t tgid;
	u32 timeslice_us;
	u32 num_channels;
};

static struct {
	struct nvgpu_gcaps_eligible set;
	u32 reads;
	struct ev ev[MAX_EV];
	u32 nev;
	u32 recovered;		/* recovered() calls */
	u32 stock_calls;	/* stock() calls (R36: user domains), and the last one's value */
	bool stock_on;
} hk;

static void hook_eligible(void *priv, struct nvgpu_gcaps_eligible *out)
{
	(void)priv;
	hk.reads++;
	*out = hk.set;
}

static void hook_tsg_update(void *priv, u32 tsgid, pid_t tgid, u32 timeslice_us,
			    u32 num_channels)
{
	(void)priv;
	if (hk.nev < MAX_EV) {
		hk.ev[hk.nev] = (struct ev){ 'U', tsgid, tgid, timeslice_us, num_channels };
	}
	hk.nev++;
}

static void hook_tsg_release(void *priv, u32 tsgid)
{
	(void)priv;
	if (hk.nev < MAX_EV) {
		hk.ev[hk.nev] = (struct ev){ 'R', tsgid, 0, 0, 0 };
	}
	hk.nev++;
}

/* gcaps's calls->recovered(): gcaps would resubmit soon; the scenarios do it themselves. */
static void hook_recovered(void *priv)
{
	(void)priv;
	hk.recovered++;
}

/* gcaps's calls->stock(): the runlists are stock (R36: a user domain exists) or filtered again. */
static void hook_stock(void *priv, bool on)
{
	(void)priv;
	hk.stock_calls++;
	hk.stock_on = on;
}

static const struct nvgpu_gcaps_hook hook = {
	.eligible = hook_eligible,
	.tsg_update = hook_tsg_update,
	.tsg_release = hook_tsg_release,
	.recovered = hook_recovered,
	.stock = hook_stock,
	.priv = NULL,
};

/* The events recorded since the last reset must be exactly want[0..n). */
static int check_events(struct unit_module *m, const char *label, const struct ev *want, u32 n)
{
	u32 k;
	int ret = 0;

	if (hk.nev != n) {
		unit_err(m, "%s: %u events, expected %u\n", label, hk.nev, n);
		ret = -1;
	}
	for (k = 0; k < hk.nev && k < MAX_EV; k++) {
		const struct ev *e = &hk.ev[k];
		bool ok = k < n && e->kind == want[k].kind && e->tsgid == want[k].tsgid &&
			e->tgid == want[k].tgid && e->timeslice_us == want[k].timeslice_us &&
			e->num_channels == want[k].num_channels;

		unit_info(m, "%s: event %u: %c tsgid %u tgid %d timeslice %u channels %u%s\n",
			  label, k, e->kind, e->tsgid, (int)e->tgid, e->timeslice_us,
			  e->num_channels, ok ? "" : " (unexpected)");
		if (!ok) {
			ret = -1;
		}
	}
	return ret;
}

/* Publish "all" (mask ignored) or the TSGs in @mask (bit i = TSG i of the scenario). */
static void publish(bool all, u32 mask)
{
	u32 i;

	memset(&hk.set, 0, sizeof(hk.set));
	hk.set.generation++;
	hk.set.all = all;
	for (i = 0; i < NT; i++) {
		if (mask & (1U << i)) {
			u32 id = s.tsg[i]->tsgid;

			hk.set.bits[id / BITS_PER_LONG] |= 1UL << (id % BITS_PER_LONG);
		}
	}
}

static int test_bind(struct unit_module *m, struct gk20a *g, void *args)
{
	struct nvgpu_gcaps_hook no_events = hook;

	publish(true, 0);
	no_events.tsg_update = NULL;
	if (nvgpu_gcaps_bind(g, &no_events) != -EINVAL) {
		unit_return_fail(m, "a hook without tsg_update was bound\n");
	}
	hk.nev = 0;
	if (nvgpu_gcaps_bind(g, &hook) != 0) {
		unit_return_fail(m, "bind failed\n");
	}
	if (nvgpu_gcaps_bind(g, &hook) != -EBUSY) {
		unit_return_fail(m, "a second bind did not return -EBUSY\n");
	}
	return UNIT_SUCCESS;
}

/*
 * The TSGs opened before the hook was bound (the scenario's four) were replayed to it by
 * bind, in tsgid order, with owner, timeslice and bound channels; nothing else (the fillers
 * were released before, the refused second bind replays nothing).
 */
static int test_events_replay(struct unit_module *m, struct gk20a *g, void *args)
{
	struct ev want[NT];
	u32 i;

	for (i = 0; i < NT; i++) {
		want[i] = (struct ev){ 'U', ids[i], getpid(), s.tsg[i]->timeslice_us, nch[i] };
	}
	if (check_events(m, "replay", want, NT) != 0) {
		unit_return_fail(m, "bind did not replay exactly the TSGs in use\n");
	}
	return UNIT_SUCCESS;
}

/*
 * Open a TSG (owner EV_TGID), bind two channels, close them (unbind), release the TSG: with
 * @bound the hook sees exactly U(0 ch) U(1) U(2) U(1) U(0) R, else nothing.
 */
#define EV_TGID	4242
static int tsg_lifecycle(struct unit_module *m, struct gk20a *g, bool bound, const char *label)
{
	struct nvgpu_tsg *t;
	struct nvgpu_channel *ch[2];
	struct ev want[6];
	u32 j, id, ts;

	hk.nev = 0;
	t = nvgpu_tsg_open(g, EV_TGID);
	if (t == NULL) {
		unit_err(m, "%s: TSG open failed\n", label);
		return -1;
	}
	id = t->tsgid;
	ts = t->timeslice_us;
	for (j = 0; j < 2U; j++) {
		ch[j] = nvgpu_channel_open_new(g, NVGPU_INVALID_RUNLIST_ID, false, getpid(),
					       getpid());
		if (ch[j] == NULL || nvgpu_tsg_bind_channel(t, ch[j]) != 0) {
			unit_err(m, "%s: channel open/bind failed\n", label);
			return -1;
		}
	}
	for (j = 0; j < 2U; j++) {
		nvgpu_channel_close(ch[j]);	/* unbinds it from the TSG */
	}
	nvgpu_ref_put(&t->refcount, nvgpu_tsg_release);
	want[0] = (struct ev){ 'U', id, EV_TGID, ts, 0 };
	want[1] = (struct ev){ 'U', id, EV_TGID, ts, 1 };
	want[2] = (struct ev){ 'U', id, EV_TGID, ts, 2 };
	want[3] = (struct ev){ 'U', id, EV_TGID, ts, 1 };
	want[4] = (struct ev){ 'U', id, EV_TGID, ts, 0 };
	want[5] = (struct ev){ 'R', id, 0, 0, 0 };
	return check_events(m, label, want, bound ? 6U : 0U);
}

static int test_events(struct unit_module *m, struct gk20a *g, void *args)
{
	if (tsg_lifecycle(m, g, true, "bound") != 0) {
		unit_return_fail(m, "wrong TSG events for open/bind/unbind/release\n");
	}
	return UNIT_SUCCESS;
}

/* Bound, eligible set "all": exactly stock (blocks and order), and the hook was read. */
static int test_all(struct unit_module *m, struct gk20a *g, void *args)
{
	u32 before = hk.reads;

	publish(true, 0);
	if (check_runlist(m, g, "bound all, interleaved", 0xfU, true) != 0 ||
	    check_runlist(m, g, "bound all, flat", 0xfU, false) != 0) {
		unit_return_fail(m, "eligible set \"all\" changed the runlist\n");
	}
	if (hk.reads == before) {
		unit_return_fail(m, "the builder never read the eligible set\n");
	}
	return UNIT_SUCCESS;
}

/* Bound, a subset: only those TSGs, in nvgpu's order, each with all its channel entries. */
static int test_subset(struct unit_module *m, struct gk20a *g, void *args)
{
	/* every subset of the four TSGs, both orders */
	u32 mask, il;
	char label[64];

	for (il = 0; il < 2U; il++) {
		for (mask = 0; mask < (1U << NT); mask++) {
			publish(false, mask);
			snprintf(label, sizeof(label), "bound subset 0x%x, %s", mask,
				 il ? "interleaved" : "flat");
			if (check_runlist(m, g, label, mask, il != 0U) != 0) {
				unit_return_fail(m, "%s: wrong runlist\n", label);
			}
		}
	}
	return UNIT_SUCCESS;
}

/*
 * A set holding only TSG ids that are not on the runlist (e.g. gcaps's bits of a released or
 * not-yet-runnable TSG, or the wrong word of the bitmap): nothing of ours is listed.
 */
static int test_other_ids(struct unit_module *m, struct gk20a *g, void *args)
{
	u32 i;

	publish(false, 0);
	for (i = 0; i < NVGPU_GCAPS_MAX_TSGS; i++) {
		if (tsg_index(i) < 0) {
			hk.set.bits[i / BITS_PER_LONG] |= 1UL << (i % BITS_PER_LONG);
		}
	}
	if (check_runlist(m, g, "bound, only foreign ids", 0, true) != 0) {
		unit_return_fail(m, "TSGs outside the set were listed\n");
	}
	return UNIT_SUCCESS;
}

/* Unbound again: stock, and the hook is not read any more. */
static int test_unbind(struct unit_module *m, struct gk20a *g, void *args)
{
	u32 before;

	publish(false, 0x1U);
	nvgpu_gcaps_unbind(g);
	before = hk.reads;
	if (check_runlist(m, g, "unbound again, interleaved", 0xfU, true) != 0) {
		unit_return_fail(m, "unbinding did not restore the stock runlist\n");
	}
	if (hk.reads != before) {
		unit_return_fail(m, "the builder read an unbound hook\n");
	}
	if (nvgpu_gcaps_bind(g, &hook) != 0) {
		unit_return_fail(m, "bind after unbind failed\n");
	}
	nvgpu_gcaps_unbind(g);
	return UNIT_SUCCESS;
}

/* Nothing bound (after an unbind): the same TSG lifecycle reaches the hook not at all. */
static int test_events_unbound(struct unit_module *m, struct gk20a *g, void *args)
{
	if (tsg_lifecycle(m, g, false, "unbound") != 0) {
		unit_return_fail(m, "TSG events reached an unbound hook\n");
	}
	return UNIT_SUCCESS;
}

#ifndef GCAPS_R36
/*
 * R35 (patch 0006): the builder filters only while "(default)" is the runlist's only domain.
 * With a second domain (what NVGPU_NVS_IOCTL_CREATE_DOMAIN makes through nvgpu_rl_domain_alloc;
 * nvgpu's NVS worker would round-robin the domains by resubmitting each one's last buffer,
 * built under older eligible sets) the runlists are stock; deleting it brings the filter back.
 */
static int test_default_only(struct unit_module *m, struct gk20a *g, void *args)
{
	int err, ret = UNIT_SUCCESS;

	publish(false, 0x1U);
	hk.stock_calls = 0;
	if (check_runlist(m, g, "bound subset 0x1, (default) only", 0x1U, true) != 0) {
		unit_return_fail(m, "the (default) domain is not filtered\n");
	}
	err = nvgpu_rl_domain_alloc(g, "gcaps-second");
	if (err != 0) {
		unit_return_fail(m, "adding a second domain failed: %d\n", err);
	}
	if (check_runlist(m, g, "bound subset 0x1, a second domain", 0xfU, true) != 0) {
		unit_err(m, "a second domain exists, yet the runlist was filtered\n");
		ret = UNIT_FAIL;
	}
	/* (patch 0007) gcaps was told that the runlists are stock: STATUS says so */
	if (hk.stock_calls != 1U || !hk.stock_on) {
		unit_err(m, "second domain: %u stock() calls, last %d; expected one, on\n",
			 hk.stock_calls, (int)hk.stock_on);
		ret = UNIT_FAIL;
	}
	err = nvgpu_rl_domain_delete(g, "gcaps-second");
	if (err != 0) {
		unit_return_fail(m, "deleting the second domain failed: %d\n", err);
	}
	if (check_runlist(m, g, "bound subset 0x1, second domain deleted", 0x1U, true) != 0) {
		unit_return_fail(m, "the filter did not come back\n");
	}
	if (hk.stock_calls != 2U || hk.stock_on) {
		unit_err(m, "second domain deleted: %u stock() calls, last %d; expected two, off\n",
			 hk.stock_calls, (int)hk.stock_on);
		ret = UNIT_FAIL;
	}
	return ret;
}
#endif

#ifdef GCAPS_R36
/*
 * R36: gcaps filters only the shadow domain, and only while no user (GSP) domain exists. With
 * a user domain nvgpu builds the shadow domain but submits nothing (GSP firmware schedules):
 * the build must be stock. Removing the domain brings the filter back.
 */
static int test_shadow_only(struct unit_module *m, struct gk20a *g, void *args)
{
	struct nvgpu_nvs_domain *dom = NULL;
	int err, ret = UNIT_SUCCESS;

	publish(false, 0x1U);
	hk.stock_calls = 0;
	if (check_runlist(m, g, "bound subset 0x1, no user domain", 0x1U, true) != 0) {
		unit_return_fail(m, "the shadow domain is not filtered\n");
	}
	err = nvgpu_nvs_add_domain(g, "gcaps-user", 100000ULL, 0ULL, &dom);
	if (err != 0 || dom == NULL || !nvgpu_nvs_gsp_usr_domain_present(g)) {
		unit_return_fail(m, "adding a user domain failed: %d\n", err);
	}
	s.no_submit = true;
	if (check_runlist(m, g, "bound subset 0x1, user domain present", 0xfU, true) != 0) {
		unit_err(m, "a user domain exists, yet the shadow domain was filtered\n");
		ret = UNIT_FAIL;
	}
	/* (patch 0007) gcaps was told that the runlists are stock: STATUS says so */
	if (hk.stock_calls != 1U || !hk.stock_on) {
		unit_err(m, "user domain: %u stock() calls, last %d; expected one, on\n",
			 hk.stock_calls, (int)hk.stock_on);
		ret = UNIT_FAIL;
	}
	s.no_submit = false;
	err = nvgpu_nvs_del_domain(g, dom->id);
	if (err != 0) {
		unit_return_fail(m, "removing the user domain failed: %d\n", err);
	}
	if (check_runlist(m, g, "bound subset 0x1, user domain removed", 0x1U, true) != 0) {
		unit_return_fail(m, "the filter did not come back\n");
	}
	if (hk.stock_calls != 2U || hk.stock_on) {
		unit_err(m, "user domain removed: %u stock() calls, last %d; expected two, off\n",
			 hk.stock_calls, (int)hk.stock_on);
		ret = UNIT_FAIL;
	}
	return ret;
}
#endif

/* ---- patch 0003: resubmit, unbind, recovery, power ---- */

static struct nvgpu_posix_io_callbacks rec_cb;

/*
 * ga10b scenario: each runlist's registers at a synthesized runlist_pri_base (a register space
 * of our own, outside every space of the gv11b file): GA_RL_BASE + id * GA_RL_STRIDE.
 */
#define GA_RL_BASE	0x00c00000U
#define GA_RL_STRIDE	0x400U

/* A ga10b runlist register: its runlist id, and *off its offset from the runlist's base. */
static int ga_reg(u32 addr, u32 *off)
{
	if (addr < GA_RL_BASE || addr >= GA_RL_BASE + MAX_RL * GA_RL_STRIDE) {
		return -1;
	}
	*off = (addr - GA_RL_BASE) % GA_RL_STRIDE;
	return (int)((addr - GA_RL_BASE) / GA_RL_STRIDE);
}

static void rec_writel(struct gk20a *g, struct nvgpu_reg_access *a)
{
	u32 off, chid;
	int ga = ga_reg(a->addr, &off);

	io.seq++;
	if (chram_reg(a->addr, &chid) >= 0 && chid < NCH) {
		if (a->value == runlist_chram_channel_update_enable_channel_v()) {
			chram.ch[chid] = 1U;
			io.enables++;
			io.en_seq[chid] = io.seq;
			if (io.en_first[chid] == 0U) {
				io.en_first[chid] = io.seq;
			}
		} else if (a->value == runlist_chram_channel_update_disable_channel_v()) {
			chram.ch[chid] = 0U;
			io.disables++;
			io.dis_seq[chid] = io.seq;
		}
	} else if (ga >= 0) {
		u32 id = (u32)ga;

		if (off == runlist_submit_r()) {
			/* recorded like gv11b's 0x2274 (id [23:20], length [15:0]) for snapshot() */
			io.submits[id]++;
			io.submit[id] = (id << 20) | (a->value & 0xffffU);
			io.submit_seq[id] = io.seq;
		} else if (off == runlist_submit_base_lo_r()) {
			io.bases++;
			io.base = a->value;
		} else if (off == runlist_submit_base_hi_r()) {
			io.base_hi = a->value;
		}
	} else if (a->addr == fifo_runlist_r()) {
		io.legacy++;
		u32 id = (a->value >> 20) & 0xfU;

		if (id < MAX_RL) {
			io.submits[id]++;
			io.submit[id] = a->value;
			io.submit_seq[id] = io.seq;
		}
	} else if (a->addr == fifo_runlist_base_r()) {
		io.legacy++;
		io.bases++;
		io.base = a->value;
	} else if (a->addr >= ccsr_channel_r(0U) && a->addr < ccsr_channel_r(NCH) &&
		   (a->addr - ccsr_channel_r(0U)) % (ccsr_channel_r(1U) - ccsr_channel_r(0U)) == 0U) {
		/* the channel's enable as the hardware keeps it: set/clr trigger, bit 0 reads it */
		u32 chid = (a->addr - ccsr_channel_r(0U)) / (ccsr_channel_r(1U) - ccsr_channel_r(0U));
		u32 en = nvgpu_posix_io_readl_reg_space(g, a->addr) & 1U;

		io.ccsr++;
		if ((a->value & ccsr_channel_enable_set_true_f()) != 0U) {
			en = 1U;
			io.enables++;
			io.en_seq[chid] = io.seq;
			if (io.en_first[chid] == 0U) {
				io.en_first[chid] = io.seq;
			}
		}
		if ((a->value & ccsr_channel_enable_clr_true_f()) != 0U) {
			en = 0U;
			io.disables++;
			io.dis_seq[chid] = io.seq;
		}
		nvgpu_posix_io_writel_reg_space(g, a->addr, (a->value &
			~(ccsr_channel_enable_set_true_f() | ccsr_channel_enable_clr_true_f() | 1U)) | en);
		return;
	} else if (a->addr == fifo_preempt_r()) {
		u32 e;

		io.preempts++;
		io.preempt = a->value;
		io.preempt_seq = io.seq;
		/* the preempt completes at once: the engines holding the TSG go idle */
		for (e = 0; e < NENG; e++) {
			u32 st = nvgpu_posix_io_readl_reg_space(g, fifo_engine_status_r(e));

			if (fifo_engine_status_id_v(st) == (a->value & 0xfffU)) {
				nvgpu_posix_io_writel_reg_space(g, fifo_engine_status_r(e), 0U);
			}
		}
	}
	nvgpu_posix_io_writel_reg_space(g, a->addr, a->value);
}

static void rec_readl(struct gk20a *g, struct nvgpu_reg_access *a)
{
	u32 id, off;
	int ga = ga_reg(a->addr, &off);

	io.seq++;
	a->value = nvgpu_posix_io_readl_reg_space(g, a->addr);
	for (id = 0; id < NENG; id++) {
		if (a->addr == fifo_engine_status_r(id)) {
			io.eng_reads++;
			io.eng_read_seq = io.seq;
		}
	}
	if (ga >= 0 && off == runlist_submit_info_r()) {
		io.polls[ga]++;
		io.poll_seq[ga] = io.seq;
		if (io.stuck && ga == 0) {
			a->value |= runlist_submit_info_pending_true_f();
		}
		return;
	}
	for (id = 0; id < MAX_RL; id++) {
		if (a->addr == fifo_eng_runlist_r(id)) {
			io.polls[id]++;
			io.poll_seq[id] = io.seq;
			if (io.stuck && id == 0U) {
				a->value |= fifo_eng_runlist_pending_true_f();
			}
		}
	}
}

/* Zero the recorder's counts (it stays installed). */
static void io_reset(void)
{
	struct nvgpu_posix_io_callbacks *orig = io.orig;
	bool on = io.on, stuck = io.stuck;

	memset(&io, 0, sizeof(io));
	io.orig = orig;
	io.on = on;
	io.stuck = stuck;
}

/* gk20a_busy()/gk20a_idle() calls, counted by the preloaded tests/nvgpu/power-count.c. */
struct pw {
	unsigned int busy, ok, idle;
};

static int power_counts(struct unit_module *m, struct pw *p)
{
	void (*fn)(unsigned int *busy, unsigned int *ok, unsigned int *idle);

	*(void **)&fn = dlsym(RTLD_DEFAULT, "gcaps_test_power_counts");
	if (fn == NULL) {
		unit_err(m, "gk20a_busy/gk20a_idle are not counted: run with "
			 "LD_PRELOAD=<power-count.so> (run.sh and mutate.sh do)\n");
		return -1;
	}
	fn(&p->busy, &p->ok, &p->idle);
	return 0;
}

/* Exactly @busy gk20a_busy calls (@ok of them succeeding) and @idle gk20a_idle calls. */
static int power_delta(struct unit_module *m, const char *label, const struct pw *p0,
		       unsigned int busy, unsigned int ok, unsigned int idle)
{
	struct pw p1;

	if (power_counts(m, &p1) != 0) {
		return -1;
	}
	if (p1.busy - p0->busy != busy || p1.ok - p0->ok != ok || p1.idle - p0->idle != idle) {
		unit_err(m, "%s: gk20a_busy %u (%u succeeded), gk20a_idle %u; expected %u (%u), %u\n",
			 label, p1.busy - p0->busy, p1.ok - p0->ok, p1.idle - p0->idle,
			 busy, ok, idle);
		return -1;
	}
	return 0;
}

/*
 * Each 0003 scenario starts bound to the stand-in hook with @mask published, the GPU powered on
 * and the register recorder installed, and stop() returns to what the earlier scenarios left
 * (unbound, the unit's default power state "off", nvgpu's register callbacks). Only the hook
 * calls and publish() touch the stand-in, so gcaps's real core can take its place later.
 */
static int start(struct unit_module *m, struct gk20a *g, u32 mask)
{
	publish(false, mask);
	hk.recovered = 0;
	if (nvgpu_gcaps_bind(g, &hook) != 0) {
		unit_err(m, "bind failed\n");
		return -1;
	}
	hk.nev = 0;
	nvgpu_set_power_state(g, NVGPU_STATE_POWERED_ON);
	memset(&io, 0, sizeof(io));
	io.orig = nvgpu_posix_register_io(g, &rec_cb);
	rec_cb = *io.orig;
	rec_cb.writel = rec_writel;
	rec_cb.writel_check = rec_writel;
	rec_cb.__readl = rec_readl;
	rec_cb.readl = rec_readl;
	io.on = true;
	g->runlist_interleave = true;
	return 0;
}

static void stop(struct gk20a *g)
{
	nvgpu_gcaps_unbind(g);
	nvgpu_set_power_state(g, NVGPU_STATE_POWERED_OFF);
	if (io.on) {
		(void)nvgpu_posix_register_io(g, io.orig);
		io.on = false;
	}
	io.stuck = false;
	g->runlist_interleave = true;
}

/* nvgpu_gcaps_resubmit() returned 0, submitted every active runlist and waited for runlist 0. */
static int resubmitted(struct unit_module *m, struct gk20a *g, const char *label, int err)
{
	struct nvgpu_fifo *f = &g->fifo;
	u32 id = s.rl->id, i;
	u64 iova = nvgpu_mem_get_addr(g, &s.rl->domain->mem_hw->mem);

	if (err != 0) {
		unit_err(m, "%s: nvgpu_gcaps_resubmit returned %d\n", label, err);
		return -1;
	}
	for (i = 0; i < f->num_runlists; i++) {
		if (f->active_runlists[i].id < MAX_RL && io.submits[f->active_runlists[i].id] == 0U) {
			unit_err(m, "%s: runlist %u not submitted\n", label, f->active_runlists[i].id);
			return -1;
		}
	}
	if (s.rl->domain->mem_hw->count != 0U &&
	    (io.bases == 0U || (io.base & 0x0fffffffU) != (u32)((iova >> 12) & 0x0fffffffU))) {
		unit_err(m, "%s: runlist base 0x%08x, buffer at 0x%llx\n", label, io.base,
			 (unsigned long long)iova);
		return -1;
	}
	if (io.polls[id] == 0U || io.poll_seq[id] < io.submit_seq[id]) {
		unit_err(m, "%s: PENDING not polled after the submit\n", label);
		return -1;
	}
	return 0;
}

/*
 * gcaps's ops->resubmit: nvgpu rebuilds (the builder reads the set) and submits every active
 * runlist, waits for PENDING, under one gk20a_busy/gk20a_idle pair; a hook without
 * recovered() is refused.
 */
static int test_resubmit(struct unit_module *m, struct gk20a *g, void *args)
{
	struct nvgpu_gcaps_hook no_recovered = hook;
	struct pw p0;
	u32 reads, il;
	char label[64];

	no_recovered.recovered = NULL;
	if (nvgpu_gcaps_bind(g, &no_recovered) != -EINVAL) {
		nvgpu_gcaps_unbind(g);
		unit_return_fail(m, "a hook without recovered() was bound\n");
	}
	if (start(m, g, 0xdU) != 0) {
		unit_return_fail(m, "start failed\n");
	}
	for (il = 0; il < 2U; il++) {
		snprintf(label, sizeof(label), "resubmit {L0 M2 L3}, %s", il ? "flat" : "interleaved");
		g->runlist_interleave = il == 0U;
		io_reset();
		reads = hk.reads;
		if (power_counts(m, &p0) != 0 ||
		    resubmitted(m, g, label, nvgpu_gcaps_resubmit(g)) != 0 ||
		    power_delta(m, label, &p0, 1, 1, 1) != 0) {
			goto fail;
		}
		if (hk.reads == reads) {
			unit_err(m, "%s: the builder did not read the eligible set\n", label);
			goto fail;
		}
		if (check_submitted(m, g, label, 0xdU, il == 0U) != 0) {
			goto fail;
		}
	}
	stop(g);
	return UNIT_SUCCESS;
fail:
	stop(g);
	unit_return_fail(m, "resubmit did not submit the filtered runlist as required\n");
}

/*
 * Powered off (railgated): -EAGAIN, no register access, no gk20a_busy (the GPU is not woken),
 * nothing built. gk20a_busy failing (nvgpu's posix fault injection): its error, no register
 * access, nothing built, no gk20a_idle for the failed gk20a_busy. Then it works again.
 */
static int test_resubmit_power(struct unit_module *m, struct gk20a *g, void *args)
{
	struct nvgpu_posix_fault_inj *fi = nvgpu_nvgpu_get_fault_injection();
	struct pw p0;
	u32 reads;
	int err;

	if (start(m, g, 0x1U) != 0) {
		unit_return_fail(m, "start failed\n");
	}
	nvgpu_set_power_state(g, NVGPU_STATE_POWERED_OFF);
	io_reset();
	reads = hk.reads;
	if (power_counts(m, &p0) != 0) {
		goto fail;
	}
	err = nvgpu_gcaps_resubmit(g);
	if (err != -EAGAIN || io.seq != 0U || hk.reads != reads ||
	    power_delta(m, "powered off", &p0, 0, 0, 0) != 0) {
		unit_err(m, "powered off: returned %d, %u register accesses, %u builds\n", err,
			 io.seq, hk.reads - reads);
		goto fail;
	}

	nvgpu_set_power_state(g, NVGPU_STATE_POWERED_ON);
	io_reset();
	if (power_counts(m, &p0) != 0) {
		goto fail;
	}
	nvgpu_posix_enable_fault_injection(fi, true, 0);
	err = nvgpu_gcaps_resubmit(g);
	nvgpu_posix_enable_fault_injection(fi, false, 0);
	if (err != -ENODEV || io.seq != 0U || hk.reads != reads ||
	    power_delta(m, "gk20a_busy fails", &p0, 1, 0, 0) != 0) {
		unit_err(m, "gk20a_busy fails: returned %d, %u register accesses, %u builds\n", err,
			 io.seq, hk.reads - reads);
		goto fail;
	}

	io_reset();
	if (resubmitted(m, g, "powered on again", nvgpu_gcaps_resubmit(g)) != 0 ||
	    check_submitted(m, g, "powered on again", 0x1U, true) != 0) {
		goto fail;
	}
	stop(g);
	return UNIT_SUCCESS;
fail:
	stop(g);
	unit_return_fail(m, "resubmit did not follow the power rule\n");
}

/*
 * Unbind leaves the GPU on the stock runlist: it submits it itself (the test does not reload),
 * with a power reference. Nothing bound: unbind touches nothing. Powered off: nothing touched,
 * and the next (resume) build is stock.
 */
static int test_unbind_rebuilds(struct unit_module *m, struct gk20a *g, void *args)
{
	struct pw p0;

	if (start(m, g, 0x4U) != 0) {
		unit_return_fail(m, "start failed\n");
	}
	if (resubmitted(m, g, "bound {M2}", nvgpu_gcaps_resubmit(g)) != 0 ||
	    check_submitted(m, g, "bound {M2}", 0x4U, true) != 0) {
		goto fail;
	}
	io_reset();
	if (power_counts(m, &p0) != 0) {
		goto fail;
	}
	nvgpu_gcaps_unbind(g);
	if (resubmitted(m, g, "unbind", 0) != 0 || power_delta(m, "unbind", &p0, 1, 1, 1) != 0 ||
	    check_submitted(m, g, "after unbind, submitted by unbind", 0xfU, true) != 0) {
		unit_err(m, "unbind did not submit the stock runlist\n");
		goto fail;
	}
	io_reset();
	nvgpu_gcaps_unbind(g);
	if (io.seq != 0U) {
		unit_err(m, "unbind with nothing bound made %u register accesses\n", io.seq);
		goto fail;
	}

	if (nvgpu_gcaps_bind(g, &hook) != 0 ||
	    resubmitted(m, g, "bound {M2} again", nvgpu_gcaps_resubmit(g)) != 0) {
		goto fail;
	}
	nvgpu_set_power_state(g, NVGPU_STATE_POWERED_OFF);
	io_reset();
	nvgpu_gcaps_unbind(g);
	if (io.seq != 0U) {
		unit_err(m, "unbind on a powered-off GPU made %u register accesses\n", io.seq);
		goto fail;
	}
	nvgpu_set_power_state(g, NVGPU_STATE_POWERED_ON);
	if (nvgpu_runlist_reload_ids(g, BIT32(s.rl->id), true) != 0 ||
	    check_submitted(m, g, "resumed after an unbind while off", 0xfU, true) != 0) {
		goto fail;
	}
	stop(g);
	return UNIT_SUCCESS;
fail:
	stop(g);
	unit_return_fail(m, "unbind did not leave a stock runlist\n");
}

/*
 * Recovery. The host safety build has no CONFIG_NVGPU_RECOVERY, so gv11b_fifo_recover() and
 * rc.c's recovery branch (where 0003 calls nvgpu_gcaps_recovered()) are not compiled: this
 * drives what that recovery does to the runlist with nvgpu's real functions (all runlist locks,
 * nvgpu_runlist_update_locked(NULL, false) clears it, as in
 * gv11b_fifo_locked_abort_runlist_active_tsgs()), then the call rc.c makes once every lock is
 * released. The hook gets recovered() once; gcaps's resubmit and nvgpu's own rebuild both list
 * the eligible set; unbound, nothing is delivered.
 */
static int test_recovery(struct unit_module *m, struct gk20a *g, void *args)
{
	int err;

	if (start(m, g, 0x3U) != 0) {
		unit_return_fail(m, "start failed\n");
	}
	if (resubmitted(m, g, "bound {L0 H1}", nvgpu_gcaps_resubmit(g)) != 0 ||
	    check_submitted(m, g, "bound {L0 H1}", 0x3U, true) != 0) {
		goto fail;
	}
	err = gcaps_clear_runlist(g, s.rl);
	if (err != 0 || s.rl->domain->mem_hw->count != 0U) {
		unit_err(m, "recovery's clear: %d, %u entries left\n", err,
			 s.rl->domain->mem_hw->count);
		goto fail;
	}
	nvgpu_gcaps_recovered(g);
	if (hk.recovered != 1U) {
		unit_err(m, "recovered() called %u times, expected once\n", hk.recovered);
		goto fail;
	}
	io_reset();
	if (resubmitted(m, g, "gcaps's resubmit after recovery", nvgpu_gcaps_resubmit(g)) != 0 ||
	    check_submitted(m, g, "gcaps's resubmit after recovery", 0x3U, true) != 0) {
		goto fail;
	}
	err = gcaps_clear_runlist(g, s.rl);
	if (err != 0 || nvgpu_runlist_reload_ids(g, BIT32(s.rl->id), true) != 0 ||
	    check_submitted(m, g, "nvgpu's own rebuild after recovery", 0x3U, true) != 0) {
		goto fail;
	}
	stop(g);
	nvgpu_gcaps_recovered(g);
	if (hk.recovered != 1U) {
		unit_return_fail(m, "recovered() reached an unbound hook\n");
	}
	return UNIT_SUCCESS;
fail:
	stop(g);
	unit_return_fail(m, "recovery scenario failed\n");
}

static u64 now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000ULL + (u64)ts.tv_nsec / 1000000ULL;
}

/*
 * PENDING stays set on runlist 0: resubmit returns -ETIMEDOUT after nvgpu's poll timeout (not
 * before; R36 polls twice, see README), the power reference is dropped all the same, the
 * submitted buffer is the filtered one; once PENDING clears a resubmit with a new set works.
 */
static int test_stuck_pending(struct unit_module *m, struct gk20a *g, void *args)
{
	u32 timeout = nvgpu_get_poll_timeout(g);
	struct pw p0;
	u64 t0, ms;
	int err;

	if (start(m, g, 0x2U) != 0) {
		unit_return_fail(m, "start failed\n");
	}
	io.stuck = true;
	io_reset();
	if (power_counts(m, &p0) != 0) {
		goto fail;
	}
	t0 = now_ms();
	err = nvgpu_gcaps_resubmit(g);
	ms = now_ms() - t0;
	io.stuck = false;
	unit_info(m, "stuck PENDING: %d after %llu ms (poll timeout %u ms), %u polls\n", err,
		  (unsigned long long)ms, timeout, io.polls[s.rl->id]);
	if (err != -ETIMEDOUT || ms < timeout || ms > 20ULL * timeout) {
		unit_err(m, "stuck PENDING: returned %d after %llu ms\n", err,
			 (unsigned long long)ms);
		goto fail;
	}
	if (power_delta(m, "stuck PENDING", &p0, 1, 1, 1) != 0 ||
	    check_submitted(m, g, "stuck PENDING, submitted buffer", 0x2U, true) != 0) {
		goto fail;
	}
	publish(false, 0x6U);
	io_reset();
	if (resubmitted(m, g, "PENDING cleared", nvgpu_gcaps_resubmit(g)) != 0 ||
	    check_submitted(m, g, "PENDING cleared, {H1 M2}", 0x6U, true) != 0) {
		goto fail;
	}
	stop(g);
	return UNIT_SUCCESS;
fail:
	stop(g);
	unit_return_fail(m, "stuck PENDING left an inconsistent state\n");
}

/*
 * More than 64 TSGs on the runlist: NX more LOW TSGs with one channel each (ids up to ~200,
 * across four words of the eligible bitmap), five sets over them (all; ids >= 64 only; ids
 * < 64 only; every third; a window around every word boundary), both orders: exactly those
 * TSGs, in tsgid order, each with its channel entry.
 */
#define NX	200U
static struct {
	struct nvgpu_tsg *tsg[NX];
	struct nvgpu_channel *ch[NX];
	u32 n;
} x;

static bool x_in(u32 set, u32 id)
{
	switch (set) {
	case 0:
		return true;
	case 1:
		return id >= 64U;
	case 2:
		return id < 64U;
	case 3:
		return (id % 3U) == 1U;
	default:
		return (id % 64U) >= 60U || (id % 64U) < 4U;
	}
}

static bool x_member(u32 id)
{
	u32 i;

	for (i = 0; i < x.n; i++) {
		if (x.tsg[i]->tsgid == id) {
			return true;
		}
	}
	return false;
}

/* The submitted runlist's TSG ids (each header's channels checked); -1 if malformed. */
static int x_decode(struct unit_module *m, struct gk20a *g, u32 *out, u32 max)
{
	struct nvgpu_runlist_mem *hw = s.rl->domain->mem_hw;
	const u32 *w = hw->mem.cpu_va;
	u32 e = 0, n = 0, k;

	while (e < hw->count) {
		const u32 *h = &w[e * 4U];
		u32 tsgid = h[2] & 0xfffU, len = h[1] & 0xffU;

		if ((h[0] & 1U) == 0U || tsgid >= g->fifo.num_channels || len == 0U ||
		    len != g->fifo.tsg[tsgid].num_active_channels || e + 1U + len > hw->count ||
		    n == max) {
			unit_err(m, "entry %u: bad TSG header (tsgid %u, length %u)\n", e, tsgid, len);
			return -1;
		}
		for (k = 1; k <= len; k++) {
			const u32 *c = &w[(e + k) * 4U];
			u32 chid = c[2] & 0xfffU;

			if ((c[0] & 1U) != 0U || chid >= g->fifo.num_channels ||
			    g->fifo.channel[chid].tsgid != tsgid) {
				unit_err(m, "entry %u: not a channel of TSG %u\n", e + k, tsgid);
				return -1;
			}
		}
		out[n++] = tsgid;
		e += 1U + len;
	}
	if ((io.submit[s.rl->id] & 0xffffU) != hw->count) {
		unit_err(m, "submit register length %u, buffer %u entries\n",
			 io.submit[s.rl->id] & 0xffffU, hw->count);
		return -1;
	}
	return (int)n;
}

static void x_cleanup(struct gk20a *g)
{
	u32 i;

	for (i = 0; i < x.n; i++) {
		(void)nvgpu_runlist_update(g, s.rl, x.ch[i], false, true);
		nvgpu_channel_close(x.ch[i]);
		nvgpu_ref_put(&x.tsg[i]->refcount, nvgpu_tsg_release);
	}
	x.n = 0;
}

static int test_many_tsgs(struct unit_module *m, struct gk20a *g, void *args)
{
	static u32 got[NX + NT * 4U], want[NX];
	u32 i, set, il, nw, id;
	int ng;

	for (x.n = 0; x.n < NX; x.n++) {
		struct nvgpu_tsg *t = nvgpu_tsg_open(g, getpid());
		struct nvgpu_channel *ch;

		if (t == NULL) {
			goto fail_setup;
		}
		t->interleave_level = NVGPU_FIFO_RUNLIST_INTERLEAVE_LEVEL_LOW;
		ch = nvgpu_channel_open_new(g, NVGPU_INVALID_RUNLIST_ID, false, getpid(),
					    getpid());
		if (ch == NULL) {
			nvgpu_ref_put(&t->refcount, nvgpu_tsg_release);
			goto fail_setup;
		}
		x.tsg[x.n] = t;
		x.ch[x.n] = ch;
		if (nvgpu_tsg_bind_channel(t, ch) != 0) {
			x.n++;
			goto fail_setup;
		}
		ch->userd_mem = &s.userd;
		ch->userd_iova = 0x80000000ULL + ((u64)ch->chid << 9);
		if (t->runlist != s.rl || nvgpu_runlist_update(g, s.rl, ch, true, true) != 0) {
			x.n++;
			goto fail_setup;
		}
	}
	unit_info(m, "%u more TSGs, ids %u..%u\n", x.n, x.tsg[0]->tsgid, x.tsg[x.n - 1U]->tsgid);
	if (x.tsg[x.n - 1U]->tsgid < 3U * 64U) {
		unit_err(m, "the TSG ids do not reach the fourth bitmap word\n");
		x_cleanup(g);
		unit_return_fail(m, "setup\n");
	}
	if (start(m, g, 0) != 0) {
		x_cleanup(g);
		unit_return_fail(m, "start failed\n");
	}
	for (set = 0; set < 5U; set++) {
		memset(&hk.set, 0, sizeof(hk.set));
		hk.set.generation = set + 100U;
		nw = 0;
		for (id = 0; id < g->fifo.num_channels; id++) {
			if (x_member(id) && x_in(set, id)) {
				hk.set.bits[id / BITS_PER_LONG] |= 1UL << (id % BITS_PER_LONG);
				want[nw++] = id;
			}
		}
		for (il = 0; il < 2U; il++) {
			g->runlist_interleave = il == 0U;
			io_reset();
			if (resubmitted(m, g, "many TSGs", nvgpu_gcaps_resubmit(g)) != 0) {
				goto fail;
			}
			ng = x_decode(m, g, got, ARRAY_SIZE(got));
			if (ng != (int)nw) {
				unit_err(m, "set %u, %s: %d TSGs listed, expected %u\n", set,
					 il ? "flat" : "interleaved", ng, nw);
				goto fail;
			}
			for (i = 0; i < nw; i++) {
				if (got[i] != want[i]) {
					unit_err(m, "set %u: entry %u is TSG %u, expected %u\n", set,
						 i, got[i], want[i]);
					goto fail;
				}
			}
			unit_info(m, "set %u, %s: %u TSGs, as published\n", set,
				  il ? "flat" : "interleaved", nw);
		}
	}
	stop(g);
	x_cleanup(g);
	return UNIT_SUCCESS;
fail:
	stop(g);
	x_cleanup(g);
	unit_return_fail(m, "more than 64 TSGs: wrong runlist\n");
fail_setup:
	x_cleanup(g);
	unit_return_fail(m, "could not set up %u more TSGs (got %u)\n", NX, x.n);
}

/*
 * Railgate: nvgpu_channel_suspend_all_serviceable_ch() (nvgpu_prepare_poweroff) submits an
 * empty runlist; while powered off a resubmit touches nothing; resume's
 * nvgpu_channel_resume_all_serviceable_ch() (nvgpu_finalize_poweron, POWERING_ON) rebuilds
 * through the builder: the filtered runlist. Preemption is stubbed (as NVIDIA's channel unit
 * does for this pair); the runlist reloads are nvgpu's own.
 */
#ifdef GCAPS_R36
static int stub_preempt_tsg(struct gk20a *g, u32 runlist_id, u32 tsgid)
{
	(void)g;
	(void)runlist_id;
	(void)tsgid;
	return 0;
}
#else
static int stub_preempt_tsg(struct gk20a *g, struct nvgpu_tsg *tsg)
{
	(void)g;
	(void)tsg;
	return 0;
}
#endif

static int stub_preempt_channel(struct gk20a *g, struct nvgpu_channel *ch)
{
	(void)g;
	(void)ch;
	return 0;
}

/* The HAL ops the railgate and ga10b scenarios swap: hal_save(), hal_restore(). */
struct hal_saved {
	__typeof__(((struct gk20a *)0)->ops.fifo.preempt_tsg) preempt_tsg;
	__typeof__(((struct gk20a *)0)->ops.fifo.preempt_channel) preempt_channel;
#ifdef GCAPS_R36
	__typeof__(((struct gk20a *)0)->ops.tsg.add_subctx_channel_hw) add_subctx;
#endif
};

static void hal_save(struct gk20a *g, struct hal_saved *h)
{
	h->preempt_tsg = g->ops.fifo.preempt_tsg;
	h->preempt_channel = g->ops.fifo.preempt_channel;
#ifdef GCAPS_R36
	h->add_subctx = g->ops.tsg.add_subctx_channel_hw;
#endif
}

static void hal_restore(struct gk20a *g, const struct hal_saved *h)
{
	g->ops.fifo.preempt_tsg = h->preempt_tsg;
	g->ops.fifo.preempt_channel = h->preempt_channel;
#ifdef GCAPS_R36
	g->ops.tsg.add_subctx_channel_hw = h->add_subctx;
#endif
}

/* R36's channel bind without the subcontext HAL (the fake GPU has no subcontexts); R35: none. */
static void no_subctx(struct gk20a *g)
{
#ifdef GCAPS_R36
	g->ops.tsg.add_subctx_channel_hw = NULL;
#else
	(void)g;
#endif
}

/* Preemption stubbed for suspend/resume (as NVIDIA's channel unit does), no subcontext HAL. */
static void stub_preempts(struct gk20a *g)
{
	g->ops.fifo.preempt_tsg = stub_preempt_tsg;
	g->ops.fifo.preempt_channel = stub_preempt_channel;
	no_subctx(g);
}

/* Railgated (powered off): @fn (gcaps's @what) returns -EAGAIN with no register access. */
static int railgated(struct unit_module *m, struct gk20a *g, const char *what,
		     int (*fn)(struct gk20a *g))
{
	int err;

	nvgpu_set_power_state(g, NVGPU_STATE_POWERED_OFF);
	io_reset();
	err = fn(g);
	if (err != -EAGAIN || io.seq != 0U) {
		unit_err(m, "railgated: %s returned %d, %u register accesses\n", what, err, io.seq);
		return -1;
	}
	return 0;
}

/* A railgate scenario's end: the swapped HAL ops back, then stop(). */
static void railgate_stop(struct gk20a *g, const struct hal_saved *h)
{
	hal_restore(g, h);
	stop(g);
}

/* nvgpu_finalize_poweron()'s channel resume (POWERING_ON) from io_reset(); then powered on. */
static int resume(struct gk20a *g)
{
	int err;

	nvgpu_set_power_state(g, NVGPU_STATE_POWERING_ON);
	io_reset();
	err = nvgpu_channel_resume_all_serviceable_ch(g);
	nvgpu_set_power_state(g, NVGPU_STATE_POWERED_ON);
	return err;
}

static int test_railgate(struct unit_module *m, struct gk20a *g, void *args)
{
	struct hal_saved hal;
	u32 reads;
	int err;

	if (start(m, g, 0xaU) != 0) {
		unit_return_fail(m, "start failed\n");
	}
	hal_save(g, &hal);
	stub_preempts(g);
	if (resubmitted(m, g, "bound {H1 L3}", nvgpu_gcaps_resubmit(g)) != 0 ||
	    check_submitted(m, g, "bound {H1 L3}", 0xaU, true) != 0) {
		goto fail;
	}
	io_reset();
	err = nvgpu_channel_suspend_all_serviceable_ch(g);
	if (err != 0 || io.submits[s.rl->id] == 0U || (io.submit[s.rl->id] & 0xffffU) != 0U ||
	    s.rl->domain->mem_hw->count != 0U) {
		unit_err(m, "suspend: %d, runlist not submitted empty\n", err);
		goto fail;
	}
	if (railgated(m, g, "resubmit", nvgpu_gcaps_resubmit) != 0) {
		goto fail;
	}
	reads = hk.reads;
	err = resume(g);
	if (err != 0 || hk.reads == reads ||
	    check_submitted(m, g, "resumed, {H1 L3}", 0xaU, true) != 0) {
		unit_err(m, "resume: %d, the rebuilt runlist is not the filtered one\n", err);
		goto fail;
	}
	railgate_stop(g, &hal);
	return UNIT_SUCCESS;
fail:
	railgate_stop(g, &hal);
	unit_return_fail(m, "railgate suspend/resume\n");
}

/*
 * ga10b (Orin) submit path: the same fake gv11b GPU, with the runlist HAL's submit and PENDING
 * ops switched to ga10b's (hal/fifo/runlist_fifo_ga10b_fusa.c: base lo/hi and submit at the
 * runlist's runlist_pri_base + 0x80/0x84/0x88, PENDING bit 15 at +0x8C) and every active
 * runlist given a synthesized runlist_pri_base in a register space of our own. A full ga10b
 * device (top_device_info2, RUNLIST/CHRAM spaces, ga10b FIFO init) is not synthesized (see
 * README). resubmit: every runlist submitted through the ga10b registers and none through
 * gv11b's, base lo/hi the buffer's, PENDING polled after the submit, the filtered runlist; a
 * stuck ga10b PENDING gives -ETIMEDOUT with the power reference dropped, and clears.
 */
static int test_ga10b_submit(struct unit_module *m, struct gk20a *g, void *args)
{
	struct nvgpu_fifo *f = &g->fifo;
	__typeof__(g->ops.runlist.hw_submit) hw_submit = g->ops.runlist.hw_submit;
#ifdef GCAPS_R36
	__typeof__(g->ops.runlist.check_pending) pending = g->ops.runlist.check_pending;
#else
	__typeof__(g->ops.runlist.wait_pending) pending = g->ops.runlist.wait_pending;
#endif
	u32 pri[MAX_RL], i, id = s.rl->id;
	struct pw p0;
	u64 iova;
	int err, ret = UNIT_FAIL;

	if (nvgpu_posix_io_add_reg_space(g, GA_RL_BASE, MAX_RL * GA_RL_STRIDE) != 0) {
		unit_return_fail(m, "cannot add the ga10b runlist register space\n");
	}
	if (start(m, g, 0xdU) != 0) {
		nvgpu_posix_io_delete_reg_space(g, GA_RL_BASE);
		unit_return_fail(m, "start failed\n");
	}
	for (i = 0; i < f->num_runlists; i++) {
		struct nvgpu_runlist *rl = &f->active_runlists[i];

		pri[i] = rl->runlist_pri_base;
		rl->runlist_pri_base = GA_RL_BASE + rl->id * GA_RL_STRIDE;
	}
	g->ops.runlist.hw_submit = ga10b_runlist_hw_submit;
#ifdef GCAPS_R36
	g->ops.runlist.check_pending = ga10b_runlist_check_pending;
#else
	g->ops.runlist.wait_pending = ga10b_runlist_wait_pending;
#endif

	io_reset();
	err = nvgpu_gcaps_resubmit(g);
	iova = nvgpu_mem_get_addr(g, &s.rl->domain->mem_hw->mem);
	if (err != 0 || io.legacy != 0U) {
		unit_err(m, "ga10b: resubmit %d, %u writes to gv11b's submit registers\n", err,
			 io.legacy);
		goto out;
	}
	for (i = 0; i < f->num_runlists; i++) {
		if (io.submits[f->active_runlists[i].id] == 0U) {
			unit_err(m, "ga10b: runlist %u not submitted\n", f->active_runlists[i].id);
			goto out;
		}
	}
	if ((io.base & ~0x3ffU) != ((((u32)iova) >> 10) << 10) || io.base_hi != (u32)(iova >> 32) ||
	    io.polls[id] == 0U || io.poll_seq[id] < io.submit_seq[id]) {
		unit_err(m, "ga10b: base lo 0x%08x hi 0x%08x for 0x%llx, %u PENDING polls\n",
			 io.base, io.base_hi, (unsigned long long)iova, io.polls[id]);
		goto out;
	}
	if (check_submitted(m, g, "ga10b submit, {L0 M2 L3}", 0xdU, true) != 0) {
		goto out;
	}

	io.stuck = true;
	io_reset();
	if (power_counts(m, &p0) != 0) {
		goto out;
	}
	err = nvgpu_gcaps_resubmit(g);
	io.stuck = false;
	if (err != -ETIMEDOUT || power_delta(m, "ga10b stuck PENDING", &p0, 1, 1, 1) != 0 ||
	    io.polls[id] == 0U) {
		unit_err(m, "ga10b stuck PENDING: returned %d, %u polls\n", err, io.polls[id]);
		goto out;
	}
	publish(false, 0x6U);
	io_reset();
	if (nvgpu_gcaps_resubmit(g) != 0 ||
	    check_submitted(m, g, "ga10b, PENDING cleared, {H1 M2}", 0x6U, true) != 0) {
		goto out;
	}
	ret = UNIT_SUCCESS;
out:
	g->ops.runlist.hw_submit = hw_submit;
#ifdef GCAPS_R36
	g->ops.runlist.check_pending = pending;
#else
	g->ops.runlist.wait_pending = pending;
#endif
	for (i = 0; i < f->num_runlists; i++) {
		f->active_runlists[i].runlist_pri_base = pri[i];
	}
	stop(g);
	nvgpu_posix_io_delete_reg_space(g, GA_RL_BASE);
	if (ret != UNIT_SUCCESS) {
		unit_return_fail(m, "ga10b submit path\n");
	}
	return ret;
}

#ifdef GCAPS_R36
/*
 * R36 with a user (GSP) NVS domain: the runlists are GSP's, gcaps's resubmit does nothing (no
 * build, no register access) and returns 0. Without it, resubmit works again.
 */
static int test_resubmit_user_domain(struct unit_module *m, struct gk20a *g, void *args)
{
	struct nvgpu_nvs_domain *dom = NULL;
	struct nvgpu_runlist_mem *hw;
	u32 reads;
	int err;

	if (start(m, g, 0x1U) != 0) {
		unit_return_fail(m, "start failed\n");
	}
	err = nvgpu_nvs_add_domain(g, "gcaps-user", 100000ULL, 0ULL, &dom);
	if (err != 0 || dom == NULL) {
		stop(g);
		unit_return_fail(m, "adding a user domain failed: %d\n", err);
	}
	io_reset();
	reads = hk.reads;
	hw = s.rl->shadow_rl_domain->mem_hw;
	err = nvgpu_gcaps_resubmit(g);
	if (err != 0 || io.seq != 0U || hk.reads != reads || s.rl->shadow_rl_domain->mem_hw != hw) {
		/* a build swaps the shadow domain's buffers even when it reads no set */
		unit_err(m, "user domain: resubmit returned %d, %u register accesses, %u set reads, "
			 "buffers %s\n", err, io.seq, hk.reads - reads,
			 s.rl->shadow_rl_domain->mem_hw != hw ? "swapped (a build)" : "kept");
		(void)nvgpu_nvs_del_domain(g, dom->id);
		stop(g);
		unit_return_fail(m, "resubmit acted while GSP owns the runlists\n");
	}
	err = nvgpu_nvs_del_domain(g, dom->id);
	io_reset();
	if (err != 0 || resubmitted(m, g, "user domain removed", nvgpu_gcaps_resubmit(g)) != 0 ||
	    check_submitted(m, g, "user domain removed", 0x1U, true) != 0) {
		stop(g);
		unit_return_fail(m, "resubmit after the user domain was removed\n");
	}
	stop(g);
	return UNIT_SUCCESS;
}
#endif

/*
 * A runlist update that changes nothing, while bound: a channel added again (nvgpu makes one
 * when a channel already removed from the runlist is unbound by its free). R36's
 * nvgpu_runlist_update_locked() swaps the double buffer and submits even then; what it submits
 * must be built from the current eligible set (patch 0008), not the build before last, filtered
 * under an older set. R35 returns before the swap and submits nothing: the GPU keeps the last
 * build (and gcaps's resubmit after a publish builds the new set).
 */
static int test_noop_update(struct unit_module *m, struct gk20a *g, void *args)
{
	static const u32 now[2] = { 0xcU, 0x3U };	/* {M2 L3}, then {L0 H1} */
#ifndef GCAPS_R36
	struct nvgpu_runlist_mem *hw;
#endif
	u32 k, submits;
	char label[64];
	int err;

	if (start(m, g, 0x1U) != 0) {
		unit_return_fail(m, "start failed\n");
	}
	/* two builds, so that both buffers hold a filtered runlist: {L0}, then {H1} */
	if (check_runlist(m, g, "no-op: built under {L0}", 0x1U, true) != 0) {
		goto fail;
	}
	publish(false, 0x2U);
	if (check_runlist(m, g, "no-op: built under {H1}", 0x2U, true) != 0) {
		goto fail;
	}
	for (k = 0; k < 2U; k++) {
		publish(false, now[k]);
#ifndef GCAPS_R36
		hw = s.rl->domain->mem_hw;
#endif
		submits = io.submits[s.rl->id];
		snprintf(label, sizeof(label), "no-op update %u", k + 1U);
		err = nvgpu_runlist_update(g, s.rl, s.ch[0][0], true, true);
		if (err != 0) {
			unit_err(m, "%s: nvgpu_runlist_update returned %d\n", label, err);
			goto fail;
		}
#ifdef GCAPS_R36
		if (io.submits[s.rl->id] == submits) {
			unit_err(m, "%s: nothing submitted\n", label);
			goto fail;
		}
		if (check_submitted(m, g, label, now[k], true) != 0) {
			goto fail;
		}
#else
		if (io.submits[s.rl->id] != submits || s.rl->domain->mem_hw != hw) {
			unit_err(m, "%s: submitted or swapped the buffers\n", label);
			goto fail;
		}
		if (check_submitted(m, g, label, 0x2U, true) != 0) {
			goto fail;
		}
#endif
	}
	stop(g);
	return UNIT_SUCCESS;
fail:
	stop(g);
	unit_return_fail(m, "a runlist update that changed nothing submitted a stale runlist\n");
}

/* ---- patch 0009: gate (gcaps's mechanism GATE: channel enables, the runlist stays stock) ---- */

/* Publish the set @mask under GATE. */
static void publish_gate(u32 mask)
{
	publish(false, mask);
	hk.set.gate = true;
}

/*
 * The enable state of the scenario's channels as the emulated CCSR holds it: bit i of *on set
 * if every channel of TSG i is enabled; -1 (and a message) if a TSG's channels disagree.
 */
static int enabled_tsgs(struct unit_module *m, struct gk20a *g, const char *label, u32 *on)
{
	u32 i, j;

	*on = 0U;
	for (i = 0; i < NT; i++) {
		u32 n = 0;

		for (j = 0; j < nch[i]; j++) {
			u32 chid = s.ch[i][j]->chid;

			n += chram.on ? chram.ch[chid] : ccsr_channel_enable_v(
				nvgpu_posix_io_readl_reg_space(g, ccsr_channel_r(chid)));
		}
		if (n != 0U && n != nch[i]) {
			unit_err(m, "%s: %s has %u of %u channels enabled\n", label, names[i], n,
				 nch[i]);
			return -1;
		}
		if (n != 0U) {
			*on |= 1U << i;
		}
	}
	return 0;
}

static void mask_str(u32 mask, char *buf, size_t sz)
{
	u32 i;

	buf[0] = '\0';
	for (i = 0; i < NT; i++) {
		if (mask & (1U << i)) {
			snprintf(buf + strlen(buf), sz - strlen(buf), "%s%s", buf[0] ? " " : "",
				 names[i]);
		}
	}
}

/* Exactly the TSGs in @want have their channels enabled. */
static int check_enabled(struct unit_module *m, struct gk20a *g, const char *label, u32 want)
{
	char a[64], b[64];
	u32 on;

	if (enabled_tsgs(m, g, label, &on) != 0) {
		return -1;
	}
	mask_str(on, a, sizeof(a));
	mask_str(want, b, sizeof(b));
	if (on != want) {
		unit_err(m, "%s: enabled {%s}, expected {%s}\n", label, a, b);
		return -1;
	}
	unit_info(m, "%s: enabled {%s}\n", label, a);
	return 0;
}

/* Nothing on the runlist registers: no submit, no base, no PENDING poll (both HALs'). */
static int no_runlist_io(struct unit_module *m, const char *label)
{
	u32 id;

	for (id = 0; id < MAX_RL; id++) {
		if (io.submits[id] != 0U || io.polls[id] != 0U) {
			unit_err(m, "%s: runlist %u: %u submits, %u PENDING polls (expected none)\n",
				 label, id, io.submits[id], io.polls[id]);
			return -1;
		}
	}
	if (io.bases != 0U) {
		unit_err(m, "%s: runlist base written\n", label);
		return -1;
	}
	return 0;
}

/*
 * Over the channels of the TSGs in @mask, the latest (@latest) or earliest position of their
 * last disable write (@enable false) or of their first enable write since io_reset().
 */
static u32 write_pos(u32 mask, bool enable, bool latest)
{
	u32 i, j, r = latest ? 0U : ~0U;

	for (i = 0; i < NT; i++) {
		for (j = 0; (mask & (1U << i)) && j < nch[i]; j++) {
			u32 q = enable ? io.en_first[s.ch[i][j]->chid] :
				io.dis_seq[s.ch[i][j]->chid];

			r = latest ? (q > r ? q : r) : (q < r ? q : r);
		}
	}
	return r;
}

/*
 * Each gate scenario: the register recorder (emulating CCSR enables) installed, the GPU on,
 * the scenario's channels disabled and the engines idle; the user enables every TSG while
 * nothing is bound (stock: all enabled); then bound with @mask published under GATE.
 */
static int gate_start(struct unit_module *m, struct gk20a *g, u32 mask)
{
	u32 i, j;

	if (start(m, g, 0U) != 0) {
		return -1;
	}
	nvgpu_gcaps_unbind(g);
	for (i = 0; i < NT; i++) {
		for (j = 0; j < nch[i]; j++) {
			nvgpu_posix_io_writel_reg_space(g, ccsr_channel_r(s.ch[i][j]->chid), 0U);
		}
	}
	for (i = 0; i < NENG; i++) {
		nvgpu_posix_io_writel_reg_space(g, fifo_engine_status_r(i), 0U);
	}
	for (i = 0; i < NT; i++) {
		g->ops.tsg.enable(s.tsg[i]);
	}
	if (check_enabled(m, g, "unbound, user enabled all", 0xfU) != 0) {
		return -1;
	}
	publish_gate(mask);
	if (nvgpu_gcaps_bind(g, &hook) != 0) {
		unit_err(m, "bind failed\n");
		return -1;
	}
	hk.nev = 0;
	io_reset();
	return 0;
}

/* Engine @e runs TSG @t: context valid, id @t of type TSG, engine busy (gv11b's fields). */
static void engine_runs(struct gk20a *g, u32 e, u32 t)
{
	nvgpu_posix_io_writel_reg_space(g, fifo_engine_status_r(e),
		(t & 0xfffU) | (fifo_engine_status_id_type_tsgid_v() << 12U) |
		(fifo_engine_status_ctx_status_valid_v() << 13U) |
		(fifo_engine_status_engine_busy_v() << 31U));
}

/*
 * nvgpu_gcaps_gate() returns HANDOVER and leaves exactly the TSGs in @want enabled; with
 * @quiet, no runlist register was touched since the last io_reset().
 */
static int gate_handover(struct unit_module *m, struct gk20a *g, const char *label, u32 want,
			 bool quiet)
{
	int err = nvgpu_gcaps_gate(g);

	if (err != NVGPU_GCAPS_GATE_HANDOVER) {
		unit_err(m, "%s: gate returned %d, expected HANDOVER\n", label, err);
		return -1;
	}
	if (check_enabled(m, g, label, want) != 0 ||
	    (quiet && no_runlist_io(m, label) != 0)) {
		return -1;
	}
	return 0;
}

/* From io_reset(), @mask published under GATE and gated: gate_handover() with @want. */
static int gate_to(struct unit_module *m, struct gk20a *g, const char *label, u32 mask, u32 want,
		   bool quiet)
{
	io_reset();
	publish_gate(mask);
	return gate_handover(m, g, label, want, quiet);
}

/*
 * gate_start() and the first gate: HANDOVER with the TSGs of @mask enabled ("gate {...}"), no
 * runlist register touched, then io_reset().
 */
static int gate_started(struct unit_module *m, struct gk20a *g, u32 mask)
{
	char set[64], label[80];

	mask_str(mask, set, sizeof(set));
	snprintf(label, sizeof(label), "gate {%s}", set);
	if (gate_start(m, g, mask) != 0 || gate_handover(m, g, label, mask, true) != 0) {
		return -1;
	}
	io_reset();
	return 0;
}

/*
 * Bound under GATE with {L0 M2}: nvgpu_gcaps_gate() disables H1's and L3's channels and leaves
 * L0's and M2's enabled (HANDOVER: no engine busy), under one gk20a_busy/gk20a_idle pair, with
 * no runlist register touched; every build still lists all four TSGs, as stock (the builder
 * reads the set, in both orders), and the submitted runlist is the stock one.
 */
static int test_gate_bind(struct unit_module *m, struct gk20a *g, void *args)
{
	struct pw p0;
	u32 reads;

	if (gate_start(m, g, 0x5U) != 0 || power_counts(m, &p0) != 0 ||
	    gate_handover(m, g, "gate {L0 M2}", 0x5U, true) != 0 ||
	    power_delta(m, "gate {L0 M2}", &p0, 1, 1, 1) != 0) {
		goto fail;
	}
	if (io.preempts != 0U) {
		unit_err(m, "gate {L0 M2}: preempted with every engine idle\n");
		goto fail;
	}
	reads = hk.reads;
	if (check_runlist(m, g, "gate {L0 M2}: runlist, interleaved", 0xfU, true) != 0 ||
	    check_runlist(m, g, "gate {L0 M2}: runlist, flat", 0xfU, false) != 0 ||
	    hk.reads == reads) {
		unit_err(m, "under GATE the runlist is not stock\n");
		goto fail;
	}
	g->runlist_interleave = true;
	if (check_enabled(m, g, "gate {L0 M2}, after the reloads", 0x5U) != 0) {
		goto fail;
	}
	stop(g);
	return UNIT_SUCCESS;
fail:
	stop(g);
	unit_return_fail(m, "gate at bind\n");
}

/*
 * A begin that takes the GPU from a running TSG: bound under GATE with {H1}, the GR engine
 * busy with H1; publish {L0} and gate: H1's channels disabled, then H1 preempted (fifo_preempt
 * written with H1's id and type TSG after the disables), its completion polled (engine status
 * read after the preempt), and only then L0's channels enabled; PREEMPTED, no runlist register
 * touched. A TSG that stays eligible is not preempted: {L0 M2} with the engine busy with L0 is
 * a HANDOVER.
 */
static int test_gate_preempt(struct unit_module *m, struct gk20a *g, void *args)
{
	u32 h1 = s.tsg[1]->tsgid;
	int err;

	if (gate_started(m, g, 0x2U) != 0) {
		goto fail;
	}
	engine_runs(g, 0U, h1);
	io_reset();
	publish_gate(0x1U);
	err = nvgpu_gcaps_gate(g);
	if (err != NVGPU_GCAPS_GATE_PREEMPTED) {
		unit_err(m, "gate {L0} with H1 running returned %d, expected PREEMPTED\n", err);
		goto fail;
	}
	if (io.preempts != 1U ||
	    (io.preempt & 0xfffU) != h1 ||
	    (io.preempt & fifo_preempt_type_tsg_f()) == 0U) {
		unit_err(m, "preempt: %u writes, last 0x%08x; expected one of TSG %u\n",
			 io.preempts, io.preempt, h1);
		goto fail;
	}
	if (write_pos(0x2U, false, true) >= io.preempt_seq) {
		unit_err(m, "H1 preempted before its channels were disabled\n");
		goto fail;
	}
	if (io.eng_read_seq <= io.preempt_seq) {
		unit_err(m, "the preempt's completion was not polled\n");
		goto fail;
	}
	if (write_pos(0x1U, true, false) <= io.eng_read_seq) {
		unit_err(m, "L0 enabled before H1's preempt completed\n");
		goto fail;
	}
	if (check_enabled(m, g, "gate {L0}, H1 preempted", 0x1U) != 0 ||
	    no_runlist_io(m, "gate {L0}, H1 preempted") != 0) {
		goto fail;
	}
	/* the engine busy with a TSG that stays eligible: no preempt */
	engine_runs(g, 0U, s.tsg[0]->tsgid);
	if (gate_to(m, g, "gate {L0 M2}, L0 running", 0x5U, 0x5U, true) != 0) {
		goto fail;
	}
	if (io.preempts != 0U) {
		unit_err(m, "gate {L0 M2} with L0 running: %u preempts\n", io.preempts);
		goto fail;
	}
	nvgpu_posix_io_writel_reg_space(g, fifo_engine_status_r(0U), 0U);
	stop(g);
	return UNIT_SUCCESS;
fail:
	nvgpu_posix_io_writel_reg_space(g, fifo_engine_status_r(0U), 0U);
	stop(g);
	unit_return_fail(m, "gate preempt\n");
}

/*
 * An end with every engine idle: bound under GATE with {H1}; publish {M2} and gate: H1's
 * channels disabled and M2's enabled after them, HANDOVER, no preempt, no runlist submit, base
 * or PENDING poll, and each engine's status read once (the check, no poll).
 */
static int test_gate_handover(struct unit_module *m, struct gk20a *g, void *args)
{
	if (gate_started(m, g, 0x2U) != 0 ||
	    gate_to(m, g, "end: gate {M2}", 0x4U, 0x4U, true) != 0) {
		goto fail;
	}
	if (io.preempts != 0U || io.eng_reads != g->fifo.num_engines) {
		unit_err(m, "end: %u preempts, %u engine status reads (expected 0, %u)\n",
			 io.preempts, io.eng_reads, g->fifo.num_engines);
		goto fail;
	}
	if (write_pos(0x4U, true, false) <= write_pos(0x2U, false, true)) {
		unit_err(m, "end: M2 enabled before H1 was disabled\n");
		goto fail;
	}
	stop(g);
	return UNIT_SUCCESS;
fail:
	stop(g);
	unit_return_fail(m, "gate handover\n");
}

/*
 * The user's enable and disable under GATE (TSG enable/disable ops, what the TSG ioctls call):
 * bound with {L0}, gated. Enabling H1 (not eligible) writes no enable and leaves it disabled;
 * disabling M2 (not eligible) is written. Then {L0 H1 M2} and gate: H1 enabled (its user wants
 * it), M2 stays disabled (its user disabled it); enabling M2 now is written.
 */
static int test_gate_user_enable(struct unit_module *m, struct gk20a *g, void *args)
{
	u32 en;

	if (gate_started(m, g, 0x1U) != 0) {
		goto fail;
	}
	g->ops.tsg.enable(s.tsg[1]);
	if (io.enables != 0U || check_enabled(m, g, "user enabled H1, gated", 0x1U) != 0) {
		unit_err(m, "a user enable of a gated TSG wrote %u enables\n", io.enables);
		goto fail;
	}
	g->ops.tsg.disable(s.tsg[2]);
	if (gate_to(m, g, "gate {L0 H1 M2}, M2 disabled by its user", 0x7U, 0x3U, false) != 0) {
		goto fail;
	}
	en = io.enables;
	g->ops.tsg.enable(s.tsg[2]);
	if (io.enables == en || check_enabled(m, g, "user enabled M2, eligible", 0x7U) != 0) {
		goto fail;
	}
	stop(g);
	return UNIT_SUCCESS;
fail:
	stop(g);
	unit_return_fail(m, "user enable under gate\n");
}

/*
 * Railgate under GATE, {L0 H1}: suspend disables every channel (nvgpu's own suspend), gate on
 * the powered-off GPU is -EAGAIN with no register access; resume binds every channel again
 * (g->ops.channel.bind, the HAL's own enable write): only L0's and H1's channels come back
 * enabled, and the resumed runlist is the stock one (all four). Preemption is stubbed as in
 * railgate.
 */
static int test_gate_railgate(struct unit_module *m, struct gk20a *g, void *args)
{
	struct hal_saved hal;
	int err;

	hal_save(g, &hal);
	if (gate_started(m, g, 0x3U) != 0) {
		goto fail;
	}
	stub_preempts(g);
	err = nvgpu_channel_suspend_all_serviceable_ch(g);
	if (err != 0 || check_enabled(m, g, "suspended", 0U) != 0) {
		unit_err(m, "suspend: %d\n", err);
		goto fail;
	}
	if (railgated(m, g, "gate", nvgpu_gcaps_gate) != 0) {
		goto fail;
	}
	err = resume(g);
	if (err != 0 || check_enabled(m, g, "resumed, gate {L0 H1}", 0x3U) != 0 ||
	    check_submitted(m, g, "resumed, gate {L0 H1}: runlist", 0xfU, true) != 0) {
		unit_err(m, "resume: %d\n", err);
		goto fail;
	}
	railgate_stop(g, &hal);
	return UNIT_SUCCESS;
fail:
	railgate_stop(g, &hal);
	unit_return_fail(m, "railgate under gate\n");
}

/*
 * Recovery under GATE, {L0 H1}: what an unknown-id recovery does, with nvgpu's functions: the
 * TSG it aborts disabled (nvgpu_tsg_abort() disables it through g->ops.tsg.disable, done here
 * alone) and the runlist emptied (nvgpu_runlist_update_locked(NULL, false), as in recovery);
 * then recovered() (rc.c's nvgpu_gcaps_recovered()): once. gcaps's next gate, {L0 H1 M2},
 * rebuilds and submits the runlist first (stock: all four, PENDING polled) and enables M2,
 * keeps L0 and leaves the aborted H1 disabled, as stock nvgpu does; the gate after it touches
 * no runlist register.
 */
static int test_gate_recovery(struct unit_module *m, struct gk20a *g, void *args)
{
	if (gate_started(m, g, 0x3U) != 0) {
		goto fail;
	}
	hk.recovered = 0;
	g->ops.tsg.disable(s.tsg[1]);
	if (gcaps_clear_runlist(g, s.rl) != 0 || s.rl->domain->mem_hw->count != 0U) {
		unit_err(m, "the recovery's runlist clear failed\n");
		goto fail;
	}
	nvgpu_gcaps_recovered(g);
	if (hk.recovered != 1U) {
		unit_err(m, "recovered() called %u times\n", hk.recovered);
		goto fail;
	}
	if (gate_to(m, g, "after the recovery of H1, gate {L0 H1 M2}", 0x7U, 0x5U, false) != 0 ||
	    resubmitted(m, g, "first gate after the recovery", 0) != 0 ||
	    check_submitted(m, g, "first gate after the recovery: runlist", 0xfU, true) != 0) {
		goto fail;
	}
	io_reset();
	if (gate_handover(m, g, "second gate after the recovery", 0x5U, true) != 0) {
		goto fail;
	}
	g->ops.tsg.enable(s.tsg[1]);	/* back to the scenario's state */
	stop(g);
	return UNIT_SUCCESS;
fail:
	stop(g);
	unit_return_fail(m, "recovery under gate\n");
}

/*
 * Orin's channel enable HAL under GATE: the channel enable/disable ops switched to ga10b's
 * (hal/fifo/channel_ga10b_fusa.c: one write of the channel's CHRAM entry at the runlist's
 * chram_bar0_offset, update code enable_channel or disable_channel) and every active runlist
 * given a synthesized CHRAM base. The user enables all four unbound (stock: all enabled in
 * CHRAM); bound with {L0 M2}: gate gives L0 M2 enabled, H1 L3 disabled, HANDOVER, no runlist
 * register and no CCSR register written; {H1}: only H1, and ga10b's channel bind
 * (ga10b_channel_bind, as setup_bind and resume call it; R35 writes CHRAM itself, R36 through
 * nvgpu_channel_enable) of one of L0's channels leaves it disabled; unbind: all four. Not a
 * ga10b device: FIFO init, engines and preempt stay gv11b's.
 */
static int test_gate_ga10b(struct unit_module *m, struct gk20a *g, void *args)
{
	struct nvgpu_fifo *f = &g->fifo;
	__typeof__(g->ops.channel.enable) enable = g->ops.channel.enable;
	__typeof__(g->ops.channel.disable) disable = g->ops.channel.disable;
	struct hal_saved hal;
	u32 base[MAX_RL], i;
	int ret = UNIT_FAIL;

	if (nvgpu_posix_io_add_reg_space(g, GA_CHRAM_BASE, MAX_RL * GA_CHRAM_STRIDE) != 0) {
		unit_return_fail(m, "cannot add the ga10b CHRAM register space\n");
	}
	for (i = 0; i < f->num_runlists; i++) {
		struct nvgpu_runlist *rl = &f->active_runlists[i];

		base[i] = rl->chram_bar0_offset;
		rl->chram_bar0_offset = GA_CHRAM_BASE + rl->id * GA_CHRAM_STRIDE;
	}
	g->ops.channel.enable = ga10b_channel_enable;
	g->ops.channel.disable = ga10b_channel_disable;
	memset(&chram, 0, sizeof(chram));
	chram.on = true;
	if (gate_start(m, g, 0x5U) != 0 ||
	    gate_handover(m, g, "ga10b: gate {L0 M2}", 0x5U, true) != 0) {
		goto out;
	}
	if (io.ccsr != 0U || io.disables == 0U) {
		unit_err(m, "ga10b: %u CCSR writes, %u CHRAM disables\n", io.ccsr, io.disables);
		goto out;
	}
	if (gate_to(m, g, "ga10b: gate {H1}", 0x2U, 0x2U, true) != 0 || io.ccsr != 0U) {
		goto out;
	}
	hal_save(g, &hal);
	no_subctx(g);
	ga10b_channel_bind(s.ch[0][0]);
	hal_restore(g, &hal);
	if (check_enabled(m, g, "ga10b: gate {H1}, an L0 channel bound", 0x2U) != 0) {
		goto out;
	}
	nvgpu_gcaps_unbind(g);
	if (check_enabled(m, g, "ga10b: unbound from gate", 0xfU) != 0) {
		goto out;
	}
	ret = UNIT_SUCCESS;
out:
	stop(g);
	g->ops.channel.enable = enable;
	g->ops.channel.disable = disable;
	chram.on = false;
	for (i = 0; i < f->num_runlists; i++) {
		f->active_runlists[i].chram_bar0_offset = base[i];
	}
	nvgpu_posix_io_delete_reg_space(g, GA_CHRAM_BASE);
	if (ret != UNIT_SUCCESS) {
		unit_return_fail(m, "ga10b channel enables under gate\n");
	}
	return ret;
}

/*
 * Unbind under GATE (gcaps's ops->detach and the driver's unregister both end here), {L0},
 * gated, L3 disabled by its user: every channel back to what nvgpu last asked for (L0 H1 M2
 * enabled, L3 not), no runlist register touched, one busy/idle pair; afterwards an enable is
 * written as stock.
 */
static int test_gate_unbind(struct unit_module *m, struct gk20a *g, void *args)
{
	struct pw p0;

	if (gate_started(m, g, 0x1U) != 0) {
		goto fail;
	}
	g->ops.tsg.disable(s.tsg[3]);
	io_reset();
	if (power_counts(m, &p0) != 0) {
		goto fail;
	}
	nvgpu_gcaps_unbind(g);
	if (check_enabled(m, g, "unbound from gate", 0x7U) != 0 ||
	    no_runlist_io(m, "unbound from gate") != 0 ||
	    power_delta(m, "unbound from gate", &p0, 1, 1, 1) != 0) {
		goto fail;
	}
	g->ops.tsg.enable(s.tsg[3]);
	if (check_enabled(m, g, "unbound, user enabled L3", 0xfU) != 0) {
		goto fail;
	}
	stop(g);
	return UNIT_SUCCESS;
fail:
	stop(g);
	unit_return_fail(m, "unbind under gate\n");
}

#ifdef CONFIG_NVGPU_CHANNEL_TSG_SCHEDULING
/*
 * Full profile: nvgpu's TSG setters (the TSG ioctls' and the sched device's) during a segment.
 * A timeslice change reaches gcaps as a tsg_update carrying the new timeslice (patch 0005), and
 * the setter's own reload is filtered: only the eligible TSGs, the changed TSG's header with
 * the new timeslice, the others' blocks as before. An interleave change reorders the eligible
 * TSGs as nvgpu's builder does, the filter kept. Both restored at the end.
 */
static int test_setters(struct unit_module *m, struct gk20a *g, void *args)
{
	struct nvgpu_tsg *t = s.tsg[0];		/* L0 */
	u32 ts0 = t->timeslice_us, hdr0 = s.ref[0][0];
	struct rl_view v;
	int order[2U * MAX_ENTRIES], n, err;

	/* The limits Linux's driver_common.c sets (sysfs-tunable there); the host leaves them 0. */
	g->tsg_timeslice_min_us = 1000U;
	g->tsg_timeslice_max_us = 50000U;
	if (start(m, g, 0x3U) != 0) {		/* {L0 H1} */
		unit_return_fail(m, "start failed\n");
	}
	err = nvgpu_tsg_set_timeslice(t, 2 * ts0);
	if (err != 0) {
		unit_err(m, "nvgpu_tsg_set_timeslice: %d\n", err);
		goto fail;
	}
	if (hk.nev != 1U || hk.ev[0].kind != 'U' || hk.ev[0].tsgid != t->tsgid ||
	    hk.ev[0].timeslice_us != 2 * ts0 || hk.ev[0].num_channels != nch[0]) {
		unit_err(m, "timeslice %u us: %u events, the first %c tsgid %u timeslice %u\n",
			 2 * ts0, hk.nev, hk.nev ? hk.ev[0].kind : '-',
			 hk.nev ? hk.ev[0].tsgid : 0U, hk.nev ? hk.ev[0].timeslice_us : 0U);
		goto fail;
	}
	/* The setter's reload: {L0 H1}, L0's header no longer the stock block's, H1's unchanged. */
	s.have_ref = false;
	n = snapshot(m, g, &v) == 0 ? decode(m, g, &v, order) : -1;
	s.have_ref = true;
	if (n != 2 || !((order[0] == 1 && order[1] == 0) || (order[0] == 0 && order[1] == 1))) {
		unit_err(m, "after the timeslice setter: %d TSGs listed, expected {L0 H1}\n", n);
		goto fail;
	} else {
		u32 e0 = order[0] == 0 ? 0U : 1U + nch[1];
		u32 e1 = order[0] == 1 ? 0U : 1U + nch[0];

		if (v.w[e0][0] == hdr0 ||
		    memcmp(v.w[e1], s.ref[1], (size_t)(1U + nch[1]) * 16U) != 0) {
			unit_err(m, "after the timeslice setter: L0 header 0x%08x (stock 0x%08x), H1 block %s\n",
				 v.w[e0][0], hdr0,
				 memcmp(v.w[e1], s.ref[1], (size_t)(1U + nch[1]) * 16U) ? "changed" : "kept");
			goto fail;
		}
	}
	if (nvgpu_tsg_set_timeslice(t, ts0) != 0 ||
	    check_submitted(m, g, "timeslice restored, {L0 H1}", 0x3U, true) != 0) {
		goto fail;
	}
	/* L0 to HIGH: with {L0 H1 M2} the interleaved order becomes H1 L0 M2 H1 L0 (tsgid order). */
	if (nvgpu_tsg_set_interleave(t, NVGPU_FIFO_RUNLIST_INTERLEAVE_LEVEL_HIGH) != 0) {
		unit_err(m, "nvgpu_tsg_set_interleave failed\n");
		goto fail;
	}
	levels[0] = NVGPU_FIFO_RUNLIST_INTERLEAVE_LEVEL_HIGH;
	publish(false, 0x7U);
	if (nvgpu_gcaps_resubmit(g) != 0 ||
	    check_submitted(m, g, "L0 HIGH, {L0 H1 M2}", 0x7U, true) != 0) {
		goto fail_level;
	}
	levels[0] = NVGPU_FIFO_RUNLIST_INTERLEAVE_LEVEL_LOW;
	if (nvgpu_tsg_set_interleave(t, levels[0]) != 0 ||
	    check_submitted(m, g, "L0 LOW again (the setter's reload), {L0 H1 M2}", 0x7U, true) != 0) {
		goto fail;
	}
	stop(g);
	return UNIT_SUCCESS;
fail_level:
	levels[0] = NVGPU_FIFO_RUNLIST_INTERLEAVE_LEVEL_LOW;
	(void)nvgpu_tsg_set_interleave(t, levels[0]);
fail:
	(void)nvgpu_tsg_set_timeslice(t, ts0);
	stop(g);
	unit_return_fail(m, "setters scenario failed\n");
}
#endif /* CONFIG_NVGPU_CHANNEL_TSG_SCHEDULING */

#ifdef CONFIG_NVGPU_RECOVERY
/*
 * Full profile: nvgpu's own recovery entry points (common/rc/rc.c) deliver recovered() after
 * g->ops.fifo.recover(). The HAL's recover is replaced by what gv11b_fifo_recover does to the
 * runlist (clear it under every runlist lock), so that the fake GPU's engines are not reset
 * and the scenario's TSGs not aborted.
 */
static u32 stub_recovers;

static void stub_recover(struct gk20a *g, u32 act_eng_bitmask, u32 id, unsigned int id_type,
			 unsigned int rc_type, struct mmu_fault_info *mmfault)
{
	(void)act_eng_bitmask;
	(void)id;
	(void)id_type;
	(void)rc_type;
	(void)mmfault;
	(void)gcaps_clear_runlist(g, s.rl);
	stub_recovers++;
}

static int test_recovery_rc(struct unit_module *m, struct gk20a *g, void *args)
{
	void (*orig)(struct gk20a *, u32, u32, unsigned int, unsigned int,
		     struct mmu_fault_info *) = g->ops.fifo.recover;
	void (*orig_flush)(struct gk20a *) = g->ops.ltc.flush;

	if (start(m, g, 0x3U) != 0) {
		unit_return_fail(m, "start failed\n");
	}
	g->ops.fifo.recover = stub_recover;
	g->ops.ltc.flush = NULL;	/* the fake GPU has no L2 registers */
	stub_recovers = 0;
	nvgpu_rc_fifo_recover(g, 0U, INVAL_ID, false, false, false, RC_TYPE_FORCE_RESET);
	if (stub_recovers != 1U || hk.recovered != 1U || s.rl->domain->mem_hw->count != 0U) {
		unit_err(m, "nvgpu_rc_fifo_recover: recover ran %u times, recovered() %u, %u entries\n",
			 stub_recovers, hk.recovered, s.rl->domain->mem_hw->count);
		goto fail;
	}
	io_reset();
	if (resubmitted(m, g, "gcaps's resubmit after nvgpu_rc_fifo_recover",
			nvgpu_gcaps_resubmit(g)) != 0 ||
	    check_submitted(m, g, "gcaps's resubmit after nvgpu_rc_fifo_recover", 0x3U, true) != 0) {
		goto fail;
	}
	(void)nvgpu_rc_mmu_fault(g, 0U, INVAL_ID, ID_TYPE_UNKNOWN, RC_TYPE_MMU_FAULT, NULL);
	if (stub_recovers != 2U || hk.recovered != 2U) {
		unit_err(m, "nvgpu_rc_mmu_fault: recover ran %u times, recovered() %u\n",
			 stub_recovers, hk.recovered);
		goto fail;
	}
	g->ops.fifo.recover = orig;
	g->ops.ltc.flush = orig_flush;
	stop(g);
	return UNIT_SUCCESS;
fail:
	g->ops.fifo.recover = orig;
	g->ops.ltc.flush = orig_flush;
	stop(g);
	unit_return_fail(m, "recovery through rc.c failed\n");
}
#endif /* CONFIG_NVGPU_RECOVERY */
#endif /* GCAPS_PATCHED */

static int test_teardown(struct unit_module *m, struct gk20a *g, void *args)
{
	u32 i, j;
	int ret = UNIT_SUCCESS;

	g->runlist_interleave = true;
	for (i = 0; i < NT; i++) {
		for (j = 0; j < nch[i]; j++) {
			if (nvgpu_runlist_update(g, s.rl, s.ch[i][j], false, true) != 0) {
				ret = UNIT_FAIL;
			}
		}
	}
	if (s.rl->domain->mem_hw->count != 0U) {
		unit_err(m, "runlist not empty after removing every channel\n");
		ret = UNIT_FAIL;
	}
	for (i = 0; i < NT; i++) {
		for (j = 0; j < nch[i]; j++) {
			nvgpu_channel_close(s.ch[i][j]);
		}
		nvgpu_ref_put(&s.tsg[i]->refcount, nvgpu_tsg_release);
	}
	if (s.dump != NULL) {
		fclose(s.dump);
		s.dump = NULL;
	}
	if (test_fifo_remove_support(m, g, NULL) != UNIT_SUCCESS) {
		ret = UNIT_FAIL;
	}
	return ret;
}

struct unit_module_test nvgpu_gcaps_tests[] = {
	UNIT_TEST(setup, test_setup, NULL, 0),
	UNIT_TEST(stock_order, test_stock_order, NULL, 0),
#ifdef GCAPS_PATCHED
	UNIT_TEST(bind, test_bind, NULL, 0),
	UNIT_TEST(events_replay, test_events_replay, NULL, 0),
	UNIT_TEST(eligible_all, test_all, NULL, 0),
	UNIT_TEST(eligible_subset, test_subset, NULL, 0),
	UNIT_TEST(eligible_other_ids, test_other_ids, NULL, 0),
	UNIT_TEST(events, test_events, NULL, 0),
#ifdef GCAPS_R36
	UNIT_TEST(shadow_only, test_shadow_only, NULL, 0),
#else
	UNIT_TEST(default_only, test_default_only, NULL, 0),
#endif
	UNIT_TEST(unbind, test_unbind, NULL, 0),
	UNIT_TEST(events_unbound, test_events_unbound, NULL, 0),
	UNIT_TEST(resubmit, test_resubmit, NULL, 0),
	UNIT_TEST(resubmit_power, test_resubmit_power, NULL, 0),
	UNIT_TEST(unbind_rebuilds, test_unbind_rebuilds, NULL, 0),
	UNIT_TEST(recovery, test_recovery, NULL, 0),
	UNIT_TEST(stuck_pending, test_stuck_pending, NULL, 0),
	UNIT_TEST(many_tsgs, test_many_tsgs, NULL, 0),
	UNIT_TEST(railgate, test_railgate, NULL, 0),
	UNIT_TEST(ga10b_submit, test_ga10b_submit, NULL, 0),
#ifdef GCAPS_R36
	UNIT_TEST(resubmit_user_domain, test_resubmit_user_domain, NULL, 0),
#endif
	UNIT_TEST(noop_update, test_noop_update, NULL, 0),
	UNIT_TEST(gate_bind, test_gate_bind, NULL, 0),
	UNIT_TEST(gate_preempt, test_gate_preempt, NULL, 0),
	UNIT_TEST(gate_handover, test_gate_handover, NULL, 0),
	UNIT_TEST(gate_user_enable, test_gate_user_enable, NULL, 0),
	UNIT_TEST(gate_railgate, test_gate_railgate, NULL, 0),
	UNIT_TEST(gate_recovery, test_gate_recovery, NULL, 0),
	UNIT_TEST(gate_unbind, test_gate_unbind, NULL, 0),
	UNIT_TEST(gate_ga10b, test_gate_ga10b, NULL, 0),
#ifdef CONFIG_NVGPU_CHANNEL_TSG_SCHEDULING
	UNIT_TEST(setters, test_setters, NULL, 0),
#endif
#ifdef CONFIG_NVGPU_RECOVERY
	UNIT_TEST(recovery_rc, test_recovery_rc, NULL, 0),
#endif
#endif
	UNIT_TEST(teardown, test_teardown, NULL, 0),
};

UNIT_MODULE(nvgpu_gcaps, nvgpu_gcaps_tests, UNIT_PRIO_NVGPU_TEST);

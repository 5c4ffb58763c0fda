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
 * (GSP) domain leaves the runlist stock.
 *
 * Scenario: four TSGs on runlist 0, in tsgid order (ids 63, 64, 130, 255)
 *   L0 (LOW, 2 channels), H1 (HIGH, 2), M2 (MEDIUM, 2), L3 (LOW, 1)
 * Stock interleaved order: H1 M2 H1 L0 H1 M2 H1 L3; flat: H1 M2 L0 L3.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <unit/io.h>
#include <unit/unit.h>

#include <nvgpu/types.h>
#include <nvgpu/gk20a.h>
#include <nvgpu/channel.h>
#include <nvgpu/tsg.h>
#include <nvgpu/runlist.h>
#include <nvgpu/enabled.h>
#include <nvgpu/io.h>
#include <nvgpu/nvgpu_mem.h>
#include <nvgpu/posix/mock-regs.h>
#include <nvgpu/hw/gv11b/hw_fifo_gv11b.h>

#ifdef MOCK_REGS_RUNLIST		/* R36 (see tests/nvgpu/mock-registers.c) */
#define GCAPS_R36 1
#include <nvgpu/nvs.h>
#endif

#if __has_include(<nvgpu/gcaps.h>)
#define GCAPS_PATCHED 1
#include <nvgpu/gcaps.h>
#endif

#include "../fifo/nvgpu-fifo-common.h"

#define NT		4U	/* TSGs */
#define MAX_CH		2U	/* channels per TSG at most */
#define MAX_ENTRIES	64U	/* the scenario needs at most 8 TSG entries + 14 channel entries */

static const u32 levels[NT] = {
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

/* Copy what nvgpu last submitted on runlist 0; check the submit register's length. */
static int snapshot(struct unit_module *m, struct gk20a *g, struct rl_view *v)
{
	struct nvgpu_runlist_mem *hw = s.rl->domain->mem_hw;
	u32 reg = nvgpu_readl(g, fifo_runlist_r());

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

/* Rebuild runlist 0 from nvgpu's bitmaps and check it against the model for @mask. */
static int check_runlist(struct unit_module *m, struct gk20a *g, const char *label, u32 mask,
			 bool interleave)
{
	struct rl_view v;
	int got[2U * MAX_ENTRIES], want[2U * MAX_ENTRIES];
	u32 nw, k;
	int ng, err;
	char a[160], b[160];

	g->runlist_interleave = interleave;
	err = nvgpu_runlist_reload(g, s.rl, build_domain(), true, true);
	if (err != 0) {
		unit_err(m, "%s: nvgpu_runlist_reload returned %d\n", label, err);
		return -1;
	}
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

/* ---- tests ---- */

static int test_setup(struct unit_module *m, struct gk20a *g, void *args)
{
	struct nvgpu_tsg *filler[256];
	u32 i, j, nf = 0;
	int err;

	if (test_fifo_init_support(m, g, NULL) != UNIT_SUCCESS) {
		unit_return_fail(m, "FIFO init failed\n");
	}
	/* nvgpu-posix-test.md, "Setup that a test must do" */
	g->ptimer_src_freq = 31250000U;
#ifdef GCAPS_R36
	nvgpu_set_enabled(g, NVGPU_SUPPORT_KMD_SCHEDULING_WORKER_THREAD, false);
	nvgpu_set_enabled(g, NVGPU_SUPPORT_NVS, true);
	err = nvgpu_nvs_init(g);
	if (err != 0) {
		unit_return_fail(m, "nvgpu_nvs_init: %d\n", err);
	}
#endif
	g->poll_timeout_default = 100U;
	g->runlist_interleave = true;
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

static const struct nvgpu_gcaps_hook hook = {
	.eligible = hook_eligible,
	.tsg_update = hook_tsg_update,
	.tsg_release = hook_tsg_release,
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
	s.no_submit = false;
	err = nvgpu_nvs_del_domain(g, dom->id);
	if (err != 0) {
		unit_return_fail(m, "removing the user domain failed: %d\n", err);
	}
	if (check_runlist(m, g, "bound subset 0x1, user domain removed", 0x1U, true) != 0) {
		unit_return_fail(m, "the filter did not come back\n");
	}
	return ret;
}
#endif
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
#endif
	UNIT_TEST(unbind, test_unbind, NULL, 0),
	UNIT_TEST(events_unbound, test_events_unbound, NULL, 0),
#endif
	UNIT_TEST(teardown, test_teardown, NULL, 0),
};

UNIT_MODULE(nvgpu_gcaps, nvgpu_gcaps_tests, UNIT_PRIO_NVGPU_TEST);

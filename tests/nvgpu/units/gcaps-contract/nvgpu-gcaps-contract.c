// SPDX-License-Identifier: MIT
/*
 * gcaps's contract unit module: the backend contract suite (tests/contract/contract.c, the
 * same scenarios the emulated GPU passes in the VM, 47-contract-simgpu) run on nvgpu with the
 * gcaps series applied, end to end on real code:
 *
 *   contract.c --fixture--> nvgpu's TSG/channel/runlist API (this file)
 *        |                        | the series' hook (common/fifo/gcaps.c)
 *        v                        v
 *   gcaps's real core  <--calls-- os/linux/gcaps_link.c (patch 0004's adapter, built here)
 *   (tests/contract/host) --ops->resubmit/gate/detach--> nvgpu_gcaps_resubmit / _gate / _unbind
 *
 * Owners are process identities (tgid, start time) gcaps's hosted core opens clients for;
 * nvgpu records the tgid passed to nvgpu_tsg_open as the TSG's owner, and the adapter asks this
 * file for the start time (the Linux glue asks the kernel). Everything runs on the runner's one
 * thread: settle() runs gcaps's deferred work until none is left. The runlist is read back from
 * the buffer nvgpu submitted (rl->domain->mem_hw, gv11b entries).
 *
 * The suite runs twice, with gcaps loaded with mechanism RELOAD and then GATE (patch 0009).
 * Under GATE the runlist stays complete and the set the suite observes is "listed and with its
 * channels enabled": the channel enable state is read from the CCSR registers, whose enable
 * set/clear writes this file emulates (bit 0 reads the state), and every open TSG with
 * channels must be on the runlist.
 */
#include <stdio.h>
#include <string.h>

#include <unit/io.h>
#include <unit/unit.h>

#include <nvgpu/types.h>
#include <nvgpu/gk20a.h>
#include <nvgpu/channel.h>
#include <nvgpu/tsg.h>
#include <nvgpu/runlist.h>
#include <nvgpu/enabled.h>
#include <nvgpu/nvgpu_mem.h>
#include <nvgpu/nvgpu_init.h>
#include <nvgpu/posix/mock-regs.h>
#include <nvgpu/posix/io.h>
#include <nvgpu/hw/gv11b/hw_ccsr_gv11b.h>
#include <nvgpu/gcaps.h>
#ifdef CONFIG_NVGPU_RECOVERY
#include <nvgpu/rc.h>
#endif

/* (not through -I: os/linux/sched.h would shadow <sched.h>) */
#include "../../../drivers/gpu/nvgpu/os/linux/gcaps_link.h"
#define GCAPS_HAVE_KERNEL_TYPES
#include "gcaps_host.h"
#include "contract.h"

#include "../gcaps/gcaps-fifo-setup.h"

#define MAX_OWNERS	16U
#define MAX_TSGS	32U
#define MAX_CHS		4U
#define OPEN_CHANNELS	2U	/* channels a new TSG gets */

struct c_owner {
	s32 tgid;
	u64 start;
	s64 client;
};

struct c_tsg {
	struct nvgpu_tsg *tsg;
	struct nvgpu_channel *ch[MAX_CHS];
	u32 nch;
	int owner;
};

static struct {
	struct unit_module *m;
	struct gk20a *g;
	struct nvgpu_gcaps_link link;
	struct nvgpu_mem userd;		/* dummy USERD memory (safety profile) */
	struct nvgpu_runlist *rl;	/* runlist 0, where every TSG goes */
	struct c_owner o[MAX_OWNERS];
	u32 no;
	struct c_tsg t[MAX_TSGS];
	u32 generation;			/* owner identities are never reused */
	u64 resubmits, violations;	/* gcaps's counters, summed over its loads */
	u32 mech;			/* GCAPS_BE_MECH_*: what gcaps is loaded with */
	struct nvgpu_posix_io_callbacks cb, *cb_orig;
	char err[200];
} c;

#define fail(...) (snprintf(c.err, sizeof(c.err), __VA_ARGS__), CONTRACT_ERR)

/*
 * The fake GPU is "powered on" only while gcaps may resubmit (begin, end, its work, unload,
 * attach): nvgpu_gcaps_resubmit() skips an unpowered GPU, and with power on, opening channels
 * would run MMU maintenance the fake registers cannot answer. nvgpu's own runlist updates
 * (channels added and removed) submit either way.
 */
static void gpu_on(void)
{
	nvgpu_set_power_state(c.g, NVGPU_STATE_POWERED_ON);
}

static void gpu_off(void)
{
	nvgpu_set_power_state(c.g, NVGPU_STATE_POWERED_OFF);
}

/* The adapter's OS callback: the owner's start time (the Linux glue asks the kernel). */
static u64 c_owner_start(struct gk20a *g, pid_t tgid)
{
	u32 i;

	(void)g;
	for (i = 0; i < c.no; i++) {
		if (c.o[i].tgid == tgid) {
			return c.o[i].start;
		}
	}
	return 0;
}

static void c_detached(struct nvgpu_gcaps_link *link)
{
	(void)link;
}

/* CCSR channel registers as the hardware keeps them: enable set/clr trigger, bit 0 reads it. */
static bool c_ccsr(u32 addr, u32 *chid)
{
	u32 stride = ccsr_channel_r(1U) - ccsr_channel_r(0U);

	if (addr < ccsr_channel_r(0U) || addr >= ccsr_channel_r(4096U) ||
	    (addr - ccsr_channel_r(0U)) % stride != 0U) {
		return false;
	}
	*chid = (addr - ccsr_channel_r(0U)) / stride;
	return true;
}

static void c_writel(struct gk20a *g, struct nvgpu_reg_access *a)
{
	u32 chid, v = a->value;

	if (c_ccsr(a->addr, &chid)) {
		u32 en = nvgpu_posix_io_readl_reg_space(g, a->addr) & 1U;

		if ((v & ccsr_channel_enable_set_true_f()) != 0U) {
			en = 1U;
		}
		if ((v & ccsr_channel_enable_clr_true_f()) != 0U) {
			en = 0U;
		}
		v = (v & ~(ccsr_channel_enable_set_true_f() | ccsr_channel_enable_clr_true_f() |
			   1U)) | en;
	}
	nvgpu_posix_io_writel_reg_space(g, a->addr, v);
}

static bool c_enabled(u32 chid)
{
	return ccsr_channel_enable_v(nvgpu_posix_io_readl_reg_space(c.g,
			ccsr_channel_r(chid))) != 0U;
}

static struct c_tsg *c_find(unsigned int tsgid)
{
	u32 i;

	for (i = 0; i < MAX_TSGS; i++) {
		if (c.t[i].tsg != NULL && c.t[i].tsg->tsgid == tsgid) {
			return &c.t[i];
		}
	}
	return NULL;
}

static int c_ch_add(struct c_tsg *t)
{
	struct nvgpu_channel *ch;
	int err;

	if (t->nch == MAX_CHS) {
		return fail("TSG %u has %u channels already", t->tsg->tsgid, t->nch);
	}
	ch = nvgpu_channel_open_new(c.g, NVGPU_INVALID_RUNLIST_ID, false,
				    c.o[t->owner].tgid, c.o[t->owner].tgid);
	if (ch == NULL) {
		return fail("nvgpu_channel_open_new failed");
	}
	err = nvgpu_tsg_bind_channel(t->tsg, ch);
	if (err != 0) {
		nvgpu_channel_close(ch);
		return fail("nvgpu_tsg_bind_channel: %d", err);
	}
	ch->userd_mem = &c.userd;
	ch->userd_iova = 0x80000000ULL + ((u64)ch->chid << 9);
	t->ch[t->nch++] = ch;
	c.rl = t->tsg->runlist;
	/* Runnable: nvgpu adds it and rebuilds (filtered) and submits, as setup_bind does. */
	err = nvgpu_runlist_update(c.g, c.rl, ch, true, true);
	if (err != 0) {
		return fail("nvgpu_runlist_update(add): %d", err);
	}
	/* Its user enables the TSG (gated under GATE: the TSG's channels stay off until eligible). */
	nvgpu_posix_io_writel_reg_space(c.g, ccsr_channel_r(ch->chid), 0U);
	c.g->ops.tsg.enable(t->tsg);
	return CONTRACT_OK;
}

/*
 * As a process closing a channel: nvgpu's channel free unbinds it from its TSG, which takes it
 * off the runlist (rebuild and submit) and reports the TSG's new channel count. (An explicit
 * nvgpu_runlist_update(remove) first would make that second removal a no-op, which R36's
 * series rebuilds while bound, patch 0008; the units/gcaps test noop_update covers it.)
 */
static void c_ch_remove(struct c_tsg *t)
{
	nvgpu_channel_close(t->ch[--t->nch]);
}

static int c_close(struct c_tsg *t)
{
	while (t->nch > 0U) {
		c_ch_remove(t);
	}
	nvgpu_ref_put(&t->tsg->refcount, nvgpu_tsg_release);
	t->tsg = NULL;
	return CONTRACT_OK;
}

/* Add what gcaps counted since its last load (it starts from 0 at every load). */
static void c_count(void)
{
	struct gcaps_host_counters k;

	if (gcaps_host_counters(&k) == 0) {
		c.resubmits += k.resubmits;
		c.violations += k.violations;
	}
}

static int c_reset(void *ctx)
{
	u32 i;
	int r;

	(void)ctx;
	for (i = 0; i < MAX_TSGS; i++) {
		if (c.t[i].tsg != NULL && c_close(&c.t[i]) != CONTRACT_OK) {
			return CONTRACT_ERR;
		}
	}
	/* gcaps afresh: unload (ops->detach if bound), load, nvgpu attaches as on Linux. */
	c_count();
	gpu_on();
	(void)gcaps_host_unload();
	r = gcaps_host_load_mechanism(c.mech);
	if (r != 0) {
		gpu_off();
		return fail("gcaps_host_load_mechanism(%u): %d", c.mech, r);
	}
	c.no = 0;
	r = nvgpu_gcaps_link_attach(&c.link, gcaps_backend_register);
	gpu_off();
	if (r != 0 || !nvgpu_gcaps_link_bound(&c.link)) {
		return fail("nvgpu_gcaps_link_attach: %d", r);
	}
	return CONTRACT_OK;
}

static int c_owner_new(void *ctx, int rt_prio, int *owner)
{
	struct c_owner *o;

	(void)ctx;
	if (c.no == MAX_OWNERS) {
		return fail("more than %u owners", MAX_OWNERS);
	}
	o = &c.o[c.no];
	c.generation++;
	o->tgid = (s32)(5000U + c.generation);
	o->start = 1000000ULL * c.generation;
	o->client = gcaps_host_client_open(o->tgid, o->start, rt_prio > 0, rt_prio);
	if (o->client <= 0) {
		return fail("gcaps_host_client_open: %lld", (long long)o->client);
	}
	*owner = (int)c.no++;
	return CONTRACT_OK;
}

static int c_tsg_open(void *ctx, int owner, unsigned int *tsgid, unsigned int *channels)
{
	struct c_tsg *t = NULL;
	u32 i, k;

	(void)ctx;
	for (i = 0; i < MAX_TSGS && t == NULL; i++) {
		if (c.t[i].tsg == NULL) {
			t = &c.t[i];
		}
	}
	if (t == NULL) {
		return fail("more than %u TSGs", MAX_TSGS);
	}
	t->tsg = nvgpu_tsg_open(c.g, c.o[owner].tgid);
	if (t->tsg == NULL) {
		return fail("nvgpu_tsg_open failed");
	}
	t->owner = owner;
	t->nch = 0;
	for (k = 0; k < OPEN_CHANNELS; k++) {
		if (c_ch_add(t) != CONTRACT_OK) {
			return CONTRACT_ERR;
		}
	}
	*tsgid = t->tsg->tsgid;
	*channels = t->nch;
	return CONTRACT_OK;
}

static int c_tsg_close(void *ctx, int owner, unsigned int tsgid)
{
	struct c_tsg *t = c_find(tsgid);

	(void)ctx;
	if (t == NULL || t->owner != owner) {
		return fail("TSG %u is not open by owner %d", tsgid, owner);
	}
	return c_close(t);
}

static int c_channel_add(void *ctx, int owner, unsigned int tsgid)
{
	struct c_tsg *t = c_find(tsgid);

	(void)ctx;
	(void)owner;
	return t == NULL ? fail("no TSG %u", tsgid) : c_ch_add(t);
}

static int c_channel_remove(void *ctx, int owner, unsigned int tsgid)
{
	struct c_tsg *t = c_find(tsgid);

	(void)ctx;
	(void)owner;
	if (t == NULL || t->nch < 2U) {
		return fail("TSG %u: no channel to remove", tsgid);
	}
	c_ch_remove(t);
	return CONTRACT_OK;
}

static int c_seg_begin(void *ctx, int owner, int gpu_prio, int *pending)
{
	int r;

	(void)ctx;
	gpu_on();
	r = gcaps_host_begin(c.o[owner].client, gpu_prio);
	gpu_off();
	if (r != GCAPS_HOST_RUNNING && r != GCAPS_HOST_PENDING) {
		return fail("gcaps_host_begin: %d", r);
	}
	*pending = r == GCAPS_HOST_PENDING;
	return CONTRACT_OK;
}

static int c_seg_end(void *ctx, int owner)
{
	int r;

	(void)ctx;
	gpu_on();
	r = gcaps_host_end(c.o[owner].client);
	gpu_off();
	return r == 0 ? CONTRACT_OK : fail("gcaps_host_end: %d", r);
}

/* The process exits: gcaps sees its thread group gone, its TSG files close, then its file. */
static int c_owner_exit(void *ctx, int owner)
{
	u32 i;
	int r = gcaps_host_owner_exit(c.o[owner].tgid, c.o[owner].start);

	(void)ctx;
	if (r < 0) {
		return fail("gcaps_host_owner_exit: %d", r);
	}
	for (i = 0; i < MAX_TSGS; i++) {
		if (c.t[i].tsg != NULL && c.t[i].owner == owner && c_close(&c.t[i]) != CONTRACT_OK) {
			return CONTRACT_ERR;
		}
	}
	gpu_on();
	r = gcaps_host_client_close(c.o[owner].client);
	gpu_off();
	return r == 0 ? CONTRACT_OK : fail("gcaps_host_client_close: %d", r);
}

#ifdef CONFIG_NVGPU_RECOVERY
/* What gv11b_fifo_recover does to the runlist, without resetting the fake GPU's engines. */
static void c_recover_hal(struct gk20a *g, u32 act_eng_bitmask, u32 id, unsigned int id_type,
			  unsigned int rc_type, struct mmu_fault_info *mmfault)
{
	(void)act_eng_bitmask;
	(void)id;
	(void)id_type;
	(void)rc_type;
	(void)mmfault;
	(void)gcaps_clear_runlist(g, c.rl);
}
#endif

/* nvgpu recovers: its runlist cleared, then recovered() from its recovery path. */
static int c_recover(void *ctx)
{
	(void)ctx;
	if (c.rl == NULL) {
		return fail("no runlist yet");
	}
#ifdef CONFIG_NVGPU_RECOVERY
	{
		void (*orig)(struct gk20a *, u32, u32, unsigned int, unsigned int,
			     struct mmu_fault_info *) = c.g->ops.fifo.recover;
		void (*orig_flush)(struct gk20a *) = c.g->ops.ltc.flush;

		c.g->ops.fifo.recover = c_recover_hal;
		c.g->ops.ltc.flush = NULL;
		nvgpu_rc_fifo_recover(c.g, 0U, INVAL_ID, false, false, false, RC_TYPE_FORCE_RESET);
		c.g->ops.fifo.recover = orig;
		c.g->ops.ltc.flush = orig_flush;
	}
#else
	/* Safety profile: no recovery code; what it does, then the series' notification. */
	(void)gcaps_clear_runlist(c.g, c.rl);
	nvgpu_gcaps_recovered(c.g);
#endif
	if (c.rl->domain->mem_hw->count != 0U) {
		return fail("recovery left %u runlist entries", c.rl->domain->mem_hw->count);
	}
	return CONTRACT_OK;
}

static int c_detach(void *ctx)
{
	int r;

	(void)ctx;
	gpu_on();
	r = gcaps_host_unload();
	gpu_off();
	if (r != 1 || nvgpu_gcaps_link_bound(&c.link)) {
		return fail("unloading gcaps did not detach nvgpu");
	}
	return CONTRACT_OK;
}

static int c_settle(void *ctx)
{
	struct gcaps_host_counters k0;
	u32 k;
	int r;

	(void)ctx;
	if (gcaps_host_counters(&k0) == 0 && k0.loaded == 0U) {
		return CONTRACT_OK;	/* detached: gcaps is gone, nvgpu submitted its stock runlist */
	}
	for (k = 0; k < 100U && gcaps_host_work_pending() == 1; k++) {
		gpu_on();
		r = gcaps_host_run_work();
		gpu_off();
		if (r < 0) {
			return fail("gcaps_host_run_work: %d", r);
		}
	}
	return gcaps_host_work_pending() == 0 ? CONTRACT_OK : fail("gcaps's work does not drain");
}

/* GATE: every open TSG with channels is on the runlist nvgpu submitted (stock: all listed). */
static int c_complete(const u32 *w, u32 n)
{
	u32 i, e;

	for (i = 0; i < MAX_TSGS; i++) {
		if (c.t[i].tsg == NULL || c.t[i].nch == 0U) {
			continue;
		}
		for (e = 0; e < n; e += 1U + (w[4U * e + 1U] & 0xffU)) {
			if ((w[4U * e + 2U] & 0xfffU) == c.t[i].tsg->tsgid) {
				break;
			}
		}
		if (e >= n) {
			return fail("under GATE, TSG %u is not on the runlist", c.t[i].tsg->tsgid);
		}
	}
	return CONTRACT_OK;
}

/*
 * What nvgpu submitted on runlist 0, decoded: TSG headers, each followed by its channels;
 * under GATE only the TSGs whose channels are enabled.
 */
static int c_runlist(void *ctx, struct contract_runlist *out)
{
	const u32 *w;
	u32 n, e = 0;

	(void)ctx;
	out->n = 0;
	if (c.rl == NULL) {
		return CONTRACT_OK;
	}
	w = c.rl->domain->mem_hw->mem.cpu_va;
	n = c.rl->domain->mem_hw->count;
	while (e < n) {
		const u32 *h = &w[4U * e];
		u32 len = h[1] & 0xffU, k;

		if ((h[0] & 1U) != 1U || e + 1U + len > n || out->n == CONTRACT_RL_MAX) {
			return fail("runlist entry %u: not a TSG header with %u channel entries", e, len);
		}
		for (k = 1; k <= len; k++) {
			if ((w[4U * (e + k)] & 1U) != 0U) {
				return fail("runlist entry %u: a TSG header inside a TSG's channels", e + k);
			}
		}
		out->tsg[out->n].id = h[2] & 0xfffU;
		out->tsg[out->n].channels = len;
		e += 1U + len;
		if (c.mech == GCAPS_BE_MECH_GATE) {
			u32 on = 0;

			for (k = 1; k <= len; k++) {
				on += c_enabled(w[4U * (e - len - 1U + k) + 2U] & 0xfffU) ? 1U : 0U;
			}
			if (on != 0U && on != len) {
				return fail("TSG %u: %u of its %u channels enabled", h[2] & 0xfffU, on,
					    len);
			}
			if (on == 0U) {
				continue;	/* listed, every channel disabled: kept off the GPU */
			}
		}
		out->n++;
	}
	return c.mech == GCAPS_BE_MECH_GATE ? c_complete(w, n) : CONTRACT_OK;
}

static const char *c_error(void *ctx)
{
	(void)ctx;
	return c.err[0] != '\0' ? c.err : NULL;
}

#ifdef MOCK_REGS_RUNLIST
/*
 * R36 (patch 0007 through the adapter): gcaps's STATUS says when nvgpu's runlists are stock
 * because a GSP user domain exists: the builder reports it at its next build, a bind made
 * while the domain exists reports it at once, and it clears when the domain goes.
 */
static int c_stock_check(struct unit_module *m, struct gk20a *g)
{
	struct nvgpu_nvs_domain *dom = NULL;
	unsigned int tsgid, ch;
	int owner, err, ret = -1;

	if (c_reset(NULL) != CONTRACT_OK || c_owner_new(NULL, 0, &owner) != CONTRACT_OK ||
	    c_tsg_open(NULL, owner, &tsgid, &ch) != CONTRACT_OK) {
		unit_err(m, "stock: setup failed: %s\n", c.err);
		return -1;
	}
	if (gcaps_host_backend_stock() != 0) {
		unit_err(m, "stock: reported without a user domain\n");
		return -1;
	}
	err = nvgpu_nvs_add_domain(g, "gcaps-user", 100000ULL, 0ULL, &dom);
	if (err != 0 || dom == NULL) {
		unit_err(m, "stock: adding a user domain failed: %d\n", err);
		return -1;
	}
	(void)nvgpu_runlist_reload(g, c.rl, NULL, true, true);
	if (gcaps_host_backend_stock() != 1) {
		unit_err(m, "stock: not reported after a build with a user domain\n");
		goto out;
	}
	/* gcaps reloaded while the domain exists: nvgpu's bind reports it to the new binding */
	gpu_on();
	(void)gcaps_host_unload();
	err = gcaps_host_load();
	if (err == 0) {
		err = nvgpu_gcaps_link_attach(&c.link, gcaps_backend_register);
	}
	gpu_off();
	if (err != 0 || gcaps_host_backend_stock() != 1) {
		unit_err(m, "stock: not reported at a bind with a user domain (%d)\n", err);
		goto out;
	}
	ret = 0;
out:
	err = nvgpu_nvs_del_domain(g, dom->id);
	(void)nvgpu_runlist_reload(g, c.rl, NULL, true, true);
	if (ret == 0 && (err != 0 || gcaps_host_backend_stock() != 0)) {
		unit_err(m, "stock: still reported after the user domain went (%d)\n", err);
		ret = -1;
	}
	if (ret == 0) {
		unit_info(m, "stock: reported with a GSP user domain (at a build and at a bind), cleared after\n");
	}
	return ret;
}
#endif

static int test_contract(struct unit_module *m, struct gk20a *g, void *args)
{
	static const struct {
		u32 mech;
		const char *name;
	} runs[] = {
#ifdef MOCK_REGS_RUNLIST
		{ GCAPS_BE_MECH_RELOAD, "nvgpu-r36" }, { GCAPS_BE_MECH_GATE, "nvgpu-r36 gate" },
#else
		{ GCAPS_BE_MECH_RELOAD, "nvgpu-r35" }, { GCAPS_BE_MECH_GATE, "nvgpu-r35 gate" },
#endif
	};
	struct contract_fixture fx = {
		.reset = c_reset, .owner_new = c_owner_new, .tsg_open = c_tsg_open,
		.tsg_close = c_tsg_close, .channel_add = c_channel_add,
		.channel_remove = c_channel_remove, .seg_begin = c_seg_begin,
		.seg_end = c_seg_end, .owner_exit = c_owner_exit, .recover = c_recover,
		.detach = c_detach, .settle = c_settle, .runlist = c_runlist, .error = c_error,
	};
	struct contract_result res;
	int err = 0, failed = 0, i;

	(void)args;
	memset(&c, 0, sizeof(c));
	c.m = m;
	c.g = g;
	if (gcaps_fifo_setup(m, g) != 0) {
		unit_return_fail(m, "FIFO setup failed\n");
	}
	c.userd.aperture = APERTURE_SYSMEM;
	nvgpu_gcaps_link_init(&c.link, g);
	c.link.owner_start = c_owner_start;
	c.link.detached = c_detached;
	c.cb_orig = nvgpu_posix_register_io(g, &c.cb);
	c.cb = *c.cb_orig;
	c.cb.writel = c_writel;
	c.cb.writel_check = c_writel;

	/* One summary line per run ("contract: ..."), RELOAD first: run.sh reads them in order. */
	for (i = 0; i < (int)ARRAY_SIZE(runs); i++) {
		c.mech = runs[i].mech;
		fx.name = runs[i].name;
		unit_info(m, "contract suite, gcaps loaded with mechanism %s\n",
			  c.mech == GCAPS_BE_MECH_GATE ? "gate" : "reload");
		if (contract_run(&fx, NULL, &res) != 0) {
			err = -1;
		}
		(void)fflush(stdout);
		failed += res.failed;
#ifdef MOCK_REGS_RUNLIST
		if (c.mech == GCAPS_BE_MECH_RELOAD && c_stock_check(m, g) != 0) {
			err = -1;
		}
#endif
	}

	/* Leave nothing behind: TSGs closed, gcaps detached (nvgpu unbound, stock runlist). */
	(void)c_reset(NULL);
	c_count();
	gpu_on();
	(void)gcaps_host_unload();
	gpu_off();
	(void)nvgpu_posix_register_io(g, c.cb_orig);
	nvgpu_gcaps_link_destroy(&c.link);
	if (test_fifo_remove_support(m, g, NULL) != UNIT_SUCCESS) {
		unit_return_fail(m, "FIFO remove failed\n");
	}
	unit_info(m, "gcaps's hosted core: %llu resubmits and gates, %llu contract violations by nvgpu\n",
		  (unsigned long long)c.resubmits, (unsigned long long)c.violations);
	if (err != 0 || failed != 0 || c.violations != 0U) {
		unit_return_fail(m, "contract: %d failed scenarios; %llu violations\n", failed,
				 (unsigned long long)c.violations);
	}
	return UNIT_SUCCESS;
}

struct unit_module_test nvgpu_gcaps_contract_tests[] = {
	UNIT_TEST(contract, test_contract, NULL, 0),
};

UNIT_MODULE(nvgpu_gcaps_contract, nvgpu_gcaps_contract_tests, UNIT_PRIO_NVGPU_TEST);

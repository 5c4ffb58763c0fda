// SPDX-License-Identifier: GPL-2.0-only
/*
 * gcaps_badbackend: a test-only backend that registers one ops table with gcaps.ko at load and
 * unregisters at unload, to check gcaps_backend_register()'s validation (backend ABI 3). The
 * parameter `bad` says what is wrong with the table: none (a valid table with both
 * mechanisms: the load binds), abi2 (the ABI 2 version), noname, emptyname, longname (32
 * characters), badname (a control character), nodetail, longdetail (64 characters),
 * norunlists, noresubmit, nomech (mechanisms 0), nogatefn (GATE without gate()), reloadonly
 * (a valid table without GATE: refused with -EOPNOTSUPP by a gcaps loaded with
 * mechanism=gate). A refused table fails the load with gcaps's error. VM test
 * 55-gcaps-backend-abi.
 */
#include <linux/err.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include "../../../module/include/gcaps_backend.h"

static char *bad = "none";
module_param(bad, charp, 0444);
MODULE_PARM_DESC(bad, "what is wrong with the ops table (none, abi2, noname, emptyname, longname, badname, nodetail, longdetail, norunlists, noresubmit, nomech, nogatefn, reloadonly)");

static int badbe_resubmit(void *drv)
{
	return 0;
}

static void badbe_detach(void *drv)
{
}

static int badbe_gate(void *drv)
{
	return GCAPS_BE_GATE_HANDOVER;
}

static struct gcaps_backend_ops ops = {
	.name = "badbackend",
	.abi = GCAPS_BACKEND_ABI,
	.detail = "test fixture",
	.runlists = 1,
	.resubmit = badbe_resubmit,
	.detach = badbe_detach,
	.mechanisms = GCAPS_BE_MECH_RELOAD | GCAPS_BE_MECH_GATE,
	.gate = badbe_gate,
};

static struct gcaps_backend *be;
static const struct gcaps_be_calls *calls;

static int __init badbe_init(void)
{
	typeof(&gcaps_backend_register) reg;
	struct gcaps_backend *b;

	if (!strcmp(bad, "abi2"))
		ops.abi = 2;
	else if (!strcmp(bad, "noname"))
		ops.name = NULL;
	else if (!strcmp(bad, "emptyname"))
		ops.name = "";
	else if (!strcmp(bad, "longname"))
		ops.name = "0123456789abcdef0123456789abcdef";
	else if (!strcmp(bad, "badname"))
		ops.name = "bad\nname";
	else if (!strcmp(bad, "nodetail"))
		ops.detail = NULL;
	else if (!strcmp(bad, "longdetail"))
		ops.detail = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
	else if (!strcmp(bad, "norunlists"))
		ops.runlists = 0;
	else if (!strcmp(bad, "noresubmit"))
		ops.resubmit = NULL;
	else if (!strcmp(bad, "nomech"))
		ops.mechanisms = 0;
	else if (!strcmp(bad, "nogatefn"))
		ops.gate = NULL;
	else if (!strcmp(bad, "reloadonly")) {
		ops.mechanisms = GCAPS_BE_MECH_RELOAD;
		ops.gate = NULL;
	}
	else if (strcmp(bad, "none"))
		return -EINVAL;
	reg = symbol_get(gcaps_backend_register);
	if (!reg)
		return -ENODEV;
	b = reg(&ops, NULL, &calls);
	symbol_put(gcaps_backend_register);
	if (IS_ERR(b))
		return PTR_ERR(b);
	be = b;
	return 0;
}

static void __exit badbe_exit(void)
{
	/* The test unloads this module before gcaps (gcaps's detach would make this a no-op). */
	if (be && symbol_get(gcaps_backend_register)) {
		calls->unregister(be);
		symbol_put(gcaps_backend_register);
	}
}

module_init(badbe_init);
module_exit(badbe_exit);
MODULE_DESCRIPTION("gcaps test fixture: backend registration validation");
MODULE_LICENSE("GPL");

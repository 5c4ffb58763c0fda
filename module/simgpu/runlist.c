// SPDX-License-Identifier: GPL-2.0-only
/*
 * gcaps_simgpu runlist format: the Volta/Ampere 16-byte entry encoding the driver writes
 * (TSG entries with their timeslice, channel entries), the decoder the engine runs on a
 * submitted runlist (what the hardware format fixes), and the known-answer self-check run at
 * load. The runlist crate (module/runlist/src/lib.rs) is the reference; docs/nvgpu-facts.md
 * ("The runlist entry format") states the format and its public source.
 */
#include "simgpu.h"

/* timeout << scale units of 1024 ns; nvgpu passes the timeslice in us as the unit count. */
static void simgpu_encode_timeslice(u64 units, u32 *timeout, u32 *scale)
{
	u32 s = 0;

	while (units > 255 && s < 15) {
		units >>= 1;
		s++;
	}
	*timeout = units > 255 ? 255 : (u32)units;
	*scale = s;
}

void simgpu_encode_tsg_entry(__le32 *e, u32 tsgid, u64 units, u32 nch)
{
	u32 timeout, scale;

	simgpu_encode_timeslice(units, &timeout, &scale);
	e[0] = cpu_to_le32(1 | scale << 16 | timeout << 24);
	e[1] = cpu_to_le32(nch);
	e[2] = cpu_to_le32(tsgid & HW_ID_MASK);
	e[3] = 0;
}

void simgpu_encode_channel_entry(__le32 *e, const struct simgpu_channel_info *c)
{
	e[0] = cpu_to_le32((c->runqueue & 1) << 1 | (c->inst_aperture & 3) << 4 |
			   (c->userd_aperture & 3) << 6 | (lower_32_bits(c->userd_addr) & 0xffffff00));
	e[1] = cpu_to_le32(upper_32_bits(c->userd_addr));
	e[2] = cpu_to_le32((c->chid & HW_ID_MASK) | (lower_32_bits(c->inst_addr) & 0xfffff000));
	e[3] = cpu_to_le32(upper_32_bits(c->inst_addr));
}

static bool simgpu_aperture_ok(u32 code)
{
	return code == SIMGPU_APERTURE_VIDMEM || code == SIMGPU_APERTURE_SYS_COH ||
	       code == SIMGPU_APERTURE_SYS_NONCOH;
}

/*
 * The engine's fetch: decode @entries entries of @buf into TSGs (id, timeslice). Checks what
 * the hardware format fixes: TSG entry first, reserved bits zero, 1..128 channel entries of
 * type 0 with valid apertures after each TSG entry, TSG ids inside the table. -EINVAL on a
 * malformed runlist.
 */
int simgpu_decode_runlist(const __le32 *buf, u32 entries, struct simgpu_rl_tsg *out,
				 u32 cap, u32 *n)
{
	u32 i = 0, k = 0, j;

	while (i < entries) {
		const __le32 *e = buf + (size_t)i * ENTRY_WORDS;
		u32 w0 = le32_to_cpu(e[0]), w1 = le32_to_cpu(e[1]);
		u32 w2 = le32_to_cpu(e[2]), w3 = le32_to_cpu(e[3]);
		u32 timeout = w0 >> 24, scale = (w0 >> 16) & 15;

		if (!(w0 & 1) || (w0 & 0x00f0fffe) || (w1 & ~0xffu) || (w2 & ~HW_ID_MASK) || w3)
			return -EINVAL;
		if (w1 == 0 || w1 > MAX_TSG_LEN || w1 > entries - i - 1 || w2 >= max_tsgs || k >= cap)
			return -EINVAL;
		for (j = 1; j <= w1; j++) {
			u32 c0 = le32_to_cpu(e[j * ENTRY_WORDS]);

			if ((c0 & 1) || (c0 & 0x8) || !simgpu_aperture_ok((c0 >> 4) & 3) ||
			    !simgpu_aperture_ok((c0 >> 6) & 3))
				return -EINVAL;
		}
		out[k].tsgid = w2;
		out[k].slice_ns = max(((u64)timeout << scale) << 10, MIN_SLICE_NS);
		k++;
		i += 1 + w1;
	}
	*n = k;
	return 0;
}

/* Known answers: the worked example of docs/nvgpu-facts.md (also runlist.rs tests). */
int simgpu_selfcheck(void)
{
	static const u32 tsg5[4] = { 0x80030001, 0x00000002, 0x00000005, 0x00000000 };
	static const u32 ch17[4] = { 0x800002a0, 0x00000000, 0x23456011, 0x00000001 };
	static const u32 ch18[4] = { 0x800003a0, 0x00000000, 0x23457012, 0x00000001 };
	static const struct { u64 units; u32 timeout, scale; } ts[] = {
		{ 0, 0, 0 }, { 255, 255, 0 }, { 256, 128, 1 }, { 1024, 128, 3 },
		{ 50000, 195, 8 }, { 255ULL << 15, 255, 15 }, { U64_MAX, 255, 15 },
	};
	struct simgpu_channel_info c = {
		.chid = 17, .inst_addr = 0x123456000ULL, .userd_addr = 0x80000200ULL,
		.inst_aperture = SIMGPU_APERTURE_SYS_COH, .userd_aperture = SIMGPU_APERTURE_SYS_COH,
	};
	__le32 rl[3][ENTRY_WORDS];
	struct simgpu_rl_tsg out[1];
	u32 i, n, timeout, scale;

	simgpu_encode_tsg_entry(rl[0], 5, 1024, 2);
	simgpu_encode_channel_entry(rl[1], &c);
	c.chid = 18;
	c.inst_addr = 0x123457000ULL;
	c.userd_addr = 0x80000300ULL;
	simgpu_encode_channel_entry(rl[2], &c);
	for (i = 0; i < 4; i++) {
		if (le32_to_cpu(rl[0][i]) != tsg5[i] || le32_to_cpu(rl[1][i]) != ch17[i] ||
		    le32_to_cpu(rl[2][i]) != ch18[i])
			return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(ts); i++) {
		simgpu_encode_timeslice(ts[i].units, &timeout, &scale);
		if (timeout != ts[i].timeout || scale != ts[i].scale)
			return -EINVAL;
	}
	/* The engine's decoder reads the example back (TSG 5 needs max_tsgs > 5 to be valid). */
	if (max_tsgs > 5 &&
	    (simgpu_decode_runlist(&rl[0][0], 3, out, 1, &n) || n != 1 || out[0].tsgid != 5 ||
	     out[0].slice_ns != 1024ULL * 1024))
		return -EINVAL;
	/* A channel entry where a TSG entry must be is rejected. */
	if (!simgpu_decode_runlist(&rl[1][0], 2, out, 1, &n))
		return -EINVAL;
	return 0;
}

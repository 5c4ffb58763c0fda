#!/usr/bin/env bash
# tests/nvgpu/mutate.sh LINE (e.g. r36.4.2): mutation check of the gcaps nvgpu patch. After a
# successful run.sh, applies each mutation below to the patched build copy in the cache, rebuilds
# nvgpu's library (incremental), runs our unit module and prints which named tests failed; the
# source is restored after each one. Every mutation must fail at least one test.
# MUT_ONLY=<regex> runs only the mutations whose name matches (e.g. MUT_ONLY='^P').
# MUT_PROFILE=full: the full-profile copy instead, and the F mutations (code only that profile
# compiles: recovery's call sites in rc.c, the timeslice setters' events).
set -u
line=$1
profile=${MUT_PROFILE:-safety}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
D=$(ls -d "${XDG_CACHE_HOME:-$HOME/.cache}"/gcaps/nvgpu/"$line"-* | head -n 1)
kind=patched
mkflags=()
if [[ $profile == full ]]; then
	kind=full
	mkflags=(NV_BUILD_CONFIGURATION_IS_SAFETY=0 NVGPU_FORCE_SAFETY_PROFILE=0)
fi
T=$(ls -d $D/$kind-*/nvgpu-$line); us=$T/userspace; drv=$T/drivers/gpu/nvgpu
load=$(ls -d $D/$kind-*/load-gcaps)
pre=$(ls $D/$kind-*/power-count.so)	# run.sh builds it: counts gk20a_busy/gk20a_idle
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mut() {
	local name=$1 file=$2 expr=$3
	if [[ -n "${MUT_ONLY:-}" && ! $name =~ $MUT_ONLY ]]; then return; fi
	cp $drv/$file $tmp/orig.c
	sed -i "$expr" $drv/$file
	if cmp -s $drv/$file $tmp/orig.c; then echo "$name: sed did not change $file"; return; fi
	if ! nice -n 10 make --no-print-directory -C $us NVGPU_NEXT_SRC=$here/nvgpu-next CC="gcc -I$drv/common" "${mkflags[@]}" -j2 libnvgpu core >$tmp/mut-build.log 2>&1; then
		echo "$name: build failed (not run)"; grep -m3 'error' $tmp/mut-build.log | cut -c1-200
		cp $tmp/orig.c $drv/$file; touch $drv/$file; return
	fi
	find $us/build $us/units -name '*.gcda' -delete
	(cd $us && LD_LIBRARY_PATH=build:build/units LD_PRELOAD=$pre timeout 300 ./build/nvgpu_unit --num-threads 1 --no-color --unit-load-path $load) >$tmp/mut-$name.log 2>&1
	echo "$name: rc=$? $(grep -E 'Passing:|Failing:' $tmp/mut-$name.log | tr -s ' ' | tr '\n' ' ') failing: $(sed -n '/Failing tests:/,$p' $tmp/mut-$name.log | grep -o 'nvgpu_gcaps\.[a-z0-9_]*' | sort -u | tr '\n' ' ')"
	grep -m2 -E 'E\]|ERR|expected' $tmp/mut-$name.log | cut -c1-200
	cp $tmp/orig.c $drv/$file
	touch $drv/$file
}
if [[ $profile == safety ]]; then
mut M9-filter-when-unbound common/fifo/gcaps.c "/if (hook == NULL) {/,+1s/return false;/return true;/"
mut M1-wrong-bitmap common/fifo/runlist.c 's|!nvgpu_test_bit((u32)tsgid, domain->gcaps_elig.bits)|!nvgpu_test_bit((u32)tsgid, domain->active_tsgs)|'
mut M2-hook-ignored common/fifo/gcaps.c 's|^\treturn !out->all \&\& !out->gate;|\treturn false;|'
mut M3-all-ignored common/fifo/gcaps.c 's|^\treturn !out->all \&\& !out->gate;|\treturn !out->gate;|'
mut M4-word0-only common/fifo/runlist.c 's|!nvgpu_test_bit((u32)tsgid, domain->gcaps_elig.bits)|!nvgpu_test_bit((u32)tsgid % 64U, domain->gcaps_elig.bits)|'
mut M5-no-filter-in-append_prio common/fifo/runlist.c '0,/if (nvgpu_runlist_gcaps_skip(domain, tsgid)) {/s//if (false \&\& nvgpu_runlist_gcaps_skip(domain, tsgid)) {/'
mut M6-no-filter-in-append_low common/fifo/runlist.c '/nvgpu_runlist_append_low(struct/,/^}/s|if (nvgpu_runlist_gcaps_skip(domain, tsgid)) {|if (false \&\& nvgpu_runlist_gcaps_skip(domain, tsgid)) {|'
mut M7-stale-filter-after-unbind common/fifo/runlist.c 's|^\tdomain->gcaps_filter = |\tif (f->g->gcaps != NULL) domain->gcaps_filter = |'
mut M8-bind-without-busy-check common/fifo/gcaps.c 's|if (g->gcaps != NULL) {|if (false) {|'
# patch 0002: TSG events and (R36) the shadow-domain guard
mut E1-no-release-event common/fifo/gcaps.c 's|^\t\tg->gcaps_ev->tsg_release(g->gcaps_ev->priv, tsgid);|\t\t(void)tsgid;|'
mut E2-no-replay-on-bind common/fifo/gcaps.c 's|^\t\t\tnvgpu_gcaps_report(hook, \&f->tsg\[tsgid\]);|\t\t\t(void)hook;|'
mut E3-events-after-unbind common/fifo/gcaps.c 's|^\tg->gcaps_ev = NULL;|\t(void)0;|'
mut E4-no-unbind-event common/fifo/tsg.c '/^int nvgpu_tsg_unbind_channel(/,/^}/s|^\tnvgpu_gcaps_tsg_update(g, tsg);|\t(void)0;|'
mut E5-no-open-event common/fifo/tsg.c '/^struct nvgpu_tsg \*nvgpu_tsg_open(/,/^}/s|^\tnvgpu_gcaps_tsg_update(g, tsg);|\t(void)0;|'
mut E6-bound-channels-off-by-one common/fifo/gcaps.c 's|tsg->timeslice_us, tsg->ch_count);|tsg->timeslice_us, tsg->ch_count + 1U);|'
if [[ $line == r35* ]]; then
	mut S2-no-stock-report-r35 common/fifo/runlist.c 's|^\t\tnvgpu_gcaps_stock(f->g, stock);|\t\t(void)0;|'
	mut G1-filter-with-second-domain common/fifo/runlist.c 's|domain->gcaps_filter = !stock \&\&|domain->gcaps_filter = true \&\&|'
fi
if [[ $line == r36* ]]; then
	mut S1-no-stock-report common/fifo/runlist.c 's|^\t\tnvgpu_gcaps_stock(g, stock);|\t\t(void)0;|'
	mut E7-filter-with-user-domain common/fifo/runlist.c '/^static bool nvgpu_runlist_gcaps_domain(/,/^}/s|^\treturn !stock;|\treturn true;|'
fi
# patch 0003: resubmit, unbind, recovery, power
mut P1-resubmit-without-gk20a_busy common/fifo/gcaps.c 's|^\terr = gk20a_busy(g);|\terr = 0;|'
mut P2-resubmit-without-gk20a_idle common/fifo/gcaps.c '/^int nvgpu_gcaps_resubmit(/,/^}/s|^\tgk20a_idle(g);|\t(void)0;|'
mut P3-hardware-while-powered-off common/fifo/gcaps.c 's|if (nvgpu_is_powered_off(g)) {|if (false) {|'
mut P4-no-recovered-call common/fifo/gcaps.c 's|^\t\tg->gcaps_ev->recovered(g->gcaps_ev->priv);|\t\t(void)0;|'
mut P5-no-rebuild-on-unbind common/fifo/gcaps.c 's|^\t\terr = nvgpu_gcaps_resubmit(g);|\t\terr = 0;|'
mut P6-recovered-not-required common/fifo/gcaps.c 's/ || (hook->recovered == NULL)//'
mut P7-ids-from-64-unfiltered common/fifo/runlist.c 's|!nvgpu_test_bit((u32)tsgid, domain->gcaps_elig.bits)|((tsgid < 64U) \&\& !nvgpu_test_bit((u32)tsgid, domain->gcaps_elig.bits))|'
mut P8-resubmit-reloads-nothing common/fifo/gcaps.c 's|nvgpu_runlist_reload_ids(g, ids, true);|nvgpu_runlist_reload_ids(g, 0U, true);|'
if [[ $line == r36* ]]; then
	# patch 0008: a no-op update rebuilds while bound
	mut N1-noop-update-not-rebuilt common/fifo/runlist.c 's|if (!update \&\& (g->gcaps == NULL)) {|if (!update) {|'
	mut P9-resubmit-with-user-domain common/fifo/gcaps.c '/^int nvgpu_gcaps_resubmit(/,/^}/s|if (nvgpu_gcaps_runlists_stock(g)) {|if (false) {|'
fi
# patch 0009: gate
if [[ $line == r36* ]]; then
	mut T1-bind-enables-gated-channel hal/fifo/channel_gv11b_fusa.c 's|if (nvgpu_gcaps_enable_begin(ch)) {|if (nvgpu_gcaps_enable_begin(ch) \|\| true) {|'
else
	mut T1-bind-enables-gated-channel hal/fifo/channel_gm20b_fusa.c 's|if (nvgpu_gcaps_enable_begin(c)) {|if (nvgpu_gcaps_enable_begin(c) \|\| true) {|'
	mut T11-ga10b-bind-enables-gated-channel hal/fifo/channel_ga10b_fusa.c 's|if (nvgpu_gcaps_enable_begin(ch)) {|if (nvgpu_gcaps_enable_begin(ch) \|\| true) {|'
fi
mut T2-enable-ignores-gate common/fifo/gcaps.c '/^void nvgpu_gcaps_channel_enable(/,/^}/s|if (nvgpu_gcaps_enable_begin(ch)) {|if (nvgpu_gcaps_enable_begin(ch) \|\| true) {|'
mut T3-no-preempt common/fifo/gcaps.c 's|^\t\tif (tsgid == NVGPU_INVALID_TSG_ID) {|\t\tif (true) {|'
mut T4-end-reloads common/fifo/gcaps.c '/^int nvgpu_gcaps_gate(/,/^}/s|^\tgk20a_idle(g);|\t(void)nvgpu_runlist_reload_ids(g, 1U, true); gk20a_idle(g);|'
mut T5-enable-before-preempt common/fifo/gcaps.c '/^int nvgpu_gcaps_gate(/,/^}/s|^\tnvgpu_gcaps_gate_all(g, \&e, false);|\tnvgpu_gcaps_gate_all(g, \&e, false); nvgpu_gcaps_gate_all(g, \&e, true);|'
mut T6-filter-under-gate common/fifo/gcaps.c 's|^\treturn !out->all \&\& !out->gate;|\treturn !out->all;|'
mut T7-user-wish-ignored common/fifo/gcaps.c 's|} else if (ch->gcaps_enable \&\& !nvgpu_gcaps_gated_locked(g, tsg->tsgid)) {|} else if (!nvgpu_gcaps_gated_locked(g, tsg->tsgid)) {|'
mut T8-unbind-leaves-gated common/fifo/gcaps.c '/^static int nvgpu_gcaps_ungate(struct gk20a \*g)$/,/^}/s|^\tnvgpu_gcaps_gate_all(g, \&e, true);|\t(void)e;|'
mut T10-no-rebuild-after-recovery common/fifo/gcaps.c 's|^\t\tg->gcaps_gate_reload = true;|\t\t(void)0;|'
mut T9-disable-without-wish common/fifo/gcaps.c '/^void nvgpu_gcaps_channel_disable(/,/^}/s|^\tch->gcaps_enable = false;|\t(void)0;|'
# final rebuild of the unmutated tree
nice -n 10 make --no-print-directory -C $us NVGPU_NEXT_SRC=$here/nvgpu-next CC="gcc -I$drv/common" "${mkflags[@]}" -j2 libnvgpu core >$tmp/mut-build.log 2>&1 && echo restored
fi
if [[ $profile == full ]]; then
	# patch 0003's call sites in common/rc/rc.c (CONFIG_NVGPU_RECOVERY) and patch 0005
	mut F1-no-recovered-after-rc_fifo_recover common/rc/rc.c '/^void nvgpu_rc_fifo_recover(/,/^}/s|^\tnvgpu_gcaps_recovered(g);|\t(void)0;|'
	mut F2-no-recovered-after-mmu-fault common/rc/rc.c '/^[a-z].* nvgpu_rc_mmu_fault\(_recovery\)\{0,1\}(struct gk20a/,/^}/s|^\tnvgpu_gcaps_recovered(g);|\t(void)0;|'
	mut F3-no-timeslice-event common/fifo/tsg.c '/^int nvgpu_tsg_set_timeslice(/,/^}/s|^\tnvgpu_gcaps_tsg_update(g, tsg);|\t(void)0;|'
fi

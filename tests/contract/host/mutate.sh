#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Mutations of gcaps.ko's backend half (module/gcaps/backend.c, which the host compiles) and of
# gcaps-contract-host (src/lib.rs, the headers): each breaks one thing a test guards; the named
# test target must then fail. Run by hand (about 15 s per mutation): tests/contract/host/mutate.sh [name...]
# Restores the sources afterwards (git checkout of the mutated file).
set -u
cd "$(dirname "$0")"
root=$(git rev-parse --show-toplevel)

# name % file % text (literal; \n, \t escapes) % replacement % test target
mutations=(
"M01-abi-unchecked%../../../module/gcaps/backend.c%if (ops->abi != GCAPS_BACKEND_ABI) {%if (0) {%contract"
"M02-register-twice%../../../module/gcaps/backend.c%if (gcaps_be.ops)\n\t\treturn -EBUSY;%if (0)\n\t\treturn -EBUSY;%contract"
"M03-events-not-recorded%../../../module/gcaps/backend.c%__set_bit(tsgid, gcaps_ev_dirty);%(void)0;%contract"
"M04-publish-forgets-released%../../../module/gcaps/backend.c%words[i] & ~gcaps_snap_released[i];%words[i];%contract"
"M05-release-not-off-at-once%../../../module/gcaps/backend.c%__clear_bit(tsgid, gcaps_snap.bits);%(void)0;%contract"
"M06-resubmit-not-called%../../../module/gcaps/backend.c%ret = gcaps_be.ops->resubmit(gcaps_be.drv);%ret = 0;%contract"
"M07-work-in-resubmit-edeadlk%src/lib.rs%if e == EDEADLK { EAGAIN } else { e }%e%contract"
"M08-recovered-dropped%../../../module/gcaps/backend.c%WRITE_ONCE(gcaps_ev_recovered, true);%(void)0;%contract"
"M09-no-detach%../../../module/gcaps/backend.c%gcaps_be.ops->detach(gcaps_be.drv);%(void)0;%contract"
"M10-unregister-noop%src/lib.rs%if g.forget() {%if false {%contract"
"M11-exit-not-marked%src/lib.rs%g.exits.mark(f.r.slot);%let _ = f;%contract"
"M12-rt-update-no-drain%src/lib.rs%let pending = rt && self.pending();%let pending = false;%contract"
"M13-events-kept-on-unbind%../../../module/gcaps/backend.c%WRITE_ONCE(gcaps_be_stock_on, false);\n\tgcaps_ev_clear();\n\treturn true;%WRITE_ONCE(gcaps_be_stock_on, false);\n\treturn true;%contract"
"M14-calls-unbound-accepted%../../../module/gcaps/backend.c%if (!READ_ONCE(gcaps_be.ops)) {%if (0) {%contract"
"M15-is-err-boundary%src/lib.rs%>= (-4095isize) as usize%>= (-4096isize) as usize%contract"
"M16-resubmit-error-ignored%src/lib.rs%Applied::from_kind(unsafe { glue::gcaps_glue_be_apply() })?;%Applied::from_kind(unsafe { glue::gcaps_glue_be_apply() }.max(0))?;%contract"
"M17-close-no-release%src/lib.rs%g.update(rt, |c, env| c.release(env, f.r));%let _ = (rt, f);%contract"
"M18-load-keeps-core%src/lib.rs%g.core = Core::new();%%contract"
"M19-unregister-in-detach%../../../module/gcaps/backend.c%if (!gcaps_module_get())\n\t\treturn;%gcaps_module_get();%contract"
"M20-eligible-ignores-all%../../../module/gcaps/backend.c%*out = gcaps_snap;%*out = gcaps_snap;\n\t\tout->all = false;%contract"
"M23-tsgid-unchecked%../../../module/gcaps/backend.c%if (tsgid >= GCAPS_BE_MAX_TSGS) {\n\t\tgcaps_be_misuse%if (0) {\n\t\tgcaps_be_misuse%contract"
"M24-foreign-handle-accepted%../../../module/gcaps/backend.c%const char *what)\n{\n\tif (be != &gcaps_be) {%const char *what)\n{\n\tif (0) {%contract"
"M27-unload-keeps-clients%src/lib.rs%        core.release(&mut env, f.r);%        let _ = (&core, &mut env, f);%contract"
"M28-work-item-noop%src/lib.rs%            core.apply_events(&mut env, exits);\n        }\n        true%            let _ = (core, &mut env, exits);\n        }\n        true%c_api"
"M29-stock-dropped%../../../module/gcaps/backend.c%WRITE_ONCE(gcaps_be_stock_on, on);%(void)on;%contract"
"M30-work-fn-applies-nothing%../../../module/gcaps/backend.c%if (ctx && !gcaps_rust_work(ctx))%if (0 && ctx && !gcaps_rust_work(ctx))%c_api"
"M32-gate-not-dispatched%../../../module/gcaps/backend.c%if (gcaps_mech == GCAPS_BE_MECH_RELOAD) {%if (1) {%contract"
"M33-gate-mechanism-unchecked%../../../module/gcaps/backend.c%if (!(ops->mechanisms & gcaps_mech)) {%if (0) {%contract"
"M34-snapshot-says-reload%../../../module/gcaps/backend.c%gcaps_snap.gate = mech == GCAPS_BE_MECH_GATE;%gcaps_snap.gate = false;%contract"
"M35-gate-answer-ignored%../../../module/gcaps/backend.c%\tif (ret == GCAPS_BE_GATE_PREEMPTED)\n\t\treturn GCAPS_UPDATE_PREEMPT;%%contract"
"M36-mechanisms-unchecked%../../../module/gcaps/backend.c%if (!!(ops->mechanisms & GCAPS_BE_MECH_GATE) != !!ops->gate) {%if (0) {%contract"
"M31-released-ids-kept%../../../module/gcaps/backend.c%\tbitmap_zero(gcaps_snap_released, GCAPS_BE_MAX_TSGS);%\t(void)0;%c_api"
"M21-header-field-order%include/gcaps_host.h%uint32_t bound;\t\t\t/* 1: a driver is bound */\n\tuint32_t loaded;%uint32_t loaded;\n\tuint32_t bound;%c_api"
"M22-header-state-value%include/gcaps_host.h%#define GCAPS_HOST_PENDING\t2%#define GCAPS_HOST_PENDING\t3%c_api"
"M25-kernel-types-unguarded%include/gcaps_backend_user.h%#ifndef GCAPS_HAVE_KERNEL_TYPES\ntypedef uint32_t u32;\ntypedef uint64_t u64;\n#endif%typedef uint32_t u32;\ntypedef uint64_t u64;%c_api"
"M26-header-not-extern-c%include/gcaps_host.h%#ifdef __cplusplus\nextern \"C\" {\n#endif%#ifdef __cplusplus\nextern \"C++\" {\n#endif%c_api")

want=("$@")
fail=0
for m in "${mutations[@]}"; do
	IFS='%' read -r name file from to target <<<"$m"
	if [ ${#want[@]} -gt 0 ] && [[ ! " ${want[*]} " == *" $name "* ]]; then
		continue
	fi
	FROM="$from" TO="$to" perl -0pi -e '
		BEGIN { $f = $ENV{FROM}; $t = $ENV{TO}; $f =~ s/\\n/\n/g; $f =~ s/\\t/\t/g;
			$t =~ s/\\n/\n/g; $t =~ s/\\t/\t/g; $n = 0 }
		$n += s/\Q$f\E/$t/;
		END { exit($n == 1 ? 0 : 3) }' "$file"
	if [ $? -ne 0 ]; then
		echo "$name: pattern not found once in $file"
		git checkout -q -- "$file"
		fail=1
		continue
	fi
	out=$(timeout 300 nice cargo test --locked -p gcaps-contract-host --test "$target" 2>&1)
	rc=$?
	git checkout -q -- "$file"
	failed=$(sed -n '/^failures:$/,/^test result/p' <<<"$out" | grep -E '^    [a-z_0-9]+$' | sort -u | tr -d ' ' | tr '\n' ' ')
	if [ $rc -eq 0 ]; then
		echo "$name: NOT CAUGHT"
		fail=1
	elif [ -n "$failed" ]; then
		echo "$name: caught by $failed"
	else
		echo "$name: caught (rc $rc: $(grep -m1 -E 'error|timed out|panicked' <<<"$out"))"
	fi
done
cd "$root" && git diff --quiet -- tests/contract/host module/gcaps/backend.c || { echo "sources not restored"; exit 1; }
exit $fail

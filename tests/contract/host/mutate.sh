#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Mutations of gcaps-contract-host: each breaks one thing a test guards; the named test target
# must then fail. Run by hand (about 15 s per mutation): tests/contract/host/mutate.sh [name...]
# Restores the sources afterwards (git checkout of the mutated file).
set -u
cd "$(dirname "$0")"
root=$(git rev-parse --show-toplevel)

# name % file % text (literal; \n, \t escapes) % replacement % test target
mutations=(
"M01-abi-unchecked%src/lib.rs%o.abi != GCAPS_BACKEND_ABI ||%%contract"
"M02-register-twice%src/lib.rs%if g.be.is_some() {%if false {%contract"
"M03-events-not-recorded%src/lib.rs%set_bit(&mut e.dirty, t, true);%let _ = &mut e.dirty;%contract"
"M04-publish-forgets-released%src/lib.rs%*o = w & !r;%*o = *w; let _ = r;%contract"
"M05-release-not-off-at-once%src/lib.rs%set_bit(&mut s.words, t, false);%let _ = &mut s.words;%contract"
"M06-resubmit-not-called%src/lib.rs%let rc = unsafe { f(b.drv) };%let rc: c_int = { let _ = f; 0 };%contract"
"M07-work-in-resubmit-edeadlk%src/lib.rs%if e == EDEADLK { EAGAIN } else { e }%e%contract"
"M08-recovered-dropped%src/lib.rs%lock(&EVENTS).recovered = true;%drop(lock(&EVENTS));%contract"
"M09-no-detach%src/lib.rs%unsafe { detach(drv) };%let _ = (detach, drv);%contract"
"M10-unregister-noop%src/lib.rs%if g.forget() {%if false {%contract"
"M11-exit-not-marked%src/lib.rs%g.exits.mark(f.r.slot);%let _ = f;%contract"
"M12-rt-update-no-drain%src/lib.rs%let pending = rt && self.pending();%let pending = false;%contract"
"M13-events-kept-on-unbind%src/lib.rs%BOUND.store(false, Ordering::Release);\n        lock(&EVENTS).clear();%BOUND.store(false, Ordering::Release);%contract"
"M14-calls-unbound-accepted%src/lib.rs%if !BOUND.load(Ordering::Acquire) {%if false {%contract"
"M15-is-err-boundary%src/lib.rs%>= (-4095isize) as usize%>= (-4096isize) as usize%contract"
"M16-resubmit-error-ignored%src/lib.rs%if rc == 0 {%if rc == 0 || true {%contract"
"M17-close-no-release%src/lib.rs%g.update(rt, |c, env| c.release(env, f.r));%let _ = (rt, f);%contract"
"M18-load-keeps-core%src/lib.rs%g.core = Core::new();%%contract"
"M19-unregister-in-detach%src/lib.rs%if DETACHING.with(Cell::get) {%if false {%contract"
"M20-eligible-ignores-all%src/lib.rs%all: s.all,\n            ..Default::default()%all: false,\n            ..Default::default()%contract"
"M23-tsgid-unchecked%src/lib.rs%if t >= MAX_TSGS {%if false {%contract"
"M24-foreign-handle-accepted%src/lib.rs%    if be != handle() {\n        violation(&format!(\"{what}() with a handle gcaps did not hand out\"));%    if false {\n        violation(&format!(\"{what}() with a handle gcaps did not hand out\"));%contract"
"M27-unload-keeps-clients%src/lib.rs%        core.release(&mut env, f.r);%        let _ = (&core, &mut env, f);%contract"
"M28-work-item-noop%src/lib.rs%    core.apply_events(&mut env, exits);\n    Ok(0)%    let _ = (core, &mut env, exits);\n    Ok(0)%c_api"
"M29-stock-dropped%src/lib.rs%            STOCK.store(on, Ordering::Release);%            let _ = on;%contract"
"M21-header-field-order%include/gcaps_host.h%uint32_t bound;\t\t\t/* 1: a driver is bound */\n\tuint32_t loaded;%uint32_t loaded;\n\tuint32_t bound;%c_api"
"M22-header-state-value%include/gcaps_host.h%#define GCAPS_HOST_PENDING\t2%#define GCAPS_HOST_PENDING\t3%c_api"
"M25-kernel-types-unguarded%include/gcaps_backend_user.h%#ifndef GCAPS_HAVE_KERNEL_TYPES\ntypedef uint32_t u32;\ntypedef uint64_t u64;\n#endif%typedef uint32_t u32;\ntypedef uint64_t u64;%c_api"
"M26-header-not-extern-c%include/gcaps_host.h%#ifdef __cplusplus\nextern \"C\" {\n#endif%#ifdef __cplusplus\nextern \"C++\" {\n#endif%c_api"
)

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
cd "$root" && git diff --quiet -- tests/contract/host || { echo "sources not restored"; exit 1; }
exit $fail

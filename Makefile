# gcaps top-level tasks. Targets are one-liners; the logic lives in scripts.
# `make help` lists the targets (a `## text` comment after a target documents it).

.DEFAULT_GOAL := help
SHELL := /bin/bash
PREFIX ?= /usr/local
DESTDIR ?=

.PHONY: help analyze test nvgpu-test nvgpu-linux-glue nvgpu-oot-test kernel kernel-debug kernel-rt kernel-510 kernel-510-arm64 kernel-arm64-rust vm-test vm-test-arm64-rust vm-selftest vm-bench fuzz-fresh bench install uninstall modules dkms-source dkms-install

# `make modules`: the kernel tree to build gcaps.ko against, and its arch (docs/jetson.md).
KDIR ?= /lib/modules/$(shell uname -r)/build
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"$$/\1/p' dkms.conf)

help: ## List the targets
	@awk -F':.*## ' '/^[a-zA-Z0-9_-]+:.*## / { printf "  %-18s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)

analyze: ## Main job: analyse the embedded case-study taskset (gcaps analyze)
	cargo run --release --locked -q -p gcaps -- analyze

test: ## All tests: fmt, clippy, cargo test, install test, rustc-1.85 policy + core check, kernel + VM tests
	tests/run-all.sh

nvgpu-test: ## Build nvgpu's host unit framework (R35.6, R36.4; NVGPU_SRC) stock and with nvgpu/patches/<line>: NVIDIA's FIFO units (same counts) and our gcaps unit
	tests/nvgpu/run.sh

nvgpu-linux-glue: nvgpu-test ## Compile the series' os/linux glue against the 5.10 arm64 test kernel (make kernel-510-arm64) with nvgpu's headers
	tests/nvgpu/linux-glue.sh

nvgpu-oot-test: ## Build NVIDIA's R36 nvgpu.ko out of tree for arm64 (stock and with the series; NVGPU_OOT_SRC) and load it beside gcaps.ko in the arm64 6.12 VM
	tests/nvgpu-oot/run.sh

kernel: ## Build the fast test kernel (Linux 6.12 + Rust, gcc) into ~/.cache/gcaps/kernel/
	tests/vm/build-kernel.sh fast

kernel-debug: ## Build the debug test kernel (clang; PREEMPT, lockdep, KASAN, detectors) into ~/.cache/gcaps/kernel/
	tests/vm/build-kernel.sh debug

kernel-rt: ## Build the PREEMPT_RT test kernel (gcc; lockdep, detectors) for VM_KERNEL=rt
	tests/vm/build-kernel.sh rt

kernel-510: ## Build the Linux 5.10 debug kernel (x86_64, gcc, no Rust; lockdep, KASAN) for VM_KERNEL=debug510
	VM_ARCH=x86_64 tests/vm/build-kernel.sh debug510

kernel-510-arm64: ## Build the Linux 5.10 debug kernel for arm64 (cross gcc) for VM_ARCH=arm64 VM_KERNEL=debug510
	VM_ARCH=arm64 tests/vm/build-kernel.sh debug510

kernel-arm64-rust: ## Build the Linux 6.12 arm64 debug kernel with Rust (clang-14; lockdep, KASAN) for VM_ARCH=arm64 VM_KERNEL=debug
	VM_ARCH=arm64 tests/vm/build-kernel.sh debug

vm-test: ## Build modules + tests, boot the test kernel in QEMU, run tests/vm/tests/* (VM_KERNEL=fast|debug|rt|debug510|oot, VM_ARCH)
	tests/vm/run.sh

vm-test-arm64-rust: ## gcaps.ko host A on arm64: the arm64 6.12 Rust kernel, test 41-gpu-priority (or VM_TESTS) under TCG; not in make test
	VM_ARCH=arm64 VM_KERNEL=debug VM_TESTS="$${VM_TESTS:-tests/vm/tests/41-gpu-priority.sh}" tests/vm/run.sh

vm-bench: ## VM benchmarks that print figures (tests/vm/bench/*; not in make test): the fast kernel unless VM_KERNEL
	VM_KERNEL=$${VM_KERNEL:-fast} VM_RUN_NAME=vm-bench VM_TESTS="$$(ls tests/vm/bench/*.c tests/vm/bench/*.sh | grep -v /check.sh | tr '\n' ' ')" tests/vm/run.sh

vm-selftest: ## Prove the VM harness catches bad tests, forged results and every kernel detector's report
	tests/vm/selftest.sh

fuzz-fresh: ## Property tests with a fresh random seed (not CI; CI uses fixed seeds)
	tools/analysis/fuzz-fresh.sh

bench: ## Benchmarks that print figures: the analysis, the policy decision, the Fig. 8 sweep set
	cargo bench --locked -p gcaps-analysis --bench analyze
	cargo bench --locked -p gcaps-runlist --bench decide
	tools/gcaps/bench.sh

install: ## Build and install libgcaps (.so, .a, gcaps.h, gcaps.pc), linux/gcaps.h, gcapsctl (PREFIX=/usr/local, DESTDIR)
	PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" libgcaps/install.sh install

modules: ## Build gcaps.ko against KDIR (default: the running kernel; ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- for a Jetson)
	$(MAKE) -C $(KDIR) M=$(CURDIR)/module/gcaps $(if $(ARCH),ARCH=$(ARCH)) $(if $(CROSS_COMPILE),CROSS_COMPILE=$(CROSS_COMPILE)) modules

dkms-source: ## Assemble the DKMS source tree in /usr/src/gcaps-<version> (DESTDIR)
	module/dkms-source.sh "$(DESTDIR)/usr/src/gcaps-$(VERSION)"

dkms-install: dkms-source ## dkms-source, then `dkms install` for the running kernel (root)
	dkms install gcaps/$(VERSION)

uninstall: ## Remove what `make install` installed (same PREFIX and DESTDIR)
	PREFIX="$(PREFIX)" DESTDIR="$(DESTDIR)" libgcaps/install.sh uninstall

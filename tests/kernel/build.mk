# SPDX-License-Identifier: GPL-2.0
# tests/kernel/: the debug kernel (tinyconfig + debug.config: KASAN, lockdep,
# PROVE_RCU, DEBUG_ATOMIC_SLEEP, ...) built from Debian's linux-source-6.1 in
# the cache, and every VM test but live_vm run again on it with the module
# built for it.

DEBUG_MODULE_DIR := $(BUILD)/kernel-debug
DEBUG_INITRAMFS := $(BUILD)/vm/initramfs-debug.cpio.gz
# The live viewer's terminal test asks nothing of the module that the
# others do not (2.5 of the run's 16 minutes).
DEBUG_VM_TESTS := $(filter-out $(VIEW_LIVE_VM),$(VM_TESTS))

.PHONY: check-debug debug-kernel
## debug-kernel: build the 6.1 debug kernel into the cache
debug-kernel:
	$(Q)tests/kernel/build-debug-kernel.sh >/dev/null

# The module is signed as a copy: kbuild leaves mkm.ko as it is when
# nothing changed, so one signed in place would be the next run's
# "unsigned" module, and the kernel would load it.
## check-debug: every VM test but the live viewer's on the 6.1 debug kernel (KASAN, lockdep, PROVE_RCU), its module signed and enforced
check-debug: $(DEBUG_VM_TESTS) $(foreach f,$(VM_FILES),$(firstword $(subst :, ,$(f))))
	$(Q)kdir=$$(tests/kernel/build-debug-kernel.sh) && \
	mkdir -p $(DEBUG_MODULE_DIR) && \
	for f in $(filter-out kernel/uapi/%,$(KERNEL_SRCS)); do \
		ln -sfn $(CURDIR)/$$f $(DEBUG_MODULE_DIR)/; done && \
	ln -sfn $(CURDIR)/kernel/uapi $(DEBUG_MODULE_DIR)/uapi && \
	echo "  KBUILD   $(DEBUG_MODULE_DIR)/mkm.ko (debug kernel)" && \
	$(MAKE) --no-print-directory -C $$kdir M=$(abspath $(DEBUG_MODULE_DIR)) \
		modules >$(DEBUG_MODULE_DIR)/build.log 2>&1 || \
		{ cat $(DEBUG_MODULE_DIR)/build.log >&2; exit 1; } ; \
	echo "  SIGN     $(DEBUG_MODULE_DIR)/mkm-signed.ko (the debug kernel's own key)" && \
	cp $(DEBUG_MODULE_DIR)/mkm.ko $(DEBUG_MODULE_DIR)/mkm-signed.ko && \
	$$kdir/scripts/sign-file sha256 $$kdir/certs/signing_key.pem \
		$$kdir/certs/signing_key.x509 $(DEBUG_MODULE_DIR)/mkm-signed.ko && \
	echo "  CPIO     $(DEBUG_INITRAMFS)" && \
	tests/vm/mkinitramfs.sh -o $(DEBUG_INITRAMFS) \
		-m $(DEBUG_MODULE_DIR)/mkm-signed.ko $(addprefix -t ,$(DEBUG_VM_TESTS)) \
		$(addprefix -f ,$(VM_FILES)) && \
	echo "  VM       $(VM_DIR)/check-debug.log (debug kernel, module.sig_enforce=1)" && \
	$(VM_RUN) -k $$kdir/arch/x86/boot/bzImage -i $(DEBUG_INITRAMFS) \
		-a module.sig_enforce=1 \
		-l $(VM_DIR)/check-debug.log -t 3000 -T 600 -e $(VM_ICOUNT_LIST) && \
	BUILD=$(BUILD) tests/signed/check.sh -k $$kdir/arch/x86/boot/bzImage \
		-s $(DEBUG_MODULE_DIR)/mkm-signed.ko $(DEBUG_MODULE_DIR)/mkm.ko $(MKM_TOOL)

# check-kernels: every kernel of tests/kernel/matrix (6.1 to 7.2, generic
# and PREEMPT_RT), each with mkm.ko built for it, booted with the ABI,
# security, command-line and accuracy tests; a table kernel x (build, boot,
# passed, failed, splats) at the end. KERNELS=6.12,7.2 picks some.
# KERNELS_REFERENCE_REPORT=FILE: the reference kernel's row is check-vm's
# (its report, run.sh -r), as make check gives it, not booted again.
KERNELS_VM_TESTS := $(ABI_TESTS) $(CLI_TEST) $(CLI_FLIGHT_TEST) $(WHOLE_TEST)
KERNELS ?=
KERNELS_REFERENCE_REPORT ?=
# Guests booted at once: each is one host thread (TCG, thread=single), so
# KERNELS_JOBS=2 halves the boots' time on an otherwise quiet 2-core
# machine; beside other load the guests' timing tests (the noise report's
# periods) flake, so make check boots one at a time.
KERNELS_JOBS ?= 1

.PHONY: check-kernels check-signed
## check-kernels: the ABI, CLI and accuracy tests on every kernel of the matrix, a table (KERNELS=...); then check-signed
check-kernels: $(KERNELS_VM_TESTS) $(foreach f,$(VM_FILES),$(firstword $(subst :, ,$(f)))) \
		$(MODULE) $(MKM_TOOL)
	$(Q)BUILD=$(BUILD) tests/kernel/kernels.sh check -j $(KERNELS_JOBS) $(if $(KERNELS),-n $(KERNELS)) \
		$(if $(KERNELS_REFERENCE_REPORT),-r $(KERNELS_REFERENCE_REPORT)) \
		-e $(VM_ICOUNT_LIST) $(KERNELS_VM_TESTS) $(VM_FILES)
	$(Q)BUILD=$(BUILD) tests/signed/check.sh $(MODULE) $(MKM_TOOL)

# check-signed: a kernel that loads only signed modules (booted with
# module.sig_enforce=1, and with lockdown=integrity as under Secure Boot)
# refuses the unsigned module, and mkm says why in one line (two boots of
# the reference kernel, 16 s). check-kernels runs it last.
## check-signed: the unsigned module refused under module.sig_enforce=1 and lockdown=integrity, and mkm's line saying why
check-signed: $(MODULE) $(MKM_TOOL)
	$(Q)BUILD=$(BUILD) tests/signed/check.sh $(MODULE) $(MKM_TOOL)

# check-kernels-debug: the same on the debug twins of the kernels where the
# risk is (build-debug-kernel.sh: 6.12 with PREEMPT_RT, 7.2; 6.1's is
# check-debug's), each built once into the cache (5 to 15 minutes each).
DEBUG_KERNELS ?= 6.12-rt,7.2

.PHONY: check-kernels-debug
## check-kernels-debug: check-kernels' tests on the debug kernels of 6.12-rt and 7.2 (DEBUG_KERNELS=...)
check-kernels-debug: $(KERNELS_VM_TESTS) $(foreach f,$(VM_FILES),$(firstword $(subst :, ,$(f))))
	$(Q)BUILD=$(BUILD) tests/kernel/kernels.sh check -d -j $(KERNELS_JOBS) -n $(DEBUG_KERNELS) \
		-e $(VM_ICOUNT_LIST) $(KERNELS_VM_TESTS) $(VM_FILES)

# check-kernels-arm64: the same on every kernel of tests/kernel/matrix-arm64
# (Debian's arm64 6.1, 6.12 and 7.2, generic and PREEMPT_RT), mkm.ko
# cross-built for each, booted in qemu-system-aarch64 -M virt -cpu max
# (TCG) with check-kernels' tests (ABI, CLI, flight recorder, system-wide,
# the -icount boot) cross-built for arm64 into $(BUILD)/arm64
# (aarch64-linux-gnu-gcc against Debian's arm64 libraries, which
# tests/arm64/sysroot.sh fetches; pkg-config, which would name this
# machine's, is not asked), the same table. make check boots one of them
# (check-arm64): each arm64 boot under TCG takes about 5 minutes, more
# than the budget leaves for six (tests/README.md). ARM64_KERNELS=6.1,6.12
# picks some; fetches what it lacks first.
ARM64_BUILD := $(BUILD)/arm64
arm64 = $(patsubst $(BUILD)/%,$(ARM64_BUILD)/%,$(1))
# check-kernels' tests, and of its files those they run (mkm, the
# workloads, examples/flight): the others are x86-64 binaries of this
# machine.
ARM64_VM_TESTS := $(call arm64,$(KERNELS_VM_TESTS))
ARM64_VM_FILES := $(call arm64,$(MKM_TOOL)):/bin/mkm \
	$(call arm64,$(CLI_WORKLOAD)):/bin/cli_workload \
	$(call arm64,$(WHOLE_WORKLOAD)):/bin/whole_workload \
	$(call arm64,$(FLIGHT_EXAMPLE)):/bin/flight
ARM64_KERNELS ?=

# This tree's make for arm64 into $(ARM64_BUILD), a recipe's command to
# which the targets are appended (arm64-tests, bench-vm-arm64).
ARM64_MAKE = sysroot=$$(tests/arm64/sysroot.sh) && \
	lib="$$sysroot/usr/lib/aarch64-linux-gnu $$sysroot/lib/aarch64-linux-gnu" && \
	PKG_CONFIG_LIBDIR=/nonexistent $(MAKE) --no-print-directory BUILD=$(ARM64_BUILD) \
		CC=aarch64-linux-gnu-gcc AR=aarch64-linux-gnu-ar \
		CFLAGS="-O2 -g -I$$sysroot/usr/include -I$$sysroot/usr/include/aarch64-linux-gnu \
			-I$$sysroot/usr/include/cairo $$(printf -- '-L%s ' $$lib) \
			-Wl,-rpath-link=$$(echo $$lib | tr ' ' :)"

.PHONY: arm64-tests check-kernels-arm64
## arm64-tests: check-kernels' tests and the mkm command cross-built for arm64, into build/arm64
arm64-tests:
	$(Q)$(ARM64_MAKE) \
		$(ARM64_VM_TESTS) $(foreach f,$(ARM64_VM_FILES),$(firstword $(subst :, ,$(f))))

## check-kernels-arm64: check-kernels' tests on every arm64 kernel of tests/kernel/matrix-arm64, its table (ARM64_KERNELS=...)
check-kernels-arm64: arm64-tests
	$(Q)tests/kernel/kernels.sh -a arm64 fetch $(if $(ARM64_KERNELS),-n $(ARM64_KERNELS))
	$(Q)BUILD=$(BUILD) tests/kernel/kernels.sh -a arm64 check -j $(KERNELS_JOBS) \
		$(if $(ARM64_KERNELS),-n $(ARM64_KERNELS)) -e $(VM_ICOUNT_LIST) \
		$(ARM64_VM_TESTS) $(ARM64_VM_FILES)

# check-arm64: make check's arm64 row, Debian's generic arm64 6.12; the
# other five are check-kernels-arm64's.
ARM64_CHECK_KERNEL ?= 6.12
.PHONY: check-arm64
## check-arm64: check-kernels' tests on Debian's generic arm64 6.12 (make check's arm64 row)
check-arm64:
	$(Q)$(MAKE) --no-print-directory check-kernels-arm64 ARM64_KERNELS=$(ARM64_CHECK_KERNEL)

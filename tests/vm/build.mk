# SPDX-License-Identifier: GPL-2.0
# tests/vm/: the QEMU harness. The initramfs carries mkm.ko, $(VM_TESTS)
# (test binaries the parts append, run in that order in the guest) and
# $(VM_FILES) (extra SRC:DEST pairs, e.g. a helper a test execs); check-vm
# boots it in QEMU and fails on a failed test or any kernel splat. Then it
# boots it again on one vCPU under -icount for $(VM_ICOUNT_TESTS) (names of
# tests that compare mkm's times with the kernel's: run.sh -e says why),
# and $(VM_ONE_CPU_TESTS), which every kernel runs at two vCPUs and the
# reference at one too.
#
#   make check-vm [VM_KERNEL=path] [VM_ARGS='-s 4 -T 600'] [V=1]
#   make vm-shell        an interactive shell in the guest, mkm.ko loaded

VM_DIR := $(BUILD)/vm
VM_INITRAMFS := $(VM_DIR)/initramfs.cpio.gz
# What check-vm printed: make check reads the reference kernel's row of
# check-kernels from it.
VM_REPORT := $(VM_DIR)/report.txt
# Empty: the Debian kernel make deps put in the cache.
VM_KERNEL ?=
# More tests/vm/run.sh options.
VM_ARGS ?=
export MKM_CACHE ?= $(CACHE)

VM_RUN = BUILD=$(BUILD) tests/vm/run.sh $(if $(VM_KERNEL),-k $(VM_KERNEL)) \
	$(if $(filter 1,$(V)),-v) $(VM_ARGS)
comma := ,
VM_ICOUNT_LIST = $(subst $() ,$(comma),$(strip $(VM_ICOUNT_TESTS)))
VM_REFERENCE_ICOUNT_LIST = \
	$(subst $() ,$(comma),$(strip $(VM_ICOUNT_TESTS) $(VM_ONE_CPU_TESTS)))

$(VM_INITRAMFS): tests/vm/init tests/vm/mkinitramfs.sh $(MODULE) $(VM_TESTS) \
		$(foreach f,$(VM_FILES),$(firstword $(subst :, ,$(f))))
	$(quiet) CPIO $@
	$(Q)tests/vm/mkinitramfs.sh -o $@ -m $(MODULE) \
		$(addprefix -t ,$(VM_TESTS)) $(addprefix -f ,$(VM_FILES))

## check-vm: every VM test on the reference kernel (6.1), then its -icount boot
check-vm: $(VM_INITRAMFS)
	$(quiet) VM $(VM_DIR)/check.log
	$(Q)$(VM_RUN) -i $(VM_INITRAMFS) -l $(VM_DIR)/check.log \
		-e $(VM_REFERENCE_ICOUNT_LIST) -r $(VM_REPORT)

.PHONY: vm-shell
## vm-shell: an interactive shell in the guest, mkm.ko loaded
vm-shell: $(VM_INITRAMFS)
	$(Q)$(VM_RUN) -i $(VM_INITRAMFS) -l $(VM_DIR)/shell.log -x

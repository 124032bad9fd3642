# SPDX-License-Identifier: GPL-2.0
# bench/compensation/: the claim of overhead compensation, checked:
# workloads run unmonitored and under mkm record in one boot of one virtual
# CPU under QEMU's -icount, mkm's raw and compensated figures set against
# the kernel's own (schedstat, taskstats) and the workloads' clocks.
#
#   make bench-compensation   matmul, ping-pong, mixed, hackbench in both
#                             modes, stress-ng's switch, futex, pipe, hdd
#                             and cpu, in 5 boots; the table
#                             [CB_BOOTS=... CB_PP_ROUNDS=... CB_MX_ITER=...
#                              CB_MM_SIZE=... CB_HB_LOOPS=...
#                              CB_SNG_OPS='switch=N ...'
#                              CB_WORKLOADS='pingpong mixed'
#                              CB_DISK=0: traces to the guest's tmpfs]
#   make check-compensation   ping-pong and mixed, small, 2 boots: fails
#                             when mkm is off (make check runs it)
# Both record to an ext4 file system on a virtio disk (CB_DISK=1).

CB_DIR := $(BUILD)/bench/compensation
CB_PROGS := $(addprefix $(CB_DIR)/,cb_pingpong cb_mixed cb_time cb_taskstats)
CB_IMAGE := $(CB_DIR)/initramfs.cpio.gz
# hackbench, from Debian's rt-tests, and stress-ng (make deps installs
# both): programs nobody here wrote, so that compensation is not tuned to
# our own.
CB_HACKBENCH ?= /usr/bin/hackbench
CB_STRESS_NG ?= /usr/bin/stress-ng
CB_XZ ?= /usr/bin/xz
CB_SQLITE ?= /usr/bin/sqlite3

.PHONY: bench-compensation check-compensation check-compare
all: $(CB_PROGS)

# compare.py's verdicts on synthetic figures (no VM): the table's and the
# exit status's are one; redecide.py's walk of a pair's wakeups gives the
# runs on its leads make (check-host runs both).
CHECK_HOST += check-compare
## check-compare: compare.py's verdicts and redecide.py's walk on synthetic figures (in check-host)
check-compare: $(MKM_TOOL)
	$(quiet) TEST tests/compensation/test_compare.py
	$(Q)MKM=$(MKM_TOOL) python3 tests/compensation/test_compare.py $(if $(filter 1,$(V)),-v,-q)
	$(quiet) TEST tests/compensation/test_redecide.py
	$(Q)python3 tests/compensation/test_redecide.py $(if $(filter 1,$(V)),-v,-q)

$(CB_DIR)/cb_pingpong: bench/compensation/pingpong.c
$(CB_DIR)/cb_mixed: bench/compensation/mixed.c
$(CB_DIR)/cb_time: bench/compensation/timeit.c
$(CB_DIR)/cb_pingpong $(CB_DIR)/cb_mixed $(CB_DIR)/cb_time: \
		bench/compensation/truth.c bench/compensation/truth.h
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -pthread -o $@ $(filter %.c,$^)

$(CB_DIR)/cb_taskstats: bench/compensation/taskstats.c
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

# The reference kernel's virtio disk and ext4 modules (make deps fetches
# them): the bench's traces go to a disk, as a user's do (CB_DISK, run.sh).
CB_DISK_KO := $(wildcard $(addprefix $(CACHE)/linux-image-$(KVER)/lib/modules/$(KVER)/kernel/,\
	$(shell cat bench/compensation/disk-modules)))

# Its own image: the guest's init loads mkm.ko (no monitor until mkm record
# runs), the mkm command, the workloads, the listener and the guest script.
$(CB_IMAGE): tests/vm/init tests/vm/mkinitramfs.sh $(MODULE) $(MKM_TOOL) \
		bench/compensation/build.mk bench/compensation/disk-modules $(CB_DISK_KO) \
		$(CB_PROGS) $(BUILD)/examples/matmul bench/compensation/guest.sh \
		bench/compensation/listen.sh bench/compensation/disk.sh \
		tests/compensation/calibrate_vm.sh
	$(quiet) CPIO $@
	$(Q)test -x $(CB_HACKBENCH) || { echo "no $(CB_HACKBENCH): make deps installs rt-tests" >&2; exit 1; }
	$(Q)test -x $(CB_STRESS_NG) || { echo "no $(CB_STRESS_NG): make deps installs stress-ng" >&2; exit 1; }
	$(Q)test -x $(CB_SQLITE) || { echo "no $(CB_SQLITE): make deps installs sqlite3" >&2; exit 1; }
	$(Q)tests/vm/mkinitramfs.sh -o $@ -m $(MODULE) -f $(MKM_TOOL):/bin/mkm \
		$(foreach p,$(CB_PROGS),-f $(p)) \
		-f $(BUILD)/examples/matmul:/bin/matmul \
		-f $(CB_HACKBENCH):/bin/hackbench \
		-f $(CB_STRESS_NG):/bin/stress-ng \
		-f $(CB_XZ):/opt/bin/xz -f $(CB_SQLITE):/opt/bin/sqlite3 \
		-f bench/compensation/guest.sh:/bench/guest.sh \
		-f bench/compensation/listen.sh:/bench/listen.sh \
		-f bench/compensation/disk.sh:/bench/disk.sh \
		-f tests/compensation/calibrate_vm.sh:/bench/calibrate_vm.sh \
		-f bench/compensation/disk-modules:/lib/disk/order \
		$(foreach m,$(CB_DISK_KO),-f $(m):/lib/disk/$(notdir $(m)))

CB_VM_ARGS ?= $(if $(VM_KERNEL),-k $(VM_KERNEL)) $(if $(filter 1,$(V)),-v)
export CB_VM_ARGS

## bench-compensation: the compensation claim: workloads unmonitored and recorded in 5 -icount boots, the table (docs/compensation.md)
bench-compensation: $(CB_IMAGE) $(MKM_TOOL)
	$(Q)BUILD=$(BUILD) CB_IMAGE=$(CB_IMAGE) MKM=$(MKM_TOOL) \
		bench/compensation/run.sh bench

## check-compensation: compensation against the kernel's own figures, two small -icount boots
check-compensation: $(CB_IMAGE) $(MKM_TOOL)
	$(quiet) VM $(CB_DIR)/check/boot.*.log
	$(Q)BUILD=$(BUILD) CB_IMAGE=$(CB_IMAGE) MKM=$(MKM_TOOL) \
		bench/compensation/run.sh check

# SPDX-License-Identifier: GPL-2.0
# bench/: what mkm costs, measured (docs/performance.md). Not part of make
# check, except a smoke run of each with a tiny N.
#
#   make bench-vm      cost per context switch in the guest, against ftrace,
#                      perf and LTTng, and the floor of any tracepoint probe
#                      [BENCH_ROUNDS=20000 BENCH_RUNS=5 BENCH_CONFIGS=a,b]
#   make bench-vm-arm64  bench-vm's method on an arm64 guest (mkm, ftrace,
#                      the floor) [BENCH_ARM64_KERNELS=6.12]
#   make bench-native  the sensor's hot path in userspace: ns per event and
#                      callgrind instructions per event [BENCH_NATIVE_EVENTS=...]
#   make bench-read    draining full rings in the guest: read() against
#                      mmap, under -icount; then the rings of 1 and 2 CPUs
#                      (two vCPUs, timed: -icount hangs an SMP boot)
#                      [BENCH_RING_BYTES=4194304 BENCH_READ_RUNS=3]
#   make bench-scale   cost per context switch with 1 to 60,000 tracked
#                      threads and 1 to 64 monitors, in the guest
#                      [BENCH_SCALE_THREADS=1,100,10000,60000
#                       BENCH_SCALE_MONITORS=1,8,64 BENCH_SCALE_RUNS=5]
#   make bench-monitors  opening 1,000 to 50,000 monitors, and an open's
#                      latency beside another user's CONFIGURE loop, in the
#                      guest; BENCH_MONITORS_BEFORE=old/mkm.ko runs another
#                      build of the module in the same boot first, to compare
#                      [BENCH_MONITORS=50000]
#   make bench-cpus    records per second per CPU, drops and the switch rate
#                      against the unmonitored one under stress-ng --switch,
#                      with 1, 2 and 4 vCPUs (no -icount: ratios within each
#                      boot) [BENCH_CPUS='1 2 4' BENCH_CPUS_SECONDS=3
#                      BENCH_CPUS_RUNS=5]
#   make bench-smoke   bench-native with a tiny N (check-host runs it); the
#                      guest programs' smoke run is a VM test (check-vm)

BENCH_DIR := $(BUILD)/bench
# The peers (perf, LTTng) and the floor's modules, for the bench image only.
include bench/peers/build.mk
include bench/floor/build.mk
BENCH_SWITCH := $(BENCH_DIR)/vm_switch
BENCH_READ := $(BENCH_DIR)/vm_read
BENCH_SCALE := $(BENCH_DIR)/vm_scale
BENCH_NATIVE := $(BENCH_DIR)/native
BENCH_IMAGE := $(BENCH_DIR)/initramfs.cpio.gz
BENCH_SMOKE_VM := $(BENCH_DIR)/smoke_vm
BENCH_MONITORS_PROG := $(BENCH_DIR)/vm_monitors
BENCH_MONITORS ?= 50000
BENCH_MONITORS_BEFORE ?=

BENCH_ROUNDS ?= 20000
BENCH_RUNS ?= 5
BENCH_NATIVE_EVENTS ?= 20000000
BENCH_RING_BYTES ?= 4194304
BENCH_READ_RUNS ?= 3
BENCH_SCALE_THREADS ?= 1,100,10000,60000
BENCH_SCALE_MONITORS ?= 1,8,64
BENCH_SCALE_RUNS ?= 5
BENCH_CPUS ?= 1 2 4
BENCH_CPUS_SECONDS ?= 3
BENCH_CPUS_RUNS ?= 5
STRESS_NG ?= /usr/bin/stress-ng

.PHONY: bench-vm bench-native bench-read bench-scale bench-smoke bench-kernels \
	bench-monitors bench-cpus
all: $(BENCH_SWITCH) $(BENCH_READ) $(BENCH_SCALE) $(BENCH_NATIVE) \
	$(BENCH_MONITORS_PROG)

$(BENCH_MONITORS_PROG): bench/vm_monitors.c kernel/uapi/mkm.h
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -pthread -o $@ $<

## bench-monitors: opening 1,000 to 50,000 monitors, and an open beside another user's CONFIGURE loop
bench-monitors: $(BENCH_MONITORS_PROG) $(VM_INITRAMFS)
	$(Q)printf '%s\n' \
		'$(if $(BENCH_MONITORS_BEFORE),rmmod mkm && insmod /before.ko && echo "== before: $(BENCH_MONITORS_BEFORE)" && vm_monitors $(BENCH_MONITORS) && rmmod mkm && insmod /mkm.ko &&)' \
		'echo "== this tree" && vm_monitors $(BENCH_MONITORS)' >$(BENCH_DIR)/monitors.sh
	$(Q)$(VM_RUN) -i $(VM_INITRAMFS) -f $(BENCH_MONITORS_PROG) \
		$(if $(BENCH_MONITORS_BEFORE),-f $(BENCH_MONITORS_BEFORE):/before.ko) \
		-c $(BENCH_DIR)/monitors.sh -l $(BENCH_DIR)/monitors.log -t 3600

# The switch benchmark reuses the calibration's ping-pong and keeper
# (libmonitor's internals: linked statically).
$(BENCH_SWITCH): bench/vm_switch.c $(LIBMON_A)
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -Ilibmonitor/include -Ilibmonitor/src -pthread $(CFLAGS) \
		-o $@ $< $(LIBMON_A) -lm

$(BENCH_SCALE): bench/vm_scale.c $(LIBMON_A)
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -Ilibmonitor/include -Ilibmonitor/src -pthread $(CFLAGS) \
		-o $@ $< $(LIBMON_A) -lm

$(BENCH_READ): bench/vm_read.c kernel/ring.h kernel/ring_user.h $(LIBMON_A)
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -Ilibmonitor/include $(CFLAGS) -o $@ $< $(LIBMON_A)

# The ring as the module builds it (kernel/ring.h through ring_user.h).
$(BENCH_NATIVE): bench/native.c kernel/ring.h kernel/ring_user.h \
		kernel/uapi/mkm.h
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

# Its own image: busybox, the guest programs, the module where the guest's
# init does not load it (vm_switch measures the baseline first), the
# floor's module, the peers (bench/peers/build.mk) with their libraries,
# and bench-cpus' mkm record and stress-ng.
$(BENCH_IMAGE): tests/vm/init tests/vm/mkinitramfs.sh $(MODULE) \
		$(BENCH_SWITCH) $(BENCH_READ) $(BENCH_SCALE) $(FLOOR_MODULE) \
		$(LTTNG_MODULES_STAMP) $(LTTNG_TOOLS_STAMP) $(BPF_SCHED) \
		$(MKM_TOOL) bench/vm_cpus.sh
	$(quiet) CPIO $@
	$(Q)test -x $(STRESS_NG) || { echo "no $(STRESS_NG): make deps installs stress-ng" >&2; exit 1; }
	$(Q)tests/vm/mkinitramfs.sh -o $@ \
		-f $(BENCH_SWITCH) -f $(BENCH_READ) -f $(BENCH_SCALE) \
		-f $(MKM_TOOL):/bin/mkm -f bench/vm_cpus.sh:/bin/vm_cpus \
		-f $(STRESS_NG):/bin/stress-ng \
		-f $(MODULE):/bench/mkm.ko \
		-f $(FLOOR_MODULE):/bench/floor.ko \
		$(foreach f,$(PEERS_IMAGE_FILES),-f $(f))

BENCH_VM_ARGS ?= $(if $(VM_KERNEL),-k $(VM_KERNEL)) $(if $(filter 1,$(V)),-v)
export BENCH_VM_ARGS

## bench-vm: cost per context switch in the guest under -icount, against ftrace, perf, LTTng, eBPF
bench-vm: $(BENCH_IMAGE)
	$(Q)BUILD=$(BUILD) BENCH_IMAGE=$(BENCH_IMAGE) bench/vm.sh switch \
		-n $(BENCH_ROUNDS) -r $(BENCH_RUNS) \
		$(if $(BENCH_CONFIGS),-c $(BENCH_CONFIGS))

# bench-vm's method on each kernel of the matrix (tests/kernel/matrix),
# LTTng's configurations where its modules build for the kernel
# (bench/kernels.sh): a table kernel x configuration at the end.
BENCH_KERNELS ?= 6.1 6.12 7.2
## bench-kernels: bench-vm's method on every kernel of the matrix
bench-kernels: $(BENCH_SWITCH)
	$(Q)BUILD=$(BUILD) bench/kernels.sh -n $(BENCH_ROUNDS) -r $(BENCH_RUNS) \
		$(if $(BENCH_CONFIGS),-c $(BENCH_CONFIGS)) $(BENCH_KERNELS)

# bench-vm's method on arm64: vm_switch cross-built into $(BUILD)/arm64
# (tests/kernel/build.mk's ARM64_MAKE, as arm64-tests), mkm.ko and floor.ko
# cross-built for each kernel of BENCH_ARM64_KERNELS (matrix-arm64,
# fetched first if missing), one -icount boot of each in
# qemu-system-aarch64 -M virt -cpu max (bench/kernels.sh -a arm64). mkm's
# configurations, ftrace's and the floor's: the peers' tools are x86-64
# programs here.
BENCH_ARM64_KERNELS ?= 6.12
.PHONY: bench-vm-arm64
## bench-vm-arm64: bench-vm's method on arm64 (qemu-system-aarch64 -M virt -cpu max, -icount): mkm, ftrace and the floor on Debian's arm64 6.12
bench-vm-arm64:
	$(Q)$(ARM64_MAKE) $(call arm64,$(BENCH_SWITCH))
	$(Q)for k in $(BENCH_ARM64_KERNELS); do \
		tests/kernel/kernels.sh -a arm64 fetch -n $$k || exit 1; done
	$(Q)BUILD=$(BUILD) bench/kernels.sh -a arm64 -n $(BENCH_ROUNDS) -r $(BENCH_RUNS) \
		$(if $(BENCH_CONFIGS),-c $(BENCH_CONFIGS)) $(BENCH_ARM64_KERNELS)

## bench-read: draining full rings in the guest: read() against mmap
bench-read: $(BENCH_IMAGE)
	$(Q)BUILD=$(BUILD) BENCH_IMAGE=$(BENCH_IMAGE) bench/vm.sh read \
		-b $(BENCH_RING_BYTES) -r $(BENCH_READ_RUNS) -c 1
	$(Q)BUILD=$(BUILD) BENCH_IMAGE=$(BENCH_IMAGE) BENCH_VM_CPUS=2 \
		bench/vm.sh read -b $(BENCH_RING_BYTES) -r $(BENCH_READ_RUNS) \
		-c 1,2

## bench-scale: cost per switch with 1 to 60,000 tracked threads and 1 to 64 monitors
bench-scale: $(BENCH_IMAGE)
	$(Q)BUILD=$(BUILD) BENCH_IMAGE=$(BENCH_IMAGE) bench/vm.sh scale \
		-n $(BENCH_ROUNDS) -r $(BENCH_SCALE_RUNS) \
		-t $(BENCH_SCALE_THREADS) -m $(BENCH_SCALE_MONITORS)

# One boot per CPU count, one after the other, then the table of all.
## bench-cpus: records per second per CPU and drops under stress-ng, 1, 2 and 4 vCPUs
bench-cpus: $(BENCH_IMAGE)
	$(Q)for c in $(BENCH_CPUS); do \
		BUILD=$(BUILD) BENCH_IMAGE=$(BENCH_IMAGE) BENCH_VM_CPUS=$$c \
		bench/vm.sh cpus $(BENCH_CPUS_SECONDS) $(BENCH_CPUS_RUNS) || exit 1; \
	done
	$(Q)echo
	$(Q)awk -f bench/cpus.awk $(foreach c,$(BENCH_CPUS),$(BENCH_DIR)/cpus-smp$(c)/vm_cpus.tsv)

## bench-native: the sensor's hot path in userspace: ns and instructions per event
bench-native: $(BENCH_NATIVE)
	$(Q)bench/native.sh $(BENCH_NATIVE) $(BENCH_NATIVE_EVENTS)

## bench-smoke: bench-native with a tiny N (in check-host)
bench-smoke: $(BENCH_NATIVE)
	$(Q)bench/native.sh $(BENCH_NATIVE) 20000 >/dev/null

# In check-vm (and check-debug): both guest programs with a tiny N, their
# tables made in the guest by the same awk scripts.
$(BENCH_SMOKE_VM): bench/smoke_vm.sh
	$(Q)mkdir -p $(@D)
	$(Q)cp $< $@
CHECK_HOST += bench-smoke
VM_TESTS += $(BENCH_SMOKE_VM)
VM_FILES += $(BENCH_SWITCH):/bin/vm_switch $(BENCH_READ):/bin/vm_read \
	bench/table.awk:/bench/table.awk bench/read.awk:/bench/read.awk

# The instruction profile of bench-vm's timed runs (a QEMU plugin).
include bench/prof/build.mk

# make bench-flight-snapshot: how soon after its trigger a snapshot is
# complete, both vCPUs loaded, the writer at its default policy and at
# --realtime 1, in an arm64 guest of two vCPUs under -icount, and beside
# it the same load's wakeup latency with no monitor (bench/flight/wakelat.c)
# (bench/flight/snapshot_vm.sh) [FLIGHT_SNAPSHOT_KERNEL=6.12
# FLIGHT_SNAPSHOT_ROUNDS=3].
FLIGHT_SNAPSHOT_KERNEL ?= 6.12
FLIGHT_SNAPSHOT_ROUNDS ?= 3
# The floor under it: a wakeup from the other CPU, no monitor at all.
FLIGHT_WAKELAT := $(BENCH_DIR)/flight_wakelat
all: $(FLIGHT_WAKELAT)
$(FLIGHT_WAKELAT): bench/flight/wakelat.c
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -pthread -o $@ $<

.PHONY: bench-flight-snapshot
## bench-flight-snapshot: a flight snapshot's latency from its trigger, a loaded 2-vCPU arm64 guest under -icount
bench-flight-snapshot:
	$(Q)$(ARM64_MAKE) $(call arm64,$(MKM_TOOL)) $(call arm64,$(FLIGHT_EXAMPLE)) \
		$(call arm64,$(FLIGHT_WAKELAT))
	$(Q)BUILD=$(BUILD) bench/flight/snapshot_vm.sh -n $(FLIGHT_SNAPSHOT_KERNEL) \
		-r $(FLIGHT_SNAPSHOT_ROUNDS)

# make bench-flight-memory: a flight recorder left on in the guest, a
# snapshot asked for every 30 s, the recorder's RSS and the guest's
# vmalloc and slab sampled (bench/flight/memory.sh)
# [FLIGHT_MEMORY_SECONDS=600, FLIGHT_MEMORY_PERIOD_US=15: the worker's
# wakeups, three records each].
FLIGHT_MEMORY_SECONDS ?= 600
FLIGHT_MEMORY_PERIOD_US ?= 15
.PHONY: bench-flight-memory
## bench-flight-memory: a flight recorder left on for 10 minutes in the guest, its memory sampled
bench-flight-memory: $(BUILD)/vm/initramfs.cpio.gz
	$(Q)printf 'sh /bin/flight_memory %s %s\n' $(FLIGHT_MEMORY_SECONDS) \
		$(FLIGHT_MEMORY_PERIOD_US) >$(BUILD)/vm/flight_memory.cmd
	$(Q)tests/vm/run.sh -c $(BUILD)/vm/flight_memory.cmd \
		-f bench/flight/memory.sh:/bin/flight_memory \
		-l $(BUILD)/vm/flight_memory.log \
		-t $$(($(FLIGHT_MEMORY_SECONDS) + 600))

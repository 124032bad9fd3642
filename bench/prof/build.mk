# SPDX-License-Identifier: GPL-2.0
# bench/prof/: where a timed run's guest instructions go, function by
# function: tbprof.so, a QEMU TCG plugin (tbprof.c), and profile.sh.
#
#   make bench-profile [BENCH_CONFIGS=base,loaded] [BENCH_PROFILE_ROUNDS=5000]
#                      [BENCH_PROFILE_RUNS=2] [BENCH_PROFILE_DIFF=base,loaded]
#   make bench-profile-recorder [BENCH_PROFILE_ROUNDS=20000]: mkm record's
#                      own instructions a recorded event (recorder.sh)
#   make bench-profile-workloads [BENCH_PROFILE_WORKLOAD_ROUNDS=10000]
#                      [BENCH_PROFILE_WORKLOADS='pingpong switch pipe futex']: the
#                      monitor's instructions a switch in each (workloads.sh)

PROF_PLUGIN := $(BUILD)/bench/prof/tbprof.so
BENCH_PROFILE_ROUNDS ?= 5000
BENCH_PROFILE_RUNS ?= 2
BENCH_PROFILE_DIFF ?= base,loaded
BENCH_PROFILE_WORKLOAD_ROUNDS ?= 10000
PROF_COMMA := ,

.PHONY: bench-profile bench-profile-recorder bench-profile-workloads

$(PROF_PLUGIN): bench/prof/tbprof.c
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -shared -fPIC -fvisibility=hidden $(WARNINGS) \
		-Wno-unused-parameter $$(pkg-config --cflags glib-2.0) -o $@ $< \
		$$(pkg-config --libs glib-2.0)

## bench-profile: bench-vm with the guest profiled by a QEMU plugin (bench/prof)
bench-profile: $(BENCH_IMAGE) $(PROF_PLUGIN)
	$(Q)BUILD=$(BUILD) BENCH_IMAGE=$(BENCH_IMAGE) BENCH_PROFILE=1 \
		bench/vm.sh switch -n $(BENCH_PROFILE_ROUNDS) -r $(BENCH_PROFILE_RUNS) \
		$(if $(BENCH_CONFIGS),-c $(BENCH_CONFIGS))
	$(Q)bench/prof/profile.sh $(BUILD)/bench/switch $(subst $(PROF_COMMA), ,$(BENCH_PROFILE_DIFF))

# The guest's window marker: static, as run.sh -f adds the file alone.
$(BUILD)/bench/prof/mark: bench/prof/mark.c
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -static $(WARNINGS) -o $@ $<

## bench-profile-recorder: the recorder's own cost in the guest, profiled (bench/prof)
bench-profile-recorder: $(BUILD)/bench/compensation/initramfs.cpio.gz $(PROF_PLUGIN) $(BUILD)/bench/prof/mark
	$(Q)BUILD=$(BUILD) bench/prof/recorder.sh $(if $(filter command line,$(origin BENCH_PROFILE_ROUNDS)),$(BENCH_PROFILE_ROUNDS))

## bench-profile-workloads: bench-compensation's workloads, profiled (bench/prof)
bench-profile-workloads: $(BUILD)/bench/compensation/initramfs.cpio.gz $(PROF_PLUGIN) $(BUILD)/bench/prof/mark
	$(Q)BUILD=$(BUILD) bench/prof/workloads.sh $(BENCH_PROFILE_WORKLOAD_ROUNDS) $(BENCH_PROFILE_WORKLOADS)

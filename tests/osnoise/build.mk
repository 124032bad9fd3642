# SPDX-License-Identifier: GPL-2.0
# tests/osnoise/: mkm noise against the kernel's osnoise tracer (rtla
# osnoise top), mkm latency against rtla timerlat top, and mkm's runs and
# wakeups against perf sched timehist, in guests of the matrix's
# PREEMPT_RT kernels. A boot per kernel (about 40 s each under TCG, plus
# mkm.ko's build): outside make check. runs lists a trace's runs from the
# library for compare.py.

OSNOISE_RUNS := $(BUILD)/tests/osnoise/runs
all: $(OSNOISE_RUNS)

$(OSNOISE_RUNS): tests/osnoise/runs.c $(LIBMON_A)
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -Ilibmonitor/include $(CFLAGS) -o $@ $< $(LIBMON_A) -lm -pthread

.PHONY: check-osnoise
## check-osnoise: mkm noise, latency and its wakeups against rtla osnoise, timerlat and perf sched timehist, on the matrix's RT kernels (OSNOISE_KERNELS=6.12-rt to pick)
check-osnoise: $(MKM_TOOL) $(BUILD)/tests/cli/cli_workload $(OSNOISE_RUNS)
	$(Q)BUILD=$(BUILD) tests/osnoise/check.sh $(if $(OSNOISE_KERNELS),-n $(OSNOISE_KERNELS))

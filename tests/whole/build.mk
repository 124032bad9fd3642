# SPDX-License-Identifier: GPL-2.0
# tests/whole/: system-wide recording in the guest (mkm record -a): each
# CPU's time fully accounted, idle and kernel threads named, the refusals,
# the noise report on a known intruder and the idle report.

WHOLE_TEST := $(BUILD)/tests/whole/test_whole
WHOLE_WORKLOAD := $(BUILD)/tests/whole/whole_workload
VM_TESTS += $(WHOLE_TEST)
VM_FILES += $(WHOLE_WORKLOAD):/bin/whole_workload
all: $(WHOLE_TEST) $(WHOLE_WORKLOAD)

$(WHOLE_TEST): tests/whole/test_whole.c tests/cli/shell.h $(LIBMON_A)
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -Ilibmonitor/include $(CFLAGS) -o $@ $< $(LIBMON_A) -lcmocka -lm -pthread

$(WHOLE_WORKLOAD): tests/whole/whole_workload.c
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -pthread -o $@ $<

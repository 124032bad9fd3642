# SPDX-License-Identifier: GPL-2.0
# tests/cli/: the mkm command tested in the guest (with the workload it
# records), against the kernel's own schedstat.

CLI_TEST := $(BUILD)/tests/cli/test_cli
CLI_WORKLOAD := $(BUILD)/tests/cli/cli_workload
VM_TESTS += $(CLI_TEST)
VM_FILES += $(MKM_TOOL):/bin/mkm $(CLI_WORKLOAD):/bin/cli_workload
all: $(CLI_TEST) $(CLI_WORKLOAD)

$(CLI_TEST): tests/cli/test_cli.c $(LIBMON_A)
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -Ilibmonitor/include $(CFLAGS) -o $@ $< $(LIBMON_A) -lcmocka -lm

$(CLI_WORKLOAD): tests/cli/cli_workload.c
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -pthread -o $@ $<

# SPDX-License-Identifier: GPL-2.0
# tests/cli/: the mkm command tested in the guest (with the workload it
# records), against the kernel's own schedstat.

CLI_TEST := $(BUILD)/tests/cli/test_cli
CLI_FLIGHT_TEST := $(BUILD)/tests/cli/test_record_flight
CLI_WORKLOAD := $(BUILD)/tests/cli/cli_workload
VM_TESTS += $(CLI_TEST) $(CLI_FLIGHT_TEST)
# Its schedstat comparisons run in the one-vCPU -icount boot (tests/vm);
# the flight recorder's too, on the reference kernel only (each boot of
# it takes half a minute).
VM_ICOUNT_TESTS += test_cli
VM_ONE_CPU_TESTS += test_record_flight
VM_FILES += $(MKM_TOOL):/bin/mkm $(CLI_WORKLOAD):/bin/cli_workload
all: $(CLI_TEST) $(CLI_FLIGHT_TEST) $(CLI_WORKLOAD)

# mkm record --flight, on examples/flight's planted stall.
$(CLI_FLIGHT_TEST): tests/cli/test_record_flight.c tests/cli/shell.h
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $< -lcmocka

$(CLI_TEST): tests/cli/test_cli.c tests/cli/shell.h $(LIBMON_A)
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -Ilibmonitor/include $(CFLAGS) -o $@ $< $(LIBMON_A) -lcmocka -lm

$(CLI_WORKLOAD): tests/cli/cli_workload.c
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -pthread -o $@ $<

# On the host (check-host): the commands that need no module, on the
# traces tests/view's mktrace writes, and mkm's own arguments.
CLI_HOST_TEST := $(BUILD)/tests/cli/test_commands
all: $(CLI_HOST_TEST)
CHECK_HOST += check-cli

$(CLI_HOST_TEST): tests/cli/test_commands.c tests/cli/shell.h
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $< -lcmocka

.PHONY: check-cli
# (tests/view/build.mk, included later, builds mktrace: its name here.)
## check-cli: the mkm command on the host, on traces that need no module (in check-host)
check-cli: $(CLI_HOST_TEST) $(MKM_TOOL) $(BUILD)/tests/view/mktrace
	$(Q)mkdir -p $(BUILD)/tests/cli/work
	$(Q)echo "== $(CLI_HOST_TEST)"
	$(Q)$(CLI_HOST_TEST) $(abspath $(MKM_TOOL)) \
		$(abspath $(BUILD)/tests/view/mktrace) \
		$(abspath $(BUILD)/tests/cli/work)

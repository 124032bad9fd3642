# SPDX-License-Identifier: GPL-2.0
# tests/stress/: stress, loss accounting under load, an ioctl fuzzer, PID
# namespace and exec confinement, and module unload under load. They run as
# root in the VM guest after the ABI tests (they reuse tests/abi/abi.c), on
# the Debian kernel (check-vm) and on the debug kernel (check-debug).
# test_unload comes last: it unloads and reloads mkm.ko and leaves it loaded.
#
# Longer runs: the guest's kernel command line hands name=value pairs to the
# tests as environment variables, e.g.
#   make check-debug VM_ARGS='-a MKM_STRESS_SECONDS=900 -T 1200 -t 4000'
# MKM_STRESS_SECONDS  the stress phase of test_stress (default 45) and
#                     test_loss (default 8)
# MKM_FUZZ_CALLS      ioctls made by test_fuzz (default 20000)
# MKM_UNLOAD_LOOPS    load/record/unload rounds of test_unload (default 8)
# MKM_STRESS_SEED     repeat a run's random choices (each test prints its seed)

STRESS_AREAS := stress loss fuzz confine unload
STRESS_DIR := $(BUILD)/tests/stress
STRESS_TESTS := $(STRESS_AREAS:%=$(STRESS_DIR)/test_%)
STRESS_OBJS := $(STRESS_AREAS:%=$(STRESS_DIR)/test_%.o) \
	$(STRESS_DIR)/stress.o

$(STRESS_OBJS): $(STRESS_DIR)/%.o: tests/stress/%.c tests/stress/stress.h \
		tests/abi/abi.h kernel/uapi/mkm.h libmonitor/include/libmonitor.h
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -Itests/abi -Ilibmonitor/include $(CFLAGS) -pthread -c -o $@ $<

$(STRESS_TESTS): $(STRESS_DIR)/%: $(STRESS_DIR)/%.o $(STRESS_DIR)/stress.o \
		$(ABI_DIR)/abi.o $(LIBMON_A)
	$(quiet) LD $@
	$(Q)$(CC) $(CFLAGS) -pthread -o $@ $^ -lcmocka -lm

VM_TESTS += $(STRESS_TESTS)
all: $(STRESS_TESTS)

# SPDX-License-Identifier: GPL-2.0
# tests/abi/: ABI tests of /dev/mkm, one cmocka binary per area. They run as
# root inside the VM guest (tests/vm), never on the host.

# In the order the guest runs them; threads last (see its last test).
# exactness_one is exactness recording one record per switch
# (MKM_CONFIG_ONE_SWITCH): the same source, built with EXACT_ONE_SWITCH.
ABI_AREAS := lifecycle mmap exactness exactness_one smp overflow flight \
	security badinput classes threads
ABI_DIR := $(BUILD)/tests/abi
ABI_TESTS := $(ABI_AREAS:%=$(ABI_DIR)/test_%)
ABI_OBJS := $(filter-out %_one.o,$(ABI_AREAS:%=$(ABI_DIR)/test_%.o)) \
	$(ABI_DIR)/abi.o
ABI_DEPS := tests/abi/abi.h kernel/uapi/mkm.h kernel/ring.h \
	libmonitor/include/libmonitor.h

$(ABI_OBJS): $(ABI_DIR)/%.o: tests/abi/%.c $(ABI_DEPS)
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -Ilibmonitor/include -pthread -c -o $@ $<

$(ABI_DIR)/test_exactness_one.o: tests/abi/test_exactness.c $(ABI_DEPS)
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -DEXACT_ONE_SWITCH -Ilibmonitor/include -pthread \
		-c -o $@ $<

$(ABI_TESTS): $(ABI_DIR)/%: $(ABI_DIR)/%.o $(ABI_DIR)/abi.o $(LIBMON_A)
	$(quiet) LD $@
	$(Q)$(CC) $(CFLAGS) -pthread -o $@ $^ -lcmocka -lm

VM_TESTS += $(ABI_TESTS)
all: $(ABI_TESTS)

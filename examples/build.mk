# SPDX-License-Identifier: GPL-2.0
# examples/: programs that reproduce the papers' studies, one folder each,
# linked statically with libmonitor so they run in the test VM as they are.

EXAMPLES := $(addprefix $(BUILD)/examples/,matmul sensor_cost const_overhead ftq \
	noise idle barrier)
EXAMPLE_CFLAGS := -Ilibmonitor/include -pthread
all: $(EXAMPLES)

$(BUILD)/examples/matmul: examples/matmul/matmul.c
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -pthread -o $@ $<

# A smooth run with a planted stall, for mkm record --flight: libmonitor
# only for -d's monitor_trigger().
FLIGHT_EXAMPLE := $(BUILD)/examples/flight
all: $(FLIGHT_EXAMPLE)
$(FLIGHT_EXAMPLE): examples/flight/flight.c $(LIBMON_A)
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(EXAMPLE_CFLAGS) $(CFLAGS) -o $@ $< $(LIBMON_A) -lm
VM_FILES += $(FLIGHT_EXAMPLE):/bin/flight

# One rank per node under srun --mkm: no libmonitor, Slurm records it.
CLUSTER_BARRIER := $(BUILD)/examples/cluster_barrier
all: $(CLUSTER_BARRIER)
$(CLUSTER_BARRIER): examples/cluster_barrier/cluster_barrier.c \
		examples/common/spin.h
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -Iexamples/common $(CFLAGS) -o $@ $<

# One rule per example: each is its folder's one .c file, what the examples
# share (examples/common) and libmonitor.
EXAMPLE_COMMON := examples/common/common.c examples/common/common.h
define example_rule
$$(BUILD)/examples/$(1): examples/$(1)/$(1).c $$(EXAMPLE_COMMON) $$(LIBMON_A)
	$$(quiet) CC $$@
	$$(Q)mkdir -p $$(@D)
	$$(Q)$$(CC) $$(EXAMPLE_CFLAGS) -Iexamples/common $$(CFLAGS) -o $$@ $$< \
		examples/common/common.c $$(LIBMON_A) -lm
endef
$(foreach e,sensor_cost const_overhead ftq noise idle barrier,\
	$(eval $(call example_rule,$(e))))

# In check-vm (and check-debug): the examples with tiny sizes.
EXAMPLES_SMOKE_VM := $(BUILD)/examples/examples_smoke
$(EXAMPLES_SMOKE_VM): examples/examples_smoke.sh
	$(Q)mkdir -p $(@D)
	$(Q)cp $< $@
VM_TESTS += $(EXAMPLES_SMOKE_VM)
VM_FILES += $(BUILD)/examples/ftq:/bin/ftq \
	$(BUILD)/examples/sensor_cost:/bin/sensor_cost \
	$(BUILD)/examples/const_overhead:/bin/const_overhead \
	$(BUILD)/examples/noise:/bin/noise $(BUILD)/examples/idle:/bin/idle \
	$(BUILD)/examples/barrier:/bin/barrier

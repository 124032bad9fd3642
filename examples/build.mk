# SPDX-License-Identifier: GPL-2.0
# examples/: programs that reproduce the papers' studies, one folder each.

EXAMPLES := $(BUILD)/examples/matmul
all: $(EXAMPLES)

$(BUILD)/examples/matmul: examples/matmul/matmul.c
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -pthread -o $@ $<

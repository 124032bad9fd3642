# SPDX-License-Identifier: GPL-2.0
# viewer/: the timeline layout (pure, shared with `mkm timeline`) and its
# unit test.

LAYOUT_TEST := $(BUILD)/tests/unit/test_layout
UNIT_TESTS += $(LAYOUT_TEST)
all: $(LAYOUT_TEST)

$(LAYOUT_TEST): tests/unit/test_layout.c viewer/layout.c viewer/layout.h
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -Ilibmonitor/include -Iviewer $(CFLAGS) $(SAN_FLAGS) -o $@ \
		tests/unit/test_layout.c viewer/layout.c -lcmocka

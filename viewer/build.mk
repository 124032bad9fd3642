# SPDX-License-Identifier: GPL-2.0
# viewer/: the timeline layout (pure, shared with `mkm timeline`) and its
# unit test.

LAYOUT_TEST := $(BUILD)/tests/unit/test_layout
UNIT_TESTS += $(LAYOUT_TEST)
all: $(LAYOUT_TEST)

# The state table comes from libmonitor's sources, built in with the
# sanitizers like the rest.
$(LAYOUT_TEST): tests/unit/test_layout.c viewer/layout.c viewer/layout.h \
		libmonitor/src/names.c libmonitor/include/libmonitor.h
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -Ilibmonitor/include -Ilibmonitor/src -Iviewer $(CFLAGS) \
		$(SAN_FLAGS) -o $@ tests/unit/test_layout.c viewer/layout.c \
		libmonitor/src/names.c -lcmocka

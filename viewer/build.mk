# SPDX-License-Identifier: GPL-2.0
# viewer/: mkm view (built into the mkm command, tools/build.mk) and the
# unit tests of its pure parts: layout, level-of-detail index, model.

VIEWER_TESTS := test_layout test_lod test_model
VIEWER_TEST_BINS := $(VIEWER_TESTS:%=$(BUILD)/tests/unit/%)
UNIT_TESTS += $(VIEWER_TEST_BINS)
all: $(VIEWER_TEST_BINS)

# Built with the sanitizers, libmonitor's sources compiled in.
$(VIEWER_TEST_BINS): $(BUILD)/tests/unit/%: tests/unit/%.c \
		viewer/layout.c viewer/lod.c viewer/model.c \
		$(wildcard viewer/*.h) $(LIBMON_SRCS) $(LIBMON_HDRS)
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -Ilibmonitor/include -Ilibmonitor/src -Iviewer $(CFLAGS) \
		$(SAN_FLAGS) -o $@ $< viewer/layout.c viewer/lod.c \
		viewer/model.c $(LIBMON_SRCS) -lcmocka -lm -pthread

# SPDX-License-Identifier: GPL-2.0
# viewer/: mkm view (built into the mkm command, tools/build.mk) and the
# unit tests of its parts without a terminal: layout, level-of-detail
# index, model, and the state the keys change.

VIEWER_TESTS := test_layout test_lod test_model test_state test_viewer_late \
	test_bounds
VIEWER_TEST_BINS := $(VIEWER_TESTS:%=$(BUILD)/tests/unit/%)
UNIT_TESTS += $(VIEWER_TEST_BINS)
all: $(VIEWER_TEST_BINS)
# The viewer without a terminal (draw.c, viewer.c, keys.c), liburcu
# (live.c) or cairo (picture.c).
VIEWER_PURE_SRCS := viewer/layout.c viewer/lod.c viewer/model.c \
	viewer/state.c viewer/actions.c viewer/rows.c viewer/events.c \
	viewer/waker.c viewer/path.c viewer/late.c viewer/bounds.c

# Built with the sanitizers, libmonitor's sources compiled in.
$(VIEWER_TEST_BINS): $(BUILD)/tests/unit/%: tests/unit/%.c \
		$(VIEWER_PURE_SRCS) tests/unit/evstream.h \
		$(wildcard viewer/*.h) $(LIBMON_SRCS) $(LIBMON_HDRS)
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -Ilibmonitor/include -Ilibmonitor/src -Iviewer -Itests/unit \
		$(CFLAGS) $(SAN_FLAGS) -o $@ $< $(VIEWER_PURE_SRCS) \
		$(LIBMON_SRCS) -lcmocka -lm -pthread

# make bench-view: the viewer on a generated trace of BENCH_VIEW_EVENTS
# events and BENCH_VIEW_THREADS threads (time to first frame, frame times
# at three zooms, index memory); bench-view-smoke, a tiny one, in check.
BENCH_VIEW := $(BUILD)/viewer/bench_view
# The mkm command's helpers it uses (messages, load_trace()).
BENCH_VIEW_TOOL_SRCS := tools/mkm/messages.c tools/mkm/trace.c
BENCH_VIEW_EVENTS ?= 10000000
BENCH_VIEW_THREADS ?= 1000
BENCH_VIEW_TRACE = $(BUILD)/viewer/bench-$(BENCH_VIEW_EVENTS)-$(BENCH_VIEW_THREADS).mkm
.PHONY: bench-view bench-view-smoke
CHECK_HOST += bench-view-smoke

$(BENCH_VIEW): viewer/bench/bench_view.c $(wildcard viewer/*.c viewer/*.h) \
		$(BENCH_VIEW_TOOL_SRCS) $(BENCH_VIEW_TOOL_SRCS:.c=.h) $(LIBMON_A)
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(MKM_TOOL_CFLAGS) $(CFLAGS) -o $@ $< $(wildcard viewer/*.c) \
		$(BENCH_VIEW_TOOL_SRCS) $(LIBMON_A) $(MKM_TOOL_LIBS) -lm

$(BUILD)/viewer/bench-%.mkm: $(BUILD)/tests/view/mktrace
	$(quiet) GEN $@
	$(Q)mkdir -p $(@D)
	$(Q)$< big $@ $(word 1,$(subst -, ,$*)) $(word 2,$(subst -, ,$*))

## bench-view: the viewer's frame time on large traces (docs/performance.md)
bench-view: $(BENCH_VIEW) $(BENCH_VIEW_TRACE)
	$(Q)$(BENCH_VIEW) $(BENCH_VIEW_TRACE)

## bench-view-smoke: bench-view with a small trace (in check-host)
bench-view-smoke:
	$(Q)$(MAKE) --no-print-directory bench-view BENCH_VIEW_EVENTS=20000 \
		BENCH_VIEW_THREADS=50

# The picture's test needs cairo.
PICTURE_TEST := $(BUILD)/tests/unit/test_picture
UNIT_TESTS += $(PICTURE_TEST)
all: $(PICTURE_TEST)
$(PICTURE_TEST): tests/unit/test_picture.c tests/unit/evstream.h \
		viewer/picture.c viewer/picture.h viewer/layout.c $(LIBMON_A)
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -Ilibmonitor/include -Iviewer -Itests/unit \
		$(shell pkg-config --cflags cairo 2>/dev/null) $(CFLAGS) -o $@ \
		$< viewer/picture.c viewer/layout.c \
		$(LIBMON_A) $(shell pkg-config --libs cairo 2>/dev/null || \
		echo -lcairo) -lcmocka -lm -pthread

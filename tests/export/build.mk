# SPDX-License-Identifier: GPL-2.0
# tests/export/: mkm export's formats read back by their own tools
# (protoc, babeltrace2 and its Python bindings, installed by make deps)
# and compared with mkm dump (check-export, part of check-unit); mkevents
# writes a trace with every event type.

EXPORT_MKEVENTS := $(BUILD)/tests/export/mkevents
all: $(EXPORT_MKEVENTS)
CHECK_EXTRA += check-export

$(EXPORT_MKEVENTS): tests/export/mkevents.c $(LIBMON_A)
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -Ilibmonitor/include $(CFLAGS) -o $@ $< $(LIBMON_A) -lm -pthread

.PHONY: check-export
check-export: $(MKM_TOOL) $(VIEW_MKTRACE) $(EXPORT_MKEVENTS)
	$(Q)tests/export/test_export.sh $(MKM_TOOL) $(VIEW_MKTRACE) \
		$(EXPORT_MKEVENTS) $(BUILD)/tests/export/work

# make bench-export [BENCH_EXPORT_EVENTS=10000000]: throughput per format
# and babeltrace2 against mkm report (docs/export.md has the figures).
BENCH_EXPORT_EVENTS ?= 10000000
.PHONY: bench-export
bench-export: $(MKM_TOOL) $(VIEW_MKTRACE)
	$(Q)tests/export/bench_export.sh $(MKM_TOOL) $(VIEW_MKTRACE) \
		$(BUILD)/bench/export $(BENCH_EXPORT_EVENTS)

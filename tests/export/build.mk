# SPDX-License-Identifier: GPL-2.0
# tests/export/: mkm export's formats read back by their own tools
# (protoc, babeltrace2 and its Python bindings, otf2-print and otf2-marker,
# installed by make deps)
# and compared with mkm dump (check-export, part of check-host), on the
# traces tests/view's mktrace writes.

CHECK_HOST += check-export

.PHONY: check-export
## check-export: each export read back by a reader nobody here wrote (in check-host)
check-export: $(MKM_TOOL) $(VIEW_MKTRACE)
	$(Q)tests/export/test_export.sh $(MKM_TOOL) $(VIEW_MKTRACE) \
		$(BUILD)/tests/export/work

# make bench-export [BENCH_EXPORT_EVENTS=10000000]: throughput per format
# and babeltrace2 against mkm report (docs/export.md has the figures).
BENCH_EXPORT_EVENTS ?= 10000000
.PHONY: bench-export
## bench-export: mkm export's throughput and memory per format, against babeltrace2
bench-export: $(MKM_TOOL) $(VIEW_MKTRACE)
	$(Q)tests/export/bench_export.sh $(MKM_TOOL) $(VIEW_MKTRACE) \
		$(BUILD)/bench/export $(BENCH_EXPORT_EVENTS)

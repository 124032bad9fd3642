# SPDX-License-Identifier: GPL-2.0
# tests/unit/: cmocka tests of libmonitor, driven by synthetic event
# streams; plain builds run by check-unit, an ASan+UBSan build of the same
# tests (check-unit-san) and a bounded libFuzzer run of the trace reader
# (check-fuzz, in check-host). test_ring.c is built by kernel/build.mk.

TU_DIR := $(BUILD)/tests/unit
LIBMON_TESTS := test_timeline test_acct test_monitor test_trace test_pipeline \
	test_compensate test_analysis test_noise test_late test_verdict test_cluster \
	test_clocksync test_switch test_lost test_critical_path test_barrier \
	test_format test_session
LIBMON_TEST_BINS := $(LIBMON_TESTS:%=$(TU_DIR)/%)
LIBMON_SAN_BINS := $(LIBMON_TESTS:%=$(TU_DIR)/san/%)
TU_CFLAGS := -Ilibmonitor/include -Ilibmonitor/src -Itests/unit
TU_LIBS := -lcmocka -lm -pthread
# test_monitor replaces the system calls under the MKM calls.
TU_WRAP_test_monitor := -Wl,--wrap=open,--wrap=ioctl,--wrap=read,--wrap=close,--wrap=mmap
# test_session's fake device: an eventfd that never has records.
TU_WRAP_test_session := -Wl,--wrap=open,--wrap=ioctl,--wrap=read,--wrap=close,--wrap=mmap
# test_trace fails the trace writer's writes.
TU_WRAP_test_trace := -Wl,--wrap=writev

UNIT_TESTS += $(LIBMON_TEST_BINS)
$(TU_DIR)/test_cluster $(TU_DIR)/san/test_cluster: tests/unit/synjob.h
$(TU_DIR)/test_barrier $(TU_DIR)/san/test_barrier: tests/unit/synbarrier.h

all: $(LIBMON_TEST_BINS)

$(TU_DIR)/test_%: tests/unit/test_%.c tests/unit/evstream.h $(LIBMON_A) \
		libmonitor/include/mon_pipeline.h
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(TU_CFLAGS) $(CFLAGS) -o $@ $< $(TU_WRAP_test_$*) \
		$(LIBMON_A) $(TU_LIBS)

# The sanitizer build links an instrumented copy of the library, compiled
# once (not once a test: 15 times the library's 47 files took ten minutes).
LIBMON_SAN_OBJS := $(LIBMON_SRCS:libmonitor/src/%.c=$(TU_DIR)/san/obj/%.o)
LIBMON_SAN_A := $(TU_DIR)/san/libmonitor-san.a
-include $(LIBMON_SAN_OBJS:.o=.d)

$(TU_DIR)/san/obj/%.o: libmonitor/src/%.c
	$(quiet) CC-SAN $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(TU_CFLAGS) $(CFLAGS) $(SAN_FLAGS) -MMD -MP -c -o $@ $<

$(LIBMON_SAN_A): $(LIBMON_SAN_OBJS)
	$(quiet) AR $@
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(TU_DIR)/san/test_%: tests/unit/test_%.c tests/unit/evstream.h $(LIBMON_SAN_A) \
		libmonitor/include/libmonitor.h
	$(quiet) CC-SAN $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(TU_CFLAGS) $(CFLAGS) $(SAN_FLAGS) -o $@ $< \
		$(TU_WRAP_test_$*) $(LIBMON_SAN_A) $(TU_LIBS)

.PHONY: check-unit-san check-fuzz
## check-unit-san: the cmocka tests with ASan+UBSan (in check-unit)
check-unit-san: $(LIBMON_SAN_BINS)
	$(Q)set -e; for t in $^; do echo "== $$t (ASan+UBSan)"; \
		ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 $$t; done

# libFuzzer on the trace reader (and, through it, the timeline builder):
# a bounded run in check-host; longer with make check-fuzz FUZZ_TIME=600.
# Checksums are not checked in this build, so mutations reach the decoders.
# Built with clang, it also fails on what clang sees that gcc does not
# (-Werror=unsequenced: a variable modified and read unsequenced).
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_BIN := $(FUZZ_DIR)/fuzz_trace
FUZZ_SEED := $(FUZZ_DIR)/fuzz_seed
FUZZ_TIME ?= 20
FUZZ_CC ?= clang
CHECK_HOST += check-fuzz

$(FUZZ_BIN): tests/unit/fuzz_trace.c $(LIBMON_SRCS) $(LIBMON_HDRS) kernel/ring.h \
		libmonitor/include/libmonitor.h
	$(quiet) FUZZ-CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) -std=gnu11 -g -O1 -Werror=unsequenced \
		-Ilibmonitor/include -Ilibmonitor/src \
		-Ikernel/uapi -Ikernel -fsanitize=fuzzer,address,undefined \
		-DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION \
		-fno-sanitize-recover=all -o $@ $< $(LIBMON_SRCS) -lm -pthread

$(FUZZ_SEED): tests/unit/fuzz_seed.c $(LIBMON_A)
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(TU_CFLAGS) $(CFLAGS) -o $@ $< $(LIBMON_A) -lm

## check-fuzz: libFuzzer on the trace reader, FUZZ_TIME seconds (in check-host)
check-fuzz: $(FUZZ_BIN) $(FUZZ_SEED)
	$(Q)mkdir -p $(FUZZ_DIR)/corpus $(FUZZ_DIR)/seeds
	$(Q)$(FUZZ_SEED) $(FUZZ_DIR)/seeds/seed.mkm
	$(Q)echo "== $(FUZZ_BIN) ($(FUZZ_TIME) s)"
	$(Q)cd $(FUZZ_DIR) && ./fuzz_trace -max_total_time=$(FUZZ_TIME) \
		-max_len=8192 -rss_limit_mb=2048 -print_final_stats=1 \
		corpus seeds 2>fuzz.log || { tail -50 fuzz.log >&2; exit 1; }
	$(Q)grep -E '^(stat::number_of_executed_units|Done)' $(FUZZ_DIR)/fuzz.log || true

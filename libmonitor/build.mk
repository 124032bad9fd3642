# SPDX-License-Identifier: GPL-2.0
# libmonitor/: the user library, shared and static, with its pkg-config
# file, install rules (install-lib) and benchmark (bench-lib).

LIBMON_VERSION := $(MKM_VERSION)
LIBMON_SOMAJOR := 0
LIBMON_SRCS := $(wildcard libmonitor/src/*.c libmonitor/src/*/*.c)
LIBMON_HDRS := $(wildcard libmonitor/include/*.h libmonitor/src/*.h \
	libmonitor/src/*/*.h)
LIBMON_DIR := $(BUILD)/libmonitor
LIBMON_OBJS := $(LIBMON_SRCS:libmonitor/src/%.c=$(LIBMON_DIR)/obj/%.o)
LIBMON_SO := $(LIBMON_DIR)/libmonitor.so
LIBMON_SONAME := libmonitor.so.$(LIBMON_SOMAJOR)
LIBMON_A := $(LIBMON_DIR)/libmonitor.a
LIBMON_PC := $(LIBMON_DIR)/libmonitor.pc
LIBMON_CFLAGS := -Ilibmonitor/include -Ilibmonitor/src -fPIC \
	-fvisibility=hidden -MMD -MP

PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig

.PHONY: libmonitor install-lib bench-lib check-lib-exports check-lib-headers
all: libmonitor
## libmonitor: the library, shared and static, and its pkg-config file
libmonitor: $(LIBMON_SO) $(LIBMON_A) $(LIBMON_PC)

$(LIBMON_DIR)/obj/%.o: libmonitor/src/%.c
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LIBMON_CFLAGS) $(CFLAGS) -c -o $@ $<

$(LIBMON_A): $(LIBMON_OBJS)
	$(quiet) AR $@
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(LIBMON_SO): $(LIBMON_OBJS)
	$(quiet) LD $@
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,$(LIBMON_SONAME) \
		-Wl,--no-undefined -o $@.$(LIBMON_VERSION) $^ -lm -pthread
	$(Q)ln -sfn libmonitor.so.$(LIBMON_VERSION) $(LIBMON_DIR)/$(LIBMON_SONAME)
	$(Q)ln -sfn libmonitor.so.$(LIBMON_VERSION) $@

LIBMON_PC_SED = sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
	-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(LIBMON_VERSION)|'

$(LIBMON_PC): libmonitor/libmonitor.pc.in libmonitor/build.mk VERSION
	$(quiet) GEN $@
	$(Q)mkdir -p $(@D)
	$(Q)$(LIBMON_PC_SED) $< >$@

# Installs the library, its public headers (all of libmonitor/include: they
# include each other), the UAPI header they include and the
# pkg-config file (made for the PREFIX/LIBDIR given to this make); DESTDIR
# for staging (packages).
## install-lib: install the library, its headers and pkg-config file (PREFIX, DESTDIR)
install-lib: libmonitor
	$(quiet) INSTALL $(DESTDIR)$(PREFIX)
	$(Q)install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) \
		$(DESTDIR)$(PKGCONFIGDIR)
	$(Q)install -m 0755 $(LIBMON_SO).$(LIBMON_VERSION) $(DESTDIR)$(LIBDIR)/
	$(Q)ln -sfn libmonitor.so.$(LIBMON_VERSION) $(DESTDIR)$(LIBDIR)/$(LIBMON_SONAME)
	$(Q)ln -sfn libmonitor.so.$(LIBMON_VERSION) $(DESTDIR)$(LIBDIR)/libmonitor.so
	$(Q)install -m 0644 $(LIBMON_A) $(DESTDIR)$(LIBDIR)/
	$(Q)install -m 0644 $(wildcard libmonitor/include/*.h) kernel/uapi/mkm.h \
		$(DESTDIR)$(INCLUDEDIR)/
	$(Q)$(LIBMON_PC_SED) libmonitor/libmonitor.pc.in \
		>$(DESTDIR)$(PKGCONFIGDIR)/libmonitor.pc
	$(Q)chmod 0644 $(DESTDIR)$(PKGCONFIGDIR)/libmonitor.pc

# Only the public API may be exported by the shared library.
LIBMON_API_RE := ^(monitor_|thread_(un)?monitor$$|tl_|acct_|trace_|mon_|noise_|idle_)
## check-lib-exports: the shared library exports the public API alone (in check-host)
check-lib-exports: $(LIBMON_SO)
	$(quiet) CHECK $<
	$(Q)bad=$$(nm -D --defined-only $< | awk '$$2 ~ /^[TDBRVW]$$/ {print $$3}' | \
		grep -Ev '$(LIBMON_API_RE)' || true); \
	if [ -n "$$bad" ]; then echo "libmonitor exports non-API symbols: $$bad" >&2; exit 1; fi
CHECK_HOST += check-lib-exports

# Each public header compiles alone, first in a file, in C and in C++: a
# user includes the module's header without knowing the others.
## check-lib-headers: each public header compiles alone, in C and C++ (in check-host)
check-lib-headers:
	$(quiet) CHECK libmonitor/include
	$(Q)set -e; for h in $(notdir $(wildcard libmonitor/include/*.h)); do \
		printf '#include <%s>\n' $$h | $(CC) -std=gnu11 $(WARNINGS) \
			-Werror -Ikernel/uapi -Ilibmonitor/include \
			-fsyntax-only -x c - || { echo "$$h: not alone (C)" >&2; exit 1; }; \
		printf '#include <%s>\n' $$h | $(CXX) -Wall -Werror \
			-Ikernel/uapi -Ilibmonitor/include -fsyntax-only \
			-x c++ - || { echo "$$h: not alone (C++)" >&2; exit 1; }; \
	done
CHECK_HOST += check-lib-headers

BENCH_LIB := $(LIBMON_DIR)/bench_tl
BENCH_EVENTS ?= 12000000
$(BENCH_LIB): libmonitor/bench/bench_tl.c $(LIBMON_A)
	$(quiet) CC $@
	$(Q)$(CC) $(CFLAGS) -Ilibmonitor/include -Ilibmonitor/src -o $@ $< \
		$(LIBMON_A) -lm -pthread

# The rebuild with two-record and one-record switches, and babeltrace2
# reading the same events (bench_lib.sh); its instructions per record,
# the figure that does not depend on the machine's load
# (bench-lib-callgrind); then the exporters' throughput and memory beside
# mkm report's (bench-export, tests/export/build.mk).
## bench-lib: the rebuild's speed per record, against babeltrace2; then bench-lib-callgrind and bench-export
bench-lib: $(BENCH_LIB) $(MKM_TOOL)
	$(Q)libmonitor/bench/bench_lib.sh $(BENCH_LIB) $(MKM_TOOL) \
		$(BUILD)/bench/lib $(BENCH_EVENTS)
	$(Q)if command -v valgrind >/dev/null; then \
		$(MAKE) --no-print-directory bench-lib-callgrind; \
	else echo "bench-lib-callgrind: valgrind not installed (make deps)"; fi
	$(Q)$(MAKE) --no-print-directory bench-export

-include $(LIBMON_OBJS:.o=.d)

# A repeatable figure where times are noise: callgrind's count of
# instructions and simulated mispredicted branches per record, for the
# rebuild alone (tl_feed and tl_flush; the REPS=5 direct rebuilds and the
# 5 through the pipeline are averaged).
# Both forms of a switch: two records (SWITCH_OUT, SWITCH_IN), and one
# (bench_tl -1, MKM_EV_SWITCH).
BENCH_CG_EVENTS ?= 300000
.PHONY: bench-lib-callgrind
## bench-lib-callgrind: instructions and mispredicted branches per record of the rebuild (callgrind)
bench-lib-callgrind: $(BENCH_LIB)
	$(Q)for form in two one; do \
		opt=; [ $$form = one ] && opt=-1; \
		valgrind --tool=callgrind --branch-sim=yes \
			--toggle-collect=tl_feed --toggle-collect=tl_flush \
			--callgrind-out-file=$(LIBMON_DIR)/callgrind.$$form.out \
			$(BENCH_LIB) $$opt $(BENCH_CG_EVENTS) >/dev/null 2>&1 || exit 1; \
		callgrind_annotate --auto=no $(LIBMON_DIR)/callgrind.$$form.out | \
		awk -v n=$(BENCH_CG_EVENTS) -v form=$$form \
		'{ gsub(/\([^)]*\)/, ""); gsub(/,/, "") } \
		/PROGRAM TOTALS/ { ir = $$1; bcm = $$3; bim = $$5 } \
		/memmove|memcpy/ { copy += $$1 } \
		END { printf "bench-lib-callgrind: %s-record switches, per record: " \
			"%.1f instructions (%.1f without memcpy, which counts 1 " \
			"per byte), %.2f conditional and %.2f indirect branches " \
			"mispredicted\n", form, ir / (10 * n), \
			(ir - copy) / (10 * n), bcm / (10 * n), bim / (10 * n) }'; \
	done

# make syscalls: each machine's system call names again, from its kernel's
# table (linux-libc-dev's, and its arm64 cross twin's); the results are
# committed.
SYSCALL_MACHINES := x86_64 aarch64
.PHONY: syscalls
## syscalls: regenerate the x86-64 and arm64 system call names from the kernels' tables
syscalls:
	$(Q)for m in $(SYSCALL_MACHINES); do \
		libmonitor/src/gen-syscalls.sh $$m >libmonitor/src/syscalls_$$m.h.tmp && \
		mv libmonitor/src/syscalls_$$m.h.tmp libmonitor/src/syscalls_$$m.h || exit 1; \
	done

# SPDX-License-Identifier: GPL-2.0
# mkm: top-level build. Everything is built out of source into $(BUILD);
# each part adds its rules from its own build.mk (one make, no recursion,
# except into Kbuild for the module).

BUILD ?= build
CACHE ?= $(HOME)/.cache/mkm
# The one place the version is written: the module, the library and the
# Debian packages take it from here (debian/changelog must agree).
MKM_VERSION := $(shell cat VERSION)

# The reference kernel: the one Debian's linux-headers-amd64 points at.
KVER ?= $(shell dpkg-query -W -f='$${Depends}' linux-headers-amd64 2>/dev/null | \
	sed -n 's/.*linux-headers-\([^ ,]*\).*/\1/p')
KDIR ?= /usr/src/linux-headers-$(KVER)

CC ?= gcc
WARNINGS := -Wall -Wextra -Wshadow -Wmissing-prototypes -Wformat=2 \
	-Wwrite-strings
CFLAGS ?= -O2 -g
override CFLAGS += -std=gnu11 $(WARNINGS) -Ikernel/uapi -Ikernel
ifneq ($(WERROR),)
override CFLAGS += -Werror
endif
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all

ifeq ($(V),1)
Q :=
quiet = @:
else
Q := @
quiet = @printf '  %-8s %s\n'
endif

.DELETE_ON_ERROR:
.SUFFIXES:
.PHONY: all deps check check-unit check-host check-vm check-debug style clean \
	install install-tool demo help

## all: build everything into build/ (the default)
all:

# Parts append to these: unit test binaries run on the host, and test
# binaries the VM harness carries into the guest and runs there.
UNIT_TESTS :=
VM_TESTS :=
# ...and phony targets that check-host runs: the host tests beyond the unit
# tests (fuzzing, the viewer's screens, exports read back, the SPANK plugin).
CHECK_HOST :=

include kernel/build.mk
include libmonitor/build.mk
include tests/unit/build.mk
include viewer/build.mk
include tools/build.mk
include slurm/build.mk
include examples/build.mk
include bench/build.mk
include bench/compensation/build.mk
include tests/abi/build.mk
include tests/cli/build.mk
include tests/whole/build.mk
include tests/osnoise/build.mk
include tests/stress/build.mk
include tests/view/build.mk
include tests/export/build.mk
include tests/slurm/build.mk
# Last: their rules list every part's VM_TESTS and VM_FILES.
include tests/vm/build.mk
include tests/kernel/build.mk
include debian/build.mk
include tests/pkg/build.mk

## deps: install the Debian packages, fetch the kernel matrix into ~/.cache/mkm
deps:
	$(Q)tests/vm/deps.sh

# check and demo install what they need first: they must work on a fresh
# machine, and KDIR is only known once the headers are installed.
# The tiers, fastest first (tests/README.md: what each runs and asserts, and
# how long it takes). check-vm's run is the reference kernel's row of
# check-kernels, not booted twice.
MAKE_CHECK_TIERS := check-unit check-host check-vm check-kernels check-arm64 \
	check-install check-compensation check-debug
## check: every tier below, from deps to check-debug (what CI runs)
check:
	$(Q)$(MAKE) --no-print-directory deps
	$(Q)$(MAKE) --no-print-directory $(MAKE_CHECK_TIERS) \
		KERNELS_REFERENCE_REPORT=$(VM_REPORT)

## demo: record examples/matmul in the VM and show its timeline
demo:
	$(Q)tests/vm/deps.sh --demo
	$(Q)$(MAKE) --no-print-directory all $(VM_INITRAMFS)
	$(Q)BUILD=$(BUILD) examples/demo.sh

## help: this list (each target's "## NAME: ..." line in its build.mk)
help:
	$(Q)awk -v tiers="check $(MAKE_CHECK_TIERS)" -f tests/style/help.awk \
		$(filter-out %.d,$(MAKEFILE_LIST))

# install builds only what it installs: the library, the command and the man
# pages need no kernel headers, and the module is built for the running
# kernel if its headers are there (install-module says so if not).
MANDIR ?= $(PREFIX)/share/man
## install: the library, the mkm command, the man pages and the module (PREFIX, DESTDIR)
install: install-lib install-tool install-module

## install-tool: the mkm command and the man pages alone
install-tool: $(MKM_TOOL)
	$(quiet) INSTALL $(DESTDIR)$(PREFIX)/bin/mkm
	$(Q)install -D -m 0755 $(MKM_TOOL) $(DESTDIR)$(PREFIX)/bin/mkm
	$(Q)install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3
	$(Q)install -m 0644 docs/man/*.1 $(DESTDIR)$(MANDIR)/man1/
	$(Q)install -m 0644 docs/man/*.3 $(DESTDIR)$(MANDIR)/man3/

## check-unit: the cmocka tests, plain then with ASan+UBSan (the everyday tier)
check-unit: $(UNIT_TESTS)
	$(Q)set -e; for t in $(UNIT_TESTS); do echo "== $$t"; $$t; done
	$(Q)$(MAKE) --no-print-directory check-unit-san

## check-host: the other host tests: fuzzing, screens, exports, CLI, SPANK, benches' smoke
check-host:
	$(Q)$(MAKE) --no-print-directory $(CHECK_HOST)

# No part includes a header of a part above it (tests/style/layers.sh).
.PHONY: check-layers
CHECK_HOST += check-layers
## check-layers: no part includes a header of a part above it
check-layers:
	$(Q)tests/style/layers.sh

# Every phony target says what it is for in make help.
.PHONY: check-help
CHECK_HOST += check-help
## check-help: every phony target has its line in make help
check-help:
	$(Q)tests/style/help.sh $(filter-out %.d,$(MAKEFILE_LIST))

## style: clang-format, checkpatch and sparse over the tree
style: sparse
	$(Q)clang-format --dry-run --Werror $$(git ls-files '*.c' '*.h')
	$(Q)tests/style/checkpatch.sh kernel

## clean: remove build/ (the cache of kernels stays)
clean:
	$(Q)rm -rf $(BUILD)

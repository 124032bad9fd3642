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
.PHONY: all deps check check-unit check-vm check-debug style clean install \
	install-tool demo

all:

# Parts append to these: unit test binaries run on the host, and test
# binaries the VM harness carries into the guest and runs there.
UNIT_TESTS :=
VM_TESTS :=
# ...and phony targets that check-unit runs too (sanitizer runs, fuzz smoke).
CHECK_EXTRA :=

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
include tests/stress/build.mk
include tests/view/build.mk
include tests/export/build.mk
include tests/slurm/build.mk
# Last: their rules list every part's VM_TESTS and VM_FILES.
include tests/vm/build.mk
include tests/kernel/build.mk
include debian/build.mk
include tests/pkg/build.mk

deps:
	$(Q)tests/vm/deps.sh

# check and demo install what they need first: they must work on a fresh
# machine, and KDIR is only known once the headers are installed.
check:
	$(Q)$(MAKE) --no-print-directory deps
	$(Q)$(MAKE) --no-print-directory check-unit check-vm check-kernels \
		check-install check-compensation check-debug

demo:
	$(Q)$(MAKE) --no-print-directory deps
	$(Q)$(MAKE) --no-print-directory all $(VM_INITRAMFS)
	$(Q)BUILD=$(BUILD) examples/demo.sh

# install builds only what it installs: the library, the command and the man
# pages need no kernel headers, and the module is built for the running
# kernel if its headers are there (install-module says so if not).
MANDIR ?= $(PREFIX)/share/man
install: install-lib install-tool install-module

install-tool: $(MKM_TOOL)
	$(quiet) INSTALL $(DESTDIR)$(PREFIX)/bin/mkm
	$(Q)install -D -m 0755 $(MKM_TOOL) $(DESTDIR)$(PREFIX)/bin/mkm
	$(Q)install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3
	$(Q)install -m 0644 docs/man/*.1 $(DESTDIR)$(MANDIR)/man1/
	$(Q)install -m 0644 docs/man/*.3 $(DESTDIR)$(MANDIR)/man3/

check-unit: $(UNIT_TESTS)
	$(Q)set -e; for t in $(UNIT_TESTS); do echo "== $$t"; $$t; done
	$(Q)$(if $(strip $(CHECK_EXTRA)),$(MAKE) --no-print-directory $(CHECK_EXTRA))

# No part includes a header of a part above it (tests/style/layers.sh).
.PHONY: check-layers
CHECK_EXTRA += check-layers
check-layers:
	$(Q)tests/style/layers.sh

style: sparse
	$(Q)clang-format --dry-run --Werror $$(git ls-files '*.c' '*.h')
	$(Q)tests/style/checkpatch.sh kernel

clean:
	$(Q)rm -rf $(BUILD)

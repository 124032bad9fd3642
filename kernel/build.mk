# SPDX-License-Identifier: GPL-2.0
# kernel/: mkm.ko, built by Kbuild in $(BUILD)/kernel (sources symlinked
# there, so the source tree stays clean).

KERNEL_SRCS := $(wildcard kernel/*.c kernel/*.h) kernel/Kbuild kernel/uapi/mkm.h
MODULE := $(BUILD)/kernel/mkm.ko
KBUILD_ARGS := -C $(KDIR) M=$(abspath $(BUILD)/kernel) W=1 $(if $(filter 1,$(V)),V=1) \
	MKM_VERSION=$(MKM_VERSION)

all: $(MODULE)

$(MODULE): $(KERNEL_SRCS) VERSION
	$(quiet) KBUILD $@
	$(Q)test -d "$(KDIR)" || { echo "mkm: no kernel headers at $(KDIR): run make deps" >&2; exit 1; }
	$(Q)mkdir -p $(BUILD)/kernel
	$(Q)for f in $(filter-out kernel/uapi/%,$(KERNEL_SRCS)); do \
		ln -sfn $(CURDIR)/$$f $(BUILD)/kernel/; done
	$(Q)ln -sfn $(CURDIR)/kernel/uapi $(BUILD)/kernel/uapi
	$(Q)$(MAKE) --no-print-directory $(KBUILD_ARGS) modules $(if $(filter 1,$(V)),,>$(BUILD)/kernel/build.log 2>&1) || \
		{ cat $(BUILD)/kernel/build.log >&2; exit 1; }
	$(Q)! grep -E 'warning:' $(BUILD)/kernel/build.log >&2 || [ -z "$(WERROR)" ]

# sparse, where installed (make deps installs it).
.PHONY: sparse
## sparse: sparse (C=2) over the module
sparse: $(MODULE)
	$(Q)$(MAKE) --no-print-directory $(KBUILD_ARGS) C=2 modules 2>&1 | \
		grep -E 'warning|error' | grep -v 'Skipping BTF' | \
		{ ! grep . >&2; }

# The ring also builds in userspace: its unit test, plain and sanitized.
RING_TEST := $(BUILD)/tests/unit/test_ring
UNIT_TESTS += $(RING_TEST) $(RING_TEST)-san
all: $(RING_TEST)

$(RING_TEST): tests/unit/test_ring.c kernel/ring.h kernel/uapi/mkm.h
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $< -lcmocka

$(RING_TEST)-san: tests/unit/test_ring.c kernel/ring.h kernel/uapi/mkm.h
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(SAN_FLAGS) -o $@ $< -lcmocka

# `make install` builds the module again for the running kernel (the build
# above targets the reference kernel the VM tests boot) and installs it.
# Without that kernel's headers it says so and installs nothing, so that the
# rest of `make install` still goes through. DESTDIR stages it (no depmod).
RUNNING_KVER ?= $(shell uname -r)
RUNNING_KDIR ?= /lib/modules/$(RUNNING_KVER)/build
INSTALL_KBUILD_DIR := $(BUILD)/kernel-running
INSTALL_KBUILD_ARGS := -C $(RUNNING_KDIR) M=$(abspath $(INSTALL_KBUILD_DIR)) \
	MKM_VERSION=$(MKM_VERSION) $(if $(DESTDIR),INSTALL_MOD_PATH=$(abspath $(DESTDIR)))

.PHONY: install-module
## install-module: build and install mkm.ko for the running kernel, if its headers are there
install-module:
	$(Q)if ! test -d "$(RUNNING_KDIR)"; then \
		echo "mkm: no headers for the running kernel $(RUNNING_KVER) at $(RUNNING_KDIR):" \
			"mkm.ko not installed (apt-get install linux-headers-$(RUNNING_KVER)," \
			"then make install-module; or install the mkm-dkms package of make deb)" >&2; \
		exit 0; fi; \
	set -e; mkdir -p $(INSTALL_KBUILD_DIR); \
	for f in $(filter-out kernel/uapi/%,$(KERNEL_SRCS)); do \
		ln -sfn $(CURDIR)/$$f $(INSTALL_KBUILD_DIR)/; done; \
	ln -sfn $(CURDIR)/kernel/uapi $(INSTALL_KBUILD_DIR)/uapi; \
	echo "  KBUILD   $(INSTALL_KBUILD_DIR)/mkm.ko ($(RUNNING_KVER))"; \
	$(MAKE) --no-print-directory $(INSTALL_KBUILD_ARGS) modules; \
	$(MAKE) --no-print-directory $(INSTALL_KBUILD_ARGS) modules_install; \
	$(if $(DESTDIR),:,depmod -a $(RUNNING_KVER))

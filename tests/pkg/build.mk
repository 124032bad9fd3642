# SPDX-License-Identifier: GPL-2.0
# tests/pkg/: installing mkm on a real machine, checked. check-install runs
# tests/pkg/check.sh (make install without the running kernel's headers; the
# packages of make deb, their contents and lintian, mkm-slurm's plugin in
# fake_stepd; dkms add and build of
# mkm-dkms for $(KVER) in a private DKMS tree, nothing installed on this
# machine), then boots the VM with the module DKMS built and runs a smoke
# test on it: the lifecycle ABI test (open, version, configure, resume,
# read, close). The rest of the VM suite runs on the same sources' module in
# check-vm; what could differ here is how DKMS builds and packages it.
PKG_SMOKE_TEST := $(ABI_DIR)/test_lifecycle

PKG_DIR := $(BUILD)/tests/pkg
PKG_DKMS_KO := $(PKG_DIR)/dkms/mkm/$(MKM_VERSION)/$(KVER)/$(shell uname -m)/module/mkm.ko
PKG_INITRAMFS := $(PKG_DIR)/initramfs.cpio.gz

.PHONY: check-install
## check-install: make install staged, the packages and lintian, DKMS builds, the DKMS module in the VM
check-install: deb $(PKG_SMOKE_TEST) $(FAKE_STEPD)
	$(quiet) TEST tests/pkg/check.sh
	$(Q)BUILD=$(BUILD) MKM_VERSION=$(MKM_VERSION) KVER=$(KVER) KDIR=$(KDIR) \
		DEB_DIR=$(DEB_DIR) PKG_DIR=$(PKG_DIR) FAKE_STEPD=$(FAKE_STEPD) \
		tests/pkg/check.sh
	$(quiet) CPIO $(PKG_INITRAMFS)
	$(Q)tests/vm/mkinitramfs.sh -o $(PKG_INITRAMFS) -m $(PKG_DKMS_KO) \
		-t $(PKG_SMOKE_TEST)
	$(quiet) VM $(PKG_DIR)/vm.log
	$(Q)flock /tmp/mkm-vm.lock env $(VM_RUN) -i $(PKG_INITRAMFS) -l $(PKG_DIR)/vm.log

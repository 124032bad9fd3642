# SPDX-License-Identifier: GPL-2.0
# debian/: `make deb`, the Debian packages: mkm-dkms (the module's source,
# which DKMS builds on the user's machine for each kernel), libmonitor0,
# libmonitor-dev and mkm (the command and its man pages), in $(DEB_DIR).
# dpkg-buildpackage writes next to the tree it builds, so it builds a copy
# of the sources (git's tracked and untracked, not ignored files) there.
# A new version: VERSION, and a debian/changelog entry (dch -v VERSION).

DEB_DIR := $(BUILD)/deb
DEB_SRC := $(DEB_DIR)/mkm-$(MKM_VERSION)

.PHONY: deb
## deb: the Debian packages into build/deb
deb:
	$(quiet) DEB $(DEB_DIR)
	$(Q)rm -rf $(DEB_DIR) && mkdir -p $(DEB_SRC)
	$(Q)git ls-files -z -co --exclude-standard | \
		tar --null -T - --ignore-failed-read -cf - | tar -xf - -C $(DEB_SRC)
	$(Q)cd $(DEB_SRC) && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		WERROR=$(WERROR) dpkg-buildpackage -b -us -uc -J$$(nproc) \
		>$(abspath $(DEB_DIR))/build.log 2>&1 || \
		{ tail -40 $(abspath $(DEB_DIR))/build.log >&2; \
		  echo "mkm: make deb failed, see $(DEB_DIR)/build.log" >&2; exit 1; }
	$(Q)ls $(DEB_DIR)/*.deb

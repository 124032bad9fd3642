# SPDX-License-Identifier: GPL-2.0
# bench/peers/: the other tracers bench-vm measures in the same boot as mkm,
# and the floor (bench/floor/). Built only for the bench image, never by
# make check.
#
# perf is Debian's linux-perf, installed by make deps (its version is the
# guest kernel's). LTTng 2.13 is Debian's too, but its two packages are only
# downloaded by make deps into $(CACHE)/peers (tests/vm/deps.sh says why)
# and unpacked here: lttng-modules built against the guest kernel's headers
# (KDIR, as mkm.ko) with the one fix this kernel needs, lttng-tools' three
# programs taken as they are, with their libraries (installed packages).
# The eBPF peer is built here from bpf_sched.bpf.c (clang's BPF target,
# CO-RE: vmlinux.h from the guest kernel's BTF, bpftool's skeleton) and
# bpf_sched.c (libbpf-dev); bpftrace is Debian's, with its libraries.

PEERS_DIR := $(BUILD)/bench/peers
PEERS_DEBS := $(CACHE)/peers
LTTNG_MODULES_DEB = $(lastword $(sort $(wildcard $(PEERS_DEBS)/lttng-modules-dkms_*.deb)))
LTTNG_TOOLS_DEB = $(lastword $(sort $(wildcard $(PEERS_DEBS)/lttng-tools_*.deb)))
LTTNG_PATCHES := $(sort $(wildcard bench/peers/lttng-modules-*.patch))
# bench/kernels.sh builds lttng-modules for each kernel in that kernel's
# build environment (tests/kernel/kernels.sh run: sid's chroot for the
# kernels sid's gcc builds), with the compiler it names.
LTTNG_RUN :=
LTTNG_KBUILD_ARGS :=
# The guest's module tree: LTTng's modules and their modules.dep, which
# lttng-sessiond needs to modprobe them.
PEERS_MODULES := $(PEERS_DIR)/modules/lib/modules
LTTNG_MODULES_STAMP := $(PEERS_DIR)/lttng-modules.stamp
LTTNG_TOOLS_STAMP := $(PEERS_DIR)/lttng-tools.stamp
LTTNG_TOOLS := $(PEERS_DIR)/lttng-tools
LTTNG_LIBEXEC := /usr/lib/x86_64-linux-gnu/lttng/libexec
PERF ?= /usr/bin/perf
BPF_DIR := $(PEERS_DIR)/bpf
BPF_SCHED := $(BPF_DIR)/bpf_sched
# The guest kernel's own lists (make deps unpacked it): which modules are
# built in, for depmod and the guest's modprobe. bench/kernels.sh's other
# kernels have none: empty lists then, for without them depmod writes empty
# indexes that libkmod, and so lttng-sessiond, refuses to load.
GUEST_MODULES := $(CACHE)/linux-image-$(KVER)/lib/modules/$(KVER)

.PHONY: peers peers-lttng lttng-image-files
## peers: LTTng's modules and tools and the eBPF peer, for the bench image
peers: $(LTTNG_MODULES_STAMP) $(LTTNG_TOOLS_STAMP) $(BPF_SCHED)
## peers-lttng: LTTng's modules and tools alone
peers-lttng: $(LTTNG_MODULES_STAMP) $(LTTNG_TOOLS_STAMP)

peers-need-deb = $(if $(1),,$(error no $(2) in $(PEERS_DEBS): run make deps))

# Every module lttng-modules builds: lttng-sessiond loads its list by name
# and skips the probes this kernel cannot have. Stripped of their debug
# information, as modules_install would with INSTALL_MOD_STRIP=1.
$(LTTNG_MODULES_STAMP): $(LTTNG_MODULES_DEB) $(LTTNG_PATCHES)
	$(call peers-need-deb,$(LTTNG_MODULES_DEB),lttng-modules-dkms)
	$(quiet) KBUILD $(PEERS_DIR)/lttng-modules
	$(Q)test -n "$(LTTNG_RUN)" || test -d "$(KDIR)" || { echo "mkm: no kernel headers at $(KDIR): run make deps" >&2; exit 1; }
	$(Q)rm -rf $(PEERS_DIR)/lttng-modules $(PEERS_DIR)/lttng-modules.deb $(PEERS_DIR)/modules
	$(Q)mkdir -p $(PEERS_DIR)
	$(Q)dpkg -x $(LTTNG_MODULES_DEB) $(PEERS_DIR)/lttng-modules.deb
	$(Q)mv $(PEERS_DIR)/lttng-modules.deb/usr/src/lttng-modules-* $(PEERS_DIR)/lttng-modules
	$(Q)rm -rf $(PEERS_DIR)/lttng-modules.deb
	$(Q)for p in $(LTTNG_PATCHES); do \
		patch -s -p1 -d $(PEERS_DIR)/lttng-modules <$$p || exit 1; done
	$(Q)$(LTTNG_RUN) $(MAKE) --no-print-directory -C $(abspath $(PEERS_DIR)/lttng-modules) \
		KERNELDIR=$(KDIR) $(LTTNG_KBUILD_ARGS) \
		modules >$(PEERS_DIR)/lttng-modules.log 2>&1 || \
		{ tail -n 40 $(PEERS_DIR)/lttng-modules.log >&2; exit 1; }
	$(Q)mkdir -p $(PEERS_MODULES)/$(KVER)/extra
	$(Q)find $(PEERS_DIR)/lttng-modules -name '*.ko' \
		-exec install -m 0644 -t $(PEERS_MODULES)/$(KVER)/extra {} +
	$(Q)strip --strip-debug $(PEERS_MODULES)/$(KVER)/extra/*.ko
	$(Q)for f in modules.builtin modules.builtin.modinfo; do \
		if test -f $(GUEST_MODULES)/$$f; then \
		cp $(GUEST_MODULES)/$$f $(PEERS_MODULES)/$(KVER)/ || exit 1; \
		else : >$(PEERS_MODULES)/$(KVER)/$$f; fi; done
	$(Q)ls $(PEERS_MODULES)/$(KVER)/extra | sed 's,^,extra/,' >$(PEERS_MODULES)/$(KVER)/modules.order
	$(Q)depmod -b $(abspath $(PEERS_DIR)/modules) $(KVER)
	$(Q)touch $@

$(LTTNG_TOOLS_STAMP): $(LTTNG_TOOLS_DEB)
	$(call peers-need-deb,$(LTTNG_TOOLS_DEB),lttng-tools)
	$(quiet) DPKG-X $(LTTNG_TOOLS)
	$(Q)rm -rf $(LTTNG_TOOLS)
	$(Q)mkdir -p $(PEERS_DIR)
	$(Q)dpkg -x $(LTTNG_TOOLS_DEB) $(LTTNG_TOOLS)
	$(Q)touch $@

# The eBPF peer. vmlinux.h is the guest kernel's types, from the BTF of the
# vmlinux make deps took out of its image; the program's field accesses are
# relocated at load time against the BTF of the kernel it runs on (CO-RE),
# so it loads in another guest kernel too (VM_KERNEL).
GUEST_VMLINUX := $(CACHE)/linux-image-$(KVER)/boot/vmlinux-$(KVER)
BPFTOOL ?= /usr/sbin/bpftool
BPFTRACE ?= /usr/bin/bpftrace
BPF_CLANG ?= clang

$(BPF_DIR)/vmlinux.h: $(GUEST_VMLINUX)
	$(quiet) BPFTOOL $@
	$(Q)mkdir -p $(@D)
	$(Q)$(BPFTOOL) btf dump file $< format c >$@

$(BPF_DIR)/bpf_sched.bpf.o: bench/peers/bpf_sched.bpf.c bench/peers/bpf_sched.h \
		$(BPF_DIR)/vmlinux.h
	$(quiet) CLANG-BPF $@
	$(Q)$(BPF_CLANG) -g -O2 -target bpf -D__TARGET_ARCH_x86 -I$(BPF_DIR) \
		-Ibench/peers -Wall -c $< -o $@

$(BPF_DIR)/bpf_sched.skel.h: $(BPF_DIR)/bpf_sched.bpf.o
	$(quiet) BPFTOOL $@
	$(Q)$(BPFTOOL) gen skeleton $< name bpf_sched_bpf >$@

$(BPF_SCHED): bench/peers/bpf_sched.c bench/peers/bpf_sched.h \
		$(BPF_DIR)/bpf_sched.skel.h
	$(quiet) CC $@
	$(Q)$(CC) $(CFLAGS) -I$(BPF_DIR) -Ibench/peers -o $@ $< -lbpf

# What the bench image adds (bench/build.mk): perf, lttng, lttng-sessiond and
# lttng-consumerd where the session daemon looks for it, the session schema
# it validates against, the modules, the eBPF peer and bpftrace.
LTTNG_IMAGE_FILES := $(LTTNG_TOOLS)/usr/bin/lttng:/usr/bin/lttng \
	$(LTTNG_TOOLS)/usr/bin/lttng-sessiond:/usr/bin/lttng-sessiond \
	$(LTTNG_TOOLS)$(LTTNG_LIBEXEC)/lttng-consumerd:$(LTTNG_LIBEXEC)/lttng-consumerd \
	/usr/share/xml/lttng/session.xsd:/usr/share/xml/lttng/session.xsd \
	$(PEERS_MODULES):/lib/modules
PEERS_IMAGE_FILES := $(PERF):/usr/bin/perf $(LTTNG_IMAGE_FILES) \
	$(BPF_SCHED):/usr/bin/bpf_sched $(BPFTRACE):/usr/bin/bpftrace

# For bench/kernels.sh, which builds LTTng for each kernel (BUILD, KDIR, KVER
# and LTTNG_MODULES_DEB given) into an image of its own: the files to add.
## lttng-image-files: the files LTTng adds to a guest image (for bench/kernels.sh)
lttng-image-files:
	@printf -- '-f\n%s\n' $(LTTNG_IMAGE_FILES)

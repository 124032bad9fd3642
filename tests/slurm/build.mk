# SPDX-License-Identifier: GPL-2.0
# tests/slurm/: mkm.so loaded by a stand-in for slurmstepd (fake_stepd),
# its options and its errors checked on the host (check-spank, part of
# check-host when libslurm-dev is there). make check-cluster boots a real
# Slurm cluster of QEMU guests (tests/slurm/cluster.sh, docs/cluster.md);
# it is not part of make check (minutes of TCG, two guests; NODES=3, three).

ifneq ($(SPANK_HAVE),)
FAKE_STEPD := $(BUILD)/tests/slurm/fake_stepd
all: $(FAKE_STEPD)
CHECK_HOST += check-spank

$(FAKE_STEPD): tests/slurm/fake_stepd.c
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -Wno-discarded-qualifiers -rdynamic -o $@ $< -ldl

.PHONY: check-spank
## check-spank: the SPANK plugin in a stand-in slurmstepd (in check-host)
check-spank: $(FAKE_STEPD) $(SPANK_SO)
	$(Q)echo "== tests/slurm/test_spank.sh"
	$(Q)tests/slurm/test_spank.sh $(FAKE_STEPD) $(SPANK_SO) $(BUILD)/tests/slurm/work

# VM_INITRAMFS is tests/vm/build.mk's, included after this file.
CLUSTER_JOB := $(BUILD)/tests/slurm/cluster_job
all: $(CLUSTER_JOB)

$(CLUSTER_JOB): tests/slurm/cluster_job.c examples/common/spin.h
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -Iexamples/common $(CFLAGS) -pthread -o $@ $<

.PHONY: check-cluster
## check-cluster: a Slurm cluster of QEMU guests runs srun --mkm and mkm merge (not in make check)
check-cluster: $(BUILD)/vm/initramfs.cpio.gz $(MKM_TOOL) $(SPANK_SO) \
		$(CLUSTER_JOB) $(CLUSTER_BARRIER)
	$(Q)echo "== tests/slurm/cluster.sh"
	$(Q)$(if $(NODES),NODES=$(NODES)) tests/slurm/cluster.sh $(BUILD) \
		$(BUILD)/vm/initramfs.cpio.gz \
		$(MKM_TOOL) $(SPANK_SO) $(CLUSTER_JOB) $(CLUSTER_BARRIER)
endif

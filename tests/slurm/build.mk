# SPDX-License-Identifier: GPL-2.0
# tests/slurm/: mkm.so loaded by a stand-in for slurmstepd (fake_stepd),
# its options and its errors checked on the host (check-spank, part of
# check-unit when libslurm-dev is there). A real Slurm cluster of QEMU
# guests is make check-cluster's (issue 24, not written yet).

ifneq ($(SPANK_HAVE),)
FAKE_STEPD := $(BUILD)/tests/slurm/fake_stepd
all: $(FAKE_STEPD)
CHECK_EXTRA += check-spank

$(FAKE_STEPD): tests/slurm/fake_stepd.c
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -Wno-discarded-qualifiers -rdynamic -o $@ $< -ldl

.PHONY: check-spank
check-spank: $(FAKE_STEPD) $(SPANK_SO)
	$(Q)echo "== tests/slurm/test_spank.sh"
	$(Q)tests/slurm/test_spank.sh $(FAKE_STEPD) $(SPANK_SO) $(BUILD)/tests/slurm/work
endif

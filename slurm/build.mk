# SPDX-License-Identifier: GPL-2.0
# slurm/: mkm.so, the SPANK plugin (srun --mkm), built against Debian's
# libslurm-dev (installed by make deps) with libmonitor linked in, so a
# node needs only the plugin and the module. Without the Slurm headers it
# is left out, and make slurm says why.

SPANK_SO := $(BUILD)/slurm/mkm.so
SPANK_HAVE := $(wildcard /usr/include/slurm/spank.h)

.PHONY: slurm
ifneq ($(SPANK_HAVE),)
all: $(SPANK_SO)
slurm: $(SPANK_SO)
else
slurm:
	@echo "make slurm: /usr/include/slurm/spank.h missing: apt-get install libslurm-dev (make deps)" >&2; exit 1
endif

# slurmstepd resolves the slurm_* functions the plugin calls (hostlists,
# logging) when it loads it: they are left undefined here. Slurm's struct
# spank_option has char * fields for what are string literals, which
# -Wwrite-strings makes const: that warning is Slurm's API, not ours.
$(SPANK_SO): slurm/spank_mkm.c $(LIBMON_A) $(LIBMON_HDRS)
	$(quiet) CCLD $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -Ilibmonitor/include $(CFLAGS) -Wno-discarded-qualifiers \
		-fPIC -shared -pthread \
		-o $@ $< $(LIBMON_A) -lm

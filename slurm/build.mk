# SPDX-License-Identifier: GPL-2.0
# slurm/: mkm.so, the SPANK plugin (srun --mkm), built against Debian's
# libslurm-dev (installed by make deps) with libmonitor linked in, so a
# node needs only the plugin and the module. Without the Slurm headers it
# is left out, and make slurm says why. make install-slurm installs it
# with its plugstack.conf.d snippet (as the Debian package mkm-slurm does).

SPANK_SO := $(BUILD)/slurm/mkm.so
SPANK_HAVE := $(wildcard /usr/include/slurm/spank.h)
# The snippet names the plugin by its absolute path: a relative one is
# looked for in slurm.conf's PluginDir, which sites change.
SPANK_PLUGINDIR ?= $(PREFIX)/lib/mkm
SLURM_CONFDIR ?= /etc/slurm

.PHONY: slurm install-slurm
ifneq ($(SPANK_HAVE),)
all: $(SPANK_SO)
## slurm: the SPANK plugin, mkm.so (srun --mkm)
slurm: $(SPANK_SO)

## install-slurm: install the SPANK plugin and its plugstack.conf line
install-slurm: $(SPANK_SO)
	$(quiet) INSTALL $(DESTDIR)$(SPANK_PLUGINDIR)
	$(Q)install -D -m 0644 $(SPANK_SO) $(DESTDIR)$(SPANK_PLUGINDIR)/mkm.so
	$(Q)install -d $(DESTDIR)$(SLURM_CONFDIR)/plugstack.conf.d
	$(Q)sed 's|@PLUGINDIR@|$(SPANK_PLUGINDIR)|' slurm/mkm.conf.in \
		>$(DESTDIR)$(SLURM_CONFDIR)/plugstack.conf.d/mkm.conf
	$(Q)chmod 0644 $(DESTDIR)$(SLURM_CONFDIR)/plugstack.conf.d/mkm.conf
else
slurm install-slurm:
	@echo "make $@: /usr/include/slurm/spank.h missing: apt-get install libslurm-dev (make deps)" >&2; exit 1
endif

# slurmstepd resolves the slurm_* functions the plugin calls (hostlists,
# logging) when it loads it: they are left undefined here. Slurm's struct
# spank_option has char * fields for what are string literals, which
# -Wwrite-strings makes const: that warning is Slurm's API, not ours.
$(SPANK_SO): slurm/spank_mkm.c $(LIBMON_A) $(LIBMON_HDRS)
	$(quiet) CCLD $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -Ilibmonitor/include $(CFLAGS) -Wno-discarded-qualifiers \
		-fPIC -shared -pthread $(LDFLAGS) \
		-o $@ $< $(LIBMON_A) -lm

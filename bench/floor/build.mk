# SPDX-License-Identifier: GPL-2.0
# bench/floor/: floor.ko, a one-probe module on sched_switch (floor.c), built
# by Kbuild in $(BUILD)/bench/floor against the same headers as mkm.ko. For
# the bench image only.

FLOOR_MODULE := $(BUILD)/bench/floor/floor.ko

$(FLOOR_MODULE): bench/floor/floor.c bench/floor/Kbuild
	$(quiet) KBUILD $@
	$(Q)test -d "$(KDIR)" || { echo "mkm: no kernel headers at $(KDIR): run make deps" >&2; exit 1; }
	$(Q)mkdir -p $(@D)
	$(Q)ln -sfn $(CURDIR)/bench/floor/floor.c $(CURDIR)/bench/floor/Kbuild $(@D)/
	$(Q)$(MAKE) --no-print-directory -C $(KDIR) M=$(abspath $(@D)) W=1 modules \
		>$(@D)/build.log 2>&1 || { cat $(@D)/build.log >&2; exit 1; }
	$(Q)! grep -E 'warning:' $(@D)/build.log >&2 || [ -z "$(WERROR)" ]

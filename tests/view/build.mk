# SPDX-License-Identifier: GPL-2.0
# tests/view/: mkm view through a real terminal (tmux), against expected
# screens (check-view, part of check-host); mktrace writes the traces it
# opens, and bench-view's.

VIEW_MKTRACE := $(BUILD)/tests/view/mktrace
all: $(VIEW_MKTRACE)
CHECK_HOST += check-view

$(VIEW_MKTRACE): tests/view/mktrace.c tests/unit/synjob.h tests/unit/synbarrier.h \
		$(LIBMON_A)
	$(quiet) CC $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -Ilibmonitor/include $(CFLAGS) -o $@ $< $(LIBMON_A) -lm -pthread

.PHONY: check-view
## check-view: the viewer's screens through tmux (in check-host)
check-view: $(MKM_TOOL) $(VIEW_MKTRACE)
	$(Q)tests/view/test_view.sh $(MKM_TOOL) $(VIEW_MKTRACE) $(BUILD)/tests/view

# In check-vm: mkm view --live in the guest, under tmux (Debian's, with
# the terminfo entry its panes use and the UTF-8 locale it insists on).
VIEW_LIVE_VM := $(BUILD)/tests/view/live_vm
$(VIEW_LIVE_VM): tests/view/live_vm.sh
	$(Q)mkdir -p $(@D)
	$(Q)cp $< $@
VM_TESTS += $(VIEW_LIVE_VM)
VM_FILES += /usr/bin/tmux:/bin/tmux /lib/terminfo/s/screen:/lib/terminfo/s/screen \
	/usr/lib/locale/C.utf8:/usr/lib/locale/C.utf8

# make bench-view-live: does the viewer make a recording lose more? The
# same workload under mkm record and mkm view --live in the guest, with
# small rings, BENCH_LIVE_RUNS times each [BENCH_LIVE_RING=16K].
BENCH_LIVE_RUNS ?= 5
BENCH_LIVE_RING ?= 16K
.PHONY: bench-view-live
## bench-view-live: whether mkm view --live makes a recording lose more, in the guest
bench-view-live: $(BUILD)/vm/initramfs.cpio.gz
	$(Q)printf 'sh /bin/live_loss %s %s\n' $(BENCH_LIVE_RUNS) \
		$(BENCH_LIVE_RING) >$(BUILD)/vm/live_loss.cmd
	$(Q)tests/vm/run.sh -c $(BUILD)/vm/live_loss.cmd \
		-f tests/view/live_loss.sh:/bin/live_loss \
		-l $(BUILD)/vm/live_loss.log -t 900

# SPDX-License-Identifier: GPL-2.0
# tools/: the mkm command, linked statically with libmonitor so it runs in
# the test VM and on machines where the library is not installed.

MKM_TOOL := $(BUILD)/tools/mkm
# The viewer is part of the command; ncursesw is Debian's libncurses-dev.
MKM_TOOL_SRCS := $(wildcard tools/mkm/*.c viewer/*.c export/*.c)
# Pictures (mkm timeline --svg/--png) are drawn with cairo (libcairo2-dev).
MKM_TOOL_CFLAGS := -Ilibmonitor/include -Iviewer -Itools/mkm -Iexport -pthread \
	-DMKM_VERSION='"$(MKM_VERSION)"' \
	$(shell pkg-config --cflags ncursesw cairo 2>/dev/null)
MKM_TOOL_LIBS := $(shell pkg-config --libs ncursesw cairo 2>/dev/null || \
	echo -lncursesw -ltinfo -lcairo)
# mkm export -f otf2 needs libotf2 (Debian's libopen-trace-format2-dev,
# installed by make deps); without it the other formats are built.
OTF2_LIBS := $(shell pkg-config --libs otf2 2>/dev/null)
ifeq ($(OTF2_LIBS),)
MKM_TOOL_SRCS := $(filter-out export/otf2.c,$(MKM_TOOL_SRCS))
MKM_TOOL_CFLAGS += -DMKM_NO_OTF2
else
MKM_TOOL_CFLAGS += $(shell pkg-config --cflags otf2)
MKM_TOOL_LIBS += $(OTF2_LIBS)
endif

all: $(MKM_TOOL)

$(MKM_TOOL): $(MKM_TOOL_SRCS) $(wildcard tools/mkm/*.h viewer/*.h export/*.h) $(LIBMON_A) VERSION \
		libmonitor/include/mon_pipeline.h
	$(quiet) CCLD $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(MKM_TOOL_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $(MKM_TOOL_SRCS) $(LIBMON_A) \
		$(MKM_TOOL_LIBS) -lm

# SPDX-License-Identifier: GPL-2.0
# tools/: the mkm command, linked statically with libmonitor so it runs in
# the test VM and on machines where the library is not installed.

MKM_TOOL := $(BUILD)/tools/mkm
MKM_TOOL_SRCS := $(wildcard tools/mkm/*.c) viewer/layout.c
MKM_TOOL_CFLAGS := -Ilibmonitor/include -Iviewer -pthread

all: $(MKM_TOOL)

$(MKM_TOOL): $(MKM_TOOL_SRCS) $(wildcard tools/mkm/*.h) viewer/layout.h $(LIBMON_A) \
		libmonitor/include/mon_pipeline.h
	$(quiet) CCLD $@
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(MKM_TOOL_CFLAGS) $(CFLAGS) -o $@ $(MKM_TOOL_SRCS) $(LIBMON_A) -lm

// SPDX-License-Identifier: GPL-2.0
/*
 * util.c - for viewer/bench/bench_view only, which viewer/build.mk builds
 * from this one file of tools/mkm: the helpers it needs, whole. The mkm
 * command builds messages.c and trace.c themselves (tools/build.mk leaves
 * this file out); once bench_view builds from those two, this file goes.
 */
#include "messages.c"
#include "trace.c"

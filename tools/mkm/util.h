/* SPDX-License-Identifier: GPL-2.0 */
/*
 * util.h - for viewer/bench/bench_view only, which viewer/build.mk builds
 * from tools/mkm/util.c: the two helpers' files it needs (load_trace()).
 * The mkm command includes each helper's own header.
 */
#ifndef MKM_UTIL_H
#define MKM_UTIL_H

#include "messages.h"
#include "trace.h"

#endif /* MKM_UTIL_H */

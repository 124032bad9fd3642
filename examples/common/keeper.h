/* SPDX-License-Identifier: GPL-2.0 */
/*
 * keeper.h - a monitor resumed on a thread that only sleeps: it keeps mkm's
 * probes registered without producing events, so that other threads' switches
 * pay for the "is this thread monitored?" check alone.
 */
#ifndef MKM_EXAMPLES_KEEPER_H
#define MKM_EXAMPLES_KEEPER_H

#include "libmonitor.h"

struct keeper;

/* Returns NULL and prints why on failure. */
struct keeper *keeper_start(void);
void keeper_stop(struct keeper *k);

#endif /* MKM_EXAMPLES_KEEPER_H */

/* SPDX-License-Identifier: GPL-2.0 */
/* printer.h - the sink that prints every record as mkm dump does (and
 * mkm replay --play). */
#ifndef MKM_PRINTER_H
#define MKM_PRINTER_H

#include <stdint.h>

#include "libmonitor.h"
#include "mon_pipeline.h"

/* A sink printing every record as mkm dump does, times from the trace's
 * origin (mon_time_origin() of its INFO), flushed after each batch (a play
 * is read as it goes); @printed (if not NULL) counts the records printed
 * other than LOST ones, as it goes.
 * Return: 0 or -ENOMEM. */
int event_printer(struct mon_sink **skp, uint64_t *printed);

#endif /* MKM_PRINTER_H */

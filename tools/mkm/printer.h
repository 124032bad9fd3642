/* SPDX-License-Identifier: GPL-2.0 */
/* printer.h - the sink that prints every record as mkm dump does, as text
 * or JSON (and mkm replay --play). */
#ifndef MKM_PRINTER_H
#define MKM_PRINTER_H

#include <stdbool.h>
#include <stdint.h>

#include "libmonitor.h"
#include "mon_pipeline.h"

/*
 * A sink printing every record as mkm dump does, a line each (a comm's
 * two NAME records: one), times from the trace's origin (mon_time_origin()
 * of its INFO), flushed after each batch (a play is read as it goes);
 * with @json each line is a JSON object (json_event_fields() for the
 * type's fields), the time both from the origin and on the kernel's
 * clock. @printed (if not NULL) counts the records printed other than
 * LOST ones, as it goes.
 * Return: 0 or -ENOMEM.
 */
int event_printer(struct mon_sink **skp, uint64_t *printed, bool json);

#endif /* MKM_PRINTER_H */

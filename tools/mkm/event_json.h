/* SPDX-License-Identifier: GPL-2.0 */
/* event_json.h - a record's fields as JSON members, as mkm dump --json
 * prints them after the fields every record has. */
#ifndef MKM_EVENT_JSON_H
#define MKM_EVENT_JSON_H

#include "libmonitor.h"

/*
 * Prints on stdout, each as ,"key":value, the fields of @e's type with
 * names where the record holds numbers, as mon_fmt_event_args() words
 * them for the text dump: a switch's threads (and their comms, from
 * @f->comm), state and wait in ns; a wakeup's waker and CPU; a handler's
 * number and name; a system call's number, name and return value; an
 * exit's status or signal; a mark's value; and so on. A NAME record's
 * comm is the caller's (the printer joins the two halves). A type this
 * does not know gives its raw arg0, arg1 and flags.
 */
void json_event_fields(const struct mkm_event *e,
		       const struct mon_event_fmt *f);

#endif /* MKM_EVENT_JSON_H */

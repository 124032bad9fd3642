/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mon_events.h - the kernel's records as libmonitor reads and says them
 * (mon_): event and state names, switch records in either form, lost
 * events, classes, system call names, times and records formatted for
 * people (included by libmonitor.h).
 */
/* First, outside the guard, so that any of the library's headers may be
 * included first (libmonitor.h includes them all). */
#include "libmonitor.h"

#ifndef MON_EVENTS_H
#define MON_EVENTS_H

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 * Records: names, switch records, lost events, formatting (mon_)
 * ====================================================================== */

/* mon_event_name - "switch_out", ... (MKM_EV_*); "?" if unknown. */
MON_API const char *mon_event_name(unsigned int type);

/*
 * Switch records
 * ==============
 * A switch is a SWITCH_OUT of the thread leaving and a SWITCH_IN of the
 * thread coming in, or, between two threads of one monitor configured with
 * MKM_CONFIG_ONE_SWITCH (ABI 2.4; asked for at monitor_configure()),
 * one MKM_EV_SWITCH record that is both (<mkm.h> draws it). Every reader
 * of this library takes both forms, and so do trace files, which keep the
 * records as the kernel gave them. A consumer of one's own that knows only
 * the two-record form splits each record first: mon_event_split(), or a
 * struct mon_split, which also finds next's unique_id (the record does not
 * carry it) and keeps seq numbers consecutive.
 */

/*
 * mon_event_split - a record in the two-record form
 * @e: the record
 * @next_uid: for a SWITCH, next's unique_id (0 if not known)
 * @out: out: for a SWITCH, [0] the SWITCH_OUT of prev (its tid, unique_id,
 *       MKM_EVF_PREEMPTED and MKM_EVF_LOCK_WAIT; arg0 its MKM_TS_* state,
 *       arg1 next's tid) and [1] the SWITCH_IN of next (tid @e's arg1,
 *       unique_id @next_uid, MKM_EVF_WAIT_US; arg0 its wait, arg1 prev's
 *       tid), both with @e's time, cpu and seq; any other record, [0] = *@e
 *
 * Return: the records @e stands for: 2 for a SWITCH, else 1.
 */
MON_API unsigned int mon_event_split(const struct mkm_event *e,
				     uint32_t next_uid,
				     struct mkm_event out[2]);

/*
 * A splitter: mon_event_split() over a stream, with what it needs to know.
 * It remembers each thread's unique_id from the thread's own records (the
 * latest record with its tid; an inheriting FORK's child), so a stream in
 * time order (after mon_stage_order()) gives every SWITCH_IN its thread's
 * unique_id; and it shifts each CPU's seq numbers up by the SWITCH records
 * split there before, so the halves are two consecutive events and a hole
 * (events lost) stays a hole of the same size.
 */
struct mon_split;

/* mon_split_new - an empty splitter; NULL with errno ENOMEM. */
MON_API struct mon_split *mon_split_new(void);

/*
 * mon_split_event - the records @e stands for, in the two-record form
 * @s: the splitter, fed the stream's records in order (LOST ones too)
 * @e: the record
 * @out: out: as mon_event_split(), seq numbers shifted as said above
 *
 * Return: 2 (a SWITCH) or 1, or -EINVAL (NULL argument), -ENOMEM.
 */
MON_API int mon_split_event(struct mon_split *s, const struct mkm_event *e,
			    struct mkm_event out[2]);

/*
 * mon_split_note - learn from @e without splitting it (tid -> unique_id)
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
MON_API int mon_split_note(struct mon_split *s, const struct mkm_event *e);

/* mon_split_unique_id - the unique_id @s last saw with @tid; 0 if none. */
MON_API uint32_t mon_split_unique_id(const struct mon_split *s, uint32_t tid);

/* mon_split_free - free a splitter; NULL is a no-op. */
MON_API void mon_split_free(struct mon_split *s);

/*
 * Lost events
 * ===========
 * Each CPU numbers its records (seq). A LOST record says how many events
 * the CPU dropped, and its seq is the first one dropped. A hole in a CPU's
 * seq numbers that no LOST record announced (a trace cut upstream, a stage
 * that dropped records, a merge of sources) is a loss too: every reader
 * of this library turns it into a LOST record by mon_seq_lost().
 */
struct mon_seq_track {
	uint32_t next; /* the seq expected next */
	bool valid; /* a record was seen */
};

/*
 * mon_seq_lost - the LOST record for the events missing just before @e in
 * its stream, and the stream's track moved past @e
 * @t: the track of @e's stream (one CPU of one source), zeroed at first
 * @e: the stream's next record (a LOST one moves @t past the events it
 *     announces)
 * @time_ns: the time to give the LOST record
 * @lost: out, when 1 is returned: a LOST record stamped @time_ns on @e's
 *        CPU, its seq the first missing, arg0 how many are missing
 *
 * Return: 1 when events are missing before @e, 0 when none are (or @e is
 * the stream's first record), -ERANGE when @e's seq is behind the one
 * expected (a repeat, not a loss: an anomaly to count). @t moves past @e
 * in every case.
 */
MON_API int mon_seq_lost(struct mon_seq_track *t, const struct mkm_event *e,
			 uint64_t time_ns, struct mkm_event *lost);

/*
 * What a recording takes by default ("default" below): the module's
 * default classes and who woke whom, as perf sched record takes
 * sched_wakeup (the critical path, "woken by" and wakeup latency need it).
 */
#define MON_CLASS_RECORD_DEFAULT (MKM_CLASS_DEFAULT | MKM_CLASS_WAKEUP)

/*
 * What "all" takes: every class but the fair class's state, which costs a
 * second record a switch and is an experiment's, asked for by name.
 */
#define MON_CLASS_RECORD_ALL (MKM_CLASS_ALL & ~MKM_CLASS_SCHED_STATE)

/* The event class names mon_classes_parse() takes, for messages. */
#define MON_CLASS_NAMES \
	"sched, lifecycle, irq, syscall, wakeup, sched-state, default, all"

/*
 * mon_classes_parse - a comma-separated list of event class names
 * (MON_CLASS_NAMES), as mkm record --events and srun --mkm=LIST take it
 * @list: the list
 * @classes: out: the MKM_CLASS_* mask
 * @bad: out (may be NULL): on -EINVAL, the first name not known (up to
 *       @bad_len bytes, NUL-terminated)
 *
 * Return: 0, -EINVAL (an unknown name, an empty list or item), -ENOMEM.
 */
MON_API int mon_classes_parse(const char *list, uint32_t *classes, char *bad,
			      size_t bad_len);

/*
 * mon_classes_format - the single classes of an MKM_CLASS_* mask by the
 * names mon_classes_parse() takes, comma-separated ("sched,lifecycle,irq"),
 * as mkm report --json gives a trace's classes; bits that are no class
 * are left out
 * @buf: out: the list, NUL-terminated ("" for no class), cut at @len bytes
 * @len: @buf's size
 * @classes: the mask
 *
 * Return: @buf.
 */
MON_API const char *mon_classes_format(char *buf, size_t len, uint32_t classes);

/*
 * mon_syscall_name - system call @nr's name ("write") on @machine (a
 * trace_info's, uname -m: "x86_64" or "aarch64"; NULL or "", which a
 * trace from before arm64 had, is x86_64), from that kernel's own table,
 * so a trace names its calls alike on whichever machine reads it.
 *
 * Return: the name, or NULL if @nr or @machine is not known.
 */
MON_API const char *mon_syscall_name(const char *machine, uint32_t nr);

/*
 * mon_task_state_name - a MKM_TS_* value as ps(1) prints it ("R", "S",
 * "D", ...); "?" if unknown.
 */
MON_API const char *mon_task_state_name(unsigned int task_state);

/* ---- Times and records as people read them (format.c) ---------------- */

/* The units mon_parse_time() takes, for messages. */
#define MON_TIME_UNITS "ns, us, ms, s"

/*
 * mon_parse_time - a time with its unit ("1.5ms", "200 us", "2s",
 * "1500ns")
 *
 * Return: nanoseconds, or -1 if malformed or without a unit (a bare "5"
 * is refused, not 5 ns).
 */
MON_API int64_t mon_parse_time(const char *s);

/*
 * mon_parse_size - a size in bytes, with an optional suffix K, M or G
 * (powers of 1024; either case): "64M", "4096"
 *
 * Return: bytes, or -1 if malformed, negative or too large.
 */
MON_API int64_t mon_parse_size(const char *s);

/* mon_fmt_ns - nanoseconds as a short human string ("12.3 ms") in @buf
 * of @len bytes. Return: @buf. */
MON_API const char *mon_fmt_ns(char *buf, size_t len, uint64_t ns);

/* mon_fmt_time - time @t since @origin (mon_time_origin()) as
 * mon_fmt_ns() writes it, with a minus sign before the origin.
 * Return: @buf. */
MON_API const char *mon_fmt_time(char *buf, size_t len, uint64_t t,
				 uint64_t origin);

/* What mon_fmt_event_args() may know beside the record (all may be NULL). */
struct mon_event_fmt {
	const char *machine; /* the trace's (uname -m), for syscall names */
	/* For the second NAME record of a comm, the first's 8 bytes, so
	 * that it shows the whole comm. */
	const char *first_half;
	/* The comm of thread @tid, or NULL: names the tids a record gives
	 * (next=, prev=, by=, child=). */
	const char *(*comm)(void *arg, uint32_t tid);
	void *arg;
};

/*
 * mon_fmt_event_args - an event's arguments as mkm dump prints them ("S
 * preempted next=12 (worker)", "vector=236 local_timer", "nr=1 write
 * ret=12", "prev=0 waited=1.3 ms"): names where the record has numbers,
 * times with units; @f may be NULL. Return: @buf.
 */
MON_API const char *mon_fmt_event_args(char *buf, size_t len,
				       const struct mkm_event *e,
				       const struct mon_event_fmt *f);

#ifdef __cplusplus
}
#endif

#endif /* MON_EVENTS_H */

// SPDX-License-Identifier: GPL-2.0
/* printer.c - the sink that prints every record as mkm dump does (and
 * mkm replay --play). */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "printer.h"

#define COMMS 4096 /* the printer's table of names, by tid (modulo) */

struct printer {
	uint64_t origin; /* times print from it: mon_time_origin() */
	uint64_t *printed; /* records printed but LOST ones, or NULL */
	char machine[65]; /* the trace's, for syscall names */
	/* The names seen (THREADS, NAME records), to name the tids that
	 * records give as numbers; a tid's slot may be taken by another. */
	struct {
		uint32_t tid;
		char comm[16];
	} comms[COMMS];
	/* Per CPU (modulo), a comm's first NAME record, held until its
	 * second: the kernel writes both halves one after the other on one
	 * CPU, and the dump prints a comm as one line. */
	struct {
		bool held;
		struct mkm_event e;
	} names[64];
};

static void set_comm(struct printer *pr, uint32_t tid, const char *comm,
		     size_t len)
{
	typeof(pr->comms[0]) *c = &pr->comms[tid % COMMS];

	c->tid = tid;
	snprintf(c->comm, sizeof(c->comm), "%.*s", (int)len, comm);
}

static const char *printer_comm(void *arg, uint32_t tid)
{
	const struct printer *pr = arg;

	return pr->comms[tid % COMMS].tid == tid ? pr->comms[tid % COMMS].comm :
						   NULL;
}

/* One line: the record's time from the origin, CPU, tid, type, @args and
 * @seq ("4", or "4,5" for a comm's two records). */
static void print_line(const struct printer *pr, const struct mkm_event *e,
		       const char *args, const char *seq)
{
	printf("%14.6f ms cpu%-2u %7u %-13s %s  seq=%s\n",
	       ((double)e->time_ns - (double)pr->origin) / 1e6, e->cpu, e->tid,
	       mon_event_name(e->type), args, seq);
}

/* A comm's first NAME record whose second never came (lost, or cut
 * off): printed alone, saying so. */
static void flush_name(struct printer *pr, unsigned int slot)
{
	const struct mkm_event *e = &pr->names[slot].e;
	char raw[9] = { 0 }, args[64], seq[16];

	if (!pr->names[slot].held)
		return;
	pr->names[slot].held = false;
	memcpy(raw, &e->arg0, 4);
	memcpy(raw + 4, &e->arg1, 4);
	snprintf(args, sizeof(args), "comm \"%s\" (its first half only)", raw);
	snprintf(seq, sizeof(seq), "%u", e->seq);
	print_line(pr, e, args, seq);
}

static void print_event_line(struct printer *pr, const struct mkm_event *e)
{
	struct mon_event_fmt f = { .machine = pr->machine,
				   .comm = printer_comm,
				   .arg = pr };
	unsigned int slot = e->cpu % 64;
	char args[128], comm[17], seq[24], half[9] = { 0 };
	bool pair;

	if (e->type == MKM_EV_NAME && !e->flags) {
		flush_name(pr, slot);
		pr->names[slot].held = true;
		pr->names[slot].e = *e;
		return;
	}
	pair = e->type == MKM_EV_NAME && pr->names[slot].held &&
	       pr->names[slot].e.tid == e->tid;
	if (!pair)
		flush_name(pr, slot);
	snprintf(seq, sizeof(seq), "%u", e->seq);
	if (e->type != MKM_EV_NAME) {
		mon_fmt_event_args(args, sizeof(args), e, &f);
	} else {
		if (pair) {
			memcpy(half, &pr->names[slot].e.arg0, 4);
			memcpy(half + 4, &pr->names[slot].e.arg1, 4);
			f.first_half = half;
			snprintf(seq, sizeof(seq), "%u,%u",
				 pr->names[slot].e.seq, e->seq);
			pr->names[slot].held = false;
		}
		/* mon_fmt_event_args() joins the halves, and numbers them
		 * ("(2 of 2)"), as the viewer's events pane shows them. */
		mon_fmt_event_args(args, sizeof(args), e, &f);
		if (sscanf(args, "comm \"%16[^\"]\"", comm) == 1) {
			if (pair)
				set_comm(pr, e->tid, comm, strlen(comm));
			snprintf(args, sizeof(args),
				 pair ? "comm \"%s\"" :
					"comm \"%s\" (its second half only)",
				 comm);
		}
	}
	print_line(pr, e, args, seq);
}

static int printer_consume(void *priv, const struct mon_msg *msg)
{
	struct printer *pr = priv;
	size_t i;

	if (msg->type == MON_MSG_THREADS)
		for (i = 0; i < msg->nr_threads; i++)
			set_comm(pr, msg->threads[i].tid, msg->threads[i].name,
				 strnlen(msg->threads[i].name,
					 sizeof(msg->threads[i].name)));
	if (msg->type == MON_MSG_INFO) {
		pr->origin = mon_time_origin(msg->info);
		snprintf(pr->machine, sizeof(pr->machine), "%s",
			 msg->info->machine);
	}
	if (msg->type != MON_MSG_EVENTS || !msg->nr_events)
		return 0;
	for (i = 0; i < msg->nr_events; i++) {
		print_event_line(pr, &msg->events[i]);
		if (pr->printed && msg->events[i].type != MKM_EV_LOST)
			(*pr->printed)++;
	}
	fflush(stdout);
	return ferror(stdout) ? -EIO : 0;
}

/* The first halves still held, at the end. */
static int printer_finish(void *priv)
{
	struct printer *pr = priv;
	unsigned int slot;

	for (slot = 0; slot < 64; slot++)
		flush_name(pr, slot);
	fflush(stdout);
	return ferror(stdout) ? -EIO : 0;
}

static const struct mon_sink_ops printer_ops = {
	.name = "print",
	.consume = printer_consume,
	.finish = printer_finish,
	.destroy = free,
};

int event_printer(struct mon_sink **skp, uint64_t *printed)
{
	struct printer *pr = calloc(1, sizeof(*pr));
	int ret;

	if (!pr)
		return -ENOMEM;
	pr->printed = printed;
	ret = mon_sink_new(skp, &printer_ops, pr);
	if (ret)
		free(pr);
	return ret;
}

// SPDX-License-Identifier: GPL-2.0
/* printer.c - the sink that prints every record as mkm dump does (and
 * mkm replay --play). */

#include <errno.h>
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
	/* Per CPU (modulo), the last first half of a comm, and whose: the
	 * kernel writes both halves one after the other on one CPU. */
	struct {
		uint32_t tid;
		char half[9];
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

static void print_event_line(struct printer *pr, const struct mkm_event *e)
{
	struct mon_event_fmt f = { .machine = pr->machine,
				   .comm = printer_comm,
				   .arg = pr };
	char args[128], comm[17];

	if (e->type == MKM_EV_NAME) {
		typeof(pr->names[0]) *n = &pr->names[e->cpu % 64];

		if (!e->flags) {
			n->tid = e->tid;
			memcpy(n->half, &e->arg0, 4);
			memcpy(n->half + 4, &e->arg1, 4);
		} else if (n->tid == e->tid) {
			f.first_half = n->half;
		}
	}
	printf("%14.6f ms cpu%-2u %7u %-13s %s  seq=%u\n",
	       ((double)e->time_ns - (double)pr->origin) / 1e6, e->cpu, e->tid,
	       mon_event_name(e->type),
	       mon_fmt_event_args(args, sizeof(args), e, &f), e->seq);
	/* The comm is known from its second record on. */
	if (e->type == MKM_EV_NAME && e->flags &&
	    sscanf(args, "comm \"%16[^\"]\"", comm) == 1)
		set_comm(pr, e->tid, comm, strlen(comm));
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

static const struct mon_sink_ops printer_ops = {
	.name = "print",
	.consume = printer_consume,
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

// SPDX-License-Identifier: GPL-2.0
/* printer.c - the sink that prints every record as mkm dump does, as text
 * or JSON (and mkm replay --play). */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event_json.h"
#include "json.h"
#include "printer.h"

#define COMMS 4096 /* the printer's table of names, by tid (modulo) */

struct printer {
	bool json; /* mkm dump --json: a JSON object a line */
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

/*
 * One line for @e: its time from the origin, CPU, tid, type, then its
 * fields, as text or (@pr->json) a JSON object. A NAME record's comm is
 * @name: with @first, the comm joined from @first's half and @e's (the
 * line stands for both records); else one half alone (@half 1 or 2).
 */
static void print_record(struct printer *pr, const struct mkm_event *e,
			 const char *name, const struct mkm_event *first,
			 int half)
{
	struct mon_event_fmt f = { .machine = pr->machine,
				   .comm = printer_comm,
				   .arg = pr };
	static const char *const halves[] = { "", " (its first half only)",
					      " (its second half only)" };
	uint32_t seq = first ? first->seq : e->seq;
	const char *comm;
	char args[128];

	if (!pr->json) {
		if (e->type == MKM_EV_NAME)
			snprintf(args, sizeof(args), "comm \"%s\"%s", name,
				 halves[half]);
		else
			mon_fmt_event_args(args, sizeof(args), e, &f);
		printf("%14.6f ms cpu%-2u %7u %-13s %s  seq=%u",
		       ((double)e->time_ns - (double)pr->origin) / 1e6, e->cpu,
		       e->tid, mon_event_name(e->type), args, seq);
		if (first)
			printf(",%u", e->seq);
		putchar('\n');
		return;
	}
	printf("{\"time_ns\":%lld,\"kernel_time_ns\":%llu,\"cpu\":%u,\"tid\":%u,\"comm\":",
	       (long long)(e->time_ns - pr->origin),
	       (unsigned long long)e->time_ns, e->cpu, e->tid);
	comm = printer_comm(pr, e->tid);
	if (comm && *comm)
		json_string(comm);
	else
		fputs("null", stdout);
	printf(",\"type\":\"%s\",\"seq\":%u", mon_event_name(e->type), seq);
	if (e->type == MKM_EV_NAME) {
		printf(",\"name\":");
		json_string(name);
		if (first)
			printf(",\"seq_last\":%u", e->seq);
		else
			printf(",\"half\":%d", half);
	} else {
		json_event_fields(e, &f);
	}
	fputs("}\n", stdout);
}

/* A NAME record's 8 bytes of comm. */
static void name_half(const struct mkm_event *e, char half[9])
{
	memset(half, 0, 9);
	memcpy(half, &e->arg0, 4);
	memcpy(half + 4, &e->arg1, 4);
}

/* A comm's first NAME record whose second never came (lost, or cut
 * off): printed alone, saying so. */
static void flush_name(struct printer *pr, unsigned int slot)
{
	char half[9];

	if (!pr->names[slot].held)
		return;
	pr->names[slot].held = false;
	name_half(&pr->names[slot].e, half);
	print_record(pr, &pr->names[slot].e, half, NULL, 1);
}

static void print_event_line(struct printer *pr, const struct mkm_event *e)
{
	unsigned int slot = e->cpu % 64;
	struct mon_event_fmt f = { .machine = pr->machine };
	char args[128], comm[17], half[9];
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
	if (e->type != MKM_EV_NAME) {
		print_record(pr, e, NULL, NULL, 0);
		return;
	}
	/* mon_fmt_event_args() joins the halves, as the exporters do (and
	 * numbers them, as the viewer's events pane shows them). */
	if (pair) {
		name_half(&pr->names[slot].e, half);
		f.first_half = half;
	}
	mon_fmt_event_args(args, sizeof(args), e, &f);
	if (sscanf(args, "comm \"%16[^\"]\"", comm) != 1)
		comm[0] = 0;
	if (!pair) {
		print_record(pr, e, comm, NULL, 2);
		return;
	}
	pr->names[slot].held = false;
	set_comm(pr, e->tid, comm, strlen(comm));
	print_record(pr, e, comm, &pr->names[slot].e, 0);
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

int event_printer(struct mon_sink **skp, uint64_t *printed, bool json)
{
	struct printer *pr = calloc(1, sizeof(*pr));
	int ret;

	if (!pr)
		return -ENOMEM;
	pr->printed = printed;
	pr->json = json;
	ret = mon_sink_new(skp, &printer_ops, pr);
	if (ret)
		free(pr);
	return ret;
}

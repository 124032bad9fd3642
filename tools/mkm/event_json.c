// SPDX-License-Identifier: GPL-2.0
/* event_json.c - a record's fields as JSON members (see event_json.h). */
#define _GNU_SOURCE /* sigabbrev_np() */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "event_json.h"
#include "json.h"

/* ,"@key":TID,"@key_comm":"comm" (null when not known). */
static void tid_member(const struct mon_event_fmt *f, const char *key,
		       uint32_t tid)
{
	const char *c = f && f->comm && tid ? f->comm(f->arg, tid) : NULL;

	printf(",\"%s_tid\":%u,\"%s_comm\":", key, tid, key);
	if (c && *c)
		json_string(c);
	else
		fputs("null", stdout);
}

static const char *yes(unsigned int x)
{
	return x ? "true" : "false";
}

/* A switch's wait: arg0 in ns, or in us with MKM_EVF_WAIT_US. */
static uint64_t waited_ns(const struct mkm_event *in)
{
	return (uint64_t)in->arg0 * (in->flags & MKM_EVF_WAIT_US ? 1000 : 1);
}

/* A handler's number and, but for a device's irq, its name as the text
 * dump and mkm report give it ("NET_RX", "local_timer"). */
static void irq_fields(const struct mkm_event *e)
{
	char name[32];

	if (e->type == MKM_EV_SOFTIRQ_ENTRY || e->type == MKM_EV_SOFTIRQ_EXIT) {
		tl_irq_name(TL_IRQ_SOFT, e->arg0, name, sizeof(name));
		printf(",\"vec\":%u,\"name\":", e->arg0);
		/* "softirq TIMER": the type says softirq already */
		json_string(strncmp(name, "softirq ", 8) ? name : name + 8);
	} else if (e->flags & MKM_EVF_VECTOR) {
		printf(",\"vector\":%u,\"name\":", e->arg0);
		json_string(tl_irq_name(TL_IRQ_VECTOR, e->arg0, name,
					sizeof(name)));
	} else {
		printf(",\"irq\":%u", e->arg0);
	}
	if (e->type == MKM_EV_IRQ_EXIT)
		printf(",\"handled\":%u", e->arg1);
}

static void exit_fields(uint32_t code)
{
	const char *sig = sigabbrev_np((int)(code & 0x7f));

	if (!(code & 0x7f)) {
		printf(",\"status\":%u", (code >> 8) & 0xff);
		return;
	}
	printf(",\"signal\":%u,\"signal_name\":", code & 0x7f);
	if (sig)
		printf("\"SIG%s\"", sig);
	else
		fputs("null", stdout);
	printf(",\"core\":%s", yes(code & 0x80));
}

void json_event_fields(const struct mkm_event *e, const struct mon_event_fmt *f)
{
	const char *name;
	struct mkm_event h[2];

	switch (e->type) {
	case MKM_EV_SWITCH_OUT:
		printf(",\"state\":\"%s\",\"preempted\":%s,\"lock_wait\":%s",
		       mon_task_state_name(e->arg0),
		       yes(e->flags & MKM_EVF_PREEMPTED),
		       yes(e->flags & MKM_EVF_LOCK_WAIT));
		tid_member(f, "next", e->arg1);
		break;
	case MKM_EV_SWITCH_IN:
		tid_member(f, "prev", e->arg1);
		printf(",\"waited_ns\":%" PRIu64, waited_ns(e));
		break;
	case MKM_EV_SWITCH:
		/* The fields of its SWITCH_OUT and SWITCH_IN. */
		mon_event_split(e, 0, h);
		tid_member(f, "prev", h[0].tid);
		tid_member(f, "next", h[1].tid);
		printf(",\"state\":\"%s\",\"preempted\":%s,\"lock_wait\":%s,\"waited_ns\":%" PRIu64,
		       mon_task_state_name(h[0].arg0),
		       yes(h[0].flags & MKM_EVF_PREEMPTED),
		       yes(h[0].flags & MKM_EVF_LOCK_WAIT), waited_ns(&h[1]));
		break;
	case MKM_EV_IRQ_ENTRY:
	case MKM_EV_IRQ_EXIT:
	case MKM_EV_SOFTIRQ_ENTRY:
	case MKM_EV_SOFTIRQ_EXIT:
		irq_fields(e);
		break;
	case MKM_EV_SYSCALL_ENTRY:
	case MKM_EV_SYSCALL_EXIT:
		name = mon_syscall_name(f ? f->machine : NULL, e->arg0);
		printf(",\"nr\":%u,\"name\":", e->arg0);
		if (name)
			json_string(name);
		else
			fputs("null", stdout);
		if (e->type == MKM_EV_SYSCALL_EXIT)
			printf(",\"ret\":%d", (int32_t)e->arg1);
		break;
	case MKM_EV_WAKING:
	case MKM_EV_WAKEUP:
	case MKM_EV_WAKEUP_NEW:
		tid_member(f, "by", e->arg1);
		printf(",\"target_cpu\":%d,\"in_irq\":%s", (int)e->arg0,
		       yes(e->flags & MKM_EVF_IN_IRQ));
		break;
	case MKM_EV_MIGRATE:
		printf(",\"from_cpu\":%u,\"to_cpu\":%u", e->arg1, e->arg0);
		break;
	case MKM_EV_FORK:
		tid_member(f, "child", e->arg0);
		printf(",\"thread\":%s,\"inherited\":%s",
		       yes(e->flags & MKM_EVF_THREAD),
		       yes(e->flags & MKM_EVF_INHERITED));
		break;
	case MKM_EV_NAME:
		break;
	case MKM_EV_ATTACH:
		printf(",\"state\":\"%s\",\"on_cpu\":%d",
		       mon_task_state_name(e->arg0), (int)e->arg1);
		break;
	case MKM_EV_LOST:
		if (e->flags & MKM_EVF_OVERWRITTEN)
			printf(",\"lost\":%" PRIu64 ",\"overwritten\":true",
			       (uint64_t)e->arg1 << 32 | e->arg0);
		else
			printf(",\"lost\":%u", e->arg0);
		break;
	case MKM_EV_EXIT:
		exit_fields(e->arg0);
		break;
	case MKM_EV_EXEC:
		printf(",\"old_tid\":%u", e->arg0);
		break;
	case MKM_EV_REAP:
		break;
	case MKM_EV_MARK:
		printf(",\"value\":%" PRIu64,
		       (uint64_t)e->arg1 << 32 | e->arg0);
		break;
	case MKM_EV_TRIGGER: {
		uint64_t unit = e->flags & MKM_EVF_WAIT_US ? 1000 : 1;
		unsigned int kind = e->flags & MKM_EVF_TRIGGER_MASK;

		if (kind == MKM_TRIGGER_MARK)
			printf(",\"trigger\":\"mark\",\"value\":%" PRIu64,
			       (uint64_t)e->arg1 << 32 | e->arg0);
		else
			printf(",\"trigger\":\"%s\",\"value_ns\":%" PRIu64
			       ",\"threshold_ns\":%" PRIu64,
			       kind == MKM_TRIGGER_RUNQ ? "runq" : "irq",
			       e->arg0 * unit, e->arg1 * unit);
		if (e->flags & MKM_EVF_WAITING)
			printf(",\"waiting\":true");
		break;
	}
	case MKM_EV_SCHED_STATE:
		printf(",\"what\":\"%s\",\"at\":\"%s\",\"own\":%u",
		       e->flags & MKM_EVF_SS_DEADLINE ? "deadline" : "vruntime",
		       e->flags & MKM_EVF_SS_SWITCH ? "switch" : "wakeup",
		       e->arg0);
		if (e->flags & MKM_EVF_SS_PEER)
			printf(",\"peer\":%u,\"lead_ns\":%d", e->arg1,
			       (int32_t)(e->arg1 - e->arg0));
		if (e->flags & MKM_EVF_SS_RESCHED)
			printf(",\"resched\":true");
		break;
	case MKM_EV_DETACH:
		if (e->arg0 == MKM_DETACH_UNMONITOR)
			printf(",\"reason\":\"thread_unmonitor\"");
		else if (e->arg0 == MKM_DETACH_EXEC)
			printf(",\"reason\":\"exec\"");
		else
			printf(",\"reason\":%u", e->arg0);
		break;
	default:
		printf(",\"arg0\":%u,\"arg1\":%u,\"flags\":%u", e->arg0,
		       e->arg1, e->flags);
	}
}

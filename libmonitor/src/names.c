// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * names.c - the one table of microstates (names, legends, glyphs, colours,
 * groups) and the names of event types, event classes and kernel task
 * states. Every part that prints or draws a state reads it from here.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

const struct tl_state_desc mon_states[TL_NR_STATES] = {
	[TL_UNKNOWN] = { "UNKNOWN", "unknown", "?", 0x7f7f7f, '?',
			 TL_GROUP_UNKN, 0 },
	[TL_RUN] = { "RUN", "running", "\u2588", 0x2ca02c, '#', TL_GROUP_RUN,
		     1 },
	[TL_RUN_USER] = { "RUN_USER", "in user mode", "\u2588", 0x2ca02c, '#',
			  TL_GROUP_RUN, 1 },
	[TL_RUN_SYS] = { "RUN_SYS", "in syscall", "\u2593", 0x1f77b4, '=',
			 TL_GROUP_RUN, 1 },
	[TL_TRAP] = { "TRAP", "in a fault", "\u2593", 0x17becf, 't',
		      TL_GROUP_RUN, 1 },
	[TL_INTERRUPTED] = { "INTERRUPTED", "interrupted", "!", 0xd62728, '!',
			     TL_GROUP_INTR, 1 },
	[TL_RUNQ] = { "RUNQ", "run queue", "\u2591", 0xff7f0e, '-',
		      TL_GROUP_RUNQ, 0 },
	[TL_SLEEP] = { "SLEEP", "sleeping", "\u00b7", 0xaec7e8, '.',
		       TL_GROUP_SLEEP, 0 },
	[TL_FUTEX_SLEEP] = { "FUTEX_SLEEP", "futex", "f", 0xc5b0d5, 'f',
			     TL_GROUP_SLEEP, 0 },
	[TL_POLL_SLEEP] = { "POLL_SLEEP", "poll", "p", 0xdbdb8d, 'p',
			    TL_GROUP_SLEEP, 0 },
	[TL_DISK] = { "DISK", "disk", "D", 0x8c564b, 'D', TL_GROUP_DISK, 0 },
	[TL_PAGING_SLEEP] = { "PAGING_SLEEP", "paging", "P", 0xc49c94, 'P',
			      TL_GROUP_DISK, 0 },
	[TL_STOPPED] = { "STOPPED", "stopped", "T", 0xe377c2, 'T',
			 TL_GROUP_STOP, 0 },
	[TL_ZOMBIE] = { "ZOMBIE", "zombie", "z", 0x9467bd, 'z', TL_GROUP_ZOMB,
			0 },
};

static const struct tl_state_desc out_of_range = {
	.name = "?",
	.legend = "?",
	.glyph_utf8 = "?",
	.rgb = 0x7f7f7f,
	.glyph = '?',
	.group = TL_GROUP_UNKN,
};

const struct tl_state_desc *tl_state_desc(unsigned int state)
{
	return state < TL_NR_STATES ? &mon_states[state] : &out_of_range;
}

const char *tl_state_name(unsigned int state)
{
	return tl_state_desc(state)->name;
}

const char *tl_group_name(unsigned int group)
{
	static const char *const groups[TL_NR_GROUPS] = {
		[TL_GROUP_RUN] = "RUN",	  [TL_GROUP_INTR] = "INTR",
		[TL_GROUP_RUNQ] = "RUNQ", [TL_GROUP_SLEEP] = "SLEEP",
		[TL_GROUP_DISK] = "DISK", [TL_GROUP_STOP] = "STOP",
		[TL_GROUP_ZOMB] = "ZOMB", [TL_GROUP_UNKN] = "UNKN",
	};

	return group < TL_NR_GROUPS ? groups[group] : "?";
}

/* The event classes by name: the single classes, then the sets
 * ("default", "all"); mon_classes_parse() takes them all, and
 * mon_classes_format() writes the single ones. */
static const struct {
	const char *name;
	uint32_t classes;
} class_names[] = {
	{ "sched", MKM_CLASS_SCHED },
	{ "lifecycle", MKM_CLASS_LIFECYCLE },
	{ "irq", MKM_CLASS_IRQ },
	{ "syscall", MKM_CLASS_SYSCALL },
	{ "wakeup", MKM_CLASS_WAKEUP },
	{ "sched-state", MKM_CLASS_SCHED_STATE },
	{ "default", MON_CLASS_RECORD_DEFAULT },
	{ "all", MON_CLASS_RECORD_ALL },
};

int mon_classes_parse(const char *list, uint32_t *classes, char *bad,
		      size_t bad_len)
{
	const char *p = list;

	if (!list || !classes)
		return -EINVAL;
	*classes = 0;
	do {
		size_t len = strcspn(p, ","), i;

		for (i = 0; i < ARRAY_SIZE(class_names); i++)
			if (len == strlen(class_names[i].name) &&
			    !strncmp(p, class_names[i].name, len))
				break;
		if (i == ARRAY_SIZE(class_names)) {
			if (bad && bad_len)
				snprintf(bad, bad_len, "%.*s", (int)len, p);
			return -EINVAL;
		}
		*classes |= class_names[i].classes;
		p += len;
	} while (*p++ == ',');
	/* The state is recorded with the switches and wakeups it adds to. */
	if (*classes & MKM_CLASS_SCHED_STATE)
		*classes |= MKM_CLASS_SCHED | MKM_CLASS_WAKEUP;
	return 0;
}

const char *mon_classes_format(char *buf, size_t len, uint32_t classes)
{
	size_t i, n = 0;

	if (!len)
		return buf;
	buf[0] = 0;
	for (i = 0; i < ARRAY_SIZE(class_names); i++) {
		uint32_t c = class_names[i].classes;
		int k;

		/* The single classes only: each bit once. */
		if (c & (c - 1) || !(classes & c) || n >= len)
			continue;
		k = snprintf(buf + n, len - n, "%s%s", n ? "," : "",
			     class_names[i].name);
		n += k > 0 ? (size_t)k : 0;
	}
	return buf;
}

const char *mon_event_name(unsigned int type)
{
	/* LOST is shouted: records are missing there. */
	static const char *const types[MKM_EV_TYPE_MAX + 1] = {
		[MKM_EV_SWITCH_OUT] = "switch_out",
		[MKM_EV_SWITCH_IN] = "switch_in",
		[MKM_EV_WAKING] = "waking",
		[MKM_EV_WAKEUP] = "wakeup",
		[MKM_EV_WAKEUP_NEW] = "wakeup_new",
		[MKM_EV_MIGRATE] = "migrate",
		[MKM_EV_FORK] = "fork",
		[MKM_EV_EXEC] = "exec",
		[MKM_EV_EXIT] = "exit",
		[MKM_EV_REAP] = "reap",
		[MKM_EV_IRQ_ENTRY] = "irq_entry",
		[MKM_EV_IRQ_EXIT] = "irq_exit",
		[MKM_EV_SOFTIRQ_ENTRY] = "softirq_entry",
		[MKM_EV_SOFTIRQ_EXIT] = "softirq_exit",
		[MKM_EV_SYSCALL_ENTRY] = "syscall_entry",
		[MKM_EV_SYSCALL_EXIT] = "syscall_exit",
		[MKM_EV_MARK] = "mark",
		[MKM_EV_ATTACH] = "attach",
		[MKM_EV_DETACH] = "detach",
		[MKM_EV_NAME] = "name",
		[MKM_EV_LOST] = "LOST",
		[MKM_EV_SWITCH] = "switch",
		[MKM_EV_TRIGGER] = "trigger",
		[MKM_EV_SCHED_STATE] = "sched_state",
	};

	return type < ARRAY_SIZE(types) && types[type] ? types[type] : "?";
}

/* The kernels' own tables (gen-syscalls.sh; make syscalls rewrites them). */
#include "syscalls_aarch64.h"
#include "syscalls_x86_64.h"

const char *mon_syscall_name(const char *machine, uint32_t nr)
{
	const char *const *table = syscalls_x86_64;
	size_t size = ARRAY_SIZE(syscalls_x86_64);

	/* Traces from before the module built for arm64 do not say: they
	 * are x86-64's. */
	if (machine && *machine && strcmp(machine, "x86_64")) {
		if (strcmp(machine, "aarch64"))
			return NULL;
		table = syscalls_aarch64;
		size = ARRAY_SIZE(syscalls_aarch64);
	}
	return nr < size ? table[nr] : NULL;
}

const char *mon_task_state_name(unsigned int task_state)
{
	static const char *const ts[] = {
		[MKM_TS_RUNNING] = "R",		[MKM_TS_INTERRUPTIBLE] = "S",
		[MKM_TS_UNINTERRUPTIBLE] = "D", [MKM_TS_STOPPED] = "T",
		[MKM_TS_TRACED] = "t",		[MKM_TS_DEAD] = "X",
		[MKM_TS_PARKED] = "P",		[MKM_TS_ZOMBIE] = "Z",
	};

	return task_state < ARRAY_SIZE(ts) && ts[task_state] ? ts[task_state] :
							       "?";
}

const char *tl_irq_name(unsigned int kind, uint32_t number, char *buf,
			size_t len)
{
	/* As /proc/softirqs names them. */
	static const char *const softirqs[] = {
		"HI",	    "TIMER",   "NET_TX", "NET_RX",  "BLOCK",
		"IRQ_POLL", "TASKLET", "SCHED",	 "HRTIMER", "RCU",
	};
	const char *vec = NULL;

	if (!buf || !len)
		return buf;
	switch (kind) {
	case TL_IRQ_HARD:
		snprintf(buf, len, "irq %u", number);
		break;
	case TL_IRQ_SOFT:
		if (number < ARRAY_SIZE(softirqs))
			snprintf(buf, len, "softirq %s", softirqs[number]);
		else
			snprintf(buf, len, "softirq %u", number);
		break;
	case TL_IRQ_VECTOR:
		switch (number) {
		case MKM_X86_LOCAL_TIMER_VECTOR:
			vec = "local_timer";
			break;
		case MKM_X86_RESCHEDULE_VECTOR:
			vec = "reschedule_ipi";
			break;
		case MKM_X86_CALL_FUNCTION_VECTOR:
			vec = "call_function_ipi";
			break;
		case MKM_X86_CALL_FUNCTION_SINGLE_VECTOR:
			vec = "call_func1_ipi";
			break;
		case MKM_X86_IRQ_WORK_VECTOR:
			vec = "irq_work";
			break;
		}
		if (vec)
			snprintf(buf, len, "%s", vec);
		else
			snprintf(buf, len, "vector 0x%x", number);
		break;
	default:
		snprintf(buf, len, "? %u", number);
	}
	return buf;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * ctf.c - mkm export -f ctf: a CTF 1.8 trace laid out as LTTng-modules
 * writes a kernel trace, so that Trace Compass opens it as an LTTng kernel
 * trace (Control Flow, Resources) and babeltrace2 reads it:
 *
 *   OUT/metadata       TSDL text: env domain "kernel", tracer_name
 *                      "lttng-modules", the clock, the events below
 *   OUT/channel0_N     CPU N's packets: header (magic, uuid, stream id,
 *                      instance = N), context (timestamp_begin/_end,
 *                      content/packet size, packet_seq_num,
 *                      events_discarded, cpu_id), then events: id (32 bits)
 *                      and timestamp (64 bits, ns), then LTTng's fields
 *
 * Events and fields are LTTng-modules': sched_switch (prev_comm, prev_tid,
 * prev_prio, prev_state, next_comm, next_tid, next_prio), sched_waking,
 * sched_wakeup, sched_wakeup_new (comm, tid, prio, target_cpu),
 * sched_migrate_task (comm, tid, prio, orig_cpu, dest_cpu),
 * sched_process_fork (parent_comm, parent_tid, parent_pid, child_comm,
 * child_tid, child_pid), sched_process_exec (filename, tid, old_tid),
 * sched_process_exit and _free (comm, tid, prio), irq_handler_entry (irq,
 * name), irq_handler_exit (irq, ret), an x86 system vector's handler as
 * x86_irq_vectors_<name>_entry and _exit (vector: local_timer, reschedule,
 * call_function, call_function_single, irq_work), softirq_entry and _exit (vec),
 * a system call as syscall_entry_<name> and syscall_exit_<name> (ret),
 * named from the kernel's table (syscall_entry_unknown (id) and
 * syscall_exit_unknown (id, ret) where it has no name; mkm records no
 * arguments); marks are lttng_logger events (msg).
 * Switches: as in perfetto.c, a SWITCH_OUT is a sched_switch and the
 * SWITCH_IN that it announced is not repeated.
 *
 * Every integer is byte-aligned (align = 8 bits): records are packed, no
 * padding to compute. Lost events: the packet in progress on that CPU is
 * closed, and the next one's events_discarded (a running count, as
 * LTTng's) says how many were lost between them; a loss after a CPU's last
 * event gets an empty packet of its own.
 *
 * A merged trace (mkm merge) is written as one CTF trace per node, as
 * LTTng writes one per traced host: OUT/NODE/metadata and
 * OUT/NODE/channel0_N for the node's own CPU N, each with its own uuid,
 * hostname and kernel, its own CPUs and tids (without the node's CPU
 * base and tid prefix), and its events' times on the node's clock as
 * aligned at its start: the merged time less the node's offset
 * (trace_node.offset_ns), which the node's clock class adds back as its
 * offset. A reader of all of them (babeltrace2 OUT, Trace Compass's
 * experiment) puts every event at its merged time.
 *
 * Streaming: each CPU fills a packet of at most PACKET_BYTES, written out
 * when full; memory is a packet per CPU and the thread table.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "internal.h"

#define PACKET_BYTES (64 << 10)
#define CTF_MAGIC 0xc1fc1fc1u
#define HEADER_BYTES 32 /* magic, uuid, stream_id, stream_instance_id */
#define CONTEXT_BYTES 52 /* the packet context below */
#define EVENT_MAX 128 /* the largest event written, header included */

enum ctf_event {
	EV_SCHED_SWITCH,
	EV_SCHED_WAKING,
	EV_SCHED_WAKEUP,
	EV_SCHED_WAKEUP_NEW,
	EV_SCHED_MIGRATE_TASK,
	EV_SCHED_PROCESS_FORK,
	EV_SCHED_PROCESS_EXEC,
	EV_SCHED_PROCESS_EXIT,
	EV_SCHED_PROCESS_FREE,
	EV_IRQ_HANDLER_ENTRY,
	EV_IRQ_HANDLER_EXIT,
	EV_SOFTIRQ_ENTRY,
	EV_SOFTIRQ_EXIT,
	EV_SYSCALL_ENTRY,
	EV_SYSCALL_EXIT,
	EV_LTTNG_LOGGER,
	/* x86 system vectors, as LTTng-modules' x86_irq_vectors events */
	EV_VEC_LOCAL_TIMER_ENTRY,
	EV_VEC_LOCAL_TIMER_EXIT,
	EV_VEC_RESCHEDULE_ENTRY,
	EV_VEC_RESCHEDULE_EXIT,
	EV_VEC_CALL_FUNCTION_ENTRY,
	EV_VEC_CALL_FUNCTION_EXIT,
	EV_VEC_CALL_FUNCTION_SINGLE_ENTRY,
	EV_VEC_CALL_FUNCTION_SINGLE_EXIT,
	EV_VEC_IRQ_WORK_ENTRY,
	EV_VEC_IRQ_WORK_EXIT,
};

#define COMM \
	"integer { size = 8; align = 8; signed = 1; encoding = UTF8; base = 10; }"
#define TASK "\t\t" COMM " _comm[16];\n\t\tint32_t _tid;\n\t\tint32_t _prio;\n"

/* The event declarations, by id (the metadata's event blocks). */
static const struct {
	const char *name;
	const char *fields;
} events[] = {
	[EV_SCHED_SWITCH] = { "sched_switch", "\t\t" COMM " _prev_comm[16];\n"
					      "\t\tint32_t _prev_tid;\n"
					      "\t\tint32_t _prev_prio;\n"
					      "\t\tint64_t _prev_state;\n"
					      "\t\t" COMM " _next_comm[16];\n"
					      "\t\tint32_t _next_tid;\n"
					      "\t\tint32_t _next_prio;\n" },
	[EV_SCHED_WAKING] = { "sched_waking",
			      TASK "\t\tint32_t _target_cpu;\n" },
	[EV_SCHED_WAKEUP] = { "sched_wakeup",
			      TASK "\t\tint32_t _target_cpu;\n" },
	[EV_SCHED_WAKEUP_NEW] = { "sched_wakeup_new",
				  TASK "\t\tint32_t _target_cpu;\n" },
	[EV_SCHED_MIGRATE_TASK] = { "sched_migrate_task",
				    TASK "\t\tint32_t _orig_cpu;\n"
					 "\t\tint32_t _dest_cpu;\n" },
	[EV_SCHED_PROCESS_FORK] = { "sched_process_fork",
				    "\t\t" COMM " _parent_comm[16];\n"
				    "\t\tint32_t _parent_tid;\n"
				    "\t\tint32_t _parent_pid;\n"
				    "\t\t" COMM " _child_comm[16];\n"
				    "\t\tint32_t _child_tid;\n"
				    "\t\tint32_t _child_pid;\n" },
	[EV_SCHED_PROCESS_EXEC] = { "sched_process_exec",
				    "\t\tstring _filename;\n"
				    "\t\tint32_t _tid;\n"
				    "\t\tint32_t _old_tid;\n" },
	[EV_SCHED_PROCESS_EXIT] = { "sched_process_exit", TASK },
	[EV_SCHED_PROCESS_FREE] = { "sched_process_free", TASK },
	[EV_IRQ_HANDLER_ENTRY] = { "irq_handler_entry",
				   "\t\tint32_t _irq;\n\t\tstring _name;\n" },
	[EV_IRQ_HANDLER_EXIT] = { "irq_handler_exit",
				  "\t\tint32_t _irq;\n\t\tint32_t _ret;\n" },
	[EV_SOFTIRQ_ENTRY] = { "softirq_entry", "\t\tuint32_t _vec;\n" },
	[EV_SOFTIRQ_EXIT] = { "softirq_exit", "\t\tuint32_t _vec;\n" },
	[EV_SYSCALL_ENTRY] = { "syscall_entry_unknown", "\t\tint32_t _id;\n" },
	[EV_SYSCALL_EXIT] = { "syscall_exit_unknown",
			      "\t\tint32_t _id;\n\t\tint64_t _ret;\n" },
	[EV_LTTNG_LOGGER] = { "lttng_logger", "\t\tstring _msg;\n" },
#define VEC(ev, name)                                               \
	[EV_VEC_##ev##_ENTRY] = { "x86_irq_vectors_" name "_entry", \
				  "\t\tint32_t _vector;\n" },       \
	[EV_VEC_##ev##_EXIT] = { "x86_irq_vectors_" name "_exit",   \
				 "\t\tint32_t _vector;\n" }
	VEC(LOCAL_TIMER, "local_timer"),
	VEC(RESCHEDULE, "reschedule"),
	VEC(CALL_FUNCTION, "call_function"),
	VEC(CALL_FUNCTION_SINGLE, "call_function_single"),
	VEC(IRQ_WORK, "irq_work"),
#undef VEC
};

/* The x86_irq_vectors entry event of system vector @vec (its exit is the
 * next id), or -1 for a vector LTTng has no event of. */
static int vector_event(uint32_t vec)
{
	switch (vec) {
	case MKM_X86_LOCAL_TIMER_VECTOR:
		return EV_VEC_LOCAL_TIMER_ENTRY;
	case MKM_X86_RESCHEDULE_VECTOR:
		return EV_VEC_RESCHEDULE_ENTRY;
	case MKM_X86_CALL_FUNCTION_VECTOR:
		return EV_VEC_CALL_FUNCTION_ENTRY;
	case MKM_X86_CALL_FUNCTION_SINGLE_VECTOR:
		return EV_VEC_CALL_FUNCTION_SINGLE_ENTRY;
	case MKM_X86_IRQ_WORK_VECTOR:
		return EV_VEC_IRQ_WORK_ENTRY;
	}
	return -1;
}

struct ctf_cpu {
	FILE *f; /* channel0_N, opened at its first packet */
	uint8_t *buf; /* the packet's events */
	size_t len;
	uint64_t begin, end; /* the packet's first and last times */
	uint64_t seq; /* packets written */
	uint64_t discarded; /* events lost so far (written with the next) */
	uint64_t discarded_written;
	/* The last SWITCH_OUT: the SWITCH_IN that completes it is no news. */
	uint64_t out_time;
	uint32_t out_tid, out_next;
	bool out_valid;
	struct held_exec exec;
};

/*
 * System calls by name, as LTTng-modules names them (syscall_entry_write,
 * syscall_exit_write: Trace Compass shows the name after the prefix):
 * call nr's entry is event SYSCALL_ID + 2 nr, its exit the next, declared
 * in the metadata (written last) for the calls the trace made. A call
 * without a name in the kernel's table (or beyond SYSCALL_NRS) stays
 * syscall_entry_unknown (id).
 */
#define SYSCALL_ID 64 /* after the events above */
#define SYSCALL_NRS 1024

/* One CTF trace: the whole export, or a node of a merged trace. */
struct ctf_trace {
	uint8_t uuid[16];
	bool used; /* a channel file was written */
	bool syscall_used[SYSCALL_NRS];
};

struct ctf {
	struct outdir dir;
	struct trace_info info;
	struct threads threads;
	struct lost lost;
	struct mon_nodes nodes; /* a merged trace's: a CTF trace each */
	struct ctf_cpu *cpu;
	size_t nr_cpus;
	struct ctf_trace *trace; /* nr_trace: 1, or one per node */
	size_t nr_trace;
	uint8_t uuid[16];
	bool committed;
};

_Static_assert(ARRAY_SIZE(events) <= SYSCALL_ID,
	       "the named system calls' ids come after the events");

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4); /* the trace says byte_order = le: x86's, ARM's */
	return p + 4;
}

static uint8_t *put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
	return p + 8;
}

static uint8_t *put_comm(uint8_t *p, const char *s)
{
	memset(p, 0, 16);
	memcpy(p, s, strnlen(s, 15));
	return p + 16;
}

static uint8_t *put_str(uint8_t *p, const char *s)
{
	size_t n = strlen(s) + 1;

	memcpy(p, s, n);
	return p + n;
}

/* The node of CPU @cpu (NULL: a one-machine trace, or none). */
static const struct trace_node *node_of_cpu(const struct ctf *c, uint32_t cpu)
{
	return c->nodes.hdr.nr_nodes ? mon_nodes_of_cpu(&c->nodes, cpu) : NULL;
}

/* The CTF trace of CPU @cpu: its node's, or the only one. */
static struct ctf_trace *trace_of_cpu(struct ctf *c, uint32_t cpu)
{
	const struct trace_node *n = node_of_cpu(c, cpu);
	size_t pos = n ? (size_t)(n - c->nodes.node) : 0;

	return &c->trace[pos < c->nr_trace ? pos : 0];
}

/* A CPU number as its node knows it. */
static uint32_t local_cpu(const struct ctf *c, uint32_t cpu)
{
	const struct trace_node *n = node_of_cpu(c, cpu);

	return n && cpu >= n->cpu_base ? cpu - n->cpu_base : cpu;
}

static uint32_t local_tid(const struct ctf *c, uint32_t tid)
{
	return nodes_local_tid(&c->nodes, tid);
}

/* A merged time on the node's clock as aligned at its start: the
 * merged time less its offset (its clock class adds it back). */
static uint64_t local_time(const struct ctf *c, uint32_t cpu, uint64_t t)
{
	const struct trace_node *n = node_of_cpu(c, cpu);
	int64_t r;

	if (!n)
		return t;
	r = (int64_t)t - n->offset_ns;
	return r < 0 ? 0 : (uint64_t)r;
}

/* A node's folder: its name, with what a path cannot hold replaced. */
static void node_dir(const struct trace_node *n, size_t pos, char *buf,
		     size_t len)
{
	size_t i;

	snprintf(buf, len, "%s", n->name);
	for (i = 0; buf[i]; i++)
		if (buf[i] == '/' || (i == 0 && buf[i] == '.'))
			buf[i] = '_';
	if (!buf[0])
		snprintf(buf, len, "node%zu", pos);
}

static int write_packet(struct ctf *c, unsigned int cpu)
{
	struct ctf_cpu *k = &c->cpu[cpu];
	struct ctf_trace *tr = trace_of_cpu(c, cpu);
	uint8_t head[HEADER_BYTES + CONTEXT_BYTES], *p = head;
	uint64_t bits = (sizeof(head) + k->len) * 8;
	uint32_t lcpu = local_cpu(c, cpu);

	if (!k->f) {
		const struct trace_node *n = node_of_cpu(c, cpu);
		char name[128], dir[72];

		if (n) {
			int ret;

			node_dir(n, (size_t)(n - c->nodes.node), dir,
				 sizeof(dir));
			ret = outdir_mkdir(&c->dir, dir);
			if (ret)
				return ret;
			snprintf(name, sizeof(name), "%s/channel0_%u", dir,
				 lcpu);
		} else {
			snprintf(name, sizeof(name), "channel0_%u", cpu);
		}
		k->f = outdir_create(&c->dir, name);
		if (!k->f)
			return -errno;
		tr->used = true;
	}
	p = put32(p, CTF_MAGIC);
	memcpy(p, tr->uuid, 16);
	p += 16;
	p = put32(p, 0); /* stream_id */
	p = put64(p, lcpu); /* stream_instance_id */
	p = put64(p, k->begin);
	p = put64(p, k->end);
	p = put64(p, bits); /* content_size */
	p = put64(p, bits); /* packet_size: no padding */
	p = put64(p, k->seq++);
	p = put64(p, k->discarded);
	put32(p, lcpu);
	if (fwrite(head, 1, sizeof(head), k->f) != sizeof(head) ||
	    (k->len && fwrite(k->buf, 1, k->len, k->f) != k->len))
		return errno ? -errno : -EIO;
	k->discarded_written = k->discarded;
	k->len = 0;
	return 0;
}

/* CPU @cpu's state, its packet buffer allocated at first use. */
static int ctf_cpu(struct ctf *c, unsigned int cpu)
{
	int ret = array_grow(&c->cpu, &c->nr_cpus, cpu, sizeof(*c->cpu));

	if (!ret && !c->cpu[cpu].buf) {
		c->cpu[cpu].buf = malloc(PACKET_BYTES + EVENT_MAX);
		if (!c->cpu[cpu].buf)
			ret = -ENOMEM;
	}
	return ret;
}

static uint8_t *task(struct ctf *c, uint8_t *p, uint32_t tid)
{
	p = put_comm(p, threads_comm(&c->threads, tid));
	p = put32(p, local_tid(c, tid));
	return put32(p, EXPORT_PRIO);
}

/* Encodes @e at @p as its LTTng event; NULL when it has none. */
static uint8_t *encode(struct ctf *c, struct ctf_cpu *k, uint8_t *p,
		       const struct mkm_event *e)
{
	uint8_t *id = p;
	char s[48];

	p = put64(p + 4, local_time(c, e->cpu, e->time_ns));
	switch (e->type) {
	case MKM_EV_SWITCH_OUT:
	case MKM_EV_SWITCH_IN: {
		uint32_t prev = e->tid, next = e->arg1;
		int64_t state = export_task_state(e->arg0);

		if (e->type == MKM_EV_SWITCH_IN) {
			if (k->out_valid && k->out_time == e->time_ns &&
			    k->out_next == e->tid && k->out_tid == e->arg1)
				return NULL;
			prev = e->arg1;
			next = e->tid;
			state = 0;
		} else {
			k->out_time = e->time_ns;
			k->out_tid = e->tid;
			k->out_next = e->arg1;
			k->out_valid = true;
		}
		put32(id, EV_SCHED_SWITCH);
		p = put_comm(p, threads_comm(&c->threads, prev));
		p = put32(p, local_tid(c, prev));
		p = put32(p, EXPORT_PRIO);
		p = put64(p, (uint64_t)state);
		p = put_comm(p, threads_comm(&c->threads, next));
		p = put32(p, local_tid(c, next));
		return put32(p, EXPORT_PRIO);
	}
	case MKM_EV_WAKING:
	case MKM_EV_WAKEUP:
	case MKM_EV_WAKEUP_NEW:
		put32(id, e->type == MKM_EV_WAKING ? EV_SCHED_WAKING :
			  e->type == MKM_EV_WAKEUP ? EV_SCHED_WAKEUP :
						     EV_SCHED_WAKEUP_NEW);
		p = task(c, p, e->tid);
		return put32(p,
			     local_cpu(c, e->type == MKM_EV_WAKING ? e->cpu :
								     e->arg0));
	case MKM_EV_MIGRATE:
		put32(id, EV_SCHED_MIGRATE_TASK);
		p = task(c, p, e->tid);
		p = put32(p, local_cpu(c, e->arg1));
		return put32(p, local_cpu(c, e->arg0));
	case MKM_EV_FORK: {
		struct thread_info *ti = threads_get(&c->threads, e->tid);

		put32(id, EV_SCHED_PROCESS_FORK);
		p = put_comm(p, threads_comm(&c->threads, e->tid));
		p = put32(p, local_tid(c, e->tid));
		p = put32(p, local_tid(c, ti ? ti->tgid : e->tid));
		p = put_comm(p, threads_comm(&c->threads, e->arg0));
		p = put32(p, local_tid(c, e->arg0));
		ti = threads_get(&c->threads, e->arg0);
		return put32(p, local_tid(c, ti ? ti->tgid : e->arg0));
	}
	case MKM_EV_EXEC:
		/* mkm records the new comm (held until it came: internal.h),
		 * not the path it ran */
		put32(id, EV_SCHED_PROCESS_EXEC);
		p = put_str(p, threads_comm(&c->threads, e->tid));
		p = put32(p, local_tid(c, e->tid));
		return put32(p, local_tid(c, e->arg0));
	case MKM_EV_EXIT:
	case MKM_EV_REAP:
		put32(id, e->type == MKM_EV_EXIT ? EV_SCHED_PROCESS_EXIT :
						   EV_SCHED_PROCESS_FREE);
		return task(c, p, e->tid);
	case MKM_EV_IRQ_ENTRY:
	case MKM_EV_IRQ_EXIT:
		/* A system vector has no irq number: LTTng's event of its
		 * name, not a fake "irq236" (Trace Compass would show one). */
		if (e->flags & MKM_EVF_VECTOR && vector_event(e->arg0) >= 0) {
			put32(id, (uint32_t)vector_event(e->arg0) +
					  (e->type == MKM_EV_IRQ_EXIT));
			return put32(p, e->arg0);
		}
		if (e->type == MKM_EV_IRQ_EXIT) {
			put32(id, EV_IRQ_HANDLER_EXIT);
			p = put32(p, e->arg0);
			return put32(p, e->arg1);
		}
		put32(id, EV_IRQ_HANDLER_ENTRY);
		p = put32(p, e->arg0);
		if (e->flags & MKM_EVF_VECTOR)
			tl_irq_name(TL_IRQ_VECTOR, e->arg0, s, sizeof(s));
		else
			snprintf(s, sizeof(s), "irq%u", e->arg0);
		return put_str(p, s);
	case MKM_EV_SOFTIRQ_ENTRY:
	case MKM_EV_SOFTIRQ_EXIT:
		put32(id, e->type == MKM_EV_SOFTIRQ_ENTRY ? EV_SOFTIRQ_ENTRY :
							    EV_SOFTIRQ_EXIT);
		return put32(p, e->arg0);
	case MKM_EV_SYSCALL_ENTRY:
	case MKM_EV_SYSCALL_EXIT:
		if (e->arg0 < SYSCALL_NRS &&
		    mon_syscall_name(c->info.machine, e->arg0)) {
			trace_of_cpu(c, e->cpu)->syscall_used[e->arg0] = true;
			put32(id, SYSCALL_ID + 2 * e->arg0 +
					  (e->type == MKM_EV_SYSCALL_EXIT));
			if (e->type == MKM_EV_SYSCALL_ENTRY)
				return p;
			return put64(p, (uint64_t)(int64_t)(int32_t)e->arg1);
		}
		if (e->type == MKM_EV_SYSCALL_ENTRY) {
			put32(id, EV_SYSCALL_ENTRY);
			return put32(p, e->arg0);
		}
		put32(id, EV_SYSCALL_EXIT);
		p = put32(p, e->arg0);
		return put64(p, (uint64_t)(int64_t)(int32_t)e->arg1);
	case MKM_EV_MARK:
		put32(id, EV_LTTNG_LOGGER);
		snprintf(s, sizeof(s), "mkm mark %" PRIu64,
			 (uint64_t)e->arg1 << 32 | e->arg0);
		return put_str(p, s);
	default: /* ATTACH, DETACH, NAME, LOST */
		return NULL;
	}
}

/* Adds @e, if it has an LTTng event, to its CPU's packet. */
static int add_event(struct ctf *c, const struct mkm_event *e)
{
	struct ctf_cpu *k = &c->cpu[e->cpu];
	uint8_t *end = encode(c, k, k->buf + k->len, e);

	if (!end)
		return 0;
	if (!k->len)
		k->begin = local_time(c, e->cpu, e->time_ns);
	k->end = local_time(c, e->cpu, e->time_ns);
	k->len = (size_t)(end - k->buf);
	return k->len >= PACKET_BYTES ? write_packet(c, e->cpu) : 0;
}

static int release_exec(struct ctf *c, unsigned int cpu)
{
	struct ctf_cpu *k = &c->cpu[cpu];

	if (!k->exec.held)
		return 0;
	k->exec.held = false;
	return add_event(c, &k->exec.e);
}

static int one_event(struct ctf *c, const struct mkm_event *e)
{
	struct thread_info *named;
	struct ctf_cpu *k;
	uint64_t lost;
	int ret = ctf_cpu(c, e->cpu);

	if (!ret)
		ret = lost_before(&c->lost, e, &lost);
	if (ret)
		return ret;
	k = &c->cpu[e->cpu];
	if (exec_release_before(&k->exec, e, lost)) {
		ret = release_exec(c, e->cpu);
		if (ret)
			return ret;
	}
	if (lost) {
		/* The loss falls between this packet and the next. */
		if (k->len)
			ret = write_packet(c, e->cpu);
		k->discarded += lost;
		k->out_valid = false;
		if (ret)
			return ret;
	}
	named = threads_learn(&c->threads, e, &ret);
	if (named)
		named->named = false;
	if (ret)
		return ret;
	if (exec_release_after(&k->exec, e))
		return release_exec(c, e->cpu);
	if (e->type == MKM_EV_EXEC) {
		k->exec.e = *e;
		k->exec.held = true;
		return 0;
	}
	return add_event(c, e);
}

static void format_uuid(char *s, const uint8_t *u)
{
	sprintf(s,
		"%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		"%02x%02x%02x%02x%02x%02x",
		u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		u[10], u[11], u[12], u[13], u[14], u[15]);
}

/* TSDL strings: quotes and backslashes escaped, controls dropped. */
static void tsdl_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	}
	fputc('"', f);
}

/* Trace @pos's metadata: the whole export's, or node @n's (its folder,
 * its host and kernel, its clock's offset). */
static int write_metadata(struct ctf *c, size_t pos, const struct trace_node *n)
{
	const struct trace_info *in = &c->info;
	const struct ctf_trace *tr = &c->trace[pos];
	/* The clock's origin: the wall time when CLOCK_MONOTONIC read 0;
	 * a node's clock reads its offset less than the reference's. */
	int64_t offset =
		in->start_real_ns > in->start_mono_ns ?
			(int64_t)(in->start_real_ns - in->start_mono_ns) :
			0;
	char uuid[40], path[128], dir[72];
	FILE *f;
	size_t i;
	int ret = 0;

	if (n) {
		node_dir(n, pos, dir, sizeof(dir));
		ret = outdir_mkdir(&c->dir, dir);
		if (ret)
			return ret;
		snprintf(path, sizeof(path), "%s/metadata", dir);
		offset += n->offset_ns;
		if (offset < 0)
			offset = 0;
	} else {
		snprintf(path, sizeof(path), "metadata");
	}
	f = outdir_create(&c->dir, path);
	if (!f)
		return -errno;
	format_uuid(uuid, tr->uuid);
	fprintf(f,
		"/* CTF 1.8 */\n\n"
		"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
		"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
		"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
		"typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"
		"typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n\n"
		"trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"%s\";\n"
		"\tbyte_order = le;\n"
		"\tpacket.header := struct {\n\t\tuint32_t magic;\n"
		"\t\tuint8_t uuid[16];\n\t\tuint32_t stream_id;\n"
		"\t\tuint64_t stream_instance_id;\n\t};\n};\n\n",
		uuid);
	fputs("env {\n\thostname = ", f);
	tsdl_string(f, n ? n->name : in->hostname);
	fputs(";\n\tdomain = \"kernel\";\n\tsysname = \"Linux\";\n"
	      "\tkernel_release = ",
	      f);
	tsdl_string(f, n ? n->kernel : in->kernel);
	fputs(";\n\tkernel_version = \"\";\n"
	      "\ttracer_name = \"lttng-modules\";\n\ttracer_major = 2;\n"
	      "\ttracer_minor = 13;\n\ttracer_patchlevel = 0;\n"
	      "\ttrace_buffering_scheme = \"global\";\n"
	      "\ttrace_name = \"mkm\";\n\tmkm_machine = ",
	      f);
	tsdl_string(f, in->machine);
	if (n) {
		fputs(";\n\tmkm_node = ", f);
		tsdl_string(f, n->name);
		fprintf(f,
			";\n\tmkm_job = \"%" PRIu32 ".%" PRIu32
			"\";\n\tmkm_clock_offset_ns = %" PRId64
			";\n\tmkm_clock_error_ns = %" PRIu64,
			c->nodes.hdr.job_id, c->nodes.hdr.step_id, n->offset_ns,
			n->error_ns);
	}
	fprintf(f,
		";\n};\n\n"
		"clock {\n\tname = \"monotonic\";\n\tuuid = \"%s\";\n"
		"\tdescription = \"Monotonic Clock\";\n"
		"\tfreq = 1000000000;\n\tprecision = 1;\n"
		"\toffset_s = %" PRIu64 ";\n\toffset = %" PRIu64 ";\n"
		"\tabsolute = TRUE;\n};\n\n"
		"typealias integer {\n\tsize = 64; align = 8; signed = false;\n"
		"\tmap = clock.monotonic.value;\n"
		"} := uint64_clock_monotonic_t;\n\n"
		"struct packet_context {\n"
		"\tuint64_clock_monotonic_t timestamp_begin;\n"
		"\tuint64_clock_monotonic_t timestamp_end;\n"
		"\tuint64_t content_size;\n\tuint64_t packet_size;\n"
		"\tuint64_t packet_seq_num;\n\tuint64_t events_discarded;\n"
		"\tuint32_t cpu_id;\n};\n\n"
		"struct event_header {\n\tuint32_t id;\n"
		"\tuint64_clock_monotonic_t timestamp;\n};\n\n"
		"stream {\n\tid = 0;\n\tevent.header := struct event_header;\n"
		"\tpacket.context := struct packet_context;\n};\n\n",
		uuid, (uint64_t)offset / 1000000000u,
		(uint64_t)offset % 1000000000u);
	for (i = 0; i < ARRAY_SIZE(events); i++)
		fprintf(f,
			"event {\n\tname = \"%s\";\n\tid = %zu;\n"
			"\tstream_id = 0;\n\tfields := struct {\n%s\t};\n};\n\n",
			events[i].name, i, events[i].fields);
	for (i = 0; i < SYSCALL_NRS; i++) {
		const char *name =
			mon_syscall_name(c->info.machine, (uint32_t)i);

		if (!tr->syscall_used[i])
			continue;
		fprintf(f,
			"event {\n\tname = \"syscall_entry_%s\";\n\tid = %zu;\n"
			"\tstream_id = 0;\n\tfields := struct {\n\t};\n};\n\n"
			"event {\n\tname = \"syscall_exit_%s\";\n\tid = %zu;\n"
			"\tstream_id = 0;\n\tfields := struct {\n"
			"\t\tint64_t _ret;\n\t};\n};\n\n",
			name, SYSCALL_ID + 2 * i, name, SYSCALL_ID + 2 * i + 1);
	}
	if (fflush(f) || ferror(f))
		ret = errno ? -errno : -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

/* A trace's uuid: the export's, told apart by its position (a random,
 * version 4 uuid stays one). */
static void trace_uuid(const struct ctf *c, size_t pos, uint8_t *u)
{
	memcpy(u, c->uuid, 16);
	u[14] ^= (uint8_t)(pos >> 8);
	u[15] ^= (uint8_t)pos;
}

/* Room for @n traces (the nodes' NODES come twice: kept as they are). */
static int grow_traces(struct ctf *c, size_t n)
{
	struct ctf_trace *t;
	size_t i;

	if (n <= c->nr_trace)
		return 0;
	t = realloc(c->trace, n * sizeof(*t));
	if (!t)
		return -ENOMEM;
	memset(t + c->nr_trace, 0, (n - c->nr_trace) * sizeof(*t));
	for (i = c->nr_trace; i < n; i++)
		trace_uuid(c, i, t[i].uuid);
	c->trace = t;
	c->nr_trace = n;
	return 0;
}

static int ctf_consume(void *priv, const struct mon_msg *msg)
{
	struct ctf *c = priv;
	size_t i;
	int ret = 0;

	switch (msg->type) {
	case MON_MSG_INFO:
		c->info = *msg->info;
		return 0;
	case MON_MSG_NODES:
		ret = nodes_keep(&c->nodes, msg);
		if (!ret)
			ret = grow_traces(c, c->nodes.hdr.nr_nodes);
		return ret;
	case MON_MSG_THREADS:
		return threads_names(&c->threads, msg->threads,
				     msg->nr_threads);
	case MON_MSG_EVENTS:
		for (i = 0; i < msg->nr_events && !ret; i++)
			ret = one_event(c, &msg->events[i]);
		return ret;
	default:
		return 0;
	}
}

static int ctf_finish(void *priv)
{
	struct ctf *c = priv;
	unsigned int cpu;
	int ret = 0;

	for (cpu = 0; cpu < c->nr_cpus && !ret; cpu++) {
		struct ctf_cpu *k = &c->cpu[cpu];

		ret = release_exec(c, cpu);
		if (ret)
			break;
		/* A loss after the last event still needs a packet to say
		 * it: an empty one at the last time known. */
		if (k->len || k->discarded != k->discarded_written) {
			if (!k->len)
				k->begin = k->end;
			ret = write_packet(c, cpu);
		}
		if (k->f) {
			if ((fflush(k->f) || ferror(k->f)) && !ret)
				ret = errno ? -errno : -EIO;
			if (fclose(k->f) && !ret)
				ret = -errno;
			k->f = NULL;
		}
	}
	if (!ret && !c->nodes.hdr.nr_nodes)
		ret = write_metadata(c, 0, NULL);
	/* A trace per node, even one whose CPUs had no event in the cut:
	 * its metadata says it was there. */
	for (size_t i = 0; !ret && i < c->nodes.hdr.nr_nodes; i++)
		ret = write_metadata(c, i, &c->nodes.node[i]);
	if (ret)
		return ret;
	c->committed = true;
	return outdir_commit(&c->dir);
}

static void ctf_destroy(void *priv)
{
	struct ctf *c = priv;
	unsigned int cpu;

	for (cpu = 0; cpu < c->nr_cpus; cpu++) {
		if (c->cpu[cpu].f)
			fclose(c->cpu[cpu].f);
		free(c->cpu[cpu].buf);
	}
	if (!c->committed)
		outdir_abort(&c->dir);
	free(c->cpu);
	free(c->trace);
	mon_nodes_free(&c->nodes);
	threads_free(&c->threads);
	lost_free(&c->lost);
	free(c);
}

static const struct mon_sink_ops ctf_ops = {
	.name = "ctf",
	.consume = ctf_consume,
	.finish = ctf_finish,
	.destroy = ctf_destroy,
};

int export_ctf(struct mon_sink **skp, const char *path,
	       struct export_result *result)
{
	struct ctf *c;
	int ret;

	if (!skp || !path)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	/* A random (version 4) uuid ties the streams to their metadata. */
	if (getrandom(c->uuid, sizeof(c->uuid), 0) != sizeof(c->uuid)) {
		free(c);
		return -EIO;
	}
	c->uuid[6] = (c->uuid[6] & 0x0f) | 0x40;
	c->uuid[8] = (c->uuid[8] & 0x3f) | 0x80;
	ret = grow_traces(c, 1);
	if (!ret)
		ret = outdir_open(&c->dir, path);
	if (!ret)
		ret = export_sink_new(skp, &ctf_ops, c, &c->threads, result);
	if (ret) {
		outdir_abort(&c->dir);
		free(c->trace);
		free(c);
	}
	return ret;
}

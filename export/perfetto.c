// SPDX-License-Identifier: GPL-2.0
/*
 * perfetto.c - mkm export -f perfetto: a Perfetto trace (protobuf), as
 * Perfetto's traced_probes writes a Linux kernel trace, so that the UI
 * (ui.perfetto.dev) and trace_processor show CPU tracks, thread states,
 * wakeups, IRQs and thread names:
 *
 *   Trace.packet (1) ── TracePacket
 *      ftrace_events (1): FtraceEventBundle, one CPU's events in order
 *          cpu (1), event (2): FtraceEvent { timestamp 1, pid 2, one of
 *          sched_switch 4, sched_wakeup 17, sched_waking 20,
 *          softirq_entry 24, softirq_exit 25, irq_handler_entry 36,
 *          irq_handler_exit 37, sched_wakeup_new 114,
 *          sched_process_exec 237, _exit 238, _fork 239, _free 240,
 *          sys_enter 329, sys_exit 330, sched_migrate_task 491 },
 *          lost_events (3): events were lost before this bundle
 *      process_tree (2): threads (tid, tgid, name) and their processes
 *      track_descriptor (60), track_event (11): marks as instant events
 *          on their thread's track, lost events on a track of their own
 *      trusted_packet_sequence_id (10), sequence_flags (13)
 *      machine_id (98): the node of a merged trace's packet
 *
 * A merged trace (mkm merge) is written as Perfetto's multi-machine
 * traces are (a tracing service with remote relays): each node is a
 * machine, its packets carry its machine_id (none for the reference
 * node, the "host"), and its CPUs, tids and pids are its own (the merged
 * trace's without the node's CPU base and tid prefix), so that
 * trace_processor keeps each machine's CPUs and threads apart. Each
 * machine's first packet clears its sequence's state.
 *
 * Field numbers are those of Perfetto's published protos
 * (protos/perfetto/trace/...); tests/export/perfetto.proto lists the ones
 * used, and the test decodes the export with it.
 *
 * Streaming: each CPU fills a bundle of at most BUNDLE_BYTES, written out
 * when full, when that CPU loses events (so the loss falls between two
 * bundles, where lost_events says it is) and at the end. Memory: a bundle
 * per CPU and the thread table.
 *
 * mkm records a switch as SWITCH_OUT of the thread leaving and SWITCH_IN
 * of the one coming, each only for monitored threads; Linux's sched_switch
 * is both at once. A SWITCH_OUT becomes a sched_switch (its next_pid is
 * the arg1 mkm recorded); a SWITCH_IN that the SWITCH_OUT just before it
 * on the CPU already described is dropped, any other one becomes a
 * sched_switch from the tid it names (prev_state 0: mkm does not know in
 * which state an unmonitored thread left).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "pb.h"

#define BUNDLE_BYTES (64 << 10)
#define SEQUENCE_ID 1 /* every packet: one writer */
#define SEQ_INCREMENTAL_STATE_CLEARED 1
#define TRACK_LOST 0x6d6b6d6c6f7374ull /* "mkmlost" */
#define TRACK_THREAD 0x6d6b6d0000000000ull /* | tid */
#define TYPE_INSTANT 3

/* Field numbers, from Perfetto's protos. */
enum {
	TRACE_PACKET = 1,
	TP_FTRACE_EVENTS = 1,
	TP_PROCESS_TREE = 2,
	TP_TIMESTAMP = 8,
	TP_SEQUENCE_ID = 10,
	TP_TRACK_EVENT = 11,
	TP_SEQUENCE_FLAGS = 13,
	TP_TRACK_DESCRIPTOR = 60,
	TP_MACHINE_ID = 98,
	BUNDLE_CPU = 1,
	BUNDLE_EVENT = 2,
	BUNDLE_LOST_EVENTS = 3,
	FE_TIMESTAMP = 1,
	FE_PID = 2,
	FE_SCHED_SWITCH = 4,
	FE_SCHED_WAKEUP = 17,
	FE_SCHED_WAKING = 20,
	FE_SOFTIRQ_ENTRY = 24,
	FE_SOFTIRQ_EXIT = 25,
	FE_IRQ_HANDLER_ENTRY = 36,
	FE_IRQ_HANDLER_EXIT = 37,
	FE_SCHED_WAKEUP_NEW = 114,
	FE_SCHED_PROCESS_EXEC = 237,
	FE_SCHED_PROCESS_EXIT = 238,
	FE_SCHED_PROCESS_FORK = 239,
	FE_SCHED_PROCESS_FREE = 240,
	FE_SYS_ENTER = 329,
	FE_SYS_EXIT = 330,
	FE_SCHED_MIGRATE_TASK = 491,
	PT_PROCESSES = 1,
	PT_THREADS = 2,
	PROCESS_PID = 1,
	PROCESS_CMDLINE = 3,
	THREAD_TID = 1,
	THREAD_NAME = 2,
	THREAD_TGID = 3,
	TD_UUID = 1,
	TD_NAME = 2,
	TD_THREAD = 4,
	THREAD_DESC_PID = 1,
	THREAD_DESC_TID = 2,
	THREAD_DESC_NAME = 5,
	TE_DEBUG_ANNOTATIONS = 4,
	TE_TYPE = 9,
	TE_TRACK_UUID = 11,
	TE_NAME = 23,
	DA_UINT_VALUE = 3,
	DA_NAME = 10,
};

struct cpu_bundle {
	struct pb pb; /* the FtraceEvent fields (BUNDLE_EVENT) so far */
	bool lost; /* events were lost before the next bundle */
	/* The last SWITCH_OUT: the SWITCH_IN that completes it is no news. */
	uint64_t out_time;
	uint32_t out_tid, out_next;
	bool out_valid;
	struct held_exec exec;
};

struct perfetto {
	struct outfile out;
	struct threads threads;
	struct lost lost;
	struct cpu_bundle *cpu;
	size_t nr_cpus;
	struct pb pkt; /* a packet being built */
	struct mon_nodes nodes; /* a merged trace's: its machines */
	bool *started; /* by machine: its first packet (clearing the
			  sequence's state) is written */
	size_t nr_machines;
	bool lost_track; /* the track of lost events is described */
	bool committed;
};

/* Writes a Trace.packet of @pkt's bytes followed by @tail's (NULL: none). */
static int write_packet(struct perfetto *pf, const struct pb *pkt,
			const struct pb *tail)
{
	size_t n = pkt->len + (tail ? tail->len : 0);
	uint8_t head[16];
	struct pb h = { .buf = head, .cap = sizeof(head) };
	int ret;

	if (pkt->err || (tail && tail->err))
		return pkt->err ? pkt->err : tail->err;
	pb_tag(&h, TRACE_PACKET, PB_LEN);
	pb_varint(&h, n);
	ret = outfile_write(&pf->out, h.buf, h.len);
	if (!ret)
		ret = outfile_write(&pf->out, pkt->buf, pkt->len);
	if (!ret && tail)
		ret = outfile_write(&pf->out, tail->buf, tail->len);
	return ret;
}

/* The machine of a merged trace's @cpu or @tid: its node's position, 0
 * (the host) for the reference node and for a one-machine trace. */
static uint32_t machine_of_cpu(const struct perfetto *pf, uint32_t cpu)
{
	int pos = nodes_pos_of_cpu(&pf->nodes, cpu);

	return pos < 0 ? 0 : (uint32_t)pos;
}

static uint32_t machine_of_tid(const struct perfetto *pf, uint32_t tid)
{
	int pos = nodes_pos_of_tid(&pf->nodes, tid);

	return pos < 0 ? 0 : (uint32_t)pos;
}

/* @cpu and @tid as their machine numbers them. */
static uint32_t local_cpu(const struct perfetto *pf, uint32_t cpu)
{
	const struct trace_node *n = mon_nodes_of_cpu(&pf->nodes, cpu);

	return n ? cpu - n->cpu_base : cpu;
}

static uint32_t local_tid(const struct perfetto *pf, uint32_t tid)
{
	return nodes_local_tid(&pf->nodes, tid);
}

/* Starts a packet of @machine in pf->pkt; the machine's first clears its
 * sequence's state. */
static struct pb *packet_begin(struct perfetto *pf, uint64_t time_ns,
			       uint32_t machine)
{
	struct pb *p = &pf->pkt;

	p->len = 0;
	if (array_grow(&pf->started, &pf->nr_machines, machine,
		       sizeof(*pf->started))) {
		p->err = -ENOMEM;
		return p;
	}
	if (time_ns)
		pb_uint(p, TP_TIMESTAMP, time_ns);
	pb_uint(p, TP_SEQUENCE_ID, SEQUENCE_ID);
	if (machine)
		pb_uint(p, TP_MACHINE_ID, machine);
	if (!pf->started[machine]) {
		pb_uint(p, TP_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
		pf->started[machine] = true;
	}
	return p;
}

/* Writes CPU @cpu's bundle: the packet's fields, the bundle's tag and
 * length, its cpu and lost_events, then the events as they were encoded
 * (the bundle's length is known without copying them). */
static int flush_bundle(struct perfetto *pf, unsigned int cpu)
{
	struct cpu_bundle *c = &pf->cpu[cpu];
	uint32_t own = local_cpu(pf, cpu);
	struct pb *p;
	int ret;

	if (!c->pb.len && !c->lost)
		return 0;
	p = packet_begin(pf, 0, machine_of_cpu(pf, cpu));
	pb_tag(p, TP_FTRACE_EVENTS, PB_LEN);
	pb_varint(p, 1 + pb_varint_len(own) + (c->lost ? 2 : 0) + c->pb.len);
	pb_uint(p, BUNDLE_CPU, own);
	if (c->lost)
		pb_uint(p, BUNDLE_LOST_EVENTS, 1);
	ret = write_packet(pf, p, &c->pb);
	c->pb.len = 0;
	c->lost = false;
	return ret;
}

/* A thread and its process, so that the UI names them. */
static int emit_thread(struct perfetto *pf, const struct thread_info *ti,
		       uint64_t time_ns)
{
	struct pb *p = packet_begin(pf, time_ns, machine_of_tid(pf, ti->tid));
	size_t tree = pb_begin(p, TP_PROCESS_TREE), m;

	if (ti->tid == ti->tgid) {
		m = pb_begin(p, PT_PROCESSES);
		pb_uint(p, PROCESS_PID, local_tid(pf, ti->tgid));
		pb_string(p, PROCESS_CMDLINE, ti->comm);
		pb_end(p, m);
	}
	m = pb_begin(p, PT_THREADS);
	pb_uint(p, THREAD_TID, local_tid(pf, ti->tid));
	pb_string(p, THREAD_NAME, ti->comm);
	pb_uint(p, THREAD_TGID, local_tid(pf, ti->tgid));
	pb_end(p, m);
	pb_end(p, tree);
	return write_packet(pf, p, NULL);
}

static int emit_named(struct perfetto *pf, uint64_t time_ns)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < pf->threads.cap && !ret; i++) {
		struct thread_info *ti = &pf->threads.slot[i];

		if (ti->tid && ti->named) {
			ti->named = false;
			ret = emit_thread(pf, ti, time_ns);
		}
	}
	return ret;
}

/* A track of its own: lost events, or a thread's marks. */
static int emit_track(struct perfetto *pf, uint64_t uuid, const char *name,
		      const struct thread_info *ti)
{
	struct pb *p =
		packet_begin(pf, 0, ti ? machine_of_tid(pf, ti->tid) : 0);
	size_t td = pb_begin(p, TP_TRACK_DESCRIPTOR), m;

	pb_uint(p, TD_UUID, uuid);
	if (name)
		pb_string(p, TD_NAME, name);
	if (ti) {
		m = pb_begin(p, TD_THREAD);
		pb_uint(p, THREAD_DESC_PID, local_tid(pf, ti->tgid));
		pb_uint(p, THREAD_DESC_TID, local_tid(pf, ti->tid));
		pb_string(p, THREAD_DESC_NAME, ti->comm);
		pb_end(p, m);
	}
	pb_end(p, td);
	return write_packet(pf, p, NULL);
}

static int emit_instant(struct perfetto *pf, uint64_t time_ns, uint32_t machine,
			uint64_t uuid, const char *name, const char *key,
			uint64_t value)
{
	struct pb *p = packet_begin(pf, time_ns, machine);
	size_t te = pb_begin(p, TP_TRACK_EVENT), m;

	pb_uint(p, TE_TYPE, TYPE_INSTANT);
	pb_uint(p, TE_TRACK_UUID, uuid);
	pb_string(p, TE_NAME, name);
	m = pb_begin(p, TE_DEBUG_ANNOTATIONS);
	pb_string(p, DA_NAME, key);
	pb_uint(p, DA_UINT_VALUE, value);
	pb_end(p, m);
	pb_end(p, te);
	return write_packet(pf, p, NULL);
}

static int emit_mark(struct perfetto *pf, const struct mkm_event *e)
{
	struct thread_info *ti = threads_get(&pf->threads, e->tid);
	uint64_t value = (uint64_t)e->arg1 << 32 | e->arg0;
	char name[32];
	int ret;

	if (!ti) /* tid 0, or out of memory */
		return e->tid ? -ENOMEM : 0;
	if (!ti->used) {
		ret = emit_track(pf, TRACK_THREAD | e->tid, NULL, ti);
		if (ret)
			return ret;
		ti->used = true;
	}
	snprintf(name, sizeof(name), "mark %llu", (unsigned long long)value);
	return emit_instant(pf, e->time_ns, machine_of_tid(pf, e->tid),
			    TRACK_THREAD | e->tid, name, "value", value);
}

/* The (comm, pid, prio) triple most sched events start with. */
static void task_fields(struct perfetto *pf, struct pb *b, uint32_t tid)
{
	pb_string(b, 1, threads_comm(&pf->threads, tid));
	pb_uint(b, 2, local_tid(pf, tid));
	pb_uint(b, 3, EXPORT_PRIO);
}

static void sched_switch(struct perfetto *pf, struct pb *b, uint32_t prev,
			 int64_t prev_state, uint32_t next)
{
	size_t m = pb_begin(b, FE_SCHED_SWITCH);

	pb_string(b, 1, threads_comm(&pf->threads, prev));
	pb_uint(b, 2, local_tid(pf, prev));
	pb_uint(b, 3, EXPORT_PRIO);
	pb_int(b, 4, prev_state);
	pb_string(b, 5, threads_comm(&pf->threads, next));
	pb_uint(b, 6, local_tid(pf, next));
	pb_uint(b, 7, EXPORT_PRIO);
	pb_end(b, m);
}

/* Appends @e to its CPU's bundle as an FtraceEvent; records that have no
 * ftrace counterpart append nothing. */
static void ftrace_event(struct perfetto *pf, struct cpu_bundle *c,
			 const struct mkm_event *e)
{
	struct pb *b = &c->pb;
	size_t start = b->len, ev, m;
	uint32_t pid = e->tid;

	ev = pb_begin(b, BUNDLE_EVENT);
	pb_uint(b, FE_TIMESTAMP, e->time_ns);
	switch (e->type) {
	case MKM_EV_WAKING:
	case MKM_EV_WAKEUP:
	case MKM_EV_WAKEUP_NEW:
		pid = e->arg1; /* the waker runs the event */
		break;
	}
	pb_uint(b, FE_PID, local_tid(pf, pid));

	switch (e->type) {
	case MKM_EV_SWITCH_OUT:
		sched_switch(pf, b, e->tid, export_task_state(e->arg0),
			     e->arg1);
		c->out_time = e->time_ns;
		c->out_tid = e->tid;
		c->out_next = e->arg1;
		c->out_valid = true;
		break;
	case MKM_EV_SWITCH_IN:
		if (c->out_valid && c->out_time == e->time_ns &&
		    c->out_next == e->tid && c->out_tid == e->arg1) {
			b->len = start; /* its SWITCH_OUT said it all */
			return;
		}
		sched_switch(pf, b, e->arg1, 0, e->tid);
		break;
	case MKM_EV_WAKING:
	case MKM_EV_WAKEUP:
	case MKM_EV_WAKEUP_NEW:
		m = pb_begin(b, e->type == MKM_EV_WAKING ? FE_SCHED_WAKING :
				e->type == MKM_EV_WAKEUP ? FE_SCHED_WAKEUP :
							   FE_SCHED_WAKEUP_NEW);
		task_fields(pf, b, e->tid);
		pb_uint(b, 4, 1); /* success */
		pb_uint(b, 5,
			local_cpu(pf,
				  e->type == MKM_EV_WAKING ? e->cpu : e->arg0));
		pb_end(b, m);
		break;
	case MKM_EV_MIGRATE:
		m = pb_begin(b, FE_SCHED_MIGRATE_TASK);
		task_fields(pf, b, e->tid);
		pb_uint(b, 4, local_cpu(pf, e->arg1)); /* orig_cpu */
		pb_uint(b, 5, local_cpu(pf, e->arg0)); /* dest_cpu */
		pb_end(b, m);
		break;
	case MKM_EV_FORK:
		m = pb_begin(b, FE_SCHED_PROCESS_FORK);
		pb_string(b, 1, threads_comm(&pf->threads, e->tid));
		pb_uint(b, 2, local_tid(pf, e->tid));
		pb_string(b, 3, threads_comm(&pf->threads, e->arg0));
		pb_uint(b, 4, local_tid(pf, e->arg0));
		pb_end(b, m);
		break;
	case MKM_EV_EXEC: /* held until its new name came (internal.h) */
		m = pb_begin(b, FE_SCHED_PROCESS_EXEC);
		pb_string(b, 1, threads_comm(&pf->threads, e->tid));
		pb_uint(b, 2, local_tid(pf, e->tid));
		pb_uint(b, 3, local_tid(pf, e->arg0)); /* old_pid */
		pb_end(b, m);
		break;
	case MKM_EV_EXIT: {
		struct thread_info *ti = threads_get(&pf->threads, e->tid);

		m = pb_begin(b, FE_SCHED_PROCESS_EXIT);
		pb_string(b, 1, threads_comm(&pf->threads, e->tid));
		pb_uint(b, 2, local_tid(pf, e->tid));
		pb_uint(b, 3, local_tid(pf, ti ? ti->tgid : e->tid));
		pb_uint(b, 4, EXPORT_PRIO);
		pb_end(b, m);
		break;
	}
	case MKM_EV_REAP:
		m = pb_begin(b, FE_SCHED_PROCESS_FREE);
		task_fields(pf, b, e->tid);
		pb_end(b, m);
		break;
	case MKM_EV_IRQ_ENTRY: {
		char name[24];

		/* mkm records the line, not the handler's name. */
		snprintf(name, sizeof(name), "irq%u", e->arg0);
		m = pb_begin(b, FE_IRQ_HANDLER_ENTRY);
		pb_uint(b, 1, e->arg0);
		pb_string(b, 2, name);
		pb_end(b, m);
		break;
	}
	case MKM_EV_IRQ_EXIT:
		m = pb_begin(b, FE_IRQ_HANDLER_EXIT);
		pb_uint(b, 1, e->arg0);
		pb_uint(b, 2, e->arg1); /* ret: IRQ_HANDLED is 1 */
		pb_end(b, m);
		break;
	case MKM_EV_SOFTIRQ_ENTRY:
	case MKM_EV_SOFTIRQ_EXIT:
		m = pb_begin(b, e->type == MKM_EV_SOFTIRQ_ENTRY ?
					FE_SOFTIRQ_ENTRY :
					FE_SOFTIRQ_EXIT);
		pb_uint(b, 1, e->arg0);
		pb_end(b, m);
		break;
	case MKM_EV_SYSCALL_ENTRY:
		m = pb_begin(b, FE_SYS_ENTER);
		pb_uint(b, 1, e->arg0);
		pb_end(b, m);
		break;
	case MKM_EV_SYSCALL_EXIT:
		m = pb_begin(b, FE_SYS_EXIT);
		pb_uint(b, 1, e->arg0);
		/* mkm keeps the return value's low half */
		pb_int(b, 2, (int32_t)e->arg1);
		pb_end(b, m);
		break;
	default: /* ATTACH, DETACH, NAME, MARK, LOST: no ftrace event */
		b->len = start;
		return;
	}
	pb_end(b, ev);
}

/* Appends the held EXEC to its CPU's bundle. */
static int release_exec(struct perfetto *pf, unsigned int cpu)
{
	struct cpu_bundle *c = &pf->cpu[cpu];

	if (!c->exec.held)
		return 0;
	c->exec.held = false;
	ftrace_event(pf, c, &c->exec.e);
	if (c->pb.err)
		return c->pb.err;
	return c->pb.len >= BUNDLE_BYTES ? flush_bundle(pf, cpu) : 0;
}

static int one_event(struct perfetto *pf, const struct mkm_event *e)
{
	struct thread_info *named;
	struct cpu_bundle *c;
	uint64_t lost;
	int ret = array_grow(&pf->cpu, &pf->nr_cpus, e->cpu, sizeof(*pf->cpu));

	if (!ret)
		ret = lost_before(&pf->lost, e, &lost);
	if (ret)
		return ret;
	c = &pf->cpu[e->cpu];
	if (exec_release_before(&c->exec, e, lost)) {
		ret = release_exec(pf, e->cpu);
		if (ret)
			return ret;
	}
	if (lost) {
		char name[48];

		/* The loss falls between two bundles of the CPU. */
		ret = flush_bundle(pf, e->cpu);
		if (!ret && !pf->lost_track) {
			ret = emit_track(pf, TRACK_LOST, "mkm: lost events",
					 NULL);
			pf->lost_track = true;
		}
		snprintf(name, sizeof(name), "LOST %llu events (cpu %u)",
			 (unsigned long long)lost, e->cpu);
		if (!ret)
			ret = emit_instant(pf, e->time_ns, 0, TRACK_LOST, name,
					   "lost", lost);
		c->lost = true;
		c->out_valid = false;
		if (ret)
			return ret;
	}
	named = threads_learn(&pf->threads, e, &ret);
	if (ret)
		return ret;
	if (named) {
		named->named = false;
		ret = emit_thread(pf, named, e->time_ns);
		if (ret)
			return ret;
	}
	if (exec_release_after(&c->exec, e))
		return release_exec(pf, e->cpu);
	if (e->type == MKM_EV_EXEC) {
		c->exec.e = *e;
		c->exec.held = true;
		return 0;
	}
	if (e->type == MKM_EV_MARK)
		return emit_mark(pf, e);
	ftrace_event(pf, c, e);
	if (c->pb.err)
		return c->pb.err;
	return c->pb.len >= BUNDLE_BYTES ? flush_bundle(pf, e->cpu) : 0;
}

static int pf_consume(void *priv, const struct mon_msg *msg)
{
	struct perfetto *pf = priv;
	size_t i;
	int ret = 0;

	switch (msg->type) {
	case MON_MSG_NODES:
		return nodes_keep(&pf->nodes, msg);
	case MON_MSG_THREADS:
		ret = threads_names(&pf->threads, msg->threads,
				    msg->nr_threads);
		return ret ? ret : emit_named(pf, 0);
	case MON_MSG_EVENTS:
		for (i = 0; i < msg->nr_events && !ret; i++)
			ret = one_event(pf, &msg->events[i]);
		return ret;
	default:
		return 0;
	}
}

static int pf_finish(void *priv)
{
	struct perfetto *pf = priv;
	unsigned int cpu;
	int ret = 0;

	for (cpu = 0; cpu < pf->nr_cpus && !ret; cpu++) {
		ret = release_exec(pf, cpu);
		if (!ret)
			ret = flush_bundle(pf, cpu);
	}
	if (!ret && !pf->nr_machines) { /* an empty trace is still a trace */
		struct pb *p = packet_begin(pf, 0, 0);

		ret = write_packet(pf, p, NULL);
	}
	if (ret)
		return ret;
	pf->committed = true;
	return outfile_commit(&pf->out);
}

static void pf_destroy(void *priv)
{
	struct perfetto *pf = priv;
	unsigned int cpu;

	if (!pf->committed)
		outfile_abort(&pf->out);
	for (cpu = 0; cpu < pf->nr_cpus; cpu++)
		pb_free(&pf->cpu[cpu].pb);
	free(pf->cpu);
	pb_free(&pf->pkt);
	threads_free(&pf->threads);
	lost_free(&pf->lost);
	mon_nodes_free(&pf->nodes);
	free(pf->started);
	free(pf);
}

static const struct mon_sink_ops perfetto_ops = {
	.name = "perfetto",
	.consume = pf_consume,
	.finish = pf_finish,
	.destroy = pf_destroy,
};

int export_perfetto(struct mon_sink **skp, const char *path,
		    struct export_result *result)
{
	struct perfetto *pf;
	int ret;

	if (!skp || !path)
		return -EINVAL;
	pf = calloc(1, sizeof(*pf));
	if (!pf)
		return -ENOMEM;
	ret = outfile_open(&pf->out, path);
	if (!ret)
		ret = export_sink_new(skp, &perfetto_ops, pf, &pf->threads,
				      result);
	if (ret) {
		outfile_abort(&pf->out);
		free(pf);
	}
	return ret;
}

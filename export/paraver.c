// SPDX-License-Identifier: GPL-2.0
/*
 * paraver.c - mkm export -f paraver: a Paraver trace (BSC's .prv, .pcf and
 * .row text files), one Paraver thread per monitored thread, in one
 * application of a task per process (threads.c's rule: FORK, else the
 * recorder's PROCESSES, else a process of its own, as known when the
 * thread is first seen: its records name its task from then on):
 *
 *   OUT.prv  #Paraver header, then records, sorted by time:
 *            1:cpu:1:task:thread:begin:end:state   a microstate interval
 *            2:cpu:1:task:thread:time:type:value   IRQ, softirq, syscall
 *                                               (value + 1, 0 at the end),
 *                                               mark, migration (dest
 *                                               CPU + 1), lost events
 *            3:cpu:1:task:waker:t:t:cpu:1:task:wakee:t':t':1:1
 *                                               a wakeup, received when the
 *                                               wakee is next switched in
 *   OUT.pcf  state names and colours (tl_state_desc(): the viewer's own),
 *            event types and values
 *   OUT.row  CPU, node, task ("comm [pid]") and thread ("comm [tid]")
 *            names
 *
 * A merged trace (mkm merge) keeps Paraver's hierarchy: a node per node
 * of the job (the header's nodes with their CPUs, the .row's NODE level),
 * each task on its node, tasks and threads named by their node's own
 * pids and tids; the records' CPUs are the merged trace's, which number
 * each node's CPUs after the previous node's, as Paraver does.
 *
 * Times are ns from the first record; CPU fields are 1-based (0: the
 * thread holds no CPU); state values are enum tl_state + 1 (Paraver keeps
 * 0 for idle).
 *
 * The microstates come from libmonitor's timeline builder (states.c):
 * each interval is written as it closes. That builder keeps every
 * interval (16 bytes each): memory grows with the trace here, unlike
 * Perfetto's and CTF's. Records are written as they come
 * to a temporary body, then sorted by time with sort(1), which works in
 * bounded memory on a file of any size, behind the header (which needs
 * the trace's length and thread count, known at the end).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

enum {
	TYPE_IRQ = 90000001,
	TYPE_SOFTIRQ = 90000002,
	TYPE_SYSCALL = 90000003,
	TYPE_MARK = 90000004,
	TYPE_MIGRATE = 90000005,
	TYPE_LOST = 90000006,
};

struct pv_thread {
	uint32_t task, thread; /* Paraver's task, and thread in it (1-based) */
	/* a wakeup waiting for the wakee's next SWITCH_IN */
	uint64_t wake_time;
	uint32_t waker; /* Paraver thread (1-based), 0: none pending */
	uint16_t waker_cpu;
};

struct paraver {
	struct outfile prv, pcf, row, body;
	struct states states;
	struct threads threads; /* tid -> name and Paraver thread (index) */
	struct lost lost;
	struct pv_thread *th; /* by thread number - 1 */
	size_t cap_th;
	struct threads tasks; /* by pid: its task (index) */
	uint32_t *task_threads; /* by task - 1: threads in it */
	size_t cap_tasks;
	uint64_t t0, t_end;
	bool started;
	unsigned int nr_cpus;
	char host[65];
	struct mon_nodes nodes; /* a merged trace's; none: one node */
	int err; /* the interval callback's */
	bool committed;
};

/* The number of @tid (1-based), given at first sight with its task and
 * thread in it; 0: -ENOMEM. */
static uint32_t pv_thread(struct paraver *pv, uint32_t tid)
{
	uint32_t k = threads_number(&pv->threads, tid), task;
	const struct thread_info *ti;
	struct pv_thread *pt;

	if (!k || array_grow(&pv->th, &pv->cap_th, k - 1, sizeof(*pv->th)))
		return 0;
	pt = &pv->th[k - 1];
	if (pt->task)
		return k;
	ti = threads_find(&pv->threads, tid);
	task = threads_number(&pv->tasks, ti->tgid ? ti->tgid : tid);
	if (!task || array_grow(&pv->task_threads, &pv->cap_tasks, task - 1,
				sizeof(*pv->task_threads)))
		return 0;
	pt->task = task;
	pt->thread = ++pv->task_threads[task - 1];
	return k;
}

static uint64_t rel(const struct paraver *pv, uint64_t t)
{
	return t > pv->t0 ? t - pv->t0 : 0;
}

/*
 * Writes one record: @n numbers joined by ':'. Formatted by hand: printf
 * took two thirds of the time of writing the body.
 */
static int record(struct paraver *pv, const uint64_t *field, size_t n)
{
	char line[16 * 21], *p = line;
	size_t i;

	for (i = 0; i < n; i++) {
		char digits[20];
		uint64_t v = field[i];
		size_t k = 0;

		do
			digits[k++] = (char)('0' + v % 10);
		while ((v /= 10));
		while (k)
			*p++ = digits[--k];
		*p++ = i + 1 < n ? ':' : '\n';
	}
	if (fwrite(line, 1, (size_t)(p - line), pv->body.f) !=
	    (size_t)(p - line))
		return errno ? -errno : -EIO;
	return 0;
}

static int event(struct paraver *pv, unsigned int cpu, uint32_t th, uint64_t t,
		 unsigned int type, uint64_t value)
{
	const uint64_t f[] = { 2,
			       cpu + 1,
			       1,
			       pv->th[th - 1].task,
			       pv->th[th - 1].thread,
			       rel(pv, t),
			       type,
			       value };

	return record(pv, f, ARRAY_SIZE(f));
}

static void on_interval(void *arg, size_t th, const struct tl_interval *iv)
{
	struct paraver *pv = arg;
	uint32_t k;

	if (pv->err)
		return;
	k = states_number(&pv->states, &pv->threads, th);
	/* Numbered by its records first (pv_consume()), placed in its task
	 * then; one the records never named is placed now. */
	if (k && (k > pv->cap_th || !pv->th[k - 1].task)) {
		struct tl_thread t;

		k = tl_thread(pv->states.tl, th, &t) ? 0 : pv_thread(pv, t.tid);
	}
	if (!k) {
		pv->err = -ENOMEM;
		return;
	}
	if (iv->end_ns > pv->t_end)
		pv->t_end = iv->end_ns;
	if (iv->end_ns > iv->start_ns) {
		/* the CPU field: the one held, 0 off CPU */
		const uint64_t f[] = {
			1,
			tl_state_desc(iv->state)->on_cpu ? iv->cpu + 1u : 0u,
			1,
			pv->th[k - 1].task,
			pv->th[k - 1].thread,
			rel(pv, iv->start_ns),
			rel(pv, iv->end_ns),
			iv->state + 1u,
		};

		pv->err = record(pv, f, ARRAY_SIZE(f));
	}
}

/* Thread @th switched in by @e: the wakeup it waited for, if a thread of
 * the trace sent one, is a communication received now. */
static int received(struct paraver *pv, const struct mkm_event *e, uint32_t th)
{
	struct pv_thread *w = &pv->th[th - 1];
	const struct pv_thread *by = w->waker ? &pv->th[w->waker - 1] : w;
	const uint64_t f[] = {
		3,
		w->waker_cpu + 1u,
		1,
		by->task,
		by->thread,
		rel(pv, w->wake_time),
		rel(pv, w->wake_time),
		e->cpu + 1u,
		1,
		w->task,
		w->thread,
		rel(pv, e->time_ns),
		rel(pv, e->time_ns),
		1, /* size */
		1, /* tag: a wakeup */
	};

	if (!w->waker)
		return 0;
	w->waker = 0;
	return record(pv, f, ARRAY_SIZE(f));
}

/* The records a state cannot show: events and wakeups. */
static int one_event(struct paraver *pv, const struct mkm_event *e)
{
	struct thread_info *named;
	uint32_t th = 0;
	uint64_t lost;
	int ret = lost_before(&pv->lost, e, &lost);

	if (ret)
		return ret;
	if (e->tid) {
		th = pv_thread(pv, e->tid);
		if (!th)
			return -ENOMEM;
	}
	named = threads_learn(&pv->threads, e, &ret);
	if (named)
		named->named = false;
	if (ret)
		return ret;
	if (e->time_ns > pv->t_end)
		pv->t_end = e->time_ns;
	/* a header may count fewer CPUs than the records use */
	if (e->cpu >= pv->nr_cpus)
		pv->nr_cpus = e->cpu + 1u;
	/* A loss is told on the thread whose record follows it. */
	if (lost && th)
		ret = event(pv, e->cpu, th, e->time_ns, TYPE_LOST, lost);
	if (ret)
		return ret;

	switch (e->type) {
	case MKM_EV_IRQ_ENTRY:
	case MKM_EV_IRQ_EXIT:
		return event(pv, e->cpu, th, e->time_ns, TYPE_IRQ,
			     e->type == MKM_EV_IRQ_ENTRY ? e->arg0 + 1ull : 0);
	case MKM_EV_SOFTIRQ_ENTRY:
	case MKM_EV_SOFTIRQ_EXIT:
		return event(pv, e->cpu, th, e->time_ns, TYPE_SOFTIRQ,
			     e->type == MKM_EV_SOFTIRQ_ENTRY ? e->arg0 + 1ull :
							       0);
	case MKM_EV_SYSCALL_ENTRY:
	case MKM_EV_SYSCALL_EXIT:
		return event(pv, e->cpu, th, e->time_ns, TYPE_SYSCALL,
			     e->type == MKM_EV_SYSCALL_ENTRY ? e->arg0 + 1ull :
							       0);
	case MKM_EV_MARK:
		return event(pv, e->cpu, th, e->time_ns, TYPE_MARK,
			     (uint64_t)e->arg1 << 32 | e->arg0);
	case MKM_EV_MIGRATE:
		return event(pv, e->cpu, th, e->time_ns, TYPE_MIGRATE,
			     e->arg0 + 1ull);
	case MKM_EV_FORK:
		return pv_thread(pv, e->arg0) ? 0 : -ENOMEM;
	case MKM_EV_WAKEUP:
	case MKM_EV_WAKEUP_NEW: {
		struct thread_info *ti = threads_find(&pv->threads, e->arg1);
		uint32_t waker = ti ? ti->index : 0;
		struct pv_thread *w = th ? &pv->th[th - 1] : NULL;

		/* Only a thread of this trace can send: another waker (an
		 * IRQ, an unmonitored task) is not one of its threads. */
		if (w && waker && waker != th) {
			w->wake_time = e->time_ns;
			w->waker = waker;
			w->waker_cpu = e->cpu;
		}
		return 0;
	}
	case MKM_EV_SWITCH_IN:
		return th ? received(pv, e, th) : 0;
	default:
		return 0;
	}
}

static int pv_consume(void *priv, const struct mon_msg *msg)
{
	struct paraver *pv = priv;
	size_t i;
	int ret = 0;

	switch (msg->type) {
	case MON_MSG_INFO:
		if (msg->info->nr_cpus > pv->nr_cpus)
			pv->nr_cpus = msg->info->nr_cpus;
		memcpy(pv->host, msg->info->hostname, sizeof(pv->host));
		break;
	case MON_MSG_THREADS:
		return threads_names(&pv->threads, msg->threads,
				     msg->nr_threads);
	case MON_MSG_NODES:
		return nodes_keep(&pv->nodes, msg);
	case MON_MSG_EVENTS:
		if (!msg->nr_events)
			return 0;
		if (!pv->started) {
			pv->t0 = msg->events[0].time_ns;
			pv->started = true;
		}
		/* Events first: the threads get their numbers in the order
		 * the stream shows them, before the timeline closes any of
		 * their intervals. */
		for (i = 0; i < msg->nr_events && !ret; i++)
			ret = one_event(pv, &msg->events[i]);
		break;
	}
	if (!ret)
		ret = states_consume(&pv->states, msg);
	return ret ? ret : pv->err;
}

static int write_pcf(struct paraver *pv)
{
	FILE *f = pv->pcf.f;
	unsigned int s;

	fputs("DEFAULT_OPTIONS\n\nLEVEL               THREAD\n"
	      "UNITS               NANOSEC\nLOOK_BACK           100\n"
	      "SPEED               1\nFLAG_ICONS          ENABLED\n"
	      "NUM_OF_STATE_COLORS 1000\nYMAX_SCALE          37\n\n\n"
	      "DEFAULT_SEMANTIC\n\nTHREAD_FUNC          State As Is\n\n\n"
	      "STATES\n0    Idle\n",
	      f);
	for (s = 0; s < TL_NR_STATES; s++)
		fprintf(f, "%-4u %s (%s)\n", s + 1, tl_state_desc(s)->name,
			tl_state_desc(s)->legend);
	fputs("\n\nSTATES_COLOR\n0    {255,255,255}\n", f);
	for (s = 0; s < TL_NR_STATES; s++) {
		uint32_t rgb = tl_state_desc(s)->rgb;

		fprintf(f, "%-4u {%u,%u,%u}\n", s + 1, rgb >> 16,
			(rgb >> 8) & 0xff, rgb & 0xff);
	}
	fprintf(f,
		"\n\nEVENT_TYPE\n0    %u    IRQ (line + 1)\nVALUES\n0      End\n"
		"\n\nEVENT_TYPE\n0    %u    Softirq (vector + 1)\nVALUES\n"
		"0      End\n1      HI\n2      TIMER\n3      NET_TX\n"
		"4      NET_RX\n5      BLOCK\n6      IRQ_POLL\n7      TASKLET\n"
		"8      SCHED\n9      HRTIMER\n10     RCU\n"
		"\n\nEVENT_TYPE\n0    %u    Syscall (number + 1)\nVALUES\n"
		"0      End\n"
		"\n\nEVENT_TYPE\n0    %u    Mark (monitor_mark value)\n"
		"\n\nEVENT_TYPE\n0    %u    Migration (destination CPU + 1)\n"
		"\n\nEVENT_TYPE\n0    %u    Events lost on this CPU just before\n",
		TYPE_IRQ, TYPE_SOFTIRQ, TYPE_SYSCALL, TYPE_MARK, TYPE_MIGRATE,
		TYPE_LOST);
	return ferror(f) ? -EIO : 0;
}

/* Paraver's node (1-based) of the task whose leader is @lead; 1 for a
 * one-machine trace. */
static unsigned int task_node(const struct paraver *pv,
			      const struct thread_info *lead)
{
	int pos = nodes_pos_of_tid(&pv->nodes, lead->tid);

	return pos < 0 ? 1 : (unsigned int)pos + 1;
}

static void write_row_nodes(struct paraver *pv, FILE *f)
{
	uint32_t i, c;

	if (!pv->nodes.hdr.nr_nodes) {
		fprintf(f, "LEVEL CPU SIZE %u\n", pv->nr_cpus);
		for (c = 0; c < pv->nr_cpus; c++)
			fprintf(f, "CPU %u\n", c);
		fprintf(f, "\nLEVEL NODE SIZE 1\n%s\n",
			pv->host[0] ? pv->host : "node");
		return;
	}
	fprintf(f, "LEVEL CPU SIZE %u\n", pv->nr_cpus);
	for (c = 0; c < pv->nr_cpus; c++) {
		const struct trace_node *n = mon_nodes_of_cpu(&pv->nodes, c);

		if (n)
			fprintf(f, "%s CPU %u\n", n->name, c - n->cpu_base);
		else
			fprintf(f, "CPU %u\n", c);
	}
	fprintf(f, "\nLEVEL NODE SIZE %u\n", pv->nodes.hdr.nr_nodes);
	for (i = 0; i < pv->nodes.hdr.nr_nodes; i++)
		fprintf(f, "%s\n", pv->nodes.node[i].name);
}

/* CPUs, nodes, tasks (processes) and threads, task by task. */
static int write_row(struct paraver *pv)
{
	const struct thread_info **by = threads_by_number(&pv->threads);
	const struct thread_info **pid = threads_by_number(&pv->tasks);
	uint32_t nr_tasks = pv->tasks.numbered, task, k;
	FILE *f = pv->row.f;

	if (!by || (nr_tasks && !pid)) {
		free(by);
		free(pid);
		return -ENOMEM;
	}
	if (!pv->nr_cpus) /* Paraver wants a CPU, even in an empty trace */
		pv->nr_cpus = 1;
	write_row_nodes(pv, f);
	fprintf(f, "\nLEVEL APPL SIZE 1\nmkm\n\nLEVEL TASK SIZE %u\n",
		nr_tasks);
	for (task = 1; task <= nr_tasks; task++) {
		const struct thread_info *lead =
			threads_find(&pv->threads, pid[task - 1]->tid);
		const char *comm = lead && lead->comm[0] ? lead->comm : NULL;

		/* else its first thread's name */
		for (k = 0; !comm && k < pv->threads.numbered; k++)
			if (pv->th[k].task == task)
				comm = by[k]->comm;
		fprintf(f, "%s [%u]\n", comm ? comm : "",
			nodes_local_tid(&pv->nodes, pid[task - 1]->tid));
	}
	fprintf(f, "\nLEVEL THREAD SIZE %u\n", pv->threads.numbered);
	for (task = 1; task <= nr_tasks; task++)
		for (k = 0; k < pv->threads.numbered; k++)
			if (pv->th[k].task == task)
				fprintf(f, "%s [%u]\n", by[k]->comm,
					nodes_local_tid(&pv->nodes,
							by[k]->tid));
	free(by);
	free(pid);
	return ferror(f) ? -EIO : 0;
}

/* The header, then the body sorted by time (field 6 of every record). */
static int write_prv(struct paraver *pv)
{
	char date[32];
	time_t now = time(NULL);
	struct tm tm;
	posix_spawn_file_actions_t fa;
	/* exec's arrays are not const: the strings are ours to lend */
	char a0[] = "sort", a1[] = "-t:", a2[] = "-s", a3[] = "-n",
	     a4[] = "-k6,6", a5[] = "-S", a6[] = "64M";
	char e0[] = "LC_ALL=C", e1[] = "PATH=/usr/bin:/bin";
	char *argv[] = { a0, a1, a2, a3, a4, a5, a6, NULL, NULL };
	char *envp[] = { e0, e1, NULL };
	const struct thread_info **pids = threads_by_number(&pv->tasks);
	uint32_t task, i;
	pid_t pid;
	int st, ret;

	localtime_r(&now, &tm);
	snprintf(date, sizeof(date), "%02d/%02d/%02d at %02d:%02d", tm.tm_mday,
		 tm.tm_mon + 1, tm.tm_year % 100, tm.tm_hour, tm.tm_min);
	if (pv->tasks.numbered && !pids)
		return -ENOMEM;
	/* The nodes and their CPUs (a merged trace's CPUs past its nodes'
	 * ranges, if any, counted on the last), then one application: its
	 * tasks, each with its threads on its node. */
	fprintf(pv->prv.f, "#Paraver (%s):%" PRIu64 "_ns:", date,
		rel(pv, pv->t_end));
	if (!pv->nodes.hdr.nr_nodes) {
		fprintf(pv->prv.f, "1(%u)", pv->nr_cpus);
	} else {
		unsigned int counted = 0;

		fprintf(pv->prv.f, "%u(", pv->nodes.hdr.nr_nodes);
		for (i = 0; i < pv->nodes.hdr.nr_nodes; i++) {
			unsigned int c = pv->nodes.node[i].nr_cpus;

			if (i + 1 == pv->nodes.hdr.nr_nodes &&
			    counted + c < pv->nr_cpus)
				c = pv->nr_cpus - counted;
			counted += c;
			fprintf(pv->prv.f, "%s%u", i ? "," : "", c);
		}
		fputc(')', pv->prv.f);
	}
	fprintf(pv->prv.f, ":1:%u(",
		pv->tasks.numbered ? pv->tasks.numbered : 1);
	for (task = 0; task < pv->tasks.numbered; task++)
		fprintf(pv->prv.f, "%s%u:%u", task ? "," : "",
			pv->task_threads[task], task_node(pv, pids[task]));
	free(pids);
	fputs(pv->tasks.numbered ? ")\n" : "0:1)\n", pv->prv.f);
	if (fflush(pv->prv.f) || fflush(pv->body.f))
		return errno ? -errno : -EIO;
	argv[7] = pv->body.tmp;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fileno(pv->prv.f), 1);
	ret = posix_spawnp(&pid, "sort", &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	if (ret)
		return -ret;
	if (waitpid(pid, &st, 0) < 0)
		return -errno;
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return -EIO;
	/* sort(1) wrote through its own descriptor: move ours past it. */
	if (fseeko(pv->prv.f, 0, SEEK_END))
		return -errno;
	return 0;
}

static int pv_finish(void *priv)
{
	struct paraver *pv = priv;
	int ret = states_finish(&pv->states);

	if (!ret)
		ret = pv->err;
	if (!ret)
		ret = write_pcf(pv);
	if (!ret)
		ret = write_row(pv);
	if (!ret)
		ret = write_prv(pv);
	if (ret)
		return ret;
	pv->committed = true;
	outfile_abort(&pv->body); /* the temporary body goes */
	ret = outfile_commit(&pv->pcf);
	if (!ret)
		ret = outfile_commit(&pv->row);
	else
		outfile_abort(&pv->row);
	if (!ret)
		ret = outfile_commit(&pv->prv);
	else
		outfile_abort(&pv->prv);
	return ret;
}

static void pv_destroy(void *priv)
{
	struct paraver *pv = priv;

	if (!pv->committed) {
		outfile_abort(&pv->prv);
		outfile_abort(&pv->pcf);
		outfile_abort(&pv->row);
		outfile_abort(&pv->body);
	}
	states_free(&pv->states);
	threads_free(&pv->threads);
	threads_free(&pv->tasks);
	free(pv->task_threads);
	lost_free(&pv->lost);
	mon_nodes_free(&pv->nodes);
	free(pv->th);
	free(pv);
}

static const struct mon_sink_ops paraver_ops = {
	.name = "paraver",
	.consume = pv_consume,
	.finish = pv_finish,
	.destroy = pv_destroy,
};

/* PATH with its .prv replaced by @ext (or @ext added). */
static char *sibling(const char *path, const char *ext)
{
	size_t n = strlen(path);
	char *s;

	if (n > 4 && !strcmp(path + n - 4, ".prv"))
		n -= 4;
	s = malloc(n + strlen(ext) + 1);
	if (s) {
		memcpy(s, path, n);
		strcpy(s + n, ext);
	}
	return s;
}

int export_paraver(struct mon_sink **skp, const char *path,
		   struct export_result *result)
{
	static const char *const ext[] = { ".prv", ".pcf", ".row",
					   ".prv.body" };
	struct paraver *pv;
	struct outfile *out[4];
	size_t i;
	int ret = 0;

	if (!skp || !path)
		return -EINVAL;
	pv = calloc(1, sizeof(*pv));
	if (!pv)
		return -ENOMEM;
	pv->states.cb = on_interval;
	pv->states.arg = pv;
	out[0] = &pv->prv;
	out[1] = &pv->pcf;
	out[2] = &pv->row;
	out[3] = &pv->body;
	for (i = 0; i < ARRAY_SIZE(ext) && !ret; i++) {
		char *p = sibling(path, ext[i]);

		ret = p ? outfile_open(out[i], p) : -ENOMEM;
		free(p);
	}
	if (!ret)
		ret = export_sink_new(skp, &paraver_ops, pv, &pv->threads,
				      result);
	if (ret) {
		for (i = 0; i < ARRAY_SIZE(ext); i++)
			outfile_abort(out[i]);
		free(pv);
	}
	return ret;
}

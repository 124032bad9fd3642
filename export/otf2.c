// SPDX-License-Identifier: GPL-2.0
/*
 * otf2.c - mkm export -f otf2: an OTF2 archive, written through libotf2
 * (Debian's libopen-trace-format2-dev), for Vampir and the Score-P tools:
 *
 *   OUT/traces.otf2        the anchor file (open this one)
 *   OUT/traces.def, OUT/traces/   global definitions, a file per location
 *
 * One location (a CPU thread) per monitored thread, in a location group
 * (a process: "comm [pid]") per process of the threads (threads.c's
 * rule: FORK, else the recorder's PROCESSES, else a process of its own),
 * on one system tree node (the recording's host). A merged trace (mkm
 * merge) gets the job's hierarchy instead, as Vampir shows a cluster: a
 * system tree whose root is the job, a node under it per node of the job
 * (class "node"), its CPUs under each node (class "cpu"), and each
 * process's location group on its node; processes and threads are named
 * by their node's own pids and tids. Each microstate interval of the timeline builder is an Enter and
 * a Leave of the region named after its state (tl_state_desc(): RUN_USER,
 * RUNQ, SLEEP, ...), so Vampir's function summary is msa()'s table. Marks
 * are markers ("mkm"/"mark", on their thread's location); lost spans are
 * markers too ("mkm"/"lost events", from the record before the gap to the
 * one after it, on the whole trace), high severity.
 *
 * Streaming: libotf2 buffers each location's events in chunks; a location
 * may hold POOL_EVENTS of them before they are written out (the memory
 * and flush callbacks below), then libotf2's POSIX layer buffers 4 MiB per
 * location file (its own constant). Definitions are written at the end
 * (their number grows with the threads, not the events). The microstates
 * come from the timeline builder (states.c), which keeps every interval:
 * memory grows with the trace, as Paraver's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

#include "internal.h"

#define ARCHIVE_NAME "traces"
#define CHUNK_EVENTS OTF2_CHUNK_SIZE_MIN /* per location: keep it small */
/*
 * Definitions: libotf2 gives every location's (empty) local definitions
 * writer a chunk of this size and clears what is unused of it when the
 * writer closes: at its default, 4 MiB, that memset and its page faults
 * were 75% of an export of 161 threads (perf: OTF2_Buffer_FlushBuffer
 * under otf2_archive_close_def_writer). The global definitions, a few
 * strings per thread, chain further chunks when one is full.
 */
#define CHUNK_DEFS OTF2_CHUNK_SIZE_MIN
#define POOL_EVENTS 2 /* chunks a location's events may hold in memory */
#define MARKER_MARK 0
#define MARKER_LOST 1

/* String ids of the definitions written at the end. */
enum {
	STR_EMPTY,
	STR_HOST,
	STR_MACHINE,
	STR_STATES, /* TL_NR_STATES names, then as many legends */
	/* one per location, then one per location group */
	STR_THREADS = STR_STATES + 2 * TL_NR_STATES,
};

struct loc {
	OTF2_EvtWriter *w; /* at its first event */
	uint64_t events;
};

struct lost_span {
	uint64_t begin, count;
	uint64_t last; /* the CPU's last record time */
};

struct otf2 {
	struct outdir dir;
	OTF2_Archive *ar;
	OTF2_MarkerWriter *markers;
	struct states states;
	struct threads threads;
	struct lost lost;
	struct loc *loc; /* by location (thread number - 1) */
	size_t nr_loc;
	struct lost_span *span; /* by CPU */
	size_t nr_span;
	struct trace_info info;
	struct mon_nodes nodes; /* a merged trace's; none: one host */
	uint64_t t0, t_end;
	bool started;
	int err; /* the interval callback's */
	OTF2_ErrorCode lib_err; /* the first error libotf2 reported */
	bool committed;
};

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type,
				OTF2_LocationRef location, void *caller,
				bool final)
{
	(void)user, (void)type, (void)location, (void)caller, (void) final;
	return OTF2_FLUSH; /* a full chunk goes to its file at once */
}

static OTF2_TimeStamp post_flush(void *user, OTF2_FileType type,
				 OTF2_LocationRef location)
{
	(void)user, (void)type, (void)location;
	return 0; /* no flush events: nothing stops to write */
}

static const OTF2_FlushCallbacks flush_callbacks = {
	.otf2_pre_flush = pre_flush,
	.otf2_post_flush = post_flush,
};

/*
 * libotf2's own pool lets each location's buffer grow to 128 MiB before it
 * writes anything: ours gives an event buffer POOL_EVENTS chunks, and
 * when they are used up, libotf2 flushes them (pre_flush) and asks again
 * after free_all(). Other buffers (definitions, markers) are small: they
 * get what they ask for.
 */
struct pool {
	void **chunk;
	size_t n, used;
};

static void *pool_allocate(void *user, OTF2_FileType type,
			   OTF2_LocationRef location, void **per_buffer,
			   uint64_t size)
{
	struct pool *p = *per_buffer;
	void **chunk, *c;

	(void)user, (void)location;
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return NULL;
		*per_buffer = p;
	}
	if (type == OTF2_FILETYPE_EVENTS && p->used == POOL_EVENTS)
		return NULL; /* full: libotf2 flushes */
	if (p->used < p->n)
		return p->chunk[p->used++];
	chunk = realloc(p->chunk, (p->n + 1) * sizeof(*chunk));
	if (!chunk)
		return NULL;
	p->chunk = chunk;
	c = malloc(size);
	if (c) {
		p->chunk[p->n++] = c;
		p->used++;
	}
	return c;
}

static void pool_free_all(void *user, OTF2_FileType type,
			  OTF2_LocationRef location, void **per_buffer,
			  bool final)
{
	struct pool *p = *per_buffer;
	size_t i;

	(void)user, (void)type, (void)location;
	if (!p)
		return;
	p->used = 0; /* written out: the chunks serve again */
	if (!final)
		return;
	for (i = 0; i < p->n; i++)
		free(p->chunk[i]);
	free(p->chunk);
	free(p);
	*per_buffer = NULL;
}

static const OTF2_MemoryCallbacks memory_callbacks = {
	.otf2_allocate = pool_allocate,
	.otf2_free_all = pool_free_all,
};

/*
 * libotf2 prints its errors, and some (a failed write when it flushes a
 * chunk) it only reports here, without failing the call that caused them:
 * they are kept, and fail the export; mkm says one line itself.
 */
static OTF2_ErrorCode keep_error(void *user, const char *file, uint64_t line,
				 const char *function, OTF2_ErrorCode code,
				 const char *fmt, va_list va)
{
	struct otf2 *o = user;

	(void)file, (void)line, (void)function, (void)fmt, (void)va;
	if (o && o->lib_err == OTF2_SUCCESS)
		o->lib_err = code;
	return code;
}

static int otf2_err(OTF2_ErrorCode code)
{
	return code == OTF2_SUCCESS ? 0 : -EIO;
}

/* The first error of @code and what libotf2 reported. */
static int check(struct otf2 *o, OTF2_ErrorCode code)
{
	return otf2_err(code != OTF2_SUCCESS ? code : o->lib_err);
}

static void on_interval(void *arg, size_t th, const struct tl_interval *iv)
{
	struct otf2 *o = arg;
	uint32_t k;
	struct loc *l;

	if (o->err || iv->end_ns <= iv->start_ns)
		return;
	k = states_number(&o->states, &o->threads, th);
	if (!k || array_grow(&o->loc, &o->nr_loc, k - 1, sizeof(*o->loc))) {
		o->err = -ENOMEM;
		return;
	}
	l = &o->loc[k - 1];
	if (!l->w) {
		l->w = OTF2_Archive_GetEvtWriter(o->ar, k - 1);
		if (!l->w) {
			o->err = -EIO;
			return;
		}
	}
	if (iv->end_ns > o->t_end)
		o->t_end = iv->end_ns;
	o->err = otf2_err(
		OTF2_EvtWriter_Enter(l->w, NULL, iv->start_ns, iv->state));
	if (!o->err)
		o->err = otf2_err(OTF2_EvtWriter_Leave(l->w, NULL, iv->end_ns,
						       iv->state));
	l->events += 2;
}

static int write_lost(struct otf2 *o, const struct lost_span *s,
		      unsigned int cpu, uint64_t end)
{
	char text[64];

	snprintf(text, sizeof(text), "%" PRIu64 " events lost on cpu %u",
		 s->count, cpu);
	return otf2_err(OTF2_MarkerWriter_WriteMarker(
		o->markers, s->begin, end - s->begin, MARKER_LOST,
		OTF2_MARKER_SCOPE_GLOBAL, 0, text));
}

static int one_event(struct otf2 *o, const struct mkm_event *e)
{
	struct lost_span *s;
	struct thread_info *named;
	uint64_t lost;
	int ret = lost_before(&o->lost, e, &lost);

	if (!ret)
		ret = array_grow(&o->span, &o->nr_span, e->cpu,
				 sizeof(*o->span));
	if (ret)
		return ret;
	s = &o->span[e->cpu];
	if (lost) { /* the span opens at the CPU's last record */
		if (!s->count)
			s->begin = s->last ? s->last : e->time_ns;
		s->count += lost;
	}
	if (s->count && e->type != MKM_EV_LOST) { /* and closes here */
		ret = write_lost(o, s, e->cpu, e->time_ns);
		s->count = 0;
	}
	s->last = e->time_ns;
	if (e->time_ns > o->t_end)
		o->t_end = e->time_ns;
	named = threads_learn(&o->threads, e, &ret);
	if (named)
		named->named = false;
	if (!ret && e->type == MKM_EV_MARK) {
		uint64_t value = (uint64_t)e->arg1 << 32 | e->arg0;
		uint32_t k = threads_number(&o->threads, e->tid);
		char text[32];

		snprintf(text, sizeof(text), "mark %" PRIu64, value);
		ret = k ? otf2_err(OTF2_MarkerWriter_WriteMarker(
				  o->markers, e->time_ns, 0, MARKER_MARK,
				  OTF2_MARKER_SCOPE_LOCATION, k - 1, text)) :
			  -ENOMEM;
	}
	return ret;
}

static int o2_consume(void *priv, const struct mon_msg *msg)
{
	struct otf2 *o = priv;
	size_t i;
	int ret = 0;

	switch (msg->type) {
	case MON_MSG_INFO:
		o->info = *msg->info;
		break;
	case MON_MSG_THREADS:
		return threads_names(&o->threads, msg->threads,
				     msg->nr_threads);
	case MON_MSG_NODES:
		return nodes_keep(&o->nodes, msg);
	case MON_MSG_EVENTS:
		if (msg->nr_events && !o->started) {
			o->t0 = msg->events[0].time_ns;
			o->started = true;
		}
		for (i = 0; i < msg->nr_events && !ret; i++)
			ret = one_event(o, &msg->events[i]);
		break;
	}
	if (!ret)
		ret = states_consume(&o->states, msg);
	if (!ret)
		ret = o->err;
	return ret ? ret : check(o, OTF2_SUCCESS);
}

/* The system tree node of @tid's process: its node's, else the root. */
static OTF2_SystemTreeNodeRef tree_node_of(const struct otf2 *o, uint32_t tid)
{
	int pos = nodes_pos_of_tid(&o->nodes, tid);

	return pos < 0 ? 0 : 1 + (OTF2_SystemTreeNodeRef)pos;
}

/*
 * A merged trace's system tree: the job (0), its nodes (1 + their position
 * in NODES), then each node's CPUs. Its strings start at @str.
 */
static OTF2_ErrorCode write_tree(struct otf2 *o, OTF2_GlobalDefWriter *d,
				 uint32_t str)
{
	const struct mon_nodes *n = &o->nodes;
	uint32_t nr = n->hdr.nr_nodes, i, c, cpu_id = 1 + nr;
	uint32_t node_class = str + 1, cpu_class = str + 2;
	OTF2_ErrorCode err;
	char name[80];

	snprintf(name, sizeof(name), "job %u.%u", n->hdr.job_id,
		 n->hdr.step_id);
	err = OTF2_GlobalDefWriter_WriteString(d, str, name);
	err |= OTF2_GlobalDefWriter_WriteString(d, str + 1, "node");
	err |= OTF2_GlobalDefWriter_WriteString(d, str + 2, "cpu");
	err |= OTF2_GlobalDefWriter_WriteSystemTreeNode(
		d, 0, str, STR_MACHINE, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
	str += 3;
	for (i = 0; i < nr; i++) {
		err |= OTF2_GlobalDefWriter_WriteString(d, str,
							n->node[i].name);
		err |= OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 1 + i, str++,
								node_class, 0);
	}
	for (i = 0; i < nr; i++)
		for (c = 0; c < n->node[i].nr_cpus; c++) {
			snprintf(name, sizeof(name), "cpu %u", c);
			err |= OTF2_GlobalDefWriter_WriteString(d, str, name);
			err |= OTF2_GlobalDefWriter_WriteSystemTreeNode(
				d, cpu_id++, str++, cpu_class, 1 + i);
		}
	return err;
}

/* The location groups: one per process of the locations' threads, named
 * after its leader if known, else after its first thread; *@group gets
 * each location's (free() it). Return: how many, or -ENOMEM. */
static int64_t write_groups(struct otf2 *o, OTF2_GlobalDefWriter *d,
			    const struct thread_info **by, uint32_t **group,
			    OTF2_ErrorCode *err)
{
	struct threads procs = { 0 }; /* by tgid, numbered as groups */
	uint32_t k, g, str = STR_THREADS + o->threads.numbered;
	uint32_t *of = calloc(o->threads.numbered + 1, sizeof(*of));

	for (k = 0; of && k < o->threads.numbered; k++) {
		uint32_t tgid = by[k]->tgid ? by[k]->tgid : by[k]->tid;
		uint32_t before = procs.numbered;
		struct thread_info *lead;
		char name[40];

		g = threads_number(&procs, tgid);
		if (!g)
			break;
		of[k] = g - 1;
		if (procs.numbered == before)
			continue; /* a group already written */
		lead = threads_find(&o->threads, tgid);
		snprintf(name, sizeof(name), "%s [%u]",
			 lead && lead->comm[0] ? lead->comm : by[k]->comm,
			 nodes_local_tid(&o->nodes, tgid));
		*err |= OTF2_GlobalDefWriter_WriteString(d, str + g - 1, name);
		*err |= OTF2_GlobalDefWriter_WriteLocationGroup(
			d, g - 1, str + g - 1, OTF2_LOCATION_GROUP_TYPE_PROCESS,
			tree_node_of(o, tgid), OTF2_UNDEFINED_LOCATION_GROUP);
	}
	g = procs.numbered;
	threads_free(&procs);
	if (!of || k < o->threads.numbered) {
		free(of);
		return -ENOMEM;
	}
	*group = of;
	return g;
}

static int write_definitions(struct otf2 *o)
{
	OTF2_GlobalDefWriter *d = OTF2_Archive_GetGlobalDefWriter(o->ar);
	const struct thread_info **by = threads_by_number(&o->threads);
	uint64_t real = OTF2_UNDEFINED_TIMESTAMP;
	OTF2_ErrorCode err;
	uint32_t *group = NULL;
	unsigned int s;
	uint32_t k;

	if (!d || !by) {
		free(by);
		return d ? -ENOMEM : -EIO;
	}
	/* The wall-clock time of the first record, when the trace knows. */
	if (o->info.start_real_ns && o->t0 >= o->info.start_mono_ns)
		real = o->info.start_real_ns + (o->t0 - o->info.start_mono_ns);
	err = OTF2_GlobalDefWriter_WriteClockProperties(d, 1000000000, o->t0,
							o->t_end - o->t0, real);
	err |= OTF2_GlobalDefWriter_WriteString(d, STR_EMPTY, "");
	err |= OTF2_GlobalDefWriter_WriteString(
		d, STR_HOST, o->info.hostname[0] ? o->info.hostname : "host");
	err |= OTF2_GlobalDefWriter_WriteString(d, STR_MACHINE, "machine");
	for (s = 0; s < TL_NR_STATES; s++) {
		const struct tl_state_desc *sd = tl_state_desc(s);

		err |= OTF2_GlobalDefWriter_WriteString(d, STR_STATES + s,
							sd->name);
		err |= OTF2_GlobalDefWriter_WriteString(
			d, STR_STATES + TL_NR_STATES + s, sd->legend);
	}
	for (k = 0; k < o->threads.numbered; k++) {
		char name[40];

		snprintf(name, sizeof(name), "%s [%u]", by[k]->comm,
			 nodes_local_tid(&o->nodes, by[k]->tid));
		err |= OTF2_GlobalDefWriter_WriteString(d, STR_THREADS + k,
							name);
	}
	/* after the threads' and their groups' strings */
	if (o->nodes.hdr.nr_nodes)
		err |= write_tree(o, d, STR_THREADS + 2 * o->threads.numbered);
	else
		err |= OTF2_GlobalDefWriter_WriteSystemTreeNode(
			d, 0, STR_HOST, STR_MACHINE,
			OTF2_UNDEFINED_SYSTEM_TREE_NODE);
	if (write_groups(o, d, by, &group, &err) < 0) {
		free(by);
		return -ENOMEM;
	}
	for (s = 0; s < TL_NR_STATES; s++)
		err |= OTF2_GlobalDefWriter_WriteRegion(
			d, s, STR_STATES + s, STR_STATES + s,
			STR_STATES + TL_NR_STATES + s,
			OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER,
			OTF2_REGION_FLAG_NONE, STR_EMPTY, 0, 0);
	for (k = 0; k < o->threads.numbered; k++)
		err |= OTF2_GlobalDefWriter_WriteLocation(
			d, k, STR_THREADS + k, OTF2_LOCATION_TYPE_CPU_THREAD,
			k < o->nr_loc ? o->loc[k].events : 0, group[k]);
	free(group);
	free(by);
	err |= OTF2_Archive_CloseGlobalDefWriter(o->ar, d);
	return otf2_err(err);
}

static int o2_finish(void *priv)
{
	struct otf2 *o = priv;
	OTF2_ErrorCode err = OTF2_SUCCESS;
	size_t i;
	int ret = states_finish(&o->states);

	if (!ret)
		ret = o->err;
	for (i = 0; i < o->nr_span && !ret; i++)
		if (o->span[i].count)
			ret = write_lost(o, &o->span[i], (unsigned int)i,
					 o->span[i].last);
	if (!ret)
		ret = check(o, OTF2_SUCCESS);
	/* OTF2's readers refuse an archive without a location. */
	if (!ret && !o->threads.numbered)
		ret = -ENODATA;
	if (ret)
		return ret;
	for (i = 0; i < o->nr_loc; i++) {
		if (o->loc[i].w)
			err |= OTF2_Archive_CloseEvtWriter(o->ar, o->loc[i].w);
		o->loc[i].w = NULL;
	}
	err |= OTF2_Archive_CloseEvtFiles(o->ar);
	/* Every location gets its local definitions file, empty. */
	err |= OTF2_Archive_OpenDefFiles(o->ar);
	for (i = 0; i < o->threads.numbered && !err; i++) {
		OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(o->ar, i);

		err |= dw ? OTF2_Archive_CloseDefWriter(o->ar, dw) :
			    OTF2_ERROR_INVALID;
	}
	err |= OTF2_Archive_CloseDefFiles(o->ar);
	err |= OTF2_Archive_CloseMarkerWriter(o->ar, o->markers);
	o->markers = NULL;
	ret = check(o, err);
	if (!ret)
		ret = write_definitions(o);
	if (!ret)
		ret = check(o, OTF2_Archive_Close(o->ar));
	else
		OTF2_Archive_Close(o->ar);
	o->ar = NULL;
	if (ret)
		return ret;
	o->committed = true;
	return outdir_commit(&o->dir);
}

static void o2_destroy(void *priv)
{
	struct otf2 *o = priv;

	OTF2_Error_RegisterCallback(keep_error, NULL);
	if (o->ar)
		OTF2_Archive_Close(o->ar);
	if (!o->committed)
		outdir_abort(&o->dir);
	states_free(&o->states);
	threads_free(&o->threads);
	lost_free(&o->lost);
	mon_nodes_free(&o->nodes);
	free(o->loc);
	free(o->span);
	free(o);
}

static const struct mon_sink_ops otf2_ops = {
	.name = "otf2",
	.consume = o2_consume,
	.finish = o2_finish,
	.destroy = o2_destroy,
};

int export_otf2(struct mon_sink **skp, const char *path,
		struct export_result *result)
{
	OTF2_ErrorCode err;
	struct otf2 *o;
	int ret;

	if (!skp || !path)
		return -EINVAL;
	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	o->states.cb = on_interval;
	o->states.arg = o;
	OTF2_Error_RegisterCallback(keep_error, o);
	ret = outdir_open(&o->dir, path);
	if (ret) {
		free(o);
		return ret;
	}
	o->ar = OTF2_Archive_Open(o->dir.tmp, ARCHIVE_NAME, OTF2_FILEMODE_WRITE,
				  CHUNK_EVENTS, CHUNK_DEFS,
				  OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	err = o->ar ? OTF2_Archive_SetFlushCallbacks(o->ar, &flush_callbacks,
						     NULL) :
		      OTF2_ERROR_INVALID;
	if (!err)
		err = OTF2_Archive_SetMemoryCallbacks(o->ar, &memory_callbacks,
						      NULL);
	if (!err)
		err = OTF2_Archive_SetSerialCollectiveCallbacks(o->ar);
	if (!err)
		err = OTF2_Archive_SetCreator(o->ar, "mkm export");
	if (!err)
		err = OTF2_Archive_OpenEvtFiles(o->ar);
	if (!err) {
		o->markers = OTF2_Archive_GetMarkerWriter(o->ar);
		if (!o->markers)
			err = OTF2_ERROR_INVALID;
	}
	if (!err)
		err = OTF2_MarkerWriter_WriteDefMarker(o->markers, MARKER_MARK,
						       "mkm", "mark",
						       OTF2_SEVERITY_NONE);
	if (!err)
		err = OTF2_MarkerWriter_WriteDefMarker(o->markers, MARKER_LOST,
						       "mkm", "lost events",
						       OTF2_SEVERITY_HIGH);
	ret = otf2_err(err);
	if (!ret)
		ret = export_sink_new(skp, &otf2_ops, o, &o->threads, result);
	if (ret) {
		if (o->ar)
			OTF2_Archive_Close(o->ar);
		OTF2_Error_RegisterCallback(keep_error, NULL);
		outdir_abort(&o->dir);
		free(o);
	}
	return ret;
}

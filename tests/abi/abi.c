// SPDX-License-Identifier: GPL-2.0
/* abi.c - helpers shared by the ABI tests of /dev/mkm. */
#include "abi.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>

static cpu_set_t abi_initial_cpus;
static int abi_initial_cpus_valid;

/*
 * A test's time limit: ABI_TEST_TIMEOUT, four times that on a debug
 * kernel (lockdep, KASAN: check-debug's), which runs the tests several
 * times slower, most of all those that make hundreds of threads.
 */
static unsigned int abi_test_timeout(void)
{
	return access("/proc/lockdep", F_OK) ? ABI_TEST_TIMEOUT :
					       4 * ABI_TEST_TIMEOUT;
}

static void abi_on_alarm(int sig)
{
	(void)sig;
	/* cmocka's own crash handlers longjmp out of a test the same way. */
	fail_msg("test timed out after %u s", abi_test_timeout());
}

int abi_test_setup(void **state)
{
	struct sigaction sa;

	(void)state;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = abi_on_alarm;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGALRM, &sa, NULL);
	alarm(abi_test_timeout());
	return 0;
}

int abi_test_teardown(void **state)
{
	(void)state;
	alarm(0);
	abi_pin_self(-1);
	return 0;
}

void abi_main(int argc, char **argv)
{
	/* Helper mode: the binary exec'd by the exec tests. */
	if (argc > 1 && strcmp(argv[1], "--abi-exit") == 0)
		_exit(argc > 2 ? atoi(argv[2]) : 0);
	/* ABI_FILTER=pattern runs only the matching tests (debugging). */
	if (getenv("ABI_FILTER"))
		cmocka_set_test_filter(getenv("ABI_FILTER"));
	setvbuf(stdout, NULL, _IONBF, 0);
	setvbuf(stderr, NULL, _IONBF, 0);
	if (sched_getaffinity(0, sizeof(abi_initial_cpus), &abi_initial_cpus) ==
	    0)
		abi_initial_cpus_valid = 1;
}

pid_t abi_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

uint64_t abi_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void abi_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int abi_kernel_is_rt(void)
{
	struct utsname u;

	return uname(&u) == 0 && strstr(u.version, "PREEMPT_RT") != NULL;
}

int abi_nr_cpus_online(void)
{
	if (!abi_initial_cpus_valid)
		return 1;
	return CPU_COUNT(&abi_initial_cpus);
}

int abi_cpu_online(int n)
{
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (abi_initial_cpus_valid &&
		    !CPU_ISSET(cpu, &abi_initial_cpus))
			continue;
		if (n-- == 0)
			return cpu;
	}
	return -1;
}

int abi_pin_tid(pid_t tid, int cpu)
{
	cpu_set_t set;

	if (cpu < 0) {
		if (!abi_initial_cpus_valid)
			return 0;
		set = abi_initial_cpus;
	} else {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
	}
	return sched_setaffinity(tid, sizeof(set), &set);
}

int abi_pin_self(int cpu)
{
	return abi_pin_tid(0, cpu);
}

int abi_open_flags(int flags)
{
	errno = 0;
	int fd = open(MKM_DEVICE, flags);

	if (fd < 0)
		fail_msg("open(%s): %s", MKM_DEVICE, strerror(errno));
	return fd;
}

int abi_open(void)
{
	return abi_open_flags(O_RDWR);
}

void abi_configure(int fd, uint64_t ring_bytes, uint32_t classes,
		   uint32_t flags, struct mkm_config *out)
{
	struct mkm_config c;

	memset(&c, 0, sizeof(c));
	c.ring_bytes = ring_bytes;
	c.classes = classes;
	c.flags = flags;
	ABI_OK(ioctl(fd, MKM_IOC_CONFIGURE, &c));
	if (out)
		*out = c;
}

void abi_resume(int fd)
{
	ABI_OK(ioctl(fd, MKM_IOC_RESUME));
}

void abi_suspend(int fd)
{
	ABI_OK(ioctl(fd, MKM_IOC_SUSPEND));
}

int abi_monitor(int fd, pid_t tid, uint32_t unique_id)
{
	struct mkm_thread t = { .tid = tid, .unique_id = unique_id };

	return ioctl(fd, MKM_IOC_THREAD_MONITOR, &t);
}

int abi_unmonitor(int fd, pid_t tid)
{
	struct mkm_thread t = { .tid = tid, .unique_id = 0 };

	return ioctl(fd, MKM_IOC_THREAD_UNMONITOR, &t);
}

int abi_mark(int fd, uint64_t value)
{
	struct mkm_mark m = { .value = value };

	return ioctl(fd, MKM_IOC_MARK, &m);
}

uint32_t abi_stats(int fd, struct mkm_cpu_stats **cpus)
{
	struct mkm_stats s;

	memset(&s, 0, sizeof(s));
	ABI_OK(ioctl(fd, MKM_IOC_STATS, &s));
	if (s.nr_cpus == 0 || s.nr_cpus > 8192)
		fail_msg("STATS: implausible nr_cpus %u", s.nr_cpus);
	uint32_t n = s.nr_cpus;
	*cpus = calloc(n, sizeof(**cpus));
	assert_non_null(*cpus);
	s.cpus = (uint64_t)(uintptr_t)*cpus;
	s.cpu_stats_size = sizeof(**cpus);
	ABI_OK(ioctl(fd, MKM_IOC_STATS, &s));
	ABI_EQ(s.nr_cpus, n);
	return n;
}

static void abi_trace_reserve(struct abi_trace *t, size_t more)
{
	if (t->n + more <= t->cap)
		return;
	size_t cap = t->cap ? t->cap : 4096;
	while (cap < t->n + more)
		cap *= 2;
	t->ev = realloc(t->ev, cap * ABI_EV_SIZE);
	assert_non_null(t->ev);
	t->cap = cap;
}

/* One read() of up to 1024 records; returns the records read, -1 on error. */
static long abi_read_some(int fd, struct abi_trace *t)
{
	const size_t chunk = 1024;

	abi_trace_reserve(t, chunk);
	ssize_t r = read(fd, t->ev + t->n, chunk * ABI_EV_SIZE);
	if (r < 0)
		return -1;
	if (r % ABI_EV_SIZE)
		fail_msg("read returned %zd, not a multiple of %zu", r,
			 ABI_EV_SIZE);
	t->n += (size_t)r / ABI_EV_SIZE;
	if (r)
		t->reads++;
	return r / (long)ABI_EV_SIZE;
}

void abi_drain(int fd, struct abi_trace *t)
{
	for (;;) {
		long n = abi_read_some(fd, t);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fail_msg("read while draining: %s", strerror(errno));
		}
		if (n == 0)
			return;
	}
}

void abi_drain_nonblock(int fd, struct abi_trace *t)
{
	int fl = fcntl(fd, F_GETFL);

	assert_true(fl >= 0);
	ABI_OK(fcntl(fd, F_SETFL, fl | O_NONBLOCK));
	for (;;) {
		long n = abi_read_some(fd, t);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0)
			fail_msg("nonblocking read: %s", strerror(errno));
		if (n == 0) /* suspended and empty */
			break;
	}
	ABI_OK(fcntl(fd, F_SETFL, fl));
}

long abi_wait_event(int fd, struct abi_trace *t, long tid, int type)
{
	uint64_t deadline = abi_now_ns() + ABI_WAIT_TIMEOUT * 1000000000ull;

	for (;;) {
		abi_drain_nonblock(fd, t);
		long i = abi_find(t, 0, tid, type);
		if (i >= 0)
			return i;
		if (abi_now_ns() > deadline)
			fail_msg("no %s of tid %ld within %d s",
				 mon_event_name((unsigned int)type), tid,
				 ABI_WAIT_TIMEOUT);
		abi_sleep_ms(10);
	}
}

struct abi_sort_item {
	struct mkm_event ev;
	size_t index;
};

static int abi_cmp_time(const void *a, const void *b)
{
	const struct abi_sort_item *x = a, *y = b;

	if (x->ev.time_ns != y->ev.time_ns)
		return x->ev.time_ns < y->ev.time_ns ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

void abi_sort_by_time(struct abi_trace *t)
{
	struct abi_sort_item *items = calloc(t->n + 1, sizeof(*items));

	assert_non_null(items);
	for (size_t i = 0; i < t->n; i++) {
		items[i].ev = t->ev[i];
		items[i].index = i;
	}
	qsort(items, t->n, sizeof(*items), abi_cmp_time);
	for (size_t i = 0; i < t->n; i++)
		t->ev[i] = items[i].ev;
	free(items);
}

/*
 * The unique_id last seen with tid before record at, else the first after
 * it (read() gives one CPU's records after another's), or 0.
 */
static uint32_t abi_unique_id_of(const struct abi_trace *t, size_t at,
				 uint32_t tid)
{
	for (size_t i = at; i-- > 0;)
		if (t->ev[i].tid == tid)
			return t->ev[i].unique_id;
	for (size_t i = at; i < t->n; i++)
		if (t->ev[i].tid == tid)
			return t->ev[i].unique_id;
	return 0;
}

size_t abi_split_switches(const struct abi_trace *in, struct abi_trace *out)
{
	size_t split = 0;

	memset(out, 0, sizeof(*out));
	abi_trace_reserve(out, 2 * in->n + 1);
	out->reads = in->reads;
	for (size_t i = 0; i < in->n; i++) {
		const struct mkm_event *e = &in->ev[i];
		struct mkm_event *o = &out->ev[out->n++];

		*o = *e;
		if (e->type != MKM_EV_SWITCH)
			continue;
		o->type = MKM_EV_SWITCH_OUT;
		o->flags = e->flags & (MKM_EVF_PREEMPTED | MKM_EVF_LOCK_WAIT);
		o->arg0 = MKM_EVF_STATE(e->flags);
		o[1] = *e;
		o[1].type = MKM_EV_SWITCH_IN;
		o[1].tid = e->arg1;
		o[1].unique_id = abi_unique_id_of(in, i, e->arg1);
		o[1].flags = e->flags & MKM_EVF_WAIT_US;
		o[1].arg1 = e->tid;
		out->n++;
		split++;
	}
	return split;
}

void abi_trace_free(struct abi_trace *t)
{
	free(t->ev);
	memset(t, 0, sizeof(*t));
}

size_t abi_count_where(const struct abi_trace *t, long tid, int type, long cpu,
		       uint8_t flag_mask, uint8_t flag_val)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++) {
		const struct mkm_event *e = &t->ev[i];
		if (tid != ABI_ANY && e->tid != (uint32_t)tid)
			continue;
		if (type != ABI_ANY && e->type != type)
			continue;
		if (cpu != ABI_ANY && e->cpu != cpu)
			continue;
		if ((e->flags & flag_mask) != flag_val)
			continue;
		n++;
	}
	return n;
}

size_t abi_count(const struct abi_trace *t, long tid, int type)
{
	return abi_count_where(t, tid, type, ABI_ANY, 0, 0);
}

long abi_find(const struct abi_trace *t, size_t from, long tid, int type)
{
	for (size_t i = from; i < t->n; i++) {
		if (tid != ABI_ANY && t->ev[i].tid != (uint32_t)tid)
			continue;
		if (type != ABI_ANY && t->ev[i].type != type)
			continue;
		return (long)i;
	}
	return -1;
}

void abi_name_of(const struct mkm_event *n0, const struct mkm_event *n1,
		 char out[17])
{
	const struct mkm_event *half[2] = { n0, n1 };

	for (int h = 0; h < 2; h++)
		for (int i = 0; i < 8; i++) {
			uint32_t w = i < 4 ? half[h]->arg0 : half[h]->arg1;
			out[h * 8 + i] = (char)(w >> (8 * (i % 4)));
		}
	out[16] = 0;
}

size_t abi_cpu_events(const struct abi_trace *t, unsigned int cpu,
		      struct mkm_event **out)
{
	size_t n = 0;

	*out = calloc(t->n + 1, ABI_EV_SIZE);
	assert_non_null(*out);
	for (size_t i = 0; i < t->n; i++)
		if (t->ev[i].cpu == cpu)
			(*out)[n++] = t->ev[i];
	return n;
}

void abi_check_stream(const struct abi_trace *t, unsigned int nr_cpus,
		      uint64_t *records, uint64_t *lost)
{
	for (unsigned int cpu = 0; cpu < nr_cpus; cpu++) {
		int have_seq = 0, have_rec = 0;
		uint32_t next_seq = 0;
		uint64_t last_time = 0, nrec = 0, nlost = 0;

		for (size_t i = 0; i < t->n; i++) {
			const struct mkm_event *e = &t->ev[i];
			if (e->cpu >= nr_cpus)
				fail_msg("event %zu: cpu %u >= %u possible", i,
					 e->cpu, nr_cpus);
			if (e->type == 0 || e->type > MKM_EV_TYPE_MAX)
				fail_msg("event %zu: unknown type %u", i,
					 e->type);
			if (e->cpu != cpu)
				continue;
			if (have_seq && e->seq != next_seq)
				fail_msg(
					"cpu %u event %zu (%s): seq %u, expected "
					"%u",
					cpu, i, mon_event_name(e->type), e->seq,
					next_seq);
			have_seq = 1;
			if (e->type == MKM_EV_LOST) {
				if (e->arg0 == 0)
					fail_msg("cpu %u event %zu: LOST of 0",
						 cpu, i);
				if (e->tid || e->unique_id)
					fail_msg(
						"cpu %u event %zu: LOST with tid "
						"%u uid %u",
						cpu, i, e->tid, e->unique_id);
				if (have_rec && e->time_ns != last_time)
					fail_msg(
						"cpu %u event %zu: LOST time %llu,"
						" last record's %llu",
						cpu, i,
						(unsigned long long)e->time_ns,
						(unsigned long long)last_time);
				next_seq = e->seq + e->arg0;
				nlost += e->arg0;
				continue;
			}
			if (have_rec && e->time_ns < last_time)
				fail_msg(
					"cpu %u event %zu (%s): time %llu went "
					"back from %llu",
					cpu, i, mon_event_name(e->type),
					(unsigned long long)e->time_ns,
					(unsigned long long)last_time);
			have_rec = 1;
			last_time = e->time_ns;
			next_seq = e->seq + 1;
			nrec++;
		}
		if (records)
			records[cpu] = nrec;
		if (lost)
			lost[cpu] = nlost;
	}
}

void abi_dump(const struct abi_trace *t, size_t max)
{
	for (size_t i = 0; i < t->n && i < max; i++) {
		const struct mkm_event *e = &t->ev[i];
		printf("# %5zu cpu%u seq %u t %llu tid %u uid %u %s f %#x "
		       "a0 %#x a1 %#x\n",
		       i, e->cpu, e->seq, (unsigned long long)e->time_ns,
		       e->tid, e->unique_id, mon_event_name(e->type), e->flags,
		       e->arg0, e->arg1);
	}
}

static int abi_read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	ssize_t r = read(fd, buf, size - 1);
	close(fd);
	if (r < 0)
		return -1;
	buf[r] = 0;
	return 0;
}

static void abi_ctxt_path(const char *dir, struct abi_ctxt *c)
{
	char path[64], buf[4096];

	snprintf(path, sizeof(path), "%s/status", dir);
	if (abi_read_file(path, buf, sizeof(buf)))
		fail_msg("%s: %s", path, strerror(errno));
	char *v = strstr(buf, "\nvoluntary_ctxt_switches:");
	char *nv = strstr(buf, "\nnonvoluntary_ctxt_switches:");
	if (!v || !nv)
		fail_msg("%s: no ctxt_switches lines", path);
	c->vol = strtoul(strchr(v, ':') + 1, NULL, 10);
	c->nonvol = strtoul(strchr(nv, ':') + 1, NULL, 10);
	/* "<ns on CPU> <ns waiting on a run queue> <times run>" */
	snprintf(path, sizeof(path), "%s/schedstat", dir);
	if (abi_read_file(path, buf, sizeof(buf)) ||
	    sscanf(buf, "%*u %" SCNu64, &c->run_delay) != 1)
		fail_msg("%s: unreadable", path);
}

static char abi_state_path(const char *dir)
{
	char path[64], buf[1024];

	snprintf(path, sizeof(path), "%s/stat", dir);
	if (abi_read_file(path, buf, sizeof(buf)))
		return 0;
	char *p = strrchr(buf, ')'); /* comm may hold spaces */
	if (!p || !p[1] || !p[2])
		return 0;
	return p[2];
}

void abi_ctxt(pid_t tid, struct abi_ctxt *c)
{
	char dir[48];

	snprintf(dir, sizeof(dir), "/proc/self/task/%d", (int)tid);
	abi_ctxt_path(dir, c);
}

char abi_task_state(pid_t tid)
{
	char dir[48];

	snprintf(dir, sizeof(dir), "/proc/self/task/%d", (int)tid);
	return abi_state_path(dir);
}

void abi_wait_zombie(pid_t pid)
{
	uint64_t deadline = abi_now_ns() + ABI_WAIT_TIMEOUT * 1000000000ull;
	char dir[48];

	snprintf(dir, sizeof(dir), "/proc/%d", (int)pid);
	while (abi_state_path(dir) != 'Z') {
		if (abi_now_ns() > deadline)
			fail_msg("process %d did not exit within %d s",
				 (int)pid, ABI_WAIT_TIMEOUT);
		abi_sleep_ms(5);
	}
}

static void abi_wait_blocked_dir(const char *dir)
{
	uint64_t deadline = abi_now_ns() + ABI_WAIT_TIMEOUT * 1000000000ull;

	/*
	 * Blocked for good: asleep, and no switch across a sleep of ours
	 * (were it only preempted on its way to sleep, it would have run).
	 */
	while (abi_now_ns() < deadline) {
		struct abi_ctxt c1, c2;
		abi_ctxt_path(dir, &c1);
		char s1 = abi_state_path(dir);
		abi_sleep_ms(20);
		abi_ctxt_path(dir, &c2);
		char s2 = abi_state_path(dir);
		if (s1 == 'S' && s2 == 'S' && c1.vol == c2.vol &&
		    c1.nonvol == c2.nonvol)
			return;
	}
	fail_msg("%s did not block within %d s (state %c)", dir,
		 ABI_WAIT_TIMEOUT, abi_state_path(dir));
}

void abi_wait_blocked(pid_t tid)
{
	char dir[48];

	snprintf(dir, sizeof(dir), "/proc/self/task/%d", (int)tid);
	abi_wait_blocked_dir(dir);
}

void abi_wait_proc_blocked(pid_t pid)
{
	char dir[48];

	snprintf(dir, sizeof(dir), "/proc/%d", (int)pid);
	abi_wait_blocked_dir(dir);
}

static void *abi_worker_main(void *arg)
{
	struct abi_worker *w = arg;
	char c;

	if (w->cpu >= 0 && abi_pin_self(w->cpu))
		w->error = __LINE__;
	prctl(PR_SET_NAME, w->name);
	w->tid = abi_gettid();
	if (write(w->done[1], "s", 1) != 1)
		return NULL;
	for (;;) {
		ssize_t r = read(w->cmd[0], &c, 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r != 1 || c == 'q')
			break;
		w->fn(w);
		if (write(w->done[1], "d", 1) != 1)
			break;
	}
	return NULL;
}

static void abi_worker_wait_byte(struct abi_worker *w)
{
	struct pollfd p = { .fd = w->done[0], .events = POLLIN };
	char c;

	for (;;) {
		int r = poll(&p, 1, ABI_WAIT_TIMEOUT * 1000);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			fail_msg("worker %s (tid %d) stuck for %d s", w->name,
				 (int)w->tid, ABI_WAIT_TIMEOUT);
		break;
	}
	if (read(w->done[0], &c, 1) != 1)
		fail_msg("worker %s: done pipe closed", w->name);
}

void abi_worker_start(struct abi_worker *w, const char *name, int cpu,
		      void (*fn)(struct abi_worker *w), void *arg)
{
	memset(w, 0, sizeof(*w));
	w->cpu = cpu;
	w->fn = fn;
	w->arg = arg;
	snprintf(w->name, sizeof(w->name), "%s", name);
	ABI_OK(pipe2(w->cmd, O_CLOEXEC));
	ABI_OK(pipe2(w->done, O_CLOEXEC));
	ABI_OK(pthread_create(&w->thread, NULL, abi_worker_main, w));
	abi_worker_wait_byte(w);
	if (w->error)
		fail_msg("worker %s could not pin itself to cpu %d", name, cpu);
}

void abi_worker_run(struct abi_worker *w)
{
	if (write(w->cmd[1], "r", 1) != 1)
		fail_msg("worker %s: %s", w->name, strerror(errno));
}

void abi_worker_wait(struct abi_worker *w)
{
	abi_worker_wait_byte(w);
	if (w->error)
		fail_msg("worker %s failed at line %d", w->name, w->error);
}

void abi_worker_stop(struct abi_worker *w)
{
	struct timespec ts;

	if (write(w->cmd[1], "q", 1) != 1)
		fail_msg("worker %s: %s", w->name, strerror(errno));
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ABI_WAIT_TIMEOUT;
	int r = pthread_timedjoin_np(w->thread, NULL, &ts);
	if (r)
		fail_msg("worker %s: join: %s", w->name, strerror(r));
	close(w->cmd[0]);
	close(w->cmd[1]);
	close(w->done[0]);
	close(w->done[1]);
}

static void abi_ping_fn(struct abi_worker *w)
{
	struct abi_pingpong *p = w->arg;
	char c = 'p';

	for (long i = 0; i < p->n; i++) {
		if (write(p->ab[1], &c, 1) != 1) {
			w->error = __LINE__;
			return;
		}
		if (read(p->ba[0], &c, 1) != 1) {
			w->error = __LINE__;
			return;
		}
		w->progress++;
	}
}

static void abi_pong_fn(struct abi_worker *w)
{
	struct abi_pingpong *p = w->arg;
	char c;

	for (long i = 0; i < p->n; i++) {
		if (read(p->ab[0], &c, 1) != 1) {
			w->error = __LINE__;
			return;
		}
		if (write(p->ba[1], &c, 1) != 1) {
			w->error = __LINE__;
			return;
		}
		w->progress++;
	}
}

void abi_pingpong_start(struct abi_pingpong *p, const char *name, int cpu_a,
			int cpu_b, long n)
{
	char buf[16];

	memset(p, 0, sizeof(*p));
	p->n = n;
	ABI_OK(pipe2(p->ab, O_CLOEXEC));
	ABI_OK(pipe2(p->ba, O_CLOEXEC));
	snprintf(buf, sizeof(buf), "%s-a", name);
	abi_worker_start(&p->a, buf, cpu_a, abi_ping_fn, p);
	snprintf(buf, sizeof(buf), "%s-b", name);
	abi_worker_start(&p->b, buf, cpu_b, abi_pong_fn, p);
}

void abi_pingpong_run(struct abi_pingpong *p)
{
	abi_worker_run(&p->a);
	abi_worker_run(&p->b);
	abi_worker_wait(&p->a);
	abi_worker_wait(&p->b);
}

void abi_pingpong_stop(struct abi_pingpong *p)
{
	abi_worker_stop(&p->a);
	abi_worker_stop(&p->b);
	close(p->ab[0]);
	close(p->ab[1]);
	close(p->ba[0]);
	close(p->ba[1]);
}

void abi_pingpong_record(int fd, struct abi_pingpong *p, struct abi_trace *t)
{
	abi_wait_blocked(p->a.tid);
	abi_wait_blocked(p->b.tid);
	abi_resume(fd);
	ABI_OK(abi_monitor(fd, p->a.tid, 1));
	ABI_OK(abi_monitor(fd, p->b.tid, 2));
	abi_pingpong_run(p);
	abi_wait_blocked(p->a.tid);
	abi_wait_blocked(p->b.tid);
	abi_suspend(fd);
	abi_drain(fd, t);
}

int abi_wait_child(pid_t pid)
{
	return abi_wait_child_for(pid, ABI_WAIT_TIMEOUT);
}

int abi_wait_child_for(pid_t pid, unsigned int seconds)
{
	uint64_t deadline = abi_now_ns() + seconds * 1000000000ull;
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			return status;
		if (r < 0 && errno != EINTR)
			fail_msg("waitpid(%d): %s", (int)pid, strerror(errno));
		if (abi_now_ns() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			fail_msg("child %d stuck for %u s: killed", (int)pid,
				 seconds);
		}
		abi_sleep_ms(2);
	}
}

void abi_expect_child_ok(pid_t pid)
{
	int status = abi_wait_child(pid);

	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("child %d failed (status %#x): see its message above",
			 (int)pid, status);
}

int abi_drop_privileges(uid_t uid, gid_t gid)
{
	if (setgroups(0, NULL) || setresgid(gid, gid, gid) ||
	    setresuid(uid, uid, uid))
		return -1;
	/* Changing the euid made us non-dumpable; the same-uid rule needs it. */
	return prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

static void abi_allow_others(const char *path, mode_t need)
{
	struct stat st;

	if (stat(path, &st))
		fail_msg("stat %s: %s", path, strerror(errno));
	if ((st.st_mode & need) == need)
		return;
	printf("# note: %s is mode %03o; adding %03o so the unprivileged "
	       "tests can reach %s\n",
	       path, st.st_mode & 0777, need, MKM_DEVICE);
	if (chmod(path, (st.st_mode & 07777) | need))
		fail_msg("chmod %s: %s", path, strerror(errno));
}

void abi_allow_unprivileged_open(void)
{
	/* An initramfs root made with mktemp -d is 0700. */
	abi_allow_others("/", 0055);
	abi_allow_others("/dev", 0055);
	abi_allow_others(MKM_DEVICE, 0066);
}

int abi_install_copy(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC);
	int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
	ssize_t r = 0;

	if (in < 0 || out < 0)
		return -1;
	while ((r = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)r) != r)
			r = -1;
	close(in);
	if (fchown(out, 0, 0) || fchmod(out, mode))
		r = -1;
	if (close(out))
		r = -1;
	return r < 0 ? -1 : 0;
}

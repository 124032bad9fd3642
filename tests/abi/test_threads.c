// SPDX-License-Identifier: GPL-2.0
/*
 * test_threads.c - the lives of monitored threads: exit and reap, exec,
 * unmonitor, a monitor closed under running threads, inheritance across
 * pthread_create and fork, and a monitor fd handed to another process with
 * SCM_RIGHTS.
 */
#include "abi.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>

#define SLEEPS 3

static void sleep_fn(struct abi_worker *w)
{
	for (int i = 0; i < SLEEPS; i++) {
		usleep(1000);
		w->progress++;
	}
}

/*
 * The last SWITCH_OUT of tid (t sorted by time) leaves in state dead, and
 * nothing but REAP comes after it.
 */
static void check_died(const struct abi_trace *t, pid_t tid, uint32_t dead)
{
	long last = -1;

	for (size_t i = 0; i < t->n; i++)
		if (t->ev[i].tid == (uint32_t)tid &&
		    t->ev[i].type == MKM_EV_SWITCH_OUT)
			last = (long)i;
	assert_true(last >= 0);
	ABI_EQ(t->ev[last].arg0, dead);
	long ex = abi_find(t, 0, tid, MKM_EV_EXIT);
	assert_true(ex >= 0);
	assert_true(t->ev[ex].time_ns <= t->ev[last].time_ns);
	for (size_t i = 0; i < t->n; i++) {
		const struct mkm_event *e = &t->ev[i];
		if (e->tid == (uint32_t)tid &&
		    e->time_ns > t->ev[last].time_ns && e->type != MKM_EV_REAP)
			fail_msg("event %zu: %s of %d after its last switch", i,
				 mon_event_name(e->type), (int)tid);
	}
}

struct exiter {
	int go[2];
	pid_t tid;
	int tidpipe[2];
};

static void *exiter_main(void *arg)
{
	struct exiter *x = arg;
	char c;

	x->tid = abi_gettid();
	if (write(x->tidpipe[1], "t", 1) != 1 || read(x->go[0], &c, 1) != 1)
		return NULL;
	for (int i = 0; i < SLEEPS; i++)
		usleep(1000);
	return NULL;
}

static void test_exit_thread_yields_exit_then_reap(void **state)
{
	struct exiter x;
	struct abi_trace t = { 0 };
	pthread_t th;
	char c;
	(void)state;

	ABI_OK(pipe(x.go));
	ABI_OK(pipe(x.tidpipe));
	ABI_OK(pthread_create(&th, NULL, exiter_main, &x));
	ABI_EQ(read(x.tidpipe[0], &c, 1), 1);
	abi_wait_blocked(x.tid);
	int fd = abi_open();
	abi_resume(fd);
	ABI_OK(abi_monitor(fd, x.tid, 55));
	ABI_EQ(write(x.go[1], "g", 1), 1);
	ABI_OK(pthread_join(th, NULL));
	abi_wait_event(fd, &t, x.tid, MKM_EV_REAP);
	abi_suspend(fd);
	abi_drain(fd, &t);
	abi_sort_by_time(&t);

	long e = abi_find(&t, 0, x.tid, MKM_EV_EXIT);
	long r = abi_find(&t, 0, x.tid, MKM_EV_REAP);
	assert_true(e >= 0);
	ABI_EQ(abi_count(&t, x.tid, MKM_EV_EXIT), 1);
	ABI_EQ(abi_count(&t, x.tid, MKM_EV_REAP), 1);
	ABI_EQ(t.ev[e].unique_id, 55);
	ABI_EQ(t.ev[e].arg0, 0);
	ABI_EQ(t.ev[r].unique_id, 55);
	assert_true(r > e);
	/* A thread is released at exit: nobody waits for it. */
	check_died(&t, x.tid, MKM_TS_DEAD);
	/* Gone: the tid no longer resolves. */
	ABI_ERR(abi_monitor(fd, x.tid, 56), ESRCH);
	abi_trace_free(&t);
	ABI_OK(close(fd));
	close(x.go[0]);
	close(x.go[1]);
	close(x.tidpipe[0]);
	close(x.tidpipe[1]);
}

static void test_exit_process_reaped_after_waitpid(void **state)
{
	struct abi_trace t = { 0 };
	int go[2];
	(void)state;

	ABI_OK(pipe(go));
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char c;
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		for (int i = 0; i < SLEEPS; i++)
			usleep(1000);
		_exit(3);
	}
	abi_wait_proc_blocked(pid);
	int fd = abi_open();
	abi_resume(fd);
	ABI_OK(abi_monitor(fd, pid, 66));
	ABI_EQ(write(go[1], "g", 1), 1);
	abi_wait_zombie(pid);
	long e = abi_wait_event(fd, &t, pid, MKM_EV_EXIT);
	/* "exit code": the status given to _exit, maybe in wait() form. */
	if (t.ev[e].arg0 != 3 && t.ev[e].arg0 != 3 << 8)
		fail_msg("EXIT arg0 %#x, expected 3 (or 0x300)", t.ev[e].arg0);
	ABI_EQ(t.ev[e].unique_id, 66);
	/* A zombie is not reaped until its parent waits for it. */
	abi_sleep_ms(100);
	abi_drain_nonblock(fd, &t);
	ABI_EQ(abi_count(&t, pid, MKM_EV_REAP), 0);
	int status = abi_wait_child(pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 3);
	long r = abi_wait_event(fd, &t, pid, MKM_EV_REAP);
	ABI_EQ(t.ev[r].unique_id, 66);
	abi_suspend(fd);
	abi_drain(fd, &t);
	abi_sort_by_time(&t);
	ABI_EQ(abi_count(&t, pid, MKM_EV_EXIT), 1);
	ABI_EQ(abi_count(&t, pid, MKM_EV_REAP), 1);
	/* A process stays a zombie until its parent waits. */
	check_died(&t, pid, MKM_TS_ZOMBIE);
	abi_trace_free(&t);
	ABI_OK(close(fd));
	close(go[0]);
	close(go[1]);
}

static void test_exec_keeps_tracking(void **state)
{
	struct abi_trace t = { 0 };
	int go[2];
	(void)state;

	ABI_OK(pipe(go));
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char c;
		char *const argv[] = { (char *)"abi-exec", (char *)"--abi-exit",
				       (char *)"4", NULL };
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		execv("/proc/self/exe", argv);
		_exit(1);
	}
	abi_wait_proc_blocked(pid);
	int fd = abi_open();
	abi_resume(fd);
	ABI_OK(abi_monitor(fd, pid, 99));
	ABI_EQ(write(go[1], "g", 1), 1);
	abi_wait_zombie(pid);
	abi_wait_event(fd, &t, pid, MKM_EV_EXIT);
	int status = abi_wait_child(pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 4);
	abi_suspend(fd);
	abi_drain(fd, &t);

	abi_sort_by_time(&t);
	long x = abi_find(&t, 0, pid, MKM_EV_EXEC);
	assert_true(x >= 0);
	ABI_EQ(abi_count(&t, pid, MKM_EV_EXEC), 1);
	ABI_EQ(t.ev[x].arg0, pid); /* single-threaded: the tid stays */
	ABI_EQ(t.ev[x].unique_id, 99);
	/* Named at attach and at exec: the basename of the file exec'd. */
	ABI_EQ(abi_count(&t, pid, MKM_EV_NAME), 4);
	long n0 = -1;
	for (size_t i = 0; i < t.n; i++)
		if (t.ev[i].tid == (uint32_t)pid &&
		    t.ev[i].type == MKM_EV_NAME && t.ev[i].flags == 0)
			n0 = (long)i;
	assert_true(n0 >= 0);
	ABI_EQ(t.ev[n0].arg0, 'e' | 'x' << 8 | 'e' << 16);
	ABI_EQ(t.ev[n0].arg1, 0);
	/* Not a setuid binary: still tracked, so its exit is recorded. */
	ABI_EQ(abi_count(&t, pid, MKM_EV_DETACH), 0);
	long e = abi_find(&t, 0, pid, MKM_EV_EXIT);
	assert_true(e >= 0 && t.ev[e].time_ns >= t.ev[x].time_ns);
	for (size_t i = 0; i < t.n; i++)
		if (t.ev[i].tid == (uint32_t)pid && t.ev[i].unique_id != 99)
			fail_msg("event %zu: unique_id %u after exec", i,
				 t.ev[i].unique_id);
	abi_trace_free(&t);
	ABI_OK(close(fd));
	close(go[0]);
	close(go[1]);
}

static void test_unmonitor_stops_events(void **state)
{
	struct abi_worker w;
	struct abi_trace t = { 0 };
	(void)state;

	abi_worker_start(&w, "abi-unmon", -1, sleep_fn, NULL);
	abi_wait_blocked(w.tid);
	int fd = abi_open();
	abi_resume(fd);
	ABI_OK(abi_monitor(fd, w.tid, 5));
	abi_worker_run(&w);
	abi_worker_wait(&w);
	abi_wait_blocked(w.tid);
	ABI_OK(abi_unmonitor(fd, w.tid));
	ABI_ERR(abi_unmonitor(fd, w.tid), ENOENT);
	abi_worker_run(&w);
	abi_worker_wait(&w);
	abi_wait_blocked(w.tid);
	abi_suspend(fd);
	abi_drain(fd, &t);

	long d = abi_find(&t, 0, w.tid, MKM_EV_DETACH);
	assert_true(d >= 0);
	ABI_EQ(abi_count(&t, w.tid, MKM_EV_DETACH), 1);
	ABI_EQ(t.ev[d].arg0, MKM_DETACH_UNMONITOR);
	ABI_EQ(t.ev[d].unique_id, 5);
	assert_true(abi_count(&t, w.tid, MKM_EV_SWITCH_OUT) >= SLEEPS);
	for (size_t i = 0; i < t.n; i++)
		if (t.ev[i].tid == (uint32_t)w.tid &&
		    t.ev[i].time_ns > t.ev[d].time_ns)
			fail_msg("event %zu: %s after DETACH", i,
				 mon_event_name(t.ev[i].type));
	/* And it can be tracked again. */
	ABI_OK(abi_monitor(fd, w.tid, 6));
	abi_trace_free(&t);
	ABI_OK(close(fd));
	abi_worker_stop(&w);
}

struct spinner {
	volatile int stop;
};

static void spin_fn(struct abi_worker *w)
{
	struct spinner *s = w->arg;

	while (!s->stop) {
		usleep(200);
		w->progress++;
	}
}

static void test_close_monitor_while_threads_run(void **state)
{
	struct spinner s = { 0 };
	struct abi_worker w[2];
	struct abi_trace t = { 0 };
	(void)state;

	for (int i = 0; i < 2; i++) {
		abi_worker_start(&w[i], "abi-running",
				 abi_cpu_online(i % abi_nr_cpus_online()),
				 spin_fn, &s);
		abi_worker_run(&w[i]);
	}
	/* Close resumed monitors under running threads, a few times over. */
	for (int round = 0; round < 5; round++) {
		int fd = abi_open();
		abi_resume(fd);
		for (int i = 0; i < 2; i++)
			ABI_OK(abi_monitor(fd, w[i].tid, 10 + (uint32_t)i));
		abi_sleep_ms(20);
		ABI_OK(close(fd));
	}
	long p0 = w[0].progress, p1 = w[1].progress;
	abi_sleep_ms(50);
	assert_true(w[0].progress > p0 && w[1].progress > p1);

	int fd = abi_open();
	abi_resume(fd);
	for (int i = 0; i < 2; i++)
		ABI_OK(abi_monitor(fd, w[i].tid, 20 + (uint32_t)i));
	abi_sleep_ms(30);
	abi_suspend(fd);
	abi_drain(fd, &t);
	for (int i = 0; i < 2; i++) {
		assert_true(abi_count(&t, w[i].tid, MKM_EV_SWITCH_OUT) > 0);
		long k = abi_find(&t, 0, w[i].tid, ABI_ANY);
		ABI_EQ(t.ev[k].unique_id, 20 + (uint32_t)i);
	}
	s.stop = 1;
	for (int i = 0; i < 2; i++) {
		abi_worker_wait(&w[i]);
		abi_worker_stop(&w[i]);
	}
	abi_trace_free(&t);
	ABI_OK(close(fd));
}

struct spawner {
	int use_fork;
	volatile pid_t child;
	/* the child's switches by the kernel's count, at its end, or -1 */
	volatile long child_switches;
};

/*
 * The calling thread's context switches so far, as the kernel counts them
 * (/proc/thread-self/status), or -1; no assertion (a worker's or child's).
 * A usleep() whose timer expired before schedule() (a host that stalled
 * the guest) switches nowhere: this is the bound on what mkm can record.
 */
static long own_switches(void)
{
	FILE *f = fopen("/proc/thread-self/status", "r");
	char line[128];
	long n = 0, v;
	int found = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1 ||
		    sscanf(line, "nonvoluntary_ctxt_switches: %ld", &v) == 1) {
			n += v;
			found++;
		}
	fclose(f);
	return found == 2 ? n : -1;
}

static void child_sleeps(struct spawner *s)
{
	for (int i = 0; i < SLEEPS; i++)
		usleep(1000);
	s->child_switches = own_switches();
}

static void *child_thread(void *arg)
{
	struct spawner *s = arg;

	s->child = abi_gettid();
	child_sleeps(s);
	return NULL;
}

static void spawn_fn(struct abi_worker *w)
{
	struct spawner *s = w->arg;

	if (s->use_fork) {
		int report[2];
		if (pipe(report)) {
			w->error = __LINE__;
			return;
		}
		pid_t pid = fork();
		if (pid == 0) {
			child_sleeps(s);
			if (write(report[1], (const void *)&s->child_switches,
				  sizeof(long)) != sizeof(long))
				_exit(1);
			_exit(5);
		}
		close(report[1]);
		if (pid < 0 || read(report[0], (void *)&s->child_switches,
				    sizeof(long)) != sizeof(long))
			w->error = __LINE__;
		close(report[0]);
		if (pid < 0)
			return;
		s->child = pid;
		int status;
		if (waitpid(pid, &status, 0) != pid)
			w->error = __LINE__;
	} else {
		pthread_t th;
		if (pthread_create(&th, NULL, child_thread, s) ||
		    pthread_join(th, NULL))
			w->error = __LINE__;
	}
}

/* Run spawn_fn in a monitored worker; the trace ends with the child reaped. */
static pid_t run_spawner(int use_fork, uint32_t flags, struct abi_trace *t,
			 pid_t *parent, long *child_switches)
{
	struct abi_worker w;
	struct spawner s = { .use_fork = use_fork, .child_switches = -1 };

	abi_worker_start(&w, "abi-parent", -1, spawn_fn, &s);
	abi_wait_blocked(w.tid);
	int fd = abi_open();
	abi_configure(fd, 1u << 20, 0, flags, NULL);
	abi_resume(fd);
	ABI_OK(abi_monitor(fd, w.tid, 77));
	abi_worker_run(&w);
	abi_worker_wait(&w);
	abi_wait_blocked(w.tid);
	if (flags & MKM_CONFIG_INHERIT)
		abi_wait_event(fd, t, s.child, MKM_EV_REAP);
	else
		abi_sleep_ms(50);
	abi_suspend(fd);
	abi_drain(fd, t);
	abi_sort_by_time(t);
	ABI_OK(close(fd));
	abi_worker_stop(&w);
	if (w.error)
		fail_msg("spawner: failed at line %d", w.error);
	*parent = w.tid;
	*child_switches = s.child_switches;
	return s.child;
}

static void check_inherited(const struct abi_trace *t, pid_t parent,
			    pid_t child, uint8_t thread_flag, long switches)
{
	long f = -1;

	for (size_t i = 0; i < t->n; i++)
		if (t->ev[i].type == MKM_EV_FORK &&
		    t->ev[i].arg0 == (uint32_t)child)
			f = (long)i;
	if (f < 0)
		fail_msg("no FORK of child %d", (int)child);
	ABI_EQ(t->ev[f].tid, parent);
	ABI_EQ(t->ev[f].unique_id, 77);
	ABI_EQ(t->ev[f].flags, thread_flag | MKM_EVF_INHERITED);
	/* An inherited thread's unique_id is its tid. */
	ABI_EQ(t->ev[f].arg1, child);

	long wn = abi_find(t, 0, child, MKM_EV_WAKEUP_NEW);
	assert_true(wn >= 0);
	ABI_EQ(t->ev[wn].arg1, parent);
	long n0 = abi_find(t, 0, child, MKM_EV_NAME);
	assert_true(n0 >= 0);
	ABI_EQ(t->ev[n0].flags, 0);
	/* The child has its parent's comm, "abi-parent". */
	ABI_EQ(t->ev[n0].arg0, 'a' | 'b' << 8 | 'i' << 16 | '-' << 24);
	ABI_EQ(t->ev[n0].arg1, 'p' | 'a' << 8 | 'r' << 16 | 'e' << 24);
	/* At least what the kernel counted before the child's last steps. */
	if (switches < 0)
		fail_msg("the child could not read its own switch counts");
	size_t outs = abi_count(t, child, MKM_EV_SWITCH_OUT);
	if (outs < (size_t)switches || !outs)
		fail_msg("child %d: %zu SWITCH_OUT, the kernel counted %ld "
			 "switches",
			 (int)child, outs, switches);
	ABI_EQ(abi_count(t, child, MKM_EV_EXIT), 1);
	ABI_EQ(abi_count(t, child, MKM_EV_REAP), 1);
	for (size_t i = 0; i < t->n; i++)
		if (t->ev[i].tid == (uint32_t)child &&
		    t->ev[i].unique_id != (uint32_t)child)
			fail_msg("event %zu: child %d with unique_id %u", i,
				 (int)child, t->ev[i].unique_id);
	/* Tracked from its creation on: nothing before the fork but its name. */
	for (long i = 0; i < f; i++)
		if (t->ev[i].tid == (uint32_t)child &&
		    t->ev[i].type != MKM_EV_NAME)
			fail_msg("event %ld: %s of the child before its FORK",
				 i, mon_event_name(t->ev[i].type));
}

static void test_inherit_pthread_create_tracked(void **state)
{
	struct abi_trace t = { 0 };
	pid_t parent;
	(void)state;

	long switches;
	pid_t child =
		run_spawner(0, MKM_CONFIG_INHERIT, &t, &parent, &switches);
	check_inherited(&t, parent, child, MKM_EVF_THREAD, switches);
	abi_trace_free(&t);
}

static void test_inherit_fork_child_tracked(void **state)
{
	struct abi_trace t = { 0 };
	pid_t parent;
	(void)state;

	long switches;
	pid_t child =
		run_spawner(1, MKM_CONFIG_INHERIT, &t, &parent, &switches);
	check_inherited(&t, parent, child, 0, switches);
	long e = abi_find(&t, 0, child, MKM_EV_EXIT);
	if (t.ev[e].arg0 != 5 && t.ev[e].arg0 != 5 << 8)
		fail_msg("EXIT arg0 %#x, expected 5 (or 0x500)", t.ev[e].arg0);
	abi_trace_free(&t);
}

static void test_no_inherit_new_thread_untracked(void **state)
{
	struct abi_trace t = { 0 };
	pid_t parent;
	(void)state;

	long switches;
	pid_t child = run_spawner(0, 0, &t, &parent, &switches);
	ABI_EQ(abi_count(&t, child, ABI_ANY), 0);
	/* The parent's FORK, if recorded, does not claim the child. */
	for (size_t i = 0; i < t.n; i++)
		if (t.ev[i].type == MKM_EV_FORK &&
		    (t.ev[i].flags & MKM_EVF_INHERITED))
			fail_msg("event %zu: FORK flagged INHERITED without "
				 "MKM_CONFIG_INHERIT",
				 i);
	assert_true(abi_count(&t, parent, MKM_EV_SWITCH_OUT) > 0);
	abi_trace_free(&t);
}

static void test_no_inherit_fork_child_untracked(void **state)
{
	struct abi_trace t = { 0 };
	pid_t parent;
	(void)state;

	long switches;
	pid_t child = run_spawner(1, 0, &t, &parent, &switches);
	ABI_EQ(abi_count(&t, child, ABI_ANY), 0);
	abi_trace_free(&t);
}

/* Wait (bounded) for one byte on a socket. */
static int recv_byte(int sock, char *c)
{
	struct pollfd p = { .fd = sock, .events = POLLIN };

	if (poll(&p, 1, ABI_WAIT_TIMEOUT * 1000) != 1)
		return -1;
	return read(sock, c, 1) == 1 ? 0 : -1;
}

static void receiver(int sock, pid_t tid)
{
	char buf[CMSG_SPACE(sizeof(int))], c;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov,
			      .msg_iovlen = 1,
			      .msg_control = buf,
			      .msg_controllen = sizeof(buf) };
	struct mkm_version v;
	static struct mkm_event ev[1024];
	uint32_t count = 0;

	CHILD_CHECK(recvmsg(sock, &msg, 0) == 1);
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
	CHILD_CHECK(cm && cm->cmsg_type == SCM_RIGHTS);
	int fd;
	memcpy(&fd, CMSG_DATA(cm), sizeof(fd));
	CHILD_CHECK(recv_byte(sock, &c) == 0 && c == 'c'); /* sender closed */
	CHILD_OK(ioctl(fd, MKM_IOC_VERSION, &v));
	CHILD_CHECK(v.major == MKM_ABI_MAJOR);
	CHILD_OK(ioctl(fd, MKM_IOC_RESUME));
	CHILD_CHECK(write(sock, "r", 1) == 1);
	CHILD_CHECK(recv_byte(sock, &c) == 0 && c == 'd'); /* work done */
	CHILD_OK(ioctl(fd, MKM_IOC_SUSPEND));
	for (;;) {
		ssize_t r = read(fd, ev, sizeof(ev));
		CHILD_CHECK(r >= 0 && r % 32 == 0);
		if (r == 0)
			break;
		for (ssize_t i = 0; i < r / 32; i++)
			if (ev[i].tid == (uint32_t)tid &&
			    ev[i].type == MKM_EV_SWITCH_OUT) {
				CHILD_CHECK(ev[i].unique_id == 88);
				count++;
			}
	}
	CHILD_CHECK(write(sock, &count, sizeof(count)) == sizeof(count));
	_exit(0);
}

static void test_scm_rights_receiver_uses_monitor(void **state)
{
	struct abi_worker w;
	int sv[2];
	char buf[CMSG_SPACE(sizeof(int))], c = 'm';
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov,
			      .msg_iovlen = 1,
			      .msg_control = buf,
			      .msg_controllen = sizeof(buf) };
	uint32_t count = 0;
	(void)state;

	abi_worker_start(&w, "abi-passed", -1, sleep_fn, NULL);
	abi_wait_blocked(w.tid);
	int fd = abi_open();
	ABI_OK(abi_monitor(fd, w.tid, 88));
	ABI_OK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(sv[0]);
		receiver(sv[1], w.tid);
	}
	close(sv[1]);
	memset(buf, 0, sizeof(buf));
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(fd));
	ABI_EQ(sendmsg(sv[0], &msg, 0), 1);
	ABI_OK(close(fd));
	/* The monitor lives on in the receiver: it still tracks w. */
	int fd2 = abi_open();
	ABI_ERR(abi_monitor(fd2, w.tid, 89), EBUSY);
	ABI_OK(close(fd2));
	ABI_EQ(write(sv[0], "c", 1), 1);
	assert_int_equal(recv_byte(sv[0], &c), 0);
	ABI_EQ(c, 'r');
	abi_worker_run(&w);
	abi_worker_wait(&w);
	abi_wait_blocked(w.tid);
	ABI_EQ(write(sv[0], "d", 1), 1);
	struct pollfd p = { .fd = sv[0], .events = POLLIN };
	if (poll(&p, 1, ABI_WAIT_TIMEOUT * 1000) == 1)
		ABI_EQ(read(sv[0], &count, sizeof(count)), sizeof(count));
	abi_expect_child_ok(pid);
	assert_true(count >= SLEEPS);
	/* Its last holder exited: the monitor is gone, w is free. */
	fd2 = abi_open();
	ABI_OK(abi_monitor(fd2, w.tid, 90));
	ABI_OK(close(fd2));
	close(sv[0]);
	abi_worker_stop(&w);
}

/*
 * The thread table grows as a monitor tracks thousands of threads and
 * shrinks as it lets them go (kernel/threads.c), while the sensors keep
 * finding the threads they record: a ping-pong pair tracked throughout is
 * recorded whole between each step.
 */
#define MANY_THREADS 600
#define MANY_STEP 150

static int many_hold[2]; /* the sleepers read it until it closes */

static void *many_sleeper(void *arg)
{
	pid_t *tid = arg;
	char c;

	__atomic_store_n(tid, abi_gettid(), __ATOMIC_RELEASE);
	while (read(many_hold[0], &c, 1) > 0)
		;
	return NULL;
}

/* One run of the pair, all of whose switch-ins must be recorded. */
static void many_check_pair(int fd, struct abi_pingpong *pp)
{
	struct abi_trace t = { 0 };

	abi_drain_nonblock(fd, &t);
	abi_trace_free(&t);
	abi_pingpong_run(pp);
	abi_drain_nonblock(fd, &t);
	assert_true(abi_count(&t, pp->a.tid, MKM_EV_SWITCH_IN) >=
		    (size_t)pp->n);
	assert_true(abi_count(&t, pp->b.tid, MKM_EV_SWITCH_IN) >=
		    (size_t)pp->n);
	abi_trace_free(&t);
}

static void test_many_threads_table_resizes(void **state)
{
	static pthread_t threads[MANY_THREADS];
	static pid_t tids[MANY_THREADS];
	struct abi_pingpong pp;
	pthread_attr_t attr;
	int cpu = abi_cpu_online(0);
	(void)state;

	ABI_OK(pipe(many_hold));
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (int i = 0; i < MANY_THREADS; i++)
		assert_int_equal(pthread_create(&threads[i], &attr,
						many_sleeper, &tids[i]),
				 0);
	pthread_attr_destroy(&attr);
	abi_pingpong_start(&pp, "many", cpu, cpu, 100);

	int fd = abi_open();
	abi_configure(fd, 1 << 20, MKM_CLASS_SCHED, 0, NULL);
	abi_resume(fd);
	ABI_OK(abi_monitor(fd, pp.a.tid, 1));
	ABI_OK(abi_monitor(fd, pp.b.tid, 2));
	for (int i = 0; i < MANY_THREADS; i++) {
		while (!__atomic_load_n(&tids[i], __ATOMIC_ACQUIRE))
			usleep(100);
		ABI_OK(abi_monitor(fd, tids[i], 100 + (uint32_t)i));
		if (i % MANY_STEP == MANY_STEP - 1)
			many_check_pair(fd, &pp);
	}
	for (int i = 0; i < MANY_THREADS; i++) {
		ABI_OK(abi_unmonitor(fd, tids[i]));
		if (i % MANY_STEP == MANY_STEP - 1)
			many_check_pair(fd, &pp);
	}
	/* And back up, to close a monitor with thousands tracked. */
	for (int i = 0; i < MANY_THREADS; i++)
		ABI_OK(abi_monitor(fd, tids[i], 100 + (uint32_t)i));
	many_check_pair(fd, &pp);
	ABI_OK(close(fd));

	abi_pingpong_stop(&pp);
	close(many_hold[1]);
	for (int i = 0; i < MANY_THREADS; i++)
		assert_int_equal(pthread_join(threads[i], NULL), 0);
	close(many_hold[0]);
}

/*
 * The fork probe does not allocate: it takes spare entries, made in
 * advance and topped up by a work item. A burst of new threads (cheaper
 * than processes on the debug kernel) may outrun them; then a FORK says its
 * child is not inherited, and none is lost.
 */
#define BURST_THREADS 200

static void *burst_exit(void *arg)
{
	return arg;
}

static void test_inherit_fork_burst_spares(void **state)
{
	struct abi_trace t = { 0 };
	pthread_t kids[BURST_THREADS + 1];
	size_t forks = 0, inherited = 0;
	(void)state;

	int fd = abi_open();
	abi_configure(fd, 1 << 20, MKM_CLASS_DEFAULT, MKM_CONFIG_INHERIT, NULL);
	abi_resume(fd);
	ABI_OK(abi_monitor(fd, abi_gettid(), 1));
	for (int i = 0; i < BURST_THREADS; i++)
		assert_int_equal(
			pthread_create(&kids[i], NULL, burst_exit, NULL), 0);
	/* Time for the work item to top the spares up: inherited again. */
	abi_sleep_ms(200);
	assert_int_equal(pthread_create(&kids[BURST_THREADS], NULL, burst_exit,
					NULL),
			 0);
	for (int i = 0; i <= BURST_THREADS; i++)
		assert_int_equal(pthread_join(kids[i], NULL), 0);
	ABI_OK(abi_unmonitor(fd, abi_gettid()));
	abi_suspend(fd);
	abi_drain(fd, &t);
	ABI_OK(close(fd));

	long last = -1;
	for (size_t i = 0; i < t.n; i++) {
		const struct mkm_event *e = &t.ev[i];

		if (e->type != MKM_EV_FORK || e->tid != (uint32_t)abi_gettid())
			continue;
		forks++;
		last = (long)i;
		if (e->flags & MKM_EVF_INHERITED) {
			inherited++;
			ABI_EQ(e->arg1, e->arg0);
		} else {
			ABI_EQ(e->arg1, 0);
		}
	}
	fprintf(stderr, "fork burst: %zu new threads, %zu inherited\n", forks,
		inherited);
	ABI_EQ(forks, BURST_THREADS + 1);
	/* Half the spares go before the top-up is even asked for. */
	assert_true(inherited >= 64);
	assert_true(t.ev[last].flags & MKM_EVF_INHERITED);
	abi_trace_free(&t);
}

int main(int argc, char **argv)
{
	abi_main(argc, argv);
	const struct CMUnitTest tests[] = {
		ABI_TEST(test_exit_thread_yields_exit_then_reap),
		ABI_TEST(test_exit_process_reaped_after_waitpid),
		ABI_TEST(test_exec_keeps_tracking),
		ABI_TEST(test_unmonitor_stops_events),
		ABI_TEST(test_inherit_pthread_create_tracked),
		ABI_TEST(test_inherit_fork_child_tracked),
		ABI_TEST(test_no_inherit_new_thread_untracked),
		ABI_TEST(test_no_inherit_fork_child_untracked),
		ABI_TEST(test_scm_rights_receiver_uses_monitor),
		ABI_TEST(test_many_threads_table_resizes),
		ABI_TEST(test_inherit_fork_burst_spares),
		/* Last: under multi-threaded TCG it hung the guest. */
		ABI_TEST(test_close_monitor_while_threads_run),
	};
	return cmocka_run_group_tests_name("threads", tests, NULL, NULL);
}

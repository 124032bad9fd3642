// SPDX-License-Identifier: GPL-2.0
/*
 * test_confine.c - what a monitor may see, beyond tests/abi/test_security.c:
 * PID namespaces (a monitor created inside a new one cannot name a thread
 * outside it, root or not; its events carry the namespace's own tids, for
 * the tracked threads and for their peers; a monitor outside sees the same
 * threads by their outer tids), a process that made itself non-dumpable,
 * and exec: of a binary the user may run but not read (the kernel makes the
 * process non-dumpable), of a setuid binary while the monitor is suspended,
 * and of a setuid binary by a thread that is not the process leader. Each
 * ends the tracking (MKM_EV_DETACH, MKM_DETACH_EXEC when recording) and
 * nothing of the new program is recorded.
 *
 * Unprivileged parts run in forked children as uid/gid 1000 (their
 * monitors have their rights); targets are forked from root and drop to
 * uid 1000 themselves.
 */
#include "stress.h"

#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define USER 1000
#define GROUP 1000
#define CHILD_SKIP 77
#define MAX_EV 65536

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* Read all there is from a nonblocking monitor into ev (a child's). */
static size_t child_drain(int fd, struct mkm_event *ev, size_t n, size_t cap)
{
	for (;;) {
		CHILD_CHECK(n < cap);
		ssize_t r = read(fd, ev + n, (cap - n) * sizeof(*ev));
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			return n;
		CHILD_CHECK(r >= 0 && r % 32 == 0);
		if (r == 0)
			return n;
		n += (size_t)r / 32;
	}
}

/*
 * Drain until an event of unique_id and type is there; its index. Gives up
 * after CHILD_WAIT s, before the test's own wait for the child ends.
 */
#define CHILD_WAIT (ABI_WAIT_TIMEOUT - 5)
static size_t child_wait_event(int fd, struct mkm_event *ev, size_t *n,
			       size_t cap, uint32_t unique_id, int type)
{
	for (int i = 0; i < CHILD_WAIT * 100; i++) {
		*n = child_drain(fd, ev, *n, cap);
		for (size_t k = 0; k < *n; k++)
			if (ev[k].unique_id == unique_id && ev[k].type == type)
				return k;
		abi_sleep_ms(10);
	}
	fprintf(stderr, "child %d: no %s of unique_id %u within %d s\n",
		(int)getpid(), mon_event_name((unsigned int)type), unique_id,
		CHILD_WAIT);
	_exit(1);
}

static int user_open(void)
{
	int fd = open(MKM_DEVICE, O_RDWR | O_NONBLOCK | O_CLOEXEC);

	CHILD_CHECK(fd >= 0);
	return fd;
}

/* Run fn(arg) in a child, as uid/gid 1000 if user; skip on CHILD_SKIP. */
static void in_child(void (*fn)(long), long arg, int user)
{
	abi_allow_unprivileged_open();
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (user)
			CHILD_OK(abi_drop_privileges(USER, GROUP));
		fn(arg);
		_exit(0);
	}
	int status = abi_wait_child(pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) == CHILD_SKIP)
		skip();
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("child %d failed (status %#x): see above", (int)pid,
			 status);
}

/*
 * Run fn(arg) as PID 1 of a new PID namespace (root, in a child of a
 * child); CHILD_SKIP when the kernel has no PID namespaces.
 */
static void in_new_pidns(long arg_fn, long arg)
{
	void (*fn)(long) = (void (*)(long))arg_fn;

	if (unshare(CLONE_NEWPID)) {
		fprintf(stderr, "# unshare(CLONE_NEWPID): %s\n",
			strerror(errno));
		_exit(CHILD_SKIP);
	}
	pid_t g = fork();
	CHILD_CHECK(g >= 0);
	if (g == 0) {
		CHILD_CHECK(getpid() == 1);
		fn(arg);
		_exit(0);
	}
	int status;
	CHILD_CHECK(waitpid(g, &status, 0) == g);
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

/* Our tid as the init namespace's /proc sees it. */
static pid_t outer_tid(void)
{
	char buf[64] = { 0 };

	CHILD_CHECK(readlink("/proc/thread-self", buf, sizeof(buf) - 1) > 0);
	char *t = strstr(buf, "/task/");
	CHILD_CHECK(t);
	return (pid_t)atoi(t + 6);
}

/* A process of uid 1000, asleep until killed: something to name. */
static pid_t user_sleeper(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		CHILD_OK(abi_drop_privileges(USER, GROUP));
		for (;;)
			pause();
	}
	abi_wait_proc_blocked(pid);
	return pid;
}

static void name_outer_tid(long outer)
{
	/* Root in the namespace first, then uid 1000: ESRCH both times. */
	for (int round = 0; round < 2; round++) {
		int fd = user_open();
		CHILD_CHECK(outer > 16); /* not a tid of this namespace */
		CHILD_ERR(abi_monitor(fd, (pid_t)outer, 1), ESRCH);
		CHILD_ERR(abi_unmonitor(fd, (pid_t)outer), ESRCH);
		/* Its own tid works: the refusal is about the name. */
		CHILD_OK(abi_monitor(fd, 1, 2));
		CHILD_OK(abi_unmonitor(fd, 1));
		CHILD_OK(close(fd));
		if (round == 0)
			CHILD_OK(abi_drop_privileges(USER, GROUP));
	}
}

static void run_name_outer_tid(long outer)
{
	in_new_pidns((long)name_outer_tid, outer);
}

static void test_pidns_monitor_cannot_name_outer_tid(void **state)
{
	(void)state;

	/* A thread of the same user, which it could watch if it could name. */
	pid_t target = user_sleeper();
	in_child(run_name_outer_tid, target, 0);
	kill(target, SIGKILL);
	abi_wait_child(target);
}

/*
 * Threads passing a byte around a ring of pipes, rounds times, once the go
 * pipe speaks (or at once if go < 0).
 */
#define RING_THREADS 2
struct ring;
struct ring_arg {
	struct ring *r;
	int me;
};
struct ring {
	int pipes[RING_THREADS][2];
	int go; /* read end: one byte lets one thread start */
	long rounds;
	pthread_t thread[RING_THREADS];
	struct ring_arg arg[RING_THREADS];
	atomic_int tid[RING_THREADS]; /* as gettid() says */
	atomic_int outer[RING_THREADS]; /* in the init namespace */
};

static void *ring_main(void *arg)
{
	struct ring_arg *a = arg;
	struct ring *r = a->r;
	int me = a->me;
	char c;

	atomic_store(&r->outer[me], outer_tid());
	atomic_store(&r->tid[me], gettid_());
	if (read(r->go, &c, 1) != 1)
		return NULL;
	for (long k = 0; k < r->rounds; k++) {
		if (me == 0 && write(r->pipes[1][1], "x", 1) != 1)
			return NULL;
		if (read(r->pipes[me][0], &c, 1) != 1)
			return NULL;
		if (me == 1 && write(r->pipes[0][1], "x", 1) != 1)
			return NULL;
	}
	return NULL;
}

/* Threads passing a byte to and fro rounds times, once go lets them. */
static void ring_start(struct ring *r, long rounds, int go)
{
	memset(r, 0, sizeof(*r));
	r->rounds = rounds;
	r->go = go;
	for (int i = 0; i < RING_THREADS; i++)
		CHILD_OK(pipe2(r->pipes[i], O_CLOEXEC));
	for (int i = 0; i < RING_THREADS; i++) {
		r->arg[i] = (struct ring_arg){ r, i };
		CHILD_OK(pthread_create(&r->thread[i], NULL, ring_main,
					&r->arg[i]));
	}
	for (int i = 0; i < RING_THREADS; i++)
		while (!atomic_load(&r->tid[i]))
			usleep(1000);
}

static void ring_join(struct ring *r)
{
	for (int i = 0; i < RING_THREADS; i++)
		CHILD_OK(pthread_join(r->thread[i], NULL));
}

static int in_set(uint32_t v, const uint32_t *set, int n)
{
	for (int i = 0; i < n; i++)
		if (set[i] == v)
			return 1;
	return 0;
}

/* As PID 1 of a new namespace, uid 1000: watch our own threads. */
static void watch_own_threads(long unused)
{
	static struct mkm_event ev[MAX_EV];
	struct ring r;
	size_t n = 0, woken_by_peer = 0;
	(void)unused;

	int go[2];
	CHILD_OK(abi_drop_privileges(USER, GROUP));
	int fd = user_open();
	/* Unprivileged: the IRQ class needs CAP_PERFMON (paranoid). */
	struct mkm_config cfg = { .ring_bytes = MKM_RING_DEFAULT_BYTES,
				  .classes =
					  (MKM_CLASS_DEFAULT & ~MKM_CLASS_IRQ) |
					  MKM_CLASS_WAKEUP };
	CHILD_OK(ioctl(fd, MKM_IOC_CONFIGURE, &cfg));
	CHILD_OK(pipe2(go, O_CLOEXEC));
	ring_start(&r, 50, go[0]);
	const uint32_t ours[] = { 1, (uint32_t)r.tid[0], (uint32_t)r.tid[1] };
	const uint32_t peers[] = { 0, 1, (uint32_t)r.tid[0],
				   (uint32_t)r.tid[1] };
	CHILD_CHECK(r.tid[0] > 1 && r.tid[0] < 16 && r.tid[1] > 1 &&
		    r.tid[1] < 16);
	CHILD_OK(abi_monitor(fd, 1, 100));
	CHILD_OK(abi_monitor(fd, r.tid[0], 101));
	CHILD_OK(abi_monitor(fd, r.tid[1], 102));
	CHILD_OK(ioctl(fd, MKM_IOC_RESUME));
	CHILD_OK(abi_mark(fd, 7));
	CHILD_CHECK(write(go[1], "gg", 2) == 2);
	ring_join(&r);
	CHILD_OK(ioctl(fd, MKM_IOC_SUSPEND));
	n = child_drain(fd, ev, 0, MAX_EV);
	for (size_t i = 0; i < n; i++) {
		const struct mkm_event *e = &ev[i];
		if (e->type == MKM_EV_LOST)
			continue;
		if (!in_set(e->tid, ours, 3)) {
			fprintf(stderr,
				"event %zu (%s): tid %u, not one of "
				"ours (1, %u, %u)\n",
				i, mon_event_name(e->type), e->tid, ours[1],
				ours[2]);
			_exit(1);
		}
		int peer = e->type == MKM_EV_SWITCH_OUT ||
			   e->type == MKM_EV_SWITCH_IN ||
			   e->type == MKM_EV_WAKING ||
			   e->type == MKM_EV_WAKEUP ||
			   e->type == MKM_EV_WAKEUP_NEW;
		if (peer && !in_set(e->arg1, peers, 4)) {
			fprintf(stderr,
				"event %zu (%s of %u): peer tid %u "
				"outside the namespace's view\n",
				i, mon_event_name(e->type), e->tid, e->arg1);
			_exit(1);
		}
		/* Whichever of the two went to sleep, the other woke it. */
		if (e->type == MKM_EV_WAKING &&
		    ((e->tid == ours[1] && e->arg1 == ours[2]) ||
		     (e->tid == ours[2] && e->arg1 == ours[1])))
			woken_by_peer++;
		if (e->type == MKM_EV_MARK)
			CHILD_CHECK(e->tid == 1 && e->unique_id == 100);
	}
	printf("# in the namespace: %zu events, tids 1, %u, %u; one woken by "
	       "the other %zu times\n",
	       n, ours[1], ours[2], woken_by_peer);
	CHILD_CHECK(woken_by_peer >= 10);
	CHILD_OK(close(fd));
}

static void run_watch_own_threads(long unused)
{
	in_new_pidns((long)watch_own_threads, unused);
}

static void test_pidns_events_carry_namespace_tids(void **state)
{
	(void)state;
	in_child(run_watch_own_threads, 0, 0);
}

/* Pipes between the test and the namespace's PID 1. */
static int to_ns[2], from_ns[2];

static void ring_for_outsider(long unused)
{
	struct ring r;
	pid_t outer[RING_THREADS];
	char c;
	(void)unused;

	ring_start(&r, 40, to_ns[0]);
	for (int i = 0; i < RING_THREADS; i++)
		outer[i] = atomic_load(&r.outer[i]);
	CHILD_CHECK(write(from_ns[1], outer, sizeof(outer)) == sizeof(outer));
	/* The test tracks them, then lets them go (one byte each). */
	ring_join(&r);
	CHILD_CHECK(write(from_ns[1], "d", 1) == 1);
	CHILD_CHECK(read(to_ns[0], &c, 1) >= 0);
}

static void run_ring_for_outsider(long unused)
{
	/* The test's ends: its close of to_ns must reach PID 1 as EOF. */
	close(to_ns[1]);
	close(from_ns[0]);
	in_new_pidns((long)ring_for_outsider, unused);
}

static void test_pidns_outer_monitor_sees_outer_tids(void **state)
{
	struct abi_trace t = { 0 };
	pid_t outer[RING_THREADS];
	char c;
	(void)state;

	ABI_OK(pipe2(to_ns, O_CLOEXEC));
	ABI_OK(pipe2(from_ns, O_CLOEXEC));
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		run_ring_for_outsider(0);
	if (stress_read_full(from_ns[0], outer, sizeof(outer),
			     ABI_WAIT_TIMEOUT * 1000)) {
		int status = abi_wait_child(pid);
		if (WIFEXITED(status) && WEXITSTATUS(status) == CHILD_SKIP)
			skip();
		fail_msg("the namespace's threads did not report (status %#x)",
			 status);
	}
	int fd = abi_open();
	abi_configure(fd, MKM_RING_DEFAULT_BYTES,
		      MKM_CLASS_DEFAULT | MKM_CLASS_WAKEUP, 0, NULL);
	ABI_OK(abi_monitor(fd, outer[0], 200));
	ABI_OK(abi_monitor(fd, outer[1], 201));
	abi_resume(fd);
	ABI_EQ(write(to_ns[1], "gg", 2), 2);
	assert_int_equal(stress_read_full(from_ns[0], &c, 1,
					  ABI_WAIT_TIMEOUT * 1000),
			 0);
	abi_suspend(fd);
	abi_drain(fd, &t);
	close(to_ns[1]);
	abi_expect_child_ok(pid);
	size_t woken = 0;
	for (size_t i = 0; i < t.n; i++) {
		const struct mkm_event *e = &t.ev[i];
		if (e->type == MKM_EV_LOST || e->type == MKM_EV_MARK)
			continue;
		int k = e->tid == (uint32_t)outer[0] ? 0 :
			e->tid == (uint32_t)outer[1] ? 1 :
						       -1;
		if (k < 0)
			fail_msg("event %zu (%s): tid %u, expected the outer "
				 "tid %d or %d",
				 i, mon_event_name(e->type), e->tid, outer[0],
				 outer[1]);
		woken += e->type == MKM_EV_WAKING &&
			 e->arg1 == (uint32_t)outer[!k];
	}
	printf("# outside: %zu events of tids %d and %d, one woken by the "
	       "other %zu times\n",
	       t.n, outer[0], outer[1], woken);
	assert_true(abi_count(&t, outer[0], MKM_EV_SWITCH_OUT) >= 10);
	assert_true(abi_count(&t, outer[1], MKM_EV_SWITCH_OUT) >= 10);
	assert_true(woken >= 10);
	abi_trace_free(&t);
	ABI_OK(close(fd));
	close(to_ns[0]);
	close(from_ns[0]);
	close(from_ns[1]);
}

static atomic_int blocked_tid;

static void *block_forever(void *arg)
{
	char c;

	atomic_store(&blocked_tid, gettid_());
	(void)!read(*(int *)arg, &c, 1);
	return NULL;
}

/* uid 1000: a process that made itself non-dumpable (as ssh-agent does). */
static void nondumpable_self(long unused)
{
	pthread_t t;
	int p[2];
	(void)unused;

	CHILD_OK(pipe(p));
	CHILD_OK(pthread_create(&t, NULL, block_forever, &p[0]));
	while (!atomic_load(&blocked_tid))
		usleep(1000);
	pid_t other = atomic_load(&blocked_tid);
	CHILD_OK(prctl(PR_SET_DUMPABLE, 0, 0, 0, 0));
	int fd = user_open();
	/* Neither this thread nor the other: the process is non-dumpable. */
	CHILD_ERR(abi_monitor(fd, gettid_(), 1), EPERM);
	CHILD_ERR(abi_monitor(fd, other, 2), EPERM);
	/* Dumpable again: allowed. */
	CHILD_OK(prctl(PR_SET_DUMPABLE, 1, 0, 0, 0));
	CHILD_OK(abi_monitor(fd, other, 2));
	CHILD_OK(abi_monitor(fd, gettid_(), 1));
	CHILD_OK(close(fd));
	CHILD_CHECK(write(p[1], "q", 1) == 1);
	CHILD_OK(pthread_join(t, NULL));
}

static void test_nondumpable_own_process_eperm(void **state)
{
	(void)state;
	in_child(nondumpable_self, 0, 1);
}

/* A copy of busybox at / (a /tmp might be nosuid), root's, with mode. */
static void busybox_copy(char *path, size_t size, const char *name, mode_t mode)
{
	snprintf(path, size, "/stress-%s-%d", name, (int)getpid());
	ABI_OK(abi_install_copy("/bin/busybox", path, mode));
}

/*
 * A uid 1000 process that execs path with argv when its go pipe speaks:
 * from its leader, or from a second thread (then tids[1] is that thread).
 */
struct exec_target {
	pid_t pid;
	pid_t tids[2];
	int go; /* write end */
};

struct exec_args {
	const char *path;
	char *const *argv;
	int go;
};

static atomic_int exec_thread_tid;

static void *exec_thread(void *arg)
{
	struct exec_args *a = arg;
	char c;

	atomic_store(&exec_thread_tid, gettid_());
	if (read(a->go, &c, 1) == 1)
		execv(a->path, a->argv);
	_exit(126);
}

static void exec_target_start(struct exec_target *t, const char *path,
			      char *const argv[], int from_thread)
{
	int go[2], info[2];

	ABI_OK(pipe2(go, O_CLOEXEC));
	ABI_OK(pipe2(info, O_CLOEXEC));
	t->pid = fork();
	assert_true(t->pid >= 0);
	if (t->pid == 0) {
		static struct exec_args a;
		pthread_t th;
		pid_t tids[2] = { getpid(), 0 };
		char c;
		CHILD_OK(abi_drop_privileges(USER, GROUP));
		a = (struct exec_args){ path, argv, go[0] };
		if (from_thread) {
			static int never[2];
			CHILD_OK(pipe(never));
			CHILD_OK(pthread_create(&th, NULL, exec_thread, &a));
			while (!(tids[1] = atomic_load(&exec_thread_tid)))
				usleep(1000);
			CHILD_CHECK(write(info[1], tids, sizeof(tids)) ==
				    sizeof(tids));
			/* The leader waits; the exec takes it away. */
			(void)!read(never[0], &c, 1);
			_exit(125);
		}
		CHILD_CHECK(write(info[1], tids, sizeof(tids)) == sizeof(tids));
		if (read(go[0], &c, 1) == 1)
			execv(path, argv);
		_exit(126);
	}
	close(go[0]);
	close(info[1]);
	t->go = go[1];
	assert_int_equal(stress_read_full(info[0], t->tids, sizeof(t->tids),
					  ABI_WAIT_TIMEOUT * 1000),
			 0);
	close(info[0]);
	abi_wait_proc_blocked(t->pid);
}

static struct exec_target xt;

/* uid 1000: watch xt exec an execute-only binary. */
static void watch_exec_unreadable(long unused)
{
	static struct mkm_event ev[MAX_EV];
	size_t n = 0;
	(void)unused;

	int fd = user_open();
	CHILD_OK(ioctl(fd, MKM_IOC_RESUME));
	CHILD_OK(abi_monitor(fd, xt.pid, 31));
	CHILD_CHECK(write(xt.go, "g", 1) == 1);
	size_t d = child_wait_event(fd, ev, &n, MAX_EV, 31, MKM_EV_DETACH);
	CHILD_CHECK(ev[d].arg0 == MKM_DETACH_EXEC);
	CHILD_CHECK(ev[d].tid == (uint32_t)xt.pid);
	/* The program runs on (a 1 s sleep): none of it is recorded. */
	usleep(200000);
	CHILD_OK(ioctl(fd, MKM_IOC_SUSPEND));
	n = child_drain(fd, ev, n, MAX_EV);
	for (size_t i = 0; i < n; i++)
		if (ev[i].unique_id == 31 && i != d)
			CHILD_CHECK(ev[i].time_ns <= ev[d].time_ns &&
				    ev[i].type != MKM_EV_EXEC);
	/* It cannot be tracked again: exec made it non-dumpable. */
	CHILD_ERR(abi_unmonitor(fd, xt.pid), ENOENT);
	CHILD_ERR(abi_monitor(fd, xt.pid, 32), EPERM);
	CHILD_OK(close(fd));
}

static void test_exec_unreadable_binary_detaches(void **state)
{
	char path[64];
	char *const argv[] = { (char *)"sleep", (char *)"1", NULL };
	(void)state;

	abi_allow_unprivileged_open();
	/* Others may execute it, not read it. */
	busybox_copy(path, sizeof(path), "xonly", 0711);
	exec_target_start(&xt, path, argv, 0);
	in_child(watch_exec_unreadable, 0, 1);
	close(xt.go);
	int status = abi_wait_child(xt.pid);
	unlink(path);
	/* The exec worked and the program ran. */
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* The comm of pid, from /proc/<pid>/stat. */
static void proc_comm(pid_t pid, char *out, size_t size)
{
	char path[64], buf[512] = { 0 };

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int f = open(path, O_RDONLY | O_CLOEXEC);
	out[0] = 0;
	if (f < 0)
		return;
	ssize_t r = read(f, buf, sizeof(buf) - 1);
	close(f);
	char *a = r > 0 ? strchr(buf, '(') : NULL;
	char *b = r > 0 ? strrchr(buf, ')') : NULL;
	if (a && b && b > a)
		snprintf(out, size, "%.*s", (int)(b - a - 1), a + 1);
}

/* uid 1000: xt execs a setuid binary while the monitor is suspended. */
static void watch_setuid_exec_suspended(long unused)
{
	static struct mkm_event ev[MAX_EV];
	char before[32], now[32];
	(void)unused;

	int fd = user_open();
	CHILD_OK(abi_monitor(fd, xt.pid, 41));
	proc_comm(xt.pid, before, sizeof(before));
	CHILD_CHECK(write(xt.go, "g", 1) == 1);
	/* The exec shows in the comm: the binary's name. */
	for (int i = 0;; i++) {
		proc_comm(xt.pid, now, sizeof(now));
		if (strcmp(now, before))
			break;
		CHILD_CHECK(i < ABI_WAIT_TIMEOUT * 200);
		usleep(5000);
	}
	/* Resumed after the exec: the setuid program stays unwatched. */
	CHILD_OK(ioctl(fd, MKM_IOC_RESUME));
	usleep(400000);
	CHILD_OK(ioctl(fd, MKM_IOC_SUSPEND));
	size_t n = child_drain(fd, ev, 0, MAX_EV);
	for (size_t i = 0; i < n; i++)
		if (ev[i].unique_id == 41 || ev[i].tid == (uint32_t)xt.pid) {
			fprintf(stderr, "event %zu: %s of tid %u uid %u\n", i,
				mon_event_name(ev[i].type), ev[i].tid,
				ev[i].unique_id);
			_exit(1);
		}
	CHILD_ERR(abi_unmonitor(fd, xt.pid), ENOENT);
	CHILD_ERR(abi_monitor(fd, xt.pid, 42), EPERM);
	CHILD_OK(close(fd));
}

static void test_exec_setuid_while_suspended_not_resumed(void **state)
{
	char path[64];
	/* A program that keeps switching: it would show if tracked. */
	char *const argv[] = { (char *)"sh", (char *)"-c",
			       (char *)"i=0; while [ $i -lt 20 ]; do "
				       "sleep 0.05; i=$((i+1)); done",
			       NULL };
	(void)state;

	abi_allow_unprivileged_open();
	busybox_copy(path, sizeof(path), "suid1", 04755);
	exec_target_start(&xt, path, argv, 0);
	in_child(watch_setuid_exec_suspended, 0, 1);
	close(xt.go);
	int status = abi_wait_child(xt.pid);
	unlink(path);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* uid 1000: the second thread of xt execs a setuid binary. */
static void watch_setuid_exec_thread(long unused)
{
	static struct mkm_event ev[MAX_EV];
	size_t n = 0;
	(void)unused;

	int fd = user_open();
	CHILD_OK(ioctl(fd, MKM_IOC_RESUME));
	CHILD_OK(abi_monitor(fd, xt.tids[0], 51));
	CHILD_OK(abi_monitor(fd, xt.tids[1], 52));
	CHILD_CHECK(write(xt.go, "g", 1) == 1);
	size_t d = child_wait_event(fd, ev, &n, MAX_EV, 52, MKM_EV_DETACH);
	CHILD_CHECK(ev[d].arg0 == MKM_DETACH_EXEC);
	/* The leader was killed by the exec: it exits and is reaped. */
	size_t x = child_wait_event(fd, ev, &n, MAX_EV, 51, MKM_EV_EXIT);
	size_t rp = child_wait_event(fd, ev, &n, MAX_EV, 51, MKM_EV_REAP);
	CHILD_CHECK(ev[x].time_ns <= ev[rp].time_ns);
	usleep(300000);
	CHILD_OK(ioctl(fd, MKM_IOC_SUSPEND));
	n = child_drain(fd, ev, n, MAX_EV);
	for (size_t i = 0; i < n; i++) {
		/* Nothing after each one's end. */
		if (ev[i].unique_id == 52 && i != d)
			CHILD_CHECK(ev[i].time_ns <= ev[d].time_ns);
		if (ev[i].unique_id == 51 && i != rp)
			CHILD_CHECK(ev[i].time_ns <= ev[rp].time_ns &&
				    ev[i].type != MKM_EV_REAP);
	}
	/* The program now runs under the leader's tid, untracked. */
	CHILD_ERR(abi_unmonitor(fd, xt.tids[0]), ENOENT);
	CHILD_ERR(abi_unmonitor(fd, xt.tids[1]), ESRCH);
	CHILD_OK(close(fd));
}

static void test_exec_setuid_from_thread_detaches(void **state)
{
	char path[64];
	char *const argv[] = { (char *)"sleep", (char *)"1", NULL };
	(void)state;

	abi_allow_unprivileged_open();
	busybox_copy(path, sizeof(path), "suid2", 04755);
	exec_target_start(&xt, path, argv, 1);
	in_child(watch_setuid_exec_thread, 0, 1);
	close(xt.go);
	int status = abi_wait_child(xt.pid);
	unlink(path);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(int argc, char **argv)
{
	stress_main(argc, argv, 60);
	const struct CMUnitTest tests[] = {
		STRESS_TEST(test_pidns_monitor_cannot_name_outer_tid),
		STRESS_TEST(test_pidns_events_carry_namespace_tids),
		STRESS_TEST(test_pidns_outer_monitor_sees_outer_tids),
		STRESS_TEST(test_nondumpable_own_process_eperm),
		STRESS_TEST(test_exec_unreadable_binary_detaches),
		STRESS_TEST(test_exec_setuid_while_suspended_not_resumed),
		STRESS_TEST(test_exec_setuid_from_thread_detaches),
		STRESS_TEST(test_kernel_log_clean),
	};
	return cmocka_run_group_tests_name("confine", tests, NULL, NULL);
}

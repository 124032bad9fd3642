// SPDX-License-Identifier: GPL-2.0
/*
 * test_unload.c - lifetimes: of a tid, and of the module.
 *
 * A tracked thread exits and is reaped; its tid is then given (through
 * /proc/sys/kernel/ns_last_pid, or by shrinking pid_max and creating threads
 * until it comes round again) to a new thread of another user, which runs
 * while the monitor records: it must produce no event. Both ways round: a
 * root monitor and a uid 1000 newcomer, a uid 1000 monitor and a root one.
 *
 * Then MKM_UNLOAD_LOOPS (default 8) rounds of load (finit_module of
 * /mkm.ko), record, close, unload (delete_module), while threads switch,
 * processes fork and exit, and another thread keeps opening /dev/mkm and
 * using what it gets (open fails cleanly while the module is away). Unload
 * must be refused while a monitor exists anywhere: an fd of this process,
 * one held only by a child, one in flight in a unix socket. The module is
 * left loaded, as the guest's init expects.
 *
 * This binary runs last of the VM tests: it unloads the module the others
 * use.
 */
#include "stress.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define USER 1000
#define GROUP 1000
#define MAX_EV 65536
#define V_ID 0xc0deu

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static int write_file(const char *path, const char *s)
{
	int f = open(path, O_WRONLY | O_CLOEXEC);

	if (f < 0)
		return -1;
	ssize_t r = write(f, s, strlen(s));
	close(f);
	return r == (ssize_t)strlen(s) ? 0 : -1;
}

static long read_long(const char *path)
{
	char buf[64] = { 0 };
	int f = open(path, O_RDONLY | O_CLOEXEC);

	if (f < 0)
		return -1;
	ssize_t r = read(f, buf, sizeof(buf) - 1);
	close(f);
	return r > 0 ? strtol(buf, NULL, 10) : -1;
}

static long saved_pid_max = -1;

static void restore_pid_max(void)
{
	char buf[32];

	if (saved_pid_max < 0)
		return;
	snprintf(buf, sizeof(buf), "%ld", saved_pid_max);
	if (write_file("/proc/sys/kernel/pid_max", buf))
		fprintf(stderr, "# could not restore pid_max %ld\n",
			saved_pid_max);
	saved_pid_max = -1;
}

/* Leave the module loaded and pid_max as found, whatever happened. */
static void bg_stop_all(void);

static int unload_teardown(void **state)
{
	bg_stop_all();
	restore_pid_max();
	if (!stress_module_loaded() && stress_module_load())
		fprintf(stderr, "# reloading mkm.ko: %s\n", strerror(errno));
	return abi_test_teardown(state);
}

#define UNLOAD_TEST(f) \
	cmocka_unit_test_setup_teardown(f, stress_setup, unload_teardown)

static void send_byte(int fd, char c)
{
	CHILD_CHECK(write(fd, &c, 1) == 1);
}

static char recv_byte(int fd)
{
	char c;

	CHILD_CHECK(stress_read_full(fd, &c, 1, ABI_WAIT_TIMEOUT * 1000) == 0);
	return c;
}

struct pipes {
	int to[2], from[2];
};

/* The tracked thread: reports, runs a little, exits when told. */
static int v_cmd[2];
static atomic_int v_tid;

static void *v_main(void *arg)
{
	char c;
	(void)arg;

	atomic_store(&v_tid, gettid_());
	if (read(v_cmd[0], &c, 1) != 1)
		return NULL;
	for (int i = 0; i < 20; i++) {
		sched_yield();
		usleep(200);
	}
	return NULL;
}

/*
 * The owner: its monitor tracks a thread of its own, which exits and is
 * reaped; after the tid's reuse, nothing recorded carries it.
 */
static void owner_main(struct pipes *p, uid_t uid)
{
	static struct mkm_event ev[MAX_EV];
	size_t n = 0, reap = (size_t)-1;
	pthread_t v;

	if (uid)
		CHILD_OK(abi_drop_privileges(uid, uid));
	int fd = open(MKM_DEVICE, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	CHILD_CHECK(fd >= 0);
	CHILD_OK(ioctl(fd, MKM_IOC_RESUME));
	CHILD_CHECK(recv_byte(p->to[0]) == 'c');
	CHILD_OK(pipe(v_cmd));
	CHILD_OK(pthread_create(&v, NULL, v_main, NULL));
	while (!atomic_load(&v_tid))
		usleep(500);
	pid_t t = atomic_load(&v_tid);
	CHILD_OK(abi_monitor(fd, t, V_ID));
	send_byte(v_cmd[1], 'r');
	CHILD_OK(pthread_join(v, NULL));
	/* Exited and released: its last event is the REAP. */
	for (int i = 0; i < ABI_WAIT_TIMEOUT * 100 && reap == (size_t)-1; i++) {
		for (;;) {
			CHILD_CHECK(n < MAX_EV);
			ssize_t r = read(fd, ev + n, (MAX_EV - n) * 32);
			if (r <= 0)
				break;
			n += (size_t)r / 32;
		}
		for (size_t k = 0; k < n; k++)
			if (ev[k].unique_id == V_ID &&
			    ev[k].type == MKM_EV_REAP)
				reap = k;
		if (reap == (size_t)-1)
			usleep(10000);
	}
	CHILD_CHECK(reap != (size_t)-1);
	CHILD_CHECK(ev[reap].tid == (uint32_t)t);
	CHILD_CHECK(write(p->from[1], &t, sizeof(t)) == sizeof(t));
	/* The tid is someone else's now, and runs. */
	CHILD_CHECK(recv_byte(p->to[0]) == 'k');
	/* Whoever has the tid now, this monitor does not track it. */
	CHILD_CHECK(abi_unmonitor(fd, t) == -1 &&
		    (errno == ESRCH || errno == ENOENT));
	CHILD_OK(ioctl(fd, MKM_IOC_SUSPEND));
	for (;;) {
		CHILD_CHECK(n < MAX_EV);
		ssize_t r = read(fd, ev + n, (MAX_EV - n) * 32);
		CHILD_CHECK(r >= 0);
		if (r == 0)
			break;
		n += (size_t)r / 32;
	}
	size_t before = 0;
	for (size_t k = 0; k < n; k++) {
		if (ev[k].type == MKM_EV_LOST)
			continue;
		if (ev[k].unique_id == V_ID && k != reap)
			before++;
		if ((ev[k].unique_id == V_ID || ev[k].tid == (uint32_t)t) &&
		    ev[k].time_ns > ev[reap].time_ns) {
			fprintf(stderr,
				"event %zu after the reap: %s tid %u "
				"unique_id %#x\n",
				k, mon_event_name(ev[k].type), ev[k].tid,
				ev[k].unique_id);
			_exit(1);
		}
	}
	printf("# owner uid %u: tid %d had %zu events, then its REAP; none "
	       "after (%zu events in all)\n",
	       (unsigned int)uid, (int)t, before, n);
	CHILD_CHECK(before >= 3); /* ATTACH, NAME x2, ... */
	_exit(0);
}

/* The newcomer's thread: reports its tid, works if it is the one. */
static int w_cmd[2];
static atomic_int w_tid;

static void *w_main(void *arg)
{
	char c;
	(void)arg;

	atomic_store(&w_tid, gettid_());
	if (read(w_cmd[0], &c, 1) != 1 || c != 'y')
		return NULL;
	for (int i = 0; i < 50; i++) {
		sched_yield();
		usleep(500);
	}
	return NULL;
}

/* The newcomer: creates threads, when told, until one gets the tid. */
static void reuser_main(struct pipes *p, uid_t uid)
{
	if (uid)
		CHILD_OK(abi_drop_privileges(uid, uid));
	CHILD_OK(pipe(w_cmd));
	for (;;) {
		char c = recv_byte(p->to[0]);
		if (c == 'q')
			_exit(0);
		CHILD_CHECK(c == 'g');
		pthread_t w;
		atomic_store(&w_tid, 0);
		CHILD_OK(pthread_create(&w, NULL, w_main, NULL));
		while (!atomic_load(&w_tid))
			usleep(200);
		pid_t tid = atomic_load(&w_tid);
		CHILD_CHECK(write(p->from[1], &tid, sizeof(tid)) ==
			    sizeof(tid));
		c = recv_byte(p->to[0]);
		send_byte(w_cmd[1], c);
		CHILD_OK(pthread_join(w, NULL));
		if (c == 'y') {
			send_byte(p->from[1], 'D');
			_exit(0);
		}
	}
}

static pid_t spawn(void (*fn)(struct pipes *, uid_t), struct pipes *p,
		   uid_t uid)
{
	ABI_OK(pipe2(p->to, O_CLOEXEC));
	ABI_OK(pipe2(p->from, O_CLOEXEC));
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		fn(p, uid);
	return pid;
}

static void reuse_tid(uid_t owner_uid, uid_t reuser_uid)
{
	struct pipes o, u;
	pid_t t, got = 0;
	char c;
	int attempts = 0;

	abi_allow_unprivileged_open();
	pid_t owner = spawn(owner_main, &o, owner_uid);
	pid_t reuser = spawn(reuser_main, &u, reuser_uid);
	int ns_last = access("/proc/sys/kernel/ns_last_pid", W_OK) == 0;
	if (!ns_last) {
		/*
		 * Once past RESERVED_PIDS (300), pids wrap to 300: with
		 * pid_max 400 they come from [300, 400), and t comes round.
		 */
		pid_t last = 0;
		while (last < 300) {
			last = fork();
			assert_true(last >= 0);
			if (last == 0)
				_exit(0);
			abi_wait_child(last);
		}
		saved_pid_max = read_long("/proc/sys/kernel/pid_max");
		assert_true(saved_pid_max > 400);
		ABI_OK(write_file("/proc/sys/kernel/pid_max", "400"));
	}
	ABI_EQ(write(o.to[1], "c", 1), 1);
	assert_int_equal(stress_read_full(o.from[0], &t, sizeof(t),
					  ABI_WAIT_TIMEOUT * 1000),
			 0);
	while (got != t && attempts++ < 400) {
		if (ns_last) {
			char buf[32];
			snprintf(buf, sizeof(buf), "%d", (int)t - 1);
			ABI_OK(write_file("/proc/sys/kernel/ns_last_pid", buf));
		}
		ABI_EQ(write(u.to[1], "g", 1), 1);
		assert_int_equal(stress_read_full(u.from[0], &got, sizeof(got),
						  ABI_WAIT_TIMEOUT * 1000),
				 0);
		ABI_EQ(write(u.to[1], got == t ? "y" : "n", 1), 1);
	}
	restore_pid_max();
	if (got != t) {
		ABI_EQ(write(u.to[1], "q", 1), 1);
		abi_expect_child_ok(reuser);
		kill(owner, SIGKILL);
		abi_wait_child(owner);
		fail_msg("tid %d did not come round in %d threads", (int)t,
			 attempts);
	}
	assert_int_equal(
		stress_read_full(u.from[0], &c, 1, ABI_WAIT_TIMEOUT * 1000), 0);
	ABI_EQ(c, 'D');
	abi_expect_child_ok(reuser);
	printf("# tid %d reused by a thread of uid %u after %d thread(s), "
	       "through %s\n",
	       (int)t, (unsigned int)reuser_uid, attempts,
	       ns_last ? "ns_last_pid" : "a small pid_max");
	ABI_EQ(write(o.to[1], "k", 1), 1);
	abi_expect_child_ok(owner);
	for (int i = 0; i < 2; i++) {
		close(i ? u.to[1] : o.to[1]);
		close(i ? u.to[0] : o.to[0]);
		close(i ? u.from[1] : o.from[1]);
		close(i ? u.from[0] : o.from[0]);
	}
}

static void test_reused_tid_of_other_user_untracked(void **state)
{
	(void)state;
	/* A root monitor; the tid goes to uid 1000. */
	reuse_tid(0, USER);
	/* A uid 1000 monitor; the tid goes to root. */
	reuse_tid(USER, 0);
}

/* Load in the background: switching threads, forking processes. */
static atomic_int bg_stop;
static int bg_pipe[2][2];
static pid_t bg_tid[3];
static atomic_long bg_forks, opens_ok, opens_refused;
/* The opener stops opening while set, and says so in bg_opener_idle. */
static atomic_int bg_opener_pause, bg_opener_idle;
static pthread_t bg[4];
static int bg_running;

static void bg_stop_all(void)
{
	if (!bg_running)
		return;
	atomic_store(&bg_stop, 1);
	for (int i = 0; i < 2; i++)
		(void)!write(bg_pipe[i][1], "x", 1);
	for (int i = 0; i < 4; i++)
		pthread_join(bg[i], NULL);
	bg_running = 0;
}

static void *bg_pingpong(void *arg)
{
	int me = (int)(uintptr_t)arg;
	char c = 'p';

	abi_pin_self(abi_cpu_online(me % abi_nr_cpus_online()));
	bg_tid[me] = gettid_();
	if (me == 0 && write(bg_pipe[1][1], &c, 1) != 1)
		return NULL;
	while (!atomic_load(&bg_stop))
		if (read(bg_pipe[me][0], &c, 1) != 1 ||
		    write(bg_pipe[!me][1], &c, 1) != 1)
			break;
	return NULL;
}

static void *bg_forker(void *arg)
{
	(void)arg;
	bg_tid[2] = gettid_();
	while (!atomic_load(&bg_stop)) {
		pid_t pid = fork();
		if (pid == 0) {
			usleep(500);
			_exit(0);
		}
		if (pid > 0) {
			int st;
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			atomic_fetch_add(&bg_forks, 1);
		}
		usleep(2000);
	}
	return NULL;
}

/* Opens /dev/mkm again and again, racing the unload. */
static void *bg_opener(void *arg)
{
	static const int refused[] = { ENOENT, ENODEV, ENXIO, 0 };
	static const int ok_monitor[] = { EBUSY, EEXIST, 0 };
	struct stress_rng r;
	struct mkm_event ev[64];
	(void)arg;

	stress_rng_init(&r, 7);
	while (!atomic_load(&bg_stop)) {
		if (atomic_load(&bg_opener_pause)) {
			atomic_store(&bg_opener_idle, 1);
			usleep(1000);
			continue;
		}
		atomic_store(&bg_opener_idle, 0);
		int fd = open(MKM_DEVICE, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0) {
			if (!stress_errno_in(errno, refused))
				stress_error("open %s: %s", MKM_DEVICE,
					     strerror(errno));
			atomic_fetch_add(&opens_refused, 1);
			usleep(1000);
			continue;
		}
		atomic_fetch_add(&opens_ok, 1);
		int rc = abi_monitor(fd, gettid_(), 9);
		if (rc && !stress_errno_in(errno, ok_monitor))
			stress_error("monitor: %s", strerror(errno));
		if (ioctl(fd, MKM_IOC_RESUME) || abi_mark(fd, 1))
			stress_error("resume/mark: %s", strerror(errno));
		if (read(fd, ev, sizeof(ev)) < 0 && errno != EAGAIN)
			stress_error("read: %s", strerror(errno));
		close(fd);
		usleep(1000 + (unsigned int)stress_below(&r, 3000));
	}
	return NULL;
}

/* A thread that lives until its pipe speaks, then exits. */
static void *short_lived(void *arg)
{
	int *p = arg;
	char c;

	p[2] = gettid_();
	(void)!read(p[0], &c, 1);
	return NULL;
}

/* delete_module while a monitor exists: refused, with EWOULDBLOCK. */
static void expect_unload_refused(const char *holder)
{
	errno = 0;
	int rc = stress_module_unload(O_NONBLOCK);
	int e = errno;
	if (rc != -1 || (e != EWOULDBLOCK && e != EBUSY))
		fail_msg("delete_module with a monitor %s: %d, errno %d (%s); "
			 "expected EWOULDBLOCK",
			 holder, rc, e, strerror(e));
	assert_true(stress_module_loaded());
}

/*
 * Unload: first racing the background opener for up to 300 tries (it
 * holds a monitor most of the time), then with it paused, when nothing
 * may hold the module any more. Returns the tries.
 */
static int unload_retrying(int *raced)
{
	int i;

	*raced = 1;
	for (i = 0; i < 300; i++) {
		if (stress_module_unload(O_NONBLOCK) == 0)
			return i;
		if (errno != EWOULDBLOCK)
			fail_msg("delete_module: %s", strerror(errno));
		usleep(1000);
	}
	*raced = 0;
	atomic_store(&bg_opener_pause, 1);
	while (!atomic_load(&bg_opener_idle))
		usleep(1000);
	for (; i < 5300; i++) {
		if (stress_module_unload(O_NONBLOCK) == 0)
			break;
		if (errno != EWOULDBLOCK)
			fail_msg("delete_module: %s", strerror(errno));
		usleep(1000);
	}
	atomic_store(&bg_opener_pause, 0);
	if (i == 5300)
		fail_msg("delete_module refused for 5 s after every monitor "
			 "was closed (refcnt %d)",
			 stress_module_refcnt());
	return i;
}

static void test_load_record_unload_under_load(void **state)
{
	long loops = stress_env("MKM_UNLOAD_LOOPS", 8);
	long events = 0, retries = 0, won_race = 0;
	(void)state;

	stress_timeout = (unsigned int)(60 + 20 * loops);
	alarm(stress_timeout);
	ABI_OK(pipe2(bg_pipe[0], O_CLOEXEC));
	ABI_OK(pipe2(bg_pipe[1], O_CLOEXEC));
	ABI_OK(pthread_create(&bg[0], NULL, bg_pingpong, (void *)0));
	ABI_OK(pthread_create(&bg[1], NULL, bg_pingpong, (void *)1));
	ABI_OK(pthread_create(&bg[2], NULL, bg_forker, NULL));
	ABI_OK(pthread_create(&bg[3], NULL, bg_opener, NULL));
	bg_running = 1;
	while (!bg_tid[0] || !bg_tid[1] || !bg_tid[2])
		abi_sleep_ms(1);

	uint64_t start = abi_now_ns();
	for (long i = 0; i < loops; i++) {
		struct abi_trace t = { 0 };
		struct mkm_config c;
		pthread_t sl;

		if (!stress_module_loaded()) {
			ABI_OK(stress_module_load());
			assert_true(stress_module_loaded());
		}
		/* Loaded twice: refused, the first stays. */
		ABI_ERR(stress_module_load(), EEXIST);
		int fd = abi_open_flags(O_RDWR | O_NONBLOCK | O_CLOEXEC);
		memset(&c, 0, sizeof(c));
		c.ring_bytes = 65536;
		c.flags = MKM_CONFIG_INHERIT;
		ABI_OK(ioctl(fd, MKM_IOC_CONFIGURE, &c));
		for (int k = 0; k < 3; k++)
			ABI_OK(abi_monitor(fd, bg_tid[k], 10 + k));
		int slp[3] = { -1, -1, 0 };
		ABI_OK(pipe(slp));
		ABI_OK(pthread_create(&sl, NULL, short_lived, slp));
		while (!((volatile int *)slp)[2])
			abi_sleep_ms(1);
		ABI_OK(abi_monitor(fd, slp[2], 13));
		abi_resume(fd);
		abi_sleep_ms(100);
		/*
		 * A tracked thread exits just before the monitor closes and
		 * the module goes: its entry is freed after an RCU grace
		 * period, which unload must wait for.
		 */
		ABI_EQ(write(slp[1], "x", 1), 1);
		ABI_OK(pthread_join(sl, NULL));
		close(slp[0]);
		close(slp[1]);
		abi_drain_nonblock(fd, &t);
		if (abi_count(&t, bg_tid[0], MKM_EV_SWITCH_OUT) == 0 ||
		    abi_count(&t, bg_tid[1], MKM_EV_SWITCH_OUT) == 0)
			fail_msg("round %ld: %zu events, none of the "
				 "ping-pong",
				 i, t.n);
		events += (long)t.n;
		abi_trace_free(&t);

		expect_unload_refused("open here");
		/* Its entry too is freed after a grace period. */
		ABI_OK(abi_unmonitor(fd, bg_tid[0]));
		switch (i % 3) {
		case 0:
			ABI_OK(close(fd));
			break;
		case 1: {
			/* Only a child holds it; it exits when told. */
			int go[2];
			ABI_OK(pipe(go));
			pid_t pid = fork();
			assert_true(pid >= 0);
			if (pid == 0) {
				char ch;
				close(go[1]);
				(void)!read(go[0], &ch, 1);
				_exit(0);
			}
			close(go[0]);
			ABI_OK(close(fd));
			expect_unload_refused("held by a child");
			close(go[1]);
			abi_expect_child_ok(pid);
			break;
		}
		default: {
			/* In flight in a unix socket, closed unreceived. */
			int sv[2];
			ABI_OK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC,
					  0, sv));
			assert_int_equal(stress_send_fd(sv[0], fd, 'm'), 0);
			ABI_OK(close(fd));
			expect_unload_refused("in flight in a socket");
			close(sv[0]);
			close(sv[1]);
			break;
		}
		}
		int raced;
		retries += unload_retrying(&raced);
		won_race += raced;
		assert_false(stress_module_loaded());
		assert_int_equal(access(MKM_DEVICE, F_OK), -1);
		stress_check();
	}
	double took = (double)(abi_now_ns() - start) / 1e9;

	/* Leave it loaded and working. */
	ABI_OK(stress_module_load());
	int fd = abi_open();
	abi_resume(fd);
	ABI_OK(abi_mark(fd, 1));
	ABI_OK(close(fd));
	bg_stop_all();
	stress_check();
	printf("# %ld rounds of load, record, close, unload in %.1f s: %ld "
	       "events recorded; unload tried %ld times, %ld rounds beat the "
	       "racing opener (which opened %ld monitors and was refused %ld "
	       "times), the others paused it; %ld forks meanwhile\n",
	       loops, took, events, retries, won_race, atomic_load(&opens_ok),
	       atomic_load(&opens_refused), atomic_load(&bg_forks));
}

int main(int argc, char **argv)
{
	stress_main(argc, argv, 120);
	const struct CMUnitTest tests[] = {
		UNLOAD_TEST(test_reused_tid_of_other_user_untracked),
		UNLOAD_TEST(test_load_record_unload_under_load),
		STRESS_TEST(test_kernel_log_clean),
	};
	return cmocka_run_group_tests_name("unload", tests, NULL, NULL);
}

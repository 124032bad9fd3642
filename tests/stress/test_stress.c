// SPDX-License-Identifier: GPL-2.0
/*
 * test_stress.c - many threads and several monitors at once, for a bounded
 * time (MKM_STRESS_SECONDS, default 45): workers call thread_monitor,
 * thread_unmonitor, resume, suspend, configure, stats, mark, read, poll and
 * close/reopen on four shared monitors at random, and map their rings
 * (kept across the close, copied by a fork after MADV_DOFORK, split by a
 * partial munmap) while others configure and close; victim threads and
 * processes are created, exit, fork and exec (/bin/busybox true, or this
 * binary) meanwhile; monitor fds go to another process with SCM_RIGHTS and
 * to forked children, some of which exec with the fd open. Every call must
 * succeed or fail with an errno from its documented set, every record read
 * must keep the per-CPU order (seq, time), and afterwards no monitor is
 * left: the module's reference count is 0, every victim can be tracked
 * again, and no memory leaked (kmemleak where the kernel has it, MemAvailable
 * around many large monitors everywhere).
 *
 * Monitors live in slots. A worker takes a private dup of a slot's fd, so a
 * slot can be closed and reopened while other threads still use (and then
 * last-close) the old monitor. Each slot has one reader thread doing blocking
 * reads, woken by SIGUSR1 now and then (EINTR); it checks the stream exactly
 * unless someone else read from the same monitor (then seq need only grow).
 */
#include "stress.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#define NSLOTS 4
#define NWORKERS 4
#define NVICTIMS 3
#define TIDTAB 64
#define READ_MAX (16 * 1024)

enum op {
	OP_MONITOR,
	OP_UNMONITOR,
	OP_RESUME,
	OP_SUSPEND,
	OP_READ,
	OP_CONFIGURE,
	OP_STATS,
	OP_MARK,
	OP_POLL,
	OP_REOPEN,
	OP_PASS,
	OP_FORK_FD,
	OP_MAP,
	OP_N
};

static const char *const op_names[OP_N] = {
	"thread_monitor", "thread_unmonitor", "resume",	    "suspend",
	"read",		  "configure",	      "stats",	    "mark",
	"poll",		  "close+open",	      "SCM_RIGHTS", "fork with fd",
	"mmap",
};

/* Relative frequency of each operation. */
static const unsigned int op_weight[OP_N] = {
	[OP_MONITOR] = 24, [OP_UNMONITOR] = 12, [OP_RESUME] = 10,
	[OP_SUSPEND] = 7,  [OP_READ] = 4,	[OP_CONFIGURE] = 6,
	[OP_STATS] = 6,	   [OP_MARK] = 10,	[OP_POLL] = 4,
	[OP_REOPEN] = 3,   [OP_PASS] = 2,	[OP_FORK_FD] = 1,
	[OP_MAP] = 4,
};

/* Documented errors of each call (besides success), 0-terminated. */
static const int ok_monitor[] = { ESRCH, EBUSY, EEXIST, EINVAL, 0 };
static const int ok_unmonitor[] = { ESRCH, ENOENT, 0 };
static const int ok_resume[] = { ENOMEM, 0 };
static const int ok_none[] = { 0 };
static const int ok_configure[] = { EBUSY, ENOMEM, 0 };
static const int ok_mark[] = { EAGAIN, 0 };
static const int ok_own_mark[] = { ENOENT, EAGAIN, 0 };
/* EINVAL: no rings yet, or shorter than the length asked (a CONFIGURE). */
static const int ok_map[] = { EINVAL, 0 };
/* EAGAIN: the courier may have set O_NONBLOCK on the shared file. */
static const int ok_read[] = { EINTR, EAGAIN, 0 };

struct slot {
	pthread_mutex_t lock; /* fd and gen */
	int fd; /* -1: closed */
	atomic_uint gen; /* bumped at every reopen */
	/* Configures begun and ended, for the reader's check. */
	atomic_uint cfg_begun, cfg_ended;
	/* Someone else than its reader read generation gen (% 8). */
	atomic_int shared[8];
};

/* Tids of victims, published by threads and by forked children. */
struct tidtab {
	atomic_int tid[TIDTAB];
	atomic_uint next;
};

static struct slot slots[NSLOTS];
static struct tidtab *tids;
static atomic_int stop_workers, stop_readers, stop_victims, stop_churn;
static int courier_sock = -1;
static pid_t courier_pid;
static uint32_t classes_ok; /* the classes configure accepts */
static unsigned int nr_cpus;
static char self_exe[256];

/* Figures. */
static atomic_long op_calls[OP_N], op_ok[OP_N];
static atomic_long events_read, lost_read, reads_done, eintr_reads;
static atomic_long reaps_read, inherited_read;
/* task_struct objects, less the threads alive, before the stress */
static long tasks_before;
static atomic_long threads_made, forks_made, execs_made, signals_sent;

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static void publish_tid(pid_t tid)
{
	unsigned int i = atomic_fetch_add(&tids->next, 1) % TIDTAB;

	atomic_store(&tids->tid[i], tid);
}

static pid_t pick_tid(struct stress_rng *r)
{
	uint64_t k = stress_below(r, 100);

	if (k < 88) {
		pid_t t = atomic_load(&tids->tid[stress_below(r, TIDTAB)]);
		return t ? t : gettid_();
	}
	if (k < 94)
		return gettid_();
	if (k < 97)
		return 2; /* kthreadd: with INHERIT, its new kworkers too */
	return (pid_t)(2 + stress_below(r, 40000));
}

static void check_errno(enum op op, long rc, int e, const int *allowed)
{
	atomic_fetch_add(&op_calls[op], 1);
	if (rc == 0) {
		atomic_fetch_add(&op_ok[op], 1);
		return;
	}
	if (rc != -1 || !stress_errno_in(e, allowed))
		stress_error("%s returned %ld, errno %d (%s)", op_names[op], rc,
			     e, strerror(e));
}

static void random_config(struct stress_rng *r, struct mkm_config *c)
{
	static const uint64_t sizes[] = { 4096, 8192, 16384, 65536, 262144 };
	static const uint32_t classes[] = {
		0,
		MKM_CLASS_SCHED,
		MKM_CLASS_SCHED | MKM_CLASS_LIFECYCLE,
		MKM_CLASS_LIFECYCLE,
		MKM_CLASS_DEFAULT,
		MKM_CLASS_ALL,
	};

	memset(c, 0, sizeof(*c));
	c->ring_bytes = sizes[stress_below(r, 5)];
	c->classes = classes[stress_below(r, 6)] & classes_ok;
	c->flags = stress_below(r, 2) ? MKM_CONFIG_INHERIT : 0;
	if (stress_below(r, 3) == 0)
		c->wakeup_bytes =
			32 * (1 + stress_below(r, c->ring_bytes / 32));
}

static int open_monitor(struct stress_rng *r)
{
	struct mkm_config c;
	int fd = open(MKM_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		stress_error("open %s: %s", MKM_DEVICE, strerror(errno));
		return -1;
	}
	random_config(r, &c);
	errno = 0;
	int rc = ioctl(fd, MKM_IOC_CONFIGURE, &c);
	check_errno(OP_CONFIGURE, rc, errno, ok_configure);
	if (stress_below(r, 2)) {
		rc = ioctl(fd, MKM_IOC_RESUME);
		check_errno(OP_RESUME, rc, errno, ok_resume);
	}
	return fd;
}

/* A private fd of the slot's monitor (CLOEXEC), or -1 if it is closed. */
static int slot_get(struct slot *s, unsigned int *gen, int cloexec)
{
	pthread_mutex_lock(&s->lock);
	int fd = s->fd < 0 ? -1 :
		 cloexec   ? fcntl(s->fd, F_DUPFD_CLOEXEC, 0) :
			     dup(s->fd);
	if (gen)
		*gen = s->gen;
	pthread_mutex_unlock(&s->lock);
	return fd;
}

static void slot_reopen(struct slot *s, struct stress_rng *r)
{
	int fd = open_monitor(r);

	pthread_mutex_lock(&s->lock);
	int old = s->fd;
	s->fd = fd;
	atomic_store(&s->shared[(s->gen + 1) % 8], 0);
	atomic_fetch_add(&s->gen, 1);
	pthread_mutex_unlock(&s->lock);
	/* Others may still hold dups: the last of them terminates it. */
	if (old >= 0)
		close(old);
}

static void read_some(int fd, struct stress_rng *r, enum op op)
{
	static _Thread_local struct mkm_event buf[READ_MAX / 32];
	size_t count = 32 + stress_below(r, READ_MAX - 32);

	errno = 0;
	ssize_t n = read(fd, buf, count);
	int e = errno;
	if (n < 0) {
		check_errno(op, -1, e, ok_read);
		return;
	}
	check_errno(op, 0, 0, ok_read);
	if (n % 32 || (size_t)n > count)
		stress_error("read(%zu) returned %zd", count, n);
	for (ssize_t i = 0; i < n / 32; i++)
		if (buf[i].type == 0 || buf[i].type > MKM_EV_TYPE_MAX ||
		    buf[i].cpu >= nr_cpus)
			stress_error("read: record with type %u cpu %u",
				     buf[i].type, buf[i].cpu);
	atomic_fetch_add(&events_read, n / 32);
}

/* A forked child of a threaded process: only ioctl, execv and _exit. */
static void fork_with_fd(int fd, struct stress_rng *r)
{
	uint64_t how = stress_below(r, 3);
	struct mkm_mark m = { .value = 7 };
	struct mkm_thread t = { .unique_id = 9 };

	pid_t pid = fork();
	if (pid < 0) {
		stress_error("fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		if (ioctl(fd, MKM_IOC_MARK, &m) && errno != EAGAIN)
			_exit(10);
		if (how == 0) {
			t.tid = (pid_t)syscall(SYS_gettid);
			if (ioctl(fd, MKM_IOC_THREAD_MONITOR, &t) &&
			    errno != EBUSY && errno != EEXIST)
				_exit(11);
			_exit(0);
		}
		if (how == 1) {
			/* The fd stays open across the exec, until exit. */
			char *const argv[] = { (char *)"true", NULL };
			execv("/bin/busybox", argv);
			_exit(12);
		}
		_exit(0);
	}
	atomic_fetch_add(&forks_made, 1);
	if (how == 1)
		atomic_fetch_add(&execs_made, 1);
	close(fd);
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			stress_error("waitpid: %s", strerror(errno));
			return;
		}
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		stress_error("fork-with-fd child (mode %llu): status %#x",
			     (unsigned long long)how, status);
}

/* A worker's mapping kept past its op (and past the fd's close). */
static _Thread_local void *kept_map;
static _Thread_local size_t kept_len;

static void drop_kept_map(void)
{
	if (kept_map)
		munmap(kept_map, kept_len);
	kept_map = NULL;
}

/*
 * Maps part of a ring (the control page and up to three more), checks
 * the control page, then lets the mapping go one of four ways: at once,
 * split (a middle page first), through a forked child's copy (MADV_DOFORK),
 * or kept until the worker's next map, past any close of the monitor.
 */
static void map_some(int fd, struct stress_rng *r)
{
	unsigned int cpu = (unsigned int)stress_below(r, nr_cpus);
	size_t len = (1 + stress_below(r, 4)) * MKM_RING_PAGE_BYTES;
	const struct mkm_ring_control *ctl;
	char *p;
	pid_t pid;
	int st;

	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd,
		 (off_t)MKM_MMAP_RING(cpu));
	check_errno(OP_MAP, p == MAP_FAILED ? -1 : 0, errno, ok_map);
	if (p == MAP_FAILED)
		return;
	ctl = (const struct mkm_ring_control *)p;
	if (ctl->mask & (ctl->mask + 1))
		stress_error("mapped ring of cpu %u: mask %#x", cpu, ctl->mask);
	switch (stress_below(r, 4)) {
	case 0:
		break;
	case 1:
		if (len > MKM_RING_PAGE_BYTES) {
			munmap(p + MKM_RING_PAGE_BYTES, MKM_RING_PAGE_BYTES);
			munmap(p, MKM_RING_PAGE_BYTES);
			if (len > 2 * MKM_RING_PAGE_BYTES)
				munmap(p + 2 * MKM_RING_PAGE_BYTES,
				       len - 2 * MKM_RING_PAGE_BYTES);
			return;
		}
		break;
	case 2:
		if (madvise(p, len, MADV_DOFORK)) {
			/* No madvise(2) (tinyconfig), or refused (7.x). */
			if (errno != ENOSYS && errno != EINVAL)
				stress_error("madvise(MADV_DOFORK): %s",
					     strerror(errno));
			break;
		}
		pid = fork();
		if (pid == 0) {
			/* The copy reads the rings; exit unmaps it. */
			usleep((useconds_t)(ctl->head % 2000));
			_exit(0);
		}
		if (pid > 0) {
			atomic_fetch_add(&forks_made, 1);
			waitpid(pid, &st, 0);
		}
		break;
	case 3:
		drop_kept_map();
		kept_map = p;
		kept_len = len;
		return;
	}
	munmap(p, len);
}

static void worker_op(struct stress_rng *r, enum op op)
{
	struct slot *s = &slots[stress_below(r, NSLOTS)];
	struct mkm_thread th = { 0 };
	struct mkm_config c;
	struct mkm_mark m;
	struct mkm_cpu_stats cs[STRESS_MAX_CPUS];
	struct mkm_stats st;
	long rc;
	int fd;

	if (op == OP_REOPEN) {
		atomic_fetch_add(&op_calls[op], 1);
		slot_reopen(s, r);
		atomic_fetch_add(&op_ok[op], 1);
		return;
	}
	unsigned int gen;
	fd = slot_get(s, &gen, op != OP_FORK_FD);
	if (fd < 0) {
		slot_reopen(s, r);
		return;
	}
	errno = 0;
	switch (op) {
	case OP_MONITOR:
		th.tid = pick_tid(r);
		th.unique_id = (uint32_t)stress_rand(r);
		rc = ioctl(fd, MKM_IOC_THREAD_MONITOR, &th);
		check_errno(op, rc, errno, ok_monitor);
		break;
	case OP_UNMONITOR:
		th.tid = pick_tid(r);
		th.unique_id = 0;
		rc = ioctl(fd, MKM_IOC_THREAD_UNMONITOR, &th);
		check_errno(op, rc, errno, ok_unmonitor);
		break;
	case OP_RESUME:
		rc = ioctl(fd, MKM_IOC_RESUME);
		check_errno(op, rc, errno, ok_resume);
		break;
	case OP_SUSPEND:
		rc = ioctl(fd, MKM_IOC_SUSPEND);
		check_errno(op, rc, errno, ok_none);
		break;
	case OP_READ: {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		atomic_store(&s->shared[gen % 8], 1);
		if (poll(&p, 1, 0) == 1)
			read_some(fd, r, op);
		break;
	}
	case OP_CONFIGURE:
		random_config(r, &c);
		/* The reader must know a ring may have started over. */
		atomic_fetch_add(&s->cfg_begun, 1);
		rc = ioctl(fd, MKM_IOC_CONFIGURE, &c);
		check_errno(op, rc, errno, ok_configure);
		atomic_fetch_add(&s->cfg_ended, 1);
		break;
	case OP_STATS:
		memset(&st, 0, sizeof(st));
		st.nr_cpus = STRESS_MAX_CPUS;
		st.cpus = (uintptr_t)cs;
		rc = ioctl(fd, MKM_IOC_STATS, &st);
		check_errno(op, rc, errno, ok_none);
		if (!rc && st.nr_cpus != nr_cpus)
			stress_error("stats: nr_cpus %u, expected %u",
				     st.nr_cpus, nr_cpus);
		break;
	case OP_MARK:
		/* Now and then a trigger, which wakes the readers too. */
		m = (struct mkm_mark){ .value = stress_rand(r) };
		if (stress_below(r, 8) == 0)
			m.flags = MKM_MARK_TRIGGER;
		/*
		 * Now and then into whichever monitor tracks this thread, as
		 * another thread may be dropping it or ending that monitor.
		 */
		if (stress_below(r, 4) == 0)
			m.flags |= MKM_MARK_OWN;
		rc = ioctl(fd, MKM_IOC_MARK, &m);
		check_errno(op, rc, errno,
			    m.flags & MKM_MARK_OWN ? ok_own_mark : ok_mark);
		break;
	case OP_POLL: {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		rc = poll(&p, 1, (int)stress_below(r, 3));
		check_errno(op, rc >= 0 ? 0 : -1, errno, ok_read);
		break;
	}
	case OP_PASS:
		/* The courier reads it too. */
		atomic_store(&s->shared[gen % 8], 1);
		atomic_fetch_add(&op_calls[op], 1);
		if (stress_send_fd(courier_sock, fd, 'f') == 0)
			atomic_fetch_add(&op_ok[op], 1);
		else
			stress_error("sending a monitor to the courier: %s",
				     strerror(errno));
		break;
	case OP_FORK_FD:
		atomic_fetch_add(&op_calls[op], 1);
		atomic_fetch_add(&op_ok[op], 1);
		fork_with_fd(fd, r); /* closes fd */
		return;
	case OP_MAP:
		map_some(fd, r);
		break;
	default:
		break;
	}
	close(fd);
}

static void *worker_main(void *arg)
{
	struct stress_rng r;
	unsigned int total = 0;

	stress_rng_init(&r, (uintptr_t)arg);
	for (int i = 0; i < OP_N; i++)
		total += op_weight[i];
	publish_tid(gettid_());
	while (!atomic_load(&stop_workers)) {
		unsigned int k = (unsigned int)stress_below(&r, total);
		int op = 0;
		while (k >= op_weight[op])
			k -= op_weight[op++];
		worker_op(&r, (enum op)op);
	}
	drop_kept_map();
	return NULL;
}

/* One per slot: blocking reads, the stream checked record by record. */
static void *reader_main(void *arg)
{
	struct slot *s = &slots[(uintptr_t)arg];
	static _Thread_local struct mkm_event buf[READ_MAX / 32];
	struct stress_checker ck;
	struct stress_rng r;
	unsigned int gen = ~0u;
	/* Per CPU: configures ended before the read of its last record. */
	unsigned int ended_before[STRESS_MAX_CPUS];
	uint8_t restart[STRESS_MAX_CPUS];
	char msg[256];

	stress_rng_init(&r, 100 + (uintptr_t)arg);
	while (!atomic_load(&stop_readers)) {
		unsigned int g;
		int fd = slot_get(s, &g, 1);
		if (fd < 0) {
			abi_sleep_ms(2);
			continue;
		}
		unsigned int ended = atomic_load(&s->cfg_ended);
		if (g != gen) {
			gen = g;
			stress_checker_init(&ck, nr_cpus);
			for (unsigned int c = 0; c < nr_cpus; c++)
				ended_before[c] = ended;
		}
		size_t count = 32 + stress_below(&r, READ_MAX - 32);
		ssize_t n = read(fd, buf, count);
		int e = errno;
		if (n < 0) {
			if (e == EINTR)
				atomic_fetch_add(&eintr_reads, 1);
			if (!stress_errno_in(e, ok_read))
				stress_error("reader: read: %s", strerror(e));
			if (e == EAGAIN) {
				struct pollfd p = { .fd = fd,
						    .events = POLLIN };
				poll(&p, 1, 20);
			}
			close(fd);
			continue;
		}
		atomic_fetch_add(&reads_done, 1);
		if (n % 32)
			stress_error("reader: read(%zu) returned %zd", count,
				     n);
		/*
		 * A CPU's ring can have been made anew since its last record
		 * only if a configure was under way when that record was read
		 * or began since: then not all configures begun by now had
		 * ended before that read.
		 */
		unsigned int begun = atomic_load(&s->cfg_begun);
		for (unsigned int c = 0; c < nr_cpus; c++)
			restart[c] = begun != ended_before[c];
		for (ssize_t i = 0; i < n / 32; i++)
			if (buf[i].cpu < nr_cpus)
				ended_before[buf[i].cpu] = ended;
		/* Eight reopens later, the flag may be another gen's. */
		int exact = !atomic_load(&s->shared[gen % 8]) &&
			    atomic_load(&s->gen) - gen < 8;
		if (stress_checker_feed(&ck, buf, (size_t)n / 32, exact,
					restart, msg, sizeof(msg))) {
			stress_error("slot %zu gen %u: %s (configures begun "
				     "%u, ended %u)",
				     (size_t)(s - slots), gen, msg, begun,
				     atomic_load(&s->cfg_ended));
			struct abi_trace t = { .ev = buf, .n = (size_t)n / 32 };
			abi_dump(&t, 8);
			struct mkm_cpu_stats cs[STRESS_MAX_CPUS];
			struct mkm_stats st = { .nr_cpus = STRESS_MAX_CPUS,
						.cpus = (uintptr_t)cs };
			if (ioctl(fd, MKM_IOC_STATS, &st) == 0)
				for (unsigned int c = 0; c < st.nr_cpus; c++)
					printf("# cpu %u: produced %llu lost "
					       "%llu read %llu buffered %llu\n",
					       c,
					       (unsigned long long)cs[c]
						       .produced,
					       (unsigned long long)cs[c].lost,
					       (unsigned long long)cs[c].read,
					       (unsigned long long)cs[c]
						       .buffered);
		}
		for (ssize_t i = 0; i < n / 32; i++) {
			if (buf[i].type == MKM_EV_LOST)
				atomic_fetch_add(&lost_read, buf[i].arg0);
			if (buf[i].type == MKM_EV_REAP)
				atomic_fetch_add(&reaps_read, 1);
			if (buf[i].type == MKM_EV_FORK &&
			    buf[i].flags & MKM_EVF_INHERITED)
				atomic_fetch_add(&inherited_read, 1);
		}
		atomic_fetch_add(&events_read, n / 32);
		close(fd);
		if (n == 0) /* suspended and empty */
			abi_sleep_ms(1 + (unsigned int)stress_below(&r, 4));
	}
	return NULL;
}

/* Long-lived victims: they sleep, yield, rename and use a pipe. */
static void *victim_main(void *arg)
{
	struct stress_rng r;
	int p[2];
	char c = 'v', name[16];

	stress_rng_init(&r, 200 + (uintptr_t)arg);
	if (pipe2(p, O_CLOEXEC))
		return NULL;
	*(pid_t *)arg = gettid_();
	publish_tid(gettid_());
	while (!atomic_load(&stop_victims)) {
		if (stress_below(&r, 64) == 0)
			publish_tid(gettid_());
		switch (stress_below(&r, 4)) {
		case 0:
			sched_yield();
			break;
		case 1: {
			struct timespec ts = { 0,
					       (long)stress_below(&r, 500000) };
			nanosleep(&ts, NULL);
			break;
		}
		case 2:
			if (write(p[1], &c, 1) != 1 || read(p[0], &c, 1) != 1)
				stress_error("victim pipe: %s",
					     strerror(errno));
			break;
		default:
			snprintf(name, sizeof(name), "victim-%u",
				 (unsigned int)stress_below(&r, 100));
			prctl(PR_SET_NAME, name);
			break;
		}
	}
	close(p[0]);
	close(p[1]);
	return NULL;
}

static void *short_thread(void *arg)
{
	unsigned int n = (unsigned int)(uintptr_t)arg;

	publish_tid(gettid_());
	for (unsigned int i = 0; i < n; i++) {
		struct timespec ts = { 0, 300000 };
		if (i & 1)
			sched_yield();
		else
			nanosleep(&ts, NULL);
	}
	return NULL;
}

/* Threads that come and go. */
static void *thread_churn_main(void *arg)
{
	struct stress_rng r;

	stress_rng_init(&r, 300 + (uintptr_t)arg);
	while (!atomic_load(&stop_churn)) {
		pthread_t t;
		/* Tracked with INHERIT, all its threads are tracked too. */
		if (stress_below(&r, 4) == 0)
			publish_tid(gettid_());
		uintptr_t n = stress_below(&r, 6);
		if (pthread_create(&t, NULL, short_thread, (void *)n)) {
			stress_error("pthread_create: %s", strerror(errno));
			abi_sleep_ms(10);
			continue;
		}
		atomic_fetch_add(&threads_made, 1);
		pthread_join(t, NULL);
	}
	return NULL;
}

static void *child_thread(void *arg)
{
	(void)arg;
	publish_tid(gettid_());
	for (;;)
		pause();
	return NULL;
}

/* A child of the process churner: async-signal-safe calls only. */
static void churn_child(uint64_t how)
{
	struct timespec ts = { 0, 1000000 };
	char *const bb[] = { (char *)"true", NULL };
	char *const me[] = { (char *)"stress-exec", (char *)"--abi-exit",
			     (char *)"0", NULL };

	publish_tid(gettid_());
	switch (how) {
	case 0:
		nanosleep(&ts, NULL);
		_exit(0);
	case 1:
		execv("/bin/busybox", bb);
		_exit(20);
	case 2:
		execv(self_exe, me);
		_exit(21);
	case 3: {
		/* A grandchild, waited for. */
		pid_t g = fork();
		if (g == 0) {
			publish_tid(gettid_());
			nanosleep(&ts, NULL);
			_exit(0);
		}
		int st;
		if (g < 0 || waitpid(g, &st, 0) != g || !WIFEXITED(st))
			_exit(22);
		_exit(WEXITSTATUS(st));
	}
	default: {
		/* exit_group takes a running thread with it. */
		pthread_t t;
		if (pthread_create(&t, NULL, child_thread, NULL))
			_exit(23);
		nanosleep(&ts, NULL);
		_exit(0);
	}
	}
}

/* Processes that fork, exec and exit. */
static void *proc_churn_main(void *arg)
{
	struct stress_rng r;

	stress_rng_init(&r, 400 + (uintptr_t)arg);
	while (!atomic_load(&stop_churn)) {
		uint64_t how = stress_below(&r, 5);
		if (stress_below(&r, 4) == 0)
			publish_tid(gettid_());
		pid_t pid = fork();
		if (pid < 0) {
			stress_error("fork: %s", strerror(errno));
			abi_sleep_ms(10);
			continue;
		}
		if (pid == 0)
			churn_child(how);
		atomic_fetch_add(&forks_made, 1);
		if (how == 1 || how == 2)
			atomic_fetch_add(&execs_made, 1);
		int status;
		while (waitpid(pid, &status, 0) < 0)
			if (errno != EINTR) {
				stress_error("waitpid: %s", strerror(errno));
				break;
			}
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			stress_error("churn child (mode %llu): status %#x",
				     (unsigned long long)how, status);
	}
	return NULL;
}

/*
 * The courier, a separate process: holds up to four monitors it received
 * with SCM_RIGHTS, uses them at random, closes them at random (sometimes
 * the last close), and closes the rest when told to quit.
 */
#define COURIER_FDS 4
static void courier_fail(const char *what, long rc, int e)
{
	fprintf(stderr, "courier: %s returned %ld, errno %d (%s)\n", what, rc,
		e, strerror(e));
	_exit(1);
}

#define COURIER_CALL(what, call, allowed)                                \
	do {                                                             \
		errno = 0;                                               \
		long rc_ = (long)(call);                                 \
		int e_ = errno;                                          \
		if (rc_ && (rc_ != -1 || !stress_errno_in(e_, allowed))) \
			courier_fail(what, rc_, e_);                     \
	} while (0)

static void courier_main(int sock)
{
	int held[COURIER_FDS];
	struct stress_rng r;
	static struct mkm_event buf[256];
	unsigned long received = 0, ops = 0;

	for (int i = 0; i < COURIER_FDS; i++)
		held[i] = -1;
	stress_rng_init(&r, 500);
	publish_tid(gettid_());
	for (;;) {
		int fd;
		char byte;
		int got = stress_recv_fd(sock, &fd, &byte, 5);
		if (got < 0) {
			fprintf(stderr, "courier: recvmsg: %s\n",
				strerror(errno));
			_exit(1);
		}
		if (got && byte == 'q')
			break;
		if (got && fd >= 0) {
			int i = (int)stress_below(&r, COURIER_FDS);
			if (held[i] >= 0)
				close(held[i]);
			held[i] = fd;
			received++;
		}
		int i = (int)stress_below(&r, COURIER_FDS);
		fd = held[i];
		if (fd < 0)
			continue;
		struct mkm_version v;
		struct mkm_mark m = { .value = ops };
		struct mkm_thread th = { .tid = gettid_(), .unique_id = 5 };
		struct mkm_cpu_stats cs[STRESS_MAX_CPUS];
		struct mkm_stats st = { .nr_cpus = STRESS_MAX_CPUS,
					.cpus = (uintptr_t)cs };
		ops++;
		switch (stress_below(&r, 10)) {
		case 0:
			COURIER_CALL("version", ioctl(fd, MKM_IOC_VERSION, &v),
				     ok_none);
			if (v.major != MKM_ABI_MAJOR || v.event_size != 32)
				courier_fail("version values", v.major, 0);
			break;
		case 1:
			COURIER_CALL("stats", ioctl(fd, MKM_IOC_STATS, &st),
				     ok_none);
			break;
		case 2:
			COURIER_CALL("mark", ioctl(fd, MKM_IOC_MARK, &m),
				     ok_mark);
			break;
		case 3:
			COURIER_CALL("resume", ioctl(fd, MKM_IOC_RESUME),
				     ok_resume);
			break;
		case 4:
			COURIER_CALL("suspend", ioctl(fd, MKM_IOC_SUSPEND),
				     ok_none);
			break;
		case 5:
			COURIER_CALL("thread_monitor",
				     ioctl(fd, MKM_IOC_THREAD_MONITOR, &th),
				     ok_monitor);
			break;
		case 6:
			COURIER_CALL("thread_unmonitor",
				     ioctl(fd, MKM_IOC_THREAD_UNMONITOR, &th),
				     ok_unmonitor);
			break;
		case 7: {
			/* Never block here: nobody would wake us. */
			int fl = fcntl(fd, F_GETFL);
			if (fl >= 0 && !(fl & O_NONBLOCK))
				fcntl(fd, F_SETFL, fl | O_NONBLOCK);
			ssize_t n = read(fd, buf,
					 32 + stress_below(&r, sizeof(buf)));
			if (n < 0 && errno != EAGAIN)
				courier_fail("read", n, errno);
			if (n > 0 && n % 32)
				courier_fail("read size", n, 0);
			break;
		}
		case 8:
			close(fd);
			held[i] = -1;
			break;
		default: {
			/* A child inherits the monitors and exits at once. */
			pid_t c = fork();
			if (c == 0)
				_exit(0);
			int s;
			if (c < 0 || waitpid(c, &s, 0) != c)
				courier_fail("fork", c, errno);
			break;
		}
		}
	}
	for (int i = 0; i < COURIER_FDS; i++)
		if (held[i] >= 0)
			close(held[i]);
	printf("# courier: %lu monitors received, %lu calls\n", received, ops);
	_exit(0);
}

static void start_courier(void)
{
	int sv[2];

	ABI_OK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
	courier_pid = fork();
	assert_true(courier_pid >= 0);
	if (courier_pid == 0) {
		close(sv[0]);
		courier_main(sv[1]);
	}
	close(sv[1]);
	courier_sock = sv[0];
}

static uint32_t supported_classes(void)
{
	struct mkm_config c;
	int fd = abi_open();

	memset(&c, 0, sizeof(c));
	c.ring_bytes = 4096;
	c.classes = MKM_CLASS_ALL;
	int rc = ioctl(fd, MKM_IOC_CONFIGURE, &c);
	close(fd);
	if (rc == 0)
		return MKM_CLASS_ALL;
	assert_int_equal(errno, EOPNOTSUPP);
	return MKM_CLASS_ALL & ~MKM_CLASS_SYSCALL;
}

/* Join t, waking it with SIGUSR1 while it sleeps in a read. */
static void join_kicking(pthread_t t, const char *what)
{
	for (int i = 0; i < 3000; i++) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 10000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		if (pthread_timedjoin_np(t, NULL, &ts) == 0)
			return;
		pthread_kill(t, SIGUSR1);
	}
	fail_msg("%s did not stop within 30 s", what);
}

static pid_t victim_tid[NVICTIMS];
static pthread_t victims[NVICTIMS];

static void test_stress_random_calls_clean_errors(void **state)
{
	pthread_t workers[NWORKERS], readers[NSLOTS], tchurn, pchurn;
	unsigned int seconds =
		(unsigned int)stress_env("MKM_STRESS_SECONDS", 45);
	struct stress_rng r;
	(void)state;

	stress_timeout = seconds + 120;
	alarm(stress_timeout);
	nr_cpus = stress_possible_cpus();
	assert_true(nr_cpus <= STRESS_MAX_CPUS);
	ssize_t l = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	assert_true(l > 0);
	self_exe[l] = 0;
	tids = mmap(NULL, sizeof(*tids), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(tids != MAP_FAILED);
	classes_ok = supported_classes();
	stress_sigusr1_interrupts();
	tasks_before = stress_slab_active("task_struct") - stress_tasks_alive();
	stress_rng_init(&r, 0);
	uint64_t t_mark = abi_now_ns();
	stress_kmemleak_mark();
	if (stress_kmemleak_present())
		printf("# kmemleak: first scan and clear took %.1f s\n",
		       (double)(abi_now_ns() - t_mark) / 1e9);

	/* The courier first: forked while we have one thread. */
	start_courier();
	for (int i = 0; i < NSLOTS; i++) {
		pthread_mutex_init(&slots[i].lock, NULL);
		slots[i].fd = -1;
		slot_reopen(&slots[i], &r);
	}
	for (int i = 0; i < NVICTIMS; i++)
		ABI_OK(pthread_create(&victims[i], NULL, victim_main,
				      &victim_tid[i]));
	ABI_OK(pthread_create(&tchurn, NULL, thread_churn_main, NULL));
	ABI_OK(pthread_create(&pchurn, NULL, proc_churn_main, NULL));
	for (uintptr_t i = 0; i < NSLOTS; i++)
		ABI_OK(pthread_create(&readers[i], NULL, reader_main,
				      (void *)i));
	for (uintptr_t i = 0; i < NWORKERS; i++)
		ABI_OK(pthread_create(&workers[i], NULL, worker_main,
				      (void *)i));

	printf("# stress: %u s, %d monitors, %d workers, %d readers, %d "
	       "victims, thread and process churn, a courier process\n",
	       seconds, NSLOTS, NWORKERS, NSLOTS, NVICTIMS);
	uint64_t start = abi_now_ns();
	uint64_t end = start + seconds * 1000000000ull;
	while (abi_now_ns() < end && !stress_failed()) {
		/* Interrupt a blocked read now and then. */
		abi_sleep_ms(20);
		uint64_t k = stress_below(&r, NSLOTS + NWORKERS);
		pthread_kill(k < NSLOTS ? readers[k] : workers[k - NSLOTS],
			     SIGUSR1);
		atomic_fetch_add(&signals_sent, 1);
	}
	double took = (double)(abi_now_ns() - start) / 1e9;

	atomic_store(&stop_workers, 1);
	for (int i = 0; i < NWORKERS; i++)
		join_kicking(workers[i], "a worker");
	atomic_store(&stop_churn, 1);
	join_kicking(tchurn, "the thread churner");
	join_kicking(pchurn, "the process churner");
	atomic_store(&stop_readers, 1);
	for (int i = 0; i < NSLOTS; i++)
		join_kicking(readers[i], "a reader");
	assert_int_equal(stress_send_fd(courier_sock, -1, 'q'), 0);
	abi_expect_child_ok(courier_pid);
	close(courier_sock);
	for (int i = 0; i < NSLOTS; i++) {
		close(slots[i].fd);
		slots[i].fd = -1;
	}

	printf("# stress: ran %.1f s\n", took);
	long calls = 0;
	for (int i = 0; i < OP_N; i++) {
		printf("#   %-16s %8ld calls, %8ld ok\n", op_names[i],
		       atomic_load(&op_calls[i]), atomic_load(&op_ok[i]));
		calls += atomic_load(&op_calls[i]);
	}
	printf("# stress: %ld calls; %ld records read (%ld lost reported, "
	       "%ld inherited threads, %ld REAPs of tracked threads) in %ld "
	       "reads, %ld reads interrupted by %ld signals; %ld threads, %ld "
	       "forks, %ld execs\n",
	       calls, atomic_load(&events_read), atomic_load(&lost_read),
	       atomic_load(&inherited_read), atomic_load(&reaps_read),
	       atomic_load(&reads_done), atomic_load(&eintr_reads),
	       atomic_load(&signals_sent), atomic_load(&threads_made),
	       atomic_load(&forks_made), atomic_load(&execs_made));
	stress_check();

	/* Every monitor is gone: no file holds the module any more... */
	int refs = stress_wait_refcnt_zero(10);
	if (refs != 0)
		fail_msg("mkm refcnt is %d after every monitor was closed",
			 refs);
	/* ...and no thread is still tracked: each can be tracked again. */
	struct abi_trace t = { 0 };
	int fd = abi_open();
	for (int i = 0; i < NVICTIMS; i++)
		ABI_OK(abi_monitor(fd, victim_tid[i], 100 + i));
	abi_resume(fd);
	abi_sleep_ms(200);
	abi_suspend(fd);
	abi_drain(fd, &t);
	abi_check_stream(&t, nr_cpus, NULL, NULL);
	for (int i = 0; i < NVICTIMS; i++)
		if (abi_count(&t, victim_tid[i], MKM_EV_ATTACH) != 1 ||
		    abi_count(&t, victim_tid[i], ABI_ANY) < 3)
			fail_msg("victim %d (tid %d): %zu events after the "
				 "stress",
				 i, victim_tid[i],
				 abi_count(&t, victim_tid[i], ABI_ANY));
	abi_trace_free(&t);
	ABI_OK(close(fd));
	atomic_store(&stop_victims, 1);
	for (int i = 0; i < NVICTIMS; i++)
		join_kicking(victims[i], "a victim");
}

/* Open, use and close many monitors with big rings: nothing stays. */
static void test_closed_monitors_return_memory(void **state)
{
	const int rounds = 4, per_round = 32;
	const uint64_t ring = 256 * 1024;
	struct abi_worker w;
	(void)state;

	stress_timeout = 240;
	alarm(stress_timeout);
	abi_worker_start(&w, "stress-leak", -1, NULL, NULL);
	/* Free pages in the per-CPU lists are free too. */
	long before = stress_meminfo_kb("MemAvailable") + stress_pcp_kb();
	long pcpu_before = stress_meminfo_kb("Percpu");
	assert_true(before > 0);
	for (int round = 0; round < rounds; round++) {
		int fds[32];
		for (int i = 0; i < per_round; i++) {
			fds[i] = abi_open();
			abi_configure(fds[i], ring, 0, MKM_CONFIG_INHERIT,
				      NULL);
			if (i == 0)
				ABI_OK(abi_monitor(fds[i], w.tid, 1));
			abi_resume(fds[i]);
			ABI_OK(abi_mark(fds[i], (uint64_t)i));
		}
		long during =
			stress_meminfo_kb("MemAvailable") + stress_pcp_kb();
		if (round == 0)
			printf("# %d monitors of %llu KiB rings: MemAvailable "
			       "and per-CPU free lists %ld -> %ld kB\n",
			       per_round, (unsigned long long)ring / 1024,
			       before, during);
		for (int i = 0; i < per_round; i++) {
			if (i % 2)
				abi_suspend(fds[i]);
			ABI_OK(close(fds[i]));
		}
	}
	assert_int_equal(stress_wait_refcnt_zero(10), 0);
	abi_sleep_ms(200);
	long after = stress_meminfo_kb("MemAvailable") + stress_pcp_kb();
	long pcpu_after = stress_meminfo_kb("Percpu");
	long leak_if_leaked =
		(long)(rounds * per_round * (nr_cpus * ring + 4096) / 1024);
	printf("# %d monitors opened and closed: MemAvailable and per-CPU "
	       "free lists %ld -> %ld kB, "
	       "Percpu %ld -> %ld kB (a leak of the rings would be %ld kB)\n",
	       rounds * per_round, before, after, pcpu_before, pcpu_after,
	       leak_if_leaked);
	if (before - after > leak_if_leaked / 8)
		fail_msg("MemAvailable fell by %ld kB", before - after);

	/*
	 * A task reference kept by a tracking entry keeps a task_struct:
	 * thousands of tracked threads came and went in test_stress. Freed
	 * ones may wait for RCU (and, with KASAN, in its quarantine). Counted
	 * beyond the threads alive: the kernel's own (kworkers) come and go
	 * with the load, and stay a while.
	 */
	long tasks = stress_slab_active("task_struct") - stress_tasks_alive();
	for (int i = 0; i < 50 && tasks > tasks_before + 64; i++) {
		abi_sleep_ms(100);
		tasks = stress_slab_active("task_struct") -
			stress_tasks_alive();
	}
	printf("# task_struct objects beyond the threads alive: %ld before the stress, %ld now\n",
	       tasks_before, tasks);
	if (tasks_before >= 0 && tasks > tasks_before + 64 &&
	    !stress_kmemleak_present())
		fail_msg("%ld more task_structs than before the stress",
			 tasks - tasks_before);
	abi_worker_stop(&w);
}

/* kmemleak (debug kernel): nothing unreferenced since test_stress began. */
static void test_kmemleak_reports_nothing(void **state)
{
	(void)state;

	stress_timeout = 240;
	alarm(stress_timeout);
	uint64_t t0 = abi_now_ns();
	char *report = stress_kmemleak_report();
	if (!report) {
		printf("# no kmemleak in this kernel: skipped\n");
		skip();
	}
	printf("# kmemleak: waited and scanned twice in %.1f s\n",
	       (double)(abi_now_ns() - t0) / 1e9);
	if (*report) {
		printf("# kmemleak found unreferenced objects:\n%s\n", report);
		fail_msg("kmemleak reports unreferenced objects%s",
			 strstr(report, "[mkm]") ? ", some of mkm's" : "");
	}
	free(report);
}

int main(int argc, char **argv)
{
	stress_main(argc, argv, 180);
	nr_cpus = stress_possible_cpus();
	const struct CMUnitTest tests[] = {
		STRESS_TEST(test_stress_random_calls_clean_errors),
		STRESS_TEST(test_closed_monitors_return_memory),
		STRESS_TEST(test_kmemleak_reports_nothing),
		STRESS_TEST(test_kernel_log_clean),
	};
	return cmocka_run_group_tests_name("stress", tests, NULL, NULL);
}

// SPDX-License-Identifier: GPL-2.0
/* stress.c - helpers of the stress, fuzz and lifetime tests of mkm.ko. */
#include "stress.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>

unsigned int stress_timeout = 120;

static int kmsg_fd = -1;
static uint64_t seed;
static pthread_mutex_t error_lock = PTHREAD_MUTEX_INITIALIZER;
static char error_msg[1024];
static atomic_int error_count;

static void stress_on_alarm(int sig)
{
	(void)sig;
	fail_msg("test timed out after %u s", stress_timeout);
}

int stress_setup(void **state)
{
	struct sigaction sa;

	(void)state;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = stress_on_alarm;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGALRM, &sa, NULL);
	alarm(stress_timeout);
	return 0;
}

long stress_env(const char *name, long dflt)
{
	const char *v = getenv(name);
	char *end;

	if (!v || !*v)
		return dflt;
	long n = strtol(v, &end, 0);
	if (*end || n < 0)
		return dflt;
	return n;
}

void stress_main(int argc, char **argv, unsigned int timeout)
{
	abi_main(argc, argv);
	stress_timeout = timeout;
	/* Everything the kernel logs from here on is checked at the end. */
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg_fd >= 0)
		lseek(kmsg_fd, 0, SEEK_END);
	const char *s = getenv("MKM_STRESS_SEED");
	if (s && *s)
		seed = strtoull(s, NULL, 0);
	else if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != sizeof(seed))
		seed = abi_now_ns() ^ (uint64_t)getpid() << 32;
	printf("# seed %llu (MKM_STRESS_SEED repeats it)\n",
	       (unsigned long long)seed);
}

void stress_rng_init(struct stress_rng *r, uint64_t salt)
{
	/* splitmix64 of seed and salt: distinct, non-zero streams. */
	uint64_t z = seed + 0x9e3779b97f4a7c15ull * (salt + 1);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	r->s = (z ^ (z >> 31)) | 1;
}

uint64_t stress_rand(struct stress_rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dull;
}

uint64_t stress_below(struct stress_rng *r, uint64_t n)
{
	return stress_rand(r) % n;
}

void stress_error(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&error_lock);
	if (atomic_fetch_add(&error_count, 1) == 0) {
		va_start(ap, fmt);
		vsnprintf(error_msg, sizeof(error_msg), fmt, ap);
		va_end(ap);
		fprintf(stderr, "# error: %s\n", error_msg);
	}
	pthread_mutex_unlock(&error_lock);
}

int stress_failed(void)
{
	return atomic_load(&error_count) != 0;
}

void stress_check(void)
{
	int n = atomic_load(&error_count);

	if (n) {
		pthread_mutex_lock(&error_lock);
		char msg[sizeof(error_msg)];
		memcpy(msg, error_msg, sizeof(msg));
		pthread_mutex_unlock(&error_lock);
		fail_msg("%d error(s), the first: %s", n, msg);
	}
}

int stress_errno_in(int e, const int *set)
{
	for (; *set; set++)
		if (*set == e)
			return 1;
	return 0;
}

static void stress_nop(int sig)
{
	(void)sig;
}

void stress_sigusr1_interrupts(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = stress_nop;
	sigaction(SIGUSR1, &sa, NULL);
}

void stress_checker_init(struct stress_checker *c, unsigned int nr_cpus)
{
	memset(c, 0, sizeof(*c));
	c->nr_cpus = nr_cpus < STRESS_MAX_CPUS ? nr_cpus : STRESS_MAX_CPUS;
}

int stress_checker_feed(struct stress_checker *c, const struct mkm_event *ev,
			size_t n, int exact, const uint8_t *restart, char *msg,
			size_t msg_size)
{
	uint8_t seen[STRESS_MAX_CPUS] = { 0 };

	for (size_t i = 0; i < n; i++) {
		const struct mkm_event *e = &ev[i];
		unsigned int cpu = e->cpu;

		if (cpu >= c->nr_cpus || e->type == 0 ||
		    e->type > MKM_EV_TYPE_MAX) {
			snprintf(msg, msg_size,
				 "record %zu: cpu %u (of %u), type %u", i, cpu,
				 c->nr_cpus, e->type);
			return -1;
		}
		if (c->have[cpu] && e->seq != c->next_seq[cpu]) {
			/*
			 * A new ring starts at 0 (others may have read its
			 * first records).
			 */
			int32_t d = (int32_t)(e->seq - c->next_seq[cpu]);
			if (restart && restart[cpu] && !seen[cpu] &&
			    (!exact || e->seq == 0)) {
				c->last_ts[cpu] = 0;
			} else if (exact || d < 0) {
				snprintf(msg, msg_size,
					 "cpu %u record %zu (%s): seq %u, "
					 "expected %s%u",
					 cpu, i, mon_event_name(e->type),
					 e->seq, exact ? "" : "at least ",
					 c->next_seq[cpu]);
				return -1;
			}
		}
		seen[cpu] = 1;
		if (!c->have[cpu])
			c->first_seq[cpu] = e->seq;
		c->have[cpu] = 1;
		if (e->type == MKM_EV_LOST) {
			if (e->arg0 == 0 || e->tid || e->unique_id) {
				snprintf(msg, msg_size,
					 "cpu %u record %zu: LOST of %u, tid "
					 "%u, unique_id %u",
					 cpu, i, e->arg0, e->tid, e->unique_id);
				return -1;
			}
			c->next_seq[cpu] = e->seq + e->arg0;
			c->lost[cpu] += e->arg0;
			continue;
		}
		if (e->time_ns < c->last_ts[cpu]) {
			snprintf(msg, msg_size,
				 "cpu %u record %zu (%s): time %llu went back "
				 "from %llu",
				 cpu, i, mon_event_name(e->type),
				 (unsigned long long)e->time_ns,
				 (unsigned long long)c->last_ts[cpu]);
			return -1;
		}
		c->last_ts[cpu] = e->time_ns;
		c->next_seq[cpu] = e->seq + 1;
		c->records[cpu]++;
	}
	return 0;
}

unsigned int stress_possible_cpus(void)
{
	char buf[256] = { 0 };
	int f = open("/sys/devices/system/cpu/possible", O_RDONLY | O_CLOEXEC);

	if (f < 0)
		return 1;
	ssize_t r = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (r <= 0)
		return 1;
	/* "0", "0-1", "0-3,5": the highest id + 1 */
	char *p = buf + strlen(buf);
	while (p > buf && (p[-1] < '0' || p[-1] > '9'))
		p--;
	while (p > buf && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return (unsigned int)strtoul(p, NULL, 10) + 1;
}

static int read_small_file(const char *path, char *buf, size_t size)
{
	int f = open(path, O_RDONLY | O_CLOEXEC);

	if (f < 0)
		return -1;
	ssize_t r = read(f, buf, size - 1);
	int e = errno;
	close(f);
	if (r < 0) {
		errno = e;
		return -1;
	}
	buf[r] = 0;
	return 0;
}

static int write_small_file(const char *path, const char *s)
{
	int f = open(path, O_WRONLY | O_CLOEXEC);

	if (f < 0)
		return -1;
	ssize_t r = write(f, s, strlen(s));
	int e = errno;
	close(f);
	errno = e;
	return r == (ssize_t)strlen(s) ? 0 : -1;
}

int stress_module_refcnt(void)
{
	char buf[32];

	if (read_small_file("/sys/module/mkm/refcnt", buf, sizeof(buf)))
		return -1;
	return atoi(buf);
}

int stress_module_loaded(void)
{
	return access("/sys/module/mkm", F_OK) == 0;
}

int stress_module_load(void)
{
	int fd = open("/mkm.ko", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	long r = syscall(SYS_finit_module, fd, "", 0);
	int e = errno;
	close(fd);
	errno = e;
	return r ? -1 : 0;
}

int stress_module_unload(unsigned int flags)
{
	return syscall(SYS_delete_module, "mkm", flags) ? -1 : 0;
}

int stress_wait_refcnt_zero(unsigned int seconds)
{
	uint64_t deadline = abi_now_ns() + seconds * 1000000000ull;
	int n;

	while ((n = stress_module_refcnt()) > 0 && abi_now_ns() < deadline)
		abi_sleep_ms(10);
	return n;
}

long stress_meminfo_kb(const char *field)
{
	char buf[8192];
	size_t len = strlen(field);

	if (read_small_file("/proc/meminfo", buf, sizeof(buf)))
		return -1;
	for (char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
		if (!strncmp(p, field, len) && p[len] == ':')
			return strtol(p + len + 1, NULL, 10);
	return -1;
}

long stress_pcp_kb(void)
{
	static char buf[1 << 16];
	long pages = 0;

	if (read_small_file("/proc/zoneinfo", buf, sizeof(buf)))
		return -1;
	for (char *p = strstr(buf, "count:"); p; p = strstr(p + 1, "count:"))
		pages += strtol(p + strlen("count:"), NULL, 10);
	return pages * (sysconf(_SC_PAGESIZE) / 1024);
}

long stress_tasks_alive(void)
{
	DIR *proc = opendir("/proc");
	struct dirent *d;
	long n = 0;

	if (!proc)
		return -1;
	while ((d = readdir(proc))) {
		char path[sizeof(d->d_name) + 16];
		DIR *tasks;

		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", d->d_name);
		tasks = opendir(path);
		if (!tasks)
			continue;
		while ((d = readdir(tasks)))
			n += d->d_name[0] != '.';
		closedir(tasks);
	}
	closedir(proc);
	return n;
}

long stress_slab_active(const char *cache)
{
	static char buf[1 << 18];
	size_t len = strlen(cache), n = 0;
	int f = open("/proc/slabinfo", O_RDONLY | O_CLOEXEC);

	if (f < 0)
		return -1;
	for (;;) {
		ssize_t r = read(f, buf + n, sizeof(buf) - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(f);
	buf[n] = 0;
	for (char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
		if (!strncmp(p, cache, len) && p[len] == ' ')
			return strtol(p + len, NULL, 10);
	return -1;
}

#define KMEMLEAK "/sys/kernel/debug/kmemleak"

int stress_kmemleak_present(void)
{
	return access(KMEMLEAK, R_OK | W_OK) == 0;
}

void stress_kmemleak_mark(void)
{
	if (!stress_kmemleak_present())
		return;
	/* What is unreferenced now is reported, then forgotten by clear. */
	if (write_small_file(KMEMLEAK, "scan") ||
	    write_small_file(KMEMLEAK, "clear"))
		fail_msg("%s: %s", KMEMLEAK, strerror(errno));
}

char *stress_kmemleak_report(void)
{
	size_t cap = 1 << 16, n = 0;
	char *buf;
	int f;

	if (!stress_kmemleak_present())
		return NULL;
	/*
	 * Objects younger than 5 s are not reported, and an object is
	 * reported only when its contents did not change between two scans.
	 */
	abi_sleep_ms(5500);
	for (int i = 0; i < 2; i++)
		if (write_small_file(KMEMLEAK, "scan"))
			fail_msg("%s: scan: %s", KMEMLEAK, strerror(errno));
	buf = malloc(cap);
	assert_non_null(buf);
	f = open(KMEMLEAK, O_RDONLY | O_CLOEXEC);
	assert_true(f >= 0);
	for (;;) {
		if (cap - n < 4096) {
			cap *= 2;
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		ssize_t r = read(f, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		assert_true(r >= 0);
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(f);
	buf[n] = 0;
	return buf;
}

int stress_send_fd(int sock, int fd, char byte)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		memset(cbuf, 0, sizeof(cbuf));
		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof(cbuf);
		struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(fd));
	}
	for (;;) {
		ssize_t r = sendmsg(sock, &msg, MSG_NOSIGNAL);
		if (r == 1)
			return 0;
		if (r < 0 && errno == EINTR)
			continue;
		return -1;
	}
}

int stress_recv_fd(int sock, int *fd, char *byte, int timeout_ms)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = byte, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov,
			      .msg_iovlen = 1,
			      .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct pollfd p = { .fd = sock, .events = POLLIN };

	*fd = -1;
	int r = poll(&p, 1, timeout_ms);
	if (r == 0 || (r < 0 && errno == EINTR))
		return 0;
	if (r < 0)
		return -1;
	ssize_t n;
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		return -1;
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
	if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
		memcpy(fd, CMSG_DATA(cm), sizeof(*fd));
	return 1;
}

int stress_read_full(int fd, void *buf, size_t n, int timeout_ms)
{
	uint64_t deadline = abi_now_ns() + (uint64_t)timeout_ms * 1000000ull;
	size_t done = 0;

	while (done < n) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int64_t left = (int64_t)(deadline - abi_now_ns()) / 1000000;
		if (left <= 0)
			return -1;
		int r = poll(&p, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		ssize_t k = read(fd, (char *)buf + done, n - done);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		done += (size_t)k;
	}
	return 0;
}

/* As tests/vm/report.awk's, but for kmemleak's (test_stress judges it). */
static const char *const splats[] = {
	"BUG:",
	"WARNING:",
	"Oops",
	"general protection fault",
	"Kernel panic",
	"kernel BUG",
	"possible recursive locking",
	"circular locking dependency",
	"inconsistent lock state",
	"KASAN",
	"UBSAN",
	"scheduling while atomic",
	"sleeping function called from invalid context",
	"self-detected stall",
	"rcu: INFO:",
	"detected stalls on CPU",
	"list_add corruption",
	"list_del corruption",
	"hung_task",
	"blocked for more than",
	"hard LOCKUP",
	"soft lockup",
	"Call Trace:",
	"lockdep",
	"DEBUG_LOCKS_WARN_ON",
	"suspicious RCU usage",
	"ODEBUG:",
	NULL,
};

void test_kernel_log_clean(void **state)
{
	char rec[8192];
	int bad = 0, lines = 0, context = 0;
	(void)state;

	if (kmsg_fd < 0)
		skip();
	for (;;) {
		ssize_t r = read(kmsg_fd, rec, sizeof(rec) - 1);
		if (r < 0 && (errno == EINTR || errno == EPIPE))
			continue; /* EPIPE: overwritten records */
		if (r <= 0)
			break;
		rec[r] = 0;
		lines++;
		/* "prio,seq,usec,flags;message\n KEY=value..." */
		char *m = strchr(rec, ';');
		m = m ? m + 1 : rec;
		char *end = strchr(m, '\n');
		if (end)
			*end = 0;
		int splat = 0;
		for (int i = 0; splats[i] && !splat; i++)
			splat = strstr(m, splats[i]) != NULL;
		/* Each splat line, and what follows the first one. */
		if (splat && !bad++)
			context = 40;
		if (splat || context-- > 0)
			printf("# kernel: %s\n", m);
	}
	printf("# %d kernel log lines since the start, %d splat lines\n", lines,
	       bad);
	if (bad)
		fail_msg("the kernel logged %d splat line(s) during the tests",
			 bad);
}

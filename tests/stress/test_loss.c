// SPDX-License-Identifier: GPL-2.0
/*
 * test_loss.c - exact loss accounting under load. Three monitors with the
 * smallest rings (MKM_RING_MIN_BYTES) and every event class, each tracking
 * its own producer threads pinned two per CPU (marks, yields, short
 * sleeps: switch, wakeup, IRQ, syscall and mark events), each drained by a
 * slow reader (small reads, a pause between them) for MKM_STRESS_SECONDS
 * (default 8). Then suspend and drain; per monitor and CPU: produced ==
 * read + lost, nothing buffered, the records read number stats.read, the
 * LOST records' arg0 add up to stats.lost, seq runs without a hole from 0
 * to produced (each gap covered by exactly one LOST record), and loss did
 * happen. While it runs, the counters never go back.
 */
#include "stress.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <time.h>

#define NMON 3
#define PER_CPU 2
#define MAX_PRODUCERS (2 * PER_CPU)

struct mon;

struct producer {
	struct mon *m;
	pthread_t thread;
	int cpu;
	atomic_int tid;
	long marks;
};

struct mon {
	int fd;
	pthread_t reader;
	struct stress_checker ck;
	int nprod;
	struct producer prod[MAX_PRODUCERS];
	atomic_int suspended;
	long reads;
	struct mkm_cpu_stats last[STRESS_MAX_CPUS];
};

static atomic_int go, stop;
static unsigned int nr_cpus;

static void *producer_main(void *arg)
{
	struct producer *p = arg;
	struct mkm_mark m = { 0 };

	if (abi_pin_self(p->cpu)) {
		stress_error("pinning a producer to cpu %d: %s", p->cpu,
			     strerror(errno));
		return NULL;
	}
	atomic_store(&p->tid, (int)syscall(SYS_gettid));
	while (!atomic_load(&go) && !atomic_load(&stop))
		sched_yield();
	for (long i = 0; !atomic_load(&stop); i++) {
		m.value = (uint64_t)p->cpu << 32 | (uint64_t)i;
		if (ioctl(p->m->fd, MKM_IOC_MARK, &m)) {
			stress_error("mark: %s", strerror(errno));
			break;
		}
		p->marks++;
		if (i % 8 == 7)
			sched_yield();
		if (i % 64 == 63) {
			struct timespec ts = { 0, 20000 };
			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

static void *reader_main(void *arg)
{
	struct mon *m = arg;
	static _Thread_local struct mkm_event buf[64];
	struct stress_rng r;
	char msg[256];

	stress_rng_init(&r, (uintptr_t)m->fd);
	for (;;) {
		size_t count = 32 + stress_below(&r, sizeof(buf) - 32);
		int was_suspended = atomic_load(&m->suspended);
		ssize_t n = read(m->fd, buf, count);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || n % 32) {
			stress_error("read(%zu): %zd (%s)", count, n,
				     strerror(errno));
			return NULL;
		}
		if (n == 0) {
			/* Suspended and empty: drained for good. */
			if (was_suspended)
				return NULL;
			continue;
		}
		m->reads++;
		if (stress_checker_feed(&m->ck, buf, (size_t)n / 32, 1, NULL,
					msg, sizeof(msg))) {
			stress_error("monitor fd %d: %s", m->fd, msg);
			return NULL;
		}
		/* A slow reader, unless the monitor is being drained. */
		if (!was_suspended)
			abi_sleep_ms(3);
	}
}

/* Counters of a running monitor may only grow. */
static void check_monotonic(struct mon *m)
{
	struct mkm_cpu_stats *st;
	uint32_t nr = abi_stats(m->fd, &st);

	for (uint32_t c = 0; c < nr && c < STRESS_MAX_CPUS; c++) {
		if (st[c].produced < m->last[c].produced ||
		    st[c].lost < m->last[c].lost ||
		    st[c].read < m->last[c].read)
			fail_msg("cpu %u: counters went back: produced %llu -> "
				 "%llu, lost %llu -> %llu, read %llu -> %llu",
				 c, (unsigned long long)m->last[c].produced,
				 (unsigned long long)st[c].produced,
				 (unsigned long long)m->last[c].lost,
				 (unsigned long long)st[c].lost,
				 (unsigned long long)m->last[c].read,
				 (unsigned long long)st[c].read);
		m->last[c] = st[c];
	}
	free(st);
}

static void test_loss_accounted_exactly_under_load(void **state)
{
	static struct mon mons[NMON];
	unsigned int seconds =
		(unsigned int)stress_env("MKM_STRESS_SECONDS", 8);
	struct mkm_config c;
	(void)state;

	stress_timeout = seconds + 120;
	alarm(stress_timeout);
	int ncpu = abi_nr_cpus_online() >= 2 ? 2 : 1;
	uint32_t classes = MKM_CLASS_ALL;
	for (int i = 0; i < NMON; i++) {
		struct mon *m = &mons[i];
		memset(m, 0, sizeof(*m));
		m->fd = abi_open();
		memset(&c, 0, sizeof(c));
		c.ring_bytes = MKM_RING_MIN_BYTES;
		c.classes = classes;
		if (ioctl(m->fd, MKM_IOC_CONFIGURE, &c) && errno == EOPNOTSUPP)
			classes &= ~MKM_CLASS_SYSCALL;
		abi_configure(m->fd, MKM_RING_MIN_BYTES, classes, 0, &c);
		ABI_EQ(c.ring_bytes, MKM_RING_MIN_BYTES);
		stress_checker_init(&m->ck, nr_cpus);
		m->nprod = PER_CPU * ncpu;
		for (int k = 0; k < m->nprod; k++) {
			struct producer *p = &m->prod[k];
			p->m = m;
			p->cpu = abi_cpu_online(k % ncpu);
			ABI_OK(pthread_create(&p->thread, NULL, producer_main,
					      p));
		}
	}
	/* Track every producer before it starts, then let them go. */
	for (int i = 0; i < NMON; i++) {
		for (int k = 0; k < mons[i].nprod; k++) {
			struct producer *p = &mons[i].prod[k];
			for (int w = 0; !atomic_load(&p->tid); w++) {
				if (w > 5000)
					fail_msg("producer did not start");
				abi_sleep_ms(1);
			}
			ABI_OK(abi_monitor(mons[i].fd, atomic_load(&p->tid),
					   (uint32_t)(i * 100 + k)));
		}
		abi_resume(mons[i].fd);
		ABI_OK(pthread_create(&mons[i].reader, NULL, reader_main,
				      &mons[i]));
	}
	printf("# %d monitors, %d producers each on %d CPU(s), rings of %u "
	       "bytes, classes %#x, %u s\n",
	       NMON, PER_CPU * ncpu, ncpu, MKM_RING_MIN_BYTES, classes,
	       seconds);
	uint64_t start = abi_now_ns();
	atomic_store(&go, 1);
	while (abi_now_ns() - start < seconds * 1000000000ull &&
	       !stress_failed()) {
		abi_sleep_ms(250);
		for (int i = 0; i < NMON; i++)
			check_monotonic(&mons[i]);
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < NMON; i++)
		for (int k = 0; k < mons[i].nprod; k++)
			pthread_join(mons[i].prod[k].thread, NULL);
	/* Suspend: no sensor writes any more, drops at the end show up. */
	for (int i = 0; i < NMON; i++) {
		abi_suspend(mons[i].fd);
		atomic_store(&mons[i].suspended, 1);
	}
	for (int i = 0; i < NMON; i++)
		pthread_join(mons[i].reader, NULL);
	double took = (double)(abi_now_ns() - start) / 1e9;
	stress_check();

	uint64_t all_produced = 0, all_lost = 0, all_read = 0;
	for (int i = 0; i < NMON; i++) {
		struct mon *m = &mons[i];
		struct mkm_cpu_stats *st;
		long marks = 0;
		uint32_t nr = abi_stats(m->fd, &st);
		assert_true(nr <= STRESS_MAX_CPUS);
		for (int k = 0; k < m->nprod; k++)
			marks += m->prod[k].marks;
		for (uint32_t cpu = 0; cpu < nr; cpu++) {
			const struct mkm_cpu_stats *s = &st[cpu];
			printf("# monitor %d cpu %u: produced %llu = read %llu "
			       "+ lost %llu; stream: %llu records, LOST "
			       "records summing to %llu\n",
			       i, cpu, (unsigned long long)s->produced,
			       (unsigned long long)s->read,
			       (unsigned long long)s->lost,
			       (unsigned long long)m->ck.records[cpu],
			       (unsigned long long)m->ck.lost[cpu]);
			if (s->produced != s->read + s->lost ||
			    s->buffered != 0 || s->read != m->ck.records[cpu] ||
			    s->lost != m->ck.lost[cpu])
				fail_msg("monitor %d cpu %u: accounting does "
					 "not add up (buffered %llu)",
					 i, cpu,
					 (unsigned long long)s->buffered);
			/* seq counts every event produced, read or lost. */
			if (s->produced &&
			    (m->ck.first_seq[cpu] != 0 ||
			     m->ck.next_seq[cpu] != (uint32_t)s->produced))
				fail_msg("monitor %d cpu %u: stream covers seq "
					 "%u to %u, produced %llu",
					 i, cpu, m->ck.first_seq[cpu],
					 m->ck.next_seq[cpu],
					 (unsigned long long)s->produced);
			all_produced += s->produced;
			all_lost += s->lost;
			all_read += s->read;
		}
		/* The test is only worth something if rings overflowed. */
		for (int k = 0; k < ncpu; k++) {
			int cpu = abi_cpu_online(k);
			if (st[cpu].lost == 0 || st[cpu].read == 0)
				fail_msg("monitor %d cpu %d: read %llu, lost "
					 "%llu: the load did not overflow",
					 i, cpu,
					 (unsigned long long)st[cpu].read,
					 (unsigned long long)st[cpu].lost);
		}
		printf("# monitor %d: %ld marks, %ld reads\n", i, marks,
		       m->reads);
		free(st);
		ABI_OK(close(m->fd));
	}
	printf("# loss: %.1f s, %llu events produced, %llu read, %llu lost "
	       "(%.0f%%), all accounted\n",
	       took, (unsigned long long)all_produced,
	       (unsigned long long)all_read, (unsigned long long)all_lost,
	       all_produced ? 100.0 * (double)all_lost / (double)all_produced :
			      0.0);
}

/*
 * Drops at the end of a ring are reported once the monitor is suspended,
 * by the read that empties the ring. A read that takes exactly the records
 * buffered leaves that LOST record unread; a configure then must not make
 * it vanish ("no data is dropped by reconfiguring"): either it refuses
 * (EBUSY, read them first) or the new rings still report the drops.
 */
static void test_configure_keeps_unreported_loss(void **state)
{
	const uint32_t recs = MKM_RING_MIN_BYTES / sizeof(struct mkm_event);
	static struct mkm_event ev[4096 / sizeof(struct mkm_event)];
	struct mkm_config c;
	struct mkm_cpu_stats *st;
	(void)state;

	int cpu = abi_cpu_online(0);
	ABI_OK(abi_pin_self(cpu));
	int fd = abi_open();
	abi_configure(fd, MKM_RING_MIN_BYTES, 0, 0, NULL);
	abi_resume(fd);
	for (uint32_t i = 0; i < 3 * recs; i++)
		ABI_OK(abi_mark(fd, i));
	abi_suspend(fd);
	abi_stats(fd, &st);
	ABI_EQ(st[cpu].buffered, recs);
	ABI_EQ(st[cpu].lost, 2 * recs);
	free(st);
	/* Exactly the records: the LOST record that follows stays. */
	ABI_EQ(read(fd, ev, recs * sizeof(struct mkm_event)),
	       recs * sizeof(struct mkm_event));
	ABI_EQ(ev[recs - 1].type, MKM_EV_MARK);
	memset(&c, 0, sizeof(c));
	c.ring_bytes = 2 * MKM_RING_MIN_BYTES;
	errno = 0;
	int rc = ioctl(fd, MKM_IOC_CONFIGURE, &c);
	int e = errno;
	if (rc && e != EBUSY)
		fail_msg("configure: %s", strerror(e));
	ssize_t n = read(fd, ev, sizeof(ev));
	if (n != sizeof(struct mkm_event) || ev[0].type != MKM_EV_LOST ||
	    ev[0].arg0 != 2 * recs)
		fail_msg("configure %s with %u drops not yet reported; the "
			 "next read gave %zd bytes (%s of %u), expected their "
			 "LOST record",
			 rc ? "refused" : "succeeded", 2 * recs, n,
			 n > 0 ? mon_event_name(ev[0].type) : "-",
			 n > 0 ? ev[0].arg0 : 0);
	if (rc)
		ABI_OK(ioctl(fd, MKM_IOC_CONFIGURE, &c));
	ABI_OK(close(fd));
}

int main(int argc, char **argv)
{
	stress_main(argc, argv, 130);
	nr_cpus = stress_possible_cpus();
	const struct CMUnitTest tests[] = {
		STRESS_TEST(test_loss_accounted_exactly_under_load),
		STRESS_TEST(test_configure_keeps_unreported_loss),
		STRESS_TEST(test_kernel_log_clean),
	};
	return cmocka_run_group_tests_name("loss", tests, NULL, NULL);
}

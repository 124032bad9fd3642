// SPDX-License-Identifier: GPL-2.0
/*
 * test_overflow.c - the smallest ring, overfilled: per CPU, produced ==
 * read + lost exactly (MKM_IOC_STATS), the records read match stats.read,
 * the LOST records add up to stats.lost and sit where the seq gaps are, and
 * a full ring keeps its oldest records (new events are dropped).
 *
 * Marks from unmonitored threads are the only events of a monitor that
 * tracks no thread, so the mark tests know every count in advance.
 */
#include "abi.h"

#define MAX_CPUS 64
#define RING_RECORDS (MKM_RING_MIN_BYTES / sizeof(struct mkm_event))

struct marks {
	int fd;
	uint32_t n;
	uint32_t first; /* value of the first mark */
};

static void marks_fn(struct abi_worker *w)
{
	struct marks *m = w->arg;

	for (uint32_t i = 0; i < m->n; i++)
		if (abi_mark(m->fd, (uint64_t)w->cpu << 32 | (m->first + i))) {
			w->error = __LINE__;
			return;
		}
}

static int open_smallest(void)
{
	struct mkm_config c;
	int fd = abi_open();

	abi_configure(fd, MKM_RING_MIN_BYTES, 0, 0, &c);
	ABI_EQ(c.ring_bytes, MKM_RING_MIN_BYTES);
	return fd;
}

/*
 * Every per-CPU invariant of a drained, suspended monitor, against its
 * stats; returns the per-CPU lost counts in lost_out (optional).
 */
static void check_accounting(int fd, const struct abi_trace *t,
			     uint64_t *lost_out)
{
	struct mkm_cpu_stats *st;
	uint64_t rec[MAX_CPUS * 16], lost[MAX_CPUS * 16];

	uint32_t nr = abi_stats(fd, &st);
	assert_true(nr <= MAX_CPUS * 16);
	abi_check_stream(t, nr, rec, lost);
	for (uint32_t cpu = 0; cpu < nr; cpu++) {
		if (st[cpu].produced != st[cpu].read + st[cpu].lost ||
		    st[cpu].buffered != 0 || st[cpu].read != rec[cpu] ||
		    st[cpu].lost != lost[cpu])
			fail_msg(
				"cpu %u: stats produced %llu read %llu lost %llu "
				"buffered %llu; stream has %llu records and "
				"LOST records summing to %llu",
				cpu, (unsigned long long)st[cpu].produced,
				(unsigned long long)st[cpu].read,
				(unsigned long long)st[cpu].lost,
				(unsigned long long)st[cpu].buffered,
				(unsigned long long)rec[cpu],
				(unsigned long long)lost[cpu]);
		if (lost_out)
			lost_out[cpu] = st[cpu].lost;
	}
	free(st);
}

static void test_stats_marks_overflow_accounted(void **state)
{
	struct abi_worker w[MAX_CPUS];
	struct mkm_cpu_stats *st;
	struct abi_trace t = { 0 };
	const uint32_t per_cpu = 3 * RING_RECORDS;
	(void)state;

	int n = abi_nr_cpus_online();
	if (n > MAX_CPUS)
		n = MAX_CPUS;
	int fd = open_smallest();
	struct marks m = { .fd = fd, .n = per_cpu, .first = 0 };
	abi_resume(fd);
	for (int i = 0; i < n; i++)
		abi_worker_start(&w[i], "abi-flood", abi_cpu_online(i),
				 marks_fn, &m);
	for (int i = 0; i < n; i++)
		abi_worker_run(&w[i]);
	for (int i = 0; i < n; i++)
		abi_worker_wait(&w[i]);
	abi_suspend(fd);

	/* Before reading: nothing read, the rest buffered or lost. */
	uint32_t nr = abi_stats(fd, &st);
	for (int i = 0; i < n; i++) {
		const struct mkm_cpu_stats *s = &st[w[i].cpu];
		ABI_EQ(s->produced, per_cpu);
		ABI_EQ(s->read, 0);
		ABI_EQ(s->buffered + s->lost, per_cpu);
		assert_true(s->buffered > 0 && s->buffered <= RING_RECORDS);
		assert_true(s->lost >= per_cpu - RING_RECORDS);
	}
	for (uint32_t cpu = 0; cpu < nr; cpu++) {
		int used = 0;
		for (int i = 0; i < n; i++)
			used |= w[i].cpu == (int)cpu;
		if (!used)
			ABI_EQ(st[cpu].produced, 0);
	}
	free(st);

	abi_drain(fd, &t);
	check_accounting(fd, &t, NULL);
	for (int i = 0; i < n; i++) {
		struct mkm_event *ev;
		size_t k = abi_cpu_events(&t, (unsigned int)w[i].cpu, &ev);
		/* The oldest marks kept in order, then one LOST at the end. */
		assert_true(k >= 2);
		for (size_t j = 0; j + 1 < k; j++) {
			if (ev[j].type != MKM_EV_MARK || ev[j].arg0 != j ||
			    ev[j].arg1 != (uint32_t)w[i].cpu ||
			    ev[j].tid != (uint32_t)w[i].tid)
				fail_msg("cpu %d record %zu: %s value %u, "
					 "expected mark %zu",
					 w[i].cpu, j,
					 mon_event_name(ev[j].type), ev[j].arg0,
					 j);
		}
		ABI_EQ(ev[k - 1].type, MKM_EV_LOST);
		ABI_EQ(ev[k - 1].arg0, per_cpu - (k - 1));
		ABI_EQ(ev[k - 1].seq, ev[k - 2].seq + 1);
		ABI_EQ(ev[k - 1].time_ns, ev[k - 2].time_ns);
		free(ev);
		abi_worker_stop(&w[i]);
	}
	abi_trace_free(&t);
	ABI_OK(close(fd));
}

static void test_overflow_twice_lost_records_in_place(void **state)
{
	struct abi_worker w;
	struct abi_trace t = { 0 };
	struct mkm_event *ev;
	uint64_t lost[MAX_CPUS * 16];
	const uint32_t batch = RING_RECORDS + 72;
	(void)state;

	int cpu = abi_cpu_online(0);
	int fd = open_smallest();
	struct marks m = { .fd = fd, .n = batch, .first = 0 };
	abi_worker_start(&w, "abi-flood", cpu, marks_fn, &m);
	abi_resume(fd);
	abi_worker_run(&w);
	abi_worker_wait(&w);
	/* Drain while resumed, then overflow again. */
	abi_drain_nonblock(fd, &t);
	m.first = 1000;
	abi_worker_run(&w);
	abi_worker_wait(&w);
	abi_suspend(fd);
	abi_drain(fd, &t);
	check_accounting(fd, &t, lost);
	ABI_EQ(lost[cpu], 2 * batch - abi_count(&t, w.tid, MKM_EV_MARK));

	size_t k = abi_cpu_events(&t, (unsigned int)cpu, &ev);
	size_t nlost = 0;
	/*
	 * Marks carry their number, seq counts drops: between two marks of
	 * one batch the value and the seq advance alike, and a LOST record
	 * sits exactly where marks are missing.
	 */
	for (size_t j = 0; j < k; j++) {
		if (ev[j].type == MKM_EV_LOST) {
			nlost++;
			if (j == 0 || ev[j - 1].type != MKM_EV_MARK)
				fail_msg("record %zu: LOST not after a mark",
					 j);
			continue;
		}
		ABI_EQ(ev[j].type, MKM_EV_MARK);
		if (j == 0)
			continue;
		const struct mkm_event *p = &ev[j - 1];
		if (p->type == MKM_EV_LOST) {
			const struct mkm_event *pm = &ev[j - 2];
			uint32_t missing = pm->arg0 < 1000 &&
							   ev[j].arg0 >= 1000 ?
						   (batch - 1 - pm->arg0) +
							   (ev[j].arg0 - 1000) :
						   ev[j].arg0 - pm->arg0 - 1;
			ABI_EQ(p->arg0, missing);
			ABI_EQ(ev[j].seq - pm->seq, missing + 1);
		} else {
			/* No LOST in between: nothing was missing. */
			ABI_EQ(ev[j].seq, p->seq + 1);
			if (!(p->arg0 < 1000 && ev[j].arg0 >= 1000))
				ABI_EQ(ev[j].arg0, p->arg0 + 1);
			else
				ABI_EQ(p->arg0, batch - 1);
		}
	}
	/* Both batches overflowed: a gap after each. */
	ABI_EQ(nlost, 2);
	free(ev);
	abi_trace_free(&t);
	abi_worker_stop(&w);
	ABI_OK(close(fd));
}

static void test_overflow_sched_events_accounted(void **state)
{
	struct abi_pingpong p;
	struct abi_trace t = { 0 };
	uint64_t lost[MAX_CPUS * 16];
	(void)state;

	int cpu = abi_cpu_online(abi_nr_cpus_online() - 1);
	abi_pingpong_start(&p, "abi-ovf", cpu, cpu, 300);
	int fd = open_smallest();
	abi_pingpong_record(fd, &p, &t);
	check_accounting(fd, &t, lost);
	/* 300 round trips make well over a ring of 128 records. */
	assert_true(lost[cpu] > 0);
	assert_true(abi_count(&t, ABI_ANY, MKM_EV_LOST) >= 1);
	abi_trace_free(&t);
	ABI_OK(close(fd));
	abi_pingpong_stop(&p);
}

static void test_configure_after_overflow_drained(void **state)
{
	struct abi_worker w;
	struct abi_trace t = { 0 };
	struct mkm_config c;
	(void)state;

	int fd = open_smallest();
	struct marks m = { .fd = fd, .n = 2 * RING_RECORDS, .first = 0 };
	abi_worker_start(&w, "abi-flood", abi_cpu_online(0), marks_fn, &m);
	abi_resume(fd);
	abi_worker_run(&w);
	abi_worker_wait(&w);
	abi_suspend(fd);
	/* Unread records, and a pending LOST: still EBUSY. */
	memset(&c, 0, sizeof(c));
	c.ring_bytes = 2 * MKM_RING_MIN_BYTES;
	ABI_ERR(ioctl(fd, MKM_IOC_CONFIGURE, &c), EBUSY);
	abi_drain(fd, &t);
	ABI_EQ(abi_count(&t, ABI_ANY, MKM_EV_LOST), 1);
	memset(&c, 0, sizeof(c));
	c.ring_bytes = 2 * MKM_RING_MIN_BYTES;
	ABI_OK(ioctl(fd, MKM_IOC_CONFIGURE, &c));
	ABI_EQ(c.ring_bytes, 2 * MKM_RING_MIN_BYTES);
	abi_trace_free(&t);
	abi_worker_stop(&w);
	ABI_OK(close(fd));
}

int main(int argc, char **argv)
{
	abi_main(argc, argv);
	const struct CMUnitTest tests[] = {
		ABI_TEST(test_stats_marks_overflow_accounted),
		ABI_TEST(test_overflow_twice_lost_records_in_place),
		ABI_TEST(test_overflow_sched_events_accounted),
		ABI_TEST(test_configure_after_overflow_drained),
	};
	return cmocka_run_group_tests_name("overflow", tests, NULL, NULL);
}

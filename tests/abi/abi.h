/* SPDX-License-Identifier: GPL-2.0 */
/*
 * abi.h - helpers shared by the ABI tests of /dev/mkm (run as root in the
 * VM guest, one cmocka binary per area).
 *
 * Conventions: assertions (cmocka) only in the thread running the tests.
 * Worker threads and forked children never assert: workers record an error
 * flag, children print what failed and exit non-zero (CHILD_* macros), and
 * the test thread checks both. Every test has a SIGALRM deadline, and every
 * wait on another thread or process has a timeout, so nothing hangs the VM.
 */
#ifndef MKM_TESTS_ABI_H
#define MKM_TESTS_ABI_H

#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/types.h>
#include <unistd.h>

#include <cmocka.h>

#include "mkm.h"
/* For its names of event types (mon_event_name) alone. */
#include "libmonitor.h"

/* Seconds a single test may take in the (emulated, slow) guest. */
#define ABI_TEST_TIMEOUT 30
/* Seconds to wait for a worker or child before declaring it stuck. */
#define ABI_WAIT_TIMEOUT 15

#define ABI_EV_SIZE ((size_t)sizeof(struct mkm_event))

/* Expect call to return 0. */
#define ABI_OK(call)                                                        \
	do {                                                                \
		errno = 0;                                                  \
		long abi_rc_ = (long)(call);                                \
		int abi_e_ = errno;                                         \
		if (abi_rc_ != 0)                                           \
			fail_msg("%s: returned %ld, errno %d (%s); "        \
				 "expected 0",                              \
				 #call, abi_rc_, abi_e_, strerror(abi_e_)); \
	} while (0)

/* Expect call to return -1 with errno err. */
#define ABI_ERR(call, err)                                                 \
	do {                                                               \
		errno = 0;                                                 \
		long abi_rc_ = (long)(call);                               \
		int abi_e_ = errno;                                        \
		if (abi_rc_ != -1 || abi_e_ != (err))                      \
			fail_msg("%s: returned %ld, errno %d (%s); "       \
				 "expected -1 with %s",                    \
				 #call, abi_rc_, abi_e_, strerror(abi_e_), \
				 #err);                                    \
	} while (0)

/* Expect a == b (as 64-bit unsigned), naming both in the failure. */
#define ABI_EQ(a, b)                                                       \
	do {                                                               \
		unsigned long long abi_a_ = (unsigned long long)(a);       \
		unsigned long long abi_b_ = (unsigned long long)(b);       \
		if (abi_a_ != abi_b_)                                      \
			fail_msg("%s == %s: %llu != %llu", #a, #b, abi_a_, \
				 abi_b_);                                  \
	} while (0)

/* In a forked child: report a failed check on stderr and exit 1. */
#define CHILD_CHECK(cond)                                                 \
	do {                                                              \
		if (!(cond)) {                                            \
			fprintf(stderr,                                   \
				"child %d: %s:%d: check failed: %s "      \
				"(errno %d %s)\n",                        \
				(int)getpid(), __FILE__, __LINE__, #cond, \
				errno, strerror(errno));                  \
			_exit(1);                                         \
		}                                                         \
	} while (0)
#define CHILD_OK(call)                                                    \
	do {                                                              \
		errno = 0;                                                \
		long abi_rc_ = (long)(call);                              \
		if (abi_rc_ != 0) {                                       \
			fprintf(stderr,                                   \
				"child %d: %s:%d: %s returned %ld, "      \
				"errno %d (%s); expected 0\n",            \
				(int)getpid(), __FILE__, __LINE__, #call, \
				abi_rc_, errno, strerror(errno));         \
			_exit(1);                                         \
		}                                                         \
	} while (0)
#define CHILD_ERR(call, err)                                              \
	do {                                                              \
		errno = 0;                                                \
		long abi_rc_ = (long)(call);                              \
		int abi_e_ = errno;                                       \
		if (abi_rc_ != -1 || abi_e_ != (err)) {                   \
			fprintf(stderr,                                   \
				"child %d: %s:%d: %s returned %ld, "      \
				"errno %d (%s); expected -1 with %s\n",   \
				(int)getpid(), __FILE__, __LINE__, #call, \
				abi_rc_, abi_e_, strerror(abi_e_), #err); \
			_exit(1);                                         \
		}                                                         \
	} while (0)

/* A test with the per-test deadline (see abi_test_setup). */
#define ABI_TEST(f) \
	cmocka_unit_test_setup_teardown(f, abi_test_setup, abi_test_teardown)

int abi_test_setup(void **state);
int abi_test_teardown(void **state);
/* Call first in main(): handles the helper modes of the test binaries. */
void abi_main(int argc, char **argv);

pid_t abi_gettid(void);
uint64_t abi_now_ns(void); /* CLOCK_MONOTONIC */
void abi_sleep_ms(unsigned int ms);

/* CPUs: online ones in the test's affinity mask, and pinning. */
/* Whether the guest's kernel is PREEMPT_RT (its version string says so). */
int abi_kernel_is_rt(void);
int abi_nr_cpus_online(void);
int abi_cpu_online(int n); /* the n-th usable CPU id, or -1 */
int abi_pin_self(int cpu); /* cpu < 0: every CPU */
int abi_pin_tid(pid_t tid, int cpu);

/* The monitor. abi_open asserts success; the others return the ioctl's. */
int abi_open(void);
int abi_open_flags(int flags);
void abi_configure(int fd, uint64_t ring_bytes, uint32_t classes,
		   uint32_t flags, struct mkm_config *out);
void abi_resume(int fd);
void abi_suspend(int fd);
int abi_monitor(int fd, pid_t tid, uint32_t unique_id);
int abi_unmonitor(int fd, pid_t tid);
int abi_mark(int fd, uint64_t value);
/* STATS into a freshly allocated array; returns the number of CPU ids. */
uint32_t abi_stats(int fd, struct mkm_cpu_stats **cpus);

/* A drained event stream, in the order read() gave it. */
struct abi_trace {
	struct mkm_event *ev;
	size_t n, cap;
	size_t reads; /* read() calls that returned data */
};
/* Read until read() returns 0 (the monitor must be suspended). */
void abi_drain(int fd, struct abi_trace *t);
/* Read until EAGAIN (resumed monitor), with O_NONBLOCK set meanwhile. */
void abi_drain_nonblock(int fd, struct abi_trace *t);
void abi_trace_free(struct abi_trace *t);
/*
 * Order the stream by time_ns (stable: each CPU's order is kept). read()
 * hands out one CPU's records after another's, so "after" across CPUs
 * needs this.
 */
void abi_sort_by_time(struct abi_trace *t);
/*
 * Drain a resumed monitor into t until an event of tid and type is there
 * (ABI_WAIT_TIMEOUT at most: fails then); returns its index.
 */
long abi_wait_event(int fd, struct abi_trace *t, long tid, int type);

#define ABI_ANY (-1)
/* Count events: tid/type/cpu ABI_ANY match all; flags & mask == val. */
size_t abi_count(const struct abi_trace *t, long tid, int type);
size_t abi_count_where(const struct abi_trace *t, long tid, int type, long cpu,
		       uint8_t flag_mask, uint8_t flag_val);
/* Index of the first event at or after from matching, or -1. */
long abi_find(const struct abi_trace *t, size_t from, long tid, int type);
/* A thread's name from its two NAME records (flags 0, then 1). */
void abi_name_of(const struct mkm_event *n0, const struct mkm_event *n1,
		 char out[17]);
/* The events of one CPU, in order (caller frees). */
size_t abi_cpu_events(const struct abi_trace *t, unsigned int cpu,
		      struct mkm_event **out);
/*
 * Check the per-CPU invariants of the header on a whole stream: time_ns
 * never going backwards, seq advancing by 1 per record and by arg0 after a
 * LOST record. Fills per-CPU record (non-LOST) and lost counts if given
 * (arrays of nr_cpus).
 */
void abi_check_stream(const struct abi_trace *t, unsigned int nr_cpus,
		      uint64_t *records, uint64_t *lost);
/*
 * out = in with each MKM_EV_SWITCH (MKM_CONFIG_ONE_SWITCH) as the
 * SWITCH_OUT and SWITCH_IN it stands for, written independently of
 * libmonitor's reader: next's unique_id is the one last seen with its tid
 * in the stream. Returns the number of SWITCH records split.
 */
size_t abi_split_switches(const struct abi_trace *in, struct abi_trace *out);
/* Print the stream (debugging a failure). */
void abi_dump(const struct abi_trace *t, size_t max);

/* /proc/self/task/<tid>/status and schedstat: the kernel's own counters. */
struct abi_ctxt {
	unsigned long vol, nonvol;
	uint64_t run_delay; /* ns waiting on a run queue, from schedstat */
};
void abi_ctxt(pid_t tid, struct abi_ctxt *c);
/* State letter from /proc/self/task/<tid>/stat, or 0. */
char abi_task_state(pid_t tid);
/* Wait until process pid is a zombie (exited, not reaped). */
void abi_wait_zombie(pid_t pid);
/* Wait until tid is blocked (S) with stable switch counters. */
void abi_wait_blocked(pid_t tid);
/* Same for a process (reads /proc/<pid>/...). */
void abi_wait_proc_blocked(pid_t pid);

/*
 * A worker thread, optionally pinned, that runs fn each time it is told to
 * and otherwise sleeps in read() on a pipe (a quiet, blocked state).
 */
struct abi_worker {
	pthread_t thread;
	pid_t tid;
	int cpu;
	int cmd[2], done[2];
	void (*fn)(struct abi_worker *w);
	void *arg;
	char name[16];
	volatile int error; /* set by fn on failure (line number) */
	volatile long progress;
};
void abi_worker_start(struct abi_worker *w, const char *name, int cpu,
		      void (*fn)(struct abi_worker *w), void *arg);
void abi_worker_run(struct abi_worker *w); /* runs fn once, no waiting */
void abi_worker_wait(struct abi_worker *w); /* until fn returned */
void abi_worker_stop(struct abi_worker *w); /* joins */

/* Ping-pong between two workers over two pipes, n round trips per run. */
struct abi_pingpong {
	struct abi_worker a, b;
	int ab[2], ba[2];
	long n;
};
void abi_pingpong_start(struct abi_pingpong *p, const char *name, int cpu_a,
			int cpu_b, long n);
void abi_pingpong_run(struct abi_pingpong *p); /* both, and waits */
void abi_pingpong_stop(struct abi_pingpong *p);
/*
 * One run of p recorded by the configured, suspended monitor fd: both
 * threads tracked (unique_ids 1 and 2) from blocked to blocked, the
 * monitor suspended and drained into t.
 */
void abi_pingpong_record(int fd, struct abi_pingpong *p, struct abi_trace *t);

/* Wait for a child with a deadline; returns the wait status. */
int abi_wait_child(pid_t pid);
/* The same, for a child given longer than ABI_WAIT_TIMEOUT. */
int abi_wait_child_for(pid_t pid, unsigned int seconds);
/* Assert the child exited 0. */
void abi_expect_child_ok(pid_t pid);
/* Drop to uid/gid (all three ids), no groups, and stay dumpable. */
int abi_drop_privileges(uid_t uid, gid_t gid);
/* Copies file from to to, owned by root with mode (setuid bits too). 0 or -1. */
int abi_install_copy(const char *from, const char *to, mode_t mode);
/* Make /dev/mkm usable by unprivileged test children. */
void abi_allow_unprivileged_open(void);

#endif /* MKM_TESTS_ABI_H */

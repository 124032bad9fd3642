/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stress.h - helpers of the stress, fuzz and lifetime tests of mkm.ko (run
 * as root in the VM guest), on top of tests/abi/abi.h.
 *
 * The conventions of abi.h hold: cmocka assertions only in the thread that
 * runs the tests; worker threads report through stress_error() (the first
 * message is kept and the test thread fails with it in stress_check()),
 * forked children through the CHILD_* macros and their exit status. Every
 * wait is bounded.
 *
 * Each binary ends with test_kernel_log_clean, which reads the kernel log
 * written since the binary started (/dev/kmsg, so it works whether or not
 * the kernel stamps its lines with the time) and fails on any splat.
 */
#ifndef MKM_TESTS_STRESS_H
#define MKM_TESTS_STRESS_H

#include "abi.h"

#include <stdatomic.h>

/* A test whose deadline is stress_timeout seconds (see stress_setup). */
#define STRESS_TEST(f) \
	cmocka_unit_test_setup_teardown(f, stress_setup, abi_test_teardown)

/* Seconds a test of this binary may take; set before the tests run. */
extern unsigned int stress_timeout;

/* Call first in main(): abi_main(), the kernel log mark, the seed. */
void stress_main(int argc, char **argv, unsigned int timeout);
int stress_setup(void **state);

/* An environment variable as a number, or dflt when unset or bad. */
long stress_env(const char *name, long dflt);

/* Fast random numbers (xorshift64*), one state per thread. */
struct stress_rng {
	uint64_t s;
};
/* A stream of the run's seed (MKM_STRESS_SEED, else random; printed). */
void stress_rng_init(struct stress_rng *r, uint64_t salt);
uint64_t stress_rand(struct stress_rng *r);
/* Uniform in [0, n), n > 0. */
uint64_t stress_below(struct stress_rng *r, uint64_t n);

/* Errors found off the test thread. */
void stress_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int stress_failed(void);
/* In the test thread: fail with the first error, if any. */
void stress_check(void);

/* Whether e is in set, a list ended by 0. */
int stress_errno_in(int e, const int *set);

/* SIGUSR1 with a handler that does nothing and no SA_RESTART: EINTR. */
void stress_sigusr1_interrupts(void);

/*
 * Events read from one monitor, checked record by record: a CPU's records
 * in seq order with time never going back, LOST records as abi.h's
 * abi_check_stream checks them. exact: every record of the monitor goes
 * through this checker, so seq advances by exactly 1 per record and arg0
 * per LOST record; otherwise others read from the same monitor too, and seq
 * only has to grow. restart (per CPU, or NULL): a configure may have made
 * new rings since the CPU's last record, so its first record here may start
 * over (from seq 0 when exact).
 */
#define STRESS_MAX_CPUS 64
struct stress_checker {
	unsigned int nr_cpus;
	uint8_t have[STRESS_MAX_CPUS];
	uint32_t next_seq[STRESS_MAX_CPUS];
	uint32_t first_seq[STRESS_MAX_CPUS]; /* of the CPU's first record */
	uint64_t last_ts[STRESS_MAX_CPUS];
	uint64_t records[STRESS_MAX_CPUS]; /* non-LOST records seen */
	uint64_t lost[STRESS_MAX_CPUS]; /* sum of the LOST records' arg0 */
};
void stress_checker_init(struct stress_checker *c, unsigned int nr_cpus);
/* Returns 0, or -1 with a message in msg. */
int stress_checker_feed(struct stress_checker *c, const struct mkm_event *ev,
			size_t n, int exact, const uint8_t *restart, char *msg,
			size_t msg_size);

/* The number of possible CPU ids (what MKM_IOC_STATS reports). */
unsigned int stress_possible_cpus(void);

/* The module: /sys/module/mkm/refcnt (-1 when not loaded), load, unload. */
int stress_module_refcnt(void);
int stress_module_loaded(void);
/* finit_module of /mkm.ko; 0 or -1 with errno. */
int stress_module_load(void);
/* delete_module("mkm", flags); 0 or -1 with errno. */
int stress_module_unload(unsigned int flags);
/* Wait (bounded) until no file holds the module; returns the refcnt. */
int stress_wait_refcnt_zero(unsigned int seconds);

/* A /proc/meminfo field in kB, or -1. */
long stress_meminfo_kb(const char *field);
/*
 * kB of free pages in the per-CPU lists (/proc/zoneinfo's pagesets), which
 * MemFree and MemAvailable leave out: freed order-0 pages (vmalloc's) wait
 * there until a list passes its high mark.
 */
long stress_pcp_kb(void);
/* Objects in use in a slab cache (/proc/slabinfo), or -1. */
long stress_slab_active(const char *cache);
/* Threads alive now (every /proc/PID/task entry), or -1. */
long stress_tasks_alive(void);

/*
 * kmemleak, where the kernel has it (debug kernel): stress_kmemleak_mark()
 * scans once and forgets what is reported so far; stress_kmemleak_report()
 * waits until objects made since are old enough to be reported, scans twice
 * and returns the new report (malloc'd, "" when clean), or NULL when the
 * kernel has no kmemleak.
 */
int stress_kmemleak_present(void);
void stress_kmemleak_mark(void);
char *stress_kmemleak_report(void);

/* One file descriptor and one byte over a unix socket. */
int stress_send_fd(int sock, int fd, char byte);
/* Returns 1 with *fd (-1 if none came) and *byte, 0 on timeout, -1 error. */
int stress_recv_fd(int sock, int *fd, char *byte, int timeout_ms);

/* Read a whole small message from a pipe, with a timeout (ms). */
int stress_read_full(int fd, void *buf, size_t n, int timeout_ms);

/* Check the kernel log since stress_main(): fails on any splat. */
void test_kernel_log_clean(void **state);

#endif /* MKM_TESTS_STRESS_H */

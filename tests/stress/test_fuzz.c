// SPDX-License-Identifier: GPL-2.0
/*
 * test_fuzz.c - an ioctl fuzzer in the guest: MKM_FUZZ_CALLS (default
 * 20000) calls on three monitors, with random ioctl numbers (mkm's magic
 * with any number, direction and size; mkm's numbers with the wrong
 * direction or size; other magics), random arguments and pointers (NULL, a
 * low address, an unmapped page, a read-only page, a struct running into an
 * inaccessible page, misaligned, kernel and non-canonical addresses, a valid
 * buffer of random bytes or of random fields with edge values), plus reads
 * of random sizes into the same pointers. Each result is checked against
 * what the ABI says for that number, pointer and content: success, or the
 * one errno it documents. Ring sizes stay at most 1 MiB but for the edge
 * values (0, 2^63, MKM_RING_MAX_BYTES + 1, UINT64_MAX), so the 1 GiB guest
 * never runs short. Afterwards no monitor is left and a fresh one records a
 * ping-pong.
 *
 * The generic ioctls the VFS answers before any driver (FIOCLEX, FIONBIO,
 * FIFREEZE, ...) are never sent: they are not mkm's, and FIFREEZE would
 * freeze /dev's file system.
 */
#include "stress.h"

#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#define NFDS 3
#define KERNEL_TEXT 0xffffffff81000000ull
#define DIRECT_MAP 0xffff888000000000ull

static const unsigned int mkm_cmds[] = {
	MKM_IOC_VERSION,
	MKM_IOC_CONFIGURE,
	MKM_IOC_RESUME,
	MKM_IOC_SUSPEND,
	MKM_IOC_THREAD_MONITOR,
	MKM_IOC_THREAD_UNMONITOR,
	MKM_IOC_STATS,
	MKM_IOC_MARK,
	MKM_IOC_CLOCK,
	/* ABI 2.3's numbers, still served */
	MKM_IOC_THREAD_MONITOR_2_3,
	MKM_IOC_THREAD_UNMONITOR_2_3,
	MKM_IOC_STATS_2_3,
	MKM_IOC_MARK_2_3,
};
/* Relative frequency of each of mkm's calls (resume/suspend are slow). */
static const unsigned int mkm_weight[] = { 10, 25, 4, 4, 12, 8, 12,
					   14, 4,  3, 2, 3,  3 };

/* Answered by do_vfs_ioctl() before the driver sees them. */
static const unsigned int vfs_cmds[] = {
	FIOCLEX,	 FIONCLEX,	    FIONBIO,
	FIOASYNC,	 FIOQSIZE,	    FIFREEZE,
	FITHAW,		 FS_IOC_FIEMAP,	    FIGETBSZ,
	FIBMAP,		 FICLONE,	    FICLONERANGE,
	FIDEDUPERANGE,	 FIONREAD,	    FS_IOC_GETFLAGS,
	FS_IOC_SETFLAGS, FS_IOC_FSGETXATTR, FS_IOC_FSSETXATTR,
};

/* Where an argument points, and what the kernel may do there. */
enum ptr_kind {
	PTR_NULL,
	PTR_LOW, /* below mmap_min_addr */
	PTR_UNMAPPED,
	PTR_NOACCESS, /* a PROT_NONE page */
	PTR_RO, /* read-only, the whole struct inside */
	PTR_RO_EDGE, /* read-only, running into PROT_NONE */
	PTR_RW_EDGE, /* read-write, running into PROT_NONE */
	PTR_KERNEL,
	PTR_NONCANONICAL,
	PTR_MISALIGNED, /* read-write, odd address */
	PTR_RW, /* read-write */
	PTR_KINDS
};
static const char *const ptr_names[PTR_KINDS] = {
	"NULL",
	"low",
	"unmapped",
	"PROT_NONE",
	"read-only",
	"read-only edge",
	"read-write edge",
	"kernel",
	"non-canonical",
	"misaligned",
	"read-write",
};

static long page;
static char *rw; /* two read-write pages, then a PROT_NONE one */
static char *ro; /* one read-only page, then a PROT_NONE one */
static char *unmapped;
static uint32_t classes_ok;
static uintptr_t user_top; /* TASK_SIZE: the end of user space */
static long mem_total_kb;
static unsigned int nr_cpus;

struct fuzz_fd {
	int fd;
	int resumed;
	/* Every record read, checked: a failed copy must lose none. */
	struct stress_checker ck;
	uint8_t restart[STRESS_MAX_CPUS]; /* new rings since the CPU's last */
	long records;
};

struct figures {
	long calls, mkm_calls, other_calls, reads, ok, reopen, records;
	long by_errno[200];
	long by_ptr[PTR_KINDS];
};

static uint64_t below1(struct stress_rng *r, int64_t n)
{
	return n > 1 ? stress_below(r, (uint64_t)n) : 0;
}

/*
 * A pointer of the kind for n bytes; *readable and *writable say whether
 * all n bytes there can be read and written.
 */
static void *pick_ptr(struct stress_rng *r, enum ptr_kind k, size_t n,
		      int *readable, int *writable)
{
	int64_t room = 2 * page, sz = (int64_t)n;
	char *p;

	*readable = *writable = 0;
	switch (k) {
	case PTR_NULL:
		return NULL;
	case PTR_LOW:
		return (void *)(uintptr_t)(1 + stress_below(r, 4095));
	case PTR_UNMAPPED:
		return unmapped + stress_below(r, (uint64_t)page);
	case PTR_NOACCESS:
		return rw + room + below1(r, page - 64);
	case PTR_KERNEL:
		return (void *)(uintptr_t)((stress_below(r, 2) ? KERNEL_TEXT :
								 DIRECT_MAP) +
					   stress_below(r, 1 << 20));
	case PTR_NONCANONICAL:
		return (void *)(uintptr_t)(0x8000000000000000ull |
					   stress_rand(r) << 12);
	case PTR_RO:
		p = ro + below1(r, page - sz);
		break;
	case PTR_RO_EDGE:
		p = ro + page - 1 - below1(r, sz - 1 < page ? sz - 1 : page);
		break;
	case PTR_RW_EDGE:
		p = rw + room - 1 - below1(r, sz - 1 < room ? sz - 1 : room);
		break;
	case PTR_MISALIGNED:
		p = rw + 1 + 2 * below1(r, (room - sz - 1) / 2);
		break;
	default:
		p = rw + 8 * below1(r, (room - sz) / 8);
		break;
	}
	/* What the n bytes from p allow, wherever p fell. */
	if (p >= rw && p < rw + room && p + sz <= rw + room)
		*readable = *writable = 1;
	else if (p >= ro && p < ro + page && p + sz <= ro + page)
		*readable = 1;
	return p;
}

static enum ptr_kind random_kind(struct stress_rng *r)
{
	/* Valid buffers half the time: the checks behind the copy matter. */
	if (stress_below(r, 2))
		return stress_below(r, 4) ? PTR_RW : PTR_MISALIGNED;
	return (enum ptr_kind)stress_below(r, PTR_KINDS);
}

static uint64_t random_ring_bytes(struct stress_rng *r)
{
	static const uint64_t edges[] = {
		0,
		1ull << 63,
		(uint64_t)MKM_RING_MAX_BYTES + 1,
		UINT64_MAX,
		1,
		MKM_RING_MIN_BYTES - 1,
		MKM_RING_MIN_BYTES,
		1u << 20,
	};

	if (stress_below(r, 4) == 0)
		return edges[stress_below(r, 8)];
	return 1 + stress_below(r, 1u << 20);
}

/*
 * What configure must answer for c: an errno, or 0 for success, which may
 * also be EBUSY when the rings of a suspended monitor hold events
 * (*maybe_busy).
 */
static int config_verdict(const struct mkm_config *c, int resumed,
			  int *maybe_busy)
{
	uint32_t classes = c->classes ? c->classes : MKM_CLASS_DEFAULT;

	*maybe_busy = 0;
	if (c->classes & ~MKM_CLASS_ALL || c->flags & ~MKM_CONFIG_ALL ||
	    (c->classes & MKM_CLASS_SCHED_STATE &&
	     (~c->classes & (MKM_CLASS_SCHED | MKM_CLASS_WAKEUP))) ||
	    (c->flags & MKM_CONFIG_FLIGHT && c->wakeup_bytes) ||
	    (c->trigger_irq_ns && !(classes & MKM_CLASS_IRQ)) ||
	    c->ring_bytes == 0 || c->ring_bytes > MKM_RING_MAX_BYTES)
		return EINVAL;
	if (c->classes & ~classes_ok)
		return EOPNOTSUPP;
	uint64_t ring = MKM_RING_MIN_BYTES;
	while (ring < c->ring_bytes)
		ring <<= 1;
	if (c->wakeup_bytes > ring)
		return EINVAL;
	/* Rings may not take half the RAM (256 MiB x 2 CPUs, in 1 GiB). */
	if (ring * nr_cpus > (uint64_t)mem_total_kb * 1024 / 2)
		return ENOMEM;
	if (resumed)
		return EBUSY;
	*maybe_busy = 1;
	return 0;
}

/* Random fields, mostly valid. */
static void fill_config(struct stress_rng *r, struct mkm_config *c)
{
	memset(c, 0, sizeof(*c));
	c->ring_bytes = random_ring_bytes(r);
	c->total_bytes = stress_rand(r); /* ignored on input */
	switch (stress_below(r, 6)) {
	case 0:
		c->classes = (uint32_t)stress_rand(r);
		break;
	case 1:
		c->classes = 0;
		break;
	default:
		c->classes = (uint32_t)stress_below(r, MKM_CLASS_ALL + 1);
	}
	c->flags = stress_below(r, 8) ? (uint32_t)stress_below(r, 2) :
					(uint32_t)stress_rand(r);
	if (stress_below(r, 3) == 0)
		c->wakeup_bytes = stress_below(r, 4) ?
					  stress_below(r, c->ring_bytes + 64) :
					  stress_rand(r);
	if (stress_below(r, 4) == 0)
		c->flags |= MKM_CONFIG_FLIGHT;
	if (stress_below(r, 4) == 0)
		c->trigger_runq_ns = stress_rand(r) >> stress_below(r, 64);
	if (stress_below(r, 4) == 0)
		c->trigger_irq_ns = stress_rand(r) >> stress_below(r, 64);
}

static void fill_random(struct stress_rng *r, void *p, size_t n)
{
	unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		b[i] = (unsigned char)stress_rand(r);
}

static pid_t helper_tid[2];
static atomic_int helpers_stop;
static int helper_pipe[2][2];

/* Two threads passing a byte back and forth until told to stop. */
static void *helper_main(void *arg)
{
	int me = (int)(uintptr_t)arg;
	char c = 'p';

	abi_pin_self(abi_cpu_online(me % abi_nr_cpus_online()));
	helper_tid[me] = (pid_t)syscall(SYS_gettid);
	if (me == 0 && write(helper_pipe[1][1], &c, 1) != 1)
		return NULL;
	while (!atomic_load(&helpers_stop)) {
		if (read(helper_pipe[me][0], &c, 1) != 1 ||
		    write(helper_pipe[!me][1], &c, 1) != 1)
			break;
	}
	return NULL;
}

static pid_t random_tid(struct stress_rng *r)
{
	switch (stress_below(r, 8)) {
	case 0:
		return (pid_t)syscall(SYS_gettid);
	case 1:
	case 2:
		return helper_tid[stress_below(r, 2)];
	case 3:
		return 2;
	case 4:
		return -(pid_t)stress_below(r, 3);
	case 5:
		return 0x7fffffff;
	default:
		return (pid_t)stress_below(r, 1 << 22);
	}
}

static int cmd_is_vfs(unsigned int cmd)
{
	for (size_t i = 0; i < sizeof(vfs_cmds) / sizeof(vfs_cmds[0]); i++)
		if (vfs_cmds[i] == cmd)
			return 1;
	return 0;
}

#define NR_MKM_CMDS (sizeof(mkm_cmds) / sizeof(mkm_cmds[0]))
_Static_assert(sizeof(mkm_weight) / sizeof(mkm_weight[0]) == NR_MKM_CMDS,
	       "a weight for each call");

static int cmd_is_mkm(unsigned int cmd)
{
	for (size_t i = 0; i < NR_MKM_CMDS; i++)
		if (mkm_cmds[i] == cmd)
			return 1;
	return 0;
}

static unsigned int random_cmd(struct stress_rng *r)
{
	for (;;) {
		unsigned int cmd;
		uint64_t k = stress_below(r, 100);
		if (k < 55) {
			unsigned int total = 0, pick;
			for (size_t i = 0; i < NR_MKM_CMDS; i++)
				total += mkm_weight[i];
			pick = (unsigned int)stress_below(r, total);
			int i = 0;
			while (pick >= mkm_weight[i])
				pick -= mkm_weight[i++];
			return mkm_cmds[i];
		}
		unsigned int dir = (unsigned int)stress_below(r, 4);
		unsigned int size = (unsigned int)stress_below(r, 1 << 14);
		if (stress_below(r, 2))
			size = (unsigned int)stress_below(r, 128);
		if (k < 75) /* mkm's magic, any number */
			cmd = _IOC(dir, MKM_IOC_MAGIC,
				   (unsigned int)stress_below(r, 256), size);
		else if (k < 88) /* mkm's numbers, wrong shape */
			cmd = _IOC(dir, MKM_IOC_MAGIC,
				   1 + (unsigned int)stress_below(r, 8), size);
		else /* anything */
			cmd = (unsigned int)stress_rand(r);
		if (!cmd_is_vfs(cmd))
			return cmd;
	}
}

/*
 * Makes the argument of one mkm call; returns the errno expected, 0 for
 * success, -1 when either success or EBUSY is right (configure of a
 * suspended monitor whose rings may hold events), -2 for success or the
 * documented errors of thread_monitor/unmonitor (it depends on the tid).
 */
static int mkm_arg(struct stress_rng *r, struct fuzz_fd *f, unsigned int cmd,
		   enum ptr_kind k, void **argp)
{
	int rd, wr, busy = 0, expect = 0;
	size_t n = _IOC_SIZE(cmd) ? _IOC_SIZE(cmd) : 8;
	char *p = pick_ptr(r, k, n, &rd, &wr);
	int random_bytes = rd && stress_below(r, 4) == 0;

	*argp = p;
	if (cmd == MKM_IOC_RESUME)
		return 0;
	if (cmd == MKM_IOC_SUSPEND)
		return 0;
	if (!rd)
		return EFAULT;
	/* The contents: random bytes, or random fields (in a RO page too). */
	char tmp[64];
	memset(tmp, 0, sizeof(tmp));
	switch (cmd) {
	case MKM_IOC_VERSION:
		fill_random(r, tmp, n);
		expect = wr ? 0 : EFAULT;
		break;
	case MKM_IOC_CONFIGURE: {
		struct mkm_config c;
		if (random_bytes) {
			fill_random(r, &c, sizeof(c));
			/* Now and then a size this guest could allocate. */
			if (stress_below(r, 2))
				c.ring_bytes &= (1u << 20) - 1;
		} else {
			fill_config(r, &c);
		}
		expect = config_verdict(&c, f->resumed, &busy);
		memcpy(tmp, &c, sizeof(c));
		/* A result that cannot be written back: refused untouched. */
		if (!wr) {
			expect = EFAULT;
			busy = 0;
		}
		break;
	}
	case MKM_IOC_THREAD_MONITOR:
	case MKM_IOC_THREAD_UNMONITOR:
	case MKM_IOC_THREAD_MONITOR_2_3:
	case MKM_IOC_THREAD_UNMONITOR_2_3: {
		struct mkm_thread t = { 0 };
		if (random_bytes) {
			fill_random(r, &t, sizeof(t));
		} else {
			t.tid = random_tid(r);
			t.unique_id = (uint32_t)stress_rand(r);
		}
		if (n < sizeof(t)) /* ABI 2.3's: no reserved field */
			t.reserved = 0;
		memcpy(tmp, &t, sizeof(t));
		/* Depends on the tid: checked against the allowed set. */
		expect = t.reserved ? EINVAL : t.tid <= 0 ? ESRCH : -2;
		break;
	}
	case MKM_IOC_STATS:
	case MKM_IOC_STATS_2_3: {
		static const uint32_t sizes[] = { 0, 32, 40, 48, 64 };
		struct mkm_stats s;
		int crd, cwr;
		fill_random(r, &s, sizeof(s));
		if (!random_bytes || stress_below(r, 2)) {
			s.busy_threads = 0;
			s.deferrals = 0;
			s.cpu_stats_size = sizes[stress_below(r, 5)];
		}
		if (n < sizeof(s)) { /* ABI 2.3's: 32-byte entries */
			s.deferrals = 0;
			s.cpu_stats_size = 0;
		}
		if (stress_below(r, 3))
			s.nr_cpus = (uint32_t)stress_below(r, 2 * nr_cpus + 2);
		/* 0: the entry of ABI 2.6, whatever this header's is. */
		size_t entry = s.cpu_stats_size ? s.cpu_stats_size :
						  MKM_CPU_STATS_SIZE_2_6;
		int bad = s.busy_threads || entry < 32 || entry > 4096 ||
			  entry % 8;
		size_t want =
			bad ? 0 :
			      (s.nr_cpus < nr_cpus ? s.nr_cpus : nr_cpus) *
					entry;
		/* The array: never random memory of ours. */
		if (s.nr_cpus || stress_below(r, 2))
			s.cpus = (uintptr_t)pick_ptr(
				r, random_kind(r), want ? want : 8, &crd, &cwr);
		else
			cwr = 0;
		memcpy(tmp, &s, sizeof(s));
		if (bad)
			expect = EINVAL;
		else if (want && !cwr)
			expect = EFAULT;
		else
			expect = wr ? 0 : EFAULT;
		break;
	}
	case MKM_IOC_CLOCK: {
		/* Any CPU 0 has; none has 65536 (NR_CPUS is at most 8192). */
		struct mkm_clock c;
		fill_random(r, &c, sizeof(c));
		if (stress_below(r, 2))
			c.reserved = 0;
		c.cpu = stress_below(r, 2) ? 0 :
					     65536 + (uint32_t)c.cpu % 65536;
		memcpy(tmp, &c, sizeof(c));
		expect = c.reserved || c.cpu ? EINVAL : wr ? 0 : EFAULT;
		break;
	}
	case MKM_IOC_MARK:
	case MKM_IOC_MARK_2_3: {
		struct mkm_mark m;
		fill_random(r, &m, sizeof(m));
		if (stress_below(r, 2))
			m.reserved = 0;
		/* An unknown flag is as wrong as a reserved bit. */
		if (stress_below(r, 2))
			m.flags &= MKM_MARK_TRIGGER | MKM_MARK_OWN;
		/* ABI 2.3's struct: the value alone. */
		if (n < sizeof(m))
			m.reserved = m.flags = 0;
		memcpy(tmp, &m, sizeof(m));
		if (m.reserved || m.flags & ~(MKM_MARK_TRIGGER | MKM_MARK_OWN))
			expect = EINVAL;
		else if (m.flags & MKM_MARK_OWN) /* whoever tracks us, if any */
			expect = -2;
		else
			expect = f->resumed ? 0 : EAGAIN;
		break;
	}
	}
	/* Into place: a read-only page is written through a moment. */
	if (p >= ro && p < ro + page) {
		mprotect(ro, (size_t)page, PROT_READ | PROT_WRITE);
		memcpy(p, tmp, n);
		mprotect(ro, (size_t)page, PROT_READ);
	} else {
		memcpy(p, tmp, n);
	}
	if (busy && expect == 0)
		return -1;
	return expect;
}

static const int ok_monitor[] = { ESRCH, EBUSY, EEXIST, EINVAL, 0 };
static const int ok_unmonitor[] = { ESRCH, ENOENT, 0 };
static const int ok_own_mark[] = { ENOENT, EAGAIN, 0 };

static void fuzz_one(struct stress_rng *r, struct fuzz_fd *f,
		     struct figures *fig)
{
	unsigned int cmd = random_cmd(r);
	enum ptr_kind k = random_kind(r);
	void *arg;
	int expect;

	fig->calls++;
	fig->by_ptr[k]++;
	if (!cmd_is_mkm(cmd)) {
		int rd = 0, wr = 0;
		fig->other_calls++;
		arg = stress_below(r, 4) ? pick_ptr(r, k, 64, &rd, &wr) :
					   (void *)(uintptr_t)stress_rand(r);
		if (wr && _IOC_SIZE(cmd) <= 64)
			fill_random(r, arg, _IOC_SIZE(cmd));
		expect = ENOTTY;
	} else {
		fig->mkm_calls++;
		expect = mkm_arg(r, f, cmd, k, &arg);
	}
	errno = 0;
	long rc = syscall(SYS_ioctl, f->fd, cmd, arg);
	int e = rc ? errno : 0;
	fig->ok += rc == 0;
	if (e >= 0 && e < 200)
		fig->by_errno[e]++;

	int good;
	if (expect == -1)
		good = e == 0 || e == EBUSY;
	else if (expect == -2)
		good = e == 0 ||
		       stress_errno_in(
			       e,
			       cmd == MKM_IOC_MARK ? ok_own_mark :
			       cmd == MKM_IOC_THREAD_MONITOR ||
					       cmd == MKM_IOC_THREAD_MONITOR_2_3 ?
						     ok_monitor :
						     ok_unmonitor);
	else
		good = e == expect;
	if (cmd == MKM_IOC_RESUME && e == ENOMEM)
		good = 1; /* documented at the first resume */
	if (!good || (rc != 0 && rc != -1))
		fail_msg("ioctl(%#x: dir %u magic %#x nr %u size %u, %s %p): "
			 "%ld, errno %d (%s); expected %s%s",
			 cmd, _IOC_DIR(cmd), _IOC_TYPE(cmd), _IOC_NR(cmd),
			 _IOC_SIZE(cmd), ptr_names[k], arg, rc, e, strerror(e),
			 expect > 0  ? strerror(expect) :
			 expect == 0 ? "success" :
				       "success or its documented errors",
			 "");
	if (rc == 0 && cmd == MKM_IOC_RESUME)
		f->resumed = 1;
	if (rc == 0 && cmd == MKM_IOC_SUSPEND)
		f->resumed = 0;
	if (rc == 0 && cmd == MKM_IOC_CONFIGURE)
		memset(f->restart, 1, sizeof(f->restart));
	if (rc == 0 && cmd == MKM_IOC_VERSION) {
		struct mkm_version v;
		memcpy(&v, arg, sizeof(v));
		if (v.major != MKM_ABI_MAJOR || v.event_size != 32 ||
		    v.reserved)
			fail_msg("VERSION gave %u.%u, event size %u, reserved "
				 "%u",
				 v.major, v.minor, v.event_size, v.reserved);
	}
}

/* read() of a random size into a random pointer. */
static void fuzz_read(struct stress_rng *r, struct fuzz_fd *f,
		      struct figures *fig)
{
	static const size_t counts[] = { 0, 1, 31, 32, 33, 100, 4096, 8192 };
	static struct mkm_event copy[2 * 4096 / 32];
	enum ptr_kind k = random_kind(r);
	size_t count = stress_below(r, 5) ? counts[stress_below(r, 8)] :
		       stress_below(r, 2) ? (size_t)1 << 40 :
					    SIZE_MAX;
	int rd, wr;
	char *p = pick_ptr(r, k, count < 4096 ? (count ? count : 1) : 4096, &rd,
			   &wr);
	/* Bytes the kernel can write from p on. */
	size_t room =
		p >= rw && p < rw + 2 * page ? (size_t)(rw + 2 * page - p) : 0;
	char msg[256];

	fig->calls++;
	fig->reads++;
	errno = 0;
	long n = syscall(SYS_read, f->fd, p, count);
	int e = n < 0 ? errno : 0;
	if (e > 0 && e < 200)
		fig->by_errno[e]++;
	/* read(2) itself refuses a range outside user space first. */
	if ((uintptr_t)p > user_top || count > user_top - (uintptr_t)p) {
		if (n != -1 || e != EFAULT)
			fail_msg("read(%s %p, %zu): %ld (%s); expected EFAULT",
				 ptr_names[k], (void *)p, count, n,
				 strerror(e));
		return;
	}
	if (count < 32) {
		if (n != -1 || e != EINVAL)
			fail_msg("read(%zu): %ld (%s); expected EINVAL", count,
				 n, strerror(e));
		return;
	}
	int good;
	if (n >= 0) /* whole records, where they fit; 0: suspended, empty */
		good = n % 32 == 0 && (size_t)n <= count && (size_t)n <= room;
	else if (e == EAGAIN) /* resumed and empty (O_NONBLOCK) */
		good = f->resumed;
	else if (e == EFAULT) /* a chunk that did not fit, or a bad pointer */
		good = count > room;
	else
		good = 0;
	if (!good)
		fail_msg("read(%s %p, %zu): %ld, errno %d (%s)", ptr_names[k],
			 (void *)p, count, n, e, strerror(e));
	if (n <= 0)
		return;
	memcpy(copy, p, (size_t)n);
	if (stress_checker_feed(&f->ck, copy, (size_t)n / 32, 1, f->restart,
				msg, sizeof(msg)))
		fail_msg("read into %s %p: %s", ptr_names[k], (void *)p, msg);
	for (long i = 0; i < n / 32; i++)
		if (copy[i].cpu < STRESS_MAX_CPUS)
			f->restart[copy[i].cpu] = 0;
	f->records += n / 32;
	fig->records += n / 32;
}

static int fuzz_open(struct stress_rng *r, struct fuzz_fd *f)
{
	f->fd = abi_open_flags(O_RDWR | O_NONBLOCK | O_CLOEXEC);
	f->resumed = 0;
	stress_checker_init(&f->ck, nr_cpus);
	memset(f->restart, 0, sizeof(f->restart));
	f->records = 0;
	/* Track the helpers now and then, so that events flow. */
	if (stress_below(r, 2) == 0)
		return abi_monitor(f->fd, helper_tid[stress_below(r, 2)], 1);
	return 0;
}

static void test_fuzz_ioctls_clean_errors(void **state)
{
	long ncalls = stress_env("MKM_FUZZ_CALLS", 20000);
	struct fuzz_fd fds[NFDS];
	struct figures fig;
	struct stress_rng r;
	(void)state;

	stress_timeout = 600;
	alarm(stress_timeout);
	memset(&fig, 0, sizeof(fig));
	stress_rng_init(&r, 0);
	/* Two threads that keep switching: tracked ones make events. */
	pthread_t helpers[2];
	ABI_OK(pipe2(helper_pipe[0], O_CLOEXEC));
	ABI_OK(pipe2(helper_pipe[1], O_CLOEXEC));
	for (uintptr_t i = 0; i < 2; i++)
		ABI_OK(pthread_create(&helpers[i], NULL, helper_main,
				      (void *)i));
	while (!helper_tid[0] || !helper_tid[1])
		abi_sleep_ms(1);

	page = sysconf(_SC_PAGESIZE);
	mem_total_kb = stress_meminfo_kb("MemTotal");
	assert_true(mem_total_kb > 0);
	/* 47 bits of user space, or 56 with 5-level paging (-cpu max). */
	void *high = mmap((void *)(1ull << 52), (size_t)page, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1,
			  0);
	user_top = high == (void *)(1ull << 52) ? 0x00fffffffffff000ull :
						  0x00007ffffffff000ull;
	if (high != MAP_FAILED)
		munmap(high, (size_t)page);
	rw = mmap(NULL, 3 * (size_t)page, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ro = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unmapped = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(rw != MAP_FAILED && ro != MAP_FAILED &&
		    unmapped != MAP_FAILED);
	ABI_OK(mprotect(rw + 2 * page, (size_t)page, PROT_NONE));
	ABI_OK(mprotect(ro, (size_t)page, PROT_READ));
	ABI_OK(mprotect(ro + page, (size_t)page, PROT_NONE));

	int fd = abi_open();
	struct mkm_config c;
	memset(&c, 0, sizeof(c));
	c.ring_bytes = 4096;
	c.classes = MKM_CLASS_ALL;
	classes_ok = ioctl(fd, MKM_IOC_CONFIGURE, &c) ?
			     MKM_CLASS_ALL & ~MKM_CLASS_SYSCALL :
			     MKM_CLASS_ALL;
	ABI_OK(close(fd));

	for (int i = 0; i < NFDS; i++)
		fuzz_open(&r, &fds[i]);
	/* Last: nothing maps memory during the loop, the hole stays. */
	ABI_OK(munmap(unmapped, (size_t)page));
	uint64_t start = abi_now_ns();
	for (long i = 0; i < ncalls; i++) {
		struct fuzz_fd *f = &fds[stress_below(&r, NFDS)];
		uint64_t k = stress_below(&r, 1000);
		if (k < 5) {
			ABI_OK(close(f->fd));
			fuzz_open(&r, f);
			fig.reopen++;
		} else if (k < 80) {
			fuzz_read(&r, f, &fig);
		} else {
			fuzz_one(&r, f, &fig);
		}
	}
	double took = (double)(abi_now_ns() - start) / 1e9;
	for (int i = 0; i < NFDS; i++)
		ABI_OK(close(fds[i].fd));

	printf("# fuzz: %ld calls in %.1f s: %ld ioctls of mkm's numbers, "
	       "%ld of others, %ld reads; %ld ioctls succeeded, %ld records "
	       "read (all in order), %ld monitors reopened\n",
	       fig.calls, took, fig.mkm_calls, fig.other_calls, fig.reads,
	       fig.ok, fig.records, fig.reopen);
	printf("# fuzz: errors:");
	for (int e = 1; e < 200; e++)
		if (fig.by_errno[e])
			printf(" %s %ld", strerror(e), fig.by_errno[e]);
	printf("\n# fuzz: pointers:");
	for (int k = 0; k < PTR_KINDS; k++)
		printf(" %s %ld", ptr_names[k], fig.by_ptr[k]);
	printf("\n");

	/* Nothing is left, and the module still works. */
	assert_int_equal(stress_wait_refcnt_zero(10), 0);
	struct abi_trace t = { 0 };
	int mon = abi_open();
	ABI_OK(abi_monitor(mon, helper_tid[0], 1));
	ABI_OK(abi_monitor(mon, helper_tid[1], 2));
	abi_resume(mon);
	abi_sleep_ms(300);
	abi_suspend(mon);
	abi_drain(mon, &t);
	abi_check_stream(&t, nr_cpus, NULL, NULL);
	size_t outs_a = abi_count(&t, helper_tid[0], MKM_EV_SWITCH_OUT);
	size_t outs_b = abi_count(&t, helper_tid[1], MKM_EV_SWITCH_OUT);
	printf("# afterwards a fresh monitor recorded %zu events, %zu and %zu "
	       "switches of the ping-pong\n",
	       t.n, outs_a, outs_b);
	assert_true(outs_a >= 20 && outs_b >= 20);
	abi_trace_free(&t);
	ABI_OK(close(mon));
	/* A helper may wait for the byte the other one kept: one more each. */
	atomic_store(&helpers_stop, 1);
	for (int i = 0; i < 2; i++)
		ABI_EQ(write(helper_pipe[i][1], "x", 1), 1);
	for (int i = 0; i < 2; i++)
		pthread_join(helpers[i], NULL);
	for (int i = 0; i < 2; i++) {
		close(helper_pipe[i][0]);
		close(helper_pipe[i][1]);
	}
	munmap(rw, 3 * (size_t)page);
	munmap(ro, 2 * (size_t)page);
}

int main(int argc, char **argv)
{
	stress_main(argc, argv, 600);
	nr_cpus = stress_possible_cpus();
	const struct CMUnitTest tests[] = {
		STRESS_TEST(test_fuzz_ioctls_clean_errors),
		STRESS_TEST(test_kernel_log_clean),
	};
	return cmocka_run_group_tests_name("fuzz", tests, NULL, NULL);
}

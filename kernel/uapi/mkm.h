/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * mkm.h - the user ABI of the mkm kernel monitor (/dev/mkm), shared by the
 * module and by libmonitor.
 *
 * The monitor object
 * ==================
 * open("/dev/mkm", O_RDWR) creates a monitor, suspended (MKM's
 * monitor_create). The file descriptor is the capability: whoever holds it
 * may use the monitor, and it may be handed on with SCM_RIGHTS. The rights
 * of the monitor (which threads it may track, and the PID namespace tids are
 * resolved and reported in) are those of the process that opened it. The
 * last close terminates the monitor: every thread it tracked goes back to
 * unmonitored and its buffers are freed. The access mode of the fd
 * counts (ABI 2.6): one opened O_RDONLY may read the monitor (read(),
 * poll(), mmap read-only, STATS, CLOCK, VERSION) but not drive it:
 * CONFIGURE, RESUME, SUSPEND, THREAD_MONITOR, THREAD_UNMONITOR and MARK
 * give EBADF on it, as write() would.
 *
 * Each monitor has one ring of fixed-size event records (struct mkm_event)
 * per possible CPU, written only by that CPU. When a ring is full, new events
 * are dropped and counted; read() reports every drop in-band with a
 * MKM_EV_LOST record at the place it happened.
 *
 * Calls
 * =====
 * Every ioctl returns 0 or -1 with errno set. Reserved fields must be zero
 * (EINVAL otherwise); an unknown ioctl number gives ENOTTY; a bad pointer
 * gives EFAULT. ABI 2.4 gave struct mkm_thread, mkm_stats and mkm_mark
 * reserved fields, and so new ioctl numbers; the numbers of ABI 2.3
 * (MKM_IOC_*_2_3, at the end) still work, with the structs they had.
 *
 * MKM_IOC_VERSION (struct mkm_version, out)
 *	The ABI version the module speaks. A reader must refuse a major it does
 *	not know; a newer minor only adds event types, flags or classes, or
 *	refuses what a caller should not have done (2.6: driving a monitor
 *	through a read-only fd); 2.7 added the flight recorder and the
 *	triggers, in fields that were reserved; 2.8 the mark into the
 *	caller's own monitor (MKM_MARK_OWN); 2.9 the interrupt trigger for a
 *	thread that waited through the interrupt (MKM_EVF_WAITING).
 *
 * MKM_IOC_CONFIGURE (struct mkm_config, in/out)
 *	Sets the per-CPU ring size, the event classes and the flags. Only while
 *	suspended (EBUSY otherwise) and while no unread events are buffered
 *	and no drop is still to be reported in a LOST record (EBUSY: read
 *	them first, no data is dropped by reconfiguring). An argument that
 *	cannot be written back gives EFAULT and changes nothing.
 *	ring_bytes: requested bytes per CPU, rounded up to a power-of-two
 *	number of records, at least MKM_RING_MIN_BYTES; 0 or more than
 *	MKM_RING_MAX_BYTES gives EINVAL. On return ring_bytes holds the size
 *	allocated per CPU and total_bytes the size over all possible CPUs (MKM's
 *	monitor_create returned the allocated size the same way); ENOMEM if it
 *	cannot be allocated, or would take more than half the machine's RAM;
 *	EPERM if the creator has neither CAP_PERFMON nor CAP_IPC_LOCK and its
 *	user's monitors would then hold more than the module parameter
 *	max_user_kb (KiB over all CPUs, default 65536). Rings are charged to
 *	the creator's memory cgroup.
 *	classes: a mask of MKM_CLASS_*, 0 meaning MKM_CLASS_DEFAULT; unknown
 *	bits give EINVAL; a class this kernel has no tracepoints for gives
 *	EOPNOTSUPP. Without CAP_PERFMON and with the module parameter
 *	paranoid at 1 or 2 (the default), MKM_CLASS_IRQ and (since ABI 2.6)
 *	MKM_CLASS_SYSCALL give EACCES, and the default leaves out the IRQ
 *	class: the first tells the timing of every interrupt on a tracked
 *	thread, the second puts every system call of the machine on a slow
 *	path; at 2, a peer tid (the other thread of a switch, a waker) that
 *	this monitor does not track reads as 0.
 *	MKM_CLASS_SCHED_STATE (ABI 2.10) needs MKM_CLASS_SCHED and
 *	MKM_CLASS_WAKEUP beside it (EINVAL without them): it adds to their
 *	records, and is never in the default.
 *	flags: MKM_CONFIG_*. MKM_CONFIG_ONE_SWITCH (ABI 2.4) records a
 *	switch between two threads this monitor tracks, both shown, as one
 *	MKM_EV_SWITCH record instead of a SWITCH_OUT and a SWITCH_IN (a
 *	reader that knows MKM_EV_SWITCH sets it; without it the records are
 *	those of ABI 2.3). MKM_CONFIG_SYSTEM (since ABI 2.1) makes the
 *	monitor system-wide: at each RESUME it tracks every thread of the
 *	machine (walked in batches, so interrupts are never off for long),
 *	kernel threads included, and from CONFIGURE on every thread created
 *	anywhere (the fork probe), as if thread_monitor had been called on
 *	each with its tid as unique_id; every tracked thread gets its ATTACH
 *	and NAME records. A thread another monitor tracks is skipped and
 *	counted (mkm_stats.busy_threads). The idle tasks are never tracked:
 *	a switch to or from a CPU's idle task has peer tid 0, and the IRQ
 *	class records the interrupts that land on an idle CPU with tid 0
 *	(unique_id 0) on that CPU, so each CPU's time is all accounted for.
 *	Needs CAP_PERFMON or CAP_SYS_ADMIN (EPERM); one system-wide monitor
 *	at a time (EBUSY while another is configured so).
 *	MKM_CONFIG_FLIGHT (ABI 2.7) makes a flight recorder: a full ring
 *	overwrites its oldest records instead of dropping new ones, with no
 *	reader running, and counts what it overwrote (STATS' overwritten);
 *	see "A flight recorder" below.
 *	wakeup_bytes: poll() and read() are woken when a ring holds this many
 *	bytes (0: half the ring; larger than the ring: EINVAL). With
 *	MKM_CONFIG_FLIGHT it must be 0 (EINVAL): such a ring is always full,
 *	and wakes its readers on triggers only.
 *	trigger_runq_ns, trigger_irq_ns (ABI 2.7; 0: none): the triggers.
 *	After the SWITCH_IN (or SWITCH) of a tracked thread that waited on a
 *	run queue longer than trigger_runq_ns, and after the IRQ_EXIT or
 *	SOFTIRQ_EXIT of an interrupt or softirq that took a tracked thread's
 *	CPU for longer than trigger_irq_ns since its entry, or (ABI 2.9)
 *	after the SWITCH_IN of a tracked thread that waited on its CPU's run
 *	queue while an interrupt or softirq there ran longer than that, the
 *	sensor writes a MKM_EV_TRIGGER in the same ring and wakes the readers
 *	(poll() POLLIN), in either mode. For the waiting thread each CPU
 *	keeps only its last interrupt over the lowest threshold armed: a wait
 *	through two long ones is judged by the second, and a wait that began
 *	on another CPU's run queue by this CPU's part of it; while armed, the
 *	module times every interrupt of the machine. The interrupt trigger
 *	needs MKM_CLASS_IRQ among the classes (EINVAL; EACCES where that
 *	class is refused).
 *	A monitor resumed without CONFIGURE uses MKM_RING_DEFAULT_BYTES and the
 *	default classes (RESUME then fails as CONFIGURE would: ENOMEM, EPERM).
 *
 * MKM_IOC_RESUME, MKM_IOC_SUSPEND (no argument)
 *	Start and stop recording (MKM's monitor_resume and monitor_suspend).
 *	Both may be repeated; resuming a resumed monitor, or suspending a
 *	suspended one, does nothing and returns 0. When SUSPEND returns, no
 *	sensor is still writing into the monitor's rings. ENOMEM if the rings
 *	cannot be allocated at the first resume.
 *
 * MKM_IOC_THREAD_MONITOR (struct mkm_thread, in)
 *	Start tracking thread tid (in the monitor's PID namespace) under the
 *	caller's unique_id, which every event of that thread carries. The
 *	monitor may track a thread when its creator has CAP_PERFMON or
 *	CAP_SYS_ADMIN, or when the creator's real uid equals the thread's real,
 *	effective and saved uids (and gids likewise), the thread is in the
 *	creator's user namespace with no capability the creator lacks (or the
 *	creator has CAP_SYS_PTRACE), and the thread is dumpable; kernel
 *	threads always need CAP_PERFMON. While a tracked thread's credentials
 *	are ones the monitor could not track (between a setuid exec's
 *	credential change and its DETACH, or after a setresuid()), its events
 *	are withheld and reported as lost. Errors: ESRCH no such tid (or reaped);
 *	EPERM not allowed; EBUSY tracked by another monitor (one monitor per
 *	thread, as in MKM); EEXIST already tracked by this monitor; EINVAL the
 *	thread is exiting. The thread's current state is recorded at once in a
 *	MKM_EV_ATTACH event, followed by its name (MKM_EV_NAME).
 *
 * MKM_IOC_THREAD_UNMONITOR (struct mkm_thread, in; unique_id ignored)
 *	Stop tracking tid: a MKM_EV_DETACH event ends its stream. ESRCH if no
 *	such tid, ENOENT if this monitor does not track it.
 *
 * MKM_IOC_STATS (struct mkm_stats, in/out)
 *	Per-CPU counters: the caller gives an array of nr_cpus struct
 *	mkm_cpu_stats at cpus; on return nr_cpus holds the number of possible
 *	CPU ids and the first min(given, possible) entries are filled. For
 *	every CPU, once the rings are drained: produced == read + lost.
 *	busy_threads (in: 0; out, ABI 2.1): threads a system-wide monitor
 *	left out because another monitor tracked them, at its last RESUME.
 *	deferrals (out, ABI 2.5; ignored in, where a module before 2.5
 *	refuses non-zero): the drops of unwanted probes the module deferred
 *	since it loaded (low 31 bits, wrapping), with MKM_STATS_DEFERRING
 *	set while some such probes are still registered. Monitors created
 *	without CAP_PERFMON get a ration of drops (the module's drop_ration
 *	parameter, 1024 by default, at once; 4 a second after); past it,
 *	the probes stay registered until no drop has come for a second, so
 *	that a resume/suspend loop does not patch kernel text (an IPI to
 *	every CPU) on each turn. A registered probe costs the tracked
 *	threads time no record accounts for: a calibration or a
 *	compensation spanning a change here is not exact.
 *	cpu_stats_size (in, ABI 2.4): the size of each entry of the caller's
 *	array, 0 meaning sizeof(struct mkm_cpu_stats); at least that of ABI
 *	2.3 (32 bytes), at most 4096, a multiple of 8 (EINVAL otherwise). An
 *	entry larger than the module's struct gets zeros past it, a smaller
 *	one the struct's first fields: so the entry can grow without a new
 *	call. 0 stands for MKM_CPU_STATS_SIZE_2_6, the entry's 32 bytes up
 *	to ABI 2.6 (what a caller built then passes as 0); ABI 2.7 added
 *	overwritten and triggers, so a caller that wants them passes
 *	sizeof(struct mkm_cpu_stats). With overwritten, produced == read +
 *	lost + buffered + overwritten.
 *
 * MKM_IOC_MARK (struct mkm_mark, in)
 *	Writes a MKM_EV_MARK event carrying value for the calling thread, on the
 *	monitor's clock, into the ring of the CPU it runs on (PIE's user-level
 *	sensor). Recorded only while resumed; the caller need not be monitored.
 *	EAGAIN when suspended. With MKM_MARK_TRIGGER in flags (ABI 2.7;
 *	an unknown bit: EINVAL), a MKM_EV_TRIGGER follows the mark, as for the
 *	configured triggers: how a program, or a recorder told by a signal,
 *	asks a flight recorder for a snapshot. With MKM_MARK_OWN (ABI 2.8),
 *	the mark goes instead into the monitor that tracks the calling
 *	thread (by THREAD_MONITOR, inheritance or MKM_CONFIG_SYSTEM),
 *	whatever monitor the fd is, even a new one never configured: how a
 *	program run under a recorder, which holds no fd of the recorder's
 *	monitor, marks its own stream or triggers its snapshot. ENOENT when
 *	no monitor tracks the thread, EAGAIN when the one that does is
 *	suspended; where that monitor withholds the thread's records (the
 *	access rule), the mark is withheld too, counted as lost, and
 *	triggers nothing.
 *
 * read(fd, buf, count)
 *	Drains the rings: copies whole records (count must be at least one
 *	record: EINVAL otherwise) and returns the number of bytes copied. Each
 *	CPU's records arrive in order; different CPUs are not merged (order by
 *	time_ns). Returns at once what is there; when nothing is, blocks until
 *	a ring holds wakeup_bytes or the monitor is suspended (EAGAIN instead
 *	with O_NONBLOCK). Returns 0 when the monitor is suspended and nothing
 *	is left. A failed copy (EFAULT) frees nothing: no record is lost.
 *
 * poll(fd)
 *	POLLIN when a ring holds wakeup_bytes or more, when a ring has a
 *	trigger its reader has not yet seen (ABI 2.7: read() sees a ring's
 *	triggers when it drains it), or when the monitor is
 *	suspended with records left; POLLHUP when it is suspended with nothing
 *	left to read (read() returns 0 then; also before the first resume).
 *	The wakeup is deferred with irq_work: the sensor never wakes anyone
 *	from inside the scheduler.
 *
 * MKM_IOC_CLOCK (struct mkm_clock, in/out; ABI 2.2)
 *	For the ring of CPU cpu (a possible CPU: EINVAL otherwise), the
 *	offset from the clock its records are stamped with in the ring (the
 *	scheduler's) to CLOCK_MONOTONIC, taken now: time_ns is the ring clock
 *	now, offset_ns what to add to it. read() does this mapping itself; a
 *	reader in place (below) maps with two such points, interpolated.
 *
 * Reading in place: mmap (ABI 2.2)
 *	Instead of read(), a reader may map each CPU's ring, as perf maps its
 *	buffers, and read the records where the sensor wrote them. Once the
 *	rings exist (after CONFIGURE or the first RESUME: EINVAL before),
 *	with MAP_SHARED and offsets and lengths in pages of
 *	MKM_RING_PAGE_BYTES (the only page size mmap supports: ENODEV on a
 *	kernel with another):
 *	- at MKM_MMAP_RING(cpu), PROT_READ only (EACCES for PROT_WRITE, and
 *	  mprotect cannot add it): the whole ring, MKM_RING_MAP_BYTES(ring_bytes)
 *	  long: the control page (struct mkm_ring_control, written by the
 *	  kernel), the reader page (struct mkm_ring_reader), then the records,
 *	  one slot per record, a position p in slot p & mask;
 *	- at MKM_MMAP_RING(cpu) + MKM_RING_READER_OFFSET, PROT_READ|PROT_WRITE:
 *	  the reader page alone, one page long, through which the reader
 *	  frees slots.
 *	Any other offset or a length past the ring gives EINVAL. The records
 *	of positions [tail, head) are complete once head has been loaded with
 *	acquire semantics; the reader frees them by storing the new tail with
 *	release semantics. Their time_ns is the ring clock (MKM_IOC_CLOCK
 *	maps it) and their cpu field is not filled in. A gap in seq is the
 *	number of events dropped there (lost counts them all): the reader
 *	reports them, keeping read, read_lost, next_seq and read_ts as read()
 *	does, so that poll(), STATS and a read() after it agree with it, and
 *	stores the control page's triggers into triggers_seen once it has
 *	looked, so that poll() waits for the next trigger. The
 *	kernel trusts nothing on the reader page: a wrong tail costs the
 *	reader its own records only. CONFIGURE gives EBUSY while any ring is
 *	mapped.
 *
 * A flight recorder (ABI 2.7)
 *	A monitor configured with MKM_CONFIG_FLIGHT keeps the last records
 *	of each CPU and nothing else: its writer never waits for a reader,
 *	so an armed recorder costs no drain at all, and poll() wakes only
 *	at a trigger (or when the monitor is suspended). read() then gives,
 *	per CPU, a LOST record with MKM_EVF_OVERWRITTEN (arg0 and arg1 the
 *	low and high halves of the count; seq is the first one's) for what
 *	was overwritten since the last read, then the records still intact,
 *	from the oldest to the newest: a window without a hole, taken
 *	without stopping the recording. While resumed, the reader keeps a
 *	margin of an eighth of the ring (at most 1024 records) away from
 *	where the writer overwrites next, and checks after each copy that the
 *	writer has not come round to what it copied (else it skips on and
 *	copies again), so a window is at most that much shorter than the
 *	ring. A read after it continues from there: the records since,
 *	written after the snapshot (a post-roll). A reader in place does the
 *	same: mkm_ring_control.flags has MKM_RING_OVERWRITE; it loads head
 *	(acquire), skips to at least head - capacity + margin, copies, then
 *	after a read barrier (smp_rmb) loads head again: the positions from
 *	that head - mask on were not overwritten; it counts what it skips in
 *	overwritten on the reader page. The module's own reader is
 *	kernel/ring.h's ring_peek_flight().
 *
 * The event record
 * ================
 * 32 bytes, little-endian, naturally aligned:
 *
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                 time_ns (CLOCK_MONOTONIC, ns)                 |  0
 *  +                                                               +
 *  |                                                               |  4
 *  +---------------------------------------------------------------+
 *  |          tid (in the monitor's PID namespace, 0: none)        |  8
 *  +---------------------------------------------------------------+
 *  |               unique_id (given at thread_monitor)             | 12
 *  +---------------------------------------------------------------+
 *  |       seq (per-CPU sequence number, counting drops too)       | 16
 *  +-------------------------------+---------------+---------------+
 *  |             cpu               |     type      |     flags     | 20
 *  +-------------------------------+---------------+---------------+
 *  |                      arg0 (type-specific)                     | 24
 *  +---------------------------------------------------------------+
 *  |                      arg1 (type-specific)                     | 28
 *  +---------------------------------------------------------------+
 *
 * time_ns is CLOCK_MONOTONIC, as clock_gettime() gives it. The sensors read
 * the scheduler's clock (local_clock(), the one schedstat and ftrace use,
 * cheaper than CLOCK_MONOTONIC), and read() maps it onto CLOCK_MONOTONIC
 * with the offset between the two, taken at the resume and at each read
 * and interpolated between them for each record's own time; durations are
 * the scheduler clock's.
 * seq numbers every event a CPU's sensor produced for this monitor, recorded
 * or dropped, so a gap in seq is exactly the number of events lost there.
 * Timestamps of one CPU's records never go backwards.
 *
 * type                 tid/unique_id  flags            arg0          arg1
 * MKM_EV_SWITCH_OUT    the thread     PREEMPTED,LOCK_WAIT MKM_TS_* left in next tid
 * MKM_EV_SWITCH_IN     the thread     WAIT_US          runnable wait prev tid
 * MKM_EV_SWITCH        prev           see below        next's wait   next tid
 * MKM_EV_WAKING        wakee          IN_IRQ,LOCK_WAIT -             waker tid
 * MKM_EV_WAKEUP        wakee          IN_IRQ,LOCK_WAIT target cpu    waker tid
 * MKM_EV_WAKEUP_NEW    new thread     -                target cpu    parent tid
 * MKM_EV_MIGRATE       the thread     -                dest cpu      orig cpu
 * MKM_EV_FORK          parent         THREAD,INHERITED child tid     child unique_id
 * MKM_EV_EXEC          the thread     -                old tid       -
 * MKM_EV_EXIT          the thread     -                exit code     -
 * MKM_EV_REAP          the thread     -                -             -
 * MKM_EV_IRQ_ENTRY     current        VECTOR           irq / vector  -
 * MKM_EV_IRQ_EXIT      current        VECTOR           irq / vector  handled
 * MKM_EV_SOFTIRQ_ENTRY current        -                vector        -
 * MKM_EV_SOFTIRQ_EXIT  current        -                vector        -
 * MKM_EV_SYSCALL_ENTRY the thread     -                syscall nr    -
 * MKM_EV_SYSCALL_EXIT  the thread     -                syscall nr    return (low)
 * MKM_EV_MARK          caller         -                value (low)   value (high)
 * MKM_EV_ATTACH        the thread     -                MKM_TS_* now  on cpu (-1: no)
 * MKM_EV_DETACH        the thread     -                MKM_DETACH_*  -
 * MKM_EV_NAME          the thread     half (0, 1)      comm bytes    comm bytes
 * MKM_EV_LOST          0 / 0          OVERWRITTEN      count         - (high)
 * MKM_EV_TRIGGER       the thread     MKM_TRIGGER_*    value         threshold
 * MKM_EV_SCHED_STATE   the thread     SS_PEER,SS_*     vruntime (low) peer's (low)
 *
 * MKM_EV_SWITCH_OUT gives the state the thread leaves in: MKM_TS_RUNNING with
 * MKM_EVF_PREEMPTED when it stays runnable involuntarily, MKM_TS_RUNNING
 * without it when a signal cut its sleep short (a voluntary switch, the
 * thread still runnable), else the sleep it goes into. With
 * MKM_EVF_LOCK_WAIT (ABI 2.3) the thread blocks, MKM_TS_UNINTERRUPTIBLE, on
 * a lock that sleeps only on PREEMPT_RT (a spinlock_t or rwlock_t, an
 * rtmutex there); the WAKING and WAKEUP that end such a wait carry the flag
 * too, and are the lock's release, not the wakeup the thread may be
 * sleeping for (which, on PREEMPT_RT, can arrive during the lock wait and
 * then makes no record of its own).
 * MKM_EV_SWITCH_IN gives in arg0 how long the thread waited runnable on a run
 * queue since its last SWITCH_OUT (or since it was attached), in ns, or in us
 * with MKM_EVF_WAIT_US when that is 2^32 ns or more: the kernel's own
 * figure, which /proc/<tid>/schedstat adds up as run_delay (0 on a kernel
 * without CONFIG_SCHED_INFO). So the default classes show when a thread
 * became runnable without a record per wakeup; MKM_CLASS_WAKEUP adds who
 * woke it, and when, as the wakeup happened.
 * A WAKEUP's waker and MKM_EVF_IN_IRQ are those its WAKING saw (since ABI
 * 2.4): the WAKEUP of a thread woken onto an idle CPU fires there, from
 * that CPU's wake list, where the task running is not the waker.
 * MKM_EV_SWITCH (ABI 2.4, with MKM_CONFIG_ONE_SWITCH) is a SWITCH_OUT of
 * prev and a SWITCH_IN of next at one time, in one record: tid and
 * unique_id are prev's; flags hold prev's MKM_EVF_PREEMPTED and
 * MKM_EVF_LOCK_WAIT, next's MKM_EVF_WAIT_US, and prev's MKM_TS_* state in
 * the bits MKM_EVF_STATE_MASK (MKM_EVF_STATE() reads it); arg0 is next's
 * runnable wait, arg1 next's tid. Next's unique_id is not carried: it is
 * the one its other records carry (its ATTACH, or the FORK that
 * inherited it). It counts as one event in seq and in the counters.
 * MKM_EV_IRQ_ENTRY and _EXIT with MKM_EVF_VECTOR (ABI 2.1) are an x86
 * system vector's handler, which no irq number names: the local APIC timer
 * (the tick and every hrtimer), the reschedule, call-function and irq_work
 * IPIs (arg0 the vector, MKM_X86_*_VECTOR; arg1 0 at exit). "current" is
 * the interrupted tracked thread, or, in a system-wide monitor, tid 0 for
 * a CPU's idle task. On arm64, which has no system vectors, the records
 * are the same for the interrupts that mean the same, by the name of
 * their per-CPU interrupt: the architected timer ("arch_timer") is
 * MKM_X86_LOCAL_TIMER_VECTOR, as is the timer broadcast IPI; the
 * reschedule and irq_work IPIs are theirs; arm64's one function-call IPI
 * (for one CPU or many) is MKM_X86_CALL_FUNCTION_VECTOR. Its other IPIs
 * (CPU stop, wake-up) are IRQ records of their irq number.
 * MKM_EV_NAME carries the thread's 16-byte comm in two consecutive records:
 * flags 0 holds bytes 0-7, flags 1 bytes 8-15. It is written at attach, at
 * exec, at fork of an inherited thread and when the thread renames itself;
 * in a flight recorder's monitor (ABI 2.7) also just before its MKM_EV_EXIT,
 * so that a window which kept the exit names the thread.
 * MKM_EV_LOST reports arg0 events dropped on that CPU just before the record
 * that follows it (or at the end of the stream); its time_ns is the time of
 * the last record before the gap, or 0 if there was none, and its seq is
 * that of the first event dropped. With MKM_EVF_OVERWRITTEN, the records
 * were not dropped but overwritten by a flight recorder's ring (ABI 2.7),
 * and arg1 holds the count's high half. An inherited thread's unique_id
 * is its tid.
 * MKM_EV_TRIGGER (ABI 2.7) follows the record that fired it, in the same
 * ring and at the same time: its flags' low bits (MKM_EVF_TRIGGER_MASK)
 * say which trigger, with MKM_EVF_WAIT_US when arg0 and arg1 count us,
 * not ns (either would not fit). MKM_TRIGGER_RUNQ follows a SWITCH_IN
 * or SWITCH of the thread: arg0 its run-queue wait, arg1 the threshold;
 * MKM_TRIGGER_IRQ follows an IRQ_EXIT or SOFTIRQ_EXIT that interrupted
 * the thread: arg0 the time since its entry, arg1 the threshold; with
 * MKM_EVF_WAITING (ABI 2.9) it follows the SWITCH_IN or SWITCH of a thread
 * that waited on its CPU's run queue through the interrupt: arg0 the
 * interrupt's time within the wait, arg1 the threshold;
 * MKM_TRIGGER_MARK follows a MARK: arg0 and arg1 the mark's value.
 * MKM_EV_SCHED_STATE (ABI 2.10, MKM_CLASS_SCHED_STATE) is what the fair
 * class's rule reads when it decides whether a wakeup preempts the running
 * thread and whether a run ends at a tick, for a thread of that class
 * (SCHED_OTHER, SCHED_BATCH, SCHED_IDLE, not boosted): the low 32 bits of
 * its sched_entity's vruntime, in arg0, and of its peer's in arg1 with
 * MKM_EVF_SS_PEER, where the peer is of the fair class, on the same
 * run queue of the fair class (group), and shown as a peer tid would be.
 * Differences of the low halves, taken as signed 32-bit, are the
 * vruntimes' within +-2.1 s. It follows, at the same time, the WAKEUP of
 * the thread (its peer the CPU's running thread, when the wakeup runs on
 * the thread's CPU; with MKM_EVF_SS_RESCHED when that thread is to be
 * rescheduled, the decision already taken), and, with MKM_EVF_SS_SWITCH,
 * its SWITCH_OUT, before the next thread's SWITCH_IN (its vruntime up to
 * date with its run, the peer the next thread): with this class a switch
 * is never one MKM_EV_SWITCH record, MKM_CONFIG_ONE_SWITCH or not. From
 * 6.6 (EEVDF) a second record follows each, with MKM_EVF_SS_DEADLINE: the
 * same of the entities' deadlines.
 */
#ifndef _UAPI_MKM_H
#define _UAPI_MKM_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define MKM_ABI_MAJOR 2
#define MKM_ABI_MINOR 10

#define MKM_DEVICE "/dev/mkm"

#define MKM_RING_MIN_BYTES 4096u
#define MKM_RING_MAX_BYTES (256u << 20)
#define MKM_RING_DEFAULT_BYTES (1u << 20)

/* Event classes: what a monitor records. */
#define MKM_CLASS_SCHED (1u << 0) /* switch out/in, wakeup_new, migrate */
#define MKM_CLASS_LIFECYCLE (1u << 1) /* fork, exec, exit, reap, name */
#define MKM_CLASS_IRQ (1u << 2) /* irq and softirq entry/exit */
#define MKM_CLASS_SYSCALL (1u << 3) /* raw syscall entry/exit */
#define MKM_CLASS_WAKEUP (1u << 4) /* waking, wakeup: who woke whom */
/* the fair class's vruntime at wakeups and switches (ABI 2.10) */
#define MKM_CLASS_SCHED_STATE (1u << 5)
#define MKM_CLASS_ALL 0x3fu
#define MKM_CLASS_DEFAULT \
	(MKM_CLASS_SCHED | MKM_CLASS_LIFECYCLE | MKM_CLASS_IRQ)

/* mkm_config.flags */
#define MKM_CONFIG_INHERIT \
	(1u << 0) /* track threads a tracked thread creates */
#define MKM_CONFIG_SYSTEM (1u << 1) /* every thread of the machine */
/* a switch between two tracked threads as one MKM_EV_SWITCH (ABI 2.4) */
#define MKM_CONFIG_ONE_SWITCH (1u << 2)
/* a flight recorder: full rings overwrite their oldest records (ABI 2.7) */
#define MKM_CONFIG_FLIGHT (1u << 3)
#define MKM_CONFIG_ALL 0xfu

/* Event types. Numbers are never reused. */
enum mkm_event_type {
	MKM_EV_SWITCH_OUT = 1,
	MKM_EV_SWITCH_IN = 2,
	MKM_EV_WAKING = 3,
	MKM_EV_WAKEUP = 4,
	MKM_EV_WAKEUP_NEW = 5,
	MKM_EV_MIGRATE = 6,
	MKM_EV_FORK = 7,
	MKM_EV_EXEC = 8,
	MKM_EV_EXIT = 9,
	MKM_EV_REAP = 10,
	MKM_EV_IRQ_ENTRY = 11,
	MKM_EV_IRQ_EXIT = 12,
	MKM_EV_SOFTIRQ_ENTRY = 13,
	MKM_EV_SOFTIRQ_EXIT = 14,
	MKM_EV_SYSCALL_ENTRY = 15,
	MKM_EV_SYSCALL_EXIT = 16,
	MKM_EV_MARK = 17,
	MKM_EV_ATTACH = 18,
	MKM_EV_DETACH = 19,
	MKM_EV_NAME = 20,
	MKM_EV_LOST = 21,
	MKM_EV_SWITCH = 22, /* ABI 2.4 */
	MKM_EV_TRIGGER = 23, /* ABI 2.7 */
	MKM_EV_SCHED_STATE = 24, /* ABI 2.10 */
	MKM_EV_TYPE_MAX = MKM_EV_SCHED_STATE,
};

/* mkm_event.flags */
/*
 * SWITCH_OUT: left the CPU runnable, preempted or yielding: an involuntary
 * switch as /proc/<tid>/status counts them (nonvoluntary_ctxt_switches).
 */
#define MKM_EVF_PREEMPTED (1u << 0)
#define MKM_EVF_IN_IRQ (1u << 1) /* WAKING/WAKEUP: woken from interrupt */
#define MKM_EVF_THREAD (1u << 2) /* FORK: a thread (CLONE_THREAD) */
#define MKM_EVF_INHERITED (1u << 3) /* FORK: the child is tracked too */
#define MKM_EVF_WAIT_US (1u << 4) /* SWITCH_IN: arg0 counts us, not ns */
/* IRQ_ENTRY/EXIT: arg0 is an x86 vector (or, on arm64, what means the same) */
#define MKM_EVF_VECTOR (1u << 5)
/* SWITCH_OUT, WAKING, WAKEUP: a PREEMPT_RT lock wait, begun or ended */
#define MKM_EVF_LOCK_WAIT (1u << 6)
/* SWITCH: prev's MKM_TS_* state, in bits 1-3 (other types' flags there) */
#define MKM_EVF_STATE_SHIFT 1
#define MKM_EVF_STATE_MASK (7u << MKM_EVF_STATE_SHIFT)
#define MKM_EVF_STATE(flags) \
	(((flags)&MKM_EVF_STATE_MASK) >> MKM_EVF_STATE_SHIFT)
/* LOST (ABI 2.7): the records a flight recorder's ring overwrote */
#define MKM_EVF_OVERWRITTEN (1u << 7)
/* TRIGGER (ABI 2.7): what fired, in bits 0-3 (MKM_TRIGGER_*) */
#define MKM_EVF_TRIGGER_MASK 0xfu
/* TRIGGER (ABI 2.9) MKM_TRIGGER_IRQ: the thread waited through it */
#define MKM_EVF_WAITING (1u << 5)
/* SCHED_STATE (ABI 2.10): arg1 holds the peer's */
#define MKM_EVF_SS_PEER (1u << 0)
/* SCHED_STATE at a wakeup: the running thread is to be rescheduled */
#define MKM_EVF_SS_RESCHED (1u << 1)
/* SCHED_STATE: at the thread's switch-out, not at its wakeup */
#define MKM_EVF_SS_SWITCH (1u << 2)
/* SCHED_STATE: the entities' deadlines (EEVDF), not their vruntimes */
#define MKM_EVF_SS_DEADLINE (1u << 3)

/* What a MKM_EV_TRIGGER record reports, in its flags. */
enum mkm_trigger_kind {
	MKM_TRIGGER_RUNQ = 1, /* a run-queue wait over trigger_runq_ns */
	MKM_TRIGGER_IRQ = 2, /* an interrupt or softirq over trigger_irq_ns */
	MKM_TRIGGER_MARK = 3, /* a MARK with MKM_MARK_TRIGGER */
};

/* The x86 vectors MKM_EVF_VECTOR records name, on every architecture. */
#define MKM_X86_LOCAL_TIMER_VECTOR 0xec
#define MKM_X86_IRQ_WORK_VECTOR 0xf6
#define MKM_X86_CALL_FUNCTION_SINGLE_VECTOR 0xfb
#define MKM_X86_CALL_FUNCTION_VECTOR 0xfc
#define MKM_X86_RESCHEDULE_VECTOR 0xfd

/* Thread states, in SWITCH_OUT and ATTACH arg0. */
enum mkm_thread_state {
	MKM_TS_RUNNING = 0, /* runnable: preempted, yielded or on a CPU */
	MKM_TS_INTERRUPTIBLE = 1, /* sleeping, a signal wakes it */
	MKM_TS_UNINTERRUPTIBLE = 2, /* sleeping, e.g. disk wait */
	MKM_TS_STOPPED = 3, /* stopped by a signal */
	MKM_TS_TRACED = 4, /* stopped by a tracer */
	MKM_TS_DEAD = 5, /* exited and released: nothing waits for it */
	MKM_TS_PARKED = 6, /* kthread parked, idle or other */
	MKM_TS_ZOMBIE = 7, /* exited, waiting for its parent's wait() */
};

/* MKM_EV_DETACH arg0: why a thread stopped being tracked. */
enum mkm_detach_reason {
	MKM_DETACH_UNMONITOR = 1, /* thread_unmonitor */
	MKM_DETACH_EXEC = 2, /* exec'd a binary the monitor may not watch */
};

struct mkm_event {
	__u64 time_ns;
	__u32 tid;
	__u32 unique_id;
	__u32 seq;
	__u16 cpu;
	__u8 type;
	__u8 flags;
	__u32 arg0;
	__u32 arg1;
};

struct mkm_version {
	__u32 major;
	__u32 minor;
	__u32 event_size; /* sizeof(struct mkm_event) */
	__u32 reserved;
};

struct mkm_config {
	__u64 ring_bytes; /* in: requested per CPU; out: allocated */
	__u64 total_bytes; /* out: over all possible CPUs (ignored in) */
	__u32 classes; /* MKM_CLASS_* (0: default) */
	__u32 flags; /* MKM_CONFIG_* */
	__u64 wakeup_bytes; /* 0: half the ring */
	__u64 trigger_runq_ns; /* ABI 2.7; 0: none */
	__u64 trigger_irq_ns; /* ABI 2.7; 0: none */
};

struct mkm_thread {
	__s32 tid;
	__u32 unique_id;
	__u64 reserved; /* ABI 2.4 */
};

struct mkm_cpu_stats {
	/* events the sensor made: read + lost + buffered + overwritten */
	__u64 produced;
	__u64 lost; /* dropped because the ring was full */
	__u64 read; /* delivered by read() */
	__u64 buffered; /* in the ring now */
	__u64 overwritten; /* ABI 2.7: given way to newer (MKM_CONFIG_FLIGHT) */
	__u64 triggers; /* ABI 2.7: TRIGGER records written */
};

/* The bytes of struct mkm_cpu_stats up to ABI 2.6: buffered's end. */
#define MKM_CPU_STATS_SIZE_2_6 32u

struct mkm_stats {
	__u32 nr_cpus; /* in: entries at cpus; out: possible CPU ids */
	__u32 busy_threads; /* in: 0; out: left to other monitors (SYSTEM) */
	__u64 cpus; /* user pointer to struct mkm_cpu_stats[nr_cpus] */
	/* in (ABI 2.4): bytes of each entry at cpus, 0: the struct's size */
	__u32 cpu_stats_size;
	/* out (ABI 2.5; in: ignored): probe drops deferred | _DEFERRING */
	__u32 deferrals;
};

/* In mkm_stats.deferrals: some unwanted probes are registered still. */
#define MKM_STATS_DEFERRING (1u << 31)

struct mkm_mark {
	__u64 value;
	__u32 flags; /* ABI 2.7: MKM_MARK_*; ABI 2.4 to 2.6: reserved */
	__u32 reserved; /* ABI 2.4 */
};

/* mkm_mark.flags: the mark is a trigger too (a MKM_EV_TRIGGER after it). */
#define MKM_MARK_TRIGGER (1u << 0)
/* ABI 2.8: into the monitor that tracks the caller, not the fd's. */
#define MKM_MARK_OWN (1u << 1)

struct mkm_clock {
	__u32 cpu; /* in: the ring's CPU */
	__u32 reserved;
	__u64 time_ns; /* out: the ring clock now */
	__s64 offset_ns; /* out: CLOCK_MONOTONIC - ring clock, now */
};

/* A mapped ring (ABI 2.2): see "Reading in place" above. */
#define MKM_RING_PAGE_BYTES 4096u
#define MKM_RING_READER_OFFSET MKM_RING_PAGE_BYTES
#define MKM_RING_RECORDS_OFFSET (2 * MKM_RING_PAGE_BYTES)
#define MKM_RING_MAP_BYTES(ring_bytes) \
	((__u64)MKM_RING_RECORDS_OFFSET + (ring_bytes))
#define MKM_MMAP_RING(cpu) ((__u64)(cpu) << 32)

/* Page 0 of a mapped ring, written by the kernel only. */
struct mkm_ring_control {
	__u64 head; /* positions committed; load with acquire */
	__u64 lost; /* events dropped; head + lost were produced */
	__u32 mask; /* slots - 1 (a power of two, minus one) */
	__u32 wakeup; /* occupancy at which poll() wakes (0: never) */
	__u32 flags; /* ABI 2.7: MKM_RING_* */
	__u32 reserved;
	__u64 triggers; /* ABI 2.7: TRIGGER records written */
};

/* mkm_ring_control.flags: the ring overwrites (MKM_CONFIG_FLIGHT). */
#define MKM_RING_OVERWRITE (1u << 0)

/* Page 1 of a mapped ring, written by the reader only. */
struct mkm_ring_reader {
	__u64 tail; /* positions consumed; store with release */
	__u64 read; /* records delivered (STATS' read) */
	__u64 read_lost; /* drops reported */
	__u64 read_ts; /* time_ns of the last record delivered */
	__u32 next_seq; /* seq of the next event expected */
	__u32 reserved;
	__u64 overwritten; /* ABI 2.7: positions skipped as overwritten */
	__u64 triggers_seen; /* ABI 2.7: control's triggers, once read */
};

#define MKM_IOC_MAGIC 0xB6

#define MKM_IOC_VERSION _IOR(MKM_IOC_MAGIC, 0x01, struct mkm_version)
#define MKM_IOC_CONFIGURE _IOWR(MKM_IOC_MAGIC, 0x02, struct mkm_config)
#define MKM_IOC_RESUME _IO(MKM_IOC_MAGIC, 0x03)
#define MKM_IOC_SUSPEND _IO(MKM_IOC_MAGIC, 0x04)
#define MKM_IOC_THREAD_MONITOR _IOW(MKM_IOC_MAGIC, 0x05, struct mkm_thread)
#define MKM_IOC_THREAD_UNMONITOR _IOW(MKM_IOC_MAGIC, 0x06, struct mkm_thread)
#define MKM_IOC_STATS _IOWR(MKM_IOC_MAGIC, 0x07, struct mkm_stats)
#define MKM_IOC_MARK _IOW(MKM_IOC_MAGIC, 0x08, struct mkm_mark)
#define MKM_IOC_CLOCK _IOWR(MKM_IOC_MAGIC, 0x09, struct mkm_clock)

/*
 * The calls of ABI 2.3 and before, whose structs had no reserved fields:
 * still served, as the prefix of the struct that replaced them.
 */
struct mkm_thread_2_3 {
	__s32 tid;
	__u32 unique_id;
};

struct mkm_stats_2_3 {
	__u32 nr_cpus;
	__u32 busy_threads;
	__u64 cpus;
};

struct mkm_mark_2_3 {
	__u64 value;
};

#define MKM_IOC_THREAD_MONITOR_2_3 \
	_IOW(MKM_IOC_MAGIC, 0x05, struct mkm_thread_2_3)
#define MKM_IOC_THREAD_UNMONITOR_2_3 \
	_IOW(MKM_IOC_MAGIC, 0x06, struct mkm_thread_2_3)
#define MKM_IOC_STATS_2_3 _IOWR(MKM_IOC_MAGIC, 0x07, struct mkm_stats_2_3)
#define MKM_IOC_MARK_2_3 _IOW(MKM_IOC_MAGIC, 0x08, struct mkm_mark_2_3)

#endif /* _UAPI_MKM_H */

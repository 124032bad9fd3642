// SPDX-License-Identifier: GPL-2.0
/*
 * reader.c - draining a monitor's rings to user space: read(), poll()'s
 * readiness, STATS, and the clock points that map ring time to
 * CLOCK_MONOTONIC.
 *
 * Readers serialise on mon->read_lock, never mon->lock: a copy to user
 * space can wait on a page fault for as long as the reader's buffer
 * wants (FUSE, userfaultfd), and thread_monitor waits for mon->lock while
 * it holds its target's exec_update_lock, so another process's execve
 * would wait on the reader's page. What replaces the rings or the clock
 * points (CONFIGURE, RESUME) takes read_lock before mon->lock, never
 * under it, so that waiting for a stuck reader holds up nothing else.
 */

#include <linux/mm.h>
#include <linux/sched/clock.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#include "monitor.h"
#include "sensor.h"

/*
 * The rings hold the scheduler clock (see sensor.c); user space gets
 * CLOCK_MONOTONIC. This is the offset between the two for cpu's clock at
 * *t, taken between two reads of it so that it is centred. Both clocks
 * count the same cycles, so it moves only as NTP slews CLOCK_MONOTONIC (at
 * most 500 ppm): each read maps its records with the offsets taken at the
 * previous read (or the resume) and now, interpolated (ring_clock), so a
 * record that waited long in the ring is not moved by the slew since.
 */
#define CLOCK_POINT_TRIES 3

static void reader_clock_point(int cpu, u64 *t, s64 *off)
{
	u64 width = U64_MAX;
	int i;

	/*
	 * The narrowest of a few tries: a guest's vCPU (or an NMI) stopped
	 * between the reads would widen one, and put its centre off by up
	 * to half of that.
	 */
	for (i = 0; i < CLOCK_POINT_TRIES; i++) {
		unsigned long irqflags;
		u64 before, mono, after;

		local_irq_save(irqflags);
		before = cpu_clock(cpu);
		mono = ktime_get_mono_fast_ns();
		after = cpu_clock(cpu);
		local_irq_restore(irqflags);
		if (after - before < width) {
			width = after - before;
			*t = before + width / 2;
			*off = mono - *t;
		}
	}
}

int mkm_monitor_clock(struct mkm_clock *clk)
{
	if (clk->reserved)
		return -EINVAL;
	if (clk->cpu >= nr_cpu_ids || !cpu_possible(clk->cpu))
		return -EINVAL;
	reader_clock_point(clk->cpu, &clk->time_ns, &clk->offset_ns);
	return 0;
}

/* The first point of each ring's clock mapping, at RESUME. */
void mkm_reader_clock_points(struct mkm_monitor *mon)
{
	int cpu;

	lockdep_assert_held(&mon->read_lock);
	for_each_possible_cpu(cpu) {
		struct mkm_cpu_buf *b = per_cpu_ptr(mon->cpu, cpu);

		reader_clock_point(cpu, &b->clock_t, &b->clock_off);
	}
}

/* Whether a reader has anything left: records, or drops not yet reported. */
bool mkm_reader_unread(struct mkm_monitor *mon)
{
	int cpu;

	lockdep_assert_held(&mon->read_lock);
	if (!mon->cpu)
		return false;
	for_each_possible_cpu(cpu) {
		struct mkm_ring *r = per_cpu_ptr(mon->cpu, cpu)->ring;

		if (ring_buffered(r) ||
		    READ_ONCE(r->lost) != READ_ONCE(r->rd.read_lost))
			return true;
	}
	return false;
}

int mkm_monitor_stats(struct mkm_monitor *mon, struct mkm_stats *st)
{
	void __user *out = u64_to_user_ptr(st->cpus);
	size_t size = st->cpu_stats_size;
	u32 given = st->nr_cpus;
	int cpu, ret;

	/* Killable: another reader may be stuck in its copy, holding it. */
	ret = mutex_lock_killable(&mon->read_lock);
	if (ret)
		return ret;
	for_each_possible_cpu(cpu) {
		void __user *entry = out + (size_t)cpu * size;
		struct mkm_cpu_stats s = {};

		if (cpu >= given)
			break;
		if (mon->cpu) {
			struct mkm_ring *r = per_cpu_ptr(mon->cpu, cpu)->ring;

			s.produced = ring_produced(r);
			s.lost = READ_ONCE(r->lost);
			s.read = READ_ONCE(r->rd.read);
			s.buffered = ring_buffered(r);
			s.overwritten = ring_overwritten(r);
			s.triggers = READ_ONCE(r->triggers);
		}
		/* The caller's entry: the struct's prefix, or it and zeros. */
		if (copy_to_user(entry, &s, min(size, sizeof(s))) ||
		    (size > sizeof(s) &&
		     clear_user(entry + sizeof(s), size - sizeof(s)))) {
			ret = -EFAULT;
			break;
		}
	}
	st->busy_threads = READ_ONCE(mon->busy_threads);
	mutex_unlock(&mon->read_lock);
	st->deferrals = mkm_sensor_deferrals();
	st->nr_cpus = nr_cpu_ids;
	return ret;
}

/*
 * Copies what one ring holds, as far as count allows, through the bounce
 * page; stopped: no sensor writes any more, so drops at the ring's end are
 * reported. Records are freed only once they reached user space. A
 * flight recorder's ring gives what it kept, from its oldest intact
 * record on (ring_peek_flight()). The ring's triggers count as seen.
 * Returns bytes copied or -EFAULT.
 */
static ssize_t reader_drain_cpu(struct mkm_monitor *mon, int cpu,
				char __user *buf, size_t count, bool stopped)
{
	struct mkm_cpu_buf *b = per_cpu_ptr(mon->cpu, cpu);
	struct mkm_ring *r = b->ring;
	const u32 page_records = PAGE_SIZE / sizeof(struct mkm_event);
	struct ring_clock clk = { .t0 = b->clock_t, .off0 = b->clock_off };
	size_t done = 0;

	reader_clock_point(cpu, &clk.t1, &clk.off1);
	b->clock_t = clk.t1;
	b->clock_off = clk.off1;
	ring_see_triggers(r, &r->rd);

	for (;;) {
		size_t room = (count - done) / sizeof(struct mkm_event);
		struct ring_cursor c;
		u32 n, bytes;

		ring_cursor_start(&r->rd, &c);
		n = ring_peek_flight(r, &c, mon->bounce,
				     min_t(size_t, room, page_records), stopped,
				     cpu, &clk);
		if (!n)
			return done;
		bytes = n * sizeof(struct mkm_event);
		if (copy_to_user(buf + done, mon->bounce, bytes))
			return done ? done : -EFAULT;
		ring_consume(&r->rd, &c);
		done += bytes;
	}
}

static ssize_t reader_drain(struct mkm_monitor *mon, char __user *buf,
			    size_t count, bool stopped)
{
	unsigned int i, ncpu = nr_cpu_ids;
	size_t done = 0;

	lockdep_assert_held(&mon->read_lock);
	if (!mon->cpu)
		return 0;
	for (i = 0; i < ncpu && count - done >= sizeof(struct mkm_event); i++) {
		int cpu = (mon->next_read_cpu + i) % ncpu;
		ssize_t n;

		if (!cpu_possible(cpu))
			continue;
		n = reader_drain_cpu(mon, cpu, buf + done, count - done,
				     stopped);
		if (n < 0)
			return done ? done : n;
		done += n;
	}
	mon->next_read_cpu = (mon->next_read_cpu + 1) % ncpu;
	return done;
}

bool mkm_monitor_readable(struct mkm_monitor *mon)
{
	bool stopped = mkm_monitor_stopped(mon), ready = false;
	struct mkm_cpu_buf __percpu *bufs;
	int cpu;

	rcu_read_lock();
	bufs = READ_ONCE(mon->cpu);
	for_each_possible_cpu(cpu) {
		struct mkm_ring *r;
		u64 n;

		if (!bufs || ready)
			break;
		r = per_cpu_ptr(bufs, cpu)->ring;
		n = ring_buffered(r);
		/* A trigger wakes; a flight recorder's wakeup is 0: never. */
		ready = !stopped ? (r->wakeup && n >= r->wakeup) ||
					   ring_untriggered(r) :
				   n || READ_ONCE(r->lost) !=
						   READ_ONCE(r->rd.read_lost);
	}
	rcu_read_unlock();
	return ready;
}

ssize_t mkm_monitor_read(struct mkm_monitor *mon, char __user *buf,
			 size_t count, bool nonblock)
{
	ssize_t ret;

	if (count < sizeof(struct mkm_event))
		return -EINVAL;
	for (;;) {
		bool stopped;

		/* Stopped before the drain: what it leaves is all there is. */
		ret = mutex_lock_killable(&mon->read_lock);
		if (ret)
			return ret;
		stopped = mkm_monitor_stopped(mon);
		ret = reader_drain(mon, buf, count, stopped);
		mutex_unlock(&mon->read_lock);
		if (ret || stopped)
			return ret;
		if (nonblock)
			return -EAGAIN;
		ret = wait_event_interruptible(
			mon->readers,
			mkm_monitor_readable(mon) || mkm_monitor_stopped(mon));
		if (ret)
			return ret;
	}
}

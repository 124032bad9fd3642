/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ring.h - the per-CPU event ring of a monitor: one writer, one reader.
 *
 * The writer is the CPU the ring belongs to, with interrupts disabled around
 * each write (ring_write(), as the sensor writes; ring_reserve() to
 * ring_commit() is what the tests check it against), so a ring never sees
 * two writers at once and needs no lock or atomic instruction. The reader
 * is whoever holds the monitor's mutex, or the reader in place of a mapped
 * ring. head and tail count records since the ring was made and only grow;
 * a slot is written only when head - tail <= mask, so the writer never
 * touches a record the reader has not consumed, and publishes it with a
 * release store of head; the reader frees slots with a release store of
 * tail.
 *
 * When the ring is full the event is dropped: lost counts it and its
 * sequence number (the low 32 bits of head + lost, the events produced) is
 * skipped, so the reader sees a gap in seq exactly where events were lost
 * and turns it into an in-band MKM_EV_LOST record. The reader fills in each
 * record's cpu, maps its time onto the reader's clock (an offset measured at
 * two instants, interpolated between them) and clamps it so that a ring's
 * times never go backwards, across reads too: the writer, which runs on
 * every context switch, does as little as it can.
 *
 * A flight recorder's ring (MKM_RING_OVERWRITE) is never full: the writer
 * overwrites the oldest record instead, and the reader skips what was
 * overwritten (ring_peek_flight()), as a seqlock's reader retries: it
 * copies, then checks that the writer has not come round to what it
 * copied meanwhile. The writer's only extra work is in the branch a full
 * ring takes, and a barrier there, so that a reader that sees an
 * overwritten slot sees the head that overwrote it.
 *
 * The reader's state lives on a page of its own, which a reader in user
 * space may map writable (the uapi's "Reading in place", mmap.c): it then
 * runs this same code on the mapped ring. The writer trusts nothing on that
 * page: every slot index is masked, so a wrong tail costs that reader its
 * own records, never memory outside the ring.
 *
 * This file builds in the module and in userspace (libmonitor, unit tests,
 * sanitizers, native benchmarks): it uses only the few primitives defined
 * below.
 */
#ifndef MKM_RING_H
#define MKM_RING_H

#include "mkm.h" /* the UAPI header: struct mkm_event */

#ifdef __KERNEL__
#include <linux/limits.h>
#include <linux/types.h>
#include <linux/compiler.h>
#include <linux/math64.h>
#include <asm/barrier.h>
#else
#include "ring_user.h"
#endif

struct mkm_ring {
	/* The control page: written by the ring's CPU only. */
	u64 head; /* records committed */
	u64 lost; /* events dropped; head + lost were produced */
	u32 mask; /* capacity - 1; capacity is a power of two; set at creation */
	u32 wakeup; /* occupancy at which the reader is woken; likewise */
	u32 flags; /* MKM_RING_*; likewise */
	u32 reserved;
	u64 triggers; /* TRIGGER records written (ring_triggered()) */

	/*
	 * The reader page: written by the reader only, read() or a reader in
	 * user space through mmap (the uapi's struct mkm_ring_reader).
	 */
	struct mkm_ring_reader rd __aligned(MKM_RING_PAGE_BYTES);

	/* From the third page on: the records. */
	struct mkm_event ev[] __aligned(MKM_RING_PAGE_BYTES);
};

/* The layout user space maps (uapi: "Reading in place"). */
#define RING_AT(field, offset)                                                 \
	_Static_assert(__builtin_offsetof(struct mkm_ring, field) == (offset), \
		       "mapped ring layout: " #field)
RING_AT(head, __builtin_offsetof(struct mkm_ring_control, head));
RING_AT(lost, __builtin_offsetof(struct mkm_ring_control, lost));
RING_AT(mask, __builtin_offsetof(struct mkm_ring_control, mask));
RING_AT(wakeup, __builtin_offsetof(struct mkm_ring_control, wakeup));
RING_AT(flags, __builtin_offsetof(struct mkm_ring_control, flags));
RING_AT(triggers, __builtin_offsetof(struct mkm_ring_control, triggers));
RING_AT(rd, MKM_RING_READER_OFFSET);
RING_AT(ev, MKM_RING_RECORDS_OFFSET);
#undef RING_AT

/* Bytes to allocate for a ring of capacity records. */
static inline u64 ring_alloc_size(u32 capacity)
{
	return sizeof(struct mkm_ring) +
	       (u64)capacity * sizeof(struct mkm_event);
}

/*
 * Prepares zeroed memory of ring_alloc_size(capacity) bytes. An
 * overwriting ring (MKM_RING_OVERWRITE in flags) wakes no reader by
 * occupancy, as it is always full: wakeup must be 0.
 */
static inline void ring_init(struct mkm_ring *r, u32 capacity, u32 wakeup,
			     u32 flags)
{
	r->mask = capacity - 1;
	r->wakeup = wakeup;
	r->flags = flags;
}

static inline bool ring_overwrites(const struct mkm_ring *r)
{
	return r->flags & MKM_RING_OVERWRITE;
}

/*
 * Writer: a TRIGGER record was written; the reader's poll() wakes on it
 * (ring_untriggered()). Interrupts disabled, as for ring_reserve().
 */
static inline void ring_triggered(struct mkm_ring *r)
{
	WRITE_ONCE(r->triggers, r->triggers + 1);
}

/* Reader: triggers the reader has not yet seen (rd.triggers_seen). */
static inline bool ring_untriggered(const struct mkm_ring *r)
{
	return READ_ONCE(r->triggers) != READ_ONCE(r->rd.triggers_seen);
}

/* Reader: every trigger so far seen, so that poll() waits for the next. */
static inline void ring_see_triggers(const struct mkm_ring *r,
				     struct mkm_ring_reader *rd)
{
	WRITE_ONCE(rd->triggers_seen, READ_ONCE(r->triggers));
}

/*
 * The slot of position head is about to be written: full, the ring drops
 * the event (and returns false) or, overwriting, lets the oldest record
 * give way. The barrier orders the commit of head before the stores into
 * the slot, which pairs with ring_peek_flight()'s smp_rmb(): a reader that
 * loaded part of the new record loads a head past it, and knows.
 */
static inline bool ring_full(struct mkm_ring *r, u64 lost)
{
	if (!ring_overwrites(r)) {
		WRITE_ONCE(r->lost, lost + 1);
		return false;
	}
	/* head's commit before the slot's stores: see above. */
	smp_wmb();
	return true;
}

/* Events the writer produced: committed or dropped. */
static inline u64 ring_produced(const struct mkm_ring *r)
{
	return READ_ONCE(r->head) + READ_ONCE(r->lost);
}

/*
 * Writer: counts an event not written (the sensor withheld it) as lost, so
 * its seq shows the gap. Interrupts disabled, as for ring_reserve().
 */
static inline void ring_drop(struct mkm_ring *r)
{
	WRITE_ONCE(r->lost, r->lost + 1);
}

/*
 * Writer: returns the slot for the next event, or NULL when the ring is full
 * (the event is counted as lost). The caller fills in everything but
 * time_ns, seq and cpu, then calls ring_commit(). Interrupts must be
 * disabled from reserve to commit.
 */
static inline struct mkm_event *ring_reserve(struct mkm_ring *r)
{
	u64 head = r->head, lost = r->lost;
	struct mkm_event *ev;

	/* Acquire pairs with ring_consume(): the reader is done with the slot. */
	if (unlikely(head - smp_load_acquire(&r->rd.tail) > r->mask) &&
	    !ring_full(r, lost))
		return NULL;
	ev = &r->ev[head & r->mask];
	ev->seq = (u32)(head + lost);
	return ev;
}

/*
 * Writer: stamps and publishes the reserved slot. Returns true when this
 * record brought the ring to its wakeup occupancy, so the caller wakes the
 * reader (once per crossing, not per record).
 */
static inline bool ring_commit(struct mkm_ring *r, struct mkm_event *ev,
			       u64 now)
{
	u64 head = r->head + 1;

	ev->time_ns = now;
	/* Release pairs with the reader's acquire: the record is complete. */
	smp_store_release(&r->head, head);
	return head - READ_ONCE(r->rd.tail) == r->wakeup;
}

/*
 * Writer: ring_reserve(), the record's fields and ring_commit() in one, for
 * a writer that has them all before the slot (the sensors): the control
 * page is read once, where the stores into the slot, which may alias it as
 * far as the compiler knows, would have it read head and tail again, and
 * the wakeup test takes the tail the reservation saw (the reader may have
 * moved it since, as it may have just after a fresh read: either way the
 * test is of an occupancy this record made). Returns 1 when this record
 * brought the ring to its wakeup occupancy (ring_commit()), -1 when the
 * ring was full (the event counted as lost), else 0; an overwriting ring
 * returns 0. Interrupts disabled, as for ring_reserve().
 */
static inline int ring_write(struct mkm_ring *r, u32 tid, u32 unique_id,
			     u8 type, u8 flags, u32 arg0, u32 arg1, u64 now)
{
	u64 head = r->head, lost = r->lost;
	/* Acquire pairs with ring_consume(): the reader is done with the slot. */
	u64 tail = smp_load_acquire(&r->rd.tail);
	u32 mask = r->mask, wakeup = r->wakeup;
	struct mkm_event *ev;

	if (unlikely(head - tail > mask) && !ring_full(r, lost))
		return -1;
	ev = &r->ev[head & mask];
	ev->time_ns = now;
	ev->tid = tid;
	ev->unique_id = unique_id;
	ev->seq = (u32)(head + lost);
	ev->type = type;
	ev->flags = flags;
	ev->arg0 = arg0;
	ev->arg1 = arg1;
	/* Release pairs with the reader's acquire: the record is complete. */
	smp_store_release(&r->head, head + 1);
	return head + 1 - tail == wakeup;
}

/*
 * Reader: records waiting in the ring, and, overwriting, the positions
 * behind them that the writer overwrote and the reader has not yet
 * skipped.
 */
static inline u64 ring_buffered(const struct mkm_ring *r)
{
	/* Acquire pairs with the writer's release of head. */
	u64 n = smp_load_acquire(&r->head) - READ_ONCE(r->rd.tail);

	return ring_overwrites(r) && n > (u64)r->mask + 1 ? (u64)r->mask + 1 :
							    n;
}

static inline u64 ring_overwritten(const struct mkm_ring *r)
{
	/* Acquire pairs with the writer's release of head. */
	u64 n = smp_load_acquire(&r->head) - READ_ONCE(r->rd.tail);

	return READ_ONCE(r->rd.overwritten) +
	       (ring_overwrites(r) && n > (u64)r->mask + 1 ? n - r->mask - 1 :
							     0);
}

/*
 * The writer's clock onto the reader's: the offset between them measured at
 * two instants of the writer's clock, t0 < t1 (the previous read and this
 * one), and interpolated between, so a record is mapped with the offset of
 * its own time, however long it waited in the ring while the reader's clock
 * was slewed. Before t0 the offset at t0, after t1 the offset at t1.
 */
struct ring_clock {
	u64 t0, t1;
	s64 off0, off1;
};

/*
 * The same as a line, prepared once for the many records of a read: the
 * offset's slope between the points as a fraction of 2^63, rounded up, so
 * that a record costs a multiplication, not a division, and lands at most
 * 1 ns later than exact division would put it (never earlier). An offset
 * that moved by more than the span (a clock step, not a slew) is divided
 * per record.
 */
struct ring_clock_line {
	u64 t0, t1;
	s64 off0, off1;
	u64 slope; /* |off1 - off0| / (t1 - t0) * 2^63, rounded up */
	u64 rise; /* |off1 - off0|, for the exact division */
	u64 sign; /* 0, or all ones when the offset decreases from t0 to t1 */
	bool exact; /* divide per record: the slope would not fit */
};

static inline void ring_clock_line(struct ring_clock_line *l,
				   const struct ring_clock *k)
{
	s64 d = k->off1 - k->off0;

	*l = (struct ring_clock_line){
		.t0 = k->t0, .t1 = k->t1, .off0 = k->off0, .off1 = k->off1
	};
	/* One point (t1 <= t0): its offset everywhere. */
	if (k->t1 <= k->t0) {
		l->t0 = l->t1;
		l->off0 = l->off1;
		return;
	}
	l->sign = d < 0 ? ~0ull : 0;
	l->rise = d < 0 ? -(u64)d : (u64)d;
	l->exact = l->rise >= k->t1 - k->t0;
	if (!l->exact)
		l->slope = 1 + mul_u64_u64_div_u64(l->rise, 1ull << 63,
						   k->t1 - k->t0);
}

static inline u64 ring_clock_line_map(const struct ring_clock_line *l, u64 t)
{
	u64 mag;

	if (t <= l->t0)
		return t + l->off0;
	if (t >= l->t1)
		return t + l->off1;
	mag = likely(!l->exact) ?
		      mul_u64_u64_shr(t - l->t0, l->slope, 63) :
		      mul_u64_u64_div_u64(l->rise, t - l->t0, l->t1 - l->t0);
	/* mag, or -mag: no branch. */
	return t + l->off0 + ((mag ^ l->sign) - l->sign);
}

static inline u64 ring_clock_map(const struct ring_clock *k, u64 t)
{
	struct ring_clock_line l;

	ring_clock_line(&l, k);
	return ring_clock_line_map(&l, t);
}

/* Reader position, advanced by ring_peek() and made final by ring_consume(). */
struct ring_cursor {
	u64 tail;
	u64 read;
	u64 read_lost;
	u32 next_seq;
	u64 last_ts;
	u64 overwritten;
};

static inline void ring_cursor_start(const struct mkm_ring_reader *rd,
				     struct ring_cursor *c)
{
	c->tail = READ_ONCE(rd->tail);
	c->read = rd->read;
	c->read_lost = rd->read_lost;
	c->next_seq = rd->next_seq;
	c->last_ts = rd->read_ts;
	c->overwritten = rd->overwritten;
}

static inline void ring_lost_record(struct mkm_event *dst, u32 count,
				    u32 first_seq, u64 ts, u16 cpu)
{
	*dst = (struct mkm_event){
		.time_ns = ts,
		.seq = first_seq,
		.cpu = cpu,
		.type = MKM_EV_LOST,
		.arg0 = count,
	};
}

/*
 * ring_peek()'s common case, n records without a gap (no drop unreported)
 * and a clock line without division: a loop with nothing else in it, as
 * it runs for every record read.
 */
static inline u32 ring_peek_run(const struct mkm_ring *r, struct ring_cursor *c,
				struct mkm_event *dst, u64 n, u16 cpu,
				const struct ring_clock_line *l)
{
	/* In locals, kept in registers across the loop's stores. */
	const struct ring_clock_line line = *l;
	const struct mkm_event *ring_ev = r->ev;
	struct mkm_event *out = dst, *end = dst + n;
	const u64 mask = r->mask;
	u64 pos = c->tail, last = c->last_ts;

	/*
	 * At most two runs, to the ring's end and from its start: no mask
	 * and index per record.
	 */
	while (out != end) {
		const struct mkm_event *ev = &ring_ev[pos & mask];
		u64 run = mask + 1 - (pos & mask);
		struct mkm_event *stop = (u64)(end - out) > run ? out + run :
								  end;

		pos += (u64)(stop - out);
		for (; out != stop; out++, ev++) {
			u64 t = ring_clock_line_map(&line, ev->time_ns);

			*out = *ev;
			out->cpu = cpu;
			last = t > last ? t : last;
			out->time_ns = last;
		}
	}
	if (n) {
		c->next_seq = ring_ev[(pos - 1) & mask].seq + 1;
		c->read += n;
		c->tail = pos;
		c->last_ts = last;
	}
	return (u32)n;
}

/*
 * Reader: copies up to max records (in-band LOST records included) into dst
 * without freeing them, advancing the cursor, with their cpu filled in and
 * their time mapped by clk, never before the previous record's (a LOST
 * record takes that time, or 0 if there was none).
 * quiescent says no writer can be active (the monitor is suspended), so
 * drops after the last record are reported too; otherwise they are
 * reported once a later record shows the gap. Returns the number of records
 * copied.
 */
static inline u32 ring_peek(const struct mkm_ring *r,
			    struct ring_cursor *cursor, struct mkm_event *dst,
			    u32 max, bool quiescent, u16 cpu,
			    const struct ring_clock *clock)
{
	/*
	 * The cursor, the clock's line and the mask in locals: stores into
	 * dst may alias them as far as the compiler knows, which would
	 * reload them after every record.
	 */
	struct ring_cursor c = *cursor;
	struct ring_clock_line clk;
	const u32 mask = r->mask;
	/*
	 * Acquire pairs with the writer's release of head (ring_write()):
	 * records up to head are complete.
	 */
	u64 head = smp_load_acquire(&r->head);
	/* Drops not reported yet, some perhaps after head: a u64 count. */
	u64 unreported = READ_ONCE(r->lost) - c.read_lost;
	u32 n = 0;

	ring_clock_line(&clk, clock);
	if (likely(!unreported && !clk.exact))
		n = ring_peek_run(r, &c, dst,
				  head - c.tail > max ? max : head - c.tail,
				  cpu, &clk);
	while (c.tail != head && n < max) {
		const struct mkm_event *ev = &r->ev[mask & c.tail];
		u32 seq = ev->seq, gap32 = seq - c.next_seq;
		u64 gap = gap32, t;

		/*
		 * seq is 32 bits: a run of 2^32 drops or more wraps it. The
		 * drops seq cannot show are charged to the first gap it does
		 * show, so the total stays exact; a run of an exact multiple
		 * of 2^32 shows no gap and is reported later, with the drops
		 * after the last record.
		 */
		if (unlikely(gap32) && unreported - gap32 > U32_MAX)
			gap += (unreported - gap32) & ~(u64)U32_MAX;
		if (unlikely(gap)) {
			/*
			 * The drops come first, in LOST records of at most
			 * U32_MAX each; the record on a later turn.
			 */
			u32 count = gap > U32_MAX ? U32_MAX : (u32)gap;

			ring_lost_record(&dst[n++], count, c.next_seq,
					 c.last_ts, cpu);
			c.read_lost += count;
			c.next_seq += count;
			unreported -= count;
			continue;
		}
		t = ring_clock_line_map(&clk, ev->time_ns);
		dst[n] = *ev;
		dst[n].cpu = cpu;
		if (unlikely(t < c.last_ts))
			t = c.last_ts;
		dst[n++].time_ns = t;
		c.last_ts = t;
		c.next_seq = seq + 1;
		c.tail++;
		c.read++;
	}
	if (quiescent && c.tail == head) {
		u64 lost = READ_ONCE(r->lost);

		while (lost != c.read_lost && n < max) {
			u64 rest = lost - c.read_lost;
			u32 count = rest > U32_MAX ? U32_MAX : (u32)rest;

			ring_lost_record(&dst[n++], count, c.next_seq,
					 c.last_ts, cpu);
			c.next_seq += count;
			c.read_lost += count;
		}
	}
	*cursor = c;
	return n;
}

/*
 * The positions the writer may come round to while a reader copies: a
 * flight reader starts this far ahead of the oldest record, so that a
 * copy of up to this many records is not overtaken unless the writer
 * writes faster than the reader copies.
 */
static inline u32 ring_flight_margin(u32 mask)
{
	u32 m = (mask + 1) / 8;

	return m < 1024 ? m : 1024;
}

/*
 * Reader of an overwriting ring: ring_peek() from the oldest record the
 * writer will not overwrite during the copy. What it skips comes first,
 * as a LOST record with MKM_EVF_OVERWRITTEN (arg0 and arg1 the count's
 * low and high halves), counted in the cursor's overwritten. After the
 * copy, the head tells whether the writer came round to what was copied
 * meanwhile: if so, the copy starts again further on. At most
 * ring_flight_margin() records a call (and at least one, when max is),
 * so a copy is short beside the margin. For a ring that does not
 * overwrite, this is ring_peek().
 */
static inline u32 ring_peek_flight(const struct mkm_ring *r,
				   struct ring_cursor *cursor,
				   struct mkm_event *dst, u32 max,
				   bool quiescent, u16 cpu,
				   const struct ring_clock *clock)
{
	const u64 capacity = (u64)r->mask + 1;
	const u32 margin = ring_flight_margin(r->mask);

	if (!ring_overwrites(r))
		return ring_peek(r, cursor, dst, max, quiescent, cpu, clock);
	if (max > margin)
		max = margin;
	for (;;) {
		struct ring_cursor c = *cursor;
		/* Acquire pairs with the writer's release of head. */
		u64 head = smp_load_acquire(&r->head), start;
		u32 n = 0;
		/* Suspended, no writer comes round: all the ring holds. */
		u64 keep = quiescent ? capacity : capacity - margin;

		if (head - c.tail > keep) {
			u64 skip = head - keep - c.tail;

			ring_lost_record(dst, (u32)skip, c.next_seq, c.last_ts,
					 cpu);
			dst->flags = MKM_EVF_OVERWRITTEN;
			dst->arg1 = (u32)(skip >> 32);
			c.tail += skip;
			c.next_seq += (u32)skip;
			c.overwritten += skip;
			n = 1;
		}
		start = c.tail;
		n += ring_peek(r, &c, dst + n, max - n, quiescent, cpu, clock);
		if (quiescent) {
			*cursor = c;
			return n;
		}
		/*
		 * The slots' loads before head's: pairs with ring_full()'s
		 * smp_wmb(). Positions from head - mask on are intact.
		 */
		smp_rmb();
		if (READ_ONCE(r->head) - start <= r->mask) {
			*cursor = c;
			return n;
		}
	}
}

/* Reader: frees what the cursor has gone past. */
static inline void ring_consume(struct mkm_ring_reader *rd,
				const struct ring_cursor *c)
{
	rd->overwritten = c->overwritten;
	rd->read = c->read;
	rd->read_lost = c->read_lost;
	rd->next_seq = c->next_seq;
	rd->read_ts = c->last_ts;
	/*
	 * Release pairs with the writer's acquire of tail (ring_write()): we
	 * are done with the slots.
	 */
	smp_store_release(&rd->tail, c->tail);
}

#endif /* MKM_RING_H */

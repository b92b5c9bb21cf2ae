/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fxtrace_ring.h - one CPU's ring: a control page and a data area, shared with
 * userspace through mmap, written only by the probes running on that CPU
 *
 * The publication protocol and its barriers (A)-(D) are described once, in
 * uapi/linux/fxtrace.h; the comments here cite those labels. (E) and (F),
 * which keep poll() from sleeping through a watermark, are the kernel's
 * own: fxtrace_ring_commit() and fxtrace_poll().
 */
#ifndef FXTRACE_RING_H
#define FXTRACE_RING_H

#include <linux/cpumask.h>
#include <linux/irq_work.h>
#include <linux/limits.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/fxtrace.h>

#include "fxtrace_record.h"

/*
 * The 64-bit positions and counters are read and written whole
 * (READ_ONCE(), smp_load_acquire()), which only a 64-bit kernel does.
 */
#ifndef CONFIG_64BIT
#error "fxtrace needs a 64-bit kernel (CONFIG_64BIT)"
#endif

/**
 * struct fxtrace_ring - one CPU's ring buffer
 * @head: private producer position; the kernel trusts only this copy
 * @written: records committed (published as ctrl->records_written)
 * @dropped: records lost to a full ring (ctrl->records_dropped)
 * @hits: probe calls that tried to write a record (ctrl->tracepoint_hits)
 * @lost: records dropped since the last loss markers were written
 * @mask: data area size - 1 (the size is a power of two)
 * @watermark: pending bytes at which poll() readers are woken
 * @data: the data area, mapped read-only into userspace
 * @ctrl: the control page, mapped read-write into userspace
 * @running_weight: the incoming_weight of this ring's last context switch,
 *	which is the weight of the task running on this CPU, or
 *	FXTRACE_WEIGHT_UNKNOWN: after START or a drop, and while the idle
 *	task runs (uapi "Records": outgoing_weight is left out when it
 *	equals this, so never when it is unknown or idle's)
 * @cpu: the CPU that owns this ring
 * @switch_hdr: the header bits every context switch on this CPU shares
 *	(record type, kind, @cpu), to OR its form into
 * @consumer_errors: times ctrl->consumer_pos was out of range
 * @first_lost_ns: timestamp of the first of those @lost records
 * @markers: loss markers written (ctrl->markers_written)
 * @area: the vmalloc_user() area holding @ctrl then @data
 * @wakeup: wakes @wq from outside the probe (docs/decisions.md, decision 4)
 * @wq: the session's poll() wait queue
 * @owner_tgid: the session opener's process, the loss markers' thread
 * @owner_tid: the session opener's thread
 * @spill: a record that would run past the data area's end is built here,
 *	then copied in word by word, wrapping (fxtrace_ring_commit())
 *
 * The fields a probe writes (@head, @written, @dropped, @hits, @lost,
 * @running_weight, @consumer_errors, @first_lost_ns, @markers, @spill) are
 * written only by the owning CPU with interrupts disabled, or by START
 * before the probes are attached; the others only by fxtrace_ring_init()
 * and fxtrace_ring_destroy(), while no probe is attached. So there is
 * exactly one writer at any time. The fields a record needs come first:
 * two cache lines.
 *
 * A session's rings are one per-CPU allocation (fxtrace_main.c): each CPU's
 * probes find theirs with this_cpu_ptr(), without loading a table of ring
 * pointers first, and each ring sits in its CPU's own per-CPU area (its
 * NUMA node). A probe touches few pages of its own: this one, the control
 * page, the data page being written, its text (one page, kmod/Kbuild) and,
 * for a wakeup, a slot of the waker table. That is worth keeping small:
 * wherever the kernel's TLB entries do not survive a context switch, each
 * page costs a TLB miss on every switch (docs/performance.md).
 */
struct fxtrace_ring {
	u64 head;
	u64 written;
	u64 dropped;
	u64 hits;
	u64 lost;
	u64 mask;
	u64 watermark;
	u8 *data;
	struct fxtrace_ctrl *ctrl;
	u32 running_weight;
	int cpu;
	u64 switch_hdr;
	u64 consumer_errors;
	u64 first_lost_ns;
	u64 markers;
	void *area;
	struct irq_work wakeup;
	wait_queue_head_t *wq;
	u32 owner_tgid;
	u32 owner_tid;
	u64 spill[FXTRACE_RECORD_MAX_WORDS];
} ____cacheline_aligned;

/* The weight Perfetto reads as an idle task (its importer: INT32_MIN). */
#define FXTRACE_WEIGHT_IDLE	((u32)S32_MIN)
/*
 * No weight at all: a task's is its prio (-1 to 139) or idle's, so no
 * outgoing task's weight equals this.
 */
#define FXTRACE_WEIGHT_UNKNOWN	((u32)S32_MAX)

/* The ring's data area bytes (also in its control page, which is writable). */
static inline u64 fxtrace_ring_size(const struct fxtrace_ring *ring)
{
	return ring->mask + 1;
}

int fxtrace_ring_init(struct fxtrace_ring *ring, int cpu, u64 buf_size,
		      u64 watermark, wait_queue_head_t *wq, u32 owner_tgid,
		      u32 owner_tid);
void fxtrace_rings_sync_wakeups(struct fxtrace_ring __percpu *rings);
void fxtrace_ring_destroy(struct fxtrace_ring *ring);
void fxtrace_ring_start(struct fxtrace_ring *ring);
bool fxtrace_ring_readable(struct fxtrace_ring *ring, bool tracing);
u64 fxtrace_ring_put_loss_markers(struct fxtrace_ring *ring, u64 head, u64 now);

/*
 * Bytes of the pair of loss markers written before the first record that
 * fits after a drop.
 */
#define FXTRACE_LOSS_MARKERS_BYTES	(2 * FXTRACE_LOSS_MARKER_WORDS * sizeof(u64))

/*
 * Queue the irq_work that wakes poll() readers, unless this CPU is going
 * offline or not yet fully online. On PREEMPT_RT the irq_work runs in the
 * CPU's irq_work/N thread, which is parked while the CPU is offline: a work
 * queued in a dying CPU's last switches would wait there, and so would
 * fxtrace_rings_sync_wakeups(), in close(), until the CPU came back. The
 * CPU stops being active before that thread is parked, and the scheduler
 * waits out every preempt-disabled section (a probe) in between, so a work
 * queued here while the CPU is active still runs. The wakeups
 * skipped meanwhile are why readers poll with a timeout (uapi, "poll").
 */
static __always_inline void fxtrace_ring_wake_reader(struct fxtrace_ring *ring)
{
	if (cpu_active(ring->cpu))
		irq_work_queue(&ring->wakeup);
}

static __always_inline void fxtrace_ring_drop(struct fxtrace_ring *ring, u64 ts)
{
	struct fxtrace_ctrl *ctrl = ring->ctrl;
	u64 lost = ring->lost;

	if (!lost)
		ring->first_lost_ns = ts;
	/* A reader cannot follow this CPU's switches across the hole. */
	ring->running_weight = FXTRACE_WEIGHT_UNKNOWN;
	/* Read by poll() on any CPU (fxtrace_ring_readable()). */
	WRITE_ONCE(ring->lost, lost + 1);
	ring->dropped++;
	WRITE_ONCE(ctrl->records_dropped, ring->dropped);
	WRITE_ONCE(ctrl->last_drop_ns, ts);
	/*
	 * producer_pos is published again from our own copy: the control page
	 * is writable, and a ring whose producer_pos was overwritten (with a
	 * reader following it, or showing it nothing to drain) would otherwise
	 * drop every record for the rest of the session, since only a commit
	 * writes it. The same line as records_dropped. (A) again: pairs with
	 * the reader's (C), as in the commit.
	 */
	smp_store_release(&ctrl->producer_pos, ring->head);
	/*
	 * The first drop of a loss wakes the reader even below the watermark:
	 * with a watermark close to the ring's size, a full ring can drop
	 * everything without ever reaching it (fxtrace_ring_readable()).
	 */
	if (!lost)
		fxtrace_ring_wake_reader(ring);
}

/* Copy @words words to position @head; return the position after them. */
static __always_inline u64 fxtrace_ring_put(struct fxtrace_ring *ring, u64 head,
					    const u64 *rec, unsigned int words)
{
	u8 *data = ring->data;
	u64 mask = ring->mask;
	unsigned int i;

	/* Words never straddle the end: positions and size are multiples of 8. */
	for (i = 0; i < words; i++)
		*(u64 *)(data + ((head + i * sizeof(u64)) & mask)) = rec[i];
	return head + (u64)words * sizeof(u64);
}

/**
 * struct fxtrace_slot - room reserved for one record
 * @rec: where to write its words: straight into the data area, or into
 *	the ring's @spill words when the record would run past the area's end
 * @pos: the record's position in the ring
 * @cons: the consumer position the room was measured against
 * @ctrl: the ring's control page, read once by the reserve for the commit
 *
 * Lives in registers: the reserve and commit around it are inlined.
 */
struct fxtrace_slot {
	u64 *rec;
	u64 pos;
	u64 cons;
	struct fxtrace_ctrl *ctrl;
};

/**
 * fxtrace_ring_reserve() - make room for one record, or count it as dropped
 * @ring: the current CPU's ring
 * @words: the record's size in words, header included
 * @ts: the record's timestamp (or now, for records without one): the time
 *	of the drop if it is dropped, the end of the loss it follows if any
 * @slot: filled in when there is room
 *
 * After a loss, the first record that fits together with the two loss
 * markers (uapi header, "Loss markers") gets them written in front of it;
 * until then records keep being dropped, so the markers always sit exactly
 * at the hole.
 *
 * The caller writes the record's words to @slot->rec and then calls
 * fxtrace_ring_commit(). Building the record in place, rather than on the
 * stack and copying it in, saves the copy loop and the zeroing and canary
 * that CONFIG_INIT_STACK_ALL_ZERO and the stack protector put around a
 * stack array (docs/performance.md).
 *
 * Context: interrupts disabled, so nothing else writes to @ring until the
 * commit.
 * Return: true if there is room.
 */
static __always_inline bool fxtrace_ring_reserve(struct fxtrace_ring *ring,
						 unsigned int words, u64 ts,
						 struct fxtrace_slot *slot)
{
	/*
	 * Every field read before the first store: the kernel's
	 * -fno-strict-aliasing lets each store alias any of them.
	 */
	struct fxtrace_ctrl *ctrl = ring->ctrl;
	u64 mask = ring->mask;
	u8 *data = ring->data;
	u64 head = ring->head;
	u64 lost = ring->lost;
	u64 hits = ring->hits + 1;
	u64 len = (u64)words * sizeof(u64);
	u64 size = mask + 1;
	u64 used, need, off;

	ring->hits = hits;
	WRITE_ONCE(ctrl->tracepoint_hits, hits);

	/* (B): pairs with the reader's (D); its copy is done before we reuse. */
	slot->cons = smp_load_acquire(&ctrl->consumer_pos);
	used = head - slot->cons;
	if (unlikely(used > size)) {
		/* consumer_pos ahead of us or too far behind: never trust it */
		ring->consumer_errors++;
		WRITE_ONCE(ctrl->consumer_errors, ring->consumer_errors);
		fxtrace_ring_drop(ring, ts);
		return false;
	}
	need = len;
	if (unlikely(lost))
		need += FXTRACE_LOSS_MARKERS_BYTES;
	if (unlikely(size - used < need)) {
		fxtrace_ring_drop(ring, ts);
		return false;
	}

	if (unlikely(lost))
		head = fxtrace_ring_put_loss_markers(ring, head, ts);
	slot->ctrl = ctrl;
	slot->pos = head;
	off = head & mask;
	if (likely(off + len <= size))
		slot->rec = (u64 *)(data + off);
	else
		slot->rec = ring->spill;
	return true;
}

/**
 * fxtrace_ring_commit() - publish the record written to a reserved slot
 * @ring: the ring fxtrace_ring_reserve() filled @slot from
 * @slot: the slot, its record written
 * @words: the record's size: at most the words reserved (a record whose
 *	size is decided late may reserve room for its longest form)
 *
 * Cost: stores to this CPU's own control line (records_written,
 * producer_pos) and a compare with the watermark; the irq_work that wakes
 * the reader is queued only when this record crosses the watermark, once
 * per drain. Only while the reader is a watermark or more behind, a full
 * barrier and a second load of consumer_pos.
 *
 * Context: interrupts disabled since the reserve.
 */
static __always_inline void fxtrace_ring_commit(struct fxtrace_ring *ring,
						const struct fxtrace_slot *slot,
						unsigned int words)
{
	/*
	 * Each field read once, into locals: the kernel's -fno-strict-aliasing
	 * lets every store of a record word alias any field of @ring.
	 */
	struct fxtrace_ctrl *ctrl = slot->ctrl;
	u64 watermark = ring->watermark;
	u64 prev = ring->head;
	u64 cons = slot->cons;
	u64 head = slot->pos + (u64)words * sizeof(u64);
	u64 written = ring->written + 1;

	if (unlikely(slot->rec == ring->spill))
		fxtrace_ring_put(ring, slot->pos, ring->spill, words);
	/* Read by poll() on any CPU (fxtrace_ring_readable()). */
	WRITE_ONCE(ring->head, head);
	ring->written = written;
	WRITE_ONCE(ctrl->records_written, written);
	/* (A): pairs with the reader's (C); the bytes are visible first. */
	smp_store_release(&ctrl->producer_pos, head);

	/*
	 * Wake the reader when this record takes the ring to the watermark.
	 * The consumer position the reserve read can be stale by now: a
	 * reader that has since drained and gone to sleep in poll() would
	 * never be woken, since by the stale position the watermark was
	 * crossed already, and so it is for every record after this one. So
	 * when the stale position says "crossed already" (the reader is
	 * behind, which is rare), look again, after a full barrier.
	 */
	if (unlikely(prev - cons >= watermark)) {
		/*
		 * (E): pairs with (F) in fxtrace_poll(). Either poll() sees
		 * the ring->head stored above, or this load sees the
		 * consumer_pos the reader stored before it called poll().
		 */
		smp_mb();
		cons = READ_ONCE(ctrl->consumer_pos);
		if (prev - cons >= watermark)
			return;
	}
	if (unlikely(head - cons >= watermark))
		fxtrace_ring_wake_reader(ring);
}

#endif /* FXTRACE_RING_H */

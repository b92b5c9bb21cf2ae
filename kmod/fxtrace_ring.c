// SPDX-License-Identifier: GPL-2.0
/*
 * fxtrace_ring.c - the per-CPU rings' allocation, poll() state, loss
 * markers (written by the reserve when records resume after a drop) and
 * the wait for their reader wakeups before they are freed
 *
 * The hot write path is inline in fxtrace_ring.h.
 */
#include <linux/irq_work.h>
#include <linux/rcupdate.h>
#include <linux/vmalloc.h>

#include "fxtrace_alloc.h"
#include "fxtrace_compat.h"
#include "fxtrace_ring.h"

static void fxtrace_ring_wakeup(struct irq_work *work)
{
	struct fxtrace_ring *ring = container_of(work, struct fxtrace_ring,
						 wakeup);

	wake_up_interruptible(ring->wq);
}

/**
 * fxtrace_ring_init() - allocate one CPU's control page and data area
 * @ring: the CPU's ring, zeroed (its copy of the session's per-CPU rings)
 * @cpu: the owning CPU
 * @buf_size: data area bytes, a power of two, a multiple of PAGE_SIZE
 * @watermark: pending bytes at which to wake poll() readers
 * @wq: the wait queue to wake
 * @owner_tgid: the session opener's process, named in loss markers
 * @owner_tid: the session opener's thread
 *
 * The area comes from vmalloc_user(), so it is zeroed (no stale kernel memory
 * reaches userspace) and can be mapped with remap_vmalloc_range().
 *
 * Return: 0, or -ENOMEM (@ring is left as it was: fxtrace_ring_destroy()
 * accepts it).
 */
int fxtrace_ring_init(struct fxtrace_ring *ring, int cpu, u64 buf_size,
		      u64 watermark, wait_queue_head_t *wq, u32 owner_tgid,
		      u32 owner_tid)
{
	ring->area = fxtrace_vmalloc_user(PAGE_SIZE + buf_size);
	if (!ring->area)
		return -ENOMEM;

	ring->ctrl = ring->area;
	ring->data = (u8 *)ring->area + PAGE_SIZE;
	ring->mask = buf_size - 1;
	ring->watermark = watermark;
	ring->wq = wq;
	ring->owner_tgid = owner_tgid;
	ring->owner_tid = owner_tid;
	ring->cpu = cpu;
	ring->switch_hdr = fxt_sched_header(FXT_SCHED_KIND_CONTEXT_SWITCH, 0, 0,
					    cpu);
	init_irq_work(&ring->wakeup, fxtrace_ring_wakeup);

	ring->ctrl->version = FXTRACE_CTRL_VERSION;
	ring->ctrl->size = sizeof(struct fxtrace_ctrl);
	ring->ctrl->cpu = cpu;
	ring->ctrl->buf_size = buf_size;
	return 0;
}

/**
 * fxtrace_ring_start() - begin a new run of records in a ring
 * @ring: a ring no probe is writing to (the session is stopped)
 *
 * What the records after START may not lean on (uapi header, "Records" and
 * "Loss markers"): the weight of the task running when tracing stopped, and
 * a loss that no record got to mark before it stopped. Marking that loss
 * now would draw a hole across the time nothing was traced; it stays
 * counted in records_dropped. The positions and counters carry on.
 *
 * Context: probes detached, so this is the ring's only writer.
 */
void fxtrace_ring_start(struct fxtrace_ring *ring)
{
	ring->running_weight = FXTRACE_WEIGHT_UNKNOWN;
	WRITE_ONCE(ring->lost, 0);
	ring->first_lost_ns = 0;
}

/* One loss marker: a sample of the counter "records_lost:cpu:<cpu>". */
static u64 fxtrace_ring_put_loss_marker(struct fxtrace_ring *ring, u64 head,
					u64 ts, u64 lost)
{
	u64 rec[FXTRACE_LOSS_MARKER_WORDS] = {
		fxt_event_header(FXT_EVENT_COUNTER, FXTRACE_LOSS_MARKER_WORDS,
				 1, FXTRACE_STR_FXTRACE,
				 FXTRACE_STR_RECORDS_LOST),
		ts,
		ring->owner_tgid,
		ring->owner_tid,
		fxt_arg_header2(FXT_ARG_INT64, FXTRACE_STR_CPU),
		lost,
		ring->cpu,
	};

	return fxtrace_ring_put(ring, head, rec, FXTRACE_LOSS_MARKER_WORDS);
}

/**
 * fxtrace_ring_put_loss_markers() - mark the hole the last drops left
 * @ring: the current CPU's ring, with @ring->lost records lost
 * @head: where to write; FXTRACE_LOSS_MARKERS_BYTES are free there
 * @now: the timestamp of the record about to follow the markers
 *
 * Out of line: it runs once per loss, not once per record.
 *
 * Context: interrupts disabled (called from fxtrace_ring_reserve()).
 * Return: the position after the markers.
 */
u64 fxtrace_ring_put_loss_markers(struct fxtrace_ring *ring, u64 head, u64 now)
{
	head = fxtrace_ring_put_loss_marker(ring, head, ring->first_lost_ns,
					    ring->lost);
	head = fxtrace_ring_put_loss_marker(ring, head, now, 0);
	WRITE_ONCE(ring->lost, 0);
	ring->markers += 2;
	WRITE_ONCE(ring->ctrl->markers_written, ring->markers);
	return head;
}

/**
 * fxtrace_rings_sync_wakeups() - wait until no ring's irq_work runs any more
 * @rings: a session's rings, one per possible CPU, each initialized or still
 *	zeroed
 *
 * irq_work_sync() on every ring would do, but since 91840be8f710
 * ("irq_work: Fix use-after-free in irq_work_single() on PREEMPT_RT"),
 * which Debian's 6.1 and 6.12 carry (kernel/irq_work.c of linux-source
 * 6.1.192 and 6.12.117, the releases tested), it ends with synchronize_rcu()
 * whenever it sleeps (fxtrace_irq_work_sync_sleeps()), busy work or not: that
 * was one grace period per possible CPU, under both of the session's
 * locks, in close() and in a CONFIGURE that replaces the buffers. So only
 * the works still busy are waited for, and then one grace period covers
 * them all: where irq_work_sync() sleeps, irq_work_single() still reads
 * the work after clearing IRQ_WORK_BUSY (irq_work_is_hard(),
 * rcuwait_wake_up()), inside the RCU read-side critical section that
 * run_irq_workd() holds since that commit (or in a hard interrupt, where
 * the architecture cannot raise one), which a grace period started after
 * the flag was seen clear waits out. Where it spins, nothing reads the
 * work after the flag is clear: no grace period. (On a PREEMPT_RT kernel
 * without that commit, irq_work_sync() itself leaves that window open.)
 *
 * Context: probes detached and synchronized, so no work is queued again.
 * Sleeps.
 */
void fxtrace_rings_sync_wakeups(struct fxtrace_ring __percpu *rings)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct irq_work *work = &per_cpu_ptr(rings, cpu)->wakeup;

		/*
		 * Queued or running: wait for it to finish, which it soon
		 * does (fxtrace_ring_wake_reader() queues it only on an
		 * active CPU). The flag read as irq_work_sync() reads it.
		 */
		if (irq_work_is_busy(work))
			irq_work_sync(work);
	}
	if (fxtrace_irq_work_sync_sleeps())
		synchronize_rcu();
}

/**
 * fxtrace_ring_destroy() - free the area of a ring no probe can reach any more
 * @ring: the ring, initialized or still zeroed
 *
 * Context: probes detached and synchronized, the ring's irq_work done with
 * (fxtrace_rings_sync_wakeups()), and no part of the ring mapped (the
 * session's release comes after its last munmap(); CONFIGURE refuses while
 * anything is mapped).
 */
void fxtrace_ring_destroy(struct fxtrace_ring *ring)
{
	if (!ring->area)
		return;
	fxtrace_vfree(ring->area);
	ring->area = NULL;
}

/**
 * fxtrace_ring_readable() - whether poll() should report this ring readable
 * @ring: the ring
 * @tracing: whether probes are attached
 *
 * Readable once the watermark is reached; and with anything at all left to
 * drain, when tracing has stopped or when the ring is dropping records (a
 * watermark close to the ring's size may never be reached by a full ring).
 *
 * Return: true if a reader has work to do.
 */
bool fxtrace_ring_readable(struct fxtrace_ring *ring, bool tracing)
{
	u64 pending = READ_ONCE(ring->head) -
		      READ_ONCE(ring->ctrl->consumer_pos);

	if (pending >= ring->watermark)
		return true;
	return pending && (!tracing || READ_ONCE(ring->lost));
}

// SPDX-License-Identifier: GPL-2.0
/*
 * fxtrace_ring.c - allocation and poll() state of the per-CPU rings
 *
 * The hot write path is inline in fxtrace_ring.h.
 */
#include <linux/slab.h>
#include <linux/topology.h>
#include <linux/vmalloc.h>

#include "fxtrace_ring.h"

static void fxtrace_ring_wakeup(struct irq_work *work)
{
	struct fxtrace_ring *ring = container_of(work, struct fxtrace_ring,
						 wakeup);

	wake_up_interruptible(ring->wq);
}

/**
 * fxtrace_ring_alloc() - allocate one CPU's control page and data area
 * @cpu: the owning CPU
 * @buf_size: data area bytes, a power of two, a multiple of PAGE_SIZE
 * @watermark: pending bytes at which to wake poll() readers
 * @wq: the wait queue to wake
 *
 * The area comes from vmalloc_user(), so it is zeroed (no stale kernel memory
 * reaches userspace) and can be mapped with remap_vmalloc_range().
 *
 * Return: the ring, or NULL if out of memory.
 */
struct fxtrace_ring *fxtrace_ring_alloc(int cpu, u64 buf_size, u64 watermark,
					wait_queue_head_t *wq)
{
	struct fxtrace_ring *ring;

	ring = kzalloc_node(sizeof(*ring), GFP_KERNEL, cpu_to_node(cpu));
	if (!ring)
		return NULL;

	ring->area = vmalloc_user(PAGE_SIZE + buf_size);
	if (!ring->area)
		goto out_free_ring;

	ring->ctrl = ring->area;
	ring->data = (u8 *)ring->area + PAGE_SIZE;
	ring->mask = buf_size - 1;
	ring->watermark = watermark;
	ring->wq = wq;
	ring->cpu = cpu;
	init_irq_work(&ring->wakeup, fxtrace_ring_wakeup);

	ring->ctrl->version = FXTRACE_CTRL_VERSION;
	ring->ctrl->size = sizeof(struct fxtrace_ctrl);
	ring->ctrl->cpu = cpu;
	ring->ctrl->buf_size = buf_size;
	return ring;

out_free_ring:
	kfree(ring);
	return NULL;
}

/**
 * fxtrace_ring_free() - free a ring that no probe can reach any more
 * @ring: the ring, or NULL
 *
 * Context: probes detached and synchronized. Pages still mapped by a process
 * stay alive until unmapped (remap_vmalloc_range() took a reference on each).
 */
void fxtrace_ring_free(struct fxtrace_ring *ring)
{
	if (!ring)
		return;
	irq_work_sync(&ring->wakeup);
	vfree(ring->area);
	kfree(ring);
}

/**
 * fxtrace_ring_readable() - whether poll() should report this ring readable
 * @ring: the ring
 * @tracing: whether probes are attached
 *
 * Readable once the watermark is reached, or when tracing has stopped and
 * anything at all is left to drain.
 *
 * Return: true if a reader has work to do.
 */
bool fxtrace_ring_readable(struct fxtrace_ring *ring, bool tracing)
{
	u64 pending = READ_ONCE(ring->head) -
		      READ_ONCE(ring->ctrl->consumer_pos);

	if (pending >= ring->watermark)
		return true;
	return !tracing && pending;
}

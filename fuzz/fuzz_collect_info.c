// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fuzz_collect_info.c - fxt-collect's checks of what the module tells it:
 * bad_info() on the FXTRACE_IOC_GET_INFO answer and check_ctrl() on each
 * mapped control page. Both are static in collector/collect_device.c,
 * which is included here; so is fxt_collect.c, with its main() renamed,
 * which the rest of fxt-collect (linked: fuzz/Makefile) calls into.
 *
 * Input: a struct fxtrace_info, then a struct fxtrace_ctrl and a u16 CPU
 * number (missing bytes are 0). When bad_info() accepts the layout,
 * everything fxt-collect then computes from it must be safe: the ring
 * size is one ring_init() takes, ring state for every CPU can be
 * allocated, and the mmap offsets of the last CPU's control page and data
 * area, offset + cpu * cpu_stride, fit an off_t without overflow. When
 * check_ctrl() (which only ever sees pages of an accepted layout) accepts
 * a control page, the ring it describes is one ring_init() takes, on the
 * CPU that was asked for, and no larger than the info's (a CPU not present
 * has a smaller one: uapi "mmap layout").
 */
#include "fuzz_target.h"

int fxt_collect_main(int argc, char **argv);
#define main fxt_collect_main
#include "fxt_collect.c"
#undef main
#include "collect_device.c"

/* @base + @cpu * @stride as map_cpu() computes it, or false on overflow. */
static bool mmap_offset_fits(uint64_t base, uint64_t cpu, uint64_t stride)
{
	uint64_t shift, off;

	return !__builtin_mul_overflow(cpu, stride, &shift) &&
	       !__builtin_add_overflow(base, shift, &off) &&
	       off <= (uint64_t)INT64_MAX;
}

/* Return: true if bad_info() accepted the layout (and it is safe). */
static bool check_layout(const struct fxtrace_info *info)
{
	struct fxtrace_ctrl ctrl;
	struct ring ring;
	uint64_t last;

	if (bad_info(info))
		return false;
	FUZZ_ASSERT(info->nr_cpu_ids >= 1 && info->nr_cpu_ids <= 65536,
		    "nr_cpu_ids %u accepted", info->nr_cpu_ids);
	FUZZ_ASSERT(info->ctrl_size >= sizeof(struct fxtrace_ctrl),
		    "ctrl_size %u accepted", info->ctrl_size);
	FUZZ_ASSERT(info->buf_size >= FXTRACE_BUF_SIZE_MIN &&
		    info->buf_size <= FXTRACE_BUF_SIZE_MAX,
		    "buf_size %llu accepted", (unsigned long long)info->buf_size);
	memset(&ctrl, 0, sizeof(ctrl));
	FUZZ_ASSERT(ring_init(&ring, &ctrl, NULL, info->buf_size) == 0,
		    "ring_init refuses the accepted buf_size %llu",
		    (unsigned long long)info->buf_size);
	last = info->nr_cpu_ids - 1;
	FUZZ_ASSERT(mmap_offset_fits(info->ctrl_offset, last, info->cpu_stride) &&
		    mmap_offset_fits(info->data_offset, last, info->cpu_stride),
		    "offsets %llx/%llx + %llu * stride %llx overflow an off_t",
		    (unsigned long long)info->ctrl_offset,
		    (unsigned long long)info->data_offset,
		    (unsigned long long)last, (unsigned long long)info->cpu_stride);
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = { data, size, 0 };
	struct session s;
	struct fxtrace_ctrl ctrl;
	struct cpu_ring r;
	struct ring ring;
	size_t n;

	memset(&s, 0, sizeof(s));
	n = size < sizeof(s.info) ? size : sizeof(s.info);
	memcpy(&s.info, data, n);
	in.at = n;
	/* map_cpu() only looks at control pages of a layout it accepted. */
	if (!check_layout(&s.info))
		return 0;

	memset(&ctrl, 0, sizeof(ctrl));
	n = size - in.at < sizeof(ctrl) ? size - in.at : sizeof(ctrl);
	memcpy(&ctrl, data + in.at, n);
	in.at += n;
	memset(&r, 0, sizeof(r));
	r.ctrl = &ctrl;
	r.cpu = (unsigned int)fuzz_take(&in, 2);
	if (check_ctrl(&s, &r, &r.size) == 0)
		FUZZ_ASSERT(ring_init(&ring, &ctrl, NULL, r.size) == 0 &&
			    r.size == ctrl.buf_size && ctrl.cpu == r.cpu &&
			    r.size <= s.info.buf_size,
			    "control page for CPU %u of a %llu-byte ring (%llu taken, %llu in the info) accepted for CPU %u",
			    ctrl.cpu, (unsigned long long)ctrl.buf_size,
			    (unsigned long long)r.size,
			    (unsigned long long)s.info.buf_size, r.cpu);
	return 0;
}

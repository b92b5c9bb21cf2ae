// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * collect_device.c - fxt-collect and /dev/fxtrace up to START: open the
 * device, check what GET_INFO says (the ABI version, a layout fit to use),
 * CONFIGURE fresh rings, and map each CPU's control page and ring, each
 * control page checked.
 *
 * A file of its own because this is where fxt-collect takes the module's
 * word: every value the module hands over is checked here before the rest
 * of fxt-collect uses it (fuzz/fuzz_collect_info.c fuzzes bad_info() and
 * check_ctrl()), and each failure says what to do about the module.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/types.h>

#include <linux/fxtrace.h>

#include "collect_options.h"
#include "collect_session.h"
#include "ring_drain.h"

int open_device(struct session *s)
{
	const char *hint = NULL;
	char step[300], missing[400];
	int err;

	s->fd = open(s->opts.device, O_RDWR | O_CLOEXEC);
	if (s->fd >= 0)
		return 0;
	err = errno;
	switch (err) {
	case ENOENT:
	case ENODEV:
	case ENXIO:
		/*
		 * Only the default node comes and goes with the module; a
		 * path given with -D may simply be wrong.
		 */
		if (!strcmp(s->opts.device, COLLECT_DEFAULT_DEVICE)) {
			hint = "the fxtrace module is not loaded: sudo modprobe fxtrace (installed with make install or make dkms) or sudo insmod kmod/fxtrace.ko (from the source tree)";
		} else {
			snprintf(missing, sizeof(missing),
				 "%s %s: check -D; the module's device is " COLLECT_DEFAULT_DEVICE,
				 s->opts.device, err == ENOENT ? "does not exist" :
				 "is not the fxtrace device (no driver behind it)");
			hint = missing;
		}
		break;
	case EACCES:
	case EPERM:
		hint = "tracing needs root with CAP_PERFMON or CAP_SYS_ADMIN: run fxt-collect with sudo";
		break;
	case EBUSY:
		snprintf(missing, sizeof(missing),
			 "another tracing session is running (one at a time): stop the other fxt-collect first ('fuser -v %s' names the processes that have it open)",
			 s->opts.device);
		hint = missing;
		break;
	default:
		/* A directory, say: only a path given with -D can be that. */
		if (strcmp(s->opts.device, COLLECT_DEFAULT_DEVICE))
			hint = "check -D; the module's device is " COLLECT_DEFAULT_DEVICE;
		break;
	}
	snprintf(step, sizeof(step), "opening %s", s->opts.device);
	return step_failed(s, step, err, hint);
}

/* The module must describe a layout we can use; never trust it blindly. */
static const char *bad_info(const struct fxtrace_info *info)
{
	uint64_t last;

	if (info->buf_size < FXTRACE_BUF_SIZE_MIN ||
	    info->buf_size > FXTRACE_BUF_SIZE_MAX ||
	    (info->buf_size & (info->buf_size - 1)))
		return "buffer size is not a power of two from 64K to 256M";
	if (info->ctrl_size < sizeof(struct fxtrace_ctrl))
		return "control page is smaller than struct fxtrace_ctrl";
	if (info->nr_cpu_ids == 0 || info->nr_cpu_ids > FXT_SCHED_CPU_MASK + 1)
		return "number of CPUs is 0 or above 65536";
	if (info->clock_id != FXTRACE_CLOCK_ID)
		return "clock is not CLOCK_BOOTTIME";
	last = (uint64_t)(info->nr_cpu_ids - 1);
	if (info->cpu_stride == 0 ||
	    info->cpu_stride > (uint64_t)INT64_MAX / (last + 1) ||
	    info->ctrl_offset > (uint64_t)INT64_MAX - last * info->cpu_stride ||
	    info->data_offset > (uint64_t)INT64_MAX - last * info->cpu_stride)
		return "mmap offsets overflow";
	return NULL;
}

int get_info(struct session *s)
{
	const char *why;

	memset(&s->info, 0, sizeof(s->info));
	if (ioctl(s->fd, FXTRACE_IOC_GET_INFO, &s->info) < 0)
		return step_failed(s, "FXTRACE_IOC_GET_INFO", errno,
				   errno == ENOTTY ?
				   "the device is not an fxtrace device (check -D)" : NULL);
	if (s->info.abi_version != FXTRACE_ABI_VERSION) {
		msg("ABI version mismatch: the loaded module speaks version %u, this fxt-collect speaks version %u",
		    s->info.abi_version, FXTRACE_ABI_VERSION);
		msg("build and load the module and the collector from the same source tree");
		s->failed = true;
		return -1;
	}
	why = bad_info(&s->info);
	if (why) {
		msg("FXTRACE_IOC_GET_INFO returned an unusable layout: %s", why);
		msg("this is a module bug; please report it with the dmesg output");
		s->failed = true;
		return -1;
	}
	return 0;
}

int configure(struct session *s)
{
	struct fxtrace_config cfg;
	const char *hint = NULL;

	/*
	 * Always configure, even without -b: CONFIGURE hands out freshly
	 * zeroed buffers, so nothing a crashed earlier session left in the
	 * rings can end up in this trace.
	 */
	memset(&cfg, 0, sizeof(cfg));
	cfg.buf_size = s->opts.buf_size;	/* 0: the module's default */
	if (ioctl(s->fd, FXTRACE_IOC_CONFIGURE, &cfg) < 0) {
		switch (errno) {
		case EINVAL:
			hint = "the module rejected the buffer size: use -b with a power of two from 64K to 256M";
			break;
		case ENOMEM:
			hint = "not enough kernel memory for one ring per CPU: use a smaller -b";
			break;
		case EBUSY:
			hint = "the buffers are in use (tracing, or still mapped elsewhere): stop the other session";
			break;
		}
		return step_failed(s, "FXTRACE_IOC_CONFIGURE", errno, hint);
	}
	/* Learn the size actually in effect. */
	return get_info(s);
}

/*
 * A ring is info.buf_size bytes, or FXTRACE_BUF_SIZE_MIN for a CPU that was
 * possible but not present when the module allocated them (uapi, "mmap
 * layout"). The size is read once: the control page is writable.
 */
static int check_ctrl(struct session *s, const struct cpu_ring *r,
		      uint64_t *buf_size)
{
	const struct fxtrace_ctrl *c = r->ctrl;
	uint64_t size = __atomic_load_n(&c->buf_size, __ATOMIC_RELAXED);

	if (c->version == FXTRACE_CTRL_VERSION && c->cpu == r->cpu &&
	    c->size >= sizeof(struct fxtrace_ctrl) &&
	    (size == s->info.buf_size || size == FXTRACE_BUF_SIZE_MIN)) {
		*buf_size = size;
		return 0;
	}
	msg("CPU %u's control page is unusable (version %u, cpu %u, size %u, buf_size %llu)",
	    r->cpu, c->version, c->cpu, c->size, (unsigned long long)size);
	msg("this is a module bug; please report it with the dmesg output");
	s->failed = true;
	return -1;
}

/* Map one CPU's control page and data area. 1: mapped, 0: no such CPU. */
static int map_cpu(struct session *s, unsigned int cpu)
{
	struct cpu_ring *r = &s->rings[s->nrings];
	uint64_t shift = (uint64_t)cpu * s->info.cpu_stride;
	char step[96];
	void *p;

	p = mmap(NULL, s->info.ctrl_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 s->fd, (off_t)(s->info.ctrl_offset + shift));
	if (p == MAP_FAILED && errno == ENXIO)
		return 0;	/* not a possible CPU on this machine */
	snprintf(step, sizeof(step), "mapping CPU %u's control page", cpu);
	if (p == MAP_FAILED)
		return step_failed(s, step, errno, NULL);
	r->cpu = cpu;
	r->ctrl = p;
	s->nrings++;	/* from here on cleanup unmaps it */
	if (check_ctrl(s, r, &r->size))
		return -1;
	r->absent = r->size != s->info.buf_size;
	p = mmap(NULL, r->size, PROT_READ, MAP_SHARED, s->fd,
		 (off_t)(s->info.data_offset + shift));
	snprintf(step, sizeof(step), "mapping CPU %u's ring (%llu bytes)", cpu,
		 (unsigned long long)r->size);
	if (p == MAP_FAILED)
		return step_failed(s, step, errno, errno == ENOMEM ?
				   "not enough address space or memory: use a smaller -b" : NULL);
	r->data = p;
	ring_init(&r->ring, r->ctrl, r->data, r->size);
	r->dropped_seen = __atomic_load_n(&r->ctrl->records_dropped,
					  __ATOMIC_RELAXED);
	return 1;
}

/*
 * Perfetto reads the scheduling records of CPUs below
 * FXT_PERFETTO_MAX_CPUS only (fxt_types.h), and the kernel writes each
 * CPU's number as it is: said once, before tracing, if a possible CPU is
 * numbered higher. Traced all the same (fxt-dump reads them).
 */
static void warn_perfetto_cpus(const struct session *s)
{
	unsigned int i, n = 0, first = 0, last = 0;
	char which[32];

	for (i = 0; i < s->nrings; i++) {
		if (s->rings[i].cpu < FXT_PERFETTO_MAX_CPUS)
			continue;
		if (!n++)
			first = s->rings[i].cpu;
		last = s->rings[i].cpu;
	}
	if (!n || s->opts.quiet)
		return;
	if (n == 1)
		snprintf(which, sizeof(which), "CPU %u", first);
	else
		snprintf(which, sizeof(which), "CPUs %u to %u", first, last);
	msg("warning: %u of the %u possible CPUs %s numbered %u or above (%s), and Perfetto reads the scheduling records of CPUs below %u only: it cannot read %s (fxt-dump --check refuses them). Traced all the same (booting with nr_cpus=%u would keep CPU numbers below %u, but leave the CPUs above unused)",
	    n, s->nrings, n == 1 ? "is" : "are", FXT_PERFETTO_MAX_CPUS, which,
	    FXT_PERFETTO_MAX_CPUS, n == 1 ? "that CPU's" : "those CPUs'",
	    FXT_PERFETTO_MAX_CPUS, FXT_PERFETTO_MAX_CPUS);
}

int map_rings(struct session *s)
{
	unsigned int cpu;
	int ret;

	s->rings = calloc(s->info.nr_cpu_ids, sizeof(*s->rings));
	if (!s->rings)
		return step_failed(s, "allocating ring state", ENOMEM, NULL);
	for (cpu = 0; cpu < s->info.nr_cpu_ids; cpu++) {
		ret = map_cpu(s, cpu);
		if (ret < 0)
			return -1;
	}
	if (s->nrings == 0) {
		msg("mapping the rings failed: the module offers no CPU (every mmap gave ENXIO)");
		msg("this is a module bug; please report it with the dmesg output");
		s->failed = true;
		return -1;
	}
	warn_perfetto_cpus(s);
	return 0;
}

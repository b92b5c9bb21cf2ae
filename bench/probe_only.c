// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fxt-probe-only - trace with fxtrace's probes while nobody drains the rings
 *
 *   fxt-probe-only [-b SIZE_MIB] -- COMMAND [ARG...]
 *
 * Configures rings large enough for the whole run, starts tracing, runs
 * COMMAND, stops, and prints what the rings' counters say. Nothing reads
 * the records, so the time COMMAND takes under this tool, compared with no
 * tracing and with fxt-collect, splits fxtrace's cost into the probes' part
 * and the collector's part. A benchmark configuration, not a tracer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/fxtrace.h>

#define DEVICE	"/dev/fxtrace"

static int fail(const char *step)
{
	fprintf(stderr, "fxt-probe-only: %s failed: %s\n", step, strerror(errno));
	if (errno == ENOENT)
		fprintf(stderr, "fxt-probe-only: load the module first (insmod fxtrace.ko)\n");
	return 1;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: fxt-probe-only [-b SIZE_MIB] -- COMMAND [ARG...]\n"
"Trace every CPU with fxtrace into rings of SIZE_MIB MiB each (a power of\n"
"two, default 128) that nobody drains while COMMAND runs; then print the\n"
"rings' counters:\n"
"  fxt-probe-only: records_written=N records_dropped=N tracepoint_hits=N cpus=N\n"
"Exit: COMMAND's status (128+N for signal N), 3 if records were dropped\n"
"(use a larger -b), 1 if a step failed, 2 on a bad command line.\n"
"\n"
"EXAMPLES\n"
"  fxt-probe-only -- fxt-bench pingpong -n 100000\n");
}

int main(int argc, char **argv)
{
	uint64_t written = 0, dropped = 0, hits = 0, mib = 128;
	struct fxtrace_config cfg;
	struct fxtrace_info info;
	const struct fxtrace_ctrl *ctrl;
	unsigned int cpu, ncpus = 0;
	int c, fd, status, ret;
	pid_t pid;

	while ((c = getopt(argc, argv, "+b:h")) != -1) {
		switch (c) {
		case 'b': mib = strtoull(optarg, NULL, 10); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind >= argc || !mib || (mib & (mib - 1)) ||
	    (mib << 20) > FXTRACE_BUF_SIZE_MAX) {
		usage(stderr);
		return 2;
	}
	fd = open(DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return fail("opening " DEVICE);
	if (ioctl(fd, FXTRACE_IOC_GET_INFO, &info))
		return fail("FXTRACE_IOC_GET_INFO");
	memset(&cfg, 0, sizeof(cfg));
	cfg.buf_size = mib << 20;
	cfg.watermark = (uint32_t)(cfg.buf_size / 2);	/* nobody polls */
	if (ioctl(fd, FXTRACE_IOC_CONFIGURE, &cfg))
		return fail("FXTRACE_IOC_CONFIGURE (too little memory for the rings? try a smaller -b)");
	if (ioctl(fd, FXTRACE_IOC_GET_INFO, &info))
		return fail("FXTRACE_IOC_GET_INFO");
	if (ioctl(fd, FXTRACE_IOC_START))
		return fail("FXTRACE_IOC_START");
	pid = fork();
	if (pid < 0)
		return fail("fork");
	if (pid == 0) {
		execvp(argv[optind], &argv[optind]);
		fprintf(stderr, "fxt-probe-only: cannot run %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return fail("waitpid");
	if (ioctl(fd, FXTRACE_IOC_STOP))
		return fail("FXTRACE_IOC_STOP");
	/* The counters are on each CPU's control page. */
	for (cpu = 0; cpu < info.nr_cpu_ids; cpu++) {
		ctrl = mmap(NULL, info.ctrl_size, PROT_READ, MAP_SHARED, fd,
			    (off_t)(info.ctrl_offset + cpu * info.cpu_stride));
		if (ctrl == MAP_FAILED) {
			if (errno == ENXIO)	/* not a possible CPU */
				continue;
			return fail("mapping a control page");
		}
		written += ctrl->records_written;
		dropped += ctrl->records_dropped;
		hits += ctrl->tracepoint_hits;
		ncpus++;
		munmap((void *)ctrl, info.ctrl_size);
	}
	close(fd);
	printf("fxt-probe-only: records_written=%" PRIu64 " records_dropped=%" PRIu64
	       " tracepoint_hits=%" PRIu64 " cpus=%u\n", written, dropped, hits, ncpus);
	fflush(stdout);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	ret = WEXITSTATUS(status);
	return ret ? ret : dropped ? 3 : 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * fxt-pollblock - hold a tracing session blocked in poll(), for the
 * "unload while a reader sleeps in poll()" test
 *
 * Opens /dev/fxtrace, configures rings whose watermark cannot be reached in
 * the time of a test (the largest one below the ring size), starts tracing,
 * says "polling" on stdout and blocks in poll() with no timeout. SIGTERM or
 * SIGINT interrupt the poll(): it then stops tracing, checks the session
 * still answers GET_INFO, closes it and exits 0. Exits 1 if poll() returns
 * for any other reason (nothing should wake it), or on any failed step.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/fxtrace.h>

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

static int fail(const char *step)
{
	fprintf(stderr, "fxt-pollblock: %s: %s\n", step, strerror(errno));
	return 1;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: fxt-pollblock [--buffer-size BYTES] [--device PATH]\n"
"\n"
"Start a tracing session with an unreachable poll() watermark (buffer size\n"
"minus 8 bytes; default buffer 4 MiB) and block in poll() until SIGTERM or\n"
"SIGINT. Prints \"polling\" once blocked, and how poll() ended.\n"
"Exit status: 0 interrupted by a signal and the session closed cleanly,\n"
"1 poll() returned by itself or a step failed, 2 usage.\n"
"\n"
"EXAMPLES\n"
"  fxt-pollblock > out & ...; kill -TERM $!; wait $!\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "buffer-size", required_argument, NULL, 'b' },
		{ "device", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *device = "/dev/fxtrace";
	struct fxtrace_config cfg = { .buf_size = 4 << 20 };
	struct fxtrace_info info;
	struct sigaction sa;
	struct pollfd pfd;
	int fd, opt, n;
	char *end;

	while ((opt = getopt_long(argc, argv, "b:D:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'b':
			cfg.buf_size = strtoull(optarg, &end, 0);
			if (*end || !cfg.buf_size) {
				fprintf(stderr, "fxt-pollblock: --buffer-size takes a number of bytes, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'D':
			device = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "fxt-pollblock: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	cfg.watermark = (__u32)(cfg.buf_size - 8);

	/* No SA_RESTART: the signal must end the poll() with EINTR. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	fd = open(device, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return fail("opening the device (is fxtrace.ko loaded?)");
	if (ioctl(fd, FXTRACE_IOC_CONFIGURE, &cfg))
		return fail("FXTRACE_IOC_CONFIGURE");
	if (ioctl(fd, FXTRACE_IOC_START))
		return fail("FXTRACE_IOC_START");

	pfd.fd = fd;
	pfd.events = POLLIN;
	printf("polling\n");
	fflush(stdout);
	n = poll(&pfd, 1, -1);
	if (n >= 0 || errno != EINTR || !got_signal) {
		printf("poll returned %d (revents %#x, %s) without a signal\n",
		       n, n > 0 ? pfd.revents : 0,
		       n < 0 ? strerror(errno) : "no error");
		return 1;
	}
	printf("poll interrupted by signal %d\n", (int)got_signal);
	if (ioctl(fd, FXTRACE_IOC_STOP))
		return fail("FXTRACE_IOC_STOP after the signal");
	memset(&info, 0, sizeof(info));
	if (ioctl(fd, FXTRACE_IOC_GET_INFO, &info))
		return fail("FXTRACE_IOC_GET_INFO after the signal");
	if (info.state != FXTRACE_STATE_READY) {
		printf("state %u after STOP, expected %u (ready)\n", info.state,
		       FXTRACE_STATE_READY);
		return 1;
	}
	if (close(fd))
		return fail("closing the device");
	printf("session closed\n");
	return 0;
}

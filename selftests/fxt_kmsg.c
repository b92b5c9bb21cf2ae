// SPDX-License-Identifier: GPL-2.0
/*
 * fxt-kmsg - print the records now in the kernel log, and return
 *
 *   fxt-kmsg
 *
 * Copies every record /dev/kmsg holds to stdout as the kernel formats it,
 * "PRIO,SEQ,USEC,FLAGS;MESSAGE" and any " KEY=value" lines after it, from
 * the oldest to the newest, then exits instead of waiting for more. The
 * shell cannot do this: cat blocks at the end of the log, and busybox dd
 * has no iflag=nonblock. selftests/kmsg_scan.sh finds a step's messages by
 * their sequence numbers in this output.
 *
 * When records are overwritten before they are read, read() fails once with
 * EPIPE and the next one returns the oldest record left: this goes on, so
 * the hole shows as a jump in the sequence numbers, which the reader judges
 * (records lost before its mark do not matter, after it they do).
 *
 * Exit status: 0, or 1 if /dev/kmsg cannot be read (or is written faster
 * than it can be read, a million records on).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Bigger than any record (the kernel's limit is 8 KiB with its dictionary). */
#define RECORD_MAX 16384
#define RECORDS_MAX 1000000

int main(int argc, char **argv)
{
	static char buf[RECORD_MAX];
	long records = 0;
	int fd;

	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "usage: fxt-kmsg (no arguments)\n");
		return 2;
	}
	fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "fxt-kmsg: /dev/kmsg: %s\n", strerror(errno));
		return 1;
	}
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0 && (errno == EPIPE || errno == EINTR))
			continue;
		if (n < 0) {
			fprintf(stderr, "fxt-kmsg: reading /dev/kmsg: %s\n", strerror(errno));
			return 1;
		}
		if (n == 0)
			break;
		if (fwrite(buf, 1, n, stdout) != (size_t)n)
			break;
		if (buf[n - 1] != '\n')
			putchar('\n');
		if (++records == RECORDS_MAX) {
			fprintf(stderr, "fxt-kmsg: /dev/kmsg still has records after %d\n",
				RECORDS_MAX);
			return 1;
		}
	}
	close(fd);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "fxt-kmsg: writing: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

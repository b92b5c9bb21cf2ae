// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fxt_collect.c - fxt-collect: record scheduler activity from /dev/fxtrace
 * into a Fuchsia Trace Format file.
 *
 * main() is the whole lifecycle, one step per line:
 *   parse -> would COMMAND run (execvp()'s lookup; nothing is opened
 *   before it) -> open device -> GET_INFO (ABI check) -> CONFIGURE -> open
 *   output, not truncated yet (+ its guard process, before the rings are
 *   mapped and before any thread or COMMAND) -> mmap rings -> preamble
 *   (+ every task in /proc) in memory -> START -> empty the output, write
 *   the preamble (a failure before leaves the file as it was) -> drop
 *   counters at zero -> [COMMAND] -> poll/drain loop (kernel names put
 *   back in time order; threads the kernel did not name read from /proc
 *   one cycle after they appear) -> STOP -> final drain (+ a loss marker
 *   for what each ring dropped after its last record) -> drop counters
 *   -> thread names again -> summary -> [wait for COMMAND]
 * Every step prints its own error, naming the step and what to do, and
 * marks the session failed; session_cleanup() is the single way out.
 *
 * Each step is in the file of its job. This one keeps main(), what comes
 * before anything is opened (closed standard descriptors, -o - checks, a
 * PID namespace), START, the poll loop, STOP and the cleanup:
 *   collect_options.c  parse
 *   collect_command.c  would COMMAND run, [COMMAND], [wait for COMMAND]
 *                      and its status; which stop signals are COMMAND's
 *   collect_device.c   open device, GET_INFO, CONFIGURE, mmap rings
 *   collect_output.c   open output, preamble, drop counters, each drain,
 *                      thread names again, closing the output; what a
 *                      write that blocks or fails does
 *   collect_summary.c  summary, exit status
 *   collect_signals.c  the handlers whose flags every step looks at, the
 *                      masks the waits use, the kick timer
 * They share struct session, and call each other only through
 * collect_session.h and collect_signals.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <linux/fxtrace.h>

#include "collect_options.h"
#include "collect_session.h"
#include "collect_signals.h"
#include "fxt_read.h"
#include "fxt_write.h"
#include "name_order.h"
#include "tid_set.h"

#define POLL_INTERVAL_MS	100
#define IDLE_BACKOFF_NS		(10 * 1000 * 1000)

__attribute__((format(printf, 1, 2)))
void msg(const char *fmt, ...)
{
	va_list ap;

	fputs("fxt-collect: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* "<step> failed: <errno text>" and, if there is one, what to do. */
int step_failed(struct session *s, const char *step, int err,
		const char *hint)
{
	msg("%s failed: %s", step, strerror(err));
	if (hint)
		msg("%s", hint);
	s->failed = true;
	return -1;
}

double seconds_between(const struct timespec *a,
		       const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	       (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* ---- before anything is opened ---------------------------------------- */

/* @st (the output) is where standard error goes: not a character device
 * such as /dev/null, for which that is harmless. */
static bool shared_with_stderr(const struct stat *st)
{
	struct stat err;

	return fstat(STDERR_FILENO, &err) == 0 && st->st_dev == err.st_dev &&
	       st->st_ino == err.st_ino && !S_ISCHR(st->st_mode);
}

/*
 * -o - with a stdout the trace cannot go to whole: one open for reading
 * only (every write would fail, after the old file was emptied), or the
 * same file or pipe as stderr ("> FILE 2>&1", "2>&1 | ..."), where every
 * message fxt-collect prints would land between two records. (A character
 * device such as /dev/null for both is harmless; a terminal is refused by
 * the option checks.)
 */
static int check_stdout_output(struct session *s)
{
	int flags = fcntl(STDOUT_FILENO, F_GETFL);
	struct stat out;

	if (flags >= 0 && (flags & O_ACCMODE) == O_RDONLY) {
		msg("-o -: standard output is open for reading only (1< FILE), so the trace cannot be written to it: open it for writing (> FILE, | fxt-dump --summary -) or give -o FILE");
		s->failed = true;
		return -1;
	}
	if (fstat(STDOUT_FILENO, &out) == 0 && shared_with_stderr(&out)) {
		msg("-o -: standard error goes where standard output does (2>&1), so fxt-collect's messages would land inside the trace: send them elsewhere (2> FILE) or give -o FILE");
		s->failed = true;
		return -1;
	}
	return 0;
}

/*
 * -o FILE where standard error already goes ("-o x.fxt 2> x.fxt", "&>
 * x.fxt", "> x.fxt 2>&1 -o x.fxt"): every message fxt-collect prints
 * would go over the trace, from stderr's own position in the file (the
 * summary over its first records). Refused before FILE is touched; the
 * message itself goes there all the same.
 */
static int check_file_output(struct session *s)
{
	struct stat out;

	if (stat(s->opts.output, &out) == 0 && shared_with_stderr(&out)) {
		msg("-o %s: standard error goes to that file too, so fxt-collect's messages would be written over the trace: send them elsewhere (2> OTHER-FILE) or give another -o FILE",
		    s->opts.output);
		s->failed = true;
		return -1;
	}
	return 0;
}

/*
 * A closed standard descriptor would be the number the next open() takes:
 * the device's or the output's, which would then get our messages, or,
 * with -o -, the trace. Each closed one is held open on /dev/null; but a
 * trace for a closed stdout has nowhere to go: -1, said on stderr, as for
 * a stdout check_stdout_output() refuses.
 */
static int hold_standard_fds(struct session *s)
{
	bool no_stdout = fcntl(STDOUT_FILENO, F_GETFD) < 0;
	int fd;

	/* Only when one is closed: /dev/null may be missing (a minimal
	 * container or initramfs) where nothing needs it. */
	for (fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++)
		if (fcntl(fd, F_GETFD) < 0)
			break;
	if (fd > STDERR_FILENO)
		goto held;
	do {
		fd = open("/dev/null", O_RDWR);
	} while (fd >= 0 && fd <= STDERR_FILENO);
	if (fd < 0)
		return step_failed(s, "opening /dev/null for a closed standard descriptor",
				   errno, "make /dev/null available, or start fxt-collect with descriptors 0, 1 and 2 open");
	close(fd);
held:
	if (no_stdout && !strcmp(s->opts.output, "-")) {
		msg("-o -: standard output is closed, so the trace has nowhere to go: open it (e.g. | fxt-dump --summary -) or give -o FILE");
		s->failed = true;
		return -1;
	}
	if (!strcmp(s->opts.output, "-"))
		return check_stdout_output(s);
	return check_file_output(s);
}

/*
 * The module records thread ids as the initial PID namespace numbers them.
 * In any other, /proc here and our own pid number them differently, so
 * names would be looked up under the wrong ids: said once, up front.
 * 0xEFFFFFFC is PROC_PID_INIT_INO, the initial namespace's inode number,
 * fixed by the kernel.
 */
static void warn_pid_namespace(const struct session *s)
{
	struct stat st;

	if (s->opts.quiet || stat("/proc/self/ns/pid", &st) < 0 ||
	    st.st_ino == 0xEFFFFFFCU)
		return;
	msg("warning: fxt-collect runs in a PID namespace of its own (a container?), but the trace holds the host's thread ids, which /proc here does not show: threads will be unnamed or misnamed. Run it in the host's PID namespace (e.g. docker run --pid=host)");
}

/* ---- tracing ---------------------------------------------------------- */

/* -d was given and its time is up at @now (CLOCK_MONOTONIC). */
bool deadline_passed(const struct session *s,
		     const struct timespec *now)
{
	return s->opts.duration_ms && seconds_between(&s->deadline, now) >= 0;
}

/*
 * A stop signal before tracing started: nothing is traced, and the output
 * is not opened (or created) or written. -1 then, else 0.
 */
int stopped_early(struct session *s)
{
	if (!stop_signals)
		return 0;
	s->interrupted_early = true;
	return -1;
}

uint64_t boottime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * A stop signal before START: trace nothing. Checked with the signals
 * blocked until START has returned, so that a signal either comes before
 * (nothing traced, FILE as it was) or after (a short trace).
 */
static int start_tracing(struct session *s)
{
	int err = 0;

	block_stop_signals(true);
	if (stopped_early(s)) {
		block_stop_signals(false);
		return -1;
	}
	s->attach_ns = boottime_ns();
	clock_gettime(CLOCK_MONOTONIC, &s->attaching);
	if (ioctl(s->fd, FXTRACE_IOC_START) < 0)
		err = errno;
	block_stop_signals(false);
	if (err)
		return step_failed(s, "FXTRACE_IOC_START", err,
				   err == EBUSY ? "tracing is already running in another session" :
				   "see dmesg for why the module could not attach to the scheduler tracepoints");
	s->tracing = true;
	s->traced = true;
	clock_gettime(CLOCK_MONOTONIC, &s->started);
	s->deadline = s->started;
	s->deadline.tv_sec += (time_t)(s->opts.duration_ms / 1000);
	s->deadline.tv_nsec += (long)(s->opts.duration_ms % 1000) * 1000000L;
	if (s->deadline.tv_nsec >= 1000000000L) {
		s->deadline.tv_sec++;
		s->deadline.tv_nsec -= 1000000000L;
	}
	return 0;
}

void stop_tracing(struct session *s)
{
	if (!s->tracing)
		return;
	/*
	 * A second signal while COMMAND runs stops tracing and leaves COMMAND
	 * running, however the loop ends: not only where should_stop() sees
	 * it, but also where it came during a write that was then given up or
	 * failed (the loop ended without looking). Here, as tracing ends, is
	 * the one place every path goes through.
	 */
	if (s->child_running && own_stop_signals(s) > 0)
		s->child_abandoned = true;
	if (ioctl(s->fd, FXTRACE_IOC_STOP) < 0)
		step_failed(s, "FXTRACE_IOC_STOP", errno,
			    "closing the device stops tracing too; see dmesg");
	s->tracing = false;
	clock_gettime(CLOCK_MONOTONIC, &s->stopped);
}

/* ---- the loop --------------------------------------------------------- */

/* Should the loop end? Also passes signals on to COMMAND. */
static bool should_stop(struct session *s)
{
	struct timespec now;

	if (child_changed) {
		child_changed = 0;
		reap_child(s);
	}
	if (s->child && !s->child_running)
		return true;		/* COMMAND exited */
	forward_signal(s);
	if (own_stop_signals(s) > 0) {
		s->child_abandoned = s->child_running;
		note_stop(s);
		return true;
	}
	if (s->stopping)
		return true;	/* a write noticed it, COMMAND has exited since */
	if (!s->tracing)
		return true;	/* a write stopped it at the -d deadline */
	if (!s->opts.duration_ms)
		return false;	/* no clock read per wakeup without -d */
	clock_gettime(CLOCK_MONOTONIC, &now);
	return deadline_passed(s, &now);
}

static struct timespec poll_timeout(const struct session *s,
				    const struct timespec *deadline)
{
	struct timespec now, ts = { 0, POLL_INTERVAL_MS * 1000000L };
	double left;

	if (!s->opts.duration_ms)
		return ts;
	clock_gettime(CLOCK_MONOTONIC, &now);
	left = seconds_between(&now, deadline);
	if (left < POLL_INTERVAL_MS / 1000.0) {
		ts.tv_sec = 0;
		ts.tv_nsec = left > 0 ? (long)(left * 1e9) : 0;
	}
	return ts;
}

static void trace_loop(struct session *s)
{
	const struct timespec backoff = { 0, IDLE_BACKOFF_NS };
	struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
	sigset_t mask = wait_mask(s);
	struct timespec timeout;
	long long drained;
	bool stop;
	int n;

	for (;;) {
		/*
		 * SIGINT/SIGTERM blocked from looking at the flags until
		 * ppoll() lets them in: none can slip in between. Unblocked
		 * again for the drain, whose writes may block.
		 */
		block_stop_signals(true);
		stop = should_stop(s);
		if (!stop) {
			timeout = poll_timeout(s, &s->deadline);
			n = ppoll(&pfd, 1, &timeout, &mask);
		}
		block_stop_signals(false);
		if (stop)
			break;
		if (n < 0 && errno != EINTR) {
			step_failed(s, "waiting for trace data (ppoll)", errno, NULL);
			return;
		}
		if (n > 0 && (pfd.revents & (POLLERR | POLLHUP | POLLNVAL))) {
			msg("waiting for trace data failed: the device reported %s",
			    pfd.revents & POLLNVAL ? "POLLNVAL" :
			    pfd.revents & POLLERR ? "POLLERR" : "POLLHUP");
			msg("see dmesg; the trace so far is kept");
			s->failed = true;
			return;
		}
		drained = drain_all(s, false);
		if (drained < 0)
			return;
		/* Readable but nothing to read: do not spin on a stuck poll. */
		if (n > 0 && drained == 0)
			nanosleep(&backoff, NULL);
	}
}

/* ---- the end ---------------------------------------------------------- */

static void session_cleanup(struct session *s)
{
	unsigned int i;

	stop_tracing(s);
	for (i = 0; i < s->nrings; i++) {
		if (s->rings[i].data)
			munmap(s->rings[i].data, s->rings[i].size);
		munmap(s->rings[i].ctrl, s->info.ctrl_size);
	}
	free(s->rings);
	if (s->fd >= 0)
		close(s->fd);
	close_output(s);
	fxt_writer_free(&s->meta);
	tid_set_free(&s->tids);
	tid_set_free(&s->named_threads);
	tid_set_free(&s->named_processes);
	name_order_free(&s->names);
	free(s->new_tids);
}

int main(int argc, char **argv)
{
	struct session s;
	int status, err;

	memset(&s, 0, sizeof(s));
	s.fd = -1;
	s.self_pid = (uint64_t)getpid();
	fxt_writer_init_dynamic(&s.meta);
	tid_set_init(&s.tids);
	tid_set_init(&s.named_threads);
	tid_set_init(&s.named_processes);
	name_order_init(&s.names);
	switch (collect_parse_args(argc, argv, &s.opts)) {
	case COLLECT_PARSE_EXIT_OK:
		/* --help or --version: did it reach stdout (a full disk)? */
		err = fxt_flush_error(stdout, EIO);
		if (!err)
			return EXIT_TRACE_OK;
		fprintf(stderr, "fxt-collect: writing to standard output failed: %s\n",
			strerror(err));
		return EXIT_TRACE_FAILED;
	case COLLECT_PARSE_USAGE:
		return EXIT_USAGE;
	case COLLECT_PARSE_OK:
		break;
	}
	setup_signals(&s);

	/*
	 * The output (and its guard, a fork) before the rings: a guard that
	 * inherited their mappings would keep the device open after we die.
	 */
	warn_pid_namespace(&s);
	if (hold_standard_fds(&s) || check_command(&s) || open_device(&s) ||
	    get_info(&s) ||
	    configure(&s) ||
	    stopped_early(&s) || open_output(&s) || map_rings(&s) ||
	    build_preamble(&s) || start_tracing(&s) || write_preamble(&s))
		goto out;
	if (sample_drop_counters(&s) == 0 &&
	    (!s.opts.command || start_command(&s) == 0))
		trace_loop(&s);
	stop_tracing(&s);
	if (!s.write_failed && drain_all(&s, true) >= 0 &&
	    sample_drop_counters(&s) == 0)
		write_trailer(&s);
	close_output(&s);
	print_summary(&s);
	wait_for_command(&s);
	report_command_status(&s);
out:
	if (s.interrupted_early)
		msg("stopped by SIG%s before tracing started: nothing was traced",
		    last_stop_signal == SIGINT ? "INT" : "TERM");
	status = exit_status(&s);
	session_cleanup(&s);
	return status;
}

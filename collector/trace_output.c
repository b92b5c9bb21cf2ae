// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * trace_output.c - write the trace, keep it cut at record boundaries
 * (see trace_output.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fxt_types.h"
#include "trace_output.h"

void trace_output_from_fd(struct trace_output *out, int fd, const char *name)
{
	struct stat st;

	memset(out, 0, sizeof(*out));
	out->guard_fd = -1;
	out->fd = fd;
	out->path = name;
	out->regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	if (out->regular) {
		int flags = fcntl(fd, F_GETFL);
		off_t pos;

		/*
		 * The trace must start after what the file already holds, or a
		 * cut back to the last whole record (here or in the guard)
		 * truncates the file in the middle of it. On an O_APPEND
		 * descriptor (">> file") the position says 0 until the first
		 * write, but every write goes to the end of the file: start
		 * there. (Another writer appending at the same time would
		 * interleave with the trace and break it anyway.) Otherwise
		 * writes go where the position stands ("1<> file" after a
		 * seek, an inherited descriptor).
		 */
		out->append = flags >= 0 && (flags & O_APPEND);
		if (out->append)
			pos = st.st_size;
		else
			pos = lseek(fd, 0, SEEK_CUR);
		out->start = pos > 0 ? (uint64_t)pos : 0;
		out->offset = out->start;
		out->committed = out->start;
	}
}

int trace_output_open(struct trace_output *out, const char *path)
{
	bool created = false;
	int fd, err;

	if (!strcmp(path, "-")) {
		trace_output_from_fd(out, STDOUT_FILENO, "stdout");
		return 0;
	}
	/*
	 * No O_TRUNC: the old trace stays until the new one begins. O_EXCL
	 * first, to know whether the file is ours to remove if it never does
	 * (O_CREAT | O_EXCL never follows a symbolic link: EEXIST). Then an
	 * existing file, without O_CREAT: ENOENT means @path is a symbolic
	 * link to nothing, refused rather than creating its target behind
	 * the name we would report, or the file went away between the two
	 * opens (try again).
	 */
	for (int tries = 0; ; tries++) {
		struct stat st;

		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0) {
			created = true;
			break;
		}
		if (errno != EEXIST)
			return -errno;
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd >= 0)
			break;
		err = errno;
		if (err != ENOENT || tries == 2 ||
		    (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)))
			return -err;
	}
	trace_output_from_fd(out, fd, path);
	out->owns_fd = true;
	out->created = created;
	return 0;
}

int trace_output_begin(struct trace_output *out)
{
	struct stat st;

	if (out->begun)
		return 0;
	out->begun = true;
	/* Arm the guard first: a death from here on leaves at most an
	 * empty file, never the old bytes behind a cut preamble. */
	if (out->shared_committed)
		atomic_store_explicit(out->shared_committed, out->committed,
				      memory_order_release);
	/*
	 * What the file held from @start on goes, whoever opened it: a
	 * longer file would keep its old tail after the trace ("-o - 1<>
	 * FILE", an inherited descriptor). Not when appending: @start is
	 * the end of the file, and another writer may have appended since.
	 */
	if (!out->regular || out->append)
		return 0;
	if (fstat(out->fd, &st) < 0 ||
	    ((uint64_t)st.st_size > out->start &&
	     ftruncate(out->fd, (off_t)out->start) < 0)) {
		int err = -errno;

		/* Not begun after all: the file is as it was, nothing to cut. */
		out->begun = false;
		if (out->shared_committed)
			atomic_store_explicit(out->shared_committed,
					      TRACE_OUTPUT_NOT_BEGUN,
					      memory_order_release);
		return err;
	}
	out->emptied = (uint64_t)st.st_size > out->start;
	return 0;
}

void trace_output_untouched(struct trace_output *out, char *buf, size_t size)
{
	struct stat fst, st;

	buf[0] = '\0';
	if (out->begun || !out->owns_fd || !out->regular || out->fd < 0)
		return;
	if (!out->created) {
		snprintf(buf, size, "no trace was written: %s was left as it was",
			 out->path);
		return;
	}
	/* Only if the name still is the file we created. */
	if (fstat(out->fd, &fst) < 0 || stat(out->path, &st) < 0 ||
	    fst.st_dev != st.st_dev || fst.st_ino != st.st_ino)
		return;
	if (unlink(out->path) == 0)
		snprintf(buf, size, "no trace was written: %s, which fxt-collect had created, was removed",
			 out->path);
	else
		snprintf(buf, size, "no trace was written: %s is empty (removing it failed: %s)",
			 out->path, strerror(errno));
	out->created = false;
}

/*
 * An output whose open file description is non-blocking: set by whoever
 * shares it with us (stdout inherited from a parent that wants its own
 * end non-blocking), so not ours to change. Wait for room as a blocking
 * write() would: until the reader takes data, or a signal (the kick
 * timer's included) interrupts the wait. 0: try again; -1 with errno.
 */
static int wait_for_room(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };

	/* POLLERR or POLLHUP: the next write() says what went wrong. */
	return poll(&pfd, 1, -1) < 0 ? -1 : 0;
}

int trace_output_write(struct trace_output *out, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;
	int err;

	if (!out->begun) {
		err = trace_output_begin(out);
		if (err)
			return err;
	}
	while (len) {
		n = write(out->fd, p, len);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) &&
		    wait_for_room(out->fd) == 0)
			continue;
		if (n < 0 && errno == EINTR) {
			/* A signal, or a timer kicking a write that is stuck. */
			err = out->interrupted ? out->interrupted(out->interrupted_ctx) : 0;
			if (err)
				return err;
			continue;
		}
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ENOSPC;
		p += n;
		len -= (size_t)n;
		out->offset += (uint64_t)n;
		/*
		 * Short: a signal came after part of it went to a pipe (or the
		 * disk is full, and the next write() says so).
		 */
		if (len && out->interrupted) {
			err = out->interrupted(out->interrupted_ctx);
			if (err)
				return err;
		}
	}
	return 0;
}

bool trace_output_ends_at_offset(const struct trace_output *out)
{
	char path[48], c;
	ssize_t n;
	int rfd;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", out->fd);
	rfd = open(path, O_RDONLY | O_CLOEXEC);
	if (rfd < 0)
		return true;
	n = pread(rfd, &c, 1, (off_t)out->offset);
	close(rfd);
	return n <= 0;
}

uint64_t trace_output_whole_end(int fd, uint64_t from, uint64_t to)
{
	uint64_t buf[1024], base = from, have = 0, pos = from, words, h;
	char path[48];
	ssize_t n;
	int rfd;

	/* A descriptor of its own: the output's may be write-only. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	rfd = open(path, O_RDONLY | O_CLOEXEC);
	if (rfd < 0)
		return from;
	while (to - pos >= 8) {
		if (pos + 8 > base + have) {
			n = pread(rfd, buf, sizeof(buf), (off_t)pos);
			if (n < 8)
				break;
			base = pos;
			have = (uint64_t)n & ~7ULL;
		}
		/* pos - base is whole words: pos moves by records */
		memcpy(&h, (char *)buf + (pos - base), sizeof(h));
		words = fxt_record_words(h);
		if (!words || words > (to - pos) / 8)
			break;
		pos += words * 8;
	}
	close(rfd);
	return pos;
}

int trace_output_rollback(struct trace_output *out)
{
	uint64_t end = out->committed;

	if (!out->regular)
		return -ESPIPE;
	/*
	 * Since a commit after the trace's start (the first one ends the
	 * preamble, which is no trace without all of it), whole records
	 * written before the cut one stay, if records follow the commit.
	 */
	if (out->records_follow && end > out->start && out->offset > end)
		end = trace_output_whole_end(out->fd, end, out->offset);
	if (ftruncate(out->fd, (off_t)end) < 0)
		return -errno;
	out->offset = end;
	/* the guard's cut, too */
	trace_output_commit(out);
	if (lseek(out->fd, (off_t)end, SEEK_SET) < 0)
		return -errno;
	return 0;
}

/* ---- the guard ---------------------------------------------------------- */

/* Close every descriptor from @lo up to and including @hi. */
static void close_fds(unsigned int lo, unsigned int hi)
{
	long max;

	if (lo > hi)
		return;
	if (close_range(lo, hi, 0) == 0)
		return;
	/* Kernels before 5.9: one by one, up to the descriptor limit. */
	max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 65536)
		max = 65536;
	for (; lo <= hi && lo < (unsigned int)max; lo++)
		close((int)lo);
}

/* Close everything but @keep (ascending, distinct). */
static void close_all_but(const int *keep, int n)
{
	unsigned int lo = 0;
	int i;

	for (i = 0; i < n; i++) {
		if (keep[i] < 0)
			continue;
		if ((unsigned int)keep[i] > lo)
			close_fds(lo, (unsigned int)keep[i] - 1);
		lo = (unsigned int)keep[i] + 1;
	}
	close_fds(lo, ~0U);
}

static void sort3(int *v)
{
	int i, j, t;

	for (i = 0; i < 3; i++)
		for (j = i + 1; j < 3; j++)
			if (v[j] < v[i]) {
				t = v[i];
				v[i] = v[j];
				v[j] = t;
			}
}

/*
 * The guard itself, in the forked child. Only async-signal-safe calls
 * (dprintf and snprintf aside, on a single-threaded process): the
 * collector may have had threads.
 */
__attribute__((noreturn))
static void guard_main(const struct trace_output *out, int rfd, int ready_fd,
		       const sigset_t *mask)
{
	int keep[3] = { out->fd, rfd, STDERR_FILENO };
	char what[TRACE_OUTPUT_NO_TRACE_SIZE];
	bool in_preamble, records_follow;
	uint64_t end;
	struct stat st;
	ssize_t n;
	char c;

	prctl(PR_SET_NAME, "fxt-collect-guard");
	/*
	 * Outlive the collector: Ctrl-C reaches the whole foreground process
	 * group, "pkill fxt-collect" matches our name too, a hangup goes to
	 * the group; and a process group of our own keeps group-wide kills
	 * (kill -9 -PGID, timeout -s KILL) for the collector away from us.
	 */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	signal(SIGTTOU, SIG_IGN);	/* our one message, from a background group */
	setpgid(0, 0);
	/* Signals sent before the lines above stayed blocked: now discarded. */
	sigprocmask(SIG_SETMASK, mask, NULL);
	/* Set up: trace_output_start_guard() may return. */
	if (write(ready_fd, "r", 1) != 1)
		_exit(1);
	if (keep[0] == STDERR_FILENO)
		keep[0] = -1;
	sort3(keep);
	close_all_but(keep, 3);

	/*
	 * A byte: fxt-collect closed the output itself (stop_guard()), and
	 * any failure it met it has already reported and cut back if it
	 * could; a second cut, or a message blaming a death, would be wrong.
	 * EOF or an error: it is gone, maybe in the middle of a write.
	 */
	do {
		n = read(rfd, &c, 1);
	} while (n < 0 && errno == EINTR);
	if (n == 1)
		_exit(0);

	end = atomic_load_explicit(out->shared_committed, memory_order_acquire);
	/* Not begun: nothing of the trace was written, the file is as it was. */
	if (end == TRACE_OUTPUT_NOT_BEGUN)
		_exit(0);
	records_follow = end & TRACE_OUTPUT_RECORDS_FOLLOW;
	end &= ~TRACE_OUTPUT_RECORDS_FOLLOW;
	if (fstat(out->fd, &st) < 0 || (uint64_t)st.st_size <= end)
		_exit(0);
	/*
	 * fxt-collect commits first once the whole preamble (the provider
	 * metadata before any ring data) is written: nothing committed since
	 * the trace's start means it died writing the preamble, and what the
	 * cut takes off was the only part of the trace there was.
	 */
	in_preamble = end <= out->start;
	/* As trace_output_rollback(): the whole records after the commit. */
	if (!in_preamble && records_follow)
		end = trace_output_whole_end(out->fd, end, (uint64_t)st.st_size);
	/*
	 * The file ends with a whole record: nothing to cut, and nothing to
	 * say (as when it ends at the commit).
	 */
	if (end >= (uint64_t)st.st_size)
		_exit(0);
	if (ftruncate(out->fd, (off_t)end) < 0) {
		if (!in_preamble)
			dprintf(STDERR_FILENO,
				"fxt-collect-guard: fxt-collect ended in the middle of a write, and cutting %s back to its last whole record (%llu bytes) failed: %s\n"
				"fxt-collect-guard: a cut last record: " TRACE_OUTPUT_CUT_LAST "\n",
				out->path, (unsigned long long)end, strerror(errno));
		else
			dprintf(STDERR_FILENO,
				"fxt-collect-guard: fxt-collect ended in the middle of writing the trace preamble, and cutting %s back to where the trace was to start (%llu bytes) failed: %s\n"
				"fxt-collect-guard: no trace was written; the bytes after the first %llu are an incomplete preamble: remove them (truncate -s %llu FILE)\n",
				out->path, (unsigned long long)end, strerror(errno),
				(unsigned long long)end, (unsigned long long)end);
		_exit(1);
	}
	if (!in_preamble)
		dprintf(STDERR_FILENO,
			"fxt-collect-guard: fxt-collect ended in the middle of a write; %s was cut back to its last whole record (%llu bytes)\n",
			out->path, (unsigned long long)end);
	else {
		trace_output_no_trace(out, end, what, sizeof(what));
		dprintf(STDERR_FILENO,
			"fxt-collect-guard: fxt-collect ended in the middle of writing the trace preamble; %s\n",
			what);
	}
	_exit(0);
}

void trace_output_no_trace(const struct trace_output *out, uint64_t end,
			   char *buf, size_t size)
{
	if (end)	/* -o - >> FILE: FILE's own bytes stay */
		snprintf(buf, size,
			 "no trace was written: %s was cut back to where the trace was to start (%llu bytes), and holds none of it",
			 out->path, (unsigned long long)end);
	else
		snprintf(buf, size,
			 "no trace was written: %s was cut back to 0 bytes and is empty",
			 out->path);
}

int trace_output_start_guard(struct trace_output *out)
{
	_Atomic uint64_t *shared;
	int pipefd[2], readyfd[2], err;
	sigset_t block, saved;
	ssize_t n;
	pid_t pid;
	char c;

	if (!out->regular || out->guard_pid > 0)
		return 0;
	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		return -errno;
	atomic_store_explicit(shared, out->begun ? out->committed :
			      TRACE_OUTPUT_NOT_BEGUN, memory_order_release);
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		err = -errno;
		goto out_unmap;
	}
	if (pipe2(readyfd, O_CLOEXEC) < 0) {
		err = -errno;
		close(pipefd[0]);
		close(pipefd[1]);
		goto out_unmap;
	}
	out->shared_committed = shared;
	/*
	 * Block the signals the guard ignores until it ignores them, so a
	 * Ctrl-C right now cannot kill it in between (pending signals are not
	 * inherited; sent to the child, they wait until SIG_IGN drops them).
	 */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGQUIT);
	sigprocmask(SIG_BLOCK, &block, &saved);
	pid = fork();
	if (pid == 0) {
		close(pipefd[1]);
		close(readyfd[0]);
		guard_main(out, pipefd[0], readyfd[1], &saved);
	}
	err = pid < 0 ? -errno : 0;
	sigprocmask(SIG_SETMASK, &saved, NULL);
	close(pipefd[0]);
	close(readyfd[1]);
	if (pid > 0) {
		/* Wait until it is named, in its own group and ignoring signals. */
		do {
			n = read(readyfd[0], &c, 1);
		} while (n < 0 && errno == EINTR);
		if (n != 1)
			err = -ECHILD;
	}
	close(readyfd[0]);
	if (err)
		goto out_reap_guard;
	out->guard_pid = pid;
	out->guard_fd = pipefd[1];
	return 0;

out_reap_guard:
	out->shared_committed = NULL;
	close(pipefd[1]);	/* EOF: a guard that got this far exits */
	if (pid > 0)
		waitpid(pid, NULL, 0);
out_unmap:
	munmap(shared, sizeof(*shared));
	return err;
}

void trace_output_drop_guard(struct trace_output *out)
{
	if (out->guard_pid <= 0 || out->guard_fd < 0)
		return;
	close(out->guard_fd);
	out->guard_fd = -1;
}

/*
 * A byte down the pipe tells the guard we end on our own, and it exits
 * without a word; give it up to two seconds (it could be stopped, or not
 * scheduled on a loaded machine), then leave it to init rather than hang.
 */
static void stop_guard(struct trace_output *out)
{
	const struct timespec pause = { 0, 200 * 1000 };
	int i, status;
	pid_t r;

	if (out->guard_pid <= 0)
		return;
	/*
	 * Tell it we end on our own (guard_main()). If it is already gone
	 * the write fails with EPIPE; fxt-collect ignores SIGPIPE.
	 */
	if (out->guard_fd >= 0) {
		ssize_t n = write(out->guard_fd, "c", 1);

		(void)n;	/* gone: nothing to tell */
	}
	trace_output_drop_guard(out);
	for (i = 0; i < 10000; i++) {
		r = waitpid(out->guard_pid, &status, WNOHANG);
		if (r == out->guard_pid || (r < 0 && errno != EINTR))
			break;
		nanosleep(&pause, NULL);
	}
	out->guard_pid = 0;
	munmap(out->shared_committed, sizeof(*out->shared_committed));
	out->shared_committed = NULL;
}

int trace_output_close(struct trace_output *out)
{
	int err = 0;

	if (out->fd < 0)
		return 0;
	if (out->owns_fd && close(out->fd) < 0)
		err = -errno;
	out->fd = -1;
	stop_guard(out);
	return err;
}

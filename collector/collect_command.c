// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * collect_command.c - COMMAND, the program fxt-collect traces while it
 * runs: checked before anything is opened, started once tracing is on
 * (not at all after a stop or once -d is up), its exit noticed, a signal
 * someone kill()ed fxt-collect with passed on to it, waited for after -d,
 * and its status reported.
 *
 * A file of its own because COMMAND changes what a signal means: while it
 * runs, the first stop signal is its (own_stop_signals()), and how it
 * ends decides fxt-collect's exit status. Without COMMAND, only
 * own_stop_signals(), reap_child() and forward_signal() run, and do
 * nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/fxtrace.h>

#include "collect_options.h"
#include "collect_session.h"
#include "collect_signals.h"
#include "command_path.h"
#include "trace_output.h"

/*
 * The stop signals that were fxt-collect's own, not COMMAND's: any of them
 * stops tracing. While COMMAND runs, the first is its (passed on to it, or
 * a Ctrl-C that reached it too). Once COMMAND has exited, that one is
 * still its and must not count as a stop of fxt-collect after the fact:
 * with a slow output the rest would be given up after STOP_PATIENCE_MS,
 * thread names included, where a COMMAND that exited by itself has it
 * written however long it takes. (A signal that came between COMMAND's
 * exit and our noticing it is taken as its too: only one more makes it
 * a stop.)
 */
int own_stop_signals(const struct session *s)
{
	int n = stop_signals;	/* read once: the handler may add one */
	int for_command = s->child_running ? n : s->command_signals;

	return n - (for_command > 0);
}

/* COMMAND was found exited, with waitpid() @status. */
static void command_exited(struct session *s, int status)
{
	s->child_running = false;
	s->child_status = status;
	s->command_signals = stop_signals;
}

/*
 * Has COMMAND exited? Asked without SIGCHLD too (it is blocked but in
 * ppoll()): waitpid() with WNOHANG finds an exited child all the same.
 */
void reap_child(struct session *s)
{
	int status;

	if (!s->child_running)
		return;
	if (waitpid(s->child, &status, WNOHANG) == s->child)
		command_exited(s, status);
}

/* Pass a kill()ed signal on to COMMAND, if it still runs. */
void forward_signal(struct session *s)
{
	if (signal_to_forward && s->child_running) {
		kill(s->child, signal_to_forward);
		signal_to_forward = 0;
	}
}

/* Does the file at @path begin with FXT's magic number record? */
static bool looks_like_a_trace(const char *path)
{
	uint64_t word = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	bool yes;

	if (fd < 0)
		return false;
	yes = read(fd, &word, sizeof(word)) == sizeof(word) &&
	      word == FXT_MAGIC_RECORD;
	close(fd);
	return yes;
}

/*
 * Before anything is opened: would COMMAND run at all? The commonest way
 * for it not to is "fxt-collect sched.fxt" (FILE where COMMAND goes), and
 * that must not replace an earlier sched.fxt with a trace of nothing. An
 * exec that still fails later (a missing dynamic loader, a file removed
 * meanwhile) is reported by start_command().
 */
int check_command(struct session *s)
{
	const char *name = s->opts.command ? s->opts.command[0] : NULL;
	char interp[PATH_MAX];
	struct stat sb;
	size_t len;
	int err;

	if (!name)
		return 0;
	err = command_path_check(name, getenv("PATH"), interp, sizeof(interp));
	if (!err)
		return 0;
	s->exec_errno = err;
	if (interp[0])
		msg("running %s failed: its interpreter %s (on its #! line): %s",
		    name, interp, strerror(err));
	else
		msg("running %s failed: %s", name, strerror(err));
	msg("%s; nothing was traced, and nothing written to %s",
	    interp[0] ? "install the interpreter, or correct the #! line" :
	    err == ENOENT ? "check the command name and PATH" :
	    "check that the command is executable",
	    strcmp(s->opts.output, "-") ? s->opts.output : "standard output");
	if (strchr(name, '/') || interp[0])
		return -1;
	/* A trace's file name where COMMAND goes, with no -o given. */
	len = strlen(name);
	if (!s->opts.output_given &&
	    ((len > 4 && !strcmp(name + len - 4, ".fxt")) ||
	     looks_like_a_trace(name)))
		msg("the arguments after the options are COMMAND and its arguments: to write the trace to %s, use -o %s",
		    name, name);
	/* A program in the current directory, which PATH does not search. */
	else if (!stat(name, &sb) && S_ISREG(sb.st_mode) &&
		 !faccessat(AT_FDCWD, name, X_OK, AT_EACCESS))
		msg("to run %s from the current directory, give it as ./%s",
		    name, name);
	return -1;
}

/* In the child: become COMMAND, or report errno through @report_fd. */
static void exec_command(struct session *s, int report_fd)
{
	int err;

	/*
	 * Ignored dispositions survive exec, and ours until exec: a Ctrl-C
	 * that reached this child before it would otherwise be taken by our
	 * handler and lost. Now it does to the child what it would do to
	 * COMMAND run directly.
	 */
	restore_signals_for_command(s);
	trace_output_drop_guard(&s->out);	/* only we may hold it */
	sigprocmask(SIG_SETMASK, &s->saved_mask, NULL);
	if (!strcmp(s->opts.output, "-"))
		dup2(STDERR_FILENO, STDOUT_FILENO);	/* keep the trace clean */
	execvp(s->opts.command[0], s->opts.command);
	err = errno;
	if (write(report_fd, &err, sizeof(err)) < 0)
		_exit(EXIT_CMD_NOT_EXEC);
	_exit(err == ENOENT ? EXIT_CMD_NOT_FOUND : EXIT_CMD_NOT_EXEC);
}

/*
 * Why COMMAND must not be started now, or NULL. It would run untraced
 * after a stop signal (which, before it exists, was meant for us alone:
 * with it running, the first signal would be taken as COMMAND's and
 * tracing would go on until it exits), or once -d has passed (while the
 * preamble's write blocked, say).
 */
static const char *command_too_late(const struct session *s)
{
	struct timespec now;

	if (stop_signals)
		return last_stop_signal == SIGINT ? "SIGINT came" : "SIGTERM came";
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!s->tracing || deadline_passed(s, &now))
		return "the -d time was up";
	return NULL;
}

/*
 * Fork and exec COMMAND now that tracing is on. A close-on-exec pipe tells
 * us whether exec worked: EOF means it did, an errno means it did not.
 */
int start_command(struct session *s)
{
	int pipefd[2], status = 0, err = 0;
	const char *late;
	ssize_t n;

	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return step_failed(s, "starting COMMAND (pipe)", errno, NULL);
	/*
	 * SIGINT and SIGTERM blocked from the check until COMMAND exists, so
	 * that a stop either comes before it (COMMAND is not run) or after
	 * (COMMAND is started, the stop is handled as COMMAND's: a Ctrl-C
	 * reached it too, a kill()ed signal is passed on). The child has
	 * them blocked until it has put back the default actions.
	 */
	block_stop_signals(true);
	late = command_too_late(s);
	if (late) {
		block_stop_signals(false);
		close(pipefd[0]);
		close(pipefd[1]);
		s->command_not_run = true;
		msg("%s was not run: %s before it could start; the trace ends there%s",
		    s->opts.command[0], late, stop_signals ? "" :
		    " (writing the trace's beginning took that long: give -d more time)");
		return -1;
	}
	s->child = fork();
	if (s->child == 0)
		exec_command(s, pipefd[1]);
	err = errno;
	block_stop_signals(false);
	if (s->child < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		s->child = 0;
		return step_failed(s, "starting COMMAND (fork)", err, NULL);
	}
	err = 0;
	close(pipefd[1]);
	do {
		n = read(pipefd[0], &err, sizeof(err));
	} while (n < 0 && errno == EINTR);
	close(pipefd[0]);
	s->child_running = true;
	if (n != sizeof(err))
		return 0;
	s->exec_errno = err;
	while (waitpid(s->child, &status, 0) < 0 && errno == EINTR)
		;
	command_exited(s, status);
	msg("running %s failed: %s", s->opts.command[0], strerror(err));
	msg("%s", err == ENOENT ? "check the command name and PATH" :
		  "check that the command is executable");
	return -1;
}

/*
 * A second signal stopped tracing (@waiting false), or, once -d (or a
 * failure) had stopped it, ended the wait below (@waiting true), while
 * COMMAND ran: it is left running, and fxt-collect exits with the signal's
 * status. Say so, unless COMMAND has exited meanwhile (then its status
 * counts).
 */
static void report_abandoned(struct session *s, bool waiting)
{
	reap_child(s);
	if (!s->child_running) {
		s->child_abandoned = false;
		return;
	}
	msg("%s (pid %d) is still running; %s: exit status %d is that signal's, not %s's",
	    s->opts.command[0], (int)s->child,
	    waiting ? "fxt-collect stopped waiting for it (tracing had already stopped; two signals end the wait)"
		    : "fxt-collect did not wait for it (a second signal stops tracing at once)",
	    128 + (int)last_stop_signal, s->opts.command[0]);
}

/*
 * Tracing stopped with COMMAND running, by -d (or a failure), not by a
 * signal: the -d stop counts as none. Signals count from COMMAND's start,
 * wherever they came (before -d, while the trace's end was written, or
 * while waiting): the first is COMMAND's (passed on), a second is
 * fxt-collect's own (own_stop_signals()) and leaves COMMAND running, as
 * it does while tracing. True once that is so (and said), after passing
 * a signal on to COMMAND.
 */
static bool leave_command(struct session *s)
{
	forward_signal(s);
	if (own_stop_signals(s) == 0)
		return false;
	s->child_abandoned = true;
	report_abandoned(s, true);
	return true;
}

/* Tracing is over but COMMAND is not (after -d): wait for it. */
void wait_for_command(struct session *s)
{
	sigset_t mask = wait_mask(s);
	int status;

	if (!s->child_running)
		return;
	if (s->child_abandoned) {
		report_abandoned(s, false);
		return;
	}
	if (leave_command(s))
		return;
	if (!s->opts.quiet)
		msg("tracing stopped; waiting for %s (pid %d) to exit",
		    s->opts.command[0], (int)s->child);
	sigprocmask(SIG_SETMASK, &mask, NULL);
	/*
	 * A signal ends the wait (EINTR) and is looked at. One handled just
	 * before waitpid() began, or while the message above was written,
	 * would not end it: the kick timer does, within KICK_INTERVAL_MS.
	 * (Blocking the signals until a sigsuspend() would merge two sent
	 * meanwhile into one, and a second ends the wait.)
	 */
	kick_timer(true);
	while (waitpid(s->child, &status, 0) < 0)
		if (errno != EINTR || leave_command(s))
			goto out;
	command_exited(s, status);
out:
	kick_timer(false);
}

/*
 * COMMAND's own non-zero status becomes fxt-collect's (exit_status()): say
 * so, or an exit of 1 reads as a failed trace, and a trace that dropped
 * records (exit 3 without COMMAND) looks whole. Not under -q.
 */
void report_command_status(const struct session *s)
{
	const char *cmd = s->opts.command ? s->opts.command[0] : NULL;
	int st = s->child_status;

	if (!cmd || !s->child || s->child_running || s->child_abandoned ||
	    s->exec_errno || s->opts.quiet)
		return;
	if (WIFEXITED(st) && WEXITSTATUS(st))
		msg("%s (pid %d) exited with status %d: fxt-collect's exit status is %s's, not the trace's (the lines above say how the trace went)",
		    cmd, (int)s->child, WEXITSTATUS(st), cmd);
	else if (WIFSIGNALED(st))
		msg("%s (pid %d) was killed by signal %d (%s): fxt-collect's exit status is %d, %s's, not the trace's (the lines above say how the trace went)",
		    cmd, (int)s->child, WTERMSIG(st), strsignal(WTERMSIG(st)),
		    128 + WTERMSIG(st), cmd);
}

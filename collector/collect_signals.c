// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * collect_signals.c - fxt-collect's signals: SIGINT and SIGTERM ask it to
 * stop (counted, a repeat from timeout(1) taken as one, one sent by kill()
 * noted to be passed on to COMMAND), SIGCHLD says COMMAND changed, and
 * SIGALRM, the kick timer, interrupts a write(), open() or waitpid() that
 * blocks; and the masks that keep a stop from slipping in unnoticed.
 *
 * A file of its own because the handlers run between any two lines of the
 * others: all they touch is here, flags the rest reads through
 * collect_signals.h, and what a handler may safely do is checked in one
 * place.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "collect_session.h"
#include "collect_signals.h"

/*
 * The same signal from the same process again within this time is one
 * request: timeout(1) signals fxt-collect and then its whole process group.
 */
#define REPEAT_SIGNAL_NS	(100 * 1000 * 1000)

/* Set by the handlers below; the other files see them in collect_signals.h. */
volatile sig_atomic_t stop_signals;	/* SIGINT/SIGTERM received */
volatile sig_atomic_t last_stop_signal;
volatile sig_atomic_t signal_to_forward;	/* sent by kill(), not a tty */
volatile sig_atomic_t child_changed;

static void on_stop_signal(int sig, siginfo_t *si, void *unused)
{
	static int prev_sig, prev_code;
	static pid_t prev_pid;
	static struct timespec prev;
	struct timespec now;
	int saved_errno = errno;
	bool repeat;

	(void)unused;
	/* INT and TERM are blocked in here (sa_mask): no nesting. */
	clock_gettime(CLOCK_MONOTONIC, &now);
	repeat = stop_signals && sig == prev_sig && si->si_code == SI_USER &&
		 prev_code == SI_USER && si->si_pid == prev_pid &&
		 (now.tv_sec - prev.tv_sec) * 1000000000LL +
		 (now.tv_nsec - prev.tv_nsec) < REPEAT_SIGNAL_NS;
	prev_sig = sig;
	prev_code = si->si_code;
	prev_pid = si->si_pid;
	prev = now;
	errno = saved_errno;
	if (repeat)
		return;		/* see REPEAT_SIGNAL_NS */
	stop_signals++;
	last_stop_signal = sig;
	/*
	 * Ctrl-C from a terminal reaches the whole foreground process group,
	 * COMMAND included (si_code SI_KERNEL); a signal someone kill()ed us
	 * with reached only us, so it has to be passed on.
	 */
	if (si->si_code != SI_KERNEL)
		signal_to_forward = sig;
}

static void on_sigchld(int sig)
{
	(void)sig;
	child_changed = 1;
}

/* Only to make a blocked call return EINTR (see KICK_INTERVAL_MS). */
static void on_sigalrm(int sig)
{
	(void)sig;
}

/*
 * The signals whose handling we change. COMMAND gets each back as we got
 * it: ignored if it was (a background job of a shell, nohup, env
 * --ignore-signal), else the default, as if it had been run directly.
 */
static const int handled_signals[] = {
	SIGINT, SIGTERM, SIGCHLD, SIGALRM, SIGPIPE, SIGXFSZ,
};
#define NR_HANDLED_SIGNALS (sizeof(handled_signals) / sizeof(handled_signals[0]))

/*
 * SIGINT and SIGTERM stay deliverable for the whole run, without
 * SA_RESTART: a blocking open() of a FIFO or write() to a full pipe returns
 * EINTR, so a stop is noticed there too. Only the poll loop blocks them,
 * between looking at the flags and ppoll(), whose mask lets them in (no
 * lost wake-up). SIGCHLD is only needed while waiting: blocked otherwise.
 */
void setup_signals(struct session *s)
{
	struct sigaction sa;
	sigset_t set;
	size_t i;

	sigemptyset(&s->ignored_at_start);
	for (i = 0; i < NR_HANDLED_SIGNALS; i++)
		if (sigaction(handled_signals[i], NULL, &sa) == 0 &&
		    !(sa.sa_flags & SA_SIGINFO) && sa.sa_handler == SIG_IGN)
			sigaddset(&s->ignored_at_start, handled_signals[i]);
	/*
	 * Ours even if ignored when we started: a stop must reach us (kill
	 * -INT of a background fxt-collect), as --help promises.
	 */
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_stop_signal;
	sa.sa_flags = SA_SIGINFO;	/* no SA_RESTART: interrupt waits */
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_sigchld;
	sa.sa_flags = SA_NOCLDSTOP;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
	sa.sa_handler = on_sigalrm;
	sa.sa_flags = 0;		/* no SA_RESTART either */
	sigaction(SIGALRM, &sa, NULL);
	/*
	 * A closed pipe on -o - must be an EPIPE error we can report, and a
	 * file size limit an EFBIG: both end in a trace cut at a record.
	 */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, &s->saved_mask);
	/* Even if whoever started us had them blocked. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGALRM);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

/*
 * In COMMAND's child, before its exec: each signal of handled_signals[]
 * back as fxt-collect got it (exec_command()).
 */
void restore_signals_for_command(const struct session *s)
{
	size_t i;

	for (i = 0; i < NR_HANDLED_SIGNALS; i++)
		signal(handled_signals[i],
		       sigismember(&s->ignored_at_start, handled_signals[i]) ?
		       SIG_IGN : SIG_DFL);
}

/* Block (@block) or unblock SIGINT and SIGTERM. */
void block_stop_signals(bool block)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(block ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

/* The mask to wait with: what we started with, minus our signals. */
sigset_t wait_mask(const struct session *s)
{
	sigset_t mask = s->saved_mask;

	sigdelset(&mask, SIGINT);
	sigdelset(&mask, SIGTERM);
	sigdelset(&mask, SIGCHLD);
	sigdelset(&mask, SIGALRM);
	return mask;
}

/* SIGALRM every KICK_INTERVAL_MS from now (@on), or no more. */
void kick_timer(bool on)
{
	struct itimerval it;

	memset(&it, 0, sizeof(it));
	if (on) {
		it.it_interval.tv_usec = KICK_INTERVAL_MS * 1000;
		it.it_value = it.it_interval;
	}
	setitimer(ITIMER_REAL, &it, NULL);
}

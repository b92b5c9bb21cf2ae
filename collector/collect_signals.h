/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * collect_signals.h - what fxt-collect's signal handlers set, and the calls
 * that install them, block them and time the waits (collect_signals.c).
 */
#ifndef COLLECT_SIGNALS_H
#define COLLECT_SIGNALS_H

#include <signal.h>
#include <stdbool.h>

struct session;

/*
 * While a write() to the output, the open() of a FIFO or the wait for
 * COMMAND after -d is in progress, SIGALRM interrupts it this often, so
 * that a write stuck on a full pipe, an open() waiting for a FIFO's reader
 * or a waitpid() still notices a stop signal handled just before it began
 * (and a write, the -d deadline and COMMAND's exit).
 */
#define KICK_INTERVAL_MS	100

/*
 * What the handlers set (collect_signals.c). Variables, not accessors: a
 * volatile sig_atomic_t is what a handler may write, and what the rest of
 * fxt-collect reads (and, for the last two, clears) where it decides; a
 * function around each would hide nothing and add a call.
 */
extern volatile sig_atomic_t stop_signals;	/* SIGINT/SIGTERM received */
extern volatile sig_atomic_t last_stop_signal;
extern volatile sig_atomic_t signal_to_forward;	/* sent by kill(), not a tty */
extern volatile sig_atomic_t child_changed;

void setup_signals(struct session *s);
void block_stop_signals(bool block);
sigset_t wait_mask(const struct session *s);
void kick_timer(bool on);
void restore_signals_for_command(const struct session *s);

#endif /* COLLECT_SIGNALS_H */

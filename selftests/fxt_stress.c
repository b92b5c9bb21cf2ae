// SPDX-License-Identifier: GPL-2.0
/*
 * fxt-stress - a scheduler storm for the ring stress tests
 *
 * N threads per online CPU ("stress-0", "stress-1", ...), thread i pinned to
 * CPU i % ncpus, pass a few tokens around: a thread blocks on its own
 * semaphore (a futex), and when it gets a token it spins a little and posts
 * the next thread's semaphore. Thread i+1 runs on another CPU, so most
 * handoffs are cross-CPU wakeups. Every few handoffs a thread yields (a
 * switch out in the running state) or sleeps briefly (a blocking switch and
 * a timer wakeup), so the trace has every kind of switch, not only one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cpu_pin.h"
#include "time_left.h"

enum pattern { PATTERN_RING, PATTERN_RANDOM };

struct worker {
	int idx;
	int cpu;
	sem_t sem;
	unsigned int seed;
	unsigned long handoffs;
	pthread_t thread;
};

static struct worker *workers;
static int nworkers;
static enum pattern pattern = PATTERN_RING;
static long pause_us;
static int stop;

static void die(const char *what, int err)
{
	fprintf(stderr, "fxt-stress: %s: %s\n", what, strerror(err));
	exit(1);
}

/*
 * Whether @cpu is online now (1 if sysfs cannot tell). A worker that
 * starts while hotplug_test has its CPU down runs where the kernel puts
 * it, as a worker pinned before would be moved off (EINVAL from
 * sched_setaffinity() for that CPU).
 */
static int cpu_online(int cpu)
{
	char path[64], c = '1';
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	f = fopen(path, "r");
	if (!f)
		return 1;
	if (fread(&c, 1, 1, f) != 1)
		c = '1';
	fclose(f);
	return c != '0';
}

static void sleep_us(long us)
{
	struct timespec ts = { .tv_sec = us / 1000000,
			       .tv_nsec = (us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int next_of(struct worker *w)
{
	int n;

	if (pattern == PATTERN_RING || nworkers < 2)
		return (w->idx + 1) % nworkers;
	/* Anyone but ourselves: posting our own semaphore is no wakeup. */
	n = rand_r(&w->seed) % (nworkers - 1);
	return n >= w->idx ? n + 1 : n;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	char name[16];
	volatile int spin;

	snprintf(name, sizeof(name), "stress-%d", w->idx);
	prctl(PR_SET_NAME, name);
	if (pin_to_cpu(0, w->cpu) &&
	    (errno != EINVAL || cpu_online(w->cpu)))
		die("sched_setaffinity", errno);

	for (;;) {
		while (sem_wait(&w->sem) && errno == EINTR)
			;
		if (__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
			break;
		/* Some work, so a wakeup on this CPU can preempt us. */
		for (spin = 0; spin < 2000; spin++)
			;
		w->handoffs++;
		if (w->handoffs % 8 == 0)
			sched_yield();
		if (w->handoffs % 16 == 0)
			sleep_us(50);
		if (pause_us)
			sleep_us(pause_us);
		sem_post(&workers[next_of(w)].sem);
	}
	return NULL;
}

/*
 * The run's @seconds, or less if SIGUSR1 comes (blocked in every thread:
 * the workers inherit the mask), so that a test needing the load for a
 * time it cannot know beforehand can end it with exit status 0 and the
 * count.
 */
static void run_for(long seconds, const sigset_t *usr1)
{
	struct timespec end, left;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += seconds;
	while (time_left(&end, &left))
		if (sigtimedwait(usr1, NULL, &left) == SIGUSR1)
			return;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: fxt-stress [--threads-per-cpu N] [--seconds S] [--tokens T]\n"
"                  [--pattern ring|random] [--pause-us U]\n"
"\n"
"Start N threads per online CPU (default 50), named stress-0, stress-1, ...,\n"
"thread i pinned to CPU i %% CPUs, and pass T tokens (default 2 per CPU)\n"
"between them for S seconds (default 20; SIGUSR1 ends the run sooner): to\n"
"the next thread (ring, the default) or to a random one. Each handoff is a\n"
"semaphore post, so a wakeup and a blocking switch; every 8th also yields\n"
"and every 16th sleeps 50 us.\n"
"--pause-us sleeps U microseconds before every handoff, which caps the rate\n"
"at about T * 1000000 / U handoffs per second (a smaller trace).\n"
"Prints the number of handoffs at the end.\n"
"\n"
"EXAMPLES\n"
"  fxt-collect -b 64K -o stress.fxt -- fxt-stress --seconds 10\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "threads-per-cpu", required_argument, NULL, 'n' },
		{ "seconds", required_argument, NULL, 's' },
		{ "tokens", required_argument, NULL, 't' },
		{ "pattern", required_argument, NULL, 'p' },
		{ "pause-us", required_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ncpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	long per_cpu = 50, seconds = 20, tokens = -1;
	unsigned long total = 0;
	struct timespec t0, t1;
	sigset_t usr1;
	int i, opt, err;

	while ((opt = getopt_long(argc, argv, "n:s:t:p:u:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			per_cpu = cli_long("fxt-stress", "--threads-per-cpu", optarg, 1, 1000);
			break;
		case 's':
			seconds = cli_long("fxt-stress", "--seconds", optarg, 1, 3600);
			break;
		case 't':
			tokens = cli_long("fxt-stress", "--tokens", optarg, 1, 100000);
			break;
		case 'p':
			if (!strcmp(optarg, "ring")) {
				pattern = PATTERN_RING;
			} else if (!strcmp(optarg, "random")) {
				pattern = PATTERN_RANDOM;
			} else {
				fprintf(stderr, "fxt-stress: --pattern is ring or random, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'u':
			pause_us = cli_long("fxt-stress", "--pause-us", optarg, 0, 1000000);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	cli_no_operands("fxt-stress", argc, argv, optind);
	if (ncpus < 1)
		ncpus = 1;
	nworkers = (int)(per_cpu * ncpus);
	if (tokens < 0)
		tokens = 2L * ncpus;
	if (tokens > nworkers)
		tokens = nworkers;

	prctl(PR_SET_NAME, "fxt-stress");
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	err = pthread_sigmask(SIG_BLOCK, &usr1, NULL);
	if (err)
		die("pthread_sigmask", err);
	workers = calloc(nworkers, sizeof(*workers));
	if (!workers)
		die("calloc", ENOMEM);
	for (i = 0; i < nworkers; i++) {
		workers[i].idx = i;
		workers[i].cpu = i % ncpus;
		workers[i].seed = (unsigned int)i * 2654435761u + 1;
		if (sem_init(&workers[i].sem, 0, 0))
			die("sem_init", errno);
	}
	for (i = 0; i < nworkers; i++) {
		err = pthread_create(&workers[i].thread, NULL, work, &workers[i]);
		if (err)
			die("pthread_create", err);
	}

	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* Spread the tokens so every CPU has work from the start. */
	for (i = 0; i < tokens; i++)
		sem_post(&workers[(long)i * nworkers / tokens].sem);
	run_for(seconds, &usr1);

	/* One extra post each: a blocked thread wakes, sees stop, exits. */
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < nworkers; i++)
		sem_post(&workers[i].sem);
	for (i = 0; i < nworkers; i++) {
		pthread_join(workers[i].thread, NULL);
		total += workers[i].handoffs;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);

	printf("fxt-stress: %d threads on %d CPUs, %ld tokens, %s, %.1f s, %lu handoffs\n",
	       nworkers, ncpus, tokens,
	       pattern == PATTERN_RING ? "ring" : "random",
	       (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
	       total);
	return 0;
}

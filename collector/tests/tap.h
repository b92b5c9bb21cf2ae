/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * tap.h - the smallest test harness that does what the kselftest harness
 * does for us: one "ok"/"not ok" line per test, EXPECT_* that keep going,
 * ASSERT_* that end the test, diagnostics as "# " lines.
 *
 * Test programs print unnumbered lines ("ok - name"); tests/run_tests.sh
 * numbers them, prints the plan, and adds the final "N passed, N failed".
 *
 *	TEST(addition) { EXPECT_EQ(1 + 1, 2); }
 *	int main(void) { RUN(addition); return tap_exit(); }
 */
#ifndef TAP_H
#define TAP_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int tap_current_failed;
static int tap_current_skipped;	/* tap_skip() printed the test's line */
static const char *tap_current_name;
static int tap_failed_tests;

#define TAP_FAIL_HERE(...) do {						\
		tap_current_failed = 1;					\
		printf("#   %s:%d: ", __FILE__, __LINE__);		\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	} while (0)

#define EXPECT(cond) do {						\
		if (!(cond))						\
			TAP_FAIL_HERE("expected: %s", #cond);		\
	} while (0)

#define EXPECT_EQ(a, b) do {						\
		uint64_t tap_a_ = (uint64_t)(a), tap_b_ = (uint64_t)(b); \
		if (tap_a_ != tap_b_)					\
			TAP_FAIL_HERE("%s == %s: %" PRIu64 " (0x%" PRIx64 ") != %" PRIu64 " (0x%" PRIx64 ")", \
				      #a, #b, tap_a_, tap_a_, tap_b_, tap_b_); \
	} while (0)

#define EXPECT_STREQ(a, b) do {						\
		const char *tap_a_ = (a), *tap_b_ = (b);		\
		if (!tap_a_ || !tap_b_ || strcmp(tap_a_, tap_b_))	\
			TAP_FAIL_HERE("%s == %s: \"%s\" != \"%s\"", #a, #b, \
				      tap_a_ ? tap_a_ : "(null)",	\
				      tap_b_ ? tap_b_ : "(null)");	\
	} while (0)

/* Does the text contain the substring? */
#define EXPECT_CONTAINS(text, sub) do {					\
		const char *tap_t_ = (text), *tap_s_ = (sub);		\
		if (!tap_t_ || !strstr(tap_t_, tap_s_))			\
			TAP_FAIL_HERE("\"%s\" does not contain \"%s\"",	\
				      tap_t_ ? tap_t_ : "(null)", tap_s_); \
	} while (0)

#define ASSERT(cond) do {						\
		if (!(cond)) {						\
			TAP_FAIL_HERE("required: %s", #cond);		\
			return;						\
		}							\
	} while (0)

#define TEST(name) static void test_##name(void)
#define RUN(name) tap_run(#name, test_##name)

__attribute__((unused))
static void tap_run(const char *name, void (*fn)(void))
{
	tap_current_failed = 0;
	tap_current_skipped = 0;
	tap_current_name = name;
	fn();
	tap_current_name = NULL;
	/* A test that skipped has its line already, unless it failed first. */
	if (tap_current_skipped && !tap_current_failed)
		return;
	printf("%s - %s\n", tap_current_failed ? "not ok" : "ok", name);
	fflush(stdout);
	tap_failed_tests += tap_current_failed;
}

/*
 * A test that cannot run here: reported as ok with a SKIP directive. The
 * running TEST skipping itself gets no second line from tap_run(); a part
 * of it skipped under another name does.
 */
__attribute__((unused))
static void tap_skip(const char *name, const char *reason)
{
	if (tap_current_name && !strcmp(name, tap_current_name))
		tap_current_skipped = 1;
	printf("ok - %s # SKIP %s\n", name, reason);
	fflush(stdout);
}

__attribute__((unused))
static int tap_exit(void)
{
	return tap_failed_tests ? 1 : 0;
}

#endif /* TAP_H */

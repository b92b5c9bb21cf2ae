// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_name_order.c - the newest-name-per-koid map (name_order.c): which
 * name is kept, when an entry is marked and unmarked, the walk over marked
 * entries by type, and that memory follows distinct koids, not records.
 * How it combines with the ring drain is in test_ring_drain.c.
 */
#include <errno.h>
#include <stdlib.h>

#include "name_order.h"
#include "tap.h"

static struct ring_name name(unsigned int type, uint64_t koid, uint64_t ts,
			     const char *text)
{
	struct ring_name n;

	memset(&n, 0, sizeof(n));
	n.obj_type = type;
	n.koid = koid;
	n.process = type == FXT_OBJ_TYPE_THREAD ? koid / 10 : 0;
	n.after_ts = ts;
	n.len = strlen(text);
	memcpy(n.name, text, n.len + 1);
	return n;
}

/* What a walk over the marked entries saw. */
struct seen {
	struct name_entry e[64];
	unsigned int n;
	int fail_at;		/* return -EIO on this call (1-based), 0: never */
};

static int see(void *ctx, const struct name_entry *e)
{
	struct seen *s = ctx;

	if (s->n < 64)
		s->e[s->n] = *e;
	s->n++;
	return (int)s->n == s->fail_at ? -EIO : 0;
}

static unsigned int take(struct name_order *no, unsigned int type,
			 struct seen *s)
{
	memset(s, 0, sizeof(*s));
	EXPECT_EQ(name_order_take_marked(no, type, see, s), 0);
	return s->n;
}

TEST(newer_names_replace_older_ones_are_marked)
{
	struct name_order no;
	struct ring_name n;
	struct seen s;

	name_order_init(&no);
	n = name(FXT_OBJ_TYPE_THREAD, 61, 300, "thr-050");
	EXPECT_EQ(name_order_note(&no, &n), 0);
	n = name(FXT_OBJ_TYPE_THREAD, 61, 100, "fxt-threads");	/* stale */
	EXPECT_EQ(name_order_note(&no, &n), 1);
	EXPECT_EQ(name_order_note(&no, &n), 1);		/* marked once */
	EXPECT_EQ(no.marked, 1);
	EXPECT_EQ(take(&no, FXT_OBJ_TYPE_PROCESS, &s), 0);
	ASSERT(take(&no, FXT_OBJ_TYPE_THREAD, &s) == 1);
	EXPECT_STREQ(s.e[0].name, "thr-050");
	EXPECT_EQ(s.e[0].koid, 61);
	EXPECT_EQ(s.e[0].process, 6);
	EXPECT_EQ(s.e[0].after_ts, 300);
	EXPECT_EQ(no.marked, 0);
	EXPECT_EQ(take(&no, FXT_OBJ_TYPE_THREAD, &s), 0);	/* taken */

	n = name(FXT_OBJ_TYPE_THREAD, 61, 500, "thr-051");
	EXPECT_EQ(name_order_note(&no, &n), 0);
	EXPECT_EQ(take(&no, FXT_OBJ_TYPE_THREAD, &s), 0);
	EXPECT_EQ(no.count, 1);
	name_order_free(&no);
}

/* Equal after_ts: the later record (file order) wins, nothing is marked. */
TEST(ties_go_to_the_later_record)
{
	struct name_order no;
	struct ring_name n;
	struct seen s;

	name_order_init(&no);
	n = name(FXT_OBJ_TYPE_THREAD, 7, 100, "a");
	EXPECT_EQ(name_order_note(&no, &n), 0);
	n = name(FXT_OBJ_TYPE_THREAD, 7, 100, "b");
	EXPECT_EQ(name_order_note(&no, &n), 0);
	EXPECT_EQ(no.marked, 0);
	n = name(FXT_OBJ_TYPE_THREAD, 7, 99, "stale");
	EXPECT_EQ(name_order_note(&no, &n), 1);
	ASSERT(take(&no, FXT_OBJ_TYPE_THREAD, &s) == 1);
	EXPECT_STREQ(s.e[0].name, "b");
	name_order_free(&no);
}

/*
 * A newer record after a stale one is itself last in the file: the mark
 * goes away and nothing is written again.
 */
TEST(a_newer_record_clears_the_mark)
{
	struct name_order no;
	struct ring_name n;
	struct seen s;

	name_order_init(&no);
	n = name(FXT_OBJ_TYPE_THREAD, 7, 300, "c");
	name_order_note(&no, &n);
	n = name(FXT_OBJ_TYPE_THREAD, 7, 200, "b");
	EXPECT_EQ(name_order_note(&no, &n), 1);
	n = name(FXT_OBJ_TYPE_THREAD, 7, 400, "d");
	EXPECT_EQ(name_order_note(&no, &n), 0);
	EXPECT_EQ(no.marked, 0);
	EXPECT_EQ(take(&no, FXT_OBJ_TYPE_THREAD, &s), 0);
	name_order_free(&no);
}

/* A process and a thread with the same koid (a leader) are two entries. */
TEST(processes_and_threads_are_apart)
{
	struct name_order no;
	struct ring_name n;
	struct seen s;

	name_order_init(&no);
	n = name(FXT_OBJ_TYPE_PROCESS, 60, 300, "proc-new");
	EXPECT_EQ(name_order_note(&no, &n), 0);
	n = name(FXT_OBJ_TYPE_THREAD, 60, 100, "thread-old");
	EXPECT_EQ(name_order_note(&no, &n), 0);		/* not stale */
	n = name(FXT_OBJ_TYPE_PROCESS, 60, 200, "proc-old");
	EXPECT_EQ(name_order_note(&no, &n), 1);
	EXPECT_EQ(no.count, 2);
	EXPECT_EQ(take(&no, FXT_OBJ_TYPE_THREAD, &s), 0);
	EXPECT_EQ(no.marked, 1);	/* the other type's mark stays */
	ASSERT(take(&no, FXT_OBJ_TYPE_PROCESS, &s) == 1);
	EXPECT_STREQ(s.e[0].name, "proc-new");
	EXPECT_EQ(s.e[0].process, 0);

	n = name(3, 60, 500, "what");
	EXPECT_EQ(name_order_note(&no, &n), (uint64_t)-EINVAL);
	EXPECT_EQ(no.count, 2);
	name_order_free(&no);
}

/* Empty and 15-byte names are kept exactly. */
TEST(names_of_every_length)
{
	static const char *const texts[] = { "", "x", "fifteen-bytes!!" };
	struct name_order no;
	struct ring_name n;
	struct seen s;
	unsigned int i;

	name_order_init(&no);
	for (i = 0; i < 3; i++) {
		n = name(FXT_OBJ_TYPE_THREAD, 100 + i, 50, texts[i]);
		name_order_note(&no, &n);
		n = name(FXT_OBJ_TYPE_THREAD, 100 + i, 10, "stale-name");
		EXPECT_EQ(name_order_note(&no, &n), 1);
	}
	ASSERT(take(&no, FXT_OBJ_TYPE_THREAD, &s) == 3);
	for (i = 0; i < 3; i++)
		EXPECT_STREQ(s.e[i].name, texts[s.e[i].koid - 100]);
	name_order_free(&no);
}

/* A walk that fails stops there; what it did not reach stays marked. */
TEST(a_failing_walk_leaves_the_rest_marked)
{
	struct name_order no;
	struct ring_name n;
	struct seen s;
	uint64_t k;

	name_order_init(&no);
	for (k = 1; k <= 5; k++) {
		n = name(FXT_OBJ_TYPE_THREAD, k, 50, "new");
		name_order_note(&no, &n);
		n = name(FXT_OBJ_TYPE_THREAD, k, 10, "old");
		name_order_note(&no, &n);
	}
	memset(&s, 0, sizeof(s));
	s.fail_at = 2;
	EXPECT_EQ(name_order_take_marked(&no, FXT_OBJ_TYPE_THREAD, see, &s),
		  (uint64_t)-EIO);
	EXPECT_EQ(s.n, 2);
	EXPECT_EQ(no.marked, 3);
	EXPECT_EQ(take(&no, FXT_OBJ_TYPE_THREAD, &s), 3);
	name_order_free(&no);
}

/*
 * Many koids, each named many times in shuffled time order: the map grows
 * with the koids only, and every koid ends with its newest name.
 */
TEST(memory_follows_koids_not_records)
{
	enum { KOIDS = 20000, NAMES = 6 };
	static const uint64_t order[NAMES] = { 3, 0, 5, 1, 4, 2 };
	struct name_order no;
	struct ring_name n;
	struct seen s;
	char text[32];
	uint64_t k, i;
	size_t cap_after_first = 0;
	unsigned int stale = 0, wrong = 0;

	name_order_init(&no);
	for (i = 0; i < NAMES; i++) {
		for (k = 1; k <= KOIDS; k++) {
			snprintf(text, RING_NAME_MAX + 1, "n%u-%u",
				 (unsigned int)k, (unsigned int)order[i]);
			n = name(FXT_OBJ_TYPE_THREAD, k * 7919, 1000 * order[i] + k, text);
			stale += name_order_note(&no, &n) == 1;
		}
		if (i == 0)
			cap_after_first = no.cap;
	}
	EXPECT_EQ(no.count, KOIDS);
	EXPECT_EQ(no.cap, cap_after_first);
	EXPECT(no.cap <= 4 * KOIDS);
	/* After 3, 0 is stale; 5 is newest, so 1, 4 and 2 are stale too. */
	EXPECT_EQ(stale, 4 * KOIDS);
	EXPECT_EQ(no.marked, KOIDS);
	for (k = 1; k <= KOIDS; k++) {
		n = name(FXT_OBJ_TYPE_THREAD, k * 7919, 0, "probe");
		/* A stale probe marks nothing new and does not replace. */
		if (name_order_note(&no, &n) != 1)
			wrong++;
	}
	EXPECT_EQ(wrong, 0);
	memset(&s, 0, sizeof(s));
	EXPECT_EQ(name_order_take_marked(&no, FXT_OBJ_TYPE_THREAD, see, &s), 0);
	EXPECT_EQ(s.n, KOIDS);
	for (i = 0; i < 64; i++) {
		snprintf(text, RING_NAME_MAX + 1, "n%u-5",
			 (unsigned int)(s.e[i].koid / 7919));
		EXPECT_STREQ(s.e[i].name, text);
	}
	name_order_free(&no);
	EXPECT(no.slots == NULL && no.cap == 0 && no.count == 0);
}

int main(void)
{
	RUN(newer_names_replace_older_ones_are_marked);
	RUN(ties_go_to_the_later_record);
	RUN(a_newer_record_clears_the_mark);
	RUN(processes_and_threads_are_apart);
	RUN(names_of_every_length);
	RUN(a_failing_walk_leaves_the_rest_marked);
	RUN(memory_follows_koids_not_records);
	return tap_exit();
}

// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * test_collector_parts.c - the pieces of fxt-collect that need no device:
 * option parsing, the tid set, /proc parsing (on a fake tree), the output
 * file's cut-back-to-last-record on write errors, and the metadata records
 * (preamble, kernel objects, drop markers) checked with the strict reader.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "archive_meta.h"
#include "collect_options.h"
#include "command_path.h"
#include "cpu_list.h"
#include "fxt_read.h"
#include "kernel_record_builders.h"
#include "proc_tasks.h"
#include "tap.h"
#include "tid_set.h"
#include "trace_output.h"

static char fake_proc[128];

TEST(buffer_sizes_accepted)
{
	static const struct {
		const char *text;
		uint64_t bytes;
	} ok[] = {
		{ "64K", 64 << 10 }, { "64k", 64 << 10 }, { "128KiB", 128 << 10 },
		{ "1M", 1 << 20 }, { "4m", 4 << 20 }, { "4MB", 4 << 20 },
		{ "256M", 256 << 20 }, { "1048576", 1 << 20 }, { "65536", 65536 },
	};
	char why[256];
	uint64_t bytes;
	unsigned int i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		bytes = 0;
		EXPECT_EQ(parse_buffer_size(ok[i].text, &bytes, why, sizeof(why)), 0);
		EXPECT_EQ(bytes, ok[i].bytes);
	}
}

TEST(buffer_sizes_refused_with_a_reason)
{
	static const char *const bad[] = {
		"100K", "32K", "512M", "1G", "0", "", "abc", "-4M", "4X", "4MM",
		"99999999999999999999M", "18446744073709551615K", "3M", "65535",
		" 64K", "+64K", "\t64K", " -64K",
	};
	char why[256];
	uint64_t bytes = 7;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		EXPECT_EQ(parse_buffer_size(bad[i], &bytes, why, sizeof(why)),
			  (uint64_t)-EINVAL);
		EXPECT(strstr(why, "power of two") || strstr(why, "not a size"));
	}
	EXPECT_EQ(bytes, 7);
	parse_buffer_size("100K", &bytes, why, sizeof(why));
	EXPECT_CONTAINS(why, "from 64K to 256M");
	parse_buffer_size(" -64K", &bytes, why, sizeof(why));
	EXPECT_CONTAINS(why, "' -64K' is not a size: give digits");
}

TEST(durations)
{
	char why[256];
	uint64_t ms = 0;

	EXPECT(parse_duration("5", &ms, why, sizeof(why)) == 0 && ms == 5000);
	EXPECT(parse_duration("0.5", &ms, why, sizeof(why)) == 0 && ms == 500);
	EXPECT(parse_duration("0.0001", &ms, why, sizeof(why)) == 0 && ms == 1);
	EXPECT(parse_duration(".5", &ms, why, sizeof(why)) == 0 && ms == 500);
	EXPECT(parse_duration("5.", &ms, why, sizeof(why)) == 0 && ms == 5000);
	EXPECT(parse_duration("0", &ms, why, sizeof(why)) == -EINVAL);
	EXPECT(parse_duration("-1", &ms, why, sizeof(why)) == -EINVAL);
	EXPECT(parse_duration("inf", &ms, why, sizeof(why)) == -EINVAL);
	EXPECT(parse_duration("nan", &ms, why, sizeof(why)) == -EINVAL);
	EXPECT(parse_duration("5s", &ms, why, sizeof(why)) == -EINVAL);
	EXPECT(parse_duration("1e30", &ms, why, sizeof(why)) == -EINVAL);
	EXPECT_CONTAINS(why, "seconds");
}

/* Each refusal names the constraint that was broken. */
TEST(durations_refused_with_the_limit_broken)
{
	static const struct {
		const char *arg;
		const char *why;	/* part of the message */
	} refused[] = {
		{ "31622401", "'31622401' seconds is longer than 366 days (31622400 s), the most -d accepts" },
		{ "99999999999999999999999999", "366 days" },
		{ "1e30", "'1e30' is not a number of seconds" },
		{ "inf", "'inf' is not a number of seconds" },
		{ " 5", "' 5' is not a number of seconds" },
		{ "0x10", "'0x10' is not a number of seconds" },
		{ "1e3", "'1e3' is not a number of seconds" },
		{ "+5", "'+5' is not a number of seconds" },
		{ "", "'' is not a number of seconds" },
		{ ".", "'.' is not a number of seconds" },
		{ "1.2.3", "'1.2.3' is not a number of seconds" },
		{ "-", "'-' is not a number of seconds" },
		{ "-0.5", "'-0.5': the duration must be more than 0 seconds" },
		{ "0.000", "'0.000': the duration must be more than 0 seconds" },
		{ "0", "'0': the duration must be more than 0 seconds" },
		{ "-1", "more than 0 seconds" },
		{ "5s", "'5s' is not a number of seconds" },
		{ "nan", "is not a number of seconds" },
	};
	unsigned int i;
	char why[256];
	uint64_t ms = 7;

	EXPECT_EQ(parse_duration("31622400", &ms, why, sizeof(why)), 0);
	EXPECT_EQ(ms, 31622400ULL * 1000);	/* 366 days: the longest */
	ms = 7;
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		why[0] = '\0';
		EXPECT_EQ(parse_duration(refused[i].arg, &ms, why, sizeof(why)),
			  (uint64_t)-EINVAL);
		EXPECT_CONTAINS(why, refused[i].why);
	}
	EXPECT_EQ(ms, 7);
	/* Below what a double holds: tiny, not 0 (as 0.0001 is 1 ms). */
	{
		char tiny[512], long_why[1024];

		memset(tiny, '0', sizeof(tiny));
		tiny[0] = '-';
		tiny[2] = '.';
		tiny[sizeof(tiny) - 2] = '1';
		tiny[sizeof(tiny) - 1] = '\0';
		EXPECT_EQ(parse_duration(tiny, &ms, long_why, sizeof(long_why)),
			  (uint64_t)-EINVAL);
		EXPECT_CONTAINS(long_why, "must be more than 0 seconds");
		EXPECT(parse_duration(tiny + 1, &ms, why, sizeof(why)) == 0 && ms == 1);
	}
}

/* getopt keeps state between calls: optind = 0 makes glibc start over. */
static enum collect_parse_result parse(struct collect_options *o, int argc,
				       char **argv)
{
	optind = 0;
	return collect_parse_args(argc, argv, o);
}

TEST(command_line)
{
	char *full[] = { "fxt-collect", "-o", "x.fxt", "-d", "2.5", "-b", "1M",
			 "-q", "-D", "/dev/other", "--", "make", "-j2", NULL };
	char *bare[] = { "fxt-collect", NULL };
	char *cmd[] = { "fxt-collect", "--output=-", "sleep", "-x", NULL };
	char *wrong[] = { "fxt-collect", "-b", "3M", NULL };
	struct collect_options o;

	EXPECT_EQ(parse(&o, 13, full), COLLECT_PARSE_OK);
	EXPECT_STREQ(o.output, "x.fxt");
	EXPECT_EQ(o.duration_ms, 2500);
	EXPECT_EQ(o.buf_size, 1 << 20);
	EXPECT(o.quiet);
	EXPECT_STREQ(o.device, "/dev/other");
	EXPECT(o.command && !strcmp(o.command[0], "make") &&
	       !strcmp(o.command[1], "-j2") && !o.command[2]);

	EXPECT_EQ(parse(&o, 1, bare), COLLECT_PARSE_OK);
	EXPECT_STREQ(o.output, COLLECT_DEFAULT_OUTPUT);
	EXPECT_STREQ(o.device, "/dev/fxtrace");
	EXPECT_EQ(o.buf_size, 0);
	EXPECT_EQ(o.duration_ms, 0);
	EXPECT(!o.command);

	/* COMMAND's own options are not ours, even without "--". */
	EXPECT_EQ(parse(&o, 4, cmd), COLLECT_PARSE_OK);
	EXPECT_STREQ(o.output, "-");
	EXPECT(o.command && !strcmp(o.command[1], "-x"));

	EXPECT_EQ(parse(&o, 3, wrong), COLLECT_PARSE_USAGE);
}

TEST(tid_set)
{
	struct tid_set set;
	uint64_t *list, x = 12345;
	long n, i;

	tid_set_init(&set);
	EXPECT(!tid_set_contains(&set, 0));
	EXPECT_EQ(tid_set_add(&set, 0), 1);
	EXPECT_EQ(tid_set_add(&set, 0), 0);
	EXPECT(tid_set_contains(&set, 0));
	for (i = 0; i < 100000; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		tid_set_add(&set, 1 + (x >> 48));	/* many repeats */
	}
	EXPECT_EQ(tid_set_add(&set, UINT64_MAX), 1);
	n = tid_set_sorted(&set, &list);
	ASSERT(n > 1000);
	EXPECT_EQ((size_t)n, set.count);
	EXPECT_EQ(list[0], 0);
	EXPECT_EQ(list[n - 1], UINT64_MAX);
	for (i = 1; i < n; i++)
		EXPECT(list[i - 1] < list[i]);
	for (i = 0; i < n; i++)
		EXPECT(tid_set_contains(&set, list[i]));
	free(list);
	tid_set_free(&set);
	n = tid_set_sorted(&set, &list);
	EXPECT_EQ(n, 0);
	free(list);
}

/* A file of @mode holding @text in the directory @dir. */
static void put_mode_file(const char *dir, const char *name, mode_t mode,
			  const char *text)
{
	char path[600];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) ||
	    close(fd) || chmod(path, mode))
		TAP_FAIL_HERE("making %s: %s", path, strerror(errno));
}

/* command_path_check() without the interpreter's name. */
static int lookup(const char *name, const char *path)
{
	char interp[256];

	return command_path_check(name, path, interp, sizeof(interp));
}

/*
 * execvp()'s lookup, as fxt-collect asks it before tracing: found, not
 * found (ENOENT), found but not executable (EACCES), through PATH (an
 * empty entry being the current directory) or as a path; errors that end
 * execvp()'s search (ELOOP, ENAMETOOLONG) end it here too; a script's
 * interpreter. Run as root, a file with no x bit at all is still not
 * executable. Skipped where the temporary directory is mounted noexec.
 */
TEST(command_lookup_before_tracing)
{
	char dir[300], a[400], b[400], loop[400], path[1200], interp[256];
	char file[600];
	char cwd[256], longname[NAME_MAX + 2];
	const char *tmpdir = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/fxt-cmdpath.XXXXXX",
		 tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(dir)) {
		TAP_FAIL_HERE("mkdtemp %s: %s", dir, strerror(errno));
		return;
	}
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	snprintf(loop, sizeof(loop), "%s/loop", dir);
	if (mkdir(a, 0755) || mkdir(b, 0755) || mkdir(loop, 0755))
		TAP_FAIL_HERE("mkdir: %s", strerror(errno));
	put_mode_file(a, "tool", 0644, "");	/* found first, not runnable */
	put_mode_file(b, "tool", 0755, "");
	snprintf(path, sizeof(path), "%s/tool", b);
	if (access(path, X_OK)) {
		tap_skip("command_lookup_before_tracing",
			 "the temporary directory does not allow exec (TMPDIR)");
		goto out;
	}
	put_mode_file(a, "data.fxt", 0644, "");
	put_mode_file(b, "noshell", 0755, "#!/nonexistent/sh -e\nexit 0\n");
	put_mode_file(b, "cat-script", 0755, "#! /bin/cat\nhello\n");
	put_mode_file(b, "bare", 0755, "#!\necho\n");
	put_mode_file(b, "plain", 0755, "echo no #! line\n");
	snprintf(path, sizeof(path), "#!%s/tool\n", a);
	put_mode_file(b, "noexec-interp", 0755, path);
	snprintf(path, sizeof(path), "%s/tool", loop);
	if (symlink(path, path))	/* a link to itself: ELOOP */
		TAP_FAIL_HERE("symlink: %s", strerror(errno));
	if (mkdir(strcat(strcpy(path, b), "/adir"), 0755))
		TAP_FAIL_HERE("mkdir: %s", strerror(errno));
	snprintf(path, sizeof(path), "%s:%s", a, b);

	EXPECT_EQ(lookup("tool", path), 0);	/* b's, like execvp */
	EXPECT_EQ(lookup("tool", a), EACCES);
	EXPECT_EQ(lookup("data.fxt", path), EACCES);
	EXPECT_EQ(lookup("adir", path), EACCES);
	EXPECT_EQ(lookup("missing", path), ENOENT);
	EXPECT_EQ(lookup("", path), ENOENT);
	EXPECT_EQ(lookup("sh", NULL), 0);	/* /bin:/usr/bin */
	EXPECT_EQ(lookup("sh", "/nonexistent"), ENOENT);
	/* ELOOP ends execvp()'s search: b's tool is never tried. */
	snprintf(path, sizeof(path), "%s:%s", loop, b);
	EXPECT_EQ(lookup("tool", path), ELOOP);
	/* So does a candidate too long for execve(), and a long name. */
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	EXPECT_EQ(lookup(longname, b), ENAMETOOLONG);
	/* A name with a '/' is not looked up in PATH. */
	snprintf(path, sizeof(path), "%s/tool", b);
	EXPECT_EQ(lookup(path, "/nonexistent"), 0);
	snprintf(path, sizeof(path), "%s/tool", a);
	EXPECT_EQ(lookup(path, b), EACCES);
	snprintf(path, sizeof(path), "%s/missing", b);
	EXPECT_EQ(lookup(path, b), ENOENT);
	snprintf(path, sizeof(path), "%s/tool/x", b);
	EXPECT_EQ(lookup(path, b), ENOTDIR);
	snprintf(path, sizeof(path), "%s/tool", loop);
	EXPECT_EQ(lookup(path, b), ELOOP);
	/* Scripts: the interpreter on the #! line must exist and run. */
	EXPECT_EQ(command_path_check("noshell", b, interp, sizeof(interp)),
		  ENOENT);
	EXPECT(!strcmp(interp, "/nonexistent/sh"));
	EXPECT_EQ(command_path_check("noexec-interp", b, interp,
				     sizeof(interp)), EACCES);
	snprintf(path, sizeof(path), "%s/tool", a);
	EXPECT(!strcmp(interp, path));
	EXPECT_EQ(command_path_check("cat-script", b, interp, sizeof(interp)),
		  0);
	EXPECT(!strcmp(interp, ""));
	EXPECT_EQ(lookup("bare", b), 0);	/* execvp() runs it with sh */
	EXPECT_EQ(lookup("plain", b), 0);
	/*
	 * Each error keeps the interpreter of the entry that gave it: an
	 * interpreter not executable (EACCES, the answer) in one entry, one
	 * missing (ENOENT) in the other, in either order.
	 */
	snprintf(path, sizeof(path), "#!%s/tool\n", a);
	put_mode_file(a, "mixed", 0755, path);
	put_mode_file(b, "mixed", 0755, "#!/nonexistent/sh\n");
	snprintf(file, sizeof(file), "%s/tool", a);
	snprintf(path, sizeof(path), "%s:%s", a, b);
	EXPECT_EQ(command_path_check("mixed", path, interp, sizeof(interp)),
		  EACCES);
	EXPECT(!strcmp(interp, file));
	snprintf(path, sizeof(path), "%s:%s", b, a);
	EXPECT_EQ(command_path_check("mixed", path, interp, sizeof(interp)),
		  EACCES);
	EXPECT(!strcmp(interp, file));
	/* The answer EACCES from a later entry: no interpreter named. */
	put_mode_file(a, "noshell", 0644, "exit 0\n");
	snprintf(path, sizeof(path), "%s:%s", b, a);
	EXPECT_EQ(command_path_check("noshell", path, interp, sizeof(interp)),
		  EACCES);
	EXPECT(!strcmp(interp, ""));
	/* A script found later in PATH than a broken one is the answer. */
	put_mode_file(a, "noshell", 0755, "exit 0\n");
	snprintf(path, sizeof(path), "%s:%s", b, a);
	EXPECT_EQ(command_path_check("noshell", path, interp, sizeof(interp)),
		  0);
	EXPECT(!strcmp(interp, ""));
	/* An empty PATH entry (leading, inner, trailing) is the cwd. */
	if (!getcwd(cwd, sizeof(cwd)) || chdir(b))
		TAP_FAIL_HERE("chdir: %s", strerror(errno));
	EXPECT_EQ(lookup("tool", ":/nonexistent"), 0);
	EXPECT_EQ(lookup("tool", "/nonexistent::/x"), 0);
	EXPECT_EQ(lookup("tool", "/nonexistent:"), 0);
	EXPECT_EQ(lookup("tool", "/nonexistent"), ENOENT);
	EXPECT_EQ(lookup("./tool", "/nonexistent"), 0);
	if (chdir(cwd))
		TAP_FAIL_HERE("chdir back: %s", strerror(errno));
out:
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	if (system(path))
		TAP_FAIL_HERE("%s failed", path);
}

static void put_file(const char *rel, const char *text)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", fake_proc, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		if (write(fd, text, strlen(text)) < 0)
			printf("# write %s: %s\n", path, strerror(errno));
		close(fd);
	}
}

static void put_dir(const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", fake_proc, rel);
	mkdir(path, 0755);
}

#define STATUS(name, tgid) \
	"Name:\t" name "\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t" #tgid \
	"\nNgid:\t0\nPid:\t1\nPPid:\t0\n"

/*
 * /proc as the collector sees it: process 100 ("foo") with threads 100 and
 * 101 (a name with an escaped newline and backslash), process 200 that
 * vanished mid-walk (no status files), a non-numeric entry.
 */
static void build_fake_proc(void)
{
	snprintf(fake_proc, sizeof(fake_proc), "/tmp/fxt-fake-proc.%d", (int)getpid());
	put_dir("");
	put_dir("self");
	put_dir("100");
	put_dir("100/task");
	put_dir("100/task/100");
	put_dir("100/task/101");
	put_dir("101");
	put_dir("200");
	put_dir("200/task");
	put_dir("200/task/200");
	put_file("100/status", STATUS("foo", 100));
	put_file("100/task/100/status", STATUS("foo", 100));
	put_file("100/task/101/status", STATUS("bar\\nbaz\\\\q", 100));
	put_file("101/status", STATUS("bar\\nbaz\\\\q", 100));
}

struct visit {
	uint64_t tids[8];
	char names[8][TASK_NAME_MAX];
	unsigned int n;
};

static int visit_task(void *ctx, const struct task_info *task)
{
	struct visit *v = ctx;

	if (v->n < 8) {
		v->tids[v->n] = task->tid;
		memcpy(v->names[v->n], task->name, TASK_NAME_MAX);
		v->n++;
	}
	return 0;
}

TEST(proc_status_parsing)
{
	struct task_info t;

	EXPECT_EQ(proc_parse_status(STATUS("kworker/u8:1-events", 77), &t), 0);
	EXPECT_STREQ(t.name, "kworker/u8:1-events");
	EXPECT_EQ(t.tgid, 77);
	EXPECT_EQ(proc_parse_status(STATUS("a\\042b\\tc", 1), &t), 0);
	EXPECT_STREQ(t.name, "a\"b\tc");
	EXPECT_EQ(proc_parse_status("Name:\tx\n", &t), (uint64_t)-EINVAL);
	EXPECT_EQ(proc_parse_status("Tgid:\t5\n", &t), (uint64_t)-EINVAL);
	EXPECT_EQ(proc_parse_status("Name:\tx\nTgid:\tfive\n", &t), (uint64_t)-EINVAL);
	EXPECT_EQ(proc_parse_status("", &t), (uint64_t)-EINVAL);
}

TEST(proc_walk_on_a_fake_tree)
{
	struct visit v = { .n = 0 };
	struct task_info t;

	EXPECT_EQ(proc_for_each_task(fake_proc, visit_task, &v), 0);
	ASSERT(v.n == 2);
	EXPECT_EQ(v.tids[0], 100);	/* the leader first */
	EXPECT_STREQ(v.names[0], "foo");
	EXPECT_EQ(v.tids[1], 101);
	EXPECT_STREQ(v.names[1], "bar\nbaz\\q");
	EXPECT_EQ(proc_read_task(fake_proc, 101, &t), 0);
	EXPECT_EQ(t.tgid, 100);
	EXPECT_EQ(proc_read_task(fake_proc, 999, &t), (uint64_t)-ENOENT);
	EXPECT_EQ(proc_for_each_task("/nonexistent/proc", visit_task, &v),
		  (uint64_t)-ENOENT);
}

TEST(proc_on_the_real_proc)
{
	struct task_info t;
	char comm[64] = "";
	FILE *f = fopen("/proc/self/comm", "r");

	ASSERT(f);
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	EXPECT_EQ(proc_read_task("/proc", (uint64_t)getpid(), &t), 0);
	EXPECT_STREQ(t.name, comm);
	EXPECT_EQ(t.tgid, (uint64_t)getpid());
}

/* Decode @w strictly into @recs (up to @max). Return the count or -1. */
static int decode(const struct fxt_writer *w, struct fxt_record *recs, int max)
{
	struct fxt_reader *r = fxt_reader_new(fxt_writer_data(w),
					      fxt_writer_bytes(w), FXT_READ_STRICT);
	int n = 0, ret;

	while (n < max && (ret = fxt_reader_next(r, &recs[n])) > 0)
		n++;
	if (n < max && ret < 0) {
		printf("#   offset %zu: %s\n", fxt_reader_error(r)->offset,
		       fxt_reader_error(r)->message);
		n = -1;
	}
	fxt_reader_free(r);
	return n;
}

/*
 * Records in the preamble: magic, provider info, provider section,
 * initialization, one String per kernel index (1 .. FXTRACE_STR_COUNT - 1)
 * and the collector's two. Counted from the ABI, so a new kernel string
 * does not silently shift every test below.
 */
#define PREAMBLE_RECORDS	(4 + (FXTRACE_STR_COUNT - 1) + 3)

TEST(preamble_defines_the_kernel_strings)
{
	static const struct {
		uint16_t index;
		const char *text;
	} want[] = {
		{ FXTRACE_STR_INCOMING_WEIGHT, "incoming_weight" },
		{ FXTRACE_STR_OUTGOING_WEIGHT, "outgoing_weight" },
		{ FXTRACE_STR_WEIGHT, "weight" },
		{ FXTRACE_STR_WAKER, "waker" },
		{ FXTRACE_STR_LINUX_STATE, "linux_state" },
		{ FXTRACE_STR_PROCESS, "process" },
		{ FXTRACE_STR_FXTRACE, "fxtrace" },
		{ FXTRACE_STR_RECORDS_LOST, "records_lost" },
		{ FXTRACE_STR_CPU, "cpu" },
		{ FXTRACE_STR_NEW_TASK, "new_task" },
		{ ARCHIVE_STR_CATEGORY, "fxtrace" },
		{ ARCHIVE_STR_RECORDS_DROPPED, "records_dropped" },
		{ ARCHIVE_STR_BYTES_SKIPPED, "bytes_skipped" },
	};
	struct fxt_record recs[32];
	struct fxt_writer w;
	unsigned int i, found;
	int n, k;

	fxt_writer_init_dynamic(&w);
	ASSERT(archive_write_preamble(&w) == 0);
	n = decode(&w, recs, 32);
	ASSERT(n == PREAMBLE_RECORDS);
	EXPECT_EQ(sizeof(want) / sizeof(want[0]), PREAMBLE_RECORDS - 4);
	EXPECT_EQ(recs[0].header, FXT_MAGIC_RECORD);
	EXPECT_EQ(recs[1].kind, FXT_META_PROVIDER_INFO);
	EXPECT_EQ(recs[1].meta.provider_id, 1);
	EXPECT(fxt_str_eq(&recs[1].meta.name, "fxtrace"));
	EXPECT_EQ(recs[2].kind, FXT_META_PROVIDER_SECTION);
	EXPECT_EQ(recs[2].meta.provider_id, 1);
	EXPECT_EQ(recs[3].type, FXT_RECORD_INITIALIZATION);
	EXPECT_EQ(recs[3].ticks_per_second, 1000000000);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		found = 0;
		for (k = 4; k < n; k++)
			if (recs[k].string.index == want[i].index)
				found += fxt_str_eq(&recs[k].string.value, want[i].text);
		if (found != 1)
			printf("#   string %u \"%s\" defined %u times\n",
			       want[i].index, want[i].text, found);
		EXPECT_EQ(found, 1);
	}
	fxt_writer_free(&w);
}

static const struct fxt_record *find_kobj(const struct fxt_record *recs, int n,
					  unsigned int type, uint64_t koid)
{
	const struct fxt_record *last = NULL;
	int i;

	for (i = 0; i < n; i++)
		if (recs[i].type == FXT_RECORD_KERNEL_OBJECT &&
		    recs[i].kobj.obj_type == type && recs[i].kobj.koid == koid)
			last = &recs[i];
	return last;
}

TEST(objects_for_every_task)
{
	static struct fxt_record recs[64];
	const struct fxt_record *p, *t;
	const struct fxt_arg *a;
	struct tid_set threads, processes;
	struct fxt_writer w;
	int n;

	tid_set_init(&threads);
	tid_set_init(&processes);
	fxt_writer_init_dynamic(&w);
	ASSERT(archive_write_preamble(&w) == 0);
	EXPECT_EQ(archive_write_all_tasks(&w, fake_proc, &threads, &processes), 0);
	n = decode(&w, recs, 64);
	ASSERT(n == PREAMBLE_RECORDS + 3);
	p = find_kobj(recs, n, FXT_OBJ_TYPE_PROCESS, 100);
	ASSERT(p);
	EXPECT(fxt_str_eq(&p->kobj.name, "foo"));
	t = find_kobj(recs, n, FXT_OBJ_TYPE_THREAD, 101);
	ASSERT(t);
	EXPECT(fxt_str_eq(&t->kobj.name, "bar\nbaz\\q"));
	a = fxt_record_find_arg(t, "process");
	EXPECT(a && a->type == FXT_ARG_KOID && a->v.koid == 100);
	EXPECT_EQ(a->name.index, FXTRACE_STR_PROCESS);
	EXPECT(find_kobj(recs, n, FXT_OBJ_TYPE_THREAD, 100));
	EXPECT(tid_set_contains(&threads, 100) && tid_set_contains(&threads, 101));
	EXPECT(tid_set_contains(&processes, 100) && processes.count == 1);
	tid_set_free(&threads);
	tid_set_free(&processes);
	fxt_writer_free(&w);
}

TEST(objects_for_threads_seen_in_the_trace)
{
	static struct fxt_record recs[64];
	struct tid_set seen, named, threads, processes;
	struct fxt_writer w;
	uint64_t missing = 99;
	int n;

	tid_set_init(&seen);
	tid_set_init(&named);
	tid_set_init(&threads);
	tid_set_init(&processes);
	tid_set_add(&seen, 0);		/* idle: never named */
	tid_set_add(&seen, 101);
	tid_set_add(&seen, 999);	/* exited, never named */
	tid_set_add(&seen, 998);	/* exited, named while alive */
	tid_set_add(&named, 998);
	fxt_writer_init_dynamic(&w);
	ASSERT(archive_write_preamble(&w) == 0);
	EXPECT_EQ(archive_write_seen_tasks(&w, fake_proc, &seen, &named, &missing), 0);
	EXPECT_EQ(missing, 1);
	n = decode(&w, recs, 64);
	ASSERT(n == PREAMBLE_RECORDS + 2);
	EXPECT(find_kobj(recs, n, FXT_OBJ_TYPE_PROCESS, 100));
	EXPECT(find_kobj(recs, n, FXT_OBJ_TYPE_THREAD, 101));
	EXPECT(!find_kobj(recs, n, FXT_OBJ_TYPE_THREAD, 0));

	/* First sight while tracing: thread and its process, once. */
	fxt_writer_reset(&w);
	ASSERT(archive_write_preamble(&w) == 0);
	EXPECT_EQ(archive_write_new_task(&w, fake_proc, 101, &threads, &processes), 1);
	EXPECT_EQ(archive_write_new_task(&w, fake_proc, 100, &threads, &processes), 1);
	EXPECT_EQ(archive_write_new_task(&w, fake_proc, 999, &threads, &processes), 0);
	n = decode(&w, recs, 64);
	/* process 100 once, threads 101 and 100 */
	ASSERT(n == PREAMBLE_RECORDS + 3);
	EXPECT(tid_set_contains(&threads, 101) && !tid_set_contains(&threads, 999));
	tid_set_free(&seen);
	tid_set_free(&named);
	tid_set_free(&threads);
	tid_set_free(&processes);
	fxt_writer_free(&w);
}

TEST(drop_marker_is_a_provider_event_and_a_counter)
{
	struct fxt_record recs[32];
	const struct fxt_record *mark, *ev;
	const struct fxt_arg *a;
	struct fxt_writer w;
	int n;

	fxt_writer_init_dynamic(&w);
	ASSERT(archive_write_preamble(&w) == 0);
	ASSERT(archive_write_drop_marker(&w, 4321, 4321, 3, 42, 777) == 0);
	n = decode(&w, recs, 32);
	ASSERT(n == PREAMBLE_RECORDS + 2);
	mark = &recs[PREAMBLE_RECORDS];
	ev = mark + 1;
	EXPECT_EQ(mark->type, FXT_RECORD_METADATA);
	EXPECT_EQ(mark->kind, FXT_META_PROVIDER_EVENT);
	EXPECT_EQ(mark->meta.provider_id, 1);
	EXPECT_EQ(mark->meta.event_id, FXT_PROVIDER_EVENT_BUFFER_FULL);
	EXPECT_EQ(ev->type, FXT_RECORD_EVENT);
	EXPECT_EQ(ev->event.type, FXT_EVENT_COUNTER);
	EXPECT_EQ(ev->event.data, 0);	/* counter id */
	EXPECT_EQ(ev->event.timestamp, 777);
	/* On the collector's own (named) process, never pid 0. */
	EXPECT(ev->event.thread.index == 0 &&
	       ev->event.thread.pid == 4321 &&
	       ev->event.thread.tid == 4321);
	EXPECT(fxt_str_eq(&ev->event.category, "fxtrace"));
	EXPECT(fxt_str_eq(&ev->event.name, "records_dropped"));
	a = fxt_record_find_arg(ev, "cpu3");
	EXPECT(a && a->type == FXT_ARG_INT64 && a->v.i64 == 42);
	fxt_writer_free(&w);
}

/*
 * A hole of skipped ring data: the kernel's loss-marker shape (counter id =
 * CPU, int64 "cpu"), named bytes_skipped: the amount, then 0 at its end.
 */
TEST(skip_marker_is_a_pair_of_counter_samples_spanning_the_hole)
{
	struct fxt_record recs[32];
	const struct fxt_record *ev;
	const struct fxt_arg *a;
	struct fxt_writer w;
	int n, k;

	fxt_writer_init_dynamic(&w);
	ASSERT(archive_write_preamble(&w) == 0);
	ASSERT(archive_write_skip_marker(&w, 4321, 4321, 3, 6544, 1000, 2000) == 0);
	n = decode(&w, recs, 32);
	ASSERT(n == PREAMBLE_RECORDS + 2);
	for (k = 0; k < 2; k++) {
		ev = &recs[PREAMBLE_RECORDS + k];
		EXPECT_EQ(ev->type, FXT_RECORD_EVENT);
		EXPECT_EQ(ev->event.type, FXT_EVENT_COUNTER);
		EXPECT_EQ(ev->event.data, 3);	/* counter id: the CPU */
		EXPECT_EQ(ev->event.timestamp, k ? 2000 : 1000);
		EXPECT(ev->event.thread.pid == 4321 && ev->event.thread.tid == 4321);
		EXPECT(fxt_str_eq(&ev->event.category, "fxtrace"));
		EXPECT(fxt_str_eq(&ev->event.name, "bytes_skipped"));
		EXPECT_EQ(ev->nargs, 1);
		a = fxt_record_find_arg(ev, "cpu");
		EXPECT(a && a->type == FXT_ARG_INT64 && a->v.i64 == (k ? 0 : 6544));
	}
	fxt_writer_free(&w);
}

/*
 * What a ring dropped after its last record: the module's own loss-marker
 * pair, word for word (kernel_record_builders.h builds the module's),
 * read back as records_lost samples N, then 0.
 */
TEST(lost_marker_is_the_modules_pair)
{
	uint64_t kernel[2 * KERNEL_RECORD_MAX_WORDS];
	struct fxt_record recs[32];
	const struct fxt_record *ev;
	const struct fxt_arg *a;
	struct fxt_writer w;
	size_t klen;
	int n, k;

	klen = kernel_loss_marker(kernel, 1200, 3, 7, 4321, 4322);
	klen += kernel_loss_marker(kernel + klen / 8, 1500, 3, 0, 4321, 4322);
	fxt_writer_init_dynamic(&w);
	ASSERT(archive_write_lost_marker(&w, 4321, 4322, 3, 7, 1200, 1500) == 0);
	EXPECT_EQ(fxt_writer_bytes(&w), 2 * 7 * 8);
	EXPECT(fxt_writer_bytes(&w) == klen &&
	       !memcmp(fxt_writer_data(&w), kernel, klen));
	fxt_writer_free(&w);

	fxt_writer_init_dynamic(&w);
	ASSERT(archive_write_preamble(&w) == 0);
	ASSERT(archive_write_lost_marker(&w, 4321, 4321, 3, 7, 1200, 1500) == 0);
	n = decode(&w, recs, 32);
	ASSERT(n == PREAMBLE_RECORDS + 2);
	for (k = 0; k < 2; k++) {
		ev = &recs[PREAMBLE_RECORDS + k];
		EXPECT_EQ(ev->event.type, FXT_EVENT_COUNTER);
		EXPECT_EQ(ev->event.data, 3);
		EXPECT_EQ(ev->event.timestamp, k ? 1500 : 1200);
		EXPECT(fxt_str_eq(&ev->event.category, "fxtrace"));
		EXPECT(fxt_str_eq(&ev->event.name, "records_lost"));
		a = fxt_record_find_arg(ev, "cpu");
		EXPECT(a && a->type == FXT_ARG_INT64 && a->v.i64 == (k ? 0 : 7));
	}
	fxt_writer_free(&w);
}

/* Many CPUs: at most 15 arguments per event, every CPU sampled once. */
TEST(drop_counters_for_many_cpus)
{
	struct drop_count counts[20];
	struct fxt_record recs[32];
	const struct fxt_record *ev;
	const struct fxt_arg *a;
	struct fxt_writer w;
	unsigned int i;
	int n;

	for (i = 0; i < 20; i++) {
		counts[i].cpu = 2 * i;
		counts[i].dropped = i;
	}
	fxt_writer_init_dynamic(&w);
	ASSERT(archive_write_preamble(&w) == 0);
	ASSERT(archive_write_drop_counters(&w, 9, 9, 55, counts, 20) == 0);
	n = decode(&w, recs, 32);
	ASSERT(n == PREAMBLE_RECORDS + 2);
	ev = &recs[PREAMBLE_RECORDS];
	EXPECT_EQ(ev[0].nargs, 15);
	EXPECT_EQ(ev[1].nargs, 5);
	a = fxt_record_find_arg(&ev[1], "cpu38");
	EXPECT(a && a->v.i64 == 19);
	a = fxt_record_find_arg(&ev[0], "cpu0");
	EXPECT(a && a->v.i64 == 0);
	EXPECT_EQ(ev[1].event.timestamp, 55);
	fxt_writer_free(&w);
}

/*
 * How many of the entries @cpus/@values @text lists, whole and in order,
 * or -1 if it is not such a list: the first k entries joined by ", ",
 * then nothing (k == n), ", ..." (0 < k < n) or "..." (k == 0 < n). *@more
 * says whether it ended in "...". A cut entry ("cpu7 1234" for 12345) is
 * not a list.
 */
static long listed_entries(const char *text, const unsigned int *cpus,
			   const uint64_t *values, size_t n, bool *more)
{
	char entry[CPU_LIST_ENTRY_MAX + 1];
	const char *p = text;
	size_t k, len;

	for (k = 0; k < n; k++) {
		len = (size_t)snprintf(entry, sizeof(entry), "%scpu%u %llu",
				       k ? ", " : "", cpus[k],
				       (unsigned long long)values[k]);
		if (strncmp(p, entry, len) || (p[len] && p[len] != ','))
			break;
		p += len;
	}
	*more = k < n;
	if (k == n)
		return *p ? -1 : (long)k;
	return strcmp(p, k ? CPU_LIST_MORE : "...") ? -1 : (long)k;
}

/* The common case, as the summary always printed it. */
TEST(cpu_list_a_few_cpus)
{
	char buf[1024];
	struct cpu_list l;

	cpu_list_init(&l, buf, sizeof(buf));
	EXPECT_STREQ(buf, "");
	cpu_list_add(&l, 0, 12);
	cpu_list_add(&l, 3, 4);
	EXPECT_STREQ(buf, "cpu0 12, cpu3 4");
	EXPECT(!l.cut);
	EXPECT_EQ(l.len, strlen(buf));

	/* Size 0 writes nothing, not even the NUL. */
	buf[0] = 'x';
	cpu_list_init(&l, buf, 0);
	cpu_list_add(&l, 0, 12);
	EXPECT_EQ(buf[0], 'x');
	EXPECT(l.cut);
}

/*
 * 128 CPUs, each with a large count: an entry is never cut. In the 1024
 * bytes the summary used to have, the first entries and then ", ..."; in
 * CPU_LIST_SIZE(128) bytes every CPU, even at the longest entries. Each
 * buffer is an exact malloc, so ASan sees a write past it.
 */
TEST(cpu_list_128_cpus_with_large_counts)
{
	static unsigned int cpus[128];
	static uint64_t values[128];
	struct cpu_list l;
	size_t size, i;
	bool more;
	char *buf;
	long k, prev = 0;

	for (i = 0; i < 128; i++) {
		cpus[i] = (unsigned int)i;
		values[i] = 123456789ULL + i * 1000003ULL;
	}
	buf = malloc(1024);
	ASSERT(buf);
	cpu_list_init(&l, buf, 1024);
	for (i = 0; i < 128; i++)
		cpu_list_add(&l, cpus[i], values[i]);
	k = listed_entries(buf, cpus, values, 128, &more);
	printf("#   1024 bytes: %ld of 128 listed, %zu bytes\n", k, strlen(buf));
	EXPECT(k > 0 && k < 128 && more && l.cut);
	EXPECT(strlen(buf) < 1024);
	free(buf);

	for (i = 0; i < 128; i++) {
		cpus[i] = 4294967295u - (unsigned int)i;
		values[i] = UINT64_MAX - i;
	}
	size = CPU_LIST_SIZE(128);
	buf = malloc(size);
	ASSERT(buf);
	cpu_list_init(&l, buf, size);
	for (i = 0; i < 128; i++)
		cpu_list_add(&l, cpus[i], values[i]);
	EXPECT_EQ(listed_entries(buf, cpus, values, 128, &more), 128);
	EXPECT(!more && !l.cut);
	EXPECT(strlen(buf) < size);
	free(buf);

	/* Every size up to all of them: whole entries, more as it grows. */
	for (size = 1; size <= CPU_LIST_SIZE(8); size++) {
		buf = malloc(size);
		ASSERT(buf);
		cpu_list_init(&l, buf, size);
		for (i = 0; i < 8; i++)
			cpu_list_add(&l, cpus[i], values[i]);
		EXPECT(strlen(buf) < size && l.len == strlen(buf));
		if (size >= sizeof(CPU_LIST_MORE)) {
			k = listed_entries(buf, cpus, values, 8, &more);
			if (k < prev || k < 0)
				printf("#   size %zu: \"%s\"\n", size, buf);
			EXPECT(k >= prev);
			EXPECT(more == l.cut);
			prev = k;
		} else {
			/* Too small for any entry: a part of "...", no digit. */
			EXPECT(!strncmp(buf, "...", strlen(buf)));
		}
		free(buf);
	}
	EXPECT_EQ(prev, 8);
}

static off_t file_size(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? -1 : st.st_size;
}

/*
 * After a commit, records of 2 and 3 words and the first 2 words of one of
 * 4 (the header's size field, bits [4..15]); the rest of each is filler.
 * A failed write leaves that. When records follow the commit (ring data),
 * the cut keeps the whole ones, read back from the file (before, it went
 * back to the commit and lost them too); when not (a marker pair, a batch
 * of names: all or nothing), it goes back to the commit.
 */
TEST(output_cut_back_to_the_last_whole_record)
{
	uint64_t recs[9] = { 2 << 4, 0, 3 << 4, 0, 0, 4 << 4, 0 };
	char path[256], buf[64];
	struct trace_output out;

	memset(buf, 'r', sizeof(buf));
	snprintf(path, sizeof(path), "%s/out.fxt", fake_proc);
	ASSERT(trace_output_open(&out, path) == 0);
	EXPECT(out.regular);
	EXPECT_EQ(trace_output_write(&out, buf, 64), 0);
	trace_output_commit(&out);
	/* all or nothing: back to the commit */
	EXPECT_EQ(trace_output_write(&out, recs, 7 * 8), 0);
	EXPECT_EQ(trace_output_rollback(&out), 0);
	EXPECT_EQ(file_size(out.fd), 64);
	EXPECT_EQ(out.offset, 64);
	/* records follow: the whole ones stay */
	trace_output_records_follow(&out);
	EXPECT_EQ(trace_output_write(&out, recs, 7 * 8), 0);
	EXPECT_EQ(file_size(out.fd), 120);
	EXPECT_EQ(trace_output_rollback(&out), 0);
	EXPECT_EQ(file_size(out.fd), 104);
	EXPECT_EQ(out.offset, 104);
	EXPECT_EQ(out.committed, 104);
	EXPECT_EQ(trace_output_write(&out, buf, 8), 0);	/* appends at 104 */
	EXPECT_EQ(file_size(out.fd), 112);
	/* Nothing whole since the commit: back to it. */
	trace_output_commit(&out);
	trace_output_records_follow(&out);
	EXPECT_EQ(trace_output_write(&out, &recs[5], 8), 0);
	EXPECT_EQ(trace_output_rollback(&out), 0);
	EXPECT_EQ(file_size(out.fd), 112);
	EXPECT_EQ(trace_output_close(&out), 0);
	EXPECT_EQ(trace_output_open(&out, "/nonexistent-dir/x.fxt"), (uint64_t)-ENOENT);
}

/*
 * The cut reads the records back in buffers of 1024 words: 1025 records
 * of one word after a commit, all whole (the failed write wrote nothing),
 * are all kept, the last one read by itself (8 bytes, exactly one word
 * before the end). Then one more, and half of a 2-word record: the cut
 * takes off only that half.
 */
TEST(output_cut_reads_whole_records_past_one_buffer)
{
	static uint64_t recs[1026];
	char path[256], buf[8] = { 0 };
	struct trace_output out;
	size_t i;

	for (i = 0; i < 1026; i++)
		recs[i] = 1 << 4;
	snprintf(path, sizeof(path), "%s/long.fxt", fake_proc);
	ASSERT(trace_output_open(&out, path) == 0);
	EXPECT_EQ(trace_output_write(&out, buf, 8), 0);
	trace_output_commit(&out);
	trace_output_records_follow(&out);
	EXPECT_EQ(trace_output_write(&out, recs, 1025 * 8), 0);
	EXPECT_EQ(trace_output_whole_end(out.fd, 8, 8 + 1025 * 8), 8 + 1025 * 8);
	EXPECT_EQ(trace_output_rollback(&out), 0);
	EXPECT_EQ(file_size(out.fd), 8 + 1025 * 8);
	EXPECT_EQ(out.committed, 8 + 1025 * 8);

	trace_output_records_follow(&out);
	recs[1] = 2 << 4;
	EXPECT_EQ(trace_output_write(&out, recs, 2 * 8), 0);
	EXPECT_EQ(trace_output_rollback(&out), 0);
	EXPECT_EQ(file_size(out.fd), 8 + 1026 * 8);
	EXPECT_EQ(trace_output_close(&out), 0);
}

/*
 * Nothing committed since the trace's start: an incomplete preamble is no
 * trace, so whole records of it are not kept: the cut is at the start.
 */
TEST(output_cut_inside_the_preamble_keeps_none_of_it)
{
	uint64_t recs[3] = { 2 << 4, 0, 2 << 4 };
	struct trace_output out;
	char path[256];

	snprintf(path, sizeof(path), "%s/pre.fxt", fake_proc);
	ASSERT(trace_output_open(&out, path) == 0);
	trace_output_records_follow(&out);
	EXPECT_EQ(trace_output_write(&out, recs, sizeof(recs)), 0);
	EXPECT_EQ(trace_output_rollback(&out), 0);
	EXPECT_EQ(file_size(out.fd), 0);
	EXPECT_EQ(trace_output_close(&out), 0);
}

/*
 * An existing file is replaced only once the trace begins: until then a
 * session that fails leaves it as it was (and a file it created is gone).
 */
TEST(output_replaces_a_file_only_once_the_trace_begins)
{
	char path[256], buf[64], none[TRACE_OUTPUT_NO_TRACE_SIZE], want[512];
	struct trace_output out;
	struct stat st;
	int fd;

	memset(buf, 'o', sizeof(buf));
	snprintf(path, sizeof(path), "%s/old.fxt", fake_proc);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ASSERT(fd >= 0);
	ASSERT(write(fd, buf, 64) == 64);
	close(fd);

	ASSERT(trace_output_open(&out, path) == 0);
	EXPECT(!out.created);
	EXPECT_EQ(file_size(out.fd), 64);		/* not truncated at open */
	trace_output_untouched(&out, none, sizeof(none));
	snprintf(want, sizeof(want), "no trace was written: %s was left as it was", path);
	EXPECT_STREQ(none, want);
	EXPECT_EQ(trace_output_close(&out), 0);
	EXPECT_EQ(stat(path, &st), 0);
	EXPECT_EQ(st.st_size, 64);

	ASSERT(trace_output_open(&out, path) == 0);
	EXPECT_EQ(trace_output_begin(&out), 0);
	EXPECT_EQ(file_size(out.fd), 0);		/* begun: replaced */
	EXPECT_EQ(trace_output_write(&out, buf, 8), 0);
	trace_output_untouched(&out, none, sizeof(none));
	EXPECT_STREQ(none, "");				/* begun: nothing to say */
	EXPECT_EQ(trace_output_close(&out), 0);
	EXPECT_EQ(stat(path, &st), 0);
	EXPECT_EQ(st.st_size, 8);

	/* The first write begins the trace if no one did. */
	ASSERT(trace_output_open(&out, path) == 0);
	EXPECT_EQ(trace_output_write(&out, buf, 4), 0);
	EXPECT_EQ(file_size(out.fd), 4);
	EXPECT_EQ(trace_output_close(&out), 0);

	/* A file it created is removed again when nothing was traced. */
	EXPECT_EQ(unlink(path), 0);
	ASSERT(trace_output_open(&out, path) == 0);
	EXPECT(out.created);
	trace_output_untouched(&out, none, sizeof(none));
	snprintf(want, sizeof(want), "no trace was written: %s, which fxt-collect had created, was removed", path);
	EXPECT_STREQ(none, want);
	EXPECT_EQ(trace_output_close(&out), 0);
	EXPECT(stat(path, &st) < 0 && errno == ENOENT);

	/* Not a regular file: nothing to keep or say. */
	ASSERT(trace_output_open(&out, "/dev/null") == 0);
	trace_output_untouched(&out, none, sizeof(none));
	EXPECT_STREQ(none, "");
	EXPECT_EQ(trace_output_close(&out), 0);
}

/*
 * -o through a symbolic link: to an existing file it is that file, kept
 * until the trace begins; a dangling one is refused (-ENOENT), and its
 * target is not created, so "left as it was" stays true.
 */
TEST(output_through_a_symbolic_link)
{
	char link[256], target[256], none[TRACE_OUTPUT_NO_TRACE_SIZE], want[512];
	struct trace_output out;
	struct stat st;
	int fd;

	snprintf(link, sizeof(link), "%s/link.fxt", fake_proc);
	snprintf(target, sizeof(target), "%s/target.fxt", fake_proc);
	unlink(link);
	unlink(target);
	ASSERT(symlink("target.fxt", link) == 0);

	EXPECT_EQ(trace_output_open(&out, link), (uint64_t)-ENOENT);
	EXPECT(lstat(target, &st) < 0 && errno == ENOENT);	/* not created */
	EXPECT(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));

	fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ASSERT(fd >= 0);
	ASSERT(write(fd, "old", 3) == 3);
	close(fd);
	ASSERT(trace_output_open(&out, link) == 0);
	EXPECT(!out.created);
	trace_output_untouched(&out, none, sizeof(none));
	snprintf(want, sizeof(want), "no trace was written: %s was left as it was", link);
	EXPECT_STREQ(none, want);
	EXPECT_EQ(trace_output_close(&out), 0);
	EXPECT(stat(target, &st) == 0 && st.st_size == 3);
	EXPECT(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
	unlink(link);
	unlink(target);
}

/* Does the file at @path start with @n bytes of @c? */
static bool starts_with(const char *path, char c, size_t n)
{
	char buf[4096];
	size_t i, got = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	while (got < n && (r = read(fd, buf, sizeof(buf))) > 0)
		for (i = 0; i < (size_t)r && got < n; i++, got++)
			if (buf[i] != c) {
				close(fd);
				return false;
			}
	close(fd);
	return got == n;
}

/*
 * "fxt-collect -o - >> FILE": stdout is O_APPEND, its position 0 until the
 * first write. The trace starts at the end of what FILE held, and neither
 * a cut back (write error) nor the guard (at close, or after a SIGKILL)
 * may truncate into that.
 */
TEST(output_appended_to_a_file_keeps_what_it_held)
{
	char path[256], buf[64], old[1000];
	struct trace_output out;
	struct stat st;
	int fd;

	memset(buf, 'r', sizeof(buf));
	memset(old, 'o', sizeof(old));
	snprintf(path, sizeof(path), "%s/appended.fxt", fake_proc);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ASSERT(fd >= 0);
	ASSERT(write(fd, old, sizeof(old)) == (ssize_t)sizeof(old));
	close(fd);

	/* A write error: cut back to the last record, after the old bytes. */
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	ASSERT(fd >= 0);
	trace_output_from_fd(&out, fd, "appended");
	out.owns_fd = true;
	EXPECT(out.regular);
	EXPECT_EQ(out.start, 1000);
	EXPECT_EQ(out.offset, 1000);
	EXPECT_EQ(out.committed, 1000);
	EXPECT_EQ(trace_output_write(&out, buf, 64), 0);
	trace_output_commit(&out);
	EXPECT_EQ(out.committed, 1064);
	EXPECT_EQ(trace_output_write(&out, buf, 24), 0);	/* half a record */
	EXPECT_EQ(file_size(fd), 1088);
	EXPECT_EQ(trace_output_rollback(&out), 0);
	EXPECT_EQ(file_size(fd), 1064);
	EXPECT_EQ(trace_output_write(&out, buf, 8), 0);
	EXPECT_EQ(out.offset, 1072);
	EXPECT_EQ(file_size(fd), 1072);
	EXPECT_EQ(trace_output_close(&out), 0);
	EXPECT(starts_with(path, 'o', sizeof(old)));

	/* The guard at a normal close: nothing to cut, 1072 + 64 stays. */
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	ASSERT(fd >= 0);
	trace_output_from_fd(&out, fd, "appended");
	out.owns_fd = true;
	EXPECT_EQ(out.start, 1072);
	ASSERT(trace_output_start_guard(&out) == 0);
	EXPECT(out.guard_pid > 0);
	EXPECT_EQ(trace_output_write(&out, buf, 64), 0);
	trace_output_commit(&out);
	EXPECT_EQ(trace_output_close(&out), 0);
	EXPECT(stat(path, &st) == 0 && st.st_size == 1136);
	EXPECT(starts_with(path, 'o', sizeof(old)));
}

/*
 * An O_APPEND output starts at the end of the file when it is opened, and
 * its beginning cuts nothing: whatever another writer appended since
 * stays (trace_output_begin()).
 */
TEST(output_appended_to_a_file_begins_without_a_cut)
{
	char path[256], old[100];
	struct trace_output out;
	int fd, other;

	memset(old, 'o', sizeof(old));
	snprintf(path, sizeof(path), "%s/appended-begin.fxt", fake_proc);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ASSERT(fd >= 0);
	ASSERT(write(fd, old, sizeof(old)) == (ssize_t)sizeof(old));
	close(fd);

	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	ASSERT(fd >= 0);
	trace_output_from_fd(&out, fd, "appended-begin");
	out.owns_fd = true;
	EXPECT(out.append);
	EXPECT_EQ(out.start, 100);
	other = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	ASSERT(other >= 0);
	ASSERT(write(other, old, 8) == 8);	/* another writer, meanwhile */
	close(other);
	EXPECT_EQ(trace_output_begin(&out), 0);
	EXPECT(out.begun);
	EXPECT(!out.emptied);
	EXPECT_EQ(file_size(fd), 108);
	EXPECT_EQ(trace_output_close(&out), 0);
	EXPECT(starts_with(path, 'o', 108));
}

/* /dev/full: every write fails with ENOSPC; not regular, so no truncate. */
TEST(output_disk_full_device)
{
	struct trace_output out;
	char buf[8] = { 0 };

	ASSERT(trace_output_open(&out, "/dev/full") == 0);
	EXPECT(!out.regular);
	EXPECT_EQ(trace_output_write(&out, buf, 8), (uint64_t)-ENOSPC);
	EXPECT_EQ(trace_output_rollback(&out), (uint64_t)-ESPIPE);
	trace_output_close(&out);
}

/*
 * A regular file that fills up mid-write (RLIMIT_FSIZE gives a short write,
 * then EFBIG, like a full disk): the file is cut back to the last commit.
 * Runs in a child so the limit does not stick.
 */
TEST(output_short_write_then_error)
{
	char path[256];
	int status;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/limited.fxt", fake_proc);
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = { 100, 100 };
		struct trace_output out;
		char buf[64];
		int err;

		memset(buf, 'r', sizeof(buf));
		signal(SIGXFSZ, SIG_IGN);
		setrlimit(RLIMIT_FSIZE, &rl);
		if (trace_output_open(&out, path))
			_exit(10);
		if (trace_output_write(&out, buf, 64))
			_exit(11);
		trace_output_commit(&out);
		err = trace_output_write(&out, buf, 64);	/* 36 fit */
		if (err != -EFBIG)
			_exit(12);
		if (trace_output_rollback(&out) || file_size(out.fd) != 64)
			_exit(13);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	EXPECT(WIFEXITED(status));
	EXPECT_EQ(WEXITSTATUS(status), 0);
}

/* waitpid() for at most @tenths tenths of a second; the pid, 0, or -1. */
static pid_t wait_tenths(pid_t pid, int *status, int tenths)
{
	const struct timespec ms = { 0, 1000000 };
	pid_t r;
	int i;

	for (i = 0; i < tenths * 100; i++) {
		r = waitpid(pid, status, WNOHANG);
		if (r != 0)
			return r;
		nanosleep(&ms, NULL);
	}
	return 0;
}

static void read_comm(pid_t pid, char *buf, size_t size)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	buf[0] = 0;
	f = fopen(path, "r");
	if (!f)
		return;
	if (!fgets(buf, (int)size, f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
}

/*
 * The case the guard exists for: the writer dies by SIGKILL with half a
 * record written past the last commit, while a child it forked for a
 * COMMAND (which dropped the guard's pipe, as fxt-collect's does before
 * exec) lives on. As a child subreaper this test inherits the orphaned
 * guard and can see how it ended. On the way, SIGINT and SIGTERM must not
 * stop the guard, and it must carry its name.
 */
TEST(output_guard_cuts_back_after_sigkill)
{
	char path[256], comm[32];
	int status, go[2], report[2];
	pid_t writer, pids[2] = { 0, 0 }, r;

	snprintf(path, sizeof(path), "%s/killed.fxt", fake_proc);
	ASSERT(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);
	ASSERT(pipe(go) == 0 && pipe(report) == 0);
	writer = fork();
	ASSERT(writer >= 0);
	if (writer == 0) {
		/* a whole record of 2 words, then 1 of a record of 3 */
		uint64_t recs[3] = { 2 << 4, 0, 3 << 4 };
		struct trace_output out;
		char buf[64], c;

		memset(buf, 'r', sizeof(buf));
		close(go[1]);
		close(report[0]);
		if (trace_output_open(&out, path) || trace_output_start_guard(&out) ||
		    out.guard_pid <= 0)
			_exit(10);
		pids[0] = out.guard_pid;
		pids[1] = fork();
		if (pids[1] == 0) {		/* COMMAND, never exec'd */
			trace_output_drop_guard(&out);
			sleep(30);
			_exit(0);
		}
		if (trace_output_write(&out, buf, 64))
			_exit(11);
		trace_output_commit(&out);
		trace_output_records_follow(&out);
		if (trace_output_write(&out, recs, sizeof(recs)))
			_exit(12);
		if (write(report[1], pids, sizeof(pids)) != sizeof(pids) ||
		    read(go[0], &c, 1) < 0)
			_exit(13);
		raise(SIGKILL);
		_exit(14);
	}
	close(go[0]);
	close(report[1]);
	if (read(report[0], pids, sizeof(pids)) != sizeof(pids) || pids[0] <= 0) {
		waitpid(writer, &status, 0);
		TAP_FAIL_HERE("the writer could not start a guard (exit %d)",
			      WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		goto out;
	}
	read_comm(pids[0], comm, sizeof(comm));
	EXPECT_STREQ(comm, "fxt-collect-gua");	/* comm holds 15 characters */
	EXPECT_EQ(getpgid(pids[0]), pids[0]);	/* a process group of its own */
	kill(pids[0], SIGINT);
	kill(pids[0], SIGTERM);
	if (write(go[1], "k", 1) != 1)
		TAP_FAIL_HERE("could not tell the writer to go on");
	waitpid(writer, &status, 0);
	EXPECT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	r = wait_tenths(pids[0], &status, 50);
	EXPECT_EQ(r, pids[0]);
	if (r == pids[0])
		EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	else
		kill(pids[0], SIGKILL);
	{
		struct stat st;

		/* the commit and the whole record after it */
		EXPECT(stat(path, &st) == 0 && st.st_size == 80);
	}
out:
	if (pids[1] > 0) {
		kill(pids[1], SIGKILL);
		waitpid(pids[1], &status, 0);
	}
	if (pids[0] > 0)
		waitpid(pids[0], &status, WNOHANG);
	close(go[1]);
	close(report[0]);
	prctl(PR_SET_CHILD_SUBREAPER, 0);
}

/*
 * A writer that dies by SIGKILL after doing @what to its output at
 * @path, its stderr (and so its guard's) in @log: 0 between writes, the
 * trace committed; 1 in the preamble, records following no commit (a
 * whole record of 2 words, then 1 word of one of 3); 2 nothing, the trace
 * not begun; 3 after a commit, a whole record following it. Returns the
 * file's size once the guard has ended (-1 if it did not end within 5 s).
 */
static off_t guard_after_kill(const char *path, const char *log, int what)
{
	int status, report[2];
	pid_t writer, guard = 0, r;
	struct stat st;

	if (pipe(report) != 0)
		return -1;
	writer = fork();
	if (writer < 0)
		return -1;
	if (writer == 0) {
		uint64_t recs[3] = { 2 << 4, 0, 3 << 4 };
		struct trace_output out;
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		close(report[0]);
		if (fd < 0 || dup2(fd, STDERR_FILENO) < 0)
			_exit(10);
		if (trace_output_open(&out, path) || trace_output_start_guard(&out) ||
		    out.guard_pid <= 0)
			_exit(11);
		if (what == 0) {
			if (trace_output_write(&out, recs, 16))
				_exit(12);
			trace_output_commit(&out);
		} else if (what == 1) {
			if (trace_output_begin(&out))
				_exit(12);
			trace_output_records_follow(&out);
			if (trace_output_write(&out, recs, sizeof(recs)))
				_exit(12);
		} else if (what == 3) {
			if (trace_output_write(&out, recs, 16))
				_exit(12);
			trace_output_commit(&out);
			trace_output_records_follow(&out);
			if (trace_output_write(&out, recs, 16))
				_exit(12);
		}
		if (write(report[1], &out.guard_pid, sizeof(out.guard_pid)) !=
		    sizeof(out.guard_pid))
			_exit(13);
		raise(SIGKILL);
		_exit(14);
	}
	close(report[1]);
	if (read(report[0], &guard, sizeof(guard)) != sizeof(guard))
		guard = 0;
	close(report[0]);
	waitpid(writer, &status, 0);
	if (guard <= 0)
		return -1;
	r = wait_tenths(guard, &status, 50);
	if (r != guard) {
		kill(guard, SIGKILL);
		waitpid(guard, &status, 0);
		return -1;
	}
	return stat(path, &st) == 0 ? st.st_size : -1;
}

/* Read @path into @buf (NUL-terminated); "" if it cannot be read. */
static void read_text(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? 0 : read(fd, buf, size - 1);

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

/*
 * The guard after a SIGKILL between two writes: the file ends at the last
 * commit, nothing to cut, and it says nothing (it said it had cut the file
 * back). In the preamble, with records following no commit (no commit yet:
 * whole records are no trace), it cuts back to the start, not to the last
 * whole record, and says the preamble was cut. Before the trace began, it
 * leaves an old file alone; a whole record that ends the file stays, and
 * it says nothing then either.
 */
TEST(output_guard_cuts_only_what_it_must_and_says_so)
{
	char path[256], log[256], said[1024], old[100];
	int fd;

	memset(old, 'o', sizeof(old));
	ASSERT(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);
	snprintf(path, sizeof(path), "%s/between.fxt", fake_proc);
	snprintf(log, sizeof(log), "%s/between.log", fake_proc);
	EXPECT_EQ(guard_after_kill(path, log, 0), 16);
	read_text(log, said, sizeof(said));
	EXPECT_STREQ(said, "");

	snprintf(path, sizeof(path), "%s/preamble.fxt", fake_proc);
	snprintf(log, sizeof(log), "%s/preamble.log", fake_proc);
	EXPECT_EQ(guard_after_kill(path, log, 1), 0);
	read_text(log, said, sizeof(said));
	EXPECT_CONTAINS(said, "fxt-collect ended in the middle of writing the trace preamble; no trace was written: ");
	EXPECT_CONTAINS(said, "preamble.fxt was cut back to 0 bytes and is empty");

	/* Killed before the trace began: an old file stays as it was. */
	snprintf(path, sizeof(path), "%s/old.fxt", fake_proc);
	snprintf(log, sizeof(log), "%s/old.log", fake_proc);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ASSERT(fd >= 0);
	ASSERT(write(fd, old, sizeof(old)) == (ssize_t)sizeof(old));
	close(fd);
	EXPECT_EQ(guard_after_kill(path, log, 2), 100);
	EXPECT(starts_with(path, 'o', 100));
	read_text(log, said, sizeof(said));
	EXPECT_STREQ(said, "");

	/*
	 * A whole record after the commit, the file ending with it: kept,
	 * and nothing said (it said the file "was cut back to its last
	 * whole record (32 bytes)", though nothing was cut).
	 */
	snprintf(path, sizeof(path), "%s/whole.fxt", fake_proc);
	snprintf(log, sizeof(log), "%s/whole.log", fake_proc);
	EXPECT_EQ(guard_after_kill(path, log, 3), 32);
	read_text(log, said, sizeof(said));
	EXPECT_STREQ(said, "");
	prctl(PR_SET_CHILD_SUBREAPER, 0);
}

/* A normal close: the guard finds nothing to cut and is reaped. */
TEST(output_guard_leaves_a_closed_file_alone)
{
	char path[256], buf[64];
	struct trace_output out;
	struct stat st;
	pid_t guard;

	memset(buf, 'r', sizeof(buf));
	snprintf(path, sizeof(path), "%s/closed.fxt", fake_proc);
	ASSERT(trace_output_open(&out, path) == 0);
	ASSERT(trace_output_start_guard(&out) == 0);
	guard = out.guard_pid;
	EXPECT(guard > 0);
	EXPECT_EQ(trace_output_write(&out, buf, 64), 0);
	trace_output_commit(&out);
	EXPECT_EQ(atomic_load(out.shared_committed), 64);
	EXPECT_EQ(trace_output_close(&out), 0);
	EXPECT(stat(path, &st) == 0 && st.st_size == 64);
	EXPECT_EQ(out.guard_pid, 0);
	EXPECT(guard > 0 && waitpid(guard, NULL, WNOHANG) < 0 && errno == ECHILD);
}

/* Pipes cannot be cut back: no guard for them. */
TEST(output_guard_not_for_pipes)
{
	struct trace_output out;
	int p[2];

	ASSERT(pipe(p) == 0);
	trace_output_from_fd(&out, p[1], "pipe");
	EXPECT(!out.regular);
	EXPECT_EQ(trace_output_start_guard(&out), 0);
	EXPECT_EQ(out.guard_pid, 0);
	EXPECT_EQ(out.guard_fd, (uint64_t)-1);
	trace_output_close(&out);
	close(p[0]);
	close(p[1]);
}

static void remove_fake_proc(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fake_proc);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", fake_proc);
}

int main(void)
{
	build_fake_proc();
	RUN(buffer_sizes_accepted);
	RUN(buffer_sizes_refused_with_a_reason);
	RUN(durations);
	RUN(durations_refused_with_the_limit_broken);
	RUN(command_line);
	RUN(command_lookup_before_tracing);
	RUN(tid_set);
	RUN(proc_status_parsing);
	RUN(proc_walk_on_a_fake_tree);
	RUN(proc_on_the_real_proc);
	RUN(preamble_defines_the_kernel_strings);
	RUN(objects_for_every_task);
	RUN(objects_for_threads_seen_in_the_trace);
	RUN(drop_marker_is_a_provider_event_and_a_counter);
	RUN(drop_counters_for_many_cpus);
	RUN(cpu_list_a_few_cpus);
	RUN(cpu_list_128_cpus_with_large_counts);
	RUN(skip_marker_is_a_pair_of_counter_samples_spanning_the_hole);
	RUN(lost_marker_is_the_modules_pair);
	RUN(output_cut_back_to_the_last_whole_record);
	RUN(output_cut_reads_whole_records_past_one_buffer);
	RUN(output_cut_inside_the_preamble_keeps_none_of_it);
	RUN(output_replaces_a_file_only_once_the_trace_begins);
	RUN(output_through_a_symbolic_link);
	RUN(output_appended_to_a_file_keeps_what_it_held);
	RUN(output_appended_to_a_file_begins_without_a_cut);
	RUN(output_disk_full_device);
	RUN(output_short_write_then_error);
	RUN(output_guard_cuts_back_after_sigkill);
	RUN(output_guard_cuts_only_what_it_must_and_says_so);
	RUN(output_guard_leaves_a_closed_file_alone);
	RUN(output_guard_not_for_pipes);
	remove_fake_proc();
	return tap_exit();
}

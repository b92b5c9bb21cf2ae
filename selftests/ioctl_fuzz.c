// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl_fuzz - hostile input for /dev/fxtrace's ioctls (and mmap), seeded
 *
 *   ioctl_fuzz [--seed N] [--seconds S]
 *
 * Every result must be success or an errno that uapi/linux/fxtrace.h
 * documents for that call ("Errors, by call"), and where the documented
 * rules decide the outcome (a model of the session: state, buffer size,
 * live mappings), exactly that outcome. The kernel must not warn: the taint
 * flags are compared before and after (run_vm_tests.sh also scans dmesg).
 *
 * 1. unknown commands: every command number of magic 0xF7 in every direction
 *    with a sample of sizes (every size for numbers 0-3, which a driver
 *    matching only on the number would take), and a sample of other magics:
 *    ENOTTY, whatever the argument.
 * 2. the four commands with hostile argument pointers: NULL, kernel
 *    addresses, non-canonical, unmapped (inside a PROT_NONE reservation),
 *    straddling into an inaccessible page, read-only memory, misaligned and
 *    oversized buffers, and random CONFIGURE contents (flags, reserved
 *    fields, sizes, watermarks).
 * 3. calls in random order: START twice, CONFIGURE while started or mapped,
 *    STOP when stopped, mmap before CONFIGURE, munmap of part of a mapping,
 *    mremap moves, close with mappings alive (the session lives on: EBUSY
 *    for a new open until the last munmap), reopen.
 *
 * The seed is printed; --seed reproduces a run. Tests 2 and 3 share the time
 * budget (--seconds, default 20); test 1 is a fixed enumeration.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdint.h>
#include <time.h>
#include <sys/mman.h>

#include "fxtrace_dev.h"

struct harness_test *harness_tests;
int harness_failed;

static unsigned long long opt_seed;
static double opt_seconds = 20;
static unsigned long long taint_before;
static char taint_before_err[96];	/* why it could not be read, or "" */

#define MAX_REPORTS	20	/* failure lines printed per test */
static int reports;

#define REPORT(fmt, ...) do {						\
	harness_failed = 1;						\
	if (reports++ < MAX_REPORTS)					\
		printf("#   " fmt "\n", ##__VA_ARGS__);		\
} while (0)

/* ---- random numbers: xorshift64*, one stream per test -------------------- */

static unsigned long long rng_state;

/*
 * Each test seeds its own stream from the run's seed, and says the seed
 * (inside the TAP output: the "TAP version" line must come first).
 */
static void rng_seed(unsigned long long test)
{
	printf("# seed %llu (rerun: ioctl_fuzz --seed %llu --seconds %g)\n",
	       opt_seed, opt_seed, opt_seconds);
	rng_state = (opt_seed ^ (test * 0x9e3779b97f4a7c15ULL)) | 1;
}

static unsigned long long rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static unsigned long long rnd_below(unsigned long long n)
{
	return n ? rnd() % n : 0;
}

/* ---- ioctl commands ------------------------------------------------------ */

static const unsigned int known_cmds[] = {
	FXTRACE_IOC_GET_INFO, FXTRACE_IOC_CONFIGURE,
	FXTRACE_IOC_START, FXTRACE_IOC_STOP,
};

static int is_known_cmd(unsigned int cmd)
{
	unsigned int i;

	for (i = 0; i < sizeof(known_cmds) / sizeof(known_cmds[0]); i++)
		if (cmd == known_cmds[i])
			return 1;
	return 0;
}

static const char *errno_name(int e)
{
	switch (e) {
	case 0: return "0";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ENXIO: return "ENXIO";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EINVAL: return "EINVAL";
	case ENOTTY: return "ENOTTY";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	default: return strerror(e);
	}
}

/* ioctl() as 0 or the errno. */
static int do_ioctl(int fd, unsigned long cmd, void *arg)
{
	errno = 0;
	if (ioctl(fd, cmd, arg) == 0)
		return 0;
	return errno ? errno : -1;
}

/* ---- argument pointers --------------------------------------------------- */

/*
 * Memory for pointer games: a writable page followed by an inaccessible one
 * (for arguments straddling into nothing), a read-only page, and a large
 * PROT_NONE reservation in which every address faults.
 */
#define NONE_SIZE	(16UL << 20)
#define MAX_MAPS	64			/* live mappings in test 3 */
#define SLOT_SIZE	(8UL << 20)		/* > any mapping it makes */

static struct {
	unsigned char *rw;		/* page_size, then a PROT_NONE page */
	unsigned char *ro;		/* page_size, read-only, random bytes */
	unsigned char *none;		/* NONE_SIZE, PROT_NONE */
	unsigned char *slots;		/* MAX_MAPS * SLOT_SIZE, PROT_NONE */
	char slot_used[MAX_MAPS];	/* a moved mapping is in the slot */
	size_t page;
} mem;

static void mem_setup(void)
{
	unsigned char *p;
	size_t i;

	mem.page = (size_t)sysconf(_SC_PAGESIZE);
	p = mmap(NULL, 2 * mem.page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(p != MAP_FAILED);
	/* PROT_NONE, not unmapped: a later mmap() cannot fill the hole. */
	ASSERT_EQ(0, mprotect(p + mem.page, mem.page, PROT_NONE));
	mem.rw = p;
	mem.ro = mmap(NULL, mem.page, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_TRUE(mem.ro != MAP_FAILED);
	for (i = 0; i < mem.page; i++)
		mem.ro[i] = (unsigned char)rnd();
	ASSERT_EQ(0, mprotect(mem.ro, mem.page, PROT_READ));
	mem.none = mmap(NULL, NONE_SIZE, PROT_NONE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ASSERT_TRUE(mem.none != MAP_FAILED);
	mem.slots = mmap(NULL, MAX_MAPS * SLOT_SIZE, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ASSERT_TRUE(mem.slots != MAP_FAILED);
}

enum ptr_kind {
	PTR_NULL,		/* faults */
	PTR_LOW,		/* 1..4095: the NULL page, faults */
	PTR_KERNEL,		/* kernel half: faults (access_ok) */
	PTR_NONCANONICAL,	/* faults */
	PTR_UNMAPPED,		/* inside the PROT_NONE reservation: faults */
	PTR_STRADDLE,		/* ends in a PROT_NONE page: faults */
	PTR_READONLY,		/* readable, not writable */
	PTR_MISALIGNED,		/* writable, odd address */
	PTR_OVERSIZED,		/* writable, struct followed by garbage */
	PTR_VALID,		/* writable, aligned */
	PTR_KINDS
};

static const char *const ptr_names[PTR_KINDS] = {
	"NULL", "low", "kernel", "non-canonical", "unmapped", "straddling",
	"read-only", "misaligned", "oversized", "valid",
};

struct arg {
	enum ptr_kind kind;
	void *p;
	int readable;		/* the kernel can read @size bytes at p */
	int writable;		/* ... and write them */
};

/* A pointer of @kind for an argument of @size bytes (<= a page / 2). */
static struct arg make_arg(enum ptr_kind kind, size_t size)
{
	struct arg a = { .kind = kind };
	uintptr_t v;

	switch (kind) {
	case PTR_NULL:
		a.p = NULL;
		break;
	case PTR_LOW:
		a.p = (void *)(uintptr_t)(1 + rnd_below(4095));
		break;
	case PTR_KERNEL:
		v = 0xffff800000000000ULL + rnd_below(0x7fffffffffffULL);
		if (rnd_below(4) == 0)	/* the kernel text, or the very top */
			v = rnd_below(2) ? 0xffffffff81000000ULL :
					   (uintptr_t)-(intptr_t)size;
		a.p = (void *)v;
		break;
	case PTR_NONCANONICAL:
		a.p = (void *)(uintptr_t)(0x0000800000000000ULL +
					  rnd_below(0xffff000000000000ULL));
		break;
	case PTR_UNMAPPED:
		a.p = mem.none + rnd_below(NONE_SIZE - size);
		break;
	case PTR_STRADDLE:
		/* 1 .. size-1 bytes before the hole */
		a.p = mem.rw + mem.page - 1 - rnd_below(size - 1);
		break;
	case PTR_READONLY:
		a.p = mem.ro + rnd_below(mem.page - size);
		a.readable = 1;
		break;
	case PTR_MISALIGNED:
		a.p = mem.rw + 1 + 2 * rnd_below(mem.page / 2 - size);
		a.readable = a.writable = 1;
		break;
	case PTR_OVERSIZED:
		a.p = mem.rw + 8 * rnd_below(8);
		a.readable = a.writable = 1;
		break;
	case PTR_VALID:
	default:
		a.p = mem.rw + mem.page / 2;
		a.readable = a.writable = 1;
		break;
	}
	return a;
}

/* Random bytes where the kernel will read (only writable spots). */
static void fill_random(struct arg *a, size_t size)
{
	size_t i;

	if (!a->writable)
		return;
	for (i = 0; i < size + 64 && (unsigned char *)a->p + i < mem.rw + mem.page; i++)
		((unsigned char *)a->p)[i] = (unsigned char)rnd();
}

/* ---- the session model --------------------------------------------------- */

struct mapping {
	void *addr;
	size_t len;
	int slot;		/* mremap() target slot it is in, or -1 */
};

struct model {
	int fd;			/* -1: closed, maybe still alive via mappings */
	__u32 state;		/* FXTRACE_STATE_* */
	__u64 buf_size;		/* what GET_INFO must say */
	struct fxtrace_info info;	/* layout, from the first GET_INFO */
	struct mapping maps[MAX_MAPS];
	int nmaps;
	unsigned long ops, checked;
	unsigned long by_errno[5];	/* 0, EINVAL, EBUSY, EFAULT, other */
};

static void count_result(struct model *m, int err)
{
	m->ops++;
	m->by_errno[err == 0 ? 0 : err == EINVAL ? 1 : err == EBUSY ? 2 :
		    err == EFAULT ? 3 : 4]++;
}

static void model_open(struct model *m)
{
	m->fd = dev_open();
	m->state = FXTRACE_STATE_EMPTY;
	m->buf_size = FXTRACE_BUF_SIZE_DEFAULT;
	m->info = dev_info(m->fd);
	ASSERT_EQ(FXTRACE_STATE_EMPTY, m->info.state);
}

/* Compare GET_INFO with the model. */
static void model_check_info(struct model *m, const struct fxtrace_info *info,
			     const char *after)
{
	unsigned int i;

	m->checked++;
	if (info->abi_version != FXTRACE_ABI_VERSION ||
	    info->info_size != sizeof(*info) || info->state != m->state ||
	    info->buf_size != m->buf_size || info->__pad ||
	    info->cpu_stride != m->info.cpu_stride ||
	    info->data_offset != m->info.data_offset)
		REPORT("GET_INFO after %s: state %u buf_size %llu, model says state %u buf_size %llu",
		       after, info->state, (unsigned long long)info->buf_size,
		       m->state, (unsigned long long)m->buf_size);
	for (i = 0; i < 4; i++)
		if (info->__reserved[i])
			REPORT("GET_INFO after %s: __reserved[%u] = %llu", after,
			       i, (unsigned long long)info->__reserved[i]);
}

static void model_get_info(struct model *m, const char *after)
{
	struct fxtrace_info info;
	int err;

	memset(&info, 0xa5, sizeof(info));
	err = do_ioctl(m->fd, FXTRACE_IOC_GET_INFO, &info);
	if (err)
		REPORT("GET_INFO (valid pointer) after %s: %s", after,
		       errno_name(err));
	else
		model_check_info(m, &info, after);
}

/* A buffer size: mostly valid and small (allocation is slow under TCG). */
static __u64 random_buf_size(void)
{
	switch (rnd_below(10)) {
	case 0: return 0;				/* the default */
	case 1: return rnd();				/* anything */
	case 2: return FXTRACE_BUF_SIZE_MIN / 2;	/* too small */
	case 3: return FXTRACE_BUF_SIZE_MAX * 2;	/* too big */
	case 4: return FXTRACE_BUF_SIZE_MIN + 8 * (1 + rnd_below(1000)); /* not 2^n */
	case 5: return 1ULL << 63;
	default: return FXTRACE_BUF_SIZE_MIN << rnd_below(5); /* 64K..1M */
	}
}

static void random_config(struct fxtrace_config *cfg)
{
	__u64 size;

	memset(cfg, 0, sizeof(*cfg));
	cfg->buf_size = random_buf_size();
	size = cfg->buf_size ? cfg->buf_size : FXTRACE_BUF_SIZE_DEFAULT;
	switch (rnd_below(6)) {
	case 0: cfg->watermark = (__u32)rnd(); break;
	case 1: cfg->watermark = (__u32)(size - 1); break;
	case 2: cfg->watermark = (__u32)size; break;	/* too big, if it fits */
	default: cfg->watermark = (__u32)rnd_below(size < 1u << 20 ? size : 1u << 20);
	}
	if (rnd_below(8) == 0)
		cfg->flags = (__u32)rnd() | 1;
	if (rnd_below(8) == 0)
		cfg->__reserved[rnd_below(6)] = rnd() | 1;
}

static int config_is_valid(const struct fxtrace_config *cfg, __u64 *size)
{
	unsigned int i;

	*size = cfg->buf_size ? cfg->buf_size : FXTRACE_BUF_SIZE_DEFAULT;
	if (cfg->flags)
		return 0;
	for (i = 0; i < 6; i++)
		if (cfg->__reserved[i])
			return 0;
	if (*size < FXTRACE_BUF_SIZE_MIN || *size > FXTRACE_BUF_SIZE_MAX ||
	    (*size & (*size - 1)))
		return 0;
	return cfg->watermark < *size;
}

/*
 * CONFIGURE with @cfg at a readable address. Documented: EINVAL for bad
 * contents, EBUSY while tracing or mapped (either when both apply), ENOMEM
 * (then no buffers are left), else 0.
 */
static void model_configure(struct model *m, const struct fxtrace_config *cfg,
			    int err, const char *what)
{
	int busy = m->state == FXTRACE_STATE_TRACING || m->nmaps > 0;
	__u64 size;
	int valid = config_is_valid(cfg, &size);

	count_result(m, err);
	if (!valid && (err == EINVAL || (busy && err == EBUSY)))
		return;
	if (valid && busy && err == EBUSY)
		return;
	if (valid && !busy && (err == 0 || err == ENOMEM)) {
		m->buf_size = size;
		m->state = err ? FXTRACE_STATE_EMPTY : FXTRACE_STATE_READY;
		return;
	}
	REPORT("CONFIGURE %s (buf_size %llu watermark %u flags %#x%s) in state %u with %d mappings: %s, expected %s",
	       what, (unsigned long long)cfg->buf_size, cfg->watermark,
	       cfg->flags, valid ? "" : ", invalid", m->state, m->nmaps,
	       errno_name(err),
	       !valid ? (busy ? "EINVAL or EBUSY" : "EINVAL") :
	       busy ? "EBUSY" : "0 or ENOMEM");
}

static void model_start(struct model *m, void *arg)
{
	int err = do_ioctl(m->fd, FXTRACE_IOC_START, arg);

	count_result(m, err);
	if (m->state == FXTRACE_STATE_TRACING) {
		if (err != EBUSY)
			REPORT("START while tracing (arg %p): %s, expected EBUSY",
			       arg, errno_name(err));
		return;
	}
	if (err == ENOMEM && m->state == FXTRACE_STATE_EMPTY)
		return;
	if (err) {
		REPORT("START in state %u (arg %p): %s, expected 0", m->state,
		       arg, errno_name(err));
		return;
	}
	m->state = FXTRACE_STATE_TRACING;
}

static void model_stop(struct model *m, void *arg)
{
	int err = do_ioctl(m->fd, FXTRACE_IOC_STOP, arg);
	int tracing = m->state == FXTRACE_STATE_TRACING;

	count_result(m, err);
	if (err != (tracing ? 0 : EINVAL))
		REPORT("STOP in state %u (arg %p): %s, expected %s", m->state,
		       arg, errno_name(err), tracing ? "0" : "EINVAL");
	if (tracing && !err)
		m->state = FXTRACE_STATE_READY;
}

/* ---- test 1 -------------------------------------------------------------- */

static void expect_enotty(int fd, unsigned int cmd, unsigned long *n)
{
	struct arg a = make_arg((enum ptr_kind)rnd_below(PTR_KINDS), 128);
	int err;

	fill_random(&a, 128);
	err = do_ioctl(fd, cmd, a.p);
	(*n)++;
	if (err != ENOTTY)
		REPORT("cmd %#x (dir %u magic %#x nr %#x size %u, %s pointer): %s, expected ENOTTY",
		       cmd, _IOC_DIR(cmd), _IOC_TYPE(cmd), _IOC_NR(cmd),
		       _IOC_SIZE(cmd), ptr_names[a.kind], errno_name(err));
}

/*
 * Magics the VFS answers itself before the driver sees the command
 * (do_vfs_ioctl: FIBMAP/FIGETBSZ 0x00, FS_IOC_GETFSUUID 0x15, FIONBIO and
 * friends 'T', FIFREEZE 'X', FS_IOC_* 'f', FICLONE 0x94): not ours to judge.
 */
static int vfs_magic(unsigned int magic)
{
	return magic == 0x00 || magic == 0x15 || magic == 'T' ||
	       magic == 'X' || magic == 'f' || magic == 0x94;
}

TEST(unknown_commands_are_enotty)
{
	static const unsigned int sizes[] = {
		0, 1, 4, 7, 8, 63, 64, 65, 95, 96, 97, 128, 192, 4096, 0x3fff,
	};
	unsigned int magics[12] = { 0xF7, 0x01, 0x12, 'A', 'V', 'd', 0xF6, 0xF8, 0xFF };
	unsigned int nmagic = 9, mi, nr, dir, si, size;
	unsigned long calls = 0;
	double t0 = now_s();
	int fd;

	rng_seed(1);
	mem_setup();
	fd = dev_open();
	while (nmagic < 12) {
		unsigned int m = (unsigned int)rnd_below(256);

		if (!vfs_magic(m) && m != 0xF7)
			magics[nmagic++] = m;
	}
	printf("#   magics:");
	for (mi = 0; mi < nmagic; mi++)
		printf(" %#x", magics[mi]);
	printf("\n");

	for (mi = 0; mi < nmagic; mi++) {
		for (nr = 0; nr < 256; nr++) {
			for (dir = 0; dir < 4; dir++) {
				for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
					unsigned int cmd = _IOC(dir, magics[mi], nr, sizes[si]);

					if (!is_known_cmd(cmd))
						expect_enotty(fd, cmd, &calls);
				}
				if (magics[mi] != 0xF7 || nr > 3)
					continue;
				/* Every size: a near miss of a real command. */
				for (size = 0; size <= _IOC_SIZEMASK; size++) {
					unsigned int cmd = _IOC(dir, 0xF7, nr, size);

					if (!is_known_cmd(cmd))
						expect_enotty(fd, cmd, &calls);
				}
			}
		}
	}
	/* The session is untouched by all that. */
	EXPECT_EQ(FXTRACE_STATE_EMPTY, dev_info(fd).state);
	printf("#   %lu unknown commands, all ENOTTY unless reported, in %.1f s\n",
	       calls, now_s() - t0);
	close(fd);
	expect_no_live_allocations();
}

/* ---- test 2 -------------------------------------------------------------- */

static void fuzz_get_info(struct model *m)
{
	enum ptr_kind k = (enum ptr_kind)rnd_below(PTR_KINDS);
	struct arg a = make_arg(k, sizeof(struct fxtrace_info));
	int err = do_ioctl(m->fd, FXTRACE_IOC_GET_INFO, a.p);

	count_result(m, err);
	if (a.writable && err == 0) {
		struct fxtrace_info info;

		memcpy(&info, a.p, sizeof(info));
		model_check_info(m, &info, "a hostile GET_INFO");
	} else if (a.writable || err != EFAULT) {
		REPORT("GET_INFO with a %s pointer %p: %s, expected %s",
		       ptr_names[k], a.p, errno_name(err),
		       a.writable ? "0" : "EFAULT");
	}
}

static void fuzz_configure(struct model *m)
{
	enum ptr_kind k = (enum ptr_kind)rnd_below(PTR_KINDS);
	struct arg a = make_arg(k, sizeof(struct fxtrace_config));
	struct fxtrace_config cfg;
	int err;

	if (a.writable) {
		random_config(&cfg);
		memcpy(a.p, &cfg, sizeof(cfg));
		if (k == PTR_OVERSIZED)	/* garbage after the struct */
			memset((char *)a.p + sizeof(cfg), 0x5a, 64);
	}
	err = do_ioctl(m->fd, FXTRACE_IOC_CONFIGURE, a.p);
	if (a.readable) {
		memcpy(&cfg, a.p, sizeof(cfg));
		model_configure(m, &cfg, err, ptr_names[k]);
	} else {
		count_result(m, err);
		if (err != EFAULT)
			REPORT("CONFIGURE with a %s pointer %p: %s, expected EFAULT",
			       ptr_names[k], a.p, errno_name(err));
	}
}

TEST(known_commands_with_hostile_arguments)
{
	struct model m = { .fd = -1 };
	double end;

	rng_seed(2);
	mem_setup();
	model_open(&m);
	end = now_s() + opt_seconds / 3;
	while (now_s() < end) {
		unsigned long r = rnd_below(100);
		void *junk = make_arg((enum ptr_kind)rnd_below(PTR_KINDS), 8).p;

		if (r < 45)
			fuzz_get_info(&m);
		else if (r < 90)
			fuzz_configure(&m);
		else if (r < 95)	/* the argument must be ignored */
			model_start(&m, junk);
		else
			model_stop(&m, junk);
		if (r % 10 == 0)
			model_get_info(&m, "a hostile call");
	}
	printf("#   %lu calls (%lu ok, %lu EINVAL, %lu EBUSY, %lu EFAULT, %lu other), %lu GET_INFO checks\n",
	       m.ops, m.by_errno[0], m.by_errno[1], m.by_errno[2],
	       m.by_errno[3], m.by_errno[4], m.checked);
	/* Every pointer kind and result was exercised, not only the easy ones. */
	EXPECT_NE(0, m.by_errno[0]);
	EXPECT_NE(0, m.by_errno[1]);
	EXPECT_NE(0, m.by_errno[3]);
	close(m.fd);
	expect_no_live_allocations();
}

/* ---- test 3 -------------------------------------------------------------- */

/* An mmap request: which CPU, control page or data, offset, length, prot. */
static void fuzz_mmap(struct model *m)
{
	const struct fxtrace_info *info = &m->info;
	__u64 page = info->page_size, off, len, cpu;
	int prot = PROT_READ, flags = MAP_SHARED, data, err, bad = 0;
	int expect_einval = 0, expect_eperm = 0, expect_enxio = 0;
	__u64 size = m->buf_size;
	void *p;

	if (m->nmaps >= MAX_MAPS)
		return;
	cpu = rnd_below(8) ? rnd_below(sysconf(_SC_NPROCESSORS_ONLN)) :
			     rnd_below(info->nr_cpu_ids + 2);
	/* A possible CPU not present has the smallest ring (uapi "mmap"). */
	if (cpu < info->nr_cpu_ids && cpu_possible(cpu) && !cpu_present(cpu))
		size = FXTRACE_BUF_SIZE_MIN;
	data = (int)rnd_below(2);
	if (data) {
		off = page * rnd_below(size / page + 1);  /* maybe at the end */
		len = page * (1 + rnd_below(size / page - off / page + 1));
		if (rnd_below(4) == 0)
			len = page * (1 + rnd_below(size / page + 2));
		if (rnd_below(4) == 0)
			prot |= PROT_WRITE;
		expect_einval = off + len > size;
		expect_eperm = !!(prot & PROT_WRITE);
		off += info->data_offset;
	} else {
		off = 0;
		len = rnd_below(6) ? page : page * rnd_below(3);
		if (rnd_below(2))
			prot |= PROT_WRITE;
		expect_einval = len != page;
	}
	if (rnd_below(10) == 0) {
		flags = MAP_PRIVATE;
		expect_einval = 1;
	}
	if (cpu >= info->nr_cpu_ids)
		expect_einval = 1;
	else if (!cpu_possible(cpu))
		expect_enxio = 1;
	if (len == 0)
		expect_einval = 1;	/* the kernel's own rule */
	off += cpu * info->cpu_stride;

	errno = 0;
	p = mmap(NULL, len, prot, flags, m->fd, (off_t)off);
	err = p == MAP_FAILED ? errno : 0;
	count_result(m, err);
	bad = expect_einval || expect_eperm || expect_enxio;
	if (!bad && !err) {
		volatile unsigned char c = *(volatile unsigned char *)p;

		(void)c;
		if (!data && ((struct fxtrace_ctrl *)p)->buf_size != size)
			REPORT("control page says buf_size %llu, model %llu",
			       (unsigned long long)((struct fxtrace_ctrl *)p)->buf_size,
			       (unsigned long long)size);
		m->maps[m->nmaps].addr = p;
		m->maps[m->nmaps].len = len;
		m->maps[m->nmaps].slot = -1;
		m->nmaps++;
		if (m->state == FXTRACE_STATE_EMPTY)
			m->state = FXTRACE_STATE_READY;	/* mmap allocates */
		return;
	}
	if (bad && ((err == EINVAL && expect_einval) ||
		    (err == EPERM && expect_eperm) ||
		    (err == ENXIO && expect_enxio)))
		return;
	if (!bad && err == ENOMEM && m->state == FXTRACE_STATE_EMPTY)
		return;
	if (!err)
		munmap(p, len);
	REPORT("mmap cpu %llu %s off %#llx len %llu prot %d %s (buf_size %llu): %s, expected %s%s%s%s",
	       (unsigned long long)cpu, data ? "data" : "ctrl",
	       (unsigned long long)off, (unsigned long long)len, prot,
	       flags == MAP_SHARED ? "shared" : "private",
	       (unsigned long long)size, errno_name(err), bad ? "" : "0",
	       expect_einval ? " EINVAL" : "", expect_eperm ? " EPERM" : "",
	       expect_enxio ? " ENXIO" : "");
}

/*
 * Give [addr, addr + len) back. Inside the slot area it is replaced by
 * PROT_NONE again (which unmaps our mapping just as munmap() does), so no
 * later mmap(NULL, ...) can land in a slot that a move may target.
 */
static void unmap_range(const struct mapping *mp, void *addr, size_t len)
{
	if (mp->slot < 0) {
		ASSERT_EQ(0, munmap(addr, len));
		return;
	}
	ASSERT_TRUE(mmap(addr, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
			 MAP_NORESERVE | MAP_FIXED, -1, 0) == addr);
}

/* Unmap a mapping, or only its first page (splitting it in the kernel). */
static void fuzz_munmap(struct model *m)
{
	struct mapping *mp;
	size_t page = m->info.page_size;
	int i;

	if (!m->nmaps)
		return;
	i = (int)rnd_below(m->nmaps);
	mp = &m->maps[i];
	if (mp->len > page && rnd_below(2)) {
		unmap_range(mp, mp->addr, page);
		mp->addr = (char *)mp->addr + page;
		mp->len -= page;
		return;
	}
	unmap_range(mp, mp->addr, mp->len);
	if (mp->slot >= 0)
		mem.slot_used[mp->slot] = 0;
	*mp = m->maps[--m->nmaps];
}

/* Move a mapping to a free slot: it must stay readable and keep counting. */
static void fuzz_mremap(struct model *m)
{
	struct mapping *mp, old;
	int slot;
	void *p;

	if (!m->nmaps || m->nmaps == MAX_MAPS)	/* then a slot is free */
		return;
	mp = &m->maps[rnd_below(m->nmaps)];
	for (slot = (int)rnd_below(MAX_MAPS); mem.slot_used[slot];
	     slot = (slot + 1) % MAX_MAPS)
		;
	old = *mp;
	p = mremap(mp->addr, mp->len, mp->len, MREMAP_MAYMOVE | MREMAP_FIXED,
		   mem.slots + (size_t)slot * SLOT_SIZE);
	count_result(m, p == MAP_FAILED ? errno : 0);
	if (p == MAP_FAILED) {
		REPORT("mremap move of %zu bytes: %s", mp->len, strerror(errno));
		return;
	}
	(void)*(volatile unsigned char *)p;
	mem.slot_used[slot] = 1;
	mp->addr = p;
	mp->slot = slot;
	/* The old place is empty now; a slot gets its PROT_NONE back. */
	if (old.slot >= 0) {
		unmap_range(&old, old.addr, old.len);
		mem.slot_used[old.slot] = 0;
	}
}

/*
 * Close the fd. With mappings left the session lives on: a new open gets
 * EBUSY until the last munmap, and only then is everything freed.
 */
static void fuzz_close_reopen(struct model *m)
{
	long long n;
	int fd;

	close(m->fd);
	m->fd = -1;
	if (m->nmaps) {
		errno = 0;
		fd = open(FXTRACE_DEV_PATH, O_RDWR | O_CLOEXEC);
		count_result(m, fd < 0 ? errno : 0);
		if (fd >= 0) {
			REPORT("open succeeded while the closed session still has %d mappings",
			       m->nmaps);
			close(fd);
		} else if (errno != EBUSY) {
			REPORT("open with the old session still mapped: %s, expected EBUSY",
			       errno_name(errno));
		}
		while (m->nmaps)
			fuzz_munmap(m);
	}
	n = live_allocations();
	if (n > 0)
		REPORT("live_allocations %lld after the session ended", n);
	model_open(m);
}

TEST(calls_in_random_order)
{
	struct model m = { .fd = -1 };
	unsigned long starts = 0, reopens = 0;
	double end;

	rng_seed(3);
	mem_setup();
	model_open(&m);
	end = now_s() + opt_seconds * 2 / 3;
	while (now_s() < end) {
		unsigned long r = rnd_below(100);
		struct fxtrace_config cfg;
		int err;

		if (r < 20) {
			model_get_info(&m, "a random call");
		} else if (r < 35) {
			random_config(&cfg);
			if (rnd_below(2)) {	/* a valid one, most of the time */
				cfg.flags = 0;
				memset(cfg.__reserved, 0, sizeof(cfg.__reserved));
				cfg.buf_size = FXTRACE_BUF_SIZE_MIN << rnd_below(3);
				cfg.watermark = 0;
			}
			err = do_ioctl(m.fd, FXTRACE_IOC_CONFIGURE, &cfg);
			model_configure(&m, &cfg, err, "in random order");
		} else if (r < 43) {
			model_start(&m, NULL);
			starts++;
		} else if (r < 51) {
			model_stop(&m, NULL);
		} else if (r < 71) {
			fuzz_mmap(&m);
		} else if (r < 86) {
			fuzz_munmap(&m);
		} else if (r < 96) {
			fuzz_mremap(&m);
		} else {
			fuzz_close_reopen(&m);
			reopens++;
		}
	}
	printf("#   %lu calls (%lu ok, %lu EINVAL, %lu EBUSY, %lu EFAULT, %lu other), %lu START, %lu reopen, %lu GET_INFO checks\n",
	       m.ops, m.by_errno[0], m.by_errno[1], m.by_errno[2],
	       m.by_errno[3], m.by_errno[4], starts, reopens, m.checked);
	EXPECT_NE(0, m.by_errno[0]);
	EXPECT_NE(0, m.by_errno[1]);
	EXPECT_NE(0, m.by_errno[2]);
	while (m.nmaps)
		fuzz_munmap(&m);
	close(m.fd);
	expect_no_live_allocations();
}

/* ---- the end ------------------------------------------------------------- */

#define TAINTED_PATH	"/proc/sys/kernel/tainted"

/* The taint flags into @t; 0, or -1 with why not in @err. */
static int read_taint(unsigned long long *t, char *err, size_t len)
{
	FILE *f = fopen(TAINTED_PATH, "r");
	int ok;

	if (!f) {
		snprintf(err, len, "%s", strerror(errno));
		return -1;
	}
	ok = fscanf(f, "%llu", t) == 1;
	fclose(f);
	if (!ok) {
		snprintf(err, len, "no number in it");
		return -1;
	}
	return 0;
}

/*
 * A WARN or BUG taints the kernel (W = bit 9, D = bit 7); loading an
 * out-of-tree unsigned module (O, E) is expected and ignored. Flags that
 * cannot be read make no check: a skip, a failure in the test VM.
 */
TEST(kernel_not_tainted_by_fuzzing)
{
	unsigned long long after, bad = (1ULL << 7) | (1ULL << 9);
	char err[96];

	if (taint_before_err[0])
		SKIP_OR_FAIL_IN_VM("cannot read %s before fuzzing: %s",
				   TAINTED_PATH, taint_before_err);
	if (read_taint(&after, err, sizeof(err)))
		SKIP_OR_FAIL_IN_VM("cannot read %s after fuzzing: %s",
				   TAINTED_PATH, err);
	printf("#   tainted: %#llx before, %#llx after\n", taint_before, after);
	EXPECT_EQ(0, (after & ~taint_before) & bad);
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: ioctl_fuzz [--seed N] [--seconds S]\n"
"\n"
"Fuzz /dev/fxtrace's ioctls and mmap (see the top of ioctl_fuzz.c) and print\n"
"TAP. --seed reproduces a run (default: from the clock, always printed);\n"
"--seconds bounds the random phases (default 20).\n"
"Exit status: 0 pass, 1 fail, 4 skip (no module), 2 usage.\n"
"\n"
"EXAMPLES\n"
"  ioctl_fuzz --seconds 60\n"
"  ioctl_fuzz --seed 1234567   # rerun a failure\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "seconds", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct timespec ts;
	char *end;
	int opt;

	clock_gettime(CLOCK_REALTIME, &ts);
	opt_seed = (unsigned long long)ts.tv_sec * 1000000007ULL ^
		   (unsigned long long)ts.tv_nsec ^ (unsigned long long)getpid();
	while ((opt = getopt_long(argc, argv, "s:t:h", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			errno = 0;
			opt_seed = strtoull(optarg, &end, 0);
			if (errno || *end || end == optarg) {
				fprintf(stderr, "ioctl_fuzz: --seed takes a number, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 't':
			opt_seconds = strtod(optarg, &end);
			if (*end || end == optarg || opt_seconds <= 0 || opt_seconds > 86400) {
				fprintf(stderr, "ioctl_fuzz: --seconds takes a number from 0 to 86400, not '%s'\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ioctl_fuzz: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	read_taint(&taint_before, taint_before_err, sizeof(taint_before_err));
	return harness_run(0);
}

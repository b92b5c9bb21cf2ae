/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * fxtrace: system-wide scheduler tracing in the Fuchsia Trace Format (FXT).
 *
 * This is the only file shared by the kernel module (kmod/) and userspace
 * (collector/). It is an ABI contract: every structure is made of fixed-size
 * fields with explicit padding, reserved fields must be zero, and any
 * incompatible change bumps FXTRACE_ABI_VERSION.
 *
 * == Session lifecycle ==
 *
 *   fd = open("/dev/fxtrace", O_RDWR);       root + CAP_PERFMON/CAP_SYS_ADMIN;
 *                                           one session at a time (EBUSY)
 *   ioctl(fd, FXTRACE_IOC_GET_INFO, &info);  ABI version, CPUs, mmap layout
 *   ioctl(fd, FXTRACE_IOC_CONFIGURE, &cfg);  optional; per-CPU buffer size
 *   mmap() each possible CPU's control page (read-write, shared) and data
 *          area (read-only, shared) at the offsets given in info
 *   ioctl(fd, FXTRACE_IOC_START);            attach to the tracepoints
 *   loop { poll(fd, POLLIN, timeout); drain every ring; }
 *   ioctl(fd, FXTRACE_IOC_STOP);             detach; every record is committed
 *   drain every ring one last time; close(fd);
 *
 * The buffers are allocated (zeroed) by CONFIGURE, or with the default size by
 * the first mmap or START if CONFIGURE was never called. CONFIGURE fails with
 * EBUSY while tracing or while any part of the buffers is mapped. A CONFIGURE
 * that fails with ENOMEM leaves no buffers, but its buf_size and watermark
 * stay (GET_INFO shows the buf_size, state EMPTY; it has no field for the
 * watermark): the first mmap or START tries that size again, so configure
 * a smaller one first. A first mmap that allocates does it holding the
 * caller's mmap_lock, as does an mmap waiting for a CONFIGURE in another
 * thread: every page fault of that process waits meanwhile (one zeroed
 * buffer per possible CPU). A reader that configures (or starts) before it
 * maps never allocates in mmap.
 *
 * The session, and tracing if it was started, lasts until its last file
 * descriptor and its last mapping are gone. Both are inherited by fork(): a
 * reader that forks other programs opens with O_CLOEXEC and either unmaps
 * in the child or marks its mappings MADV_DONTFORK, or a child that lives
 * on keeps every CPU traced after the reader is gone, and /dev/fxtrace busy.
 * A mapping's pages are inserted when it is made and never faulted in
 * again: madvise(MADV_DONTNEED) on it leaves that range unbacked, and a
 * later access there is SIGBUS. Unmap and map again instead.
 *
 * == mmap layout ==
 *
 * Userspace is told the layout, it does not compute it: for CPU n,
 *   control page: info.ctrl_size bytes at
 *                 info.ctrl_offset + n * info.cpu_stride
 *   data area:    ctrl.buf_size bytes (that CPU's control page) at
 *                 info.data_offset + n * info.cpu_stride
 * A CPU present when the buffers were allocated has a data area of
 * info.buf_size bytes; a CPU that is only possible (a hot-plug slot with
 * no CPU in it: firmware often declares many) has one of
 * FXTRACE_BUF_SIZE_MIN, so that it costs little memory and a CPU plugged
 * in later is still traced, with drops counted when it writes more than
 * its reader keeps up with. (Since ABI 6; every data area was
 * info.buf_size bytes before.)
 * These offsets are 64-bit: a 32-bit process maps them with a 64-bit off_t
 * (_FILE_OFFSET_BITS=64); a 32-bit one cuts those of 2 GiB and more.
 * Data areas can only be mapped read-only (PROT_WRITE gives EPERM, and
 * mprotect() cannot add it later). No region can be mapped executable
 * (PROT_EXEC gives EPERM; mprotect() cannot add it either). A CPU below
 * info.nr_cpu_ids that is not possible on this machine gives ENXIO. Offsets
 * or lengths outside one region, CPUs from nr_cpu_ids on included, give
 * EINVAL.
 *
 * == Ring protocol (one producer: the CPU's probes; one consumer) ==
 *
 * Positions are free-running 64-bit byte counts. The byte at position p lives
 * at data[p & (buf_size - 1)], buf_size being the ring's own (ctrl.buf_size).
 * A record may wrap around the end of the data area; records are whole
 * multiples of 8 bytes and the area size is a power of two, so no 8-byte
 * word is ever split. Positions are compared by subtraction
 * (pos_a - pos_b), never with '<', so the 64-bit wrap is harmless. A consumer
 * loads and stores them, and loads the 64-bit counters, as single 64-bit
 * atomic accesses (__atomic_load_n()/__atomic_store_n() on the __u64), in a
 * 32-bit process too: an access split into two 32-bit halves can be torn by
 * the other side's store in between. A torn consumer_pos is 4 GiB off, out
 * of range for any ring (FXTRACE_BUF_SIZE_MAX): records are dropped and
 * counted in consumer_errors, but nothing unread is overwritten.
 *
 *   kernel (producer)                     userspace (consumer)
 *   -----------------                     --------------------
 *   cons = load_acquire(consumer_pos) (B) head = load_acquire(producer_pos) (C)
 *   if (head + len - cons > size) drop    tail = consumer_pos
 *   write record bytes at head            copy bytes [tail, head) (<= 2 chunks)
 *   store_release(producer_pos,           store_release(consumer_pos, head) (D)
 *                 head + len)       (A)
 *
 *   (A) pairs with (C): the consumer never sees a position before the bytes
 *       of the records below it.
 *   (D) pairs with (B): the producer never overwrites bytes the consumer is
 *       still copying.
 *
 * Both positions are 0 when the buffers are allocated (CONFIGURE, or the
 * first mmap or START), and keep running across STOP and START.
 *
 * Every byte in [consumer_pos, producer_pos) is a sequence of whole FXT
 * records ready to be copied verbatim into a trace file. The kernel never
 * trusts consumer_pos: a value behind producer_pos by more than buf_size, or
 * ahead of it, is treated as "ring full" (records are dropped and counted in
 * records_dropped) and counted in consumer_errors. Nor does it read
 * producer_pos back: every drop stores its own position there again, so a
 * consumer that was shown an overwritten producer_pos (and followed it, or
 * found nothing to drain in a full ring) finds the real one and can catch
 * up. One that followed a position ahead of the real one has stored it as
 * consumer_pos: every record is then dropped, each counted in
 * consumer_errors, and the real position is behind what it took as read.
 * It catches up by going back to that one (what it copied past it was not
 * this lap's records); consumer_errors, risen since it stored consumer_pos,
 * tells this from a producer_pos overwritten with one behind, which the
 * kernel's next record or drop replaces with the real one. Likewise, a
 * consumer that finds another value in consumer_pos than it stored stores
 * its own again: the kernel measures room against whatever is there, and
 * against another value may drop every record while publishing nothing new
 * to drain.
 *
 * A record that does not fit is dropped, never an old one, and
 * records_dropped counts it. Room is measured for a record's longest form:
 * a context switch needs 56 bytes free, whichever of its 40-, 48- or
 * 56-byte forms it then writes, so a ring within 56 bytes of full drops it.
 * Every record a probe tries to write ends up in exactly one of
 * records_written and records_dropped. Loss markers (see
 * "Records") are counted apart, in markers_written.
 *
 * == poll ==
 *
 * POLLIN when some CPU's ring holds at least the watermark; and, for a ring
 * holding anything at all, when tracing has stopped or when that ring is
 * dropping records (a watermark close to buf_size may never be reached by a
 * full ring). The wakeup is not sent for a CPU that is going offline or
 * coming online, so poll with a timeout (as fxt-collect does) rather than
 * only waiting for POLLIN. The wakeup is sent once per drain: when a
 * record brings its ring to the watermark as measured against the
 * consumer_pos the reader stored before it last called poll(). So poll
 * after each drain; edge-triggered epoll (EPOLLET), which does not look
 * again, can sleep with a watermark pending. poll() looks at the rings
 * under the lock of the session's buffers: one called while another
 * thread's CONFIGURE or first mmap allocates the rings waits for that to
 * finish, uninterruptibly and past its own timeout. Another thread's
 * START or STOP (attaching or detaching the probes) does not hold it up;
 * nor does it hold up GET_INFO, whose state reads TRACING from the moment
 * START has attached the probes until STOP has detached them.
 *
 * == Clock ==
 *
 * Timestamps are CLOCK_BOOTTIME nanoseconds (1 tick = 1 ns), the same on all
 * CPUs and readable from userspace with clock_gettime(CLOCK_BOOTTIME).
 *
 * == Records ==
 *
 * The kernel writes these FXT records (see the FXT_* constants below and
 * the format's specification,
 * fuchsia.dev/fuchsia-src/reference/tracing/trace-format); nothing else
 * ever appears in a ring.
 *
 * Context switch (scheduling kind 1), 5 to 7 words (40 to 56 bytes):
 *   header: type 8, size 5, 6 or 7, 1 to 3 args, CPU, outgoing FXT thread
 *           state, kind 1
 *   timestamp; outgoing tid; incoming tid
 *   int32  FXTRACE_STR_INCOMING_WEIGHT = next->prio (INT32_MIN for idle)
 *   int32  FXTRACE_STR_OUTGOING_WEIGHT = prev->prio (INT32_MIN for idle),
 *          left out when this CPU's previous context switch record already
 *          said it: prev is the task that switch brought in, and its
 *          incoming_weight is prev->prio. It is always there for an idle
 *          outgoing task, for the first switch a CPU writes after START,
 *          after this CPU dropped any record, and when prev->prio changed
 *          while it ran (renice, priority inheritance). A reader that
 *          tracks, per CPU in file order, the incoming_weight of the last
 *          switch knows the outgoing weight of every switch without one.
 *          (Since ABI 4.)
 *   uint32 FXTRACE_STR_LINUX_STATE     = raw prev_state from the tracepoint,
 *          left out when the outgoing FXT state implies it: a switch
 *          without linux_state had prev_state 0 (TASK_RUNNING) if its
 *          state is FXT_THREAD_STATE_RUNNING (preempted or yielding) and
 *          1 (TASK_INTERRUPTIBLE), or 0x2001 (the same with the
 *          TASK_FREEZABLE modifier of Linux >= 6.1: futex waits,
 *          nanosleep), if it is FXT_THREAD_STATE_BLOCKED. It is there for
 *          any other sleep (D, I, parked, ...) and for a task preempted
 *          after it set a sleeping state. (Since ABI 3.) A task that
 *          called schedule() with a signal pending did not sleep: it is
 *          running, with prev_state 0, as Linux >= 6.16 passes it (older
 *          kernels pass the sleeping state it had set).
 *   The arguments that are present come in this order.
 *
 * Wakeup (scheduling kind 2), 5 words (40 bytes), 3 without a waker:
 *   header: type 8, size, 1 or 0 args, target CPU, kind 2
 *   timestamp; woken tid
 *   koid   FXTRACE_STR_WAKER  = tid of the waking task; omitted when the
 *                               wakeup came from interrupt or softirq
 *                               context (timer expiry, network receive) or
 *                               idle (on PREEMPT_RT most hard interrupt
 *                               handlers run in threads: the handler's
 *                               thread is named; softirqs run in threads
 *                               there too, and still name no waker),
 *                               and when the kernel lost track of it: a
 *                               wakeup completed on another CPU than the
 *                               waker's, after a second wakeup whose task
 *                               hashes to the same slot of the kernel's
 *                               table started (rare), or a wakeup started
 *                               before START. Never a task that did not
 *                               wake it.
 *   No weight (ABI <= 3 wrote p->prio as "weight"): Perfetto reads a
 *   wakeup's weight only to tell an idle task, which is never woken, and
 *   the woken task's priority is the incoming_weight of the switch that
 *   runs it (a change between the two, which only priority inheritance
 *   or a renice of a waiting task makes, shows there). (Since ABI 4.)
 *
 * Names (kernel object records, type 7), written when a task is created
 * (sched_wakeup_new, just before its wakeup record: every new task, however
 * created, is woken there once before it first runs), execs
 * (sched_process_exec) or is renamed (task_rename), before the task's next
 * scheduling record on any CPU:
 *   process: header (object type FXT_OBJ_TYPE_PROCESS, inline name, 0 args);
 *            koid = tgid; the name, 0 to 2 words (2 to 4 words in all;
 *            0 for an empty name, which prctl(PR_SET_NAME, "") gives)
 *   thread:  header (object type FXT_OBJ_TYPE_THREAD, inline name, 1 or 2
 *            args); koid = tid; the name; koid FXTRACE_STR_PROCESS = tgid;
 *            at sched_wakeup_new only, int32 FXTRACE_STR_NEW_TASK = 1
 *            (4 to 7 words in all)
 * A new process (fork of a group leader) and exec write both; a new thread
 * and a rename write the thread record, plus the process record when the
 * task is the group leader (the process is named after it). Names are at
 * most 15 bytes (TASK_COMM_LEN - 1), inline, zero-padded to a word. A
 * reused tid gets a new record when it is created, so last-wins per tid
 * in file order names every incarnation correctly from then on. The
 * new_task argument says the thread begins there: nothing of it, and so
 * no wait of it, precedes the record, even in a hole in the data before
 * it; and a record with it for a tid already seen names another thread
 * (ABI 5).
 *
 * Loss markers (counter events: event record type 4, event type 1), 7 words
 * each, written in pairs by the first record that fits after a ring dropped
 * records: name FXTRACE_STR_RECORDS_LOST, category FXTRACE_STR_FXTRACE,
 * inline thread = the session's opener (its tgid and tid), counter id = the
 * CPU, one int64 argument FXTRACE_STR_CPU =
 *   the number of records lost, at the time of the first record lost;
 *   0, at the timestamp of the record that follows the pair.
 * Perfetto draws each pair as a block on the counter track
 * "records_lost:cpu:<id>" spanning exactly the hole in that CPU's data.
 * Markers are counted in markers_written, not in records_written. Records
 * lost when the session stops, before any record fits again, have no
 * marker; records_dropped always has them.
 *
 * Argument and event names are indices into the string table that the
 * collector defines with String records before any ring data
 * (FXTRACE_STRING_TABLE below). CPU numbers are written as they are;
 * Perfetto accepts < 4096.
 */
#ifndef _UAPI_LINUX_FXTRACE_H
#define _UAPI_LINUX_FXTRACE_H

#include <linux/types.h>
#include <linux/ioctl.h>

/*
 * 1: the first; 2: name records and loss markers; 3: a context switch
 * leaves out linux_state when its FXT state implies it; 4: a context switch
 * leaves out outgoing_weight when the CPU's previous switch said it, and a
 * wakeup has no weight ("Records"); 5: a new thread's name record says so
 * (new_task, "Names"); 6: a CPU that is possible but not present gets a
 * data area of FXTRACE_BUF_SIZE_MIN, its control page says so ("mmap
 * layout").
 */
#define FXTRACE_ABI_VERSION		6
#define FXTRACE_DEVICE_NAME		"fxtrace"	/* /dev/fxtrace */

/* Per-CPU data area size: a power of two in [MIN, MAX]. */
#define FXTRACE_BUF_SIZE_MIN		(64ULL << 10)	/* 64 KiB */
#define FXTRACE_BUF_SIZE_MAX		(256ULL << 20)	/* 256 MiB */
#define FXTRACE_BUF_SIZE_DEFAULT	(4ULL << 20)	/* 4 MiB */

/* The clock of every timestamp (CLOCK_BOOTTIME in <linux/time.h>). */
#define FXTRACE_CLOCK_ID		7

/* Values of fxtrace_info.state. */
#define FXTRACE_STATE_EMPTY		0	/* no buffers allocated yet */
#define FXTRACE_STATE_READY		1	/* buffers allocated, not tracing */
#define FXTRACE_STATE_TRACING		2	/* probes attached */

/**
 * struct fxtrace_info - FXTRACE_IOC_GET_INFO result (kernel writes all of it)
 * @abi_version: FXTRACE_ABI_VERSION of the module
 * @info_size: sizeof(struct fxtrace_info) in the module
 * @nr_cpu_ids: CPU numbers are below this; some of them may be absent
 * @page_size: the kernel's PAGE_SIZE
 * @buf_size: data area bytes of each present CPU (configured or default;
 *	"mmap layout")
 * @cpu_stride: mmap offset distance from one CPU to the next
 * @ctrl_offset: mmap offset of CPU 0's control page
 * @data_offset: mmap offset of CPU 0's data area
 * @ctrl_size: bytes to map for one control page
 * @clock_id: FXTRACE_CLOCK_ID
 * @state: FXTRACE_STATE_*
 * @__pad: zero
 * @__reserved: zero
 */
struct fxtrace_info {
	__u32 abi_version;
	__u32 info_size;
	__u32 nr_cpu_ids;
	__u32 page_size;
	__u64 buf_size;
	__u64 cpu_stride;
	__u64 ctrl_offset;
	__u64 data_offset;
	__u32 ctrl_size;
	__u32 clock_id;
	__u32 state;
	__u32 __pad;
	__u64 __reserved[4];
};

/**
 * struct fxtrace_config - FXTRACE_IOC_CONFIGURE argument (userspace writes)
 * @buf_size: bytes of each present CPU's ring; 0 = FXTRACE_BUF_SIZE_DEFAULT
 * @watermark: wake poll() at this many pending bytes in one CPU's ring;
 *	0 = buf_size / 4; must be below buf_size. A smaller ring (a CPU not
 *	present, "mmap layout") uses at most a quarter of its own size
 * @flags: must be 0
 * @__reserved: must be 0, else EINVAL
 */
struct fxtrace_config {
	__u64 buf_size;
	__u32 watermark;
	__u32 flags;
	__u64 __reserved[6];
};

#define FXTRACE_CTRL_VERSION		2

/**
 * struct fxtrace_ctrl - the per-CPU control page
 * @version: FXTRACE_CTRL_VERSION
 * @size: sizeof(struct fxtrace_ctrl) in the module
 * @cpu: the CPU this ring belongs to
 * @__pad: zero
 * @buf_size: bytes in this CPU's data area, a power of two: info.buf_size,
 *	or FXTRACE_BUF_SIZE_MIN for a CPU not present ("mmap layout")
 * @__reserved0: zero
 * @producer_pos: end of the last committed record; (A)
 * @records_written: records committed to the ring (stored just before
 *	producer_pos: while tracing it may count a record that producer_pos
 *	does not cover yet)
 * @records_dropped: records lost because the ring was full
 * @tracepoint_hits: records the probes tried to write: written + dropped,
 *	plus, while tracing, the one record being written at that moment
 * @last_drop_ns: timestamp of the most recent drop, 0 = none
 * @consumer_errors: times consumer_pos was found out of range
 * @markers_written: loss markers committed to the ring (stored when
 *	they are reserved, before producer_pos covers them)
 * @__reserved1: zero
 * @consumer_pos: end of what userspace has copied; (D)
 * @__reserved2: zero
 *
 * Mapped read-write, but the kernel only ever reads consumer_pos from it (and
 * validates it); everything else it writes from private copies, so userspace
 * scribbling here can only confuse itself. Three cache lines: the first is
 * constant for the life of the buffers, the producer's (offset 64) only the
 * kernel writes, the consumer's (offset 128) only userspace writes.
 */
struct fxtrace_ctrl {
	__u32 version;
	__u32 size;
	__u32 cpu;
	__u32 __pad;
	__u64 buf_size;
	__u64 __reserved0[5];

	__u64 producer_pos;
	__u64 records_written;
	__u64 records_dropped;
	__u64 tracepoint_hits;
	__u64 last_drop_ns;
	__u64 consumer_errors;
	__u64 markers_written;
	__u64 __reserved1;

	__u64 consumer_pos;
	__u64 __reserved2[7];
};

#define FXTRACE_IOC_MAGIC		0xF7
#define FXTRACE_IOC_GET_INFO		_IOR(FXTRACE_IOC_MAGIC, 0x00, struct fxtrace_info)
#define FXTRACE_IOC_CONFIGURE		_IOW(FXTRACE_IOC_MAGIC, 0x01, struct fxtrace_config)
#define FXTRACE_IOC_START		_IO(FXTRACE_IOC_MAGIC, 0x02)
#define FXTRACE_IOC_STOP		_IO(FXTRACE_IOC_MAGIC, 0x03)

/*
 * Errors, by call:
 *   open       EPERM   neither CAP_PERFMON nor CAP_SYS_ADMIN
 *              EBUSY   another session is open
 *              ENOMEM  the session could not be allocated
 *   GET_INFO   EFAULT  bad pointer
 *   CONFIGURE  EFAULT  bad pointer
 *              EINVAL  flags or __reserved not zero; buf_size not a power of
 *                      two in [MIN, MAX]; watermark >= buf_size
 *              EBUSY   tracing, or some part of the buffers is mapped
 *              ENOMEM  the buffers could not be allocated, or one ring per
 *                      possible CPU (of buf_size for a present one, of
 *                      FXTRACE_BUF_SIZE_MIN for any other) would need
 *                      more than the memory available (a kernel message
 *                      says how much);
 *                      either way none are left, and a smaller buf_size
 *                      may be configured. The check is an estimate: if
 *                      memory runs out while the rings are filled, the
 *                      caller is marked the OOM killer's first choice
 *                      (ftrace's buffer_size_kb does the same), so it is
 *                      killed rather than another process (unless
 *                      vm.oom_kill_allocating_task is set, or the OOM is
 *                      confined to a cpuset or memory cgroup), and none
 *                      are left. Unlike ftrace's, the rings' own
 *                      allocation may wake the OOM killer (vmalloc_user()
 *                      cannot be asked to fail instead)
 *   START      EBUSY   already tracing
 *              ENOMEM  buffers of the configured or default size could
 *                      not be allocated (as for CONFIGURE), or attaching
 *                      to a tracepoint failed: then no probe stays
 *                      attached, the buffers stay, and START may be tried
 *                      again
 *   STOP       EINVAL  not tracing
 *   other      ENOTTY  unknown command
 *   mmap       EACCES  the kernel's checks (do_mmap()), made before all
 *                      of the module's below, whatever the region: any
 *                      mapping of a file opened O_WRONLY (mapping needs
 *                      read access; that open, and its ioctls, succeed),
 *                      and PROT_WRITE with MAP_SHARED or
 *                      MAP_SHARED_VALIDATE on a file opened read-only. A
 *                      reader that consumes opens O_RDWR
 *              EINVAL  not MAP_SHARED: MAP_PRIVATE too, PROT_WRITE or
 *                      not, on a file opened read-only as well (the
 *                      kernel checks write access for shared mappings
 *                      only); offset or length outside one region (a CPU
 *                      from nr_cpu_ids on is outside them all)
 *              EPERM   PROT_WRITE on a data area; PROT_EXEC on any
 *                      region (also what a READ_IMPLIES_EXEC
 *                      personality adds)
 *              ENXIO   a CPU below nr_cpu_ids that is not possible here
 *              ENOMEM  the first mapping of a session with no buffers
 *                      (never configured, or its CONFIGURE failed) could
 *                      not allocate them
 * CONFIGURE, START and a first mmap that allocate the buffers give EINTR
 * instead when a fatal signal arrives meanwhile (the caller is being
 * killed and never sees it); none are left, as after ENOMEM.
 * START and STOP take no argument and ignore the third ioctl() argument.
 */

/*
 * String-table indices used by kernel records. The collector writes one FXT
 * String record for each before any ring data. Index 0 means "empty string"
 * in FXT and is never used.
 */
#define FXTRACE_STR_INCOMING_WEIGHT	1	/* "incoming_weight" */
#define FXTRACE_STR_OUTGOING_WEIGHT	2	/* "outgoing_weight" */
#define FXTRACE_STR_WEIGHT		3	/* "weight" (no kernel record since ABI 4) */
#define FXTRACE_STR_WAKER		4	/* "waker" */
#define FXTRACE_STR_LINUX_STATE		5	/* "linux_state" */
#define FXTRACE_STR_PROCESS		6	/* "process" */
#define FXTRACE_STR_FXTRACE		7	/* "fxtrace" */
#define FXTRACE_STR_RECORDS_LOST	8	/* "records_lost" */
#define FXTRACE_STR_CPU			9	/* "cpu" */
#define FXTRACE_STR_NEW_TASK		10	/* "new_task" (since ABI 5) */
#define FXTRACE_STR_COUNT		11	/* first index free for the collector */

/*
 * The text of every index above, in index order: piece i of this string,
 * split at NUL bytes, is the text of index i (piece 0 is the empty string).
 */
#define FXTRACE_STRING_TABLE						\
	"\0incoming_weight\0outgoing_weight\0weight\0waker\0linux_state"	\
	"\0process\0fxtrace\0records_lost\0cpu\0new_task"

/*
 * FXT format constants, as specified at
 * fuchsia.dev/fuchsia-src/reference/tracing/trace-format. Bit ranges are
 * [lsb, msb].
 */
#define FXT_MAGIC_RECORD		0x0016547846040010ULL

#define FXT_RECORD_METADATA		0
#define FXT_RECORD_INITIALIZATION	1
#define FXT_RECORD_STRING		2
#define FXT_RECORD_THREAD		3
#define FXT_RECORD_EVENT		4
#define FXT_RECORD_BLOB			5
#define FXT_RECORD_USERSPACE_OBJECT	6
#define FXT_RECORD_KERNEL_OBJECT	7
#define FXT_RECORD_SCHEDULING		8
#define FXT_RECORD_LOG			9
#define FXT_RECORD_LARGE		15

#define FXT_MAX_RECORD_WORDS		4095

/* Header fields common to every record. */
#define FXT_HDR_TYPE_SHIFT		0	/* [0..3] */
#define FXT_HDR_SIZE_SHIFT		4	/* [4..15], words incl. header */
#define FXT_HDR_SIZE_MASK		0xfffULL

/* Scheduling record (type 8) fields. */
#define FXT_SCHED_ARGC_SHIFT		16	/* [16..19] */
#define FXT_SCHED_CPU_SHIFT		20	/* [20..35] */
#define FXT_SCHED_CPU_MASK		0xffffULL
#define FXT_SCHED_STATE_SHIFT		36	/* [36..39], context switch only */
#define FXT_SCHED_KIND_SHIFT		60	/* [60..63] */
#define FXT_SCHED_KIND_LEGACY_SWITCH	0
#define FXT_SCHED_KIND_CONTEXT_SWITCH	1
#define FXT_SCHED_KIND_WAKEUP		2

/* FXT thread states (the outgoing state of a context switch). */
#define FXT_THREAD_STATE_NEW		0
#define FXT_THREAD_STATE_RUNNING	1	/* preempted, still runnable */
#define FXT_THREAD_STATE_SUSPENDED	2	/* stopped or traced */
#define FXT_THREAD_STATE_BLOCKED	3	/* sleeping, incl. D, I, parked */
#define FXT_THREAD_STATE_DYING		4	/* zombie */
#define FXT_THREAD_STATE_DEAD		5

/* Argument header fields. */
#define FXT_ARG_TYPE_SHIFT		0	/* [0..3] */
#define FXT_ARG_SIZE_SHIFT		4	/* [4..15], words incl. header */
#define FXT_ARG_NAME_SHIFT		16	/* [16..31] */
#define FXT_ARG_VALUE_SHIFT		32	/* [32..63] */

#define FXT_ARG_NULL			0
#define FXT_ARG_INT32			1
#define FXT_ARG_UINT32			2
#define FXT_ARG_INT64			3
#define FXT_ARG_UINT64			4
#define FXT_ARG_DOUBLE			5
#define FXT_ARG_STRING			6
#define FXT_ARG_POINTER			7
#define FXT_ARG_KOID			8
#define FXT_ARG_BOOL			9
#define FXT_ARG_BLOB			10

/* Kernel object record (type 7) fields. */
#define FXT_KOBJ_TYPE_SHIFT		16	/* [16..23] */
#define FXT_KOBJ_NAME_SHIFT		24	/* [24..39] */
#define FXT_KOBJ_ARGC_SHIFT		40	/* [40..43] */

/* Event record (type 4) fields. */
#define FXT_EVENT_TYPE_SHIFT		16	/* [16..19] */
#define FXT_EVENT_ARGC_SHIFT		20	/* [20..23] */
#define FXT_EVENT_THREAD_SHIFT		24	/* [24..31], 0 = inline */
#define FXT_EVENT_CATEGORY_SHIFT	32	/* [32..47] */
#define FXT_EVENT_NAME_SHIFT		48	/* [48..63] */
#define FXT_EVENT_COUNTER		1

/* A string reference with this bit set is inline; the rest is its length. */
#define FXT_STRING_REF_INLINE		0x8000

/* Kernel object (type 7) object types (ZX_OBJ_TYPE_*). */
#define FXT_OBJ_TYPE_PROCESS		1
#define FXT_OBJ_TYPE_THREAD		2

#endif /* _UAPI_LINUX_FXTRACE_H */

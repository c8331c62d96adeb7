/* perf_event counters on one thread or task (see pe.h for the design). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "plugins/perf_event/pe.h"

#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif

/* Data pages of a sampled event's ring buffer: it only carries 8-byte
 * sample headers and the rare THROTTLE/LOST record, drained at each
 * rearm, so one page (511 records) is plenty and keeps the
 * perf_event_mlock_kb cost low. */
#define RB_DATA_PAGES 1
/* With kernel call chains a record is up to 8 + 8 + 8 + 8 * 128 bytes,
 * usually ~100 (a read(2): 9 pcs): 8 pages hold 300 usual ones, more than
 * the CREDITS written between two drains, and 31 of the longest (a backlog
 * past that is counted lost).  32 KiB per thread, in the program's RSS:
 * kept small on purpose.  Falls back to RB_DATA_PAGES when the mlock
 * budget refuses it. */
#define RB_DATA_PAGES_KCHAIN 8
/* Events whose records carry a stack copy (kernel_silent, stack_copy):
 * the records wait in the ring until the collector takes them (a
 * kernel-mode twin's until the thread's next user-mode sample or its end,
 * a signalled event's until its handler, later when the program blocks
 * the signal).  A record is the copy plus ~300 bytes: with the default
 * 4 KiB copy the twin's 128 KiB hold 29, the signalling event's 32 KiB
 * (a quarter of the copy: 1 KiB) 24.
 * Halved down to one page while the mlock budget refuses more. */
#define RB_DATA_PAGES_SILENT 32
#define RB_DATA_PAGES_COPY 8

/* Credits (IOC_REFRESH, the kernel's event_limit) of a sampled event with
 * a ring buffer: the kernel stops the event after this many overflows and
 * signals the last one with POLL_HUP; rearm of that one, when every
 * overflow has been signalled and handled, grants the next batch.  One
 * ioctl per CREDITS overflows, and at most CREDITS signals ever queue
 * for the event: without a bound, a handler that falls behind or a blocked
 * signo would queue an RT signal per overflow until the user's
 * RLIMIT_SIGPENDING ran out and the kernel sent SIGIO (which kills).  A
 * batch in which the handler fell behind (an overflow waiting at a rearm)
 * is followed by a batch of 1, then 2, 4, ...: under overload the event runs
 * stop-and-go (one ioctl per overflow) and the program still gets a period
 * of CPU per sample.  Without a ring buffer the overflows cannot be
 * counted, so each batch is 1.  While the handler keeps up, rearm tops the
 * credits up once half are spent (see pe.h): no stop, no re-enable. */
#define CREDITS 128

/* Counter fds live in the top FD_SPAN numbers below min(RLIMIT_NOFILE soft
 * limit, FD_TOP), away from the low numbers a program reuses (dup2 onto 3,
 * close loops up to 256).  FD_TOP bounds the kernel's fd table (and stays
 * under FD_SETSIZE) when the limit is huge. */
#define FD_SPAN 64
#define FD_TOP 1024

struct pe_ev {
	int fd;
	bool sampled;			/* opened with a period or freq */
	uint64_t period;		/* current period (or freq) */
	bool swevent;			/* counted by the kernel's perf_swevent_event() */
	/* Credit accounting (sampled events; see CREDITS).  granted - done
	 * is the kernel's event_limit, exact once the buffer is drained. */
	uint64_t granted;		/* credits given by IOC_REFRESH */
	uint64_t done;			/* overflows: sample records (+ lost), or signals */
	uint64_t seen;			/* overflow signals handled */
	/* Overflows counted done at a POLL_HUP before the kernel wrote the
	 * LOST record that tells them (it writes it with its next record):
	 * that record's count, when it comes, is not added again. */
	uint64_t hup_unwritten;
	uint32_t batch;			/* credits of the next refresh */
	bool behind;			/* the handler fell behind in this batch */
	bool hup;			/* the last signal was POLL_HUP */
	struct perf_event_mmap_page *pg;/* user page (+ ring buffer), or NULL */
	size_t map_len;
	const unsigned char *data;	/* ring buffer data area, or NULL */
	uint64_t data_size;		/* its size, a power of two */
	/* Who fd is: the event's unique id and its file's device and inode
	 * (one anonymous inode for every perf event, so the id decides).  A
	 * program may close the number or dup2 another file onto it; once
	 * that is seen (fd_check) fd is never used again: lost. */
	uint64_t id;
	dev_t dev;
	ino_t ino;
	bool lost;
	uint64_t sample_type;		/* what its sample records hold */
	uint64_t kc_next;		/* ring offset past the last record pe_kernel_chain took */
	/* Records are taken by pe_record, oldest first: drain counts them
	 * (up to `counted`) but leaves them in the ring. */
	bool keep;
	bool silent;			/* kernel mode only, never signals (no O_ASYNC) */
	uint64_t counted;
	uint64_t regs_mask;		/* sample_regs_user */
	unsigned data_pages;		/* ring data pages wanted */
	/* A silent event's losses: the kernel writes its LOST record only
	 * with the next sample that fits, which never comes for a thread
	 * that stays in the kernel until its end; read_format
	 * PERF_FORMAT_LOST (Linux 6.0) tells them at once. */
	bool fmt_lost;
	uint64_t lost_seen;		/* losses handed out (records and read) */
	uint64_t lost_early;		/* ... of which read before their record came */
	uint64_t rec_max;		/* bytes of the largest record */
	bool full;			/* the ring was found too full for one more */
	/* A silent twin's period is its event's times 2^slow while the
	 * thread shows little kernel time (twin_adapt): records per
	 * signal over a window. */
	bool freq;			/* period is a frequency: not adapted */
	uint8_t slow;
	uint32_t win_sig, win_rec;
};

struct pe_ctx {
	size_t n;
	pid_t pid;
	bool armed;
	/* Counting-only events of one thread form a kernel group, leader
	 * ev[0]: started and stopped together and read with one read()
	 * (PERF_FORMAT_GROUP|ID), values matched by id. */
	bool grouped;
	uint64_t id[PMC_MAX_EVENTS];
	/* signo SIGTRAP: sampled events use the kernel's attr.sigtrap (see
	 * pe.h): no credits, no refresh, matched by si_perf_data. */
	bool trap;
	volatile bool started;		/* overflow() refuses signals when false */
	/* stop() is disabling: a rearm in a handler that interrupts it must
	 * not refresh (IOC_REFRESH enables a disabled event). */
	volatile bool stopping;
	/* Sampling groups live in a program that does not know about them
	 * (the collector): every use of a descriptor first checks that it is
	 * still ours (fd_check).  A counting group belongs to the program
	 * that opened it through libpmc, whose reads stay one syscall. */
	bool guarded;
	int signo;			/* from arm */
	pid_t tid;			/* the thread that gets the signals */
	pid_t proc;			/* the process whose descriptor table holds ev[].fd */
	int draining;			/* one drainer at a time (atomic exchange) */
	/* pe_orphan: ev[].fd index another process's descriptor table (the
	 * counted one is dead; its memory, rings included, is still mapped
	 * here).  No syscall on them any more, and fd_lost counts nothing. */
	bool orphaned;
	struct pmc_sample_stats st;
	struct pe_ev ev[PMC_MAX_EVENTS];
	/* kernel_silent: kev[i] is ev[i]'s kernel-mode twin (fd -1: none),
	 * sampled into its ring only. */
	struct pe_ev kev[PMC_MAX_EVENTS];
};

/* read(2) without libc: no PLT hop, no cancellation-point bookkeeping,
 * errno untouched (the self-monitoring overhead paper's "hard-code the
 * system call").  Returns bytes read or -errno. */
static inline long sys_read(int fd, void *buf, size_t len)
{
#if defined(__x86_64__)
	long ret;

	__asm__ __volatile__("syscall"
			     : "=a"(ret)
			     : "0"((long)SYS_read), "D"((long)fd), "S"(buf), "d"(len)
			     : "rcx", "r11", "memory");
	return ret;
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = SYS_read;
	register long x0 __asm__("x0") = fd;
	register long x1 __asm__("x1") = (long)buf;
	register long x2 __asm__("x2") = (long)len;

	__asm__ __volatile__("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
	return x0;
#else
	ssize_t r = read(fd, buf, len);
	return r < 0 ? -errno : r;
#endif
}

static long page_size(void)
{
	long ps = sysconf(_SC_PAGESIZE);
	return ps > 0 ? ps : 4096;
}

/* Software and tracepoint events never sit on a PMC: no user page, which
 * also spares the per-user mlock budget when many threads are profiled. */
static bool may_rdpmc(uint32_t type)
{
	return type != PERF_TYPE_SOFTWARE && type != PERF_TYPE_TRACEPOINT &&
	       type != PERF_TYPE_BREAKPOINT;
}

/* fd moved to the high range (close-on-exec kept), or fd itself when the
 * limit is too small, the range is full or it is already there. */
static int fd_move_high(int fd)
{
	struct rlimit rl;
	rlim_t top = FD_TOP;
	int hi;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < top)
		top = rl.rlim_cur;
	if (top < 4 * FD_SPAN || (rlim_t)fd >= top - FD_SPAN)
		return fd;
	hi = fcntl(fd, F_DUPFD_CLOEXEC, (int)(top - FD_SPAN));
	if (hi < 0)
		return fd;
	close(fd);
	return hi;
}

/* Events the kernel counts in perf_swevent_event(): software events other
 * than the two hrtimer clocks, tracepoints, breakpoints.  IOC_PERIOD on
 * such an event while it runs leaves period_left at 0, which makes the very
 * next event overflow; only re-adding it (disable, enable) sets a full
 * period.  Hardware events and the clocks restart with a full period. */
/* The statistics have one writer, the counted thread (its handler and
 * drains), and are read by whichever thread writes the profile: relaxed
 * atomic loads and stores, no locked instructions on the handler's path. */
#define ST_INC(field) __atomic_store_n(&(field), __atomic_load_n(&(field), __ATOMIC_RELAXED) + 1, \
				       __ATOMIC_RELAXED)

static void st_copy(struct pmc_sample_stats *to, const struct pmc_sample_stats *from)
{
	to->overflows = __atomic_load_n(&from->overflows, __ATOMIC_RELAXED);
	to->spurious = __atomic_load_n(&from->spurious, __ATOMIC_RELAXED);
	to->throttled = __atomic_load_n(&from->throttled, __ATOMIC_RELAXED);
	to->unthrottled = __atomic_load_n(&from->unthrottled, __ATOMIC_RELAXED);
	to->lost = __atomic_load_n(&from->lost, __ATOMIC_RELAXED);
	to->fd_lost = __atomic_load_n(&from->fd_lost, __ATOMIC_RELAXED);
}

/* Record who e->fd is, right after it was opened. */
static int fd_remember(struct pe_ev *e)
{
	struct stat st;

	if (fstat(e->fd, &st) < 0 || ioctl(e->fd, PERF_EVENT_IOC_ID, &e->id) < 0)
		return -errno;
	e->dev = st.st_dev;
	e->ino = st.st_ino;
	return 0;
}

/* Whether e->fd is still the descriptor we opened; the first time it is
 * not (the program closed it, or put another file on its number), it is
 * counted in fd_lost and never touched again.  The ioctl only reaches a
 * file that fstat shows to be a perf event ('$' ioctls are perf's alone).
 * Two syscalls, no descriptor of the program read, written or closed.
 * Async-signal-safe. */
static bool fd_check(struct pe_ctx *c, struct pe_ev *e)
{
	struct stat st;
	uint64_t id;

	if (e->fd < 0 || e->lost || __atomic_load_n(&c->orphaned, __ATOMIC_ACQUIRE))
		return false;
	if (fstat(e->fd, &st) == 0 && st.st_dev == e->dev && st.st_ino == e->ino &&
	    ioctl(e->fd, PERF_EVENT_IOC_ID, &id) == 0 && id == e->id)
		return true;
	e->lost = true;
	__atomic_fetch_add(&c->st.fd_lost, 1, __ATOMIC_RELAXED);
	return false;
}

static bool is_swevent(uint32_t type, uint64_t config)
{
	if (type == PERF_TYPE_SOFTWARE)
		return config != PERF_COUNT_SW_CPU_CLOCK && config != PERF_COUNT_SW_TASK_CLOCK;
	return type == PERF_TYPE_TRACEPOINT || type == PERF_TYPE_BREAKPOINT;
}

/* Which samples an event of a kernel_silent group keeps. */
enum role {
	ROLE_ALL,		/* as asked */
	ROLE_USER,		/* user mode only: signals */
	ROLE_SILENT,		/* kernel mode only: ring records, no signal */
};

static uint32_t stack_copy_bytes(const struct pmc_group_opts *opts)
{
	uint32_t n = opts->stack_copy & ~7u;

	return n > 65000 ? 65000 & ~7u : n;
}

static void attr_fill(struct perf_event_attr *a, const struct pmc_event *ev,
		      const struct pmc_group_opts *opts, bool sampled, bool grouped,
		      enum role role)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = ev->type;
	a->config = ev->config;
	a->config1 = ev->config1;
	a->config2 = ev->config2;
#if defined(__aarch64__)
	/* arm64 lets a task read its own counters (PMEVCNTR<n>_EL0, the
	 * user page's index) only for events that ask with the CPU PMU's
	 * config1 bit 1 ("rdpmc"), and only while
	 * /proc/sys/kernel/perf_user_access is 1; else the page says index 0
	 * and reads take read().  Hardware, cache and raw events are the CPU
	 * PMU's; another PMU's config1 means something else. */
	if (ev->type == PERF_TYPE_HARDWARE || ev->type == PERF_TYPE_HW_CACHE ||
	    ev->type == PERF_TYPE_RAW)
		a->config1 |= 2;
#endif
	a->exclude_user = ev->exclude_user || role == ROLE_SILENT;
	a->exclude_kernel = ev->exclude_kernel || role == ROLE_USER;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	if (grouped)
		a->read_format |= PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	/* enable_on_exec only acts on an event created disabled. */
	a->disabled = 1;
	a->enable_on_exec = opts->enable_on_exec;
	a->inherit = opts->inherit;
	if (!sampled)
		return;
	/* sigtrap needs remove_on_exec: the counter must not signal a new
	 * program image that has no handler for it. */
	a->sigtrap = opts->signo == SIGTRAP && role != ROLE_SILENT;
	a->remove_on_exec = a->sigtrap;
	if (ev->freq) {
		a->freq = 1;
		a->sample_freq = ev->freq;
	} else {
		a->sample_period = ev->period;
	}
	/* Records carry the sampled ip (its header's cpumode tells kernel
	 * from user mode) and, when asked for and the kernel is counted,
	 * the kernel part of the call chain (the user part is ours):
	 * pe_kernel_chain reads them in the handler.  The ring buffer also
	 * counts the overflows and carries THROTTLE/LOST records.
	 * wakeup_events stays 0: the signal does not come from buffer
	 * wakeups but from the overflow itself (the kernel queues the
	 * fasync wakeup on every overflow of an O_ASYNC event), and at most
	 * CREDITS sample records are written between two drains. */
	a->sample_type = PERF_SAMPLE_IP;
	if (opts->kernel_chain && !a->exclude_kernel) {
		a->sample_type |= PERF_SAMPLE_CALLCHAIN;
		a->exclude_callchain_user = 1;
		a->sample_max_stack = pe_kchain_max_stack();
	}
	/* The kernel's own word on each sample: where (ip, the user
	 * registers and stack), which thread, and its period.  A silent
	 * twin's records are its samples; a signalling event's let the
	 * handler check its signal and place a late one. */
	if ((stack_copy_bytes(opts) && !is_swevent(ev->type, ev->config)) || role == ROLE_SILENT) {
		/* (a software-path event: none, see pe_open) */
		a->sample_type |= PERF_SAMPLE_TID | PERF_SAMPLE_PERIOD;
		if (stack_copy_bytes(opts)) {
			a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
			a->sample_regs_user = PE_REGS_USER_MASK;
			/* A signalling event's copy only serves its late
			 * samples (rare): a quarter, which keeps the leaf and
			 * its first callers, at a quarter of the copying on
			 * every user-mode sample. */
			a->sample_stack_user = role == ROLE_SILENT ? stack_copy_bytes(opts)
								   : (stack_copy_bytes(opts) / 4 + 7) & ~7u;
		}
	}
}

/* Map the user page, plus a ring buffer for a sampled event.  Failure is
 * not an error: reads go through read(), and throttling goes uncounted. */
static void map_page(struct pe_ev *e)
{
	long ps = page_size();
	bool kchain = e->sample_type & PERF_SAMPLE_CALLCHAIN;
	size_t len = (size_t)ps * (e->sampled ? 1 + (kchain ? RB_DATA_PAGES_KCHAIN : RB_DATA_PAGES) : 1);
	int prot = e->sampled ? PROT_READ | PROT_WRITE : PROT_READ;
	void *p = MAP_FAILED;

	/* Records with stack copies: the most pages the budget allows. */
	for (unsigned pages = e->data_pages; pages >= 1 && p == MAP_FAILED; pages /= 2) {
		len = (size_t)ps * (1 + pages);
		p = mmap(NULL, len, prot, MAP_SHARED | MAP_POPULATE, e->fd, 0);
	}
	/* MAP_POPULATE: the first read must not take a page fault. */
	if (p == MAP_FAILED && !e->data_pages)
		p = mmap(NULL, len, prot, MAP_SHARED | MAP_POPULATE, e->fd, 0);

	if (p == MAP_FAILED && kchain) {
		len = (size_t)ps * (1 + RB_DATA_PAGES);
		p = mmap(NULL, len, prot, MAP_SHARED | MAP_POPULATE, e->fd, 0);
	}
	if (p == MAP_FAILED && e->sampled) {
		len = (size_t)ps;
		p = mmap(NULL, len, PROT_READ, MAP_SHARED | MAP_POPULATE, e->fd, 0);
	}
	if (p == MAP_FAILED)
		return;
	e->pg = p;
	e->map_len = len;
	if (len > (size_t)ps && e->pg->data_size) {
		uint64_t off = e->pg->data_offset ? e->pg->data_offset : (uint64_t)ps;
		e->data = (const unsigned char *)p + off;
		e->data_size = e->pg->data_size;
	}
}

/* just_opened: every fd is ours, from this open; else each is checked
 * first (the program may have closed or replaced it since). */
static void close_ev(struct pe_ctx *c, struct pe_ev *e, bool just_opened)
{
	if (e->pg)
		munmap(e->pg, e->map_len);
	if (e->fd >= 0 && (just_opened || fd_check(c, e)))
		close(e->fd);
	e->pg = NULL;
	e->data = NULL;
	e->fd = -1;
}

static void close_all(struct pe_ctx *c, bool just_opened)
{
	for (size_t i = 0; i < c->n; i++)
		close_ev(c, &c->kev[i], just_opened);
	for (size_t i = 0; i < c->n; i++) {
		if (c->ev[i].pg)
			munmap(c->ev[i].pg, c->ev[i].map_len);
		if (c->ev[i].fd >= 0 && (just_opened || fd_check(c, &c->ev[i])))
			close(c->ev[i].fd);
		c->ev[i].pg = NULL;
		c->ev[i].data = NULL;
		c->ev[i].fd = -1;
	}
	c->n = 0;
}

/* The kernel-mode twin of sampled event i (kernel_silent): ring records
 * only, never a signal.  0 or -errno. */
static int open_twin(struct pe_ctx *c, const struct pmc_event *ev,
		     const struct pmc_group_opts *opts, size_t i)
{
	struct pe_ev *k = &c->kev[i];
	struct perf_event_attr a;

	/* The twin leads a group whose member is its signalling event:
	 * scheduled in together, leader first, the twin's timer (cpu-clock,
	 * task-clock) starts just before the event's at every switch in, and
	 * an hrtimer is forwarded by whole periods, so the twin fires every
	 * period just before the event, never inside the kernel's delivery of
	 * the event's signal.  Apart (or led by the event) the twin fired
	 * just after it, and its sample landed in that delivery nearly every
	 * time (4-10% of all samples of a loop at 100 us here, in
	 * irqentry_exit_to_user_mode), on top of the event's own: more
	 * samples than CPU time.  One timer alone never samples its own
	 * signal's delivery (perf's never sees its own interrupt either). */
	int group = -1;

	attr_fill(&a, ev, opts, true, false, ROLE_SILENT);
	a.read_format |= PERF_FORMAT_LOST;
	for (int tries = 0; tries < 4; tries++) {
		k->fd = (int)syscall(SYS_perf_event_open, &a, opts->pid, -1, group,
				     PERF_FLAG_FD_CLOEXEC);
		if (k->fd >= 0)
			break;
		if (errno == EINVAL && (a.read_format & PERF_FORMAT_LOST))
			a.read_format &= ~(uint64_t)PERF_FORMAT_LOST;	/* before Linux 6.0 */
		else if (a.sample_type & PERF_SAMPLE_CALLCHAIN) {
			a.sample_type &= ~(uint64_t)PERF_SAMPLE_CALLCHAIN;
			a.exclude_callchain_user = 0;
			a.sample_max_stack = 0;
		} else {
			break;
		}
	}
	if (k->fd < 0)
		return -errno;
	k->fd = fd_move_high(k->fd);
	k->sampled = true;
	k->silent = true;
	k->keep = true;
	k->period = c->ev[i].period;
	k->freq = c->ev[i].freq;
	k->sample_type = a.sample_type;
	k->regs_mask = a.sample_regs_user;
	k->data_pages = RB_DATA_PAGES_SILENT;
	k->fmt_lost = a.read_format & PERF_FORMAT_LOST;
	k->rec_max = 512 + 8 * (PE_KCHAIN_MAX + 1) + a.sample_stack_user;
	if (fd_remember(k) < 0)
		return -errno;
	map_page(k);
	/* Without a ring that holds a few records the kernel would drop
	 * its samples without a count: refuse, so that the caller opens
	 * the event whole (kernel-mode samples then signal). */
	if (!k->data || k->data_size < 4 * k->rec_max)
		return -ENOMEM;
	return 0;
}

/* Open every event of c (grouped or not); 0 or -errno with nothing left
 * open. */
static int open_all(struct pe_ctx *c, const struct pmc_event *evs, size_t n,
		    const struct pmc_group_opts *opts)
{
	bool self = opts->pid == 0 && !opts->inherit;
	int ret;

	for (size_t i = 0; i < n; i++) {
		struct pe_ev *e = &c->ev[i];
		struct perf_event_attr a;
		int group_fd = c->grouped && i > 0 ? c->ev[0].fd : -1;

		enum role role = ROLE_ALL;

		e->sampled = opts->sample && (evs[i].period || evs[i].freq);
		e->period = evs[i].freq ? evs[i].freq : evs[i].period;
		e->freq = evs[i].freq != 0;
		e->swevent = is_swevent(evs[i].type, evs[i].config);
		e->batch = 1;
		/* Not for the software events counted in perf_swevent_event()
		 * (page faults, context switches, tracepoints): with the
		 * records' registers and stack copy such an event overflowed
		 * at every event, whatever its period (record_random: 128,000
		 * overflows at page-faults@64 for 2,000; not understood).
		 * They sample as before the split; docs/collector.md. */
		if (e->sampled && opts->kernel_silent && !evs[i].exclude_kernel && !e->swevent)
			role = evs[i].exclude_user ? ROLE_SILENT : ROLE_USER;
		e->silent = role == ROLE_SILENT;
		attr_fill(&a, &evs[i], opts, e->sampled, c->grouped, role);
		a.sig_data = (uintptr_t)e;	/* si_perf_data names the event */
		if (role == ROLE_USER) {
			/* The twin first: it leads the event's group (open_twin). */
			if ((ret = open_twin(c, &evs[i], opts, i)) < 0) {
				c->n = i;
				close_all(c, true);
				return ret;
			}
			group_fd = c->kev[i].fd;
		}
		e->fd = (int)syscall(SYS_perf_event_open, &a, opts->pid, -1, group_fd,
				     PERF_FLAG_FD_CLOEXEC);
		if (e->fd < 0 && role == ROLE_USER) {
			group_fd = -1;	/* a PMU that cannot hold both: apart */
			e->fd = (int)syscall(SYS_perf_event_open, &a, opts->pid, -1, group_fd,
					     PERF_FLAG_FD_CLOEXEC);
		}
		if (e->fd < 0 && (a.sample_type & PERF_SAMPLE_CALLCHAIN)) {
			/* A kernel without sample_max_stack, or one that refuses
			 * chains: sample without them (kernel-mode samples then
			 * get the collector's [kernel] leaf). */
			a.sample_type &= ~(uint64_t)PERF_SAMPLE_CALLCHAIN;
			a.exclude_callchain_user = 0;
			a.sample_max_stack = 0;
			e->fd = (int)syscall(SYS_perf_event_open, &a, opts->pid, -1, group_fd,
					     PERF_FLAG_FD_CLOEXEC);
		}
		e->sample_type = e->sampled ? a.sample_type : 0;
		e->regs_mask = a.sample_regs_user;
		e->keep = e->sampled && (e->silent || (a.sample_type & PERF_SAMPLE_STACK_USER));
		e->data_pages = !e->keep ? 0 : e->silent ? RB_DATA_PAGES_SILENT : RB_DATA_PAGES_COPY;
		e->rec_max = 512 + 8 * (PE_KCHAIN_MAX + 1) + a.sample_stack_user;
		if (e->fd < 0 || (c->grouped && ioctl(e->fd, PERF_EVENT_IOC_ID, &c->id[i]) < 0)) {
			int err = -errno;
			c->n = e->fd < 0 ? i : i + 1;
			close_all(c, true);
			return err;
		}
		e->fd = fd_move_high(e->fd);
		c->n = i + 1;
		if (fd_remember(e) < 0) {
			int err = -errno;
			close_all(c, true);
			return err;
		}
		if (e->sampled || (self && may_rdpmc(evs[i].type)))
			map_page(e);
		if (e->data)
			e->batch = CREDITS;
	}
	return 0;
}

/* A context in pages of its own, not from malloc: the collector opens
 * one in each new thread of the program, where glibc's first malloc
 * reserves a whole arena (64 MiB of address space, which RLIMIT_AS
 * counts). */
static struct pe_ctx *ctx_alloc(void)
{
	void *p = mmap(NULL, sizeof(struct pe_ctx), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void ctx_free(struct pe_ctx *c)
{
	munmap(c, sizeof(*c));
}

int pe_open(const struct pmc_event *evs, size_t n, const struct pmc_group_opts *opts,
	    void **ctx)
{
	struct pe_ctx *c;
	bool sampling = false;
	int ret;

	if (n == 0 || !evs || !opts || !ctx)
		return -EINVAL;
	if (n > PMC_MAX_EVENTS)
		return -PMC_ETOOMANY;
	if (opts->pid < 0)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (evs[i].kind != PMC_KIND_PERF)
			return -PMC_EBACKEND;
	/* An inherited event's overflows in a child would signal the
	 * counted thread, whose handler cannot sample the child. */
	if (opts->sample && opts->inherit)
		return -PMC_ENOTSUP;

	c = ctx_alloc();
	if (!c)
		return -ENOMEM;
	c->pid = opts->pid;
	c->proc = getpid();
	/* enable_on_exec counters run without a start(). */
	c->started = opts->enable_on_exec;
	for (size_t i = 0; i < n; i++) {
		c->ev[i].fd = -1;
		c->kev[i].fd = -1;
		sampling |= opts->sample && (evs[i].period || evs[i].freq);
	}
	/* Not with inherit (the kernel refuses group reads of inherited
	 * events before 6.x) nor with sampled events (each keeps its own
	 * enable state, credits and re-adds).  A group the kernel refuses
	 * (a hardware group larger than the PMU) is opened event by event. */
	c->grouped = n > 1 && !opts->inherit && !sampling;
	c->trap = sampling && opts->signo == SIGTRAP;
	c->guarded = sampling;
	ret = open_all(c, evs, n, opts);
	if (ret < 0 && c->grouped) {
		c->grouped = false;
		ret = open_all(c, evs, n, opts);
	}
	if (ret < 0) {
		ctx_free(c);
		return ret;
	}
	*ctx = c;
	return 0;
}

/* Block (how SIG_BLOCK) or restore the caller's signo around work that a
 * rearm in its handler must not interleave with.  The raw syscall: a
 * preloaded collector may filter pthread_sigmask's set. */
static void mask_signo(const struct pe_ctx *c, int how, sigset_t *old)
{
	sigset_t set;

	if (how == SIG_BLOCK) {
		sigemptyset(&set);
		sigaddset(&set, c->signo);
		syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, old, _NSIG / 8);
	} else {
		syscall(SYS_rt_sigprocmask, SIG_SETMASK, old, NULL, _NSIG / 8);
	}
}

/* Grant n more credits and enable the event.  The count moves before the
 * ioctl: an overflow may follow at once. */
static int refresh(struct pe_ctx *c, struct pe_ev *e, uint32_t n)
{
	if (!fd_check(c, e))
		return -EBADF;
	e->granted += n;
	if (ioctl(e->fd, PERF_EVENT_IOC_REFRESH, n) < 0) {
		e->granted -= n;
		return -errno;
	}
	return 0;
}

/* Enable event e outside its handler (start, a re-add): a sampled armed
 * event gets its credits topped up to its batch, and at least one, so the
 * kernel's limit is never left at 0 (which would mean no limit at all). */
static int enable(struct pe_ctx *c, struct pe_ev *e)
{
	if (!c->armed || !e->sampled || c->trap || e->silent) {
		if (c->guarded && !fd_check(c, e))
			return -EBADF;
		return ioctl(e->fd, PERF_EVENT_IOC_ENABLE, 0) < 0 ? -errno : 0;
	}
	uint64_t left = e->done < e->granted ? e->granted - e->done : 0;
	return refresh(c, e, left < e->batch ? e->batch - (uint32_t)left : 1);
}

static bool drain(struct pe_ctx *c, struct pe_ev *e);

int pe_start(void *ctx)
{
	struct pe_ctx *c = ctx;
	sigset_t old;
	int ret = 0;

	if (__atomic_load_n(&c->orphaned, __ATOMIC_ACQUIRE))
		return -EBADF;	/* not our descriptors (pe_orphan) */

	/* Before the enable, so the first overflow is not taken for stale. */
	c->started = true;
	c->stopping = false;
	if (c->grouped) {
		/* Members first, the leader last, not IOC_ENABLE with
		 * PERF_IOC_FLAG_GROUP (which enables the leader first): a member
		 * enabled under a stopped leader waits, and the leader's own
		 * enable schedules the whole group in at once.  Since Linux 6.12
		 * the kernel reschedules only the enabled event's PMU, so a
		 * member on another PMU than a running leader's (cpu-clock
		 * under task-clock: each software clock is a PMU of its own)
		 * stayed off until the thread's next context switch and counted
		 * 8-24% low (docs/performance.md). */
		for (size_t i = c->n; i-- > 0;)
			if (ioctl(c->ev[i].fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
				return -errno;
		return 0;
	}
	if (c->armed)
		mask_signo(c, SIG_BLOCK, &old);
	for (size_t i = 0; i < c->n && ret == 0; i++) {
		struct pe_ev *e = &c->ev[i];

		if (e->data)
			drain(c, e);
		/* The event (a member of its twin's group) first: the
		 * leader's enable schedules both in, the twin's timer first. */
		ret = enable(c, e);
		if (ret == 0 && c->kev[i].fd >= 0)
			ret = enable(c, &c->kev[i]);
	}
	if (c->armed)
		mask_signo(c, SIG_SETMASK, &old);
	return ret;
}

int pe_stop(void *ctx)
{
	struct pe_ctx *c = ctx;
	int ret = 0;

	if (__atomic_load_n(&c->orphaned, __ATOMIC_ACQUIRE))
		return -EBADF;	/* not our descriptors (pe_orphan) */

	c->stopping = true;
	if (c->grouped && ioctl(c->ev[0].fd, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP) < 0)
		ret = -errno;
	for (size_t i = 0; i < c->n && !c->grouped; i++) {
		struct pe_ev *k = &c->kev[i];

		if (k->fd >= 0 && fd_check(c, k))
			ioctl(k->fd, PERF_EVENT_IOC_DISABLE, 0);
		if (c->guarded && !fd_check(c, &c->ev[i]))
			continue;	/* gone: nothing to stop, and not ours to touch */
		if (ioctl(c->ev[i].fd, PERF_EVENT_IOC_DISABLE, 0) < 0 && ret == 0)
			ret = -errno;
	}
	/* After the disables: an overflow signalled before them is delivered
	 * at the latest on the ioctl's return, and still counts. */
	c->started = false;
	return ret;
}

/* The whole group with one read(): nr, enabled, running, then {value, id}
 * per member, leader first, in the order they were opened. */
static int read_group(struct pe_ctx *c, struct pmc_count *vals, size_t n)
{
	uint64_t buf[3 + 2 * PMC_MAX_EVENTS];
	size_t want = (3 + 2 * c->n) * sizeof(uint64_t);
	long r = sys_read(c->ev[0].fd, buf, want);
	struct pe_raw raw;

	if (r != (long)want || buf[0] != c->n)
		return r < 0 ? (int)r : -EIO;
	raw.enabled = buf[1];
	raw.running = buf[2];
	for (size_t i = 0; i < n; i++) {
		size_t k = i;

		/* Members come in creation order; the id makes sure. */
		if (buf[3 + 2 * k + 1] != c->id[i])
			for (k = 0; k < c->n && buf[3 + 2 * k + 1] != c->id[i]; k++)
				;
		if (k == c->n)
			return -EIO;
		raw.count = buf[3 + 2 * k];
		pe_count_scale(&raw, &vals[i]);
	}
	return 0;
}

int pe_read(void *ctx, struct pmc_count *vals, size_t n)
{
	struct pe_ctx *c = ctx;

	if (__atomic_load_n(&c->orphaned, __ATOMIC_ACQUIRE))
		return -EBADF;	/* not our descriptors (pe_orphan) */

	if (n > c->n)
		n = c->n;
	if (c->grouped) {
		/* rdpmc for every member when the pages allow it, else one
		 * read() for all of them. */
		size_t i;

		for (i = 0; i < n; i++) {
			struct pe_raw raw;

			if (!c->ev[i].pg || pe_page_read(c->ev[i].pg, &pe_hw_native, &raw) != 0)
				break;
			pe_count_scale(&raw, &vals[i]);
		}
		return i == n ? 0 : read_group(c, vals, n);
	}
	for (size_t i = 0; i < n; i++) {
		struct pe_ev *e = &c->ev[i];
		struct pe_raw raw;

		if (!e->pg || pe_page_read(e->pg, &pe_hw_native, &raw) != 0) {
			uint64_t buf[3];
			long r;

			/* a descriptor the program replaced could hold its data */
			if (c->guarded && !fd_check(c, e))
				return -EBADF;
			r = sys_read(e->fd, buf, sizeof(buf));

			if (r != (long)sizeof(buf))
				return r < 0 ? (int)r : -EIO;
			raw.count = buf[0];
			raw.enabled = buf[1];
			raw.running = buf[2];
		}
		pe_count_scale(&raw, &vals[i]);
	}
	return 0;
}

int pe_arm(void *ctx, int signo)
{
	struct pe_ctx *c = ctx;
	/* pid 0 means the calling thread; a pid > 0 is a tid to signal. */
	struct f_owner_ex owner = {
		.type = F_OWNER_TID,
		.pid = c->pid ? c->pid : gettid(),
	};

	if (signo <= 0 || signo >= NSIG)
		return -EINVAL;
	c->signo = signo;
	c->tid = owner.pid;
	if (c->trap && signo != SIGTRAP)
		return -EINVAL;		/* the signal is chosen at open */
	/* The kernel sends SIGTRAP to the task that overflowed: no owner. */
	for (size_t i = 0; i < c->n && !c->trap; i++) {
		int fd = c->ev[i].fd, fl;

		if (!c->ev[i].sampled || c->ev[i].silent)
			continue;
		if (!fd_check(c, &c->ev[i]))
			return -EBADF;
		/* Signal and owner first, O_ASYNC last, so no SIGIO can
		 * reach the process in between. */
		if (fcntl(fd, F_SETSIG, signo) < 0 || fcntl(fd, F_SETOWN_EX, &owner) < 0)
			return -errno;
		fl = fcntl(fd, F_GETFL);
		if (fl < 0 || fcntl(fd, F_SETFL, fl | O_ASYNC) < 0)
			return -errno;
	}
	c->armed = true;
	return 0;
}

/* si_perf_data: the unsigned long after si_addr in the fault layout
 * (glibc before 2.37 does not name it). */
static uintptr_t perf_data(const siginfo_t *si)
{
	uintptr_t v;

	memcpy(&v, (const char *)&si->si_addr + sizeof(void *), sizeof(v));
	return v;
}

/* The signal for event i (ok: a code that is an overflow; hup: the one
 * that spent the last credit) counted: i, or -1 when it is not one to
 * sample (counted spurious).  Async-signal-safe. */
static int overflow_of(struct pe_ctx *c, size_t i, bool ok, bool hup)
{
	struct pe_ev *e = &c->ev[i];

	if (!ok || !e->sampled || !c->armed) {
		ST_INC(c->st.spurious);
		return -1;
	}
	e->seen++;
	if (!c->trap)
		e->hup = hup && c->started;
	if (!e->data)
		e->done++;	/* no buffer to count them: one credit at a time */
	/* Queued before stop() and delivered after: stale. */
	if (!c->started) {
		ST_INC(c->st.spurious);
		return -1;
	}
	ST_INC(c->st.overflows);
	return (int)i;
}

/* A SIGTRAP of a trap ctx: ours when TRAP_PERF and its data is one of our
 * events; the program's own (int3, raise) are not. */
static int trap_overflow(struct pe_ctx *c, const siginfo_t *si)
{
	uintptr_t data;

	if (si->si_signo != SIGTRAP || si->si_code != TRAP_PERF)
		return -1;
	data = perf_data(si);
	for (size_t i = 0; i < c->n; i++) {
		struct pe_ev *e = &c->ev[i];

		if ((uintptr_t)e == data)
			return overflow_of(c, i, true, false);
	}
	return -1;
}

int pe_overflow(void *ctx, const siginfo_t *si)
{
	struct pe_ctx *c = ctx;

	if (c->trap)
		return trap_overflow(c, si);

	/* si_fd is only meaningful for SIGIO-style codes (POLL_IN..POLL_HUP);
	 * a timer's or sigqueue's siginfo overlays it with other fields. */
	if (si->si_code < POLL_IN || si->si_code > POLL_HUP)
		return -1;
	for (size_t i = 0; i < c->n; i++) {
		struct pe_ev *e = &c->ev[i];

		/* One signal per overflow: POLL_IN, or POLL_HUP for the one
		 * that spent the last credit (the kernel stopped the event;
		 * its rearm grants more). */
		if (e->fd == si->si_fd)
			return overflow_of(c, i, si->si_code == POLL_IN || si->si_code == POLL_HUP,
					   si->si_code == POLL_HUP);
	}
	return -1;
}

/* Count THROTTLE/UNTHROTTLE/LOST records into c->st and the overflows
 * into e->done, and free the buffer.  No syscalls, so it is
 * async-signal-safe; the caller holds c->draining. */
static void rb_drain(struct pe_ctx *c, struct pe_ev *e)
{
	struct perf_event_mmap_page *pg = e->pg;
	struct pmc_sample_stats st;
	uint64_t head, tail, samples = 0;

	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	tail = pg->data_tail;
	/* Records that wait for pe_record were counted up to e->counted. */
	if (e->keep && e->counted > tail && e->counted <= head)
		tail = e->counted;
	if (head == tail)
		return;
	st_copy(&st, &c->st);
	pe_rb_scan(e->data, e->data_size, tail, head, &st, &samples);
	e->counted = head;
	/* What the kernel could not write were overflows too (unless a
	 * POLL_HUP counted them already). */
	uint64_t lost = st.lost - c->st.lost, told = lost < e->hup_unwritten ? lost : e->hup_unwritten;

	e->hup_unwritten -= told;
	e->done += samples + lost - told;
	__atomic_store_n(&c->st.throttled, st.throttled, __ATOMIC_RELAXED);
	__atomic_store_n(&c->st.unthrottled, st.unthrottled, __ATOMIC_RELAXED);
	__atomic_store_n(&c->st.lost, st.lost, __ATOMIC_RELAXED);
	if (!e->keep)
		__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
}

/* Drain event e (or every event with a buffer when e is NULL), unless
 * someone else is draining this ctx right now (a crash handler's stats()
 * that interrupted a rearm).  Returns whether it drained. */
static bool drain(struct pe_ctx *c, struct pe_ev *e)
{
	if (__atomic_exchange_n(&c->draining, 1, __ATOMIC_ACQUIRE))
		return false;
	if (e) {
		rb_drain(c, e);
	} else {
		for (size_t i = 0; i < c->n; i++)
			if (c->ev[i].data)
				rb_drain(c, &c->ev[i]);
	}
	__atomic_store_n(&c->draining, 0, __ATOMIC_RELEASE);
	return true;
}

/* IOC_PERIOD; a running software-path event is re-added around it (see
 * is_swevent), so its next interval is the new period and not one event. */
static int set_period(struct pe_ctx *c, struct pe_ev *e, uint64_t period)
{
	bool readd = e->swevent && c->started && !c->stopping;
	int ret = 0, ret2;

	if (!fd_check(c, e))
		return -EBADF;
	struct pe_ev *k = e >= c->ev && e < c->ev + c->n ? &c->kev[e - c->ev] : NULL;

	if (readd && ioctl(e->fd, PERF_EVENT_IOC_DISABLE, 0) < 0)
		return -errno;
	/* A twin's interval restarts with its event's, so the two keep
	 * firing together (see open_twin). */
	if (k && k->fd >= 0 && fd_check(c, k)) {
		uint64_t kp = k->freq ? period : period << k->slow;

		if (ioctl(k->fd, PERF_EVENT_IOC_PERIOD, &kp) == 0)
			k->period = kp;
	}
	if (ioctl(e->fd, PERF_EVENT_IOC_PERIOD, &period) < 0)
		ret = -errno;
	else
		e->period = period;
	if (readd && (ret2 = enable(c, e)) < 0 && ret == 0)
		ret = ret2;
	return ret;
}

/* Called at each signal of event e (its twin k): every TWIN_WINDOW
 * signals, the twin's records against them estimate the thread's kernel
 * share; under 1/16 the twin's period doubles (up to 8 times the event's),
 * over 1/4 it halves back.  A software clock's twin is a timer interrupt
 * per period even while the thread never enters the kernel (on this KVM
 * guest it is not served with its event's: twice the interrupts); its
 * records carry their own period, so the estimate stays unbiased, with
 * fewer kernel samples.  The new period is set on the twin, then on the
 * event (both intervals restart, the twin's first: see open_twin).
 * Returns whether it set periods. */
#define TWIN_WINDOW 64
#define TWIN_MAX_SLOW 3

static bool twin_adapt(struct pe_ctx *c, struct pe_ev *e, struct pe_ev *k)
{
	uint64_t est;
	uint8_t slow = k->slow;

	if (k->fd < 0 || k->freq || e->freq || ++k->win_sig < TWIN_WINDOW)
		return false;
	est = (uint64_t)k->win_rec << k->slow;
	if (est * 16 < k->win_sig && slow < TWIN_MAX_SLOW)
		slow++;
	else if (est * 4 > k->win_sig && slow > 0)
		slow--;
	k->win_sig = k->win_rec = 0;
	if (slow == k->slow || e->period > UINT64_MAX >> TWIN_MAX_SLOW)
		return false;
	k->slow = slow;
	return set_period(c, e, e->period) == 0;
}

int pe_rearm(void *ctx, int idx, uint64_t period)
{
	struct pe_ctx *c = ctx;
	struct pe_ev *e;

	if (idx < 0 || (size_t)idx >= c->n)
		return -EINVAL;
	e = &c->ev[idx];
	if (!e->sampled)
		return -EINVAL;
	if (e->data && !drain(c, e))
		return 0;
	/* The event stays enabled across overflows: the only syscalls are
	 * for a new period, which restarts the interval, and one refresh
	 * per batch of credits. */
	if (period && period != e->period) {
		int ret = set_period(c, e, period);
		if (ret < 0)
			return ret;
	} else if (c->started && !c->stopping) {
		twin_adapt(c, e, &c->kev[idx]);
	}
	if (!c->started || !c->armed || c->trap || c->stopping)
		return 0;
	if (e->hup) {
		/* The kernel stopped the event at its last credit, and
		 * signals come in order: nothing is queued behind this one
		 * (even if the kernel ever merged two overflows' signals).
		 * Every credit is spent: overflows the full ring could not
		 * hold have no LOST record yet (it comes with the next
		 * record), and without them the batch would look half
		 * spent and never be refreshed -- the event stopped for
		 * good after the program blocked the signal a while. */
		e->hup = false;
		if (e->data && e->done < e->granted) {
			e->hup_unwritten += e->granted - e->done;
			e->done = e->granted;
		}
		e->seen = e->done;
	}
	if (e->done > e->seen)
		e->behind = true;	/* another overflow is already waiting */
	if (e->seen < e->done)
		return 0;
	/* Every overflow handled and the handler keeping up: top the
	 * credits up to a full batch once half is spent.  The event is still
	 * running, so the kernel only adds to its limit (no re-enable, no
	 * restarted hrtimer: ~1 us against ~40 for a refresh of a stopped
	 * event in a KVM guest), the signals queued for it still never exceed
	 * a batch, and POLL_HUP only comes when the handler fell behind. */
	if (e->done < e->granted) {
		uint64_t left = e->granted - e->done;

		if (!e->data || (e->behind && !e->keep) || e->batch < CREDITS || left > CREDITS / 2)
			return 0;
		return refresh(c, e, (uint32_t)(CREDITS - left));
	}
	/* Spent (the kernel stopped the event): refresh, with a batch that
	 * shrinks to 1 after one in which the handler fell behind. */
	if (e->data)
		e->batch = e->behind ? 1 : (e->batch >= CREDITS / 2 ? CREDITS : e->batch * 2);
	/* Records kept for the consumer (the collector), which throttles
	 * itself: a signal that came late because the program blocked it is
	 * no overload, and a shrunk batch would stop the event while the
	 * signal is blocked (its samples never taken).  The queue stays
	 * bounded by CREDITS. */
	if (e->keep)
		e->batch = CREDITS;
	e->behind = false;
	return refresh(c, e, e->batch);
}

int pe_stats(void *ctx, struct pmc_sample_stats *st)
{
	struct pe_ctx *c = ctx;
	sigset_t old;

	/* Where the profile is written: a descriptor the program closed or
	 * replaced is counted here, before the thread's counters close.  Not
	 * from another process sharing the memory (the collector's watcher):
	 * its descriptor table is not the one ev[].fd index. */
	bool own_fds = c->guarded && getpid() == c->proc;

	for (size_t i = 0; i < c->n && own_fds; i++)
		fd_check(c, &c->ev[i]);
	/* While sampling, only the counted thread drains (a rearm relies on
	 * its counts), with signo blocked so its handler cannot find the
	 * buffer busy; another thread copies what the last rearm counted. */
	if (!c->started || !c->armed) {
		drain(c, NULL);
	} else if (gettid() == c->tid) {
		mask_signo(c, SIG_BLOCK, &old);
		drain(c, NULL);
		mask_signo(c, SIG_SETMASK, &old);
	}
	st_copy(st, &c->st);
	/* SIGTRAP does not queue: overflows while one was pending merged
	 * into it and were never sampled. */
	for (size_t i = 0; i < c->n && c->trap; i++)
		if (c->ev[i].data && c->ev[i].done > c->ev[i].seen)
			st->lost += c->ev[i].done - c->ev[i].seen;
	return 0;
}

int pe_orphan(void *ctx)
{
	struct pe_ctx *c = ctx;

	__atomic_store_n(&c->orphaned, true, __ATOMIC_RELEASE);
	return 0;
}

int pe_close(void *ctx)
{
	struct pe_ctx *c = ctx;

	if (!c)
		return 0;
	close_all(c, false);
	ctx_free(c);
	return 0;
}

int pe_kernel_chain(void *ctx, int idx, uint64_t *pcs, size_t max, unsigned *flags)
{
	struct pe_ctx *c = ctx;
	struct pe_ev *e;
	struct pe_ksample ks;
	uint64_t head, from;
	int n;

	*flags = 0;
	if (idx < 0 || (size_t)idx >= c->n)
		return -EINVAL;
	e = &c->ev[idx];
	if (!e->data)
		return -ENODATA;
	/* The drainer moves data_tail: not while it runs (a crash
	 * handler's stats() that interrupted a rearm). */
	if (__atomic_exchange_n(&c->draining, 1, __ATOMIC_ACQUIRE))
		return -EBUSY;
	/* Acquire: the record's bytes are visible once head covers them. */
	head = __atomic_load_n(&e->pg->data_head, __ATOMIC_ACQUIRE);
	from = e->pg->data_tail;
	if (e->kc_next > from && e->kc_next <= head)
		from = e->kc_next;
	n = pe_rb_last_sample(e->data, e->data_size, from, head, e->sample_type, &ks, pcs, max);
	if (n >= 0 || n == -EIO)
		e->kc_next = ks.next > from ? ks.next : head;
	__atomic_store_n(&c->draining, 0, __ATOMIC_RELEASE);
	if (n < 0)
		return n;
	*flags = (ks.kernel ? PMC_KCHAIN_KERNEL : 0) | (ks.truncated ? PMC_KCHAIN_TRUNCATED : 0);
	return n;
}

/* A LOST record of the kernel's: false when the count was read before
 * (lost_unannounced), else rec->lost is what is new in it. */
static bool lost_record(struct pe_ev *e, struct pmc_record *rec)
{
	uint64_t early = e->lost_early < rec->lost ? e->lost_early : rec->lost;

	e->lost_early -= early;
	rec->lost -= early;
	e->lost_seen += rec->lost;
	return rec->lost > 0;
}

/* After a ring that was full is emptied: the losses the kernel has not
 * written a record for yet, from PERF_FORMAT_LOST, as a LOST record. */
static bool lost_unannounced(struct pe_ctx *c, struct pe_ev *e, struct pmc_record *rec)
{
	uint64_t v[4];

	if (!e->fmt_lost || !fd_check(c, e) || sys_read(e->fd, v, sizeof(v)) != (long)sizeof(v) ||
	    v[3] <= e->lost_seen)
		return false;
	memset(rec, 0, sizeof(*rec));
	rec->kind = PMC_REC_LOST;
	rec->lost = v[3] - e->lost_seen;
	e->lost_early += rec->lost;
	e->lost_seen = v[3];
	return true;
}

int pe_record(void *ctx, int idx, int ring, void *buf, size_t len, struct pmc_record *rec)
{
	struct pe_ctx *c = ctx;
	struct pe_ev *e;
	uint64_t head, tail, next;
	int ret;

	if (idx < 0 || (size_t)idx >= c->n)
		return -EINVAL;
	e = ring == PMC_RING_SILENT ? (c->ev[idx].silent ? &c->ev[idx] : &c->kev[idx])
				    : &c->ev[idx];
	if (ring == PMC_RING_SIGNALLED && e->silent)
		return 0;	/* a kernel-only event: its records are the silent ring's */
	if (e->fd < 0 || !e->keep)
		return e->fd < 0 && ring == PMC_RING_SILENT ? 0 : -PMC_ENOTSUP;
	if (!e->data)
		return 0;
	if (__atomic_exchange_n(&c->draining, 1, __ATOMIC_ACQUIRE))
		return -EBUSY;
	/* A signalling event's records count its overflows (credits): count
	 * them before they leave the ring.  A silent one's are no overflow
	 * of ours; the caller counts what it takes. */
	if (!e->silent)
		rb_drain(c, e);
	head = __atomic_load_n(&e->pg->data_head, __ATOMIC_ACQUIRE);
	tail = e->pg->data_tail;
	/* Too full for another record: losses may wait unannounced. */
	if (head - tail + e->rec_max > e->data_size)
		e->full = true;
	do {
		ret = pe_rb_record(e->data, e->data_size, tail, head, e->sample_type, e->regs_mask,
				   buf, len, rec, &next);
		if (ret == -EIO)
			next = head;	/* nothing after a corrupt record can be trusted */
		tail = next;
		if (ret == 1 && rec->kind == PMC_REC_LOST && !lost_record(e, rec))
			ret = 0;	/* told before, by the count */
		if (ret == 1 && rec->kind == PMC_REC_SAMPLE && e->silent)
			e->win_rec++;
	} while (ret == 0);
	/* Copied out (or skipped): the kernel may reuse the space. */
	__atomic_store_n(&e->pg->data_tail, tail, __ATOMIC_RELEASE);
	if (ret == -ENODATA && e->full) {
		e->full = false;
		ret = lost_unannounced(c, e, rec) ? 1 : -ENODATA;
	}
	__atomic_store_n(&c->draining, 0, __ATOMIC_RELEASE);
	if (ret == -ENODATA)
		return 0;
	return ret == -ENOSPC || ret == -EIO ? ret : 1;
}

int pe_fd(const void *ctx, size_t idx)
{
	const struct pe_ctx *c = ctx;

	return idx < c->n ? c->ev[idx].fd : -1;
}

const struct perf_event_mmap_page *pe_page(const void *ctx, size_t idx)
{
	const struct pe_ctx *c = ctx;

	return idx < c->n ? c->ev[idx].pg : NULL;
}

/* perf_event counters on one thread or task (see pe.h for the design). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "plugins/perf_event/pe.h"

/* Data pages of a sampled event's ring buffer: it only carries 8-byte
 * sample headers and the rare THROTTLE/LOST record, drained at each
 * rearm, so one page is plenty and keeps the perf_event_mlock_kb cost low. */
#define RB_DATA_PAGES 1

struct pe_ev {
	int fd;
	bool sampled;			/* opened with a period or freq */
	int limit;			/* mirror of the kernel's event_limit */
	struct perf_event_mmap_page *pg;/* user page (+ ring buffer), or NULL */
	size_t map_len;
};

struct pe_ctx {
	size_t n;
	pid_t pid;
	bool armed, started;
	volatile sig_atomic_t draining;	/* stats() vs a rearm in a handler */
	struct pmc_sample_stats st;
	struct pe_ev ev[PMC_MAX_EVENTS];
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

static void attr_fill(struct perf_event_attr *a, const struct pmc_event *ev,
		      const struct pmc_group_opts *opts, bool sampled)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = ev->type;
	a->config = ev->config;
	a->config1 = ev->config1;
	a->config2 = ev->config2;
	a->exclude_user = ev->exclude_user;
	a->exclude_kernel = ev->exclude_kernel;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	/* enable_on_exec only acts on an event created disabled. */
	a->disabled = 1;
	a->enable_on_exec = opts->enable_on_exec;
	a->inherit = opts->inherit;
	if (!sampled)
		return;
	if (ev->freq) {
		a->freq = 1;
		a->sample_freq = ev->freq;
	} else {
		a->sample_period = ev->period;
	}
	/* Records carry nothing: the ring buffer exists for THROTTLE/LOST. */
	a->sample_type = 0;
}

/* Map the user page, plus a ring buffer for a sampled event.  Failure is
 * not an error: reads go through read(), and throttling goes uncounted. */
static void map_page(struct pe_ev *e)
{
	long ps = page_size();
	size_t len = (size_t)ps * (e->sampled ? 1 + RB_DATA_PAGES : 1);
	int prot = e->sampled ? PROT_READ | PROT_WRITE : PROT_READ;
	/* MAP_POPULATE: the first read must not take a page fault. */
	void *p = mmap(NULL, len, prot, MAP_SHARED | MAP_POPULATE, e->fd, 0);

	if (p == MAP_FAILED && e->sampled) {
		len = (size_t)ps;
		p = mmap(NULL, len, PROT_READ, MAP_SHARED | MAP_POPULATE, e->fd, 0);
	}
	if (p == MAP_FAILED)
		return;
	e->pg = p;
	e->map_len = len;
}

int pe_open(const struct pmc_event *evs, size_t n, const struct pmc_group_opts *opts,
	    void **ctx)
{
	struct pe_ctx *c;
	bool self;

	if (n == 0 || !evs || !opts || !ctx)
		return -EINVAL;
	if (n > PMC_MAX_EVENTS)
		return -PMC_ETOOMANY;
	if (opts->pid < 0)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (evs[i].kind != PMC_KIND_PERF)
			return -PMC_EBACKEND;
	/* IOC_REFRESH, our one-signal-per-overflow mechanism, refuses
	 * inherited events. */
	if (opts->sample && opts->inherit)
		return -PMC_ENOTSUP;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->pid = opts->pid;
	self = opts->pid == 0 && !opts->inherit;
	for (size_t i = 0; i < n; i++)
		c->ev[i].fd = -1;
	for (size_t i = 0; i < n; i++) {
		struct pe_ev *e = &c->ev[i];
		struct perf_event_attr a;

		e->sampled = opts->sample && (evs[i].period || evs[i].freq);
		attr_fill(&a, &evs[i], opts, e->sampled);
		e->fd = (int)syscall(SYS_perf_event_open, &a, opts->pid, -1, -1,
				     PERF_FLAG_FD_CLOEXEC);
		if (e->fd < 0) {
			int err = -errno;
			c->n = i;
			pe_close(c);
			return err;
		}
		c->n = i + 1;
		if (e->sampled || (self && may_rdpmc(evs[i].type)))
			map_page(e);
	}
	*ctx = c;
	return 0;
}

int pe_start(void *ctx)
{
	struct pe_ctx *c = ctx;

	c->started = true;
	for (size_t i = 0; i < c->n; i++) {
		struct pe_ev *e = &c->ev[i];
		int rc;

		/* A sampled event whose limit is spent is enabled by REFRESH,
		 * which also gives it the one overflow it may signal. */
		if (c->armed && e->sampled && e->limit == 0) {
			rc = ioctl(e->fd, PERF_EVENT_IOC_REFRESH, 1);
			if (rc == 0)
				e->limit = 1;
		} else {
			rc = ioctl(e->fd, PERF_EVENT_IOC_ENABLE, 0);
		}
		if (rc < 0)
			return -errno;
	}
	return 0;
}

int pe_stop(void *ctx)
{
	struct pe_ctx *c = ctx;

	c->started = false;
	for (size_t i = 0; i < c->n; i++)
		if (ioctl(c->ev[i].fd, PERF_EVENT_IOC_DISABLE, 0) < 0)
			return -errno;
	return 0;
}

int pe_read(void *ctx, struct pmc_count *vals, size_t n)
{
	struct pe_ctx *c = ctx;

	if (n > c->n)
		n = c->n;
	for (size_t i = 0; i < n; i++) {
		struct pe_ev *e = &c->ev[i];
		struct pe_raw raw;

		if (!e->pg || pe_page_read(e->pg, &pe_hw_x86, &raw) != 0) {
			uint64_t buf[3];
			long r = sys_read(e->fd, buf, sizeof(buf));

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
	for (size_t i = 0; i < c->n; i++) {
		int fd = c->ev[i].fd, fl;

		if (!c->ev[i].sampled)
			continue;
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

int pe_overflow(void *ctx, const siginfo_t *si)
{
	struct pe_ctx *c = ctx;

	/* si_fd is only meaningful for SIGIO-style codes; a timer's siginfo
	 * overlays it with its sigval. */
	if (si->si_code != POLL_HUP && si->si_code != POLL_IN)
		return -1;
	for (size_t i = 0; i < c->n; i++) {
		struct pe_ev *e = &c->ev[i];

		if (e->fd != si->si_fd)
			continue;
		if (!e->sampled || !c->armed) {
			c->st.spurious++;
			return -1;
		}
		/* POLL_HUP: the limit is spent and the kernel disabled the
		 * event; POLL_IN: it overflowed with limit left (or none set,
		 * as with enable_on_exec before the first refresh). */
		if (si->si_code == POLL_HUP)
			e->limit = 0;
		else if (e->limit > 0)
			e->limit--;
		c->st.overflows++;
		return (int)i;
	}
	return -1;
}

/* Count THROTTLE/UNTHROTTLE/LOST records and free the buffer.  No
 * syscalls, so it is async-signal-safe. */
static void rb_drain(struct pe_ctx *c, struct pe_ev *e)
{
	struct perf_event_mmap_page *pg = e->pg;
	uint64_t head;
	const unsigned char *data;

	if (e->map_len <= (size_t)page_size() || pg->data_size == 0)
		return;
	data = (const unsigned char *)pg + (pg->data_offset ? pg->data_offset : (uint64_t)page_size());
	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	pe_rb_scan(data, pg->data_size, pg->data_tail, head, &c->st);
	__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
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
	/* IOC_PERIOD also resets the remaining interval, so the new
	 * period applies from the next enable. */
	if (period && ioctl(e->fd, PERF_EVENT_IOC_PERIOD, &period) < 0)
		return -errno;
	if (e->pg && !c->draining) {
		c->draining = 1;
		rb_drain(c, e);
		c->draining = 0;
	}
	/* Re-enable only a started event whose limit is spent: a REFRESH
	 * on top of a live limit would let two overflows through. */
	if (c->started && e->limit == 0) {
		if (ioctl(e->fd, PERF_EVENT_IOC_REFRESH, 1) < 0)
			return -errno;
		e->limit = 1;
	}
	return 0;
}

int pe_stats(void *ctx, struct pmc_sample_stats *st)
{
	struct pe_ctx *c = ctx;

	c->draining = 1;
	for (size_t i = 0; i < c->n; i++)
		if (c->ev[i].pg && c->ev[i].sampled)
			rb_drain(c, &c->ev[i]);
	c->draining = 0;
	*st = c->st;
	return 0;
}

int pe_close(void *ctx)
{
	struct pe_ctx *c = ctx;

	if (!c)
		return 0;
	for (size_t i = 0; i < c->n; i++) {
		if (c->ev[i].pg)
			munmap(c->ev[i].pg, c->ev[i].map_len);
		if (c->ev[i].fd >= 0)
			close(c->ev[i].fd);
	}
	free(c);
	return 0;
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

/* The attaching recorder's counters and rings (see attach.h).
 *
 * -p PID: every thread of the process, one counter per thread and CPU with
 * inherit, so threads and children it starts later are counted too (the
 * kernel will not map the ring of an inherited counter that follows a
 * task on any CPU: hence per CPU).  -t TID: that thread alone, per CPU,
 * without inherit.  -a: one counter per CPU, every task.  Each CPU's
 * counters write into one ring (PERF_EVENT_IOC_SET_OUTPUT), drained by
 * att_poll.  The first counter of each CPU also asks for the task records
 * (FORK, COMM with exec, EXIT) and MMAP2 with build-ids, which keep the
 * processes' load maps current without reading /proc again. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "attach/internal.h"
#include "unwinder/unwind.h"

#define DEFAULT_PAGES 128		/* 512 KiB a CPU, as perf's default */
#define CFI_PAGES 512			/* stack copies need room */
#define STACK_COPY 8192			/* bytes of user stack per sample */

static int perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	long fd = syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

void att_attr_init(struct perf_event_attr *a, const struct pmc_event *ev, bool inherit)
{
	*a = (struct perf_event_attr){
		.size = sizeof(*a),
		.type = ev->type,
		.config = ev->config,
		.config1 = ev->config1,
		.config2 = ev->config2,
		.exclude_user = ev->exclude_user,
		.exclude_kernel = ev->exclude_kernel,
		.exclude_hv = 1,
		.disabled = 1,
		.inherit = inherit,
	};
}

/* The sampling attributes of event i. */
static void attr_for(const struct att_session *s, size_t i, struct perf_event_attr *a,
		     bool inherit, bool side_records)
{
	const struct pmc_event *ev = &s->ev[i];

	att_attr_init(a, ev, inherit);
	if (ev->freq) {
		a->freq = 1;
		a->sample_freq = ev->freq;
	} else {
		a->sample_period = ev->period;
	}
	a->sample_type = s->sample_type;
	a->exclude_callchain_kernel = ev->exclude_kernel;
	a->sample_id_all = 1;
	a->watermark = 1;
	a->wakeup_watermark = 64 * 1024;
	if (s->o.stack == ATT_STACK_CFI) {
		/* Every register the CFI unwinder can use, as perf's dwarf mode. */
		a->sample_regs_user = UW_PERF_REGS_MASK;
		a->sample_stack_user = STACK_COPY;
	}
	if (side_records) {
		a->task = 1;
		a->comm = 1;
		a->comm_exec = 1;
		a->mmap = 1;
		a->mmap2 = 1;
		a->build_id = 1;
	}
}

static int add_fd(struct att_session *s, int fd, int ev)
{
	if (s->n_fds == s->cap_fds) {
		size_t cap = s->cap_fds ? s->cap_fds * 2 : 64;

		if (prof_array_resize(&s->fds, cap, sizeof(*s->fds)) ||
		    prof_array_resize(&s->fd_ev, cap, sizeof(*s->fd_ev)) ||
		    prof_array_resize(&s->ids, cap, sizeof(*s->ids)))
			return -ENOMEM;
		s->cap_fds = cap;
	}
	s->fds[s->n_fds] = fd;
	s->fd_ev[s->n_fds] = ev;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &s->ids[s->n_fds]) < 0)
		s->ids[s->n_fds] = UINT64_MAX;
	s->n_fds++;
	return 0;
}

static int ring_map(struct att_session *s, struct att_ring *r, int fd, int cpu)
{
	long ps = sysconf(_SC_PAGESIZE);
	unsigned pages = s->o.ring_pages ? s->o.ring_pages
			 : s->o.stack == ATT_STACK_CFI ? CFI_PAGES : DEFAULT_PAGES;
	void *m;

	/* A user's rings are bounded by perf_event_mlock_kb: halve until it fits. */
	for (; pages >= 8; pages /= 2) {
		m = mmap(NULL, (size_t)(pages + 1) * (size_t)ps, PROT_READ | PROT_WRITE, MAP_SHARED,
			 fd, 0);
		if (m != MAP_FAILED) {
			*r = (struct att_ring){ .fd = fd, .cpu = cpu, .base = m,
						.len = (size_t)pages * (size_t)ps,
						.map_len = (size_t)(pages + 1) * (size_t)ps };
			return 0;
		}
		if (errno != EPERM && errno != ENOMEM)
			break;
	}
	return -errno;
}

static void set_err(struct att_error *e, int err, pid_t pid, pid_t tid, int cpu, const char *what)
{
	if (e)
		*e = (struct att_error){ .err = err, .pid = pid, .tid = tid, .cpu = cpu,
					 .what = what };
}

/* Counters for task tid (-1: every task) on every CPU, each event.  The
 * CPU's first counter makes its ring; later ones write into it. */
static int open_task(struct att_session *s, pid_t pid, pid_t tid, bool inherit,
		     struct att_error *e)
{
	for (int c = 0; c < s->ncpu; c++) {
		for (size_t i = 0; i < s->o.n_ev; i++) {
			struct att_ring *r = &s->rings[c];
			struct perf_event_attr a;
			int fd, ret;

			attr_for(s, i, &a, inherit, r->fd < 0);
			fd = perf_open(&a, tid, c);
			/* an offline CPU (hotplug): nothing runs there */
			if (fd == -ENODEV && c > 0)
				continue;
			if (fd < 0) {
				set_err(e, fd, pid, tid, c, "perf_event_open");
				return fd;
			}
			if ((ret = add_fd(s, fd, (int)i)) < 0) {
				close(fd);
				return ret;
			}
			if (r->fd < 0) {
				ret = ring_map(s, r, fd, c);
				if (ret < 0) {
					set_err(e, ret, pid, tid, c, "mmap");
					return ret;
				}
			} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) < 0) {
				set_err(e, -errno, pid, tid, c, "PERF_EVENT_IOC_SET_OUTPUT");
				return -errno;
			}
		}
	}
	return 0;
}

static void remember_cpu0(struct att_session *s, pid_t pid, pid_t tid)
{
	struct att_cpu0 *c = calloc(1, sizeof(*c));

	if (!c)
		return;
	c->tid = tid;
	if (facts_thread_cpu(pid, tid, &c->cpu_ns, &c->user_ns) < 0)
		c->cpu_ns = c->user_ns = UINT64_MAX;
	c->next = s->cpu0[(unsigned)tid % ATT_HASH];
	s->cpu0[(unsigned)tid % ATT_HASH] = c;
}

/* Every thread of pid, with the CPU time each had so far (the profiles
 * count from here).  A thread that ends between the listing and the
 * open is skipped (-ESRCH); the process itself missing is an error. */
static pid_t tgid_of(pid_t tid);

static int open_process(struct att_session *s, pid_t pid, struct att_error *e)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int ret = 0, opened = 0;
	pid_t tgid = tgid_of(pid);

	/* A thread's id names its process, as for perf -p. */
	if (tgid > 0)
		pid = tgid;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir) {
		set_err(e, errno == ENOENT ? -ESRCH : -errno, pid, 0, -1, "/proc/PID/task");
		return errno == ENOENT ? -ESRCH : -errno;
	}
	while ((d = readdir(dir))) {
		pid_t tid = (pid_t)atoi(d->d_name);

		if (tid <= 0)
			continue;
		remember_cpu0(s, pid, tid);
		ret = open_task(s, pid, tid, true, e);
		if (ret == -ESRCH) {
			ret = 0;
			continue;
		}
		if (ret < 0)
			break;
		opened++;
	}
	closedir(dir);
	if (ret == 0 && !opened) {
		set_err(e, -ESRCH, pid, 0, -1, "perf_event_open");
		ret = -ESRCH;
	}
	/* Its load map now, while it certainly lives. */
	if (ret == 0) {
		struct att_proc *p = proc_get(s, pid, true);

		if (!p)
			ret = -ENOMEM;
		else if (!p->maps_read)
			procmap_read(s, p);
	}
	return ret;
}

/* Every task's CPU time at attach, for -a (cheap: one read per thread). */
static void scan_all_cpu0(struct att_session *s)
{
	DIR *dir = opendir("/proc");
	struct dirent *d;

	if (!dir)
		return;
	while ((d = readdir(dir))) {
		pid_t pid = (pid_t)atoi(d->d_name);
		char path[64];
		struct dirent *t;
		DIR *td;

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
		if (!(td = opendir(path)))
			continue;
		while ((t = readdir(td)))
			if (atoi(t->d_name) > 0)
				remember_cpu0(s, pid, (pid_t)atoi(t->d_name));
		closedir(td);
	}
	closedir(dir);
}

static pid_t tgid_of(pid_t tid)
{
	char path[64], buf[4096], *p;
	FILE *f;
	pid_t tgid = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	if (!(f = fopen(path, "re")))
		return 0;
	while (fgets(buf, sizeof(buf), f))
		if (!strncmp(buf, "Tgid:", 5)) {
			tgid = (pid_t)strtol(buf + 5, &p, 10);
			break;
		}
	fclose(f);
	return tgid;
}

/* A pidfd per -p/-t target: it turns readable when the process ends, and
 * opening one sends nothing to it. */
static void watch_target(struct att_session *s, pid_t pid)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);

	s->pidfds[s->n_pidfds] = fd;
	s->target_done[s->n_pidfds++] = false;
}

/* A session holding a copy of o and its per-CPU and per-target arrays;
 * NULL if memory ran out. */
static struct att_session *session_new(const struct att_opts *o, size_t nt)
{
	struct att_session *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->o = *o;
	memcpy(s->ev, o->ev, o->n_ev * sizeof(s->ev[0]));
	s->o.ev = s->ev;
	if (o->requested) {
		for (size_t i = 0; i < o->n_ev; i++)
			s->requested[i] = o->requested[i] ? strdup(o->requested[i]) : NULL;
		s->o.requested = (const char *const *)s->requested;
	}
	s->ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
	s->rings = calloc((size_t)s->ncpu, sizeof(*s->rings));
	s->pidfds = calloc(nt + 1, sizeof(*s->pidfds));
	s->target_done = calloc(nt + 1, sizeof(*s->target_done));
	s->proc_cpu0 = calloc(o->n_pids + 1, sizeof(*s->proc_cpu0));
	if (!s->rings || !s->pidfds || !s->target_done || !s->proc_cpu0) {
		att_close(s);
		return NULL;
	}
	for (int c = 0; c < s->ncpu; c++)
		s->rings[c].fd = -1;
	s->n_rings = s->ncpu;
	return s;
}

/* What every sample carries, the kernel's build-id if the kernel is
 * counted, and the kernel's call-chain depth limit. */
static void sampling_setup(struct att_session *s)
{
	const struct att_opts *o = &s->o;
	FILE *f;
	unsigned long long v;

	s->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			 PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD;
	if (o->stack != ATT_STACK_NONE)
		s->sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (o->stack == ATT_STACK_CFI)
		s->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
	for (size_t i = 0; i < o->n_ev; i++)
		s->kern.on |= !o->ev[i].exclude_kernel;
	if (s->kern.on)
		s->kern.build_id_len = (uint32_t)prof_notes_build_id(
			"/sys/kernel/notes", s->kern.build_id, sizeof(s->kern.build_id));
	s->max_stack = 127;
	f = fopen("/proc/sys/kernel/perf_event_max_stack", "re");
	if (f && fscanf(f, "%llu", &v) == 1 && v > 0)
		s->max_stack = v;
	if (f)
		fclose(f);
}

/* Events opened on every CPU, every process and every thread o names. */
static int open_targets(struct att_session *s, const struct att_opts *o, struct att_error *err)
{
	int ret = 0;

	if (o->all_cpus) {
		scan_all_cpu0(s);
		ret = open_task(s, -1, -1, false, err);
	}
	for (size_t i = 0; ret == 0 && i < o->n_pids; i++) {
		if (facts_process_cpu(o->pids[i], &s->proc_cpu0[i]) < 0)
			s->proc_cpu0[i] = UINT64_MAX;
		ret = open_process(s, o->pids[i], err);
		if (ret == 0)
			watch_target(s, o->pids[i]);
	}
	for (size_t i = 0; ret == 0 && i < o->n_tids; i++) {
		pid_t pid = tgid_of(o->tids[i]);

		if (!pid) {
			set_err(err, -ESRCH, 0, o->tids[i], -1, "/proc/TID/status");
			return -ESRCH;
		}
		remember_cpu0(s, pid, o->tids[i]);
		ret = open_task(s, pid, o->tids[i], false, err);
		if (ret == 0 && !thr_get(s, pid, o->tids[i], true))
			ret = -ENOMEM;
		if (ret == 0)
			watch_target(s, pid);
	}
	return ret;
}

int att_open(const struct att_opts *o, struct att_session **out, struct att_error *err)
{
	struct att_session *s;
	size_t nt = o->n_pids + o->n_tids;
	int ret;

	*out = NULL;
	set_err(err, 0, 0, 0, -1, NULL);
	if (o->sz < sizeof(*o) || !o->n_ev || o->n_ev > PMC_MAX_EVENTS ||
	    (!nt && !o->all_cpus) || !o->outdir)
		return -EINVAL;
	for (size_t i = 0; i < o->n_ev; i++)
		if (o->ev[i].kind != PMC_KIND_PERF)
			return -PMC_ENOTSUP;
	if (!(s = session_new(o, nt)))
		return -ENOMEM;
	sampling_setup(s);
	facts_machine();
	ret = open_targets(s, o, err);
	if (ret < 0) {
		att_close(s);
		return ret;
	}
	*out = s;
	return 0;
}

static int ioctl_all(struct att_session *s, unsigned long req)
{
	int ret = 0;

	for (size_t i = 0; i < s->n_fds; i++)
		if (ioctl(s->fds[i], req, 0) < 0 && !ret)
			ret = -errno;
	return ret;
}

int att_enable(struct att_session *s)
{
	return ioctl_all(s, PERF_EVENT_IOC_ENABLE);
}

int att_disable(struct att_session *s)
{
	return ioctl_all(s, PERF_EVENT_IOC_DISABLE);
}

/* Every complete record between tail and head, in order; a record that
 * wraps around the end is copied out first. */
static void ring_drain(struct att_session *s, struct att_ring *r)
{
	struct perf_event_mmap_page *pg = r->base;
	const uint8_t *data = (const uint8_t *)r->base + pg->data_offset;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = pg->data_tail;
	size_t len = pg->data_size ? pg->data_size : r->len;

	if (!pg->data_offset)
		data = (const uint8_t *)r->base + sysconf(_SC_PAGESIZE);
	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header h;
		size_t off = tail % len;
		const void *rec;

		if (off + sizeof(h) <= len) {
			memcpy(&h, data + off, sizeof(h));
		} else {
			size_t first = len - off;

			memcpy(&h, data + off, first);
			memcpy((uint8_t *)&h + first, data, sizeof(h) - first);
		}
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		if (off + h.size <= len) {
			rec = data + off;
		} else {
			size_t first = len - off;

			if (s->scratch_len < h.size) {
				uint8_t *n = realloc(s->scratch, h.size);

				if (!n)
					break;
				s->scratch = n;
				s->scratch_len = h.size;
			}
			memcpy(s->scratch, data + off, first);
			memcpy(s->scratch + first, data, h.size - first);
			rec = s->scratch;
		}
		records_handle(s, rec, h.size);
		tail += h.size;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
}

static void drain_all(struct att_session *s)
{
	for (int c = 0; c < s->n_rings; c++)
		if (s->rings[c].base)
			ring_drain(s, &s->rings[c]);
}

int att_poll(struct att_session *s, int timeout_ms)
{
	struct pollfd pf[64];
	nfds_t n = 0;
	bool all_done = s->n_pidfds > 0;

	for (int c = 0; c < s->n_rings && n < 32; c++)
		if (s->rings[c].fd >= 0)
			pf[n++] = (struct pollfd){ .fd = s->rings[c].fd, .events = POLLIN };
	for (size_t i = 0; i < s->n_pidfds && n < 64; i++)
		if (s->pidfds[i] >= 0 && !s->target_done[i])
			pf[n++] = (struct pollfd){ .fd = s->pidfds[i], .events = POLLIN };
	if (poll(pf, n, timeout_ms) < 0 && errno != EINTR)
		return -errno;
	drain_all(s);
	facts_refresh_cpu(s);
	for (size_t i = 0; i < s->n_pidfds; i++) {
		struct pollfd p = { .fd = s->pidfds[i], .events = POLLIN };

		if (s->pidfds[i] >= 0 && !s->target_done[i] && poll(&p, 1, 0) == 1)
			s->target_done[i] = true;
		all_done &= s->pidfds[i] >= 0 ? s->target_done[i] : false;
	}
	if (all_done) {
		/* followed children may still run: they end the session too */
		for (unsigned h = 0; h < ATT_HASH; h++)
			for (struct att_proc *p = s->procs[h]; p; p = p->next)
				if (!p->exited && facts_alive(p->pid))
					all_done = false;
	}
	return all_done;
}

/* The -p processes' CPU time since attach, all alive: else 0. */
static uint64_t proc_cpu_since(const struct att_session *s)
{
	uint64_t sum = 0, now;

	if (s->o.all_cpus || s->o.n_tids || !s->o.n_pids)
		return 0;
	for (size_t i = 0; i < s->o.n_pids; i++) {
		if (s->proc_cpu0[i] == UINT64_MAX || facts_process_cpu(s->o.pids[i], &now) < 0 ||
		    now < s->proc_cpu0[i])
			return 0;
		sum += now - s->proc_cpu0[i];
	}
	return sum;
}

int att_finish(struct att_session *s, const char **failed)
{
	s->st.proc_cpu_ns = proc_cpu_since(s);
	drain_all(s);
	for (unsigned h = 0; h < ATT_HASH; h++)
		for (struct att_thr *t = s->thrs[h]; t; t = t->next)
			if (!t->dead)
				write_thread(s, t, t->proc && t->proc->exited ? "exit" : "detach");
	for (unsigned h = 0; h < ATT_HASH; h++)
		for (struct att_proc *p = s->procs[h]; p; p = p->next)
			write_jit_map(s, p);
	if (s->first_err && failed)
		*failed = s->failed;
	return s->first_err ? s->first_err : (int)s->st.profiles;
}

void att_stats(const struct att_session *s, struct att_stats *st)
{
	*st = s->st;
	st->counters = s->n_fds;
	st->unwind_note = s->unwind_note;
}

void att_close(struct att_session *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n_fds; i++)
		close(s->fds[i]);
	for (int c = 0; s->rings && c < s->n_rings; c++)
		if (s->rings[c].base)
			munmap(s->rings[c].base, s->rings[c].map_len);
	for (size_t i = 0; i < s->n_pidfds; i++)
		if (s->pidfds[i] >= 0)
			close(s->pidfds[i]);
	for (unsigned h = 0; h < ATT_HASH; h++) {
		for (struct att_thr *t = s->thrs[h], *n; t; t = n) {
			n = t->next;
			if (t->arena)
				munmap(t->arena, ATT_CCT_BYTES);
			free(t);
		}
		for (struct att_proc *p = s->procs[h], *n; p; p = n) {
			n = p->next;
			procmap_free(p);
			free(p);
		}
		for (struct att_cpu0 *c = s->cpu0[h], *n; c; c = n) {
			n = c->next;
			free(c);
		}
	}
	image_free_all(s);
	procmap_cache_free();
	free(s->fds);
	free(s->fd_ev);
	free(s->ids);
	free(s->rings);
	free(s->pidfds);
	free(s->target_done);
	free(s->proc_cpu0);
	free(s->scratch);
	for (size_t i = 0; i < PMC_MAX_EVENTS; i++)
		free(s->requested[i]);
	free(s);
}

/* The kernel's records, one at a time: samples into the thread's calling-
 * context tree; FORK, COMM (exec), EXIT and MMAP2 into the process and
 * thread tables; LOST and THROTTLE into the counters of the thread they
 * name (sample_id_all puts the task at the end of every record). */
#include "config.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attach/internal.h"
#include "collector/kernel.h"
#include "unwinder/unwind.h"

/* The trailer sample_id_all appends to every non-sample record, with our
 * sample_type: pid, tid, time, identifier. */
struct trailer {
	uint32_t pid, tid;
	uint64_t time;
	uint64_t id;
};

static bool trailer_of(const void *rec, size_t len, struct trailer *t)
{
	if (len < sizeof(struct perf_event_header) + sizeof(*t))
		return false;
	memcpy(t, (const uint8_t *)rec + len - sizeof(*t), sizeof(*t));
	return true;
}

static int event_index(const struct att_session *s, uint64_t id)
{
	if (s->o.n_ev == 1)
		return 0;
	for (size_t i = 0; i < s->n_fds; i++)
		if (s->ids[i] == id)
			return s->fd_ev[i];
	return -1;
}

/* A reader that never runs past the record. */
struct cur {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t take64(struct cur *c)
{
	uint64_t v = 0;

	if (c->p + 8 > c->end) {
		c->bad = true;
		return 0;
	}
	memcpy(&v, c->p, 8);
	c->p += 8;
	return v;
}

static const uint8_t *take(struct cur *c, size_t n)
{
	const uint8_t *p = c->p;

	if (n > (size_t)(c->end - c->p)) {
		c->bad = true;
		return NULL;
	}
	c->p += n;
	return p;
}

/* The perf call chain into pcs (leaf first, context markers dropped);
 * *kernel_leaf when the sampled instruction was kernel code. */
static int chain_pcs(const uint64_t *ips, uint64_t nr, uint64_t *pcs, int max, bool *kernel_leaf,
		     int *n_user)
{
	int n = 0;
	bool first = true, user = false;

	*n_user = 0;
	for (uint64_t i = 0; i < nr && n < max; i++) {
		uint64_t a = ips[i];

		if (a >= (uint64_t)PERF_CONTEXT_MAX) {
			user = a == (uint64_t)PERF_CONTEXT_USER;
			if (first)
				*kernel_leaf = a == (uint64_t)PERF_CONTEXT_KERNEL;
			first = false;
			continue;
		}
		first = false;
		pcs[n++] = a;
		*n_user += user;
	}
	return n;
}

/* Root first into the tree: pcs[n-1] is the outermost frame.  Every
 * frame but the leaf is a return address: step back into the call. */
static uint32_t insert_path(struct att_thr *t, const uint64_t *pcs, int n)
{
	struct att_proc *p = t->proc;
	uint32_t node = 0;
	bool unknown = false;

	for (int k = n - 1; k >= 0; k--) {
		uint64_t a = k ? pcs[k] - 1 : pcs[k];
		uint32_t mod;
		uint64_t off;

		if (!procmap_lookup(p, a, &mod, &off))
			mod = PROF_NO_MODULE, off = a, unknown = true;
		node = cct_child(&t->cct, node, mod, off);
		if (!node)
			return 0;
	}
	t->ctr[AC_UNKNOWN_MODULE] += unknown;
	return node;
}

/* The user part of pcs[0..n) (its last n_user entries, the kernel's
 * frame-pointer chain) replaced by the CFI walk over the stack copy when
 * that walk went at least as far or ended where the stack does; else the
 * chain stays and the walk's failure is counted.  Returns the new n. */
static int cfi_user(struct att_session *s, struct att_thr *t, uint64_t *pcs, int n, int n_user,
		    const uint64_t *regs, const uint8_t *stack, uint64_t stack_len)
{
	uint64_t u[ATT_MAX_DEPTH];
	int k = n - n_user, m;
	unsigned flags = 0;

	m = stack_unwind(s, t->proc, regs, UW_PERF_REGS_MASK, stack, stack_len, u,
			 ATT_MAX_DEPTH - k, &flags);
	if (m <= 0 || ((flags & UW_FAILED) && m < n_user)) {
		t->ctr[AC_UNWIND_FAILED]++;
		return n;
	}
	if (flags & (UW_COPY_SHORT | UW_TRUNCATED))
		t->ctr[AC_TRUNCATED]++;
	memcpy(pcs + k, u, (size_t)m * sizeof(*u));
	t->ctr[AC_CFI_UNWOUND]++;
	return k + m;
}

static void sample(struct att_session *s, const struct perf_event_header *h, size_t len)
{
	struct cur c = { (const uint8_t *)(h + 1), (const uint8_t *)h + len, false };
	uint64_t pcs[ATT_MAX_DEPTH], id, ip, period, nr = 0, stack_len = 0;
	const uint64_t *ips = NULL, *regs = NULL;
	const uint8_t *stack = NULL;
	uint32_t pid, tid;
	struct att_thr *t;
	bool kernel_leaf = (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
	int n, n_user = 0, ev;
	uint32_t node;

	id = take64(&c);
	ip = take64(&c);
	{
		uint64_t pt = take64(&c);

		pid = (uint32_t)pt;
		tid = (uint32_t)(pt >> 32);
	}
	take64(&c);	/* time */
	period = take64(&c);
	if (s->sample_type & PERF_SAMPLE_CALLCHAIN) {
		nr = take64(&c);
		ips = (const uint64_t *)take(&c, nr * 8);
	}
	if (s->sample_type & PERF_SAMPLE_REGS_USER) {
		/* abi 0 (PERF_SAMPLE_REGS_ABI_NONE): a kernel thread, no regs */
		if (take64(&c) != PERF_SAMPLE_REGS_ABI_NONE)
			regs = (const uint64_t *)take(&c, 8 * (size_t)__builtin_popcountll(UW_PERF_REGS_MASK));
	}
	if (s->sample_type & PERF_SAMPLE_STACK_USER) {
		uint64_t size = take64(&c);

		if (size) {
			stack = take(&c, size);
			stack_len = take64(&c);	/* dyn_size: how much was copied */
			if (stack_len > size)
				stack_len = size;
		}
	}
	if (c.bad)
		return;
	/* The idle task (pid 0) is not a process to profile. */
	if (pid == 0 || pid == (uint32_t)-1)
		return;
	ev = event_index(s, id);
	if (ev < 0)
		return;
	t = thr_get(s, (pid_t)pid, (pid_t)tid, true);
	if (!t)
		return;
	if (ips && nr) {
		n = chain_pcs(ips, nr, pcs, ATT_MAX_DEPTH, &kernel_leaf, &n_user);
		/* The kernel stops a chain at perf_event_max_stack entries. */
		if (nr >= s->max_stack)
			t->ctr[AC_TRUNCATED]++;
	} else {
		pcs[0] = ip;
		n = 1;
	}
	if (n == 0)
		pcs[n++] = ip;
	if (regs && stack && stack_len)
		n = cfi_user(s, t, pcs, n, n_user, regs, stack, stack_len);
	if (kernel_leaf)
		t->ctr[AC_KERNEL_SAMPLES]++;
	node = insert_path(t, pcs, n);
	if (!node) {
		t->ctr[AC_DROPPED_CCT_FULL]++;
		return;
	}
	cct_count(&t->cct, node, (uint32_t)ev);
	t->weight[ev] += period;
	t->sampled_since = true;
	t->ctr[AC_SAMPLES]++;
	s->st.samples++;
	if (!strcmp(s->ev[ev].unit ? s->ev[ev].unit : "", "ns"))
		s->st.sampled_ns += period;
}

/* A new thread or process: a process's child starts with its parent's
 * load map (until it execs). */
static void fork_rec(struct att_session *s, const struct perf_event_header *h)
{
	const struct { uint32_t pid, ppid, tid, ptid; } *f = (const void *)(h + 1);
	struct att_thr *t;

	if (f->pid != f->ppid) {
		struct att_proc *parent = proc_get(s, (pid_t)f->ppid, true);
		struct att_proc *child = proc_get(s, (pid_t)f->pid, true);

		/* A pid used again: the process we knew by it has ended. */
		if (child && child->exited) {
			procmap_free(child);
			child->maps_read = child->exited = false;
			child->seq = 0;
		}
		if (parent && !parent->maps_read)
			procmap_read(s, parent);
		if (child && parent && !child->maps_read && child->n_mods == 0 && parent->n_mods) {
			for (size_t i = 0; i < parent->n_mods; i++) {
				const struct att_mod *m = &parent->mods[i];

				if (!m->unload_seq)
					procmap_add(s, child, m->path, m->start, m->end - m->start,
						    m->pgoff, m->build_id, m->build_id_len);
			}
			child->maps_read = true;
			memcpy(child->comm, parent->comm, sizeof(child->comm));
			memcpy(child->command, parent->command, sizeof(child->command));
			memcpy(child->argv, parent->argv, sizeof(child->argv));
			child->ppid = parent->pid;
		}
	}
	/* A thread born after attach: its CPU time from birth counts
	 * (cpu_at_attach). */
	t = thr_get(s, (pid_t)f->pid, (pid_t)f->tid, true);
	(void)t;
}

static void exit_rec(struct att_session *s, const struct perf_event_header *h)
{
	const struct { uint32_t pid, ppid, tid, ptid; } *f = (const void *)(h + 1);
	struct att_thr *t = thr_get(s, (pid_t)f->pid, (pid_t)f->tid, false);
	struct att_proc *p;

	if (f->pid == f->tid && (p = proc_get(s, (pid_t)f->pid, false))) {
		p->exited = true;
		write_jit_map(s, p);
	}
	if (t && !t->dead)
		write_thread(s, t, "exit");
}

/* COMM with the exec flag: the thread's image is gone; its profile ends
 * here and a new one begins (as the collector's do). */
static void comm_rec(struct att_session *s, const struct perf_event_header *h, size_t len)
{
	const struct { uint32_t pid, tid; char comm[]; } *r = (const void *)(h + 1);
	struct att_thr *t;
	struct att_proc *p;

	if (!(h->misc & PERF_RECORD_MISC_COMM_EXEC)) {
		if ((t = thr_get(s, (pid_t)r->pid, (pid_t)r->tid, false)))
			snprintf(t->name, sizeof(t->name), "%.*s",
				 (int)(len - sizeof(*h) - sizeof(*r)), r->comm);
		return;
	}
	t = thr_get(s, (pid_t)r->pid, (pid_t)r->tid, false);
	if (t && !t->dead && t->ctr[AC_SAMPLES])
		write_thread(s, t, "exec");
	p = proc_get(s, (pid_t)r->pid, false);
	if (p) {
		procmap_exec(p);
		facts_process(p);
	}
	if (t) {
		/* A fresh profile of the new image, from here on. */
		struct att_thr *n = thr_get(s, (pid_t)r->pid, (pid_t)r->tid, true);

		if (n && n != t)
			n->cpu_start_ns = t->cpu_end_ns, n->user_start_ns = t->user_end_ns;
	}
}

static void mmap2_rec(struct att_session *s, const struct perf_event_header *h, size_t len)
{
	struct cur c = { (const uint8_t *)(h + 1), (const uint8_t *)h + len, false };
	uint64_t pt, addr, mlen, pgoff;
	const uint8_t *bid = NULL;
	uint32_t bid_len = 0;
	struct att_proc *p;
	const char *name;

	pt = take64(&c);
	addr = take64(&c);
	mlen = take64(&c);
	pgoff = take64(&c);
	if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		const uint8_t *b = take(&c, 24);

		if (b && b[0] <= 20) {
			bid_len = b[0];
			bid = b + 4;
		}
	} else {
		take(&c, 24);
	}
	take(&c, 8);	/* prot, flags */
	name = (const char *)c.p;
	if (c.bad || c.p >= c.end || !memchr(name, '\0', (size_t)(c.end - c.p)))
		return;
	/* Only processes we profile, and only once their map was read. */
	p = proc_get(s, (pid_t)(uint32_t)pt, false);
	if (!p || !p->maps_read)
		return;
	procmap_add(s, p, name, addr, mlen, pgoff, bid, bid_len);
}

/* LOST, THROTTLE: counted on the thread the trailer names (the task that
 * ran when the kernel dropped or throttled), else on the session. */
static void count_on(struct att_session *s, const void *rec, size_t len, int ctr, uint64_t n)
{
	struct trailer tr;
	struct att_thr *t = NULL;

	if (trailer_of(rec, len, &tr) && tr.pid && tr.pid != (uint32_t)-1)
		t = thr_get(s, (pid_t)tr.pid, (pid_t)tr.tid, false);
	if (t)
		t->ctr[ctr] += n;
	else if (ctr == AC_LOST)
		s->unclaimed_lost += n;
	else if (ctr == AC_THROTTLED)
		s->unclaimed_throttled += n;
}

void records_handle(struct att_session *s, const void *rec, size_t len)
{
	const struct perf_event_header *h = rec;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		sample(s, h, len);
		break;
	case PERF_RECORD_FORK:
		if (len >= sizeof(*h) + 16)
			fork_rec(s, h);
		break;
	case PERF_RECORD_EXIT:
		if (len >= sizeof(*h) + 16)
			exit_rec(s, h);
		break;
	case PERF_RECORD_COMM:
		if (len >= sizeof(*h) + 8)
			comm_rec(s, h, len);
		break;
	case PERF_RECORD_MMAP2:
		mmap2_rec(s, h, len);
		break;
	case PERF_RECORD_LOST:
		if (len >= sizeof(*h) + 16) {
			uint64_t lost;

			memcpy(&lost, (const uint8_t *)(h + 1) + 8, 8);
			s->st.lost += lost;
			count_on(s, rec, len, AC_LOST, lost);
		}
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (len >= sizeof(*h) + 8) {
			uint64_t lost;

			memcpy(&lost, h + 1, 8);
			s->st.lost += lost;
			count_on(s, rec, len, AC_LOST, lost);
		}
		break;
	case PERF_RECORD_THROTTLE:
		s->st.throttled++;
		count_on(s, rec, len, AC_THROTTLED, 1);
		break;
	case PERF_RECORD_UNTHROTTLE:
		count_on(s, rec, len, AC_UNTHROTTLED, 1);
		break;
	default:
		break;
	}
}

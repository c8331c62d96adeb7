/* A thread's profile, written with the project's writer (profile/) under
 * the collector's name scheme, CMD-HOST-PID-TID[.K].pmcp, with the same
 * metadata keys (docs/profile-format.md) and counters, so report, diff,
 * view and every export read it as a launched run's. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "attach/internal.h"

static const char *const ctr_names[AC_N] = {
	[AC_SAMPLES] = "samples",
	[AC_KERNEL_SAMPLES] = "kernel_samples",
	[AC_TRUNCATED] = "truncated_stacks",
	[AC_UNKNOWN_MODULE] = "unknown_module",
	[AC_DROPPED_CCT_FULL] = "dropped_no_memory",
	[AC_UNWIND_FAILED] = "unwind_failed",
	[AC_CFI_UNWOUND] = "stack_copy_unwound",
	[AC_LOST] = "lost",
	[AC_THROTTLED] = "throttled",
	[AC_UNTHROTTLED] = "unthrottled",
};

static void note_failure(struct att_session *s, int err, const char *name)
{
	if (s->first_err)
		return;
	s->first_err = err;
	snprintf(s->failed, sizeof(s->failed), "%.150s/%.100s", s->o.outdir, name);
}

static const char *how_attached(const struct att_session *s)
{
	return s->o.all_cpus ? "all-cpus" : s->o.n_tids && !s->o.n_pids ? "tid" : "pid";
}

/* The strings of one profile. */
struct texts {
	char pid[16], ppid[16], tid[16], index[16], start[40], end[40], steal_end[24];
	char steal_start[24], cpu[24], user[24];
};

static void fmt_time(char *out, size_t len, const struct timespec *ts)
{
	snprintf(out, len, "%lld.%09ld", (long long)ts->tv_sec, ts->tv_nsec);
}

static size_t fill_meta(const struct att_session *s, const struct att_thr *t, struct texts *x,
			const char *reason, struct prof_kv *meta)
{
	const struct att_machine *m = &att_machine;
	const struct att_proc *p = t->proc;
	struct timespec now;
	size_t n = 0;

	clock_gettime(CLOCK_REALTIME, &now);
	snprintf(x->pid, sizeof(x->pid), "%d", (int)t->pid);
	snprintf(x->ppid, sizeof(x->ppid), "%d", (int)p->ppid);
	snprintf(x->tid, sizeof(x->tid), "%d", (int)t->tid);
	snprintf(x->index, sizeof(x->index), "%u", t->index);
	fmt_time(x->start, sizeof(x->start), &t->start);
	fmt_time(x->end, sizeof(x->end), &now);
	snprintf(x->steal_start, sizeof(x->steal_start), "%llu", (unsigned long long)m->steal_start);
	snprintf(x->steal_end, sizeof(x->steal_end), "%llu", (unsigned long long)facts_steal_ns());
#define META(k, v) (meta[n++] = (struct prof_kv){ (k), (v) })
	META("command", p->command[0] ? p->command : p->comm);
	META("argv", p->argv);
	META("host", m->host);
	META("pid", x->pid);
	META("tid", x->tid);
	META("ppid", x->ppid);
	META("thread_name", t->name);
	META("thread_index", x->index);
	META("start_time", x->start);
	META("end_time", x->end);
	META("kernel", m->kernel);
	META("arch", m->arch);
	META("cpu_model", m->cpu_model);
	META("cpus", m->cpus);
	META("hypervisor", m->hypervisor);
	META("hypervisor_signature", m->hv_signature);
	META("vpmu", m->vpmu);
	META("paranoid", m->paranoid);
	META("hw_events", m->hw_events);
	META("backend", s->o.backend ? s->o.backend : "perf_event");
	META("backend_version", "attach");
	META("events_requested", s->o.events_requested ? s->o.events_requested : "");
	META("events_used", s->o.events_used ? s->o.events_used : "");
	META("fallback", s->o.fallback ? s->o.fallback : "");
	META("calibration", s->o.calibration ? s->o.calibration : "");
	META("steal_start", x->steal_start);
	META("steal_end", x->steal_end);
	META("call_graph", s->o.stack == ATT_STACK_NONE ? "none"
			   : s->o.stack == ATT_STACK_CFI ? "dwarf" : "fp");
	META("max_depth", "256");
	META("kernel_frames", s->kern.on ? "callchain" : "excluded");
	META("attach", how_attached(s));
	META("end_reason", reason);
	META("pmcprof_version", PACKAGE_VERSION);
#undef META
	return n;
}

static size_t fill_counters(struct att_session *s, struct att_thr *t, struct prof_counter *c)
{
	size_t n = 0;

	/* Losses no thread was named for go on the next profile written:
	 * the sum over the run's files stays right. */
	t->ctr[AC_LOST] += s->unclaimed_lost;
	t->ctr[AC_THROTTLED] += s->unclaimed_throttled;
	s->unclaimed_lost = s->unclaimed_throttled = 0;
	for (int i = 0; i < AC_N; i++)
		c[n++] = (struct prof_counter){ ctr_names[i], t->ctr[i] };
	if (t->cpu_start_ns != UINT64_MAX && t->cpu_end_ns != UINT64_MAX &&
	    t->cpu_end_ns >= t->cpu_start_ns) {
		c[n++] = (struct prof_counter){ "thread_cpu_ns", t->cpu_end_ns - t->cpu_start_ns };
		if (t->user_end_ns >= t->user_start_ns)
			c[n++] = (struct prof_counter){ "thread_user_ns",
							t->user_end_ns - t->user_start_ns };
	}
	return n;
}

/* The modules the tree refers to, renumbered in order (a -a run's
 * short-lived threads touch three or four of a process's dozens: the rest
 * would only make every file bigger), with the node array that uses the
 * new numbers, and the vdso's image when the vdso is among them.  Returns
 * how many, or -ENOMEM. */
static int used_modules(const struct att_proc *p, const struct prof_cct *cct,
			struct prof_module **mods, uint32_t **node_mod, struct prof_image *img,
			size_t *n_img)
{
	uint32_t *newidx = malloc((p->n_mods ? p->n_mods : 1) * sizeof(*newidx));
	uint32_t *nm = malloc((cct->n_nodes ? cct->n_nodes : 1) * sizeof(*nm));
	struct prof_module *m = calloc(p->n_mods ? p->n_mods : 1, sizeof(*m));
	size_t vlen, n = 0;
	const uint8_t *v = procmap_vdso_image(&vlen);

	*n_img = 0;
	if (!newidx || !nm || !m) {
		free(newidx), free(nm), free(m);
		return -ENOMEM;
	}
	for (size_t i = 0; i < p->n_mods; i++)
		newidx[i] = PROF_NO_MODULE;
	for (uint32_t k = 0; k < cct->n_nodes; k++) {
		uint32_t i = cct->module[k];

		if (i < p->n_mods && newidx[i] == PROF_NO_MODULE) {
			const struct att_mod *a = &p->mods[i];

			newidx[i] = (uint32_t)n;
			m[n] = (struct prof_module){ .path = a->path,
						     .build_id = a->build_id_len ? a->build_id : NULL,
						     .build_id_len = a->build_id_len, .start = a->start,
						     .end = a->end, .bias = a->bias, .load_seq = a->load_seq,
						     .unload_seq = a->unload_seq };
			if (v && !*n_img && !strcmp(a->path, "linux-vdso.so.1")) {
				*img = (struct prof_image){ .module = (uint32_t)n, .len = (uint32_t)vlen,
							    .data = v };
				*n_img = 1;
			}
			n++;
		}
		nm[k] = i < p->n_mods ? newidx[i] : i;
	}
	free(newidx);
	*mods = m;
	*node_mod = nm;
	return (int)n;
}

/* The thread is gone from /proc: its last periodic reading stands for
 * its end when at most 5% of its samples' weight came after it (well
 * inside the report's 20% trust thresholds: the coverage it shows is at
 * most 5% high); else its CPU time stays unknown. */
static void last_reading(const struct att_session *s, struct att_thr *t)
{
	uint64_t w = 0;

	t->cpu_end_ns = t->user_end_ns = UINT64_MAX;
	for (size_t i = 0; i < s->o.n_ev; i++)
		w += t->weight[i];
	if (t->cpu_last_ns == UINT64_MAX || !w || (w - t->weight_last) * 20 > w)
		return;
	t->cpu_end_ns = t->cpu_last_ns;
	t->user_end_ns = t->user_last_ns;
}

int write_thread(struct att_session *s, struct att_thr *t, const char *reason)
{
	struct prof_kv meta[48];
	struct prof_event evs[PMC_MAX_EVENTS];
	struct prof_counter ctrs[AC_N + 4];
	struct prof_image img;
	struct texts x;
	struct prof p = { .version = PROF_VERSION };
	char cmd[48], host[64], name[256];
	struct prof_module *mods = NULL;
	uint32_t *node_mod = NULL;
	int dirfd, ret = -EEXIST, n_mods;

	t->dead = true;
	/* A thread that never ran a sample has nothing to say (a -a run
	 * would otherwise write one for every task that forked). */
	if (!t->ctr[AC_SAMPLES] && !t->ctr[AC_LOST])
		goto out;
	if (t->cpu_end_ns == UINT64_MAX &&
	    facts_thread_cpu(t->pid, t->tid, &t->cpu_end_ns, &t->user_end_ns) < 0)
		last_reading(s, t);
	p.n_meta = fill_meta(s, t, &x, reason, meta);
	p.meta = meta;
	for (size_t i = 0; i < s->o.n_ev; i++)
		evs[i] = (struct prof_event){ .name = s->ev[i].name, .requested = s->o.requested ? s->o.requested[i] : s->ev[i].spec,
					      .unit = s->ev[i].unit, .period = s->ev[i].period,
					      .freq = s->ev[i].freq, .weight = t->weight[i] };
	p.n_events = s->o.n_ev;
	p.events = evs;
	p.n_counters = fill_counters(s, t, ctrs);
	p.counters = ctrs;
	cct_view(&t->cct, &p.cct);
	n_mods = used_modules(t->proc, &p.cct, &mods, &node_mod, &img, &p.n_images);
	if (n_mods < 0) {
		note_failure(s, -ENOMEM, "(profiles)");
		goto out;
	}
	p.modules = mods;
	p.n_modules = (size_t)n_mods;
	p.cct.module = node_mod;
	p.images = &img;
	prof_name_part(cmd, sizeof(cmd), t->proc->comm[0] ? t->proc->comm : "prog");
	prof_name_part(host, sizeof(host), att_machine.host);
	dirfd = open(s->o.outdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dirfd < 0) {
		note_failure(s, -errno, "");
	} else {
		for (unsigned k = 0; k < 100 && ret == -EEXIST; k++) {
			snprintf(name, sizeof(name), k ? "%s-%s-%d-%d.%u.pmcp" : "%s-%s-%d-%d.pmcp",
				 cmd, host, (int)t->pid, (int)t->tid, k);
			ret = prof_write(&p, dirfd, name, s->o.file_mode ? s->o.file_mode : 0644);
		}
		if (ret < 0)
			note_failure(s, ret, name);
		else
			s->st.profiles++;
		close(dirfd);
	}
	free(mods);
	free(node_mod);
out:
	s->st.truncated += t->ctr[AC_TRUNCATED];
	s->st.cfi_unwound += t->ctr[AC_CFI_UNWOUND];
	munmap(t->arena, ATT_CCT_BYTES);
	t->arena = NULL;
	return ret < 0 && ret != -EEXIST ? ret : 0;
}

/* The JIT's perf map beside the profiles (the analyzer looks there first),
 * copied while the file is there: it names code that exists only in the
 * process's memory. */
void write_jit_map(struct att_session *s, struct att_proc *p)
{
	char src[64], dst[4200], buf[65536];
	int in, out;
	ssize_t n;

	snprintf(src, sizeof(src), "/tmp/perf-%d.map", (int)p->pid);
	if (access(src, R_OK) < 0)
		return;
	snprintf(dst, sizeof(dst), "%s/perf-%d.map", s->o.outdir, (int)p->pid);
	if ((in = open(src, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return;
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		   s->o.file_mode ? s->o.file_mode : 0644);
	while (out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			break;
	if (out >= 0)
		close(out);
	close(in);
	p->jit_map = true;
}

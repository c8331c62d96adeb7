/* The set: reading profile files, merging them into one raw calling-context
 * tree with counts per run repeat, and the facts about each run.  A file
 * is read, merged and freed before the next, so memory follows the
 * distinct contexts, not the number of files or samples. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/aggregate.h"
#include "analyzer/query.h"
#include "analyzer/read.h"
#include "analyzer/set.h"
#include "analyzer/symbolize.h"

static const char *const errs[] = {
	[ANA_ESTATE - ANA_ERR_BASE] = "call not valid in this state of the set",
	[ANA_EMETRIC - ANA_ERR_BASE] = "bad metric expression",
	[ANA_ENOFUNC - ANA_ERR_BASE] = "no function of that name in the profile",
	[ANA_ENODATA - ANA_ERR_BASE] = "no samples found",
	[ANA_EEVENTS - ANA_ERR_BASE] = "the runs are compared on different events: raw counts "
				       "do not compare (shares do)",
};

const char *ana_strerror(int err)
{
	if (err < 0)
		err = -err;
	if (err >= ANA_ERR_BASE && err < ANA_ERR_END)
		return errs[err - ANA_ERR_BASE];
	if (err >= PROF_EMAGIC && err <= PROF_ECORRUPT)
		return prof_strerror(err);
	return strerror(err);
}

/* set_note and set_note_once: the message, unless once and already there. */
static int add_note(struct ana_set *s, enum ana_severity sev, int run, bool once,
		    const char *fmt, va_list ap)
{
	char buf[1024];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	for (size_t i = 0; once && i < s->n_notes; i++)
		if (!strcmp(s->notes[i].msg, buf))
			return 0;
	/* one line each: a message from a file must not forge extra lines */
	for (char *p = buf; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	if (vec_reserve(&s->notes, &s->cap_notes, s->n_notes + 1, sizeof(*s->notes)))
		return -ENOMEM;
	const char *m = strpool_str(&s->pool, buf);
	if (!m)
		return -ENOMEM;
	s->notes[s->n_notes++] = (struct ana_note){ sev, run, m };
	if (sev == ANA_NOTE_ERROR)
		s->n_errors++;
	return 0;
}

int set_note(struct ana_set *s, enum ana_severity sev, int run, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = add_note(s, sev, run, false, fmt, ap);
	va_end(ap);
	return rc;
}

int set_note_once(struct ana_set *s, enum ana_severity sev, int run, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = add_note(s, sev, run, true, fmt, ap);
	va_end(ap);
	return rc;
}

struct ana_set *ana_set_new(const struct ana_opts *opts)
{
	struct ana_set *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	if (opts)
		memcpy(&s->o, opts, opts->sz < sizeof(s->o) ? opts->sz : sizeof(s->o));
	s->o.sz = sizeof(s->o);
	if (s->o.debug_dirs && !(s->debug_dirs = strdup(s->o.debug_dirs)))
		goto fail;
	s->o.debug_dirs = s->debug_dirs;
	if (s->o.cache_dir && !(s->cache_dir = strdup(s->o.cache_dir)))
		goto fail;
	s->o.cache_dir = s->cache_dir;
	if (s->o.keep_dir && !(s->keep_dir = strdup(s->o.keep_dir)))
		goto fail;
	s->o.keep_dir = s->keep_dir;
	for (const char *const *r = s->o.remap; r && *r; r++) {
		if (!strchr(*r, '=') || **r == '=') {
			errno = EINVAL;
			goto fail;
		}
		char **v = realloc(s->remap, (s->n_remap + 1) * sizeof(*v));
		if (!v)
			goto fail;
		s->remap = v;
		if (!(v[s->n_remap] = strdup(*r)))
			goto fail;
		s->n_remap++;
	}
	s->o.remap = NULL;
	if (s->o.n_time) {
		if (!s->o.time || !(s->time = malloc(s->o.n_time * sizeof(*s->time)))) {
			errno = s->o.time ? ENOMEM : EINVAL;
			goto fail;
		}
		memcpy(s->time, s->o.time, s->o.n_time * sizeof(*s->time));
		/* the runs' slice fact says it as the user typed it */
		s->time_spec = s->o.time_spec ? strdup(s->o.time_spec)
					      : tl_time_spec(s->time, s->o.n_time);
		if (!s->time_spec)
			goto fail;
	}
	s->o.time = s->time;
	s->o.time_spec = s->time_spec;
	const char **flt[] = { &s->o.comms, &s->o.pids, &s->o.tids, &s->o.dsos, &s->o.symbols };
	for (size_t i = 0; i < sizeof(flt) / sizeof(flt[0]); i++) {
		if (*flt[i] && !(s->filter[i] = strdup(*flt[i])))
			goto fail;
		*flt[i] = s->filter[i];
	}
	/* raw node 0: the root */
	if (vec_reserve(&s->rparent, &s->cap_raw, 1, sizeof(uint32_t)))
		goto fail;
	size_t c = 0, c2 = 0;
	if (vec_reserve(&s->rmod, &c, s->cap_raw, sizeof(uint32_t)) ||
	    vec_reserve(&s->roff, &c2, s->cap_raw, sizeof(uint64_t)))
		goto fail;
	s->rmod[0] = PROF_NO_MODULE;
	s->n_raw = 1;
	return s;
fail:;
	int e = errno;
	ana_set_free(s);
	errno = e;
	return NULL;
}

static void agg_free_all(struct ana_set *s)
{
	agg_free(&s->a_func);
	agg_free(&s->a_line);
	agg_free(&s->a_mod);
	agg_free(&s->a_sym);
	agg_free(&s->a_bu);
}

void part_free(struct part *p)
{
	FREE_EACH(p->node, p->ev, p->cnt, p->wt);
	p->node = NULL;
	p->ev = NULL;
	p->cnt = NULL;
	p->wt = NULL;
	p->n = p->cap = p->n_merged = 0;
}

static void free_raw(struct ana_set *s)
{
	for (size_t i = 0; i < s->n_part; i++)
		part_free(&s->part[i]);
	free(s->rparent);
	free(s->rmod);
	free(s->roff);
	free(s->raddr);
	free(s->rsym);
	s->raddr = s->rsym = NULL;
	s->rparent = s->rmod = NULL;
	s->roff = NULL;
	idx_free(&s->raw_idx);
	free(s->merge_at);
	free(s->merge_nodes);
	free(s->merge_cnt);
	free(s->merge_wt);
	s->merge_at = s->merge_nodes = NULL;
	s->merge_cnt = NULL;
	s->merge_wt = NULL;
	s->cap_merge_at = s->cap_merge_nodes = s->cap_merge_cnt = s->cap_merge_wt = 0;
}

void ana_set_free(struct ana_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < sizeof(s->filter) / sizeof(s->filter[0]); i++)
		free(s->filter[i]);
	free(s->addr_smp);
	free_raw(s);
	tl_free(s);
	free(s->time);
	free(s->time_spec);
	for (size_t i = 0; i < s->n_orun; i++) {
		struct orun *o = &s->orun[i];
		for (size_t k = 0; k < o->n_meta; k++) {
			free(o->meta[k].val);
			idx_free(&o->meta[k].seen);
		}
		FREE_EACH(o->meta, o->ev, o->ctr, o->mods, o->kv);
		ana_facts_free(o->facts);
	}
	FREE_EACH(s->orun, s->part);
	for (size_t i = 0; i < s->n_metric; i++)
		metric_free(s->metric[i]);
	free(s->metric);
	for (size_t i = 0; i < s->n_remap; i++)
		free(s->remap[i]);
	FREE_EACH(s->remap, s->in_label, s->ev_name, s->ev_unit);
	for (size_t i = 0; i < s->n_mod; i++)
		free(s->mod[i].image);
	free(s->mod);
	idx_free(&s->mod_idx);
	set_free_symbols(s);
	set_free_line_contexts(s);
	agg_free_all(s);
	FREE_EACH(s->ptot, s->ptot_wt, s->rtot, s->rtot_val, s->notes, s->debug_dirs,
		  s->cache_dir, s->keep_dir, s->prof_dirs);
	strpool_free(&s->pool);
	free(s);
}

/* ---- merging one file ---- */

static const char *const split_key[] = {
	[ANA_SPLIT_THREAD] = "tid",
	[ANA_SPLIT_PROCESS] = "pid",
	[ANA_SPLIT_RANK] = "rank",
	[ANA_SPLIT_HOST] = "host",
	[ANA_SPLIT_COMM] = "thread_name",
};

static int get_orun(struct ana_set *s, unsigned run, const char *group, unsigned *out)
{
	for (size_t i = 0; i < s->n_orun; i++)
		if (s->orun[i].in_run == run && s->orun[i].group == group) {
			*out = (unsigned)i;
			return 0;
		}
	if (vec_reserve(&s->orun, &s->cap_orun, s->n_orun + 1, sizeof(*s->orun)))
		return -ENOMEM;
	struct orun *o = &s->orun[s->n_orun];
	o->in_run = run;
	o->group = group;
	*out = (unsigned)s->n_orun++;
	return 0;
}

static int get_part(struct ana_set *s, unsigned orun, unsigned repeat, struct part **out)
{
	for (size_t i = 0; i < s->n_part; i++)
		if (s->part[i].orun == orun && s->part[i].repeat == repeat) {
			*out = &s->part[i];
			return 0;
		}
	if (vec_reserve(&s->part, &s->cap_part, s->n_part + 1, sizeof(*s->part)))
		return -ENOMEM;
	struct part *p = &s->part[s->n_part++];
	p->orun = orun;
	p->repeat = repeat;
	p->t_start = p->t_end = p->steal = NAN;
	s->orun[orun].n_repeats++;
	*out = p;
	return 0;
}

/* Room for exactly n more entries: a part that gets one file (a --by
 * thread group) holds just that file's nonzero counts. */
int part_reserve(struct part *p, size_t n, bool weighted)
{
	size_t need = p->n + n;
	if (need <= p->cap)
		return 0;
	uint32_t *nd = realloc(p->node, need * sizeof(*nd));
	if (nd)
		p->node = nd;
	uint8_t *ev = realloc(p->ev, need * sizeof(*ev));
	if (ev)
		p->ev = ev;
	uint64_t *c = realloc(p->cnt, need * sizeof(*c));
	if (c)
		p->cnt = c;
	double *w = weighted ? realloc(p->wt, need * sizeof(*w)) : NULL;
	if (w)
		p->wt = w;
	if (!nd || !ev || !c || (weighted && !w))
		return -ENOMEM;
	p->cap = need;
	return 0;
}

int part_merge(struct ana_set *s, struct part *p)
{
	size_t ne = s->n_ev ? s->n_ev : 1, nn = 0;
	if (vec_reserve(&s->merge_at, &s->cap_merge_at, s->n_raw, sizeof(uint32_t)))
		return -ENOMEM;
	for (size_t i = 0; i < p->n; i++) {
		uint32_t x = p->node[i];
		if (s->merge_at[x])
			continue;
		if (vec_reserve(&s->merge_nodes, &s->cap_merge_nodes, nn + 1, sizeof(uint32_t)))
			return -ENOMEM;
		s->merge_nodes[nn] = x;
		s->merge_at[x] = (uint32_t)++nn;
	}
	if (vec_reserve(&s->merge_cnt, &s->cap_merge_cnt, nn * ne, sizeof(uint64_t)) ||
	    (p->wt && vec_reserve(&s->merge_wt, &s->cap_merge_wt, nn * ne, sizeof(double))))
		return -ENOMEM;
	memset(s->merge_cnt, 0, nn * ne * sizeof(uint64_t));
	if (p->wt)
		memset(s->merge_wt, 0, nn * ne * sizeof(double));
	for (size_t i = 0; i < p->n; i++) {
		size_t j = (size_t)(s->merge_at[p->node[i]] - 1) * ne + p->ev[i];
		s->merge_cnt[j] += p->cnt[i];
		if (p->wt)
			s->merge_wt[j] += p->wt[i];
	}
	/* at most as many entries as before: rewritten in place */
	size_t m = 0;
	for (size_t j = 0; j < nn; j++) {
		uint32_t x = s->merge_nodes[j];
		s->merge_at[x] = 0;
		for (size_t e = 0; e < ne; e++) {
			if (!s->merge_cnt[j * ne + e])
				continue;
			p->node[m] = x;
			p->ev[m] = (uint8_t)e;
			p->cnt[m] = s->merge_cnt[j * ne + e];
			if (p->wt)
				p->wt[m] = s->merge_wt[j * ne + e];
			m++;
		}
	}
	p->n = p->n_merged = m;
	return 0;
}

static int event_index(struct ana_set *s, const char *name, const char *unit)
{
	for (size_t i = 0; i < s->n_ev; i++)
		if (s->ev_name[i] == name)
			return (int)i;
	size_t c = s->cap_ev;
	if (vec_reserve(&s->ev_name, &s->cap_ev, s->n_ev + 1, sizeof(*s->ev_name)) ||
	    vec_reserve(&s->ev_unit, &c, s->cap_ev, sizeof(*s->ev_unit)))
		return -ENOMEM;
	s->ev_name[s->n_ev] = name;
	s->ev_unit[s->n_ev] = unit;
	return (int)s->n_ev++;
}

struct modkey {
	const char *path;
	const uint8_t *bid;
	uint32_t bid_len;
};

static bool mod_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct ana_set *s = ctx;
	const struct modkey *k = key;
	const struct smodule *m = &s->mod[id];
	return m->path == k->path && m->bid_len == k->bid_len && !memcmp(m->bid, k->bid, k->bid_len);
}

static const char *remap(struct ana_set *s, const char *path)
{
	for (size_t i = 0; i < s->n_remap; i++) {
		const char *eq = strchr(s->remap[i], '=');
		size_t n = (size_t)(eq - s->remap[i]);
		if (strncmp(path, s->remap[i], n) == 0) {
			char buf[4096];
			snprintf(buf, sizeof(buf), "%s%s", eq + 1, path + n);
			return strpool_str(&s->pool, buf);
		}
	}
	return strpool_str(&s->pool, path);
}

static int module_index(struct ana_set *s, const struct prof_module *pm, uint32_t *out)
{
	/* Never a NULL build-id pointer: memcmp/memcpy of 0 bytes from NULL is UB. */
	static const uint8_t no_bid[1];
	struct modkey k = { remap(s, pm->path), pm->build_id ? pm->build_id : no_bid,
			    pm->build_id ? pm->build_id_len : 0 };
	if (!k.path)
		return -ENOMEM;
	if (k.bid_len > 64)
		k.bid_len = 64;
	uint64_t h = hash_u64((uintptr_t)k.path, hash_bytes(k.bid, k.bid_len, 1));
	uint32_t id = idx_find(&s->mod_idx, h, mod_eq, s, &k);
	if (id == NONE) {
		if (vec_reserve(&s->mod, &s->cap_mod, s->n_mod + 1, sizeof(*s->mod)))
			return -ENOMEM;
		struct smodule *m = &s->mod[s->n_mod];
		m->path = k.path;
		const char *sl = strrchr(k.path, '/');
		m->base = sl && sl[1] ? strpool_str(&s->pool, sl + 1) : k.path;
		if (!m->base)
			return -ENOMEM;
		memcpy(m->bid, k.bid, k.bid_len);
		m->bid_len = k.bid_len;
		m->sym = -1;
		m->start = pm->start;
		m->end = pm->end;
		m->bias = pm->bias;
		id = (uint32_t)s->n_mod;
		if (idx_put(&s->mod_idx, h, id))
			return -ENOMEM;
		s->n_mod++;
	}
	*out = id;
	return 0;
}

/* A directory whose kept answers (DIR/symbols) may name the profiles'
 * addresses: each file's own, and each directory given. */
static int prof_dir_add(struct ana_set *s, const char *dir, size_t len)
{
	const char *d = strpool_get(&s->pool, len ? dir : ".", len ? len : 1);
	if (!d)
		return -ENOMEM;
	for (size_t i = 0; i < s->n_prof_dirs; i++)
		if (s->prof_dirs[i] == d)
			return 0;
	if (vec_reserve(&s->prof_dirs, &s->cap_prof_dirs, s->n_prof_dirs + 1, sizeof(*s->prof_dirs)))
		return -ENOMEM;
	s->prof_dirs[s->n_prof_dirs++] = d;
	return 0;
}

/* Frames in no loaded object are JIT code when the process's JIT wrote a
 * perf map: /tmp/perf-PID.map (read at report time, as perf does), or a
 * copy of it beside the profile (for a report on another machine).  Its
 * module is "[JIT]" whatever the pid, so runs match by function name. */
static int jit_module(struct ana_set *s, const char *path, const struct prof *p, uint32_t *out)
{
	const char *pid = prof_meta_get(p, "pid");
	bool any = false;
	for (uint32_t i = 1; i < p->cct.n_nodes && !any; i++)
		any = p->cct.module[i] >= p->n_modules;
	if (!any || !pid || !*pid || pid[strspn(pid, "0123456789")] || strlen(pid) > 10)
		return 0;
	/* beside the file, what record kept of it, then the JIT's own */
	char cand[3][4200];
	const char *sl = strrchr(path, '/');
	snprintf(cand[0], sizeof(cand[0]), "%.*s/perf-%s.map", sl ? (int)(sl - path) : 1,
		 sl ? path : ".", pid);
	snprintf(cand[1], sizeof(cand[1]), "%.*s/symbols/perf-%s.map", sl ? (int)(sl - path) : 1,
		 sl ? path : ".", pid);
	snprintf(cand[2], sizeof(cand[2]), "/tmp/perf-%s.map", pid);
	for (int k = 0; k < 3; k++) {
		struct stat sb;
		if (stat(cand[k], &sb) || !S_ISREG(sb.st_mode))
			continue;
		struct prof_module pm = { .path = cand[k] };
		int e = module_index(s, &pm, out);
		if (e)
			return e;
		s->mod[*out].jit = true;
		if (!(s->mod[*out].base = strpool_str(&s->pool, "[JIT]")))
			return -ENOMEM;
		return 0;
	}
	return 0;
}

struct rkey {
	uint32_t parent, mod;
	uint64_t off;
};

static bool raw_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct ana_set *s = ctx;
	const struct rkey *k = key;
	return s->rparent[id] == k->parent && s->rmod[id] == k->mod && s->roff[id] == k->off;
}

/* Room for n raw nodes (each written when added). */
static int raw_reserve(struct ana_set *s, size_t n)
{
	size_t c1 = s->cap_raw, c2 = s->cap_raw;
	return vec_grow(&s->rparent, &s->cap_raw, n, sizeof(uint32_t)) ||
	       vec_grow(&s->rmod, &c1, s->cap_raw, sizeof(uint32_t)) ||
	       vec_grow(&s->roff, &c2, s->cap_raw, sizeof(uint64_t)) ? -ENOMEM : 0;
}

/* The raw node (parent, mod, off), added if new.  fresh: the parent was
 * added by the file being merged, so it has no children yet but those of
 * that file, whose nodes are distinct: no need to look (a malformed file's
 * twin nodes would only be summed apart, and meet again as one row). */
static int raw_child(struct ana_set *s, uint32_t parent, uint32_t mod, uint64_t off, bool fresh,
		     uint32_t *out)
{
	struct rkey k = { parent, mod, off };
	uint64_t h = hash_u64(hash_u64(parent, mod), off);
	uint32_t id = fresh ? NONE : idx_find(&s->raw_idx, h, raw_eq, s, &k);
	if (id == NONE) {
		if (s->n_raw >= NONE - 1)
			return -ENOMEM;
		if (raw_reserve(s, s->n_raw + 1))
			return -ENOMEM;
		id = (uint32_t)s->n_raw;
		s->rparent[id] = parent;
		s->rmod[id] = mod;
		s->roff[id] = off;
		if (idx_put(&s->raw_idx, h, id))
			return -ENOMEM;
		s->n_raw++;
	}
	*out = id;
	return 0;
}

static bool ptr_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct meta_acc *m = ctx;
	return m->val[id] == key;
}

static int meta_add(struct ana_set *s, struct orun *o, const char *key, const char *val)
{
	const char *k = strpool_str(&s->pool, key), *v = strpool_str(&s->pool, val);
	if (!k || !v)
		return -ENOMEM;
	struct meta_acc *m = NULL;
	for (size_t i = 0; i < o->n_meta; i++)
		if (o->meta[i].key == k)
			m = &o->meta[i];
	if (!m) {
		if (vec_reserve(&o->meta, &o->cap_meta, o->n_meta + 1, sizeof(*o->meta)))
			return -ENOMEM;
		m = &o->meta[o->n_meta++];
		m->key = k;
	}
	uint64_t h = hash_u64((uintptr_t)v, 7);
	if (idx_find(&m->seen, h, ptr_eq, m, v) != NONE)
		return 0;
	if (vec_reserve(&m->val, &m->cap, m->n + 1, sizeof(*m->val)) ||
	    idx_put(&m->seen, h, (uint32_t)m->n))
		return -ENOMEM;
	m->val[m->n++] = v;
	return 0;
}

static int counter_add(struct ana_set *s, struct orun *o, const char *name, uint64_t v)
{
	const char *n = strpool_str(&s->pool, name);
	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i < o->n_ctr; i++)
		if (o->ctr[i].name == n) {
			o->ctr[i].value += v;
			return 0;
		}
	if (vec_reserve(&o->ctr, &o->cap_ctr, o->n_ctr + 1, sizeof(*o->ctr)))
		return -ENOMEM;
	o->ctr[o->n_ctr++] = (struct ana_counter_fact){ .name = n, .value = v };
	return 0;
}

/* Every sum the analyzer makes (inclusive, per function, per run, across
 * files) is part of the sum of all counts it has read, so keeping that
 * below 2^64 keeps every other sum exact.  A file that would push it over
 * is refused, never wrapped. */
static int counts_fit(struct ana_set *s, const struct prof *p, const char *path)
{
	const struct prof_cct *c = &p->cct;
	uint64_t sum = s->count_sum;

	for (size_t i = 0; i < (size_t)c->n_nodes * c->n_events; i++)
		if (__builtin_add_overflow(sum, c->counts[i], &sum)) {
			set_note(s, ANA_NOTE_ERROR, -1,
				 "%s: sample counts overflow 64 bits with the files before it; skipped",
				 path);
			return -EOVERFLOW;
		}
	s->count_sum = sum;
	return 0;
}

/* The --by group a file belongs to ("rank=3"), or NULL without --by. */
static int merge_group(struct ana_set *s, const struct prof *p, const char **group)
{
	*group = NULL;
	if (s->o.split == ANA_SPLIT_NONE || s->o.split > ANA_SPLIT_COMM)
		return 0;
	const char *k = split_key[s->o.split];
	const char *v = prof_meta_get(p, k);
	char buf[300];
	snprintf(buf, sizeof(buf), "%s=%s", s->o.split == ANA_SPLIT_COMM ? "comm" : k, v ? v : "?");
	return (*group = strpool_str(&s->pool, buf)) ? 0 : -ENOMEM;
}

/* The file's events into the set's (union by used name): evmap[i] is the
 * set's index of the file's event i. */
static int merge_events(struct ana_set *s, const struct prof *p, const char *path, int *evmap)
{
	for (size_t i = 0; i < p->n_events; i++) {
		const char *nm = strpool_str(&s->pool, p->events[i].name ? p->events[i].name : "?");
		const char *un = strpool_str(&s->pool, p->events[i].unit ? p->events[i].unit : "");
		if (!nm || !un)
			return -ENOMEM;
		if ((evmap[i] = event_index(s, nm, un)) < 0)
			return evmap[i];
		if (evmap[i] > UINT8_MAX) {	/* entries keep the event in a byte */
			set_note(s, ANA_NOTE_ERROR, -1, "%s: more than 256 distinct events in the set", path);
			return -EOVERFLOW;
		}
	}
	return 0;
}

/* The file's load map into the set's modules (modmap[i]: the set's index
 * of module i), marked as seen by the run; *jit: the perf map's module for
 * frames in no loaded object (jit_module), or PROF_NO_MODULE. */
static int merge_modules(struct ana_set *s, const char *path, unsigned oi, const struct prof *p,
			 uint32_t *modmap, uint32_t *jit)
{
	struct orun *o = &s->orun[oi];
	int e;

	for (size_t i = 0; i < p->n_modules; i++) {
		if ((e = module_index(s, &p->modules[i], &modmap[i])))
			return e;
		if (vec_reserve(&o->mods, &o->cap_mods, modmap[i] / 64 + 1, sizeof(uint64_t)))
			return -ENOMEM;
		o->mods[modmap[i] / 64] |= 1ULL << (modmap[i] % 64);
	}
	const char *sl = strrchr(path, '/'), *cmd = prof_meta_get(p, "command");
	for (size_t i = 0; cmd && i < p->n_modules; i++)
		if (p->modules[i].path && !strcmp(p->modules[i].path, cmd))
			s->mod[modmap[i]].main = true;
	if ((e = prof_dir_add(s, path, sl ? (size_t)(sl - path) + !(sl - path) : 0)))
		return e;
	*jit = PROF_NO_MODULE;
	if ((e = jit_module(s, path, p, jit)))
		return e;
	/* modules that exist only in memory (the vdso): their bytes, once */
	for (size_t i = 0; i < p->n_images; i++) {
		struct smodule *sm = &s->mod[modmap[p->images[i].module]];
		if (sm->image || !p->images[i].len)
			continue;
		if (!(sm->image = malloc(p->images[i].len)))
			return -ENOMEM;
		memcpy(sm->image, p->images[i].data, p->images[i].len);
		sm->image_len = p->images[i].len;
	}
	return 0;
}

/* The file's calling-context tree into the set's raw tree, parents first
 * whatever their order in the file: map[i] is the raw node of node i. */
static int merge_tree(struct ana_set *s, const struct prof *p, const char *path,
		      const uint32_t *modmap, uint32_t jit, uint32_t *map)
{
	const struct prof_cct *c = &p->cct;
	uint32_t *stack = malloc((c->n_nodes ? c->n_nodes : 1) * sizeof(*stack));
	int e = 0;

	/* at most every node new: one table, not a doubling per power of 2 */
	if (!stack || idx_reserve(&s->raw_idx, s->n_raw + c->n_nodes) ||
	    raw_reserve(s, s->n_raw + c->n_nodes)) {
		free(stack);
		return -ENOMEM;
	}
	uint32_t first_new = (uint32_t)s->n_raw;	/* nodes from here on are this file's */
	for (uint32_t i = 0; i < c->n_nodes; i++)
		map[i] = NONE;
	if (c->n_nodes)
		map[0] = 0;
	for (uint32_t i = 1; i < c->n_nodes && !e; i++) {
		size_t sp = 0;
		uint32_t x = i;
		while (map[x] == NONE) {
			if (sp == c->n_nodes || c->parent[x] >= c->n_nodes) {
				set_note(s, ANA_NOTE_ERROR, -1, "%s: calling-context tree has a cycle; skipped",
					 path);
				free(stack);
				return -PROF_ECORRUPT;
			}
			stack[sp++] = x;
			x = c->parent[x];
		}
		while (sp && !e) {
			x = stack[--sp];
			uint32_t m = c->module[x];
			uint32_t mi = m < p->n_modules ? modmap[m] : jit;
			uint32_t up = map[c->parent[x]];
			e = raw_child(s, up, mi, c->offset[x], up >= first_new, &map[x]);
		}
	}
	free(stack);
	return e;
}

/* The file's counts into the part (one entry per non-zero node and event)
 * and its events' facts into the run's. */
static int merge_counts(struct ana_set *s, struct orun *o, struct part *pt, const struct prof *p,
			const int *evmap, const uint32_t *map)
{
	const struct prof_cct *c = &p->cct;
	int e;

	if (vec_reserve(&o->ev, &o->cap_ev, s->n_ev, sizeof(*o->ev)))
		return -ENOMEM;
	for (size_t k = 0; k < p->n_events; k++) {
		const struct prof_event *pe = &p->events[k];
		int se = evmap[k];
		uint64_t tot = 0;
		for (uint32_t i = 0; i < c->n_nodes; i++)
			tot += c->counts[(size_t)i * c->n_events + k];
		/* the mean period actually used (randomized periods record their sum) */
		double w = pe->weight && tot ? (double)pe->weight / (double)tot
					     : pe->period ? (double)pe->period : 1.0;
		size_t nz = 0;
		for (uint32_t i = 0; i < c->n_nodes; i++)
			nz += c->counts[(size_t)i * c->n_events + k] != 0;
		/* --time: the timeline's samples in range, added at finish */
		if (s->o.n_time)
			nz = tot = 0;
		if ((e = part_reserve(pt, nz, s->o.weighted)))
			return e;
		for (uint32_t i = 0; i < c->n_nodes && !s->o.n_time; i++) {
			uint64_t v = c->counts[(size_t)i * c->n_events + k];
			if (!v)
				continue;
			pt->node[pt->n] = map[i];
			pt->ev[pt->n] = (uint8_t)se;
			pt->cnt[pt->n] = v;
			if (pt->wt)
				pt->wt[pt->n] = (double)v * w;
			pt->n++;
		}
		struct ana_event_fact *f = &o->ev[se];
		if (!f->name) {
			f->name = s->ev_name[se];
			f->unit = s->ev_unit[se];
			f->requested = strpool_str(&s->pool, pe->requested ? pe->requested : "");
			f->period = pe->period;
			f->freq = pe->freq;
			f->random_mask = pe->random_mask;
		} else if (f->period != pe->period || f->freq != pe->freq ||
			   f->random_mask != pe->random_mask) {
			f->mixed = true;
		}
		f->samples += tot;
		f->weight += (double)tot * w;
	}
	/* entries follow the part's distinct contexts, not its files */
	if (pt->n > 2 * pt->n_merged)
		return part_merge(s, pt);
	return 0;
}

/* Metadata, collector counters, the time span and steal of the file. */
static int merge_facts(struct ana_set *s, struct orun *o, struct part *pt, const struct prof *p)
{
	int e;

	for (size_t i = 0; i < p->n_meta; i++)
		if (p->meta[i].key && p->meta[i].value &&
		    (e = meta_add(s, o, p->meta[i].key, p->meta[i].value)))
			return e;
	for (size_t i = 0; i < p->n_counters; i++)
		if (p->counters[i].name && (e = counter_add(s, o, p->counters[i].name, p->counters[i].value)))
			return e;
	/* duration and steal: from the documented time keys, when present;
	 * per repeat, since repeats are separate runs with gaps between them */
	const char *v1 = prof_meta_get(p, "start_time"), *v2 = prof_meta_get(p, "end_time");
	if (v1 && v2) {
		double a = strtod(v1, NULL), b = strtod(v2, NULL);
		if (isnan(pt->t_start) || a < pt->t_start)
			pt->t_start = a;
		if (isnan(pt->t_end) || b > pt->t_end)
			pt->t_end = b;
	}
	v1 = prof_meta_get(p, "steal_start");
	v2 = prof_meta_get(p, "steal_end");
	if (v1 && v2) {
		double d = (strtod(v2, NULL) - strtod(v1, NULL)) / 1e9;
		if (isnan(pt->steal) || d > pt->steal)
			pt->steal = d;
	}
	return 0;
}

/* One file into its run (or --by group) and repeat, phase by phase. */
static int merge(struct ana_set *s, unsigned run, unsigned repeat, const char *path,
		 const struct prof *p)
{
	const char *group;
	unsigned oi;
	struct part *pt;
	uint32_t jit;
	int e;

	if ((e = counts_fit(s, p, path)) || (e = merge_group(s, p, &group)) ||
	    (e = get_orun(s, run, group, &oi)) ||
	    (e = get_part(s, oi, repeat, &pt)))
		return e;
	int *evmap = malloc((p->n_events ? p->n_events : 1) * sizeof(*evmap));
	uint32_t *modmap = malloc((p->n_modules ? p->n_modules : 1) * sizeof(*modmap));
	uint32_t *map = malloc((p->cct.n_nodes ? p->cct.n_nodes : 1) * sizeof(*map));
	e = evmap && modmap && map ? 0 : -ENOMEM;
	/* s->orun may move while events and nodes are added: index it late */
	if (!e)
		e = merge_events(s, p, path, evmap);
	if (!e)
		e = merge_modules(s, path, oi, p, modmap, &jit);
	if (!e)
		e = merge_tree(s, p, path, modmap, jit, map);
	if (!e)
		e = merge_counts(s, &s->orun[oi], pt, p, evmap, map);
	if (!e && (s->o.timeline || s->o.n_time))
		e = tl_merge(s, (size_t)(pt - s->part), run, path, p, evmap, map);
	if (!e)
		e = merge_facts(s, &s->orun[oi], pt, p);
	if (!e) {
		struct orun *o = &s->orun[oi];
		/* a time slice is not the thread's CPU time: no coverage check */
		if (!s->o.n_time)
			trust_file(&o->trust, p);
		o->n_files++;
		if (p->partial) {
			o->n_partial++;
			set_note(s, ANA_NOTE_WARN, s->o.split ? -1 : (int)run,
				 "%s: partial profile (written after a fatal signal or an early stop)",
				 path);
		}
	}
	free(evmap);
	free(modmap);
	free(map);
	return e;
}

bool filter_has(const char *list, const char *v)
{
	size_t n = v ? strlen(v) : 0;

	for (const char *p = list; v && p && *p;) {
		size_t k = strcspn(p, ",");
		if (k == n && !strncmp(p, v, n))
			return true;
		p += k + (p[k] == ',');
	}
	return false;
}

/* --comm, --pid, --tid: whether this thread's file is wanted.  A profile
 * without thread_name is matched on its command's basename. */
static bool thread_wanted(const struct ana_set *s, const struct prof *p)
{
	const char *comm = prof_meta_get(p, "thread_name");

	if (!comm || !*comm) {
		const char *cmd = prof_meta_get(p, "command"), *sl = cmd ? strrchr(cmd, '/') : NULL;
		comm = sl ? sl + 1 : cmd;
	}
	return (!s->o.comms || filter_has(s->o.comms, comm)) &&
	       (!s->o.pids || filter_has(s->o.pids, prof_meta_get(p, "pid"))) &&
	       (!s->o.tids || filter_has(s->o.tids, prof_meta_get(p, "tid")));
}

static int read_file(struct ana_set *s, unsigned run, unsigned repeat, const char *path)
{
	char msg[512];
	struct prof_file *f;
	int e = prof_file_read(path, &f, msg, sizeof(msg));
	if (e) {
		set_note(s, ANA_NOTE_ERROR, s->o.split ? -1 : (int)run, "%s: %s", path,
			 msg[0] ? msg : ana_strerror(e));
		return e;
	}
	if (!thread_wanted(s, prof_file_data(f))) {
		s->n_filtered_out++;
		prof_file_free(f);
		return 0;
	}
	e = merge(s, run, repeat, path, prof_file_data(f));
	prof_file_free(f);
	if (e == -ENOMEM)
		set_note(s, ANA_NOTE_ERROR, -1, "%s: out of memory", path);
	return e;
}

static bool is_pmcp(const char *name)
{
	size_t n = strlen(name);
	return n > 5 && strcmp(name + n - 5, ".pmcp") == 0;
}

struct walk {
	unsigned run, repeat;
	int first_err;
	size_t n_files;
};

/* Read every *.pmcp under dir, in name order; symlinked directories are
 * not followed (no loops). */
static int visible(const struct dirent *de)
{
	return de->d_name[0] != '.';
}

/* Byte order, not the locale's: the same files merge in the same order
 * wherever the report runs. */
static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int walk_dir(struct ana_set *s, struct walk *w, const char *dir, int depth)
{
	struct dirent **names;
	int n, e = 0;

	if (depth > 64)
		return 0;
	n = scandir(dir, &names, visible, by_name);
	if (n < 0) {
		e = -errno;
		set_note(s, ANA_NOTE_ERROR, -1, "%s: %s", dir, strerror(-e));
		return e;
	}
	for (int i = 0; i < n && e != -ENOMEM; i++) {
		char path[4096];
		struct stat sb;

		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name) >=
		    sizeof(path)) {
			set_note(s, ANA_NOTE_ERROR, -1, "%.200s/...: path longer than %zu bytes; "
				 "skipped", dir, sizeof(path) - 1);
			continue;
		}
		if (lstat(path, &sb))
			continue;
		if (S_ISDIR(sb.st_mode)) {
			int r = walk_dir(s, w, path, depth + 1);
			if (r == -ENOMEM)
				e = r;
		} else if (is_pmcp(names[i]->d_name) && (S_ISREG(sb.st_mode) || S_ISLNK(sb.st_mode))) {
			w->n_files++;
			int r = read_file(s, w->run, w->repeat, path);
			if (s->o.progress)
				s->o.progress(s->o.progress_arg, "read", w->n_files, 0);
			if (r && !w->first_err)
				w->first_err = r;
			if (r == -ENOMEM)
				e = r;
		} else if (is_pmcp(names[i]->d_name)) {
			set_note(s, ANA_NOTE_WARN, -1, "%s: not a regular file: skipped", path);
		}
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return e;
}

int ana_set_add(struct ana_set *s, unsigned run, unsigned repeat, const char *path)
{
	if (s->finished)
		return -ANA_ESTATE;
	if (run > 4096 || repeat > 4096)
		return -EINVAL;
	if (run >= s->n_in) {
		if (vec_reserve(&s->in_label, &s->cap_in, run + 1, sizeof(*s->in_label)))
			return -ENOMEM;
		s->n_in = run + 1;
	}
	if (!s->in_label[run] && !(s->in_label[run] = strpool_str(&s->pool, path)))
		return -ENOMEM;
	struct stat sb;
	if (stat(path, &sb)) {
		int e = -errno;
		set_note(s, ANA_NOTE_ERROR, -1, "%s: %s", path, strerror(-e));
		return e;
	}
	if (!S_ISDIR(sb.st_mode))
		return read_file(s, run, repeat, path);
	if (prof_dir_add(s, path, strlen(path)))
		return -ENOMEM;
	struct walk w = { run, repeat, 0, 0 };
	int e = walk_dir(s, &w, path, 0);
	if (e)
		return e;
	if (!w.n_files) {
		set_note(s, ANA_NOTE_ERROR, -1, "%s: no .pmcp profiles in this directory", path);
		return -ANA_ENODATA;
	}
	return w.first_err;
}

int ana_set_label(struct ana_set *s, unsigned run, const char *label)
{
	if (s->finished)
		return -ANA_ESTATE;
	if (run >= s->n_in) {
		if (run > 4096)
			return -EINVAL;
		if (vec_reserve(&s->in_label, &s->cap_in, run + 1, sizeof(*s->in_label)))
			return -ENOMEM;
		s->n_in = run + 1;
	}
	return (s->in_label[run] = strpool_str(&s->pool, label)) ? 0 : -ENOMEM;
}

/* ---- source files ---- */

/* buf = a + b (b may be NULL); false if it does not fit. */
static bool join(char *buf, size_t len, const char *a, const char *b)
{
	int n = snprintf(buf, len, "%s%s%s", a, b && a[0] && a[strlen(a) - 1] != '/' && b[0] != '/' ? "/" : "",
			 b ? b : "");
	return n >= 0 && (size_t)n < len;
}

static bool readable_file(const char *path)
{
	struct stat sb;
	return !stat(path, &sb) && S_ISREG(sb.st_mode) && !access(path, R_OK);
}

int ana_set_source_path(const struct ana_set *s, const char *file, char *buf, size_t len)
{
	if (!file || !file[0] || !len)
		return -EINVAL;
	char remapped[4096] = "";
	for (size_t i = 0; i < s->n_remap && !remapped[0]; i++) {
		const char *eq = strchr(s->remap[i], '=');
		size_t n = (size_t)(eq - s->remap[i]);
		if (!strncmp(file, s->remap[i], n) &&
		    (size_t)snprintf(remapped, sizeof(remapped), "%s%s", eq + 1, file + n) >= sizeof(remapped))
			return -ENAMETOOLONG;
	}
	const char *base = strrchr(file, '/');
	base = base ? base + 1 : file;
	/* candidates in order; the first one is kept for the caller's message */
	const char *names[2] = { remapped[0] ? remapped : file, remapped[0] ? file : NULL };
	char first[4096] = "", cand[4096];
	bool fit = true;
	for (int k = 0; k < 2 && names[k]; k++) {
		if (!join(cand, sizeof(cand), names[k], NULL)) {
			fit = false;
			continue;
		}
		if (!first[0])
			snprintf(first, sizeof(first), "%s", cand);
		if (readable_file(cand))
			goto found;
	}
	if (s->debug_dirs) {
		char dirs[4096];
		snprintf(dirs, sizeof(dirs), "%s", s->debug_dirs);
		for (char *save, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
			const char *under[3] = { names[0], names[1], base };
			for (int k = 0; k < 3; k++)
				if (under[k] && join(cand, sizeof(cand), d, under[k]) && readable_file(cand))
					goto found;
		}
	}
	if (snprintf(buf, len, "%s", first[0] ? first : file) >= (int)len)
		return -ENAMETOOLONG;
	return fit ? -ENOENT : -ENAMETOOLONG;
found:
	if ((size_t)snprintf(buf, len, "%s", cand) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* ---- finishing: order runs, facts, cross-run checks ---- */

/* "rank=10" after "rank=9": compare the values numerically when both are. */
static int group_cmp(const char *a, const char *b)
{
	if (!a || !b)
		return a ? 1 : b ? -1 : 0;
	const char *va = strchr(a, '='), *vb = strchr(b, '=');
	char *ea, *eb;
	if (va && vb) {
		double x = strtod(va + 1, &ea), y = strtod(vb + 1, &eb);
		if (!*ea && !*eb && ea != va + 1 && eb != vb + 1 && x != y)
			return x < y ? -1 : 1;
	}
	return strcmp(a, b);
}

static const struct ana_set *sort_set;
static int orun_cmp(const void *pa, const void *pb)
{
	const struct orun *a = &sort_set->orun[*(const unsigned *)pa];
	const struct orun *b = &sort_set->orun[*(const unsigned *)pb];
	if (a->in_run != b->in_run)
		return a->in_run < b->in_run ? -1 : 1;
	return group_cmp(a->group, b->group);
}

static int order_runs(struct ana_set *s)
{
	unsigned *ord = malloc(s->n_orun * sizeof(*ord));
	unsigned *pos = malloc(s->n_orun * sizeof(*pos));
	struct orun *nw = malloc(s->n_orun * sizeof(*nw));
	if (!ord || !pos || !nw) {
		free(ord);
		free(pos);
		free(nw);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < s->n_orun; i++)
		ord[i] = i;
	sort_set = s;
	qsort(ord, s->n_orun, sizeof(*ord), orun_cmp);
	for (unsigned i = 0; i < s->n_orun; i++) {
		nw[i] = s->orun[ord[i]];
		pos[ord[i]] = i;
	}
	memcpy(s->orun, nw, s->n_orun * sizeof(*nw));
	for (size_t i = 0; i < s->n_part; i++)
		s->part[i].orun = pos[s->part[i].orun];
	free(ord);
	free(pos);
	free(nw);
	return 0;
}

/* Collector counters that mean lost or damaged samples (docs/collector.md):
 * warned about above 1% of the samples.  "dropped_*" are all losses. */
static const char *const loss_counters[] = {
	"unwind_failed", "truncated_stacks", "leaf_only_in_loader", "throttled", "lost",
	"kernel_mode_unknown",
};

static bool is_loss(const char *name)
{
	if (!strncmp(name, "dropped_", 8))
		return true;
	for (size_t i = 0; i < sizeof(loss_counters) / sizeof(*loss_counters); i++)
		if (!strcmp(name, loss_counters[i]))
			return true;
	return false;
}

/* The run's label: its input run's, with its --by group. */
static int run_label(struct ana_set *s, struct orun *o)
{
	char buf[1024];
	const char *in = s->in_label[o->in_run] ? s->in_label[o->in_run] : "?";
	if (o->group)
		snprintf(buf, sizeof(buf), "%s%s%s", s->n_in > 1 ? in : "", s->n_in > 1 ? " " : "",
			 o->group);
	else
		snprintf(buf, sizeof(buf), "%s", in);
	return (o->label = strpool_str(&s->pool, buf)) ? 0 : -ENOMEM;
}

/* Every set event in the run's facts (samples 0 where it has none), and
 * its loss counters' share of its samples, noted above 1%. */
static int run_counters(struct ana_set *s, struct orun *o, unsigned r)
{
	if (vec_reserve(&o->ev, &o->cap_ev, s->n_ev, sizeof(*o->ev)))
		return -ENOMEM;
	uint64_t samples = 0;
	for (size_t e = 0; e < s->n_ev; e++) {
		if (!o->ev[e].name) {
			o->ev[e].name = s->ev_name[e];
			o->ev[e].unit = s->ev_unit[e];
			o->ev[e].requested = "";
		}
		samples += o->ev[e].samples;
	}
	for (size_t i = 0; i < o->n_ctr; i++)
		if (!strcmp(o->ctr[i].name, "samples"))
			samples = o->ctr[i].value;
	for (size_t i = 0; i < o->n_ctr; i++) {
		struct ana_counter_fact *c = &o->ctr[i];
		c->pct = NAN;
		if (!is_loss(c->name))
			continue;
		c->pct = samples ? 100.0 * (double)c->value / (double)samples : c->value ? INFINITY : 0;
		c->warn = c->pct > 1.0;
		if (c->warn)
			set_note(s, ANA_NOTE_WARN, (int)r, "%s: collector counter %s = %llu (%.1f%% of "
				 "%llu samples): results may be skewed", o->label, c->name,
				 (unsigned long long)c->value, c->pct, (unsigned long long)samples);
	}
	return 0;
}

/* The run's metadata as key-value pairs: a value shared by every file,
 * else the first few and how many differ. */
static int run_kv(struct ana_set *s, struct orun *o)
{
	char buf[1024];
	o->kv = calloc(o->n_meta ? o->n_meta : 1, sizeof(*o->kv));
	if (!o->kv)
		return -ENOMEM;
	for (size_t i = 0; i < o->n_meta; i++) {
		struct meta_acc *m = &o->meta[i];
		const char *v = m->n == 1 ? m->val[0] : NULL;
		if (m->n != 1) {
			size_t k = 0;
			for (size_t j = 0; j < m->n && j < 3; j++)
				k += (size_t)snprintf(buf + k, sizeof(buf) - k, "%s%.200s", j ? ", " : "",
						      m->val[j]);
			snprintf(buf + k, sizeof(buf) - k, "%s (%zu distinct)", m->n > 3 ? ", ..." : "",
				 m->n);
			if (!(v = strpool_str(&s->pool, buf)))
				return -ENOMEM;
		}
		o->kv[i] = (struct ana_kv){ m->key, v, m->val, m->n };
	}
	return 0;
}

/* Wall clock: each repeat's first start to last end (threads and
 * processes overlap, so this is not their sum), averaged over repeats;
 * host steal likewise. */
static void run_span(const struct ana_set *s, unsigned r, double *dur, double *steal)
{
	double d = 0, st = 0;
	unsigned n_dur = 0, n_steal = 0;
	for (size_t i = 0; i < s->n_part; i++) {
		const struct part *p = &s->part[i];
		if (p->orun != r)
			continue;
		if (!isnan(p->t_start) && !isnan(p->t_end)) {
			d += p->t_end - p->t_start;
			n_dur++;
		}
		if (!isnan(p->steal)) {
			st += p->steal;
			n_steal++;
		}
	}
	*dur = n_dur ? d / n_dur : NAN;
	*steal = n_steal ? st / n_steal : NAN;
}

static int run_facts(struct ana_set *s, unsigned r)
{
	struct orun *o = &s->orun[r];
	int e = run_label(s, o);
	if (!e)
		e = run_counters(s, o, r);
	if (!e)
		e = run_kv(s, o);
	if (e)
		return e;
	double dur, steal;
	run_span(s, r, &dur, &steal);
	o->pub = (struct ana_run){
		.label = o->label, .n_files = o->n_files, .n_repeats = o->n_repeats,
		.n_partial = o->n_partial, .n_meta = o->n_meta, .meta = o->kv,
		.n_events = s->n_ev, .events = o->ev, .n_counters = o->n_ctr, .counters = o->ctr,
		.duration = dur, .steal = steal, .steal_share = NAN,
		.time_slice = s->time_spec, .time_slice_s = s->o.n_time ? o->slice_s : NAN,
	};
	/* /proc/stat's steal is summed over the guest's CPUs: a share of the
	 * CPU time the run's span offered */
	unsigned long cpus = 0;
	for (size_t i = 0; i < o->n_meta; i++)
		if (!strcmp(o->meta[i].key, "cpus"))
			cpus = strtoul(o->meta[i].val[0], NULL, 10);
	if (!isnan(o->pub.steal) && !isnan(o->pub.duration) && o->pub.duration > 0)
		o->pub.steal_share = o->pub.steal / (o->pub.duration * (double)(cpus ? cpus : 1));
	return 0;
}

static const char *meta_of(const struct orun *o, const char *key)
{
	for (size_t i = 0; i < o->n_meta; i++)
		if (!strcmp(o->meta[i].key, key))
			return o->kv[i].value;
	return NULL;
}

/* ---- trust: what the profiles say about their own measurement ---- */

/* Host steal time above ANA_TRUST_STEAL_SHARE of the run's CPU time: a noisy
 * neighbour took the CPUs often enough to skew timings and time-based
 * samples. */

/* Calibration verdicts that mean "do not trust it" (docs/profile-format.md);
 * valid, unverified and "not needed" are fine. */
static const char *const bad_verdicts[] = { "zero", "implausible", "unsupported" };

bool calib_next(const char **p, struct calib_verdict *v)
{
	const char *c = *p;
	while (*c == ' ' || *c == ';')
		c++;
	if (!*c)
		return false;
	size_t n = strcspn(c, "=;(");
	const char *w = c;
	v->event[0] = 0;
	if (c[n] == '=') {
		snprintf(v->event, sizeof(v->event), "%.*s", (int)n, c);
		w = c + n + 1;
	}
	n = strcspn(w, w == c ? ";(" : " ;(");
	while (n && w[n - 1] == ' ')
		n--;
	snprintf(v->verdict, sizeof(v->verdict), "%.*s", (int)n, w);
	c = w + n;
	while (*c == ' ')
		c++;
	v->why[0] = 0;
	if (*c == '(') {
		const char *start = ++c;
		for (int depth = 1; *c && depth; c++)
			depth += *c == '(' ? 1 : *c == ')' ? -1 : 0;
		n = (size_t)(c - start) - (c[-1] == ')');
		snprintf(v->why, sizeof(v->why), "%.*s", (int)n, start);
	}
	c += strcspn(c, ";");
	*p = c;
	return true;
}

static bool is_bad_verdict(const char *v)
{
	for (size_t i = 0; i < sizeof(bad_verdicts) / sizeof(*bad_verdicts); i++)
		if (!strcmp(v, bad_verdicts[i]))
			return true;
	return false;
}

static const struct meta_acc *meta_acc_of(const struct orun *o, const char *key)
{
	for (size_t i = 0; i < o->n_meta; i++)
		if (!strcmp(o->meta[i].key, key))
			return &o->meta[i];
	return NULL;
}

/* Each run on its own: counters that failed calibration (recorded with
 * --force), host steal time.  With --by, once per input run. */
static void trust_checks(struct ana_set *s)
{
	bool split = s->o.split != ANA_SPLIT_NONE;
	for (size_t r = 0; r < s->n_orun; r++) {
		struct orun *o = &s->orun[r];
		const char *who = o->label;
		int nr = split ? -1 : (int)r;
		/* samples vs CPU time, emulators, the handler's time (trust.c) */
		trust_run(s, o, who, nr);
		who = split && s->in_label[o->in_run] ? s->in_label[o->in_run] : o->label;
		const struct meta_acc *m = meta_acc_of(o, "calibration");
		for (size_t k = 0; m && k < m->n; k++) {
			struct calib_verdict v;
			for (const char *p = m->val[k]; calib_next(&p, &v);)
				if (is_bad_verdict(v.verdict))
					set_note_once(s, ANA_NOTE_WARN, nr, "%s: counter %s was %s at "
						      "calibration%s%s%s: recorded with --force, its "
						      "samples may be meaningless", who,
						      v.event[0] ? v.event : "?", v.verdict,
						      v.why[0] ? " (" : "", v.why, v.why[0] ? ")" : "");
		}
		/* What the profile holds of time in the kernel (kallsyms.c). */
		const char *kf = kallsyms_frames_note(meta_of(o, "kernel_frames"));
		if (kf)
			set_note_once(s, ANA_NOTE_WARN, nr, "%s: %s", who, kf);
		/* --by: the largest share among the run's groups, once */
		if (split && r && s->orun[r - 1].in_run == o->in_run)
			continue;
		double share = o->pub.steal_share, steal = o->pub.steal, dur = o->pub.duration;
		for (size_t g = r + 1; split && g < s->n_orun && s->orun[g].in_run == o->in_run; g++)
			if (s->orun[g].pub.steal_share > share) {
				share = s->orun[g].pub.steal_share;
				steal = s->orun[g].pub.steal;
				dur = s->orun[g].pub.duration;
			}
		if (share > ANA_TRUST_STEAL_SHARE)
			set_note_once(s, ANA_NOTE_WARN, nr, "%s: the host stole %.1f%% of the CPU time "
				      "during the run (steal %.3f s in %.3f s): a noisy neighbour; "
				      "timings and time-based samples are skewed", who, 100 * share,
				      steal, dur);
	}
}

/* A run's calibration verdicts without their reasons (which hold measured
 * counts that differ between any two runs): "perf::CYCLES=valid", "not needed". */
static void verdict_summary(const struct orun *o, char *buf, size_t len)
{
	const struct meta_acc *m = meta_acc_of(o, "calibration");
	size_t n = 0;
	buf[0] = 0;
	struct calib_verdict v;
	for (const char *p = m && m->n ? m->val[0] : ""; calib_next(&p, &v) && n < len;) {
		n += (size_t)snprintf(buf + n, len - n, "%s%s%s%s", n ? "; " : "", v.event,
				      v.event[0] ? "=" : "", v.verdict);
	}
}

/* Comparisons are only fair between like runs: say what differs. */
static void cross_checks(struct ana_set *s)
{
	if (s->n_orun < 2 || s->o.split != ANA_SPLIT_NONE)
		return;
	const struct orun *a = &s->orun[0];
	/* a "native" base that is itself a guest: every ratio is guest on guest */
	if (a->pub.virtualization)
		set_note(s, ANA_NOTE_WARN, 0, "the base (%s) is itself virtualized: %s; its ratios "
			 "compare against a virtual machine, not bare metal", a->label,
			 a->pub.virtualization);
	for (size_t r = 1; r < s->n_orun; r++) {
		const struct orun *b = &s->orun[r];
		for (size_t e = 0; e < s->n_ev; e++) {
			const struct ana_event_fact *x = &a->ev[e], *y = &b->ev[e];
			/* With --time, no samples may be the slice's doing. */
			if (!x->samples != !y->samples)
				set_note(s, ANA_NOTE_WARN, (int)r, "event %s %s in %s but not in %s%s%s",
					 s->ev_name[e], s->o.n_time ? "has samples" : "was sampled",
					 x->samples ? a->label : b->label,
					 x->samples ? b->label : a->label,
					 s->o.n_time ? " within --time " : "",
					 s->o.n_time ? s->time_spec : "");
			else if (x->samples && (x->period != y->period || x->freq != y->freq))
				set_note(s, ANA_NOTE_WARN, (int)r, "event %s: period %llu%s in %s, %llu%s in %s",
					 s->ev_name[e], (unsigned long long)(x->period ? x->period : x->freq),
					 x->period ? "" : " Hz", a->label,
					 (unsigned long long)(y->period ? y->period : y->freq),
					 y->period ? "" : " Hz", b->label);
		}
		/* other sample sources, other machines: what was measured differs */
		static const char *const facts[] = { "backend", "command", "hypervisor", "vpmu",
						      "fallback", "kernel_frames", "call_graph" };
		for (size_t k = 0; k < sizeof(facts) / sizeof(*facts); k++) {
			const char *x = meta_of(a, facts[k]), *y = meta_of(b, facts[k]);
			if (!x || !y || !strcmp(x, y))
				continue;
			/* a fallback's "REQUESTED -> USED: reason": the reason is in
			 * each run's header */
			int nx = (int)strlen(x), ny = (int)strlen(y);
			if (!strcmp(facts[k], "fallback")) {
				const char *cx = strstr(x, ": "), *cy = strstr(y, ": ");
				nx = cx ? (int)(cx - x) : nx;
				ny = cy ? (int)(cy - y) : ny;
			}
			set_note(s, ANA_NOTE_WARN, (int)r, "%s differs: '%.*s' in %s, '%.*s' in %s",
				 facts[k], x[0] ? nx : 4, x[0] ? x : "none", a->label,
				 y[0] ? ny : 4, y[0] ? y : "none", b->label);
		}
		char va[512], vb[512];
		verdict_summary(a, va, sizeof(va));
		verdict_summary(b, vb, sizeof(vb));
		if (va[0] && vb[0] && strcmp(va, vb))
			set_note(s, ANA_NOTE_WARN, (int)r, "calibration differs: '%s' in %s, '%s' in %s",
				 va, a->label, vb, b->label);
		/* same module name, other build: the binary was rebuilt between runs */
		for (size_t i = 0; i < s->n_mod; i++) {
			if (!(i / 64 < a->cap_mods && (a->mods[i / 64] >> (i % 64) & 1)))
				continue;
			for (size_t j = 0; j < s->n_mod; j++)
				if (j / 64 < b->cap_mods && (b->mods[j / 64] >> (j % 64) & 1) &&
				    s->mod[i].base == s->mod[j].base && s->mod[i].bid_len &&
				    s->mod[j].bid_len &&
				    (s->mod[i].bid_len != s->mod[j].bid_len ||
				     memcmp(s->mod[i].bid, s->mod[j].bid, s->mod[i].bid_len)))
					set_note(s, ANA_NOTE_WARN, (int)r, "%s is a different build in %s than "
						 "in %s (build-ids differ)", s->mod[i].base, b->label, a->label);
		}
	}
}

int ana_set_finish(struct ana_set *s)
{
	if (s->finished)
		return -ANA_ESTATE;
	int e;
	uint64_t total = 0;
	if ((e = tl_apply_time(s)))
		return e;
	for (size_t i = 0; i < s->n_orun; i++)
		for (size_t k = 0; k < s->n_ev && k < s->orun[i].cap_ev; k++)
			total += s->orun[i].ev[k].samples;
	if (s->n_filtered_out)
		set_note(s, total ? ANA_NOTE_INFO : ANA_NOTE_WARN, -1, "%zu profile%s of other "
			 "threads left out (--comm, --pid, --tid)%s", s->n_filtered_out,
			 s->n_filtered_out == 1 ? "" : "s", total ? "" : ": none is of those threads");
	if (!total)
		return -ANA_ENODATA;
	if ((e = order_runs(s)))
		return e;
	for (unsigned r = 0; r < s->n_orun; r++)
		if ((e = run_facts(s, r)))
			return e;
	trust_checks(s);
	cross_checks(s);
	for (unsigned r = 0; r < s->n_orun; r++)
		if (!(s->orun[r].pub.facts = s->orun[r].facts = ana_facts_new(&s->orun[r].pub)))
			return -errno;
	if ((e = set_symbolize(s)) || (e = set_line_contexts(s)) || (e = set_aggregate(s)))
		return e;
	tl_keep_raw(s);
	free_raw(s);
	s->finished = true;
	return 0;
}

/* ---- accessors ---- */

unsigned ana_set_n_runs(const struct ana_set *s)
{
	return s->finished ? (unsigned)s->n_orun : 0;
}

const struct ana_run *ana_set_run(const struct ana_set *s, unsigned run)
{
	if (!s->finished || run >= s->n_orun) {
		errno = EINVAL;
		return NULL;
	}
	return &s->orun[run].pub;
}

size_t ana_set_n_events(const struct ana_set *s)
{
	return s->n_ev + s->n_metric;
}

const char *ana_set_event(const struct ana_set *s, size_t i)
{
	if (i < s->n_ev)
		return s->ev_name[i];
	if (i < s->n_ev + s->n_metric)
		return metric_name(s->metric[i - s->n_ev]);
	return NULL;
}

size_t ana_set_n_notes(const struct ana_set *s)
{
	return s->n_notes;
}

const struct ana_note *ana_set_note(const struct ana_set *s, size_t i)
{
	return i < s->n_notes ? &s->notes[i] : NULL;
}

size_t ana_set_n_errors(const struct ana_set *s)
{
	return s->n_errors;
}

/* Event names as users type them: the canonical name, the requested spec
 * without "@period", or the part after "pmu::" without ":modifiers". */
static int lookup_event(void *ctx, const char *name)
{
	const struct ana_set *s = ctx;
	for (size_t i = 0; i < s->n_ev; i++)
		if (!strcasecmp(s->ev_name[i], name))
			return (int)i;
	for (size_t r = 0; r < s->n_orun; r++)
		for (size_t i = 0; i < s->n_ev; i++) {
			const char *q = s->orun[r].ev[i].requested;
			size_t n = strcspn(q, "@");
			if (q && n == strlen(name) && !strncasecmp(q, name, n))
				return (int)i;
		}
	for (size_t i = 0; i < s->n_ev; i++) {
		const char *p = strstr(s->ev_name[i], "::");
		p = p ? p + 2 : s->ev_name[i];
		size_t n = strcspn(p, ":");
		if (n == strlen(name) && !strncasecmp(p, name, n))
			return (int)i;
	}
	for (size_t i = 0; i < s->n_metric; i++)
		if (!strcmp(metric_name(s->metric[i]), name))
			return (int)(s->n_ev + i);
	return -1;
}

int ana_set_event_index(const struct ana_set *s, const char *name)
{
	return lookup_event((void *)s, name);
}

int ana_set_run_event(const struct ana_set *s, unsigned run, size_t ev)
{
	if (!s->finished || run >= s->n_orun || ev >= s->n_ev)
		return -1;
	if (s->orun[run].ev[ev].samples)
		return (int)ev;
	/* by position: ev is the k-th sampled event of the first run that has it */
	size_t first = 0, k = 0;
	while (first < s->n_orun && !s->orun[first].ev[ev].samples)
		first++;
	if (first == s->n_orun)
		return -1;
	for (size_t e = 0; e < ev; e++)
		k += s->orun[first].ev[e].samples != 0;
	for (size_t e = 0; e < s->n_ev; e++)
		if (s->orun[run].ev[e].samples && k-- == 0)
			return (int)e;
	return -1;
}

int ana_set_add_metric(struct ana_set *s, const char *spec, char *msg, size_t len)
{
	if (!s->finished)
		return -ANA_ESTATE;
	if (vec_reserve(&s->metric, &s->cap_metric, s->n_metric + 1, sizeof(*s->metric)))
		return -ENOMEM;
	struct metric *m = metric_parse(spec, lookup_event, s, msg, len);
	if (!m)
		return errno == ENOMEM ? -ENOMEM : -ANA_EMETRIC;
	if (lookup_event(s, metric_name(m)) >= 0) {
		snprintf(msg, len, "metric: name '%s' is already a column", metric_name(m));
		metric_free(m);
		return -ANA_EMETRIC;
	}
	s->metric[s->n_metric++] = m;
	return (int)(s->n_ev + s->n_metric - 1);
}

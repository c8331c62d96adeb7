/* Symbolize the merged raw tree (each distinct address once, each module
 * opened once), build the symbolized tree with inlined frames as nodes of
 * their own, and sum self/inclusive counts per function, line, module and
 * tree node for every run repeat. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/aggregate.h"
#include "analyzer/read.h"
#include "analyzer/set.h"
#include "analyzer/symbolize.h"

int agg_alloc(struct agg *a, size_t n, size_t np, size_t ne, bool weighted)
{
	*a = (struct agg){ .np = np, .ne = ne, .weighted = weighted };
	if (!(a->p = calloc(np ? np : 1, sizeof(*a->p))))
		return -ENOMEM;
	return agg_grow(a, n);
}

int agg_grow(struct agg *a, size_t n)
{
	size_t blk = 2 * a->ne;
	for (size_t p = 0; p < a->np; p++) {
		struct agg_part *ap = &a->p[p];
		if (ap->item || (ap->cnt && n <= ap->n))
			continue;
		uint64_t *c = realloc(ap->cnt, (n ? n : 1) * blk * sizeof(*c));
		if (!c)
			return -ENOMEM;
		memset(c + ap->n * blk, 0, (n - ap->n) * blk * sizeof(*c));
		ap->cnt = c;
		if (a->weighted) {
			double *w = realloc(ap->wt, (n ? n : 1) * blk * sizeof(*w));
			if (!w)
				return -ENOMEM;
			memset(w + ap->n * blk, 0, (n - ap->n) * blk * sizeof(*w));
			ap->wt = w;
		}
		ap->n = n;
	}
	if (n > a->n)
		a->n = n;
	return 0;
}

void agg_free(struct agg *a)
{
	for (size_t p = 0; a->p && p < a->np; p++) {
		free(a->p[p].item);
		free(a->p[p].cnt);
		free(a->p[p].wt);
	}
	free(a->p);
	memset(a, 0, sizeof(*a));
}

void set_free_symbols(struct ana_set *s)
{
	FREE_EACH(s->func, s->line, s->modrow, s->frame, s->addr);
	idx_free(&s->func_idx);
	idx_free(&s->line_idx);
	idx_free(&s->modrow_idx);
	idx_free(&s->addr_idx);
	FREE_EACH(s->sparent, s->sfunc, s->sfirst, s->snext, s->sinl);
	idx_free(&s->sym_idx);
	FREE_EACH(s->bu, s->bu_ent, s->bu_slot, s->bu_kfunc, s->bu_kcnt, s->bu_up, s->bu_mark);
}

static bool modrow_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct ana_set *s = ctx;
	return s->modrow[id].base == key;
}

static int modrow_get(struct ana_set *s, const char *base, const char *path, uint32_t *out)
{
	uint64_t h = hash_u64((uintptr_t)base, 3);
	uint32_t id = idx_find(&s->modrow_idx, h, modrow_eq, s, base);
	if (id == NONE) {
		if (vec_reserve(&s->modrow, &s->cap_modrow, s->n_modrow + 1, sizeof(*s->modrow)))
			return -ENOMEM;
		id = (uint32_t)s->n_modrow;
		s->modrow[id] = (struct modrow){ base, path };
		if (idx_put(&s->modrow_idx, h, id))
			return -ENOMEM;
		s->n_modrow++;
	}
	*out = id;
	return 0;
}

struct fkey {
	const char *key, *base;
	uint32_t inl;
};

static bool func_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct ana_set *s = ctx;
	const struct fkey *k = key;
	const struct func *f = &s->func[id];
	return f->key == k->key && f->base == k->base && f->inl_caller == k->inl;
}

/* Functions are matched by module basename and linkage name (key), across
 * runs too; an inlined function once per function it was inlined into
 * (inl, else NONE), so that a change under one caller is not averaged
 * with the others.  name is what is shown. */
static int func_get(struct ana_set *s, const char *key, const char *name, const char *base,
		    const char *path, const char *file, unsigned line, unsigned flags, uint32_t inl,
		    uint32_t *out)
{
	struct fkey k = { key, base, inl };
	uint64_t h = hash_u64(hash_u64((uintptr_t)key, (uintptr_t)base), inl);
	uint32_t id = idx_find(&s->func_idx, h, func_eq, s, &k);
	if (id == NONE) {
		if (vec_reserve(&s->func, &s->cap_func, s->n_func + 1, sizeof(*s->func)))
			return -ENOMEM;
		if (s->o.short_names && !(flags & ANA_ROW_UNRESOLVED) &&
		    !(name = sym_short_name(&s->pool, name)))
			return -ENOMEM;
		id = (uint32_t)s->n_func;
		struct func *f = &s->func[id];
		*f = (struct func){ .key = key, .name = name, .base = base, .path = path, .file = file,
				    .line = line, .flags = flags, .inl_caller = inl,
				    .inl_n = inl != NONE };
		int e = modrow_get(s, base, path, &f->modrow);
		if (e || idx_put(&s->func_idx, h, id))
			return -ENOMEM;
		s->n_func++;
	} else if (!s->func[id].file && file) {
		s->func[id].file = file;
		s->func[id].line = line;
	}
	*out = id;
	return 0;
}

static bool line_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct ana_set *s = ctx;
	const struct line *k = key;
	const struct line *l = &s->line[id];
	return l->func == k->func && l->file == k->file && l->line == k->line;
}

static int line_get(struct ana_set *s, uint32_t func, const char *file, unsigned line, uint32_t *out)
{
	struct line k = { func, file, line };
	uint64_t h = hash_u64(hash_u64(func, (uintptr_t)file), line);
	uint32_t id = idx_find(&s->line_idx, h, line_eq, s, &k);
	if (id == NONE) {
		if (vec_reserve(&s->line, &s->cap_line, s->n_line + 1, sizeof(*s->line)))
			return -ENOMEM;
		id = (uint32_t)s->n_line;
		s->line[id] = k;
		if (idx_put(&s->line_idx, h, id))
			return -ENOMEM;
		s->n_line++;
	}
	*out = id;
	return 0;
}

struct akey {
	uint32_t mod;
	uint64_t off;
};

static bool addr_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct ana_set *s = ctx;
	const struct akey *k = key;
	return s->addr[id].mod == k->mod && s->addr[id].off == k->off;
}

struct skey {
	uint32_t parent, func;
};

static bool sym_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct ana_set *s = ctx;
	const struct skey *k = key;
	return s->sparent[id] == k->parent && s->sfunc[id] == k->func;
}

/* Room for n symbolized nodes (each written when added). */
static int sym_reserve(struct ana_set *s, size_t n)
{
	size_t c = s->cap_sym;
	if (vec_grow(&s->sparent, &c, n, sizeof(uint32_t)) ||
	    (c = s->cap_sym, vec_grow(&s->sfunc, &c, n, sizeof(uint32_t))) ||
	    (c = s->cap_sym, vec_grow(&s->sfirst, &c, n, sizeof(uint32_t))) ||
	    (c = s->cap_sym, vec_grow(&s->snext, &c, n, sizeof(uint32_t))) ||
	    (c = s->cap_sym, vec_grow(&s->sinl, &c, n, sizeof(uint8_t))))
		return -ENOMEM;
	s->cap_sym = c;
	return 0;
}

static int sym_child(struct ana_set *s, uint32_t parent, uint32_t func, bool inl, uint32_t *out)
{
	struct skey k = { parent, func };
	uint64_t h = hash_u64(parent, func);
	uint32_t id = idx_find(&s->sym_idx, h, sym_eq, s, &k);
	if (id == NONE) {
		if (sym_reserve(s, s->n_sym + 1))
			return -ENOMEM;
		id = (uint32_t)s->n_sym;
		s->sparent[id] = parent;
		s->sfunc[id] = func;
		s->sinl[id] = inl;
		s->sfirst[id] = NONE;
		if (id) {
			s->snext[id] = s->sfirst[parent];
			s->sfirst[parent] = id;
		} else {
			s->snext[id] = NONE;
		}
		if (id && idx_put(&s->sym_idx, h, id))
			return -ENOMEM;
		s->n_sym++;
	}
	*out = id;
	return 0;
}

static int add_addr(struct ana_set *s, struct symtab *st, uint32_t mod, uint64_t off, uint32_t *out)
{
	struct sym_frame fr[64];
	size_t n = 0;
	const char *base, *path;
	if (mod == PROF_NO_MODULE) {
		base = path = "[unknown]";
	} else {
		base = s->mod[mod].base;
		path = s->mod[mod].path;
		n = symtab_lookup(st, s->mod[mod].sym, off, fr, 64);
	}
	if (n > 1 && s->o.no_inline) {
		/* perf's --no-inline: the code is the outer function's, at
		 * the address's own source line */
		fr[n - 1].file = fr[0].file;
		fr[n - 1].line = fr[0].line;
		fr[0] = fr[n - 1];
		n = 1;
	}
	if (vec_reserve(&s->addr, &s->cap_addr, s->n_addr + 1, sizeof(*s->addr)) ||
	    vec_reserve(&s->frame, &s->cap_frame, s->n_frame + (n ? n : 1), sizeof(*s->frame)))
		return -ENOMEM;
	struct addr *a = &s->addr[s->n_addr];
	*a = (struct addr){ mod, off, (uint32_t)s->n_frame, (uint32_t)(n ? n : 1) };
	if (!n) {
		char buf[300];
		if (mod == PROF_NO_MODULE)
			snprintf(buf, sizeof(buf), "[unknown]");
		else if (base[0] == '[')	/* [JIT] */
			snprintf(buf, sizeof(buf), "%.200s+0x%llx", base, (unsigned long long)off);
		else
			snprintf(buf, sizeof(buf), "[%.200s+0x%llx]", base, (unsigned long long)off);
		const char *nm = strpool_str(&s->pool, buf);
		if (!nm || (base = strpool_str(&s->pool, base)) == NULL ||
		    (path = strpool_str(&s->pool, path)) == NULL)
			return -ENOMEM;
		struct frame *f = &s->frame[s->n_frame++];
		f->inlined = false;
		if (func_get(s, nm, nm, base, path, NULL, 0, ANA_ROW_UNRESOLVED, NONE, &f->func) ||
		    line_get(s, f->func, NULL, 0, &f->line))
			return -ENOMEM;
	} else {
		for (size_t j = n; j-- > 0;) {
			struct frame *f = &s->frame[s->n_frame++];
			f->inlined = j < n - 1;
			if (func_get(s, fr[j].key, fr[j].func, base, path, fr[j].decl_file,
				     fr[j].decl_line, 0, f->inlined ? f[-1].func : NONE, &f->func) ||
			    line_get(s, f->func, fr[j].file, fr[j].line, &f->line))
				return -ENOMEM;
		}
	}
	*out = (uint32_t)s->n_addr++;
	return 0;
}

/* Opening the modules: one job each, run on up to MAX_OPENERS threads
 * (2 cores: a -dbg package's DWARF inflates while the kernel's symbols are
 * read and another module's table is sorted). */
#define MAX_OPENERS 4

struct open_job {
	uint32_t mod;
	int h, rc;
	enum ana_severity sev;
	char msg[1024];
};

struct openers {
	struct ana_set *s;
	struct symtab *st;
	struct open_job *job;
	size_t n;
	size_t next;			/* the next job to take (atomic) */
};

static void open_one(struct openers *o, struct open_job *j)
{
	const struct smodule *sm = &o->s->mod[j->mod];
	const uint8_t *bid = sm->bid_len ? sm->bid : NULL;
	j->rc = sm->image ? symtab_open_image(o->st, j->h, sm->path, sm->image, sm->image_len, bid,
					      sm->bid_len, j->msg, sizeof(j->msg), &j->sev)
			  : symtab_open(o->st, j->h, sm->path, bid, sm->bid_len, j->msg,
					sizeof(j->msg), &j->sev);
}

static void *opener(void *arg)
{
	struct openers *o = arg;
	for (size_t i; (i = __atomic_fetch_add(&o->next, 1, __ATOMIC_RELAXED)) < o->n;)
		open_one(o, &o->job[i]);
	return NULL;
}

/* Open every module some context points into (the load map also lists
 * libraries no sample hit, the collector's own among them), with their
 * notes in load-map order whatever the threads' order. */
static int open_modules(struct ana_set *s, struct symtab *st)
{
	uint8_t *used = calloc(s->n_mod ? s->n_mod : 1, 1);
	struct open_job *job = calloc(s->n_mod ? s->n_mod : 1, sizeof(*job));
	size_t n = 0;
	int e = used && job ? 0 : -ENOMEM;
	for (size_t r = 1; !e && r < s->n_raw; r++)
		if (s->rmod[r] < s->n_mod)
			used[s->rmod[r]] = 1;
	/* handles first (the table must not move under the threads); perf
	 * maps, which intern as they go, right away */
	for (size_t i = 0; !e && i < s->n_mod; i++) {
		if (!used[i])
			continue;
		const struct smodule *sm = &s->mod[i];
		int h = sm->jit ? symtab_load_perfmap(st, sm->path, job[n].msg, sizeof(job[n].msg),
						      &job[n].sev)
				: symtab_add(st);
		if (h < 0) {
			e = h;
			break;
		}
		s->mod[i].sym = h;
		job[n].mod = (uint32_t)i;
		job[n].h = h;
		job[n].rc = sm->jit ? 0 : 1;	/* 1: to be opened */
		n++;
	}
	/* the jobs left to do: those with rc 1, moved to the front */
	struct openers o = { .s = s, .st = st, .job = NULL, .n = 0 };
	size_t k = 0;
	struct open_job *todo = e ? NULL : malloc((n ? n : 1) * sizeof(*todo));
	if (!e && !todo)
		e = -ENOMEM;
	for (size_t i = 0; !e && i < n; i++)
		if (job[i].rc == 1)
			todo[k++] = job[i];
	o.job = todo;
	o.n = k;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t nt = e ? 0 : cpus > 1 ? (size_t)cpus : 1;
	if (nt > MAX_OPENERS)
		nt = MAX_OPENERS;
	if (nt > k)
		nt = k;
	pthread_t tid[MAX_OPENERS];
	size_t started = 0;
	while (started + 1 < nt && !pthread_create(&tid[started], NULL, opener, &o))
		started++;
	/* this thread takes jobs too, and tells the progress of its own */
	for (size_t i; !e && (i = __atomic_fetch_add(&o.next, 1, __ATOMIC_RELAXED)) < o.n;) {
		if (s->o.progress)
			s->o.progress(s->o.progress_arg, "modules", i, o.n);
		open_one(&o, &o.job[i]);
	}
	for (size_t t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	for (size_t i = 0, j = 0; !e && i < n; i++) {
		struct open_job *x = job[i].rc == 1 ? &todo[j++] : &job[i];
		if (x->rc < 0)
			e = x->rc;
		else if (x->msg[0])
			set_note(s, x->sev, -1, "%s", x->msg);
	}
	free(todo);
	free(job);
	free(used);
	return e;
}

int set_symbolize(struct ana_set *s)
{
	struct symtab_opts so = { .debug_dirs = s->debug_dirs, .cache_dir = s->cache_dir,
				  .pool = &s->pool, .profile_dirs = s->prof_dirs,
				  .n_profile_dirs = s->n_prof_dirs, .keep_dir = s->keep_dir };
	struct symtab *st = symtab_new(&so);
	int e = -ENOMEM;
	if (!st)
		return -ENOMEM;
	if ((e = open_modules(s, st)))
		goto out;
	e = -ENOMEM;
	s->raddr = malloc(s->n_raw * sizeof(uint32_t));
	s->rsym = malloc(s->n_raw * sizeof(uint32_t));
	/* about one symbolized node per raw node (inlining adds, merging takes) */
	if (!s->raddr || !s->rsym || idx_reserve(&s->sym_idx, s->n_raw) || sym_reserve(s, s->n_raw))
		goto out;
	uint32_t root;
	if (sym_child(s, 0, NONE, false, &root))
		goto out;
	s->raddr[0] = NONE;
	s->rsym[0] = 0;
	s->nostack = NONE;
	/* raw nodes are created parents first, so one pass in id order works */
	for (uint32_t r = 1; r < s->n_raw; r++) {
		struct akey k = { s->rmod[r], s->roff[r] };
		uint64_t h = hash_u64(k.mod, k.off);
		uint32_t a = idx_find(&s->addr_idx, h, addr_eq, s, &k);
		if (a == NONE) {
			if (add_addr(s, st, k.mod, k.off, &a) || idx_put(&s->addr_idx, h, a))
				goto out;
		}
		s->raddr[r] = a;
		uint32_t cur = s->rsym[s->rparent[r]];
		for (uint32_t j = 0; j < s->addr[a].n; j++) {
			const struct frame *f = &s->frame[s->addr[a].first + j];
			if (sym_child(s, cur, f->func, f->inlined, &cur))
				goto out;
		}
		s->rsym[r] = cur;
		if (s->o.progress && (r & 0xfff) == 0)
			s->o.progress(s->o.progress_arg, "symbolize", r, s->n_raw);
	}
	/* samples taken with no stack at all still count, under a name */
	bool rooted = false;
	for (size_t p = 0; p < s->n_part; p++)
		for (size_t i = 0; i < s->part[p].n; i++)
			rooted |= s->part[p].node[i] == 0;
	if (rooted) {
		uint32_t f;
		const char *nm = strpool_str(&s->pool, "[no stack]");
		const char *un = strpool_str(&s->pool, "[unknown]");
		if (!nm || !un || func_get(s, nm, nm, un, un, NULL, 0, ANA_ROW_UNRESOLVED, NONE, &f) ||
		    sym_child(s, 0, f, false, &s->nostack))
			goto out;
	}
	/* kept names that lack some sampled addresses (profiles added after
	 * the archive): say which module and what would keep them */
	for (size_t i = 0; i < s->n_mod; i++) {
		char hint[4200];
		size_t k = s->mod[i].sym >= 0 ? symtab_unnamed(st, s->mod[i].sym, hint, sizeof(hint)) : 0;
		if (k && set_note(s, ANA_NOTE_WARN, -1, "%s: %zu sampled address%s not in the names "
				  "kept for it, shown as [%s+0xOFF]: %s", s->mod[i].path, k,
				  k == 1 ? "" : "es", s->mod[i].base, hint))
			goto out;
	}
	for (size_t f = 0; f < s->n_func; f++) {
		struct func *fn = &s->func[f];
		if (!fn->inl_n)
			continue;
		fn->inl_text = fn->inl_name = s->func[fn->inl_caller].name;
	}
	e = 0;
out:
	symtab_free(st);
	return e;
}

/* One aggregate being summed for one part at a time: dense sums over all
 * items, and the items the part touched, so that only those are handed
 * over and cleared. */
struct fill {
	struct agg *a;
	uint64_t *cnt;			/* [item][ev][kind] */
	double *wt;
	uint32_t *seen;			/* [item] part + 1 once touched by that part */
	uint32_t *touched;
	size_t n_touched;
};

static int fill_new(struct fill *f, struct agg *a, size_t n, size_t np, size_t ne, bool weighted)
{
	*a = (struct agg){ .np = np, .ne = ne, .n = n, .weighted = weighted };
	a->p = calloc(np ? np : 1, sizeof(*a->p));
	size_t k = (n ? n : 1) * 2 * ne;
	*f = (struct fill){ .a = a };
	f->cnt = calloc(k, sizeof(uint64_t));
	f->wt = weighted ? calloc(k, sizeof(double)) : NULL;
	f->seen = calloc(n ? n : 1, sizeof(uint32_t));
	f->touched = malloc((n ? n : 1) * sizeof(uint32_t));
	return a->p && f->cnt && f->seen && f->touched && (!weighted || f->wt) ? 0 : -ENOMEM;
}

static void fill_free(struct fill *f)
{
	free(f->cnt);
	free(f->wt);
	free(f->seen);
	free(f->touched);
}

static inline void fill_add(struct fill *f, uint32_t p, size_t item, size_t ev, int kind, uint64_t c,
			    double w)
{
	if (f->seen[item] != p + 1) {
		f->seen[item] = p + 1;
		f->touched[f->n_touched++] = (uint32_t)item;
	}
	size_t at = (item * f->a->ne + ev) * 2 + (size_t)kind;
	f->cnt[at] += c;
	if (f->wt)
		f->wt[at] += w;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Hand part p its sums: the dense buffers themselves when it touched most
 * items, else a sorted copy of the touched ones (the buffers are cleared
 * for the next part). */
static int fill_flush(struct fill *f, uint32_t p, bool last)
{
	struct agg *a = f->a;
	struct agg_part *ap = &a->p[p];
	size_t blk = 2 * a->ne, n = a->n ? a->n : 1, nt = f->n_touched;
	size_t bytes = blk * (sizeof(uint64_t) + (f->wt ? sizeof(double) : 0));
	f->n_touched = 0;
	if ((nt * (bytes + sizeof(uint32_t))) * 4 >= n * bytes * 3) {
		ap->cnt = f->cnt;
		ap->wt = f->wt;
		ap->n = n;
		f->cnt = NULL;
		f->wt = NULL;
		if (last)
			return 0;
		f->cnt = calloc(n * blk, sizeof(uint64_t));
		f->wt = a->weighted ? calloc(n * blk, sizeof(double)) : NULL;
		return f->cnt && (!a->weighted || f->wt) ? 0 : -ENOMEM;
	}
	qsort(f->touched, nt, sizeof(uint32_t), cmp_u32);
	ap->item = malloc((nt ? nt : 1) * sizeof(uint32_t));	/* non-NULL: sparse */
	ap->cnt = malloc((nt ? nt : 1) * blk * sizeof(uint64_t));
	ap->wt = f->wt ? malloc((nt ? nt : 1) * blk * sizeof(double)) : NULL;
	if (!ap->item || !ap->cnt || (f->wt && !ap->wt))
		return -ENOMEM;
	ap->n = nt;
	for (size_t i = 0; i < nt; i++) {
		size_t x = f->touched[i];
		ap->item[i] = (uint32_t)x;
		memcpy(&ap->cnt[i * blk], &f->cnt[x * blk], blk * sizeof(uint64_t));
		memset(&f->cnt[x * blk], 0, blk * sizeof(uint64_t));
		if (f->wt) {
			memcpy(&ap->wt[i * blk], &f->wt[x * blk], blk * sizeof(double));
			memset(&f->wt[x * blk], 0, blk * sizeof(double));
		}
	}
	return 0;
}

/* For each raw node's frames (outermost first), whether its function,
 * line and module occur there for the first time on the path from the
 * root: inclusive counts go to first occurrences only, so that recursion
 * counts once.  One depth-first walk with a count per function, line and
 * module on the current path.  first[] is indexed like each node's frames
 * from fofs[node]. */
enum { FIRST_FUNC = 1, FIRST_LINE = 2, FIRST_MOD = 4 };

static int first_occurrences(const struct ana_set *s, uint32_t **fofs_out, uint8_t **first_out)
{
	size_t n = s->n_raw;
	if (n >= 1u << 31)
		return -ENOMEM;	/* the walk marks nodes with the top bit */
	uint32_t *fofs = malloc((n + 1) * sizeof(*fofs));
	uint32_t *kid0 = calloc(n + 1, sizeof(*kid0)), *kids = malloc((n ? n : 1) * sizeof(*kids));
	uint32_t *on_f = calloc(s->n_func ? s->n_func : 1, sizeof(uint32_t));
	uint32_t *on_l = calloc(s->n_line ? s->n_line : 1, sizeof(uint32_t));
	uint32_t *on_m = calloc(s->n_modrow ? s->n_modrow : 1, sizeof(uint32_t));
	/* pending nodes plus a leave mark for each node on the path: < 2n */
	uint32_t *stack = malloc((2 * n + 1) * sizeof(*stack));
	uint8_t *first = NULL;
	int e = -ENOMEM;
	if (!fofs || !kid0 || !kids || !on_f || !on_l || !on_m || !stack)
		goto out;
	size_t nf = 0;
	for (size_t r = 0; r < n; r++) {
		fofs[r] = (uint32_t)nf;
		nf += r ? s->addr[s->raddr[r]].n : 0;
	}
	fofs[n] = (uint32_t)nf;
	if (nf >= NONE || !(first = calloc(nf ? nf : 1, 1)))
		goto out;
	/* children lists (counting sort by parent) */
	for (size_t r = 1; r < n; r++)
		kid0[s->rparent[r] + 1]++;
	for (size_t r = 0; r < n; r++)
		kid0[r + 1] += kid0[r];
	for (size_t r = 1; r < n; r++)
		kids[kid0[s->rparent[r]]++] = (uint32_t)r;
	for (size_t r = n; r > 0; r--)
		kid0[r] = kid0[r - 1];
	kid0[0] = 0;
	/* stack entries: node (entering) or node | top bit (leaving) */
	size_t sp = 0;
	for (uint32_t k = kid0[0]; k < kid0[1]; k++)
		stack[sp++] = kids[k];
	while (sp) {
		uint32_t x = stack[--sp];
		bool leave = x >> 31;
		x &= ~(1u << 31);
		const struct addr *a = &s->addr[s->raddr[x]];
		for (uint32_t j = 0; j < a->n; j++) {
			const struct frame *f = &s->frame[a->first + j];
			uint32_t m = s->func[f->func].modrow;
			if (leave) {
				on_f[f->func]--;
				on_l[f->line]--;
				on_m[m]--;
				continue;
			}
			first[fofs[x] + j] = (uint8_t)((!on_f[f->func] ? FIRST_FUNC : 0) |
						       (!on_l[f->line] ? FIRST_LINE : 0) |
						       (!on_m[m] ? FIRST_MOD : 0));
			on_f[f->func]++;
			on_l[f->line]++;
			on_m[m]++;
		}
		if (leave)
			continue;
		stack[sp++] = x | 1u << 31;
		for (uint32_t k = kid0[x]; k < kid0[x + 1]; k++)
			stack[sp++] = kids[k];
	}
	*fofs_out = fofs;
	*first_out = first;
	fofs = NULL;
	first = NULL;
	e = 0;
out:
	FREE_EACH(fofs, first, kid0, kids, on_f, on_l, on_m, stack);
	return e;
}

/* Part by part: each part's raw counts are summed into the aggregates and
 * freed before the next, so the raw counts and the sums of all parts are
 * never all held at once.  Per part: self counts on the raw nodes it has,
 * inclusive counts by adding each node into its ancestors (walking up from
 * each entry, or for a part with many entries one backward pass over all
 * raw nodes: parents come first), then each raw node's inclusive count goes
 * to its tree nodes and to the first occurrences of its functions, lines
 * and modules. */
/* set_aggregate's working state: the four kinds of rows being filled
 * (calling contexts, functions, lines, modules) and the scratch over the
 * raw tree that one part at a time uses. */
struct sum_state {
	struct ana_set *s;
	size_t ne, nr;
	struct fill fs, ff, fl, fm;
	uint32_t *fofs;			/* first_occurrences: offsets into first */
	uint8_t *first;
	uint32_t *seen;			/* raw node -> part + 1 that touched it */
	uint32_t *touched;		/* the raw nodes this part touched */
	size_t nt;
	uint64_t *ri;			/* raw inclusive counts [node][ev] */
	double *rw;			/* the same in weights (--weight) */
	uint8_t *fkeep;			/* --dso, --symbols: [func] -> its samples count;
					 * NULL: all do */
};

/* Whether function f (or the one it is inlined into, and so on out) is
 * one of --symbols. */
static bool func_named(const struct ana_set *s, uint32_t f)
{
	for (unsigned hops = 0; f != NONE && hops < 64; f = s->func[f].inl_caller, hops++)
		if (filter_has(s->o.symbols, s->func[f].name) || filter_has(s->o.symbols, s->func[f].key))
			return true;
	return false;
}

bool func_kept(const struct ana_set *s, uint32_t f)
{
	const struct func *fn = &s->func[f];
	bool dso = !s->o.dsos || filter_has(s->o.dsos, fn->base) || filter_has(s->o.dsos, fn->path);
	return dso && (!s->o.symbols || func_named(s, f));
}

/* --dso and --symbols, once per function; 0 or -ENOMEM. */
static int func_filter(struct sum_state *g, const struct ana_set *s)
{
	if (!s->o.dsos && !s->o.symbols)
		return 0;
	if (!(g->fkeep = malloc(s->n_func ? s->n_func : 1)))
		return -ENOMEM;
	for (size_t f = 0; f < s->n_func; f++)
		g->fkeep[f] = func_kept(s, (uint32_t)f);
	return 0;
}

static int agg_begin(struct sum_state *g, struct ana_set *s)
{
	size_t np = s->n_part, ne = s->n_ev ? s->n_ev : 1, nr = s->n_raw;
	bool wtd = s->o.weighted;

	memset(g, 0, sizeof(*g));
	g->s = s;
	g->ne = ne;
	g->nr = nr;
	g->seen = calloc(nr, sizeof(uint32_t));
	g->touched = malloc(nr * sizeof(uint32_t));
	g->ri = calloc(nr * ne, sizeof(uint64_t));
	g->rw = wtd ? calloc(nr * ne, sizeof(double)) : NULL;
	s->ptot = calloc((np ? np : 1) * ne, sizeof(uint64_t));
	s->ptot_wt = calloc((np ? np : 1) * ne, sizeof(double));
	s->rtot = calloc((s->n_orun ? s->n_orun : 1) * ne, sizeof(uint64_t));
	s->rtot_val = calloc((s->n_orun ? s->n_orun : 1) * ne, sizeof(double));
	int e1 = fill_new(&g->fs, &s->a_sym, s->n_sym, np, ne, wtd);
	int e2 = fill_new(&g->ff, &s->a_func, s->n_func, np, ne, wtd);
	int e3 = fill_new(&g->fl, &s->a_line, s->n_line, np, ne, wtd);
	int e4 = fill_new(&g->fm, &s->a_mod, s->n_modrow, np, ne, wtd);
	if (e1 || e2 || e3 || e4 || !g->seen || !g->touched || !g->ri || (wtd && !g->rw) ||
	    !s->ptot || !s->ptot_wt || !s->rtot || !s->rtot_val ||
	    first_occurrences(s, &g->fofs, &g->first) || func_filter(g, s))
		return -ENOMEM;
	if (s->o.addr_samples &&
	    !(s->addr_smp = calloc((s->n_addr ? s->n_addr : 1) * (s->n_orun ? s->n_orun : 1) * ne,
				   sizeof(uint64_t))))
		return -ENOMEM;
	return 0;
}

static void agg_end(struct sum_state *g)
{
	fill_free(&g->fs);
	fill_free(&g->ff);
	fill_free(&g->fl);
	fill_free(&g->fm);
	FREE_EACH(g->fofs, g->first, g->seen, g->touched, g->ri, g->rw, g->fkeep);
}

/* Remember that part p has counts at raw node x. */
static inline void touch(struct sum_state *g, uint32_t p, uint32_t x)
{
	if (g->seen[x] != p + 1) {
		g->seen[x] = p + 1;
		g->touched[g->nt++] = x;
	}
}

/* Self counts: each entry to its leaf's context, function, line and
 * module rows; and to the raw node, for the inclusive pass. */
static void agg_self(struct sum_state *g, uint32_t p, const struct part *pt)
{
	struct ana_set *s = g->s;
	size_t ne = g->ne;

	for (size_t i = 0; i < pt->n; i++) {
		uint32_t r = pt->node[i];
		size_t ev = pt->ev[i];
		uint64_t c = pt->cnt[i];
		double w = pt->wt ? pt->wt[i] : (double)c;
		uint32_t leaf = r ? s->rsym[r] : s->nostack;
		uint32_t f = s->sfunc[leaf], m = s->func[f].modrow;
		s->ptot[p * ne + ev] += c;
		s->ptot_wt[p * ne + ev] += w;
		if (g->fkeep && !g->fkeep[f])
			continue;	/* filtered: in the totals only */
		if (s->addr_smp && r)
			s->addr_smp[((size_t)s->raddr[r] * s->n_orun + pt->orun) * ne + ev] += c;
		fill_add(&g->fs, p, leaf, ev, 0, c, w);
		fill_add(&g->ff, p, f, ev, 0, c, w);
		fill_add(&g->fm, p, m, ev, 0, c, w);
		if (r) {
			const struct addr *a = &s->addr[s->raddr[r]];
			fill_add(&g->fl, p, s->frame[a->first + a->n - 1].line, ev, 0, c, w);
		} else {
			/* no stack: its own row, inclusive too */
			fill_add(&g->fs, p, leaf, ev, 1, c, w);
			fill_add(&g->ff, p, f, ev, 1, c, w);
			fill_add(&g->fm, p, m, ev, 1, c, w);
		}
		touch(g, p, r);
		g->ri[r * ne + ev] += c;
		if (g->rw)
			g->rw[r * ne + ev] += w;
	}
}

/* Inclusive counts over the raw tree: children into parents.  A part that
 * touches much of the tree sweeps it once (children have higher indexes);
 * a small one walks each entry's path to the root. */
static void agg_raw_inclusive(struct sum_state *g, uint32_t p, const struct part *pt)
{
	const struct ana_set *s = g->s;
	size_t ne = g->ne;

	if (pt->n * 16 >= g->nr) {
		for (size_t x = g->nr; x-- > 1;) {
			if (g->seen[x] != p + 1)
				continue;
			uint32_t up = s->rparent[x];
			touch(g, p, up);
			for (size_t ev = 0; ev < ne; ev++) {
				g->ri[up * ne + ev] += g->ri[x * ne + ev];
				if (g->rw)
					g->rw[up * ne + ev] += g->rw[x * ne + ev];
			}
		}
		return;
	}
	for (size_t i = 0; i < pt->n; i++) {
		size_t ev = pt->ev[i];
		for (uint32_t x = pt->node[i]; x;) {
			x = s->rparent[x];
			touch(g, p, x);
			g->ri[x * ne + ev] += pt->cnt[i];
			if (g->rw)
				g->rw[x * ne + ev] += pt->wt[i];
		}
	}
}

/* Each touched raw node's inclusive counts to the rows it stands for: its
 * symbolized contexts up to its parent's, and the first occurrence of each
 * function, line and module on its path (recursion counted once); then the
 * scratch is zeroed for the next part. */
static void agg_inclusive_rows(struct sum_state *g, uint32_t p)
{
	const struct ana_set *s = g->s;
	size_t ne = g->ne;

	for (size_t t = 0; t < g->nt; t++) {
		uint32_t x = g->touched[t];
		uint32_t stop = x ? s->rsym[s->rparent[x]] : NONE;
		const struct addr *a = x ? &s->addr[s->raddr[x]] : NULL;
		for (size_t ev = 0; ev < ne; ev++) {
			uint64_t c = g->ri[x * ne + ev];
			double w = g->rw ? g->rw[x * ne + ev] : (double)c;
			g->ri[x * ne + ev] = 0;
			if (g->rw)
				g->rw[x * ne + ev] = 0;
			if (!c && !w)
				continue;
			if (!x) {
				fill_add(&g->fs, p, 0, ev, 1, c, w);	/* the root: everything */
				continue;
			}
			for (uint32_t y = s->rsym[x]; y != stop; y = s->sparent[y])
				fill_add(&g->fs, p, y, ev, 1, c, w);
			for (uint32_t j = 0; j < a->n; j++) {
				const struct frame *f = &s->frame[a->first + j];
				uint8_t fl1 = g->first[g->fofs[x] + j];
				if (fl1 & FIRST_FUNC)
					fill_add(&g->ff, p, f->func, ev, 1, c, w);
				if (fl1 & FIRST_LINE)
					fill_add(&g->fl, p, f->line, ev, 1, c, w);
				if (fl1 & FIRST_MOD)
					fill_add(&g->fm, p, s->func[f->func].modrow, ev, 1, c, w);
			}
		}
	}
	g->nt = 0;
}

/* Each run's totals: the sum of its parts'. */
static void run_totals(struct ana_set *s, size_t ne)
{
	for (size_t p = 0; p < s->n_part; p++)
		for (size_t ev = 0; ev < s->n_ev; ev++) {
			size_t r = s->part[p].orun;
			s->rtot[r * s->n_ev + ev] += s->ptot[p * ne + ev];
			s->rtot_val[r * s->n_ev + ev] += s->o.weighted ? s->ptot_wt[p * ne + ev]
								      : (double)s->ptot[p * ne + ev];
		}
}

/* Sum every part (a repeat of a run or --by group) into its rows, one part
 * at a time, freeing its raw counts as soon as they are summed. */
int set_aggregate(struct ana_set *s)
{
	struct sum_state g;
	size_t freed = 0;
	int e = agg_begin(&g, s);

	for (uint32_t p = 0; !e && p < s->n_part; p++) {
		struct part *pt = &s->part[p];
		bool last = p + 1 == s->n_part;

		if (pt->n != pt->n_merged && (e = part_merge(s, pt)))
			break;
		agg_self(&g, p, pt);
		agg_raw_inclusive(&g, p, pt);
		agg_inclusive_rows(&g, p);
		if (fill_flush(&g.fs, p, last) || fill_flush(&g.ff, p, last) ||
		    fill_flush(&g.fl, p, last) || fill_flush(&g.fm, p, last)) {
			e = -ENOMEM;
			break;
		}
		freed += pt->cap * (sizeof(*pt->node) + sizeof(*pt->ev) + sizeof(*pt->cnt) +
				    (pt->wt ? sizeof(*pt->wt) : 0));
		part_free(pt);
		/* the raw counts were read before the sums were made, so what
		 * they leave is a hole inside the heap that the sums may not fit:
		 * give it back to the system */
		if (freed > (32u << 20)) {
			malloc_trim(0);
			freed = 0;
		}
	}
	if (!e)
		run_totals(s, g.ne);
	agg_end(&g);
	return e;
}

/* Symbolize the merged raw tree (each distinct address once, each module
 * opened once), build the symbolized tree with inlined frames as nodes of
 * their own, and sum self/inclusive counts per function, line, module and
 * tree node for every run repeat. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/internal.h"

int agg_alloc(struct agg *a, size_t n, size_t stride, bool weighted)
{
	size_t k = (n ? n : 1) * stride;
	for (int i = 0; i < 2; i++) {
		a->cnt[i] = calloc(k, sizeof(uint64_t));
		a->wt[i] = weighted ? calloc(k, sizeof(double)) : NULL;
		if (!a->cnt[i] || (weighted && !a->wt[i]))
			return -ENOMEM;
	}
	a->n = n;
	return 0;
}

void agg_free(struct agg *a)
{
	for (int i = 0; i < 2; i++) {
		free(a->cnt[i]);
		free(a->wt[i]);
	}
	memset(a, 0, sizeof(*a));
}

void set_free_symbols(struct ana_set *s)
{
	free(s->func);
	idx_free(&s->func_idx);
	free(s->line);
	idx_free(&s->line_idx);
	free(s->modrow);
	idx_free(&s->modrow_idx);
	free(s->frame);
	free(s->addr);
	idx_free(&s->addr_idx);
	free(s->sparent);
	free(s->sfunc);
	free(s->sfirst);
	free(s->snext);
	free(s->sinl);
	idx_free(&s->sym_idx);
	free(s->bu);
	free(s->bu_ent);
	free(s->bu_slot);
	free(s->bu_kfunc);
	free(s->bu_kcnt);
	free(s->bu_up);
	free(s->bu_mark);
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
	const char *name, *base;
};

static bool func_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct ana_set *s = ctx;
	const struct fkey *k = key;
	return s->func[id].name == k->name && s->func[id].base == k->base;
}

/* Functions are matched by module basename and name, across runs too. */
static int func_get(struct ana_set *s, const char *name, const char *base, const char *path,
		    const char *file, unsigned line, unsigned flags, uint32_t *out)
{
	struct fkey k = { name, base };
	uint64_t h = hash_u64((uintptr_t)name, (uintptr_t)base);
	uint32_t id = idx_find(&s->func_idx, h, func_eq, s, &k);
	if (id == NONE) {
		if (vec_reserve(&s->func, &s->cap_func, s->n_func + 1, sizeof(*s->func)))
			return -ENOMEM;
		id = (uint32_t)s->n_func;
		struct func *f = &s->func[id];
		*f = (struct func){ .name = name, .base = base, .path = path, .file = file,
				    .line = line, .flags = flags, .inl_caller = NONE };
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

static int sym_child(struct ana_set *s, uint32_t parent, uint32_t func, bool inl, uint32_t *out)
{
	struct skey k = { parent, func };
	uint64_t h = hash_u64(parent, func);
	uint32_t id = idx_find(&s->sym_idx, h, sym_eq, s, &k);
	if (id == NONE) {
		size_t c = s->cap_sym;
		if (vec_reserve(&s->sparent, &c, s->n_sym + 1, sizeof(uint32_t)) ||
		    (c = s->cap_sym, vec_reserve(&s->sfunc, &c, s->n_sym + 1, sizeof(uint32_t))) ||
		    (c = s->cap_sym, vec_reserve(&s->sfirst, &c, s->n_sym + 1, sizeof(uint32_t))) ||
		    (c = s->cap_sym, vec_reserve(&s->snext, &c, s->n_sym + 1, sizeof(uint32_t))) ||
		    (c = s->cap_sym, vec_reserve(&s->sinl, &c, s->n_sym + 1, sizeof(uint8_t))))
			return -ENOMEM;
		s->cap_sym = c;
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

/* Pairs (inlined function, caller) seen, to count distinct callers. */
struct inl_pairs {
	struct idx idx;
	uint64_t *v;
	size_t n, cap;
};

static bool pair_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct inl_pairs *p = ctx;
	return p->v[id] == *(const uint64_t *)key;
}

static int note_inlined(struct ana_set *s, struct inl_pairs *ip, uint32_t f, uint32_t caller)
{
	uint64_t k = (uint64_t)f << 32 | caller;
	uint64_t h = hash_u64(k, 11);
	if (idx_find(&ip->idx, h, pair_eq, ip, &k) != NONE)
		return 0;
	if (vec_reserve(&ip->v, &ip->cap, ip->n + 1, sizeof(*ip->v)) ||
	    idx_put(&ip->idx, h, (uint32_t)ip->n))
		return -ENOMEM;
	ip->v[ip->n++] = k;
	if (s->func[f].inl_caller == NONE)
		s->func[f].inl_caller = caller;
	s->func[f].inl_n++;
	return 0;
}

static int add_addr(struct ana_set *s, struct symtab *st, struct inl_pairs *ip, uint32_t mod,
		    uint64_t off, uint32_t *out)
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
	if (vec_reserve(&s->addr, &s->cap_addr, s->n_addr + 1, sizeof(*s->addr)) ||
	    vec_reserve(&s->frame, &s->cap_frame, s->n_frame + (n ? n : 1), sizeof(*s->frame)))
		return -ENOMEM;
	struct addr *a = &s->addr[s->n_addr];
	*a = (struct addr){ mod, off, (uint32_t)s->n_frame, (uint32_t)(n ? n : 1) };
	if (!n) {
		char buf[300];
		if (mod == PROF_NO_MODULE)
			snprintf(buf, sizeof(buf), "[unknown]");
		else
			snprintf(buf, sizeof(buf), "[%.200s+0x%llx]", base, (unsigned long long)off);
		const char *nm = strpool_str(&s->pool, buf);
		if (!nm || (base = strpool_str(&s->pool, base)) == NULL ||
		    (path = strpool_str(&s->pool, path)) == NULL)
			return -ENOMEM;
		struct frame *f = &s->frame[s->n_frame++];
		f->inlined = false;
		if (func_get(s, nm, base, path, NULL, 0, ANA_ROW_UNRESOLVED, &f->func) ||
		    line_get(s, f->func, NULL, 0, &f->line))
			return -ENOMEM;
	} else {
		for (size_t j = n; j-- > 0;) {
			struct frame *f = &s->frame[s->n_frame++];
			f->inlined = j < n - 1;
			if (func_get(s, fr[j].func, base, path, fr[j].decl_file, fr[j].decl_line, 0,
				     &f->func) ||
			    line_get(s, f->func, fr[j].file, fr[j].line, &f->line))
				return -ENOMEM;
			if (f->inlined && note_inlined(s, ip, f->func, f[-1].func))
				return -ENOMEM;
		}
	}
	*out = (uint32_t)s->n_addr++;
	return 0;
}

int set_symbolize(struct ana_set *s)
{
	struct symtab_opts so = { .debug_dirs = s->debug_dirs, .cache_dir = s->cache_dir,
				  .pool = &s->pool };
	struct symtab *st = symtab_new(&so);
	struct inl_pairs ip = { 0 };
	uint8_t *used = NULL;
	int e = -ENOMEM;
	if (!st)
		return -ENOMEM;
	/* open only modules some context points into (the load map also
	 * lists libraries no sample hit, the collector's own among them) */
	used = calloc(s->n_mod ? s->n_mod : 1, 1);
	if (!used)
		goto out;
	for (size_t r = 1; r < s->n_raw; r++)
		if (s->rmod[r] < s->n_mod)
			used[s->rmod[r]] = 1;
	for (size_t i = 0; i < s->n_mod; i++) {
		if (!used[i])
			continue;
		char msg[1024];
		enum ana_severity sev;
		int h = symtab_load(st, s->mod[i].path, s->mod[i].bid_len ? s->mod[i].bid : NULL,
				    s->mod[i].bid_len, msg, sizeof(msg), &sev);
		if (h < 0)
			goto out;
		s->mod[i].sym = h;
		if (msg[0])
			set_note(s, sev, -1, "%s", msg);
	}
	s->raddr = malloc(s->n_raw * sizeof(uint32_t));
	s->rsym = malloc(s->n_raw * sizeof(uint32_t));
	if (!s->raddr || !s->rsym)
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
			if (add_addr(s, st, &ip, k.mod, k.off, &a) || idx_put(&s->addr_idx, h, a))
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
		if (s->o.progress && (r & 0xffff) == 0)
			s->o.progress(s->o.progress_arg, "symbolize", r, s->n_raw);
	}
	/* samples taken with no stack at all still count, under a name */
	bool rooted = false;
	for (size_t p = 0; p < s->n_part; p++)
		for (size_t ev = 0; ev < s->part[p].n_ev; ev++)
			if (s->part[p].cnt[ev] && s->part[p].cnt[ev][0])
				rooted = true;
	if (rooted) {
		uint32_t f;
		const char *nm = strpool_str(&s->pool, "[no stack]");
		const char *un = strpool_str(&s->pool, "[unknown]");
		if (!nm || !un || func_get(s, nm, un, un, NULL, 0, ANA_ROW_UNRESOLVED, &f) ||
		    sym_child(s, 0, f, false, &s->nostack))
			goto out;
	}
	for (size_t f = 0; f < s->n_func; f++) {
		struct func *fn = &s->func[f];
		if (!fn->inl_n)
			continue;
		char buf[600];
		if (fn->inl_n == 1)
			snprintf(buf, sizeof(buf), "%s", s->func[fn->inl_caller].name);
		else
			snprintf(buf, sizeof(buf), "%.500s +%u more", s->func[fn->inl_caller].name,
				 fn->inl_n - 1);
		if (!(fn->inl_text = strpool_str(&s->pool, buf)))
			goto out;
	}
	e = 0;
out:
	free(used);
	idx_free(&ip.idx);
	free(ip.v);
	symtab_free(st);
	return e;
}

static inline void add(struct agg *a, int kind, size_t item, size_t stride, size_t k,
		       uint64_t c, double w)
{
	a->cnt[kind][item * stride + k] += c;
	if (a->wt[kind])
		a->wt[kind][item * stride + k] += w;
}

struct pair {
	size_t k;
	uint64_t c;
	double w;
};

int set_aggregate(struct ana_set *s)
{
	size_t np = s->n_part, ne = s->n_ev, stride = np * ne;
	bool wtd = s->o.weighted;
	s->stride = stride;
	struct pair *pairs = malloc((stride ? stride : 1) * sizeof(*pairs));
	uint32_t *fst = calloc(s->n_func ? s->n_func : 1, sizeof(uint32_t));
	uint32_t *lst = calloc(s->n_line ? s->n_line : 1, sizeof(uint32_t));
	uint32_t *mst = calloc(s->n_modrow ? s->n_modrow : 1, sizeof(uint32_t));
	int e = -ENOMEM;
	s->ptot = calloc(stride ? stride : 1, sizeof(uint64_t));
	s->ptot_wt = calloc(stride ? stride : 1, sizeof(double));
	s->rtot = calloc((s->n_orun ? s->n_orun : 1) * (ne ? ne : 1), sizeof(uint64_t));
	s->rtot_val = calloc((s->n_orun ? s->n_orun : 1) * (ne ? ne : 1), sizeof(double));
	if (!pairs || !fst || !lst || !mst || !s->ptot || !s->ptot_wt || !s->rtot || !s->rtot_val ||
	    agg_alloc(&s->a_func, s->n_func, stride, wtd) ||
	    agg_alloc(&s->a_line, s->n_line, stride, wtd) ||
	    agg_alloc(&s->a_mod, s->n_modrow, stride, wtd) ||
	    agg_alloc(&s->a_sym, s->n_sym, stride, wtd))
		goto out;

	for (uint32_t r = 0; r < s->n_raw; r++) {
		size_t n = 0;
		for (size_t p = 0; p < np; p++)
			for (size_t ev = 0; ev < ne; ev++) {
				uint64_t c = s->part[p].cnt[ev] ? s->part[p].cnt[ev][r] : 0;
				if (!c)
					continue;
				double w = s->part[p].wt ? s->part[p].wt[ev][r] : (double)c;
				pairs[n++] = (struct pair){ p * ne + ev, c, w };
			}
		if (!n)
			continue;
		uint32_t stamp = r + 1;
		uint32_t leaf_sym = r ? s->rsym[r] : s->nostack;
		uint32_t self_f = s->sfunc[leaf_sym];
		uint32_t self_l = NONE;
		if (r) {
			const struct addr *a = &s->addr[s->raddr[r]];
			self_l = s->frame[a->first + a->n - 1].line;
		}
		for (size_t i = 0; i < n; i++) {
			struct pair *q = &pairs[i];
			s->ptot[q->k] += q->c;
			s->ptot_wt[q->k] += q->w;
			add(&s->a_sym, 0, leaf_sym, stride, q->k, q->c, q->w);
			add(&s->a_func, 0, self_f, stride, q->k, q->c, q->w);
			add(&s->a_mod, 0, s->func[self_f].modrow, stride, q->k, q->c, q->w);
			if (self_l != NONE)
				add(&s->a_line, 0, self_l, stride, q->k, q->c, q->w);
		}
		/* inclusive: every function, line and module on the path, once */
		if (!r) {
			for (size_t i = 0; i < n; i++) {
				add(&s->a_func, 1, self_f, stride, pairs[i].k, pairs[i].c, pairs[i].w);
				add(&s->a_mod, 1, s->func[self_f].modrow, stride, pairs[i].k, pairs[i].c,
				    pairs[i].w);
			}
			continue;
		}
		for (uint32_t x = r; x; x = s->rparent[x]) {
			const struct addr *a = &s->addr[s->raddr[x]];
			for (uint32_t j = 0; j < a->n; j++) {
				const struct frame *f = &s->frame[a->first + j];
				uint32_t m = s->func[f->func].modrow;
				bool df = fst[f->func] != stamp, dl = lst[f->line] != stamp,
				     dm = mst[m] != stamp;
				fst[f->func] = lst[f->line] = mst[m] = stamp;
				for (size_t i = 0; i < n && (df || dl || dm); i++) {
					struct pair *q = &pairs[i];
					if (df)
						add(&s->a_func, 1, f->func, stride, q->k, q->c, q->w);
					if (dl)
						add(&s->a_line, 1, f->line, stride, q->k, q->c, q->w);
					if (dm)
						add(&s->a_mod, 1, m, stride, q->k, q->c, q->w);
				}
			}
		}
	}
	/* tree: inclusive = self + children's inclusive; children have larger ids */
	size_t bytes = s->n_sym * stride;
	memcpy(s->a_sym.cnt[1], s->a_sym.cnt[0], bytes * sizeof(uint64_t));
	if (wtd)
		memcpy(s->a_sym.wt[1], s->a_sym.wt[0], bytes * sizeof(double));
	for (size_t x = s->n_sym; x-- > 1;) {
		size_t p = s->sparent[x];
		for (size_t k = 0; k < stride; k++) {
			s->a_sym.cnt[1][p * stride + k] += s->a_sym.cnt[1][x * stride + k];
			if (wtd)
				s->a_sym.wt[1][p * stride + k] += s->a_sym.wt[1][x * stride + k];
		}
	}
	for (size_t p = 0; p < np; p++)
		for (size_t ev = 0; ev < ne; ev++) {
			size_t r = s->part[p].orun;
			s->rtot[r * ne + ev] += s->ptot[p * ne + ev];
			s->rtot_val[r * ne + ev] += wtd ? s->ptot_wt[p * ne + ev] : (double)s->ptot[p * ne + ev];
		}
	e = 0;
out:
	free(pairs);
	free(fst);
	free(lst);
	free(mst);
	return e;
}

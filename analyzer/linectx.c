/* Line contexts: the calling-context tree with the source line of every
 * frame (where the sample was, where each call and inlined call was made),
 * which the symbolized tree gives up (it merges a function's addresses).
 * Only pprof needs them, so they are built only on request
 * (ana_opts.line_contexts), from the raw tree and the parts' entries
 * before set_aggregate frees those. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/aggregate.h"
#include "analyzer/read.h"
#include "analyzer/set.h"

struct lkey {
	uint32_t parent, func, no, addr;
	uint8_t inl;
};

static bool lctx_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct ana_set *s = ctx;
	const struct lkey *k = key;
	return s->lparent[id] == k->parent && s->lfunc[id] == k->func && s->lno[id] == k->no &&
	       s->linl[id] == k->inl && s->laddr[id] == k->addr;
}

/* Each address is its own context (pprof's locations have addresses, for
 * its -disasm), its frames sharing it. */
static int lctx_child(struct ana_set *s, uint32_t parent, uint32_t func, uint32_t no, bool inl,
		      uint32_t addr, uint32_t *out)
{
	struct lkey k = { parent, func, no, addr, inl };
	uint64_t h = hash_u64(hash_u64(parent, func), hash_u64(((uint64_t)no << 1) | inl, addr));
	uint32_t id = s->n_lctx ? idx_find(&s->lctx_idx, h, lctx_eq, s, &k) : NONE;
	if (id == NONE) {
		size_t c = s->cap_lctx;
		if (s->n_lctx + 1 >= NONE ||
		    vec_reserve(&s->lparent, &c, s->n_lctx + 1, sizeof(uint32_t)) ||
		    (c = s->cap_lctx, vec_reserve(&s->lfunc, &c, s->n_lctx + 1, sizeof(uint32_t))) ||
		    (c = s->cap_lctx, vec_reserve(&s->lno, &c, s->n_lctx + 1, sizeof(uint32_t))) ||
		    (c = s->cap_lctx, vec_reserve(&s->laddr, &c, s->n_lctx + 1, sizeof(uint32_t))) ||
		    (c = s->cap_lctx, vec_reserve(&s->linl, &c, s->n_lctx + 1, sizeof(uint8_t))))
			return -ENOMEM;
		s->cap_lctx = c;
		id = (uint32_t)s->n_lctx++;
		s->lparent[id] = parent;
		s->lfunc[id] = func;
		s->lno[id] = no;
		s->linl[id] = inl;
		s->laddr[id] = addr;
		if (id && idx_put(&s->lctx_idx, h, id))
			return -ENOMEM;
	}
	*out = id;
	return 0;
}

static int lsample_cmp(const void *pa, const void *pb)
{
	const struct lsample *a = pa, *b = pb;
	int c = cmp_u64(a->run, b->run);

	if (!c)
		c = cmp_u64(a->node, b->node);
	return c ? c : cmp_u64(a->ev, b->ev);
}

int set_line_contexts(struct ana_set *s)
{
	if (!s->o.line_contexts)
		return 0;
	uint32_t *at = malloc((s->n_raw ? s->n_raw : 1) * sizeof(*at));
	uint32_t root, nostack = NONE;
	int e = -ENOMEM;
	if (!at || lctx_child(s, 0, NONE, 0, false, NONE, &root))
		goto out;
	at[0] = 0;
	/* raw nodes come parents first: one pass in id order */
	for (uint32_t r = 1; r < s->n_raw; r++) {
		const struct addr *a = &s->addr[s->raddr[r]];
		uint32_t cur = at[s->rparent[r]];
		for (uint32_t j = 0; j < a->n; j++) {
			const struct frame *f = &s->frame[a->first + j];
			if (lctx_child(s, cur, f->func, s->line[f->line].line, f->inlined, s->raddr[r],
				       &cur))
				goto out;
		}
		at[r] = cur;
	}
	if (s->nostack != NONE && lctx_child(s, 0, s->sfunc[s->nostack], 0, false, NONE, &nostack))
		goto out;
	size_t n = 0;
	for (size_t p = 0; p < s->n_part; p++)
		n += s->part[p].n;
	if (vec_reserve(&s->lsmp, &s->cap_lsmp, n ? n : 1, sizeof(*s->lsmp)))
		goto out;
	for (size_t p = 0; p < s->n_part; p++) {
		const struct part *pt = &s->part[p];
		for (size_t i = 0; i < pt->n; i++) {
			uint32_t r = pt->node[i];
			if ((s->o.dsos || s->o.symbols) &&
			    !func_kept(s, s->sfunc[r ? s->rsym[r] : s->nostack]))
				continue;	/* --dso, --symbols */
			s->lsmp[s->n_lsmp++] = (struct lsample){
				.run = pt->orun, .node = r ? at[r] : nostack, .ev = pt->ev[i],
				.cnt = pt->cnt[i], .wt = pt->wt ? pt->wt[i] : (double)pt->cnt[i],
			};
		}
	}
	/* one entry per (run, node, event): repeats and files summed */
	qsort(s->lsmp, s->n_lsmp, sizeof(*s->lsmp), lsample_cmp);
	size_t m = 0;
	for (size_t i = 0; i < s->n_lsmp; i++) {
		if (m && !lsample_cmp(&s->lsmp[m - 1], &s->lsmp[i])) {
			s->lsmp[m - 1].cnt += s->lsmp[i].cnt;
			s->lsmp[m - 1].wt += s->lsmp[i].wt;
		} else {
			s->lsmp[m++] = s->lsmp[i];
		}
	}
	s->n_lsmp = m;
	e = 0;
out:
	free(at);
	return e;
}

void set_free_line_contexts(struct ana_set *s)
{
	free(s->lparent);
	free(s->lfunc);
	free(s->lno);
	free(s->linl);
	free(s->laddr);
	s->laddr = NULL;
	idx_free(&s->lctx_idx);
	free(s->lsmp);
	s->lparent = s->lfunc = s->lno = NULL;
	s->linl = NULL;
	s->lsmp = NULL;
	s->n_lctx = s->cap_lctx = s->n_lsmp = s->cap_lsmp = 0;
}

/* Queries: turn the aggregates into sorted, filtered row sets; expand the
 * calling-context tree top-down and (lazily) bottom-up; callers/callees of
 * a function; the comparison of a row between a run and its base. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/query.h"
#include "analyzer/read.h"
#include "analyzer/set.h"
#include "analyzer/symbolize.h"

struct ana_rows {
	struct ana_set *s;
	struct ana_query q;
	size_t n, cap;
	struct ana_row *row;
	size_t nr, nc, ne, np;
	uint64_t *smp;			/* [row][run][event][kind] */
	double *val;			/* [row][run][column][kind] */
	uint64_t *psmp;			/* [row][part]: query event and kind, per repeat */
	double *key;			/* sort keys of rows key_from.., while sorting */
	size_t key_from;
	size_t *cev;			/* [run]: the event it is compared and filtered
					 * on (compare mode: ana_set_run_event) */
	bool fdr_done;			/* fdr_cut is known */
	double fdr_level, fdr_cut;	/* Benjamini-Hochberg: flag p <= fdr_cut */
	size_t fdr_m;			/* comparisons it was controlled over */
};

/* What a view sorts, filters and compares on.  A top-down tree splits
 * inclusive cost among callees; a bottom-up tree splits a function's own
 * (self) cost among its callers, so that the hottest functions come first. */
static enum ana_kind qkind(const struct ana_query *q)
{
	if (q->view == ANA_VIEW_TOPDOWN)
		return ANA_INCL;
	return q->view == ANA_VIEW_BOTTOMUP ? ANA_SELF : q->kind;
}

static struct ana_rows *rows_new(struct ana_set *s, const struct ana_query *q)
{
	struct ana_rows *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->s = s;
	r->q = *q;
	r->nr = s->n_orun;
	r->ne = s->n_ev;
	r->nc = s->n_ev + s->n_metric;
	r->np = s->n_part;
	if (!(r->cev = malloc((r->nr ? r->nr : 1) * sizeof(*r->cev)))) {
		free(r);
		return NULL;
	}
	for (size_t run = 0; run < r->nr; run++) {
		int e = q->base >= 0 ? ana_set_run_event(s, (unsigned)run, q->event) : -1;
		r->cev[run] = e >= 0 ? (size_t)e : q->event;
	}
	return r;
}

void ana_rows_free(struct ana_rows *r)
{
	if (!r)
		return;
	FREE_EACH(r->row, r->smp, r->val, r->psmp, r->key, r->cev, r);
}

static int rows_reserve(struct ana_rows *r, size_t n)
{
	if (n <= r->cap)
		return 0;
	size_t cap = r->cap ? r->cap * 2 : 64;
	while (cap < n)
		cap *= 2;
	struct ana_row *row = realloc(r->row, cap * sizeof(*row));
	if (row)
		r->row = row;
	uint64_t *smp = realloc(r->smp, cap * r->nr * (r->ne ? r->ne : 1) * 2 * sizeof(*smp));
	if (smp)
		r->smp = smp;
	double *val = realloc(r->val, cap * r->nr * (r->nc ? r->nc : 1) * 2 * sizeof(*val));
	if (val)
		r->val = val;
	uint64_t *psmp = realloc(r->psmp, cap * (r->np ? r->np : 1) * sizeof(*psmp));
	if (psmp)
		r->psmp = psmp;
	if (!row || !smp || !val || !psmp)
		return -ENOMEM;
	r->cap = cap;
	return 0;
}

#define SMP(r, i, run, ev, k) (r)->smp[((((i) * (r)->nr + (run)) * (r)->ne + (ev)) * 2) + (k)]
#define VAL(r, i, run, c, k) (r)->val[((((i) * (r)->nr + (run)) * (r)->nc + (c)) * 2) + (k)]

/* Append a row with the sums of item in a, over the parts of each run. */
static int rows_push(struct ana_rows *r, const struct ana_row *desc, const struct agg *a, size_t item)
{
	const struct ana_set *s = r->s;
	if (rows_reserve(r, r->n + 1))
		return -ENOMEM;
	size_t i = r->n++;
	r->row[i] = *desc;
	for (size_t run = 0; run < r->nr; run++)
		for (size_t ev = 0; ev < r->ne; ev++)
			for (int k = 0; k < 2; k++) {
				SMP(r, i, run, ev, k) = 0;
				VAL(r, i, run, ev, k) = 0;
			}
	enum ana_kind qk = qkind(&r->q);
	for (size_t p = 0; p < r->np; p++) {
		size_t run = s->part[p].orun;
		long at = agg_at(a, p, item);
		r->psmp[i * r->np + p] = 0;
		if (at < 0)
			continue;
		const uint64_t *c = agg_cnt(a, p, at);
		const double *w = agg_wt(a, p, at);
		for (size_t ev = 0; ev < r->ne; ev++)
			for (int k = 0; k < 2; k++) {
				SMP(r, i, run, ev, k) += c[ev * 2 + k];
				VAL(r, i, run, ev, k) += w ? w[ev * 2 + k] : (double)c[ev * 2 + k];
			}
		if (r->q.event < r->ne)
			r->psmp[i * r->np + p] = c[r->cev[run] * 2 + qk];
	}
	/* metrics see every column before them, events and earlier metrics */
	for (size_t run = 0; run < r->nr; run++)
		for (int k = 0; k < 2; k++) {
			double v[r->nc ? r->nc : 1];
			for (size_t c = 0; c < r->ne; c++)
				v[c] = VAL(r, i, run, c, k);
			for (size_t m = 0; m < s->n_metric; m++)
				v[r->ne + m] = VAL(r, i, run, r->ne + m, k) = metric_eval(s->metric[m], v);
		}
	return 0;
}

static void rows_copy(struct ana_rows *d, size_t di, const struct ana_rows *s, size_t si)
{
	d->row[di] = s->row[si];
	size_t ks = s->nr * s->ne * 2, kv = s->nr * s->nc * 2;
	memmove(&d->smp[di * ks], &s->smp[si * ks], ks * sizeof(*d->smp));
	memmove(&d->val[di * kv], &s->val[si * kv], kv * sizeof(*d->val));
	memmove(&d->psmp[di * s->np], &s->psmp[si * s->np], s->np * sizeof(*d->psmp));
}

double ana_rows_pct(const struct ana_rows *r, size_t i, unsigned run, size_t ev, enum ana_kind k)
{
	if (i >= r->n || run >= r->nr || ev >= r->ne)
		return NAN;
	double t = r->s->rtot_val[run * r->ne + ev];
	return t > 0 ? 100.0 * VAL(r, i, run, ev, k != ANA_SELF) / t : NAN;
}

double ana_rows_value(const struct ana_rows *r, size_t i, unsigned run, size_t ev, enum ana_kind k)
{
	if (i >= r->n || run >= r->nr || ev >= r->nc)
		return NAN;
	return VAL(r, i, run, ev, k != ANA_SELF);
}

uint64_t ana_rows_samples(const struct ana_rows *r, size_t i, unsigned run, size_t ev, enum ana_kind k)
{
	if (i >= r->n || run >= r->nr || ev >= r->ne)
		return 0;
	return SMP(r, i, run, ev, k != ANA_SELF);
}

size_t ana_rows_n(const struct ana_rows *r)
{
	return r->n;
}

const struct ana_row *ana_rows_row(const struct ana_rows *r, size_t i)
{
	return i < r->n ? &r->row[i] : NULL;
}

const struct ana_query *rows_query(const struct ana_rows *r)
{
	return &r->q;
}

struct ana_set *rows_set(const struct ana_rows *r)
{
	return r->s;
}

size_t rows_event(const struct ana_rows *r, unsigned run)
{
	return run < r->nr ? r->cev[run] : r->q.event;
}

/* Row i of run against the base, each interval on its own. */
static int cmp_one(const struct ana_rows *r, size_t i, unsigned run, struct ana_cmp *out)
{
	const struct ana_query *q = &r->q;
	if (q->base < 0)
		return -ANA_ESTATE;
	if (i >= r->n || run >= r->nr || q->event >= r->ne)
		return -EINVAL;
	const struct ana_set *s = r->s;
	int k = qkind(q) != ANA_SELF;
	/* each run on its own event: a fallback or another backend */
	size_t b = (size_t)q->base, ev = r->cev[run], bev = r->cev[b];
	/* each repeat's share (raw: count) of the row, both sides */
	double ra[r->np ? r->np : 1], rb[r->np ? r->np : 1];
	size_t nra = 0, nrb = 0;
	for (size_t p = 0; p < r->np; p++) {
		size_t o = s->part[p].orun, e = o == run ? ev : bev;
		if ((o != run && o != b) || !s->ptot[p * r->ne + e])
			continue;
		double x = (double)r->psmp[i * r->np + p];
		if (q->ratio != ANA_RATIO_RAW)
			x /= (double)s->ptot[p * r->ne + e];
		if (o == run)
			ra[nra++] = x;
		else
			rb[nrb++] = x;
	}
	struct ratio_in in = {
		.mode = q->ratio,
		.a = (double)SMP(r, i, run, ev, k), .A = (double)s->rtot[run * r->ne + ev],
		.b = (double)SMP(r, i, b, bev, k), .B = (double)s->rtot[b * r->ne + bev],
		.va = VAL(r, i, run, ev, k), .vA = s->rtot_val[run * r->ne + ev],
		.vb = VAL(r, i, b, bev, k), .vB = s->rtot_val[b * r->ne + bev],
		.na = s->orun[run].n_repeats, .nb = s->orun[b].n_repeats,
		.conf = q->conf,
		/* the base against itself has no spread of its own to add */
		.ra = ra, .nra = run == b ? 0 : nra, .rb = rb, .nrb = run == b ? 0 : nrb,
		.la = s->orun[run].pub.loss_scale, .lb = s->orun[b].pub.loss_scale,
	};
	ratio_compute(&in, out);
	out->per_row = out->significant;
	/* Lines against an emulated run: an emulator moves samples between
	 * neighbouring lines, so an interval excluding 1 proves nothing there. */
	out->withheld = false;
	if (q->view == ANA_VIEW_LINES && out->significant &&
	    ((s->orun[run].pub.trust | s->orun[b].pub.trust) & ANA_TRUST_EMULATED)) {
		out->significant = false;
		out->withheld = true;
	}
	/* spread between repeats: coefficient of variation of the share */
	double sum = 0, sq = 0;
	size_t n = 0;
	for (size_t p = 0; p < r->np; p++) {
		if (s->part[p].orun != run || !s->ptot[p * r->ne + ev])
			continue;
		double sh = (double)r->psmp[i * r->np + p] / (double)s->ptot[p * r->ne + ev];
		sum += sh;
		sq += sh * sh;
		n++;
	}
	out->spread = NAN;
	if (n >= 2 && sum > 0) {
		double mean = sum / (double)n;
		double var = (sq - (double)n * mean * mean) / (double)(n - 1);
		out->spread = sqrt(var > 0 ? var : 0) / mean;
	}
	return 0;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Benjamini-Hochberg over every row x compared run of the set: the
 * largest p(k) with p(k) <= k/m x level is the cut. */
static int fdr_prepare(struct ana_rows *r)
{
	const struct ana_query *q = &r->q;
	double conf = q->conf > 0 && q->conf < 1 ? q->conf : 0.95;
	r->fdr_done = true;
	r->fdr_level = q->fdr < 0 ? 0 : q->fdr > 0 ? q->fdr : 1 - conf;
	r->fdr_cut = INFINITY;
	r->fdr_m = 0;
	if (!r->fdr_level)
		return 0;
	size_t cap = r->n * (r->nr ? r->nr : 1);
	double *p = malloc((cap ? cap : 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < r->n; i++)
		for (unsigned run = 0; run < r->nr; run++) {
			struct ana_cmp c;
			if (run == (unsigned)q->base || cmp_one(r, i, run, &c) ||
			    c.presence == ANA_IN_NEITHER)
				continue;
			p[r->fdr_m++] = c.p;
		}
	qsort(p, r->fdr_m, sizeof(*p), dbl_cmp);
	r->fdr_cut = -1;
	for (size_t k = 0; k < r->fdr_m; k++)
		if (p[k] <= (double)(k + 1) / (double)r->fdr_m * r->fdr_level)
			r->fdr_cut = p[k];
	free(p);
	return 0;
}

int ana_rows_compare(const struct ana_rows *r, size_t i, unsigned run, struct ana_cmp *out)
{
	int e = cmp_one(r, i, run, out);
	if (e)
		return e;
	/* the cut is a property of the finished row set: computed once */
	struct ana_rows *w = (struct ana_rows *)r;
	if (!r->fdr_done && (e = fdr_prepare(w)))
		return e;
	if (r->fdr_level > 0)
		out->significant = out->significant && out->p <= r->fdr_cut;
	return 0;
}

double ana_rows_fdr(const struct ana_rows *r, size_t *m)
{
	if (!r->fdr_done && r->q.base >= 0)
		fdr_prepare((struct ana_rows *)r);
	if (m)
		*m = r->fdr_m;
	return r->fdr_level;
}

/* ---- filtering and sorting ---- */

static double pct_of(const struct ana_rows *r, size_t i, size_t run)
{
	size_t ev = r->q.event;
	if (ev >= r->ne)
		return VAL(r, i, run, ev, qkind(&r->q) != ANA_SELF);
	return ana_rows_pct(r, i, (unsigned)run, r->cev[run], qkind(&r->q));
}

static bool keep(const struct ana_rows *r, size_t i)
{
	const struct ana_query *q = &r->q;
	bool any = false, enough = !q->min_samples, big = !(q->min_pct > 0);
	int k = qkind(q) != ANA_SELF;
	for (size_t run = 0; run < r->nr; run++) {
		/* a comparison needs samples of the compared kind somewhere */
		if (q->base >= 0)
			any |= SMP(r, i, run, r->cev[run], k) != 0;
		else
			for (size_t ev = 0; ev < r->ne; ev++)
				any |= SMP(r, i, run, ev, 0) || SMP(r, i, run, ev, 1);
		if (q->event < r->ne && SMP(r, i, run, r->cev[run], k) >= q->min_samples)
			enough = true;
		if (!big && q->event < r->ne && pct_of(r, i, run) >= q->min_pct)
			big = true;
	}
	if (q->base >= 0 && q->min_pct_base > 0 && q->event < r->ne &&
	    !(pct_of(r, i, (size_t)q->base) >= q->min_pct_base))
		return false;
	if (q->space != ANA_SPACE_ALL) {
		const struct ana_row *row = &r->row[i];
		bool kernel = !strncmp(row->name, "[k] ", 4) ||
			      (row->module && kallsyms_is_kernel(row->module));
		if (kernel != (q->space == ANA_SPACE_KERNEL))
			return false;
	}
	return any && enough && big;
}

static double sort_key(const struct ana_rows *r, size_t i)
{
	const struct ana_query *q = &r->q;
	double best = -INFINITY;
	for (size_t run = 0; run < r->nr; run++) {
		double v;
		if (q->sort == ANA_SORT_RATIO && q->base >= 0) {
			if (run == (size_t)q->base)
				continue;
			struct ana_cmp c;
			if (cmp_one(r, i, (unsigned)run, &c))
				continue;
			v = q->ratio == ANA_RATIO_DELTA ? fabs(c.ratio)
				: c.ratio == 0 || isinf(c.ratio) ? INFINITY : fabs(log(c.ratio));
			if (c.significant)
				v += 1e6;	/* significant rows first */
		} else {
			v = pct_of(r, i, run);
		}
		if (!isnan(v) && v > best)
			best = v;
	}
	return best;
}

static const struct ana_rows *sorting;
static int row_cmp(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	const struct ana_rows *r = sorting;
	double ka = r->key[a - r->key_from], kb = r->key[b - r->key_from];
	if (r->q.sort != ANA_SORT_NAME && ka != kb)
		return ka > kb ? -1 : 1;
	const struct ana_row *x = &r->row[a], *y = &r->row[b];
	int c = strcmp(x->name, y->name);
	if (!c && x->module && y->module)
		c = strcmp(x->module, y->module);
	if (!c && x->line != y->line)
		c = x->line < y->line ? -1 : 1;
	if (!c)
		c = a < b ? -1 : a > b;
	return c;
}

/* Filter, sort and cut r in place (rows from `from` on). */
static int rows_finish(struct ana_rows *r, size_t from)
{
	size_t n = r->n - from;
	size_t *ord = malloc((n ? n : 1) * sizeof(*ord));
	double *key = realloc(r->key, (n ? n : 1) * sizeof(*key));
	if (!ord || !key) {
		free(ord);
		if (key)
			r->key = key;
		return -ENOMEM;
	}
	r->key = key;
	r->key_from = from;
	size_t m = 0;
	for (size_t i = from; i < r->n; i++)
		if (keep(r, i)) {
			ord[m++] = i;
			key[i - from] = sort_key(r, i);
		}
	sorting = r;
	qsort(ord, m, sizeof(*ord), row_cmp);
	if (r->q.top && m > r->q.top)
		m = r->q.top;
	/* gather into a scratch copy, then back */
	struct ana_rows tmp = *r;
	tmp.row = NULL;
	tmp.smp = NULL;
	tmp.val = NULL;
	tmp.psmp = NULL;
	tmp.cap = tmp.n = 0;
	if (rows_reserve(&tmp, m ? m : 1)) {
		free(tmp.row);
		free(tmp.smp);
		free(tmp.val);
		free(tmp.psmp);
		free(ord);
		return -ENOMEM;
	}
	for (size_t j = 0; j < m; j++)
		rows_copy(&tmp, j, r, ord[j]);
	for (size_t j = 0; j < m; j++)
		rows_copy(r, from + j, &tmp, j);
	r->n = from + m;
	r->fdr_done = false;	/* other rows: rank them again */
	free(tmp.row);
	free(tmp.smp);
	free(tmp.val);
	free(tmp.psmp);
	free(ord);
	return 0;
}

/* ---- views ---- */

static struct ana_row func_row(const struct ana_set *s, uint32_t f)
{
	const struct func *fn = &s->func[f];
	return (struct ana_row){ .name = fn->name, .module = fn->path, .file = fn->file,
				 .line = fn->line, .inlined_into = fn->inl_text, .node = f,
				 .flags = fn->flags,
				 .inlined_into_all = fn->inl_n ? &fn->inl_name : NULL,
				 .n_inlined_into = fn->inl_n };
}

int funcs_match(const struct ana_set *s, const struct ana_query *q, uint8_t *is)
{
	size_t n = 0;
	if (!q->func) {
		if (q->node >= s->n_func)
			return 0;
		is[q->node] = 1;
		return 1;
	}
	/* "module:name": the first ':' that is not half of a C++ "::"
	 * ("libx.so:ns::f") */
	const char *colon = q->func;
	while ((colon = strchr(colon, ':')) && colon[1] == ':')
		colon += 2;
	for (size_t f = 0; f < s->n_func; f++) {
		const struct func *fn = &s->func[f];
		/* the shown name, or the linkage name (mangled) */
		bool m = !strcmp(fn->name, q->func) || !strcmp(fn->key, q->func);
		if (!m && colon && colon > q->func)
			m = (!strcmp(fn->name, colon + 1) || !strcmp(fn->key, colon + 1)) &&
			    strlen(fn->base) == (size_t)(colon - q->func) &&
			    !strncmp(fn->base, q->func, (size_t)(colon - q->func));
		if (m) {
			is[f] = 1;
			n++;
		}
	}
	return (int)n;
}

static int flat(struct ana_rows *r)
{
	struct ana_set *s = r->s;
	switch (r->q.view) {
	case ANA_VIEW_FUNCS:
		for (uint32_t f = 0; f < s->n_func; f++) {
			struct ana_row d = func_row(s, f);
			if (rows_push(r, &d, &s->a_func, f))
				return -ENOMEM;
		}
		break;
	case ANA_VIEW_LINES: {
		/* query.func: one function's lines (the viewer's per-line
		 * section; report --lines --function) */
		uint8_t *is = NULL;
		if (r->q.func) {
			if (!(is = calloc(s->n_func ? s->n_func : 1, 1)))
				return -ENOMEM;
			if (!funcs_match(s, &r->q, is)) {
				free(is);
				return -ANA_ENOFUNC;
			}
		}
		for (uint32_t l = 0; l < s->n_line; l++) {
			const struct line *ln = &s->line[l];
			if (is && !is[ln->func])
				continue;
			struct ana_row d = func_row(s, ln->func);
			d.file = ln->file;
			d.line = ln->line;
			d.inlined_into = NULL;
			d.inlined_into_all = NULL;
			d.n_inlined_into = 0;
			if (rows_push(r, &d, &s->a_line, l)) {
				free(is);
				return -ENOMEM;
			}
		}
		free(is);
		break;
	}
	default:
		for (uint32_t m = 0; m < s->n_modrow; m++) {
			struct ana_row d = { .name = s->modrow[m].base, .module = s->modrow[m].path,
					     .node = m };
			if (rows_push(r, &d, &s->a_mod, m))
				return -ENOMEM;
		}
	}
	return rows_finish(r, 0);
}

static unsigned sym_depth(const struct ana_set *s, uint32_t x)
{
	unsigned d = 0;
	for (; x; x = s->sparent[x])
		d++;
	return d;
}

/* Appends node's children at depth to r, filtered, sorted and cut. */
typedef int (*kids_fn)(struct ana_rows *r, uint32_t node, unsigned depth);

/* Moves rows [from, r->n) of r onto the stack p, last row first. */
static int rows_stack(struct ana_rows *p, struct ana_rows *r, size_t from)
{
	if (rows_reserve(p, p->n + (r->n - from)))
		return -ENOMEM;
	for (size_t j = r->n; j-- > from;)
		rows_copy(p, p->n++, r, j);
	r->n = from;
	return 0;
}

/* node's subtree, `levels` levels deep, depth first.  The rows still to be
 * shown wait on an explicit stack, so a profile's depth decides the size
 * of a heap array, never the depth of the C stack.  With only_expandable,
 * rows without ANA_ROW_EXPANDABLE are not descended. */
static int rows_tree(struct ana_rows *r, uint32_t node, unsigned depth, unsigned levels,
		     kids_fn kids, bool only_expandable)
{
	size_t from = r->n;
	int e = kids(r, node, depth);

	if (e || levels <= 1)
		return e;
	struct ana_rows *pend = rows_new(r->s, &r->q);
	if (!pend || rows_stack(pend, r, from)) {
		ana_rows_free(pend);
		return -ENOMEM;
	}
	while (pend->n && !e) {
		if (rows_reserve(r, r->n + 1)) {
			e = -ENOMEM;
			break;
		}
		rows_copy(r, r->n++, pend, --pend->n);
		const struct ana_row *x = &r->row[r->n - 1];
		unsigned below = x->depth - depth;	/* levels above x within this query */
		if (below + 1 >= levels || (only_expandable && !(x->flags & ANA_ROW_EXPANDABLE)))
			continue;
		size_t at = r->n;
		e = kids(r, x->node, x->depth + 1);
		if (!e)
			e = rows_stack(pend, r, at);
	}
	ana_rows_free(pend);
	return e;
}

static int topdown_kids(struct ana_rows *r, uint32_t node, unsigned depth)
{
	struct ana_set *s = r->s;
	size_t from = r->n;
	for (uint32_t c = s->sfirst[node]; c != NONE; c = s->snext[c]) {
		struct ana_row d = func_row(s, s->sfunc[c]);
		d.inlined_into = NULL;
		d.inlined_into_all = NULL;
		d.n_inlined_into = 0;
		d.node = c;
		d.depth = depth;
		d.flags = (s->func[s->sfunc[c]].flags & ANA_ROW_UNRESOLVED) |
			  (s->sinl[c] ? ANA_ROW_INLINED : 0) |
			  (s->sfirst[c] != NONE ? ANA_ROW_EXPANDABLE : 0);
		if (rows_push(r, &d, &s->a_sym, c))
			return -ENOMEM;
	}
	return rows_finish(r, from);
}

/* ---- bottom-up: an inverted tree of call chains, expanded on demand ---- */

/* Entries (occurrence, cursor) held by all expanded bottom-up nodes at most:
 * a recursion N deep has about N^2/2 of them when fully expanded, so a
 * small hostile profile could ask for billions.  Past this (64 MiB of
 * entries) nodes stay unexpanded and the set gets a note. */
#define BU_MAX_ENTRIES ((size_t)1 << 23)

/* Room for n more nodes and their counts (zeroed). */
static int bu_reserve(struct ana_set *s, size_t n)
{
	size_t need = s->n_bu + n;
	if (need >= NONE)
		return -ENOMEM;
	if (vec_reserve(&s->bu, &s->cap_bu, need, sizeof(*s->bu)))
		return -ENOMEM;
	if (!s->a_bu.p && agg_alloc(&s->a_bu, 0, s->n_part, s->n_ev, s->o.weighted))
		return -ENOMEM;
	if (need > s->cap_a_bu) {
		size_t cap = s->cap_a_bu ? s->cap_a_bu : 1024;
		while (cap < need)
			cap *= 2;
		if (agg_grow(&s->a_bu, cap))
			return -ENOMEM;
		s->cap_a_bu = cap;
	}
	return 0;
}

static bool has_samples(const struct ana_set *s, int kind, uint32_t x)
{
	for (size_t p = 0; p < s->n_part; p++) {
		long at = agg_at(&s->a_sym, p, x);
		const uint64_t *c = at < 0 ? NULL : agg_cnt(&s->a_sym, p, at);
		for (size_t ev = 0; c && ev < s->n_ev; ev++)
			if (c[ev * 2 + kind])
				return true;
	}
	return false;
}

static bool has_self(const struct ana_set *s, uint32_t x)
{
	return has_samples(s, 0, x);
}

/* Entry i of b as (occurrence of the root function, cursor one level up);
 * false if it has no caller left (at the root: if nothing was sampled
 * there or below). */
static bool bu_entry(const struct ana_set *s, uint32_t b, size_t i, uint32_t *occ, uint32_t *cur)
{
	if (!b) {
		*occ = *cur = (uint32_t)i;
		return i && has_samples(s, 1, (uint32_t)i);
	}
	const uint32_t *e = &s->bu_ent[2 * (s->bu[b].ent + i)];
	*occ = e[0];
	*cur = s->sparent[e[1]];
	return *cur != 0;
}

/* s->bu_up[x]: the nearest proper ancestor of x with x's function, or NONE
 * (one depth-first walk, remembering the last node of each function on
 * the path). */
static int bu_index_recursion(struct ana_set *s)
{
	uint32_t *last = malloc((s->n_func ? s->n_func : 1) * sizeof(*last));
	s->bu_up = malloc((s->n_sym ? s->n_sym : 1) * sizeof(*s->bu_up));
	s->bu_mark = malloc((s->n_sym ? s->n_sym : 1) * sizeof(*s->bu_mark));
	if (!last || !s->bu_up || !s->bu_mark) {
		free(last);
		return -ENOMEM;
	}
	memset(last, 0xff, (s->n_func ? s->n_func : 1) * sizeof(*last));	/* NONE */
	memset(s->bu_mark, 0xff, (s->n_sym ? s->n_sym : 1) * sizeof(*s->bu_mark));
	s->bu_up[0] = NONE;
	uint32_t x = s->sfirst[0];
	while (x != NONE) {
		s->bu_up[x] = last[s->sfunc[x]];
		last[s->sfunc[x]] = x;
		if (s->sfirst[x] != NONE) {
			x = s->sfirst[x];
			continue;
		}
		/* leave x and every ancestor whose children are all done */
		for (;;) {
			last[s->sfunc[x]] = s->bu_up[x];
			if (s->snext[x] != NONE) {
				x = s->snext[x];
				break;
			}
			x = s->sparent[x];
			if (!x) {
				x = NONE;
				break;
			}
		}
	}
	free(last);
	return 0;
}

/* Add occurrence x to node b: its self samples, and its inclusive ones
 * unless an outer occurrence on x's own path is an entry of b too (a
 * recursive function's samples count once, as in the flat views). */
static void bu_count(struct ana_set *s, uint32_t b, uint32_t x)
{
	bool incl = true;
	for (uint32_t y = s->bu_up[x]; y != NONE && incl; y = s->bu_up[y])
		incl = s->bu_mark[y] != b;
	for (size_t p = 0; p < s->n_part; p++) {
		long at = agg_at(&s->a_sym, p, x);
		if (at < 0)
			continue;
		const uint64_t *c = agg_cnt(&s->a_sym, p, at);
		const double *w = agg_wt(&s->a_sym, p, at);
		uint64_t *dc = agg_cnt(&s->a_bu, p, b);
		double *dw = agg_wt(&s->a_bu, p, b);
		for (size_t k = 0; k < 2 * s->n_ev; k++) {
			if ((k & 1) && !incl)
				continue;
			dc[k] += c[k];
			if (dw)
				dw[k] += w[k];
		}
	}
}

/* Children of b: b's (occurrence, cursor) pairs grouped by the cursor's
 * caller.  Two passes, counting then placing, so that the children and all their
 * entries are appended in one piece: repeated growth of many small arrays
 * fragments the heap far beyond what it holds. */
static int bu_expand(struct ana_set *s, uint32_t b)
{
	if (!s->n_bu) {
		if (bu_reserve(s, 1))
			return -ENOMEM;
		s->bu[0] = (struct bunode){ .func = NONE };
		s->n_bu = 1;
		s->a_bu.n = 1;
	}
	if (s->bu[b].expanded)
		return 0;
	if (!s->bu_up && bu_index_recursion(s))
		return -ENOMEM;
	if (!s->bu_slot) {
		size_t nf = s->n_func ? s->n_func : 1;
		s->bu_slot = malloc(nf * sizeof(uint32_t));
		s->bu_kfunc = malloc(nf * sizeof(uint32_t));
		s->bu_kcnt = malloc(nf * sizeof(uint32_t));
		if (!s->bu_slot || !s->bu_kfunc || !s->bu_kcnt)
			return -ENOMEM;
		memset(s->bu_slot, 0xff, nf * sizeof(uint32_t));	/* NONE */
	}
	size_t n = b ? s->bu[b].n_ent : s->n_sym, total = 0;
	uint32_t nk = 0, occ, cur;
	for (size_t i = 0; i < n; i++) {
		if (!bu_entry(s, b, i, &occ, &cur))
			continue;
		uint32_t f = s->sfunc[cur];
		if (s->bu_slot[f] == NONE) {
			s->bu_slot[f] = nk;
			s->bu_kfunc[nk] = f;
			s->bu_kcnt[nk++] = 0;
		}
		s->bu_kcnt[s->bu_slot[f]]++;
		total++;
	}
	int e = -ENOMEM;
	if (b && s->n_bu_ent - s->bu_root_ent + total > BU_MAX_ENTRIES) {
		e = -E2BIG;
		goto out;
	}
	if (s->n_bu_ent + total >= NONE || bu_reserve(s, nk) ||
	    vec_reserve(&s->bu_ent, &s->cap_bu_ent, 2 * (s->n_bu_ent + total), sizeof(uint32_t)))
		goto out;
	uint32_t kid0 = (uint32_t)s->n_bu;
	uint32_t at = (uint32_t)s->n_bu_ent;
	for (uint32_t j = 0; j < nk; j++) {
		s->bu[kid0 + j] = (struct bunode){ .parent = b, .func = s->bu_kfunc[j], .ent = at };
		at += s->bu_kcnt[j];
	}
	s->n_bu += nk;
	s->a_bu.n = s->n_bu;
	s->n_bu_ent += total;
	for (size_t i = 0; i < n; i++) {
		if (!bu_entry(s, b, i, &occ, &cur))
			continue;
		uint32_t k = kid0 + s->bu_slot[s->sfunc[cur]];
		struct bunode *kn = &s->bu[k];
		uint32_t *pe = &s->bu_ent[2 * (kn->ent + kn->n_ent++)];
		pe[0] = occ;
		pe[1] = cur;
		s->bu_mark[occ] = k;
		kn->expandable |= s->sparent[cur] != 0;
	}
	/* counted once all entries are marked (bu_count looks for outer ones) */
	for (uint32_t k = kid0; k < kid0 + nk; k++)
		for (uint32_t i = 0; i < s->bu[k].n_ent; i++)
			bu_count(s, k, s->bu_ent[2 * (s->bu[k].ent + i)]);
	s->bu[b].kid0 = kid0;
	s->bu[b].n_kids = nk;
	s->bu[b].expanded = true;
	if (!b)
		s->bu_root_ent = s->n_bu_ent;
	e = 0;
out:
	for (uint32_t j = 0; j < nk; j++)
		s->bu_slot[s->bu_kfunc[j]] = NONE;
	return e;
}

static int bottomup_kids(struct ana_rows *r, uint32_t b, unsigned depth)
{
	struct ana_set *s = r->s;
	int e = bu_expand(s, b);
	if (e == -E2BIG && b) {
		if (!s->bu_cut)
			set_note(s, ANA_NOTE_WARN, -1,
				 "bottom-up tree cut: more than %zu caller paths (deep recursion); "
				 "use --depth to see fewer levels", BU_MAX_ENTRIES);
		s->bu_cut = true;
		return 0;
	}
	if (e)
		return e;
	size_t from = r->n;
	for (uint32_t j = 0; j < s->bu[b].n_kids; j++) {
		uint32_t k = s->bu[b].kid0 + j;
		struct ana_row d = func_row(s, s->bu[k].func);
		d.inlined_into = NULL;
		d.inlined_into_all = NULL;
		d.n_inlined_into = 0;
		d.node = k;
		d.depth = depth;
		d.flags = (d.flags & ANA_ROW_UNRESOLVED) | (s->bu[k].expandable ? ANA_ROW_EXPANDABLE : 0);
		if (rows_push(r, &d, &s->a_bu, k))
			return -ENOMEM;
	}
	return rows_finish(r, from);
}

static unsigned bu_depth(const struct ana_set *s, uint32_t b)
{
	unsigned d = 0;
	for (; b; b = s->bu[b].parent)
		d++;
	return d;
}

/* ---- callers and callees of a function ---- */

static int relatives(struct ana_rows *r)
{
	struct ana_set *s = r->s;
	bool callers = r->q.view == ANA_VIEW_CALLERS;
	uint8_t *is = calloc(s->n_func ? s->n_func : 1, 1);
	uint32_t *stamp = calloc(s->n_func ? s->n_func : 1, sizeof(uint32_t));
	struct agg a = { 0 };
	int e = -ENOMEM;
	if (!is || !stamp || agg_alloc(&a, s->n_func, s->n_part, s->n_ev, s->o.weighted))
		goto out;
	if (!funcs_match(s, &r->q, is)) {
		e = -ANA_ENOFUNC;
		goto out;
	}
	for (uint32_t x = 1; x < s->n_sym; x++) {
		if (!has_self(s, x))
			continue;
		for (uint32_t prev = NONE, y = x; y; prev = y, y = s->sparent[y]) {
			if (!is[s->sfunc[y]])
				continue;
			uint32_t other = callers ? s->sparent[y] : prev;
			if (other == NONE || other == 0)
				continue;
			uint32_t of = s->sfunc[other];
			bool self = callers ? y == x : other == x;
			bool incl = stamp[of] != x;
			stamp[of] = x;
			for (size_t p = 0; p < s->n_part && (incl || self); p++) {
				long at = agg_at(&s->a_sym, p, x);
				if (at < 0)
					continue;
				const uint64_t *c = agg_cnt(&s->a_sym, p, at);
				const double *w = agg_wt(&s->a_sym, p, at);
				uint64_t *dc = agg_cnt(&a, p, of);
				double *dw = agg_wt(&a, p, of);
				for (size_t ev = 0; ev < s->n_ev; ev++) {
					if (incl) {
						dc[ev * 2 + 1] += c[ev * 2];
						if (dw)
							dw[ev * 2 + 1] += w[ev * 2];
					}
					if (self) {
						dc[ev * 2] += c[ev * 2];
						if (dw)
							dw[ev * 2] += w[ev * 2];
					}
				}
			}
		}
	}
	for (uint32_t f = 0; f < s->n_func; f++) {
		bool any = false;
		for (size_t p = 0; p < s->n_part && !any; p++)
			for (size_t ev = 0; ev < s->n_ev && !any; ev++)
				any = agg_cnt(&a, p, f)[ev * 2 + 1] != 0;
		if (!any)
			continue;
		struct ana_row d = func_row(s, f);
		if (rows_push(r, &d, &a, f))
			goto out;
	}
	e = rows_finish(r, 0);
out:
	free(is);
	free(stamp);
	agg_free(&a);
	return e;
}

struct ana_rows *ana_set_query(struct ana_set *s, const struct ana_query *qin)
{
	if (!s->finished) {
		errno = ANA_ESTATE;
		return NULL;
	}
	struct ana_query q = { 0 };
	memcpy(&q, qin, qin->sz < sizeof(q) ? qin->sz : sizeof(q));
	if (qin->sz < offsetof(struct ana_query, base) + sizeof(q.base))
		q.base = -1;
	q.sz = sizeof(q);
	if (q.view > ANA_VIEW_BOTTOMUP || q.event >= s->n_ev + s->n_metric ||
	    (q.base >= 0 && ((size_t)q.base >= s->n_orun || q.event >= s->n_ev)) ||
	    q.ratio > ANA_RATIO_DELTA || q.sort > ANA_SORT_RATIO) {
		errno = EINVAL;
		return NULL;
	}
	struct ana_rows *r = rows_new(s, &q);
	if (!r)
		return NULL;
	int e;
	/* raw counts of two different events (cpu-clock and CPUTIME, cycles
	 * and a fallback's cpu-clock) are not comparable; their shares are */
	for (size_t run = 0; q.base >= 0 && q.ratio == ANA_RATIO_RAW && run < r->nr; run++)
		if (r->cev[run] != r->cev[q.base]) {
			ana_rows_free(r);
			errno = ANA_EEVENTS;
			return NULL;
		}
	unsigned levels = q.max_depth ? q.max_depth : 1;
	switch (q.view) {
	case ANA_VIEW_TOPDOWN:
		e = q.node < s->n_sym ? rows_tree(r, q.node, sym_depth(s, q.node) + 1, levels,
						    topdown_kids, false)
				       : -EINVAL;
		break;
	case ANA_VIEW_BOTTOMUP:
		e = bu_expand(s, 0);
		if (!e)
			e = q.node < s->n_bu ? rows_tree(r, q.node, bu_depth(s, q.node) + 1, levels,
							 bottomup_kids, true)
					     : -EINVAL;
		break;
	case ANA_VIEW_CALLERS:
	case ANA_VIEW_CALLEES:
		e = relatives(r);
		break;
	default:
		e = flat(r);
	}
	if (e) {
		ana_rows_free(r);
		errno = -e;
		return NULL;
	}
	return r;
}

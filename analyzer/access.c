/* The set's tables on the public API (analyzer.h, "the set's tables"):
 * what the exporters (export.c, flame.c, pprof.c, speedscope.c, annotate.c)
 * read, so that they never see the set's layout (set.h). */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "analyzer/query.h"
#include "analyzer/read.h"
#include "analyzer/set.h"
#include "analyzer/symbolize.h"

bool ana_set_finished(const struct ana_set *s)
{
	return s->finished;
}

const struct ana_opts *ana_set_opts(const struct ana_set *s)
{
	return &s->o;
}

size_t ana_set_n_sampled_events(const struct ana_set *s)
{
	return s->n_ev;
}

const char *ana_set_event_unit(const struct ana_set *s, size_t ev)
{
	return ev < s->n_ev ? s->ev_unit[ev] : NULL;
}

int ana_set_total(const struct ana_set *s, unsigned run, size_t ev, uint64_t *samples,
		  double *value)
{
	if (!s->finished || run >= s->n_orun || ev >= s->n_ev)
		return -EINVAL;
	if (samples)
		*samples = s->rtot[run * s->n_ev + ev];
	if (value)
		*value = s->rtot_val[run * s->n_ev + ev];
	return 0;
}

size_t ana_set_n_untimed(const struct ana_set *s)
{
	return s->n_tl_missing;
}

/* The tables' sizes: nothing before finish. */
size_t ana_set_n_functions(const struct ana_set *s)
{
	return s->finished ? s->n_func : 0;
}

size_t ana_set_n_modules(const struct ana_set *s)
{
	return s->finished ? s->n_modrow : 0;
}

size_t ana_set_n_contexts(const struct ana_set *s)
{
	return s->finished ? s->n_lctx : 0;
}

size_t ana_set_n_context_samples(const struct ana_set *s)
{
	return s->finished ? s->n_lsmp : 0;
}

size_t ana_set_n_nodes(const struct ana_set *s)
{
	return s->finished ? s->n_sym : 0;
}

/* Copy what fits of a sized struct (len bytes at in) to out, whose
 * caller's sz says how much it has.  0, or -EINVAL (no sz). */
static int put_sized(void *out, const void *in, size_t len)
{
	size_t sz = *(const size_t *)out;
	if (sz < sizeof(size_t))
		return -EINVAL;
	memcpy((char *)out + sizeof(size_t), (const char *)in + sizeof(size_t),
	       (sz < len ? sz : len) - sizeof(size_t));
	return 0;
}

int ana_set_function(const struct ana_set *s, uint32_t f, struct ana_function *out)
{
	if (f >= ana_set_n_functions(s))
		return -EINVAL;
	const struct func *fn = &s->func[f];
	return put_sized(out, &(struct ana_function){ .name = fn->name, .module = fn->path,
			 .module_base = fn->base, .file = fn->file, .line = fn->line,
			 .module_id = fn->modrow, .inlined_into = fn->inl_caller }, sizeof(*out));
}

size_t ana_set_match_functions(const struct ana_set *s, const char *func, uint8_t *is)
{
	ANA_QUERY(q, .view = ANA_VIEW_CALLERS, .func = func);
	return s->finished ? (size_t)funcs_match(s, &q, is) : 0;
}

uint32_t ana_set_node_function(const struct ana_set *s, uint32_t node)
{
	return s->finished && node && node < s->n_sym ? s->sfunc[node] : NONE;
}

int ana_set_node(const struct ana_set *s, uint32_t node, struct ana_node *out)
{
	if (node >= ana_set_n_nodes(s))
		return -EINVAL;
	return put_sized(out, &(struct ana_node){ .parent = s->sparent[node],
			 .child = s->sfirst[node], .next = s->snext[node],
			 .func = node ? s->sfunc[node] : NONE, .inlined = s->sinl[node] },
			 sizeof(*out));
}

/* Summed over the run's parts in their order, as the rows sum them. */
int ana_set_node_total(const struct ana_set *s, uint32_t node, unsigned run, size_t ev,
		       enum ana_kind k, uint64_t *samples, double *value)
{
	if (node >= ana_set_n_nodes(s) || run >= s->n_orun || ev >= s->n_ev)
		return -EINVAL;
	uint64_t n = 0;
	double v = 0;
	size_t at = ev * 2 + (k != ANA_SELF);
	for (size_t p = 0; p < s->n_part; p++) {
		long b = s->part[p].orun == run ? agg_at(&s->a_sym, p, node) : -1;
		if (b < 0)
			continue;
		const double *w = agg_wt(&s->a_sym, p, b);
		uint64_t c = agg_cnt(&s->a_sym, p, b)[at];
		n += c;
		v += w ? w[at] : (double)c;
	}
	if (samples)
		*samples = n;
	if (value)
		*value = v;
	return 0;
}

/* The loaded module a module row stands for: the one with its path and a
 * build-id, else any with its path. */
static const struct smodule *row_module(const struct ana_set *s, uint32_t m)
{
	const struct smodule *any = NULL;
	for (size_t i = 0; s->modrow[m].path && i < s->n_mod; i++) {
		if (strcmp(s->mod[i].path, s->modrow[m].path))
			continue;
		if (s->mod[i].bid_len)
			return &s->mod[i];
		if (!any)
			any = &s->mod[i];
	}
	return any;
}

/* What a loaded module says of itself into *x. */
static void module_facts(struct ana_module *x, const struct smodule *sm)
{
	x->build_id = sm->bid_len ? sm->bid : NULL;
	x->build_id_len = sm->bid_len;
	x->start = sm->start;
	x->end = sm->end;
	x->bias = sm->bias;
	x->file = sm->path[0] == '/';
	x->main = sm->main;
	x->kernel = kallsyms_is_kernel(sm->path);
	x->jit = sm->jit;
	x->embedded = sm->image != NULL;
}

int ana_set_module(const struct ana_set *s, uint32_t m, struct ana_module *out)
{
	if (m >= ana_set_n_modules(s))
		return -EINVAL;
	const struct smodule *sm = row_module(s, m);
	struct ana_module x = { .path = s->modrow[m].path, .base = s->modrow[m].base };
	if (sm)
		module_facts(&x, sm);
	return put_sized(out, &x, sizeof(x));
}

int ana_set_mapping(const struct ana_set *s, uint32_t i, struct ana_module *out)
{
	if (i >= ana_set_n_mappings(s))
		return -EINVAL;
	struct ana_module x = { .path = s->mod[i].path, .base = s->mod[i].base };
	module_facts(&x, &s->mod[i]);
	return put_sized(out, &x, sizeof(x));
}

size_t ana_set_n_mappings(const struct ana_set *s)
{
	return s->finished ? s->n_mod : 0;
}

int ana_set_address(const struct ana_set *s, size_t a, struct ana_address *out)
{
	if (a >= ana_set_n_addresses(s))
		return -EINVAL;
	const struct addr *ad = &s->addr[a];
	return put_sized(out, &(struct ana_address){ .mapping = ad->mod, .addr = ad->off,
			 .func = ad->n ? s->frame[ad->first].func : NONE }, sizeof(*out));
}

size_t ana_set_n_addresses(const struct ana_set *s)
{
	return s->finished ? s->n_addr : 0;
}

uint64_t ana_set_address_samples(const struct ana_set *s, size_t a, unsigned run, size_t ev)
{
	if (!s->addr_smp || a >= ana_set_n_addresses(s) || run >= s->n_orun || ev >= s->n_ev)
		return 0;
	return s->addr_smp[(a * s->n_orun + run) * s->n_ev + ev];
}

int ana_set_context(const struct ana_set *s, uint32_t ctx, struct ana_context *out)
{
	if (!ctx || ctx >= ana_set_n_contexts(s))
		return -EINVAL;
	struct ana_context x = { .parent = s->lparent[ctx], .func = s->lfunc[ctx],
				 .line = s->lno[ctx], .inlined = s->linl[ctx] };
	uint32_t a = s->laddr[ctx];
	if (a != NONE && s->addr[a].mod < s->n_mod) {
		const struct smodule *sm = &s->mod[s->addr[a].mod];
		x.addr = s->addr[a].off + (sm->path[0] == '/' ? 0 : sm->bias);
	}
	return put_sized(out, &x, sizeof(x));
}

int ana_set_context_samples(const struct ana_set *s, size_t i, struct ana_context_samples *out)
{
	if (i >= ana_set_n_context_samples(s))
		return -EINVAL;
	const struct lsample *l = &s->lsmp[i];
	return put_sized(out, &(struct ana_context_samples){ .run = l->run, .context = l->node,
			 .event = l->ev, .samples = l->cnt, .weight = l->wt }, sizeof(*out));
}

const struct ana_query *ana_rows_query(const struct ana_rows *r)
{
	return rows_query(r);
}

struct ana_set *ana_rows_set(const struct ana_rows *r)
{
	return rows_set(r);
}

size_t ana_rows_event(const struct ana_rows *r, unsigned run)
{
	return rows_event(r, run);
}

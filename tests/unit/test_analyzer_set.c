/* The analyzer on profiles written by prof_write whose frames point at this
 * test's own functions (built with -g), so symbolization is real: merging,
 * flat views, recursion, callers/callees, trees, --by, metrics, weights,
 * comparisons, CSV, bad files and build-id mismatches. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "analyzer/analyzer.h"
#include "analyzer/profile.pb-c.h"
#include "profile/profile.h"
#include "tests/harness.h"

/* Functions the profiles point at (never called). */
__attribute__((noinline)) void t_main(void);
__attribute__((noinline)) void t_a(void);
__attribute__((noinline)) void t_b(void);
__attribute__((noinline)) void t_rec(int);
__attribute__((noinline)) void t_c(void);
static volatile int sink;
void t_main(void) { sink = 1; }
void t_a(void) { sink = 2; }
void t_b(void) { sink = 3; }
void t_rec(int n) { sink = n; }
void t_c(void) { sink = 4; }

static uintptr_t bias;
static char exe[PATH_MAX];
static char dir[64];

static int first_phdr(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	bias = info->dlpi_addr;	/* the main program comes first */
	return 1;
}

#define F(fn) ((uint64_t)((uintptr_t)(void *)(fn) - bias))
#define MAXF 6

struct stk {
	uint64_t f[MAXF];	/* ELF addresses, outermost first, 0-terminated */
	uint64_t c[2];
};

struct spec {
	const char *name;
	const struct stk *st;
	size_t n;
	size_t n_ev;
	const char *tid, *rank;
	const uint8_t *bid;	/* recorded build-id, or NULL */
	uint64_t period, weight;
	const char *modpath;	/* default: this executable */
	const char *t0, *t1;	/* start_time, end_time, or NULL */
	const char *ev[2];	/* event names (default perf::CYCLES, perf::INSTRUCTIONS) */
};

/* Write a profile from stacks of this executable's functions. */
static int mk(const struct spec *sp)
{
	uint32_t parent[64], module[64];
	uint64_t offset[64], counts[128] = { 0 };
	uint32_t n = 1;
	parent[0] = 0;
	module[0] = PROF_NO_MODULE;
	offset[0] = 0;
	for (size_t i = 0; i < sp->n; i++) {
		uint32_t cur = 0;
		for (int d = 0; d < MAXF && sp->st[i].f[d]; d++) {
			uint32_t k;
			for (k = 1; k < n; k++)
				if (parent[k] == cur && offset[k] == sp->st[i].f[d])
					break;
			if (k == n) {
				parent[n] = cur;
				module[n] = 0;
				offset[n] = sp->st[i].f[d];
				n++;
			}
			cur = k;
		}
		for (size_t e = 0; e < sp->n_ev; e++)
			counts[cur * sp->n_ev + e] += sp->st[i].c[e];
	}
	struct prof_event ev[2] = {
		{ sp->ev[0] ? sp->ev[0] : "perf::CYCLES", "cycles@1000", "events",
		  sp->period ? sp->period : 1000, 0, 0, sp->weight },
		{ sp->ev[1] ? sp->ev[1] : "perf::INSTRUCTIONS", "instructions@1000", "events", 1000, 0, 0, 0 },
	};
	struct prof_kv meta[] = {
		{ "command", "test" }, { "tid", sp->tid ? sp->tid : "1" }, { "rank", sp->rank ? sp->rank : "0" },
		{ "start_time", sp->t0 }, { "end_time", sp->t1 },
	};
	struct prof_module mod = { sp->modpath ? sp->modpath : exe, sp->bid, sp->bid ? 20 : 0, 0, 1 << 30, 0, 1, 0 };
	struct prof_counter ctr[] = { { "samples", 1000 }, { "unwind_failed", 50 },
				      { "unthrottled", 400 }, { "dropped_reentrant", 5 } };
	struct prof p = { PROF_VERSION, false, sp->t0 ? 5 : 3, meta, sp->n_ev, ev, 1, &mod,
			  { n, (uint32_t)sp->n_ev, parent, module, offset, counts }, 4, ctr, 0, NULL, { 0 } };
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	int e = prof_write(&p, dfd, sp->name, 0644);
	close(dfd);
	return e;
}

static char *path(const char *name)
{
	static char buf[PATH_MAX];
	snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	return buf;
}

/* The row named name, or -1. */
static long find(const struct ana_rows *r, const char *name)
{
	for (size_t i = 0; i < ana_rows_n(r); i++)
		if (!strcmp(ana_rows_row(r, i)->name, name))
			return (long)i;
	return -1;
}

static uint64_t smp(const struct ana_rows *r, const char *name, unsigned run, enum ana_kind k)
{
	long i = find(r, name);
	return i < 0 ? UINT64_MAX : ana_rows_samples(r, (size_t)i, run, 0, k);
}

static struct ana_set *open_set(const struct ana_opts *o, const char *const *files, unsigned run)
{
	struct ana_set *s = ana_set_new(o);
	for (; *files; files++)
		ana_set_add(s, run, 0, path(*files));
	return s;
}

/* Bottom-up roots against the flat function view, and each root's
 * children against the callers view of that function: same rows, same
 * self and inclusive samples in every run. */
static void check_bottomup_roots(struct ana_set *s, const char *what)
{
	ANA_QUERY(qf, .view = ANA_VIEW_FUNCS);
	ANA_QUERY(qb, .view = ANA_VIEW_BOTTOMUP, .node = ANA_ROOT);
	struct ana_rows *fl = ana_set_query(s, &qf), *bu = ana_set_query(s, &qb);
	unsigned nr = ana_set_n_runs(s);
	bool roots = fl && bu && ana_rows_n(fl) == ana_rows_n(bu), kids = roots;
	for (size_t i = 0; roots && i < ana_rows_n(fl); i++) {
		const struct ana_row *f = ana_rows_row(fl, i);
		long j = find(bu, f->name);
		for (unsigned run = 0; run < nr && j >= 0; run++)
			for (int k = 0; k < 2; k++)
				roots &= ana_rows_samples(fl, i, run, 0, (enum ana_kind)k) ==
					 ana_rows_samples(bu, (size_t)j, run, 0, (enum ana_kind)k);
		if (j < 0) {
			roots = false;
			break;
		}
		ANA_QUERY(qc, .view = ANA_VIEW_CALLERS, .func = f->name);
		ANA_QUERY(qk, .view = ANA_VIEW_BOTTOMUP, .node = ana_rows_row(bu, (size_t)j)->node);
		struct ana_rows *c = ana_set_query(s, &qc), *kr = ana_set_query(s, &qk);
		kids &= c && kr && ana_rows_n(c) == ana_rows_n(kr);
		for (size_t m = 0; kids && m < ana_rows_n(c); m++) {
			long x = find(kr, ana_rows_row(c, m)->name);
			kids &= x >= 0;
			for (unsigned run = 0; run < nr && x >= 0; run++)
				for (int k = 0; k < 2; k++)
					kids &= ana_rows_samples(c, m, run, 0, (enum ana_kind)k) ==
						ana_rows_samples(kr, (size_t)x, run, 0, (enum ana_kind)k);
		}
		ana_rows_free(c);
		ana_rows_free(kr);
	}
	T_OK(roots, "%s: bottom-up roots = the function view (%zu rows)", what, fl ? ana_rows_n(fl) : 0);
	T_OK(kids, "%s: each root's children = its callers", what);
	ana_rows_free(fl);
	ana_rows_free(bu);
}

/* Two threads of one run: main->a, main->b, main->rec->rec->rec. */
/* The tree through ana_set_node (the public tree export.c's collapsed
 * stacks walk): every top-down row's node, with its function, its place
 * among its parent's children and its samples. */
static void check_node_tree(struct ana_set *s, size_t n_nodes)
{
	ANA_QUERY(q, .view = ANA_VIEW_TOPDOWN, .node = ANA_ROOT, .max_depth = 64);
	struct ana_rows *r = ana_set_query(s, &q);
	bool ok = r && ana_set_n_nodes(s) == n_nodes && ana_rows_n(r) == n_nodes - 1;
	for (size_t i = 0; ok && i < ana_rows_n(r); i++) {
		const struct ana_row *w = ana_rows_row(r, i);
		struct ana_node nd = { .sz = sizeof(nd) }, up = { .sz = sizeof(up) };
		struct ana_function fn = { .sz = sizeof(fn) };
		uint64_t self = 0, incl = 0;
		ok = !ana_set_node(s, w->node, &nd) && !ana_set_function(s, nd.func, &fn) &&
		     !strcmp(fn.name, w->name) && nd.inlined == !!(w->flags & ANA_ROW_INLINED) &&
		     !ana_set_node_total(s, w->node, 0, 0, ANA_SELF, &self, NULL) &&
		     !ana_set_node_total(s, w->node, 0, 0, ANA_INCL, &incl, NULL) &&
		     self == ana_rows_samples(r, i, 0, 0, ANA_SELF) &&
		     incl == ana_rows_samples(r, i, 0, 0, ANA_INCL);
		bool among = false;
		for (uint32_t c = ok && !ana_set_node(s, nd.parent, &up) ? up.child : UINT32_MAX;
		     c != UINT32_MAX; c = up.next)
			if (ana_set_node(s, c, &up) || (among = c == w->node))
				break;
		ok = ok && among;
	}
	T_OK(ok, "the tree through ana_set_node: %zu nodes, names, children, samples", n_nodes);
	struct ana_node root = { .sz = sizeof(root) };
	T_OK(!ana_set_node(s, 0, &root) && root.func == UINT32_MAX && root.child != UINT32_MAX &&
	     ana_set_node(s, (uint32_t)n_nodes, &root) == -EINVAL &&
	     ana_set_node_total(s, (uint32_t)n_nodes, 0, 0, ANA_SELF, NULL, NULL) == -EINVAL &&
	     ana_set_node_total(s, 0, ana_set_n_runs(s), 0, ANA_SELF, NULL, NULL) == -EINVAL,
	     "the root; past the end: -EINVAL");
	ana_rows_free(r);
}

static void test_merge_and_views(void)
{
	const struct stk t1[] = {
		{ { F(t_main), F(t_a) }, { 100 } },
		{ { F(t_main), F(t_b) }, { 50 } },
	};
	const struct stk t2[] = {
		{ { F(t_main), F(t_a) }, { 20 } },
		{ { F(t_main), F(t_rec), F(t_rec) + 1, F(t_rec) + 2 }, { 30 } },
	};
	T_OK(!mk(&(struct spec){ "t1.pmcp", t1, 2, 1, "1000", "0", NULL, 0, 0, NULL, NULL, NULL, { NULL } }) &&
	     !mk(&(struct spec){ "t2.pmcp", t2, 2, 1, "1001", "1", NULL, 0, 0, NULL, NULL, NULL, { NULL } }), "write thread profiles");
	const char *files[] = { "t1.pmcp", "t2.pmcp", NULL };
	struct ana_set *s = open_set(NULL, files, 0);
	T_OK(ana_set_finish(s) == 0 && ana_set_n_runs(s) == 1, "finish: one run");
	const struct ana_run *run = ana_set_run(s, 0);
	T_OK(run->n_files == 2, "run has 2 files (%u)", run->n_files);
	bool tid_ok = false;
	for (size_t i = 0; i < run->n_meta; i++)
		if (!strcmp(run->meta[i].key, "tid"))
			tid_ok = !strcmp(run->meta[i].value, "1000, 1001 (2 distinct)");
	T_OK(tid_ok, "merged metadata lists distinct tids");
	bool ctr_ok = false;
	for (size_t i = 0; i < run->n_counters; i++)
		if (!strcmp(run->counters[i].name, "unwind_failed"))
			ctr_ok = run->counters[i].value == 100 && run->counters[i].warn &&
				 fabs(run->counters[i].pct - 5.0) < 1e-9;
	T_OK(ctr_ok, "unwind_failed summed, 5%% of 2000 samples, warned");
	static const struct {
		int line;
		const char *name;
		uint64_t value;
		double pct;	/* NAN: not a loss counter */
		bool warn;
	} ctrs[] = {
		{ __LINE__, "unwind_failed", 100, 5.0, true },
		{ __LINE__, "unthrottled", 800, NAN, false },	/* not a loss */
		{ __LINE__, "dropped_reentrant", 10, 0.5, false },	/* under 1% */
		{ __LINE__, "samples", 2000, NAN, false },
	};
	for (size_t k = 0; k < sizeof(ctrs) / sizeof(*ctrs); k++) {
		bool ok = false;
		for (size_t i = 0; i < run->n_counters; i++) {
			const struct ana_counter_fact *c = &run->counters[i];
			if (!strcmp(c->name, ctrs[k].name))
				ok = c->value == ctrs[k].value && c->warn == ctrs[k].warn &&
				     (isnan(ctrs[k].pct) ? isnan(c->pct) : fabs(c->pct - ctrs[k].pct) < 1e-9);
		}
		T_OK(ok, "counter line %d: %s", ctrs[k].line, ctrs[k].name);
		/* the facts model (facts.h) says the same, built at finish */
		size_t n;
		const struct ana_fact *c = ana_facts_all(ana_set_facts(s, 0), ANA_FACT_COUNTER, &n);
		for (ok = false; n > 0; n--, c++)
			if (!strcmp(c->key, ctrs[k].name))
				ok = c->count == ctrs[k].value && !(c->flags & ANA_FACT_LOSS) == isnan(ctrs[k].pct) &&
				     (c->severity == ANA_NOTE_WARN) == ctrs[k].warn;
		T_OK(ok, "counter line %d: %s as a fact", ctrs[k].line, ctrs[k].name);
	}
	T_OK(run->facts == ana_set_facts(s, 0) &&
	     ana_facts_get(run->facts, ANA_FACT_FILES)->count == 2, "the run's facts, owned by the set");

	ANA_QUERY(q, .view = ANA_VIEW_FUNCS);
	struct ana_rows *r = ana_set_query(s, &q);
	static const struct {
		int line;
		const char *name;
		uint64_t self, incl;
	} want[] = {
		{ __LINE__, "t_a", 120, 120 },
		{ __LINE__, "t_b", 50, 50 },
		{ __LINE__, "t_rec", 30, 30 },	/* recursion counted once */
		{ __LINE__, "t_main", 0, 200 },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(*want); i++)
		T_OK(smp(r, want[i].name, 0, ANA_SELF) == want[i].self &&
		     smp(r, want[i].name, 0, ANA_INCL) == want[i].incl,
		     "functions line %d: %s self %llu incl %llu", want[i].line, want[i].name,
		     (unsigned long long)want[i].self, (unsigned long long)want[i].incl);
	T_OK(ana_rows_n(r) == 4 && !strcmp(ana_rows_row(r, 0)->name, "t_a"), "sorted by self: t_a first");
	T_OK(fabs(ana_rows_pct(r, 0, 0, 0, ANA_SELF) - 60.0) < 1e-9, "t_a is 60%% of 200");
	const struct ana_row *ra = ana_rows_row(r, 0);
	T_OK(ra->file && strstr(ra->file, "test_analyzer_set.c") && ra->line > 0,
	     "t_a has its declaration file:line (%s:%u)", ra->file ? ra->file : "-", ra->line);
	uint32_t a_node = ra->node;
	ana_rows_free(r);

	ANA_QUERY(qt, .view = ANA_VIEW_FUNCS, .top = 2, .sort = ANA_SORT_NAME);
	r = ana_set_query(s, &qt);
	T_OK(ana_rows_n(r) == 2 && !strcmp(ana_rows_row(r, 0)->name, "t_a") &&
	     !strcmp(ana_rows_row(r, 1)->name, "t_b"), "top 2 by name");
	ana_rows_free(r);

	ANA_QUERY(qc, .view = ANA_VIEW_CALLERS, .func = "t_rec");
	r = ana_set_query(s, &qc);
	T_OK(r && smp(r, "t_rec", 0, ANA_INCL) == 30 && smp(r, "t_rec", 0, ANA_SELF) == 30 &&
	     smp(r, "t_main", 0, ANA_INCL) == 30 && smp(r, "t_main", 0, ANA_SELF) == 0,
	     "callers of t_rec: itself (self 30) and t_main (incl 30)");
	ana_rows_free(r);
	ANA_QUERY(qe, .view = ANA_VIEW_CALLEES, .func = "t_main");
	r = ana_set_query(s, &qe);
	T_OK(r && ana_rows_n(r) == 3 && smp(r, "t_a", 0, ANA_SELF) == 120 &&
	     smp(r, "t_rec", 0, ANA_INCL) == 30 && smp(r, "t_rec", 0, ANA_SELF) == 0,
	     "callees of t_main: t_a, t_b, t_rec");
	ana_rows_free(r);
	ANA_QUERY(qn, .view = ANA_VIEW_CALLERS, .node = a_node);
	r = ana_set_query(s, &qn);
	T_OK(r && ana_rows_n(r) == 1 && smp(r, "t_main", 0, ANA_INCL) == 120, "callers by function node");
	ana_rows_free(r);
	ANA_QUERY(qx, .view = ANA_VIEW_CALLERS, .func = "no_such_function");
	r = ana_set_query(s, &qx);
	T_OK(!r && errno == ANA_ENOFUNC, "unknown function: ANA_ENOFUNC");

	/* top-down: root -> t_main -> children by incl */
	ANA_QUERY(qd, .view = ANA_VIEW_TOPDOWN, .node = ANA_ROOT);
	r = ana_set_query(s, &qd);
	T_OK(r && ana_rows_n(r) == 1 && !strcmp(ana_rows_row(r, 0)->name, "t_main") &&
	     ana_rows_row(r, 0)->depth == 1 && (ana_rows_row(r, 0)->flags & ANA_ROW_EXPANDABLE),
	     "top-down root: t_main, expandable");
	uint32_t main_node = r ? ana_rows_row(r, 0)->node : 0;
	ana_rows_free(r);
	ANA_QUERY(qd2, .view = ANA_VIEW_TOPDOWN, .node = main_node);
	r = ana_set_query(s, &qd2);
	T_OK(r && ana_rows_n(r) == 3 && !strcmp(ana_rows_row(r, 0)->name, "t_a") &&
	     !strcmp(ana_rows_row(r, 2)->name, "t_rec") && ana_rows_row(r, 0)->depth == 2,
	     "children of t_main by incl: t_a, t_b, t_rec");
	ana_rows_free(r);
	ANA_QUERY(qd3, .view = ANA_VIEW_TOPDOWN, .node = ANA_ROOT, .max_depth = 10);
	r = ana_set_query(s, &qd3);
	T_OK(r && ana_rows_n(r) == 6 && ana_rows_row(r, 5)->depth == 4, "whole tree depth-first: 6 nodes");
	ana_rows_free(r);
	check_node_tree(s, 7);

	/* bottom-up: a root is a function with its own self and inclusive
	 * samples, as in the flat view; a child is a caller with the part of
	 * the root's samples that came through it, as --callers shows */
	check_bottomup_roots(s, "two threads");
	ANA_QUERY(qb, .view = ANA_VIEW_BOTTOMUP, .node = ANA_ROOT);
	r = ana_set_query(s, &qb);
	long ir = r ? find(r, "t_rec") : -1;
	uint32_t rec_b = ir >= 0 ? ana_rows_row(r, (size_t)ir)->node : 0;
	ana_rows_free(r);
	/* main -> rec -> rec -> rec (30 samples in the innermost): each level
	 * of callers, recursion counted once */
	static const struct {
		int line;
		const char *name;
		unsigned depth;
		uint64_t self, incl;
	} rec_tree[] = {
		/* sorted by self: the root's own samples, as they went up */
		{ __LINE__, "t_rec", 2, 30, 30 },	/* t_rec <- t_rec: holds the leaf */
		{ __LINE__, "t_rec", 3, 30, 30 },
		{ __LINE__, "t_main", 4, 30, 30 },	/* the whole stack */
		{ __LINE__, "t_main", 3, 0, 30 },	/* t_rec <- t_rec <- t_main: an outer call */
		{ __LINE__, "t_main", 2, 0, 30 },	/* t_rec <- t_main: the outermost call */
	};
	size_t n_rec = sizeof(rec_tree) / sizeof(*rec_tree);
	ANA_QUERY(qb2, .view = ANA_VIEW_BOTTOMUP, .node = rec_b, .max_depth = 5);
	r = ana_set_query(s, &qb2);
	T_OK(r && ana_rows_n(r) == n_rec, "bottom-up under t_rec: %zu rows (%zu)", n_rec,
	     r ? ana_rows_n(r) : 0);
	for (size_t i = 0; r && i < n_rec && i < ana_rows_n(r); i++) {
		const struct ana_row *w = ana_rows_row(r, i);
		T_OK(!strcmp(w->name, rec_tree[i].name) && w->depth == rec_tree[i].depth &&
		     ana_rows_samples(r, i, 0, 0, ANA_SELF) == rec_tree[i].self &&
		     ana_rows_samples(r, i, 0, 0, ANA_INCL) == rec_tree[i].incl,
		     "bottom-up line %d: %s depth %u self %llu incl %llu (got %s %u %llu %llu)",
		     rec_tree[i].line, rec_tree[i].name, rec_tree[i].depth,
		     (unsigned long long)rec_tree[i].self, (unsigned long long)rec_tree[i].incl, w->name,
		     w->depth, (unsigned long long)ana_rows_samples(r, i, 0, 0, ANA_SELF),
		     (unsigned long long)ana_rows_samples(r, i, 0, 0, ANA_INCL));
	}
	ana_rows_free(r);

	/* --by thread: two runs in tid order */
	ana_set_free(s);
	ANA_OPTS(o, .split = ANA_SPLIT_THREAD);
	s = open_set(&o, files, 0);
	T_OK(ana_set_finish(s) == 0 && ana_set_n_runs(s) == 2 &&
	     !strcmp(ana_set_run(s, 0)->label, "tid=1000") && !strcmp(ana_set_run(s, 1)->label, "tid=1001"),
	     "split by thread: tid=1000, tid=1001");
	r = ana_set_query(s, &q);
	T_OK(smp(r, "t_a", 0, ANA_SELF) == 100 && smp(r, "t_a", 1, ANA_SELF) == 20, "t_a per thread 100 / 20");
	ana_rows_free(r);
	check_bottomup_roots(s, "by thread");
	ana_set_free(s);
}

/* Every row of the whole bottom-up tree against a brute-force count over
 * the stacks: a row is a chain f0 <- f1 <- ... <- fk (root first); incl =
 * samples whose stack has that chain of direct calls anywhere (once), self
 * = those where f0 is the innermost frame.  Mutual recursion included. */
static void test_bottomup_chains(void)
{
	static const struct {
		int line;
		const char *f[MAXF];	/* outermost first */
		uint64_t c;
	} st[] = {
		{ __LINE__, { "t_main", "t_a", "t_b", "t_a", "t_b" }, 40 },
		{ __LINE__, { "t_main", "t_a", "t_b", "t_a" }, 25 },
		{ __LINE__, { "t_main", "t_b", "t_a" }, 10 },
		{ __LINE__, { "t_main", "t_a", "t_c" }, 7 },
		{ __LINE__, { "t_main" }, 3 },
	};
	size_t ns = sizeof(st) / sizeof(*st);
	struct {
		const char *name;
		void (*fn)(void);
	} fns[] = { { "t_main", t_main }, { "t_a", t_a }, { "t_b", t_b }, { "t_c", t_c } };
	struct stk stk[8] = { 0 };
	for (size_t i = 0; i < ns; i++) {
		for (int d = 0; d < MAXF && st[i].f[d]; d++)
			for (size_t k = 0; k < sizeof(fns) / sizeof(*fns); k++)
				if (!strcmp(fns[k].name, st[i].f[d]))
					stk[i].f[d] = F(fns[k].fn) + (uint64_t)d;	/* distinct call sites */
		stk[i].c[0] = st[i].c;
	}
	T_OK(!mk(&(struct spec){ "chains.pmcp", stk, ns, 1, NULL, NULL, NULL, 0, 0, NULL, NULL, NULL, { NULL } }),
	     "write the mutual-recursion profile");
	const char *files[] = { "chains.pmcp", NULL };
	struct ana_set *s = open_set(NULL, files, 0);
	T_OK(ana_set_finish(s) == 0, "finish");
	check_bottomup_roots(s, "mutual recursion");
	ANA_QUERY(q, .view = ANA_VIEW_BOTTOMUP, .node = ANA_ROOT, .max_depth = UINT_MAX);
	struct ana_rows *r = ana_set_query(s, &q);
	const char *chain[64];
	size_t bad = 0, n = r ? ana_rows_n(r) : 0;
	for (size_t i = 0; i < n; i++) {
		const struct ana_row *w = ana_rows_row(r, i);
		unsigned k = w->depth;	/* chain length */
		if (k < 1 || k > 64) {
			bad++;
			continue;
		}
		chain[k - 1] = w->name;
		uint64_t self = 0, incl = 0;
		for (size_t j = 0; j < ns; j++) {
			int len = 0;
			while (len < MAXF && st[j].f[len])
				len++;
			bool any = false;
			/* position p counts from the innermost frame (0) outwards */
			for (int p = 0; p + (int)k <= len; p++) {
				bool m = true;
				for (unsigned c = 0; c < k && m; c++)
					m = !strcmp(st[j].f[len - 1 - p - (int)c], chain[c]);
				if (m && p == 0)
					self += st[j].c;
				any |= m;
			}
			if (any)
				incl += st[j].c;
		}
		if (ana_rows_samples(r, i, 0, 0, ANA_SELF) != self ||
		    ana_rows_samples(r, i, 0, 0, ANA_INCL) != incl) {
			bad++;
			printf("# row %zu %s depth %u: self %llu incl %llu, expected %llu %llu\n", i, w->name,
			       k, (unsigned long long)ana_rows_samples(r, i, 0, 0, ANA_SELF),
			       (unsigned long long)ana_rows_samples(r, i, 0, 0, ANA_INCL),
			       (unsigned long long)self, (unsigned long long)incl);
		}
	}
	/* distinct chains: every window of every reversed stack */
	size_t windows = 0;
	char seen[256][128];
	for (size_t j = 0; j < ns; j++) {
		int len = 0;
		while (len < MAXF && st[j].f[len])
			len++;
		for (int p = 0; p < len; p++) {
			char key[128] = "";
			for (int c = len - 1 - p; c >= 0; c--) {
				strcat(key, st[j].f[c]);
				strcat(key, ";");
				size_t w;
				for (w = 0; w < windows && strcmp(seen[w], key); w++)
					;
				if (w == windows && windows < 256)
					strcpy(seen[windows++], key);
			}
		}
	}
	T_OK(r && n == windows && !bad, "whole bottom-up tree: %zu rows = %zu distinct chains, %zu wrong",
	     n, windows, bad);
	ana_rows_free(r);
	ana_set_free(s);
	unlink(path("chains.pmcp"));	/* test_bad_inputs reads the whole directory */
}

/* A run's duration is its wall-clock span: threads and processes overlap
 * (not summed), repeats are separate runs (their mean, not the span from the
 * first to the last). */
static void test_duration(void)
{
	const struct stk st[] = { { { F(t_main), F(t_a) }, { 10 } } };
	static const struct {
		int line;
		enum ana_split split;
		struct {
			unsigned run, repeat;
			const char *tid, *t0, *t1;
		} f[4];
		double want[2];		/* per output run */
	} cases[] = {
		/* three threads of one process, 8.5 s each: 8.6 s, not 25.5 */
		{ __LINE__, ANA_SPLIT_NONE, { { 0, 0, "1", "100.0", "108.5" }, { 0, 0, "2", "100.1", "108.4" },
					      { 0, 0, "3", "100.2", "108.6" } }, { 8.6, NAN } },
		/* two repeats of 3 s and 4 s, 100 s apart: 3.5 */
		{ __LINE__, ANA_SPLIT_NONE, { { 0, 0, "1", "100.0", "103.0" }, { 0, 0, "2", "100.5", "102.0" },
					      { 0, 1, "1", "200.0", "204.0" }, { 0, 1, "2", "200.0", "201.0" } },
		  { 3.5, NAN } },
		/* --by thread: each thread's own span */
		{ __LINE__, ANA_SPLIT_THREAD, { { 0, 0, "1", "100.0", "108.5" }, { 0, 0, "2", "100.5", "102.0" } },
		  { 8.5, 1.5 } },
		/* one process after another in one run: the gap counts */
		{ __LINE__, ANA_SPLIT_NONE, { { 0, 0, "1", "100.0", "101.0" }, { 0, 0, "2", "105.0", "106.0" } },
		  { 6.0, NAN } },
		/* two runs side by side */
		{ __LINE__, ANA_SPLIT_NONE, { { 0, 0, "1", "100.0", "102.0" }, { 1, 0, "1", "300.0", "301.25" } },
		  { 2.0, 1.25 } },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		ANA_OPTS(o, .split = cases[i].split);
		struct ana_set *s = ana_set_new(&o);
		for (size_t k = 0; k < 4 && cases[i].f[k].t0; k++) {
			char name[32];
			snprintf(name, sizeof(name), "dur%zu.pmcp", k);
			mk(&(struct spec){ .name = name, .st = st, .n = 1, .n_ev = 1, .tid = cases[i].f[k].tid,
					   .t0 = cases[i].f[k].t0, .t1 = cases[i].f[k].t1 });
			ana_set_add(s, cases[i].f[k].run, cases[i].f[k].repeat, path(name));
			unlink(path(name));
		}
		bool ok = ana_set_finish(s) == 0;
		char got[64] = "";
		for (unsigned r = 0; ok && r < 2; r++) {
			const struct ana_run *run = r < ana_set_n_runs(s) ? ana_set_run(s, r) : NULL;
			if (isnan(cases[i].want[r])) {
				ok = !run;
				continue;
			}
			ok = run && fabs(run->duration - cases[i].want[r]) < 1e-6;
			snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%g", r ? ", " : "",
				 run ? run->duration : NAN);
		}
		T_OK(ok, "duration line %d: %g, %g (got %s)", cases[i].line, cases[i].want[0],
		     cases[i].want[1], got);
		ana_set_free(s);
	}
}

/* One function's lines (query.func in ANA_VIEW_LINES), and where a row's
 * source file is read from (remap, debug roots). */
static void test_lines_and_sources(void)
{
	const struct stk st[] = {
		{ { F(t_main), F(t_a) }, { 10 } },
		{ { F(t_main), F(t_b) }, { 20 } },
	};
	mk(&(struct spec){ "lines.pmcp", st, 2, 1, NULL, NULL, NULL, 0, 0, NULL, NULL, NULL, { NULL } });
	char d2[PATH_MAX], srcdir[PATH_MAX + 16], src[PATH_MAX + 32], deb[PATH_MAX + 16];
	snprintf(d2, sizeof(d2), "%s/src", dir);
	mkdir(d2, 0700);
	snprintf(srcdir, sizeof(srcdir), "%s/moved", dir);
	mkdir(srcdir, 0700);
	snprintf(src, sizeof(src), "%s/moved/a.c", dir);
	fclose(fopen(src, "w"));
	snprintf(deb, sizeof(deb), "%s/deb/build/x", dir);	/* DIR + the recorded path */
	char cmd[PATH_MAX * 4];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && touch '%s/b.c' '%s/deb/c.c' && mkfifo '%s/fifo.c'",
		 deb, deb, dir, d2);
	if (system(cmd))
		T_SKIP("could not make the source tree");
	char remap[PATH_MAX + 32], dbg[PATH_MAX + 16];
	snprintf(remap, sizeof(remap), "/old/tree=%s/moved", dir);
	snprintf(dbg, sizeof(dbg), "%s/nothing:%s/deb", dir, dir);
	const char *remaps[] = { remap, NULL };
	ANA_OPTS(o, .remap = remaps, .debug_dirs = dbg);
	struct ana_set *s = ana_set_new(&o);
	ana_set_add(s, 0, 0, path("lines.pmcp"));
	T_OK(ana_set_finish(s) == 0, "finish");

	ANA_QUERY(ql, .view = ANA_VIEW_LINES);
	struct ana_rows *all = ana_set_query(s, &ql);
	static const struct {
		int line;
		const char *func;	/* query.func */
		const char *want;	/* the only function in the rows, or NULL: ENOFUNC */
		uint64_t self;
	} lq[] = {
		{ __LINE__, "t_a", "t_a", 10 },
		{ __LINE__, "t_b", "t_b", 20 },
		{ __LINE__, "test-analyzer-set:t_b", "t_b", 20 },
		{ __LINE__, "t_main", "t_main", 0 },
		{ __LINE__, "no_such", NULL, 0 },
		{ __LINE__, "other-module:t_a", NULL, 0 },
	};
	for (size_t i = 0; i < sizeof(lq) / sizeof(*lq); i++) {
		ANA_QUERY(q, .view = ANA_VIEW_LINES, .func = lq[i].func);
		struct ana_rows *r = ana_set_query(s, &q);
		bool ok;
		if (!lq[i].want) {
			ok = !r && errno == ANA_ENOFUNC;
		} else {
			uint64_t self = 0;
			size_t n_all = 0;
			ok = r && ana_rows_n(r) > 0;
			for (size_t k = 0; ok && k < ana_rows_n(r); k++) {
				ok = !strcmp(ana_rows_row(r, k)->name, lq[i].want);
				self += ana_rows_samples(r, k, 0, 0, ANA_SELF);
			}
			for (size_t k = 0; all && k < ana_rows_n(all); k++)
				n_all += !strcmp(ana_rows_row(all, k)->name, lq[i].want);
			ok = ok && self == lq[i].self && ana_rows_n(r) == n_all;
		}
		T_OK(ok, "lines line %d: func %s -> %s rows", lq[i].line, lq[i].func,
		     lq[i].want ? lq[i].want : "ENOFUNC");
		ana_rows_free(r);
	}
	ana_rows_free(all);

	/* expected paths, relative to the test directory ("" = the file as given) */
	static const struct {
		int line;
		const char *file;	/* "@fifo": the FIFO */
		int err;
		const char *want;	/* buf afterwards, under dir; NULL: file itself */
	} sp[] = {
		{ __LINE__, "/old/tree/a.c", 0, "/moved/a.c" },		/* --remap */
		{ __LINE__, "/build/x/b.c", 0, "/deb/build/x/b.c" },	/* DIR + recorded path */
		{ __LINE__, "/elsewhere/c.c", 0, "/deb/c.c" },		/* DIR + basename */
		{ __LINE__, "/old/tree/none.c", -ENOENT, "/moved/none.c" },	/* first candidate */
		{ __LINE__, "/elsewhere/none.c", -ENOENT, NULL },
		{ __LINE__, "@fifo", -ENOENT, NULL },			/* a FIFO is not read */
		{ __LINE__, "", -EINVAL, NULL },
	};
	char fifo[PATH_MAX + 32];
	snprintf(fifo, sizeof(fifo), "%s/fifo.c", d2);
	for (size_t i = 0; i < sizeof(sp) / sizeof(*sp); i++) {
		const char *file = strcmp(sp[i].file, "@fifo") ? sp[i].file : fifo;
		char buf[PATH_MAX + 64] = "", want[PATH_MAX + 64];
		int e = ana_set_source_path(s, file, buf, sizeof(buf));
		if (sp[i].want)
			snprintf(want, sizeof(want), "%s%s", dir, sp[i].want);
		else
			snprintf(want, sizeof(want), "%s", e == -EINVAL ? "" : file);
		T_OK(e == sp[i].err && !strcmp(buf, want), "source line %d: %s -> %d '%s' (got %d '%s')",
		     sp[i].line, file, sp[i].err, want, e, buf);
	}
	char tiny[8];
	T_OK(ana_set_source_path(s, "/old/tree/a.c", tiny, sizeof(tiny)) == -ENAMETOOLONG,
	     "source path: a buffer too small is -ENAMETOOLONG");
	ana_set_free(s);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s' '%s/deb'", d2, srcdir, dir);
	if (system(cmd))
		T_SKIP("could not clean up");
	unlink(path("lines.pmcp"));
}

static void test_bad_inputs(void)
{
	const struct stk st[] = { { { F(t_main), F(t_a) }, { 10 } } };
	mk(&(struct spec){ "good.pmcp", st, 1, 1, NULL, NULL, NULL, 0, 0, NULL, NULL, NULL, { NULL } });
	FILE *f = fopen(path("bad.pmcp"), "w");
	fputs("not a profile at all", f);
	fclose(f);
	struct ana_set *s = ana_set_new(NULL);
	T_OK(ana_set_finish(s) == -ANA_ENODATA, "empty set: no data");
	ana_set_free(s);
	s = ana_set_new(NULL);
	T_OK(ana_set_add(s, 0, 0, dir) < 0, "a directory with a bad file: error returned");
	T_OK(ana_set_add(s, 0, 0, path("missing.pmcp")) == -ENOENT, "missing file: -ENOENT");
	T_OK(ana_set_n_errors(s) == 2, "two error notes (%zu)", ana_set_n_errors(s));
	bool one_line = true, reader_msg = false;
	for (size_t i = 0; i < ana_set_n_notes(s); i++) {
		const struct ana_note *n = ana_set_note(s, i);
		one_line &= !strchr(n->msg, '\n');
		reader_msg |= n->severity == ANA_NOTE_ERROR && strstr(n->msg, "bad.pmcp: not a pmcprof profile");
	}
	T_OK(one_line && reader_msg, "bad file noted in one line with the reader's message");
	ANA_QUERY(q, .view = ANA_VIEW_FUNCS);
	T_OK(!ana_set_query(s, &q) && errno == ANA_ESTATE, "query before finish: ANA_ESTATE");
	T_OK(ana_set_finish(s) == 0, "the good file is still merged");
	T_OK(ana_set_add(s, 0, 0, path("good.pmcp")) == -ANA_ESTATE, "add after finish: -ANA_ESTATE");
	struct ana_rows *r = ana_set_query(s, &q);
	/* the directory also holds t1 and t2 (100 + 20) */
	T_OK(smp(r, "t_a", 0, ANA_SELF) == 130, "the good files' samples are there");
	ana_rows_free(r);
	ana_set_free(s);
	unlink(path("bad.pmcp"));

	/* recorded build-id differs from the file's: warned, not mis-symbolized */
	static const uint8_t wrong[20] = { 0xab, 0xab, 0xab };
	mk(&(struct spec){ "bid.pmcp", st, 1, 1, NULL, NULL, wrong, 0, 0, NULL, NULL, NULL, { NULL } });
	s = ana_set_new(NULL);
	ana_set_add(s, 0, 0, path("bid.pmcp"));
	ana_set_finish(s);
	bool warned = false;
	for (size_t i = 0; i < ana_set_n_notes(s); i++)
		warned |= ana_set_note(s, i)->severity == ANA_NOTE_WARN &&
			  strstr(ana_set_note(s, i)->msg, "binary changed since the run");
	r = ana_set_query(s, &q);
	char name[64];
	snprintf(name, sizeof(name), "[%s+0x%llx]", strrchr(exe, '/') + 1, (unsigned long long)F(t_a));
	T_OK(warned && r && find(r, name) >= 0 && find(r, "t_a") < 0 &&
	     (ana_rows_row(r, (size_t)find(r, name))->flags & ANA_ROW_UNRESOLVED),
	     "build-id mismatch: warning and %s", name);
	ana_rows_free(r);
	ana_set_free(s);

	/* --remap: the recorded path does not exist, the remapped one does */
	char moved[PATH_MAX + 32];
	snprintf(moved, sizeof(moved), "/nonexistent-dir%s", exe);
	mk(&(struct spec){ "moved.pmcp", st, 1, 1, NULL, NULL, NULL, 0, 0, moved, NULL, NULL, { NULL } });
	const char *remap[] = { "/nonexistent-dir/=/", NULL };
	ANA_OPTS(o, .remap = remap);
	s = ana_set_new(&o);
	ana_set_add(s, 0, 0, path("moved.pmcp"));
	ana_set_finish(s);
	r = ana_set_query(s, &q);
	T_OK(r && find(r, "t_a") >= 0, "--remap finds the module");
	ana_rows_free(r);
	ana_set_free(s);
}

static void test_metrics_weights(void)
{
	const struct stk st[] = {
		{ { F(t_main), F(t_a) }, { 100, 50 } },
		{ { F(t_main), F(t_b) }, { 10, 0 } },
	};
	/* 110 samples; a recorded weight of 220000 means a mean period of 2000 */
	mk(&(struct spec){ "two.pmcp", st, 2, 2, NULL, NULL, NULL, 1000, 220000, NULL, NULL, NULL, { NULL } });
	ANA_OPTS(o, .weighted = true);
	struct ana_set *s = ana_set_new(&o);
	ana_set_add(s, 0, 0, path("two.pmcp"));
	T_OK(ana_set_finish(s) == 0 && ana_set_n_events(s) == 2, "two events");
	char msg[200];
	T_OK(ana_set_event_index(s, "cycles") == 0 && ana_set_event_index(s, "perf::INSTRUCTIONS") == 1 &&
	     ana_set_event_index(s, "instructions") == 1 && ana_set_event_index(s, "nope") == -1,
	     "event names as users type them");
	int m = ana_set_add_metric(s, "CPI=cycles/instructions", msg, sizeof(msg));
	T_OK(m == 2 && !strcmp(ana_set_event(s, 2), "CPI"), "metric column 2: CPI (%s)", m < 0 ? msg : "");
	T_OK(ana_set_add_metric(s, "Z=cycles/bogus", msg, sizeof(msg)) == -ANA_EMETRIC &&
	     strstr(msg, "bogus"), "bad metric: %s", msg);
	ANA_QUERY(q, .view = ANA_VIEW_FUNCS);
	struct ana_rows *r = ana_set_query(s, &q);
	long a = find(r, "t_a"), b = find(r, "t_b");
	T_OK(a >= 0 && ana_rows_value(r, (size_t)a, 0, 0, ANA_SELF) == 200000 &&
	     ana_rows_samples(r, (size_t)a, 0, 0, ANA_SELF) == 100, "weights: 100 samples x 2000");
	T_OK(a >= 0 && ana_rows_value(r, (size_t)a, 0, 1, ANA_SELF) == 50000, "fixed period 1000: 50 x 1000");
	T_OK(a >= 0 && fabs(ana_rows_value(r, (size_t)a, 0, 2, ANA_SELF) - 4.0) < 1e-12, "CPI of t_a = 4");
	T_OK(b >= 0 && isnan(ana_rows_value(r, (size_t)b, 0, 2, ANA_SELF)), "CPI of t_b: division by zero");
	T_OK(b >= 0 && isnan(ana_rows_pct(r, (size_t)b, 0, 2, ANA_SELF)), "no percentage for a metric");
	ana_rows_free(r);
	ana_set_free(s);
}

static void test_compare_and_csv(void)
{
	const struct stk base[] = {
		{ { F(t_main), F(t_a) }, { 100 } },
		{ { F(t_main), F(t_b) }, { 100 } },
	};
	const struct stk run[] = {
		{ { F(t_main), F(t_a) }, { 150 } },
		{ { F(t_main), F(t_b) }, { 100 } },
		{ { F(t_main), F(t_c) }, { 50 } },
	};
	mk(&(struct spec){ "base.pmcp", base, 2, 1, NULL, NULL, NULL, 0, 0, NULL, NULL, NULL, { NULL } });
	mk(&(struct spec){ "run.pmcp", run, 3, 1, NULL, NULL, NULL, 0, 0, NULL, NULL, NULL, { NULL } });
	struct ana_set *s = ana_set_new(NULL);
	ana_set_add(s, 0, 0, path("base.pmcp"));
	ana_set_add(s, 1, 0, path("run.pmcp"));
	ana_set_label(s, 1, "run \"x\", 2");
	T_OK(ana_set_finish(s) == 0 && ana_set_n_runs(s) == 2, "two runs");
	ANA_QUERY(q, .view = ANA_VIEW_FUNCS, .ratio = ANA_RATIO_SHARE);
	q.base = 0;
	struct ana_rows *r = ana_set_query(s, &q);
	struct ana_cmp c;
	long a = find(r, "t_a"), cc = find(r, "t_c");
	/* (150/300)/(100/200) = 1; (50/300)/(0/200) -> only in run */
	T_OK(a >= 0 && !ana_rows_compare(r, (size_t)a, 1, &c) && fabs(c.ratio - 1.0) < 1e-12 &&
	     !c.significant && c.lo < 1 && c.hi > 1 && isnan(c.spread), "t_a share ratio 1, not significant");
	T_OK(cc >= 0 && !ana_rows_compare(r, (size_t)cc, 1, &c) && c.presence == ANA_ONLY_RUN &&
	     isinf(c.ratio) && c.significant, "t_c only in run: significant");
	T_OK(find(r, "t_main") < 0, "t_main (no self samples anywhere) not compared");
	ana_rows_free(r);
	ANA_QUERY(q2, .view = ANA_VIEW_FUNCS);
	r = ana_set_query(s, &q2);
	T_OK(ana_rows_compare(r, 0, 1, &c) == -ANA_ESTATE, "compare without a base: -ANA_ESTATE");

	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	T_OK(ana_rows_write_csv(r, m) == 0, "CSV written");
	fclose(m);
	const char *hdr = "event,function,module,file,line,self_samples,self_pct,incl_samples,incl_pct,"
			  "self_value,incl_value,run,inlined_into,depth,run_trust\r\n";
	T_OK(buf && !strncmp(buf, hdr, strlen(hdr)), "CSV header as documented");
	size_t lines = 0;
	for (char *p = buf; p && (p = strstr(p, "\r\n")); p += 2)
		lines++;
	T_OK(lines == 1 + ana_rows_n(r) * 2, "one CSV line per row and run (%zu)", lines);
	T_OK(buf && strstr(buf, ",\"run \"\"x\"\", 2\","), "label with quote and comma is quoted");
	free(buf);
	ana_rows_free(r);
	ana_set_free(s);
}

/* pprof, decoded back: every stack once (as function names, leaf first)
 * with its values, whether the set kept line contexts or not; with them,
 * lines are filled in; recursion stays one location per frame. */
static char *pprof_stacks(const char *const *files, bool lines, bool *has_lines, size_t *n_types)
{
	ANA_OPTS(o, .line_contexts = lines);
	struct ana_set *s = open_set(&o, files, 0);
	char *gz = NULL, *out = NULL;
	size_t gz_len = 0, out_len = 0;
	FILE *m = open_memstream(&gz, &gz_len);
	int e = ana_set_finish(s) || !m ? -1 : ana_set_write_pprof(s, m);
	if (m)
		fclose(m);
	ana_set_free(s);
	uint8_t *raw = malloc(1 << 20);
	z_stream z = { 0 };
	if (e || !raw || inflateInit2(&z, 15 + 16) != Z_OK) {
		free(raw);
		free(gz);
		return NULL;
	}
	z.next_in = (Bytef *)gz;
	z.avail_in = (uInt)gz_len;
	z.next_out = raw;
	z.avail_out = 1 << 20;
	int zr = inflate(&z, Z_FINISH);
	size_t raw_len = (1 << 20) - z.avail_out;
	inflateEnd(&z);
	free(gz);
	Perftools__Profiles__Profile *p = zr == Z_STREAM_END ?
		perftools__profiles__profile__unpack(NULL, raw_len, raw) : NULL;
	free(raw);
	if (!p)
		return NULL;
	*n_types = p->n_sample_type;
	*has_lines = false;
	m = open_memstream(&out, &out_len);
	for (size_t i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *sm = p->sample[i];
		for (size_t k = 0; k < sm->n_location_id; k++)
			for (size_t l = 0; l < p->n_location; l++) {
				const Perftools__Profiles__Location *loc = p->location[l];
				if (loc->id != sm->location_id[k])
					continue;
				for (size_t j = 0; j < loc->n_line; j++) {
					*has_lines |= loc->line[j]->line != 0;
					for (size_t f = 0; f < p->n_function; f++)
						if (p->function[f]->id == loc->line[j]->function_id)
							fprintf(m, "%s;", p->string_table[p->function[f]->name]);
				}
			}
		for (size_t v = 0; v < sm->n_value; v++)
			fprintf(m, " %lld", (long long)sm->value[v]);
		fputc('\n', m);
	}
	fclose(m);
	perftools__profiles__profile__free_unpacked(p, NULL);
	return out;
}

static int line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of text, sorted (sample order is not part of the format). */
static void sort_lines(char *text)
{
	char *lines[64], *save = NULL;
	size_t n = 0;
	for (char *l = strtok_r(text, "\n", &save); l && n < 64; l = strtok_r(NULL, "\n", &save))
		lines[n++] = strdup(l);
	qsort(lines, n, sizeof(*lines), line_cmp);
	text[0] = 0;
	for (size_t i = 0; i < n; i++) {
		strcat(text, lines[i]);
		strcat(text, "\n");
		free(lines[i]);
	}
}

static void test_pprof(void)
{
	const char *files[] = { "t1.pmcp", "t2.pmcp", NULL };
	bool lines_a = true, lines_b = false;
	size_t types_a = 0, types_b = 0;
	char *a = pprof_stacks(files, false, &lines_a, &types_a);
	char *b = pprof_stacks(files, true, &lines_b, &types_b);
	T_OK(a && b, "pprof written and decoded, with and without line contexts");
	if (!a || !b) {
		free(a);
		free(b);
		return;
	}
	sort_lines(a);
	sort_lines(b);
	/* t1 + t2 of test_merge_and_views: t_a 120, t_b 50, t_rec x3 30 samples
	 * (x period 1000, in events) */
	const char *want = "t_a;t_main; 120000\n"
			   "t_b;t_main; 50000\n"
			   "t_rec;t_rec;t_rec;t_main; 30000\n";
	T_OK(!strcmp(a, want), "stacks from the tree: '%s'", a);
	T_OK(!strcmp(b, want), "stacks from the line contexts: '%s'", b);
	T_OK(!lines_a && lines_b, "line numbers only with line contexts");
	T_OK(types_a == 1 && types_b == 1, "one sample type per event (the profiles have one)");
	free(a);
	free(b);
}

/* Runs that sampled different events (a fallback, another backend): each
 * run is compared on its event at the selected event's place. */
static const struct {
	int line;
	const char *base[2], *run[2];	/* events of the base and of the run */
	const char *sel;		/* the selected event */
	const char *want_base, *want_run;	/* compared on; NULL: none */
} cross_cases[] = {
	{ __LINE__, { "perf::CPU-CLOCK" }, { "CPUTIME" }, "perf::CPU-CLOCK", "perf::CPU-CLOCK", "CPUTIME" },
	{ __LINE__, { "perf::CPU-CLOCK" }, { "CPUTIME" }, "CPUTIME", "perf::CPU-CLOCK", "CPUTIME" },
	{ __LINE__, { "perf::CPU-CLOCK" }, { "perf::CPU-CLOCK" }, "perf::CPU-CLOCK", "perf::CPU-CLOCK",
	  "perf::CPU-CLOCK" },
	{ __LINE__, { "perf::CYCLES", "perf::INSTRUCTIONS" }, { "perf::CPU-CLOCK" }, "perf::CYCLES",
	  "perf::CYCLES", "perf::CPU-CLOCK" },
	{ __LINE__, { "perf::CYCLES", "perf::INSTRUCTIONS" }, { "perf::CPU-CLOCK" }, "perf::INSTRUCTIONS",
	  "perf::INSTRUCTIONS", NULL },
	{ __LINE__, { "perf::CYCLES", "perf::INSTRUCTIONS" }, { "perf::CPU-CLOCK", "perf::PAGE-FAULTS" },
	  "perf::INSTRUCTIONS", "perf::INSTRUCTIONS", "perf::PAGE-FAULTS" },
	/* a name both have wins over the place */
	{ __LINE__, { "perf::CYCLES", "perf::CPU-CLOCK" }, { "perf::CPU-CLOCK" }, "perf::CPU-CLOCK",
	  "perf::CPU-CLOCK", "perf::CPU-CLOCK" },
	{ __LINE__, { "perf::CYCLES", "perf::CPU-CLOCK" }, { "perf::CPU-CLOCK" }, "perf::CYCLES",
	  "perf::CYCLES", "perf::CPU-CLOCK" },
};

static void test_cross_events(void)
{
	/* the run has twice the samples, in the same shares */
	const struct stk base[] = {
		{ { F(t_main), F(t_a) }, { 600, 60 } },
		{ { F(t_main), F(t_b) }, { 400, 40 } },
	};
	const struct stk run[] = {
		{ { F(t_main), F(t_a) }, { 1200, 120 } },
		{ { F(t_main), F(t_b) }, { 800, 80 } },
	};
	for (size_t i = 0; i < sizeof(cross_cases) / sizeof(*cross_cases); i++) {
		const __typeof__(cross_cases[0]) *c = &cross_cases[i];
		char fb[32], fr[32];	/* files are never overwritten: one pair per case */
		snprintf(fb, sizeof(fb), "xb%zu.pmcp", i);
		snprintf(fr, sizeof(fr), "xr%zu.pmcp", i);
		struct spec sb = { .name = fb, .st = base, .n = 2, .n_ev = c->base[1] ? 2 : 1 };
		struct spec sr = { .name = fr, .st = run, .n = 2, .n_ev = c->run[1] ? 2 : 1 };
		memcpy(sb.ev, c->base, sizeof(sb.ev));
		memcpy(sr.ev, c->run, sizeof(sr.ev));
		mk(&sb);
		mk(&sr);
		struct ana_set *s = ana_set_new(NULL);
		ana_set_add(s, 0, 0, path(fb));
		ana_set_add(s, 1, 0, path(fr));
		int sel = ana_set_finish(s) ? -1 : ana_set_event_index(s, c->sel);
		int eb = sel < 0 ? -2 : ana_set_run_event(s, 0, (size_t)sel);
		int er = sel < 0 ? -2 : ana_set_run_event(s, 1, (size_t)sel);
		const char *nb = eb >= 0 ? ana_set_event(s, (size_t)eb) : NULL;
		const char *nr = er >= 0 ? ana_set_event(s, (size_t)er) : NULL;
		bool ok = sel >= 0 && nb && !strcmp(nb, c->want_base) &&
			  (c->want_run ? nr && !strcmp(nr, c->want_run) : er == -1);
		T_OK(ok, "cross-event line %d: %s compares %s with %s (got %s, %s)", c->line, c->sel,
		     c->want_base, c->want_run ? c->want_run : "none", nb ? nb : "none", nr ? nr : "none");
		if (ok && c->want_run) {
			/* shares of the two events: alike; raw counts: refused */
			ANA_QUERY(q, .view = ANA_VIEW_FUNCS, .event = (size_t)sel);
			q.base = 0;
			struct ana_rows *r = ana_set_query(s, &q);
			long a = r ? find(r, "t_a") : -1;
			struct ana_cmp cmp;
			T_OK(a >= 0 && !ana_rows_compare(r, (size_t)a, 1, &cmp) &&
			     fabs(cmp.ratio - 1.0) < 1e-12 && cmp.presence == ANA_IN_BOTH && !cmp.significant,
			     "cross-event line %d: share ratio of t_a is 1", c->line);
			ana_rows_free(r);
			q.ratio = ANA_RATIO_RAW;
			errno = 0;
			r = ana_set_query(s, &q);
			bool same = !strcmp(c->want_base, c->want_run);
			T_OK(same ? r != NULL : !r && errno == ANA_EEVENTS,
			     "cross-event line %d: raw ratio %s", c->line, same ? "allowed" : "refused");
			ana_rows_free(r);
		}
		ana_set_free(s);
	}
}

/* perf's filters (ana_opts comms/pids/tids: which files; dsos/symbols:
 * which samples, totals kept) and the per-instruction samples annotate
 * reads, over test_merge_and_views' two threads. */
/* The tables annotate.c stands on: t_a found by name, its 120 samples on
 * the addresses whose code is its, in a mapping of this test's file. */
static void check_addresses(const struct ana_set *s)
{
	size_t nf = ana_set_n_functions(s);
	uint8_t is[nf ? nf : 1];
	memset(is, 0, sizeof(is));
	T_OK(ana_set_match_functions(s, "t_a", is) == 1, "match t_a: one function");
	uint64_t sum = 0;
	bool map_ok = true;
	for (size_t a = 0; a < ana_set_n_addresses(s); a++) {
		struct ana_address ad = { .sz = sizeof(ad) };
		struct ana_module m = { .sz = sizeof(m) };
		if (ana_set_address(s, a, &ad) || ad.func == UINT32_MAX || !is[ad.func])
			continue;
		sum += ana_set_address_samples(s, a, 0, 0);
		map_ok &= !ana_set_mapping(s, ad.mapping, &m) && m.file && !m.kernel && !m.jit &&
			  !m.embedded && m.path && strstr(m.path, "test") && ad.addr == F(t_a);
	}
	T_OK(sum == 120 && map_ok, "t_a's addresses: 120 samples (%llu), in this file",
	     (unsigned long long)sum);
	struct ana_address ad = { .sz = sizeof(ad) };
	struct ana_module m = { .sz = sizeof(m) };
	T_OK(ana_set_address(s, ana_set_n_addresses(s), &ad) == -EINVAL &&
	     ana_set_mapping(s, (uint32_t)ana_set_n_mappings(s), &m) == -EINVAL &&
	     !ana_set_address_samples(s, 0, ana_set_n_runs(s), 0), "past the end");
}

static void test_filters_and_annotate(void)
{
	const char *files[] = { "t1.pmcp", "t2.pmcp", NULL };
	static const struct {
		int line;
		const char *tids, *dsos, *symbols;
		uint64_t total;		/* the run's samples */
		const char *name;	/* a row and its self, incl */
		uint64_t self, incl;
		double pct;		/* its self share */
		size_t rows;
	} cases[] = {
		{ __LINE__, NULL, NULL, NULL, 200, "t_a", 120, 120, 60, 4 },
		{ __LINE__, "1001", NULL, NULL, 50, "t_a", 20, 20, 40, 3 },
		{ __LINE__, "1000,1001", NULL, NULL, 200, "t_b", 50, 50, 25, 4 },
		{ __LINE__, NULL, NULL, "t_a", 200, "t_main", 0, 120, 0, 2 },
		{ __LINE__, NULL, NULL, "t_b,t_rec", 200, "t_b", 50, 50, 25, 3 },
		{ __LINE__, NULL, "no-such.so", NULL, 200, NULL, 0, 0, 0, 0 },
		{ __LINE__, "1000", NULL, "t_a", 150, "t_a", 100, 100, 100.0 * 100 / 150, 2 },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(*cases); k++) {
		ANA_OPTS(o, .tids = cases[k].tids, .dsos = cases[k].dsos, .symbols = cases[k].symbols);
		struct ana_set *s = open_set(&o, files, 0);
		bool ok = ana_set_finish(s) == 0 && ana_set_run(s, 0)->events[0].samples == cases[k].total;
		ANA_QUERY(q, .view = ANA_VIEW_FUNCS);
		struct ana_rows *r = ok ? ana_set_query(s, &q) : NULL;
		ok = r && ana_rows_n(r) == cases[k].rows;
		if (ok && cases[k].name) {
			long i = find(r, cases[k].name);
			ok = i >= 0 && smp(r, cases[k].name, 0, ANA_SELF) == cases[k].self &&
			     smp(r, cases[k].name, 0, ANA_INCL) == cases[k].incl &&
			     fabs(ana_rows_pct(r, (size_t)i, 0, 0, ANA_SELF) - cases[k].pct) < 1e-9;
		}
		T_OK(ok, "filters line %d: %s%s%s%s%s%s", cases[k].line,
		     cases[k].tids ? " tids " : "", cases[k].tids ? cases[k].tids : "",
		     cases[k].dsos ? " dsos " : "", cases[k].dsos ? cases[k].dsos : "",
		     cases[k].symbols ? " symbols " : "", cases[k].symbols ? cases[k].symbols : "");
		ana_rows_free(r);
		ana_set_free(s);
	}

	/* annotate: t_a's 120 samples on its first instruction (the address
	 * the stacks name), none elsewhere */
	ANA_OPTS(o, .addr_samples = true);
	struct ana_set *s = open_set(&o, files, 0);
	struct ana_annotation *a = NULL;
	char msg[256];
	T_OK(ana_set_finish(s) == 0, "annotate: set finished");
	int e = ana_set_annotate(s, "t_a", 0, 0, &a, msg, sizeof(msg));
	T_OK(e == 0 && a, "annotate t_a: %s", e ? msg : "ok");
	if (a) {
		uint64_t at = 0, sum = 0;
		for (size_t i = 0; i < a->n; i++) {
			sum += a->insn[i].samples;
			if (a->insn[i].addr == F(t_a))
				at = a->insn[i].samples;
		}
		T_OK(a->lo == F(t_a) && a->hi > a->lo && a->n >= 1, "annotate: t_a's symbol range");
		T_OK(a->samples == 120 && at == 120 && sum == 120 && !a->outside,
		     "annotate: 120 samples, all at t_a's first instruction (%llu)", (unsigned long long)at);
		T_OK(a->insn[0].text && a->insn[0].text[0], "annotate: disassembled (%s)", a->insn[0].text);
	}
	ana_annotation_free(a);
	T_OK(ana_set_annotate(s, "no_such", 0, 0, &a, msg, sizeof(msg)) == -ANA_ENOFUNC,
	     "annotate: an unknown function");
	check_addresses(s);
	ana_set_free(s);
	ANA_OPTS(o2, .weighted = false);
	s = open_set(&o2, files, 0);
	T_OK(ana_set_finish(s) == 0 &&
	     ana_set_annotate(s, "t_a", 0, 0, &a, msg, sizeof(msg)) == -ANA_ESTATE,
	     "annotate without addr_samples: ANA_ESTATE");
	ana_set_free(s);
}

int main(void)
{
	dl_iterate_phdr(first_phdr, NULL);
	if (!realpath("/proc/self/exe", exe))
		return 77;
	snprintf(dir, sizeof(dir), "/tmp/test-analyzer-XXXXXX");
	if (!mkdtemp(dir))
		return 77;
	test_merge_and_views();
	test_filters_and_annotate();
	test_bottomup_chains();
	test_duration();
	test_lines_and_sources();
	test_bad_inputs();
	test_metrics_weights();
	test_compare_and_csv();
	test_cross_events();
	test_pprof();
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		T_SKIP("could not remove %s", dir);
	return T_DONE();
}

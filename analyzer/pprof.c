/* pprof export: the calling-context tree as pprof's profile.proto
 * (encoded by protobuf-c from analyzer/profile.proto, gzip-compressed by
 * zlib), so that `go tool pprof`, Pyroscope or Grafana read it.
 * docs/exports.md says what goes into which field. */
#include "config.h"

#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "analyzer/analyzer.h"
#include "analyzer/profile.pb-c.h"
#include "analyzer/util.h"

typedef Perftools__Profiles__Profile PProfile;
typedef Perftools__Profiles__ValueType PValueType;
typedef Perftools__Profiles__Sample PSample;
typedef Perftools__Profiles__Label PLabel;
typedef Perftools__Profiles__Mapping PMapping;
typedef Perftools__Profiles__Location PLocation;
typedef Perftools__Profiles__Line PLine;
typedef Perftools__Profiles__Function PFunction;

/* Everything is allocated in growing arrays and freed together. */
struct pp {
	struct ana_set *s;
	size_t ne;			/* sampled events */
	unsigned nr;			/* runs */
	bool weighted;
	bool *periodic;			/* [event]: values are samples x its fixed period */
	struct strpool pool;		/* string table entries, by pointer */
	struct idx str_idx;
	const char **str;
	size_t n_str, cap_str;

	PFunction *fn;			/* [set function] (id 0: not made yet) */
	PMapping *map;			/* [set module] */
	PLocation *loc;
	PLine *line;			/* lines of the locations, in one pool */
	uint32_t *loc_func;		/* the functions of each location, in one pool */
	uint32_t *loc_no;		/* and their line numbers */
	size_t *loc_first;		/* [location] its first line in the pools */
	size_t n_loc, cap_loc, cap_loc_first, n_line, cap_line;
	struct idx loc_idx;
	PSample *smp;
	size_t n_smp, cap_smp;
	size_t (*smp_at)[3];		/* [sample] first id, first value, run */
	size_t cap_smp_at;
	uint64_t *ids;			/* location ids of the samples, one pool */
	size_t n_ids, cap_ids;
	int64_t *val;			/* values of the samples, one pool */
	size_t n_val, cap_val;
	PLabel *lab;			/* one per run */
	PValueType *vt;			/* [event], and the period's type */
	int64_t *comments;
	size_t n_comments, cap_comments;

	/* the message's arrays of pointers, once the pools are final */
	PValueType **vtp;
	PSample **smpp;
	PLocation **locp;
	PLine **linep;
	PLabel **labp;
	PFunction **fnp;
	PMapping **mapp;
};

/* A frame path, leaf first: functions, line numbers, inlined into the
 * next, addresses (NULL where unknown). */
struct pp_path {
	uint32_t *f, *no;
	bool *inl;
	uint64_t *addr;
	size_t cap;
};

static int path_reserve(struct pp_path *x, size_t n, bool addr)
{
	size_t c = x->cap;
	if (n <= x->cap)
		return 0;
	if (vec_reserve(&x->f, &c, n, sizeof(*x->f)) || (c = x->cap, vec_reserve(&x->no, &c, n, sizeof(*x->no))) ||
	    (c = x->cap, vec_reserve(&x->inl, &c, n, sizeof(*x->inl))) ||
	    (addr && (c = x->cap, vec_reserve(&x->addr, &c, n, sizeof(*x->addr)))))
		return -ENOMEM;
	x->cap = c;
	return 0;
}

static void path_free(struct pp_path *x)
{
	FREE_EACH(x->f, x->no, x->inl, x->addr);
}

static bool str_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct pp *p = ctx;
	return !strcmp(p->str[id], key);
}

/* Index of s in the string table (added on first use); -1 on ENOMEM. */
static int64_t pp_str(struct pp *p, const char *s)
{
	if (!s)
		s = "";
	uint64_t h = hash_bytes(s, strlen(s), 0x5eed);
	uint32_t id = idx_find(&p->str_idx, h, str_eq, p, s);
	if (id != NONE)
		return id;
	const char *c = strpool_str(&p->pool, s);
	if (!c || vec_reserve(&p->str, &p->cap_str, p->n_str + 1, sizeof(*p->str)))
		return -1;
	p->str[p->n_str] = c;
	if (idx_put(&p->str_idx, h, (uint32_t)p->n_str))
		return -1;
	return (int64_t)p->n_str++;
}

static const char *pprof_unit(const char *unit)
{
	if (unit && !strcmp(unit, "ns"))
		return "nanoseconds";
	if (unit && !strcmp(unit, "us"))
		return "microseconds";
	return "count";
}

/* The function id of set function f, made on first use. */
static int pp_func(struct pp *p, uint32_t f, uint64_t *out)
{
	PFunction *fn = &p->fn[f];
	if (!fn->id) {
		struct ana_function sf = { .sz = sizeof(sf) };
		if (ana_set_function(p->s, f, &sf))
			return -EINVAL;
		perftools__profiles__function__init(fn);
		fn->id = f + 1;
		int64_t nm = pp_str(p, sf.name), fl = pp_str(p, sf.file ? sf.file : "");
		if (nm < 0 || fl < 0)
			return -ENOMEM;
		fn->name = fn->system_name = nm;
		fn->filename = fl;
		fn->start_line = sf.line;
	}
	*out = fn->id;
	return 0;
}

/* The executable load segment of the module's file, if it is here with
 * the recorded build-id: [*lo, *hi) in ELF addresses, at file offset *off. */
static bool exec_segment(const struct ana_module *md, uint64_t *lo, uint64_t *hi, uint64_t *off)
{
	int fd = md->file ? open(md->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) : -1;
	struct stat sb;
	bool ok = false;
	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	Elf *e = !fstat(fd, &sb) && S_ISREG(sb.st_mode) ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	const void *b;
	ssize_t k = e ? dwelf_elf_gnu_build_id(e, &b) : -1;
	size_t n = 0;
	if (k > 0 && (size_t)k == md->build_id_len && !memcmp(b, md->build_id, md->build_id_len) &&
	    !elf_getphdrnum(e, &n))
		for (size_t i = 0; i < n && !ok; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
				*lo = ph.p_vaddr;
				*hi = ph.p_vaddr + ph.p_memsz;
				*off = ph.p_offset;
				ok = true;
			}
		}
	if (e)
		elf_end(e);
	close(fd);
	return ok;
}

/* A module's mapping: its path, its build-id, and its range.  A module
 * file's addresses are its ELF addresses (its link-time layout: what its
 * symbols and disassembly use, and one layout for every process that
 * mapped it, whatever ASLR did), its mapping its executable load segment
 * where the file is here with the recorded build-id, else its load
 * segments' span at offset 0: so `go tool pprof` (which takes addresses as
 * they are) and binutils-based pprof (which subtracts start - offset +
 * the segment's offset - its address) both find the instructions for
 * -disasm.  The kernel and the vdso keep their run-time addresses. */
static int pp_mapping(struct pp *p, uint32_t m)
{
	PMapping *mp = &p->map[m];
	if (mp->id)
		return 0;
	struct ana_module md = { .sz = sizeof(md) };
	if (ana_set_module(p->s, m, &md))
		return -EINVAL;
	perftools__profiles__mapping__init(mp);
	mp->id = m + 1;
	int64_t fn = pp_str(p, md.path ? md.path : md.base);
	if (fn < 0)
		return -ENOMEM;
	mp->filename = fn;
	uint64_t lo, hi, off;
	if (md.file && md.build_id_len && exec_segment(&md, &lo, &hi, &off)) {
		mp->memory_start = lo;
		mp->memory_limit = hi;
		mp->file_offset = off;
	} else if (md.end > md.start) {
		mp->memory_start = md.start - (md.file ? md.bias : 0);
		mp->memory_limit = md.end - (md.file ? md.bias : 0);
		mp->file_offset = 0;
	}
	if (md.build_id_len) {
		char hex[2 * 64 + 1];
		for (size_t k = 0; k < md.build_id_len && k < 64; k++)
			snprintf(hex + 2 * k, 3, "%02x", md.build_id[k]);
		int64_t b = pp_str(p, hex);
		if (b < 0)
			return -ENOMEM;
		mp->build_id = b;
	}
	/* symbolized here: readers must not try again */
	mp->has_functions = mp->has_filenames = mp->has_line_numbers = mp->has_inline_frames = true;
	return 0;
}

struct lkey {
	const uint32_t *f, *no;
	size_t n;
	uint64_t addr;
};

static bool loc_eq(const void *ctx, uint32_t id, const void *key)
{
	const struct pp *p = ctx;
	const struct lkey *k = key;
	const PLocation *l = &p->loc[id];
	if (l->n_line != k->n || l->address != k->addr)
		return false;
	const uint32_t *f = &p->loc_func[p->loc_first[id]], *no = &p->loc_no[p->loc_first[id]];
	return !memcmp(f, k->f, k->n * sizeof(*f)) && !memcmp(no, k->no, k->n * sizeof(*no));
}

/* Room for one more location of n lines.  0 or -ENOMEM. */
static int loc_reserve(struct pp *p, size_t n)
{
	size_t c = p->cap_line;
	if (vec_reserve(&p->loc, &p->cap_loc, p->n_loc + 1, sizeof(*p->loc)) ||
	    vec_reserve(&p->loc_first, &p->cap_loc_first, p->n_loc + 1, sizeof(size_t)) ||
	    vec_reserve(&p->line, &c, p->n_line + n, sizeof(*p->line)) ||
	    (c = p->cap_line, vec_reserve(&p->loc_func, &c, p->n_line + n, sizeof(uint32_t))) ||
	    (c = p->cap_line, vec_reserve(&p->loc_no, &c, p->n_line + n, sizeof(uint32_t))))
		return -ENOMEM;
	p->cap_line = c;
	return 0;
}

/* A new location id for frames f[0..n) at addr: its mapping is the
 * really called frame's module; lines point into the pools later. */
static int loc_add(struct pp *p, const uint32_t *f, const uint32_t *no, size_t n, uint64_t addr,
		   uint32_t *id)
{
	struct ana_function fo = { .sz = sizeof(fo) };
	if (loc_reserve(p, n) || ana_set_function(p->s, f[n - 1], &fo))
		return -ENOMEM;
	*id = (uint32_t)p->n_loc;
	PLocation *l = &p->loc[*id];
	perftools__profiles__location__init(l);
	l->id = *id + 1;
	l->n_line = n;
	l->address = addr;
	p->loc_first[*id] = p->n_line;	/* l->line is set at the end */
	if (pp_mapping(p, fo.module_id))
		return -ENOMEM;
	l->mapping_id = fo.module_id + 1;
	for (size_t j = 0; j < n; j++) {
		PLine *ln = &p->line[p->n_line + j];
		perftools__profiles__line__init(ln);
		if (pp_func(p, f[j], &ln->function_id))
			return -ENOMEM;
		ln->line = no[j];	/* 0: unknown */
		p->loc_func[p->n_line + j] = f[j];
		p->loc_no[p->n_line + j] = no[j];
	}
	p->n_line += n;
	p->n_loc++;
	return 0;
}

/* The location of frames f[0..n) (innermost first: the frames inlined into
 * f[n-1], which was really called) at addr (a module file's ELF address,
 * the kernel's or vdso's where it ran, see pp_mapping; 0 unknown); made on
 * first use. */
static int pp_location(struct pp *p, const uint32_t *f, const uint32_t *no, size_t n,
		       uint64_t addr, uint64_t *out)
{
	struct lkey k = { f, no, n, addr };
	uint64_t h = hash_u64(hash_u64(hash_bytes(f, n * sizeof(*f), 0x10c),
				       hash_bytes(no, n * sizeof(*no), 1)), addr);
	uint32_t id = idx_find(&p->loc_idx, h, loc_eq, p, &k);
	if (id == NONE && (loc_add(p, f, no, n, addr, &id) || idx_put(&p->loc_idx, h, id)))
		return -ENOMEM;
	*out = p->loc[id].id;
	return 0;
}

/* What run's facts (facts.h) say of event column ev: its period, frequency,
 * whether they were mixed, its samples. */
static const struct ana_event_fact *pp_event(const struct pp *p, unsigned run, size_t ev)
{
	size_t n;
	return ana_facts_all(ana_set_facts(p->s, run), ANA_FACT_EVENT, &n)[ev].event;
}

/* Value of event ev for samples n of run: samples x the fixed period in the
 * event's unit, or the count (ana_opts.weighted: the weight). */
static int64_t pp_value(const struct pp *p, unsigned run, size_t ev, uint64_t n, double w)
{
	if (p->weighted)
		return (int64_t)llround(w);
	if (p->periodic[ev])
		return (int64_t)(n * pp_event(p, run, ev)->period);
	return (int64_t)n;
}

/* One sample of run: the path's n frames; values v[ne]. */
static int pp_sample(struct pp *p, unsigned run, const struct pp_path *x, size_t n, const int64_t *v)
{
	size_t first_id = p->n_ids, ne = p->ne;
	if (vec_reserve(&p->ids, &p->cap_ids, p->n_ids + n, sizeof(*p->ids)) ||
	    vec_reserve(&p->val, &p->cap_val, p->n_val + ne, sizeof(*p->val)) ||
	    vec_reserve(&p->smp, &p->cap_smp, p->n_smp + 1, sizeof(*p->smp)) ||
	    vec_reserve(&p->smp_at, &p->cap_smp_at, p->n_smp + 1, sizeof(*p->smp_at)))
		return -ENOMEM;
	/* locations, leaf first: each a frame really called and the frames
	 * inlined into it, innermost first */
	for (size_t k = 0, from = 0; k < n; k++)
		if (!x->inl[k] || k + 1 == n) {
			if (pp_location(p, x->f + from, x->no + from, k + 1 - from,
					x->addr ? x->addr[k] : 0, &p->ids[p->n_ids++]))
				return -ENOMEM;
			from = k + 1;
		}
	PSample *sm = &p->smp[p->n_smp];
	perftools__profiles__sample__init(sm);
	sm->n_location_id = p->n_ids - first_id;
	sm->n_value = ne;
	sm->n_label = p->nr > 1;
	/* pointers into the pools once they stop moving */
	p->smp_at[p->n_smp][0] = first_id;
	p->smp_at[p->n_smp][1] = p->n_val;
	p->smp_at[p->n_smp++][2] = run;
	memcpy(&p->val[p->n_val], v, ne * sizeof(*v));
	p->n_val += ne;
	return 0;
}

/* Row i's self samples as one sample per run that has any; the path to it
 * (root first, by depth) is down[1..d]. */
static int pp_row_samples(struct pp *p, const struct ana_rows *r, size_t i, const struct pp_path *down,
			  unsigned d, struct pp_path *up, int64_t *v)
{
	for (unsigned run = 0; run < p->nr; run++) {
		bool any = false;
		for (size_t ev = 0; ev < p->ne; ev++) {
			uint64_t c = ana_rows_samples(r, i, run, ev, ANA_SELF);
			any |= c != 0;
			v[ev] = pp_value(p, run, ev, c, ana_rows_value(r, i, run, ev, ANA_SELF));
		}
		if (!any)
			continue;
		for (unsigned k = 0; k < d; k++) {
			up->f[k] = down->f[d - k];
			up->inl[k] = down->inl[d - k];
		}
		if (pp_sample(p, run, up, d, v))
			return -ENOMEM;
	}
	return 0;
}

/* Samples from a full top-down row set: rows come depth first, so the
 * path to a row is the last row seen at each depth above it. */
static int pp_samples_rows(struct pp *p, const struct ana_rows *r)
{
	size_t n = ana_rows_n(r);
	unsigned maxd = 1;
	for (size_t i = 0; i < n; i++)
		if (ana_rows_row(r, i)->depth > maxd)
			maxd = ana_rows_row(r, i)->depth;
	struct pp_path down = { 0 }, up = { 0 };
	int64_t *v = calloc(p->ne ? p->ne : 1, sizeof(*v));
	int e = -ENOMEM;
	if (v && !path_reserve(&down, maxd + 1, false) && !path_reserve(&up, maxd + 1, false)) {
		e = 0;
		for (size_t i = 0; i < n && !e; i++) {
			const struct ana_row *row = ana_rows_row(r, i);
			down.f[row->depth] = ana_set_node_function(p->s, row->node);
			down.inl[row->depth] = row->flags & ANA_ROW_INLINED;
			e = pp_row_samples(p, r, i, &down, row->depth, &up, v);
		}
	}
	path_free(&down);
	path_free(&up);
	free(v);
	return e;
}

/* One sample of run for line context ctx (leaf first up its parents). */
static int pp_context_sample(struct pp *p, unsigned run, uint32_t ctx, struct pp_path *x,
			     const int64_t *v)
{
	struct ana_context c = { .sz = sizeof(c) };
	size_t d = 0;
	for (uint32_t k = ctx; k && !ana_set_context(p->s, k, &c); k = c.parent)
		d++;
	if (path_reserve(x, d, true))
		return -ENOMEM;
	size_t k = 0;
	for (uint32_t y = ctx; y && !ana_set_context(p->s, y, &c); y = c.parent, k++) {
		x->f[k] = c.func;
		x->no[k] = c.line;
		x->inl[k] = c.inlined;
		x->addr[k] = c.addr;
	}
	return pp_sample(p, run, x, d, v);
}

/* Samples from the line contexts (ana_opts.line_contexts): sorted by run
 * and context, one sample per (run, context) with a value per event. */
static int pp_samples_lines(struct pp *p)
{
	size_t ne = p->ne, n = ana_set_n_context_samples(p->s);
	struct pp_path x = { 0 };
	int64_t *v = calloc(ne ? ne : 1, sizeof(*v));
	int e = v ? 0 : -ENOMEM;
	for (size_t i = 0, j; i < n && !e; i = j) {
		struct ana_context_samples a = { .sz = sizeof(a) }, b = { .sz = sizeof(b) };
		ana_set_context_samples(p->s, i, &a);
		memset(v, 0, ne * sizeof(*v));
		for (j = i; j < n && !ana_set_context_samples(p->s, j, &b) && b.run == a.run &&
			    b.context == a.context; j++)
			if (b.event < ne)
				v[b.event] += pp_value(p, b.run, b.event, b.samples, b.weight);
		if (a.context != NONE && a.context != 0)
			e = pp_context_sample(p, a.run, a.context, &x, v);
	}
	path_free(&x);
	free(v);
	return e;
}

static void pp_free(struct pp *p)
{
	FREE_EACH(p->str, p->fn, p->map, p->loc, p->line, p->loc_func, p->loc_no, p->loc_first,
		  p->smp_at, p->smp, p->ids, p->val, p->lab, p->vt, p->comments, p->periodic,
		  p->vtp, p->smpp, p->locp, p->linep, p->labp, p->fnp, p->mapp);
	strpool_free(&p->pool);
	idx_free(&p->str_idx);
	idx_free(&p->loc_idx);
}

static int gz_write(const uint8_t *buf, size_t len, FILE *f)
{
	z_stream z = { 0 };
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	uint8_t out[65536];
	z.next_in = (Bytef *)buf;
	int zr;
	size_t left = len;
	do {
		uInt chunk = left > (1u << 30) ? 1u << 30 : (uInt)left;
		z.avail_in = chunk;
		left -= chunk;
		do {
			z.next_out = out;
			z.avail_out = sizeof(out);
			zr = deflate(&z, left ? Z_NO_FLUSH : Z_FINISH);
			fwrite(out, 1, sizeof(out) - z.avail_out, f);
		} while (z.avail_out == 0);
	} while (left);
	deflateEnd(&z);
	fflush(f);
	return zr == Z_STREAM_END && !ferror(f) ? 0 : -EIO;
}

/* Sample types: one per event, in its unit where every run used one fixed
 * period (then value = samples x period); the first is the period's. */
static int pp_sample_types(struct pp *p, PProfile *prof)
{
	size_t ne = p->ne;
	for (size_t ev = 0; ev < ne; ev++) {
		PValueType *vt = &p->vt[ev];
		p->periodic[ev] = !p->weighted;
		for (unsigned run = 0; run < p->nr; run++) {
			const struct ana_event_fact *x = pp_event(p, run, ev);
			if (x->samples && (!x->period || x->freq || x->mixed))
				p->periodic[ev] = false;
		}
		perftools__profiles__value_type__init(vt);
		vt->type = pp_str(p, ana_set_event(p->s, ev));
		vt->unit = pp_str(p, p->periodic[ev] || p->weighted
				  ? pprof_unit(ana_set_event_unit(p->s, ev)) : "count");
		p->vtp[ev] = vt;
		if (vt->type < 0 || vt->unit < 0)
			return -ENOMEM;
	}
	prof->n_sample_type = ne;
	prof->sample_type = p->vtp;
	if (!ne)
		return 0;
	perftools__profiles__value_type__init(&p->vt[ne]);
	p->vt[ne] = p->vt[0];
	prof->period_type = &p->vt[ne];
	prof->default_sample_type = p->vt[0].type;
	for (unsigned run = 0; run < p->nr; run++)
		if (pp_event(p, run, 0)->samples) {
			prof->period = (int64_t)pp_event(p, run, 0)->period;
			break;
		}
	return 0;
}

/* A comment line made with printf's format. */
__attribute__((format(printf, 2, 3))) static void pp_comment(struct pp *p, const char *fmt, ...)
{
	char line[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	p->comments[p->n_comments++] = pp_str(p, line);
}

/* Run facts (facts.h) as comments: label, metadata, the events sampled
 * (as asked and used), collector counters. */
static void pp_fact_comments(struct pp *p, unsigned run, const struct ana_facts *f)
{
	size_t n_meta, n_ev, n_ctr;
	const struct ana_fact *meta = ana_facts_all(f, ANA_FACT_META, &n_meta);
	const struct ana_fact *ev = ana_facts_all(f, ANA_FACT_EVENT, &n_ev);
	const struct ana_fact *ctr = ana_facts_all(f, ANA_FACT_COUNTER, &n_ctr);

	const struct ana_fact *slice = ana_facts_get(f, ANA_FACT_SLICE);

	pp_comment(p, "run %u: %s (%llu files)", run, ana_facts_get(f, ANA_FACT_LABEL)->text,
		   (unsigned long long)ana_facts_get(f, ANA_FACT_FILES)->count);
	/* the counts below are of a slice of the run only */
	if (!(slice->flags & ANA_FACT_EMPTY) && isnan(slice->value))
		pp_comment(p, "time slice: --time %s", slice->text);
	else if (!(slice->flags & ANA_FACT_EMPTY))
		pp_comment(p, "time slice: --time %s (%.3f s of the run)", slice->text, slice->value);
	for (size_t k = 0; k < n_meta; k++)
		pp_comment(p, "%s: %s", meta[k].key, meta[k].text);
	for (size_t k = 0; k < n_ev; k++)
		if (ev[k].count)
			pp_comment(p, "event %s (requested %s): period %llu, freq %llu%s, %llu samples",
				   ev[k].key, ev[k].text, (unsigned long long)ev[k].event->period,
				   (unsigned long long)ev[k].event->freq,
				   ev[k].event->mixed ? " (mixed)" : "", (unsigned long long)ev[k].count);
	for (size_t k = 0; k < n_ctr; k++)
		pp_comment(p, "collector %s = %llu", ctr[k].key, (unsigned long long)ctr[k].count);
}

/* The run's facts as comments, the longest run's duration, and the run's
 * label. */
static int pp_run_facts(struct pp *p, unsigned run, PProfile *prof)
{
	const struct ana_facts *f = ana_set_facts(p->s, run);
	const char *label = ana_facts_get(f, ANA_FACT_LABEL)->text;
	double duration = ana_facts_get(f, ANA_FACT_DURATION)->value;
	if (vec_reserve(&p->comments, &p->cap_comments, p->n_comments + 2 + ana_facts_n(f),
			sizeof(*p->comments)))
		return -ENOMEM;
	pp_fact_comments(p, run, f);
	for (size_t k = 0; k < p->n_comments; k++)
		if (p->comments[k] < 0)
			return -ENOMEM;
	if (!isnan(duration) && (int64_t)(duration * 1e9) > prof->duration_nanos)
		prof->duration_nanos = (int64_t)(duration * 1e9);
	perftools__profiles__label__init(&p->lab[run]);
	p->lab[run].key = pp_str(p, "run");
	p->lab[run].str = pp_str(p, label);
	return p->lab[run].key < 0 || p->lab[run].str < 0 ? -ENOMEM : 0;
}

/* The pools are final: offsets become pointers, and the message's lists
 * (the program's own mapping first: pprof's "File:", and the binary
 * -disasm and -list read by default). */
static int pp_link(struct pp *p, PProfile *prof)
{
	size_t nf = ana_set_n_functions(p->s), nm = ana_set_n_modules(p->s);
	if (!(p->smpp = malloc((p->n_smp ? p->n_smp : 1) * sizeof(*p->smpp))) ||
	    !(p->locp = malloc((p->n_loc ? p->n_loc : 1) * sizeof(*p->locp))) ||
	    !(p->linep = malloc((p->n_line ? p->n_line : 1) * sizeof(*p->linep))) ||
	    !(p->labp = malloc((p->nr ? p->nr : 1) * sizeof(*p->labp))) ||
	    !(p->fnp = malloc((nf ? nf : 1) * sizeof(*p->fnp))) ||
	    !(p->mapp = malloc((nm ? nm : 1) * sizeof(*p->mapp))))
		return -ENOMEM;
	for (size_t k = 0; k < p->n_line; k++)
		p->linep[k] = &p->line[k];
	for (unsigned k = 0; k < p->nr; k++)
		p->labp[k] = &p->lab[k];
	for (size_t k = 0; k < p->n_loc; k++) {
		p->locp[k] = &p->loc[k];
		p->loc[k].line = &p->linep[p->loc_first[k]];
	}
	prof->n_location = p->n_loc;
	prof->location = p->locp;
	for (size_t k = 0; k < p->n_smp; k++) {
		PSample *sm = &p->smp[k];
		p->smpp[k] = sm;
		sm->location_id = &p->ids[p->smp_at[k][0]];
		sm->value = &p->val[p->smp_at[k][1]];
		sm->label = &p->labp[p->smp_at[k][2]];
	}
	prof->n_sample = p->n_smp;
	prof->sample = p->smpp;
	for (size_t k = 0; k < nf; k++)
		if (p->fn[k].id)
			p->fnp[prof->n_function++] = &p->fn[k];
	prof->function = p->fnp;
	for (int main = 1; main >= 0; main--)
		for (uint32_t k = 0; k < nm; k++) {
			struct ana_module md = { .sz = sizeof(md) };
			if (p->map[k].id && !ana_set_module(p->s, k, &md) && md.main == main)
				p->mapp[prof->n_mapping++] = &p->map[k];
		}
	prof->mapping = p->mapp;
	return 0;
}

static int pp_pack(PProfile *prof, FILE *f)
{
	size_t len = perftools__profiles__profile__get_packed_size(prof);
	uint8_t *buf = malloc(len ? len : 1);
	if (!buf)
		return -ENOMEM;
	perftools__profiles__profile__pack(prof, buf);
	int e = gz_write(buf, len, f);
	free(buf);
	return e;
}

int ana_set_write_pprof(struct ana_set *s, FILE *f)
{
	if (!ana_set_finished(s))
		return -ANA_ESTATE;
	ANA_QUERY(q, .view = ANA_VIEW_TOPDOWN, .node = ANA_ROOT, .max_depth = UINT_MAX,
		  .sort = ANA_SORT_NAME, .kind = ANA_INCL);
	struct ana_rows *r = ana_set_query(s, &q);
	if (!r)
		return -errno;
	struct pp p = { .s = s, .ne = ana_set_n_sampled_events(s), .nr = ana_set_n_runs(s),
			.weighted = ana_set_opts(s)->weighted };
	size_t ne = p.ne, nf = ana_set_n_functions(s), nm = ana_set_n_modules(s);
	PProfile prof = PERFTOOLS__PROFILES__PROFILE__INIT;
	p.vt = calloc(ne + 1, sizeof(*p.vt));
	p.vtp = calloc(ne + 1, sizeof(*p.vtp));
	p.periodic = calloc(ne ? ne : 1, sizeof(*p.periodic));
	p.fn = calloc(nf ? nf : 1, sizeof(*p.fn));
	p.map = calloc(nm ? nm : 1, sizeof(*p.map));
	p.lab = calloc(p.nr ? p.nr : 1, sizeof(*p.lab));
	int e = -ENOMEM;
	if (p.vt && p.vtp && p.periodic && p.fn && p.map && p.lab && pp_str(&p, "") == 0)
		e = pp_sample_types(&p, &prof);
	for (unsigned run = 0; run < p.nr && !e; run++)
		e = pp_run_facts(&p, run, &prof);
	prof.n_comment = p.n_comments;
	prof.comment = p.comments;
	/* samples: from the line contexts when the set kept them (exact
	 * lines), else from the tree's rows (functions only, lines 0) */
	if (!e)
		e = ana_set_n_contexts(s) ? pp_samples_lines(&p) : pp_samples_rows(&p, r);
	if (!e)
		e = pp_link(&p, &prof);
	prof.n_string_table = p.n_str;
	prof.string_table = (char **)p.str;
	if (!e)
		e = pp_pack(&prof, f);
	ana_rows_free(r);
	pp_free(&p);
	return e;
}

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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "analyzer/set.h"
#include "analyzer/profile.pb-c.h"

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
	struct strpool pool;		/* string table entries, by pointer */
	struct idx str_idx;
	const char **str;
	size_t n_str, cap_str;

	PFunction *fn;			/* [set function] (id 0: not made yet) */
	PMapping *map;			/* [module row] */
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
};

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
		const struct func *sf = &p->s->func[f];
		perftools__profiles__function__init(fn);
		fn->id = f + 1;
		int64_t nm = pp_str(p, sf->name), fl = pp_str(p, sf->file ? sf->file : "");
		if (nm < 0 || fl < 0)
			return -ENOMEM;
		fn->name = fn->system_name = nm;
		fn->filename = fl;
		fn->start_line = sf->line;
	}
	*out = fn->id;
	return 0;
}

/* The set module a module row stands for: the one with its path and a
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

/* The executable load segment of the module's file, if it is here with
 * the recorded build-id: [*lo, *hi) in ELF addresses, at file offset *off. */
static bool exec_segment(const struct smodule *sm, uint64_t *lo, uint64_t *hi, uint64_t *off)
{
	int fd = sm->path[0] == '/' ? open(sm->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) : -1;
	struct stat sb;
	bool ok = false;
	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	Elf *e = !fstat(fd, &sb) && S_ISREG(sb.st_mode) ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	const void *b;
	ssize_t k = e ? dwelf_elf_gnu_build_id(e, &b) : -1;
	size_t n = 0;
	if (k > 0 && (size_t)k == sm->bid_len && !memcmp(b, sm->bid, sm->bid_len) &&
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
	struct ana_set *s = p->s;
	perftools__profiles__mapping__init(mp);
	mp->id = m + 1;
	int64_t fn = pp_str(p, s->modrow[m].path ? s->modrow[m].path : s->modrow[m].base);
	if (fn < 0)
		return -ENOMEM;
	mp->filename = fn;
	const struct smodule *sm = row_module(s, m);
	uint64_t lo, hi, off;
	bool file = sm && sm->path[0] == '/';
	if (file && sm->bid_len && exec_segment(sm, &lo, &hi, &off)) {
		mp->memory_start = lo;
		mp->memory_limit = hi;
		mp->file_offset = off;
	} else if (sm && sm->end > sm->start) {
		mp->memory_start = sm->start - (file ? sm->bias : 0);
		mp->memory_limit = sm->end - (file ? sm->bias : 0);
		mp->file_offset = 0;
	}
	if (sm && sm->bid_len) {
		char hex[2 * sizeof(sm->bid) + 1];
		for (uint32_t k = 0; k < sm->bid_len && k < sizeof(sm->bid); k++)
			snprintf(hex + 2 * k, 3, "%02x", sm->bid[k]);
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

/* The location of frames f[0..n) (innermost first: the frames inlined into
 * f[n-1], which was really called); made on first use.  Line pointers are
 * fixed up once every pool has its final address. */
static int pp_location(struct pp *p, const uint32_t *f, const uint32_t *no, size_t n,
		       uint32_t a, uint64_t *out)
{
	/* a module file's ELF address, the kernel's or vdso's where it ran
	 * (see pp_mapping); 0 unknown */
	uint64_t addr = 0;
	if (a != NONE && p->s->addr[a].mod < p->s->n_mod) {
		const struct smodule *sm = &p->s->mod[p->s->addr[a].mod];
		addr = p->s->addr[a].off + (sm->path[0] == '/' ? 0 : sm->bias);
	}
	struct lkey k = { f, no, n, addr };
	uint64_t h = hash_u64(hash_u64(hash_bytes(f, n * sizeof(*f), 0x10c),
				       hash_bytes(no, n * sizeof(*no), 1)), addr);
	uint32_t id = idx_find(&p->loc_idx, h, loc_eq, p, &k);
	if (id == NONE) {
		size_t c = p->cap_line;
		if (vec_reserve(&p->loc, &p->cap_loc, p->n_loc + 1, sizeof(*p->loc)) ||
		    vec_reserve(&p->loc_first, &p->cap_loc_first, p->n_loc + 1, sizeof(size_t)) ||
		    vec_reserve(&p->line, &c, p->n_line + n, sizeof(*p->line)) ||
		    (c = p->cap_line, vec_reserve(&p->loc_func, &c, p->n_line + n, sizeof(uint32_t))) ||
		    (c = p->cap_line, vec_reserve(&p->loc_no, &c, p->n_line + n, sizeof(uint32_t))))
			return -ENOMEM;
		p->cap_line = c;
		id = (uint32_t)p->n_loc;
		PLocation *l = &p->loc[id];
		perftools__profiles__location__init(l);
		l->id = id + 1;
		l->n_line = n;
		l->address = addr;
		p->loc_first[id] = p->n_line;	/* l->line is set at the end */
		uint32_t m = p->s->func[f[n - 1]].modrow;
		if (pp_mapping(p, m))
			return -ENOMEM;
		l->mapping_id = m + 1;
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
		if (idx_put(&p->loc_idx, h, id))
			return -ENOMEM;
		p->n_loc++;
	}
	*out = p->loc[id].id;
	return 0;
}

/* Value of event ev for samples n of run: samples x the fixed period in the
 * event's unit, or the count (ana_opts.weighted: the weight). */
static int64_t pp_value(const struct ana_set *s, const bool *periodic, unsigned run, size_t ev,
			uint64_t n, double w)
{
	if (s->o.weighted)
		return (int64_t)llround(w);
	if (periodic[ev])
		return (int64_t)(n * s->orun[run].pub.events[ev].period);
	return (int64_t)n;
}

/* One sample of run: frames f[0..n) leaf first, their line numbers and
 * whether each was inlined into the next; values v[ne]. */
static int pp_sample(struct pp *p, unsigned run, const uint32_t *f, const uint32_t *no,
		     const bool *inl, const uint32_t *addr, size_t n, const int64_t *v, size_t ne)
{
	size_t first_id = p->n_ids;
	if (vec_reserve(&p->ids, &p->cap_ids, p->n_ids + n, sizeof(*p->ids)) ||
	    vec_reserve(&p->val, &p->cap_val, p->n_val + ne, sizeof(*p->val)) ||
	    vec_reserve(&p->smp, &p->cap_smp, p->n_smp + 1, sizeof(*p->smp)) ||
	    vec_reserve(&p->smp_at, &p->cap_smp_at, p->n_smp + 1, sizeof(*p->smp_at)))
		return -ENOMEM;
	/* locations, leaf first: each a frame really called and the frames
	 * inlined into it, innermost first */
	for (size_t k = 0, from = 0; k < n; k++)
		if (!inl[k] || k + 1 == n) {
			if (pp_location(p, f + from, no + from, k + 1 - from, addr ? addr[k] : NONE,
					&p->ids[p->n_ids++]))
				return -ENOMEM;
			from = k + 1;
		}
	PSample *sm = &p->smp[p->n_smp];
	perftools__profiles__sample__init(sm);
	sm->n_location_id = p->n_ids - first_id;
	sm->n_value = ne;
	sm->n_label = p->s->n_orun > 1;
	/* pointers into the pools once they stop moving */
	p->smp_at[p->n_smp][0] = first_id;
	p->smp_at[p->n_smp][1] = p->n_val;
	p->smp_at[p->n_smp++][2] = run;
	memcpy(&p->val[p->n_val], v, ne * sizeof(*v));
	p->n_val += ne;
	return 0;
}

/* Samples from a full top-down row set: rows come depth first, so the
 * path to a row is the last row seen at each depth above it. */
static int pp_samples_rows(struct pp *p, const struct ana_rows *r, const bool *periodic)
{
	struct ana_set *s = p->s;
	size_t n = ana_rows_n(r), ne = s->n_ev;
	unsigned maxd = 1;
	for (size_t i = 0; i < n; i++)
		if (ana_rows_row(r, i)->depth > maxd)
			maxd = ana_rows_row(r, i)->depth;
	uint32_t *path = calloc(maxd + 1, sizeof(*path)), *fr = calloc(maxd + 1, sizeof(*fr));
	uint32_t *no = calloc(maxd + 1, sizeof(*no));
	bool *pinl = calloc(maxd + 1, sizeof(*pinl)), *inl = calloc(maxd + 1, sizeof(*inl));
	int64_t *v = calloc(ne ? ne : 1, sizeof(*v));
	int e = -ENOMEM;
	if (!path || !fr || !no || !pinl || !inl || !v)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const struct ana_row *row = ana_rows_row(r, i);
		unsigned d = row->depth;
		path[d] = s->sfunc[row->node];
		pinl[d] = row->flags & ANA_ROW_INLINED;
		for (unsigned run = 0; run < s->n_orun; run++) {
			bool any = false;
			for (size_t ev = 0; ev < ne; ev++) {
				uint64_t c = ana_rows_samples(r, i, run, ev, ANA_SELF);
				any |= c != 0;
				v[ev] = pp_value(s, periodic, run, ev, c,
						 ana_rows_value(r, i, run, ev, ANA_SELF));
			}
			if (!any)
				continue;
			for (unsigned k = 0; k < d; k++) {
				fr[k] = path[d - k];
				inl[k] = pinl[d - k];
			}
			if (pp_sample(p, run, fr, no, inl, NULL, d, v, ne))
				goto out;
		}
	}
	e = 0;
out:
	free(path);
	free(fr);
	free(no);
	free(pinl);
	free(inl);
	free(v);
	return e;
}

/* Samples from the line contexts (ana_opts.line_contexts): sorted by run
 * and node, one sample per (run, node) with a value per event. */
static int pp_samples_lines(struct pp *p, const bool *periodic)
{
	struct ana_set *s = p->s;
	size_t ne = s->n_ev, cap = 0;
	uint32_t *fr = NULL, *no = NULL, *ad = NULL;
	bool *inl = NULL;
	int64_t *v = calloc(ne ? ne : 1, sizeof(*v));
	int e = -ENOMEM;
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < s->n_lsmp;) {
		const struct lsample *a = &s->lsmp[i];
		memset(v, 0, ne * sizeof(*v));
		size_t j = i;
		for (; j < s->n_lsmp && s->lsmp[j].run == a->run && s->lsmp[j].node == a->node; j++) {
			const struct lsample *b = &s->lsmp[j];
			if (b->ev < ne)
				v[b->ev] += pp_value(s, periodic, b->run, b->ev, b->cnt, b->wt);
		}
		if (a->node == NONE || a->node == 0) {
			i = j;
			continue;
		}
		size_t d = 0;
		for (uint32_t x = a->node; x; x = s->lparent[x])
			d++;
		if (d > cap) {
			size_t c = cap;
			if (vec_reserve(&fr, &c, d, sizeof(*fr)) || (c = cap, vec_reserve(&no, &c, d, sizeof(*no))) ||
			    (c = cap, vec_reserve(&inl, &c, d, sizeof(*inl))) ||
			    (c = cap, vec_reserve(&ad, &c, d, sizeof(*ad))))
				goto out;
			cap = c;
		}
		size_t k = 0;
		for (uint32_t x = a->node; x; x = s->lparent[x], k++) {
			fr[k] = s->lfunc[x];
			no[k] = s->lno[x];
			inl[k] = s->linl[x];
			ad[k] = s->laddr[x];
		}
		if (pp_sample(p, a->run, fr, no, inl, ad, d, v, ne))
			goto out;
		i = j;
	}
	e = 0;
out:
	free(fr);
	free(no);
	free(inl);
	free(ad);
	free(v);
	return e;
}

static void pp_free(struct pp *p)
{
	strpool_free(&p->pool);
	idx_free(&p->str_idx);
	free(p->str);
	free(p->fn);
	free(p->map);
	free(p->loc);
	free(p->line);
	free(p->loc_func);
	free(p->loc_no);
	free(p->loc_first);
	free(p->smp_at);
	idx_free(&p->loc_idx);
	free(p->smp);
	free(p->ids);
	free(p->val);
	free(p->lab);
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

int ana_set_write_pprof(struct ana_set *s, FILE *f)
{
	if (!s->finished)
		return -ANA_ESTATE;
	struct pp p = { .s = s };
	size_t ne = s->n_ev;
	unsigned nr = (unsigned)s->n_orun;
	int e = -ENOMEM;
	uint8_t *buf = NULL;
	PValueType *vt = calloc(ne + 1, sizeof(*vt));
	PValueType **vtp = calloc(ne + 1, sizeof(*vtp));
	bool *periodic = calloc(ne ? ne : 1, sizeof(*periodic));
	int64_t *comments = NULL;
	size_t n_comments = 0, cap_comments = 0;
	PProfile prof = PERFTOOLS__PROFILES__PROFILE__INIT;
	ANA_QUERY(q, .view = ANA_VIEW_TOPDOWN, .node = ANA_ROOT, .max_depth = UINT_MAX,
		  .sort = ANA_SORT_NAME, .kind = ANA_INCL);
	struct ana_rows *r = ana_set_query(s, &q);
	if (!r) {
		e = -errno;
		goto out;
	}
	p.fn = calloc(s->n_func ? s->n_func : 1, sizeof(*p.fn));
	p.map = calloc(s->n_modrow ? s->n_modrow : 1, sizeof(*p.map));
	p.lab = calloc(nr ? nr : 1, sizeof(*p.lab));
	if (!vt || !vtp || !periodic || !p.fn || !p.map || !p.lab || pp_str(&p, "") != 0)
		goto out;

	/* sample types: one per event, in its unit where every run used one
	 * fixed period (then value = samples x period) */
	for (size_t ev = 0; ev < ne; ev++) {
		periodic[ev] = !s->o.weighted;
		for (unsigned run = 0; run < nr; run++) {
			const struct ana_event_fact *x = &s->orun[run].pub.events[ev];
			if (x->samples && (!x->period || x->freq || x->mixed))
				periodic[ev] = false;
		}
		perftools__profiles__value_type__init(&vt[ev]);
		vt[ev].type = pp_str(&p, s->ev_name[ev]);
		vt[ev].unit = pp_str(&p, periodic[ev] || s->o.weighted ? pprof_unit(s->ev_unit[ev])
								      : "count");
		vtp[ev] = &vt[ev];
		if (vt[ev].type < 0 || vt[ev].unit < 0)
			goto out;
	}
	prof.n_sample_type = ne;
	prof.sample_type = vtp;
	if (ne) {
		perftools__profiles__value_type__init(&vt[ne]);
		vt[ne] = vt[0];
		prof.period_type = &vt[ne];
		prof.default_sample_type = vt[0].type;
		for (unsigned run = 0; run < nr; run++)
			if (s->orun[run].pub.events[0].samples) {
				prof.period = (int64_t)s->orun[run].pub.events[0].period;
				break;
			}
	}
	/* run facts as comments: label, metadata, events as asked and used */
	for (unsigned run = 0; run < nr; run++) {
		const struct ana_run *ar = &s->orun[run].pub;
		size_t need = n_comments + 2 + ar->n_meta + ar->n_events + ar->n_counters;
		if (vec_reserve(&comments, &cap_comments, need, sizeof(*comments)))
			goto out;
		char line[4096];
		snprintf(line, sizeof(line), "run %u: %s (%u files)", run, ar->label, ar->n_files);
		comments[n_comments++] = pp_str(&p, line);
		for (size_t k = 0; k < ar->n_meta; k++) {
			snprintf(line, sizeof(line), "%s: %s", ar->meta[k].key, ar->meta[k].value);
			comments[n_comments++] = pp_str(&p, line);
		}
		for (size_t k = 0; k < ar->n_events; k++) {
			const struct ana_event_fact *x = &ar->events[k];
			if (!x->samples)
				continue;
			snprintf(line, sizeof(line), "event %s (requested %s): period %llu, freq %llu%s, "
				 "%llu samples", x->name, x->requested, (unsigned long long)x->period,
				 (unsigned long long)x->freq, x->mixed ? " (mixed)" : "",
				 (unsigned long long)x->samples);
			comments[n_comments++] = pp_str(&p, line);
		}
		for (size_t k = 0; k < ar->n_counters; k++) {
			snprintf(line, sizeof(line), "collector %s = %llu", ar->counters[k].name,
				 (unsigned long long)ar->counters[k].value);
			comments[n_comments++] = pp_str(&p, line);
		}
		for (size_t k = 0; k < n_comments; k++)
			if (comments[k] < 0)
				goto out;
		if (!isnan(ar->duration) && (int64_t)(ar->duration * 1e9) > prof.duration_nanos)
			prof.duration_nanos = (int64_t)(ar->duration * 1e9);
		perftools__profiles__label__init(&p.lab[run]);
		p.lab[run].key = pp_str(&p, "run");
		p.lab[run].str = pp_str(&p, ar->label);
		if (p.lab[run].key < 0 || p.lab[run].str < 0)
			goto out;
	}
	prof.n_comment = n_comments;
	prof.comment = comments;

	/* samples: from the line contexts when the set kept them (exact
	 * lines), else from the tree's rows (functions only, lines 0) */
	e = s->n_lctx ? pp_samples_lines(&p, periodic) : pp_samples_rows(&p, r, periodic);
	if (e)
		goto out;
	e = -ENOMEM;

	/* the pools are final: offsets become pointers */
	PSample **smp = malloc((p.n_smp ? p.n_smp : 1) * sizeof(*smp));
	PLocation **locp = malloc((p.n_loc ? p.n_loc : 1) * sizeof(*locp));
	PLine **linep = malloc((p.n_line ? p.n_line : 1) * sizeof(*linep));
	PLabel **labp = malloc((nr ? nr : 1) * sizeof(*labp));
	PFunction **fnp = malloc((s->n_func ? s->n_func : 1) * sizeof(*fnp));
	PMapping **mapp = malloc((s->n_modrow ? s->n_modrow : 1) * sizeof(*mapp));
	if (!smp || !locp || !linep || !labp || !fnp || !mapp) {
		free(smp);
		free(locp);
		free(linep);
		free(labp);
		free(fnp);
		free(mapp);
		goto out;
	}
	for (size_t k = 0; k < p.n_line; k++)
		linep[k] = &p.line[k];
	for (unsigned k = 0; k < nr; k++)
		labp[k] = &p.lab[k];
	for (size_t k = 0; k < p.n_loc; k++) {
		locp[k] = &p.loc[k];
		p.loc[k].line = &linep[p.loc_first[k]];
	}
	for (size_t k = 0; k < p.n_smp; k++) {
		PSample *sm = &p.smp[k];
		smp[k] = sm;
		sm->location_id = &p.ids[p.smp_at[k][0]];
		sm->value = &p.val[p.smp_at[k][1]];
		sm->label = &labp[p.smp_at[k][2]];
	}
	size_t nfn = 0, nmap = 0;
	for (size_t k = 0; k < s->n_func; k++)
		if (p.fn[k].id)
			fnp[nfn++] = &p.fn[k];
	/* the program's own mapping first: pprof's "File:", and the binary
	 * -disasm and -list read by default */
	for (int main = 1; main >= 0; main--)
		for (size_t k = 0; k < s->n_modrow; k++) {
			const struct smodule *sm = row_module(s, (uint32_t)k);
			if (p.map[k].id && (sm && sm->main) == main)
				mapp[nmap++] = &p.map[k];
		}
	prof.n_sample = p.n_smp;
	prof.sample = smp;
	prof.n_location = p.n_loc;
	prof.location = locp;
	prof.n_function = nfn;
	prof.function = fnp;
	prof.n_mapping = nmap;
	prof.mapping = mapp;
	prof.n_string_table = p.n_str;
	prof.string_table = (char **)p.str;

	size_t len = perftools__profiles__profile__get_packed_size(&prof);
	buf = malloc(len ? len : 1);
	if (buf) {
		perftools__profiles__profile__pack(&prof, buf);
		e = gz_write(buf, len, f);
	}
	free(smp);
	free(locp);
	free(linep);
	free(labp);
	free(fnp);
	free(mapp);
out:
	ana_rows_free(r);
	free(buf);
	free(vt);
	free(vtp);
	free(periodic);
	free(comments);
	pp_free(&p);
	return e;
}

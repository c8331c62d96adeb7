/* The timeline: each thread's samples in time order (the profile's
 * optional timeline section), for `pmcprof script`, `report --time`,
 * speedscope's evented profiles and the Chrome / Perfetto trace.
 * docs/analyzer.md, "Timeline". */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/read.h"
#include "analyzer/set.h"

/* ---- --time ranges ---- */

static int time_fail(char *msg, size_t len, const char *fmt, const char *what)
{
	if (msg && len)
		snprintf(msg, len, fmt, what);
	return -EINVAL;
}

/* A number that is the whole of [p, end): *out; false if not. */
static bool number(const char *p, const char *end, double *out)
{
	char buf[64], *e;
	size_t n = (size_t)(end - p);

	if (n == 0 || n >= sizeof(buf))
		return false;
	memcpy(buf, p, n);
	buf[n] = '\0';
	*out = strtod(buf, &e);
	return *e == '\0' && isfinite(*out) && *out >= 0;
}

/* One "P%/N" or "A%-B%" item of [p, end). */
static int pct_item(const char *p, const char *end, struct ana_time_range *r, char *msg, size_t len)
{
	const char *slash = memchr(p, '/', (size_t)(end - p));
	const char *dash = memchr(p, '-', (size_t)(end - p));
	double a, b;

	r->pct = true;
	if (slash) {
		/* the Nth slice of P%: [(N-1)P, NP] */
		if (slash == p || slash[-1] != '%' || !number(p, slash - 1, &a) ||
		    !number(slash + 1, end, &b) || a <= 0 || a > 100 || b < 1 || b != floor(b) ||
		    (b - 1) * a >= 100)
			return time_fail(msg, len, "--time: '%s' is not a slice P%%/N (N from 1, "
					 "inside 100%%)", p);
		r->start = (b - 1) * a;
		r->end = fmin(b * a, 100);
		return 0;
	}
	if (dash && dash > p && dash[-1] == '%' && end[-1] == '%' && number(p, dash - 1, &a) &&
	    number(dash + 1, end - 1, &b) && a < b && b <= 100) {
		r->start = a;
		r->end = b;
		return 0;
	}
	return time_fail(msg, len, "--time: '%s' is not a percent slice P%%/N or range A%%-B%%", p);
}

int ana_time_parse(const char *spec, struct ana_time_range *out, size_t max, char *msg, size_t len)
{
	const char *comma;
	size_t n = 0;

	if (!spec || !*spec)
		return time_fail(msg, len, "--time: empty%s", "");
	if (!strchr(spec, '%')) {
		/* START,END in seconds, either may be empty (perf's) */
		comma = strchr(spec, ',');
		if (!comma || strchr(comma + 1, ',') || max < 1)
			return time_fail(msg, len, "--time: expected START,END in seconds after the "
					 "run's start, or percent slices, got '%s'", spec);
		struct ana_time_range r = { 0, INFINITY, false };
		if ((comma > spec && !number(spec, comma, &r.start)) ||
		    (comma[1] && !number(comma + 1, comma + strlen(comma), &r.end)) ||
		    r.end < r.start)
			return time_fail(msg, len, "--time: '%s' is not START,END with 0 <= START <= END "
					 "(seconds after the run's start)", spec);
		out[0] = r;
		return 1;
	}
	for (const char *p = spec;; p = comma + 1) {
		comma = strchr(p, ',');
		const char *end = comma ? comma : p + strlen(p);
		char item[64];
		snprintf(item, sizeof(item), "%.*s", (int)(end - p), p);
		if (n == max)
			return time_fail(msg, len, "--time: more than %s ranges", "a few");
		if (pct_item(item, item + strlen(item), &out[n], msg, len))
			return -EINVAL;
		n++;
		if (!comma)
			break;
	}
	return (int)n;
}

/* ---- reading ---- */

static const char *base_of(const char *path)
{
	const char *sl = path ? strrchr(path, '/') : NULL;
	return sl ? sl + 1 : path ? path : "?";
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t median_interval(const uint64_t *t, size_t n)
{
	if (n < 2)
		return 0;
	uint64_t *d = malloc((n - 1) * sizeof(*d));
	if (!d)
		return 0;
	for (size_t i = 1; i < n; i++)
		d[i - 1] = t[i] - t[i - 1];
	qsort(d, n - 1, sizeof(*d), u64_cmp);
	uint64_t m = d[(n - 1) / 2];
	free(d);
	return m;
}

int tl_merge(struct ana_set *s, size_t pt, unsigned in_run, const char *path,
	     const struct prof *p, const int *evmap, const uint32_t *map)
{
	const struct prof_timeline *tl = &p->timeline;
	if (!tl->unit_ns) {
		s->n_tl_missing++;
		if (s->n_tl_missing == 1)
			set_note(s, ANA_NOTE_WARN, -1, "%s: no timeline (recorded with --no-timeline or "
				 "by an older pmcprof)%s", path,
				 s->o.n_time ? ": --time leaves its samples out" : "");
		return 0;
	}
	if (vec_reserve(&s->tls, &s->cap_tls, s->n_tls + 1, sizeof(*s->tls)))
		return -ENOMEM;
	struct tl_stream *st = &s->tls[s->n_tls];
	size_t n = (size_t)tl->n;
	st->t = malloc((n ? n : 1) * sizeof(*st->t));
	st->raw = malloc((n ? n : 1) * sizeof(*st->raw));
	st->ev = malloc(n ? n : 1);
	st->n_w = s->n_ev;
	st->w = calloc(st->n_w ? st->n_w : 1, sizeof(*st->w));
	const char *pid = prof_meta_get(p, "pid"), *tid = prof_meta_get(p, "tid");
	st->pub = (struct ana_thread){
		.path = strpool_str(&s->pool, path),
		.command = strpool_str(&s->pool, base_of(prof_meta_get(p, "command"))),
		.comm = strpool_str(&s->pool, prof_meta_get(p, "thread_name")
					      ? prof_meta_get(p, "thread_name") : "?"),
		.pid = pid ? strtol(pid, NULL, 10) : -1,
		.tid = tid ? strtol(tid, NULL, 10) : -1,
		.origin_ns = tl->origin_ns,
		.start_ns = tl->start * tl->unit_ns,
		.end_ns = tl->end * tl->unit_ns,
		.n_samples = n,
		.lost = tl->lost,
	};
	st->part = pt;
	st->in_run = in_run;
	if (!st->t || !st->raw || !st->ev || !st->w || !st->pub.path || !st->pub.command ||
	    !st->pub.comm) {
		free(st->t);
		free(st->raw);
		free(st->ev);
		free(st->w);
		return -ENOMEM;
	}
	s->n_tls++;
	for (size_t i = 0; i < n; i++) {
		st->t[i] = tl->time[i] * tl->unit_ns;
		st->raw[i] = map[tl->node[i]];
		st->ev[i] = (uint8_t)evmap[tl->event[i]];
	}
	/* each event's mean period in this file, as merge_counts weighs it */
	for (size_t k = 0; k < p->n_events; k++) {
		const struct prof_event *pe = &p->events[k];
		uint64_t tot = 0;
		for (uint32_t i = 0; i < p->cct.n_nodes; i++)
			tot += p->cct.counts[(size_t)i * p->cct.n_events + k];
		st->w[evmap[k]] = pe->weight && tot ? (double)pe->weight / (double)tot
				: pe->period ? (double)pe->period : 1.0;
	}
	st->pub.interval_ns = median_interval(st->t, n);
	if (tl->lost) {
		s->tl_lost += tl->lost;
		set_note(s, ANA_NOTE_WARN, -1, "%s: %llu samples are not in its timeline (its buffer "
			 "was full: PMCPROF_TIMELINE_BYTES)%s", path, (unsigned long long)tl->lost,
			 s->o.n_time ? "; --time cannot place them" : "");
	}
	return 0;
}

/* The span percentages refer to, per input run: its latest thread end. */
static uint64_t run_span(const struct ana_set *s, unsigned in_run)
{
	uint64_t end = 0;
	for (size_t i = 0; i < s->n_tls; i++)
		if (s->tls[i].in_run == in_run && s->tls[i].pub.end_ns > end)
			end = s->tls[i].pub.end_ns;
	return end;
}

static bool in_ranges(const struct ana_set *s, uint64_t span, uint64_t t)
{
	double x = (double)t;
	for (size_t i = 0; i < s->o.n_time; i++) {
		const struct ana_time_range *r = &s->o.time[i];
		double a = r->pct ? r->start / 100 * (double)span : r->start * 1e9;
		double b = r->pct ? r->end / 100 * (double)span : r->end * 1e9;
		if (x >= a && x <= b)
			return true;
	}
	return false;
}

static int range_cmp(const void *a, const void *b)
{
	const double *x = a, *y = b;
	return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Seconds of [0, span] the ranges cover (overlapping ones once): how much
 * of the run the slice shows. */
static double slice_seconds(const struct ana_set *s, uint64_t span)
{
	double iv[16][2], end = (double)span / 1e9, sum = 0, at = 0;
	size_t n = 0;
	for (size_t i = 0; i < s->o.n_time && n < 16; i++) {
		const struct ana_time_range *r = &s->o.time[i];
		double a = r->pct ? r->start / 100 * end : r->start;
		double b = r->pct ? r->end / 100 * end : r->end;
		a = a < 0 ? 0 : a;
		b = b > end ? end : b;
		if (b > a) {
			iv[n][0] = a;
			iv[n++][1] = b;
		}
	}
	qsort(iv, n, sizeof(iv[0]), range_cmp);
	for (size_t i = 0; i < n; i++) {
		double a = iv[i][0] > at ? iv[i][0] : at;
		if (iv[i][1] > a) {
			sum += iv[i][1] - a;
			at = iv[i][1];
		}
	}
	return sum;
}

char *tl_time_spec(const struct ana_time_range *r, size_t n)
{
	size_t len = 1 + 64 * n;
	char *out = malloc(len), *p = out;
	for (size_t i = 0; out && i < n; i++) {
		p += snprintf(p, len - (size_t)(p - out), "%s", i ? "," : "");
		if (r[i].pct)
			p += snprintf(p, len - (size_t)(p - out), "%g%%-%g%%", r[i].start, r[i].end);
		else if (isinf(r[i].end))
			p += snprintf(p, len - (size_t)(p - out), "%g,", r[i].start);
		else
			p += snprintf(p, len - (size_t)(p - out), "%g,%g", r[i].start, r[i].end);
	}
	if (out && !n)
		*out = 0;
	if (!out)
		errno = ENOMEM;
	return out;
}

/* One stream's samples in range, as part entries (one per context and
 * event) and run facts. */
static int apply_stream(struct ana_set *s, const struct tl_stream *st, uint64_t *keys)
{
	uint64_t span = st->span;
	size_t n = 0;
	for (uint64_t i = 0; i < st->pub.n_samples; i++)
		if (in_ranges(s, span, st->t[i]))
			keys[n++] = (uint64_t)st->raw[i] << 8 | st->ev[i];
	qsort(keys, n, sizeof(*keys), u64_cmp);
	struct part *pt = &s->part[st->part];
	struct orun *o = &s->orun[pt->orun];
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && keys[j] == keys[i]; j++)
			;
		if (part_reserve(pt, 1, s->o.weighted))
			return -ENOMEM;
		uint8_t ev = (uint8_t)(keys[i] & 0xff);
		double w = ev < st->n_w ? st->w[ev] : 1;
		pt->node[pt->n] = (uint32_t)(keys[i] >> 8);
		pt->ev[pt->n] = ev;
		pt->cnt[pt->n] = j - i;
		if (pt->wt)
			pt->wt[pt->n] = (double)(j - i) * w;
		pt->n++;
		o->ev[ev].samples += j - i;
		o->ev[ev].weight += (double)(j - i) * w;
	}
	if (pt->n > 2 * pt->n_merged)
		return part_merge(s, pt);
	return 0;
}

int tl_apply_time(struct ana_set *s)
{
	if (!s->o.n_time)
		return 0;
	uint64_t most = 1;
	for (size_t i = 0; i < s->n_tls; i++)
		if (s->tls[i].pub.n_samples > most)
			most = s->tls[i].pub.n_samples;
	uint64_t *keys = malloc(most * sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	int e = 0;
	uint64_t in = 0, all = 0;
	for (size_t r = 0; r < s->n_orun; r++)
		s->orun[r].slice_s = NAN;	/* no timeline: not known */
	for (size_t i = 0; i < s->n_tls; i++) {
		s->tls[i].span = run_span(s, s->tls[i].in_run);
		s->orun[s->part[s->tls[i].part].orun].slice_s = slice_seconds(s, s->tls[i].span);
	}
	for (size_t i = 0; i < s->n_tls && !e; i++) {
		all += s->tls[i].pub.n_samples;
		e = apply_stream(s, &s->tls[i], keys);
	}
	free(keys);
	for (size_t r = 0; r < s->n_orun; r++)
		for (size_t k = 0; k < s->n_ev && k < s->orun[r].cap_ev; k++)
			in += s->orun[r].ev[k].samples;
	if (!e)
		set_note(s, ANA_NOTE_INFO, -1, "--time: %llu of the timelines' %llu samples are in "
			 "range", (unsigned long long)in, (unsigned long long)all);
	return e;
}

void tl_keep_raw(struct ana_set *s)
{
	if (!s->o.timeline)
		return;
	s->tl_rparent = s->rparent;
	s->tl_raddr = s->raddr;
	s->rparent = s->raddr = NULL;
	for (size_t i = 0; i < s->n_tls; i++)
		s->tls[i].pub.run = s->part[s->tls[i].part].orun;
}

void tl_free(struct ana_set *s)
{
	for (size_t i = 0; i < s->n_tls; i++) {
		free(s->tls[i].t);
		free(s->tls[i].raw);
		free(s->tls[i].ev);
		free(s->tls[i].w);
	}
	free(s->tls);
	free(s->tl_rparent);
	free(s->tl_raddr);
	s->tls = NULL;
	s->tl_rparent = s->tl_raddr = NULL;
	s->n_tls = 0;
}

/* ---- the API ---- */

size_t ana_set_n_threads(const struct ana_set *s)
{
	return s->finished && s->o.timeline ? s->n_tls : 0;
}

const struct ana_thread *ana_set_thread(const struct ana_set *s, size_t i)
{
	return i < ana_set_n_threads(s) ? &s->tls[i].pub : NULL;
}

int ana_set_thread_sample(const struct ana_set *s, size_t t, uint64_t i, struct ana_sample *out)
{
	if (t >= ana_set_n_threads(s) || i >= s->tls[t].pub.n_samples)
		return -EINVAL;
	const struct tl_stream *st = &s->tls[t];
	uint8_t ev = st->ev[i];
	double w = ev < st->n_w ? st->w[ev] : 1;
	*out = (struct ana_sample){
		.time_ns = st->t[i],
		.stack = st->raw[i],
		.event = ev,
		.period = w >= 1 ? (uint64_t)llround(w) : 1,
		.selected = !s->o.n_time || in_ranges(s, st->span, st->t[i]),
	};
	return 0;
}

size_t ana_set_stack(const struct ana_set *s, uint32_t stack, struct ana_frame *fr, size_t max)
{
	size_t n = 0;
	if (!s->tl_rparent)
		return 0;
	for (uint32_t r = stack; r; r = s->tl_rparent[r]) {
		const struct addr *a = &s->addr[s->tl_raddr[r]];
		/* the address's frames are outermost first: leaf first here */
		for (uint32_t k = a->n; k-- > 0; n++) {
			if (n >= max)
				continue;
			const struct frame *f = &s->frame[a->first + k];
			const struct func *fn = &s->func[f->func];
			const struct line *ln = &s->line[f->line];
			fr[n] = (struct ana_frame){
				.name = fn->name,
				.module = a->mod < s->n_mod ? s->mod[a->mod].path : NULL,
				.file = ln->file,
				.line = ln->line,
				.addr = a->off,
				.inlined = f->inlined,
				.key = f->func * 2 + f->inlined,
			};
		}
	}
	return n;
}

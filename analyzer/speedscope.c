/* speedscope export: its file format
 * (https://www.speedscope.app/file-format-schema.json), one "sampled"
 * profile per run, so a --by thread report gives one per thread, or with
 * timelines one "evented" profile per thread.  On the public API alone
 * (analyzer.h), JSON through json.h.  docs/exports.md. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/analyzer.h"
#include "analyzer/ana/json.h"

#define NO_FRAME UINT32_MAX

static const char *ss_unit(const char *unit)
{
	if (unit && !strcmp(unit, "ns"))
		return "nanoseconds";
	if (unit && !strcmp(unit, "us"))
		return "microseconds";
	return NULL;
}

/* ---- the shared frames: a set function, inlined or not ("f [inlined]"),
 * by key (function * 2 + inlined, as ana_frame.key), in first-use order ---- */

struct ss_frames {
	uint32_t *index;		/* [key] -> frame, or NO_FRAME */
	uint32_t *key;			/* [frame] -> key */
	size_t n;
	struct json *j;			/* evented: the writer of the walk */
	FILE *f;
};

static int frames_init(struct ss_frames *x, const struct ana_set *s)
{
	size_t nk = 2 * (ana_set_n_functions(s) ? ana_set_n_functions(s) : 1);
	x->index = malloc(nk * sizeof(*x->index));
	x->key = malloc(nk * sizeof(*x->key));
	if (!x->index || !x->key)
		return -ENOMEM;
	memset(x->index, 0xff, nk * sizeof(*x->index));
	return 0;
}

static void frames_free(struct ss_frames *x)
{
	free(x->index);
	free(x->key);
}

/* Frame of key k, added on first use. */
static uint32_t frame_of(struct ss_frames *x, uint32_t k)
{
	if (x->index[k] == NO_FRAME) {
		x->index[k] = (uint32_t)x->n;
		x->key[x->n++] = k;
	}
	return x->index[k];
}

static void put_frame(struct json *j, const struct ana_set *s, uint32_t key)
{
	struct ana_function fn = { .sz = sizeof(fn) };
	char name[4096];
	ana_set_function(s, key / 2, &fn);
	snprintf(name, sizeof(name), "%s%s", fn.name ? fn.name : "?", key & 1 ? " [inlined]" : "");
	json_obj_begin(j);
	json_kstr(j, "name", name);
	json_kstr(j, "file", fn.file ? fn.file : fn.module ? fn.module : fn.module_base ? fn.module_base : "");
	if (fn.line && fn.file)
		json_ku64(j, "line", fn.line);
	json_obj_end(j);
}

/* The file's head and shared frames; the profiles' array left open. */
static void put_head(struct json *j, const struct ana_set *s, const struct ss_frames *x)
{
	json_obj_begin(j);
	json_kstr(j, "$schema", "https://www.speedscope.app/file-format-schema.json");
	json_kstr(j, "exporter", "pmcprof " PACKAGE_VERSION);
	json_kstr(j, "name", ana_set_n_runs(s) == 1 ? ana_set_run(s, 0)->label : "pmcprof");
	json_ku64(j, "activeProfileIndex", 0);
	json_key(j, "shared");
	json_obj_begin(j);
	json_key(j, "frames");
	json_arr_begin(j);
	for (size_t k = 0; k < x->n; k++)
		put_frame(j, s, x->key[k]);
	json_arr_end(j);
	json_obj_end(j);
	json_key(j, "profiles");
	json_arr_begin(j);
}

static int put_tail(struct json *j, FILE *f)
{
	json_arr_end(j);
	json_obj_end(j);
	int e = json_close(j);
	if (!e && (putc('\n', f) == EOF || fflush(f) || ferror(f)))
		e = -EIO;
	return e;
}

/* ---- evented profiles: the timeline in real time order ---- */

static int ev_collect(void *arg, const struct ana_thread *th, const struct ana_frame *fr,
		      uint64_t t)
{
	(void)th;
	(void)t;
	frame_of(arg, fr->key);
	return 0;
}

static int ev_none(void *arg, const struct ana_thread *th, const struct ana_frame *fr, uint64_t t)
{
	(void)arg;
	(void)th;
	(void)fr;
	(void)t;
	return 0;
}

static int ev_put(struct ss_frames *x, const char *type, const struct ana_frame *fr, uint64_t t)
{
	json_obj_begin(x->j);
	json_kstr(x->j, "type", type);
	json_ku64(x->j, "frame", x->index[fr->key]);
	json_ku64(x->j, "at", t);
	json_obj_end(x->j);
	return ferror(x->f) ? -EIO : 0;
}

static int ev_open(void *arg, const struct ana_thread *th, const struct ana_frame *fr, uint64_t t)
{
	(void)th;
	return ev_put(arg, "O", fr, t);
}

static int ev_close(void *arg, const struct ana_thread *th, const struct ana_frame *fr, uint64_t t)
{
	(void)th;
	return ev_put(arg, "C", fr, t);
}

/* The first and last selected sample time of thread t on event ev, in ns;
 * false if it has none. */
static bool ev_span(const struct ana_set *s, size_t t, size_t ev, uint64_t *a, uint64_t *b)
{
	const struct ana_thread *th = ana_set_thread(s, t);
	bool any = false;
	for (uint64_t i = 0; i < th->n_samples; i++) {
		struct ana_sample sm;
		if (ana_set_thread_sample(s, t, i, &sm) || !sm.selected || sm.event != ev)
			continue;
		if (!any)
			*a = sm.time_ns;
		*b = sm.time_ns;
		any = true;
	}
	return any;
}

/* Thread t's evented profile, times in ns after the run's start; nothing
 * if it has no sample of ev. */
static int ev_thread(const struct ana_set *s, size_t t, size_t ev, struct ss_frames *x)
{
	static const struct ana_walk_cb write = { ev_open, ev_close };
	const struct ana_thread *th = ana_set_thread(s, t);
	uint64_t a, b;
	if (!ev_span(s, t, ev, &a, &b))
		return 0;
	char name[512];
	snprintf(name, sizeof(name), "%s %ld/%ld %s (%s)", th->command, th->pid, th->tid, th->comm,
		 ana_set_event(s, ev));
	json_obj_begin(x->j);
	json_kstr(x->j, "type", "evented");
	json_kstr(x->j, "name", name);
	json_kstr(x->j, "unit", "nanoseconds");
	json_ku64(x->j, "startValue", a);
	/* endValue: the walk closes the last slices at most 2 intervals on */
	json_ku64(x->j, "endValue", b + (th->interval_ns ? 2 * th->interval_ns : 1000000));
	json_key(x->j, "events");
	json_arr_begin(x->j);
	int e = ana_set_walk_thread(s, t, ev, &write, x);
	json_arr_end(x->j);
	json_obj_end(x->j);
	return e;
}

/* One "evented" profile per thread. */
static int write_evented(struct ana_set *s, size_t ev, FILE *f)
{
	static const struct ana_walk_cb collect = { ev_collect, ev_none };
	struct ss_frames x = { .f = f };
	int e = frames_init(&x, s);
	for (size_t t = 0; t < ana_set_n_threads(s) && !e; t++)
		e = ana_set_walk_thread(s, t, ev, &collect, &x);
	if (!e && !(x.j = json_open(f)))
		e = -ENOMEM;
	if (!e) {
		put_head(x.j, s, &x);
		for (size_t t = 0; t < ana_set_n_threads(s) && !e; t++)
			e = ev_thread(s, t, ev, &x);
		int ec = put_tail(x.j, f);
		e = e ? e : ec;
	}
	frames_free(&x);
	return e;
}

/* ---- sampled profiles: one sample per calling context with self samples ---- */

/* The frame of each row (a tree row set's), by row. */
static int row_frames(const struct ana_set *s, const struct ana_rows *r, struct ss_frames *x,
		      uint32_t *fr)
{
	for (size_t i = 0; i < ana_rows_n(r); i++) {
		const struct ana_row *row = ana_rows_row(r, i);
		uint32_t f = ana_set_node_function(s, row->node);
		if (f == UINT32_MAX)
			return -EINVAL;
		fr[i] = frame_of(x, f * 2 + !!(row->flags & ANA_ROW_INLINED));
	}
	return 0;
}

/* Run run's profile: rows come depth first, so the path to a row is the
 * last row seen at each depth above it (path[1..depth]). */
static void put_sampled(struct json *j, const struct ana_set *s, const struct ana_rows *r,
			const uint32_t *fr, uint32_t *path, unsigned run, size_t ev)
{
	const struct ana_event_fact *x = &ana_set_run(s, run)->events[ev];
	bool weighted = ana_set_opts(s)->weighted;
	bool periodic = !weighted && x->period && !x->freq && !x->mixed;
	const char *unit = weighted || periodic ? ss_unit(ana_set_event_unit(s, ev)) : NULL;
	double scale = periodic ? (double)x->period : 1, total = 0;
	uint64_t n_total = 0;
	char name[4096], num[64];
	ana_set_total(s, run, ev, &n_total, &total);
	snprintf(name, sizeof(name), "%s (%s)", ana_set_run(s, run)->label, ana_set_event(s, ev));
	snprintf(num, sizeof(num), "%.0f", weighted ? total : (double)n_total * scale);
	json_obj_begin(j);
	json_kstr(j, "type", "sampled");
	json_kstr(j, "name", name);
	json_kstr(j, "unit", unit ? unit : "none");
	json_ku64(j, "startValue", 0);
	json_key(j, "endValue");
	json_raw_num(j, num);
	json_key(j, "samples");
	json_arr_begin(j);
	for (size_t i = 0; i < ana_rows_n(r); i++) {
		const struct ana_row *row = ana_rows_row(r, i);
		path[row->depth] = fr[i];
		if (!ana_rows_samples(r, i, run, ev, ANA_SELF))
			continue;
		json_arr_begin(j);
		for (unsigned d = 1; d <= row->depth; d++)
			json_u64(j, path[d]);
		json_arr_end(j);
	}
	json_arr_end(j);
	json_key(j, "weights");
	json_arr_begin(j);
	for (size_t i = 0; i < ana_rows_n(r); i++) {
		uint64_t c = ana_rows_samples(r, i, run, ev, ANA_SELF);
		if (!c)
			continue;
		snprintf(num, sizeof(num), "%.0f", weighted ? ana_rows_value(r, i, run, ev, ANA_SELF)
							    : (double)c * scale);
		json_raw_num(j, num);
	}
	json_arr_end(j);
	json_obj_end(j);
}

static int write_sampled(struct ana_set *s, const struct ana_rows *r, size_t ev, FILE *f)
{
	size_t n = ana_rows_n(r);
	unsigned maxd = 1;
	for (size_t i = 0; i < n; i++)
		if (ana_rows_row(r, i)->depth > maxd)
			maxd = ana_rows_row(r, i)->depth;
	struct ss_frames x = { .f = f };
	uint32_t *fr = malloc((n ? n : 1) * sizeof(*fr));
	uint32_t *path = malloc((maxd + 1) * sizeof(*path));
	int e = fr && path ? frames_init(&x, s) : -ENOMEM;
	if (!e)
		e = row_frames(s, r, &x, fr);
	if (!e && !(x.j = json_open(f)))
		e = -ENOMEM;
	if (!e) {
		put_head(x.j, s, &x);
		for (unsigned run = 0; run < ana_set_n_runs(s); run++)
			put_sampled(x.j, s, r, fr, path, run, ev);
		e = put_tail(x.j, f);
	}
	frames_free(&x);
	free(fr);
	free(path);
	return e;
}

int ana_set_write_speedscope(struct ana_set *s, size_t ev, FILE *f)
{
	if (!ana_set_finished(s))
		return -ANA_ESTATE;
	if (ev >= ana_set_n_sampled_events(s))
		return -EINVAL;
	if (ana_set_n_threads(s) && !ana_set_n_untimed(s))
		return write_evented(s, ev, f);
	ANA_QUERY(q, .view = ANA_VIEW_TOPDOWN, .node = ANA_ROOT, .max_depth = UINT_MAX,
		  .sort = ANA_SORT_NAME, .kind = ANA_INCL, .event = ev);
	struct ana_rows *r = ana_set_query(s, &q);
	if (!r)
		return -errno;
	int e = write_sampled(s, r, ev, f);
	ana_rows_free(r);
	return e;
}

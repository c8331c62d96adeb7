/* speedscope export: its file format
 * (https://www.speedscope.app/file-format-schema.json), one "sampled"
 * profile per run, so a --by thread report gives one per thread.
 * docs/exports.md. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/json.h"
#include "analyzer/set.h"

static const char *ss_unit(const char *unit)
{
	if (unit && !strcmp(unit, "ns"))
		return "nanoseconds";
	if (unit && !strcmp(unit, "us"))
		return "microseconds";
	return NULL;
}

/* ---- evented profiles: the timeline in real time order ---- */

/* Frames by key (function * 2 + inlined), in first-use order. */
struct ev_frames {
	uint32_t *index;		/* [key] -> frame, or NONE */
	const struct ana_frame *fr;	/* while collecting: the frame to add */
	struct ana_frame *list;
	size_t n, cap;
	FILE *f;
	bool first;
};

static int ev_collect(void *arg, const struct ana_thread *th, const struct ana_frame *fr,
		      uint64_t t)
{
	struct ev_frames *x = arg;
	(void)th;
	(void)t;
	if (x->index[fr->key] != NONE)
		return 0;
	if (vec_grow(&x->list, &x->cap, x->n + 1, sizeof(*x->list)))
		return -ENOMEM;
	x->index[fr->key] = (uint32_t)x->n;
	x->list[x->n++] = *fr;
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

static int ev_put(struct ev_frames *x, char type, const struct ana_frame *fr, uint64_t t)
{
	fprintf(x->f, "%s{\"type\":\"%c\",\"frame\":%u,\"at\":%llu}", x->first ? "\n" : ",\n", type,
		x->index[fr->key], (unsigned long long)t);
	x->first = false;
	return ferror(x->f) ? -EIO : 0;
}

static int ev_open(void *arg, const struct ana_thread *th, const struct ana_frame *fr, uint64_t t)
{
	(void)th;
	return ev_put(arg, 'O', fr, t);
}

static int ev_close(void *arg, const struct ana_thread *th, const struct ana_frame *fr, uint64_t t)
{
	(void)th;
	return ev_put(arg, 'C', fr, t);
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

/* One "evented" profile per thread, times in ns after the run's start. */
static int write_evented(struct ana_set *s, size_t ev, FILE *f)
{
	size_t nk = 2 * (s->n_func ? s->n_func : 1);
	struct ev_frames x = { .index = malloc(nk * sizeof(uint32_t)), .f = f };
	static const struct ana_walk_cb collect = { ev_collect, ev_none };
	static const struct ana_walk_cb write = { ev_open, ev_close };
	int e = x.index ? 0 : -ENOMEM;
	if (x.index)
		memset(x.index, 0xff, nk * sizeof(uint32_t));
	for (size_t t = 0; t < ana_set_n_threads(s) && !e; t++)
		e = ana_set_walk_thread(s, t, ev, &collect, &x);
	if (e)
		goto out;
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n", f);
	fputs("\"exporter\":\"pmcprof " PACKAGE_VERSION "\",\"name\":", f);
	json_put_str(f, s->n_orun == 1 ? s->orun[0].pub.label : "pmcprof");
	fputs(",\"activeProfileIndex\":0,\n\"shared\":{\"frames\":[", f);
	for (size_t j = 0; j < x.n; j++) {
		const struct ana_frame *fr = &x.list[j];
		char name[4096];
		snprintf(name, sizeof(name), "%s%s", fr->name ? fr->name : "?",
			 fr->inlined ? " [inlined]" : "");
		fputs(j ? ",\n{\"name\":" : "\n{\"name\":", f);
		json_put_str(f, name);
		const struct func *fn = &s->func[fr->key / 2];
		fputs(",\"file\":", f);
		json_put_str(f, fn->file ? fn->file : fn->path ? fn->path : fn->base);
		if (fn->line && fn->file)
			fprintf(f, ",\"line\":%u", fn->line);
		putc('}', f);
	}
	fputs("]},\n\"profiles\":[", f);
	bool first = true;
	for (size_t t = 0; t < ana_set_n_threads(s) && !e; t++) {
		const struct ana_thread *th = ana_set_thread(s, t);
		uint64_t a, b;
		if (!ev_span(s, t, ev, &a, &b))
			continue;
		char name[512];
		snprintf(name, sizeof(name), "%s %ld/%ld %s (%s)", th->command, th->pid, th->tid,
			 th->comm, s->ev_name[ev]);
		fputs(first ? "\n{\"type\":\"evented\",\"name\":" : ",\n{\"type\":\"evented\",\"name\":", f);
		first = false;
		json_put_str(f, name);
		/* endValue: the walk closes the last slices at most 2 intervals on */
		uint64_t end = b + (th->interval_ns ? 2 * th->interval_ns : 1000000);
		fprintf(f, ",\"unit\":\"nanoseconds\",\"startValue\":%llu,\"endValue\":%llu,"
			"\"events\":[", (unsigned long long)a, (unsigned long long)end);
		x.first = true;
		e = ana_set_walk_thread(s, t, ev, &write, &x);
		fputs("]}", f);
	}
	fputs("\n]}\n", f);
out:
	free(x.index);
	free(x.list);
	if (e)
		return e;
	fflush(f);
	return ferror(f) ? -EIO : 0;
}

int ana_set_write_speedscope(struct ana_set *s, size_t ev, FILE *f)
{
	if (!s->finished)
		return -ANA_ESTATE;
	if (ev >= s->n_ev)
		return -EINVAL;
	if (ana_set_n_threads(s) && !s->n_tl_missing)
		return write_evented(s, ev, f);
	ANA_QUERY(q, .view = ANA_VIEW_TOPDOWN, .node = ANA_ROOT, .max_depth = UINT_MAX,
		  .sort = ANA_SORT_NAME, .kind = ANA_INCL, .event = ev);
	struct ana_rows *r = ana_set_query(s, &q);
	if (!r)
		return -errno;
	size_t n = ana_rows_n(r);
	unsigned maxd = 1, nr = (unsigned)s->n_orun;
	for (size_t i = 0; i < n; i++)
		if (ana_rows_row(r, i)->depth > maxd)
			maxd = ana_rows_row(r, i)->depth;
	/* frames: a set function, inlined or not ("f [inlined]"), in first-use order */
	uint32_t *frame = malloc(2 * (s->n_func ? s->n_func : 1) * sizeof(*frame));
	uint32_t *order = malloc(2 * (s->n_func ? s->n_func : 1) * sizeof(*order));
	uint32_t *path = malloc((maxd + 1) * sizeof(*path));
	uint32_t n_frames = 0;
	if (!frame || !order || !path) {
		free(frame);
		free(order);
		free(path);
		ana_rows_free(r);
		return -ENOMEM;
	}
	memset(frame, 0xff, 2 * (s->n_func ? s->n_func : 1) * sizeof(*frame));
	for (size_t i = 0; i < n; i++) {
		const struct ana_row *row = ana_rows_row(r, i);
		uint32_t k = s->sfunc[row->node] * 2 + !!(row->flags & ANA_ROW_INLINED);
		if (frame[k] == NONE) {
			frame[k] = n_frames;
			order[n_frames++] = k;
		}
	}
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n", f);
	fputs("\"exporter\":\"pmcprof " PACKAGE_VERSION "\",\"name\":", f);
	json_put_str(f, nr == 1 ? s->orun[0].pub.label : "pmcprof");
	fputs(",\"activeProfileIndex\":0,\n\"shared\":{\"frames\":[", f);
	for (uint32_t j = 0; j < n_frames; j++) {
		const struct func *fn = &s->func[order[j] / 2];
		char name[4096];
		snprintf(name, sizeof(name), "%s%s", fn->name, order[j] & 1 ? " [inlined]" : "");
		fputs(j ? ",\n{\"name\":" : "\n{\"name\":", f);
		json_put_str(f, name);
		fputs(",\"file\":", f);
		json_put_str(f, fn->file ? fn->file : fn->path ? fn->path : fn->base);
		if (fn->line && fn->file)
			fprintf(f, ",\"line\":%u", fn->line);
		putc('}', f);
	}
	fputs("]},\n\"profiles\":[", f);
	for (unsigned run = 0; run < nr; run++) {
		const struct ana_event_fact *x = &s->orun[run].pub.events[ev];
		const char *unit = ss_unit(s->ev_unit[ev]);
		bool periodic = !s->o.weighted && x->period && !x->freq && !x->mixed;
		if (!s->o.weighted && !periodic)
			unit = NULL;
		double total = s->o.weighted ? s->rtot_val[run * s->n_ev + ev]
			     : (double)s->rtot[run * s->n_ev + ev] * (periodic ? (double)x->period : 1);
		char name[4096];
		snprintf(name, sizeof(name), "%s (%s)", s->orun[run].pub.label, s->ev_name[ev]);
		fputs(run ? ",\n{\"type\":\"sampled\",\"name\":" : "\n{\"type\":\"sampled\",\"name\":", f);
		json_put_str(f, name);
		fprintf(f, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%.0f,\"samples\":[",
			unit ? unit : "none", total);
		bool first = true;
		for (size_t i = 0; i < n; i++) {
			const struct ana_row *row = ana_rows_row(r, i);
			path[row->depth] = frame[s->sfunc[row->node] * 2 + !!(row->flags & ANA_ROW_INLINED)];
			if (!ana_rows_samples(r, i, run, ev, ANA_SELF))
				continue;
			fputs(first ? "\n[" : ",\n[", f);
			first = false;
			for (unsigned d = 1; d <= row->depth; d++)
				fprintf(f, d > 1 ? ",%u" : "%u", path[d]);
			putc(']', f);
		}
		fputs("],\"weights\":[", f);
		first = true;
		for (size_t i = 0; i < n; i++) {
			uint64_t c = ana_rows_samples(r, i, run, ev, ANA_SELF);
			if (!c)
				continue;
			double w = s->o.weighted ? ana_rows_value(r, i, run, ev, ANA_SELF)
				 : (double)c * (periodic ? (double)x->period : 1);
			fprintf(f, first ? "%.0f" : ",%.0f", w);
			first = false;
		}
		fputs("]}", f);
	}
	fputs("\n]}\n", f);
	free(frame);
	free(order);
	free(path);
	ana_rows_free(r);
	fflush(f);
	return ferror(f) ? -EIO : 0;
}

/* Timelines as slices: each thread's samples turned into "function on the
 * stack from t0 to t1" (ana_set_walk_thread), written as a Chrome / Perfetto trace in
 * the Trace Event format's JSON object form (ana_set_write_trace) and as
 * speedscope's evented profiles (speedscope.c).  docs/exports.md. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/analyzer.h"
#include "analyzer/ana/json.h"

#define WALK_DEPTH 1024		/* frames kept of a stack (the collector keeps 512 pcs,
				 * inlining adds some) */

/* Walk thread t's selected samples of event ev (SIZE_MAX: every event):
 * a sample stands from its time until the next one, but at most twice the
 * thread's usual interval (a longer gap means the thread did not run:
 * every slice closes, and opens again at the next sample).  open/close
 * are called in time order, properly nested (close innermost first). */
int ana_set_walk_thread(const struct ana_set *s, size_t t, size_t ev, const struct ana_walk_cb *cb, void *arg)
{
	const struct ana_thread *th = ana_set_thread(s, t);
	struct ana_frame *cur = malloc(WALK_DEPTH * sizeof(*cur));
	struct ana_frame *nw = malloc(WALK_DEPTH * sizeof(*nw));
	size_t depth = 0;
	uint64_t end = 0;
	int e = 0;

	if (!th || !cur || !nw) {
		free(cur);
		free(nw);
		return th ? -ENOMEM : -EINVAL;
	}
	/* a lone sample (no interval): a millisecond, the default period */
	uint64_t most = th->interval_ns ? 2 * th->interval_ns : 1000000;
	for (uint64_t i = 0; i < th->n_samples && !e; i++) {
		struct ana_sample sm, next;
		if (ana_set_thread_sample(s, t, i, &sm) || !sm.selected ||
		    (ev != SIZE_MAX && sm.event != ev))
			continue;
		/* the gap before it: close what the previous sample left open */
		if (depth && sm.time_ns > end)
			while (depth && !e)
				e = cb->close(arg, th, &cur[--depth], end);
		size_t n = ana_set_stack(s, sm.stack, nw, WALK_DEPTH);
		if (n > WALK_DEPTH)
			n = WALK_DEPTH;	/* the leaf side is kept: the root side goes */
		/* nw is leaf first: make it root first, then share the prefix */
		for (size_t a = 0, b = n; a + 1 < b; a++, b--) {
			struct ana_frame x = nw[a];
			nw[a] = nw[b - 1];
			nw[b - 1] = x;
		}
		size_t same = 0;
		while (same < depth && same < n && cur[same].key == nw[same].key)
			same++;
		while (depth > same && !e)
			e = cb->close(arg, th, &cur[--depth], sm.time_ns);
		for (; depth < n && !e; depth++) {
			cur[depth] = nw[depth];
			e = cb->open(arg, th, &cur[depth], sm.time_ns);
		}
		end = sm.time_ns + most;
		/* until the next sample of the walk, if it comes soon enough */
		for (uint64_t j = i + 1; j < th->n_samples; j++) {
			if (ana_set_thread_sample(s, t, j, &next) || !next.selected ||
			    (ev != SIZE_MAX && next.event != ev))
				continue;
			if (next.time_ns < end)
				end = next.time_ns;
			break;
		}
	}
	while (depth && !e)
		e = cb->close(arg, th, &cur[--depth], end);
	free(cur);
	free(nw);
	return e;
}

/* ---- the Trace Event format ---- */

struct trace {
	struct json *j;
	FILE *f;
};

/* Every event has the format's common fields: name, cat, ph, ts, pid,
 * tid.  Timestamps are microseconds (the format's unit), here with the
 * timeline's own resolution kept to the nanosecond. */
static int trace_event(struct trace *tr, const char *ph, const struct ana_thread *th,
		       const struct ana_frame *fr, uint64_t t)
{
	char name[4096], ts[48];
	const char *m = fr->module ? strrchr(fr->module, '/') : NULL;

	snprintf(name, sizeof(name), "%s%s", fr->name ? fr->name : "?",
		 fr->inlined ? " [inlined]" : "");
	snprintf(ts, sizeof(ts), "%llu.%03llu", (unsigned long long)(t / 1000),
		 (unsigned long long)(t % 1000));
	json_obj_begin(tr->j);
	json_kstr(tr->j, "ph", ph);
	json_kstr(tr->j, "name", name);
	json_kstr(tr->j, "cat", m ? m + 1 : fr->module ? fr->module : "unknown");
	json_knum(tr->j, "pid", (double)th->pid);
	json_knum(tr->j, "tid", (double)th->tid);
	json_key(tr->j, "ts");
	json_raw_num(tr->j, ts);
	/* where it is, once: on the slice's beginning */
	if (*ph == 'B' && fr->file) {
		json_key(tr->j, "args");
		json_obj_begin(tr->j);
		json_kstr(tr->j, "file", fr->file);
		json_ku64(tr->j, "line", fr->line);
		json_obj_end(tr->j);
	}
	json_obj_end(tr->j);
	return ferror(tr->f) ? -EIO : 0;
}

static int trace_open(void *arg, const struct ana_thread *th, const struct ana_frame *fr,
		      uint64_t t)
{
	return trace_event(arg, "B", th, fr, t);
}

static int trace_close(void *arg, const struct ana_thread *th, const struct ana_frame *fr,
		       uint64_t t)
{
	return trace_event(arg, "E", th, fr, t);
}

/* A metadata event naming a process or a thread. */
static void trace_name(struct json *j, const char *what, long pid, long tid, const char *name)
{
	json_obj_begin(j);
	json_kstr(j, "ph", "M");
	json_kstr(j, "name", what);
	json_knum(j, "pid", (double)pid);
	json_knum(j, "tid", (double)tid);
	json_key(j, "args");
	json_obj_begin(j);
	json_kstr(j, "name", name ? name : "");
	json_obj_end(j);
	json_obj_end(j);
}

static void trace_names(struct json *j, const struct ana_set *s)
{
	for (size_t i = 0; i < ana_set_n_threads(s); i++) {
		const struct ana_thread *th = ana_set_thread(s, i);
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++)
			seen = ana_set_thread(s, k)->pid == th->pid;
		if (!seen)
			trace_name(j, "process_name", th->pid, th->pid, th->command);
		trace_name(j, "thread_name", th->pid, th->tid, th->comm);
	}
}

int ana_set_write_trace(struct ana_set *s, FILE *f)
{
	if (!ana_set_finished(s))
		return -ANA_ESTATE;
	if (!ana_set_n_threads(s))
		return -ENODATA;
	static const struct ana_walk_cb cb = { trace_open, trace_close };
	struct trace tr = { json_open(f), f };
	if (!tr.j)
		return -ENOMEM;
	int e = 0;
	json_obj_begin(tr.j);
	json_key(tr.j, "traceEvents");
	json_arr_begin(tr.j);
	trace_names(tr.j, s);
	for (size_t i = 0; i < ana_set_n_threads(s) && !e; i++)
		e = ana_set_walk_thread(s, i, SIZE_MAX, &cb, &tr);
	json_arr_end(tr.j);
	json_kstr(tr.j, "displayTimeUnit", "ms");
	json_key(tr.j, "otherData");
	json_obj_begin(tr.j);
	json_kstr(tr.j, "exporter", "pmcprof " PACKAGE_VERSION);
	json_kstr(tr.j, "clock", "microseconds after the run's start");
	json_obj_end(tr.j);
	json_obj_end(tr.j);
	int ec = json_close(tr.j);
	if (e || ec)
		return e ? e : ec;
	putc('\n', f);
	fflush(f);
	return ferror(f) ? -EIO : 0;
}

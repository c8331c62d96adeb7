/* Run facts (facts.h): one run's struct ana_run as typed records, with
 * the analyzer's decisions about them (raw or derived, loss or not, warn
 * or not) made here once for every renderer.  Built on the public API. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/facts.h"

struct ana_facts {
	struct ana_fact *f;
	size_t n;
	char trust[128];		/* ANA_FACT_TRUST's text */
};

/* Metadata and counters another record shows derived. */
static const char *const raw_meta[] = { "start_time", "end_time", "steal_start", "steal_end" };
static const char *const raw_counter[] = { "thread_cpu_ns", "thread_user_ns", "handler_ns" };

static bool in(const char *key, const char *const *set, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(key, set[i]))
			return true;
	return false;
}

/* A new record of id (room was made for every record up front). */
static struct ana_fact *add(struct ana_facts *fs, enum ana_fact_id id, enum ana_fact_group g,
			    const char *key, enum ana_fact_type t)
{
	struct ana_fact *f = &fs->f[fs->n++];
	*f = (struct ana_fact){ .id = id, .group = g, .key = key, .type = t, .value = NAN,
				.pct = NAN, .severity = ANA_NOTE_INFO };
	return f;
}

static struct ana_fact *seconds(struct ana_facts *fs, enum ana_fact_id id,
				enum ana_fact_group g, const char *key, double v, bool mean)
{
	struct ana_fact *f = add(fs, id, g, key, ANA_FT_SECONDS);
	f->value = v;
	f->unit = "s";
	f->flags = (isnan(v) ? ANA_FACT_UNKNOWN : 0) | (mean ? ANA_FACT_MEAN : 0);
	return f;
}

/* A trust ratio (coverage, loss scale). */
static struct ana_fact *ratio(struct ana_facts *fs, enum ana_fact_id id, const char *key,
			      double v)
{
	struct ana_fact *f = add(fs, id, ANA_FG_TRUST, key, ANA_FT_RATIO);
	f->value = v;
	f->flags = isnan(v) ? ANA_FACT_UNKNOWN : 0;
	return f;
}

static struct ana_fact *count(struct ana_facts *fs, enum ana_fact_id id, const char *key,
			      uint64_t v)
{
	struct ana_fact *f = add(fs, id, id <= ANA_FACT_PARTIAL ? ANA_FG_RUN : ANA_FG_TRUST, key,
				 ANA_FT_COUNT);
	f->count = v;
	return f;
}

static struct ana_fact *text(struct ana_facts *fs, enum ana_fact_id id, enum ana_fact_group g,
			     const char *key, const char *v)
{
	struct ana_fact *f = add(fs, id, g, key, ANA_FT_TEXT);
	f->text = v;
	f->flags = v ? 0 : ANA_FACT_UNKNOWN;
	return f;
}

static const char *command_of(const struct ana_run *r)
{
	static const char *const keys[] = { "argv", "command" };
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < r->n_meta; i++)
			if (!strcmp(r->meta[i].key, keys[k]) && r->meta[i].value[0])
				return r->meta[i].value;
	return NULL;
}

/* What ran: label, command (argv, else the command's name), files. */
static void run_part(struct ana_facts *fs, const struct ana_run *r)
{
	text(fs, ANA_FACT_LABEL, ANA_FG_RUN, "label", r->label);
	text(fs, ANA_FACT_COMMAND, ANA_FG_RUN, "command", command_of(r));
	count(fs, ANA_FACT_FILES, "files", r->n_files);
	count(fs, ANA_FACT_REPEATS, "repeats", r->n_repeats);
	count(fs, ANA_FACT_PARTIAL, "partial", r->n_partial)->severity =
		r->n_partial ? ANA_NOTE_WARN : ANA_NOTE_INFO;
	/* no slice is known: the whole run; its seconds need a timeline */
	struct ana_fact *f = text(fs, ANA_FACT_SLICE, ANA_FG_RUN, "time_slice", r->time_slice);
	f->flags = r->time_slice ? 0 : ANA_FACT_EMPTY;
	f->value = r->time_slice ? r->time_slice_s : NAN;
	f->unit = "s";
}

/* Metadata: a list where files differ; raw times are shown derived. */
static void meta_part(struct ana_facts *fs, const struct ana_run *r)
{
	for (size_t i = 0; i < r->n_meta; i++) {
		const struct ana_kv *kv = &r->meta[i];
		struct ana_fact *f = add(fs, ANA_FACT_META, ANA_FG_META, kv->key,
					 kv->n_values > 1 ? ANA_FT_LIST : ANA_FT_TEXT);
		f->text = kv->value;
		f->list = kv->values ? kv->values : &kv->value;
		f->n_list = kv->values ? kv->n_values : 1;
		f->ref = i;
		if (in(kv->key, raw_meta, sizeof(raw_meta) / sizeof(*raw_meta)))
			f->flags |= ANA_FACT_RAW;
		if (!kv->value[0])
			f->flags |= ANA_FACT_EMPTY;
	}
}

/* Wall clock and the host's steal, means over repeats. */
static void time_part(struct ana_facts *fs, const struct ana_run *r)
{
	bool mean = r->n_repeats > 1;

	seconds(fs, ANA_FACT_DURATION, ANA_FG_TIME, "duration", r->duration, mean);
	struct ana_fact *f = seconds(fs, ANA_FACT_STEAL, ANA_FG_TIME, "steal", r->steal, mean);
	/* of the CPU time the run's span offered (all CPUs); warned above
	 * the trust threshold */
	if (!isnan(r->steal_share))
		f->pct = 100 * r->steal_share;
	if (r->steal_share > ANA_TRUST_STEAL_SHARE)
		f->severity = ANA_NOTE_WARN;
	f = add(fs, ANA_FACT_STEAL_SHARE, ANA_FG_TIME, "steal_share", ANA_FT_SHARE);
	f->value = r->steal_share;
	f->flags = ANA_FACT_RAW | (isnan(f->value) ? ANA_FACT_UNKNOWN : 0);
}

static enum ana_severity warn_if(bool cond)
{
	return cond ? ANA_NOTE_WARN : ANA_NOTE_INFO;
}

/* The trust flags, then the figures they were judged on. */
static void trust_part(struct ana_facts *fs, const struct ana_run *r)
{
	bool mean = r->n_repeats > 1;
	struct ana_fact *f = add(fs, ANA_FACT_TRUST, ANA_FG_TRUST, "trust", ANA_FT_FLAGS);

	f->count = r->trust;
	f->text = ana_trust_str(r->trust, fs->trust, sizeof(fs->trust));
	f->severity = warn_if(r->trust);
	seconds(fs, ANA_FACT_CPU_TIME, ANA_FG_TRUST, "cpu_time", r->cpu_time, mean);
	seconds(fs, ANA_FACT_USER_TIME, ANA_FG_TRUST, "user_time", r->user_time, mean);
	f = seconds(fs, ANA_FACT_SAMPLED, ANA_FG_TRUST, "sampled_time", r->sampled_time, mean);
	/* judged only where threads expected enough samples */
	if (isnan(r->coverage))
		f->flags |= ANA_FACT_UNKNOWN;
	else
		f->pct = 100 * r->coverage;
	f->severity = warn_if(r->trust & (ANA_TRUST_SAMPLES_LOST | ANA_TRUST_SAMPLES_EXCESS));
	seconds(fs, ANA_FACT_EXPECTED, ANA_FG_TRUST, "expected_time", r->expected_time,
		mean)->flags |= ANA_FACT_RAW;
	ratio(fs, ANA_FACT_COVERAGE, "coverage", r->coverage)->flags |= ANA_FACT_RAW;
	f = add(fs, ANA_FACT_BASIS, ANA_FG_TRUST, "basis", ANA_FT_FLAGS);
	f->count = r->basis;
	f->text = ana_basis_str(r->basis);
	count(fs, ANA_FACT_JUDGED, "threads_judged", r->n_judged);
	count(fs, ANA_FACT_SHORT, "threads_short", r->n_short);
	f = seconds(fs, ANA_FACT_HANDLER, ANA_FG_TRUST, "handler_time", r->handler_time, mean);
	if (!isnan(r->handler_time) && !isnan(r->cpu_time) && r->cpu_time > 0)
		f->pct = 100 * r->handler_time / r->cpu_time;
	f->severity = warn_if(r->trust & ANA_TRUST_COLLECTOR_TIME);
	text(fs, ANA_FACT_EMULATOR, ANA_FG_TRUST, "emulator", r->emulator)->severity =
		warn_if(r->emulator);
	/* NULL: bare metal, known (ANA_TRUST_VIRTUALIZED says the rest) */
	text(fs, ANA_FACT_VIRTUALIZATION, ANA_FG_TRUST, "virtualization",
	     r->virtualization)->flags = r->virtualization ? 0 : ANA_FACT_EMPTY;
	ratio(fs, ANA_FACT_LOSS_SCALE, "loss_scale", r->loss_scale);
}

/* Events: samples, weight, what was asked for; mixed periods warn. */
static void event_part(struct ana_facts *fs, const struct ana_run *r)
{
	for (size_t e = 0; e < r->n_events; e++) {
		const struct ana_event_fact *ev = &r->events[e];
		struct ana_fact *f = add(fs, ANA_FACT_EVENT, ANA_FG_EVENT, ev->name, ANA_FT_COUNT);
		f->text = ev->requested ? ev->requested : "";
		f->count = ev->samples;
		f->value = ev->weight;
		f->unit = ev->unit;
		f->ref = e;
		f->event = ev;
		if (!ev->samples && !f->text[0])
			f->flags |= ANA_FACT_ABSENT;
		if (f->text[0] && strcmp(f->text, ev->name))
			f->flags |= ANA_FACT_SUBSTITUTED;
		f->severity = warn_if(ev->mixed);
	}
}

/* Counters: which are losses (pct of the run's samples) and which are
 * warned about (above 1%) the set decided (set.c, is_loss). */
static void counter_part(struct ana_facts *fs, const struct ana_run *r)
{
	for (size_t i = 0; i < r->n_counters; i++) {
		const struct ana_counter_fact *c = &r->counters[i];
		struct ana_fact *f = add(fs, ANA_FACT_COUNTER, ANA_FG_COUNTER, c->name, ANA_FT_COUNT);
		f->count = c->value;
		f->pct = c->pct;
		f->ref = i;
		f->severity = warn_if(c->warn);
		if (!isnan(c->pct))
			f->flags |= ANA_FACT_LOSS;
		if (in(c->name, raw_counter, sizeof(raw_counter) / sizeof(*raw_counter)))
			f->flags |= ANA_FACT_RAW;
	}
}

struct ana_facts *ana_facts_new(const struct ana_run *run)
{
	struct ana_facts *fs = calloc(1, sizeof(*fs));
	/* every fixed record, and one per metadata key, event and counter */
	size_t n = ANA_FACT_COUNTER + run->n_meta + run->n_events + run->n_counters;

	if (!fs || !(fs->f = calloc(n, sizeof(*fs->f)))) {
		free(fs);
		errno = ENOMEM;
		return NULL;
	}
	run_part(fs, run);
	meta_part(fs, run);
	time_part(fs, run);
	trust_part(fs, run);
	event_part(fs, run);
	counter_part(fs, run);
	return fs;
}

void ana_facts_free(struct ana_facts *f)
{
	if (!f)
		return;
	free(f->f);
	free(f);
}

const struct ana_facts *ana_set_facts(const struct ana_set *s, unsigned run)
{
	const struct ana_run *r = ana_set_run(s, run);
	return r ? r->facts : NULL;
}

size_t ana_facts_n(const struct ana_facts *f)
{
	return f ? f->n : 0;
}

const struct ana_fact *ana_facts_at(const struct ana_facts *f, size_t i)
{
	return f && i < f->n ? &f->f[i] : NULL;
}

const struct ana_fact *ana_facts_get(const struct ana_facts *f, enum ana_fact_id id)
{
	for (size_t i = 0; f && i < f->n; i++)
		if (f->f[i].id == id)
			return &f->f[i];
	return NULL;
}

const struct ana_fact *ana_facts_all(const struct ana_facts *f, enum ana_fact_id id, size_t *n)
{
	const struct ana_fact *first = ana_facts_get(f, id);

	*n = 0;
	while (first && first + *n < f->f + f->n && first[*n].id == id)
		++*n;
	return first;
}

const struct ana_fact *ana_facts_find(const struct ana_facts *f, enum ana_fact_id id,
				      const char *key)
{
	size_t n;
	const struct ana_fact *x = ana_facts_all(f, id, &n);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(x[i].key, key))
			return &x[i];
	return NULL;
}

const char *ana_facts_slice(const struct ana_facts *f)
{
	const struct ana_fact *x = ana_facts_get(f, ANA_FACT_SLICE);
	return x && !(x->flags & ANA_FACT_EMPTY) ? x->text : NULL;
}

const char *ana_facts_meta_str(const struct ana_facts *f, const char *key)
{
	const struct ana_fact *m = ana_facts_find(f, ANA_FACT_META, key);
	return m ? m->text : "";
}

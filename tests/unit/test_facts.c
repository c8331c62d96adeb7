/* The run facts model (analyzer/facts.h) over hand-made runs: the values
 * every renderer shows, and the decisions made once for them (raw or
 * derived, empty, absent, losses and which warn, severities). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyzer/facts.h"
#include "tests/harness.h"

static const char *const hosts[] = { "a", "b" };
static const struct ana_kv meta[] = {
	{ "argv", "", NULL, 0 },			/* empty: the command's name is shown */
	{ "command", "prog", NULL, 0 },
	{ "start_time", "100.0", NULL, 0 },
	{ "end_time", "101.5", NULL, 0 },
	{ "fallback", "", NULL, 0 },
	{ "host", "a, b (2 distinct)", hosts, 2 },
};
static struct ana_event_fact events[] = {
	{ .name = "perf::CPU-CLOCK", .requested = "cycles", .unit = "ns", .period = 1000,
	  .samples = 900, .weight = 9e5 },
	{ .name = "perf::PAGE-FAULTS", .requested = "", .unit = "events", .period = 10,
	  .mixed = true, .samples = 5, .weight = 50 },
	{ .name = "instructions", .requested = "", .unit = "events" },	/* another run's */
};
static const struct ana_counter_fact counters[] = {
	{ "samples", 1000, NAN, false },
	{ "lost", 50, 5.0, true },
	{ "unwind_failed", 3, 0.3, false },
	{ "thread_cpu_ns", 2000000000, NAN, false },
};

static struct ana_run base_run(void)
{
	return (struct ana_run){
		.label = "run.pmcp", .n_files = 3, .n_repeats = 2, .n_partial = 1,
		.n_meta = sizeof(meta) / sizeof(*meta), .meta = meta,
		.n_events = sizeof(events) / sizeof(*events), .events = events,
		.n_counters = sizeof(counters) / sizeof(*counters), .counters = counters,
		.duration = 1.5, .steal = 0.2, .steal_share = 0.06,
		.cpu_time = 2.0, .user_time = NAN, .sampled_time = 0.9, .expected_time = 2.0,
		.coverage = 0.45, .basis = ANA_BASIS_CPU, .n_judged = 4, .n_short = 1,
		.handler_time = 0.25, .emulator = NULL,
		.trust = ANA_TRUST_SAMPLES_LOST | ANA_TRUST_COLLECTOR_TIME, .loss_scale = 2,
	};
}

/* What a brief listing leaves out and what warns, for metadata and
 * counters: the decisions every renderer shares. */
static void test_flags(void)
{
	static const struct {
		int line;
		enum ana_fact_id id;
		const char *key;
		unsigned flags;
		enum ana_fact_type type;
		enum ana_severity sev;
	} cases[] = {
		{ __LINE__, ANA_FACT_META, "start_time", ANA_FACT_RAW, ANA_FT_TEXT, 0 },	/* duration */
		{ __LINE__, ANA_FACT_META, "end_time", ANA_FACT_RAW, ANA_FT_TEXT, 0 },
		{ __LINE__, ANA_FACT_META, "fallback", ANA_FACT_EMPTY, ANA_FT_TEXT, 0 },	/* none */
		{ __LINE__, ANA_FACT_META, "command", 0, ANA_FT_TEXT, 0 },
		{ __LINE__, ANA_FACT_META, "host", 0, ANA_FT_LIST, 0 },		/* files differ */
		{ __LINE__, ANA_FACT_COUNTER, "samples", 0, ANA_FT_COUNT, 0 },	/* not a loss */
		{ __LINE__, ANA_FACT_COUNTER, "lost", ANA_FACT_LOSS, ANA_FT_COUNT, ANA_NOTE_WARN },
		{ __LINE__, ANA_FACT_COUNTER, "unwind_failed", ANA_FACT_LOSS, ANA_FT_COUNT, 0 },	/* < 1% */
		{ __LINE__, ANA_FACT_COUNTER, "thread_cpu_ns", ANA_FACT_RAW, ANA_FT_COUNT, 0 },	/* cpu time */
	};
	struct ana_run r = base_run();
	struct ana_facts *f = ana_facts_new(&r);

	for (size_t k = 0; f && k < sizeof(cases) / sizeof(*cases); k++) {
		const struct ana_fact *x = ana_facts_find(f, cases[k].id, cases[k].key);
		T_OK(x && x->flags == cases[k].flags && x->type == cases[k].type &&
		     x->severity == cases[k].sev, "line %d: %s flags %#x type %d severity %d",
		     cases[k].line, cases[k].key, x ? x->flags : 0, x ? (int)x->type : -1,
		     x ? (int)x->severity : -1);
	}
	ana_facts_free(f);
}

/* Records come by section, fixed ids once each, and point into the run. */
static void test_shape(const struct ana_facts *f, const struct ana_run *r)
{
	size_t n;
	bool ordered = true;
	for (size_t i = 1; i < ana_facts_n(f); i++)
		ordered &= ana_facts_at(f, i)->group >= ana_facts_at(f, i - 1)->group;
	T_OK(ordered, "records come section by section");
	T_OK(!ana_facts_at(f, ana_facts_n(f)), "no record past the end");
	for (int id = ANA_FACT_LABEL; id < ANA_FACT_COUNTER; id++)
		if (id != ANA_FACT_META)
			T_OK(ana_facts_get(f, (enum ana_fact_id)id), "fixed fact %d is there", id);
	const struct ana_fact *ev = ana_facts_all(f, ANA_FACT_EVENT, &n);
	T_OK(n == r->n_events && ev[2].ref == 2 && ev[2].event == &r->events[2],
	     "one event record per column, [e] is column e");
	T_OK(ana_facts_all(f, ANA_FACT_META, &n) && n == r->n_meta, "one record per metadata key");
	T_OK(ana_facts_all(f, ANA_FACT_COUNTER, &n)[3].ref == 3 && n == r->n_counters,
	     "one record per counter");
}

static void test_run_and_meta(const struct ana_facts *f)
{
	const struct ana_fact *x = ana_facts_get(f, ANA_FACT_COMMAND);
	T_OK(x->text && !strcmp(x->text, "prog"), "command: argv, else (argv empty) the command");
	T_OK(!strcmp(ana_facts_get(f, ANA_FACT_LABEL)->text, "run.pmcp"), "label");
	x = ana_facts_get(f, ANA_FACT_PARTIAL);
	T_OK(x->count == 1 && x->severity == ANA_NOTE_WARN, "a partial file warns");
	test_flags();
	x = ana_facts_find(f, ANA_FACT_META, "host");
	T_OK(x->n_list == 2 && !strcmp(x->list[1], "b") && !strcmp(x->text, "a, b (2 distinct)"),
	     "a list keeps every value and the joined text");
	T_OK(!ana_facts_find(f, ANA_FACT_META, "nope") && !*ana_facts_meta_str(f, "nope") &&
	     !strcmp(ana_facts_meta_str(f, "command"), "prog"), "meta lookups");
}

/* Values and severities of the derived figures, table-driven. */
static void test_figures(const struct ana_facts *f)
{
	static const struct {
		int line;
		enum ana_fact_id id;
		double value, pct;	/* NAN: none */
		enum ana_severity sev;
		unsigned flags;
	} cases[] = {
		{ __LINE__, ANA_FACT_DURATION, 1.5, NAN, ANA_NOTE_INFO, ANA_FACT_MEAN },
		{ __LINE__, ANA_FACT_STEAL, 0.2, 6.0, ANA_NOTE_WARN, ANA_FACT_MEAN },	/* > 5% */
		{ __LINE__, ANA_FACT_STEAL_SHARE, 0.06, NAN, ANA_NOTE_INFO, ANA_FACT_RAW },
		{ __LINE__, ANA_FACT_CPU_TIME, 2.0, NAN, ANA_NOTE_INFO, ANA_FACT_MEAN },
		{ __LINE__, ANA_FACT_USER_TIME, NAN, NAN, ANA_NOTE_INFO,
		  ANA_FACT_MEAN | ANA_FACT_UNKNOWN },
		{ __LINE__, ANA_FACT_SAMPLED, 0.9, 45.0, ANA_NOTE_WARN, ANA_FACT_MEAN },	/* lost */
		{ __LINE__, ANA_FACT_HANDLER, 0.25, 12.5, ANA_NOTE_WARN, ANA_FACT_MEAN },
		/* shown derived, as sampled time's pct (the JSON trust object's own) */
		{ __LINE__, ANA_FACT_EXPECTED, 2.0, NAN, ANA_NOTE_INFO, ANA_FACT_MEAN | ANA_FACT_RAW },
		{ __LINE__, ANA_FACT_COVERAGE, 0.45, NAN, ANA_NOTE_INFO, ANA_FACT_RAW },
		{ __LINE__, ANA_FACT_LOSS_SCALE, 2.0, NAN, ANA_NOTE_INFO, 0 },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(*cases); k++) {
		const struct ana_fact *x = ana_facts_get(f, cases[k].id);
		bool v = isnan(cases[k].value) ? isnan(x->value) : fabs(x->value - cases[k].value) < 1e-12;
		bool p = isnan(cases[k].pct) ? isnan(x->pct) : fabs(x->pct - cases[k].pct) < 1e-9;
		T_OK(v && p && x->severity == cases[k].sev && x->flags == cases[k].flags,
		     "figure line %d: %s = %g (%g%%) severity %d flags %#x", cases[k].line, x->key,
		     x->value, x->pct, (int)x->severity, x->flags);
	}
	const struct ana_fact *t = ana_facts_get(f, ANA_FACT_TRUST);
	T_OK(t->type == ANA_FT_FLAGS && t->severity == ANA_NOTE_WARN &&
	     !strcmp(t->text, "samples-lost;collector-time"), "trust flags: %s", t->text);
	T_OK(!strcmp(ana_facts_get(f, ANA_FACT_BASIS)->text, "CPU time") &&
	     ana_facts_get(f, ANA_FACT_JUDGED)->count == 4 &&
	     ana_facts_get(f, ANA_FACT_SHORT)->count == 1, "basis and threads judged");
	t = ana_facts_get(f, ANA_FACT_EMULATOR);
	T_OK(!t->text && t->flags == ANA_FACT_UNKNOWN && t->severity == ANA_NOTE_INFO,
	     "no emulator: unknown, no warning");
	t = ana_facts_get(f, ANA_FACT_VIRTUALIZATION);
	T_OK(!t->text && t->flags == ANA_FACT_EMPTY && t->group == ANA_FG_TRUST,
	     "no virtualization: bare metal, known, nothing to say");
	t = ana_facts_get(f, ANA_FACT_COVERAGE);
	T_OK(t->type == ANA_FT_RATIO && ana_facts_get(f, ANA_FACT_LOSS_SCALE)->type == ANA_FT_RATIO,
	     "coverage and loss scale are ratios");
}

static void test_events_counters(const struct ana_facts *f)
{
	size_t n;
	const struct ana_fact *e = ana_facts_all(f, ANA_FACT_EVENT, &n);
	T_OK(e[0].flags == ANA_FACT_SUBSTITUTED && !strcmp(e[0].text, "cycles") &&
	     e[0].count == 900 && e[0].value == 9e5 && !strcmp(e[0].unit, "ns"),
	     "an event used for another: substituted, samples and weight");
	T_OK(e[1].severity == ANA_NOTE_WARN && !e[1].flags, "mixed periods warn");
	T_OK(e[2].flags == ANA_FACT_ABSENT, "another run's event is absent here");
	const struct ana_fact *lost = ana_facts_find(f, ANA_FACT_COUNTER, "lost");
	T_OK(lost->count == 50 && lost->pct == 5.0, "a loss counter's value and share");
}

/* A run the profiles say little about: everything unknown, nothing warns. */
static void test_bare(void)
{
	struct ana_run r = { .label = "x", .n_files = 1, .n_repeats = 1, .duration = NAN,
			     .steal = NAN, .steal_share = NAN, .cpu_time = NAN, .user_time = NAN,
			     .sampled_time = NAN, .expected_time = NAN, .coverage = NAN,
			     .handler_time = NAN, .loss_scale = 1 };
	struct ana_facts *f = ana_facts_new(&r);
	size_t n_warn = 0, n_unknown = 0;

	T_OK(f != NULL, "facts of a bare run");
	for (size_t i = 0; f && i < ana_facts_n(f); i++) {
		n_warn += ana_facts_at(f, i)->severity != ANA_NOTE_INFO;
		n_unknown += !!(ana_facts_at(f, i)->flags & ANA_FACT_UNKNOWN);
	}
	T_OK(n_warn == 0, "nothing warns (%zu)", n_warn);
	/* command, duration, steal, steal_share, cpu, user, sampled, expected,
	 * coverage, handler, emulator */
	T_OK(n_unknown == 11, "unknowns flagged (%zu)", n_unknown);
	T_OK(f && isnan(ana_facts_get(f, ANA_FACT_HANDLER)->pct) &&
	     !strcmp(ana_facts_get(f, ANA_FACT_TRUST)->text, ""), "no handler share, no flags");
	T_OK(f && !ana_facts_get(f, ANA_FACT_EVENT) && !ana_facts_get(f, ANA_FACT_META),
	     "no events, no metadata");
	ana_facts_free(f);
}

/* --time's slice: a run fact of its own (renderers name it from here),
 * the whole run without one (hidden: says nothing). */
static void test_slice(void)
{
	struct ana_run r = base_run();
	struct ana_facts *f = ana_facts_new(&r);
	const struct ana_fact *x = f ? ana_facts_get(f, ANA_FACT_SLICE) : NULL;

	T_OK(x && x->group == ANA_FG_RUN && x->type == ANA_FT_TEXT && !strcmp(x->key, "time_slice") &&
	     x->flags == ANA_FACT_EMPTY && isnan(x->value) && !ana_facts_slice(f),
	     "no slice: the whole run, an empty record, hidden");
	T_OK(x && x == ana_facts_get(f, ANA_FACT_PARTIAL) + 1, "the slice comes after partial");
	ana_facts_free(f);

	r.time_slice = "10%/2,50%-60%";
	r.time_slice_s = 0.3;
	f = ana_facts_new(&r);
	x = f ? ana_facts_get(f, ANA_FACT_SLICE) : NULL;
	T_OK(x && x->text == r.time_slice && x->value == 0.3 && !strcmp(x->unit, "s") &&
	     !(x->flags & ANA_FACT_HIDDEN) && ana_facts_slice(f) == r.time_slice,
	     "a slice: its spec as typed and its seconds, shown");
	ana_facts_free(f);

	r.time_slice_s = NAN;	/* no timeline to measure it on */
	f = ana_facts_new(&r);
	x = f ? ana_facts_get(f, ANA_FACT_SLICE) : NULL;
	T_OK(x && isnan(x->value) && !(x->flags & ANA_FACT_HIDDEN) && ana_facts_slice(f),
	     "a slice of unknown length is still named");
	ana_facts_free(f);
	T_OK(!ana_facts_slice(NULL), "no facts: no slice");
}

int main(void)
{
	struct ana_run r = base_run();
	struct ana_facts *f = ana_facts_new(&r);

	T_OK(f != NULL, "facts built");
	if (f) {
		test_shape(f, &r);
		test_run_and_meta(f);
		test_figures(f);
		test_events_counters(f);
	}
	ana_facts_free(f);
	test_bare();
	test_slice();
	r.emulator = "QEMU-TCG";
	r.virtualization = "QEMU-TCG (emulation)";
	r.steal_share = 0.04;
	f = ana_facts_new(&r);
	T_OK(f && ana_facts_get(f, ANA_FACT_EMULATOR)->severity == ANA_NOTE_WARN &&
	     ana_facts_get(f, ANA_FACT_STEAL)->severity == ANA_NOTE_INFO,
	     "an emulator warns; steal under 5%% does not");
	T_OK(f && ana_facts_get(f, ANA_FACT_VIRTUALIZATION)->text == r.virtualization &&
	     !ana_facts_get(f, ANA_FACT_VIRTUALIZATION)->flags, "the virtualization layers");
	ana_facts_free(f);
	return T_DONE();
}

/* Run facts: what the analyzer knows about one run, as typed records.
 *
 * Every front end shows the same facts (report's and diff's headers, the
 * viewer's header and its `i` panel, JSON's run objects); each is a
 * renderer over these records and decides only how a fact reads.  What
 * the facts are, and which of them matter, is decided here once: which
 * counters are losses and which are warned about, which figures are raw
 * (start_time, thread_cpu_ns) and shown derived (duration, cpu time),
 * which say nothing (an empty metadata value, another run's event).
 *
 * A set builds its runs' facts at ana_set_finish; they are owned by the
 * set and point into its strings (docs/analyzer.md, "Run facts"). */
#ifndef ANALYZER_ANA_FACTS_H
#define ANALYZER_ANA_FACTS_H

#include <stddef.h>
#include <stdint.h>

#include "analyzer/ana/core.h"
#include "analyzer/ana/set.h"
#include "analyzer/ana/run.h"
#include "analyzer/ana/note.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sections, in the order the records come. */
enum ana_fact_group {
	ANA_FG_RUN,		/* label, command, files, repeats, partial, the slice */
	ANA_FG_META,		/* one per metadata key, first-seen order */
	ANA_FG_TIME,		/* duration, steal */
	ANA_FG_TRUST,		/* trust flags and the figures behind them */
	ANA_FG_EVENT,		/* one per event column of the set */
	ANA_FG_COUNTER,		/* one per collector counter */
};

/* What a record is; the fixed ones come once each, in this order. */
enum ana_fact_id {
	ANA_FACT_LABEL, ANA_FACT_COMMAND, ANA_FACT_FILES, ANA_FACT_REPEATS, ANA_FACT_PARTIAL,
	ANA_FACT_SLICE,		/* "time_slice": the part of the run the counts are
				 * of (--time), text as typed, value its seconds;
				 * EMPTY without one (the whole run) */
	ANA_FACT_META,
	ANA_FACT_DURATION, ANA_FACT_STEAL, ANA_FACT_STEAL_SHARE,
	ANA_FACT_TRUST, ANA_FACT_CPU_TIME, ANA_FACT_USER_TIME, ANA_FACT_SAMPLED,
	ANA_FACT_EXPECTED, ANA_FACT_COVERAGE, ANA_FACT_BASIS, ANA_FACT_JUDGED, ANA_FACT_SHORT,
	ANA_FACT_HANDLER, ANA_FACT_EMULATOR, ANA_FACT_VIRTUALIZATION, ANA_FACT_LOSS_SCALE,
	ANA_FACT_EVENT, ANA_FACT_COUNTER,
};

/* Which member holds the value. */
enum ana_fact_type {
	ANA_FT_TEXT,		/* text (NULL: unknown) */
	ANA_FT_LIST,		/* list[n_list]; text: them joined, "a, b (2 distinct)" */
	ANA_FT_COUNT,		/* count */
	ANA_FT_SECONDS,		/* value, in seconds (NAN: unknown) */
	ANA_FT_SHARE,		/* value, 0..1 (NAN: unknown) */
	ANA_FT_RATIO,		/* value, a ratio of two figures (NAN: unknown) */
	ANA_FT_FLAGS,		/* count: the bits; text: their names ("a;b", "" for none) */
};

/* Why a brief listing leaves a record out (a full one shows them all). */
enum ana_fact_flag {
	ANA_FACT_RAW = 1 << 0,		/* another record shows it derived: start_time,
					 * steal_end (duration, steal), thread_cpu_ns,
					 * handler_ns (cpu time, handler), steal_share,
					 * expected_time and coverage (sampled's pct) */
	ANA_FACT_EMPTY = 1 << 1,	/* says nothing: an empty metadata value ("fallback"
					 * when none happened), no virtualization (bare
					 * metal), no time slice (the whole run) */
	ANA_FACT_ABSENT = 1 << 2,	/* an event this run neither sampled nor asked
					 * for (another run's) */
	ANA_FACT_UNKNOWN = 1 << 3,	/* the profiles do not record it (NAN, NULL) */
	/* not reasons to hide: */
	ANA_FACT_LOSS = 1 << 4,		/* a counter of lost samples: pct is of the run's samples */
	ANA_FACT_SUBSTITUTED = 1 << 5,	/* an event used in place of the one requested (text) */
	ANA_FACT_MEAN = 1 << 6,		/* a mean over the run's repeats */
};
#define ANA_FACT_HIDDEN (ANA_FACT_RAW | ANA_FACT_EMPTY | ANA_FACT_ABSENT | ANA_FACT_UNKNOWN)

struct ana_fact {
	enum ana_fact_id id;
	enum ana_fact_group group;
	const char *key;		/* "duration", "cpu_time", a metadata key, an
					 * event's or a counter's name */
	enum ana_fact_type type;
	const char *text;		/* TEXT, LIST, FLAGS; EVENT: as requested ("" if
					 * not recorded) */
	const char *const *list;	/* LIST: every distinct value, first-seen order */
	size_t n_list;
	uint64_t count;			/* COUNT; FLAGS: the bits; EVENT: samples */
	double value;			/* SECONDS, SHARE; EVENT: weight; SLICE: the s of
					 * the run's span it covers (NAN: unknown) */
	double pct;			/* the percentage shown beside it, NAN if none: a
					 * loss counter's of the run's samples, steal's and
					 * the handler's of the CPU time, sampled time's of
					 * the time expected */
	const char *unit;		/* "s"; an event's unit; else NULL */
	enum ana_severity severity;	/* ANA_NOTE_WARN: worth a warning's colour */
	unsigned flags;			/* ANA_FACT_* bits */
	size_t ref;			/* META: index in ana_run.meta; EVENT: the set's
					 * event column; COUNTER: index in ana_run.counters */
	const struct ana_event_fact *event;	/* EVENT: period, freq, mask, mixed */
};

struct ana_facts;

/* Run `run`'s facts (valid after finish, owned by the set); NULL + EINVAL. */
ANA_API const struct ana_facts *ana_set_facts(const struct ana_set *s, unsigned run);
/* The facts of any ana_run: they point into its strings, valid while it
 * is.  NULL + errno (ENOMEM).  Free with ana_facts_free. */
ANA_API struct ana_facts *ana_facts_new(const struct ana_run *run);
ANA_API void ana_facts_free(struct ana_facts *f);

ANA_API size_t ana_facts_n(const struct ana_facts *f);
/* Record i, or NULL past the end. */
ANA_API const struct ana_fact *ana_facts_at(const struct ana_facts *f, size_t i);
/* The record of a fixed id (always there: its flags say when unknown);
 * the first record of ANA_FACT_META, _EVENT, _COUNTER, or NULL. */
ANA_API const struct ana_fact *ana_facts_get(const struct ana_facts *f, enum ana_fact_id id);
/* The records of id, which come together: *n of them (ANA_FACT_EVENT:
 * one per event column, [e] is column e); NULL and 0 if none. */
ANA_API const struct ana_fact *ana_facts_all(const struct ana_facts *f, enum ana_fact_id id,
					     size_t *n);
/* The record of id (META, EVENT, COUNTER) named key, or NULL. */
ANA_API const struct ana_fact *ana_facts_find(const struct ana_facts *f, enum ana_fact_id id,
					      const char *key);
/* A metadata record's text, or "" when absent or empty. */
ANA_API const char *ana_facts_meta_str(const struct ana_facts *f, const char *key);
/* The slice the run's counts are of (ANA_FACT_SLICE's text: opts.time as
 * typed), or NULL for the whole run. */
ANA_API const char *ana_facts_slice(const struct ana_facts *f);

#ifdef __cplusplus
}
#endif
#endif /* ANALYZER_ANA_FACTS_H */

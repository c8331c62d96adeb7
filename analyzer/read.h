/* Stage 1, read and merge: profile files into the set's runs (set.c), each
 * run's trust sums and flags (trust.c) and each file's timeline
 * (timeline.c).  It owns the runs (struct orun), the parts (one per run and
 * repeat: counts per raw node and event), the modules and the raw
 * calling-context tree, and hands them to aggregate.h at ana_set_finish.
 * Not installed. */
#ifndef ANALYZER_READ_H
#define ANALYZER_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/analyzer.h"
#include "analyzer/util.h"
#include "profile/profile.h"

struct ana_set;

/* ---- what reading makes ---- */
/* One run's sums for the trust checks, over its files. */
struct trust_acc {
	double cpu_ns, user_ns, handler_ns;	/* over files that record them */
	unsigned n_cpu, n_user, n_handler;
	double judged_want_ns, judged_got_ns;	/* threads expecting enough samples */
	/* The handler's time and the CPU time of the threads long enough
	 * (ANA_TRUST_MIN_EXPECTED samples) for the collector-time flag. */
	double judged_handler_ns, judged_cpu_ns;
	/* CPU time of threads the collector never sampled (raw clone, clone()
	 * with CLONE_VM), from the main threads' profiles, and the clones. */
	double unsampled_ns;
	uint64_t n_clones;
	unsigned n_judged, n_short;
	unsigned basis;			/* ANA_BASIS_* of the threads judged */
	double worst;			/* lowest coverage of a judged thread */
	char worst_who[96];
	/* counted events sampled by period: samples taken, and the samples
	 * their final counts imply (event_count_K / period) */
	double count_got, count_want;
	unsigned n_count_judged;
	char count_event[64];		/* the first such event's name */
};
/* An output run's merged facts while reading. */
struct meta_acc {
	const char *key;
	const char **val;		/* distinct interned values, first-seen order */
	size_t n, cap;
	struct idx seen;
};
struct orun {
	unsigned in_run;
	const char *group;		/* split value label ("rank=3"), or NULL */
	const char *label;
	struct meta_acc *meta;
	size_t n_meta, cap_meta;
	struct ana_event_fact *ev;	/* indexed by set event */
	size_t cap_ev;
	struct ana_counter_fact *ctr;
	size_t n_ctr, cap_ctr;
	uint64_t *mods;			/* bitmap of set modules seen */
	size_t cap_mods;
	unsigned n_files, n_partial, n_repeats;
	struct trust_acc trust;
	struct ana_run pub;
	struct ana_kv *kv;
	struct ana_facts *facts;	/* pub.facts, built at finish */
	double slice_s;			/* opts.time: s of its span in range (timeline.c) */
};
/* One repeat of one output run (or of one --by group): its own counts over
 * the raw tree, only for the nodes it has.  Entries are appended per file
 * and merged (grouped by node) when they have doubled, so they follow the
 * part's distinct contexts, not its files or the whole set's contexts. */
struct part {
	unsigned orun, repeat;
	uint32_t *node;			/* raw node, event and count of each entry */
	uint8_t *ev;
	uint64_t *cnt;
	double *wt;			/* when weighted */
	size_t n, cap, n_merged;	/* n_merged: entries after the last merge */
	double t_start, t_end, steal;	/* earliest start, latest end, largest steal of
					 * its files; NAN until a file has them */
};
struct smodule {
	const char *path;		/* as recorded, after --remap */
	const char *base;		/* basename: what runs are matched on */
	uint8_t bid[64];
	uint32_t bid_len;
	int sym;			/* symtab handle */
	bool jit;			/* path is a perf map (/tmp/perf-PID.map) naming
					 * the JIT code of the frames in no module */
	uint8_t *image;			/* its bytes from a profile (the vdso), or NULL */
	uint32_t image_len;
	uint64_t start, end, bias;	/* where the first file that mapped it had it */
	bool main;			/* the program itself (a profile's command) */
};
/* One file's timeline (timeline.c): its samples in time order. */
struct tl_stream {
	size_t part;			/* index of its part (run, repeat) */
	unsigned in_run;
	struct ana_thread pub;
	uint64_t *t;			/* ns after the origin */
	uint32_t *raw;			/* raw node */
	uint8_t *ev;			/* set event */
	double *w;			/* [set event]: the file's mean period */
	size_t n_w;
	uint64_t span;			/* its input run's span, ns (percent --time) */
};

/* opts.time as one string ("0%-25%,1.5,"), as ana_time_parse reads it:
 * the slice fact's text when the caller gave no time_spec; NULL + ENOMEM. */
char *tl_time_spec(const struct ana_time_range *r, size_t n);

/* A note about run (-1: the set), kept for ana_set_note.  0 or -ENOMEM. */
int set_note(struct ana_set *s, enum ana_severity sev, int run, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A note unless the same text is already there: --by groups of one run
 * share its metadata, and would say it once each. */
int set_note_once(struct ana_set *s, enum ana_severity sev, int run, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* ---- parts (set.c) ---- */
/* Room for n more entries in part p.  0 or -ENOMEM. */
int part_reserve(struct part *p, size_t n, bool weighted);
/* Merge part p's entries: one per (node, event), grouped by node.  Uses
 * s->merge_* scratch.  0 or -ENOMEM. */
int part_merge(struct ana_set *s, struct part *p);
void part_free(struct part *p);

/* ---- calibration verdicts (set.c) ---- */
struct calib_verdict {
	char event[128];	/* "" for "not needed (...)" */
	char verdict[32];	/* valid, unverified, zero, implausible, unsupported, not needed */
	char why[256];
};
/* The next "EVENT=VERDICT (why)" of a `calibration` metadata value from *p
 * on, advancing *p; the why may hold ';' inside its parentheses.  false at
 * the end. */
bool calib_next(const char **p, struct calib_verdict *v);

/* ---- trust flags (trust.c) ---- */
/* Add one thread's profile p to the run's sums. */
void trust_file(struct trust_acc *t, const struct prof *p);
/* Fill the run's public trust fields from its sums and metadata, and note
 * what is flagged (who: the run's label). */
void trust_run(struct ana_set *s, struct orun *o, const char *who, int note_run);
/* The emulator a "hypervisor" metadata value names, or NULL. */
const char *trust_emulator(const char *hypervisor);

/* ---- timelines (timeline.c) ---- */
/* Keep a file's timeline (map: its nodes' raw nodes, evmap: its events'
 * set events) as part pt's; notes what is missing. */
int tl_merge(struct ana_set *s, size_t pt, unsigned in_run, const char *path,
	     const struct prof *p, const int *evmap, const uint32_t *map);
/* With opts.time: the selected samples' counts into their parts (before
 * finish's facts). 0 or -ENOMEM. */
int tl_apply_time(struct ana_set *s);
/* At finish, before the raw tree is freed: keep what stacks need. */
void tl_keep_raw(struct ana_set *s);
void tl_free(struct ana_set *s);

#endif

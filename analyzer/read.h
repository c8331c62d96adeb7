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

#include "analyzer/set.h"
#include "profile/profile.h"

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

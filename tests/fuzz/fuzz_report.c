/* libFuzzer target: the whole report path on arbitrary profiles.
 *
 * Each input becomes a profile file (a raw payload is wrapped as in
 * fuzz_profile.c, so mutations reach the section decoders), which is read
 * twice into a set (runs 0 and 1, so diff's comparisons run too), merged,
 * symbolized and aggregated, then queried in every view and written in
 * every export format.  Module paths under /fuzz/ are remapped to a real
 * module (PMCPROF_FUZZ_MODULE, an ELF with DWARF: the seeds point there),
 * so symbolization, inlines and source lines are exercised for real.
 *
 * Whatever the input, the analyzer must not crash, hang or recurse on
 * the input's depth; ASan and UBSan watch the rest. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>

#include "analyzer/analyzer.h"
#include "profile/format.h"
#include "profile/profile.h"
#include "tests/fuzz/fuzz_wrap.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[128];
static char remap_arg[4200];
static const char *remap[2];
static FILE *sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *mod = getenv("PMCPROF_FUZZ_MODULE");
	const char *tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";

	snprintf(path, sizeof(path), "%s/pmcprof-fuzz-report-%d.pmcp", tmp, (int)getpid());
	if (mod && mod[0]) {
		snprintf(remap_arg, sizeof(remap_arg), "/fuzz/mod=%s", mod);
		remap[0] = remap_arg;
	}
	sink = fopen("/dev/null", "w");
	if (!sink)
		abort();
	return 0;
}


static void query(struct ana_set *s, struct ana_query *q, bool json)
{
	struct ana_rows *r = ana_set_query(s, q);
	struct ana_cmp cmp;

	if (!r)
		return;
	for (size_t i = 0; i < ana_rows_n(r); i++) {
		const struct ana_row *row = ana_rows_row(r, i);

		if (!row || !row->name)
			abort();
		for (unsigned run = 0; run < ana_set_n_runs(s); run++) {
			(void)ana_rows_pct(r, i, run, q->event, ANA_INCL);
			if (q->base >= 0 && ana_rows_compare(r, i, run, &cmp) != 0)
				abort();
		}
	}
	if (json ? ana_rows_write_json(r, sink) : ana_rows_write_csv(r, sink))
		abort();
	ana_rows_free(r);
}

/* The mode byte picks the options, one view and one format per run, so
 * that each run stays cheap (the stress run makes ten million of them):
 * bit 0 weighted, bits 1-3 the split, bit 4 a second run (compare mode),
 * bits 5-7 the view. */
static void report(uint8_t mode)
{
	ANA_OPTS(o, .weighted = mode & 1, .split = (mode >> 1) % 5,
		 .remap = remap[0] ? remap : NULL);
	struct ana_set *s = ana_set_new(&o);
	unsigned view = mode >> 5;
	bool json = (mode >> 1) & 1;

	if (!s)
		abort();
	ana_set_add(s, 0, 0, path);
	if (mode & 0x10)
		ana_set_add(s, 1, 0, path);
	if (ana_set_finish(s) == 0) {
		static const enum ana_view views[] = {
			ANA_VIEW_FUNCS, ANA_VIEW_LINES, ANA_VIEW_MODULES, ANA_VIEW_TOPDOWN,
			ANA_VIEW_BOTTOMUP, ANA_VIEW_CALLERS, ANA_VIEW_CALLEES,
		};
		ANA_QUERY(q, .view = views[view % 7], .max_depth = 1u << 20,
			  .kind = mode & 4 ? ANA_INCL : ANA_SELF);
		if (view == 7) {
			for (unsigned run = 0; run < ana_set_n_runs(s); run++)
				for (size_t ev = 0; ev < ana_set_n_events(s); ev++)
					ana_set_write_collapsed(s, run, ev, sink);
		} else if (q.view == ANA_VIEW_CALLERS || q.view == ANA_VIEW_CALLEES) {
			/* the hottest function's */
			ANA_QUERY(f, .view = ANA_VIEW_FUNCS, .top = 1);
			struct ana_rows *top = ana_set_query(s, &f);
			if (top && ana_rows_n(top)) {
				q.node = ana_rows_row(top, 0)->node;
				query(s, &q, json);
			}
			ana_rows_free(top);
		} else {
			if (ana_set_n_runs(s) > 1) {
				q.base = 0;
				q.ratio = (mode >> 2) % 3;
			}
			query(s, &q, json);
		}
	}
	for (size_t i = 0; i < ana_set_n_notes(s); i++)
		if (!ana_set_note(s, i)->msg)
			abort();
	ana_set_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *wrapped = NULL;
	uint8_t mode = 0;
	FILE *f;

	if (size > 0 && (size < PROF_MAGIC_LEN || memcmp(data, PROF_MAGIC, PROF_MAGIC_LEN))) {
		/* raw payloads: the last byte picks the options */
		mode = data[size - 1];
		data = wrapped = fuzz_wrap(data, size - 1, &size);
	}
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
	free(wrapped);
	report(mode);
	unlink(path);
	return 0;
}

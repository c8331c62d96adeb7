/* `pmcprof diff --table` (cli/pivot.c): runs as columns. */
#ifndef CLI_PIVOT_H
#define CLI_PIVOT_H

#include "cli/analyze.h"

enum pivot_fmt { PIVOT_TEXT, PIVOT_MD, PIVOT_CSV, PIVOT_JSON };
struct pivot {
	enum pivot_fmt fmt;
	unsigned base;			/* the base run (its share is a column) */
	enum ana_ratio ratio;
	enum ana_kind kind;
	double conf;
	int width;			/* text: columns shrink to it; 0 never */
	bool no_header;			/* text, Markdown: no lines around the table */
	char noise[512];		/* "native 1,3 against 2,4: ..." or "" */
	const char *time_spec;		/* --time as given, or NULL */
	/* the event column run r is compared on */
	size_t (*event_of)(const struct pivot *pv, const struct ana_set *s, unsigned r);
	const void *ctx;
};
/* The table of rows (a compare-mode FUNCS query) to out: 0, or -errno. */
int pivot_print(const struct pivot *pv, struct ana_set *s, struct ana_rows *rows, FILE *out);

#endif

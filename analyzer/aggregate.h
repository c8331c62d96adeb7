/* Stage 3, symbolize and aggregate the set (aggregate.c, linectx.c): at
 * ana_set_finish, the raw tree's distinct addresses are named through
 * symbolize.h, giving the functions, lines, module rows and the symbolized
 * tree, and the parts' counts are summed into struct agg per item and run;
 * the parts and the raw tree are freed then.  Not installed. */
#ifndef ANALYZER_AGGREGATE_H
#define ANALYZER_AGGREGATE_H

#include <stdbool.h>
#include <stdint.h>

#include "analyzer/set.h"

/* Name every raw node's address and build the symbolized tree.  0 or
 * -ENOMEM. */
int set_symbolize(struct ana_set *s);
/* Sum the parts into the per-item sums and the runs' totals.  0 or -ENOMEM. */
int set_aggregate(struct ana_set *s);
void set_free_symbols(struct ana_set *s);
/* linectx.c: build the line contexts from the raw tree and the parts'
 * entries (after set_symbolize, before set_aggregate frees the parts);
 * nothing unless opts.line_contexts.  0 or -ENOMEM. */
int set_line_contexts(struct ana_set *s);
void set_free_line_contexts(struct ana_set *s);
/* Whether samples in function f pass --dso and --symbols. */
bool func_kept(const struct ana_set *s, uint32_t f);

#endif

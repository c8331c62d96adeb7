/* Run facts inside the library: the public model (struct ana_fact,
 * ana_set_facts, ana_facts_*) is analyzer/ana/facts.h; this adds what
 * only the library's writers use. */
#ifndef ANALYZER_FACTS_H
#define ANALYZER_FACTS_H

#include "analyzer/analyzer.h"

/* Inside the library: the JSON run object of docs/report-schema.json
 * ("runs") and its trust object ("trust"), written from run->facts
 * (analyzer/facts_json.c). */
struct json;
void json_run(struct json *j, const struct ana_run *run);
void json_trust(struct json *j, const struct ana_run *run);

#endif

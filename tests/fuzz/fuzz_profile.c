/* libFuzzer target: the profile reader (prof_file_parse) on arbitrary bytes.
 *
 * An input that starts with the profile magic is parsed as a file: this
 * fuzzes the header and zstd checks.  Anything else is taken as a raw
 * payload and wrapped first (zstd frame with checksum, header with check),
 * since random mutations of a file almost never get past the checksums to
 * the section decoders.  Any parse that succeeds must hold the invariants
 * the analyzer relies on. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "profile/format.h"
#include "profile/profile.h"
#include "tests/fuzz/fuzz_wrap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;	/* keeps the string reads from being optimized out */

static void check(const struct prof *p)
{
	for (uint32_t i = 0; i < p->cct.n_nodes; i++) {
		if (i ? p->cct.parent[i] >= i : p->cct.parent[0] != 0)
			abort();
		if (p->cct.module[i] != PROF_NO_MODULE && p->cct.module[i] >= p->n_modules)
			abort();
		for (uint32_t e = 0; e < p->cct.n_events; e++)
			sink += p->cct.counts[(size_t)i * p->cct.n_events + e];
	}
	if (p->cct.n_events != p->n_events)
		abort();
	for (size_t i = 0; i < p->n_modules; i++) {
		const struct prof_module *m = &p->modules[i];

		if (m->end < m->start || m->build_id_len > PROF_MAX_BUILD_ID ||
		    (m->unload_seq && m->unload_seq < m->load_seq))
			abort();
		sink += strlen(m->path);
		for (uint32_t b = 0; b < m->build_id_len; b++)
			sink += m->build_id[b];
	}
	for (size_t i = 0; i < p->n_meta; i++)
		if (!prof_meta_get(p, p->meta[i].key))
			abort();
		else
			sink += strlen(p->meta[i].value);
	for (size_t i = 0; i < p->n_events; i++)
		sink += strlen(p->events[i].name) + strlen(p->events[i].requested) +
			strlen(p->events[i].unit);
	for (size_t i = 0; i < p->n_counters; i++)
		sink += strlen(p->counters[i].name);
	/* the timeline: known nodes and events, times in order and in range */
	const struct prof_timeline *t = &p->timeline;
	if (t->n && (!t->unit_ns || !p->n_events))
		abort();
	for (uint64_t i = 0; i < t->n; i++)
		if (t->node[i] >= p->cct.n_nodes || t->event[i] >= p->n_events ||
		    t->time[i] < (i ? t->time[i - 1] : t->start) || t->time[i] > t->end ||
		    !p->cct.counts[(size_t)t->node[i] * p->n_events + t->event[i]])
			abort();
}


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prof_file *f = NULL;
	uint8_t *wrapped = NULL;
	char msg[256];
	int err;

	if (size > 0 && (size < PROF_MAGIC_LEN || memcmp(data, PROF_MAGIC, PROF_MAGIC_LEN)))
		data = wrapped = fuzz_wrap(data, size, &size);
	err = prof_file_parse(data, size, &f, msg, sizeof(msg));
	if (err) {
		if (!msg[0] || f)
			abort();
	} else {
		check(prof_file_data(f));
	}
	prof_file_free(f);
	free(wrapped);
	return 0;
}

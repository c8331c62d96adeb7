/* Convert `perf script --show-mmap-events` output into a pmcprof profile, so
 * the profile-size benchmark compares both formats on the very same samples.
 *
 *   perf2pmcp [-m KEY=VALUE]... SCRIPT BUILDIDS OUT
 *
 * SCRIPT: perf script text of one cpu-clock run; BUILDIDS: `perf buildid-list`
 * output; OUT must not exist.  Kernel frames are dropped (the collector sees
 * user stacks only); callers are stored as return address - 1, as the
 * collector does.  Prints "samples N nodes N modules N bytes N". */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "profile/profile.h"

#define MAX_MODULES 256
#define MAX_META 64
#define MAX_FRAMES 1024

static struct prof_module modules[MAX_MODULES];
static char *module_paths[MAX_MODULES];
static uint8_t build_ids[MAX_MODULES][20];
static size_t n_modules;

/* The CCT, grown as samples come; children found through a hash table of
 * (parent, module, offset). */
static uint32_t *parent, *module;
static uint64_t *offset, *counts;
static uint32_t n_nodes, cap_nodes;
static uint32_t *slots;		/* node index + 1, 0 = empty */
static size_t n_slots;

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		perror("perf2pmcp");
		exit(2);
	}
	return p;
}

static size_t hash(uint32_t par, uint32_t mod, uint64_t off)
{
	uint64_t h = (off ^ ((uint64_t)par << 32 | mod)) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 20);
}

static void rehash(void)
{
	n_slots = n_slots ? n_slots * 2 : 1024;
	free(slots);
	slots = calloc(n_slots, sizeof(*slots));
	if (!slots) {
		perror("perf2pmcp");
		exit(2);
	}
	for (uint32_t i = 1; i < n_nodes; i++) {
		size_t s = hash(parent[i], module[i], offset[i]) & (n_slots - 1);

		while (slots[s])
			s = (s + 1) & (n_slots - 1);
		slots[s] = i + 1;
	}
}

static uint32_t child(uint32_t par, uint32_t mod, uint64_t off)
{
	size_t s;

	if (2 * (size_t)n_nodes >= n_slots)
		rehash();
	for (s = hash(par, mod, off) & (n_slots - 1); slots[s]; s = (s + 1) & (n_slots - 1)) {
		uint32_t i = slots[s] - 1;

		if (parent[i] == par && module[i] == mod && offset[i] == off)
			return i;
	}
	if (n_nodes == cap_nodes) {
		cap_nodes = cap_nodes ? 2 * cap_nodes : 1024;
		parent = xrealloc(parent, cap_nodes * sizeof(*parent));
		module = xrealloc(module, cap_nodes * sizeof(*module));
		offset = xrealloc(offset, cap_nodes * sizeof(*offset));
		counts = xrealloc(counts, cap_nodes * sizeof(*counts));
	}
	parent[n_nodes] = par;
	module[n_nodes] = mod;
	offset[n_nodes] = off;
	counts[n_nodes] = 0;
	slots[s] = n_nodes + 1;
	return n_nodes++;
}

static uint32_t module_find(const char *path)
{
	for (size_t i = 0; i < n_modules; i++)
		if (!strcmp(module_paths[i], path))
			return (uint32_t)i;
	return PROF_NO_MODULE;
}

/* "... PERF_RECORD_MMAP2 1/1: [0xSTART(0xLEN) @ 0xPGOFF ...]: r-xp PATH" */
static void parse_mmap(const char *line)
{
	const char *b = strstr(line, "[0x"), *e = strstr(line, "]: ");
	uint64_t start, len, pgoff;
	char path[4096];

	if (!b || !e || sscanf(b, "[0x%" SCNx64 "(0x%" SCNx64 ") @ 0x%" SCNx64, &start, &len,
			       &pgoff) != 3 ||
	    sscanf(e + 3, "%*s %4095[^\n]", path) != 1 || path[0] != '/' ||
	    n_modules == MAX_MODULES || module_find(path) != PROF_NO_MODULE)
		return;
	module_paths[n_modules] = strdup(path);
	modules[n_modules] = (struct prof_module){
		.path = module_paths[n_modules], .start = start, .end = start + len,
		.bias = start - pgoff, .load_seq = (uint32_t)n_modules + 1,
	};
	n_modules++;
}

static void read_build_ids(const char *file)
{
	FILE *in = fopen(file, "r");
	char hex[128], path[4096];

	while (in && fscanf(in, "%127s %4095s", hex, path) == 2) {
		uint32_t m = module_find(path);
		size_t n = strlen(hex) / 2;

		if (m == PROF_NO_MODULE || n > sizeof(build_ids[0]))
			continue;
		for (size_t i = 0; i < n; i++)
			sscanf(hex + 2 * i, "%2hhx", &build_ids[m][i]);
		modules[m].build_id = build_ids[m];
		modules[m].build_id_len = (uint32_t)n;
	}
	if (in)
		fclose(in);
}

int main(int argc, char **argv)
{
	struct prof_kv meta[MAX_META];
	size_t n_meta = 0;
	uint32_t frame_mod[MAX_FRAMES];
	uint64_t frame_off[MAX_FRAMES], samples = 0, weight = 0, period = 0, truncated = 0;
	size_t n_frames = 0;
	int in_sample = 0, opt = 1, err;
	char *line = NULL;
	size_t cap = 0;
	FILE *in;
	struct stat st;

	for (; opt + 1 < argc && !strcmp(argv[opt], "-m"); opt += 2) {
		char *eq = strchr(argv[opt + 1], '=');

		if (!eq || n_meta == MAX_META)
			break;
		*eq = '\0';
		meta[n_meta++] = (struct prof_kv){ argv[opt + 1], eq + 1 };
	}
	if (argc - opt != 3) {
		fprintf(stderr, "usage: perf2pmcp [-m KEY=VALUE]... SCRIPT BUILDIDS OUT\n");
		return 1;
	}
	in = fopen(argv[opt], "r");
	if (!in) {
		perror(argv[opt]);
		return 2;
	}
	/* Node 0: the root, no module. */
	n_slots = 0;
	rehash();
	child(0, PROF_NO_MODULE, 0);
	parent[0] = 0;

	for (;;) {
		ssize_t n = getline(&line, &cap, in);
		int blank = n <= 1;

		/* A sample ends at a blank line: insert its stack, outermost first. */
		if ((blank || n < 0) && in_sample) {
			uint32_t node = 0;

			for (size_t i = n_frames; i-- > 0;)
				node = child(node, frame_mod[i], frame_off[i]);
			counts[node]++;
			samples++;
			weight += period;
			in_sample = 0;
		}
		if (n < 0)
			break;
		if (blank)
			continue;
		if (line[0] != ' ' && line[0] != '\t') {
			char *tok, *prev = NULL, *save = NULL;

			if (strstr(line, "PERF_RECORD_MMAP")) {
				parse_mmap(line);
				continue;
			}
			/* "comm tid time: PERIOD EVENT: ..." */
			for (tok = strtok_r(line, " \t\n", &save); tok;
			     prev = tok, tok = strtok_r(NULL, " \t\n", &save))
				if (!strcmp(tok, "cpu-clock:") && prev) {
					period = strtoull(prev, NULL, 10);
					in_sample = 1;
					n_frames = 0;
					break;
				}
			continue;
		}
		if (in_sample) {
			char *open = strrchr(line, '('), *close = strrchr(line, ')');
			uint64_t ip = strtoull(line, NULL, 16);

			if (!open || !close || close < open)
				continue;
			*close = '\0';
			if (!strcmp(open + 1, "[kernel.kallsyms]"))
				continue;
			if (n_frames == MAX_FRAMES) {
				truncated++;
				continue;
			}
			frame_mod[n_frames] = module_find(open + 1);
			/* Callers: return address - 1, inside the call instruction. */
			frame_off[n_frames] = ip - (n_frames && ip ? 1 : 0);
			n_frames++;
		}
	}
	fclose(in);
	free(line);
	read_build_ids(argv[opt + 1]);

	{
		struct prof_event ev = {
			.name = "perf::CPU-CLOCK", .requested = "cpu-clock", .unit = "ns",
			.period = 0, .freq = 4000, .weight = weight,
		};
		struct prof_counter counters[] = {
			{ "samples", samples }, { "dropped_in_loader", 0 },
			{ "unwind_failed", 0 }, { "truncated_stacks", truncated },
			{ "throttled", 0 }, { "lost", 0 },
		};
		struct prof p = {
			.version = PROF_VERSION, .n_meta = n_meta, .meta = meta,
			.n_events = 1, .events = &ev, .n_modules = n_modules, .modules = modules,
			.cct = { n_nodes, 1, parent, module, offset, counts },
			.n_counters = sizeof(counters) / sizeof(counters[0]), .counters = counters,
		};

		err = prof_write(&p, AT_FDCWD, argv[opt + 2], 0644);
		if (err) {
			fprintf(stderr, "perf2pmcp: %s: %s\n", argv[opt + 2], prof_strerror(err));
			return 2;
		}
	}
	if (stat(argv[opt + 2], &st) != 0) {
		perror(argv[opt + 2]);
		return 2;
	}
	printf("samples %" PRIu64 " nodes %" PRIu32 " modules %zu bytes %lld\n",
	       samples, n_nodes, n_modules, (long long)st.st_size);
	return 0;
}

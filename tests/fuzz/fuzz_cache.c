/* libFuzzer target: the analyzer's on-disk caches, which report, diff and
 * view map and trust once their checks pass (docs/analyzer.md, "Symbol
 * cache"): a module's answers (symcache.c: the symbol cache's files and
 * the names a profile directory keeps, DIR/symbols/BUILDID.sym, which
 * arrive with profiles from other machines) and the kernel's symbol table
 * (kallsyms.c), and the /proc/kallsyms text parser behind the latter.
 *
 * The first byte picks the reader, the rest is the file.  A file that
 * passes its checks is then read the way a report reads it: every cached
 * address looked up (and strings interned), or kernel addresses around
 * every symbol.  The sources are included so that their static checks
 * can be called directly. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/kallsyms.c"
#include "analyzer/symcache.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];
static volatile size_t sink;

static void put_file(const char *name, const uint8_t *b, size_t n)
{
	char path[200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f)
		abort();
	if (n && fwrite(b, 1, n, f) != n)
		abort();
	fclose(f);
}

static void module_cache(const uint8_t *b, size_t n)
{
	static const uint8_t bid[4] = { 0xfe, 0xed, 0xfa, 0xce };
	struct strpool pool = { 0 };
	struct sym_frame fr[MAX_FRAMES];
	struct symcache *c;

	put_file("feedface.sym", b, n);
	c = symcache_open(dir, bid, sizeof(bid), "sym");
	if (!c)
		return;
	for (size_t i = 0; i < c->n_fa; i++) {
		size_t got = 0;

		if (!symcache_get(c, &pool, c->fa[i].off, fr, MAX_FRAMES, &got))
			continue;
		for (size_t j = 0; j < got; j++)
			sink += strlen(fr[j].key) + strlen(fr[j].func) +
				(fr[j].file ? strlen(fr[j].file) : 0);
	}
	symcache_free(c);
	strpool_free(&pool);
}

static void lookups(struct kallsyms *ks)
{
	struct strpool pool = { 0 };
	struct sym_frame fr[1];

	ks->usable = true;
	for (size_t i = 0; i < ks->n && i < 4096; i++)
		for (int d = -1; d <= 1; d++)
			if (kallsyms_lookup(ks, &pool, ks->addr[i] - KSYM_BASE + (uint64_t)d, fr, 1))
				sink += strlen(fr[0].func);
	strpool_free(&pool);
}

static void kernel_cache(const uint8_t *b, size_t n)
{
	struct kallsyms ks = { 0 };
	uint8_t key[16];
	char name[80], path[200];

	/* The key is the file's own (bytes 24..39 of the header), so that
	 * mutations reach the table checks. */
	memset(key, 0, sizeof(key));
	if (n >= 40)
		memcpy(key, b + 24, 16);
	key_name(name, sizeof(name), key);
	put_file(name, b, n);
	if (cache_open(&ks, dir, key)) {
		lookups(&ks);
		munmap(ks.map, ks.map_len);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
}

static void kernel_text(const uint8_t *b, size_t n)
{
	struct kallsyms ks = { 0 };
	size_t zero = 0;
	char *buf = malloc(n + 1);

	if (!buf)
		return;
	memcpy(buf, b, n);
	buf[n] = 0;
	if (parse(&ks, buf, n, &zero) == 0 && ks.n)
		lookups(&ks);
	free(ks.own_addr);
	free(ks.own_name);
	free(ks.own_names);
	free(buf);
}

static void cleanup(void)
{
	char path[200];

	snprintf(path, sizeof(path), "%s/feedface.sym", dir);
	unlink(path);
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "%s/pmcprof-fuzz-cache.%d",
			 getenv("TMPDIR") && getenv("TMPDIR")[0] == '/' && strlen(getenv("TMPDIR")) < 30
				 ? getenv("TMPDIR") : "/tmp", (int)getpid());
		if (mkdir(dir, 0700) < 0 && errno != EEXIST)
			abort();
		atexit(cleanup);
	}
	if (size < 1)
		return 0;
	switch (data[0] % 3) {
	case 0: module_cache(data + 1, size - 1); break;
	case 1: kernel_cache(data + 1, size - 1); break;
	default: kernel_text(data + 1, size - 1); break;
	}
	return 0;
}

/* pmcprof archive: keep in a profile directory the names of every address
 * its profiles sampled (DIR/symbols: one file per build-id, the kernel's
 * symbols, the JIT maps' lines), so that report, diff, view and the
 * exports name them on any machine, with the program rebuilt or gone.
 * record runs it on its output directory when the program ends; run by
 * hand, it keeps them after the fact on the machine where the binaries
 * are (as perf archive does).  The analyzer does the work (ana_opts.keep_dir). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analyzer/analyzer.h"
#include "cli/analyze.h"
#include "cli/options.h"

static const struct opt_cmd archive_cmd = {
	.prog = "pmcprof archive",
	.synopsis = "pmcprof archive [OPTIONS] DIR...",
	.description =
		"Keep in each profile directory DIR the names of the addresses its profiles\n"
		"sampled: functions, source lines and inlined frames, kernel functions, JIT\n"
		"map lines, in DIR/symbols (one file per build-id).  Run it where the\n"
		"binaries are; report, diff and view then name those addresses anywhere,\n"
		"with the programs rebuilt or gone.  pmcprof record does it by default.\n",
	.footer = "Exit status: 0, 1 for a usage error, 2 when a DIR cannot be read or\n"
		  "written.  pmcprof-archive(1) and docs/analyzer.md have more.\n",
};

/* Files and bytes under dir/symbols. */
static void kept_size(const char *dir, size_t *files, unsigned long long *bytes)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/symbols", dir);
	*files = 0;
	*bytes = 0;
	DIR *d = opendir(path);
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));) {
		struct stat sb;
		char f[8400];
		if (e->d_name[0] == '.')
			continue;
		snprintf(f, sizeof(f), "%s/%s", path, e->d_name);
		if (!lstat(f, &sb) && S_ISREG(sb.st_mode)) {
			(*files)++;
			*bytes += (unsigned long long)sb.st_size;
		}
	}
	closedir(d);
}

/* A note saying some addresses stay unnamed (a module or the kernel). */
static bool unnamed(const char *msg)
{
	return strstr(msg, "+0xOFF]") || strstr(msg, "[k] ADDRESS");
}

static int archive(const char *dir, struct ana_opts *o, const char *prog, bool quiet,
		   bool from_record)
{
	char keep[4200];
	struct stat sb;
	struct timespec t0, t1;

	if (stat(dir, &sb) || !S_ISDIR(sb.st_mode)) {
		fprintf(stderr, "%s: %s: %s\n", prog, dir, errno ? strerror(errno) : "not a directory");
		return EXIT_RUNTIME;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	snprintf(keep, sizeof(keep), "%s/symbols", dir);
	/* (the analyzer writes best effort: say up front what cannot be) */
	if (access(stat(keep, &sb) ? dir : keep, W_OK) < 0) {
		fprintf(stderr, "%s: cannot write %s: %s\n", prog, keep, strerror(errno));
		return EXIT_RUNTIME;
	}
	o->keep_dir = keep;
	struct ana_set *s = ana_set_new(o);
	int e = s ? ana_set_add(s, 0, 0, dir) : -errno;
	if (s && e != -ENOMEM)
		e = ana_set_finish(s);	/* a bad file is noted, the others kept */
	if (e && e != -ANA_ENODATA) {
		fprintf(stderr, "%s: %s: %s\n", prog, dir, ana_strerror(e));
		ana_set_free(s);
		return EXIT_RUNTIME;
	}
	size_t bad = 0;
	for (size_t i = 0; s && i < ana_set_n_notes(s); i++) {
		const struct ana_note *n = ana_set_note(s, i);
		if (n->severity == ANA_NOTE_ERROR || (n->severity == ANA_NOTE_WARN && unnamed(n->msg))) {
			fprintf(stderr, "%s: %s\n", prog, n->msg);
			bad++;
		}
	}
	ana_set_free(s);	/* writes the kept answers */
	clock_gettime(CLOCK_MONOTONIC, &t1);
	size_t files;
	unsigned long long bytes;
	kept_size(dir, &files, &bytes);
	if (!quiet && !from_record && e != -ANA_ENODATA)
		printf("%s: %zu file%s, %.1f KiB (%.2f s)%s\n", keep, files, files == 1 ? "" : "s",
		       bytes / 1024.0,
		       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
		       bad ? "; some addresses stay unnamed (above)" : "");
	return e == -ANA_ENODATA ? EXIT_RUNTIME : EXIT_OK;
}

int main(int argc, char **argv)
{
	struct common c = { .prog = "pmcprof archive" };
	bool from_record = false;
	const struct opt opts[] = {
		COMMON_DEBUG_OPTS(&c),
		OPT_BOOL('q', "quiet", &c.quiet, "say only what could not be kept"),
		OPT_BOOL(0, "from-record", &from_record, NULL),
		OPT_END,
	};
	char cache[4096];
	int rc = EXIT_OK;
	ANA_OPTS(o);

	analysis_malloc_policy();
	int first = opts_parse(&archive_cmd, opts, argc, argv);
	if (first >= argc)
		opts_die(&archive_cmd, "which profile directory?");
	o.debug_dirs = c.debug_dirs;
	o.remap = c.remap;
	o.cache_dir = symbol_cache_dir(c.no_cache, cache, sizeof(cache));
	const char *prog = from_record ? "pmcprof record" : "pmcprof archive";
	for (int i = first; i < argc; i++) {
		int r = archive(argv[i], &o, prog, c.quiet, from_record);
		if (r > rc)
			rc = r;
	}
	common_free(&c);
	return rc;
}

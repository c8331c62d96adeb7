/* pmcprof annotate: a function's instructions with each one's share of its
 * samples, interleaved with the source lines they come from, as perf
 * annotate prints them; code inlined into the function marked. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/analyze.h"

static const struct opt_cmd annotate_cmd = {
	.prog = "pmcprof annotate",
	.synopsis = "pmcprof annotate [OPTIONS] FUNCTION [PROFILE|DIR...]",
	.description =
		"Disassemble FUNCTION (NAME or MODULE:NAME) from its module and show each\n"
		"instruction's share of the function's samples, under the source line it\n"
		"comes from; code inlined into it is marked.  Without PROFILE or DIR: the\n"
		"newest ./pmcprof-*/ directory (stderr says which).\n",
	.footer = "Exit status: 0 ok, 1 usage error or no such function, 2 a profile or the\n"
		  "module cannot be read.  pmcprof-annotate(1) has more.\n",
};

struct opts {
	struct common c;
	const char *func;
	bool no_source;
	bool stdio;			/* --stdio: the only output anyway */
	int col;			/* the event's column */
	double min_pct;
	char newest[PATH_MAX];
};

static struct opts args;

/* perf reads ./perf.data by default; here the newest ./pmcprof-*
 * directory record made.  0, or -1 when there is none. */
static int default_dir(struct opts *o)
{
	DIR *d = opendir(".");
	struct dirent *e;
	struct timespec best = { 0, 0 };
	size_t n = 0;
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		struct stat st;
		if (strncmp(e->d_name, "pmcprof-", 8) || stat(e->d_name, &st) || !S_ISDIR(st.st_mode))
			continue;
		n++;
		if (st.st_mtim.tv_sec > best.tv_sec ||
		    (st.st_mtim.tv_sec == best.tv_sec && st.st_mtim.tv_nsec > best.tv_nsec)) {
			best = st.st_mtim;
			snprintf(o->newest, sizeof(o->newest), "%s", e->d_name);
		}
	}
	closedir(d);
	if (!n)
		return -1;
	if (!o->c.quiet)
		fprintf(stderr, "%s: reading %s (the newest of %zu pmcprof-* director%s here)\n",
			o->c.prog, o->newest, n, n == 1 ? "y" : "ies");
	return opts_append(&o->c.paths, &o->c.n_paths, o->newest);
}

static int parse(struct opts *o, int argc, char **argv)
{
	struct common *c = &o->c;
	const struct opt opts[] = {
		OPT_SECTION("Input:"),
		COMMON_INPUT_PATHS(c),
		COMMON_INPUT_OPTS(c),
		OPT_SECTION("Filters (perf's):"),
		COMMON_FILTER_OPTS(c),
		OPT_SECTION("Selection:"),
		COMMON_EVENT_OPTS(c),
		OPT_DOUBLE(0, "min-pct", &o->min_pct, 0, 100, "P",
			   "show only instructions with at least P% (and their\n"
			   "source lines)"),
		OPT_DOUBLE(0, "percent-limit", &o->min_pct, 0, 100, "P", "the same, perf's spelling"),
		OPT_SECTION("Symbols:"),
		COMMON_SYMBOL_OPTS(c),
		OPT_SECTION("Output:"),
		OPT_BOOL(0, "no-source", &o->no_source,
			 "instructions only, no source lines between them"),
		OPT_BOOL(0, "stdio", &o->stdio, "text output (the only one; for perf habits)"),
		COMMON_TEXT_OPTS(c),
		OPT_END,
	};
	int first = opts_parse(&annotate_cmd, opts, argc, argv);

	if (first >= argc)
		return usage_error(c, "which function?");
	o->func = argv[first];
	if (common_operands(c, argc, argv, first + 1))
		return EXIT_RUNTIME;
	if (c->out != OUT_TEXT || c->view != ANA_VIEW_FUNCS)
		return usage_error(c, "annotate prints text only");
	if (!c->n_paths && default_dir(o))
		return usage_error(c, "no profile given, and no ./pmcprof-*/ directory here");
	return 0;
}

/* A source file's lines, read once per file (the previous one kept). */
struct src {
	char path[PATH_MAX];
	char *text;
	char **line;
	size_t n;
};

static void src_free(struct src *s)
{
	free(s->text);
	free(s->line);
	memset(s, 0, sizeof(*s));
}

static const char *src_line(struct src *s, const struct ana_set *set, const char *file, unsigned n)
{
	char path[PATH_MAX];
	if (!file || ana_set_source_path(set, file, path, sizeof(path)))
		return NULL;
	if (strcmp(path, s->path)) {
		src_free(s);
		snprintf(s->path, sizeof(s->path), "%s", path);
		FILE *f = fopen(path, "r");
		size_t cap = 0, len = 0;
		if (!f)
			return NULL;
		char buf[65536];
		size_t got;
		while ((got = fread(buf, 1, sizeof(buf), f)) > 0 && len < (64u << 20)) {
			char *t = realloc(s->text, len + got + 1);
			if (!t)
				break;
			s->text = t;
			memcpy(s->text + len, buf, got);
			len += got;
		}
		fclose(f);
		if (!s->text)
			return NULL;
		s->text[len] = '\0';
		for (char *p = s->text; p && *p;) {
			if (s->n == cap) {
				char **l = realloc(s->line, (cap = cap ? 2 * cap : 1024) * sizeof(*l));
				if (!l)
					break;
				s->line = l;
			}
			s->line[s->n++] = p;
			char *nl = strchr(p, '\n');
			if (nl)
				*nl = '\0';
			p = nl ? nl + 1 : NULL;
		}
	}
	if (!n || n > s->n)
		return NULL;
	const char *l = s->line[n - 1];
	while (*l == ' ' || *l == '\t')
		l++;
	return l;
}

static void print_annotation(const struct opts *o, const struct ana_set *s,
			     const struct ana_annotation *a, const char *event, FILE *out)
{
	struct src src = { 0 };
	const char *file = NULL, *inl = NULL;
	unsigned line = 0;
	bool first = true;

	if (!o->c.no_header) {
		fprintf(out, "# %s (%s) 0x%llx..0x%llx: %llu samples of %s", a->func,
			base_name(a->module), (unsigned long long)a->lo, (unsigned long long)a->hi,
			(unsigned long long)a->samples, event);
		if (a->outside)
			fprintf(out, " (%llu at no instruction start)", (unsigned long long)a->outside);
		fprintf(out, "\n# Percent: of the function's samples; '|' marks code inlined into it\n");
	}
	fprintf(out, " Percent  Samples  Address    Instruction\n");
	for (size_t i = 0; i < a->n; i++) {
		const struct ana_insn *in = &a->insn[i];
		if (o->min_pct > 0 && in->pct < o->min_pct)
			continue;
		bool moved = first || in->line != line || in->inlined != inl ||
			     (in->file != file && (!in->file || !file || strcmp(in->file, file)));
		first = false;
		if (moved && !o->no_source && in->file) {
			const char *t = src_line(&src, s, in->file, in->line);
			fprintf(out, "%26s%s:%u%s%s%s  %s\n", "", base_name(in->file), in->line,
				in->inlined ? " [inlined " : "", in->inlined ? in->inlined : "",
				in->inlined ? "]" : "", t ? t : "");
		}
		file = in->file;
		line = in->line;
		inl = in->inlined;
		char pct[16] = "", smp[24] = "";
		if (in->samples) {
			snprintf(pct, sizeof(pct), "%.2f", in->pct);
			snprintf(smp, sizeof(smp), "%llu", (unsigned long long)in->samples);
		}
		fprintf(out, "%8s %8s  %8llx: %s%s\n", pct, smp, (unsigned long long)in->addr,
			in->inlined ? "| " : "", in->text);
	}
	src_free(&src);
}

/* The options read and the run loaded: the set, or NULL with the exit
 * status in *rc (said). */
static struct ana_set *prepare(int argc, char **argv, int *first, int *rc)
{
	struct opts *o = &args;
	struct ana_set *s;

	if ((*rc = parse(o, argc, argv)))
		return NULL;
	o->c.o.addr_samples = true;
	*rc = EXIT_RUNTIME;
	if (!(s = common_load(&o->c, 1, true)))
		return NULL;
	o->col = common_event_column(&o->c, s, "annotate needs an event, not a metric");
	*rc = EXIT_USAGE;
	return o->col < 0 ? NULL : s;
}

static int run(struct ana_set *s, int argc, char **argv, int first)
{
	struct opts *o = &args;
	struct common *c = &o->c;
	struct ana_annotation *a;
	char msg[1024];

	print_notes(c, s, NULL);
	int e = ana_set_annotate(s, o->func, 0, (size_t)o->col, &a, msg, sizeof(msg));
	if (e) {
		if (e == -ANA_ENOFUNC)
			fprintf(stderr, "%s: no function '%s' in these profiles\n", c->prog, o->func);
		else
			fprintf(stderr, "%s: %s\n", c->prog, msg[0] ? msg : ana_strerror(e));
		ana_set_free(s);
		return e == -ANA_ENOFUNC ? EXIT_USAGE : EXIT_RUNTIME;
	}
	print_annotation(o, s, a, ana_set_event(s, (size_t)o->col), stdout);
	ana_annotation_free(a);
	ana_set_free(s);
	fflush(stdout);
	return ferror(stdout) ? EXIT_RUNTIME : EXIT_OK;
}

int main(int argc, char **argv)
{
	const struct command cmd = {
		.prog = "pmcprof annotate", .c = &args.c, .prepare = prepare, .run = run,
	};

	return command_main(&cmd, argc, argv);
}

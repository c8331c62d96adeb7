/* pmcprof dump FILE...: the raw contents of profiles, for people and for
 * tests.  No symbols, no merging: that is `pmcprof report`. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/options.h"
#include "profile/format.h"
#include "profile/profile.h"

#define MAX_INDENT 40	/* deeper nodes show their depth instead */

static const struct opt dump_opts[] = { OPT_END };

static const struct opt_cmd dump_cmd = {
	.prog = "pmcprof dump",
	.synopsis = "pmcprof dump [OPTIONS] FILE...",
	.description =
		"Print the raw contents of pmcprof profiles (.pmcp): header, metadata,\n"
		"events, load map, collector counters and the calling-context tree.\n",
	.opts = dump_opts,
	.footer = "Exit status: 0 all files dumped, 1 usage error, 2 a file could not be read.\n",
};

/* Strings come from an untrusted file: control bytes (a newline, a
 * terminal escape) are shown as \xNN, not sent to the terminal. */
static void put_str(const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f || c == '\\')
			printf("\\x%02x", c);
		else
			putchar(c);
	}
}

/* The timeline's scalars and its first samples (script shows them all). */
static void print_timeline(const struct prof_timeline *t)
{
	if (!t->unit_ns) {
		printf("timeline: none\n");
		return;
	}
	printf("timeline: %" PRIu64 " samples, %" PRIu64 " lost, unit %" PRIu32 " ns, origin %" PRIu64
	       " ns, start %" PRIu64 ", end %" PRIu64 "\n", t->n, t->lost, t->unit_ns, t->origin_ns,
	       t->start, t->end);
	for (uint64_t i = 0; i < t->n && i < 10; i++)
		printf("  %" PRIu64 ": node %" PRIu32 " event %" PRIu32 "\n", t->time[i], t->node[i],
		       t->event[i]);
	if (t->n > 10)
		printf("  ... (pmcprof script shows every sample)\n");
}

static void print_header(const struct prof_header *h)
{
	printf("header: format %" PRIu32 ", flags 0x%" PRIx32 "%s, header %" PRIu32
	       " bytes, payload %" PRIu64 " bytes (%" PRIu64 " compressed)\n",
	       h->version, h->flags, h->flags & PROF_FLAG_PARTIAL ? " (partial)" : "",
	       h->header_size, h->raw_size, h->comp_size);
}

static void print_lists(const struct prof *p)
{
	printf("meta (%zu):\n", p->n_meta);
	for (size_t i = 0; i < p->n_meta; i++) {
		printf("  ");
		put_str(p->meta[i].key);
		printf(" = ");
		put_str(p->meta[i].value);
		printf("\n");
	}

	printf("events (%zu):\n", p->n_events);
	for (size_t i = 0; i < p->n_events; i++) {
		const struct prof_event *e = &p->events[i];

		printf("  %zu: ", i);
		put_str(e->name);
		printf(" requested=\"");
		put_str(e->requested);
		printf("\" unit=");
		put_str(e->unit);
		printf(" period=%" PRIu64 " freq=%" PRIu64 " random_mask=0x%" PRIx64
		       " weight=%" PRIu64 "\n", e->period, e->freq, e->random_mask, e->weight);
	}

	printf("modules (%zu):\n", p->n_modules);
	for (size_t i = 0; i < p->n_modules; i++) {
		const struct prof_module *m = &p->modules[i];

		printf("  %zu: ", i);
		put_str(m->path);
		printf(" [0x%" PRIx64 ", 0x%" PRIx64 ") bias=0x%" PRIx64
		       " load_seq=%" PRIu32 " unload_seq=%" PRIu32 " build-id=",
		       m->start, m->end, m->bias, m->load_seq, m->unload_seq);
		if (!m->build_id_len)
			printf("none");
		for (uint32_t b = 0; b < m->build_id_len; b++)
			printf("%02x", m->build_id[b]);
		printf("\n");
	}

	printf("counters (%zu):\n", p->n_counters);
	for (size_t i = 0; i < p->n_counters; i++) {
		printf("  ");
		put_str(p->counters[i].name);
		printf(" = %" PRIu64 "\n", p->counters[i].value);
	}
	for (size_t i = 0; i < p->n_images; i++)
		printf("image of module %u: %u bytes\n", p->images[i].module, p->images[i].len);
	print_timeline(&p->timeline);
}

static void print_node(const struct prof *p, uint32_t i, uint32_t depth)
{
	const struct prof_cct *c = &p->cct;
	uint32_t m = c->module[i];

	if (depth > MAX_INDENT)
		printf("  %*s(depth %" PRIu32 ") ", 2 * MAX_INDENT, "", depth);
	else
		printf("  %*s", 2 * (int)depth, "");
	if (m == PROF_NO_MODULE) {
		printf("#%" PRIu32 " [no module] 0x%" PRIx64, i, c->offset[i]);
	} else {
		const char *path = p->modules[m].path, *slash = strrchr(path, '/');

		printf("#%" PRIu32 " ", i);
		put_str(slash ? slash + 1 : path);
		printf("+0x%" PRIx64, c->offset[i]);
	}
	for (uint32_t e = 0; e < c->n_events; e++)
		printf("%s%" PRIu64, e ? " " : "  [", c->counts[(size_t)i * c->n_events + e]);
	printf("%s\n", c->n_events ? "]" : "");
}

/* Depth-first, children in node order, without recursion: stacks can be
 * thousands of frames deep. */
static int print_tree(const struct prof *p)
{
	const struct prof_cct *c = &p->cct;
	uint32_t n = c->n_nodes, top = 0;
	uint32_t *first, *next, *depth, *stack;
	int err = 0;

	printf("cct (%" PRIu32 " nodes, %" PRIu32 " events; counts are exclusive):\n",
	       n, c->n_events);
	if (!n)
		return 0;
	first = malloc(n * sizeof(*first));
	next = malloc(n * sizeof(*next));
	depth = malloc(n * sizeof(*depth));
	stack = malloc(n * sizeof(*stack));
	if (!first || !next || !depth || !stack) {
		err = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < n; i++)
		first[i] = next[i] = UINT32_MAX;
	for (uint32_t i = n - 1; i > 0; i--) {
		next[i] = first[c->parent[i]];
		first[c->parent[i]] = i;
	}
	depth[0] = 0;
	for (uint32_t i = 1; i < n; i++)
		depth[i] = depth[c->parent[i]] + 1;
	stack[top++] = 0;
	while (top) {
		uint32_t i = stack[--top];

		print_node(p, i, depth[i]);
		/* Push the siblings of i first, so i's children come out next. */
		if (i && next[i] != UINT32_MAX)
			stack[top++] = next[i];
		if (first[i] != UINT32_MAX)
			stack[top++] = first[i];
	}
out:
	free(first);
	free(next);
	free(depth);
	free(stack);
	return err;
}

static size_t count_profiles(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	while (d && (e = readdir(d))) {
		size_t l = strlen(e->d_name);
		n += l > 5 && !strcmp(e->d_name + l - 5, ".pmcp");
	}
	if (d)
		closedir(d);
	return n;
}

static int dump_file(const char *path)
{
	struct prof_file *f;
	struct prof_header h;
	char msg[256];
	FILE *in;
	struct stat st;
	long size;
	void *buf = NULL;
	int err;

	/* Read it ourselves: the header is printed as stored.  O_NONBLOCK:
	 * a FIFO must not block the open; only regular files are read. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 && stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		fd = -2;	/* a socket: cannot be opened, say what it is below */
	else if (fd < 0 || fstat(fd, &st) != 0) {
		fprintf(stderr, "pmcprof dump: %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return 2;
	}
	if (S_ISDIR(st.st_mode)) {
		size_t n = count_profiles(path);

		fprintf(stderr, "pmcprof dump: %s is a directory (of %zu profile%s): dump "
				"reads profile files, e.g. 'pmcprof dump %s/*.pmcp'; 'pmcprof "
				"report %s' merges them\n", path, n, n == 1 ? "" : "s", path, path);
	} else if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "pmcprof dump: %s is %s, not a regular file: dump reads profile "
				"files (.pmcp)\n", path, S_ISFIFO(st.st_mode) ? "a FIFO"
				: S_ISSOCK(st.st_mode) ? "a socket" : "a device");
	}
	if (!S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		return 2;
	}
	in = fdopen(fd, "rb");
	if (!in) {
		fprintf(stderr, "pmcprof dump: %s: %s\n", path, strerror(errno));
		close(fd);
		return 2;
	}
	errno = 0;
	if (fseek(in, 0, SEEK_END) != 0 || (size = ftell(in)) < 0 ||
	    fseek(in, 0, SEEK_SET) != 0 || !(buf = malloc(size ? (size_t)size : 1)) ||
	    fread(buf, 1, (size_t)size, in) != (size_t)size) {
		fprintf(stderr, "pmcprof dump: %s: cannot read: %s\n", path,
			errno ? strerror(errno) : "short read");
		fclose(in);
		free(buf);
		return 2;
	}
	fclose(in);
	err = prof_file_parse(buf, (size_t)size, &f, msg, sizeof(msg));
	if (err) {
		fprintf(stderr, "pmcprof dump: %s: %s\n", path, msg);
		free(buf);
		return 2;
	}
	prof_header_decode(buf, (size_t)size, &h, NULL, 0);
	free(buf);

	printf("file: %s\n", path);
	print_header(&h);
	print_lists(prof_file_data(f));
	err = print_tree(prof_file_data(f));
	prof_file_free(f);
	if (err) {
		fprintf(stderr, "pmcprof dump: %s: %s\n", path, strerror(-err));
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int first = opts_parse(&dump_cmd, NULL, argc, argv), status = 0;

	if (first == argc)
		opts_die(&dump_cmd, "no profile given");
	for (int i = first; i < argc; i++) {
		if (i > first)
			printf("\n");
		if (dump_file(argv[i]))
			status = 2;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "pmcprof dump: writing output: %s\n", strerror(errno));
		return 2;
	}
	return status;
}

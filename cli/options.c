/* The option layer every command shares: tables in, getopt_long underneath,
 * help and "did you mean" out. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"

#define HELP_COL 28	/* where the help text of an option starts */
#define HELP_WIDTH 80	/* --help fits 80 columns */

#define BOUND_ID 0x10000	/* getopt values of rows without an id: BOUND_ID + index */

static bool is_row(const struct opt *t)
{
	return t->id || t->name;
}

static bool is_end(const struct opt *t)
{
	return !is_row(t) && !t->help && !t->include;
}

static void flatten(struct opt_parser *p, const struct opt *t)
{
	for (; !is_end(t); t++) {
		if (t->include)
			flatten(p, t->include);
		else if (is_row(t) && p->n < OPTS_MAX) {
			p->id[p->n] = t->id ? t->id : BOUND_ID + (int)p->n;
			p->row[p->n++] = t;
		}
	}
}

static bool is_short(int id)
{
	return id > ' ' && id < 127;
}

static const struct opt *row_of(const struct opt_parser *p, int id)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->id[i] == id)
			return p->row[i];
	return NULL;
}

void opts_begin(struct opt_parser *p, const struct opt_cmd *cmd, int argc, char **argv)
{
	size_t nl = 0, ns = 0;

	memset(p, 0, sizeof(*p));
	p->cmd = cmd;
	p->argc = argc;
	p->argv = argv;
	flatten(p, cmd->opts);
	if (cmd->stop_at_operand)
		p->shorts[ns++] = '+';
	p->shorts[ns++] = ':';	/* a missing value returns ':', not '?' */
	for (size_t i = 0; i < p->n; i++) {
		const struct opt *o = p->row[i];

		if (is_short(o->id) && !strchr(p->shorts + 1, o->id)) {
			p->shorts[ns++] = (char)o->id;
			if (o->has_arg != no_argument)
				p->shorts[ns++] = ':';
			if (o->has_arg == optional_argument)
				p->shorts[ns++] = ':';
		}
		if (o->name)
			p->lo[nl++] = (struct option){ o->name, o->has_arg, NULL, p->id[i] };
	}
	/* -h and --help unless the command uses them for something else */
	if (!row_of(p, 'h'))
		p->shorts[ns++] = 'h';
	p->lo[nl++] = (struct option){ "help", no_argument, NULL, 'h' };
	p->lo[nl] = (struct option){ 0 };
	p->shorts[ns] = '\0';
	optind = 0;	/* glibc: start over, whatever parsed before */
}

static void left_column(const struct opt *o, char *buf, size_t len)
{
	const char *arg = o->arg ? o->arg : "VALUE";
	size_t n;

	if (is_short(o->id) && o->name)
		n = (size_t)snprintf(buf, len, "  -%c, --%s", o->id, o->name);
	else if (o->name)
		n = (size_t)snprintf(buf, len, "      --%s", o->name);
	else
		n = (size_t)snprintf(buf, len, "  -%c", o->id);
	if (n >= len || o->has_arg == no_argument)
		return;
	if (o->has_arg == optional_argument)
		snprintf(buf + n, len - n, "[=%s]", arg);
	else
		snprintf(buf + n, len - n, o->name ? "=%s" : " %s", arg);
}

/* The help column: the help as one paragraph ('\n' in it is a space),
 * word-wrapped to fit HELP_WIDTH; beside the option, or under it when the
 * option is wide. */
static void help_text(FILE *f, const char *left, const char *help)
{
	const int room = HELP_WIDTH - HELP_COL;
	char para[1024];
	int n = fprintf(f, "%s", left);

	snprintf(para, sizeof(para), "%s", help);
	for (char *c = para; *c; c++)
		if (*c == '\n')
			*c = ' ';
	for (const char *line = para; *line; ) {
		int len = (int)strlen(line), take = len;

		if (take > room) {	/* break at the last space that fits */
			take = room;
			while (take > 0 && line[take] != ' ')
				take--;
			if (take == 0)
				take = room;
		}
		if (n >= HELP_COL - 1) {
			fputc('\n', f);
			n = 0;
		}
		fprintf(f, "%*s%.*s\n", HELP_COL - n, "", take, line);
		n = 0;
		line += take;
		while (*line == ' ')
			line++;
	}
}

static void help_rows(FILE *f, const struct opt *t, bool *in_section)
{
	char left[96];

	for (; !is_end(t); t++) {
		if (t->include) {
			help_rows(f, t->include, in_section);
		} else if (!is_row(t)) {
			fprintf(f, "\n%s\n", t->help);
			*in_section = true;
		} else if (t->help) {
			if (!*in_section) {
				fprintf(f, "\nOptions:\n");
				*in_section = true;
			}
			left_column(t, left, sizeof(left));
			help_text(f, left, t->help);
		}
	}
}

void opts_help(const struct opt_cmd *cmd, FILE *f)
{
	bool in_section = false;
	struct opt_parser p;

	fprintf(f, "Usage: %s\n", cmd->synopsis);
	if (cmd->description)
		fprintf(f, "\n%s", cmd->description);
	help_rows(f, cmd->opts, &in_section);
	opts_begin(&p, cmd, 0, NULL);
	help_text(f, row_of(&p, 'h') ? "      --help" : "  -h, --help", "show this help");
	if (cmd->footer)
		fprintf(f, "\n%s", cmd->footer);
}

static void verror(const struct opt_cmd *cmd, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", cmd->prog);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\nTry '%s --help'.\n", cmd->prog);
}

int opts_error(const struct opt_cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(cmd, fmt, ap);
	va_end(ap);
	return EXIT_USAGE;
}

void opts_die(const struct opt_cmd *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(cmd, fmt, ap);
	va_end(ap);
	exit(EXIT_USAGE);
}

/* Optimal string alignment distance: edits plus swaps of neighbours, the
 * usual typos.  Words longer than 63 bytes are never close. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d[64][64];

	if (la > 63 || lb > 63)
		return SIZE_MAX;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb];
}

const char *opts_suggest(const char *word, const char *const *names, size_t n)
{
	/* short words: one typo; longer: two, but never most of the word */
	size_t len = strlen(word), limit = len <= 3 ? 1 : len <= 5 ? 2 : 3, best = SIZE_MAX;
	const char *pick = NULL;

	for (size_t i = 0; i < n; i++) {
		size_t d = distance(word, names[i]);

		/* "--min" for "--min-pct": a start of the name is close too */
		if (d > limit && len >= 3 && strncmp(word, names[i], len) == 0)
			d = limit;
		if (d <= limit && d < best) {
			best = d;
			pick = names[i];
		}
	}
	return pick;
}

static void unknown_long(struct opt_parser *p, const char *token)
{
	const char *names[OPTS_MAX + 1], *hit[4];
	char word[128];
	size_t n = 0, nhit = 0;

	snprintf(word, sizeof(word), "%s", token + 2);
	word[strcspn(word, "=")] = '\0';
	for (size_t i = 0; p->lo[i].name; i++) {
		names[n++] = p->lo[i].name;
		if (strncmp(p->lo[i].name, word, strlen(word)) == 0 && nhit < 4)
			hit[nhit++] = p->lo[i].name;
	}
	if (nhit > 1)
		opts_die(p->cmd, "option '--%s' is ambiguous: --%s, --%s%s", word, hit[0], hit[1],
			 nhit > 2 ? ", ..." : "");
	const char *s = opts_suggest(word, names, n);
	if (s)
		opts_die(p->cmd, "unknown option '--%s'; did you mean '--%s'?", word, s);
	opts_die(p->cmd, "unknown option '--%s'", word);
}

static const char *spelled(const struct opt *o, char *buf, size_t len)
{
	if (o && o->name)
		snprintf(buf, len, "--%s", o->name);
	else if (o)
		snprintf(buf, len, "-%c", o->id);
	else
		snprintf(buf, len, "?");
	return buf;
}

/* The next option from getopt, with its usage errors said. */
static int next(struct opt_parser *p, const char **arg)
{
	char name[96];
	int c;

	int longindex = -1;

	opterr = 0;
	c = getopt_long(p->argc, p->argv, p->shorts, p->lo, &longindex);
	*arg = optarg;
	p->typed_long = longindex >= 0;
	if (c == -1) {
		p->ind = optind;
		return -1;
	}
	if (c == 'h' && !row_of(p, 'h')) {
		opts_help(p->cmd, stdout);
		exit(EXIT_OK);
	}
	if (c == ':') {
		const struct opt *o = row_of(p, optopt);

		opts_die(p->cmd, "option '%s' needs a value (%s)", spelled(o, name, sizeof(name)),
			 o && o->arg ? o->arg : "VALUE");
	}
	if (c == '?') {
		const char *token = optind > 0 && optind <= p->argc ? p->argv[optind - 1] : "";

		if (strncmp(token, "--", 2) == 0 && optopt && strchr(token, '='))
			opts_die(p->cmd, "option '%s' takes no value ('%s')",
				 spelled(row_of(p, optopt), name, sizeof(name)), token);
		if (strncmp(token, "--", 2) == 0 && !optopt)
			unknown_long(p, token);
		if (is_short(optopt))
			opts_die(p->cmd, "unknown option '-%c'", optopt);
		opts_die(p->cmd, "unknown option '%s'", token);
	}
	return c;
}


/* The option as its errors name it: as typed, -x or --name. */
static const char *said(const struct opt_parser *p, const struct opt *o, char *buf, size_t len)
{
	if (is_short(o->id) && !(p->typed_long && o->name))
		snprintf(buf, len, "-%c", o->id);
	else
		snprintf(buf, len, "--%s", o->name);
	return buf;
}

/* "OPT: expected EXPECT, got 'V'[; did you mean 'S'?]", exit 1. */
static void bad_value(const struct opt_parser *p, const struct opt *o, const char *expect,
		      const char *v, const char *suggest)
{
	char name[96];

	opts_die(p->cmd, "%s: expected %s, got '%s'%s%s%s", said(p, o, name, sizeof(name)),
		 o->expect ? o->expect : expect, v, suggest ? "; did you mean '" : "",
		 suggest ? suggest : "", suggest ? "'?" : "");
}

/* Store x into the unsigned or int variable of o->size bytes (memcpy: the
 * variable may be any integer type of that size, an enum or a bool). */
static void store_int(const struct opt *o, unsigned long long x)
{
	uint8_t u8 = (uint8_t)x;
	uint16_t u16 = (uint16_t)x;
	uint32_t u32 = (uint32_t)x;
	uint64_t u64 = (uint64_t)x;
	const void *from = o->size == 1 ? (const void *)&u8 : o->size == 2 ? (const void *)&u16
			   : o->size == 4 ? (const void *)&u32 : (const void *)&u64;

	memcpy(o->value, from, o->size <= 8 ? o->size : 8);
}

static void store_uint(const struct opt_parser *p, const struct opt *o, const char *v)
{
	unsigned long long x;
	char expect[96];

	if (o->min == 0 && o->max == ~0ULL)
		snprintf(expect, sizeof(expect), "a number");
	else if (o->min == 0)
		snprintf(expect, sizeof(expect), "a number up to %llu", o->max);
	else
		snprintf(expect, sizeof(expect), "%llu..%llu", o->min, o->max);
	if (opts_uint(v, o->min, o->max, &x))
		bad_value(p, o, expect, v, NULL);
	store_int(o, x);
}

static void store_double(const struct opt_parser *p, const struct opt *o, const char *v)
{
	double x;
	char expect[96];

	snprintf(expect, sizeof(expect), o->open ? "a number between %g and %g" : "%g..%g",
		 o->dmin, o->dmax);
	if (opts_double(v, o->dmin, o->dmax, &x) || (o->open && (x == o->dmin || x == o->dmax)))
		bad_value(p, o, expect, v, NULL);
	*(double *)o->value = x;
}

/* "a, b or c" of a name table. */
static void names_said(const struct opt_name *t, char *buf, size_t len)
{
	size_t n = 0, k = 0;

	while (t[n].name)
		n++;
	buf[0] = '\0';
	for (size_t i = 0; i < n && k < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ",
				      t[i].name);
}

static void store_enum(const struct opt_parser *p, const struct opt *o, const char *v)
{
	const char *names[64];
	char expect[256];
	size_t n;

	for (n = 0; o->names[n].name && n < 64; n++) {
		if (!strcmp(v, o->names[n].name)) {
			store_int(o, (unsigned long long)o->names[n].value);
			return;
		}
		names[n] = o->names[n].name;
	}
	names_said(o->names, expect, sizeof(expect));
	bad_value(p, o, expect, v, opts_suggest(v, names, n));
}

int opts_append(const char ***v, size_t *n, const char *s)
{
	const char **a = realloc(*v, (*n + 2) * sizeof(*a));

	if (!a)
		return -1;
	a[(*n)++] = s;
	a[*n] = NULL;
	*v = a;
	return 0;
}

int opts_split(char *list, const char *sep, const char **v, size_t *n, size_t max)
{
	for (char *save, *e = strtok_r(list, sep, &save); e; e = strtok_r(NULL, sep, &save)) {
		if (*n == max)
			return -1;
		v[(*n)++] = e;
	}
	return 0;
}

/* A comma-separated list whose items are all there (and numbers, if so). */
static bool items_ok(const char *v, enum opt_items items)
{
	if (items == OPT_ITEMS_ANY)
		return true;
	if (!*v || strstr(v, ",,") || *v == ',' || v[strlen(v) - 1] == ',')
		return false;
	return items != OPT_ITEMS_NUMBERS || strspn(v, "0123456789,") == strlen(v);
}

static int join(const struct opt_parser *p, const struct opt *o, const char *v)
{
	char **s = o->value, *d;
	size_t n = *s ? strlen(*s) : 0;

	if (!items_ok(v, o->items))
		bad_value(p, o, o->items == OPT_ITEMS_NUMBERS ? "a comma-separated list of numbers"
			  : "a comma-separated list of names", v, NULL);
	if (!(d = realloc(*s, n + strlen(o->sep) + strlen(v) + 1)))
		return -1;
	sprintf(d + n, "%s%s", n ? o->sep : "", v);
	*s = d;
	return 0;
}

/* Store o's value v (NULL: none given) into its variable. */
static void store(const struct opt_parser *p, const struct opt *o, const char *v)
{
	int rc = 0;

	switch (o->kind) {
	case OPT_K_ID:
		break;
	case OPT_K_SET:
		store_int(o, (unsigned long long)o->set);
		break;
	case OPT_K_STRING:
		*(const char **)o->value = v;
		break;
	case OPT_K_UINT:
		store_uint(p, o, v);
		break;
	case OPT_K_DOUBLE:
		store_double(p, o, v);
		break;
	case OPT_K_ENUM:
		store_enum(p, o, v);
		break;
	case OPT_K_LIST:
		rc = opts_append(o->value, o->count, v);
		break;
	case OPT_K_JOIN:
		rc = join(p, o, v);
		break;
	case OPT_K_CALLBACK:
		if (o->fn(o->value, v))
			exit(EXIT_USAGE);
		break;
	}
	if (rc)
		opts_die(p->cmd, "%s", strerror(ENOMEM));
}

int opts_next(struct opt_parser *p, const char **arg)
{
	int c;

	while ((c = next(p, arg)) != -1) {
		const struct opt *o = row_of(p, c);

		if (!o || o->kind == OPT_K_ID)
			return c;
		store(p, o, *arg);
	}
	return -1;
}

int opts_parse(const struct opt_cmd *cmd, const struct opt *opts, int argc, char **argv)
{
	struct opt_cmd with = *cmd;
	struct opt_parser p;
	const char *v;
	int c;

	if (opts)
		with.opts = opts;
	opts_begin(&p, &with, argc, argv);
	while ((c = opts_next(&p, &v)) != -1)
		opts_die(cmd, "option %d is bound to nothing", c);	/* a table's bug */
	return p.ind;
}

int opts_uint(const char *s, unsigned long long min, unsigned long long max,
	      unsigned long long *out)
{
	char *end;
	unsigned long long x;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (*end || errno || x < min || x > max)
		return -1;
	*out = x;
	return 0;
}

int opts_double(const char *s, double min, double max, double *out)
{
	char *end;
	double x;

	if (!s || !*s)
		return -1;
	x = strtod(s, &end);
	if (*end || !(x >= min && x <= max))
		return -1;
	*out = x;
	return 0;
}

/* One option layer for every command, on getopt_long (like git's and
 * perf's parse-options): a command declares one table of options with
 * their help text, each row bound to the variable it sets; parsing, usage
 * errors, --help and "did you mean" come from it.
 *
 * Long options take "--x=v" or "--x v", short ones bundle ("-qe NAME"),
 * options may come anywhere before "--" (unless the command stops at its
 * first operand, as record and stat do at the program to run), and "--"
 * ends them. */
#ifndef CLI_OPTIONS_H
#define CLI_OPTIONS_H

#include <getopt.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>

enum { EXIT_OK = 0, EXIT_USAGE = 1, EXIT_RUNTIME = 2 };

/* How a row stores its value (git's parse-options: a row binds a variable). */
enum opt_kind {
	OPT_K_ID,	/* nothing bound: opts_next returns the id to the command */
	OPT_K_SET,	/* an integer or bool variable (any size) := .set */
	OPT_K_STRING,	/* const char *: the value as given (the last one wins) */
	OPT_K_UINT,	/* an unsigned variable (any size): a number in [.min, .max] */
	OPT_K_DOUBLE,	/* double: a number in [.dmin, .dmax] (bounds excluded if .open) */
	OPT_K_LIST,	/* const char **: appended, NULL-terminated, *.count items */
	OPT_K_JOIN,	/* char *: appended, .sep between (malloc'd; the caller frees) */
	OPT_K_ENUM,	/* an int-sized variable: the value .names gives the name */
	OPT_K_CALLBACK,	/* .fn(.value, arg): 0, or -1 when it said why (exit 1) */
};

/* OPT_K_JOIN: what each comma-separated item must be ("--pid: expected a
 * comma-separated list of numbers, got '1,,2'"). */
enum opt_items { OPT_ITEMS_ANY, OPT_ITEMS_NAMES, OPT_ITEMS_NUMBERS };

/* OPT_K_ENUM: the names a value may take; a table ends with { NULL }. */
struct opt_name {
	const char *name;
	int value;
};

/* One table row.  id: a printable ASCII id is the short option (-e); 0
 * for a long-only one (OPT_K_ID rows use ids from OPT_LONG up: what
 * opts_next returns).  name: the long name, or NULL for a short-only
 * option.  has_arg: getopt's no_argument, required_argument or
 * optional_argument ("--x=v" only).  help: NULL hides the option from
 * --help (still accepted); "\n" in it starts an indented line.  Rows with
 * neither id nor name are a section title (help) or another table included
 * at that place (include).  A bad value is a usage error "OPT: expected
 * EXPECT, got 'V'" (OPT as typed, -x or --name); expect is made from the
 * range or the names unless given. */
struct opt {
	int id;
	const char *name;
	int has_arg;
	const char *arg;
	const char *help;
	const struct opt *include;
	enum opt_kind kind;
	void *value;			/* the bound variable (CALLBACK: fn's context) */
	size_t size;			/* sizeof the variable (SET, UINT, ENUM) */
	long long set;			/* SET: the constant */
	unsigned long long min, max;	/* UINT */
	double dmin, dmax;		/* DOUBLE */
	bool open;			/* DOUBLE: dmin < x < dmax */
	size_t *count;			/* LIST: its length */
	const char *sep;		/* JOIN: between two values */
	enum opt_items items;		/* JOIN: each item checked */
	const struct opt_name *names;	/* ENUM */
	int (*fn)(void *ctx, const char *arg);	/* CALLBACK */
	const char *expect;		/* the error's "expected ...", if not made */
};

enum { OPT_LONG = 256 };

/* Rows not bound to a variable: the command's loop gets the id. */
#define OPT(i, n, h, a, t) { .id = (i), .name = (n), .has_arg = (h), .arg = (a), .help = (t) }
#define OPT_SECTION(title) { .help = (title) }
#define OPT_INCLUDE(table) { .include = (table) }
#define OPT_END { 0 }

/* Rows bound to a variable: s is the short option (0: none), l the long
 * name (NULL: none), a the value's name in --help, h the help; more
 * fields may follow (.expect = "...", .open = true).  The pointer's type
 * is checked where the row stores one type. */
#define OPT_CHECK_(type, v) (1 ? (v) : (type)0)
#define OPT_SET_INT(s, l, v, k, h, ...) { .id = (s), .name = (l), .has_arg = no_argument, \
	.help = (h), .kind = OPT_K_SET, .value = (v), .size = sizeof(*(v)), .set = (k), \
	__VA_ARGS__ }
#define OPT_BOOL(s, l, v, h, ...) \
	OPT_SET_INT(s, l, OPT_CHECK_(bool *, v), true, h, __VA_ARGS__)
#define OPT_STRING(s, l, v, a, h, ...) { .id = (s), .name = (l), \
	.has_arg = required_argument, .arg = (a), .help = (h), .kind = OPT_K_STRING, \
	.value = OPT_CHECK_(const char **, v), __VA_ARGS__ }
/* A whole number in [lo, hi] into an unsigned variable of any size. */
#define OPT_UINT(s, l, v, lo, hi, a, h, ...) { .id = (s), .name = (l), \
	.has_arg = required_argument, .arg = (a), .help = (h), .kind = OPT_K_UINT, \
	.value = (v), .size = sizeof(*(v)), .min = (lo), .max = (hi), __VA_ARGS__ }
#define OPT_DOUBLE(s, l, v, lo, hi, a, h, ...) { .id = (s), .name = (l), \
	.has_arg = required_argument, .arg = (a), .help = (h), .kind = OPT_K_DOUBLE, \
	.value = OPT_CHECK_(double *, v), .dmin = (lo), .dmax = (hi), __VA_ARGS__ }
/* Each value appended to a NULL-terminated array (realloc'd; the caller
 * frees the array, not the values) of *n items. */
#define OPT_LIST(s, l, v, n, a, h, ...) { .id = (s), .name = (l), \
	.has_arg = required_argument, .arg = (a), .help = (h), .kind = OPT_K_LIST, \
	.value = OPT_CHECK_(const char ***, v), .count = (n), __VA_ARGS__ }
/* Each value appended to one string, sep between them. */
#define OPT_JOIN(s, l, v, sp, it, a, h, ...) { .id = (s), .name = (l), \
	.has_arg = required_argument, .arg = (a), .help = (h), .kind = OPT_K_JOIN, \
	.value = OPT_CHECK_(char **, v), .sep = (sp), .items = (it), __VA_ARGS__ }
/* A name of the table t (struct opt_name[]) into an int or enum variable. */
#define OPT_ENUM(s, l, v, t, a, h, ...) { .id = (s), .name = (l), \
	.has_arg = required_argument, .arg = (a), .help = (h), .kind = OPT_K_ENUM, \
	.value = (v), .size = sizeof(*(v)), .names = (t), __VA_ARGS__ }
/* fn(ctx, value) for what a table cannot say; hs: has_arg. */
#define OPT_CALLBACK(s, l, hs, f, ctx, a, h, ...) { .id = (s), .name = (l), .has_arg = (hs), \
	.arg = (a), .help = (h), .kind = OPT_K_CALLBACK, .fn = (f), .value = (ctx), \
	__VA_ARGS__ }

struct opt_cmd {
	const char *prog;	 /* "pmcprof report": prefixes every message */
	const char *synopsis;	 /* after "Usage: "; more lines start "       " */
	const char *description; /* paragraph(s) between usage and options */
	const struct opt *opts;
	const char *footer;	 /* after the options: exit status, pointers */
	bool stop_at_operand;	 /* options end at the first operand (a command) */
};

#define OPTS_MAX 160

struct opt_parser {
	const struct opt_cmd *cmd;
	int argc;
	char **argv;
	int ind;		/* after opts_next returned -1: the first operand */
	size_t n;
	const struct opt *row[OPTS_MAX];
	int id[OPTS_MAX];	/* row[i]'s getopt value: its id, or one given */
	bool typed_long;	/* the last option was given by its long name */
	struct option lo[OPTS_MAX + 1];
	char shorts[3 * OPTS_MAX + 4];
};

/* Prepare to parse argv with cmd's table. */
void opts_begin(struct opt_parser *p, const struct opt_cmd *cmd, int argc, char **argv);
/* Store the options bound to variables, and return the next one that is
 * not (OPT_K_ID): its id, its argument in *arg (NULL when none); -1 when
 * the options end, p->ind then being the first operand.  --help and -h
 * print the help on stdout and exit 0; an unknown option (with "did you
 * mean"), a missing, unexpected or bad value print a usage error and exit 1. */
int opts_next(struct opt_parser *p, const char **arg);
/* Parse argv's options with the table opts (NULL: cmd's), every row bound
 * to a variable: the index of the first operand.  Usage errors exit 1
 * (after the message). */
int opts_parse(const struct opt_cmd *cmd, const struct opt *opts, int argc, char **argv);
/* The generated help text. */
void opts_help(const struct opt_cmd *cmd, FILE *f);
/* "PROG: MESSAGE\nTry 'PROG --help'." on stderr; returns EXIT_USAGE. */
int opts_error(const struct opt_cmd *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* opts_error, then exit(EXIT_USAGE). */
void opts_die(const struct opt_cmd *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));
/* The word of names[0..n) closest to word (a typo's distance), or NULL. */
const char *opts_suggest(const char *word, const char *const *names, size_t n);
/* Parse a whole number in [min, max] into *out; 0, or -1 if it is not one. */
int opts_uint(const char *s, unsigned long long min, unsigned long long max,
	      unsigned long long *out);
/* Append s to the NULL-terminated array *v of *n items (realloc'd): 0 or -1. */
int opts_append(const char ***v, size_t *n, const char *s);
/* Split list at sep in place, each item appended to v[0..max) after its
 * *n items: 0, or -1 when there is no room. */
int opts_split(char *list, const char *sep, const char **v, size_t *n, size_t max);
/* Parse a number in [min, max] into *out; 0 or -1. */
int opts_double(const char *s, double min, double max, double *out);

#endif

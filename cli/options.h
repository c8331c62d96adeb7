/* One option layer for every command, on getopt_long (like git's and
 * perf's parse-options): a command declares one table of options with
 * their help text; usage, --help and "did you mean" come from it.
 *
 * Long options take "--x=v" or "--x v", short ones bundle ("-qe NAME"),
 * options may come anywhere before "--" (unless the command stops at its
 * first operand, as record and stat do at the program to run), and "--"
 * ends them. */
#ifndef CLI_OPTIONS_H
#define CLI_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

enum { EXIT_OK = 0, EXIT_USAGE = 1, EXIT_RUNTIME = 2 };

/* One table row.  id: what opts_next returns; a printable ASCII id is also
 * the short option (-e), long-only options use ids from OPT_LONG up.
 * name: the long name, or NULL for a short-only option.  has_arg: getopt's
 * no_argument, required_argument or optional_argument ("--x=v" only).
 * help: NULL hides the option from --help (still accepted); "\n" in it
 * starts an indented line.  Rows with id 0 are either a section title
 * (help) or another table included at that place (include). */
struct opt {
	int id;
	const char *name;
	int has_arg;
	const char *arg;
	const char *help;
	const struct opt *include;
};

enum { OPT_LONG = 256 };

#define OPT(i, n, h, a, t) { .id = (i), .name = (n), .has_arg = (h), .arg = (a), .help = (t) }
#define OPT_SECTION(title) { .help = (title) }
#define OPT_INCLUDE(table) { .include = (table) }
#define OPT_END { 0 }

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
	struct option lo[OPTS_MAX + 1];
	char shorts[3 * OPTS_MAX + 4];
};

/* Prepare to parse argv with cmd's table. */
void opts_begin(struct opt_parser *p, const struct opt_cmd *cmd, int argc, char **argv);
/* The next option's id, its argument in *arg (NULL when none); -1 when the
 * options end, p->ind then being the first operand.  --help and -h print
 * the help on stdout and exit 0; an unknown option (with "did you mean"),
 * a missing or unexpected value print a usage error and exit 1. */
int opts_next(struct opt_parser *p, const char **arg);
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
/* Parse a number in [min, max] into *out; 0 or -1. */
int opts_double(const char *s, double min, double max, double *out);

#endif

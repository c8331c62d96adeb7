/* cli/options.c: rows bound to variables.  Each case parses one command
 * line in a child (a usage error exits 1) and checks the exit status, a
 * piece of stderr, and what the variables hold after it. */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/options.h"
#include "tests/harness.h"

enum colour { RED = 1, GREEN, BLUE };

static struct vars {
	bool flag;
	int level;
	const char *name;
	unsigned width;
	uint64_t big;
	size_t top;
	double pct, conf;
	const char **labels;
	size_t n_labels;
	char *pids, *dirs;
	enum colour colour;
	int called;
	const char *cb_arg;
} v;

static const struct opt_name colours[] = {
	{ "red", RED }, { "green", GREEN }, { "blue", BLUE }, { NULL, 0 },
};

static int callback(void *ctx, const char *arg)
{
	struct vars *x = ctx;

	x->called++;
	x->cb_arg = arg;
	return arg && !strcmp(arg, "bad") ? -1 : 0;
}

static const struct opt table[] = {
	OPT_BOOL('f', "flag", &v.flag, "a flag"),
	OPT_SET_INT(0, "loud", &v.level, 3, "level 3"),
	OPT_SET_INT('s', "silent", &v.level, 0, "level 0"),
	OPT_STRING('n', "name", &v.name, "NAME", "a name"),
	OPT_UINT(0, "width", &v.width, 20, 10000, "N", "a width"),
	OPT_UINT(0, "big", &v.big, 0, ~0ULL, "N", "any number"),
	OPT_UINT(0, "top", &v.top, 0, 1000, "N", "up to 1000"),
	OPT_DOUBLE(0, "pct", &v.pct, 0, 100, "P", "a percentage"),
	OPT_DOUBLE(0, "conf", &v.conf, 0, 1, "C", "a level", .open = true,
		   .expect = "a level between 0 and 1"),
	OPT_LIST('l', "label", &v.labels, &v.n_labels, "NAME", "repeatable"),
	OPT_JOIN(0, "pid", &v.pids, ",", OPT_ITEMS_NUMBERS, "PID[,...]", "numbers"),
	OPT_JOIN(0, "dir", &v.dirs, ":", OPT_ITEMS_ANY, "DIR", "joined with ':'"),
	OPT_ENUM('c', "colour", &v.colour, colours, "NAME", "red, green or blue"),
	OPT_CALLBACK(0, "call", required_argument, callback, &v, "X", "a callback"),
	OPT_CALLBACK(0, "maybe", optional_argument, callback, &v, "X", "optional value"),
	OPT_END,
};

static const struct opt_cmd cmd = {
	.prog = "test", .synopsis = "test [OPTIONS] ARG...", .opts = table,
};

static const struct {
	int line;
	const char *args;	/* space-separated */
	int status;		/* the child's exit status: 0, or 1 for a usage error */
	const char *err;	/* a piece of stderr, or NULL */
	const char *want;	/* the variables after it (describe()), or NULL */
} cases[] = {
	{ __LINE__, "", 0, NULL, "first=1" },
	{ __LINE__, "-f --loud x", 0, NULL, "flag=1 level=3 first=3" },
	/* bundled short options, the value of the last one after it */
	{ __LINE__, "-fsn NAME x", 0, NULL, "flag=1 level=0 name=NAME first=3" },
	/* --x=v and --x v; options after an operand */
	{ __LINE__, "--width=80 x --top 7 --big 18446744073709551615", 0, NULL,
	  "width=80 big=18446744073709551615 top=7 first=6" },
	{ __LINE__, "--pct 12.5 --conf 0.9", 0, NULL, "pct=12.5 conf=0.9 first=5" },
	/* lists: appended in order */
	{ __LINE__, "-l a --label b -lc", 0, NULL, "labels=a,b,c first=6" },
	{ __LINE__, "--pid 1,2 --pid 3 --dir /a --dir /b:/c", 0, NULL,
	  "pids=1,2,3 dirs=/a:/b:/c first=9" },
	{ __LINE__, "-c green --colour=blue", 0, NULL, "colour=3 first=4" },
	{ __LINE__, "--call v --maybe --maybe=w", 0, NULL, "called=3 first=5" },
	/* "--" ends the options */
	{ __LINE__, "-- -f", 0, NULL, "first=2" },
	/* range errors, made from the row */
	{ __LINE__, "--width 19", 1, "test: --width: expected 20..10000, got '19'\n"
	  "Try 'test --help'.", NULL },
	{ __LINE__, "--width=10001", 1, "--width: expected 20..10000, got '10001'", NULL },
	{ __LINE__, "--top x", 1, "--top: expected a number up to 1000, got 'x'", NULL },
	{ __LINE__, "--top -1", 1, "--top: expected a number up to 1000, got '-1'", NULL },
	{ __LINE__, "--big 18446744073709551616", 1, "--big: expected a number, got", NULL },
	{ __LINE__, "--pct 100.5", 1, "--pct: expected 0..100, got '100.5'", NULL },
	{ __LINE__, "--pct nan", 1, "--pct: expected 0..100", NULL },
	{ __LINE__, "--conf 1", 1, "--conf: expected a level between 0 and 1, got '1'", NULL },
	{ __LINE__, "--conf 0", 1, "--conf: expected a level between 0 and 1, got '0'", NULL },
	/* item checks of a joined list */
	{ __LINE__, "--pid 1,,2", 1, "--pid: expected a comma-separated list of numbers, got '1,,2'",
	  NULL },
	{ __LINE__, "--pid 1a", 1, "list of numbers, got '1a'", NULL },
	/* enum names, with a suggestion */
	{ __LINE__, "--colour gren", 1, "--colour: expected red, green or blue, got 'gren'; "
	  "did you mean 'green'?", NULL },
	{ __LINE__, "-c x", 1, "-c: expected red, green or blue, got 'x'\n", NULL },
	/* a callback that refuses */
	{ __LINE__, "--call bad", 1, NULL, NULL },
	/* what getopt says */
	{ __LINE__, "--widht 30", 1, "unknown option '--widht'; did you mean '--width'?", NULL },
	{ __LINE__, "--flag=yes", 1, "takes no value", NULL },
	{ __LINE__, "x --name", 1, "option '--name' needs a value (NAME)", NULL },
	{ __LINE__, "--no-such-thing", 1, "unknown option '--no-such-thing'", NULL },
};

/* What the variables hold, those not at their start only, then first. */
static void describe(char *buf, size_t len, int first)
{
	size_t k = 0;

#define SAY(cond, ...) \
	if ((cond) && k < len) \
		k += (size_t)snprintf(buf + k, len - k, __VA_ARGS__)
	buf[0] = '\0';
	SAY(v.flag, "flag=1 ");
	SAY(v.level != -1, "level=%d ", v.level);
	SAY(v.name, "name=%s ", v.name);
	SAY(v.width, "width=%u ", v.width);
	SAY(v.big, "big=%llu ", (unsigned long long)v.big);
	SAY(v.top, "top=%zu ", v.top);
	SAY(v.pct != -1, "pct=%g ", v.pct);
	SAY(v.conf != -1, "conf=%g ", v.conf);
	for (size_t i = 0; i < v.n_labels; i++)
		SAY(1, "%s%s%s", i ? "," : "labels=", v.labels[i], i + 1 == v.n_labels ? " " : "");
	SAY(v.pids, "pids=%s ", v.pids);
	SAY(v.dirs, "dirs=%s ", v.dirs);
	SAY(v.colour, "colour=%d ", (int)v.colour);
	SAY(v.called, "called=%d ", v.called);
	SAY(1, "first=%d", first);
#undef SAY
}

/* In the child: parse, then exit 0 if the variables are as wanted, 3 if
 * not (describe() on stdout). */
static void child(const char *args, const char *want)
{
	char copy[512], *argv[32], got[1024];
	int argc = 0;

	snprintf(copy, sizeof(copy), "%s", args);
	argv[argc++] = "test";
	for (char *save, *w = strtok_r(copy, " ", &save); w && argc < 31;
	     w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	argv[argc] = NULL;
	memset(&v, 0, sizeof(v));
	v.level = -1;
	v.pct = v.conf = -1;
	int first = opts_parse(&cmd, NULL, argc, argv);
	describe(got, sizeof(got), first);
	if (want && strcmp(got, want)) {
		printf("    got:  %s\n    want: %s\n", got, want);
		fflush(stdout);
		_exit(3);
	}
	_exit(0);
}

int main(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int fd[2], status;
		char err[1024] = "";
		ssize_t n, k = 0;

		if (pipe(fd))
			return 2;
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			dup2(fd[1], 2);
			close(fd[0]);
			child(cases[i].args, cases[i].want);
		}
		close(fd[1]);
		while (k < (ssize_t)sizeof(err) - 1 &&
		       (n = read(fd[0], err + k, sizeof(err) - 1 - (size_t)k)) > 0)
			k += n;
		err[k] = '\0';
		close(fd[0]);
		waitpid(pid, &status, 0);
		T_OK(WIFEXITED(status) && WEXITSTATUS(status) == cases[i].status &&
		     (!cases[i].err || strstr(err, cases[i].err)),
		     "line %d: '%s': status %d, stderr '%.*s'", cases[i].line, cases[i].args,
		     WIFEXITED(status) ? WEXITSTATUS(status) : -1, (int)strcspn(err, "\n"), err);
	}
	return T_DONE();
}

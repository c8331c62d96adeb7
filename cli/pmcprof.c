/* pmcprof: the front-end.  `pmcprof SUBCMD ARGS` execs pmcprof-SUBCMD from
 * the directory this program lives in (the build tree) or the install's
 * libexec directory.  Run from a build tree, it also points the plugin
 * loader and the launcher at the tree's freshly built .so files. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/pmc_plugin.h"
#include "cli/options.h"
#include "profile/profile.h"

static const struct {
	const char *name;
	const char *summary;
} commands[] = {
	{ "record", "profile a program: sample its threads and write calling-context profiles" },
	{ "report", "flat, per-line, per-module and tree reports of profiles; CSV, FlameGraph" },
	{ "script", "every sample of the timelines, in time order, with its stack (perf script)" },
	{ "diff", "compare runs function by function (ratios with confidence intervals)" },
	{ "annotate", "a function's instructions with their share of samples, and its source" },
	{ "view", "interactive ncurses viewer, with side-by-side comparison of runs" },
	{ "stat", "count events over a whole run, like perf stat" },
	{ "list", "list backends (usable or why not) and events" },
	{ "probe", "describe this machine: hypervisor, PMU, perf_event, default choice" },
	{ "archive", "keep the names of a profile's sampled addresses in its directory" },
	{ "dump", "print a profile file's raw contents" },
	{ "vm", "record a command natively and in a throwaway QEMU guest, and compare" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: pmcprof [--version] [--help] COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'pmcprof COMMAND --help' describes a command.  Exit status: 0 success, "
		   "1 usage error, 2 runtime error;\n'record' and 'stat' pass the program's own "
		   "status through.\n");
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* cmd is no command: say so, with the one meant if there is one; 1. */
static int unknown(const char *cmd)
{
	const size_t n = sizeof(commands) / sizeof(commands[0]);
	const char *names[sizeof(commands) / sizeof(commands[0])], *s;

	for (size_t i = 0; i < n; i++)
		names[i] = commands[i].name;
	s = opts_suggest(cmd, names, n);
	if (s)
		fprintf(stderr, "pmcprof: unknown command '%s'; did you mean '%s'?\n"
				"Try 'pmcprof --help'.\n", cmd, s);
	else if (cmd[0] == '-')
		fprintf(stderr, "pmcprof: unknown option '%s'\nTry 'pmcprof --help'.\n", cmd);
	else
		fprintf(stderr, "pmcprof: unknown command '%s'\n\n", cmd), usage(stderr);
	return 1;
}

/* pmcprof-CMD (argv[0] is CMD) beside this program, as in a build tree:
 * run it, with the build tree's plugins and collector unless told
 * otherwise.  Returns 0 when there is none, 2 when it could not run (said). */
static int exec_beside(char **argv)
{
	char self[PATH_MAX], dir[PATH_MAX], path[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return 0;
	self[n] = '\0';
	snprintf(dir, sizeof(dir), "%s", self);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	/* A build tree: use its plugins and collector unless told otherwise. */
	snprintf(path, sizeof(path), "%s/plugins/.libs", dir);
	if (is_dir(path)) {
		setenv("PMCPROF_PLUGIN_PATH", path, 0);
		snprintf(path, sizeof(path), "%s/collector/.libs/libpmcprof-collector.so", dir);
		setenv("PMCPROF_COLLECTOR", path, 0);
	}
	snprintf(path, sizeof(path), "%s/pmcprof-%s", dir, argv[0]);
	if (access(path, X_OK) != 0)
		return 0;
	execv(path, argv);
	fprintf(stderr, "pmcprof: cannot run %s: %s\n", path, strerror(errno));
	return 2;
}

int main(int argc, char **argv)
{
	char path[PATH_MAX + 64];
	const char *cmd;
	bool known = false;

	if (argc < 2) {
		usage(stderr);
		return 1;
	}
	cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
		printf("pmcprof %s: libpmc %s (ABI %d), plugin ABI %d, profile format %d\n",
		       PACKAGE_VERSION, pmc_version(), PMC_ABI_VERSION, PMC_PLUGIN_ABI,
		       PROF_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		known |= strcmp(cmd, commands[i].name) == 0;
	if (!known)
		return unknown(cmd);
	if (exec_beside(argv + 1))
		return 2;
	snprintf(path, sizeof(path), "%s/pmcprof-%s", PMCPROF_LIBEXECDIR, cmd);
	execv(path, argv + 1);
	fprintf(stderr, "pmcprof: cannot run %s: %s (is pmcprof installed completely?)\n", path,
		strerror(errno));
	return 2;
}

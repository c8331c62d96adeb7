/* pmcprof record: run a command under the LD_PRELOAD collector.
 *
 * Chooses the events (pmc_plan_new: parsing, trials, the fallback chain),
 * creates the output directory, hands the collector its settings through
 * PMCPROF_* variables (collector/settings.h), then forks the command, waits,
 * says where the profiles are and exits as the command did. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "backend/pmc.h"
#include "cli/attach.h"
#include "cli/exe.h"
#include "cli/options.h"
#include "collector/settings.h"

static const struct opt_cmd record_cmd = {
	.prog = "pmcprof record",
	.synopsis = "pmcprof record [OPTIONS] [--] CMD [ARGS]\n"
		    "       pmcprof record [OPTIONS] -p PID | -t TID | -a [--duration S] [-- CMD]",
	.description =
		"Run CMD under the pmcprof collector: every thread of every process it\n"
		"starts is sampled and writes one profile (.pmcp) into the output directory.\n",
	.footer =
		"Exit status: CMD's own (a CMD killed by a signal kills pmcprof with it);\n"
		"1 for a usage error, 2 when pmcprof cannot run it.  pmcprof-record(1) and\n"
		"docs/collector.md have more.\n",
	.stop_at_operand = true,
};

/* Signals pmcprof passes on to the command rather than dying of. */
static const int forwarded[] = { SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGCONT };

struct opts {
	const char *specs[PMC_MAX_EVENTS];
	char rated[PMC_MAX_EVENTS][PMC_NAME_MAX];	/* specs with -F/-c applied */
	size_t n_specs;
	const char *freq, *period;	/* -F, -c */
	const char *backend;
	const char *outdir;
	bool no_fallback;
	bool convert_period;
	bool force;
	bool append;
	bool quiet;
	bool seed_given;
	struct attach_req att;		/* -p/-t/-a: cli/attach.c */
	bool no_timeline;
	bool no_archive;
	/* settings the collector's own parsers check (settings_set) */
	struct rec_settings set;
};

static pid_t child;

static void die(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));

static void die(int status, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "pmcprof record: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

static void usage_error(const char *msg)
{
	opts_die(&record_cmd, "%s", msg);
}

/* -e a,b: each item of the list is one event (a spec has no comma). */
static int add_events(void *ctx, const char *list)
{
	struct opts *o = ctx;

	if (opts_split((char *)list, ",", o->specs, &o->n_specs, PMC_MAX_EVENTS))
		opts_die(&record_cmd, "at most %d events (-e)", PMC_MAX_EVENTS);
	return 0;
}

/* The options that are the collector's settings: each value checked by
 * its parser as it comes (a bad value is refused even when a later one
 * replaces it). */
static int setting(void *ctx, const char *env, const char *label, const char *v)
{
	struct opts *o = ctx;
	char msg[512];

	if (settings_set(&o->set, env, label, v, msg, sizeof(msg)) < 0)
		usage_error(msg);
	return 0;
}

/* -g: perf's, the default call graph. */
static int call_graph_default(void *ctx, const char *unused)
{
	(void)unused;
	return setting(ctx, "PMCPROF_CALL_GRAPH", "-g", "unwind");
}

/* perf's --call-graph: dwarf means the libunwind unwinder here. */
static int call_graph(void *ctx, const char *v)
{
	if (!strcmp(v, "dwarf") || !strncmp(v, "dwarf,", 6))
		v = "unwind";
	if (!strcmp(v, "lbr"))
		opts_die(&record_cmd, "--call-graph lbr: not supported: pmcprof has no "
				      "last-branch-record unwinder; use dwarf (the default) or fp");
	return setting(ctx, "PMCPROF_CALL_GRAPH", "--call-graph", v);
}

static int signal_opt(void *ctx, const char *v)
{
	return setting(ctx, "PMCPROF_SIGNAL", "--signal", v);
}

static int random_period(void *ctx, const char *v)
{
	return setting(ctx, "PMCPROF_RANDOM_BITS", "--random-period", v);
}

static int seed(void *ctx, const char *v)
{
	((struct opts *)ctx)->seed_given = true;
	return setting(ctx, "PMCPROF_SEED", "--seed", v);
}

/* -F FREQ / -c PERIOD: every event that names no rate of its own gets it;
 * with no -e, the default event does. */
static void apply_rate(struct opts *o)
{
	unsigned long long x;
	const char *v = o->freq ? o->freq : o->period;

	if (!v)
		return;
	if (o->freq && o->period)
		usage_error("-F and -c do not combine: a frequency or a period");
	if (opts_uint(v, 1, 1ULL << 40, &x))
		opts_die(&record_cmd, "%s: expected a positive number, got '%s'",
			 o->freq ? "-F" : "-c", v);
	if (!o->n_specs)
		o->specs[o->n_specs++] = "cycles";
	for (size_t i = 0; i < o->n_specs; i++) {
		if (strchr(o->specs[i], '@'))
			continue;
		snprintf(o->rated[i], sizeof(o->rated[i]), "%s@%s%llu", o->specs[i],
			 o->freq ? "f" : "", x);
		o->specs[i] = o->rated[i];
	}
}

/* The command line: the options' variables and their table. */
static struct opts args;
static const struct opt record_opts[] = {
	OPT_CALLBACK('e', "event", required_argument, add_events, &args,
		     "EVENT[@PERIOD|@fFREQ][,...]",
		     "sample EVENT (repeatable, or a comma-separated list).\n"
		     "Default: cycles, falling back to cpu-clock, then\n"
		     "CPUTIME, where there is no PMU (stderr says which)"),
	OPT_STRING('F', "freq", &args.freq, "FREQ",
		   "sample FREQ times a second (events without @)"),
	OPT_STRING('c', "count", &args.period, "PERIOD",
		   "sample every PERIOD events (events without @)"),
	OPT_STRING('b', "backend", &args.backend, "NAME",
		   "use this backend plugin (pmcprof list); no fallback"),
	OPT_STRING('o', "output", &args.outdir, "DIR",
		   "write into DIR (created if missing; a DIR that holds\n"
		   "profiles needs --append).  Default:\n"
		   "./pmcprof-CMD-HOST-PID/, which must not exist"),
	OPT_BOOL(0, "append", &args.append, "add this run's profiles to those already in -o DIR"),
	OPT_CALLBACK('g', NULL, no_argument, call_graph_default, &args, NULL,
		     "record call graphs (the default: --call-graph dwarf)"),
	OPT_CALLBACK(0, "call-graph", required_argument, call_graph, &args, "MODE",
		   "dwarf or unwind (libunwind, the default), fp (frame\n"
		   "pointers), none (the sampled instruction only);\n"
		   "lbr is refused: no last-branch-record support"),
	ATTACH_OPTS(&args.att, "profile"),
	OPT_BOOL(0, "no-fallback", &args.no_fallback, "fail instead of replacing an unusable event"),
	OPT_BOOL(0, "convert-period", &args.convert_period,
		 "let a period given in events (-c, @PERIOD) of an\n"
		 "event that falls back to a clock become that clock's\n"
		 "nanoseconds at the nominal CPU clock (default: refused)"),
	OPT_BOOL(0, "force", &args.force,
		 "record even with a hardware counter that failed\n"
		 "calibration (counted zero or implausibly)"),
	OPT_CALLBACK(0, "signal", required_argument, signal_opt, &args, "N",
		   "sampling signal, N or RTMIN+N (default RTMIN+4);\n"
		   "5 (SIGTRAP): perf_event's synchronous signal, no\n"
		   "interrupt per sample (cheaper, in a VM much cheaper)"),
	OPT_CALLBACK(0, "random-period", required_argument, random_period, &args, "BITS",
		   "randomize each period: PERIOD + (random & (2^BITS-1)),\n"
		   "against lockstep with periodic code"),
	OPT_CALLBACK(0, "seed", required_argument, seed, &args, "N",
		   "seed for --random-period (default: from the clock;\n"
		   "recorded in the profiles either way)"),
	OPT_BOOL(0, "private", &args.set.private_files, "directory mode 0700 and files 0600"),
	OPT_BOOL(0, "no-timeline", &args.no_timeline,
		 "keep no timeline (each sample's time and context, for\n"
		 "pmcprof script, report --time and the trace export;\n"
		 "PMCPROF_TIMELINE_BYTES bounds it per thread, 8M)"),
	OPT_BOOL(0, "no-archive", &args.no_archive,
		 "do not keep the names of the sampled addresses in\n"
		 "DIR/symbols when the command ends (pmcprof archive)"),
	OPT_BOOL('q', "quiet", &args.quiet,
		 "no informational lines (the event used, the profile\n"
		 "count); errors and failed calibrations are still shown"),
	OPT_END,
};

static int parse_args(int argc, char **argv, struct opts *o)
{
	int first;

	settings_defaults(&o->set);
	first = opts_parse(&record_cmd, record_opts, argc, argv);
	if (o->no_timeline)
		o->set.timeline_bytes = 0;
	attach_operands(&o->att, &record_cmd, argc, argv, first, "no command to run");
	apply_rate(o);
	return first;
}

/* "name@period" that pmc_event_parse turns back into exactly ev. */
static void event_spec(const struct pmc_event *ev, char *out, size_t len)
{
	static const char *const forms[] = { "%s@%llu", "%s@f%llu", "%s" };
	const char *form = ev->freq ? forms[1] : ev->period ? forms[0] : forms[2];
	struct pmc_event back;
	char msg[256];

	snprintf(out, len, form, ev->name,
		 (unsigned long long)(ev->freq ? ev->freq : ev->period));
	if (pmc_event_parse(out, &back, msg, sizeof(msg)) < 0 || back.kind != ev->kind ||
	    back.type != ev->type || back.config != ev->config || back.config1 != ev->config1 ||
	    back.config2 != ev->config2 || back.period != ev->period || back.freq != ev->freq ||
	    back.exclude_user != ev->exclude_user || back.exclude_kernel != ev->exclude_kernel)
		die(EXIT_RUNTIME, "cannot hand event '%s' to the collector: it reads back as '%s'",
		    ev->name, out);
}

/* A period the user gave (-c, @PERIOD) means that many events of the
 * event asked for, as in perf.  When the event fell back to another
 * unit (cycles -> cpu-clock, counted in ns) the plan converted it at the
 * nominal clock: refused unless --convert-period, and said exactly
 * either way.  ns -> us (cpu-clock -> CPUTIME) is the same time. */
static void check_periods(const struct opts *o, const struct pmc_plan *plan)
{
	struct pmc_env env;

	pmc_env_probe(&env);
	size_t n = pmc_plan_nevents(plan), n_req;
	const struct pmc_event *ev = pmc_plan_events(plan);
	const struct pmc_event *reqs = pmc_plan_requested(plan, &n_req);
	for (size_t i = 0; i < n_req && pmc_plan_fell_back(plan) && n; i++) {
		const struct pmc_event *req = &reqs[i], *used = NULL;
		char rate[64] = "";

		/* its own event (perhaps with ':u') is used: nothing converted */
		for (size_t k = 0; k < n && used != req; k++)
			if (ev[k].kind == req->kind && ev[k].type == req->type &&
			    ev[k].config == req->config)
				used = req;
		if (!req->period || used == req)
			continue;
		/* what it became (fallen-back events were merged: cycles and
		 * instructions both into one cpu-clock) */
		used = &ev[i < n ? i : n - 1];
		for (size_t k = 0; k < n && strcmp(used->unit, req->unit) == 0; k++)
			used = &ev[k];
		if (!strcmp(req->unit, used->unit))
			continue;
		bool same_time = !strcmp(req->unit, "ns") && !strcmp(used->unit, "us");
		if (same_time) {
			if (!o->quiet)
				fprintf(stderr, "pmcprof record: period converted: %s -> %s@%llu: "
					"%llu ns of CPU time are %llu us\n", req->spec, used->name,
					(unsigned long long)used->period, (unsigned long long)req->period,
					(unsigned long long)used->period);
			continue;
		}
		char what[PMC_NAME_MAX], to[PMC_NAME_MAX];
		snprintf(what, sizeof(what), "%.*s", (int)strcspn(req->spec, "@"), req->spec);
		snprintf(to, sizeof(to), "%.*s", (int)strcspn(used->spec, "@"),
			 used->spec[0] ? used->spec : used->name);
		/* cycles have a rate in time at the nominal clock; other
		 * events none (the plan gave those the clock's default) */
		bool cycles = req->type == PERF_TYPE_HARDWARE && req->config == PERF_COUNT_HW_CPU_CYCLES;
		char same[PMC_NAME_MAX + 128] = "";
		uint64_t eq = cycles && env.cpu_mhz > 0 ? (uint64_t)(req->period * 1000.0 / env.cpu_mhz) : 0;
		if (eq) {
			snprintf(rate, sizeof(rate), " if the CPU runs at its nominal %.0f MHz",
				 env.cpu_mhz);
			snprintf(same, sizeof(same), " (-e %s -c %llu is the same rate%s)", to,
				 (unsigned long long)eq, rate);
		}
		if (o->convert_period) {
			fprintf(stderr, "pmcprof record: period converted (--convert-period): "
				"%s@%llu (%s events) -> %s@%llu (ns): %s%s\n", what,
				(unsigned long long)req->period, what, to, (unsigned long long)used->period,
				eq && used->period == eq ? "the same sampling rate" :
				"not a conversion: that clock's own period", eq && used->period == eq ? rate : "");
			continue;
		}
		die(EXIT_RUNTIME, "%s@%llu asks for a sample every %llu %s events, but %s cannot be "
		    "sampled here and its replacement %s counts nanoseconds: a period of %s "
		    "means nothing to it. Give %s's own period%s, a frequency (-F), or "
		    "--convert-period to take %s@%llu", what, (unsigned long long)req->period,
		    (unsigned long long)req->period, what, what, to, what, to, same, to,
		    (unsigned long long)used->period);
	}
}

/* Count a loop of known work on each hardware event before trusting it
 * with a whole run: a virtual PMU may open an event and count nothing.
 * The verdicts go into the profiles ("calibration"). */
static void calibrate(struct opts *o, const struct pmc_plan *plan)
{
	const struct pmc_event *ev = pmc_plan_events(plan);
	size_t off = 0;
	bool bad = false;

	for (size_t i = 0; i < pmc_plan_nevents(plan); i++) {
		struct pmc_calibration cal;

		if (!ev[i].hardware || pmc_calibrate(pmc_plan_backend(plan), &ev[i], &cal) < 0)
			continue;
		snprintf(o->set.calibration + off, sizeof(o->set.calibration) - off, "%s%s=%s (%s)",
			 off ? "; " : "", ev[i].name, pmc_trust_name(cal.trust), cal.why);
		off = strlen(o->set.calibration);
		if (cal.trust == PMC_TRUST_VALID || cal.trust == PMC_TRUST_UNVERIFIED)
			continue;
		bad = true;
		fprintf(stderr, "pmcprof record: %s counter %s failed calibration: %s\n",
			o->force ? "WARNING:" : "", ev[i].name, cal.why);
	}
	if (bad && !o->force)
		die(EXIT_RUNTIME, "refusing to sample with an untrustworthy counter; "
				  "--force records anyway (the profile says so)");
	if (!off)
		snprintf(o->set.calibration, sizeof(o->set.calibration),
			 "not needed (no hardware events)");
}

/* A backend whose every sample is a signal: say what the program may
 * notice (the collector leaves the kernel out where the events allow it:
 * collector/kernel.c). */
static void signals_only_note(const struct pmc_plan *plan)
{
	const struct pmc_event *ev = pmc_plan_events(plan);
	const char *be = pmc_backend_name(pmc_plan_backend(plan));
	bool excludable = true;

	for (size_t i = 0; i < pmc_plan_nevents(plan); i++)
		excludable &= ev[i].kind == PMC_KIND_PERF;
	if (excludable)
		fprintf(stderr, "pmcprof record: the %s backend samples only by signal: kernel mode is "
			"not sampled (PMCPROF_KERNEL=leaf samples it, and then the program's system "
			"calls may return short or fail with EINTR)\n", be);
	else
		fprintf(stderr, "pmcprof record: the %s backend samples only by signal, in the kernel "
			"too: the program's system calls may return short or fail with EINTR "
			"(docs/collector.md)\n", be);
}

static void make_plan(struct opts *o)
{
	struct pmc_plan *plan;
	const struct pmc_event *ev, *asked;
	struct pmc_diag diag;
	char err[512];
	unsigned flags = PMC_PLAN_SAMPLING | (o->no_fallback ? PMC_PLAN_NO_FALLBACK : 0);
	int ret;

	ret = pmc_plan_new(o->specs, o->n_specs, o->backend, flags, &plan, &diag, err,
			   sizeof(err));
	if (ret < 0) {
		for (int i = 0; i < diag.n; i++)
			fprintf(stderr, "pmcprof record: -e '%s': %s\n",
				o->specs[diag.item[i].index], diag.item[i].msg);
		if (diag.n)
			exit(EXIT_USAGE);
		die(EXIT_RUNTIME, "%s", err[0] ? err : pmc_strerror(ret));
	}
	check_periods(o, plan);
	ev = pmc_plan_events(plan);
	asked = pmc_plan_requested(plan, &o->set.n_requested);
	if (!o->quiet)
		fprintf(stderr, "pmcprof record: %s\n", pmc_plan_why(plan));
	if (!o->quiet && pmc_backend_signals_only(pmc_plan_backend(plan)))
		signals_only_note(plan);
	calibrate(o, plan);
	snprintf(o->set.backend, sizeof(o->set.backend), "%s",
		 pmc_backend_name(pmc_plan_backend(plan)));
	for (size_t i = 0; i < pmc_plan_nevents(plan); i++) {
		if (o->set.random_bits && !ev[i].period)
			usage_error("--random-period needs events sampled by period, not @fFREQ");
		event_spec(&ev[i], o->set.events[i], sizeof(o->set.events[i]));
	}
	o->set.n_events = pmc_plan_nevents(plan);
	/* The plan's parsed request (set above): the default event when none
	 * was given. */
	for (size_t i = 0; i < o->set.n_requested; i++)
		snprintf(o->set.requested[i], sizeof(o->set.requested[i]), "%s", asked[i].spec);
	/* The profile's "fallback": "REQUESTED -> USED: why", empty if none. */
	if (pmc_plan_fell_back(plan)) {
		char req[240] = "", used[240] = "";

		for (size_t i = 0; i < o->set.n_requested; i++)
			snprintf(req + strlen(req), sizeof(req) - strlen(req), "%s%s", i ? "," : "",
				 o->set.requested[i]);
		for (size_t i = 0; i < pmc_plan_nevents(plan); i++)
			snprintf(used + strlen(used), sizeof(used) - strlen(used), "%s%s",
				 i ? "," : "", o->set.events[i]);
		snprintf(o->set.fallback, sizeof(o->set.fallback), "%s -> %s: %s", req, used,
			 pmc_plan_why(plan));
	}
	pmc_plan_free(plan);
}

/* The MPI rank this launcher runs as, from the variables the collector
 * reads too (collector/flush.c): its files are named CMD-rRANK-HOST-PID-TID. */
static const char *mpi_rank(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID" };

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);

		if (v && *v)
			return v;
	}
	return NULL;
}

/* Is name a profile of this launcher's rank (any profile without MPI)? */
static bool own_profile(const char *name)
{
	const char *rank = mpi_rank();
	size_t l = strlen(name);
	char tag[64];

	if (name[0] == '.' || l <= 5 || strcmp(name + l - 5, ".pmcp") != 0)
		return false;
	if (!rank)
		return true;
	snprintf(tag, sizeof(tag), "-r%s-", rank);
	return strstr(name, tag) != NULL;
}

/* The profiles in dir, counted (names NULL) or, with names, also kept
 * sorted so that a later count can leave them out. */
struct name_list {
	char **v;
	size_t n;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static size_t count_profiles(const char *dir, struct name_list *keep, const struct name_list *skip)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) != NULL) {
		const char *name = e->d_name;

		if (!own_profile(name))
			continue;
		if (skip && skip->n && bsearch(&name, skip->v, skip->n, sizeof(*skip->v), cmp_str))
			continue;
		n++;
		if (keep) {
			char **v = realloc(keep->v, (keep->n + 1) * sizeof(*v));

			if (!v || !(v[keep->n] = strdup(name)))
				die(EXIT_RUNTIME, "out of memory");
			keep->v = v;
			keep->n++;
		}
	}
	closedir(d);
	if (keep && keep->n)
		qsort(keep->v, keep->n, sizeof(*keep->v), cmp_str);
	return n;
}

static void sanitize(char *dst, size_t cap, const char *src)
{
	size_t n = 0;

	for (; *src && n + 1 < cap; src++) {
		char c = *src;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '+' || c == '-';
		dst[n++] = ok ? c : '_';
	}
	dst[n] = '\0';
}

/* The first symbolic link on the way to path (resolved as the kernel
 * would, component by component) that belongs to another user, not root:
 * where fs.protected_symlinks is 0, a link planted in /tmp would send the
 * profiles wherever its owner chose.  0 if none, 1 with its name in link. */
static int foreign_link(const char *path, char *link, size_t len)
{
	char done[PATH_MAX] = "", todo[PATH_MAX], next[PATH_MAX], target[PATH_MAX];
	struct stat st;
	int hops = 0;

	if (path[0] != '/' && !getcwd(done, sizeof(done)))
		return 0;
	snprintf(todo, sizeof(todo), "%s", path);
	while (todo[0]) {
		char *slash = strchr(todo, '/'), *rest = slash ? slash + 1 : todo + strlen(todo);
		size_t n = slash ? (size_t)(slash - todo) : strlen(todo);
		char comp[NAME_MAX + 1];

		if (n > NAME_MAX)
			return 0;
		memcpy(comp, todo, n);
		comp[n] = '\0';
		memmove(todo, rest, strlen(rest) + 1);
		if (!n || !strcmp(comp, "."))
			continue;
		if (!strcmp(comp, "..")) {
			char *up = strrchr(done, '/');
			if (up)
				*up = '\0';
			continue;
		}
		if ((size_t)snprintf(next, sizeof(next), "%s/%s", done, comp) >= sizeof(next) ||
		    lstat(next, &st) < 0)
			return 0;	/* the rest does not exist yet: mkdir decides */
		if (!S_ISLNK(st.st_mode)) {
			memcpy(done, next, sizeof(done));
			continue;
		}
		if (st.st_uid != geteuid() && st.st_uid != 0) {
			snprintf(link, len, "%s", next);
			return 1;
		}
		ssize_t t = readlink(next, target, sizeof(target) - 1);
		if (t < 0 || ++hops > 40)
			return 0;
		target[t] = '\0';
		if ((size_t)snprintf(next, sizeof(next), "%s/%s", target, todo) >= sizeof(next))
			return 0;
		memcpy(todo, next, sizeof(todo));
		if (target[0] == '/')
			done[0] = '\0';
	}
	return 0;
}

/* Whether entry name of directory dfd may sit in an output directory: a
 * regular *.pmcp file that starts with a profile's magic (docs/profile-
 * format.md), a writer's temporary or probe file (a profile being
 * written by another MPI rank), or what record itself leaves beside the
 * profiles: the kept names (the directory symbols/, pmcprof archive) and
 * the JIT maps an attached run copies (perf-PID.map). */
static bool profile_entry(int dfd, const char *name)
{
	static const char magic[8] = "\x89PMCPRF\n";
	size_t l = strlen(name);
	char head[sizeof(magic)];
	struct stat st;
	bool ok;
	int fd;

	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return true;
	if (name[0] == '.' && (strstr(name, ".pmcp.tmp.") || !strncmp(name, ".pmcprof-probe.", 15)))
		return true;
	if (!strcmp(name, "symbols"))
		return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
	if (l > 9 && !strncmp(name, "perf-", 5) && !strcmp(name + l - 4, ".map") &&
	    strspn(name + 5, "0123456789") == l - 9)
		return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
	if (l <= 5 || strcmp(name + l - 5, ".pmcp") ||
	    fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
		return false;
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	ok = read(fd, head, sizeof(head)) == (ssize_t)sizeof(head) &&
	     !memcmp(head, magic, sizeof(magic));
	close(fd);
	return ok;
}

/* -o DIR that exists: refuse it if it holds anything but profiles, so a
 * run never scatters its files among someone else's (and a later report
 * of DIR never reads them as one run). */
static void refuse_foreign(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;
	char first[NAME_MAX + 1] = "";

	if (!d)
		die(EXIT_RUNTIME, "cannot read %s: %s", dir, strerror(errno));
	while ((e = readdir(d)) != NULL) {
		if (profile_entry(dirfd(d), e->d_name))
			continue;
		if (!n++)
			snprintf(first, sizeof(first), "%s", e->d_name);
	}
	closedir(d);
	if (n)
		die(EXIT_RUNTIME, "%s holds %zu file%s that %s not %spmcprof profile%s ('%s'%s): "
		    "name an empty or new directory with -o", dir, n, n == 1 ? "" : "s",
		    n == 1 ? "is" : "are", n == 1 ? "a " : "", n == 1 ? "" : "s", first, n > 1 ? ", ..." : "");
}

/* Create (or, when named with -o, accept) the output directory and make
 * sure a profile can be created in it before anything runs. */
static void make_outdir(struct opts *o, const char *cmd)
{
	char name[PATH_MAX], real[PATH_MAX], host[64], safe_host[64], safe_cmd[64], probe[PATH_MAX + 40];
	char msg[512];
	struct stat st;
	mode_t mode = o->set.private_files ? 0700 : 0755;
	const char *base = strrchr(cmd, '/') ? strrchr(cmd, '/') + 1 : cmd;
	bool created = true;
	int fd;
	size_t n;

	if (o->outdir) {
		snprintf(name, sizeof(name), "%s", o->outdir);
	} else {
		if (gethostname(host, sizeof(host)) < 0)
			strcpy(host, "host");
		host[sizeof(host) - 1] = '\0';
		sanitize(safe_host, sizeof(safe_host), host);
		sanitize(safe_cmd, sizeof(safe_cmd), base);
		snprintf(name, sizeof(name), "pmcprof-%s-%s-%d", safe_cmd, safe_host,
			 (int)getpid());
	}
	if (foreign_link(name, real, sizeof(real)))
		die(EXIT_RUNTIME,
		    "%s goes through the symbolic link %s, which belongs to another user: "
		    "pmcprof does not follow it (name the directory it points to)", name, real);
	if (mkdir(name, mode) < 0) {
		if (errno != EEXIST)
			die(EXIT_RUNTIME, "cannot create output directory %s: %s", name,
			    strerror(errno));
		if (!o->outdir)
			die(EXIT_RUNTIME,
			    "%s already exists; name it with -o to add profiles to it", name);
		if (stat(name, &st) < 0 || !S_ISDIR(st.st_mode))
			die(EXIT_RUNTIME, "%s exists and is not a directory", name);
		created = false;
		refuse_foreign(name);
	}
	/* Profiles of an earlier run would merge silently into this one. */
	if (!created && !o->append && (n = count_profiles(name, NULL, NULL)))
		die(EXIT_RUNTIME, "%s already holds %zu profile%s of an earlier run: --append adds "
				  "this run's to them, or name another directory with -o", name, n,
		    n == 1 ? "" : "s");
	if (!realpath(name, real))
		die(EXIT_RUNTIME, "cannot resolve %s: %s", name, strerror(errno));
	/* The collector reads it back through the same parser. */
	if (settings_set(&o->set, "PMCPROF_OUTDIR", "-o", real, msg, sizeof(msg)) < 0) {
		if (created)
			rmdir(real);
		die(EXIT_RUNTIME, "%s", msg);
	}
	/* Another user's directory could hold traps for us, or be read by
	 * them: the collector would not write there either. */
	if (stat(real, &st) == 0 && st.st_uid != geteuid())
		die(EXIT_RUNTIME,
		    "%s belongs to uid %u, not to you (uid %u): pmcprof writes profiles only "
		    "into your own directories", real, (unsigned)st.st_uid, (unsigned)geteuid());
	/* A profile is created just like this (O_EXCL, no data yet); one
	 * descriptor at a time, so that `ulimit -n 4` still runs. */
	snprintf(probe, sizeof(probe), "%s/.pmcprof-probe.%d", o->set.outdir, (int)getpid());
	fd = open(probe, O_CREAT | O_EXCL | O_NOFOLLOW | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0) {
		int err = errno;

		if (created)
			rmdir(o->set.outdir);
		die(EXIT_RUNTIME, "cannot write profiles into %s: %s", o->set.outdir,
		    strerror(err));
	}
	close(fd);
	unlink(probe);
}

/* -p/-t/-a: the output directory, made once the counters are open. */
static char attach_dir[64];

static void attach_outdir(void *o)
{
	make_outdir(o, attach_dir);
}

static const char *collector_path(char *buf)
{
	const char *p = getenv("PMCPROF_COLLECTOR");
	char where[PATH_MAX];

	snprintf(where, sizeof(where), "%s", p && *p ? p : PMCPROF_PKGLIBDIR "/libpmcprof-collector.so");
	if (access(where, R_OK) < 0 || !realpath(where, buf))
		die(EXIT_RUNTIME, "the collector is not at %s (%s); set PMCPROF_COLLECTOR", where,
		    strerror(errno));
	return buf;
}

static int put_env(const char *name, const char *value, void *arg)
{
	(void)arg;
	return setenv(name, value, 1) < 0 ? -errno : 0;
}

static int put_line(const char *name, const char *value, void *arg)
{
	return fprintf(arg, "%s=%s\n", name, value) < 0 ? -EIO : 0;
}

/* The settings go to a file in our private run directory, named by one
 * variable (SETTINGS_MARKER): the program's environment gets that and
 * LD_PRELOAD, no more.  Without a run directory, PMCPROF_* variables. */
static int export_settings(const struct rec_settings *set, const char *dir)
{
	char path[PATH_MAX];
	void (*old_xfsz)(int);
	FILE *f;
	int fd, ret;

	if (!dir[0])
		return settings_export(set, put_env, NULL);
	/* libpmc's search path reaches the collector through the file too;
	 * the launcher's own variable stays with the launcher. */
	unsetenv("PMCPROF_PLUGIN_PATH");
	unsetenv("PMCPROF_COLLECTOR");
	snprintf(path, sizeof(path), "%s/%s", dir, SETTINGS_FILE);
	/* Under `ulimit -f 0` the write fails (EFBIG, no SIGXFSZ): then the
	 * environment carries the settings, as without a run directory. */
	old_xfsz = signal(SIGXFSZ, SIG_IGN);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		signal(SIGXFSZ, old_xfsz);
		return settings_export(set, put_env, NULL);
	}
	ret = settings_export(set, put_line, f);
	if (fclose(f) != 0 && ret == 0)
		ret = -errno;
	signal(SIGXFSZ, old_xfsz);
	if (ret < 0) {
		unlink(path);
		return settings_export(set, put_env, NULL);
	}
	if (setenv(SETTINGS_MARKER, path, 1) < 0)
		ret = -errno;
	return ret;
}

/* LD_PRELOAD: the runtime that must come first (ASan's, "" if none),
 * whatever the user had, then the collector. */
static void set_preload(const char *first, const char *coll)
{
	const char *old = getenv("LD_PRELOAD");
	size_t n = (old ? strlen(old) : 0) + strlen(coll) + strlen(first) + 3;
	char *v = malloc(n);

	if (!v)
		die(EXIT_RUNTIME, "out of memory");
	if (old && *old && !strstr(old, coll))
		snprintf(v, n, "%s%s%s:%s", first, *first ? ":" : "", old, coll);
	else
		snprintf(v, n, "%s%s%s", first, *first ? ":" : "", old && *old ? old : coll);
	setenv("LD_PRELOAD", v, 1);
	free(v);
}

static void forward(int signo)
{
	if (child > 0)
		kill(child, signo);
}

/* The collector's "still running" markers (collector/flush.c), one per
 * process, named CMD[-rRANK]-HOST-PID, in a private directory of ours.
 * One whose process is gone names a process that ended unseen: say so,
 * then remove the directory. */
static char rundir[64];

/* The collector's warnings arrive as datagrams on RUNDIR/.warn
 * (collector/flush.c, coll_warn) and are printed on our stderr as they
 * come; SIGCHLD wakes the same poll through a pipe. */
static int warn_sock = -1;
static int chld_pipe[2] = { -1, -1 };

static void on_chld(int signo)
{
	int saved = errno;

	(void)signo;
	if (write(chld_pipe[1], "", 1) < 0)
		(void)0;
	errno = saved;
}

static void warn_open(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct sigaction act;

	if (!rundir[0] || pipe2(chld_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/.warn", rundir);
	warn_sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (warn_sock >= 0 && bind(warn_sock, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(warn_sock);
		warn_sock = -1;
	}
	memset(&act, 0, sizeof(act));
	act.sa_handler = on_chld;
	act.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigaction(SIGCHLD, &act, NULL);
}

/* Print every warning that has come. */
static void warn_drain(void)
{
	char line[1100];
	ssize_t n;

	while (warn_sock >= 0 && (n = recv(warn_sock, line, sizeof(line), 0)) > 0)
		fwrite(line, 1, (size_t)n, stderr);
	fflush(stderr);
}

/* Until a child may have ended or a warning came. */
static void warn_wait(int timeout_ms)
{
	struct pollfd p[2] = { { .fd = chld_pipe[0], .events = POLLIN },
			       { .fd = warn_sock, .events = POLLIN } };
	char junk[64];

	if (chld_pipe[0] < 0) {
		struct timespec nap = { 0, (timeout_ms < 0 ? 5 : timeout_ms) * 1000000l };

		nanosleep(&nap, NULL);
		return;
	}
	poll(p, 2, timeout_ms);
	while (read(chld_pipe[0], junk, sizeof(junk)) > 0)
		;
	warn_drain();
}

static void make_rundir(struct opts *o)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(rundir, sizeof(rundir), "%s/pmcprof-run.XXXXXX",
		 tmp && tmp[0] == '/' && strlen(tmp) < 32 ? tmp : "/tmp");
	/* Without it, only the reason for a lost process is missing, and
	 * the collector's warnings go to the program's stderr. */
	if (!mkdtemp(rundir))
		rundir[0] = '\0';
	snprintf(o->set.rundir, sizeof(o->set.rundir), "%s", rundir);
	warn_open();
}

/* Whether pid is a process that still runs (not gone, not a zombie). */
static bool proc_running(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno != ENOENT;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return !(p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'));
}

/* The watcher a marker names (collector/watch.c: the target of the
 * marker, a symbolic link), 0 if none. */
static pid_t marker_watcher(int dirfd, const char *name)
{
	char buf[32];
	ssize_t n = readlinkat(dirfd, name, buf, sizeof(buf) - 1);

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return (pid_t)strtol(buf, NULL, 10);
}

/* A process that ended where its collector could not see it (a raw
 * exit_group, SIGKILL) has its watcher write its profiles: wait for every
 * watcher still at work, at most SALVAGE_WAIT_S, reaping them (we are
 * their subreaper). */
#define SALVAGE_WAIT_S 60

static void wait_salvage(void)
{
	struct timespec nap = { 0, 5 * 1000000 };

	for (long waited = 0; rundir[0] && waited < SALVAGE_WAIT_S * 1000000000l;
	     waited += nap.tv_nsec) {
		DIR *d = opendir(rundir);
		struct dirent *e;
		bool busy = false;

		if (!d)
			return;
		while ((e = readdir(d)) != NULL) {
			const char *dash = strrchr(e->d_name, '-');
			long pid = dash ? strtol(dash + 1, NULL, 10) : 0;
			pid_t w;

			if (e->d_name[0] == '.' || pid <= 0 || proc_running((pid_t)pid))
				continue;
			w = marker_watcher(dirfd(d), e->d_name);
			if (w > 0 && proc_running(w))
				busy = true;
			else if (w > 0)
				waitpid(w, NULL, WNOHANG | __WALL);
		}
		closedir(d);
		if (!busy)
			return;
		warn_wait((int)(nap.tv_nsec / 1000000));
	}
}

static size_t report_lost(void)
{
	DIR *d = rundir[0] ? opendir(rundir) : NULL;
	struct dirent *e;
	size_t n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)) != NULL) {
		const char *dash = strrchr(e->d_name, '-');
		long pid = dash ? strtol(dash + 1, NULL, 10) : 0;

		if (e->d_name[0] == '.') {
			/* Our warning socket (.warn). */
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				unlinkat(dirfd(d), e->d_name, 0);
			continue;
		}
		char target[700];
		ssize_t tl = readlinkat(dirfd(d), e->d_name, target, sizeof(target) - 1);

		target[tl > 0 ? tl : 0] = '\0';
		if (pid > 0 && !proc_running((pid_t)pid) && strncmp(target, "lost:", 5) == 0) {
			/* Its watcher says why (collector/watch.c, mark_lost). */
			fprintf(stderr, "pmcprof record: process %ld (%.*s) lost its profiles: %s\n",
				pid, (int)(dash - e->d_name), e->d_name, target + 5);
			n++;
		} else if (pid > 0 && !proc_running((pid_t)pid)) {
			fprintf(stderr, "pmcprof record: process %ld (%.*s) ended without writing "
				"its profiles: it left where the collector could not see it (a raw "
				"exit_group or SIGKILL), and its watcher could not write them either\n",
				pid, (int)(dash - e->d_name), e->d_name);
			n++;
		}
		unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
	rmdir(rundir);
	return n;
}

/* A profile's temporary file (profile/writer.c: ".NAME.tmp.PID.SEQ")
 * whose writer is gone was cut short by its process's end, and its
 * profile written again by the watcher or counted as lost: remove it. */
static void remove_stale_temps(const char *outdir)
{
	DIR *d = opendir(outdir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		const char *t = strstr(e->d_name, ".pmcp.tmp.");
		long pid;

		if (e->d_name[0] != '.' || !t)
			continue;
		pid = strtol(t + strlen(".pmcp.tmp."), NULL, 10);
		if (pid > 0 && !proc_running((pid_t)pid))
			unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
}

/* Wait for the command, reaping whatever else comes to us meanwhile
 * (watchers, and the program's orphans: we are a subreaper).  The
 * command is left a zombie, so its watcher can still read how it died. */
/* Keep the names of the sampled addresses in the output directory
 * (pmcprof-archive, beside us): the profiles then read on any machine,
 * with the program rebuilt or gone. */
static void archive_outdir(const struct opts *o)
{
	char self[PATH_MAX], prog[PATH_MAX + 32];
	ssize_t k = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *sl;
	pid_t pid;

	if (k <= 0)
		return;
	self[k] = 0;
	if (!(sl = strrchr(self, '/')))
		return;
	*sl = 0;
	snprintf(prog, sizeof(prog), "%s/pmcprof-archive", self);
	pid = fork();
	if (pid == 0) {
		unsetenv("LD_PRELOAD");	/* not the collector's program */
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		if (o->quiet)
			execl(prog, prog, "--from-record", "-q", o->set.outdir, (char *)NULL);
		else
			execl(prog, prog, "--from-record", o->set.outdir, (char *)NULL);
		fprintf(stderr, "pmcprof record: cannot run %s: %s\n", prog, strerror(errno));
		_exit(127);
	}
	while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

static void wait_command(pid_t pid)
{
	for (;;) {
		siginfo_t si;

		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WNOWAIT | WNOHANG | __WALL) < 0) {
			if (errno == EINTR)
				continue;
			die(EXIT_RUNTIME, "waitid: %s", strerror(errno));
		}
		if (si.si_pid == pid)
			return;
		if (si.si_pid > 0)
			waitpid(si.si_pid, NULL, __WALL);
		else
			warn_wait(-1);
	}
}

/* Die of the same signal as the command, so a shell sees what happened. */
static void die_of(int signo)
{
	struct rlimit no_core = { 0, 0 };
	sigset_t s;

	setrlimit(RLIMIT_CORE, &no_core);
	signal(signo, SIG_DFL);
	sigemptyset(&s);
	sigaddset(&s, signo);
	sigprocmask(SIG_UNBLOCK, &s, NULL);
	raise(signo);
	exit(128 + signo);
}

/* The timeline's buffer size from the environment (PMCPROF_TIMELINE_BYTES,
 * unless --no-timeline), and the run's origin: every process of the run
 * times its samples from here. */
static void timeline_settings(struct opts *o)
{
	const char *v = getenv("PMCPROF_TIMELINE_BYTES");
	struct timespec ts;
	char msg[256];

	if (v && !o->no_timeline &&
	    settings_set(&o->set, "PMCPROF_TIMELINE_BYTES", NULL, v, msg, sizeof(msg)) < 0)
		die(EXIT_USAGE, "%s", msg);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	o->set.origin_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Everything the collector is told before the command starts: the plan,
 * the seed, the output directory, the settings in the run directory, the
 * preloaded libraries. */
static void prepare(struct opts *o, const char *path, const char *cmd)
{
	char coll[PATH_MAX], why[PATH_MAX + 200];
	int ret;

	collector_path(coll);
	make_plan(o);
	if (o->set.random_bits && !o->seed_given) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		o->set.seed = ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)ts.tv_nsec ^ (uint64_t)getpid();
	}
	make_outdir(o, cmd);
	make_rundir(o);
	/* A process under more filters than ours was filtered by the program:
	 * its collector makes no system call (collector/init.c). */
	settings_seccomp_now(&o->set.seccomp_mode, &o->set.seccomp_filters);
	/* A run traced as a whole (strace -f pmcprof record) is profiled; a
	 * process traced by a tool of the run (gdb's inferior) is not. */
	o->set.tracer = settings_tracer_now();
	/* An ASan program refuses to start unless its runtime comes first in
	 * the library list: preload it before us (the collector takes it out
	 * of the environment its children inherit). */
	exe_asan_runtime(path, o->set.preload_first, sizeof(o->set.preload_first));
	if (getenv("PMCPROF_PLUGIN_PATH") &&
	    settings_set(&o->set, "PMCPROF_PLUGIN_PATH", NULL, getenv("PMCPROF_PLUGIN_PATH"), why,
			 sizeof(why)) < 0)
		die(EXIT_RUNTIME, "%s", why);
	timeline_settings(o);
	if ((ret = export_settings(&o->set, rundir)) < 0)
		die(EXIT_RUNTIME, "cannot pass the collector its settings: %s", strerror(-ret));
	set_preload(o->set.preload_first, coll);
}

/* Fork and exec the command, pass it the signals it decides on, wait for
 * it and for the collector's watchers: its wait status. */
static int run_command(const char *path, char **cmd)
{
	struct sigaction sa;
	int status;

	/* The collector's watchers (collector/watch.c) are orphaned at birth
	 * and come to us: so we know when they are done. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	child = fork();
	if (child < 0)
		die(EXIT_RUNTIME, "fork: %s", strerror(errno));
	if (child == 0) {
		execv(path, cmd);
		fprintf(stderr, "pmcprof record: cannot run %s: %s\n", path, strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	/* The terminal sends these to the whole group: the command decides. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward;
	sa.sa_flags = SA_RESTART;
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaction(forwarded[i], &sa, NULL);
	wait_command(child);
	wait_salvage();
	while (waitpid(child, &status, 0) < 0) {
		if (errno != EINTR)
			die(EXIT_RUNTIME, "waitpid: %s", strerror(errno));
	}
	while (waitpid(-1, NULL, WNOHANG | __WALL) > 0)
		;
	return status;
}

/* After the command: the profiles counted, archived and said; the
 * command's exit status (or its death by the same signal). */
static int finish(struct opts *o, const struct name_list *before, const char *cmd, int status)
{
	size_t n;

	warn_drain();
	report_lost();
	remove_stale_temps(o->set.outdir);
	n = count_profiles(o->set.outdir, NULL, before);
	/* (under MPI every rank shares DIR: one archive after the job) */
	if (n && !o->no_archive) {
		const char *rank = mpi_rank();

		if (!rank)
			archive_outdir(o);
		else if (!o->quiet && !strcmp(rank, "0"))
			fprintf(stderr, "pmcprof record: after the job, 'pmcprof archive %s' keeps "
				"the names of the sampled addresses with the profiles\n", o->set.outdir);
	}
	if (n && !o->quiet)
		fprintf(stderr, "pmcprof record: %zu profile%s%s%s in %s\n", n, n == 1 ? "" : "s",
			mpi_rank() ? " from rank " : "", mpi_rank() ? mpi_rank() : "", o->set.outdir);
	else if (!n)
		fprintf(stderr, "pmcprof record: no profiles were written to %s (see above)\n",
			o->set.outdir);
	if (WIFSIGNALED(status)) {
		int s = WTERMSIG(status);

		fprintf(stderr, "pmcprof record: %s was killed by signal %d (SIG%s)\n", cmd,
			s, sigabbrev_np(s) ? sigabbrev_np(s) : "?");
		die_of(s);
	}
	return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	struct opts *o = &args;
	char path[PATH_MAX], why[PATH_MAX + 200];
	struct name_list before = { 0 };
	int first, ret;

	first = parse_args(argc, argv, o);
	if (attach_wanted(&o->att)) {
		attach_prepare("pmcprof record", &o->att, o->backend, attach_dir, sizeof(attach_dir));
		make_plan(o);
		return attach_record(&o->att, &o->set, o->quiet, attach_outdir, o);
	}
	ret = exe_resolve(argv[first], path, sizeof(path));
	if (ret < 0)
		die(EXIT_RUNTIME, "%s: %s", argv[first],
		    ret == -ENOENT ? "command not found" : strerror(-ret));
	if (exe_check(path, why, sizeof(why)) < 0)
		die(EXIT_RUNTIME, "%s", why);
	prepare(o, path, argv[first]);
	count_profiles(o->set.outdir, &before, NULL);	/* with --append: not ours */
	return finish(o, &before, argv[first], run_command(path, argv + first));
}

/* PMCPROF_* settings: each variable's parser, table-driven, and the
 * launcher -> environment -> collector round trip. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/settings.h"
#include "tests/harness.h"

static const struct {
	int line;
	const char *name, *value;
	int ret;
	const char *msg;	/* a piece of the message on error */
} cases[] = {
	{ __LINE__, "PMCPROF_OUTDIR", "/tmp/x", 0, NULL },
	{ __LINE__, "PMCPROF_OUTDIR", "rel/dir", -EINVAL, "not an absolute path" },
	/* Hostile values: refused, and the message stays on one line. */
	{ __LINE__, "PMCPROF_OUTDIR", "/tmp/a\tb", -EINVAL, "'/tmp/a?b' has a control character" },
	{ __LINE__, "PMCPROF_FALLBACK", "cycles -> cpu-clock: no PMU", 0, NULL },
	{ __LINE__, "PMCPROF_FALLBACK", "a\rb", -EINVAL, "control character" },
	{ __LINE__, "PMCPROF_CALIBRATION", "x\033[2J", -EINVAL, "'x?[2J' has a control character" },
	{ __LINE__, "PMCPROF_SIGNAL", "\0337", -EINVAL, "'?7' is not a signal number" },
	{ __LINE__, "PMCPROF_BACKEND", "perf_event", 0, NULL },
	{ __LINE__, "PMCPROF_BACKEND", "", -EINVAL, "empty" },
	{ __LINE__, "PMCPROF_BACKEND", "../evil", -EINVAL, "not a backend name" },
	{ __LINE__, "PMCPROF_EVENTS", "perf::CPU-CLOCK@1000000", 0, NULL },
	{ __LINE__, "PMCPROF_EVENTS", "a@1;b@2;CPUTIME@1000", 0, NULL },
	{ __LINE__, "PMCPROF_EVENTS", "", -EINVAL, "no events" },
	{ __LINE__, "PMCPROF_EVENTS", "a;;b", -EINVAL, "empty element" },
	{ __LINE__, "PMCPROF_EVENTS", "a;b;c;d;e;f;g;h;i;j;k;l;m;n;o;p;q", -EINVAL, "more than 16" },
	{ __LINE__, "PMCPROF_EVENTS", "a\tb", -EINVAL, "control character" },
	{ __LINE__, "PMCPROF_REQUESTED", "", 0, NULL },
	{ __LINE__, "PMCPROF_CALL_GRAPH", "fp", 0, NULL },
	{ __LINE__, "PMCPROF_CALL_GRAPH", "dwarf", -EINVAL, "not one of unwind, fp, none" },
	{ __LINE__, "PMCPROF_SIGNAL", "38", 0, NULL },
	{ __LINE__, "PMCPROF_SIGNAL", "RTMIN+4", 0, NULL },
	{ __LINE__, "PMCPROF_SIGNAL", "SIGRTMIN+0", 0, NULL },
	{ __LINE__, "PMCPROF_SIGNAL", "27", 0, NULL },	/* SIGPROF: allowed */
	{ __LINE__, "PMCPROF_SIGNAL", "9", -EINVAL, "SIGKILL) cannot be caught" },
	{ __LINE__, "PMCPROF_SIGNAL", "11", -EINVAL, "watched to write profiles" },
	{ __LINE__, "PMCPROF_SIGNAL", "32", -EINVAL, "reserved by the C library" },
	{ __LINE__, "PMCPROF_SIGNAL", "0", -EINVAL, "not a signal number on this system" },
	{ __LINE__, "PMCPROF_SIGNAL", "65", -EINVAL, "not a signal number on this system" },
	{ __LINE__, "PMCPROF_SIGNAL", "RTMIN+99", -EINVAL, "beyond SIGRTMAX" },
	{ __LINE__, "PMCPROF_SIGNAL", "usr1", -EINVAL, "not a signal number" },
	{ __LINE__, "PMCPROF_RANDOM_BITS", "0", 0, NULL },
	{ __LINE__, "PMCPROF_RANDOM_BITS", "32", 0, NULL },
	{ __LINE__, "PMCPROF_RANDOM_BITS", "33", -EINVAL, "from 0 to 32" },
	{ __LINE__, "PMCPROF_RANDOM_BITS", "-1", -EINVAL, "from 0 to 32" },
	{ __LINE__, "PMCPROF_SEED", "18446744073709551615", 0, NULL },
	{ __LINE__, "PMCPROF_SEED", "0x10", 0, NULL },
	{ __LINE__, "PMCPROF_SEED", "18446744073709551616", -EINVAL, "unsigned 64-bit" },
	{ __LINE__, "PMCPROF_SEED", "12abc", -EINVAL, "unsigned 64-bit" },
	{ __LINE__, "PMCPROF_PRIVATE", "1", 0, NULL },
	{ __LINE__, "PMCPROF_PRIVATE", "yes", -EINVAL, "not 0 or 1" },
	{ __LINE__, "PMCPROF_CCT_BYTES", "4M", 0, NULL },
	{ __LINE__, "PMCPROF_CCT_BYTES", "65536", 0, NULL },
	{ __LINE__, "PMCPROF_CCT_BYTES", "1k", -EINVAL, "below the 64K minimum" },
	{ __LINE__, "PMCPROF_CCT_BYTES", "2G", -EINVAL, "up to 1G" },
	{ __LINE__, "PMCPROF_CCT_BYTES", "M", -EINVAL, "not a size" },
	{ __LINE__, "PMCPROF_TIMELINE_BYTES", "8M", 0, NULL },
	{ __LINE__, "PMCPROF_TIMELINE_BYTES", "0", 0, NULL },	/* no timeline */
	{ __LINE__, "PMCPROF_TIMELINE_BYTES", "4K", 0, NULL },
	{ __LINE__, "PMCPROF_TIMELINE_BYTES", "1K", -EINVAL, "below the 4K minimum" },
	{ __LINE__, "PMCPROF_TIMELINE_BYTES", "2G", -EINVAL, "up to 1G" },
	{ __LINE__, "PMCPROF_ORIGIN_NS", "123456789", 0, NULL },
	{ __LINE__, "PMCPROF_ORIGIN_NS", "-1", -EINVAL, "not an unsigned 64-bit" },
	{ __LINE__, "PMCPROF_NOPE", "1", -ENOENT, "unknown setting" },
};

static void test_parsers(void)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rec_settings s;
		char msg[512] = "";
		int ret;

		settings_defaults(&s);
		ret = settings_set(&s, cases[i].name, NULL, cases[i].value, msg, sizeof(msg));
		T_OK(ret == cases[i].ret && (!cases[i].msg || strstr(msg, cases[i].msg)),
		     "%s=%s -> %d '%s' [line %d]", cases[i].name, cases[i].value, ret, msg,
		     cases[i].line);
	}
}

static void test_values(void)
{
	struct rec_settings s;
	char msg[256];

	settings_defaults(&s);
	T_OK(s.signo == SIGRTMIN + 4 && s.call_graph == UW_MODE_UNWIND && s.cct_bytes == 4 << 20 &&
	     s.random_bits == 0, "defaults: RTMIN+4, unwind, 4 MiB, fixed periods");
	settings_set(&s, "PMCPROF_SIGNAL", NULL, "RTMIN+2", msg, sizeof(msg));
	T_OK(s.signo == SIGRTMIN + 2, "RTMIN+2 is SIGRTMIN + 2");
	settings_set(&s, "PMCPROF_CCT_BYTES", NULL, "128K", msg, sizeof(msg));
	T_OK(s.cct_bytes == 128 << 10, "128K is 131072 bytes");
	T_OK(s.timeline_bytes == 8 << 20 && s.origin_ns == 0,
	     "defaults: an 8 MiB timeline, origin unknown");
	settings_set(&s, "PMCPROF_TIMELINE_BYTES", NULL, "0", msg, sizeof(msg));
	T_OK(s.timeline_bytes == 0, "a 0 timeline is none");
	settings_set(&s, "PMCPROF_EVENTS", NULL, "x@1;y@2", msg, sizeof(msg));
	T_OK(s.n_events == 2 && !strcmp(s.events[0], "x@1") && !strcmp(s.events[1], "y@2"),
	     "an event list splits at ';'");
	T_OK(settings_set(&s, "PMCPROF_SIGNAL", "--signal", "9", msg, sizeof(msg)) < 0 &&
	     !strncmp(msg, "--signal: ", 10), "a label replaces the variable name: '%s'", msg);
}

/* A 1 MiB value: refused with a message that shows only its start. */
static void test_huge_value(void)
{
	static const char *const names[] = { "PMCPROF_CALL_GRAPH", "PMCPROF_SIGNAL",
					     "PMCPROF_EVENTS", "PMCPROF_OUTDIR", "PMCPROF_SEED" };
	size_t n = 1 << 20;
	char *v = malloc(n + 1);
	struct rec_settings s;
	char msg[512];

	T_OK(v != NULL, "1 MiB buffer");
	if (!v)
		return;
	memset(v, '7', n);
	v[0] = '/';
	v[n] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int ret;

		settings_defaults(&s);
		msg[0] = '\0';
		ret = settings_set(&s, names[i], NULL, v, msg, sizeof(msg));
		T_OK(ret == -EINVAL && strlen(msg) < 200 && strstr(msg, "..."),
		     "%s = 1 MiB: %d '%s'", names[i], ret, msg);
	}
	free(v);
}

/* settings_export then settings_load through a little environment. */
struct env {
	char names[32][32];
	char values[32][8192];
	int n;
};

static int env_put(const char *name, const char *value, void *arg)
{
	struct env *e = arg;

	snprintf(e->names[e->n], sizeof(e->names[0]), "%s", name);
	snprintf(e->values[e->n], sizeof(e->values[0]), "%s", value);
	e->n++;
	return 0;
}

static const char *env_get(const char *name, void *arg)
{
	struct env *e = arg;

	for (int i = 0; i < e->n; i++)
		if (!strcmp(e->names[i], name))
			return e->values[i];
	return NULL;
}

static void test_round_trip(void)
{
	static struct env e;
	struct rec_settings a, b;
	char msg[256];

	settings_defaults(&a);
	strcpy(a.outdir, "/tmp/out dir");
	strcpy(a.backend, "cputimer");
	a.n_events = 2;
	strcpy(a.events[0], "CPUTIME@1000");
	strcpy(a.events[1], "REALTIME@500");
	a.n_requested = 1;
	strcpy(a.requested[0], "cycles@100000");
	strcpy(a.fallback, "no PMU; using CPUTIME");
	a.call_graph = UW_MODE_FP;
	a.signo = SIGRTMIN + 7;
	a.random_bits = 9;
	a.seed = 12345678901234567ull;
	a.private_files = true;
	a.cct_bytes = 1 << 20;
	T_OK(settings_export(&a, env_put, &e) == 0, "export");
	T_OK(settings_load(&b, env_get, &e, msg, sizeof(msg)) == 0, "load what was exported");
	/* Both start from settings_defaults (zeroed), so bytes compare. */
	T_OK(memcmp(&a, &b, sizeof(a)) == 0, "every setting survives the round trip");
	e.n = 0;
	T_OK(settings_load(&b, env_get, &e, msg, sizeof(msg)) == -EINVAL &&
	     strstr(msg, "PMCPROF_OUTDIR is not set"), "a missing required setting: '%s'", msg);
}

int main(void)
{
	test_parsers();
	test_values();
	test_huge_value();
	test_round_trip();
	return T_DONE();
}

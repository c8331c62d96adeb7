/* Golden tables for the analyzer's pure parts: ratio statistics (values
 * computed independently in Python from the formulas of docs/analyzer.md)
 * and the metric expression language.  Each case names its line. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/query.h"
#include "analyzer/read.h"
#include "analyzer/symbolize.h"
#include "tests/harness.h"

static bool near(double x, double y)
{
	if (isinf(x) || isinf(y))
		return x == y;
	return fabs(x - y) <= 1e-9 * (fabs(y) > 1 ? fabs(y) : 1);
}

static const struct {
	int line;
	enum ana_ratio mode;
	double a, A, b, B;
	double ratio, lo, hi;
	bool sig;
	enum ana_presence pres;
} ratio_cases[] = {
	{ __LINE__, ANA_RATIO_SHARE, 150, 250, 100, 200, 1.2, 1.0107656199883037, 1.424662623582966, true, ANA_IN_BOTH },
	{ __LINE__, ANA_RATIO_SHARE, 100, 200, 100, 200, 1.0, 0.8220151951983892, 1.216522523964603, false, ANA_IN_BOTH },
	{ __LINE__, ANA_RATIO_SHARE, 3000, 10000, 2000, 10000, 1.5, 1.427808040555603, 1.5758420852739115, true, ANA_IN_BOTH },
	/* zero counts: Haldane's 0.5 inside the interval only */
	{ __LINE__, ANA_RATIO_SHARE, 0, 1000, 10, 1000, 0.0, 0.0029244843669964395, 0.8548515520250834, true, ANA_ONLY_BASE },
	{ __LINE__, ANA_RATIO_SHARE, 10, 1000, 0, 1000, INFINITY, 1.1697937467985757, 341.94062081003335, true, ANA_ONLY_RUN },
	{ __LINE__, ANA_RATIO_RAW, 150, 1000, 100, 1000, 1.5, 1.164666576624051, 1.9318833777491409, true, ANA_IN_BOTH },
	{ __LINE__, ANA_RATIO_RAW, 1500, 9000, 1000, 9000, 1.5, 1.384653480156142, 1.624955291880158, true, ANA_IN_BOTH },
	{ __LINE__, ANA_RATIO_DELTA, 300, 1000, 200, 1000, 10.0, 6.229934001032836, 13.77006599896716, true, ANA_IN_BOTH },
	{ __LINE__, ANA_RATIO_DELTA, 50, 1000, 50, 1000, 0.0, -1.9103365880544243, 1.9103365880544243, false, ANA_IN_BOTH },
	{ __LINE__, ANA_RATIO_SHARE, 0, 1000, 0, 1000, NAN, NAN, NAN, false, ANA_IN_NEITHER },
};

static void test_ratios(void)
{
	T_OK(near(z_for_conf(0.95), 1.9599639845400536), "z(0.95) = 1.95996");
	T_OK(near(z_for_conf(0.99), 2.5758293035489), "z(0.99) = 2.57583");
	for (size_t i = 0; i < sizeof(ratio_cases) / sizeof(*ratio_cases); i++) {
		const __typeof__(ratio_cases[0]) *c = &ratio_cases[i];
		struct ratio_in in = { .mode = c->mode, .a = c->a, .A = c->A, .b = c->b, .B = c->B,
				       .va = c->a, .vb = c->b, .vA = c->A, .vB = c->B, .conf = 0.95,
				       .na = 1, .nb = 1 };
		struct ana_cmp o;
		ratio_compute(&in, &o);
		bool ok = o.presence == c->pres && o.significant == c->sig;
		if (isnan(c->ratio))
			ok = ok && isnan(o.ratio) && isnan(o.lo) && isnan(o.hi);
		else
			ok = ok && near(o.ratio, c->ratio) && near(o.lo, c->lo) && near(o.hi, c->hi);
		T_OK(ok, "ratio case line %d: got %.17g [%.17g, %.17g] sig %d", c->line, o.ratio, o.lo,
		     o.hi, o.significant);
	}
}

/* With repeats: Student's t quantiles (tables), and an interval from the
 * repeats' own spread where it is wider than the counts' (docs/analyzer.md). */
static void test_repeats(void)
{
	T_OK(near(t_for_conf(0.95, 1), 12.706204736174698) || fabs(t_for_conf(0.95, 1) - 12.7062047) < 1e-6,
	     "t(0.95, 1) = 12.7062 (got %.10g)", t_for_conf(0.95, 1));
	T_OK(fabs(t_for_conf(0.95, 2) - 4.302652729749464) < 1e-7, "t(0.95, 2) = 4.30265 (got %.10g)",
	     t_for_conf(0.95, 2));
	T_OK(fabs(t_for_conf(0.95, 10) - 2.2281388519862744) < 1e-7, "t(0.95, 10) = 2.22814 (got %.10g)",
	     t_for_conf(0.95, 10));
	T_OK(fabs(t_two_sided_p(2.2281388519862744, 10) - 0.05) < 1e-7, "p(t=2.228, 10) = 0.05");
	/* run: shares 0.30, 0.36, 0.24 in 3 repeats (1000 samples each); base:
	 * 0.20 each.  var(log mean) = var / (n mean^2) = 0.0036 / 0.27, df 2 */
	const double ra[] = { 0.30, 0.36, 0.24 }, rb[] = { 0.20, 0.20, 0.20 };
	struct ratio_in in = { ANA_RATIO_SHARE, 900, 3000, 600, 3000, 900, 600, 3000, 3000, 0.95, 3, 3,
			       ra, rb, 3, 3, 0, 0 };
	struct ana_cmp o;
	ratio_compute(&in, &o);
	T_OK(near(o.ratio, 1.5) && fabs(o.lo - 0.912686861976484) < 1e-7 &&
		     fabs(o.hi - 2.4652485904393053) < 1e-7 && o.from_repeats && !o.significant &&
		     fabs(o.df - 2) < 1e-9,
	     "line %d: repeats' t interval: got %.17g [%.17g, %.17g] df %g from_repeats %d sig %d",
	     __LINE__, o.ratio, o.lo, o.hi, o.df, o.from_repeats, o.significant);
	/* repeats that agree better than the counts: the count interval stays */
	const double ca[] = { 0.30, 0.30, 0.30 };
	in.ra = ca;
	ratio_compute(&in, &o);
	T_OK(!o.from_repeats && o.significant && o.lo > 1.35,
	     "line %d: never narrower than the count interval: [%g, %g] from_repeats %d", __LINE__,
	     o.lo, o.hi, o.from_repeats);
	/* raw counts of a run that lost half its samples: corrected, and the
	 * uncorrected ratio kept */
	struct ratio_in raw = { ANA_RATIO_RAW, 500, 1000, 1000, 2000, 500, 1000, 1000, 2000, 0.95, 1, 1,
				NULL, NULL, 0, 0, 2.0, 1.0 };
	ratio_compute(&raw, &o);
	T_OK(near(o.ratio, 1.0) && near(o.uncorrected, 0.5) && !o.significant,
	     "line %d: loss-corrected raw ratio %g (uncorrected %g)", __LINE__, o.ratio, o.uncorrected);
}

static const char *const cols[] = { "perf::CYCLES", "perf::INSTRUCTIONS", "cpu-clock", "cpu" };

static int lookup(void *ctx, const char *name)
{
	(void)ctx;
	for (int i = 0; i < 4; i++)
		if (!strcmp(cols[i], name))
			return i;
	return -1;
}

static const struct {
	int line;
	const char *spec;
	double want;		/* NAN: division by zero expected */
	const char *err;	/* substring of the message, or NULL */
} metric_cases[] = {
	{ __LINE__, "CPI=perf::CYCLES/perf::INSTRUCTIONS", 2.5, NULL },
	{ __LINE__, "X=1+2*3", 7, NULL },
	{ __LINE__, "X=(1+2)*3", 9, NULL },
	{ __LINE__, "X=10-4-3", 3, NULL },
	{ __LINE__, "X=24/4/2*3-1+2", 10, NULL },	/* left to right on each level */
	{ __LINE__, "X=-perf::CYCLES + 1000", 0, NULL },
	{ __LINE__, "X=cpu-clock", 4, NULL },
	{ __LINE__, "X=cpu-clock-cpu", 3, NULL },	/* longest name, then minus */
	{ __LINE__, "X = 2 * ( cpu + 1 ) ", 4, NULL },
	{ __LINE__, "X=1.5e3/perf::CYCLES", 1.5, NULL },
	{ __LINE__, "X=perf::CYCLES/(cpu-1)", NAN, NULL },
	{ __LINE__, "X=1/0", NAN, NULL },
	{ __LINE__, "X=foo/2", 0, "unknown event 'foo'" },
	{ __LINE__, "X=(1+2", 0, "expected ')'" },
	{ __LINE__, "X=1+", 0, "unexpected end" },
	{ __LINE__, "X=1 2", 0, "unexpected '2'" },
	{ __LINE__, "noequals", 0, "expected NAME=EXPR" },
	{ __LINE__, "=1", 0, "expected NAME=EXPR" },
};

static void test_metrics(void)
{
	const double v[] = { 1000, 400, 4, 1 };
	for (size_t i = 0; i < sizeof(metric_cases) / sizeof(*metric_cases); i++) {
		const __typeof__(metric_cases[0]) *c = &metric_cases[i];
		char msg[200] = "";
		struct metric *m = metric_parse(c->spec, lookup, NULL, msg, sizeof(msg));
		if (c->err) {
			T_OK(!m && strstr(msg, c->err), "metric line %d: error '%s' (got '%s')", c->line,
			     c->err, msg);
		} else {
			double x = m ? metric_eval(m, v) : -12345;
			T_OK(m && (isnan(c->want) ? isnan(x) : near(x, c->want)),
			     "metric line %d: %s = %g (got %g, msg '%s')", c->line, c->spec, c->want, x, msg);
		}
		metric_free(m);
	}
	/* nesting is bounded, not a stack overflow */
	char deep[400];
	memset(deep, '(', sizeof(deep));
	memcpy(deep, "X=", 2);
	deep[sizeof(deep) - 1] = 0;
	char msg[200];
	struct metric *m = metric_parse(deep, lookup, NULL, msg, sizeof(msg));
	T_OK(!m && strstr(msg, "nested too deeply"), "deep nesting rejected: %s", msg);
	metric_free(m);
}

/* The `calibration` metadata as record writes it (cli/record.c):
 * "EVENT=VERDICT (why)" joined by "; ", or "not needed (why)". */
static const struct {
	int line;
	const char *value;
	const char *want;	/* entries as "event|verdict|why" joined by "/" */
} calib_cases[] = {
	{ __LINE__, "not needed (no hardware events)", "|not needed|no hardware events" },
	{ __LINE__, "perf::CYCLES=valid (counted 40000000, expected 10000000..2020000000)",
	  "perf::CYCLES|valid|counted 40000000, expected 10000000..2020000000" },
	{ __LINE__, "perf::INSTRUCTIONS=zero (counted 0); perf::CYCLES=implausible (counted 9)",
	  "perf::INSTRUCTIONS|zero|counted 0/perf::CYCLES|implausible|counted 9" },
	/* a reason with ';' and parentheses of its own */
	{ __LINE__, "perf::CYCLES=unsupported (cannot be opened: no PMU (KVM); ask for one); perf::BRANCHES=valid (ok)",
	  "perf::CYCLES|unsupported|cannot be opened: no PMU (KVM); ask for one/perf::BRANCHES|valid|ok" },
	{ __LINE__, "perf::CYCLES=unverified", "perf::CYCLES|unverified|" },
	{ __LINE__, "", "" },
};

static void test_calibration(void)
{
	for (size_t i = 0; i < sizeof(calib_cases) / sizeof(*calib_cases); i++) {
		char got[1024] = "";
		size_t n = 0;
		struct calib_verdict v;
		for (const char *p = calib_cases[i].value; calib_next(&p, &v) && n < sizeof(got);)
			n += (size_t)snprintf(got + n, sizeof(got) - n, "%s%s|%s|%s", n ? "/" : "",
					      v.event, v.verdict, v.why);
		T_OK(!strcmp(got, calib_cases[i].want), "calibration line %d: '%s' (got '%s')",
		     calib_cases[i].line, calib_cases[i].want, got);
	}
}

/* Names as perf shows them (libiberty, no parameter lists), and the short
 * name --short-names shows. */
static const struct {
	int line;
	const char *sym, *shown, *short_name;
} name_cases[] = {
	{ __LINE__, "_ZN2ns5AccumIdLi300EE3runEm", "ns::Accum<double, 300>::run", "run" },
	{ __LINE__, "_ZN2ns5AccumIlLi300EE3runEm", "ns::Accum<long, 300>::run", "run" },
	{ __LINE__, "_ZN12_GLOBAL__N_18map_workEm", "(anonymous namespace)::map_work", "map_work" },
	{ __LINE__, "_ZNK2ns6WidgetclEm", "ns::Widget::operator()", "operator()" },
	{ __LINE__, "_ZZ4mainENKUlmE_clEm", "main::{lambda(unsigned long)#1}::operator()", "operator()" },
	{ __LINE__, "_ZN2nsltERKNS_1AES2_", "ns::operator<", "operator<" },
	{ __LINE__, "_ZN2ns1AlsEi", "ns::A::operator<<", "operator<<" },
	{ __LINE__, "_ZN2ns5AccumIdLi300EE3runEm.isra.0", "ns::Accum<double, 300>::run", "run" },
	{ __LINE__, "_ZN8names_rs1r5hashy17h0123456789abcdefE", "names_rs::r::hashy", "hashy" },
	{ __LINE__, "_RNvNtCs1234_8names_rs1r5hashy", "names_rs::r::hashy", "hashy" },
	{ __LINE__, "main", "main", "main" },
	{ __LINE__, "_Zbogus", "_Zbogus", "_Zbogus" },
	{ __LINE__, "JS:*hotLoop /tmp/x.js:1", "JS:*hotLoop /tmp/x.js:1", "JS:*hotLoop /tmp/x.js:1" },
};

static void test_names(void)
{
	struct strpool sp = { 0 };
	for (size_t i = 0; i < sizeof(name_cases) / sizeof(*name_cases); i++) {
		const char *d = sym_demangle(&sp, name_cases[i].sym);
		const char *sh = d ? sym_short_name(&sp, d) : NULL;
		T_OK(d && sh && !strcmp(d, name_cases[i].shown) && !strcmp(sh, name_cases[i].short_name),
		     "name line %d: %s -> '%s' / '%s' (got '%s' / '%s')", name_cases[i].line,
		     name_cases[i].sym, name_cases[i].shown, name_cases[i].short_name, d ? d : "(null)",
		     sh ? sh : "(null)");
	}
	strpool_free(&sp);
}

/* ---- kernel symbols and their cache (kallsyms.c) ---- */

static bool put_file(const char *path, const void *b, size_t n)
{
	FILE *f = fopen(path, "w");
	bool ok = f && fwrite(b, 1, n, f) == n;
	return f ? !fclose(f) && ok : false;
}

static size_t get_file(const char *path, char *b, size_t max)
{
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(b, 1, max, f) : 0;
	if (f)
		fclose(f);
	return n;
}

/* Two versions of one kallsyms, the same size: aliases (the last listed
 * names the address), data and hidden (0) addresses skipped, a weak
 * symbol out of order, a module's function. */
static const char ksyms_v1[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000100 t alpha\n"
	"ffffffff81000100 t alpha_alias\n"
	"ffffffff81000300 d some_data\n"
	"ffffffff81000200 W beta\n"
	"ffffffff81000400 T gamma\t[mymod]\n"
	"0000000000000000 T hidden\n";
static const char ksyms_v2[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000100 t ALPHA\n"
	"ffffffff81000100 t ALPHA_ALIAS\n"
	"ffffffff81000300 d some_data\n"
	"ffffffff81000200 W BETA\n"
	"ffffffff81000400 T GAMMA\t[mymod]\n"
	"0000000000000000 T hidden\n";

static const struct {
	int line;
	uint64_t addr;
	const char *v1, *v2;	/* its name in each version */
} ksym_cases[] = {
	{ __LINE__, 0xffffffff81000150, "[k] alpha_alias", "[k] ALPHA_ALIAS" },
	{ __LINE__, 0xffffffff81000100, "[k] alpha_alias", "[k] ALPHA_ALIAS" },
	{ __LINE__, 0xffffffff81000250, "[k] beta", "[k] BETA" },
	{ __LINE__, 0xffffffff81000300, "[k] beta", "[k] BETA" },
	{ __LINE__, 0xffffffff81000410, "[k] gamma [mymod]", "[k] GAMMA [mymod]" },
	{ __LINE__, 0xffffffff81000000, "[k] _text", "[k] _text" },
	{ __LINE__, 0xffffffff80000000, "[k] 0xffffffff80000000", "[k] 0xffffffff80000000" },
	{ __LINE__, 0xffffffff91000000, "[k] 0xffffffff91000000", "[k] 0xffffffff91000000" },
	{ __LINE__, 0xffff800000000000, "[kernel]", "[kernel]" },
};

/* Whether every case is named as in v1 (or v2). */
static bool ksyms_named(const char *kpath, const char *notes, const char *cache, bool v2,
			int *bad_line)
{
	static const uint8_t bid[20] = "AAAAAAAAAAAAAAAAAAAA";
	struct strpool sp = { 0 };
	char msg[512];
	enum ana_severity sev;
	struct kallsyms *ks = kallsyms_load(kpath, notes, bid, sizeof(bid), cache, msg,
					    sizeof(msg), &sev);
	bool ok = ks != NULL;
	*bad_line = 0;
	for (size_t i = 0; ok && i < sizeof(ksym_cases) / sizeof(*ksym_cases); i++) {
		struct sym_frame fr;
		const char *want = v2 ? ksym_cases[i].v2 : ksym_cases[i].v1;
		ok = kallsyms_lookup(ks, &sp, ksym_cases[i].addr - 0xffff800000000000ULL, &fr, 1) == 1 &&
		     !strcmp(fr.func, want) && fr.key == fr.func;
		if (!ok)
			*bad_line = ksym_cases[i].line;
	}
	kallsyms_free(ks);
	strpool_free(&sp);
	return ok;
}

static int n_ksym_files(const char *dir, char *name, size_t len)
{
	DIR *d = opendir(dir);
	int n = 0;
	for (struct dirent *de; d && (de = readdir(d));)
		if (!strncmp(de->d_name, "kallsyms-", 9)) {
			n++;
			snprintf(name, len, "%s/%s", dir, de->d_name);
		}
	if (d)
		closedir(d);
	return n;
}

/* Damage to a valid cache file, one row of a table. */
struct damage {
	int line;
	const char *what;
	long at;		/* byte to set, from the end if negative */
	int val;		/* -1: truncate there instead */
};

/* The damage every cache file must survive, to its length and to the
 * start of its header (magic 16 bytes, byte order 4 at 16); mid: a byte
 * inside the rest of the header.  The rows name the line that uses it. */
#define HEADER_DAMAGE(mid)                                  \
	{ __LINE__, "empty file", 0, -1 },                  \
	{ __LINE__, "truncated by one byte", -1, -1 },      \
	{ __LINE__, "truncated header", (mid), -1 },        \
	{ __LINE__, "bad magic", 0, 'X' },                  \
	{ __LINE__, "another byte order", 16, 9 }

/* good[n] with d done to it into bad; returns bad's length, *same when
 * the byte already had that value (the case would prove nothing). */
static size_t damaged(const struct damage *d, const char *good, size_t n, char *bad, bool *same)
{
	long at = d->at < 0 ? (long)n + d->at : d->at;
	memcpy(bad, good, n);
	if (d->val >= 0)
		bad[at] = (char)d->val;
	*same = d->val >= 0 && !memcmp(bad, good, n);
	return d->val < 0 ? (size_t)at : n;
}

/* Damage done to a valid kallsyms table (56-byte header: magic 16, endian
 * 4, pad 4, key 16, n 8 at 40, names_len 8 at 48; then 5 addresses, 5 name
 * offsets, the names). */
static const struct damage ksym_damage[] = {
	HEADER_DAMAGE(30),
	{ __LINE__, "another key", 24, 0x55 },
	{ __LINE__, "huge symbol count", 47, 0x7f },
	{ __LINE__, "names length off", 48, 3 },
	{ __LINE__, "addresses out of order", 56 + 8 + 1, 0xff },
	{ __LINE__, "name offset past the names", 56 + 5 * 8 + 2, 0x40 },
	{ __LINE__, "names not NUL-terminated", -1, 'x' },
};

static void test_kallsyms(void)
{
	char dir[] = "/tmp/pmcprof-test-ksyms.XXXXXX", kpath[64], notes[64], cache[80], file[400];
	static const char note[] = "\004\000\000\000\024\000\000\000\003\000\000\000GNU\000"
				   "AAAAAAAAAAAAAAAAAAAA";
	struct stat sb;
	int line;
	if (!mkdtemp(dir)) {
		T_OK(false, "kallsyms: mkdtemp");
		return;
	}
	snprintf(kpath, sizeof(kpath), "%s/kallsyms", dir);
	snprintf(notes, sizeof(notes), "%s/notes", dir);
	snprintf(cache, sizeof(cache), "%s/cache/symbols", dir);
	T_OK(put_file(kpath, ksyms_v1, sizeof(ksyms_v1) - 1) && put_file(notes, note, sizeof(note) - 1) &&
	     !stat(kpath, &sb), "kallsyms: test files written");
	T_OK(ksyms_named(kpath, notes, NULL, false, &line), "kallsyms without a cache: case line %d", line);
	T_OK(n_ksym_files(cache, file, sizeof(file)) == 0, "kallsyms: no cache dir, no cache file");
	T_OK(ksyms_named(kpath, notes, cache, false, &line), "kallsyms, cold cache: case line %d", line);
	T_OK(n_ksym_files(cache, file, sizeof(file)) == 1, "kallsyms: cold load leaves one table");
	/* the same file (inode, size, time) with other contents: only the
	 * cache can still say the old names */
	struct timespec ts[2] = { sb.st_atim, sb.st_mtim };
	int fd = open(kpath, O_WRONLY);
	bool same = fd >= 0 && pwrite(fd, ksyms_v2, sizeof(ksyms_v2) - 1, 0) == sizeof(ksyms_v2) - 1;
	if (fd >= 0)
		close(fd);
	T_OK(same && !utimensat(AT_FDCWD, kpath, ts, 0), "kallsyms: rewritten in place");
	T_OK(ksyms_named(kpath, notes, cache, false, &line), "kallsyms, warm cache: served from it "
	     "(case line %d)", line);
	char good[65536];
	size_t n = get_file(file, good, sizeof(good));
	for (size_t i = 0; i < sizeof(ksym_damage) / sizeof(*ksym_damage); i++) {
		char bad[65536];
		bool nop;
		size_t bn = damaged(&ksym_damage[i], good, n, bad, &nop);
		T_OK(!nop && put_file(file, bad, bn) && ksyms_named(kpath, notes, cache, true, &line) &&
		     n_ksym_files(cache, file, sizeof(file)) == 1 && get_file(file, bad, sizeof(bad)) == n,
		     "kallsyms cache, %s (line %d): ignored, rebuilt from kallsyms (case line %d)",
		     ksym_damage[i].what, ksym_damage[i].line, line);
		put_file(file, good, n);
	}
	/* another kallsyms file (another key): its own table, the old one goes */
	put_file(kpath, ksyms_v1, sizeof(ksyms_v1) - 1);
	T_OK(ksyms_named(kpath, notes, cache, false, &line) &&
	     n_ksym_files(cache, file, sizeof(file)) == 1,
	     "kallsyms changed: a new table replaces the old (case line %d)", line);
	char cmd[200];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	T_OK(system(cmd) == 0, "kallsyms: cleaned up");
}

/* ---- the symbol cache (symcache.c) ---- */

/* Damage done to a valid file of three answers (0x10: two frames, 0x20:
 * none, 0x30: one): header 56 bytes (magic 16, endian 4, version 4, counts
 * 8 each at 24 32 40 48), answers 16 bytes each at 56 (off 8, first 4,
 * n 4), frames 24 bytes each at 104 (key func file decl_file line
 * decl_line), string offsets at 176, then the strings. */
static const struct damage sc_damage[] = {
	HEADER_DAMAGE(40),
	{ __LINE__, "another version", 20, 2 },
	{ __LINE__, "huge answer count", 31, 0x7f },
	{ __LINE__, "frame count off", 32, 4 },
	{ __LINE__, "answers out of order", 56 + 16, 0x05 },
	{ __LINE__, "first frame past the table", 56 + 8, 200 },
	{ __LINE__, "frames past the table", 56 + 12, 9 },
	{ __LINE__, "frame without a key", 104, 0 },
	{ __LINE__, "function name past the strings", 108, 200 },
	{ __LINE__, "file name past the strings", 112, 200 },
	{ __LINE__, "string offset past the strings", 177, 0x7f },
	{ __LINE__, "strings not NUL-terminated", -1, 'x' },
};

static bool frames_eq(const struct sym_frame *a, const struct sym_frame *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].key != b[i].key || a[i].func != b[i].func || a[i].file != b[i].file ||
		    a[i].line != b[i].line || a[i].decl_file != b[i].decl_file ||
		    a[i].decl_line != b[i].decl_line)
			return false;
	return true;
}

static void test_symcache(void)
{
	static const uint8_t bid[4] = { 0xde, 0xad, 0xbe, 0xef };
	char dir[] = "/tmp/pmcprof-test-symcache.XXXXXX", file[128];
	struct strpool sp = { 0 };
	if (!mkdtemp(dir)) {
		T_OK(false, "symcache: mkdtemp");
		return;
	}
	snprintf(file, sizeof(file), "%s/deadbeef.sym", dir);
	const struct sym_frame two[2] = {
		{ strpool_str(&sp, "_Z3hotv"), strpool_str(&sp, "hot()"), strpool_str(&sp, "a.c"), 7,
		  strpool_str(&sp, "a.h"), 3 },
		{ strpool_str(&sp, "main"), strpool_str(&sp, "main"), strpool_str(&sp, "a.c"), 20,
		  strpool_str(&sp, "a.c"), 15 },
	};
	const struct sym_frame one = { strpool_str(&sp, "f"), strpool_str(&sp, "f"), NULL, 0, NULL, 0 };
	struct symcache *c = symcache_new(bid, sizeof(bid), "sym");
	T_OK(c && !symcache_put(c, 0x30, &one, 1) && !symcache_put(c, 0x10, two, 2) &&
	     !symcache_put(c, 0x20, NULL, 0) && !symcache_save(c, &sp, dir),
	     "symcache: three answers written");
	symcache_free(c);
	struct sym_frame fr[8];
	size_t n = 99;
	c = symcache_open(dir, bid, sizeof(bid), "sym");
	T_OK(c && symcache_get(c, &sp, 0x10, fr, 8, &n) && n == 2 && frames_eq(fr, two, 2),
	     "symcache: an inlined chain read back, innermost first");
	T_OK(c && symcache_get(c, &sp, 0x30, fr, 8, &n) && n == 1 && frames_eq(fr, &one, 1),
	     "symcache: a frame without source read back");
	T_OK(c && symcache_get(c, &sp, 0x20, fr, 8, &n) && n == 0, "symcache: 'nothing here' kept");
	T_OK(c && !symcache_get(c, &sp, 0x40, fr, 8, &n), "symcache: an address not cached");
	T_OK(c && symcache_get(c, &sp, 0x10, fr, 1, &n) && n == 1 && frames_eq(fr, two, 1),
	     "symcache: at most max frames");
	/* a new answer joins the file's: the next open has all four */
	T_OK(c && !symcache_put(c, 0x40, &one, 1) && !symcache_save(c, &sp, dir),
	     "symcache: one more answer saved");
	symcache_free(c);
	c = symcache_open(dir, bid, sizeof(bid), "sym");
	T_OK(c && symcache_get(c, &sp, 0x40, fr, 8, &n) && n == 1 && frames_eq(fr, &one, 1) &&
	     symcache_get(c, &sp, 0x10, fr, 8, &n) && n == 2 && frames_eq(fr, two, 2),
	     "symcache: old and new answers in the rewritten file");
	symcache_free(c);
	T_OK(!symcache_open(dir, bid, sizeof(bid), "elfsym"), "symcache: kinds are apart");
	/* a profile's kept answers: the directory's mode and umask, not 0600 */
	{
		char kdir[300], kfile[400];
		struct stat sb;
		mode_t um = umask(022);
		snprintf(kdir, sizeof(kdir), "%s/kept/symbols", dir);
		snprintf(kfile, sizeof(kfile), "%s/deadbeef.sym", kdir);
		c = symcache_new(bid, sizeof(bid), "sym");
		T_OK(c && !symcache_put(c, 0x10, two, 2) && symcache_count(c) == 1 &&
		     !symcache_save_mode(c, &sp, kdir, 0666, 0777) && !stat(kfile, &sb) &&
		     (sb.st_mode & 0777) == 0644 && !stat(kdir, &sb) && (sb.st_mode & 0777) == 0755,
		     "symcache: kept answers written 0644 in a 0755 directory (umask 022)");
		symcache_free(c);
		umask(um);
		c = symcache_open(kdir, bid, sizeof(bid), "sym");
		T_OK(c && symcache_count(c) == 1 && symcache_get(c, &sp, 0x10, fr, 8, &n) && n == 2,
		     "symcache: kept answers read back");
		symcache_free(c);
		unlink(kfile);
		rmdir(kdir);
		snprintf(kdir, sizeof(kdir), "%s/kept", dir);
		rmdir(kdir);
	}
	/* back to the three-answer file the damage table describes */
	c = symcache_new(bid, sizeof(bid), "sym");
	if (c && !symcache_put(c, 0x30, &one, 1) && !symcache_put(c, 0x10, two, 2) &&
	    !symcache_put(c, 0x20, NULL, 0))
		symcache_save(c, &sp, dir);
	symcache_free(c);
	char good[4096], bad[4096];
	size_t len = get_file(file, good, sizeof(good));
	c = symcache_open(dir, bid, sizeof(bid), "sym");
	T_OK(len > 176 && c, "symcache: the undamaged file opens (%zu bytes)", len);
	symcache_free(c);
	for (size_t i = 0; i < sizeof(sc_damage) / sizeof(*sc_damage); i++) {
		bool same;
		put_file(file, bad, damaged(&sc_damage[i], good, len, bad, &same));
		c = symcache_open(dir, bid, sizeof(bid), "sym");
		T_OK(!same && !c, "symcache, %s (line %d): not used", sc_damage[i].what,
		     sc_damage[i].line);
		symcache_free(c);
	}
	char cmd[200];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	T_OK(system(cmd) == 0, "symcache: cleaned up");
	strpool_free(&sp);
}

/* --time: perf's syntax, each case naming its line. */
static void test_time_parse(void)
{
	static const struct {
		int line;
		const char *spec;
		int n;			/* ranges, or -EINVAL */
		double start, end;	/* of the last range */
		bool pct;
	} cases[] = {
		{ __LINE__, "1.5,2.5", 1, 1.5, 2.5, false },
		{ __LINE__, "2,", 1, 2, INFINITY, false },
		{ __LINE__, ",3", 1, 0, 3, false },
		{ __LINE__, "0,0", 1, 0, 0, false },
		{ __LINE__, "10%/2", 1, 10, 20, true },
		{ __LINE__, "30%/4", 1, 90, 100, true },	/* the last slice stops at 100% */
		{ __LINE__, "10%/1,10%/3", 2, 20, 30, true },
		{ __LINE__, "0%-25%", 1, 0, 25, true },
		{ __LINE__, "10%/2,50%-60%", 2, 50, 60, true },
		{ __LINE__, "2,1", -EINVAL, 0, 0, false },
		{ __LINE__, "1", -EINVAL, 0, 0, false },
		{ __LINE__, "1,2,3", -EINVAL, 0, 0, false },
		{ __LINE__, "-1,2", -EINVAL, 0, 0, false },
		{ __LINE__, "a,b", -EINVAL, 0, 0, false },
		{ __LINE__, "10%/11", -EINVAL, 0, 0, false },
		{ __LINE__, "10%/0", -EINVAL, 0, 0, false },
		{ __LINE__, "10%/1.5", -EINVAL, 0, 0, false },
		{ __LINE__, "0%/1", -EINVAL, 0, 0, false },
		{ __LINE__, "20%-10%", -EINVAL, 0, 0, false },
		{ __LINE__, "0%-101%", -EINVAL, 0, 0, false },
		{ __LINE__, "5%", -EINVAL, 0, 0, false },
		{ __LINE__, "", -EINVAL, 0, 0, false },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct ana_time_range r[4];
		char msg[256] = "";
		int n = ana_time_parse(cases[k].spec, r, 4, msg, sizeof(msg));
		bool ok = n == cases[k].n;
		if (ok && n > 0)
			ok = r[n - 1].start == cases[k].start && r[n - 1].end == cases[k].end &&
			     r[n - 1].pct == cases[k].pct;
		if (ok && n < 0)
			ok = strstr(msg, "--time") != NULL;
		T_OK(ok, "line %d: --time '%s' -> %d%s%s", cases[k].line, cases[k].spec, n,
		     n < 0 ? ": " : "", n < 0 ? msg : "");
	}
}

int main(void)
{
	test_ratios();
	test_repeats();
	test_metrics();
	test_calibration();
	test_names();
	test_kallsyms();
	test_symcache();
	test_time_parse();
	return T_DONE();
}

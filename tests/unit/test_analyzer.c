/* Golden tables for the analyzer's pure parts: ratio statistics (values
 * computed independently in Python from the formulas of docs/analyzer.md)
 * and the metric expression language.  Each case names its line. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyzer/internal.h"
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
		struct ratio_in in = { c->mode, c->a, c->A, c->b, c->B, c->a, c->b, c->A, c->B, 0.95, 1, 1 };
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

int main(void)
{
	test_ratios();
	test_metrics();
	test_calibration();
	test_names();
	return T_DONE();
}

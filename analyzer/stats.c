/* Ratios between a run and its base with confidence intervals from the
 * sample counts and, with repeats, from the repeats' own spread.  docs/analyzer.md states these formulas; the unit test
 * checks them against hand-computed values. */
#include "config.h"

#include <math.h>

#include "analyzer/query.h"

/* Two-sided normal quantile: z with P(|Z| <= z) = conf, by bisection on
 * erfc (exact enough and dependency-free).  Every compared row asks for
 * the same level, so the last answer is kept (per thread: the library is
 * used from a viewer's worker thread too). */
double z_for_conf(double conf)
{
	static __thread double last_conf = -1, last_z;

	if (!(conf > 0 && conf < 1))
		conf = 0.95;
	if (conf == last_conf)
		return last_z;
	double lo = 0, hi = 40;
	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;
		if (erfc(mid / M_SQRT2) > 1 - conf)
			lo = mid;
		else
			hi = mid;
	}
	last_conf = conf;
	return last_z = (lo + hi) / 2;
}

/* Regularized incomplete beta I_x(a, b) by its continued fraction
 * (Lentz), for Student's t below. */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1);
	d = fabs(d) < tiny ? tiny : d;
	d = 1 / d;
	double h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2 * m, aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + aa * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + aa * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1 / d;
		double del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-12)
			break;
	}
	return h;
}

static double ibeta(double a, double b, double x)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
	if (x < (a + 1) / (a + b + 2))
		return exp(lbt) * beta_cf(a, b, x) / a;
	return 1 - exp(lbt) * beta_cf(b, a, 1 - x) / b;
}

double t_two_sided_p(double t, double df)
{
	if (isnan(t))
		return 1;
	if (!(df > 0) || df > 1e6)
		return erfc(fabs(t) / M_SQRT2);
	return ibeta(df / 2, 0.5, df / (df + t * t));
}

double t_for_conf(double conf, double df)
{
	if (!(conf > 0 && conf < 1))
		conf = 0.95;
	if (!(df > 0) || df > 1e6)
		return z_for_conf(conf);
	double lo = 0, hi = 1e4;
	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;
		if (t_two_sided_p(mid, df) > 1 - conf)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* Mean and variance of x[0..n) (n - 1 in the variance). */
static void mean_var(const double *x, size_t n, double *mean, double *var)
{
	double s = 0, q = 0;
	for (size_t i = 0; i < n; i++)
		s += x[i];
	*mean = n ? s / (double)n : NAN;
	for (size_t i = 0; i < n; i++)
		q += (x[i] - *mean) * (x[i] - *mean);
	*var = n > 1 ? q / (double)(n - 1) : NAN;
}

/* The repeats' own variance of log(mean) (or of the mean, delta), one
 * side: NAN when it has fewer than 2 repeats or a zero mean. */
static double side_var(const double *x, size_t n, bool log_scale, size_t *dof)
{
	double m, v;
	*dof = 0;
	if (n < 2)
		return NAN;
	mean_var(x, n, &m, &v);
	if (log_scale && !(m > 0))
		return NAN;
	*dof = n - 1;
	return log_scale ? v / ((double)n * m * m) : v / (double)n;
}

/* With repeats: widen out's interval to the repeats' own spread where that
 * is wider (a t interval, Welch-Satterthwaite's degrees of freedom), and
 * take the larger p.  A side with one repeat keeps its count-based
 * variance (cv, known: no degrees of freedom of its own). */
static void repeat_interval(const struct ratio_in *in, double center, double cv_a, double cv_b,
			    bool log_scale, double h_count, struct ana_cmp *out)
{
	size_t da, db;
	double va = side_var(in->ra, in->nra, log_scale, &da);
	double vb = side_var(in->rb, in->nrb, log_scale, &db);
	if (isnan(va) && isnan(vb))
		return;
	double den = (isnan(va) ? 0 : va * va / (double)da) + (isnan(vb) ? 0 : vb * vb / (double)db);
	va = isnan(va) ? cv_a : va;
	vb = isnan(vb) ? cv_b : vb;
	double v = va + vb;
	if (!(v > 0))
		return;
	double df = den > 0 ? v * v / den : INFINITY;
	double h = t_for_conf(in->conf, df) * sqrt(v);
	double est = log_scale ? log(center) : center;
	double p = t_two_sided_p(est / sqrt(v), df);
	out->df = df;
	if (p > out->p)
		out->p = p;
	if (h <= h_count)
		return;
	out->from_repeats = true;
	if (log_scale) {
		out->lo = center * exp(-h);
		out->hi = center * exp(h);
	} else {
		out->lo = center - h;
		out->hi = center + h;
	}
}

/* A zero count has no log: use 0.5 (Haldane's correction) for the interval. */
static double nz(double x)
{
	return x > 0 ? x : 0.5;
}

/* A share or raw ratio and its interval on the log scale. */
static void ratio_log(const struct ratio_in *in, double z, struct ana_cmp *out)
{
	double a = in->a, b = in->b, A = in->A, B = in->B;
	double na = in->na >= 1 ? in->na : 1, nb = in->nb >= 1 ? in->nb : 1;
	double va = in->va, vb = in->vb;
	double r;
	double var;

	if (in->mode == ANA_RATIO_SHARE) {
		/* share ratio (a/A)/(b/B); a and b binomial in A and B:
		 * var(log r) = 1/a - 1/A + 1/b - 1/B */
		r = (va / in->vA) / (vb / in->vB);
		var = 1 / nz(a) - 1 / A + 1 / nz(b) - 1 / B;
	} else {
		/* raw ratio of the means per repeat, (a/na)/(b/nb); a and b
		 * Poisson sums, the repeat counts constants:
		 * var(log r) = 1/a + 1/b */
		r = (va / na) / (vb / nb);
		var = 1 / nz(a) + 1 / nz(b);
	}
	if (var < 0)
		var = 0;
	/* center the interval on the corrected estimate when a count is 0 */
	double rc = r;
	if (a <= 0 || b <= 0)
		rc = in->mode == ANA_RATIO_SHARE ? (nz(a) / A) / (nz(b) / B)
						 : (nz(a) / na) / (nz(b) / nb);
	/* raw counts stand for the CPU time each run had: a run that lost
	 * samples is scaled up by expected / sampled time (la, lb) */
	double loss = in->mode == ANA_RATIO_RAW && in->la > 0 && in->lb > 0 ? in->la / in->lb : 1;
	out->uncorrected = b > 0 ? r : INFINITY;
	r *= loss;
	rc *= loss;
	double h = z * sqrt(var);
	out->ratio = b > 0 ? r : INFINITY;
	out->lo = rc * exp(-h);
	out->hi = rc * exp(h);
	out->p = var > 0 ? erfc(fabs(log(rc)) / sqrt(var) / M_SQRT2) : rc == 1 ? 1 : 0;
	if (in->mode == ANA_RATIO_SHARE)
		repeat_interval(in, rc, 1 / nz(a) - 1 / A > 0 ? 1 / nz(a) - 1 / A : 0,
				1 / nz(b) - 1 / B > 0 ? 1 / nz(b) - 1 / B : 0, true, h, out);
	else
		repeat_interval(in, rc, 1 / nz(a), 1 / nz(b), true, h, out);
	out->significant = out->lo > 1 || out->hi < 1;
}

/* A difference of two binomial proportions, in percentage points. */
static void ratio_delta(const struct ratio_in *in, double z, struct ana_cmp *out)
{
	double A = in->A, B = in->B;
	double pa = in->va / in->vA, pb = in->vb / in->vB;
	double qa = in->a / A, qb = in->b / B;
	double se = sqrt(qa * (1 - qa) / A + qb * (1 - qb) / B);
	double d = 100 * (pa - pb);

	out->ratio = d;
	out->lo = d - 100 * z * se;
	out->hi = d + 100 * z * se;
	out->p = se > 0 ? erfc(fabs(pa - pb) / se / M_SQRT2) : d == 0 ? 1 : 0;
	/* per-repeat shares in percentage points */
	struct ratio_in pp = *in;
	double xa[in->nra ? in->nra : 1], xb[in->nrb ? in->nrb : 1];
	for (size_t i = 0; i < in->nra; i++)
		xa[i] = 100 * in->ra[i];
	for (size_t i = 0; i < in->nrb; i++)
		xb[i] = 100 * in->rb[i];
	pp.ra = xa;
	pp.rb = xb;
	repeat_interval(&pp, d, 1e4 * qa * (1 - qa) / A, 1e4 * qb * (1 - qb) / B, false,
			100 * z * se, out);
	out->significant = out->lo > 0 || out->hi < 0;
}

void ratio_compute(const struct ratio_in *in, struct ana_cmp *out)
{
	double a = in->a, b = in->b;

	out->presence = a > 0 ? (b > 0 ? ANA_IN_BOTH : ANA_ONLY_RUN)
			      : (b > 0 ? ANA_ONLY_BASE : ANA_IN_NEITHER);
	out->ratio = out->lo = out->hi = out->uncorrected = NAN;
	out->significant = out->from_repeats = false;
	out->p = 1;
	out->df = INFINITY;
	if (out->presence == ANA_IN_NEITHER || in->A <= 0 || in->B <= 0)
		return;
	if (in->mode == ANA_RATIO_DELTA)
		ratio_delta(in, z_for_conf(in->conf), out);
	else
		ratio_log(in, z_for_conf(in->conf), out);
}

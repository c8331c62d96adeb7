/* Ratios between a run and its base with confidence intervals from the
 * sample counts.  docs/analyzer.md states these formulas; the unit test
 * checks them against hand-computed values. */
#include "config.h"

#include <math.h>

#include "analyzer/internal.h"

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

/* A zero count has no log: use 0.5 (Haldane's correction) for the interval. */
static double nz(double x)
{
	return x > 0 ? x : 0.5;
}

void ratio_compute(const struct ratio_in *in, struct ana_cmp *out)
{
	double z = z_for_conf(in->conf);
	double a = in->a, b = in->b, A = in->A, B = in->B;
	double na = in->na >= 1 ? in->na : 1, nb = in->nb >= 1 ? in->nb : 1;

	out->presence = a > 0 ? (b > 0 ? ANA_IN_BOTH : ANA_ONLY_RUN)
			      : (b > 0 ? ANA_ONLY_BASE : ANA_IN_NEITHER);
	out->ratio = out->lo = out->hi = NAN;
	out->significant = false;
	if (out->presence == ANA_IN_NEITHER || A <= 0 || B <= 0)
		return;

	switch (in->mode) {
	case ANA_RATIO_SHARE:
	case ANA_RATIO_RAW: {
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
		double h = z * sqrt(var);
		out->ratio = b > 0 ? r : INFINITY;
		out->lo = rc * exp(-h);
		out->hi = rc * exp(h);
		out->significant = out->lo > 1 || out->hi < 1;
		break;
	}
	case ANA_RATIO_DELTA: {
		/* difference of two binomial proportions, in percentage points */
		double pa = in->va / in->vA, pb = in->vb / in->vB;
		double qa = a / A, qb = b / B;
		double se = sqrt(qa * (1 - qa) / A + qb * (1 - qb) / B);
		double d = 100 * (pa - pb);
		out->ratio = d;
		out->lo = d - 100 * z * se;
		out->hi = d + 100 * z * se;
		out->significant = out->lo > 0 || out->hi < 0;
		break;
	}
	}
}

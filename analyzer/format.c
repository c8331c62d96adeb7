/* Numbers as every front-end shows them (diff's table, the viewer): the
 * analyzer owns their formatting so the two never disagree. */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "analyzer/analyzer.h"

void ana_fmt_ratio(char *buf, size_t len, double x, enum ana_ratio mode)
{
	double a = fabs(x);

	if (isnan(x))
		snprintf(buf, len, "-");
	else if (isinf(x))
		snprintf(buf, len, x > 0 ? "inf" : "-inf");
	else if (mode == ANA_RATIO_DELTA)
		snprintf(buf, len, a < 9.95 ? "%+.1f" : "%+.0f", x);
	else
		snprintf(buf, len, a < 9.995 ? "%.2f" : a < 99.95 ? "%.1f" : "%.0f", x);
}

void ana_fmt_interval(char *buf, size_t len, const struct ana_cmp *c, enum ana_ratio mode)
{
	char lo[32], hi[32];

	if (isnan(c->lo) || isnan(c->hi)) {
		if (len)
			buf[0] = '\0';
		return;
	}
	ana_fmt_ratio(lo, sizeof(lo), c->lo, mode);
	ana_fmt_ratio(hi, sizeof(hi), c->hi, mode);
	snprintf(buf, len, "[%s,%s]", lo, hi);
}

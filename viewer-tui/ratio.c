/* Comparison cells: a run's ratio against the base as text (value,
 * interval, significance mark, presence) and the colour it earns. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "viewer-tui/view.h"

enum role cmp_role(const struct view_state *st, const struct ana_cmp *c)
{
	if (c->presence == ANA_ONLY_BASE || c->presence == ANA_ONLY_RUN)
		return ROLE_WARN;
	if (c->presence != ANA_IN_BOTH || isnan(c->ratio))
		return ROLE_NORMAL;
	if (st->ratio == ANA_RATIO_DELTA) {
		if (c->ratio >= st->delta_threshold)
			return ROLE_UP;
		if (c->ratio <= -st->delta_threshold)
			return ROLE_DOWN;
		return ROLE_NORMAL;
	}
	if (c->ratio >= st->threshold)
		return ROLE_UP;
	if (c->ratio <= 1 / st->threshold)
		return ROLE_DOWN;
	return ROLE_NORMAL;
}

void fmt_ratio(char *buf, size_t len, const struct ana_cmp *c, enum ana_ratio mode, int cols)
{
	char v[32], ci[80];
	/* ?: the interval excludes 1, but lines against an emulated run
	 * are not marked significant (ana_cmp.withheld) */
	const char *mark = c->significant ? "*" : c->withheld ? "?" : " ";

	switch (c->presence) {
	case ANA_ONLY_BASE:
		snprintf(buf, len, cols >= 9 ? "only base" : "base");
		return;
	case ANA_ONLY_RUN:
		snprintf(buf, len, cols >= 8 ? "only run" : "new");
		return;
	case ANA_IN_NEITHER:
		snprintf(buf, len, " ");
		return;
	case ANA_IN_BOTH:
		break;
	}
	ana_fmt_ratio(v, sizeof(v), c->ratio, mode);
	if (isnan(c->ratio)) {
		snprintf(buf, len, "- ");
		return;
	}
	ana_fmt_interval(ci, sizeof(ci), c, mode);
	/* The interval only when it fits: the ratio and mark matter most. */
	snprintf(buf, len, "%s %s%s", v, ci, mark);
	if ((int)strlen(buf) > cols || isnan(c->lo) || isnan(c->hi))
		snprintf(buf, len, "%s%s", v, mark);
}

/* Column layout: which columns fit a terminal width, and how wide each is,
 * by the columns' screen hints (analyzer/ana/table.h, struct ana_screen). */
#include "config.h"

#include "viewer-tui/view.h"

static int pref_of(const struct ana_col *c)
{
	return c->screen.pref > c->screen.min ? c->screen.pref : c->screen.min;
}

int layout_columns(const struct ana_col *c, size_t n, int width, int *x, int *w)
{
	int shown = 0, need = 0, spare, pos = 0;
	long flex = -1;

	if (width < 0)
		width = 0;
	for (size_t i = 0; i < n; i++) {
		w[i] = c[i].screen.min;
		x[i] = 0;
		need += c[i].screen.min;
		shown++;
	}
	/* Drop the least important column until the minimums fit. */
	while (shown > 1 && need + shown - 1 > width) {
		size_t drop = n;
		for (size_t i = 0; i < n; i++)
			if (w[i] && (drop == n || c[i].screen.keep <= c[drop].screen.keep))
				drop = i;
		need -= w[drop];
		w[drop] = 0;
		shown--;
	}
	if (shown == 0)
		return 0;
	if (need + shown - 1 > width) {	/* one column, and not even it fits */
		for (size_t i = 0; i < n; i++)
			if (w[i])
				w[i] = width;
		return width > 0 ? 1 : 0;
	}
	spare = width - need - (shown - 1);
	for (size_t i = 0; i < n; i++)
		if (w[i] && c[i].screen.fill && flex < 0)
			flex = (long)i;
	/* The name first (it is what people read), then the others by rank. */
	if (flex >= 0) {
		int give = pref_of(&c[flex]) - w[flex];
		give = give < spare ? give : spare;
		w[flex] += give;
		spare -= give;
	}
	while (spare > 0) {
		size_t best = n;
		for (size_t i = 0; i < n; i++)
			if (w[i] && (long)i != flex && w[i] < pref_of(&c[i]) &&
			    (best == n || c[i].screen.keep > c[best].screen.keep))
				best = i;
		if (best == n)
			break;
		int give = pref_of(&c[best]) - w[best];
		give = give < spare ? give : spare;
		w[best] += give;
		spare -= give;
	}
	if (flex >= 0)
		w[flex] += spare;
	for (size_t i = 0; i < n; i++) {
		if (!w[i])
			continue;
		x[i] = pos;
		pos += w[i] + 1;
	}
	return shown;
}

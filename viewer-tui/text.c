/* Text for the terminal: widths in columns, middle elision, numbers.
 * Pure functions; the locale decides how multibyte text is measured. */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <wchar.h>

#include "viewer-tui/view.h"

bool text_utf8;

/* One character of s: its length in bytes and its width in columns.
 * Invalid or unprintable bytes are one byte, one column (shown as '?'). */
static size_t char_next(const char *s, int *width, bool *bad)
{
	mbstate_t st;
	wchar_t wc;
	size_t n;

	memset(&st, 0, sizeof(st));
	n = mbrtowc(&wc, s, MB_CUR_MAX, &st);
	if (n == (size_t)-1 || n == (size_t)-2 || n == 0) {
		*width = 1;
		*bad = true;
		return 1;
	}
	int w = wcwidth(wc);
	*bad = w < 0;
	*width = w < 0 ? 1 : w;
	return n;
}

int text_width(const char *s)
{
	int w = 0, cw;
	bool bad;

	while (*s) {
		s += char_next(s, &cw, &bad);
		w += cw;
	}
	return w;
}

/* Append up to `cols` columns of s to buf (at *pos), replacing
 * unprintables with '?'.  Returns the columns appended. */
static int copy_cols(char *buf, size_t len, size_t *pos, const char *s, int cols)
{
	int used = 0, cw;
	bool bad;

	while (*s) {
		size_t n = char_next(s, &cw, &bad);
		if (used + cw > cols || *pos + n >= len)
			break;
		if (bad)
			buf[(*pos)++] = '?';
		else {
			memcpy(buf + *pos, s, n);
			*pos += n;
		}
		used += cw;
		s += n;
	}
	buf[*pos] = '\0';
	return used;
}

int text_head(char *buf, size_t len, const char *s, int cols)
{
	size_t pos = 0;

	if (len == 0)
		return 0;
	buf[0] = '\0';
	return s && cols > 0 ? copy_cols(buf, len, &pos, s, cols) : 0;
}

int text_elide(char *buf, size_t len, const char *s, int cols)
{
	const char *ell = text_utf8 ? "\u2026" : "~";
	size_t pos = 0;
	int total, cw, head, tail, skip;
	bool bad;

	if (len == 0)
		return 0;
	buf[0] = '\0';
	if (!s || cols <= 0)
		return 0;
	total = text_width(s);
	if (total <= cols)
		return copy_cols(buf, len, &pos, s, cols);
	/* Keep both ends: paths end in the file, C++ names in the function. */
	head = cols / 2;
	tail = cols - 1 - head;
	int w = copy_cols(buf, len, &pos, s, head);
	if (pos + strlen(ell) < len) {
		strcpy(buf + pos, ell);
		pos += strlen(ell);
		w++;
	}
	/* Skip to where the last `tail` columns begin. */
	skip = total - tail;
	while (*s && skip > 0) {
		s += char_next(s, &cw, &bad);
		skip -= cw;
	}
	return w + copy_cols(buf, len, &pos, s, tail);
}

void text_fit(char *buf, size_t len, const char *s, int cols, bool right)
{
	char tmp[1024];
	int w = text_elide(tmp, sizeof(tmp), s, cols);
	size_t pad = cols > w ? (size_t)(cols - w) : 0, n = strlen(tmp);

	if (len == 0)
		return;
	if (pad + n >= len)	/* cannot pad: the text alone */
		pad = n < len ? len - 1 - n : 0;
	if (n >= len)
		n = len - 1;
	if (right) {
		memset(buf, ' ', pad);
		memcpy(buf + pad, tmp, n);
	} else {
		memcpy(buf, tmp, n);
		memset(buf + n, ' ', pad);
	}
	buf[pad + n] = '\0';
}

const char *text_basename(const char *path)
{
	const char *slash;

	if (!path)
		return "";
	slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : path;
}

bool text_contains(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	if (!hay)
		return false;
	for (; *hay; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return true;
	return n == 0;
}

bool text_same(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

void fmt_count(char *buf, size_t len, double v, int cols)
{
	static const char suffix[] = "kMGTPE";
	double a = fabs(v);

	if (isnan(v)) {
		snprintf(buf, len, "-");
		return;
	}
	if (isinf(v)) {
		snprintf(buf, len, v > 0 ? "inf" : "-inf");
		return;
	}
	if (fabs(v - nearbyint(v)) > 1e-9 && a < 1e6)
		snprintf(buf, len, "%.2f", v);	/* a metric */
	else
		snprintf(buf, len, "%.0f", v);
	if ((int)strlen(buf) <= cols || a < 1000)
		return;
	/* Too wide: three significant digits and an SI suffix. */
	for (size_t i = 0; i < sizeof(suffix) - 1; i++) {
		a /= 1000;
		if (a < 999.5 || i == sizeof(suffix) - 2) {
			const char *sign = v < 0 ? "-" : "";
			if (a < 9.995)
				snprintf(buf, len, "%s%.2f%c", sign, a, suffix[i]);
			else if (a < 99.95)
				snprintf(buf, len, "%s%.1f%c", sign, a, suffix[i]);
			else
				snprintf(buf, len, "%s%.0f%c", sign, a, suffix[i]);
			return;
		}
	}
}

void fmt_pct(char *buf, size_t len, double pct)
{
	if (isnan(pct))
		snprintf(buf, len, "-");
	else if (pct == 0)
		snprintf(buf, len, "0%%");
	else if (pct >= 99.95)
		snprintf(buf, len, "%.0f%%", pct);
	else if (pct >= 0.995)
		snprintf(buf, len, "%.1f%%", pct);
	else if (pct >= 0.005)
		snprintf(buf, len, "%.2f%%", pct);
	else
		snprintf(buf, len, "<0.01%%");
}

/* The viewer's building blocks without a terminal or an analyzer: text
 * widths and elision, number and ratio cells, column layout, the table
 * widget's keys, search and drawing on a memory canvas. */
#include "config.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tests/harness.h"
#include "viewer-tui/view.h"

static void test_text(void)
{
	static const struct {
		int line;
		const char *in;
		int cols;
		const char *out;
	} elide[] = {
		{ __LINE__, "abc", 5, "abc" },
		{ __LINE__, "abcdefghij", 10, "abcdefghij" },
		{ __LINE__, "abcdefghij", 5, "ab\u2026ij" },
		{ __LINE__, "abcdefghijk", 6, "abc\u2026jk" },
		{ __LINE__, "abcdef", 1, "\u2026" },
		{ __LINE__, "abcdef", 0, "" },
		{ __LINE__, "std::vector<int>::push_back", 15, "std::ve\u2026sh_back" },
		{ __LINE__, "\u65e5\u672c\u8a9e\u30c6\u30ad\u30b9\u30c8", 6, "\u65e5\u2026\u30c8" },
		{ __LINE__, "a\xff" "b", 5, "a?b" },
		{ __LINE__, "tab\there", 20, "tab?here" },
	};
	static const struct {
		int line;
		const char *in;
		int width;
	} widths[] = {
		{ __LINE__, "", 0 },
		{ __LINE__, "work_a", 6 },
		{ __LINE__, "\u00e9t\u00e9", 3 },
		{ __LINE__, "\u65e5\u672c", 4 },
		{ __LINE__, "a\xff", 2 },
	};
	char buf[256];

	for (size_t i = 0; i < ARRAY_SIZE(elide); i++) {
		int w = text_elide(buf, sizeof(buf), elide[i].in, elide[i].cols);
		T_OK(strcmp(buf, elide[i].out) == 0 && w <= elide[i].cols && w == text_width(buf),
		     "elide line %d: '%s' in %d columns -> '%s' (got '%s', width %d)", elide[i].line,
		     elide[i].in, elide[i].cols, elide[i].out, buf, w);
	}
	for (size_t i = 0; i < ARRAY_SIZE(widths); i++)
		T_OK(text_width(widths[i].in) == widths[i].width, "width line %d: %d (got %d)",
		     widths[i].line, widths[i].width, text_width(widths[i].in));

	text_fit(buf, sizeof(buf), "42", 5, true);
	T_OK(strcmp(buf, "   42") == 0, "numbers are right-aligned: '%s'", buf);
	text_fit(buf, sizeof(buf), "main", 6, false);
	T_OK(strcmp(buf, "main  ") == 0, "names are left-aligned and padded: '%s'", buf);
	text_fit(buf, sizeof(buf), "a_very_long_function_name", 9, false);
	T_OK(strcmp(buf, "a_ve\u2026name") == 0, "fit elides in the middle: '%s'", buf);
	T_OK(strcmp(text_basename("/usr/lib/libc.so.6"), "libc.so.6") == 0 &&
		     strcmp(text_basename(NULL), "") == 0 && strcmp(text_basename("x"), "x") == 0,
	     "basename");
	T_OK(text_contains("Work_A", "work_a") && text_contains("hot_lines", "LINES") &&
		     !text_contains("main", "mainx") && text_contains("x", "") &&
		     !text_contains(NULL, "a"),
	     "search ignores case");
	text_head(buf, sizeof(buf), "abcdef", 3);
	T_OK(strcmp(buf, "abc") == 0, "head keeps the first columns: '%s'", buf);
}

static void test_numbers(void)
{
	static const struct {
		int line;
		double v;
		int cols;
		const char *out;
	} counts[] = {
		{ __LINE__, 0, 6, "0" },
		{ __LINE__, 1234, 8, "1234" },
		{ __LINE__, 1234, 4, "1234" },
		{ __LINE__, 1500, 3, "1.50k" },
		{ __LINE__, 1234567, 5, "1.23M" },
		{ __LINE__, 12345678, 6, "12.3M" },
		{ __LINE__, 123456789, 6, "123M" },
		{ __LINE__, 123456789, 9, "123456789" },
		{ __LINE__, 4.2e12, 6, "4.20T" },
		{ __LINE__, 999, 2, "999" },
		{ __LINE__, 12.5, 8, "12.50" },
		{ __LINE__, NAN, 6, "-" },
		{ __LINE__, INFINITY, 6, "inf" },
	};
	static const struct {
		int line;
		double pct;
		const char *out;
	} pcts[] = {
		{ __LINE__, 57.142857, "57.1%" },
		{ __LINE__, 100, "100%" },
		{ __LINE__, 99.96, "100%" },
		{ __LINE__, 4.76, "4.8%" },
		{ __LINE__, 0.5, "0.50%" },
		{ __LINE__, 0.001, "<0.01%" },
		{ __LINE__, 0, "0%" },
		{ __LINE__, NAN, "-" },
	};
	static const struct {
		int line;
		struct ana_cmp c;
		enum ana_ratio mode;
		int cols;
		const char *out;
	} ratios[] = {
		{ __LINE__, { 1.5, 1.41, 1.6, true, NAN, ANA_IN_BOTH, false, 0, INFINITY, false, false, NAN }, ANA_RATIO_SHARE, 20,
		  "1.50 [1.41,1.60]*" },
		{ __LINE__, { 1.5, 1.41, 1.6, true, NAN, ANA_IN_BOTH, false, 0, INFINITY, false, false, NAN }, ANA_RATIO_SHARE, 8, "1.50*" },
		{ __LINE__, { 0.98, 0.9, 1.07, false, NAN, ANA_IN_BOTH, false, 0, INFINITY, false, false, NAN }, ANA_RATIO_SHARE, 20,
		  "0.98 [0.90,1.07] " },
		{ __LINE__, { 12.25, 10, 15.5, true, NAN, ANA_IN_BOTH, false, 0, INFINITY, false, false, NAN }, ANA_RATIO_RAW, 20,
		  "12.2 [10.0,15.5]*" },
		{ __LINE__, { 150, 120, 190, true, NAN, ANA_IN_BOTH, false, 0, INFINITY, false, false, NAN }, ANA_RATIO_RAW, 20,
		  "150 [120,190]*" },
		{ __LINE__, { 2.345, 1.0, 3.5, true, NAN, ANA_IN_BOTH, false, 0, INFINITY, false, false, NAN }, ANA_RATIO_DELTA, 20,
		  "+2.3 [+1.0,+3.5]*" },
		{ __LINE__, { -0.4, -1.2, 0.4, false, NAN, ANA_IN_BOTH, false, 0, INFINITY, false, false, NAN }, ANA_RATIO_DELTA, 6,
		  "-0.4 " },
		/* lines against an emulated run: excludes 1, withheld, not '*' */
		{ __LINE__, { 1.5, 1.41, 1.6, false, NAN, ANA_IN_BOTH, true, 0, INFINITY, false, false, NAN }, ANA_RATIO_SHARE, 20,
		  "1.50 [1.41,1.60]?" },
		{ __LINE__, { 1.2, NAN, NAN, false, NAN, ANA_IN_BOTH, false, 0, INFINITY, false, false, NAN }, ANA_RATIO_SHARE, 20, "1.20 " },
		{ __LINE__, { NAN, NAN, NAN, false, NAN, ANA_IN_BOTH, false, 0, INFINITY, false, false, NAN }, ANA_RATIO_SHARE, 20, "- " },
		{ __LINE__, { NAN, NAN, NAN, false, NAN, ANA_ONLY_BASE, false, 0, INFINITY, false, false, NAN }, ANA_RATIO_SHARE, 20,
		  "only base" },
		{ __LINE__, { NAN, NAN, NAN, false, NAN, ANA_ONLY_RUN, false, 0, INFINITY, false, false, NAN }, ANA_RATIO_SHARE, 20,
		  "only run" },
		{ __LINE__, { NAN, NAN, NAN, false, NAN, ANA_ONLY_RUN, false, 0, INFINITY, false, false, NAN }, ANA_RATIO_SHARE, 6, "new" },
	};
	char buf[64];

	for (size_t i = 0; i < ARRAY_SIZE(counts); i++) {
		fmt_count(buf, sizeof(buf), counts[i].v, counts[i].cols);
		T_OK(strcmp(buf, counts[i].out) == 0, "count line %d: %g in %d -> '%s' (got '%s')",
		     counts[i].line, counts[i].v, counts[i].cols, counts[i].out, buf);
	}
	for (size_t i = 0; i < ARRAY_SIZE(pcts); i++) {
		fmt_pct(buf, sizeof(buf), pcts[i].pct);
		T_OK(strcmp(buf, pcts[i].out) == 0, "pct line %d: %g -> '%s' (got '%s')",
		     pcts[i].line, pcts[i].pct, pcts[i].out, buf);
	}
	for (size_t i = 0; i < ARRAY_SIZE(ratios); i++) {
		fmt_ratio(buf, sizeof(buf), &ratios[i].c, ratios[i].mode, ratios[i].cols);
		T_OK(strcmp(buf, ratios[i].out) == 0, "ratio line %d: '%s' (got '%s')",
		     ratios[i].line, ratios[i].out, buf);
	}
}

static void test_roles(void)
{
	struct view_state st = { .threshold = 1.2, .delta_threshold = 1.0 };
	static const struct {
		int line;
		enum ana_ratio mode;
		double ratio;
		enum ana_presence presence;
		enum role role;
	} cases[] = {
		{ __LINE__, ANA_RATIO_SHARE, 1.5, ANA_IN_BOTH, ROLE_UP },
		{ __LINE__, ANA_RATIO_SHARE, 1.2, ANA_IN_BOTH, ROLE_UP },
		{ __LINE__, ANA_RATIO_SHARE, 1.19, ANA_IN_BOTH, ROLE_NORMAL },
		{ __LINE__, ANA_RATIO_SHARE, 0.84, ANA_IN_BOTH, ROLE_NORMAL },
		{ __LINE__, ANA_RATIO_SHARE, 0.8, ANA_IN_BOTH, ROLE_DOWN },
		{ __LINE__, ANA_RATIO_RAW, 0.27, ANA_IN_BOTH, ROLE_DOWN },
		{ __LINE__, ANA_RATIO_DELTA, 1.5, ANA_IN_BOTH, ROLE_UP },
		{ __LINE__, ANA_RATIO_DELTA, 0.9, ANA_IN_BOTH, ROLE_NORMAL },
		{ __LINE__, ANA_RATIO_DELTA, -1.0, ANA_IN_BOTH, ROLE_DOWN },
		{ __LINE__, ANA_RATIO_SHARE, NAN, ANA_IN_BOTH, ROLE_NORMAL },
		{ __LINE__, ANA_RATIO_SHARE, NAN, ANA_ONLY_BASE, ROLE_WARN },
		{ __LINE__, ANA_RATIO_SHARE, NAN, ANA_ONLY_RUN, ROLE_WARN },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct ana_cmp c = { .ratio = cases[i].ratio, .presence = cases[i].presence };
		st.ratio = cases[i].mode;
		T_OK(cmp_role(&st, &c) == cases[i].role, "colour line %d: ratio %g -> role %d (got %d)",
		     cases[i].line, cases[i].ratio, cases[i].role, cmp_role(&st, &c));
	}
}

static void test_layout(void)
{
	/* the screen hints of analyzer columns (analyzer/table.h) */
	static const struct ana_col cols[] = {
		{ .title = "A", .screen = { 6, 0, 90, false } },
		{ .title = "B", .screen = { 6, 0, 50, false } },
		{ .title = "Name", .left = true, .screen = { 12, 40, 100, true } },
		{ .title = "Mod", .left = true, .screen = { 8, 20, 40, false } },
	};
	static const struct ana_col tie[] = {
		{ .title = "X", .screen = { 5, 0, 10, false } },
		{ .title = "Y", .screen = { 5, 0, 10, false } },
		{ .title = "Z", .screen = { 5, 0, 10, false } },
	};
	static const struct {
		int line;
		const struct ana_col *c;
		size_t n;
		int width, shown;
		int w[4], x[4];
	} cases[] = {
		{ __LINE__, cols, 4, 80, 4, { 6, 6, 45, 20 }, { 0, 7, 14, 60 } },
		{ __LINE__, cols, 4, 50, 4, { 6, 6, 27, 8 }, { 0, 7, 14, 42 } },
		{ __LINE__, cols, 4, 35, 4, { 6, 6, 12, 8 }, { 0, 7, 14, 27 } },
		{ __LINE__, cols, 4, 30, 3, { 6, 6, 16, 0 }, { 0, 7, 14, 0 } },
		{ __LINE__, cols, 4, 20, 2, { 6, 0, 13, 0 }, { 0, 0, 7, 0 } },
		{ __LINE__, cols, 4, 10, 1, { 0, 0, 10, 0 }, { 0, 0, 0, 0 } },
		{ __LINE__, cols, 4, 0, 0, { 0, 0, 0, 0 }, { 0, 0, 0, 0 } },
		{ __LINE__, tie, 3, 11, 2, { 5, 5, 0 }, { 0, 6, 0 } },
		{ __LINE__, tie, 3, 20, 3, { 5, 5, 5 }, { 0, 6, 12 } },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int x[4], w[4], used = 0;
		int shown = layout_columns(cases[i].c, cases[i].n, cases[i].width, x, w);
		bool ok = shown == cases[i].shown;
		for (size_t k = 0; k < cases[i].n; k++) {
			ok &= w[k] == cases[i].w[k] && (!w[k] || x[k] == cases[i].x[k]);
			if (w[k] && x[k] + w[k] > used)
				used = x[k] + w[k];
		}
		T_OK(ok && used <= cases[i].width,
		     "layout line %d: width %d shows %d columns (got %d: %d %d %d %d at %d %d %d %d)",
		     cases[i].line, cases[i].width, cases[i].shown, shown, w[0], w[1], w[2],
		     cases[i].n > 3 ? w[3] : 0, x[0], x[1], x[2], cases[i].n > 3 ? x[3] : 0);
	}
}

/* A table of n rows "row0".. with a number column, for the widget. */
struct rows {
	size_t n;
	char names[120][64];
};

static size_t rows_n(void *ctx)
{
	return ((struct rows *)ctx)->n;
}

static enum role rows_cell(void *ctx, size_t row, size_t col, int width, char *buf, size_t len)
{
	struct rows *r = ctx;
	(void)width;
	if (col == 0)
		snprintf(buf, len, "%zu", row * 10);
	else
		snprintf(buf, len, "%s", r->names[row]);
	return col == 0 && row == 3 ? ROLE_HOT : ROLE_NORMAL;
}

static const char *rows_match(void *ctx, size_t row)
{
	return ((struct rows *)ctx)->names[row];
}

static const struct tui_table_ops rows_ops = {
	.n_rows = rows_n, .cell = rows_cell, .match = rows_match,
};

static void test_table(void)
{
	static const struct ana_col cols[] = {
		{ .title = "Num", .type = ANA_T_COUNT, .screen = { 5, 0, 90, false } },
		{ .title = "Name", .type = ANA_T_TEXT, .left = true, .screen = { 8, 40, 100, true } },
	};
	static struct rows r = { .n = 100 };
	struct canvas *c = canvas_mem_new(30, 8);
	struct tui_table t;
	char line[256];

	for (size_t i = 0; i < r.n; i++)
		snprintf(r.names[i], sizeof(r.names[i]), "row%zu", i);
	snprintf(r.names[7], sizeof(r.names[7]), "a_function_name_far_too_long_for_the_screen");
	tui_table_init(&t, &rows_ops, &r);
	t.cols = cols;
	t.n_cols = 2;
	t.sort_col = 0;

	/* keys: what moves, what says so */
	static const struct {
		int line;
		int key;
		size_t from, sel;
		int react;
	} keys[] = {
		{ __LINE__, VK_DOWN, 0, 1, REACT_BODY },
		{ __LINE__, 'j', 5, 6, REACT_BODY },
		{ __LINE__, VK_UP, 0, 0, REACT_HANDLED },
		{ __LINE__, 'k', 5, 4, REACT_BODY },
		{ __LINE__, VK_END, 0, 99, REACT_BODY },
		{ __LINE__, VK_DOWN, 99, 99, REACT_HANDLED },
		{ __LINE__, VK_HOME, 50, 0, REACT_BODY },
		{ __LINE__, VK_PGDN, 0, 6, REACT_BODY },	/* body 7 rows: a page is 6 */
		{ __LINE__, VK_PGDN, 97, 99, REACT_BODY },
		{ __LINE__, VK_PGUP, 10, 4, REACT_BODY },
		{ __LINE__, VK_PGUP, 2, 0, REACT_BODY },
		{ __LINE__, VK_WHEEL_DOWN, 0, 3, REACT_BODY },
		{ __LINE__, VK_WHEEL_UP, 1, 0, REACT_BODY },
		{ __LINE__, 'z', 5, 5, REACT_NONE },
		{ __LINE__, VK_ENTER, 5, 5, REACT_NONE },
	};
	tui_table_draw(&t, c, 0, 8);
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		t.sel = keys[i].from;
		int react = tui_table_on_key(&t, keys[i].key);
		T_OK(t.sel == keys[i].sel && react == keys[i].react,
		     "key line %d: %zu -> %zu, react %d (got %zu, %d)", keys[i].line, keys[i].from,
		     keys[i].sel, keys[i].react, t.sel, react);
	}

	/* search: from a row, either way, wrapping, ignoring case */
	static const struct {
		int line;
		const char *pat;
		size_t from;
		int dir;
		bool found;
		size_t sel;
	} finds[] = {
		{ __LINE__, "ROW4", 0, 1, true, 4 },
		{ __LINE__, "row4", 5, 1, true, 40 },
		{ __LINE__, "row4", 39, -1, true, 4 },
		{ __LINE__, "row99", 0, -1, true, 99 },
		{ __LINE__, "row1", 99, 1, true, 1 },
		{ __LINE__, "FAR_TOO", 0, 1, true, 7 },
		{ __LINE__, "nothing", 12, 1, false, 12 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(finds); i++) {
		t.sel = finds[i].from;
		bool found = tui_table_search(&t, finds[i].pat, finds[i].from, finds[i].dir);
		T_OK(found == finds[i].found && t.sel == finds[i].sel,
		     "search line %d: '%s' from %zu -> %zu (got %s, %zu)", finds[i].line,
		     finds[i].pat, finds[i].from, finds[i].sel, found ? "found" : "not found",
		     t.sel);
	}

	/* drawing: headings, right-aligned numbers, selection, elision, scroll */
	tui_table_select(&t, 2);
	t.top = 0;
	tui_table_draw(&t, c, 0, 8);
	canvas_mem_line(c, 0, line, sizeof(line));
	T_OK(strncmp(line, "Num\u25bc Name", strlen("Num\u25bc Name")) == 0,
	     "headings, sort mark on the sort column: '%s'", line);
	T_OK(canvas_mem_role(c, 0, 0) == ROLE_SORTED && canvas_mem_role(c, 0, 6) == ROLE_COLHEAD,
	     "sorted heading has its own role");
	canvas_mem_line(c, 2, line, sizeof(line));
	/* Num is as wide as its widest content ("990"), or its heading "Num▼". */
	T_OK(strcmp(line, "  10 row1") == 0, "row 1 right-aligns its number: '%s'", line);
	T_OK(canvas_mem_role(c, 3, 0) == ROLE_SELECTED && canvas_mem_role(c, 3, 29) == ROLE_SELECTED &&
		     canvas_mem_role(c, 2, 0) == ROLE_NORMAL,
	     "the selected row is highlighted across the width");
	T_OK(canvas_mem_role(c, 4, 3) == ROLE_HOT && canvas_mem_role(c, 4, 5) == ROLE_NORMAL, "a cell keeps its own role");
	canvas_mem_line(c, 8, line, sizeof(line));	/* off the canvas: empty */
	T_OK(line[0] == '\0', "rows past the canvas are not drawn");

	tui_table_select(&t, 7);
	tui_table_draw(&t, c, 0, 8);
	canvas_mem_line(c, 7, line, sizeof(line));
	T_OK(strcmp(line, "  70 a_function_n\u2026r_the_screen") == 0 && text_width(line) <= 30,
	     "a long name loses its middle and the row its width stays: '%s'", line);
	T_OK(t.top == 1 && t.body_h == 7, "scrolled to keep the selection on screen (top %zu)",
	     t.top);

	tui_table_select(&t, 99);
	tui_table_draw(&t, c, 0, 8);
	canvas_mem_line(c, 7, line, sizeof(line));
	T_OK(strcmp(line, " 990 row99") == 0 && t.top == 93,
	     "End shows a full last page: '%s' top %zu", line, t.top);

	t.center = true;
	tui_table_select(&t, 50);
	tui_table_draw(&t, c, 0, 8);
	T_OK(t.top == 47, "centering puts the selection mid-screen (top %zu)", t.top);

	r.n = 0;
	tui_table_changed(&t);
	tui_table_draw(&t, c, 0, 8);
	canvas_mem_line(c, 1, line, sizeof(line));
	T_OK(strstr(line, "(nothing to show)") != NULL, "an empty table says so: '%s'", line);
	T_OK(tui_table_on_key(&t, VK_DOWN) == REACT_HANDLED && t.sel == 0, "keys on an empty table");
	canvas_mem_free(c);
}

static void test_canvas(void)
{
	struct canvas *c = canvas_mem_new(10, 2);
	char line[64];

	c->put(c, 0, 7, "abcdef", ROLE_WARN);
	canvas_mem_line(c, 0, line, sizeof(line));
	T_OK(strcmp(line, "       abc") == 0, "put clips at the right edge: '%s'", line);
	c->put(c, 1, 8, "\u65e5\u672c", ROLE_NORMAL);
	canvas_mem_line(c, 1, line, sizeof(line));
	T_OK(strcmp(line, "        \u65e5") == 0, "a wide character that does not fit is left out");
	c->put(c, 5, 0, "x", ROLE_NORMAL);
	c->put(c, -1, 0, "x", ROLE_NORMAL);
	T_OK(canvas_mem_role(c, 0, 8) == ROLE_WARN && canvas_mem_find(c, 0, "abc") == 7,
	     "roles and positions read back");
	T_OK(canvas_mem_new(0, 5) == NULL, "an empty canvas is refused");
	canvas_mem_free(c);
}

int main(void)
{
	if (!setlocale(LC_ALL, "C.UTF-8")) {
		T_SKIP("no C.UTF-8 locale");
		return 77;
	}
	text_utf8 = true;
	test_text();
	test_numbers();
	test_roles();
	test_layout();
	test_table();
	test_canvas();
	return T_DONE();
}

/* The column model's text table and value renderers (analyzer/table.c):
 * how columns are cut to a width (table-driven, each case naming its
 * line), what CSV and a text table write for each type of value, and the
 * column table's names. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/ana/table.h"
#include "tests/harness.h"

static const struct ana_col cols[] = {
	{ .title = "Self%" },
	{ .title = "Function", .left = true, .shrink = 1, .min = 6, .soft = 10 },
	{ .title = "Module", .left = true, .shrink = 2, .min = 4, .soft = 6 },
};
static const char *const rows[][3] = {
	{ "12.50", "a_rather_long_function_name", "libmodule.so" },
	{ "3.00", "short", "m\x1b[31m" },
};

/* The table of rows at width, into buf. */
static const char *table_at(int width)
{
	static char buf[1024];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	struct ana_table *t = ana_table_new(cols, 3);

	for (size_t i = 0; i < 2; i++)
		ana_table_add(t, rows[i]);
	ana_table_write_text(t, f, width);
	ana_table_free(t);
	fclose(f);
	return buf;
}

static const struct {
	int line, width;
	const char *want;
} cases[] = {
	/* never cut: each column as wide as its widest cell; control bytes '?' */
	{ __LINE__, 0, "Self%  Function                     Module\n"
		       "12.50  a_rather_long_function_name  libmodule.so\n"
		       " 3.00  short                        m?[31m\n" },
	/* the highest shrink first, to its soft width (Module: 6), then the next */
	{ __LINE__, 40, "Self%  Function                   Module\n"
			"12.50  a_rather_long_function_n+  libmo+\n"
			" 3.00  short                      m?[31m\n" },
};

static void test_widths(void)
{
	for (size_t k = 0; k < 2; k++) {
		const char *got = table_at(cases[k].width);
		T_OK(!strcmp(got, cases[k].want), "line %d: width %d", cases[k].line, cases[k].width);
		if (strcmp(got, cases[k].want))
			fprintf(stderr, "%s", got);
	}
	/* narrower than every minimum: the columns stop at their minimums */
	const char *got = table_at(10);
	T_OK(!strcmp(got, "Self%  Funct+  Mod+\n12.50  a_rat+  lib+\n 3.00  short   m?[+\n"),
	     "width 10: the columns at their minimums");
}

/* Markdown: headings, alignments, every cell whole, '|' escaped. */
static void test_markdown(void)
{
	static const char *const row[3] = { "1.00", "operator|", "m" };
	char buf[512] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	struct ana_table *t = ana_table_new(cols, 3);

	ana_table_add(t, rows[0]);
	ana_table_add(t, row);
	T_OK(ana_table_write_markdown(t, f) == 0, "Markdown written");
	ana_table_free(t);
	fclose(f);
	T_OK(!strcmp(buf, "| Self% | Function | Module |\n|---:|:---|:---|\n"
			  "| 12.50 | a_rather_long_function_name | libmodule.so |\n"
			  "| 1.00 | operator\\| | m |\n"), "Markdown: escapes '|', cuts nothing");
	if (strcmp(buf, "") && !strstr(buf, "operator\\|"))
		fprintf(stderr, "%s", buf);
}

static void test_values(void)
{
	static const struct {
		int line;
		struct ana_value v;
		const char *fmt, *csv, *text;
	} vals[] = {
		{ __LINE__, { .type = ANA_T_TEXT, .s = "a,\"b\"" }, NULL, "\"a,\"\"b\"\"\"", "a,\"b\"" },
		{ __LINE__, { .type = ANA_T_TEXT, .s = " lead" }, NULL, "\" lead\"", " lead" },
		{ __LINE__, { .type = ANA_T_TEXT, .none = true }, NULL, "", "" },
		{ __LINE__, { .type = ANA_T_COUNT, .u = 18446744073709551615ull }, NULL,
		  "18446744073709551615", "18446744073709551615" },
		{ __LINE__, { .type = ANA_T_PCT, .d = 12.5 }, "%.4f", "12.5000", "12.50" },
		{ __LINE__, { .type = ANA_T_PCT, .d = NAN, .none = true }, "%.4f", "", "" },
		{ __LINE__, { .type = ANA_T_NUMBER, .d = 1e15 }, NULL, "1000000000000000", "1e+15" },
		{ __LINE__, { .type = ANA_T_NUMBER, .d = 0.1 }, NULL, "0.1", "0.1" },
		{ __LINE__, { .type = ANA_T_RATIO, .d = INFINITY }, "%.6g", "inf", "inf" },
		{ __LINE__, { .type = ANA_T_RATIO, .d = 2 }, "%.6g", "2", "2" },
		{ __LINE__, { .type = ANA_T_FLAG, .b = true }, NULL, "1", "*" },
		{ __LINE__, { .type = ANA_T_FLAG, .b = false }, NULL, "0", "" },
	};
	for (size_t k = 0; k < sizeof(vals) / sizeof(*vals); k++) {
		char csv[128] = "", text[128];
		FILE *f = fmemopen(csv, sizeof(csv), "w");
		ana_value_write_csv(&vals[k].v, vals[k].fmt, f);
		fclose(f);
		ana_value_text(&vals[k].v, text, sizeof(text));
		T_OK(!strcmp(csv, vals[k].csv), "line %d: CSV '%s'", vals[k].line, csv);
		T_OK(!strcmp(text, vals[k].text), "line %d: text '%s'", vals[k].line, text);
	}
}

static void test_names(void)
{
	for (int id = 0; id < ANA_COL_N; id++) {
		const struct ana_col *c = ana_col((enum ana_col_id)id);
		T_OK(c && c->name && c->title && c->get && ana_col_named(c->name) == c,
		     "column %d (%s): named, titled, with an accessor", id, c ? c->name : "?");
	}
	T_OK(ana_col(ANA_COL_N) == NULL && ana_col_named("nope") == NULL, "no such column: NULL");
	T_OK(ana_col(ANA_COL_SELF_PCT)->type == ANA_T_PCT &&
	     !strcmp(ana_col(ANA_COL_SELF_PCT)->csv_fmt, "%.4f"), "self_pct: a share, 4 decimals in CSV");
}

/* Screen hints (ana_col.screen): a column the viewer shows has a minimum
 * and a preference no narrower, and the function's name alone fills. */
static void test_screen(void)
{
	int shown = 0, fill = 0;

	for (int id = 0; id < ANA_COL_N; id++) {
		const struct ana_screen *sc = &ana_col((enum ana_col_id)id)->screen;
		if (!sc->min && !sc->pref && !sc->keep && !sc->fill)
			continue;
		shown++;
		fill += sc->fill;
		T_OK(sc->min > 0 && (sc->pref == 0 || sc->pref >= sc->min) && sc->keep > 0,
		     "column %s: screen min %d, pref %d, keep %d", ana_col((enum ana_col_id)id)->name,
		     sc->min, sc->pref, sc->keep);
	}
	T_OK(shown >= 8 && fill == 1 && ana_col(ANA_COL_FUNCTION)->screen.fill,
	     "%d columns have screen hints, %d fills (the function)", shown, fill);
}

int main(void)
{
	test_widths();
	test_markdown();
	test_values();
	test_names();
	test_screen();
	return T_DONE();
}

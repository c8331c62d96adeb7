/* The whole viewer on a memory canvas: keys in, screens out, over
 * profiles made by tests/progs/ana_mkprofile against the ana_work binary
 * and read by the real analyzer.  Needs $PMCPROF_BUILD (make check sets
 * it); skips without it. */
#include "config.h"

#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/harness.h"
#include "viewer-tui/view.h"

static char dir[] = "/tmp/pmcprof-test-view.XXXXXX";
static struct canvas *cv;
/* Lines of tests/progs/ana_work.c, found in the file so that edits to it
 * do not break this test: work_a, work_b, work_c, the hot loop, a
 * line without code. */
static unsigned l_a, l_b, l_c, l_hot, l_def;
static char at_a[32], at_b[32], at_c[32], at_def[32], src_a[32];

static unsigned line_of(const char *path, const char *what)
{
	char buf[512];
	unsigned n = 0, found = 0;
	FILE *f = fopen(path, "r");

	while (f && !found && fgets(buf, sizeof(buf), f))
		if (++n && strstr(buf, what))
			found = n;
	if (f)
		fclose(f);
	return found;
}

/* Draw ui at w x h; the canvas stays for role checks. */
static void draw(struct ui *ui, int w, int h)
{
	canvas_mem_free(cv);
	cv = canvas_mem_new(w, h);
	ui_draw(ui, cv, REACT_ALL);
}

static char *line(int y)
{
	static char buf[8][4096];
	static int k;
	k = (k + 1) % 8;
	return canvas_mem_line(cv, y, buf[k], sizeof(buf[k]));
}

/* First screen row containing s, or -1. */
static int row_with(const char *s)
{
	for (int y = 0; y < cv->h; y++)
		if (strstr(line(y), s))
			return y;
	return -1;
}

/* After a failure, the last screen, to see why. */
static void dump_if_failed(void)
{
	static int shown;

	if (t_failures == shown || !cv)
		return;
	shown = t_failures;
	for (int y = 0; y < cv->h; y++)
		printf("# |%s\n", line(y));
}

static enum react keys(struct ui *ui, const char *s)
{
	enum react r = REACT_NONE;
	for (; *s; s++)
		r = ui_on_key(ui, (unsigned char)*s);
	return r;
}

/* Key k, then the screen drawn at 120x40. */
static enum react press(struct ui *ui, int k)
{
	enum react r = ui_on_key(ui, k);
	draw(ui, 120, 40);
	return r;
}

/* The keys of s, then the screen drawn at 120x40. */
static enum react type(struct ui *ui, const char *s)
{
	enum react r = keys(ui, s);
	draw(ui, 120, 40);
	return r;
}

/* Select the first function whose name has s in it (search, then Enter). */
static void search(struct ui *ui, const char *s)
{
	ui_on_key(ui, '/');
	keys(ui, s);
	ui_on_key(ui, VK_ENTER);
}

/* The row the table selects, as drawn. */
static char *selected(void)
{
	for (int y = 0; y < cv->h; y++)
		if (canvas_mem_role(cv, y, 0) == ROLE_SELECTED && canvas_mem_role(cv, y, cv->w - 1) ==
		    ROLE_SELECTED)
			return line(y);
	return "";
}

static int mkprofile(const char *name, const char *opts, const char *stacks)
{
	char cmd[4096];
	const char *b = getenv("PMCPROF_BUILD");

	snprintf(cmd, sizeof(cmd),
		 "%s/tests/progs/ana_mkprofile -o %s/%s -b %s/tests/progs/ana_work %s %s", b, dir,
		 name, b, opts, stacks);
	return system(cmd);
}

static struct ui *open_ui_remap(const char *a, const char *b, const char *const *remap)
{
	char pa[256], pb[256], err[512];
	char *runs[2] = { pa, pb };
	struct load_opts lo = { .remap = remap };
	struct ui_opts uo = { .sz = sizeof(uo), .load = &lo, .compare = true };
	struct ana_set *s;

	snprintf(pa, sizeof(pa), "%s/%s", dir, a);
	snprintf(pb, sizeof(pb), "%s/%s", dir, b ? b : "");
	if (set_load(&s, runs, b ? 2 : 1, &lo, err, sizeof(err)) != 0) {
		printf("# load: %s\n", err);
		return NULL;
	}
	return ui_new(s, runs, b ? 2 : 1, &uo);
}

static struct ui *open_ui(const char *a, const char *b)
{
	return open_ui_remap(a, b, NULL);
}

/* Every line of the screen fits its width; the bar ends in "q Quit". */
static bool fits(void)
{
	for (int y = 0; y < cv->h; y++)
		if (text_width(line(y)) > cv->w)
			return false;
	const char *bar = line(cv->h - 1);
	size_t n = strlen(bar);
	return n >= 6 && strcmp(bar + n - 6, "q Quit") == 0;
}

/* The viewer's columns are the analyzer's (analyzer/table.h): heading,
 * type, alignment and accessor come from the model's entry; only the
 * headings the view names (a run, another event) and the screen hints
 * the view places differ. */
static void test_columns_model(void)
{
	struct ui *ui = open_ui("base.pmcp", "run.pmcp");
	static const struct {
		int line;
		bool compare;
		enum ana_ratio ratio;
		enum ana_view v;
		size_t col;
		enum ana_col_id id;
		const char *title;
	} cases[] = {
		{ __LINE__, false, ANA_RATIO_SHARE, ANA_VIEW_FUNCS, 0, ANA_COL_SELF_PCT, "Self%" },
		{ __LINE__, false, ANA_RATIO_SHARE, ANA_VIEW_FUNCS, 1, ANA_COL_INCL_PCT, "Incl%" },
		{ __LINE__, false, ANA_RATIO_SHARE, ANA_VIEW_FUNCS, 2, ANA_COL_SELF_VALUE, "Self" },
		{ __LINE__, false, ANA_RATIO_SHARE, ANA_VIEW_FUNCS, 4, ANA_COL_SELF_PCT,
		  "instructions%" },
		{ __LINE__, false, ANA_RATIO_SHARE, ANA_VIEW_FUNCS, 5, ANA_COL_FUNCTION, "Function" },
		{ __LINE__, false, ANA_RATIO_SHARE, ANA_VIEW_FUNCS, 6, ANA_COL_MODULE, "Module" },
		{ __LINE__, false, ANA_RATIO_SHARE, ANA_VIEW_FUNCS, 7, ANA_COL_FILE, "Source" },
		{ __LINE__, false, ANA_RATIO_SHARE, ANA_VIEW_MODULES, 3, ANA_COL_MODULE, "Module" },
		{ __LINE__, true, ANA_RATIO_SHARE, ANA_VIEW_FUNCS, 0, ANA_COL_BASE_PCT, "Base%" },
		{ __LINE__, true, ANA_RATIO_SHARE, ANA_VIEW_FUNCS, 1, ANA_COL_RATIO, "run.pmcp" },
		{ __LINE__, true, ANA_RATIO_RAW, ANA_VIEW_FUNCS, 0, ANA_COL_SELF_VALUE, "Base" },
	};

	T_OK(ui != NULL, "two runs open");
	for (size_t i = 0; ui && i < ARRAY_SIZE(cases); i++) {
		struct view_state st = ui->st;
		struct vcols vc;
		st.compare = cases[i].compare;
		st.ratio = cases[i].ratio;
		vcols_build(&vc, &st, ui->set, cases[i].v);
		const struct ana_col *c = &vc.col[cases[i].col], *m = ana_col(cases[i].id);
		T_OK(cases[i].col < vc.n && c->name == m->name && c->type == m->type &&
			     c->left == m->left && c->get == m->get && c->screen.min > 0 &&
			     !strcmp(c->title, cases[i].title) && c->title == vc.c[cases[i].col].title,
		     "columns line %d: column %zu is the model's %s headed '%s' (got %s '%s')",
		     cases[i].line, cases[i].col, m->name, cases[i].title,
		     c->name ? c->name : "(none)", c->title);
	}
	ui_free(ui);
}

static void test_functions(void)
{
	struct ui *ui = open_ui("base.pmcp", NULL);
	char *l;
	int y;

	T_OK(ui != NULL, "a profile opens");
	if (!ui)
		return;
	draw(ui, 120, 40);
	y = row_with(" Function");
	T_OK(y > 0 && strstr(line(y + 1), "work_a") && strstr(line(y + 1), "60.0%"),
	     "the hot function is on the first row: '%s'", line(y + 1));
	T_OK(strstr(line(y), "Self%\u25bc") != NULL, "sorted by self: '%s'", line(y));
	T_OK(row_with("ana_work split") == 0 && row_with("backend perf_event") > 0 &&
		     row_with("[cycles@1000 (asked hw-cycles) 10000 samples]") > 0,
	     "the header shows the command, backend, events as used and asked for");
	T_OK(strstr(line(y + 1), src_a) != NULL, "module and file:line: '%s'", line(y + 1));
	T_OK(fits(), "120x40: every line fits, the bar ends with Quit");

	/* incremental search, then n */
	type(ui, "/work_");
	T_OK(strstr(selected(), "work_a") && row_with("Search: work__") >= 0,
	     "search selects as you type: '%s'", selected());
	type(ui, "c");
	T_OK(strstr(selected(), "work_c") != NULL, "more letters narrow it: '%s'", selected());
	ui_on_key(ui, VK_ENTER);
	type(ui, "n");
	T_OK(strstr(selected(), "work_c") != NULL, "n wraps round to the only match");
	type(ui, "/zzz");
	T_OK(row_with("not found") >= 0, "a search that fails says so");
	press(ui, VK_ESC);
	T_OK(strstr(selected(), "work_c") != NULL, "Esc goes back to where the search began");

	/* Enter: callers, callees, lines of the function */
	press(ui, VK_ENTER);
	y = row_with("Callers of work_c (1)");
	T_OK(y > 0 && strstr(line(y + 1), "main"), "Enter shows the callers: '%s'",
	     y > 0 ? line(y + 1) : "");
	T_OK(row_with("Callees of work_c (0)") > 0 && row_with("Lines of work_c (1)") > 0,
	     "and the callees and lines");
	T_OK(strstr(selected(), "main") != NULL, "the first caller is selected");
	press(ui, VK_ENTER);
	T_OK(row_with("Callees of main (4)") > 0, "Enter on a caller moves to it");
	ui_on_key(ui, VK_ESC);
	press(ui, VK_ESC);
	T_OK(row_with("Functions: ") > 0, "Esc goes back to the functions");

	/* sort, event */
	static const struct {
		int line;
		const char *heading;
	} sorts[] = {
		{ __LINE__, "Incl%\u25bc" }, { __LINE__, "Function\u25bc" }, { __LINE__, "Self%\u25bc" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(sorts); i++) {
		enum react r = type(ui, "s");
		T_OK((r & REACT_REQUERY) && row_with(sorts[i].heading) > 0,
		     "s line %d: sorted by %s", sorts[i].line, sorts[i].heading);
	}
	y = row_with(" Function");
	type(ui, "ss");
	T_OK(strstr(line(y + 1), "hot_lines") != NULL, "by name: hot_lines first: '%s'",
	     line(y + 1));
	keys(ui, "s");
	type(ui, "e");
	T_OK(row_with("[instructions@2000") > 0 && strstr(line(y + 1), "hot_lines") &&
		     row_with("Functions: 5, instructions") > 0,
	     "e: the next event, its own order: '%s'", line(y + 1));
	keys(ui, "e");

	/* compare needs two runs */
	type(ui, "c");
	T_OK(row_with("compare mode needs two runs") > 0, "c with one run says what to do");

	/* trees */
	type(ui, "t");
	y = row_with("\u25be main");
	T_OK(row_with("Top-down tree") > 0 && y > 0 && strstr(line(y + 1), "    work_a"),
	     "t: top-down tree, opened along the hot path");
	press(ui, VK_ENTER);
	T_OK(row_with("\u25b8 main") > 0 && row_with("work_a") < 0, "Enter closes a node");
	T_OK(row_with("Incl%\u25bc") > 0, "top-down rows sort by inclusive cost: the mark says so");
	type(ui, "t");
	T_OK(row_with("Bottom-up tree") > 0 && strstr(selected(), "\u25b8 work_a"),
	     "t again: bottom-up, the hottest function first: '%s'", selected());
	y = row_with(" Function");
	T_OK(y > 0 && strstr(line(y), "Self%\u25bc") && !strstr(line(y), "Incl%\u25bc"),
	     "bottom-up rows sort by self cost: the mark is on Self%%: '%s'", y > 0 ? line(y) : "");
	press(ui, VK_RIGHT);
	y = row_with("\u25be work_a");
	T_OK(y > 0 && strstr(line(y + 1), "main"), "Right opens it: its caller main");
	ui_on_key(ui, VK_DOWN);
	press(ui, VK_LEFT);
	T_OK(strstr(selected(), "\u25be work_a") != NULL, "Left on a child: up to its parent");
	press(ui, VK_LEFT);
	y = row_with("\u25b8 work_a");
	T_OK(strstr(selected(), "\u25b8 work_a") != NULL && y > 0 && !strstr(line(y + 1), "main"),
	     "Left on an open node closes it");
	type(ui, "t");
	T_OK(row_with("Functions: ") > 0, "t a third time: back to the functions");

	/* lines, then the annotated source */
	type(ui, "l");
	T_OK(row_with("Source lines: ") > 0 && strstr(selected(), src_a),
	     "l: per-line table, hottest first: '%s'", selected());
	search(ui, "hot");
	press(ui, VK_ENTER);
	l = selected();
	char at_hot[32];
	snprintf(at_hot, sizeof(at_hot), " %u ", l_hot);
	T_OK(strstr(l, at_hot) && strstr(l, "HOT_LOOP"), "Enter: the source, at the line: '%s'", l);
	type(ui, "[");
	T_OK(strstr(selected(), at_b) != NULL, "[ jumps to the previous hot line: '%s'",
	     selected());
	type(ui, "]");
	T_OK(strstr(selected(), at_a) != NULL, "] to the next, wrapping round: '%s'", selected());
	/* hot: 10% of the file's samples or more (work_a's and work_b's lines) */
	static const struct {
		int line;
		const char *at;
		bool hot;
	} hot[] = {
		{ __LINE__, at_b, true }, { __LINE__, at_c, false }, { __LINE__, at_def, false },
	};
	ui_on_key(ui, VK_HOME);
	draw(ui, 120, 60);
	for (size_t i = 0; i < ARRAY_SIZE(hot); i++) {
		y = row_with(hot[i].at);
		T_OK(y > 0 && (canvas_mem_role(cv, y, 0) == ROLE_HOT) == hot[i].hot &&
			     (strchr(line(y), '>') != NULL) == hot[i].hot,
		     "line %d: '%s' is %s", hot[i].line, hot[i].at, hot[i].hot ? "hot" : "not hot");
	}
	ui_on_key(ui, VK_ESC);
	ui_on_key(ui, VK_ESC);

	/* help and facts */
	type(ui, "?");
	T_OK(row_with("Help") > 0 && row_with("export this view as CSV") > 0, "? shows the keys");
	keys(ui, "?");
	type(ui, "i");
	T_OK(row_with("Run facts") > 0 && row_with("argv") > 0 && row_with("lost") > 0,
	     "i shows metadata and counters");
	ui_on_key(ui, VK_ESC);

	/* export, with the command that gives the same CSV */
	char path[512], want[600], buf[256];
	snprintf(path, sizeof(path), "%s/out.csv", dir);
	type(ui, "x");
	T_OK(row_with("Export CSV to: pmcprof-functions.csv_") > 0, "x asks for a file name");
	keys(ui, "\x15");	/* ^U */
	keys(ui, path);
	press(ui, VK_ENTER);
	snprintf(want, sizeof(want), "wrote 5 rows to %s, as: pmcprof report --csv %s/base.pmcp",
		 path, dir);
	T_OK(row_with(want) > 0, "export says what it wrote and how to get it again: '%s'",
	     line(38));
	FILE *f = fopen(path, "r");
	T_OK(f && fgets(buf, sizeof(buf), f) && strncmp(buf, "event,function,", 15) == 0,
	     "the file is the analyzer's CSV");
	if (f)
		fclose(f);

	/* F: the view's flame graph, a new file each time, named on the message line */
	char cwd[4096], flame[600];
	T_OK(getcwd(cwd, sizeof(cwd)) && chdir(dir) == 0, "into the test directory");
	type(ui, "F");
	T_OK(row_with("wrote the flame graph to pmcprof-flame-topdown.svg") > 0,
	     "F says where the flame graph went: '%s'", line(38));
	type(ui, "F");
	T_OK(row_with("pmcprof-flame-topdown-2.svg") > 0, "F again does not overwrite it: '%s'",
	     line(38));
	snprintf(flame, sizeof(flame), "grep -q 'data-n=\"work_a\"' %s/pmcprof-flame-topdown.svg && "
		 "grep -q 'data-mode=\"top-down\"' %s/pmcprof-flame-topdown.svg", dir, dir);
	T_OK(system(flame) == 0, "the file is the analyzer's flame graph of the tree");
	keys(ui, "t");
	keys(ui, "t");
	type(ui, "F");
	snprintf(flame, sizeof(flame), "grep -q 'data-mode=\"bottom-up\"' %s/pmcprof-flame-bottomup.svg",
		 dir);
	T_OK(row_with("pmcprof-flame-bottomup.svg") > 0 && system(flame) == 0,
	     "F in the bottom-up tree draws it bottom-up: '%s'", line(38));
	ui_on_key(ui, VK_ESC);
	ui_on_key(ui, VK_ESC);
	T_OK(chdir(cwd) == 0, "back");

	/* sizes */
	static const struct {
		int line, w, h;
		const char *must;
	} sizes[] = {
		{ __LINE__, 80, 24, "Self%\u25bc  Incl%" }, { __LINE__, 200, 60, src_a },
		{ __LINE__, 40, 10, "work_a" },		 { __LINE__, 80, 24, "work_a" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		ui_on_key(ui, VK_RESIZE);
		draw(ui, sizes[i].w, sizes[i].h);
		T_OK(fits() && row_with(sizes[i].must) > 0, "line %d: %dx%d keeps the layout",
		     sizes[i].line, sizes[i].w, sizes[i].h);
	}
	draw(ui, 12, 4);
	T_OK(row_with("too small") == 0, "a tiny terminal says so");
	T_OK(keys(ui, "Z") & REACT_BODY, "an unknown key gets a hint");
	draw(ui, 80, 24);
	T_OK(row_with("? lists the keys") > 0, "the hint names ?");
	T_OK(keys(ui, "q") & REACT_QUIT, "q quits");

	/* a run added from inside */
	char add[512];
	snprintf(add, sizeof(add), "a%s/run.pmcp", dir);
	keys(ui, add);
	press(ui, VK_ENTER);
	y = row_with("Base%");
	T_OK(row_with("compare: base base.pmcp vs run.pmcp") == 0 && y > 0 &&
		     strstr(line(y), "run.pmcp"),
	     "a adds a run and turns compare mode on");
	snprintf(add, sizeof(add), "a%s/nonexistent.pmcp", dir);
	keys(ui, add);
	press(ui, VK_ENTER);
	T_OK(row_with("cannot add") > 0 && row_with("compare: base base.pmcp vs run.pmcp") == 0,
	     "a bad run is refused and the view stays");
	ui_free(ui);
}

static void test_compare(void)
{
	struct ui *ui = open_ui("base.pmcp", "run.pmcp");
	int y, x;

	T_OK(ui != NULL, "two runs open");
	if (!ui)
		return;
	draw(ui, 120, 40);
	y = row_with("Base%");
	x = canvas_mem_find(cv, y, "run.pmcp");
	T_OK(y > 0 && x > 0, "compare mode: a ratio column for the run: '%s'", line(y));
	static const struct {
		int line;
		const char *func, *cell;
		enum role role;
	} rows[] = {
		{ __LINE__, "work_b", "1.50 [", ROLE_UP },
		{ __LINE__, "work_a", "0.75 [", ROLE_DOWN },
		{ __LINE__, "work_c", "1.00 [", ROLE_NORMAL },
		{ __LINE__, "hot_lines", "only base", ROLE_WARN },
		{ __LINE__, "inline_caller", "only run", ROLE_WARN },
	};
	/* Twice, the selection first at the top then at the bottom, so that
	 * every row is seen unselected in its own colour once. */
	bool seen[ARRAY_SIZE(rows)] = { false };
	for (int pass = 0; pass < 2; pass++) {
		ui_on_key(ui, pass ? VK_END : VK_HOME);
		draw(ui, 120, 40);
		for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
			int r = row_with(rows[i].func);
			int c = r > 0 ? canvas_mem_find(cv, r, rows[i].cell) : -1;
			T_OK(c > 0, "line %d: %s shows '%s': '%s'", rows[i].line, rows[i].func,
			     rows[i].cell, r > 0 ? line(r) : "");
			if (c > 0 && canvas_mem_role(cv, r, 0) != ROLE_SELECTED)
				seen[i] = canvas_mem_role(cv, r, c) == rows[i].role;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++)
		T_OK(seen[i], "line %d: %s is in role %d", rows[i].line, rows[i].func, rows[i].role);
	y = row_with("work_b");
	T_OK(y > 0 && strstr(line(y), "]*"), "1.5x is significant: '%s'", line(y));
	y = row_with("work_c");
	T_OK(y > 0 && !strstr(line(y), "]*"), "1.0x is not");
	/* base.pmcp says perf_event, run.pmcp cputimer: a warning, behind i
	 * when the header has room for the first only */
	T_OK(row_with("! ") > 0 && row_with("press i") > 0, "the header warns, more behind i: '%s'",
	     line(4));
	type(ui, "i");
	T_OK(row_with("backend differs") > 0, "i: runs with different sources are flagged");
	press(ui, VK_ESC);
	y = row_with("Base%");
	type(ui, "r");
	T_OK(row_with("Base\u25bc") == y && row_with("ratio: samples in run") > 0, "r: raw counts");
	type(ui, "r");
	T_OK(row_with("pp run.pmcp") > 0 && strstr(line(row_with("work_b")), "+15 [+"),
	     "r again: delta in points: '%s'", line(row_with("work_b")));
	keys(ui, "r");
	type(ui, "sss");
	y = row_with("Base%");
	T_OK(row_with("run.pmcp\u25bc") == y && strstr(line(y + 1), "only"),
	     "s reaches ratio order in compare mode: '%s'", line(y + 1));
	draw(ui, 80, 24);
	T_OK(fits() && row_with("1.50") > 0, "compare mode at 80x24");
	char cwd[4096], flame[600];
	T_OK(getcwd(cwd, sizeof(cwd)) && chdir(dir) == 0, "into the test directory");
	type(ui, "F");
	snprintf(flame, sizeof(flame), "grep -q 'data-n=\"work_b\".*data-sig=\"1\"' "
		 "%s/pmcprof-flame-diff.svg", dir);
	T_OK(row_with("pmcprof-flame-diff.svg") > 0 && system(flame) == 0,
	     "F in compare mode: a differential flame graph, work_b significant: '%s'", line(38));
	T_OK(chdir(cwd) == 0, "back");
	type(ui, "c");
	T_OK(row_with("Self%") > 0 && row_with("run.pmcp") < 0, "c turns compare mode off");
	ui_free(ui);
}

/* A function's lines come from the analyzer's per-function query and
 * export as `report --csv --lines --function MODULE:f` does, byte for byte. */
static void test_function_lines(void)
{
	struct ui *ui = open_ui("base.pmcp", NULL);
	char path[512], want[1024], cmd[2048];
	int y;

	T_OK(ui != NULL, "a profile opens");
	if (!ui)
		return;
	search(ui, "work_b");
	press(ui, VK_ENTER);
	y = row_with("Lines of work_b (1)");
	snprintf(want, sizeof(want), "line %u", l_b);
	T_OK(y > 0 && strstr(line(y + 1), want), "Lines of work_b: its one line: '%s'",
	     y > 0 ? line(y + 1) : "");
	T_OK(row_with("hot_lines") < 0 && row_with("Lines of work_b (1)") > 0,
	     "only work_b's lines, no other function's");
	ui_on_key(ui, VK_TAB);
	ui_on_key(ui, VK_TAB);
	ui_on_key(ui, VK_DOWN);
	snprintf(path, sizeof(path), "%s/lines.csv", dir);
	type(ui, "x");
	T_OK(row_with("Export CSV to: pmcprof-lines.csv_") > 0, "x in the lines section: lines.csv");
	keys(ui, "\x15");
	keys(ui, path);
	ui_on_key(ui, VK_ENTER);
	draw(ui, 300, 40);
	snprintf(want, sizeof(want), "wrote 1 rows to %s, as: pmcprof report --csv --lines --function "
		 "ana_work:work_b %s/base.pmcp", path, dir);
	T_OK(row_with(want) > 0, "the message names the report command: '%s'", line(38));
	snprintf(cmd, sizeof(cmd), "%s/pmcprof report --csv --lines --function ana_work:work_b "
		 "%s/base.pmcp 2>/dev/null | cmp -s - %s", getenv("PMCPROF_BUILD"), dir, path);
	T_OK(system(cmd) == 0, "the export equals report --csv --lines --function");
	ui_free(ui);
}

/* r on a base of two repeats: raw counts compare the mean per repeat, so
 * work_b (3000 in each base repeat, 4500 in the run) stays 1.5x; the sum
 * of the repeats would make it 0.75x. */
static void test_raw_repeats(void)
{
	char pa[600], pb[256], err[512];
	char *runs[2] = { pa, pb };
	struct load_opts lo = { 0 };
	struct ui_opts uo = { .sz = sizeof(uo), .load = &lo, .compare = true };
	struct ana_set *s;
	struct ui *ui;
	int y;

	snprintf(pa, sizeof(pa), "%s/base.pmcp,%s/base.pmcp", dir, dir);
	snprintf(pb, sizeof(pb), "%s/run.pmcp", dir);
	ui = set_load(&s, runs, 2, &lo, err, sizeof(err)) == 0 ? ui_new(s, runs, 2, &uo) : NULL;
	T_OK(ui != NULL, "a base of two repeats opens");
	if (!ui)
		return;
	type(ui, "r");
	y = row_with("work_b");
	T_OK(row_with("ratio: samples in run") > 0 && y > 0 && strstr(line(y), " 1.50 ["),
	     "r over repeats: the mean per repeat, 1.5x: '%s'", y > 0 ? line(y) : "");
	ui_free(ui);
}

/* The directory the profile's debug info names for work_a's source.  It
 * is the path the compiler saw, not srcdir's realpath: in a VPATH build
 * (make distcheck) it goes through the build tree ("_build/sub/../.."). */
static bool recorded_src_dir(char *out, size_t len)
{
	char pa[256], err[512];
	char *runs[1] = { pa };
	struct load_opts lo = { 0 };
	struct ana_set *s;
	struct ana_rows *rows;
	bool ok = false;

	snprintf(pa, sizeof(pa), "%s/base.pmcp", dir);
	if (set_load(&s, runs, 1, &lo, err, sizeof(err)) != 0)
		return false;
	ANA_QUERY(q, .view = ANA_VIEW_FUNCS);
	rows = ana_set_query(s, &q);
	for (size_t i = 0; rows && i < ana_rows_n(rows) && !ok; i++) {
		const struct ana_row *r = ana_rows_row(rows, i);
		const char *slash = r->file ? strrchr(r->file, '/') : NULL;

		if (!strcmp(r->name, "work_a") && slash && slash > r->file) {
			snprintf(out, len, "%.*s", (int)(slash - r->file), r->file);
			ok = true;
		}
	}
	if (rows)
		ana_rows_free(rows);
	ana_set_free(s);
	return ok;
}

/* The annotated source is read where the analyzer finds it: --remap. */
static void test_source_remap(void)
{
	char moved[sizeof(dir) + 8], real[4096], remap[sizeof(real) + sizeof(moved) + 2];
	char cmd[sizeof(real) + 2 * sizeof(moved) + 64], title[sizeof(moved) + 32];

	snprintf(moved, sizeof(moved), "%s/moved", dir);
	bool found = recorded_src_dir(real, sizeof(real));

	T_OK(found, "work_a's source directory is recorded");
	if (!found)
		return;
	/* the recorded path is under real; the copy under moved */
	snprintf(cmd, sizeof(cmd), "mkdir -p %s && cp %s/ana_work.c %s/", moved, real, moved);
	snprintf(remap, sizeof(remap), "%s=%s", real, moved);
	const char *const rm[] = { remap, NULL };
	struct ui *ui = system(cmd) == 0 ? open_ui_remap("base.pmcp", NULL, rm) : NULL;
	T_OK(ui != NULL, "a profile opens with --remap");
	if (!ui)
		return;
	search(ui, "work_a");
	ui_on_key(ui, VK_ENTER);
	keys(ui, "l");
	draw(ui, 200, 40);
	snprintf(title, sizeof(title), "(from %s/ana_work.c)", moved);
	T_OK(row_with(title) >= 0 && strstr(selected(), at_a),
	     "the source is read from the remapped path: '%s'", line(1));
	ui_free(ui);
}

/* A cpu-clock run against a CPUTIME run (no PMU in a VM: the fallback and
 * the cputimer backend): compared event to event by share. */
static void test_compare_sources(void)
{
	struct ui *ui = open_ui("clock.pmcp", "cputime.pmcp");
	int y;

	T_OK(ui != NULL, "runs on different events open");
	if (!ui)
		return;
	draw(ui, 160, 40);
	T_OK(row_with("compare: base clock.pmcp (perf::CPU-CLOCK) vs cputime.pmcp (CPUTIME)") == 0,
	     "the title names each run's compared event: '%s'", line(0));
	static const struct {
		int line;
		const char *func;
	} alike[] = { { __LINE__, "work_a" }, { __LINE__, "work_b" }, { __LINE__, "work_c" } };
	for (size_t i = 0; i < ARRAY_SIZE(alike); i++) {
		y = row_with(alike[i].func);
		T_OK(y > 0 && strstr(line(y), "1.00 [") && !strstr(line(y), "only"),
		     "line %d: %s compares at 1.00: '%s'", alike[i].line, alike[i].func,
		     y > 0 ? line(y) : "");
	}
	T_OK(row_with("was sampled in") > 0 || row_with("backend differs") > 0,
	     "the different sources are warned about");
	keys(ui, "r");
	draw(ui, 160, 40);
	T_OK(row_with("pp cputime.pmcp") > 0 && row_with("no raw counts") > 0,
	     "r skips raw counts of different events: '%s'", line(38));
	keys(ui, "i");
	draw(ui, 160, 60);
	T_OK(row_with("perf::CPU-CLOCK [shown]") > 0 && row_with("CPUTIME [shown]") > 0,
	     "i: each run's compared event is the one [shown]");
	ui_free(ui);
}

/* Panels with no rows of their own (annotate, source, help) leave out
 * those ops: x has nothing to export, no command prints them, and their
 * keys fall through to the table. */
static void test_no_rows(void)
{
	static const struct {
		int line;
		const char *open;	/* keys, then Enter if enter */
		bool enter;
		const char *title;
	} panels[] = {
		{ __LINE__, "A", false, "Annotate work_a" },
		{ __LINE__, "l", true, "hot lines > ([ ] jump)" },
		{ __LINE__, "?", false, "Help" },
	};
	struct ui *ui = open_ui("base.pmcp", NULL);
	char cmd[1024];

	T_OK(ui != NULL, "base.pmcp opens");
	for (size_t i = 0; ui && i < ARRAY_SIZE(panels); i++) {
		keys(ui, panels[i].open);
		if (panels[i].enter)
			ui_on_key(ui, VK_ENTER);
		ui_on_key(ui, VK_HOME);
		ui_on_key(ui, VK_DOWN);
		size_t sel = ui_top(ui)->t.sel;
		keys(ui, "x");
		draw(ui, 160, 40);
		T_OK(row_with(panels[i].title) >= 0 && sel == 1 &&
			     row_with("nothing to export here") >= 0 &&
			     !ui_command(ui, cmd, sizeof(cmd)),
		     "line %d: '%s' has no rows to export, Down moves (row %zu)", panels[i].line,
		     panels[i].title, sel);
		dump_if_failed();
		while (ui->depth > 1)
			ui_pop(ui);
	}
	ui_free(ui);
}

static void test_bad(void)
{
	char path[512], err[512], *runs[1] = { path };
	struct load_opts lo = { 0 };
	struct ana_set *s = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "%s/bad.pmcp", dir);
	f = fopen(path, "w");
	if (f) {
		fputs("this is not a profile\n", f);
		fclose(f);
	}
	T_OK(set_load(&s, runs, 1, &lo, err, sizeof(err)) != 0 && s == NULL &&
		     strstr(err, "not a pmcprof profile"),
	     "a bad file is refused with the reader's words: '%s'", err);
	snprintf(path, sizeof(path), "%s/missing.pmcp", dir);
	T_OK(set_load(&s, runs, 1, &lo, err, sizeof(err)) != 0 && strstr(err, "missing.pmcp"),
	     "a missing file names itself: '%s'", err);
}

int main(void)
{
	char cmd[600];

	if (!getenv("PMCPROF_BUILD")) {
		T_SKIP("PMCPROF_BUILD unset: run from make check");
		return 77;
	}
	if (!setlocale(LC_ALL, "C.UTF-8")) {
		T_SKIP("no C.UTF-8 locale");
		return 77;
	}
	text_utf8 = true;
	if (!mkdtemp(dir))
		return 1;
	char src[1024], hot[600];
	snprintf(src, sizeof(src), "%s/tests/progs/ana_work.c", getenv("PMCPROF_SRC") ?
		 getenv("PMCPROF_SRC") : ".");
	l_a = line_of(src, "void work_a(");
	l_b = line_of(src, "void work_b(");
	l_c = line_of(src, "void work_c(");
	l_hot = line_of(src, "HOT_LOOP */");
	l_def = line_of(src, "#define UNIT");
	if (!l_a || !l_b || !l_c || !l_hot || !l_def) {
		T_SKIP("cannot find work_a, work_b, work_c, HOT_LOOP and UNIT in %s", src);
		return 77;
	}
	snprintf(at_a, sizeof(at_a), ">%u ", l_a);
	snprintf(at_b, sizeof(at_b), ">%u ", l_b);
	snprintf(at_c, sizeof(at_c), " %u ", l_c);
	snprintf(at_def, sizeof(at_def), " %u #define", l_def);
	snprintf(src_a, sizeof(src_a), "ana_work.c:%u", l_a);
	snprintf(hot, sizeof(hot), "'main;work_a=6000,100' 'main;work_b=3000,200' "
		 "'main;work_c=900,300' 'main;hot_lines:%u=100,400'", l_hot);
	/* work_b's share goes from 30% to 45%: a known 1.5x */
	int rc = mkprofile("base.pmcp",
			   "-e cycles@1000=hw-cycles -e instructions@2000 -m 'argv=ana_work split' "
			   "-m backend=perf_event -m hypervisor=kvm -c samples=10000 -c lost=300",
			   hot);
	rc |= mkprofile("run.pmcp", "-e cycles@1000 -e instructions@2000 -m backend=cputimer",
			"'main;work_a=4500,100' 'main;work_b=4500,200' 'main;work_c=900,300' "
			"'main;inline_caller=100,5'");
	/* the same program sampled by cpu-clock and by CPUTIME */
	rc |= mkprofile("clock.pmcp", "-e perf::CPU-CLOCK@1000000=cpu-clock -m backend=perf_event",
			"'main;work_a=6000' 'main;work_b=3000' 'main;work_c=1000'");
	rc |= mkprofile("cputime.pmcp", "-e CPUTIME@1000 -m backend=cputimer",
			"'main;work_a=3000' 'main;work_b=1500' 'main;work_c=500'");
	T_OK(rc == 0, "test profiles written");
	if (rc == 0) {
		test_columns_model();
		test_functions();
		dump_if_failed();
		test_compare();
		dump_if_failed();
		test_raw_repeats();
		dump_if_failed();
		test_function_lines();
		dump_if_failed();
		test_source_remap();
		dump_if_failed();
		test_compare_sources();
		dump_if_failed();
		test_no_rows();
		test_bad();
	}
	canvas_mem_free(cv);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	return T_DONE();
}

/* The screen manager: a stack of panels under a header of run facts, with
 * a message/prompt line and a key bar.  Keys go to the prompt, then the
 * top panel, then its table, then the global key table; each handler says
 * what to redraw. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viewer-tui/view.h"

const struct keyhelp ui_keyhelp[] = {
	{ "Up Down PgUp PgDn Home End", "move (also j k, the mouse wheel and a click)", NULL },
	{ "Enter", "open: a function's callers, callees and lines; a line's source; "
		   "in a tree, open or close", "Open" },
	{ "Esc Left Backspace", "back to the previous view", NULL },
	{ "/ n N", "search names as you type; n and N: next and previous match", "Search" },
	{ "s", "sort by: self, inclusive, name, ratio (compare mode)", "Sort" },
	{ "e", "next event", "Event" },
	{ "t", "calling-context tree: top-down, t again bottom-up, t again back", "Tree" },
	{ "l", "source lines; in a function: its annotated source", "Lines" },
	{ "m", "modules", NULL },
	{ "A", "on a function (a row, a function's page, a tree frame): annotate, its "
	       "instructions with their share of its samples under their source lines "
	       "('|': inlined code)", "Annotate" },
	{ "c", "compare mode on and off: one ratio column per run against the base", "Compare" },
	{ "r", "ratio in compare mode: share of run / share of base, raw counts, "
	       "delta in percentage points", NULL },
	{ "a", "add a run (file or directory) to compare", NULL },
	{ "i", "run facts: command, backend, events and periods, collector counters, notes",
	  NULL },
	{ "x", "export this view as CSV (the same as pmcprof report/diff --csv)", "CSV" },
	{ "F", "write this view's flame graph to pmcprof-flame-*.svg in the current directory "
	       "(a tree: its direction; compare mode: differential against the base)", NULL },
	{ "[ ]", "in the source: previous and next hot line", NULL },
	{ "?", "this help", "Help" },
	{ "q", "quit", "Quit" },
};
const size_t ui_n_keyhelp = ARRAY_SIZE(ui_keyhelp);

struct panel *ui_top(struct ui *ui)
{
	return ui->depth ? ui->stack[ui->depth - 1] : NULL;
}

void ui_message(struct ui *ui, enum role r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ui->msg, sizeof(ui->msg), fmt, ap);
	va_end(ap);
	ui->msg_role = r;
}

/* Re-run the top panel's queries if the state moved on since. */
static void ensure_fresh(struct ui *ui)
{
	struct panel *p = ui_top(ui);
	int rc;

	if (!p || p->gen == ui->st.gen)
		return;
	rc = p->ops->refresh(p, ui);
	if (rc != 0)
		ui_message(ui, ROLE_WARN, "cannot update the view: %s", ana_strerror(rc));
	p->gen = ui->st.gen;
}

int ui_push(struct ui *ui, struct panel *p)
{
	int rc;

	if (!p) {
		rc = -errno;
		ui_message(ui, ROLE_WARN, "cannot open: %s", ana_strerror(rc));
		return rc;
	}
	if (ui->depth == UI_DEPTH) {
		panel_free(p);
		ui_message(ui, ROLE_WARN, "too many views open: press Esc to go back");
		return -E2BIG;
	}
	rc = p->ops->refresh(p, ui);
	if (rc != 0) {
		ui_message(ui, ROLE_WARN, "cannot open: %s", ana_strerror(rc));
		panel_free(p);
		return rc;
	}
	p->gen = ui->st.gen;
	ui->stack[ui->depth++] = p;
	return 0;
}

void ui_pop(struct ui *ui)
{
	if (ui->depth <= 1)
		return;
	struct panel *p = ui->stack[--ui->depth];
	panel_free(p);
	ensure_fresh(ui);
}

static void pop_all(struct ui *ui)
{
	while (ui->depth > 0) {
		struct panel *p = ui->stack[--ui->depth];
		panel_free(p);
	}
}

/* ---- global keys ---- */

static enum react key_quit(struct ui *ui)
{
	(void)ui;
	return REACT_QUIT;
}

static enum react key_back(struct ui *ui)
{
	if (ui->depth <= 1)
		return REACT_HANDLED;
	ui_pop(ui);
	return REACT_ALL;
}

static enum react key_help(struct ui *ui)
{
	ui_push(ui, panel_help_new(ui));
	return REACT_ALL;
}

static enum react key_facts(struct ui *ui)
{
	ui_push(ui, panel_facts_new(ui));
	return REACT_ALL;
}

static enum react key_tree(struct ui *ui)
{
	ui_push(ui, panel_tree_new(ui, false, NULL));
	return REACT_ALL;
}

static enum react key_lines(struct ui *ui)
{
	ui_push(ui, panel_flat_new(ui, FLAT_LINES));
	return REACT_ALL;
}

static enum react key_modules(struct ui *ui)
{
	ui_push(ui, panel_flat_new(ui, FLAT_MODULES));
	return REACT_ALL;
}

static enum react key_sort(struct ui *ui)
{
	struct view_state *st = &ui->st;
	const char *ev = ana_set_event(ui->set, st->event);

	/* self -> inclusive -> name -> ratio (compare only) -> self */
	if (st->sort == ANA_SORT_VALUE && st->kind == ANA_SELF) {
		st->kind = ANA_INCL;
	} else if (st->sort == ANA_SORT_VALUE) {
		st->sort = ANA_SORT_NAME;
	} else if (st->sort == ANA_SORT_NAME && st->compare) {
		st->sort = ANA_SORT_RATIO;
	} else {
		st->sort = ANA_SORT_VALUE;
		st->kind = ANA_SELF;
	}
	if (st->sort == ANA_SORT_VALUE)
		ui_message(ui, ROLE_NORMAL, "sorted by %s %s", st->kind == ANA_SELF ? "self" :
				"inclusive", ev ? ev : "");
	else
		ui_message(ui, ROLE_NORMAL, "sorted by %s", st->sort == ANA_SORT_NAME ? "name" :
				"how far the ratio is from 1 (|log ratio|)");
	return REACT_REQUERY;
}

/* Raw counts of different events do not compare (the analyzer refuses
 * them): after the event or the runs changed, back to shares. */
static void keep_ratio_valid(struct ui *ui)
{
	if (ui->st.ratio != ANA_RATIO_RAW || !view_events_differ(&ui->st, ui->set))
		return;
	ui->st.ratio = ANA_RATIO_SHARE;
	ui_message(ui, ROLE_WARN, "ratio: shares (the runs sampled different events: raw "
		   "counts do not compare)");
}

static enum react key_event(struct ui *ui)
{
	size_t n = ana_set_n_events(ui->set);

	if (n <= 1) {
		ui_message(ui, ROLE_NORMAL, "this profile has one event only");
		return REACT_BODY;
	}
	ui->st.event = (ui->st.event + 1) % n;
	ui_message(ui, ROLE_NORMAL, "event %zu of %zu: %s", ui->st.event + 1, n,
		   ana_set_event(ui->set, ui->st.event));
	keep_ratio_valid(ui);
	return REACT_REQUERY;
}

static enum react key_compare(struct ui *ui)
{
	if (ana_set_n_runs(ui->set) < 2) {
		ui_message(ui, ROLE_WARN, "compare mode needs two runs: press a to add one, "
			   "or start with pmcprof view BASE RUN");
		return REACT_BODY;
	}
	ui->st.compare = !ui->st.compare;
	if (!ui->st.compare && ui->st.sort == ANA_SORT_RATIO)
		ui->st.sort = ANA_SORT_VALUE;
	keep_ratio_valid(ui);
	ui_message(ui, ROLE_NORMAL, "compare mode %s", ui->st.compare ? "on" : "off");
	return REACT_REQUERY;
}

static enum react key_ratio(struct ui *ui)
{
	static const char *const what[] = {
		[ANA_RATIO_SHARE] = "share in run / share in base",
		[ANA_RATIO_RAW] = "samples in run / samples in base",
		[ANA_RATIO_DELTA] = "share in run - share in base, in percentage points",
	};

	if (!ui->st.compare) {
		ui_message(ui, ROLE_NORMAL, "r chooses the ratio in compare mode: press c first");
		return REACT_BODY;
	}
	ui->st.ratio = ui->st.ratio == ANA_RATIO_SHARE ? ANA_RATIO_RAW
		       : ui->st.ratio == ANA_RATIO_RAW ? ANA_RATIO_DELTA : ANA_RATIO_SHARE;
	if (ui->st.ratio == ANA_RATIO_RAW && view_events_differ(&ui->st, ui->set)) {
		/* shares and deltas compare across sample sources; counts do not */
		ui->st.ratio = ANA_RATIO_DELTA;
		ui_message(ui, ROLE_NORMAL, "ratio: %s (no raw counts: the runs sampled "
			   "different events)", what[ui->st.ratio]);
		return REACT_REQUERY;
	}
	ui_message(ui, ROLE_NORMAL, "ratio: %s", what[ui->st.ratio]);
	return REACT_REQUERY;
}

static enum react start_prompt(struct ui *ui, enum prompt_kind k, const char *init)
{
	ui->prompt = k;
	snprintf(ui->input, sizeof(ui->input), "%s", init);
	return REACT_BODY;
}

static enum react key_search(struct ui *ui)
{
	ui->search_from = ui_top(ui)->t.sel;
	return start_prompt(ui, PROMPT_SEARCH, "");
}

static enum react search_again(struct ui *ui, int dir)
{
	struct tui_table *t = &ui_top(ui)->t;
	size_t n = tui_table_n_rows(t);

	if (!ui->search[0]) {
		ui_message(ui, ROLE_NORMAL, "no search yet: press / first");
		return REACT_BODY;
	}
	if (n == 0 || !tui_table_search(t, ui->search, dir > 0 ? t->sel + 1 : t->sel + n - 1, dir))
		ui_message(ui, ROLE_WARN, "not found: %s", ui->search);
	return REACT_BODY;
}

static enum react key_next(struct ui *ui)
{
	return search_again(ui, 1);
}

static enum react key_prev(struct ui *ui)
{
	return search_again(ui, -1);
}

static enum react key_export(struct ui *ui)
{
	struct panel *p = ui_top(ui);
	char name[128];

	if (!panel_rows(p)) {
		ui_message(ui, ROLE_WARN, "nothing to export here: x exports functions, lines, "
			   "modules, callers, callees and the tree's top level");
		return REACT_BODY;
	}
	snprintf(name, sizeof(name), "pmcprof-%s.csv", p->ops->slug(p));
	return start_prompt(ui, PROMPT_EXPORT, name);
}

static enum react key_flame(struct ui *ui)
{
	char path[64];

	if (ui_flame(ui, path, sizeof(path)) == 0)
		ui_message(ui, ROLE_NORMAL, "wrote the flame graph to %s (open it in a browser)", path);
	return REACT_BODY;
}

static enum react key_add(struct ui *ui)
{
	return start_prompt(ui, PROMPT_ADD, "");
}

static enum react key_click(struct ui *ui)
{
	struct tui_table *t = &ui_top(ui)->t;
	int row = ui->click_y - ui->body_y - 1;

	if (row < 0 || row >= ui->body_h - 1 || t->top + (size_t)row >= tui_table_n_rows(t))
		return REACT_HANDLED;
	if (t->top + (size_t)row == t->sel)	/* a click on the selection opens it */
		return ui_on_key(ui, VK_ENTER);
	tui_table_select(t, t->top + (size_t)row);
	return REACT_BODY;
}

static enum react key_redraw(struct ui *ui)
{
	(void)ui;
	return REACT_ALL;
}

static const struct {
	int key;
	enum react (*fn)(struct ui *ui);
} global_keys[] = {
	{ 'q', key_quit },	{ VK_ESC, key_back },	 { VK_LEFT, key_back },
	{ VK_BACKSPACE, key_back }, { 'h', key_back },	 { '?', key_help },
	{ 'i', key_facts },	{ 't', key_tree },	 { 'l', key_lines },
	{ 'm', key_modules },	{ 's', key_sort },	 { 'e', key_event },
	{ 'c', key_compare },	{ 'r', key_ratio },	 { '/', key_search },
	{ 'n', key_next },	{ 'N', key_prev },	 { 'x', key_export },
	{ 'a', key_add },	{ VK_CLICK, key_click }, { VK_CTRL('l'), key_redraw },
	{ 'F', key_flame },
};

/* ---- adding a run ---- */

static void draw_message(struct ui *ui, struct canvas *c);

static void add_progress(void *arg, const char *phase, uint64_t done, uint64_t total)
{
	struct ui *ui = arg;

	if (total)
		ui_message(ui, ROLE_NORMAL, "loading: %s %llu%%", phase,
			   (unsigned long long)(done * 100 / total));
	else
		ui_message(ui, ROLE_NORMAL, "loading: %s %llu", phase, (unsigned long long)done);
	if (ui->canvas && ui->canvas->flush) {
		draw_message(ui, ui->canvas);
		ui->canvas->flush(ui->canvas);
	}
}

static void add_run(struct ui *ui, const char *path)
{
	struct load_opts lo = ui->load;
	struct ana_set *s;
	char err[512], **runs, *copy;
	int rc;

	runs = realloc(ui->runs, (ui->n_runs + 1) * sizeof(*runs));
	if (!runs || !(copy = strdup(path))) {
		if (runs)
			ui->runs = runs;
		ui_message(ui, ROLE_WARN, "out of memory");
		return;
	}
	ui->runs = runs;
	runs[ui->n_runs] = copy;
	lo.progress_fn = add_progress;
	lo.progress_arg = ui;
	add_progress(ui, "read", 0, 0);
	/* The set is rebuilt: a finished set takes no more runs. */
	rc = set_load(&s, runs, ui->n_runs + 1, &lo, err, sizeof(err));
	/* --time: a run with nothing in the slice has nothing to compare */
	if (rc == 0 && set_time_empty(s, &lo, err, sizeof(err)) >= 0) {
		ana_set_free(s);
		rc = -ANA_ENODATA;
	}
	if (rc != 0) {
		free(copy);
		ui_message(ui, ROLE_WARN, "cannot add %s: %s", path, err);
		return;
	}
	ui->n_runs++;
	pop_all(ui);	/* rows point into the old set */
	ana_set_free(ui->set);
	ui->set = s;
	if (ui->st.event >= ana_set_n_events(s))
		ui->st.event = 0;
	ui->st.compare = true;
	ui->st.gen++;
	bool was_raw = ui->st.ratio == ANA_RATIO_RAW;
	keep_ratio_valid(ui);
	if (ui_push(ui, panel_flat_new(ui, FLAT_FUNCS)) == 0)
		ui_message(ui, ROLE_NORMAL, "added run %zu (%s): compare mode on%s", ui->n_runs - 1,
			   path, was_raw && ui->st.ratio != ANA_RATIO_RAW ? ", by share (other "
			   "events: no raw counts)" : "");
}

/* ---- export ---- */

int ui_flame(struct ui *ui, char *path, size_t len)
{
	struct panel *p = ui_top(ui);
	bool bottomup = !strcmp(p->ops->slug(p), "bottomup");
	struct ana_query q;
	FILE *f = NULL;
	int rc;

	view_query(&ui->st, bottomup ? ANA_VIEW_BOTTOMUP : ANA_VIEW_TOPDOWN, &q);
	q.node = ANA_ROOT;
	q.max_depth = UINT_MAX;
	q.sort = ANA_SORT_NAME;	/* stable left-to-right order, as flame graphs have */
	q.min_samples = 0;
	struct ana_rows *rows = ana_set_query(ui->set, &q);
	if (!rows) {
		rc = -errno;
		ui_message(ui, ROLE_WARN, "no flame graph: %s", ana_strerror(rc));
		return rc;
	}
	/* a new file each time: never overwrite one written before */
	const char *what = ui->st.compare ? "diff" : bottomup ? "bottomup" : "topdown";
	for (int n = 1; n < 1000 && !f; n++) {
		if (n == 1)
			snprintf(path, len, "pmcprof-flame-%s.svg", what);
		else
			snprintf(path, len, "pmcprof-flame-%s-%d.svg", what, n);
		f = fopen(path, "wx");
		if (!f && errno != EEXIST)
			break;
	}
	if (!f) {
		rc = -errno;
		ui_message(ui, ROLE_WARN, "cannot write %s: %s", path, strerror(errno));
		ana_rows_free(rows);
		return rc;
	}
	ANA_FLAME_OPTS(fo, .run = ui->st.base);
	rc = ana_rows_write_flame(rows, &fo, f);
	if (fclose(f) && !rc)
		rc = -errno;
	ana_rows_free(rows);
	if (rc) {
		if (rc == -EINVAL)
			ui_message(ui, ROLE_WARN, "no flame graph of a metric: press e for an event");
		else
			ui_message(ui, ROLE_WARN, "cannot write %s: %s", path, ana_strerror(rc));
		remove(path);
	}
	return rc;
}

int ui_export(struct ui *ui, const char *path)
{
	struct panel *p = ui_top(ui);
	const struct ana_rows *rows = panel_rows(p);
	char full[4096];
	const char *home = getenv("HOME");
	FILE *f;
	int rc;

	if (!rows) {
		ui_message(ui, ROLE_WARN, "nothing to export here");
		return -EINVAL;
	}
	if (strncmp(path, "~/", 2) == 0 && home)
		snprintf(full, sizeof(full), "%s/%s", home, path + 2);
	else
		snprintf(full, sizeof(full), "%s", path);
	f = fopen(full, "w");
	if (!f) {
		rc = -errno;
		ui_message(ui, ROLE_WARN, "cannot write %s: %s", full, ana_strerror(rc));
		return rc;
	}
	rc = ana_rows_write_csv(rows, f);
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	if (rc != 0)
		ui_message(ui, ROLE_WARN, "cannot write %s: %s", full, ana_strerror(rc));
	else {
		char cmd[2048];
		if (ui_command(ui, cmd, sizeof(cmd)))
			ui_message(ui, ROLE_NORMAL, "wrote %zu rows to %s, as: %s", ana_rows_n(rows),
				   full, cmd);
		else
			ui_message(ui, ROLE_NORMAL, "wrote %zu rows to %s", ana_rows_n(rows), full);
	}
	return rc;
}

/* A shell word: quoted when it has to be. */
static void quote(char *buf, size_t len, const char *s)
{
	size_t n = strlen(buf);

	if (s[0] && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			      "0123456789_-+=/.,:@%") == strlen(s)) {
		snprintf(buf + n, len - n, " %s", s);
		return;
	}
	snprintf(buf + n, len - n, " '");
	for (; *s && (n = strlen(buf)) + 5 < len; s++)
		snprintf(buf + n, len - n, *s == '\'' ? "'\\''" : "%c", *s);
	n = strlen(buf);
	snprintf(buf + n, len - n, "'");
}

bool ui_command(struct ui *ui, char *buf, size_t len)
{
	struct panel *p = ui_top(ui);
	char args[1024];
	size_t n;

	if (!p->ops->command || !panel_rows(p) || !p->ops->command(p, ui, args, sizeof(args)))
		return false;
	if (!ui->st.compare && ui->n_runs > 1)
		return false;	/* the rows hold every run: report would merge them */
	snprintf(buf, len, "pmcprof %s --csv%s", ui->st.compare ? "diff" : "report", args);
	if (ui->st.event != 0)
		quote(buf, len, "-e"), quote(buf, len, ana_set_event(ui->set, ui->st.event));
	n = strlen(buf);
	if (ui->load.weighted)
		snprintf(buf + n, len - n, " --weight");
	if (ui->load.time_spec)
		quote(buf, len, "--time"), quote(buf, len, ui->load.time_spec);
	for (size_t i = 0; i < ui->n_runs; i++)
		quote(buf, len, ui->runs[i]);
	return true;
}

/* ---- the prompt line ---- */

static enum react prompt_key(struct ui *ui, int key)
{
	struct tui_table *t = &ui_top(ui)->t;
	size_t len = strlen(ui->input);
	enum prompt_kind k = ui->prompt;

	switch (key) {
	case VK_ESC:
		if (k == PROMPT_SEARCH)
			tui_table_select(t, ui->search_from);
		ui->prompt = PROMPT_NONE;
		return REACT_BODY;
	case VK_ENTER:
		ui->prompt = PROMPT_NONE;
		if (k == PROMPT_SEARCH) {
			if (ui->input[0])
				snprintf(ui->search, sizeof(ui->search), "%s", ui->input);
			return REACT_BODY;
		}
		if (!ui->input[0])
			return REACT_BODY;
		if (k == PROMPT_EXPORT)
			ui_export(ui, ui->input);
		else
			add_run(ui, ui->input);
		return REACT_ALL;
	case VK_BACKSPACE:
		while (len > 0 && ((unsigned char)ui->input[len - 1] & 0xc0) == 0x80)
			len--;	/* a whole UTF-8 character */
		if (len > 0)
			len--;
		ui->input[len] = '\0';
		break;
	case VK_CTRL('u'):
		ui->input[0] = '\0';
		break;
	default:
		if (key < 0x20 || key > 0xff || key == 0x7f)
			return REACT_HANDLED;
		if (len + 1 < sizeof(ui->input)) {
			ui->input[len] = (char)key;
			ui->input[len + 1] = '\0';
		}
		break;
	}
	if (k == PROMPT_SEARCH) {	/* incremental: from where it started */
		ui->msg[0] = '\0';
		if (!ui->input[0])
			tui_table_select(t, ui->search_from);
		else if (!tui_table_search(t, ui->input, ui->search_from, 1))
			ui_message(ui, ROLE_WARN, "not found");
	}
	return REACT_BODY;
}

enum react ui_on_key(struct ui *ui, int key)
{
	struct panel *p = ui_top(ui);
	bool had_msg = ui->msg[0] != '\0';
	enum react r;

	if (key == VK_RESIZE)
		return REACT_ALL;
	if (ui->prompt != PROMPT_NONE)
		return prompt_key(ui, key);
	ui->msg[0] = '\0';
	r = panel_on_key(p, ui, key);
	if (r == REACT_NONE)
		r = tui_table_on_key(&ui_top(ui)->t, key);
	for (size_t i = 0; r == REACT_NONE && i < ARRAY_SIZE(global_keys); i++)
		if (global_keys[i].key == key)
			r = global_keys[i].fn(ui);
	if (r & REACT_REQUERY) {
		ui->st.gen++;
		ensure_fresh(ui);
		r |= REACT_ALL;
	}
	if (r == REACT_NONE && key < 0x80 && key > 0x20) {
		ui_message(ui, ROLE_NORMAL, "'%c' does nothing here: ? lists the keys", key);
		r = REACT_BODY;
	}
	if (had_msg || ui->msg[0])
		r |= REACT_BODY;
	return r;
}

/* ---- drawing ---- */

struct hline {
	char text[512];
	enum role role;
	int prio;
};

/* The facts worth a place in the header, and the metadata key of each;
 * `i` lists everything. */
static const struct {
	const char *label, *key;
} header_facts[] = {
	{ "backend", "backend" }, { "hypervisor", "hypervisor" }, { "vPMU", "vpmu" },
	{ "fell back:", "fallback" }, { "host", "host" }, { "cpu", "cpu_model" },
};

static void append(char *buf, size_t len, const char *sep, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void append(char *buf, size_t len, const char *sep, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n && n + strlen(sep) < len) {
		strcpy(buf + n, sep);
		n += strlen(sep);
	}
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

static const char *run_label(const struct ana_set *s, unsigned run)
{
	return text_basename(ana_facts_get(ana_set_facts(s, run), ANA_FACT_LABEL)->text);
}

/* Compare mode: the base and the runs, with the event each is compared
 * on when they differ (a fallback, another backend). */
static void compare_title(struct ui *ui, struct hline *h, const char *sep)
{
	const struct ana_set *s = ui->set;
	bool differ = view_events_differ(&ui->st, s);

	append(h->text, sizeof(h->text), "", "compare: base %s", run_label(s, ui->st.base));
	if (differ)
		append(h->text, sizeof(h->text), " ", "(%s)",
		       ana_set_event(s, view_run_event(&ui->st, s, ui->st.base)));
	append(h->text, sizeof(h->text), " ", "vs");
	for (unsigned r = 0; r < ana_set_n_runs(s); r++) {
		if (r == ui->st.base)
			continue;
		append(h->text, sizeof(h->text), " ", "%s", run_label(s, r));
		if (differ)
			append(h->text, sizeof(h->text), " ", "(%s)",
			       ana_set_event(s, view_run_event(&ui->st, s, r)));
	}
	if (differ)
		append(h->text, sizeof(h->text), sep, "different events: by share");
}

/* 1: what ran */
static void title_line(struct ui *ui, const struct ana_facts *f, struct hline *h, const char *sep)
{
	const char *cmd = ana_facts_get(f, ANA_FACT_COMMAND)->text;
	uint64_t files = ana_facts_get(f, ANA_FACT_FILES)->count;
	unsigned n_runs = ana_set_n_runs(ui->set);

	h->role = ROLE_TITLE;
	h->prio = 100;
	if (ui->st.compare) {
		compare_title(ui, h, sep);
	} else {
		append(h->text, sizeof(h->text), "", "%s",
		       cmd ? cmd : ana_facts_get(f, ANA_FACT_LABEL)->text);
		append(h->text, sizeof(h->text), sep, "%llu file%s", (unsigned long long)files,
		       files == 1 ? "" : "s");
		if (n_runs > 1)
			append(h->text, sizeof(h->text), sep, "run 1 of %u (c: compare)", n_runs);
	}
	/* on the line that always shows: every count below is of the slice */
	if (ana_facts_slice(f))
		append(h->text, sizeof(h->text), sep, "--time %s", ana_facts_slice(f));
}

/* 2: where and how it was measured */
static void where_line(const struct ana_facts *f, struct hline *h, const char *sep)
{
	h->role = ROLE_HEADER;
	h->prio = 70;
	for (size_t i = 0; i < ARRAY_SIZE(header_facts); i++) {
		const char *v = ana_facts_meta_str(f, header_facts[i].key);
		char fit[256];
		/* Each fact short, so that a long one (a fallback's reason) does
		 * not push the others off the line; `i` has them in full. */
		if (*v && text_elide(fit, sizeof(fit), v, 36) >= 0)
			append(h->text, sizeof(h->text), sep, "%s %s", header_facts[i].label, fit);
	}
}

/* 3: events with periods and sample counts; the shown one in brackets */
static void events_line(const struct ana_facts *f, size_t shown, struct hline *h, const char *sep)
{
	size_t n;
	const struct ana_fact *ev = ana_facts_all(f, ANA_FACT_EVENT, &n);

	h->role = ROLE_HEADER;
	h->prio = 80;
	for (const struct ana_fact *x = ev; x < ev + n; x++) {
		const struct ana_event_fact *e = x->event;
		char per[48], asked[96] = "";
		/* another run's event (compare mode): not the base's to show */
		if (x->flags & ANA_FACT_ABSENT && x->ref != shown)
			continue;
		if (e->freq)
			snprintf(per, sizeof(per), "@f%llu", (unsigned long long)e->freq);
		else
			snprintf(per, sizeof(per), "@%llu", (unsigned long long)e->period);
		/* What was asked for, when something else was used. */
		if (x->flags & ANA_FACT_SUBSTITUTED)
			snprintf(asked, sizeof(asked), " (asked %s)", x->text);
		append(h->text, sizeof(h->text), sep, "%s%s%s%s%s %llu samples%s",
		       x->ref == shown ? "[" : "", x->key, per, asked, e->mixed ? " (mixed!)" : "",
		       (unsigned long long)x->count, x->ref == shown ? "]" : "");
	}
}

/* 4: the collector's counters, those warned about first (the warnings
 * line carries the warning when space is short); the trust flags say
 * what the raw ones (thread_cpu_ns, ...) mean */
static void counters_line(const struct ana_facts *f, struct hline *h, const char *sep)
{
	size_t n;
	const struct ana_fact *ctr = ana_facts_all(f, ANA_FACT_COUNTER, &n);

	h->role = ROLE_HEADER;
	h->prio = 60;
	for (int pass = 0; pass < 2; pass++)
		for (const struct ana_fact *x = ctr; x < ctr + n; x++) {
			bool warn = x->severity >= ANA_NOTE_WARN;
			if (x->flags & ANA_FACT_HIDDEN || warn != (pass == 0))
				continue;
			if (warn)
				h->role = ROLE_WARN;
			if (x->count || warn)
				append(h->text, sizeof(h->text), sep, "%s%s %llu", warn ? "!" : "",
				       x->key, (unsigned long long)x->count);
		}
}

/* 5: warnings: the trust flags of every run first (an emulated run or
 * lost samples change what the whole comparison means; steal has its own
 * note), then the analyzer's notes (bad files, losses, runs with
 * different sample sources, events or periods) */
static void warnings_line(const struct ana_set *s, struct hline *h, const char *sep)
{
	const char *first_warn = NULL;
	size_t warns = 0;

	for (unsigned r = 0; r < ana_set_n_runs(s); r++) {
		const struct ana_fact *t = ana_facts_get(ana_set_facts(s, r), ANA_FACT_TRUST);
		unsigned fl = t ? (unsigned)t->count & ~(unsigned)ANA_TRUST_STEAL : 0;
		char buf[128];
		if (fl)
			append(h->text, sizeof(h->text), sep, "! %s: %s", run_label(s, r),
			       ana_trust_str(fl, buf, sizeof(buf)));
	}
	for (size_t i = 0; i < ana_set_n_notes(s); i++) {
		const struct ana_note *no = ana_set_note(s, i);
		if (no && no->severity != ANA_NOTE_INFO && warns++ == 0)
			first_warn = no->msg;
	}
	if (first_warn)
		append(h->text, sizeof(h->text), sep, "! %s%s", first_warn,
		       warns > 1 ? " (more: press i)" : "");
	h->role = ROLE_WARN;
	h->prio = 90;
}

/* Header lines, most important first by prio; returns how many. */
static size_t header_lines(struct ui *ui, struct hline *h, size_t max)
{
	const struct ana_facts *f = ana_set_facts(ui->set, ui->st.base);
	const char *sep = text_utf8 ? " \u00b7 " : " | ";
	size_t n = 1;

	if (!f || max < 5)
		return 0;
	memset(h, 0, 5 * sizeof(*h));
	title_line(ui, f, &h[0], sep);
	where_line(f, &h[n], sep);
	n += h[n].text[0] != 0;
	events_line(f, ui->st.event, &h[n], sep);
	n += h[n].text[0] != 0;
	counters_line(f, &h[n], sep);
	n += h[n].text[0] != 0;
	warnings_line(ui->set, &h[n], sep);
	n += h[n].text[0] != 0;
	return n;
}

static int header_room(int height)
{
	return height >= 30 ? 5 : height >= 20 ? 4 : height >= 12 ? 2 : 1;
}

/* Draws the header; returns its height. */
static int draw_header(struct ui *ui, struct canvas *c, bool draw)
{
	struct hline h[5];
	size_t n = header_lines(ui, h, ARRAY_SIZE(h));
	int room = header_room(c->h), y = 0;
	char fit[2048];

	/* Keep the `room` most important lines, in their order. */
	while ((int)n > room) {
		size_t low = 0;
		for (size_t i = 1; i < n; i++)
			if (h[i].prio < h[low].prio)
				low = i;
		memmove(&h[low], &h[low + 1], (n - low - 1) * sizeof(*h));
		n--;
	}
	for (size_t i = 0; draw && i < n; i++, y++) {
		c->clear(c, y, h[i].role == ROLE_TITLE ? ROLE_TITLE : ROLE_NORMAL);
		text_elide(fit, sizeof(fit), h[i].text, c->w);
		c->put(c, y, 0, fit, h[i].role);
	}
	return (int)n;
}

static void draw_message(struct ui *ui, struct canvas *c)
{
	static const char *const label[] = {
		[PROMPT_SEARCH] = "Search: ", [PROMPT_EXPORT] = "Export CSV to: ",
		[PROMPT_ADD] = "Add run (file or directory): ",
	};
	int y = c->h - 2;
	char line[1024], fit[2048];

	c->clear(c, y, ROLE_NORMAL);
	if (ui->prompt != PROMPT_NONE) {
		snprintf(line, sizeof(line), "%s%s_%s%s", label[ui->prompt], ui->input,
			 ui->msg[0] ? "  " : "", ui->msg);
		/* Long input: keep its end, where the cursor is. */
		int w = text_width(line);
		const char *s = line;
		while (w > c->w && *s) {
			s++;
			w = text_width(s);
		}
		c->put(c, y, 0, s, ui->msg[0] ? ROLE_WARN : ROLE_NORMAL);
		return;
	}
	text_elide(fit, sizeof(fit), ui->msg, c->w);
	c->put(c, y, 0, fit, ui->msg_role);
}

/* The key bar: Help first and Quit last always; the rest as they fit.
 * While a prompt is open, the prompt's keys. */
static void draw_bar(struct ui *ui, struct canvas *c)
{
	static const struct keyhelp prompt_bar[] = {
		{ "Enter", "", "done" }, { "Esc", "", "cancel" }, { "^U", "", "clear" },
	};
	const struct keyhelp *items = ui->prompt ? prompt_bar : ui_keyhelp;
	size_t n = ui->prompt ? ARRAY_SIZE(prompt_bar) : ui_n_keyhelp, last = n;
	int y = c->h - 1, x = 0, right = c->w;
	char key[32];

	c->clear(c, y, ROLE_BAR);
	if (!ui->prompt)
		for (size_t i = 0; i < n; i++)
			if (strcmp(items[i].keys, "q") == 0)
				last = i;
	for (int pass = 0; pass < 2; pass++)
		for (size_t k = 0; k < n; k++) {
			/* pass 0: "?" and "q"; pass 1: the others in order */
			size_t i = k;
			bool pinned = !ui->prompt && (i == last || strcmp(items[i].keys, "?") == 0);
			if (!items[i].bar || pinned != (pass == 0))
				continue;
			snprintf(key, sizeof(key), "%.*s", (int)strcspn(items[i].keys, " "),
				 items[i].keys);
			int kw = text_width(key), need = kw + 1 + text_width(items[i].bar);
			if (i == last) {	/* Quit at the right end */
				if (need > right)
					continue;
				right -= need;
				c->put(c, y, right, key, ROLE_BARKEY);
				c->put(c, y, right + kw + 1, items[i].bar, ROLE_BAR);
				right--;
				continue;
			}
			if (x + need > right)
				continue;
			c->put(c, y, x, key, ROLE_BARKEY);
			c->put(c, y, x + kw + 1, items[i].bar, ROLE_BAR);
			x += need + 1;
		}
}

void ui_draw(struct ui *ui, struct canvas *c, int what)
{
	struct panel *p = ui_top(ui);
	char title[1024], pos[64], fit[2048];

	if (c->w < 20 || c->h < 6) {
		for (int y = 0; y < c->h; y++)
			c->clear(c, y, ROLE_NORMAL);
		c->put(c, 0, 0, "too small! 20x6 at least", ROLE_WARN);
		return;
	}
	if (what & REACT_ALL) {
		draw_header(ui, c, true);
		draw_bar(ui, c);
	}
	if (!(what & (REACT_ALL | REACT_BODY)))
		return;
	int hh = draw_header(ui, c, false);
	/* The panel's title, with the position on the right. */
	p->ops->title(p, ui, title, sizeof(title));
	size_t n = tui_table_n_rows(&p->t);
	snprintf(pos, sizeof(pos), " %zu/%zu", n ? p->t.sel + 1 : 0, n);
	int pw = text_width(pos);
	c->clear(c, hh, ROLE_TITLE);
	text_elide(fit, sizeof(fit), title, c->w - pw - 1);
	c->put(c, hh, 0, fit, ROLE_TITLE);
	c->put(c, hh, c->w - pw, pos, ROLE_TITLE);
	ui->body_y = hh + 1;
	ui->body_h = c->h - hh - 3;
	tui_table_draw(&p->t, c, ui->body_y, ui->body_h);
	draw_message(ui, c);
}

/* ---- life cycle ---- */

struct ui *ui_new(struct ana_set *set, char *const *runs, size_t n_runs,
		  const struct ui_opts *o)
{
	struct ui *ui = calloc(1, sizeof(*ui));

	if (!ui)
		return NULL;
	ui->set = set;
	ui->st = (struct view_state){
		.event = o->event < ana_set_n_events(set) ? o->event : 0,
		.kind = ANA_SELF,
		.sort = ANA_SORT_VALUE,
		.compare = o->compare && ana_set_n_runs(set) > 1,
		.ratio = ANA_RATIO_SHARE,
		.threshold = o->threshold > 1 ? o->threshold : 1.2,
		.delta_threshold = 1.0,
		.min_samples = o->min_samples,
		.gen = 1,
	};
	if (o->load)
		ui->load = *o->load;
	ui->runs = calloc(n_runs ? n_runs : 1, sizeof(*ui->runs));
	if (!ui->runs)
		goto fail;
	for (size_t i = 0; i < n_runs; i++) {
		if (!(ui->runs[i] = strdup(runs[i])))
			goto fail;
		ui->n_runs++;
	}
	int rc = ui_push(ui, panel_flat_new(ui, FLAT_FUNCS));
	if (rc != 0) {
		errno = -rc;
		goto fail;
	}
	ui->msg[0] = '\0';
	return ui;
fail:;
	int e = errno;
	ui->set = NULL;	/* still the caller's */
	ui_free(ui);
	errno = e;
	return NULL;
}

void ui_free(struct ui *ui)
{
	if (!ui)
		return;
	pop_all(ui);
	if (ui->set)
		ana_set_free(ui->set);
	for (size_t i = 0; i < ui->n_runs; i++)
		free(ui->runs[i]);
	free(ui->runs);
	free(ui);
}

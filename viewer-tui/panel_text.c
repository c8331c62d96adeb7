/* Two-column text panels: the key help (`?`) and the run facts (`i`):
 * metadata, events, collector counters and the analyzer's notes. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viewer-tui/view.h"

struct trow {
	char *key, *value;
	enum role role;
};

struct text {
	struct panel p;
	struct ui *ui;		/* p.ui, which facts_rows reads here */
	bool help;
	struct trow *r;
	size_t n, cap;
	bool oom;
};

/* The columns of help and of the facts: text-only columns (analyzer/ana/table.h). */
static const struct ana_col help_cols[] = {
	{ .title = "Key", .type = ANA_T_TEXT, .left = true, .screen = { 10, 26, 50, false } },
	{ .title = "Does", .type = ANA_T_TEXT, .left = true, .screen = { 10, 60, 60, true } },
};
static const struct ana_col fact_cols[] = {
	{ .title = "Fact", .type = ANA_T_TEXT, .left = true, .screen = { 10, 26, 50, false } },
	{ .title = "Value", .type = ANA_T_TEXT, .left = true, .screen = { 10, 60, 60, true } },
};

static size_t text_n(void *ctx)
{
	return ((struct text *)ctx)->n;
}

static enum role text_cell(void *ctx, size_t row, size_t col, int width, char *buf, size_t len)
{
	struct text *t = ctx;
	(void)width;
	snprintf(buf, len, "%s", col == 0 ? t->r[row].key : t->r[row].value);
	return ROLE_NORMAL;
}

static enum role text_row_role(void *ctx, size_t row)
{
	return ((struct text *)ctx)->r[row].role;
}

static const char *text_match(void *ctx, size_t row)
{
	return ((struct text *)ctx)->r[row].value;
}

static const struct tui_table_ops text_table = {
	.n_rows = text_n, .cell = text_cell, .match = text_match, .row_role = text_row_role,
};

static void line(struct text *t, enum role role, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void line(struct text *t, enum role role, const char *key, const char *fmt, ...)
{
	va_list ap;
	char *v = NULL;

	if (t->oom)
		return;
	if (t->n == t->cap) {
		size_t c = t->cap ? t->cap * 2 : 32;
		struct trow *r = realloc(t->r, c * sizeof(*r));
		if (!r) {
			t->oom = true;
			return;
		}
		t->r = r;
		t->cap = c;
	}
	va_start(ap, fmt);
	if (vasprintf(&v, fmt, ap) < 0)
		v = NULL;
	va_end(ap);
	char *k = strdup(key);
	if (!v || !k) {
		free(v);
		free(k);
		t->oom = true;
		return;
	}
	t->r[t->n++] = (struct trow){ k, v, role };
}

static void clear_rows(struct text *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->r[i].key);
		free(t->r[i].value);
	}
	t->n = 0;
	t->oom = false;
}

static void help_rows(struct text *t)
{
	line(t, ROLE_TITLE, "Keys", "%s", "");
	for (size_t i = 0; i < ui_n_keyhelp; i++)
		line(t, ROLE_NORMAL, ui_keyhelp[i].keys, "%s", ui_keyhelp[i].what);
	line(t, ROLE_TITLE, "Compare mode", "%s", "");
	line(t, ROLE_NORMAL, "1.50 [1.4,1.6]*",
	     "ratio of the run to the base, its confidence interval, * = significant");
	line(t, ROLE_WARN, "1.50 [1.4,1.6]?",
	     "excludes 1, but not marked: lines against a run under an emulator");
	line(t, ROLE_UP, "red", "ratio >= %.2f (or delta >= +%.1f points)", t->ui->st.threshold,
	     t->ui->st.delta_threshold);
	line(t, ROLE_DOWN, "blue", "ratio <= %.2f (or delta <= -%.1f points)",
	     1 / t->ui->st.threshold, t->ui->st.delta_threshold);
	line(t, ROLE_WARN, "only base / only run", "the function has samples in one run only");
	line(t, ROLE_NORMAL, "", "%s", "");
	line(t, ROLE_DIM, "", "docs/viewer.md has the details.  Esc or ? closes this help.");
}

static enum role role_of(const struct ana_fact *x)
{
	return x->severity >= ANA_NOTE_WARN ? ROLE_WARN : ROLE_NORMAL;
}

static const struct ana_fact *get(const struct ana_facts *f, enum ana_fact_id id)
{
	return ana_facts_get(f, id);
}

/* An event: as used and asked for, its period, samples and weight;
 * [shown]: the one this run shows and is compared on (compare mode: its
 * own where it did not sample the shown one). */
static void event_row(struct text *t, const struct ana_fact *x, size_t shown)
{
	const struct ana_event_fact *e = x->event;
	char how[96];

	if (e->freq)
		snprintf(how, sizeof(how), "@f%" PRIu64 " Hz", e->freq);
	else
		snprintf(how, sizeof(how), "@%" PRIu64 "%s", e->period,
			 e->random_mask ? " randomized" : "");
	line(t, role_of(x), "event", "%s%s (asked: %s) %s%s, %" PRIu64 " samples, weight %.0f %s",
	     x->key, x->ref == shown ? " [shown]" : "", *x->text ? x->text : "not recorded", how,
	     e->mixed ? " (differs between files!)" : "", x->count, x->value, x->unit ? x->unit : "");
}

static void counter_row(struct text *t, const struct ana_fact *x)
{
	if (!(x->flags & ANA_FACT_LOSS))
		line(t, ROLE_NORMAL, x->key, "%" PRIu64, x->count);
	else
		line(t, role_of(x), x->key, "%" PRIu64 " (%.2f%% of samples)%s", x->count, x->pct,
		     x->severity >= ANA_NOTE_WARN ? "  above 1%: the profile is missing samples" : "");
}

/* The trust flags and the figures behind them. */
static void trust_row(struct text *t, const struct ana_facts *f, const struct ana_fact *x)
{
	bool known = !(x->flags & ANA_FACT_UNKNOWN);

	if (x->id == ANA_FACT_TRUST)
		line(t, role_of(x), "trust", "%s", x->count ? x->text : "no flags");
	else if (x->id == ANA_FACT_CPU_TIME && known)
		line(t, ROLE_NORMAL, "cpu time", "%.3f s (the threads' own, kernel)", x->value);
	else if (x->id == ANA_FACT_USER_TIME && known)
		line(t, ROLE_NORMAL, "user time", "%.3f s (of it, in user mode)", x->value);
	else if (x->id == ANA_FACT_SAMPLED && !isnan(x->pct))
		line(t, role_of(x), "samples", "%.3f s, %.1f%% of the expected from the %s (%"
		     PRIu64 " threads judged, %" PRIu64 " short)", x->value, x->pct,
		     get(f, ANA_FACT_BASIS)->text, get(f, ANA_FACT_JUDGED)->count,
		     get(f, ANA_FACT_SHORT)->count);
	else if (x->id == ANA_FACT_HANDLER && known)
		line(t, role_of(x), "handler", "%.3f s in the collector's signal handler", x->value);
	else if (x->id == ANA_FACT_EMULATOR && known)
		line(t, role_of(x), "emulator", "%s: lines and instructions unreliable", x->text);
}

/* Everything about one run, raw figures too (`i` lists all). */
static void fact_row(struct text *t, const struct ana_facts *f, const struct ana_fact *x,
		     bool base, size_t shown)
{
	const struct ana_fact *partial = get(f, ANA_FACT_PARTIAL);

	if (x->id == ANA_FACT_LABEL)
		line(t, ROLE_TITLE, base ? "Base run" : "Run", "%s", x->text);
	else if (x->id == ANA_FACT_FILES)
		line(t, role_of(partial), "files", "%" PRIu64 " in %" PRIu64 " repeat(s), %" PRIu64
		     " partial", x->count, get(f, ANA_FACT_REPEATS)->count, partial->count);
	else if (x->id == ANA_FACT_META)
		line(t, ROLE_NORMAL, x->key, "%s", x->text);
	else if (x->id == ANA_FACT_DURATION && !(x->flags & ANA_FACT_UNKNOWN))
		line(t, ROLE_NORMAL, "duration", "%.3f s wall clock", x->value);
	else if (x->id == ANA_FACT_STEAL && !isnan(x->pct))	/* warned: above 5% */
		line(t, role_of(x), "steal", "%.3f s, %.1f%% of the CPU time", x->value, x->pct);
	else if (x->group == ANA_FG_TRUST)
		trust_row(t, f, x);
	else if (x->id == ANA_FACT_EVENT)
		event_row(t, x, shown);
	else if (x->id == ANA_FACT_COUNTER)
		counter_row(t, x);
}

static void notes_rows(struct text *t, const struct ana_set *s)
{
	line(t, ROLE_TITLE, "Notes", "%zu", ana_set_n_notes(s));
	for (size_t i = 0; i < ana_set_n_notes(s); i++) {
		static const char *const sev[] = { "info", "warning", "error" };
		const struct ana_note *n = ana_set_note(s, i);
		if (!n)
			continue;
		enum role role = n->severity == ANA_NOTE_INFO ? ROLE_NORMAL : ROLE_WARN;
		const char *what = sev[n->severity <= ANA_NOTE_ERROR ? n->severity : 0];
		if (n->run >= 0)
			line(t, role, what, "%s  (run %d)", n->msg, n->run);
		else
			line(t, role, what, "%s", n->msg);
	}
}

static void facts_rows(struct text *t)
{
	struct ana_set *s = t->ui->set;
	const char *slice = ana_facts_slice(ana_set_facts(s, 0));

	if (slice)
		line(t, ROLE_NORMAL, "time", "only the samples in --time %s (from the timelines; "
		     "each run's own span and start)", slice);
	for (unsigned r = 0; r < ana_set_n_runs(s); r++) {
		const struct ana_facts *f = ana_set_facts(s, r);
		size_t shown = view_run_event(&t->ui->st, s, r);
		for (size_t i = 0; i < ana_facts_n(f); i++)
			fact_row(t, f, ana_facts_at(f, i), r == t->ui->st.base, shown);
	}
	notes_rows(t, s);
}

static int text_refresh(struct panel *p, struct ui *ui)
{
	struct text *t = (struct text *)p;
	size_t sel = p->t.sel;

	(void)ui;
	clear_rows(t);
	if (t->help)
		help_rows(t);
	else
		facts_rows(t);
	if (t->oom)
		return -ENOMEM;
	panel_show(p, t->help ? help_cols : fact_cols, 2, -1, sel);
	return 0;
}

static enum react text_key(struct panel *p, struct ui *ui, int key)
{
	struct text *t = (struct text *)p;

	if (key == 'q' || key == VK_ESC || key == VK_LEFT || key == VK_BACKSPACE ||
	    key == (t->help ? '?' : 'i')) {
		ui_pop(ui);
		return REACT_ALL;
	}
	return REACT_NONE;
}

static void text_title(struct panel *p, struct ui *ui, char *buf, size_t len)
{
	struct text *t = (struct text *)p;
	snprintf(buf, len, "%s", t->help ? "Help" : "Run facts");
	(void)ui;
}

static const char *text_slug(struct panel *p)
{
	return ((struct text *)p)->help ? "help" : "facts";
}

static void text_done(struct panel *p)
{
	struct text *t = (struct text *)p;
	clear_rows(t);
	free(t->r);
}

static const struct panel_ops text_ops = {
	.refresh = text_refresh, .on_key = text_key, .title = text_title,
	.slug = text_slug, .done = text_done,
};

static struct panel *text_new(struct ui *ui, bool help)
{
	struct text *t = panel_alloc(sizeof(*t), ui, &text_ops, &text_table);

	if (!t)
		return NULL;
	t->ui = ui;
	t->help = help;
	return &t->p;
}

struct panel *panel_help_new(struct ui *ui)
{
	return text_new(ui, true);
}

struct panel *panel_facts_new(struct ui *ui)
{
	return text_new(ui, false);
}

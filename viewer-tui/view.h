/* pmcprof view: the viewer's internal interfaces.
 *
 * Layers, bottom up:
 *   text     display widths, middle elision, numbers, ratios   (text.c, ratio.c)
 *   layout   which columns fit a width, and how wide              (layout.c)
 *   canvas   where text goes: curses (term.c) or memory (canvas.c)
 *   table    the one widget: rows, columns, selection, search     (table.c)
 *   cells    analyzer rows -> value, ratio and name cells          (cells.c)
 *   panels   tables over analyzer queries: functions, lines,
 *            function detail, tree, source, facts, help           (panel_*.c)
 *   ui       panel stack, header, prompt, bottom bar, keys         (ui.c)
 * Only term.c touches curses and the tty, so everything else runs in unit
 * tests against a memory canvas.  Key handlers return what to redraw
 * (htop's HandlerResult); the viewer asks the analyzer for rows and never
 * reads profiles or symbols itself (source text is the one exception: the
 * analyzer says where a file is, ana_set_source_path, and has no call for
 * its text; see source.c).
 */
#ifndef VIEWER_TUI_VIEW_H
#define VIEWER_TUI_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/analyzer.h"
#include "analyzer/ana/table.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- keys: curses codes are mapped to these in term.c ---- */

/* Printable keys are their byte value; control keys 1..31 (VK_CTRL('u')). */
enum vkey {
	VK_NONE = 0,
	VK_UP = 0x110000,	/* beyond Unicode, so no clash with a character */
	VK_DOWN, VK_LEFT, VK_RIGHT, VK_PGUP, VK_PGDN, VK_HOME, VK_END,
	VK_ENTER, VK_ESC, VK_BACKSPACE, VK_TAB, VK_BTAB, VK_RESIZE,
	VK_WHEEL_UP, VK_WHEEL_DOWN,
	VK_CLICK,		/* mouse button 1; row in ui.click_y */
};
#define VK_CTRL(c) ((c) & 0x1f)

/* What a key handler asks for next (htop's HandlerResult): flags. */
enum react {
	REACT_NONE = 0,		/* not handled: offer the key to the next handler */
	REACT_HANDLED = 1 << 0,	/* handled, screen unchanged */
	REACT_BODY = 1 << 1,	/* redraw the panel (table and its title) */
	REACT_ALL = 1 << 2,	/* redraw everything */
	REACT_REQUERY = 1 << 3,	/* view state changed: panels re-run their queries */
	REACT_QUIT = 1 << 4,
};

/* ---- text (text.c): UTF-8 aware, widths in terminal columns ---- */

/* Set from the locale by the command (cli/view.c): use "…" and "▼" or ASCII. */
extern bool text_utf8;
/* Columns s takes; invalid bytes count one each. */
int text_width(const char *s);
/* The first `cols` columns of s (cut at a character, unprintables as
 * '?'); returns the width written. */
int text_head(char *buf, size_t len, const char *s, int cols);
/* s fitted into `cols` columns: long strings lose their middle ("abc…xyz").
 * Returns the width written (<= cols).  buf always terminated. */
int text_elide(char *buf, size_t len, const char *s, int cols);
/* s elided to cols, then padded with blanks to exactly cols, left or right
 * aligned. */
void text_fit(char *buf, size_t len, const char *s, int cols, bool right);
/* The last path component of path ("" for NULL). */
const char *text_basename(const char *path);
/* A count in at most cols columns: exact digits if they fit, else 1.2k,
 * 34.5M, 6.7G...; "-" for NAN. */
void fmt_count(char *buf, size_t len, double v, int cols);
/* A percentage "12.3%", "0.04%", "100%"; "-" for NAN. */
void fmt_pct(char *buf, size_t len, double pct);
/* A comparison cell (ratio, interval when it fits in cols, significance
 * mark, presence); see ratio.c for the rules. */
void fmt_ratio(char *buf, size_t len, const struct ana_cmp *c, enum ana_ratio mode, int cols);
/* Case-insensitive substring test (ASCII folding). */
bool text_contains(const char *hay, const char *needle);

/* ---- layout (layout.c) ---- */

/* Lay n columns out in `width` with one blank between them by their screen
 * hints (ana_col.screen): x[i] and w[i] (w[i] 0 = hidden).  Columns are
 * dropped lowest keep first (rightmost on a tie) until the minimums fit;
 * spare room goes to the fill column up to its pref, then to the others up
 * to theirs by keep, then to the fill column.  Returns the number of
 * visible columns. */
int layout_columns(const struct ana_col *c, size_t n, int width, int *x, int *w);

/* ---- canvas ---- */

enum role {
	ROLE_NORMAL, ROLE_HEADER, ROLE_TITLE, ROLE_COLHEAD, ROLE_SORTED, ROLE_SELECTED,
	ROLE_HOT, ROLE_UP, ROLE_DOWN, ROLE_WARN, ROLE_DIM, ROLE_BAR, ROLE_BARKEY,
	ROLE_N
};
struct canvas {
	int w, h;
	/* s (UTF-8) at row y, column x, clipped to the width. */
	void (*put)(struct canvas *c, int y, int x, const char *s, enum role r);
	/* Row y blanked in role r. */
	void (*clear)(struct canvas *c, int y, enum role r);
	/* Show what was drawn (curses refresh); may be NULL. */
	void (*flush)(struct canvas *c);
	void *priv;
};
/* A grid of cells for tests and --snapshot.  NULL + errno. */
struct canvas *canvas_mem_new(int w, int h);
void canvas_mem_free(struct canvas *c);
/* Row y as text, trailing blanks removed; returns buf. */
char *canvas_mem_line(const struct canvas *c, int y, char *buf, size_t len);
/* Role of the cell at (y, x). */
enum role canvas_mem_role(const struct canvas *c, int y, int x);
/* Column of the first occurrence of s on row y, or -1. */
int canvas_mem_find(const struct canvas *c, int y, const char *s);

/* ---- table widget (table.c) ---- */

#define VCOL_MAX 32		/* columns in one table */

struct tui_table_ops {
	size_t (*n_rows)(void *ctx);
	/* Text of cell (row, col) for a column `width` wide (it may adapt, e.g.
	 * drop an interval), into buf; returns the cell's role. */
	enum role (*cell)(void *ctx, size_t row, size_t col, int width, char *buf, size_t len);
	/* Text that / searches, or NULL. */
	const char *(*match)(void *ctx, size_t row);
	/* Role for a whole row (e.g. a section heading), or ROLE_NORMAL; may be NULL. */
	enum role (*row_role)(void *ctx, size_t row);
};
struct tui_table {
	const struct tui_table_ops *ops;
	void *ctx;
	/* The columns: headings, alignment (left) and screen hints; the cells
	 * come from ops.  Not copied: the panel keeps them. */
	const struct ana_col *cols;
	size_t n_cols;
	int sort_col;		/* column titled with the sort mark, or -1 */
	size_t sel, top;	/* selected row, first row shown */
	int body_h;		/* rows shown at the last draw (PgUp/PgDn step) */
	/* Widest content seen per column since table_changed: columns get no
	 * more than they need, and never shrink while scrolling. */
	int need[VCOL_MAX + 8];
	bool measured;
	bool center;		/* next draw: scroll the selection to mid-screen */
};
void tui_table_init(struct tui_table *t, const struct tui_table_ops *ops, void *ctx);
/* The rows or columns changed: measure the content again at the next draw. */
void tui_table_changed(struct tui_table *t);
/* Navigation keys: arrows, PgUp/PgDn, Home/End, wheel. */
enum react tui_table_on_key(struct tui_table *t, int key);
/* Column headings at row y, then rows y+1 .. y+h-1. */
void tui_table_draw(struct tui_table *t, struct canvas *c, int y, int h);
void tui_table_select(struct tui_table *t, size_t row);
/* Select the first row from `from` on (dir +1 or -1, wrapping) whose match
 * text contains pat, ignoring case.  true if found. */
bool tui_table_search(struct tui_table *t, const char *pat, size_t from, int dir);
size_t tui_table_n_rows(const struct tui_table *t);

/* ---- what is being viewed (shared by every panel) ---- */

struct view_state {
	size_t event;		/* event column */
	enum ana_kind kind;	/* self or inclusive: compared and sorted on */
	enum ana_sort sort;
	bool compare;		/* ratio columns against run `base` */
	enum ana_ratio ratio;
	unsigned base;
	double threshold;	/* colour ratios >= threshold or <= 1/threshold */
	double delta_threshold;	/* colour deltas beyond this many points */
	double conf;		/* 0 = the analyzer's default (0.95) */
	uint64_t min_samples;
	unsigned gen;		/* bumped on every change; panels compare theirs */
};
/* The analyzer query for view v in state st. */
void view_query(const struct view_state *st, enum ana_view v, struct ana_query *q);
/* The event column run shows and is compared on: in compare mode, the
 * run's own event for st->event where it did not sample that one (a
 * fallback, another backend: ana_set_run_event); else st->event. */
size_t view_run_event(const struct view_state *st, const struct ana_set *s, unsigned run);
/* Compare mode with runs on different events: shares compare, raw counts
 * do not. */
bool view_events_differ(const struct view_state *st, const struct ana_set *s);

/* ---- cells (cells.c): analyzer rows -> columns ---- */

/* How the viewer fills a column's cells: most through the column's
 * accessor (the model's value), the rest its own way. */
enum vcol_kind {
	VC_SELF, VC_SELF_PCT, VC_INCL, VC_INCL_PCT,	/* current event, run 0 */
	VC_EVENT_PCT,		/* another event's share (self or incl per kind) */
	VC_BASE,		/* compare: base share (or count in RAW mode) */
	VC_RATIO,		/* compare: run vs base, interval and mark (fmt_ratio) */
	VC_NAME,		/* the row's name, "(inlined in f)" */
	VC_MODULE,
	VC_SOURCE, VC_LINE,	/* file:line (LINES: the first column) */
};
/* Where a column's cells are: which run and event column (ana_at); and
 * its heading, the model's or the view's name for it ("instructions%", a
 * run's label), which the column's title points to. */
struct vcol {
	enum vcol_kind kind;
	unsigned run;
	size_t ev;
	char title[40];
};
/* A view's columns: col[i] is the analyzer's column (analyzer/table.h: a
 * copy of the model's entry, its title c[i].title, its screen hints as
 * the view places it), c[i] where its cells are. */
struct vcols {
	size_t n;
	struct ana_col col[VCOL_MAX];
	struct vcol c[VCOL_MAX];
	int sort_col;
};
/* Columns for view v (FUNCS, LINES, MODULES, CALLERS, CALLEES, TOPDOWN,
 * BOTTOMUP) of set s in state st. */
void vcols_build(struct vcols *vc, const struct view_state *st, const struct ana_set *s,
		 enum ana_view v);
/* Move column from to position to (to <= from), its title with it. */
void vcols_move(struct vcols *vc, size_t to, size_t from);
/* Cell of column k of vc for row i of r, for a column `width` wide. */
enum role vcol_cell(const struct view_state *st, const struct vcols *vc, size_t k,
		    const struct ana_rows *r, size_t i, int width, char *buf, size_t len);
/* The sort, ratio and filter options of report (or, in compare mode,
 * diff) that make their query match st's, each with a leading blank. */
void cmd_sort_args(const struct view_state *st, char *buf, size_t len);
/* (ratio.c) The role a comparison earns: UP/DOWN beyond the thresholds, WARN when
 * the row is in one run only, else NORMAL. */
enum role cmp_role(const struct view_state *st, const struct ana_cmp *c);

/* ---- loading (load.c) ---- */

struct load_opts {
	bool weighted;
	const char *debug_dirs;
	const char *const *remap;	/* "OLD=NEW" path rewrites, NULL-terminated, or NULL */
	const char *cache_dir;	/* ana_opts.cache_dir: the symbol cache, or NULL */
	ana_progress_fn progress_fn;	/* ana_opts.progress, or NULL */
	void *progress_arg;
	bool no_inline;		/* ana_opts.no_inline */
	bool short_names;	/* ana_opts.short_names */
	const char *comms, *pids, *tids, *dsos, *symbols;	/* ana_opts' filters */
	const struct ana_time_range *time;	/* ana_opts.time: --time's slices of each run */
	size_t n_time;
	const char *time_spec;	/* --time as given (the header names it), or NULL */
	const char *const *labels;	/* names of the runs in order (view --label); the
				 * rest are named by their argument */
	size_t n_labels;
};
/* A finished set with one run per entry of runs[] (a file or directory;
 * "A,B" gives one run with repeats A and B).  Returns 0 with *out set, or a
 * negative code with a one-line message in err; 2 files of which one is bad
 * still load (the analyzer notes it).  The caller frees *out. */
int set_load(struct ana_set **out, char *const *runs, size_t n, const struct load_opts *o,
	     char *err, size_t len);
/* With o's --time: the first run of s left with no samples in the slice
 * (no timeline, a slice past its end), said in err; -1 when none is. */
int set_time_empty(const struct ana_set *s, const struct load_opts *o, char *err, size_t len);

/* ---- source text (source.c) ---- */

struct source;
/* path's lines, or NULL + errno.  Files over 64 MiB are refused (EFBIG). */
struct source *source_read(const char *path);
void source_free(struct source *s);
size_t source_n_lines(const struct source *s);
/* Line n (1-based), tabs expanded, no newline; "" past the end. */
const char *source_line(const struct source *s, size_t n);

/* ---- panels ---- */

struct ui;
struct panel;
struct panel_ops {
	/* Re-run queries after st changed (keeping the selection by name);
	 * 0 or -errno. */
	int (*refresh)(struct panel *p, struct ui *ui);
	/* Panel keys (Enter, t, l ...); REACT_NONE passes the key on.  NULL:
	 * none (panel_on_key). */
	enum react (*on_key)(struct panel *p, struct ui *ui, int key);
	/* One line naming what is shown. */
	void (*title)(struct panel *p, struct ui *ui, char *buf, size_t len);
	/* The row set `x` exports (the selected section's), or NULL; the op
	 * NULL: never any (panel_rows). */
	const struct ana_rows *(*rows)(struct panel *p);
	/* Short name for the default CSV file ("functions"). */
	const char *(*slug)(struct panel *p);
	/* The `pmcprof report`/`diff` options that select rows() ("--lines",
	 * "--callers ana_work:f --sort incl"), or false if none does. */
	bool (*command)(struct panel *p, struct ui *ui, char *buf, size_t len);
	/* Release what the panel holds (panel_free then frees the panel);
	 * NULL: nothing. */
	void (*done)(struct panel *p);
};
struct panel {
	const struct panel_ops *ops;
	struct tui_table t;
	unsigned gen;		/* view_state.gen at the last refresh */
	struct ui *ui;		/* the viewer it is shown in (panel_alloc) */
};

enum flat_kind { FLAT_FUNCS, FLAT_LINES, FLAT_MODULES };
struct panel *panel_flat_new(struct ui *ui, enum flat_kind k);
/* Callers, callees and source lines of one function (a FUNCS row's node
 * and name). */
struct panel *panel_func_new(struct ui *ui, const struct ana_row *fn);
struct panel *panel_tree_new(struct ui *ui, bool bottomup, const char *select_name);
/* Source of file with per-line samples; line = the line to show first (0:
 * the hottest). */
struct panel *panel_source_new(struct ui *ui, const char *file, unsigned line);
/* A function's instructions (a FUNCS row: its name and module) with their
 * samples, between their source lines (ana_set_annotate). */
struct panel *panel_annotate_new(struct ui *ui, const struct ana_row *fn);
struct panel *panel_help_new(struct ui *ui);
struct panel *panel_facts_new(struct ui *ui);

/* ---- the screen manager (ui.c) ---- */

enum prompt_kind { PROMPT_NONE, PROMPT_SEARCH, PROMPT_EXPORT, PROMPT_ADD };
#define UI_DEPTH 32

struct ui_opts {
	size_t sz;
	const struct load_opts *load;	/* for runs added with `a` */
	double threshold;		/* 0: 1.2 */
	bool compare;			/* start in compare mode (2+ runs) */
	size_t event;
	uint64_t min_samples;
};

struct ui {
	struct ana_set *set;
	struct view_state st;
	struct panel *stack[UI_DEPTH];
	int depth;
	enum prompt_kind prompt;
	char input[256];
	size_t search_from;	/* row the incremental search started at */
	char search[256];	/* the last pattern, for n/N */
	char msg[256];
	enum role msg_role;
	int click_y;		/* screen row of the last VK_CLICK */
	int body_y, body_h;	/* where the panel table was last drawn */
	struct canvas *canvas;	/* for progress while adding a run */
	/* the runs, to rebuild the set when one is added */
	char **runs;
	size_t n_runs;
	struct load_opts load;
};

/* A UI over a finished set (taken over: freed by ui_free), with the
 * functions panel open; runs names what was loaded (copied).  NULL +
 * errno. */
struct ui *ui_new(struct ana_set *set, char *const *runs, size_t n_runs,
		  const struct ui_opts *o);
void ui_free(struct ui *ui);
/* One key: prompt, then panel, then table navigation, then global keys. */
enum react ui_on_key(struct ui *ui, int key);
/* Draw what `what` (REACT_* flags; REACT_ALL = everything) covers. */
void ui_draw(struct ui *ui, struct canvas *c, int what);
/* Push p (taken over) and refresh it; 0 or -errno (p freed on failure,
 * a message says why).  p NULL: -errno of its failed constructor. */
int ui_push(struct ui *ui, struct panel *p);
/* Close the top panel (never the last). */
void ui_pop(struct ui *ui);
struct panel *ui_top(struct ui *ui);
/* A one-line message on the bottom line until the next key. */
void ui_message(struct ui *ui, enum role r, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Write the top panel's rows as CSV to path; 0 or -errno (message set). */
int ui_export(struct ui *ui, const char *path);
/* Write the top panel's flame graph (a tree panel: its direction; else
 * top-down; compare mode: differential, base against the first other run)
 * to a new file pmcprof-flame-KIND[-N].svg in the current directory, its
 * name into path[len].  0 or -errno (message set). */
int ui_flame(struct ui *ui, char *path, size_t len);
/* The command line that prints the same CSV as `x` here, or false. */
bool ui_command(struct ui *ui, char *buf, size_t len);

/* The key table, shown by `?` and (abridged) in the bottom bar. */
struct keyhelp {
	const char *keys;
	const char *what;
	const char *bar;	/* label in the bottom bar, or NULL */
};
extern const struct keyhelp ui_keyhelp[];
extern const size_t ui_n_keyhelp;

/* ---- the terminal (term.c) ---- */

/* Run ui on the terminal (stdin/stdout) until q.  Colour only if the
 * terminal has it and NO_COLOR is unset or empty.  Returns 0, or -errno
 * with a message in err if the terminal cannot be set up.  SIGINT, SIGTERM,
 * SIGHUP and SIGQUIT end the loop cleanly (endwin, then the signal's
 * default action); a second one, or a crash, restores the terminal from
 * the handler with tcsetattr and write only. */
int term_run(struct ui *ui, bool mouse, char *err, size_t len);

/* ---- what the panels share (panel.c; text_same in text.c) ---- */

/* A zeroed panel of `size` bytes (a struct that starts with struct panel)
 * in ui, with its ops and a table whose ctx is the panel.  NULL + errno. */
void *panel_alloc(size_t size, struct ui *ui, const struct panel_ops *ops,
		  const struct tui_table_ops *table);
/* ops->done, then the panel itself (NULL: nothing). */
void panel_free(struct panel *p);
/* free() each of p[n] in turn (systemd's free_many), for a panel's done:
 * FREE_EACH(s->a, s->b). */
void view_free_many(void *const *p, size_t n);
#define FREE_EACH(...) \
	view_free_many((void *[]){ __VA_ARGS__ }, sizeof((void *[]){ __VA_ARGS__ }) / sizeof(void *))
/* The end of a refresh: n columns cols with the sort mark on sort_col (-1:
 * none), the content measured again, row sel selected. */
void panel_show(struct panel *p, const struct ana_col *cols, size_t n, int sort_col,
		size_t sel);
/* panel_show with vc's columns and sort mark. */
void panel_show_vcols(struct panel *p, const struct vcols *vc, size_t sel);
/* The ops a panel may leave NULL: no rows to export (NULL), no keys of its
 * own (REACT_NONE). */
const struct ana_rows *panel_rows(struct panel *p);
enum react panel_on_key(struct panel *p, struct ui *ui, int key);
/* Both NULL or equal strings. */
bool text_same(const char *a, const char *b);

#endif

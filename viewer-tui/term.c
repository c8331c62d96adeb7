/* The terminal: curses set-up and teardown, the curses canvas, key
 * mapping and the event loop.  The only file that includes curses.h. */
#include "config.h"

#include <curses.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <termios.h>
#include <unistd.h>

#include "viewer-tui/view.h"

/* Role -> colour pair and attributes; mono is used without colour. */
static const struct {
	short fg, bg;
	attr_t attr, mono;
} palette[ROLE_N] = {
	[ROLE_NORMAL] = { -1, -1, A_NORMAL, A_NORMAL },
	[ROLE_HEADER] = { -1, -1, A_NORMAL, A_NORMAL },
	[ROLE_TITLE] = { COLOR_WHITE, COLOR_BLUE, A_BOLD, A_BOLD },
	[ROLE_COLHEAD] = { COLOR_BLACK, COLOR_GREEN, A_NORMAL, A_UNDERLINE },
	[ROLE_SORTED] = { COLOR_BLACK, COLOR_CYAN, A_BOLD, A_UNDERLINE | A_BOLD },
	[ROLE_SELECTED] = { COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE },
	[ROLE_HOT] = { COLOR_RED, -1, A_BOLD, A_BOLD },
	[ROLE_UP] = { COLOR_RED, -1, A_BOLD, A_BOLD },
	[ROLE_DOWN] = { COLOR_CYAN, -1, A_BOLD, A_UNDERLINE },
	[ROLE_WARN] = { COLOR_YELLOW, -1, A_BOLD, A_BOLD },
	[ROLE_DIM] = { -1, -1, A_DIM, A_DIM },
	[ROLE_BAR] = { COLOR_BLACK, COLOR_CYAN, A_NORMAL, A_REVERSE },
	[ROLE_BARKEY] = { -1, -1, A_BOLD, A_BOLD },
};
static attr_t role_attr[ROLE_N];

/* ---- signals: the terminal is restored whatever happens ---- */

static struct termios saved_tio;
static bool have_tio;
static char restore_seq[512];
static size_t restore_len;
static volatile sig_atomic_t in_curses, got_signal;

/* Async-signal-safe: tcsetattr and write only. */
static void restore_now(void)
{
	if (!in_curses)
		return;
	if (have_tio)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_tio);
	if (restore_len) {
		ssize_t w = write(STDOUT_FILENO, restore_seq, restore_len);
		(void)w;
	}
	in_curses = 0;
}

static void on_signal(int sig)
{
	int e = errno;

	if (!got_signal && sig != SIGSEGV && sig != SIGBUS && sig != SIGFPE && sig != SIGILL &&
	    sig != SIGABRT) {
		got_signal = sig;	/* the loop sees it within its key timeout */
		errno = e;
		return;
	}
	restore_now();
	signal(sig, SIG_DFL);
	raise(sig);
	errno = e;
}

static const int clean_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(clean_signals); i++)
		sigaction(clean_signals[i], &sa, NULL);
	sa.sa_flags = SA_RESETHAND;
	for (size_t i = 0; i < ARRAY_SIZE(crash_signals); i++)
		sigaction(crash_signals[i], &sa, NULL);
}

/* What endwin would send, precomputed so a handler can send it. */
static void add_cap(const char *name)
{
	char *s = tigetstr(name);

	if (!s || s == (char *)-1)
		return;
	size_t n = strlen(s);
	if (restore_len + n < sizeof(restore_seq)) {
		memcpy(restore_seq + restore_len, s, n);
		restore_len += n;
	}
}

static void prepare_restore(bool mouse)
{
	static const char mouse_off[] = "\033[?1000l\033[?1002l\033[?1006l";

	restore_len = 0;
	add_cap("sgr0");
	add_cap("cnorm");
	add_cap("rmkx");
	add_cap("rmcup");
	if (mouse && restore_len + sizeof(mouse_off) < sizeof(restore_seq)) {
		memcpy(restore_seq + restore_len, mouse_off, sizeof(mouse_off) - 1);
		restore_len += sizeof(mouse_off) - 1;
	}
}

/* ---- the curses canvas ---- */

static void curses_put(struct canvas *c, int y, int x, const char *s, enum role r)
{
	char buf[4096];

	if (y < 0 || y >= c->h || x < 0 || x >= c->w)
		return;
	text_head(buf, sizeof(buf), s, c->w - x);
	attrset(role_attr[r]);
	mvaddstr(y, x, buf);
}

static void curses_clear(struct canvas *c, int y, enum role r)
{
	if (y < 0 || y >= c->h)
		return;
	attrset(role_attr[r]);
	mvhline(y, 0, ' ' | role_attr[r], c->w);
}

static void curses_flush(struct canvas *c)
{
	(void)c;
	refresh();
}

static void setup_colors(void)
{
	const char *no = getenv("NO_COLOR");
	bool color = has_colors() && !(no && *no) && start_color() == OK;

	if (color)
		use_default_colors();
	for (int r = 0; r < ROLE_N; r++) {
		if (!color) {
			role_attr[r] = palette[r].mono;
			continue;
		}
		short fg = palette[r].fg, bg = palette[r].bg;
		if (fg < 0 && bg < 0) {
			role_attr[r] = palette[r].attr;
			continue;
		}
		init_pair((short)(r + 1), fg, bg);
		role_attr[r] = COLOR_PAIR(r + 1) | palette[r].attr;
	}
}

/* curses key -> enum vkey (or the byte) */
static int map_key(int ch, struct ui *ui)
{
	MEVENT ev;

	switch (ch) {
	case KEY_UP: return VK_UP;
	case KEY_DOWN: return VK_DOWN;
	case KEY_LEFT: return VK_LEFT;
	case KEY_RIGHT: return VK_RIGHT;
	case KEY_PPAGE: return VK_PGUP;
	case KEY_NPAGE: return VK_PGDN;
	case KEY_HOME: return VK_HOME;
	case KEY_END: return VK_END;
	case KEY_ENTER: case '\n': case '\r': return VK_ENTER;
	case 27: return VK_ESC;
	case KEY_BACKSPACE: case 127: case 8: return VK_BACKSPACE;
	case '\t': return VK_TAB;
	case KEY_BTAB: return VK_BTAB;
	case KEY_RESIZE: return VK_RESIZE;
	case KEY_F(1): return '?';
	case KEY_F(10): return 'q';
	case KEY_MOUSE:
		if (getmouse(&ev) != OK)
			return VK_NONE;
		if (ev.bstate & BUTTON4_PRESSED)
			return VK_WHEEL_UP;
#ifdef BUTTON5_PRESSED
		if (ev.bstate & BUTTON5_PRESSED)
			return VK_WHEEL_DOWN;
#endif
		if (ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_RELEASED)) {
			ui->click_y = ev.y;
			return ev.bstate & BUTTON1_RELEASED ? VK_NONE : VK_CLICK;
		}
		return VK_NONE;
	}
	return ch >= 0 && ch < KEY_MIN ? ch : VK_NONE;
}

int term_run(struct ui *ui, bool mouse, char *err, size_t len)
{
	SCREEN *scr;
	struct canvas c = { .put = curses_put, .clear = curses_clear, .flush = curses_flush };
	int what = REACT_ALL;

	have_tio = tcgetattr(STDIN_FILENO, &saved_tio) == 0;
	/* Ours before curses starts, so it keeps them (it installs its own
	 * only where the disposition is still the default). */
	install_signals();
	scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		const char *t = getenv("TERM");
		snprintf(err, len, "cannot use the terminal (TERM=%s): try TERM=xterm",
			 t ? t : "(unset)");
		return -ENOTTY;
	}
	prepare_restore(mouse);
	in_curses = 1;
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	timeout(250);	/* how soon a signal is noticed */
	setup_colors();
	if (mouse)
		mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
			  | BUTTON5_PRESSED
#endif
			  , NULL);
	ui->canvas = &c;
	while (!got_signal) {
		if (what & (REACT_ALL | REACT_BODY)) {
			c.w = COLS;
			c.h = LINES;
			if (what & REACT_ALL)
				erase();
			ui_draw(ui, &c, what);
			refresh();
		}
		int ch = getch();
		if (ch == ERR)
			what = REACT_NONE;
		else if ((what = ui_on_key(ui, map_key(ch, ui))) & REACT_QUIT)
			break;
		if (ch == VK_CTRL('l'))	/* repaint every cell, whatever curses thinks */
			clearok(curscr, TRUE);
	}
	ui->canvas = NULL;
	endwin();
	in_curses = 0;
	delscreen(scr);
	if (got_signal) {
		int sig = got_signal;
		signal(sig, SIG_DFL);
		raise(sig);
	}
	return 0;
}

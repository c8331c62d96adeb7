/* A memory canvas: a grid of cells the UI draws into exactly as into
 * curses.  Unit tests read it back; --snapshot prints it. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "viewer-tui/view.h"

struct cell {
	char ch[5];		/* one UTF-8 character; "" = right half of a wide one */
	unsigned char role;
};
struct mem {
	struct canvas c;
	struct cell *cells;
};

static struct cell *at(const struct canvas *c, int y, int x)
{
	return &((struct mem *)c->priv)->cells[(size_t)y * (size_t)c->w + (size_t)x];
}

static void mem_put(struct canvas *c, int y, int x, const char *s, enum role r)
{
	mbstate_t st;

	if (y < 0 || y >= c->h || x < 0)
		return;
	memset(&st, 0, sizeof(st));
	while (*s && x < c->w) {
		wchar_t wc;
		size_t n = mbrtowc(&wc, s, MB_CUR_MAX, &st);
		int cw = 1;

		if (n == (size_t)-1 || n == (size_t)-2 || n == 0 || n > 4) {
			n = 1;
			memset(&st, 0, sizeof(st));
			wc = '?';
		} else {
			cw = wcwidth(wc);
			if (cw < 0)
				cw = 1, n = 1, wc = '?';
		}
		if (x + cw > c->w)
			break;
		struct cell *cl = at(c, y, x);
		if (wc == '?' && *s != '?')
			strcpy(cl->ch, "?");
		else {
			memcpy(cl->ch, s, n);
			cl->ch[n] = '\0';
		}
		cl->role = (unsigned char)r;
		for (int k = 1; k < cw; k++) {
			at(c, y, x + k)->ch[0] = '\0';
			at(c, y, x + k)->role = (unsigned char)r;
		}
		x += cw;
		s += n;
	}
}

static void mem_clear(struct canvas *c, int y, enum role r)
{
	if (y < 0 || y >= c->h)
		return;
	for (int x = 0; x < c->w; x++) {
		strcpy(at(c, y, x)->ch, " ");
		at(c, y, x)->role = (unsigned char)r;
	}
}

struct canvas *canvas_mem_new(int w, int h)
{
	struct mem *m;

	if (w <= 0 || h <= 0 || w > 4096 || h > 4096) {
		errno = EINVAL;
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->cells = calloc((size_t)w * (size_t)h, sizeof(*m->cells));
	if (!m->cells) {
		free(m);
		return NULL;
	}
	m->c = (struct canvas){ .w = w, .h = h, .put = mem_put, .clear = mem_clear, .priv = m };
	for (int y = 0; y < h; y++)
		mem_clear(&m->c, y, ROLE_NORMAL);
	return &m->c;
}

void canvas_mem_free(struct canvas *c)
{
	if (!c)
		return;
	struct mem *m = c->priv;
	free(m->cells);
	free(m);
}

char *canvas_mem_line(const struct canvas *c, int y, char *buf, size_t len)
{
	size_t pos = 0, end = 0;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	if (y < 0 || y >= c->h)
		return buf;
	for (int x = 0; x < c->w; x++) {
		const char *ch = at(c, y, x)->ch;
		size_t n = strlen(ch);
		if (pos + n >= len)
			break;
		memcpy(buf + pos, ch, n);
		pos += n;
		if (n && strcmp(ch, " ") != 0)
			end = pos;
	}
	buf[end] = '\0';
	return buf;
}

enum role canvas_mem_role(const struct canvas *c, int y, int x)
{
	if (y < 0 || y >= c->h || x < 0 || x >= c->w)
		return ROLE_NORMAL;
	return (enum role)at(c, y, x)->role;
}

int canvas_mem_find(const struct canvas *c, int y, const char *s)
{
	char line[8192];
	const char *hit;
	int col = 0;

	canvas_mem_line(c, y, line, sizeof(line));
	hit = strstr(line, s);
	if (!hit)
		return -1;
	/* Byte offset -> column: count the cells before the hit. */
	for (int x = 0, pos = 0; x < c->w && line + pos < hit; x++) {
		pos += (int)strlen(at(c, y, x)->ch);
		col = x + 1;
	}
	return col;
}

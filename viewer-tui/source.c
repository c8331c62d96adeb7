/* Source text for the annotated source panel.  The analyzer names files
 * and lines and says where a file is on this machine (ana_set_source_path)
 * but has no call returning its text, so the viewer reads it (plain text
 * only; nothing here parses profiles or symbols). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "viewer-tui/view.h"

#define SOURCE_MAX (64u << 20)
#define TAB 8

struct source {
	char *text;		/* every line, tabs expanded, NUL-separated */
	size_t n;
	char **line;
};

/* Text with tabs expanded to TAB columns; returns the bytes written. */
static size_t expand(char *dst, const char *src, size_t n)
{
	size_t out = 0, col = 0;

	for (size_t i = 0; i < n; i++) {
		if (src[i] == '\t') {
			do
				dst[out++] = ' ';
			while (++col % TAB);
		} else if (src[i] != '\r') {
			dst[out++] = src[i];
			col++;
		}
	}
	dst[out++] = '\0';
	return out;
}

struct source *source_read(const char *path)
{
	struct source *s = NULL;
	struct stat st;
	char *raw = NULL;
	size_t len, tabs = 0, lines = 1, pos = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return NULL;
	if (fstat(fileno(f), &st) != 0)
		goto fail;
	if (!S_ISREG(st.st_mode)) {
		errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		goto fail;
	}
	if ((uint64_t)st.st_size > SOURCE_MAX) {
		errno = EFBIG;
		goto fail;
	}
	raw = malloc((size_t)st.st_size + 1);
	s = calloc(1, sizeof(*s));
	if (!raw || !s)
		goto fail;
	len = fread(raw, 1, (size_t)st.st_size, f);
	if (ferror(f)) {
		errno = EIO;
		goto fail;
	}
	for (size_t i = 0; i < len; i++) {
		tabs += raw[i] == '\t';
		lines += raw[i] == '\n';
	}
	s->text = malloc(len + tabs * (TAB - 1) + lines + 1);
	s->line = calloc(lines, sizeof(*s->line));
	if (!s->text || !s->line)
		goto fail;
	for (size_t start = 0; start <= len && s->n < lines;) {
		char *nl = memchr(raw + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - raw) : len;
		if (!nl && start == len)	/* no empty line after the final newline */
			break;
		s->line[s->n++] = s->text + pos;
		pos += expand(s->text + pos, raw + start, end - start);
		start = end + 1;
	}
	free(raw);
	fclose(f);
	return s;
fail:;
	int e = errno;
	free(raw);
	fclose(f);
	errno = e;
	source_free(s);	/* keeps errno */
	return NULL;
}

void source_free(struct source *s)
{
	if (!s)
		return;
	int e = errno;
	free(s->text);
	free(s->line);
	free(s);
	errno = e;
}

size_t source_n_lines(const struct source *s)
{
	return s->n;
}

const char *source_line(const struct source *s, size_t n)
{
	return n >= 1 && n <= s->n ? s->line[n - 1] : "";
}

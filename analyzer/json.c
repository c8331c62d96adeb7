/* The exporters' JSON writer (json.h): libyajl's generator printing
 * straight into the caller's FILE, with the number and string rules every
 * JSON output of pmcprof shares. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_gen.h>

#include "analyzer/ana/json.h"

struct json {
	yajl_gen g;
	FILE *f;
	yajl_gen_status err;	/* the first error, or yajl_gen_status_ok */
	bool io;		/* a write failed */
	unsigned depth;		/* objects and arrays open */
	/* yajl prints token by token: a fwrite each cost more than making
	 * the output, so they are gathered here (a few KiB: still streaming) */
	size_t n;
	char buf[8192];
};

static void flush_buf(struct json *j)
{
	if (j->n && fwrite(j->buf, 1, j->n, j->f) != j->n)
		j->io = true;
	j->n = 0;
}

static void print_cb(void *ctx, const char *s, size_t len)
{
	struct json *j = ctx;

	if (len == 1 && j->n < sizeof(j->buf)) {	/* yajl's ',' ':' '"' */
		j->buf[j->n++] = *s;
		return;
	}
	if (j->n + len > sizeof(j->buf))
		flush_buf(j);
	if (len > sizeof(j->buf)) {
		if (fwrite(s, 1, len, j->f) != len)
			j->io = true;
		return;
	}
	memcpy(j->buf + j->n, s, len);
	j->n += len;
}

struct json *json_open(FILE *f)
{
	struct json *j = calloc(1, sizeof(*j));

	if (!j || !(j->g = yajl_gen_alloc(NULL))) {
		free(j);
		errno = ENOMEM;
		return NULL;
	}
	j->f = f;
	yajl_gen_config(j->g, yajl_gen_print_callback, print_cb, j);
	return j;
}

int json_close(struct json *j)
{
	if (!j)
		return 0;
	bool bad = j->err != yajl_gen_status_ok || j->depth;

	yajl_gen_free(j->g);
	flush_buf(j);
	bool io = j->io || fflush(j->f) || ferror(j->f);
	free(j);
	return io ? -EIO : bad ? -EINVAL : 0;
}

/* Keep the first error; nothing more is written after one. */
static bool ok(const struct json *j)
{
	return j->err == yajl_gen_status_ok;
}

static void check(struct json *j, yajl_gen_status st)
{
	if (st != yajl_gen_status_ok && ok(j))
		j->err = st;
}

/* Open (+1) or close (-1) an object or array level. */
static void level(struct json *j, yajl_gen_status (*gen)(yajl_gen), int step)
{
	if (ok(j))
		check(j, gen(j->g));
	j->depth += (unsigned)step;
}

void json_obj_begin(struct json *j) { level(j, yajl_gen_map_open, 1); }
void json_obj_end(struct json *j) { level(j, yajl_gen_map_close, -1); }
void json_arr_begin(struct json *j) { level(j, yajl_gen_array_open, 1); }
void json_arr_end(struct json *j) { level(j, yajl_gen_array_close, -1); }

size_t utf8_len(const unsigned char *p)
{
	unsigned c = *p;
	size_t len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
		   : (c & 0xf8) == 0xf0 ? 4 : 0;
	/* RFC 3629's ranges for the second byte: no overlong forms (C0, C1,
	 * E0 80-9F, F0 80-8F), no surrogates (ED A0-BF), nothing above
	 * U+10FFFF (F4 90-BF, F5 up) */
	unsigned lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;
	unsigned hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
	bool valid = len > 0 && (len == 1 || c >= 0xc2) && c <= 0xf4 &&
		     (len == 1 || (p[1] >= lo && p[1] <= hi));

	for (size_t k = 2; valid && k < len; k++)
		valid = (p[k] & 0xc0) == 0x80;
	return valid ? len : 0;
}

/* s with every byte that starts no UTF-8 sequence replaced by '?', in
 * pieces: the valid runs go to yajl as they are. */
static void put_text(struct json *j, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0;
	char *copy = NULL;

	while (i < n) {
		size_t len = p[i] < 0x80 ? 1 : utf8_len(p + i);	/* ASCII: most names */
		if (!len) {
			if (!copy && !(copy = strdup(s))) {
				check(j, yajl_gen_invalid_string);
				return;
			}
			copy[i] = '?';
			len = 1;
		}
		i += len;
	}
	check(j, yajl_gen_string(j->g, (const unsigned char *)(copy ? copy : s), n));
	free(copy);
}

void json_key(struct json *j, const char *key)
{
	if (ok(j))
		put_text(j, key);
}

void json_str(struct json *j, const char *s)
{
	if (!ok(j))
		return;
	if (s)
		put_text(j, s);
	else
		check(j, yajl_gen_null(j->g));
}

void json_raw_num(struct json *j, const char *num)
{
	if (ok(j))
		check(j, yajl_gen_number(j->g, num, strlen(num)));
}

/* v's decimal digits into the end of buf[24]; returns where they start
 * (printf costs more than the rest of a large JSON file). */
static char *u64_text(char *buf, uint64_t v)
{
	char *p = buf + 23;

	*p = '\0';
	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	return p;
}

void json_num(struct json *j, double v)
{
	char buf[40];

	if (isnan(v) || isinf(v)) {
		json_null(j);
		return;
	}
	if (v == floor(v) && fabs(v) < 9007199254740992.0) {
		char *p = u64_text(buf + 1, (uint64_t)fabs(v));
		if (v < 0)
			*--p = '-';
		json_raw_num(j, p);
		return;
	}
	snprintf(buf, sizeof(buf), "%.17g", v);
	json_raw_num(j, buf);
}

void json_u64(struct json *j, uint64_t v)
{
	char buf[24];

	json_raw_num(j, u64_text(buf, v));
}

void json_i64(struct json *j, int64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRId64, v);
	json_raw_num(j, buf);
}

void json_bool(struct json *j, bool v)
{
	if (ok(j))
		check(j, yajl_gen_bool(j->g, v));
}

void json_null(struct json *j)
{
	if (ok(j))
		check(j, yajl_gen_null(j->g));
}

void json_newline(struct json *j)
{
	if (ok(j))
		print_cb(j, "\n", 1);
}

void json_str_list(struct json *j, const char *const *v, size_t n)
{
	json_arr_begin(j);
	for (size_t i = 0; i < n; i++)
		json_str(j, v[i]);
	json_arr_end(j);
}

void json_kstr(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_str(j, s);
}

void json_knum(struct json *j, const char *key, double v)
{
	json_key(j, key);
	json_num(j, v);
}

void json_ku64(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_u64(j, v);
}

void json_kbool(struct json *j, const char *key, bool v)
{
	json_key(j, key);
	json_bool(j, v);
}

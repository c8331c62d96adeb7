/* A streaming JSON writer for the exporters, on libyajl's generator.
 *
 * Values go to the FILE as they are given (memory does not grow with the
 * output).  Strings are written as UTF-8: a byte that does not start a
 * valid UTF-8 sequence is written as '?' (names read from binaries are not
 * always text).  Numbers: a double that is a whole number below 2^53 is
 * written without a fraction, others with 17 significant digits (they read
 * back to the same double); NAN and infinities, which JSON cannot hold, as
 * null.
 *
 * Errors are sticky: after the first one (a write error, or a value where
 * JSON allows none, e.g. a number in a key's place) nothing more is
 * written and json_close says which.  Not thread-safe; one writer per
 * output. */
#ifndef ANALYZER_JSON_H
#define ANALYZER_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json;

/* A writer on f (not closed by it).  NULL + errno (ENOMEM). */
struct json *json_open(FILE *f);
/* Flush and free.  0; -EIO (a write error); -EINVAL (not well-formed: a
 * value out of place, an object left open).  NULL: 0. */
int json_close(struct json *j);

void json_obj_begin(struct json *j);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j);
void json_arr_end(struct json *j);

/* An object member's name; its value follows. */
void json_key(struct json *j, const char *key);
/* A string value; NULL writes null. */
void json_str(struct json *j, const char *s);
/* A number as text the caller formatted (e.g. "%.4f"); it must be one. */
void json_raw_num(struct json *j, const char *num);
void json_num(struct json *j, double v);
void json_u64(struct json *j, uint64_t v);
void json_i64(struct json *j, int64_t v);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);
/* A line break in the output, where JSON allows white space (before a
 * value): a long array reads one member a line (grep, head). */
void json_newline(struct json *j);
/* A list of strings: [s0, s1, ...]. */
void json_str_list(struct json *j, const char *const *v, size_t n);

/* Shorthands for a member: the key, then the value. */
void json_kstr(struct json *j, const char *key, const char *s);
void json_knum(struct json *j, const char *key, double v);
void json_ku64(struct json *j, const char *key, uint64_t v);
void json_kbool(struct json *j, const char *key, bool v);

/* Bytes of the UTF-8 sequence at p (1..4), 0 if none starts there. */
size_t utf8_len(const unsigned char *p);

#endif

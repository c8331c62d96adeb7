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
 * output.
 *
 * The commands write their own JSON with it too (report --sort comm alone,
 * diff --table --json): its calls are marked ANA_API, as the analyzer's
 * other public calls are (analyzer/ana/core.h). */
#ifndef ANALYZER_ANA_JSON_H
#define ANALYZER_ANA_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analyzer/ana/core.h"

#ifdef __cplusplus
extern "C" {
#endif

struct json;

/* A writer on f (not closed by it).  NULL + errno (ENOMEM). */
ANA_API struct json *json_open(FILE *f);
/* Flush and free.  0; -EIO (a write error); -EINVAL (not well-formed: a
 * value out of place, an object left open).  NULL: 0. */
ANA_API int json_close(struct json *j);

ANA_API void json_obj_begin(struct json *j);
ANA_API void json_obj_end(struct json *j);
ANA_API void json_arr_begin(struct json *j);
ANA_API void json_arr_end(struct json *j);

/* An object member's name; its value follows. */
ANA_API void json_key(struct json *j, const char *key);
/* A string value; NULL writes null. */
ANA_API void json_str(struct json *j, const char *s);
/* A number as text the caller formatted (e.g. "%.4f"); it must be one. */
ANA_API void json_raw_num(struct json *j, const char *num);
ANA_API void json_num(struct json *j, double v);
ANA_API void json_u64(struct json *j, uint64_t v);
ANA_API void json_i64(struct json *j, int64_t v);
ANA_API void json_bool(struct json *j, bool v);
ANA_API void json_null(struct json *j);
/* A line break in the output, where JSON allows white space (before a
 * value): a long array reads one member a line (grep, head). */
ANA_API void json_newline(struct json *j);
/* A list of strings: [s0, s1, ...]. */
ANA_API void json_str_list(struct json *j, const char *const *v, size_t n);

/* Shorthands for a member: the key, then the value. */
ANA_API void json_kstr(struct json *j, const char *key, const char *s);
ANA_API void json_knum(struct json *j, const char *key, double v);
ANA_API void json_ku64(struct json *j, const char *key, uint64_t v);
ANA_API void json_kbool(struct json *j, const char *key, bool v);

/* Bytes of the UTF-8 sequence at p (1..4), 0 if none starts there. */
size_t utf8_len(const unsigned char *p);

#ifdef __cplusplus
}
#endif

#endif

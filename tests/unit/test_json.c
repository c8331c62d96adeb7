/* The exporters' JSON writer (analyzer/json.c): what it writes for each
 * kind of value, that bad UTF-8 never reaches the file, and that its
 * errors (a value out of place, an object left open, a full disk) are
 * said by json_close. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "analyzer/ana/json.h"
#include "tests/harness.h"

/* Run fill on a fresh writer over a memory file: the text, and json_close's
 * result in *rc. */
static const char *write_json(void (*fill)(struct json *), int *rc)
{
	static char buf[4096];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	struct json *j = json_open(f);

	fill(j);
	*rc = json_close(j);
	fclose(f);
	return buf;
}

static void values(struct json *j)
{
	json_obj_begin(j);
	json_kstr(j, "s", "a\"b\\c\n\x01");
	json_kstr(j, "null", NULL);
	json_knum(j, "whole", 42.0);
	json_knum(j, "frac", 0.1);
	json_knum(j, "nan", NAN);
	json_knum(j, "inf", INFINITY);
	json_ku64(j, "u64", UINT64_MAX);
	json_key(j, "i64");
	json_i64(j, -5);
	json_kbool(j, "t", true);
	json_key(j, "raw");
	json_raw_num(j, "1.2500");
	json_key(j, "list");
	const char *l[] = { "x", "y" };
	json_str_list(j, l, 2);
	json_obj_end(j);
}

static void bad_utf8(struct json *j)
{
	json_arr_begin(j);
	json_str(j, "ok \xc3\xa9 \xff\xfe end \xe2\x82");	/* é, two stray bytes, a cut sequence */
	json_arr_end(j);
}

static void unclosed(struct json *j)
{
	json_obj_begin(j);
	json_kstr(j, "a", "b");
}

static void misplaced(struct json *j)
{
	json_obj_begin(j);
	json_u64(j, 1);		/* a number where a key belongs */
	json_obj_end(j);
}

int main(void)
{
	int rc;
	const char *out = write_json(values, &rc);

	T_OK(rc == 0, "a well-formed document closes with 0 (%d)", rc);
	T_OK(!strcmp(out, "{\"s\":\"a\\\"b\\\\c\\n\\u0001\",\"null\":null,\"whole\":42,"
			  "\"frac\":0.10000000000000001,\"nan\":null,\"inf\":null,"
			  "\"u64\":18446744073709551615,\"i64\":-5,\"t\":true,\"raw\":1.2500,"
			  "\"list\":[\"x\",\"y\"]}"),
	     "values: escapes, whole numbers exact, 17 digits, NAN/inf as null: %s", out);

	out = write_json(bad_utf8, &rc);
	T_OK(rc == 0 && !strcmp(out, "[\"ok \xc3\xa9 ?? end ??\"]"),
	     "bytes that start no UTF-8 sequence are written as '?': %s", out);

	static const struct { int line; const char *in, *want; } seqs[] = {
		{ __LINE__, "\xf0\x9f\x94\xa5", "\xf0\x9f\x94\xa5" },	/* U+1F525 */
		{ __LINE__, "\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf" },	/* U+10FFFF */
		{ __LINE__, "\xed\x9f\xbf", "\xed\x9f\xbf" },		/* U+D7FF */
		{ __LINE__, "\xe0\x80\x80", "???" },			/* overlong */
		{ __LINE__, "\xc0\xaf", "??" },				/* overlong '/' */
		{ __LINE__, "\xed\xa0\x80", "???" },			/* a surrogate */
		{ __LINE__, "\xf4\x90\x80\x80", "????" },		/* above U+10FFFF */
		{ __LINE__, "\xf5\x80\x80\x80", "????" },
	};
	for (size_t i = 0; i < sizeof(seqs) / sizeof(*seqs); i++) {
		char buf[64], want[64];
		FILE *f = fmemopen(buf, sizeof(buf), "w");
		struct json *j = json_open(f);
		json_str(j, seqs[i].in);
		rc = json_close(j);
		fclose(f);
		snprintf(want, sizeof(want), "\"%s\"", seqs[i].want);
		T_OK(rc == 0 && !strcmp(buf, want), "line %d: UTF-8 checked as RFC 3629 says: %s",
		     seqs[i].line, buf);
	}

	write_json(unclosed, &rc);
	T_OK(rc == -EINVAL, "an object left open: -EINVAL (%d)", rc);
	write_json(misplaced, &rc);
	T_OK(rc == -EINVAL, "a value where a key belongs: -EINVAL (%d)", rc);

	FILE *full = fopen("/dev/full", "w");
	if (full) {
		struct json *j = json_open(full);
		json_arr_begin(j);
		for (int i = 0; i < 10000; i++)
			json_str(j, "filling the disk");
		json_arr_end(j);
		rc = json_close(j);
		T_OK(rc == -EIO, "a write error: -EIO (%d)", rc);
		fclose(full);
	} else {
		T_SKIP("no /dev/full");
	}
	T_OK(json_close(NULL) == 0, "json_close(NULL) is 0");
	return T_DONE();
}

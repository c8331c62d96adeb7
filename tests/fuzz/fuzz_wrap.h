/* For the fuzz targets that read profiles: a raw payload wrapped the way
 * the writer does it (zstd frame with checksum, header with its check),
 * since random mutations of a whole file almost never get past the
 * checksums to the section decoders. */
#ifndef TESTS_FUZZ_WRAP_H
#define TESTS_FUZZ_WRAP_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "profile/format.h"
#include "profile/profile.h"

/* The header the writer puts before a compressed payload of zlen bytes
 * that holds raw_size bytes (the unit tests' hostile files too). */
static inline void wrap_header(uint8_t *out, uint64_t raw_size, uint64_t zlen)
{
	memcpy(out, PROF_MAGIC, PROF_MAGIC_LEN);
	prof_put_le32(out + 8, PROF_VERSION);
	prof_put_le32(out + 12, 0);
	prof_put_le32(out + 16, PROF_HEADER_SIZE);
	prof_put_le64(out + 24, raw_size);
	prof_put_le64(out + 32, zlen);
	prof_put_le32(out + 20, prof_header_check(out, PROF_HEADER_SIZE));
}

/* A malloc'd profile file around raw[len]; its length in *out_len.  One
 * compression context for the process: making one costs more than a run. */
static inline uint8_t *fuzz_wrap(const uint8_t *raw, size_t len, size_t *out_len)
{
	static ZSTD_CCtx *z;
	size_t cap = PROF_HEADER_SIZE + ZSTD_compressBound(len), c;
	uint8_t *out = malloc(cap);

	if (!z && (z = ZSTD_createCCtx())) {
		ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, 1);
		ZSTD_CCtx_setParameter(z, ZSTD_c_checksumFlag, 1);	/* the reader requires it */
	}
	if (!out || !z)
		abort();
	c = ZSTD_compress2(z, out + PROF_HEADER_SIZE, cap - PROF_HEADER_SIZE, raw, len);
	if (ZSTD_isError(c))
		abort();
	memset(out, 0, PROF_HEADER_SIZE);
	wrap_header(out, len, c);
	*out_len = PROF_HEADER_SIZE + c;
	return out;
}

#endif

/* Internal to profile/: the byte layout shared by writer, reader and dump.
 * docs/profile-format.md is the prose version of this file. */
#ifndef PROFILE_FORMAT_H
#define PROFILE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define PROF_MAGIC "\x89PMCPRF\n"	/* 8 bytes; high bit and \n catch text-mode mangling */
#define PROF_MAGIC_LEN 8
#define PROF_HEADER_SIZE 40		/* version 1 header */
#define PROF_HEADER_MAX 4096		/* a later minor header may grow up to this */

#define PROF_FLAG_PARTIAL 0x1u
#define PROF_FLAGS_KNOWN PROF_FLAG_PARTIAL

/* Bounds for the reader's allocations; the writer refuses anything larger. */
#define PROF_MAX_RAW (1ull << 30)	/* decompressed payload */
#define PROF_MAX_BUILD_ID 64

enum prof_section {
	PROF_SEC_META = 1,
	PROF_SEC_EVENTS = 2,
	PROF_SEC_MODULES = 3,
	PROF_SEC_CCT = 4,
	PROF_SEC_COUNTERS = 5,
	PROF_SEC_IMAGES = 6,		/* format 1.1, optional */
	PROF_SEC_TIMELINE = 7,		/* format 1.2, optional */
	PROF_SEC_LAST = PROF_SEC_TIMELINE,
};


/* The fixed header, decoded.  All fields are little-endian on disk:
 *   0  magic[8]   8 version u32   12 flags u32   16 header_size u32
 *  20 check u32 (FNV-1a of the header_size bytes with this field zeroed)
 *  24 raw_size u64 (payload, decompressed)   32 comp_size u64 (zstd frame) */
struct prof_header {
	uint32_t version;
	uint32_t flags;
	uint32_t header_size;
	uint32_t check;
	uint64_t raw_size;
	uint64_t comp_size;
};

/* Decode and validate the header at buf (len bytes available, which may be
 * the whole file).  Returns 0 or -PROF_E*; msg gets a one-line reason. */
int prof_header_decode(const void *buf, size_t len, struct prof_header *h,
		       char *msg, size_t mlen);

/* FNV-1a over the header with the check field (bytes 20..23) read as zero.
 * Async-signal-safe. */
uint32_t prof_header_check(const uint8_t *hdr, size_t size);

static inline void prof_put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void prof_put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint32_t prof_get_le32(const uint8_t *p)
{
	uint32_t v = 0;
	for (int i = 3; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static inline uint64_t prof_get_le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* Signed deltas are stored zigzag-encoded so small negatives stay short. */
static inline uint64_t prof_zigzag(uint64_t delta)
{
	return (delta << 1) ^ (uint64_t)((int64_t)delta >> 63);
}

static inline uint64_t prof_unzigzag(uint64_t z)
{
	return (z >> 1) ^ (0 - (z & 1));
}

/* Writes the message (when msg and mlen) and returns -err: the failures of
 * the header decoder and of the reader.  (header.c) */
int prof_fail(char *msg, size_t mlen, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif

/* The fixed header: shared by the writer (check), the reader and dump. */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "profile/format.h"
#include "profile/profile.h"

uint32_t prof_header_check(const uint8_t *hdr, size_t size)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < size; i++) {
		uint8_t b = (i >= 20 && i < 24) ? 0 : hdr[i];
		h = (h ^ b) * 16777619u;
	}
	return h;
}

int prof_fail(char *msg, size_t mlen, int err, const char *fmt, ...)
{
	va_list ap;

	if (msg && mlen) {
		va_start(ap, fmt);
		vsnprintf(msg, mlen, fmt, ap);
		va_end(ap);
	}
	return -err;
}

int prof_header_decode(const void *buf, size_t len, struct prof_header *h,
		       char *msg, size_t mlen)
{
	const uint8_t *b = buf;

	memset(h, 0, sizeof(*h));
	if (len == 0)
		return prof_fail(msg, mlen, PROF_ETRUNC, "truncated: empty file");
	/* A prefix of the magic is a truncated profile, anything else is foreign. */
	if (memcmp(b, PROF_MAGIC, len < PROF_MAGIC_LEN ? len : PROF_MAGIC_LEN))
		return prof_fail(msg, mlen, PROF_EMAGIC, "not a pmcprof profile");
	/* The version comes before anything whose layout a newer format may change. */
	if (len < 12)
		return prof_fail(msg, mlen, PROF_ETRUNC,
				 "truncated: %zu bytes, the header needs %d", len,
				 PROF_HEADER_SIZE);
	h->version = prof_get_le32(b + 8);
	if (h->version > PROF_VERSION)
		return prof_fail(msg, mlen, PROF_EVERSION,
				 "written by a newer pmcprof (format %u; this one reads up to %d)",
				 h->version, PROF_VERSION);
	if (h->version == 0)
		return prof_fail(msg, mlen, PROF_ECORRUPT, "corrupt: format version 0");
	if (len < PROF_HEADER_SIZE)
		return prof_fail(msg, mlen, PROF_ETRUNC,
				 "truncated: %zu bytes, the header needs %d", len,
				 PROF_HEADER_SIZE);
	h->flags = prof_get_le32(b + 12);
	h->header_size = prof_get_le32(b + 16);
	h->check = prof_get_le32(b + 20);
	h->raw_size = prof_get_le64(b + 24);
	h->comp_size = prof_get_le64(b + 32);
	if (h->header_size < PROF_HEADER_SIZE || h->header_size > PROF_HEADER_MAX)
		return prof_fail(msg, mlen, PROF_ECORRUPT,
				 "corrupt: header size %u (expected %d to %d)",
				 h->header_size, PROF_HEADER_SIZE, PROF_HEADER_MAX);
	if (len < h->header_size)
		return prof_fail(msg, mlen, PROF_ETRUNC,
				 "truncated: %zu bytes, the header says it has %u",
				 len, h->header_size);
	if (prof_header_check(b, h->header_size) != h->check)
		return prof_fail(msg, mlen, PROF_ECORRUPT, "corrupt: header checksum mismatch");
	if (h->flags & ~PROF_FLAGS_KNOWN)
		return prof_fail(msg, mlen, PROF_ECORRUPT, "corrupt: unknown header flags 0x%x",
				 h->flags & ~PROF_FLAGS_KNOWN);
	if (h->raw_size == 0 || h->raw_size > PROF_MAX_RAW)
		return prof_fail(msg, mlen, PROF_ECORRUPT,
				 "corrupt: payload size %llu (limit %llu)",
				 (unsigned long long)h->raw_size, (unsigned long long)PROF_MAX_RAW);
	/* zstd never expands by more than a small fraction; 2x is generous. */
	if (h->comp_size == 0 || h->comp_size > 2 * PROF_MAX_RAW)
		return prof_fail(msg, mlen, PROF_ECORRUPT, "corrupt: compressed size %llu",
				 (unsigned long long)h->comp_size);
	return 0;
}

size_t prof_notes_build_id(const char *path, uint8_t *out, size_t max)
{
	unsigned char buf[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t len = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;
	size_t off = 0;

	if (fd >= 0)
		close(fd);
	while (len > 0 && off + 12 <= (size_t)len) {
		uint32_t namesz, descsz, type;

		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		size_t name_at = off + 12, desc_at = name_at + ((namesz + 3) & ~3u);
		size_t next = desc_at + ((descsz + 3) & ~(size_t)3);
		if (next > (size_t)len || next <= off)
			break;
		if (type == 3 /* NT_GNU_BUILD_ID */ && namesz == 4 &&
		    memcmp(buf + name_at, "GNU", 4) == 0 && descsz <= max) {
			memcpy(out, buf + desc_at, descsz);
			return descsz;
		}
		off = next;
	}
	return 0;
}

void prof_name_part(char *dst, size_t cap, const char *src)
{
	size_t n = 0;

	for (; *src && n + 1 < cap; src++) {
		char c = *src;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '+';
		dst[n++] = ok ? c : '_';
	}
	dst[n] = '\0';
}

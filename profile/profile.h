/* The profile format: the one contract between collector and analyzer.
 *
 * One file per thread (OUTDIR/NAME.pmcp): a fixed header, then one zstd frame
 * (with content checksum) holding the sections.  docs/profile-format.md
 * describes the bytes.  The writer needs no malloc and no stdio, so the
 * collector can call it from a fatal-signal handler; the reader treats the
 * file as untrusted and validates every length, index and offset.
 */
#ifndef PROFILE_PROFILE_H
#define PROFILE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROF_VERSION 1
/* Minor additions a version-1 reader skips: 1 = the images section,
 * 2 = the timeline section. */
#define PROF_VERSION_MINOR 2
#define PROF_NO_MODULE UINT32_MAX	/* node has no module (root, unknown pc) */

/* Metadata: ordered key/value strings (command, host, pid, tid, kernel, ...).
 * Keys are documented in docs/profile-format.md. */
struct prof_kv {
	const char *key;
	const char *value;
};

/* A sampled event, as requested and as used. */
struct prof_event {
	const char *name;		/* used, canonical (e.g. "perf::CPU-CLOCK") */
	const char *requested;		/* as the user asked (e.g. "cycles@1000000") */
	const char *unit;		/* "events", "ns", "us" */
	uint64_t period;		/* base sampling period (0 if freq) */
	uint64_t freq;			/* Hz, when sampling by frequency */
	uint64_t random_mask;		/* --random-period mask, 0 if fixed */
	uint64_t weight;		/* sum of the periods actually used for its samples */
};

/* A loaded object, valid for [start, end) from load_seq until unload_seq. */
struct prof_module {
	const char *path;
	const uint8_t *build_id;	/* may be NULL */
	uint32_t build_id_len;		/* <= 64 */
	uint64_t start, end;		/* mapped address range */
	uint64_t bias;			/* load bias: ELF vaddr = pc - bias */
	uint32_t load_seq, unload_seq;	/* unload_seq 0: still loaded at the end */
};

/* The calling-context tree, struct-of-arrays.  Node 0 is the root.
 * offset is the ELF virtual address within module (pc - bias); for every
 * frame but the leaf the collector stores return-address - 1, so that it
 * lies inside the call instruction. */
struct prof_cct {
	uint32_t n_nodes;
	uint32_t n_events;
	const uint32_t *parent;		/* parent[0] = 0 */
	const uint32_t *module;		/* index into modules, or PROF_NO_MODULE */
	const uint64_t *offset;
	const uint64_t *counts;		/* n_nodes * n_events, row-major by node */
};

/* A named collector counter (samples, dropped_in_loader, unwind_failed, ...). */
struct prof_counter {
	const char *name;
	uint64_t value;
};

/* The bytes of a module that exists only in memory (the vdso), so that
 * another machine can symbolize it.  At most PROF_MAX_IMAGE bytes each,
 * PROF_MAX_IMAGES per profile. */
#define PROF_MAX_IMAGE (1u << 20)
#define PROF_MAX_IMAGES 16
struct prof_image {
	uint32_t module;		/* index into modules */
	uint32_t len;
	const uint8_t *data;
};

/* The thread's samples in time order (format 1.2, optional): each one's
 * time and calling context (a CCT node and an event).  Present when
 * unit_ns != 0.  Times are in units of unit_ns after origin_ns, the
 * CLOCK_MONOTONIC time of the run's start (the same for every process of
 * a run recorded by `pmcprof record`).  Every sample in it is also in the
 * CCT's counts; the CCT's samples that are not in it are counted in lost. */
#define PROF_TIMELINE_FORMAT 1
#define PROF_TIMELINE_MAX_UNIT 1000000000u
struct prof_timeline {
	uint32_t unit_ns;		/* resolution of the times, 1 .. 10^9 ns; 0: none */
	uint64_t origin_ns;		/* CLOCK_MONOTONIC of the run's start, ns */
	uint64_t start;			/* units after origin: sampling began */
	uint64_t end;			/* units after origin: the profile was written */
	uint64_t lost;			/* samples in the CCT, not here (buffer full) */
	uint64_t n;			/* samples */
	/* Reader: n entries each, in time order. */
	const uint64_t *time;		/* units after origin */
	const uint32_t *node;		/* CCT node */
	const uint32_t *event;		/* event index */
	/* Writer: the n samples as records_len bytes of records instead
	 * (prof_timeline_record: the collector appends them in its signal
	 * handler), written column by column. */
	const uint8_t *records;
	size_t records_len;
};

/* Encode one timeline record into out (at least PROF_TIMELINE_RECORD_MAX
 * bytes): dt, the units since the previous sample (the first: since
 * start), then node * n_events + event.  Returns its length.
 * Async-signal-safe. */
#define PROF_TIMELINE_RECORD_MAX 20
static inline size_t prof_timeline_record(uint8_t *out, uint64_t dt, uint64_t key)
{
	size_t n = 0;

	for (int k = 0; k < 2; k++, dt = key) {
		while (dt >= 0x80) {
			out[n++] = (uint8_t)(dt | 0x80);
			dt >>= 7;
		}
		out[n++] = (uint8_t)dt;
	}
	return n;
}

/* A whole per-thread profile, as plain arrays. */
struct prof {
	uint32_t version;
	bool partial;			/* written after a fatal signal or early stop */
	size_t n_meta;
	const struct prof_kv *meta;
	size_t n_events;
	const struct prof_event *events;
	size_t n_modules;
	const struct prof_module *modules;
	struct prof_cct cct;
	size_t n_counters;
	const struct prof_counter *counters;
	size_t n_images;		/* format 1.1; 0 when absent */
	const struct prof_image *images;
	struct prof_timeline timeline;	/* format 1.2; unit_ns 0 when absent */
};

/* ---- writer (async-signal-safe: mmap/munmap and syscalls only) ---- */

/* Write p atomically as dirfd/name: a temp file created with
 * O_CREAT|O_EXCL|O_NOFOLLOW (mode, minus umask), then fsync'd and renamed
 * into place; name must not exist (never replaced).  Returns 0 or -errno.
 * Async-signal-safe. */
int prof_write(const struct prof *p, int dirfd, const char *name, int mode);

/* ---- reader ---- */

struct prof_file;	/* a parsed file; owns every string and array in it */

/* Read and validate path.  On error returns -errno or -PROF_E*, and msg gets
 * a one-line explanation ("truncated: header says ... but file has ..."). */
int prof_file_read(const char *path, struct prof_file **out, char *msg, size_t len);
/* Same, from memory (for the fuzzer and tests). */
int prof_file_parse(const void *buf, size_t len, struct prof_file **out, char *msg, size_t mlen);
/* The contents; valid until prof_file_free. */
const struct prof *prof_file_data(const struct prof_file *f);
void prof_file_free(struct prof_file *f);
/* Value of a metadata key, or NULL. */
const char *prof_meta_get(const struct prof *p, const char *key);

/* The GNU build-id note (NT_GNU_BUILD_ID) in a notes file such as
 * /sys/kernel/notes, copied to out: its length, or 0 if none fits in max.
 * The profile records the kernel's, and the analyzer matches it. */
size_t prof_notes_build_id(const char *path, uint8_t *out, size_t max);

/* src as a part of a profile's file name (the command, the host): letters,
 * digits, '.', '_' and '+' kept, every other byte '_', cut to fit cap.
 * Async-signal-safe. */
void prof_name_part(char *dst, size_t cap, const char *src);

/* Resizes the array whose pointer is at arr (an int ** for an int array)
 * to cap elements of el bytes.  0, or -ENOMEM with the array as it was.
 * Not async-signal-safe (realloc), like prof_array_grow. */
int prof_array_resize(void *arr, size_t cap, size_t el);

/* Room for element n of the array whose pointer is at arr, *cap elements
 * long: doubles it (32 at first) when n reaches *cap.  0 or -ENOMEM. */
int prof_array_grow(void *arr, size_t *cap, size_t n, size_t el);

/* Remaps the mapping whose address is at mem from *bytes to `to` bytes
 * (mremap: it may move; the address and *bytes follow).  false if mremap
 * failed, the mapping as it was.  One system call: async-signal-safe. */
bool prof_map_resize(void *mem, size_t *bytes, size_t to);

enum prof_err {
	PROF_EMAGIC = 5000,	/* not a pmcprof profile */
	PROF_EVERSION,		/* a future format version */
	PROF_ETRUNC,		/* truncated */
	PROF_ECORRUPT,		/* bad length, index, offset or checksum */
};
const char *prof_strerror(int err);

#endif

/* Kernel symbols for the [kernel.kallsyms] pseudo-module (see
 * collector/kernel.h): /proc/kallsyms of the machine the report runs on,
 * modules included, used only when that kernel is the one recorded (same
 * build-id from /sys/kernel/notes).  Names are shown with perf's "[k] "
 * mark; offset 0 is the "[kernel]" leaf of a kernel-mode sample taken
 * without a chain. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "analyzer/internal.h"

#define KSYM_BASE 0xffff800000000000ULL	/* the collector's KERN_START */

struct ksym {
	uint64_t addr;
	const char *name;		/* interned, with the "[k] " mark */
};

struct kallsyms {
	struct ksym *s;
	size_t n;
	bool usable;			/* same kernel, addresses visible */
};

bool kallsyms_is_kernel(const char *path)
{
	return path && strcmp(path, "[kernel.kallsyms]") == 0;
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The running kernel's build-id from a notes file, as lowercase hex. */
static size_t notes_build_id(const char *path, uint8_t *out, size_t max)
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
		if (type == 3 && namesz == 4 && !memcmp(buf + name_at, "GNU", 4) && descsz <= max) {
			memcpy(out, buf + desc_at, descsz);
			return descsz;
		}
		off = next;
	}
	return 0;
}

static void hexs(char *out, size_t len, const uint8_t *b, size_t n)
{
	size_t k = 0;

	out[0] = 0;
	for (size_t i = 0; i < n && k + 3 <= len; i++)
		k += (size_t)snprintf(out + k, len - k, "%02x", b[i]);
	if (!n)
		snprintf(out, len, "none");
}

struct kallsyms *kallsyms_load(const char *kallsyms_path, const char *notes_path,
			       const uint8_t *bid, size_t bid_len, struct strpool *pool, char *msg,
			       size_t len, enum ana_severity *sev)
{
	struct kallsyms *ks = calloc(1, sizeof(*ks));
	uint8_t have[64];
	size_t have_len, cap = 0, zero = 0;
	char line[512], want_s[130], have_s[130];
	struct utsname u;
	FILE *f;

	msg[0] = 0;
	*sev = ANA_NOTE_INFO;
	if (!ks)
		return NULL;
	if (!kallsyms_path)
		kallsyms_path = getenv("PMCPROF_KALLSYMS") ? getenv("PMCPROF_KALLSYMS") : "/proc/kallsyms";
	if (!notes_path)
		notes_path = getenv("PMCPROF_KERNEL_NOTES") ? getenv("PMCPROF_KERNEL_NOTES")
							    : "/sys/kernel/notes";
	if (uname(&u) < 0)
		snprintf(u.release, sizeof(u.release), "?");
	have_len = notes_build_id(notes_path, have, sizeof(have));
	if (bid_len && (have_len != bid_len || memcmp(have, bid, bid_len))) {
		hexs(want_s, sizeof(want_s), bid, bid_len);
		hexs(have_s, sizeof(have_s), have, have_len);
		snprintf(msg, len, "[kernel.kallsyms]: recorded on another kernel (build-id %s; this "
			 "one, %s, is %s): kernel frames not symbolized, shown as [k] ADDRESS",
			 want_s, u.release, have_s);
		*sev = ANA_NOTE_WARN;
		return ks;
	}
	f = fopen(kallsyms_path, "re");
	if (!f) {
		snprintf(msg, len, "[kernel.kallsyms]: %s: %s; kernel frames shown as [k] ADDRESS",
			 kallsyms_path, strerror(errno));
		*sev = ANA_NOTE_WARN;
		return ks;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char type, name[256], mod[128] = "";
		char full[400];

		if (sscanf(line, "%llx %c %255s [%127[^]]]", &a, &type, name, mod) < 3)
			continue;
		/* Code only: text (t/T) and weak (w/W) symbols. */
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (a == 0) {
			zero++;
			continue;
		}
		if (vec_reserve(&ks->s, &cap, ks->n + 1, sizeof(*ks->s)))
			break;
		/* perf's spelling: "[k] name"; a module's function keeps its
		 * module, as in perf's Shared Object column. */
		if (mod[0])
			snprintf(full, sizeof(full), "[k] %s [%s]", name, mod);
		else
			snprintf(full, sizeof(full), "[k] %s", name);
		ks->s[ks->n].addr = a;
		ks->s[ks->n].name = strpool_str(pool, full);
		if (ks->s[ks->n].name)
			ks->n++;
	}
	fclose(f);
	if (!ks->n) {
		snprintf(msg, len, "[kernel.kallsyms]: %s %s; kernel frames shown as [k] ADDRESS",
			 kallsyms_path,
			 zero ? "hides its addresses (kptr_restrict, or not root)" : "has no symbols");
		*sev = ANA_NOTE_WARN;
		return ks;
	}
	qsort(ks->s, ks->n, sizeof(*ks->s), ksym_cmp);
	ks->usable = true;
	if (!bid_len) {
		snprintf(msg, len, "[kernel.kallsyms]: the profile has no kernel build-id; symbols "
			 "from this kernel (%s), which may not be the one recorded", u.release);
		*sev = ANA_NOTE_WARN;
	}
	return ks;
}

size_t kallsyms_lookup(struct kallsyms *ks, struct strpool *pool, uint64_t off,
		       struct sym_frame *fr, size_t max)
{
	uint64_t addr = off + KSYM_BASE;
	const char *name = NULL;
	char buf[64];

	if (!max)
		return 0;
	if (off == 0) {
		name = strpool_str(pool, "[kernel]");
	} else if (ks && ks->usable && addr >= ks->s[0].addr) {
		size_t lo = 0, hi = ks->n;

		/* The last symbol at or below addr. */
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;
			if (ks->s[mid].addr <= addr)
				lo = mid;
			else
				hi = mid;
		}
		/* Past the last symbol by more than any function: unknown
		 * (BPF programs, trampolines). */
		if (lo + 1 < ks->n || addr - ks->s[lo].addr < (1u << 20))
			name = ks->s[lo].name;
	}
	if (!name) {
		snprintf(buf, sizeof(buf), "[k] 0x%016llx", (unsigned long long)addr);
		name = strpool_str(pool, buf);
	}
	if (!name)
		return 0;
	/* keyed by name, as perf's rows are (a kernel name is its own key) */
	fr[0] = (struct sym_frame){ .key = name, .func = name };
	return 1;
}

void kallsyms_free(struct kallsyms *ks)
{
	if (!ks)
		return;
	free(ks->s);
	free(ks);
}

const char *kallsyms_frames_note(const char *kernel_frames)
{
	if (!kernel_frames)
		return NULL;
	if (!strcmp(kernel_frames, "charged_to_user"))
		return "this backend cannot see the kernel: time spent in the kernel (system "
		       "calls, page faults) is charged to the user code that entered it";
	if (!strcmp(kernel_frames, "excluded"))
		return "the events exclude the kernel (':u', or no right to sample it): time in the "
		       "kernel was not sampled and is missing from this profile";
	if (!strcmp(kernel_frames, "leaf"))
		return "kernel call chains were not recorded: kernel-mode samples end in a "
		       "[kernel] leaf";
	return NULL;
}

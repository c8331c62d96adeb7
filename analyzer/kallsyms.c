/* Kernel symbols for the [kernel.kallsyms] pseudo-module (see
 * collector/kernel.h): /proc/kallsyms of the machine the report runs on,
 * modules included, used only when that kernel is the one recorded (same
 * build-id from /sys/kernel/notes).  Names are shown with perf's "[k] "
 * mark; offset 0 is the "[kernel]" leaf of a kernel-mode sample taken
 * without a chain.
 *
 * The kernel makes /proc/kallsyms up on every read (about 20 ms for its
 * 120 000 lines here, and as much again to parse them), so the sorted
 * table is kept in the symbol cache as a binary file that is mapped, not
 * parsed: kallsyms-<key>.ksym, the key a hash of what the symbols depend
 * on (the kernel's build-id, the boot, whose KASLR offset moves every
 * address, the loaded modules and their addresses; for a kallsyms file
 * given by PMCPROF_KALLSYMS, that file's identity).  Its layout, native
 * byte order:
 *
 *   char magic[16]   "pmcprof-ksyms 1\n"
 *   u32 endian       0x01020304
 *   u32 pad          0
 *   u8 key[16]
 *   u64 n, names_len
 *   u64 addr[n]      strictly increasing
 *   u32 name[n]      offsets into names
 *   char names[names_len]   NUL-terminated "name" or "name [module]"
 *
 * A file of another size, order or shape is ignored and rewritten. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "analyzer/symbolize.h"
#include "profile/profile.h"

#define KSYM_BASE 0xffff800000000000ULL	/* the collector's KERN_START */
#define KSYM_MAGIC "pmcprof-ksyms 1\n"
#define KSYM_PREFIX "kallsyms-"
#define KSYM_MAX_BYTES (256u << 20)	/* of /proc/kallsyms or a cache file */

struct kfile_hdr {
	char magic[16];
	uint32_t endian, pad;
	uint8_t key[16];
	uint64_t n, names_len;
};

struct kallsyms {
	const uint64_t *addr;		/* sorted, distinct */
	const uint32_t *name;		/* into names */
	const char *names;
	size_t n, names_len;
	void *map;			/* the cache file, or NULL */
	size_t map_len;
	uint64_t *own_addr;		/* or the table read from kallsyms */
	uint32_t *own_name;
	char *own_names;
	bool usable;			/* same kernel, addresses visible */
};

bool kallsyms_is_kernel(const char *path)
{
	return path && strcmp(path, "[kernel.kallsyms]") == 0;
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

/* A whole file into a NUL-terminated buffer (pseudo-files have no size:
 * read until the end), at most max bytes; NULL + errno. */
static char *slurp(const char *path, size_t max, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	size_t cap = 1 << 20, n = 0;
	char *buf = fd >= 0 ? malloc(cap) : NULL;
	int e = fd < 0 ? errno : ENOMEM;

	while (buf) {
		if (n + 65536 + 1 > cap) {
			char *b2 = cap < max ? realloc(buf, cap *= 2) : NULL;
			if (!b2) {
				e = cap >= max ? EFBIG : ENOMEM;
				free(buf);
				buf = NULL;
				break;
			}
			buf = b2;
		}
		ssize_t k = read(fd, buf + n, cap - n - 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			e = errno;
			free(buf);
			buf = NULL;
		} else if (k == 0) {
			buf[n] = 0;
			*len = n;
			break;
		} else {
			n += (size_t)k;
		}
	}
	if (fd >= 0)
		close(fd);
	if (!buf)
		errno = e;
	return buf;
}

/* ---- the cache key ---- */

struct keybuf {
	char s[8192];
	size_t n;
	uint64_t h[2];
};

/* Hash in what is buffered: the key is a running hash of everything. */
static void key_flush(struct keybuf *k)
{
	k->h[0] = hash_bytes(k->s, k->n, k->h[0]);
	k->h[1] = hash_bytes(k->s, k->n, k->h[1] ^ 0x6b73796d);
	k->n = 0;
}

static void key_add(struct keybuf *k, const char *s, size_t len)
{
	while (len) {
		if (k->n == sizeof(k->s))
			key_flush(k);
		size_t c = sizeof(k->s) - k->n < len ? sizeof(k->s) - k->n : len;
		memcpy(k->s + k->n, s, c);
		k->n += c;
		s += c;
		len -= c;
	}
}

static void key_str(struct keybuf *k, const char *tag, const char *s)
{
	key_add(k, tag, strlen(tag));
	key_add(k, s, strlen(s));
	key_add(k, "\n", 1);
}

/* What the symbols of the running kernel depend on: its build-id, the
 * boot (KASLR), each module's name, size and address (not its use
 * counts, which change as it is used); a kallsyms file given instead of
 * /proc's, its identity.  false when the boot cannot be told apart. */
static bool cache_key(const char *kallsyms_path, const uint8_t *bid, size_t bid_len,
		      uint8_t key[16])
{
	struct keybuf k = { .h = { 0x70636d70, 0x6b616c6c } };
	char buf[256], boot[64] = "";
	struct stat sb;
	size_t len;

	hexs(buf, sizeof(buf), bid, bid_len);
	key_str(&k, "build-id ", buf);
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t got = fd >= 0 ? read(fd, boot, sizeof(boot) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (got < 32)
		return false;
	boot[got] = 0;
	key_str(&k, "boot ", boot);
	key_str(&k, "kallsyms ", kallsyms_path);
	if (strncmp(kallsyms_path, "/proc/", 6)) {
		if (stat(kallsyms_path, &sb) || !S_ISREG(sb.st_mode))
			return false;
		snprintf(buf, sizeof(buf), "%llu %llu %lld %lld.%09ld", (unsigned long long)sb.st_dev,
			 (unsigned long long)sb.st_ino, (long long)sb.st_size,
			 (long long)sb.st_mtim.tv_sec, sb.st_mtim.tv_nsec);
		key_str(&k, "file ", buf);
	}
	/* "name size refcount deps state address": name, size and address */
	char *mods = slurp("/proc/modules", 4u << 20, &len);
	for (char *save, *l = mods ? strtok_r(mods, "\n", &save) : NULL; l;
	     l = strtok_r(NULL, "\n", &save)) {
		char *f[6], *s2;
		int i = 0;
		for (char *t = strtok_r(l, " ", &s2); t && i < 6; t = strtok_r(NULL, " ", &s2))
			f[i++] = t;
		if (i < 6)
			continue;
		key_str(&k, "module ", f[0]);
		key_str(&k, " ", f[1]);
		key_str(&k, " ", f[5]);
	}
	free(mods);
	key_flush(&k);
	memcpy(key, &k.h[0], 8);
	memcpy(key + 8, &k.h[1], 8);
	return true;
}

static void key_name(char *out, size_t len, const uint8_t key[16])
{
	char h[40];
	hexs(h, sizeof(h), key, 16);
	snprintf(out, len, KSYM_PREFIX "%s.ksym", h);
}

/* The cache file for key, mapped and checked, into ks; false if absent or
 * not valid. */
static bool cache_open(struct kallsyms *ks, const char *dir, const uint8_t key[16])
{
	char name[80], path[4200];
	struct stat sb;
	struct kfile_hdr h;

	key_name(name, sizeof(name), key);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return false;
	void *map = MAP_FAILED;
	if (!fstat(fd, &sb) && S_ISREG(sb.st_mode) && sb.st_size >= (off_t)sizeof(h) &&
	    sb.st_size < KSYM_MAX_BYTES)
		map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return false;
	size_t len = (size_t)sb.st_size;
	memcpy(&h, map, sizeof(h));
	const char *base = map;
	bool ok = !memcmp(h.magic, KSYM_MAGIC, sizeof(h.magic)) && h.endian == 0x01020304 &&
		  !memcmp(h.key, key, 16) && h.n > 0 && h.n < (len >> 3) && h.names_len > 0 &&
		  h.names_len < len && sizeof(h) + h.n * 12 + h.names_len == len &&
		  base[len - 1] == 0;
	if (!ok) {
		munmap(map, len);
		return false;
	}
	/* (the sizes are checked: these point inside the file) */
	const uint64_t *addr = (const uint64_t *)(base + sizeof(h));
	const uint32_t *nm = (const uint32_t *)(base + sizeof(h) + h.n * 8);
	for (size_t i = 0; ok && i < h.n; i++)
		ok = nm[i] < h.names_len && (i == 0 || addr[i] > addr[i - 1]);
	if (!ok) {
		munmap(map, len);
		return false;
	}
	*ks = (struct kallsyms){ .addr = addr, .name = nm, .names = base + sizeof(h) + h.n * 12, .n = h.n,
				 .names_len = h.names_len, .map = map, .map_len = len };
	return true;
}

/* Keep the table under key; other kallsyms tables (earlier boots, other
 * modules) go, so the cache holds one.  Best effort. */
static void cache_save(const struct kallsyms *ks, const char *dir, const uint8_t key[16])
{
	char name[80];
	struct kfile_hdr h = { .magic = KSYM_MAGIC, .endian = 0x01020304, .n = ks->n,
			       .names_len = ks->names_len };

	memcpy(h.key, key, 16);
	key_name(name, sizeof(name), key);
	struct iovec iov[4] = { { &h, sizeof(h) },
				{ (void *)ks->addr, ks->n * sizeof(*ks->addr) },
				{ (void *)ks->name, ks->n * sizeof(*ks->name) },
				{ (void *)ks->names, ks->names_len } };
	if (symcache_write(dir, name, iov, 4))
		return;
	DIR *d = opendir(dir);
	for (struct dirent *de; d && (de = readdir(d));) {
		size_t l = strlen(de->d_name);
		if (!strncmp(de->d_name, KSYM_PREFIX, strlen(KSYM_PREFIX)) && l > 5 &&
		    !strcmp(de->d_name + l - 5, ".ksym") && strcmp(de->d_name, name))
			unlinkat(dirfd(d), de->d_name, 0);
	}
	if (d)
		closedir(d);
}

/* ---- parsing /proc/kallsyms ---- */

struct kent {
	uint64_t addr;
	uint32_t name, seq;
};

static int kent_cmp(const void *a, const void *b)
{
	const struct kent *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
		: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* One line of kallsyms, "ADDRESS TYPE NAME [MODULE]". */
struct kline {
	uint64_t addr;
	char type;
	const char *name, *mod;
	size_t name_len, mod_len;	/* cut at 255 and 127 */
};

/* Parse line q (NUL-terminated); false if it has no address, type or name. */
static bool parse_line(const char *q, struct kline *l)
{
	int digits = 0, v;
	*l = (struct kline){ 0 };
	while (is_space(*q))
		q++;
	if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X') && hexval(q[2]) >= 0)
		q += 2;
	for (; (v = hexval(*q)) >= 0; q++, digits++)
		l->addr = l->addr >> 60 ? UINT64_MAX : (l->addr << 4) | (uint64_t)v;
	while (is_space(*q))
		q++;
	l->type = *q;
	if (!digits || !l->type)
		return false;
	q++;
	while (is_space(*q))
		q++;
	l->name = q;
	while (*q && !is_space(*q))
		q++;
	l->name_len = (size_t)(q - l->name);
	if (l->name_len > 255) {
		l->name_len = 255;
		return true;
	}
	while (is_space(*q))
		q++;
	if (*q == '[') {
		l->mod = ++q;
		while (*q && *q != ']' && l->mod_len < 127)
			q++, l->mod_len++;
	}
	return l->name_len > 0;
}

/* The symbols read so far, and their names in one block. */
struct kacc {
	struct kent *e;
	size_t n, cap;
	char *names;
	size_t nl, ncap;
	uint32_t seq;
	bool sorted;
};

/* Add l's symbol.  0 or -ENOMEM. */
static int kacc_add(struct kacc *k, const struct kline *l)
{
	if (vec_reserve(&k->e, &k->cap, k->n + 1, sizeof(*k->e)) ||
	    vec_reserve(&k->names, &k->ncap, k->nl + l->name_len + l->mod_len + 4, 1) ||
	    k->nl > UINT32_MAX)
		return -ENOMEM;
	/* perf's spelling, less its "[k] ": a module's function keeps
	 * its module, as in perf's Shared Object column. */
	k->e[k->n] = (struct kent){ l->addr, (uint32_t)k->nl, k->seq++ };
	k->sorted &= !k->n || k->e[k->n - 1].addr <= l->addr;
	k->n++;
	memcpy(k->names + k->nl, l->name, l->name_len);
	k->nl += l->name_len;
	if (l->mod_len) {
		k->names[k->nl++] = ' ';
		k->names[k->nl++] = '[';
		memcpy(k->names + k->nl, l->mod, l->mod_len);
		k->nl += l->mod_len;
		k->names[k->nl++] = ']';
	}
	k->names[k->nl++] = 0;
	return 0;
}

/* The symbols sorted by address into ks (of aliases at one address, the
 * last listed names it), which then owns the names.  0 or -ENOMEM. */
static int kacc_finish(struct kacc *k, struct kallsyms *ks)
{
	if (!k->sorted)
		qsort(k->e, k->n, sizeof(*k->e), kent_cmp);
	ks->own_addr = malloc(k->n * sizeof(*ks->own_addr));
	ks->own_name = malloc(k->n * sizeof(*ks->own_name));
	if (!ks->own_addr || !ks->own_name)
		return -ENOMEM;
	size_t j = 0;
	for (size_t i = 0; i < k->n; i++) {
		if (j && ks->own_addr[j - 1] == k->e[i].addr)
			j--;
		ks->own_addr[j] = k->e[i].addr;
		ks->own_name[j++] = k->e[i].name;
	}
	*ks = (struct kallsyms){ .addr = ks->own_addr, .name = ks->own_name, .names = k->names,
				 .n = j, .names_len = k->nl, .own_addr = ks->own_addr,
				 .own_name = ks->own_name, .own_names = k->names };
	k->names = NULL;
	return 0;
}

/* "ADDRESS TYPE NAME [MODULE]" lines, code symbols only (text t/T, weak
 * w/W), in buf[len] (NUL-terminated, changed) into ks; addresses 0
 * (hidden: kptr_restrict, or not root) are counted in *zero.  A name is
 * cut at 255 bytes and a module at 127, as they always were. */
static int parse(struct kallsyms *ks, char *buf, size_t len, size_t *zero)
{
	struct kacc k = { .sorted = true };
	int err = 0;
	for (char *p = buf, *end = buf + len; p < end && !err;) {
		char *eol = memchr(p, '\n', (size_t)(end - p));
		struct kline l;
		if (!eol)
			eol = end;
		*eol = 0;
		bool ok = parse_line(p, &l);
		p = eol + 1;
		if (!ok || !strchr("tTwW", l.type))
			continue;
		if (l.addr == 0)
			(*zero)++;
		else
			err = kacc_add(&k, &l);
	}
	if (!err && k.n)
		err = kacc_finish(&k, ks);
	free(k.e);
	free(k.names);
	return err;
}

struct kallsyms *kallsyms_load(const char *kallsyms_path, const char *notes_path,
			       const uint8_t *bid, size_t bid_len, const char *cache_dir,
			       char *msg, size_t len, enum ana_severity *sev)
{
	struct kallsyms *ks = calloc(1, sizeof(*ks));
	uint8_t have[64], key[16];
	size_t have_len, zero = 0, flen;
	char want_s[130], have_s[130];
	struct utsname u;

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
	have_len = prof_notes_build_id(notes_path, have, sizeof(have));
	if (bid_len && (have_len != bid_len || memcmp(have, bid, bid_len))) {
		hexs(want_s, sizeof(want_s), bid, bid_len);
		hexs(have_s, sizeof(have_s), have, have_len);
		snprintf(msg, len, "[kernel.kallsyms]: recorded on another kernel (build-id %s; this "
			 "one, %s, is %s): kernel frames not symbolized, shown as [k] ADDRESS",
			 want_s, u.release, have_s);
		*sev = ANA_NOTE_WARN;
		return ks;
	}
	bool keyed = cache_dir && cache_key(kallsyms_path, have, have_len, key);
	if (!keyed || !cache_open(ks, cache_dir, key)) {
		char *buf = slurp(kallsyms_path, KSYM_MAX_BYTES, &flen);
		if (!buf) {
			snprintf(msg, len, "[kernel.kallsyms]: %s: %s; kernel frames shown as [k] ADDRESS",
				 kallsyms_path, strerror(errno));
			*sev = ANA_NOTE_WARN;
			return ks;
		}
		int e = parse(ks, buf, flen, &zero);
		free(buf);
		if (e) {
			kallsyms_free(ks);
			return NULL;
		}
		if (ks->n && keyed)
			cache_save(ks, cache_dir, key);
	}
	if (!ks->n) {
		snprintf(msg, len, "[kernel.kallsyms]: %s %s; kernel frames shown as [k] ADDRESS",
			 kallsyms_path,
			 zero ? "hides its addresses (kptr_restrict, or not root)" : "has no symbols");
		*sev = ANA_NOTE_WARN;
		return ks;
	}
	ks->usable = true;
	if (!bid_len) {
		snprintf(msg, len, "[kernel.kallsyms]: the profile has no kernel build-id; symbols "
			 "from this kernel (%s), which may not be the one recorded", u.release);
		*sev = ANA_NOTE_WARN;
	}
	return ks;
}

bool kallsyms_usable(const struct kallsyms *ks)
{
	return ks && ks->usable;
}

size_t kallsyms_lookup(struct kallsyms *ks, struct strpool *pool, uint64_t off,
		       struct sym_frame *fr, size_t max)
{
	uint64_t addr = off + KSYM_BASE;
	const char *name = NULL;
	char buf[400];

	if (!max)
		return 0;
	if (off == 0) {
		name = strpool_str(pool, "[kernel]");
	} else if (ks && ks->usable && addr >= ks->addr[0]) {
		size_t lo = 0, hi = ks->n;

		/* The last symbol at or below addr. */
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;
			if (ks->addr[mid] <= addr)
				lo = mid;
			else
				hi = mid;
		}
		/* Past the last symbol by more than any function: unknown
		 * (BPF programs, trampolines). */
		if (lo + 1 < ks->n || addr - ks->addr[lo] < (1u << 20)) {
			snprintf(buf, sizeof(buf), "[k] %s", ks->names + ks->name[lo]);
			name = strpool_str(pool, buf);
		}
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
	if (ks->map)
		munmap(ks->map, ks->map_len);
	FREE_EACH(ks->own_addr, ks->own_name, ks->own_names, ks);
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

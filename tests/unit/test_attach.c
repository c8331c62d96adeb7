/* attach/ without perf_event: load maps read from outside (/proc/self/maps
 * here) must give the same load bias the dynamic loader used, and crafted
 * kernel records (sample with a call chain, LOST, EXIT) must land in the
 * right thread's tree and counters and come out as a profile the reader
 * validates. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <linux/perf_event.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "attach/internal.h"
#include "profile/profile.h"
#include "tests/harness.h"

__attribute__((noinline)) static int here(void)
{
	return 42;
}

struct want {
	uintptr_t addr;
	uintptr_t bias;
};

static int find_bias(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct want *w = arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && w->addr >= lo && w->addr < lo + ph->p_memsz) {
			w->bias = info->dlpi_addr;
			return 1;
		}
	}
	return 0;
}

static struct att_session *session(const char *outdir)
{
	struct att_session *s = calloc(1, sizeof(*s));

	s->o.sz = sizeof(s->o);
	s->o.n_ev = 1;
	s->o.outdir = outdir;
	s->o.stack = ATT_STACK_FP;
	snprintf(s->ev[0].name, sizeof(s->ev[0].name), "perf::CPU-CLOCK");
	s->ev[0].unit = "ns";
	s->ev[0].period = 1000000;
	s->o.ev = s->ev;
	s->kern.on = true;
	s->max_stack = 127;
	s->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			 PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	facts_machine();
	return s;
}

static void test_bias(void)
{
	static const struct {
		const char *what;
		int line;
	} cases[] = { { "this program", __LINE__ }, { "libc", __LINE__ }, { "the vdso", __LINE__ } };
	struct att_session *s = session("/nonexistent");
	struct att_proc *p = proc_get(s, getpid(), true);
	uintptr_t addrs[3] = { (uintptr_t)&here, (uintptr_t)dlsym(RTLD_DEFAULT, "getpid"), 0 };
	const ElfW(Ehdr) *vd = (const ElfW(Ehdr) *)getauxval(AT_SYSINFO_EHDR);

	/* the vdso: an address in its first executable segment */
	for (int i = 0; vd && i < vd->e_phnum; i++) {
		const ElfW(Phdr) *ph = (const ElfW(Phdr) *)((const char *)vd + vd->e_phoff) + i;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X))
			addrs[2] = (uintptr_t)vd + ph->p_vaddr + ph->p_memsz / 2;
	}
	T_OK(procmap_read(s, p) == 0, "procmap_read(/proc/self/maps)");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct want w = { addrs[i], 0 };
		uint32_t mod = PROF_NO_MODULE;
		uint64_t off = 0;
		bool found;

		if (!addrs[i]) {
			T_SKIP("%s: no address (line %d)", cases[i].what, cases[i].line);
			continue;
		}
		dl_iterate_phdr(find_bias, &w);
		found = procmap_lookup(p, addrs[i], &mod, &off);
		T_OK(found && off == addrs[i] - w.bias,
		     "%s: offset 0x%llx is pc - the loader's bias 0x%llx (line %d)", cases[i].what,
		     (unsigned long long)off, (unsigned long long)(addrs[i] - w.bias), cases[i].line);
	}
	T_OK(procmap_lookup(p, 0xffffffff81000000ull, &(uint32_t){ 0 }, &(uint64_t){ 0 }),
	     "kernel addresses resolve to [kernel.kallsyms]");
	att_close(s);
}

/* A sample of this thread: kernel leaf, then user frames. */
static size_t craft_sample(uint8_t *buf, uint64_t kpc, uint64_t upc, uint64_t ret)
{
	uint64_t v[] = { 0 /* identifier */, kpc, 0 /* pid|tid */, 1 /* time */, 1000000,
			 5, (uint64_t)PERF_CONTEXT_KERNEL, kpc, (uint64_t)PERF_CONTEXT_USER, upc, ret };
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL,
				       (uint16_t)(sizeof(h) + sizeof(v)) };

	v[2] = (uint64_t)(uint32_t)getpid() | (uint64_t)(uint32_t)gettid() << 32;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), v, sizeof(v));
	return sizeof(h) + sizeof(v);
}

static void test_records(void)
{
	char dir[] = "/tmp/test-attach.XXXXXX", path[512], msg[256];
	struct att_session *s;
	struct att_thr *t;
	_Alignas(8) uint8_t rec[256];
	size_t n;
	struct prof_file *f = NULL;
	const struct prof *pr;
	uint64_t lost = 0, samples = 0;

	if (!mkdtemp(dir)) {
		T_SKIP("no temporary directory");
		return;
	}
	s = session(dir);
	n = craft_sample(rec, 0xffffffff81234567ull, (uint64_t)(uintptr_t)&here + 4,
			 (uint64_t)(uintptr_t)&test_records + 8);
	records_handle(s, rec, n);
	t = thr_get(s, getpid(), gettid(), false);
	T_OK(t && t->ctr[AC_SAMPLES] == 1 && t->ctr[AC_KERNEL_SAMPLES] == 1,
	     "a kernel-mode sample is counted on its thread");
	T_OK(t && t->cct.n_nodes == 4, "root + 3 frames in the tree (%u nodes)",
	     t ? t->cct.n_nodes : 0);
	/* LOST with the sample_id_all trailer naming the thread */
	{
		struct perf_event_header h = { PERF_RECORD_LOST, 0, sizeof(h) + 16 + 24 };
		uint64_t v[5] = { 0, 7, (uint64_t)(uint32_t)getpid() | (uint64_t)(uint32_t)gettid() << 32,
				  2, 0 };

		memcpy(rec, &h, sizeof(h));
		memcpy(rec + sizeof(h), v, sizeof(v));
		records_handle(s, rec, sizeof(h) + sizeof(v));
	}
	T_OK(t && t->ctr[AC_LOST] == 7 && s->st.lost == 7, "LOST: 7 on the thread it names");
	/* EXIT of the thread: its profile is written */
	{
		struct perf_event_header h = { PERF_RECORD_EXIT, 0, sizeof(h) + 24 + 24 };
		uint32_t ids[4] = { (uint32_t)getpid(), (uint32_t)getppid(), (uint32_t)gettid(), 0 };
		uint64_t tail[4] = { 3, 0, 0, 0 };

		memcpy(rec, &h, sizeof(h));
		memcpy(rec + sizeof(h), ids, sizeof(ids));
		memcpy(rec + sizeof(h) + sizeof(ids), tail, sizeof(tail));
		records_handle(s, rec, h.size);
	}
	T_OK(s->st.profiles == 1, "EXIT writes the thread's profile");
	/* CMD-HOST-PID-TID.pmcp: the one file there */
	path[0] = '\0';
	{
		DIR *d = opendir(dir);
		struct dirent *e;
		char tail[64];

		snprintf(tail, sizeof(tail), "-%d-%d.pmcp", (int)getpid(), (int)gettid());
		while (d && (e = readdir(d)))
			if (strlen(e->d_name) > strlen(tail) &&
			    !strcmp(e->d_name + strlen(e->d_name) - strlen(tail), tail))
				snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (d)
			closedir(d);
	}
	T_OK(prof_file_read(path, &f, msg, sizeof(msg)) == 0, "the reader validates %s (%s)", path,
	     f ? "ok" : msg);
	if (f) {
		pr = prof_file_data(f);
		for (size_t i = 0; i < pr->n_counters; i++) {
			if (!strcmp(pr->counters[i].name, "lost"))
				lost = pr->counters[i].value;
			if (!strcmp(pr->counters[i].name, "samples"))
				samples = pr->counters[i].value;
		}
		T_OK(samples == 1 && lost == 7, "its counters: samples %llu, lost %llu",
		     (unsigned long long)samples, (unsigned long long)lost);
		T_OK(pr->n_modules == 2, "only the modules its tree uses (%zu: kernel, this program)",
		     pr->n_modules);
		T_OK(prof_meta_get(pr, "end_reason") && !strcmp(prof_meta_get(pr, "end_reason"), "exit"),
		     "end_reason exit");
		prof_file_free(f);
		unlink(path);
	}
	rmdir(dir);
	att_close(s);
}

int main(void)
{
	test_bias();
	test_records();
	return T_DONE();
}

/* Facts for the profiles, read from outside: the machine's (as the
 * collector's flush.c gathers them), the process's from /proc/PID, each
 * thread's CPU time from /proc/PID/task/TID (schedstat: ns on the CPU;
 * stat: the user-mode ticks).  Also the session's process and thread
 * tables. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "attach/internal.h"

struct att_machine att_machine;

static void one_line(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
}

void facts_machine(void)
{
	struct att_machine *m = &att_machine;
	struct pmc_env env;
	struct utsname u;
	long tck = sysconf(_SC_CLK_TCK);

	if (m->done)
		return;
	m->done = true;
	if (uname(&u) == 0) {
		snprintf(m->host, sizeof(m->host), "%s", u.nodename);
		snprintf(m->kernel, sizeof(m->kernel), "%s", u.release);
		snprintf(m->arch, sizeof(m->arch), "%s", u.machine);
		one_line(m->host);
	}
	snprintf(m->cpus, sizeof(m->cpus), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
	pmc_env_probe(&env);
	snprintf(m->cpu_model, sizeof(m->cpu_model), "%s", env.cpu_model);
	snprintf(m->hypervisor, sizeof(m->hypervisor), "%s",
		 env.hv_present && env.hv_name ? env.hv_name : "none");
	for (char *c = m->hypervisor; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	snprintf(m->hv_signature, sizeof(m->hv_signature), "%s", env.hv_signature);
	if (env.pmu_version > 0 || env.n_gp > 0)
		snprintf(m->vpmu, sizeof(m->vpmu), "arch perfmon v%d, %d gp counters x %d bits, %d fixed",
			 env.pmu_version, env.n_gp, env.gp_width, env.n_fixed);
	else
		snprintf(m->vpmu, sizeof(m->vpmu), "none");
	snprintf(m->paranoid, sizeof(m->paranoid), "%d", env.paranoid);
	snprintf(m->hw_events, sizeof(m->hw_events), "%s",
		 env.hw_events ? "yes" : (env.hw_errno ? strerrorname_np(env.hw_errno) : "no"));
	m->ns_per_tick = tck > 0 ? 1000000000u / (uint64_t)tck : 0;
	m->steal_start = facts_steal_ns();
}

uint64_t facts_steal_ns(void)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "re");
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	return n == 8 ? v[7] * att_machine.ns_per_tick : 0;
}

static ssize_t read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return n;
}

/* argv joined by spaces, quoted where a shell would need it. */
static void quote_argv(char *dst, size_t cap, const char *raw, size_t n)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789_@%+=:,./-";
	size_t o = 0;

	dst[0] = '\0';
	for (const char *a = raw; a < raw + n && o + 4 < cap; a += strlen(a) + 1) {
		bool plain = *a && strspn(a, safe) == strlen(a);

		if (a != raw)
			dst[o++] = ' ';
		if (!plain)
			dst[o++] = '\'';
		for (const char *c = a; *c && o + 6 < cap; c++) {
			if (*c == '\'') {
				memcpy(dst + o, "'\\''", 4);
				o += 4;
			} else {
				dst[o++] = *c;
			}
		}
		if (!plain)
			dst[o++] = '\'';
		dst[o] = '\0';
	}
	one_line(dst);
}

void facts_process(struct att_proc *p)
{
	char path[64], raw[4096];
	ssize_t n;
	const char *base;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)p->pid);
	n = readlink(path, p->command, sizeof(p->command) - 1);
	p->command[n > 0 ? n : 0] = '\0';
	one_line(p->command);
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)p->pid);
	n = read_small(path, raw, sizeof(raw));
	if (n > 0) {
		quote_argv(p->argv, sizeof(p->argv), raw, (size_t)n);
		base = strrchr(raw, '/') ? strrchr(raw, '/') + 1 : raw;
		snprintf(p->comm, sizeof(p->comm), "%.63s", base);
	} else {
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)p->pid);
		if (read_small(path, p->comm, sizeof(p->comm)) > 0)
			p->comm[strcspn(p->comm, "\n")] = '\0';
	}
	if (!p->comm[0]) {
		/* a kernel thread (no cmdline) or one already gone */
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)p->pid);
		if (read_small(path, p->comm, sizeof(p->comm)) > 0)
			p->comm[strcspn(p->comm, "\n")] = '\0';
	}
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)p->pid);
	if (read_small(path, raw, sizeof(raw)) > 0) {
		const char *r = strrchr(raw, ')');
		int ppid;

		if (r && sscanf(r + 1, " %*c %d", &ppid) == 1)
			p->ppid = ppid;
	}
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)p->pid);
	p->jit_map |= access(path, R_OK) == 0;
}

int facts_thread_cpu(pid_t pid, pid_t tid, uint64_t *cpu_ns, uint64_t *user_ns)
{
	char path[80], buf[1024];
	unsigned long long run = 0, ut = 0;
	const char *r;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)pid, (int)tid);
	if (read_small(path, buf, sizeof(buf)) <= 0 || sscanf(buf, "%llu", &run) != 1)
		return -ESRCH;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	if (read_small(path, buf, sizeof(buf)) <= 0 || !(r = strrchr(buf, ')')) ||
	    sscanf(r + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu", &ut) != 1)
		return -ESRCH;
	*cpu_ns = run;
	*user_ns = ut * att_machine.ns_per_tick;
	return 0;
}

int facts_process_cpu(pid_t pid, uint64_t *ns)
{
	char path[64], buf[1024];
	unsigned long long ut, st;
	const char *r;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_small(path, buf, sizeof(buf)) <= 0 || !(r = strrchr(buf, ')')) ||
	    sscanf(r + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return -ESRCH;
	*ns = (ut + st) * att_machine.ns_per_tick;
	return 0;
}

bool facts_alive(pid_t pid)
{
	char path[64], buf[512];
	const char *r;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_small(path, buf, sizeof(buf)) <= 0 || !(r = strrchr(buf, ')')))
		return false;
	return r[1] == ' ' && r[2] != 'Z' && r[2] != 'X';
}

void facts_thread_name(pid_t pid, pid_t tid, char *out, size_t len)
{
	char path[80];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	if (read_small(path, out, len) > 0) {
		out[strcspn(out, "\n")] = '\0';
		one_line(out);
	}
}

struct att_proc *proc_get(struct att_session *s, pid_t pid, bool create)
{
	struct att_proc **h = &s->procs[(unsigned)pid % ATT_HASH], *p;

	for (p = *h; p; p = p->next)
		if (p->pid == pid)
			return p;
	if (!create || !(p = calloc(1, sizeof(*p))))
		return NULL;
	p->pid = pid;
	facts_process(p);
	p->next = *h;
	*h = p;
	s->st.processes++;
	return p;
}

static void cpu_at_attach(struct att_session *s, struct att_thr *t)
{
	for (struct att_cpu0 *c = s->cpu0[(unsigned)t->tid % ATT_HASH]; c; c = c->next) {
		if (c->tid != t->tid)
			continue;
		t->cpu_start_ns = c->cpu_ns;
		t->user_start_ns = c->user_ns;
		return;
	}
	/* Not there at attach (every thread of the -p processes, every task
	 * for -a was read then): born since, so all its CPU time counts. */
	t->cpu_start_ns = t->user_start_ns = 0;
}

struct att_thr *thr_get(struct att_session *s, pid_t pid, pid_t tid, bool create)
{
	struct att_thr **h = &s->thrs[(unsigned)tid % ATT_HASH], *t;
	struct att_proc *p;
	uint32_t nodes;

	for (t = *h; t; t = t->next)
		if (t->tid == tid && !t->dead)
			return t;
	if (!create || !(p = proc_get(s, pid, true)))
		return NULL;
	if (!p->maps_read)
		procmap_read(s, p);
	if (!(t = calloc(1, sizeof(*t))))
		return NULL;
	t->arena = mmap(NULL, ATT_CCT_BYTES, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	nodes = t->arena == MAP_FAILED ? 0 : cct_capacity(ATT_CCT_BYTES, (uint32_t)s->o.n_ev);
	if (!nodes || cct_init(&t->cct, t->arena, ATT_CCT_BYTES, (uint32_t)s->o.n_ev) < 0) {
		if (t->arena != MAP_FAILED)
			munmap(t->arena, ATT_CCT_BYTES);
		free(t);
		return NULL;
	}
	t->pid = pid;
	t->tid = tid;
	t->proc = p;
	t->index = s->next_index++;
	clock_gettime(CLOCK_REALTIME, &t->start);
	t->cpu_end_ns = t->user_end_ns = UINT64_MAX;
	t->cpu_last_ns = t->user_last_ns = UINT64_MAX;
	facts_thread_name(pid, tid, t->name, sizeof(t->name));
	cpu_at_attach(s, t);
	t->next = *h;
	*h = t;
	s->st.threads++;
	return t;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void facts_refresh_cpu(struct att_session *s)
{
	uint64_t now = mono_ns(), every = s->o.all_cpus ? 500000000u : 100000000u;

	for (unsigned h = 0; h < ATT_HASH; h++) {
		for (struct att_thr *t = s->thrs[h]; t; t = t->next) {
			uint64_t cpu, user, w = 0;

			if (t->dead || !t->sampled_since || now - t->read_at_ns < every)
				continue;
			if (facts_thread_cpu(t->pid, t->tid, &cpu, &user) < 0)
				continue;
			for (size_t i = 0; i < s->o.n_ev; i++)
				w += t->weight[i];
			t->cpu_last_ns = cpu;
			t->user_last_ns = user;
			t->weight_last = w;
			t->read_at_ns = now;
			t->sampled_since = false;
		}
	}
}

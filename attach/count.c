/* Counting from outside (pmcprof stat -p/-t/-a): one counter per event and
 * thread (inherited by the threads and children it starts) or per event
 * and CPU, summed on read, scaled as perf stat scales a multiplexed one. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "attach/internal.h"

struct att_counter {
	int *fd, *ev;
	size_t n, cap;
	pid_t *pids;			/* processes counted (-p, -t's) */
	size_t n_pids;
	bool all_cpus;
};

static int add(struct att_counter *c, const struct pmc_event *e, int idx, pid_t tid, int cpu,
	       bool inherit)
{
	struct perf_event_attr a;
	long fd;

	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 32;

		if (prof_array_resize(&c->fd, cap, sizeof(*c->fd)) ||
		    prof_array_resize(&c->ev, cap, sizeof(*c->ev)))
			return -ENOMEM;
		c->cap = cap;
	}
	att_attr_init(&a, e, inherit);
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd = syscall(SYS_perf_event_open, &a, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	c->fd[c->n] = (int)fd;
	c->ev[c->n++] = idx;
	return 0;
}

static int fail(struct att_error *e, int err, pid_t pid, pid_t tid, int cpu)
{
	if (e)
		*e = (struct att_error){ .err = err, .pid = pid, .tid = tid, .cpu = cpu,
					 .what = "perf_event_open" };
	return err;
}

static int count_process(struct att_counter *c, const struct att_opts *o, pid_t pid,
			 struct att_error *e)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int ret = 0, opened = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(dir = opendir(path)))
		return fail(e, -ESRCH, pid, 0, -1);
	while ((d = readdir(dir)) && ret == 0) {
		pid_t tid = (pid_t)atoi(d->d_name);

		for (size_t i = 0; tid > 0 && i < o->n_ev && ret == 0; i++) {
			ret = add(c, &o->ev[i], (int)i, tid, -1, true);
			if (ret == -ESRCH) {
				ret = 0;
				break;
			}
			if (ret < 0)
				fail(e, ret, pid, tid, -1);
			else
				opened += i == 0;
		}
	}
	closedir(dir);
	if (ret == 0 && !opened)
		ret = fail(e, -ESRCH, pid, 0, -1);
	return ret;
}

int att_count_open(const struct att_opts *o, struct att_counter **out, struct att_error *e)
{
	struct att_counter *c = calloc(1, sizeof(*c));
	int ncpu = (int)sysconf(_SC_NPROCESSORS_CONF), ret = 0;

	*out = NULL;
	if (!c)
		return -ENOMEM;
	for (size_t i = 0; i < o->n_ev; i++)
		if (o->ev[i].kind != PMC_KIND_PERF) {
			free(c);
			return -PMC_ENOTSUP;
		}
	c->all_cpus = o->all_cpus;
	c->pids = calloc(o->n_pids + o->n_tids + 1, sizeof(*c->pids));
	if (!c->pids)
		ret = -ENOMEM;
	for (int cpu = 0; ret == 0 && o->all_cpus && cpu < ncpu; cpu++)
		for (size_t i = 0; ret == 0 && i < o->n_ev; i++)
			if ((ret = add(c, &o->ev[i], (int)i, -1, cpu, false)) < 0) {
				if (ret == -ENODEV && cpu > 0) {
					ret = 0;
					break;
				}
				fail(e, ret, -1, 0, cpu);
			}
	for (size_t k = 0; ret == 0 && k < o->n_pids; k++) {
		ret = count_process(c, o, o->pids[k], e);
		c->pids[c->n_pids++] = o->pids[k];
	}
	for (size_t k = 0; ret == 0 && k < o->n_tids; k++) {
		for (size_t i = 0; ret == 0 && i < o->n_ev; i++)
			if ((ret = add(c, &o->ev[i], (int)i, o->tids[k], -1, false)) < 0)
				fail(e, ret, 0, o->tids[k], -1);
		c->pids[c->n_pids++] = o->tids[k];
	}
	for (size_t i = 0; ret == 0 && i < c->n; i++)
		if (ioctl(c->fd[i], PERF_EVENT_IOC_ENABLE, 0) < 0)
			ret = -errno;
	if (ret < 0) {
		att_count_close(c);
		return ret;
	}
	*out = c;
	return 0;
}

int att_count_read(struct att_counter *c, struct pmc_count *vals, size_t n)
{
	memset(vals, 0, n * sizeof(*vals));
	for (size_t i = 0; i < c->n; i++) {
		uint64_t v[3];
		struct pmc_count *o;

		if ((size_t)c->ev[i] >= n)
			continue;
		/* A thread that ended keeps its final count readable. */
		if (read(c->fd[i], v, sizeof(v)) != sizeof(v))
			continue;
		o = &vals[c->ev[i]];
		o->raw += v[0];
		o->value += v[2] && v[2] < v[1] ? (uint64_t)((double)v[0] * v[1] / v[2]) : v[0];
		o->scaled |= v[2] && v[2] < v[1];
		o->enabled += v[1];
		o->running += v[2];
	}
	return 0;
}

bool att_count_done(struct att_counter *c)
{
	if (c->all_cpus || !c->n_pids)
		return false;
	for (size_t i = 0; i < c->n_pids; i++)
		if (facts_alive(c->pids[i]))
			return false;
	return true;
}

void att_count_close(struct att_counter *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		close(c->fd[i]);
	free(c->fd);
	free(c->ev);
	free(c->pids);
	free(c);
}

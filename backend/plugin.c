/* Backend plugins: pmc-NAME.so, one const descriptor each, checked before use. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/internal.h"

#ifndef PMC_PLUGIN_DIR
#define PMC_PLUGIN_DIR "/usr/local/lib/pmcprof"
#endif

/* Plugin names are identifiers: they become file names. */
static bool name_valid(const char *name)
{
	if (!name || !*name || strlen(name) > 31)
		return false;
	for (const char *c = name; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_')
			return false;
	return true;
}

/* Calls fn(dir) for each directory of the search path until fn returns != 0. */
static int path_foreach(int (*fn)(const char *dir, void *arg), void *arg)
{
	const char *env = getenv("PMCPROF_PLUGIN_PATH");
	char buf[4096];
	int ret;

	if (env && *env && strlen(env) < sizeof(buf)) {
		strcpy(buf, env);
		for (char *save = NULL, *dir = strtok_r(buf, ":", &save); dir;
		     dir = strtok_r(NULL, ":", &save)) {
			ret = fn(dir, arg);
			if (ret)
				return ret;
		}
	}
	return fn(PMC_PLUGIN_DIR, arg);
}

struct find_arg {
	const char *name;
	char path[512];
	char why[384];			/* set when a plugin was found but not trusted */
};

/* Code we may run: owned by root or by us, and writable by nobody else
 * (a group-writable one only when the group is root's or ours).  Whoever
 * could write it could make every profiled program run their code. */
static bool st_trusted(const struct stat *st)
{
	uid_t me = geteuid();

	if (st->st_uid != 0 && st->st_uid != me)
		return false;
	if (st->st_mode & S_IWOTH)
		return false;
	return !(st->st_mode & S_IWGRP) || st->st_gid == 0 || st->st_gid == getegid();
}

static void untrusted_why(char *buf, size_t len, const char *what, const char *path,
			  const struct stat *st)
{
	pmc_fmt(buf, len, "refusing to load %s: %s %s is %s (plugins load only from files and "
		"directories owned by root or you and writable by no one else)", what,
		S_ISDIR(st->st_mode) ? "directory" : "file", path,
		st->st_uid != 0 && st->st_uid != geteuid() ? "owned by another user"
							     : "writable by others");
}

static int find_in(const char *dir, void *arg)
{
	struct find_arg *f = arg;
	struct stat st;

	pmc_fmt(f->path, sizeof(f->path), "%s/pmc-%s.so", dir, f->name);
	if (access(f->path, R_OK) != 0)
		return 0;
	if (stat(dir, &st) != 0 || !st_trusted(&st)) {
		untrusted_why(f->why, sizeof(f->why), f->path, dir, &st);
		return -1;
	}
	return 1;
}

/* dlopen path once the file is known to be trusted.  Nobody else can
 * swap it between the check and the dlopen: its directory was checked
 * too (find_in), and only root or we may write there.  (dlopen of
 * /proc/self/fd/N would be tighter still, but glibc matches an already
 * loaded object by that name, and N is reused from one plugin to the
 * next.) */
static void *open_trusted(const char *path, char *why, size_t len)
{
	struct stat st;
	void *h;

	if (stat(path, &st) != 0) {
		pmc_fmt(why, len, "cannot load %s: %s", path, strerror(errno));
		return NULL;
	}
	if (!S_ISREG(st.st_mode) || !st_trusted(&st)) {
		untrusted_why(why, len, path, path, &st);
		return NULL;
	}
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		pmc_fmt(why, len, "cannot load %s: %s", path, dlerror());
	return h;
}

int pmc_backend_load(const char *name, struct pmc_backend **out, char *err_msg, size_t len)
{
	struct find_arg f = { .name = name };
	const struct pmc_plugin *pl;
	struct pmc_backend *be;
	void *h;

	*out = NULL;
	if (!name_valid(name)) {
		pmc_fmt(err_msg, len, "invalid backend name '%s'", name ? name : "");
		return -PMC_EPLUGIN;
	}
	switch (path_foreach(find_in, &f)) {
	case 1:
		break;
	case -1:
		pmc_fmt(err_msg, len, "%s", f.why);
		return -PMC_EPLUGIN;
	default:
		pmc_fmt(err_msg, len, "no backend plugin '%s' (pmc-%s.so not found in %s%s%s)",
			name, name, getenv("PMCPROF_PLUGIN_PATH") ? getenv("PMCPROF_PLUGIN_PATH") : "",
			getenv("PMCPROF_PLUGIN_PATH") ? ":" : "", PMC_PLUGIN_DIR);
		return -PMC_EPLUGIN;
	}
	h = open_trusted(f.path, err_msg, len);
	if (!h)
		return -PMC_EPLUGIN;
	pl = dlsym(h, PMC_PLUGIN_SYMBOL);
	if (!pl) {
		pmc_fmt(err_msg, len, "%s is not a pmcprof plugin (no '%s' symbol)", f.path,
			PMC_PLUGIN_SYMBOL);
		dlclose(h);
		return -PMC_EPLUGIN;
	}
	/* Check the ABI before touching anything else in the descriptor. */
	/* Ops are only ever appended: a descriptor built before the last
	 * one was added is shorter, and its missing ops count as NULL. */
	if (pl->abi != PMC_PLUGIN_ABI || pl->size < PMC_PLUGIN_SIZE_MIN_1 ||
	    pl->size > sizeof(struct pmc_plugin)) {
		pmc_fmt(err_msg, len,
			"%s was built for plugin ABI %u (descriptor size %u); this pmcprof needs "
			"ABI %u (size %zu): rebuild the plugin",
			f.path, pl->abi, pl->size, PMC_PLUGIN_ABI, sizeof(struct pmc_plugin));
		dlclose(h);
		return -PMC_EABI;
	}
	if (!pl->name || strcmp(pl->name, name) != 0 || !pl->ops.probe || !pl->ops.open ||
	    !pl->ops.close) {
		pmc_fmt(err_msg, len, "%s: malformed descriptor (name or required ops missing)",
			f.path);
		dlclose(h);
		return -PMC_EPLUGIN;
	}
	be = calloc(1, sizeof(*be));
	if (!be) {
		dlclose(h);
		return -ENOMEM;
	}
	be->handle = h;
	be->plugin = pl;
	pmc_fmt(be->path, sizeof(be->path), "%s", f.path);
	pmc_plugin_events_register(pl);
	*out = be;
	return 0;
}

void pmc_backend_unload(struct pmc_backend *be)
{
	if (!be)
		return;
	dlclose(be->handle);
	free(be);
}

const char *pmc_backend_name(const struct pmc_backend *be)
{
	return be->plugin->name;
}

const char *pmc_backend_description(const struct pmc_backend *be)
{
	return be->plugin->description ? be->plugin->description : "";
}

bool pmc_backend_follows_children(const struct pmc_backend *be)
{
	return !(be->plugin->flags & PMC_PLUGIN_NO_INHERIT);
}

bool pmc_backend_signals_only(const struct pmc_backend *be)
{
	return !(be->plugin->flags & PMC_PLUGIN_SILENT_KERNEL);
}

const char *pmc_backend_version(const struct pmc_backend *be)
{
	return be->plugin->version ? be->plugin->version : "";
}

static struct pmc_env probe_env;
static bool probe_env_done;

const struct pmc_probe *pmc_backend_probe(struct pmc_backend *be)
{
	if (!be->probed) {
		if (!probe_env_done) {
			pmc_env_probe(&probe_env);
			probe_env_done = true;
		}
		memset(&be->probe, 0, sizeof(be->probe));
		if (be->plugin->ops.probe(&probe_env, &be->probe) < 0 && !be->probe.reason[0])
			pmc_fmt(be->probe.reason, sizeof(be->probe.reason), "probe failed");
		be->probed = true;
	}
	return &be->probe;
}

bool pmc_backend_accepts(const struct pmc_backend *be, const struct pmc_event *ev)
{
	const struct pmc_plugin *pl = be->plugin;

	if (ev->kind == PMC_KIND_PLUGIN) {
		for (size_t i = 0; i < pl->n_events; i++)
			if (strcmp(pl->events[i].name, ev->name) == 0)
				return true;
		return false;
	}
	if (!(pl->flags & PMC_PLUGIN_PERF_ATTR))
		return false;
	if ((pl->flags & PMC_PLUGIN_HARDWARE) && !ev->hardware)
		return false;
	return true;
}

void pmc_backend_events(const struct pmc_backend *be,
			void (*fn)(const char *name, const char *desc, const char *unit, void *arg),
			void *arg)
{
	for (size_t i = 0; i < be->plugin->n_events; i++)
		fn(be->plugin->events[i].name, be->plugin->events[i].desc,
		   be->plugin->events[i].unit, arg);
}

struct list_arg {
	char names[32][32];
	int n;
};

static int list_in(const char *dir, void *arg)
{
	struct list_arg *l = arg;
	struct dirent *d;
	DIR *dp = opendir(dir);

	if (!dp)
		return 0;
	while ((d = readdir(dp)) && l->n < 32) {
		size_t len = strlen(d->d_name);
		char name[32];
		bool dup = false;

		if (len < 8 || strncmp(d->d_name, "pmc-", 4) != 0 ||
		    strcmp(d->d_name + len - 3, ".so") != 0 || len - 7 >= sizeof(name))
			continue;
		pmc_fmt(name, sizeof(name), "%.*s", (int)(len - 7), d->d_name + 4);
		if (!name_valid(name))
			continue;
		for (int i = 0; i < l->n; i++)
			dup |= strcmp(l->names[i], name) == 0;
		if (!dup)
			strcpy(l->names[l->n++], name);
	}
	closedir(dp);
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

int pmc_backend_foreach(int (*fn)(const char *name, void *arg), void *arg)
{
	struct list_arg l = { .n = 0 };

	path_foreach(list_in, &l);
	qsort(l.names, l.n, sizeof(l.names[0]), cmp_name);
	for (int i = 0; i < l.n; i++) {
		int ret = fn(l.names[i], arg);
		if (ret)
			return ret;
	}
	return 0;
}

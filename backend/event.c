/* Event specs: "EVENT[:MOD...][@PERIOD|@fFREQ]" -> struct pmc_event.
 *
 * Names are looked up in order: the plugins' own events (CPUTIME, ...),
 * perf-style aliases (cycles, cpu-clock, ...), then libpfm4, which encodes
 * everything for perf_event (PFM_OS_PERF_EVENT_EXT) and understands the
 * modifiers (:u, :k, :c=N, ...). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <perfmon/pfmlib_perf_event.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "backend/internal.h"

static pthread_once_t pfm_once = PTHREAD_ONCE_INIT;
static int pfm_status;

static void pfm_init_once(void)
{
	pfm_status = pfm_initialize() == PFM_SUCCESS ? 0 : -PMC_EEVENT;
}

int pmc_pfm_init(void)
{
	pthread_once(&pfm_once, pfm_init_once);
	return pfm_status;
}

unsigned pmc_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned row[64];

	if (la >= 63 || lb >= 63)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned up = row[j];
			unsigned cost = tolower((unsigned char)a[i - 1]) !=
					tolower((unsigned char)b[j - 1]);
			unsigned best = diag + cost;
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

struct suggestion {
	const char *probe;
	size_t len;		/* strlen(probe) */
	unsigned limit;		/* farther than this is not a typo */
	char best[PMC_NAME_MAX];
	unsigned dist;
};

static void consider(struct suggestion *s, const char *candidate)
{
	size_t n = strlen(candidate);

	/* The distance is at least the length difference: skip early. */
	if ((n > s->len ? n - s->len : s->len - n) > s->limit)
		return;
	unsigned d = pmc_edit_distance(s->probe, candidate);

	if (d < s->dist) {
		s->dist = d;
		pmc_fmt(s->best, sizeof(s->best), "%s", candidate);
	}
}

/* The one walk over libpfm4's PMUs present and their events: for each PMU,
 * pmu_fn (when given), then ev_fn for each event (when given).  A non-zero
 * return from either stops the walk and is returned. */
static int pfm_walk(int (*pmu_fn)(const pfm_pmu_info_t *pmu, void *arg),
		    int (*ev_fn)(const pfm_pmu_info_t *pmu, const pfm_event_info_t *ev, void *arg),
		    void *arg)
{
	pfm_pmu_info_t pinfo;
	pfm_event_info_t einfo;
	pfm_pmu_t pmu;
	int ret;

	if ((ret = pmc_pfm_init()) < 0)
		return ret;
	pfm_for_all_pmus(pmu) {
		memset(&pinfo, 0, sizeof(pinfo));
		pinfo.size = sizeof(pinfo);
		if (pfm_get_pmu_info(pmu, &pinfo) != PFM_SUCCESS || !pinfo.is_present)
			continue;
		if (pmu_fn && (ret = pmu_fn(&pinfo, arg)) != 0)
			return ret;
		for (int idx = pinfo.first_event; ev_fn && idx != -1; idx = pfm_get_event_next(idx)) {
			memset(&einfo, 0, sizeof(einfo));
			einfo.size = sizeof(einfo);
			if (pfm_get_event_info(idx, PFM_OS_NONE, &einfo) != PFM_SUCCESS)
				continue;
			if ((ret = ev_fn(&pinfo, &einfo, arg)) != 0)
				return ret;
		}
	}
	return 0;
}

struct pmu_foreach {
	int (*fn)(const struct pmc_pmu_desc *pmu, void *arg);
	void *arg;
};

static int pmu_visit(const pfm_pmu_info_t *pinfo, void *arg)
{
	const struct pmu_foreach *f = arg;
	struct pmc_pmu_desc d = { .name = pinfo->name, .desc = pinfo->desc,
				  .nevents = pinfo->nevents };

	return f->fn(&d, f->arg);
}

int pmc_pmu_foreach(int (*fn)(const struct pmc_pmu_desc *pmu, void *arg), void *arg)
{
	struct pmu_foreach f = { fn, arg };

	return pfm_walk(pmu_visit, NULL, &f);
}

struct event_foreach {
	int (*fn)(const struct pmc_event_desc *ev, void *arg);
	void *arg;
};

static int event_visit(const pfm_pmu_info_t *pinfo, const pfm_event_info_t *einfo, void *arg)
{
	const struct event_foreach *f = arg;
	char full[PMC_NAME_MAX];
	struct pmc_event_desc d = { .name = full, .desc = einfo->desc, .pmu = pinfo->name };

	pmc_fmt(full, sizeof(full), "%s::%s", pinfo->name, einfo->name);
	return f->fn(&d, f->arg);
}

int pmc_event_foreach(unsigned sets, int (*fn)(const struct pmc_event_desc *ev, void *arg),
		      void *arg)
{
	struct event_foreach f = { fn, arg };
	int ret;

	for (size_t i = 0; (sets & PMC_EVENTS_ALIASES) && i < pmc_n_aliases; i++) {
		struct pmc_event_desc d = { .name = pmc_aliases[i].alias,
					    .target = pmc_aliases[i].target,
					    .desc = pmc_aliases[i].desc };

		if ((ret = fn(&d, arg)) != 0)
			return ret;
	}
	return (sets & PMC_EVENTS_PFM) ? pfm_walk(NULL, event_visit, &f) : 0;
}

/* libpfm4's event names for the PMUs present ("pmu::event"), gathered once:
 * asking libpfm4 for every event on each unknown name is slow. */
static char **pfm_names;
static size_t n_pfm_names, cap_pfm_names;
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static int pfm_name_keep(const struct pmc_event_desc *ev, void *arg)
{
	(void)arg;
	if (n_pfm_names == cap_pfm_names) {
		size_t cap = cap_pfm_names ? 2 * cap_pfm_names : 256;
		char **grown = realloc(pfm_names, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		pfm_names = grown;
		cap_pfm_names = cap;
	}
	if (!(pfm_names[n_pfm_names] = strdup(ev->name)))
		return -ENOMEM;
	n_pfm_names++;
	return 0;
}

static void pfm_names_collect(void)
{
	pmc_event_foreach(PMC_EVENTS_PFM, pfm_name_keep, NULL);
}

/* The plugins' own events (CPUTIME, REALTIME, TSC, ...), from the events
 * their descriptors declare: the core names no plugin.  Each plugin that
 * is loaded registers its events (the collector loads its backend before
 * it parses its events, so it reads no other plugin); a name that is
 * still unknown makes the parser read every plugin in the path, once.
 * Entries are never freed: parsed events point at their unit. */
struct plugin_event_name {
	char name[PMC_NAME_MAX];
	char plugin[32];
	char unit[16];
	uint64_t default_period;
};
static struct plugin_event_name **pevs;
static size_t n_pevs;
static pthread_mutex_t pevs_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t pevs_scan_once = PTHREAD_ONCE_INIT;

void pmc_plugin_events_register(const struct pmc_plugin *pl)
{
	pthread_mutex_lock(&pevs_lock);
	for (size_t i = 0; pl->events && i < pl->n_events; i++) {
		const struct pmc_plugin_event *e = &pl->events[i];
		bool known = false;

		if (!e->name)
			continue;
		for (size_t k = 0; k < n_pevs && !known; k++)
			known = !strcasecmp(pevs[k]->name, e->name);
		if (known)
			continue;
		struct plugin_event_name **v = realloc(pevs, (n_pevs + 1) * sizeof(*v));
		struct plugin_event_name *x = calloc(1, sizeof(*x));
		if (!v || !x) {
			free(x);
			if (v)
				pevs = v;
			break;
		}
		pevs = v;
		pmc_fmt(x->name, sizeof(x->name), "%s", e->name);
		pmc_fmt(x->plugin, sizeof(x->plugin), "%s", pl->name);
		pmc_fmt(x->unit, sizeof(x->unit), "%s", e->unit ? e->unit : "events");
		x->default_period = e->default_period ? e->default_period : 1000;
		pevs[n_pevs++] = x;
	}
	pthread_mutex_unlock(&pevs_lock);
}

/* The first plugin the scan could not load, and why: an event it would
 * have named is "unknown" because of it, and the message says so. */
static char scan_refused[512];

static int scan_one(const char *name, void *arg)
{
	struct pmc_backend *be;
	char why[sizeof(scan_refused)];

	(void)arg;
	if (pmc_backend_load(name, &be, why, sizeof(why)) == 0)	/* registers its events */
		pmc_backend_unload(be);
	else if (!scan_refused[0])
		pmc_fmt(scan_refused, sizeof(scan_refused), "%s", why);
	return 0;
}

static void scan_plugins(void)
{
	pmc_backend_foreach(scan_one, NULL);
}

/* A plugin event by name (any case); scan: read every plugin first if
 * none registered it yet. */
static const struct plugin_event_name *plugin_event_find(const char *name, bool scan)
{
	const struct plugin_event_name *hit = NULL;

	for (int pass = 0; pass < 2 && !hit; pass++) {
		if (pass)
			pthread_once(&pevs_scan_once, scan_plugins);
		pthread_mutex_lock(&pevs_lock);
		for (size_t k = 0; k < n_pevs && !hit; k++)
			if (!strcasecmp(pevs[k]->name, name))
				hit = pevs[k];
		pthread_mutex_unlock(&pevs_lock);
		if (!scan)
			break;
	}
	return hit;
}

/* The closest known name, if it is close enough to be a typo. */
static const char *suggest(const char *name, char *buf, size_t len)
{
	size_t n = strlen(name);
	struct suggestion s = {
		.probe = name, .len = n, .limit = n <= 4 ? 1 : n <= 8 ? 2 : 3, .dist = 99,
	};
	bool qualified = strstr(name, "::") != NULL;

	pthread_once(&pevs_scan_once, scan_plugins);
	pthread_mutex_lock(&pevs_lock);
	for (size_t i = 0; i < n_pevs; i++)
		consider(&s, pevs[i]->name);
	pthread_mutex_unlock(&pevs_lock);
	for (size_t i = 0; i < pmc_n_aliases; i++)
		consider(&s, pmc_aliases[i].alias);
	pthread_once(&names_once, pfm_names_collect);
	/* Compare like with like: qualified or bare. */
	for (size_t i = 0; i < n_pfm_names; i++)
		consider(&s, qualified ? pfm_names[i] : strstr(pfm_names[i], "::") + 2);

	if (s.dist == 0 || s.dist > s.limit)
		return NULL;
	pmc_fmt(buf, len, "%s", s.best);
	return buf;
}

/* "123" -> 123; rejects empty, signs, junk, zero and overflow. */
static int parse_count(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v == 0 || v > (1ULL << 62))
		return -1;
	*out = v;
	return 0;
}

static const struct pmc_alias *alias_find(const char *name)
{
	for (size_t i = 0; i < pmc_n_aliases; i++)
		if (strcasecmp(pmc_aliases[i].alias, name) == 0)
			return &pmc_aliases[i];
	return NULL;
}

static int encode_pfm(const char *full, const char *shown, struct pmc_event *ev, char *msg,
		      size_t msglen)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	pfm_event_info_t einfo;
	pfm_pmu_info_t pinfo;
	int ret;

	if (pmc_pfm_init() < 0) {
		pmc_fmt(msg, msglen, "libpfm4 failed to initialize");
		return -PMC_EEVENT;
	}
	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.size = sizeof(arg);
	/* Default: count user and kernel; the kernel applies paranoid. */
	ret = pfm_get_os_event_encoding(full, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret == PFM_ERR_ATTR || ret == PFM_ERR_ATTR_VAL || ret == PFM_ERR_ATTR_SET) {
		pmc_fmt(msg, msglen, "bad modifier in '%s': %s", shown, pfm_strerror(ret));
		return -PMC_EMODIFIER;
	}
	if (ret != PFM_SUCCESS)
		return -PMC_EEVENT;

	ev->kind = PMC_KIND_PERF;
	ev->type = attr.type;
	ev->config = attr.config;
	ev->config1 = attr.config1;
	ev->config2 = attr.config2;
	ev->exclude_user = attr.exclude_user;
	ev->exclude_kernel = attr.exclude_kernel;
	ev->hardware = attr.type != PERF_TYPE_SOFTWARE && attr.type != PERF_TYPE_TRACEPOINT;
	ev->unit = attr.type == PERF_TYPE_SOFTWARE &&
				   (attr.config == PERF_COUNT_SW_CPU_CLOCK ||
				    attr.config == PERF_COUNT_SW_TASK_CLOCK)
			   ? "ns"
			   : "events";

	/* Keep the name as written (aliases resolved), qualified by its PMU:
	 * libpfm4's own names (PERF_COUNT_HW_CPU_CYCLES) mean less to users. */
	memset(&einfo, 0, sizeof(einfo));
	einfo.size = sizeof(einfo);
	memset(&pinfo, 0, sizeof(pinfo));
	pinfo.size = sizeof(pinfo);
	if (!strstr(full, "::") && pfm_get_event_info(arg.idx, PFM_OS_NONE, &einfo) == PFM_SUCCESS &&
	    pfm_get_pmu_info(einfo.pmu, &pinfo) == PFM_SUCCESS)
		pmc_fmt(ev->name, sizeof(ev->name), "%s::%s", pinfo.name, full);
	else
		pmc_fmt(ev->name, sizeof(ev->name), "%s", full);
	return 0;
}

/* Check spec, keep it in ev->spec, take its @PERIOD or @fFREQ into ev and
 * the event name before it (with modifiers) into name. */
static int split_spec(const char *spec, struct pmc_event *ev, char *name, size_t len, char *msg,
		      size_t msglen)
{
	const char *at;

	if (!spec || !*spec) {
		pmc_fmt(msg, msglen, "empty event specification");
		return -PMC_ESPEC;
	}
	if (strlen(spec) >= PMC_NAME_MAX) {
		pmc_fmt(msg, msglen, "event specification too long (%zu characters, at most %d)",
			strlen(spec), PMC_NAME_MAX - 1);
		return -PMC_ESPEC;
	}
	pmc_fmt(ev->spec, sizeof(ev->spec), "%s", spec);
	at = strrchr(spec, '@');
	if (at) {
		const char *p = at + 1;
		bool freq = *p == 'f' || *p == 'F';
		uint64_t v;

		if (parse_count(freq ? p + 1 : p, &v) < 0) {
			pmc_fmt(msg, msglen, "%s must be a positive integer: '%s'",
				freq ? "frequency (@fHZ)" : "period", at);
			return -PMC_EPERIOD;
		}
		if (freq)
			ev->freq = v;
		else
			ev->period = v;
		pmc_fmt(name, len, "%.*s", (int)(at - spec), spec);
	} else {
		pmc_fmt(name, len, "%s", spec);
	}
	if (!name[0]) {
		pmc_fmt(msg, msglen, "missing event name before '@' in '%s'", spec);
		return -PMC_ESPEC;
	}
	for (const char *c = name; *c; c++) {
		if (!isgraph((unsigned char)*c) || *c == ',') {
			pmc_fmt(msg, msglen, "invalid character in event name '%s'", name);
			return -PMC_ESPEC;
		}
	}
	return 0;
}

/* base = name without modifiers (pmu::event keeps its "::"); *mods = the
 * modifiers' ':' in name, or NULL. */
static int split_mods(const char *name, char *base, size_t len, const char **mods, char *msg,
		      size_t msglen)
{
	*mods = strchr(strstr(name, "::") ? strstr(name, "::") + 2 : name, ':');
	pmc_fmt(base, len, "%.*s", (int)(*mods ? (size_t)(*mods - name) : strlen(name)), name);
	if (!base[0] || strcmp(base, "::") == 0 || (strstr(base, "::") && !strstr(base, "::")[2])) {
		pmc_fmt(msg, msglen, "malformed event name '%s'", name);
		return -PMC_ESPEC;
	}
	return 0;
}

/* What to say of an event no one knows: a near name, or a plugin that
 * might have named it. */
static void unknown_event(const char *base, char *msg, size_t msglen)
{
	char hint[PMC_NAME_MAX];

	if (suggest(base, hint, sizeof(hint)))
		pmc_fmt(msg, msglen, "unknown event '%s' \xe2\x80\x94 did you mean '%s'?", base,
			hint);
	else if (scan_refused[0])
		pmc_fmt(msg, msglen, "unknown event '%s' (a backend plugin that may name it "
			"was not loaded: %s)", base, scan_refused);
	else
		pmc_fmt(msg, msglen, "unknown event '%s' (see 'pmcprof list' for the events here)",
			base);
}

int pmc_event_parse(const char *spec, struct pmc_event *ev, char *msg, size_t msglen)
{
	char name[PMC_NAME_MAX], base[PMC_NAME_MAX], full[PMC_NAME_MAX + 32];
	const char *mods;
	int ret;

	memset(ev, 0, sizeof(*ev));
	if (msglen)
		msg[0] = '\0';
	ret = split_spec(spec, ev, name, sizeof(name), msg, msglen);
	if (ret == 0)
		ret = split_mods(name, base, sizeof(base), &mods, msg, msglen);
	if (ret < 0)
		return ret;

	/* a plugin's event: registered by a loaded plugin, or (not a
	 * libpfm4 name either) found by reading the plugins */
	const struct plugin_event_name *b = plugin_event_find(base, false);
	const struct pmc_alias *a = b ? NULL : alias_find(base);
	if (!b) {
		pmc_fmt(full, sizeof(full), "%s%s", a ? a->target : base, mods ? mods : "");
		ret = encode_pfm(full, name, ev, msg, msglen);
		if (ret == -PMC_EEVENT && !a && strlen(base) < PMC_NAME_MAX &&
		    (b = plugin_event_find(base, true))) {
			/* whatever the failed encoding left */
			ev->type = 0;
			ev->config = ev->config1 = ev->config2 = 0;
			ev->exclude_user = ev->exclude_kernel = ev->hardware = false;
			ret = 0;
		}
	}
	if (b) {
		if (mods) {
			pmc_fmt(msg, msglen, "event %s takes no modifiers: '%s'", b->name, mods);
			return -PMC_EMODIFIER;
		}
		ev->kind = PMC_KIND_PLUGIN;
		pmc_fmt(ev->name, sizeof(ev->name), "%s", b->name);
		pmc_fmt(ev->plugin, sizeof(ev->plugin), "%s", b->plugin);
		ev->unit = b->unit;
		return 0;
	}
	if (ret == -PMC_EEVENT)
		unknown_event(base, msg, msglen);
	return ret;
}

int pmc_event_parse_list(const char *const *specs, size_t n, struct pmc_event *evs,
			 struct pmc_diag *diag)
{
	int first = 0;

	if (diag)
		diag->n = 0;
	if (n > PMC_MAX_EVENTS) {
		if (diag) {
			diag->item[0].index = PMC_MAX_EVENTS;
			diag->item[0].err = -PMC_ETOOMANY;
			pmc_fmt(diag->item[0].msg, sizeof(diag->item[0].msg),
				"too many events: %zu (at most %d)", n, PMC_MAX_EVENTS);
			diag->n = 1;
		}
		return -PMC_ETOOMANY;
	}
	for (size_t i = 0; i < n; i++) {
		char msg[256];
		int ret = pmc_event_parse(specs[i], &evs[i], msg, sizeof(msg));

		if (ret == 0)
			continue;
		if (!first)
			first = ret;
		if (diag && diag->n < PMC_MAX_EVENTS) {
			diag->item[diag->n].index = (int)i;
			diag->item[diag->n].err = ret;
			pmc_fmt(diag->item[diag->n].msg, sizeof(diag->item[0].msg), "%s", msg);
			diag->n++;
		}
	}
	return first;
}

uint64_t pmc_event_default_period(const struct pmc_event *ev)
{
	if (ev->kind == PMC_KIND_PLUGIN) {
		const struct plugin_event_name *b = plugin_event_find(ev->name, true);
		return b ? b->default_period : 1000;
	}
	if (strcmp(ev->unit, "ns") == 0)
		return 1000000;			/* 1 ms of CPU time */
	if (ev->type == PERF_TYPE_HARDWARE && ev->config == PERF_COUNT_HW_CPU_CYCLES)
		return 2000003;			/* ~1 kHz at 2 GHz; odd, against aliasing */
	if (ev->type == PERF_TYPE_SOFTWARE)
		return 1;			/* faults, switches: rare events */
	return 1000003;
}

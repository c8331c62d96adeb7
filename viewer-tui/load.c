/* Loading runs into an analyzer set. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viewer-tui/view.h"

/* The reader's own words about the last bad file, if the analyzer noted one. */
static const char *last_error_note(const struct ana_set *s)
{
	for (size_t i = ana_set_n_notes(s); i-- > 0;) {
		const struct ana_note *n = ana_set_note(s, i);
		if (n && n->severity == ANA_NOTE_ERROR)
			return n->msg;
	}
	return NULL;
}

int set_load(struct ana_set **out, char *const *runs, size_t n, const struct load_opts *o,
	     char *err, size_t len)
{
	ANA_OPTS(opts, .weighted = o->weighted, .debug_dirs = o->debug_dirs, .remap = o->remap,
		 .no_inline = o->no_inline, .short_names = o->short_names,
		 .cache_dir = o->cache_dir, .progress = o->progress_fn,
		 .progress_arg = o->progress_arg, .comms = o->comms, .pids = o->pids,
		 .tids = o->tids, .dsos = o->dsos, .symbols = o->symbols,
		 .time = o->time, .n_time = o->n_time, .time_spec = o->time_spec,
		 .addr_samples = true);	/* A: annotate */
	struct ana_set *s;
	int rc = 0;

	*out = NULL;
	s = ana_set_new(&opts);
	if (!s) {
		rc = -errno;
		snprintf(err, len, "cannot create an analysis: %s", ana_strerror(rc));
		return rc;
	}
	for (size_t r = 0; r < n && rc == 0; r++) {
		/* "A,B": repeats of one run. */
		char *copy = strdup(runs[r]), *save = NULL;
		unsigned rep = 0;
		if (!copy) {
			rc = -ENOMEM;
			snprintf(err, len, "out of memory");
			break;
		}
		for (char *p = strtok_r(copy, ",", &save); p && rc == 0;
		     p = strtok_r(NULL, ",", &save)) {
			rc = ana_set_add(s, (unsigned)r, rep++, p);
			if (rc != 0) {
				const char *why = last_error_note(s);
				if (why)
					snprintf(err, len, "%s", why);
				else
					snprintf(err, len, "%s: %s", p, ana_strerror(rc));
			}
		}
		free(copy);
		/* Named as diff names them, so exported CSV matches its. */
		const char *name = r < o->n_labels ? o->labels[r] : runs[r];
		if (rc == 0 && (rc = ana_set_label(s, (unsigned)r, name)) != 0)
			snprintf(err, len, "%s: %s", runs[r], ana_strerror(rc));
	}
	if (rc == 0) {
		rc = ana_set_finish(s);
		if (rc == -ANA_ENODATA)
			snprintf(err, len, "no samples in %s%s", runs[0], n > 1 ? " ..." : "");
		else if (rc != 0)
			snprintf(err, len, "cannot analyze: %s", ana_strerror(rc));
	}
	if (rc != 0) {
		ana_set_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

int set_time_empty(const struct ana_set *s, const struct load_opts *o, char *err, size_t len)
{
	for (unsigned r = 0; o->n_time && r < ana_set_n_runs(s); r++) {
		uint64_t n = 0, k;
		for (size_t ev = 0; ev < ana_set_n_sampled_events(s); ev++)
			n += ana_set_total(s, r, ev, &k, NULL) ? 0 : k;
		if (n)
			continue;
		snprintf(err, len, "%s: no samples in --time %s (of that run's own span; a "
			 "profile without a timeline adds none)", ana_set_run(s, r)->label,
			 o->time_spec ? o->time_spec : "");
		return (int)r;
	}
	return -1;
}

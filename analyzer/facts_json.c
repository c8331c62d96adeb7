/* The JSON renderer of a run's facts (facts.h): docs/report-schema.json's
 * run object and trust object, as report --json and diff --json write
 * them. */
#include "config.h"

#include "analyzer/facts.h"
#include "analyzer/ana/json.h"

static double value_of(const struct ana_facts *f, enum ana_fact_id id)
{
	return ana_facts_get(f, id)->value;
}

/* What ran: every metadata value, a list where files differ. */
static void json_meta(struct json *j, const struct ana_facts *f)
{
	size_t n;
	const struct ana_fact *m = ana_facts_all(f, ANA_FACT_META, &n);

	json_obj_begin(j);
	for (size_t i = 0; i < n; i++) {
		json_key(j, m[i].key);
		json_str_list(j, m[i].list, m[i].n_list);
	}
	json_obj_end(j);
}

static void json_event(struct json *j, const struct ana_fact *e)
{
	json_kstr(j, "requested", e->text);
	json_kstr(j, "unit", e->unit);
	json_ku64(j, "period", e->event->period);
	json_ku64(j, "freq", e->event->freq);
	json_kbool(j, "mixed", e->event->mixed);
	json_ku64(j, "samples", e->count);
	json_knum(j, "weight", e->value);
}

/* pct only for the loss counters; warn above 1% */
static void json_counter(struct json *j, const struct ana_fact *c)
{
	json_ku64(j, "value", c->count);
	json_knum(j, "pct", c->pct);
	json_kbool(j, "warn", c->severity >= ANA_NOTE_WARN);
}

/* The events this run sampled or asked for, or every collector counter. */
static void json_list(struct json *j, const struct ana_facts *f, enum ana_fact_id id)
{
	size_t n;
	const struct ana_fact *x = ana_facts_all(f, id, &n);

	json_arr_begin(j);
	for (; n > 0; n--, x++) {
		if (x->flags & ANA_FACT_ABSENT)
			continue;
		json_obj_begin(j);
		json_kstr(j, "name", x->key);
		if (id == ANA_FACT_EVENT)
			json_event(j, x);
		else
			json_counter(j, x);
		json_obj_end(j);
	}
	json_arr_end(j);
}

/* --time: the slice the counts are of, as typed, and the seconds of the
 * run it covers; no key for the whole run (the files before it had none). */
static void json_slice(struct json *j, const struct ana_fact *x)
{
	if (x->flags & ANA_FACT_EMPTY)
		return;
	json_key(j, "time_slice");
	json_obj_begin(j);
	json_kstr(j, "spec", x->text);
	json_knum(j, "seconds", x->value);
	json_obj_end(j);
}

void json_run(struct json *j, const struct ana_run *run)
{
	const struct ana_facts *f = run->facts;

	json_obj_begin(j);
	json_kstr(j, "label", ana_facts_get(f, ANA_FACT_LABEL)->text);
	json_ku64(j, "files", ana_facts_get(f, ANA_FACT_FILES)->count);
	json_ku64(j, "repeats", ana_facts_get(f, ANA_FACT_REPEATS)->count);
	json_ku64(j, "partial", ana_facts_get(f, ANA_FACT_PARTIAL)->count);
	json_knum(j, "duration_s", value_of(f, ANA_FACT_DURATION));
	json_knum(j, "steal_s", value_of(f, ANA_FACT_STEAL));
	json_knum(j, "steal_share", value_of(f, ANA_FACT_STEAL_SHARE));
	json_slice(j, ana_facts_get(f, ANA_FACT_SLICE));
	json_key(j, "meta");
	json_meta(j, f);
	json_key(j, "events");
	json_list(j, f, ANA_FACT_EVENT);
	json_key(j, "counters");
	json_list(j, f, ANA_FACT_COUNTER);
	json_obj_end(j);
}

/* The trust object's members in order, named by their facts' keys (the
 * flags: "flags"). */
static const enum ana_fact_id trust_ids[] = {
	ANA_FACT_TRUST, ANA_FACT_EMULATOR, ANA_FACT_VIRTUALIZATION, ANA_FACT_LOSS_SCALE,
	ANA_FACT_CPU_TIME, ANA_FACT_USER_TIME, ANA_FACT_SAMPLED, ANA_FACT_EXPECTED,
	ANA_FACT_COVERAGE, ANA_FACT_BASIS, ANA_FACT_JUDGED, ANA_FACT_SHORT, ANA_FACT_HANDLER,
	ANA_FACT_STEAL_SHARE,
};

/* ANA_BASIS_* bits, lowest first, as the trust object's "basis" names them. */
static const char *const basis_json[] = { "cpu", "user", "system" };

/* A flags fact as the array of its bits' names (trust flags as
 * ana_trust_name says them). */
static void json_bits(struct json *j, const struct ana_fact *x)
{
	unsigned n = x->id == ANA_FACT_TRUST ? ANA_TRUST_N : sizeof(basis_json) / sizeof(*basis_json);

	json_arr_begin(j);
	for (unsigned b = 0; b < n; b++)
		if (x->count & (1u << b))
			json_str(j, x->id == ANA_FACT_TRUST ? ana_trust_name(1u << b) : basis_json[b]);
	json_arr_end(j);
}

void json_trust(struct json *j, const struct ana_run *run)
{
	json_obj_begin(j);
	for (size_t k = 0; k < sizeof(trust_ids) / sizeof(*trust_ids); k++) {
		const struct ana_fact *x = ana_facts_get(run->facts, trust_ids[k]);
		json_key(j, x->id == ANA_FACT_TRUST ? "flags" : x->key);
		if (x->type == ANA_FT_TEXT)
			json_str(j, x->text);
		else if (x->type == ANA_FT_COUNT)
			json_u64(j, x->count);
		else if (x->type == ANA_FT_FLAGS)
			json_bits(j, x);
		else
			json_num(j, x->value);
	}
	json_obj_end(j);
}

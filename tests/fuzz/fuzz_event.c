/* libFuzzer target: the event-spec parser (pmc_event_parse and the list
 * parser) on arbitrary bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend/pmc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char spec[512], msg[256];
	struct pmc_event ev;

	if (size >= sizeof(spec))
		size = sizeof(spec) - 1;
	memcpy(spec, data, size);
	spec[size] = '\0';
	if (pmc_event_parse(spec, &ev, msg, sizeof(msg)) == 0) {
		/* A parsed event names itself within its buffers. */
		if (!memchr(ev.name, '\0', sizeof(ev.name)) || !memchr(ev.spec, '\0', sizeof(ev.spec)))
			abort();
	} else if (!memchr(msg, '\0', sizeof(msg)) || !msg[0]) {
		abort();	/* every error explains itself */
	}

	/* The same bytes as a comma-separated list. */
	const char *specs[PMC_MAX_EVENTS + 1];
	struct pmc_event evs[PMC_MAX_EVENTS + 1];
	struct pmc_diag diag;
	size_t n = 0;
	for (char *save = NULL, *tok = strtok_r(spec, ",", &save); tok && n <= PMC_MAX_EVENTS;
	     tok = strtok_r(NULL, ",", &save))
		specs[n++] = tok;
	if (pmc_event_parse_list(specs, n, evs, &diag) < 0 && diag.n == 0)
		abort();	/* a failure names at least one element */
	return 0;
}

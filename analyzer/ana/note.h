/* Notes: what the set met while reading and symbolizing, one line each,
 * in place of printing (the library never prints).  Owned by the set.
 */
#ifndef ANALYZER_ANA_NOTE_H
#define ANALYZER_ANA_NOTE_H

#include <stddef.h>

#include "analyzer/ana/core.h"
#include "analyzer/ana/set.h"

#ifdef __cplusplus
extern "C" {
#endif

enum ana_severity { ANA_NOTE_INFO, ANA_NOTE_WARN, ANA_NOTE_ERROR };
/* One line each: bad files (with the reader's message), build-id
 * mismatches, missing or stripped modules, loss counters above 1%, runs
 * with different events/periods/binaries.  run is -1 for the whole set. */
struct ana_note {
	enum ana_severity severity;
	int run;
	const char *msg;
};
ANA_API size_t ana_set_n_notes(const struct ana_set *s);
ANA_API const struct ana_note *ana_set_note(const struct ana_set *s, size_t i);
/* Number of notes with severity ANA_NOTE_ERROR (exit status 2 if any). */
ANA_API size_t ana_set_n_errors(const struct ana_set *s);

#ifdef __cplusplus
}
#endif
#endif /* ANALYZER_ANA_NOTE_H */

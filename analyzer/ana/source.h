/* Source files: where to read a row's source file on this machine (the
 * set's --remap and debug roots applied).  The path goes into the
 * caller's buffer.
 */
#ifndef ANALYZER_ANA_SOURCE_H
#define ANALYZER_ANA_SOURCE_H

#include <stddef.h>

#include "analyzer/ana/core.h"
#include "analyzer/ana/set.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- source files ---- */

/* Where to read source file `file` (a row's file) on this machine: the
 * first regular, readable file among file with opts.remap applied (first
 * matching OLD prefix), file itself, then under each opts.debug_dirs root
 * DIR: DIR/file (remapped, then as recorded) and DIR/basename(file).
 * Writes the path into buf[len] (the caller's).  0; -ENOENT if none is
 * there (buf then holds the first candidate, for a message); -ENAMETOOLONG
 * if a candidate does not fit; -EINVAL for an empty name.  Valid at any
 * time; reads nothing but file metadata. */
ANA_API int ana_set_source_path(const struct ana_set *s, const char *file, char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* ANALYZER_ANA_SOURCE_H */

/* Can LD_PRELOAD profile this program?  The launcher asks before running
 * it, so that a static or set-user-ID program is refused with a reason
 * instead of running silently unprofiled.  Internal to collector/. */
#ifndef COLLECTOR_EXE_H
#define COLLECTOR_EXE_H

#include <stddef.h>

/* Find cmd as execvp would (cmd with a '/' is taken as is) into path.
 * 0 or -ENOENT / -EACCES / -ENAMETOOLONG. */
int exe_resolve(const char *cmd, char *path, size_t len);

/* 0 if the dynamic loader will preload the collector into path (a
 * dynamically linked ELF, or a script whose interpreter is one); else
 * -ENOEXEC (static), -EPERM (set-user/group-ID) or -errno, with why set
 * to one line ("/x is statically linked (no PT_INTERP): ..."). */
int exe_check(const char *path, char *why, size_t len);

/* The AddressSanitizer runtime path needs (DT_NEEDED libasan.so.N or
 * libclang_rt.asan-*.so) into soname, "" if none: that runtime refuses to
 * start unless it comes first in the library list, so the launcher
 * preloads it before the collector.  0 or -errno. */
int exe_asan_runtime(const char *path, char *soname, size_t len);

#endif

/* Code with no unwind tables: built with -fno-asynchronous-unwind-tables
 * -fno-unwind-tables (collector/local.mk), so an unwinder sampling here
 * has no CFI and must guess (libunwind then validates every address it
 * reads). */
#include "tests/progs/rec_common.h"

void rec_noinfo_burn(double ms, unsigned long salt);

__attribute__((noinline)) static void inner(double ms, unsigned long salt)
{
	REC_BURN(ms, salt);
}

void rec_noinfo_burn(double ms, unsigned long salt)
{
	inner(ms, salt);
}

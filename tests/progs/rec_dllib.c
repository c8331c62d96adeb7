/* A library for rec_dl to dlopen: lib_hot burns MS ms of CPU time. */
#include "rec_common.h"

__attribute__((visibility("default"))) void lib_hot(double ms);

void lib_hot(double ms)
{
	REC_BURN(ms, 11);
}

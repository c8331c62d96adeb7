/* rec_dl LIB once MS: dlopen LIB, run lib_hot(MS), dlclose it, then burn
 * MS/2 in main_after (the library is gone by the end).
 * rec_dl LIB loop N: N rounds of dlopen, lib_hot(0.05), dlclose; for the
 * no-deadlock test under a high sampling rate.  Prints "rounds=N". */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rec_common.h"

__attribute__((noinline)) static void main_after(double ms)
{
	REC_BURN(ms, 13);
}

static int round_once(const char *lib, double ms)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	void (*hot)(double);

	if (!h) {
		fprintf(stderr, "rec_dl: %s\n", dlerror());
		return -1;
	}
	*(void **)&hot = dlsym(h, "lib_hot");
	if (!hot) {
		fprintf(stderr, "rec_dl: %s\n", dlerror());
		return -1;
	}
	hot(ms);
	return dlclose(h);
}

int main(int argc, char **argv)
{
	double ms;
	int n = 0;

	if (argc < 4)
		return 2;
	if (!strcmp(argv[2], "once")) {
		ms = atof(argv[3]);
		if (round_once(argv[1], ms) < 0)
			return 1;
		main_after(ms / 2);
		return 0;
	}
	for (n = 0; n < atoi(argv[3]); n++)
		if (round_once(argv[1], 0.05) < 0)
			return 1;
	printf("rounds=%d\n", n);
	return 0;
}

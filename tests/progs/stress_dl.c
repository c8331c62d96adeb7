/* stress_dl T ROUNDS LIB...: T threads, each doing ROUNDS rounds of
 * dlopen + dlsym + dlclose of every LIB (calling its lib_hot(0.02) when it
 * has one, as tests/progs/rec_dllib.so does), while the main thread walks
 * the loaded objects with dl_iterate_phdr.  Loads and unloads race with
 * each other and with the sampling handler.  Prints "threads=T rounds=R
 * libs=L" when every round succeeded, exits 1 on the first failure. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static long rounds;
static int n_libs;
static char **libs;
static int done_threads;	/* atomic */

static void *rounds_run(void)
{
	for (long r = 0; r < rounds; r++) {
		for (int i = 0; i < n_libs; i++) {
			void *h = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
			void (*hot)(double);

			if (!h) {
				fprintf(stderr, "stress_dl: %s\n", dlerror());
				return (void *)1;
			}
			*(void **)&hot = dlsym(h, "lib_hot");
			if (hot)
				hot(0.02);
			if (dlclose(h)) {
				fprintf(stderr, "stress_dl: dlclose: %s\n", dlerror());
				return (void *)1;
			}
		}
	}
	return NULL;
}

static void *churn(void *arg)
{
	void *r = rounds_run();

	(void)arg;
	__atomic_add_fetch(&done_threads, 1, __ATOMIC_SEQ_CST);
	return r;
}

static int count_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)info;
	(void)size;
	++*(long *)arg;
	return 0;
}

int main(int argc, char **argv)
{
	int nt = argc > 1 ? atoi(argv[1]) : 0;
	pthread_t t[64];
	long walks = 0, objects = 0;
	int bad = 0;

	if (argc < 4 || nt < 1 || nt > 64) {
		fprintf(stderr, "usage: stress_dl THREADS(1-64) ROUNDS LIB...\n");
		return 2;
	}
	rounds = atol(argv[2]);
	libs = argv + 3;
	n_libs = argc - 3;
	for (int i = 0; i < nt; i++)
		if (pthread_create(&t[i], NULL, churn, NULL))
			return 1;
	while (__atomic_load_n(&done_threads, __ATOMIC_SEQ_CST) < nt) {
		dl_iterate_phdr(count_object, &objects);
		walks++;
		/* A walk every 0.2 ms: leave the CPU to the loading threads. */
		usleep(200);
	}
	for (int i = 0; i < nt; i++) {
		void *r;

		pthread_join(t[i], &r);
		bad |= r != NULL;
	}
	if (bad)
		return 1;
	fprintf(stderr, "walks=%ld\n", walks);
	printf("threads=%d rounds=%ld libs=%d\n", nt, rounds, n_libs);
	return 0;
}

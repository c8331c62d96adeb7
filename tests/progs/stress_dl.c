/* stress_dl T ROUNDS K LIB...: T threads, each doing ROUNDS rounds of
 * dlopen + dlsym + dlclose of every LIB (calling its lib_hot(0.02) when it
 * has one, as tests/progs/rec_dllib.so does), and more until the main
 * thread has started and joined K short threads one after the other (each
 * ends, so its profile is written, while the load map changes); then main
 * walks the loaded objects with dl_iterate_phdr until the loaders are done.  Loads and
 * unloads race with each other, with thread ends and with the sampling
 * handler.  Prints "threads=T rounds=R short=K libs=L" when every round
 * succeeded, exits 1 on the first failure. */
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
static int shorts_done;		/* atomic */

static void *rounds_run(void)
{
	for (long r = 0; r < rounds || !__atomic_load_n(&shorts_done, __ATOMIC_SEQ_CST); r++) {
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

static void *short_thread(void *arg)
{
	return arg;
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
	long walks = 0, objects = 0, k = argc > 3 ? atol(argv[3]) : -1;
	int bad = 0;

	if (argc < 5 || nt < 1 || nt > 64 || k < 0) {
		fprintf(stderr, "usage: stress_dl THREADS(1-64) ROUNDS SHORT_THREADS LIB...\n");
		return 2;
	}
	rounds = atol(argv[2]);
	libs = argv + 4;
	n_libs = argc - 4;
	for (int i = 0; i < nt; i++)
		if (pthread_create(&t[i], NULL, churn, NULL))
			return 1;
	for (long i = 0; i < k; i++) {
		pthread_t s;

		if (pthread_create(&s, NULL, short_thread, NULL))
			return 1;
		pthread_join(s, NULL);
	}
	__atomic_store_n(&shorts_done, 1, __ATOMIC_SEQ_CST);
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
	printf("threads=%d rounds>=%ld short=%ld libs=%d\n", nt, rounds, k, n_libs);
	return 0;
}

/* CPU time the collector could not sample, counted so that the report can
 * name it: threads made with a raw clone system call (no pthread_create:
 * their counters are never opened), and children made by clone() with
 * CLONE_VM outside the thread group (they share our memory and run no
 * constructor).  Two measures, written in the main thread's profile:
 *
 * - unsampled_thread_cpu_ns: the process's CPU time (every thread of the
 *   group, alive or gone: the process clock keeps a dead thread's time)
 *   less the whole CPU time of every thread it sampled (each thread's own
 *   clock, read at its end by itself or now): the threads of the group it
 *   never saw.
 * - unsampled_clone_cpu_ns: the CPU time of children made by the C
 *   library's clone() with CLONE_VM but not CLONE_THREAD (outside the
 *   process clock), read by the child itself when its function returns;
 *   clone_children counts the clone() calls. */
#include "config.h"

#include <dlfcn.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <time.h>

#include "collector/collector.h"
#include "collector/owntime.h"
#include "collector/unseen.h"

#define EXPORT __attribute__((visibility("default")))
#define SLOTS 64

static uint64_t clone_cpu_ns;		/* atomic */
static uint64_t clone_n;		/* atomic */
static uint64_t ended_cpu_ns;		/* atomic: sampled threads that ended */
/* At init, the process's CPU time not the main thread's: the threads of
 * an image before an exec (their time stays in the process clock; that
 * image's profiles had them). */
static uint64_t before_image_ns;

/* A child's function and argument until it has read them. */
static struct {
	int (*fn)(void *);
	void *arg;
	int flags;
	int busy;			/* atomic */
} slots[SLOTS];

static int (*real_clone)(int (*)(void *), void *, int, void *, ...);

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	if (clock_gettime(c, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void unseen_init(void)
{
	/* On the main thread; again in a fork child: its clocks start anew. */
	__atomic_store_n(&ended_cpu_ns, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&clone_cpu_ns, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&clone_n, 0, __ATOMIC_RELAXED);
	uint64_t proc = clock_ns(CLOCK_PROCESS_CPUTIME_ID), self = clock_ns(CLOCK_THREAD_CPUTIME_ID);

	before_image_ns = proc > self ? proc - self : 0;
}

void unseen_thread_ended(uint64_t cpu_ns)
{
	__atomic_add_fetch(&ended_cpu_ns, cpu_ns, __ATOMIC_RELAXED);
}

/* The child: it may share our thread pointer (no CLONE_SETTLS), so it
 * touches no thread-local data of ours; only the vDSO clock and atomics
 * on shared memory. */
static int clone_start(void *p)
{
	int (*fn)(void *) = slots[(uintptr_t)p].fn;
	void *arg = slots[(uintptr_t)p].arg;
	int flags = slots[(uintptr_t)p].flags, ret;
	uint64_t t0;

	__atomic_store_n(&slots[(uintptr_t)p].busy, 0, __ATOMIC_RELEASE);
	t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	ret = fn(arg);
	/* In the thread group, the process clock has it already. */
	if (!(flags & CLONE_THREAD))
		__atomic_add_fetch(&clone_cpu_ns, clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0,
				   __ATOMIC_RELAXED);
	return ret;
}

EXPORT int clone(int (*fn)(void *), void *stack, int flags, void *arg, ...)
{
	va_list ap;
	pid_t *ptid;
	void *tls;
	pid_t *ctid;
	uintptr_t k = SLOTS;

	va_start(ap, arg);
	ptid = va_arg(ap, pid_t *);
	tls = va_arg(ap, void *);
	ctid = va_arg(ap, pid_t *);
	va_end(ap);
	if (!real_clone)
		real_clone = (typeof(real_clone))dlsym(RTLD_NEXT, "clone");
	if (coll.active && (flags & CLONE_VM) && fn) {
		__atomic_add_fetch(&clone_n, 1, __ATOMIC_RELAXED);
		for (k = 0; k < SLOTS; k++) {
			int free_ = 0;

			if (__atomic_compare_exchange_n(&slots[k].busy, &free_, 1, false,
							__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				break;
		}
	}
	if (k == SLOTS)
		return real_clone(fn, stack, flags, arg, ptid, tls, ctid);
	slots[k].fn = fn;
	slots[k].arg = arg;
	slots[k].flags = flags;
	int ret = real_clone(clone_start, stack, flags, (void *)k, ptid, tls, ctid);

	if (ret < 0)
		__atomic_store_n(&slots[k].busy, 0, __ATOMIC_RELEASE);
	return ret;
}

size_t unseen_counters(const struct thr *main_thr, struct prof_counter *out)
{
	uint64_t proc = clock_ns(CLOCK_PROCESS_CPUTIME_ID), seen;
	size_t n = 0;

	if (main_thr->index != 0)
		return 0;
	seen = thr_cpu_sampled() + __atomic_load_n(&ended_cpu_ns, __ATOMIC_RELAXED) +
	       before_image_ns;
	if (proc)
		out[n++] = (struct prof_counter){ "unsampled_thread_cpu_ns",
						  proc > seen ? proc - seen : 0 };
	out[n++] = (struct prof_counter){ "unsampled_clone_cpu_ns",
					  __atomic_load_n(&clone_cpu_ns, __ATOMIC_RELAXED) };
	out[n++] = (struct prof_counter){ "clone_children",
					  __atomic_load_n(&clone_n, __ATOMIC_RELAXED) };
	return n;
}

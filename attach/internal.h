/* Internal to attach/: the session, its processes and threads. */
#ifndef ATTACH_INTERNAL_H
#define ATTACH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "attach/attach.h"
#include "collector/cct.h"
#include "profile/profile.h"

#define ATT_MAX_DEPTH 256		/* frames kept per sample */
#define ATT_CCT_BYTES (4u << 20)	/* per thread, reserved (touched as used) */
#define ATT_HASH 1024

/* Per-thread counters, named as the collector names its own. */
enum att_ctr {
	AC_SAMPLES,
	AC_KERNEL_SAMPLES,
	AC_TRUNCATED,
	AC_UNKNOWN_MODULE,
	AC_DROPPED_CCT_FULL,
	AC_UNWIND_FAILED,
	AC_CFI_UNWOUND,
	AC_LOST,
	AC_THROTTLED,
	AC_UNTHROTTLED,
	AC_N
};

/* One module of a process: a file (or [vdso], [kernel.kallsyms]). */
struct att_mod {
	char *path;
	uint8_t build_id[64];
	uint32_t build_id_len;
	uint64_t start, end, bias;
	uint32_t load_seq, unload_seq;
	uint64_t pgoff;			/* of the mapping it was found by */
	struct att_file *file;		/* image.c: its file, mapped here */
	bool file_tried;
};

struct att_thr;

/* One process (thread group) seen. */
struct att_proc {
	pid_t pid, ppid;
	char comm[64];			/* basename of argv[0], or comm */
	char command[4096];		/* /proc/PID/exe */
	char argv[4096];
	struct att_mod *mods;
	size_t n_mods, cap_mods;
	uint32_t seq;			/* load/unload sequence */
	bool maps_read;			/* /proc/PID/maps was read (it may be gone) */
	bool jit_map;			/* /tmp/perf-PID.map existed */
	bool exited;
	unsigned generation;		/* execs seen: profiles numbered .K */
	struct att_proc *next;		/* hash chain */
};

struct att_thr {
	pid_t pid, tid;
	struct att_proc *proc;
	char name[64];
	struct cct cct;
	void *arena;
	uint64_t ctr[AC_N];
	uint64_t weight[PMC_MAX_EVENTS];
	struct timespec start;
	uint64_t cpu_start_ns, user_start_ns;	/* UINT64_MAX: unknown */
	uint64_t cpu_end_ns, user_end_ns;	/* read at its end (UINT64_MAX: unknown) */
	/* The last periodic reading of its CPU time (UINT64_MAX: none), and
	 * the samples' weight then: where /proc is gone by the time its EXIT
	 * record is read, a reading after which almost nothing was sampled
	 * still judges it (write.c). */
	uint64_t cpu_last_ns, user_last_ns, weight_last, read_at_ns;
	bool sampled_since;
	unsigned index;
	bool dead;
	struct att_thr *next;		/* hash chain */
};

/* A ring buffer, one per CPU. */
struct att_ring {
	int fd, cpu;
	void *base;
	size_t len;			/* data area */
	size_t map_len;
};

struct att_session {
	struct att_opts o;
	struct pmc_event ev[PMC_MAX_EVENTS];
	char *requested[PMC_MAX_EVENTS];	/* our copies of o.requested */
	int ncpu;
	int *fds;			/* every counter */
	uint64_t *ids;			/* its PERF_EVENT_IOC_ID */
	int *fd_ev;			/* its event index */
	size_t n_fds, cap_fds;
	struct att_ring *rings;
	int n_rings;
	int *pidfds;			/* one per -p/-t target: readable once it ends */
	uint64_t *proc_cpu0;		/* per -p target: its CPU time at attach (ns) */
	size_t n_pidfds;
	bool *target_done;
	struct att_proc *procs[ATT_HASH];
	struct att_thr *thrs[ATT_HASH];
	unsigned next_index;
	uint64_t sample_type;
	uint64_t max_stack;		/* kernel.perf_event_max_stack: a chain that long was cut */
	uint8_t *scratch;		/* a record that wraps the ring */
	size_t scratch_len;
	struct att_stats st;
	uint64_t unclaimed_lost, unclaimed_throttled;	/* no thread named: on the next profile */
	int first_err;
	char failed[256];
	const char *unwind_note;
	struct att_file *files;		/* image.c: every file mapped for unwinding */
	struct att_kernel {
		bool on;
		uint8_t build_id[64];
		uint32_t build_id_len;
	} kern;
	/* thread CPU times read at attach, by tid (before the first sample) */
	struct att_cpu0 {
		pid_t tid;
		uint64_t cpu_ns, user_ns;
		struct att_cpu0 *next;
	} *cpu0[ATT_HASH];
};

/* session.c: the attributes every event of ours starts from, counted
 * (count.c) or sampled: ev as the event list says, created disabled, the
 * hypervisor never counted. */
struct perf_event_attr;
void att_attr_init(struct perf_event_attr *a, const struct pmc_event *ev, bool inherit);

/* procmap.c: modules from /proc/PID/maps and the kernel's MMAP2 records. */
int procmap_read(struct att_session *s, struct att_proc *p);
void procmap_add(struct att_session *s, struct att_proc *p, const char *path, uint64_t start,
		 uint64_t len, uint64_t pgoff, const uint8_t *bid, uint32_t bid_len);
void procmap_add_ino(struct att_session *s, struct att_proc *p, const char *path, uint64_t ino,
		     uint64_t start, uint64_t len, uint64_t pgoff, const uint8_t *bid,
		     uint32_t bid_len);
bool procmap_lookup(const struct att_proc *p, uint64_t pc, uint32_t *mod, uint64_t *off);
void procmap_exec(struct att_proc *p);
void procmap_free(struct att_proc *p);
void procmap_cache_free(void);
/* The vdso's bytes (ours: every process of this kernel maps the same one). */
const uint8_t *procmap_vdso_image(size_t *len);

/* facts.c: the machine, the process, the thread. */
extern struct att_machine {
	bool done;
	char host[256], kernel[80], arch[80], cpu_model[96], cpus[16];
	char hypervisor[48], hv_signature[16], vpmu[160], paranoid[16], hw_events[96];
	uint64_t ns_per_tick, steal_start;
} att_machine;
uint64_t facts_steal_ns(void);
bool facts_alive(pid_t pid);
int facts_process_cpu(pid_t pid, uint64_t *ns);
void facts_machine(void);
void facts_process(struct att_proc *p);
int facts_thread_cpu(pid_t pid, pid_t tid, uint64_t *cpu_ns, uint64_t *user_ns);
void facts_thread_name(pid_t pid, pid_t tid, char *out, size_t len);
struct att_proc *proc_get(struct att_session *s, pid_t pid, bool create);
struct att_thr *thr_get(struct att_session *s, pid_t pid, pid_t tid, bool create);

/* facts.c: refresh the CPU time of threads sampled since their last
 * reading, at most every 100 ms each (500 ms with -a: many threads). */
void facts_refresh_cpu(struct att_session *s);

/* write.c: a thread's profile. */
int write_thread(struct att_session *s, struct att_thr *t, const char *reason);
void write_jit_map(struct att_session *s, struct att_proc *p);

/* records.c: one record from a ring. */
void records_handle(struct att_session *s, const void *rec, size_t len);

/* image.c: a user stack from the sampled registers (regs_mask's layout)
 * and the kernel's stack copy, by CFI from the process's files: pcs leaf
 * first (return addresses not adjusted), *flags UW_*.  Returns how many. */
int stack_unwind(struct att_session *s, struct att_proc *p, const uint64_t *regs,
		 uint64_t regs_mask, const uint8_t *stack, uint64_t stack_len, uint64_t *pcs,
		 int max, unsigned *flags);
void image_free_all(struct att_session *s);

#endif

/* libpmc: performance counters through pluggable backends.
 *
 * a-mode (counting): open a group of events for a thread, start, read, stop.
 * i-mode (sampling): the same group, armed so that each overflow raises a
 * realtime signal on the thread that overflowed; the caller's handler asks
 * which event overflowed and re-arms it.  No callbacks.
 *
 * Errors: functions return 0 or a negative code: -errno, or -PMC_E* for what
 * errno cannot say.  pmc_strerror() names any of them.  The library never
 * prints and never exits.
 */
#ifndef PMC_H
#define PMC_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PMC_API __attribute__((visibility("default")))

/* Project error codes, above errno's range. */
enum pmc_err {
	PMC_ERR_BASE = 4000,
	PMC_EEVENT = PMC_ERR_BASE, /* unknown event name */
	PMC_EPERIOD,		/* bad period or frequency */
	PMC_ESPEC,		/* malformed event spec */
	PMC_EMODIFIER,		/* unknown event modifier */
	PMC_EPLUGIN,		/* no such backend plugin, or it failed to load */
	PMC_EABI,		/* plugin built for another ABI version or size */
	PMC_ENOPMU,		/* no hardware PMU here */
	PMC_EDISABLED,		/* backend disabled on this machine (see probe) */
	PMC_ENOTSUP,		/* backend cannot do this */
	PMC_ETOOMANY,		/* too many events */
	PMC_EBACKEND,		/* event belongs to another backend */
	PMC_ERR_END
};

/* The library's version ("0.1.0") and its ABI (the soname's major number). */
#define PMC_ABI_VERSION 0
PMC_API const char *pmc_version(void);

/* Message for a code returned by this library (negative or positive). Static. */
PMC_API const char *pmc_strerror(int err);

#define PMC_NAME_MAX 128
#define PMC_MAX_EVENTS 16

/* How an event is encoded: for a perf_event-based backend, or by the
 * plugin's own event table. */
enum pmc_event_kind {
	PMC_KIND_PERF = 1,	/* type/config* hold a perf_event_attr encoding */
	PMC_KIND_PLUGIN = 2,	/* type/config are from the plugin's event table */
};

/* One parsed and encoded event.  Plain data, copyable. */
struct pmc_event {
	char spec[PMC_NAME_MAX];	/* the element as written, e.g. "cycles:u@100003" */
	char name[PMC_NAME_MAX];	/* canonical name, e.g. "perf::CYCLES:u" or "CPUTIME" */
	char plugin[32];		/* plugin that owns a PMC_KIND_PLUGIN event */
	enum pmc_event_kind kind;
	uint32_t type;
	uint64_t config, config1, config2;
	bool exclude_user, exclude_kernel;
	bool hardware;			/* needs a hardware PMU */
	uint64_t period;		/* sampling period in event units; 0 = counting only */
	uint64_t freq;			/* or a sampling frequency in Hz (then period is 0) */
	const char *unit;		/* "events", "ns", "us" (static) */
};

/* Diagnostics from parsing: one message per bad element. */
struct pmc_diag {
	int n;
	struct {
		int index;		/* which element (0-based) */
		int err;		/* -PMC_E* */
		char msg[256];
	} item[PMC_MAX_EVENTS];
};

/* Parse one spec "EVENT[:MOD...][@PERIOD|@fFREQ]" and encode it.
 * Aliases (cycles, instructions, cpu-clock, task-clock, page-faults, ...),
 * libpfm4 names (pmu::event:umask) and backend events (CPUTIME, REALTIME) are
 * accepted.  On error, msg says what was wrong (with a suggestion for a
 * misspelled name).  Returns 0 or -PMC_E*. */
PMC_API int pmc_event_parse(const char *spec, struct pmc_event *ev, char *msg, size_t msglen);

/* Parse a list; every element is checked, and each bad one gets its own
 * diag entry.  Returns 0 if all parsed, else the first error. */
PMC_API int pmc_event_parse_list(const char *const *specs, size_t n, struct pmc_event *evs,
				 struct pmc_diag *diag);

/* ---- listing what can be asked for ---- */

/* A PMU libpfm4 finds present here.  Filled by the library, valid during
 * the callback only; fields may be added at the end. */
struct pmc_pmu_desc {
	const char *name;		/* libpfm4's PMU name, e.g. "perf", "amd64_fam17h" */
	const char *desc;
	int nevents;
};
/* Calls fn for each PMU present.  A non-zero return from fn stops the walk
 * and is returned; else 0, or -PMC_EEVENT when libpfm4 cannot start. */
PMC_API int pmc_pmu_foreach(int (*fn)(const struct pmc_pmu_desc *pmu, void *arg), void *arg);

/* An event name pmc_event_parse takes.  Filled by the library, valid during
 * the callback only; fields may be added at the end. */
struct pmc_event_desc {
	const char *name;		/* "cycles", or libpfm4's "pmu::EVENT" */
	const char *target;		/* an alias: the event it stands for; else NULL */
	const char *desc;		/* may be NULL */
	const char *pmu;		/* a libpfm4 event: its PMU; else NULL */
};
enum pmc_event_set {
	PMC_EVENTS_ALIASES = 1 << 0,	/* perf-style aliases */
	PMC_EVENTS_PFM = 1 << 1,	/* libpfm4's events of the PMUs present */
};
/* Calls fn for each event of the sets asked for (PMC_EVENTS_*), aliases
 * first.  The plugins' own events come from pmc_backend_events.  Stops and
 * returns fn's value when it is non-zero; else 0, or -PMC_EEVENT when
 * libpfm4 cannot start. */
PMC_API int pmc_event_foreach(unsigned sets, int (*fn)(const struct pmc_event_desc *ev, void *arg),
			      void *arg);

/* ---- environment ---- */

enum pmc_cpu_vendor { PMC_CPU_OTHER, PMC_CPU_INTEL, PMC_CPU_AMD };

struct pmc_env {
	/* hypervisor */
	bool hv_present;		/* CPUID.1:ECX[31] */
	char hv_signature[13];		/* CPUID 0x40000000 EBX:ECX:EDX */
	const char *hv_name;		/* "KVM", "Xen", "VMware", "Hyper-V", ..., "none" (static) */
	char sys_hypervisor[32];	/* /sys/hypervisor/type, "" if absent */
	/* cpu and architectural PMU */
	enum pmc_cpu_vendor cpu_vendor;
	char cpu_model[96];
	double cpu_mhz;			/* nominal, from /proc/cpuinfo; 0 if unknown */
	int pmu_version;		/* Intel CPUID 0AH EAX[7:0]; AMD: 1, 2 with
					 * PerfMonV2; 0: no counters */
	int n_gp, gp_width;		/* general-purpose counters and their width */
	int n_fixed, fixed_width;
	uint32_t arch_events;		/* bit i set: architectural event i available */
	int n_arch_events;		/* length of the CPUID 0AH EBX bit vector */
	/* kernel */
	int paranoid;			/* /proc/sys/kernel/perf_event_paranoid, -9 if unreadable */
	int rdpmc_sysfs;		/* /sys/bus/event_source/devices/cpu/rdpmc, -1 if absent */
	bool perf_event_syscall;	/* perf_event_open usable at all (software event opened) */
	int perf_event_errno;		/* errno of that attempt, 0 on success */
	bool hw_events;			/* a hardware cycles event opened */
	int hw_errno;			/* errno of that attempt, 0 on success */
	char kernel[64];		/* uname -r */
	/* added in 0.1.x, at the end */
	bool cpu_pmu;			/* perf_event has a core PMU (sysfs devices/cpu,
					 * cpu_core or cpu_atom); without one there are
					 * no counters, whatever CPUID says */
	char pmu_desc[192];		/* what the counters are, for people: "AMD
					 * PerfMonV2 (CPUID 0x80000022): 6 core ..." */
	/* added in 0.2, at the end: the stack of virtualization, outermost
	 * first, as far as this machine can see it (docs/virtualization.md) */
	unsigned n_layers;		/* 0: bare metal, as far as can be seen */
	struct pmc_env_layer {
		char name[24];		/* "Xen", "KVM", "QEMU-TCG", "bhyve", ... */
		char version[24];	/* "4.17.7", or "" if the layer does not say */
		char kind[48];		/* "PV dom0", "hardware virtualization",
					 * "emulation", "virtual machine" */
		char vpmu[96];		/* the layer's own word on its virtual PMU, or "" */
		char evidence[384];	/* what says so: "CPUID 0x40000000 \"KVMKVMKVM\";
					 * clocksource kvm-clock (available) ..." */
	} layers[4];
	char clocksource[64];		/* current clocksource, "" if unreadable */
	char dmi[96];			/* DMI sys_vendor and product_name, "" if none */
};

/* Probe the machine (cheap: CPUID, a few /proc and /sys files, two
 * perf_event_open attempts) into the first size bytes of env: a program
 * built against an older, shorter struct pmc_env passes its own size and
 * is never overrun.  Never fails; unknown facts are left zero.  Call it
 * through pmc_env_probe(env), which passes sizeof(*env). */
PMC_API void pmc_env_probe_sz(struct pmc_env *env, size_t size);
#define pmc_env_probe(env) pmc_env_probe_sz((env), sizeof(*(env)))
/* The exported pmc_env_probe(env) symbol of 0.1 stays for binaries built
 * against it: it fills the 0.1 struct only (up to n_layers). */
PMC_API void(pmc_env_probe)(struct pmc_env *env);

/* env's layers on one line, outermost first, as profiles keep them
 * ("virtualization"): "NAME[ VERSION] (KIND[; vPMU ...]): EVIDENCE", joined
 * by " | "; "none" without layers.  Returns buf. */
PMC_API const char *pmc_env_layers_str(const struct pmc_env *env, char *buf, size_t len);

/* What this runs on, innermost layer first: "Xen 4.17.7 (PV dom0; vPMU
 * off: ...) on QEMU-TCG (emulation)", or "none detected (bare metal, ...)".
 * Returns buf. */
PMC_API const char *pmc_env_summary(const struct pmc_env *env, char *buf, size_t len);

/* Advice for a failed open: turns an error code into what the user can do,
 * given the environment (e.g. "perf_event_paranoid is 3: ..."). Static or
 * buf. */
PMC_API const char *pmc_advice(int err, const struct pmc_env *env, char *buf, size_t len);

/* ---- backends ---- */

struct pmc_backend;		/* a loaded plugin */

/* What a plugin's probe found. */
struct pmc_probe {
	bool usable;			/* can count/sample at least some events here */
	bool hardware;			/* provides hardware PMU events here */
	bool sampling;			/* supports i-mode */
	char reason[256];		/* when !usable or !hardware: why, in one line */
	char detail[256];		/* optional extra facts (counters, widths, ABI) */
};

/* Load plugin "NAME" (pmc-NAME.so) from PMCPROF_PLUGIN_PATH (colon list) or
 * the install's plugin directory.  A plugin whose ABI or size does not match
 * is refused with -PMC_EABI and never called.  err_msg (optional) receives a
 * one-line reason on failure. */
PMC_API int pmc_backend_load(const char *name, struct pmc_backend **out, char *err_msg,
			     size_t len);
/* Names of the plugins found in the plugin path, sorted.  Calls fn for each. */
PMC_API int pmc_backend_foreach(int (*fn)(const char *name, void *arg), void *arg);
PMC_API void pmc_backend_unload(struct pmc_backend *be);
PMC_API const char *pmc_backend_name(const struct pmc_backend *be);
PMC_API const char *pmc_backend_description(const struct pmc_backend *be);
PMC_API const char *pmc_backend_version(const struct pmc_backend *be);
/* Whether pmc_group_opts.inherit works: the plugin's counters follow the
 * child processes of the counted one (false: the plugin says it cannot). */
PMC_API bool pmc_backend_follows_children(const struct pmc_backend *be);
/* Whether every sample the backend takes is a signal to the sampled
 * thread, in kernel mode too (where the signal cuts a system call short
 * or makes it fail with EINTR); false when kernel-mode samples can be
 * taken without one (pmc_group_opts.kernel_silent). */
PMC_API bool pmc_backend_signals_only(const struct pmc_backend *be);
/* Probe (cached after the first call). */
PMC_API const struct pmc_probe *pmc_backend_probe(struct pmc_backend *be);
/* Whether the backend can take this event (by kind and plugin). */
PMC_API bool pmc_backend_accepts(const struct pmc_backend *be, const struct pmc_event *ev);
/* Call fn for each of the plugin's own events (name, description, unit). */
PMC_API void pmc_backend_events(const struct pmc_backend *be,
				void (*fn)(const char *name, const char *desc, const char *unit,
					   void *arg),
				void *arg);

/* ---- counter groups (a-mode and i-mode) ---- */

struct pmc_group;

/* Options for pmc_group_open; sz first so the struct can grow. */
struct pmc_group_opts {
	size_t sz;			/* sizeof(struct pmc_group_opts) */
	pid_t pid;			/* 0: calling thread; >0: that task (a-mode only) */
	bool inherit;			/* count children too (a-mode, pid > 0) */
	bool enable_on_exec;		/* start counting at the task's next exec */
	bool sample;			/* arm i-mode on events with a period/freq */
	int signo;			/* overflow signal for i-mode (default SIGRTMIN+4) */
	/* i-mode: also record the kernel part of each sample's call chain
	 * (events that do not exclude the kernel), for pmc_group_kernel_chain.
	 * Needs the right to sample the kernel (root, CAP_PERFMON or
	 * perf_event_paranoid <= 1). */
	bool kernel_chain;
	/* Appended (sz says whether a caller has them). */
	/* i-mode: no signal for a sample taken in kernel mode.  An event that
	 * counts both modes is split into a user-mode event that signals and
	 * a kernel-mode twin whose samples only go to its ring buffer; an
	 * event that counts the kernel only never signals.  Take the records
	 * with pmc_group_record.  Needs the right to sample the kernel. */
	bool kernel_silent;
	/* i-mode: bytes of the user stack (from the sampled sp up) the kernel
	 * copies into every sample record, with the user registers (0: none;
	 * rounded down to 8, at most 65000). */
	uint32_t stack_copy;
};
/* Designated initializers: C99 and later, C++20 (in C++17 zero the struct
 * and set sz by hand). */
#define PMC_GROUP_OPTS(name, ...) \
	struct pmc_group_opts name = { .sz = sizeof(struct pmc_group_opts), __VA_ARGS__ }

/* One counter value. */
struct pmc_count {
	uint64_t value;			/* scaled estimate when multiplexed, else raw */
	uint64_t raw;			/* as counted */
	uint64_t enabled, running;	/* ns the event was enabled / on a counter */
	bool scaled;			/* value was extrapolated (running < enabled) */
};

/* i-mode bookkeeping kept by the backend. */
struct pmc_sample_stats {
	uint64_t overflows;		/* notifications that were ours */
	uint64_t spurious;		/* notifications for which no counter overflowed */
	uint64_t throttled, unthrottled;/* kernel throttling of the sample rate */
	uint64_t lost;			/* samples the kernel dropped */
	uint64_t fd_lost;		/* counter descriptors the program closed or
					 * replaced (dup2): left alone from then on */
};

/* Open a group of n events on the backend.  For i-mode (opts->sample) each
 * event with a period or freq is armed; overflow raises opts->signo on the
 * counted thread.  The group is created stopped unless enable_on_exec. */
PMC_API int pmc_group_open(struct pmc_backend *be, const struct pmc_event *evs, size_t n,
			   const struct pmc_group_opts *opts, struct pmc_group **out);
PMC_API int pmc_group_start(struct pmc_group *g);
PMC_API int pmc_group_stop(struct pmc_group *g);
/* Read all n counters.  Async-signal-safe. */
PMC_API int pmc_group_read(struct pmc_group *g, struct pmc_count *vals, size_t n);
/* Which event of the group raised this overflow signal: its index, or -1 if
 * the signal is not from this group.  si is the handler's siginfo_t *
 * (declared void so the header needs no POSIX feature macro: it compiles
 * as strict ISO C99/C11/C17 and C++).  Async-signal-safe. */
PMC_API int pmc_group_overflow(struct pmc_group *g, const void *si);
/* Re-arm event idx after its overflow; period 0 keeps the current one, else
 * the next interval is that many events.  Async-signal-safe. */
PMC_API int pmc_group_rearm(struct pmc_group *g, int idx, uint64_t period);
/* Copy the backend's i-mode bookkeeping into st (a backend that keeps
 * some in a kernel buffer may drain it first).  Callable from any thread;
 * never waits.  Async-signal-safe. */
PMC_API int pmc_group_stats(struct pmc_group *g, struct pmc_sample_stats *st);
/* What pmc_group_kernel_chain found about the sample. */
enum pmc_kchain_flags {
	PMC_KCHAIN_KERNEL = 1 << 0,	/* the sample was taken in kernel mode */
	PMC_KCHAIN_TRUNCATED = 1 << 1,	/* the kernel chain had more than max pcs */
};

/* The kernel side of the overflow of event idx just reported by
 * pmc_group_overflow (call before pmc_group_rearm): kernel pcs, leaf
 * first, into pcs[max] (at most 127 come from the kernel by default),
 * flags in *flags.  Returns how many (0 for a user-mode sample or one
 * taken without chains), -ENODATA if the backend kept no record of it,
 * -PMC_ENOTSUP if the backend cannot tell.  No syscall, no allocation:
 * async-signal-safe. */
PMC_API int pmc_group_kernel_chain(struct pmc_group *g, int idx, uint64_t *pcs, size_t max,
				   unsigned *flags);
/* One record the kernel wrote for a sample (pmc_group_record).  The
 * pointers are into the caller's buffer. */
enum pmc_record_kind {
	PMC_REC_SAMPLE = 1,	/* a sample: the fields below */
	PMC_REC_LOST,		/* the ring was full: `lost` samples were not written */
};
enum pmc_record_ring {
	PMC_RING_SIGNALLED,	/* the records of the event that signals */
	PMC_RING_SILENT,	/* the kernel-mode twin's: no signal was sent for these */
};
struct pmc_record {
	enum pmc_record_kind kind;
	bool kernel;			/* taken in kernel mode */
	uint32_t pid, tid;		/* 0 when the event does not record them */
	uint64_t ip;			/* the sampled instruction */
	uint64_t period;		/* the interval behind the sample (0: unknown) */
	uint64_t lost;			/* PMC_REC_LOST */
	const uint64_t *kchain;		/* kernel pcs, leaf first, markers dropped */
	size_t n_kchain;
	const uint64_t *regs;		/* user registers, one per bit of regs_mask */
	uint64_t regs_mask;		/* (the kernel's PERF_REG_* numbering); 0: none */
	const void *stack;		/* the user stack from regs' sp up */
	uint64_t stack_size;		/* bytes of it that are valid */
};

/* The oldest record of event idx's ring `ring` not taken before: 1 and
 * *rec filled (the record is copied into buf[len] first and consumed), 0
 * when none waits, -ENOSPC when buf is too small for it (it is skipped),
 * -PMC_ENOTSUP without records, -EBUSY when another caller is taking
 * them.  Only for groups opened with kernel_silent or stack_copy, whose
 * records wait for this call.  No syscall, no allocation:
 * async-signal-safe. */
PMC_API int pmc_group_record(struct pmc_group *g, int idx, enum pmc_record_ring ring, void *buf,
			     size_t len, struct pmc_record *rec);
/* Stop, release everything. g may be NULL. */
PMC_API int pmc_group_close(struct pmc_group *g);

/* ---- choosing what to use ---- */

enum pmc_plan_flags {
	PMC_PLAN_NO_FALLBACK = 1 << 0,	/* an unusable event is an error */
	PMC_PLAN_SAMPLING = 1 << 1,	/* events will be sampled (need a period) */
};

/* The backend and events that will actually be used for a request. */
struct pmc_plan {
	struct pmc_backend *be;
	size_t n;
	struct pmc_event ev[PMC_MAX_EVENTS];	/* used */
	struct pmc_event req[PMC_MAX_EVENTS];	/* requested (parsed) */
	bool fell_back;
	char why[512];			/* one line: what was chosen and why */
};

/* Resolve requested specs (n may be 0: the machine's best default) and an
 * optional backend name into a plan, trying each event for real and
 * following the documented fallback chain (EVENT -> EVENT:u where
 * perf_event_paranoid 2 refuses this user the kernel and the event has
 * neither ':u' nor ':k'; hardware event -> cpu-clock -> CPUTIME) unless
 * PMC_PLAN_NO_FALLBACK or a backend is named.  diag gets per-element parse errors;
 * err_msg one line for other failures.  Free with pmc_plan_release(). */
PMC_API int pmc_plan_make(const char *const *specs, size_t n, const char *backend, unsigned flags,
			  struct pmc_plan *plan, struct pmc_diag *diag, char *err_msg, size_t len);
PMC_API void pmc_plan_release(struct pmc_plan *plan);

/* ---- calibration: can this counter be trusted here? ---- */

enum pmc_trust {
	PMC_TRUST_VALID,	/* counted a known loop within the expected bounds */
	PMC_TRUST_UNVERIFIED,	/* counted, but there is no known expectation for it */
	PMC_TRUST_ZERO,		/* counted nothing where work certainly happened */
	PMC_TRUST_IMPLAUSIBLE,	/* counted outside the bounds (e.g. garbage) */
	PMC_TRUST_UNSUPPORTED,	/* could not be opened */
};

struct pmc_calibration {
	enum pmc_trust trust;
	uint64_t measured;		/* what the counter said */
	uint64_t lo, hi;		/* the accepted range (0, 0 when unverified) */
	int err;			/* open/read error for UNSUPPORTED */
	char why[200];			/* one line for the user */
};

/* Run a loop of exactly known work (a counted dec/jnz loop: N branches,
 * 2N instructions, a known CPU time) under ev, user space only, on the
 * calling thread, and classify the counter (like the KVM PMU self-tests).
 * Takes ~10 ms.  Returns 0 (the verdict is in out) or -errno. */
PMC_API int pmc_calibrate(struct pmc_backend *be, const struct pmc_event *ev,
			  struct pmc_calibration *out);
/* "valid", "unverified", "zero", "implausible", "unsupported" (static). */
PMC_API const char *pmc_trust_name(enum pmc_trust t);

/* Default sampling period for an event without one: ~1 kHz per thread. */
PMC_API uint64_t pmc_event_default_period(const struct pmc_event *ev);

#ifdef __cplusplus
}
#endif
#endif /* PMC_H */

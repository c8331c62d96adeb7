/* perfctr_xen plugin internals (not installed): the kernel seam, the pure
 * helpers, and the plugin ops, exposed for the unit tests and the model.
 *
 * Everything that touches the guest kernel or the PMU goes through ONE seam,
 * struct pcx_sys: the real syscalls and instructions by default, the
 * executable Xen model (tests/xenmodel) in tests.  The code that reads the
 * mapped pages is the same in both cases.
 */
#ifndef PCX_H
#define PCX_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/pmc_plugin.h"
#include "plugins/perfctr_xen/abi.h"
#include "plugins/perfctr_xen/seam.h"

/* The guest kernel and the PMU as the plugin sees them: plugins/perfctr_xen/seam.h. */

/* The real syscalls and the rdpmc/rdtsc instructions. */
extern const struct pcx_sys pcx_sys_real;

/* Use s for every later probe/open (NULL: back to pcx_sys_real).  A group
 * keeps the seam it was opened with.  Not thread-safe; for tests. */
void pcx_sys_set(const struct pcx_sys *s);

/* ---- pure helpers (unit-tested) ---- */

/* v's low width bits, sign-extended to 64 (width >= 64: v). */
uint64_t pcx_sign_extend(uint64_t v, unsigned width);

/* Events counted between two samples now and start of a counter, both
 * sign-extended from its width: now - start in plain 64-bit arithmetic,
 * as perfctr-xen's kernel, Xen and library compute every delta
 * (perfctr_cpu_suspend, _rdpmc_pfc, _rdpmcl).  Exact across zero (where
 * i-mode counters overflow); 2^width short when the counter crossed its
 * sign bit upwards between the samples -- the driver's own sums carry the
 * same loss, and only matching its arithmetic keeps our reads consistent
 * with them (docs/virtualization.md). */
uint64_t pcx_delta(uint64_t now, uint64_t start);

/* Why the plugin refuses when Xen runs without its perfctr module. */
#define PCX_HV_OFF_REASON                                                                  \
	"perfctr-xen: the hypervisor side is not enabled (boot Xen with the `perfctr` option)"

/* Counter width for a perfctr cpu_type (perfctr_info), 0 if unknown. */
unsigned pcx_width_for_cpu_type(uint32_t cpu_type);

/* PerfEvtSel for a PMC_KIND_PERF hardware event, without EN/INT: event and
 * umask (generic events from the vendor's table: amd for perfctr's AMD
 * cpu_types, else Intel's architectural events), EDGE/INV/CMASK from a raw
 * config, USR/OS from the exclude flags.  -PMC_ENOTSUP for what a PerfEvtSel
 * cannot say (cache events, extra config bits), -EINVAL when both privilege
 * levels are excluded. */
int pcx_evntsel_encode(const struct pmc_event *ev, bool amd, uint32_t *evntsel);

/* Is this perfctr cpu_type an AMD processor? */
bool pcx_cpu_type_is_amd(uint32_t cpu_type);

/* Is this environment a Xen guest (CPUID signature, hv_name or
 * /sys/hypervisor/type)? */
bool pcx_env_is_xen(const struct pmc_env *env);

/* ---- perfctr's structure marshalling (usr.lib/marshal.c format) ---- */

/* Word header: (tag << 16) | (item << 1) | type, type 1 = 64-bit datum. */
struct pcx_field {
	uint16_t offset;
	uint8_t tag;
	uint8_t nitems;
	uint8_t is_u64;
};
struct pcx_desc {
	size_t size;			/* of the struct */
	size_t nfields;
	const struct pcx_field *fields;
	size_t bufwords;		/* room a full encoding may need */
};
extern const struct pcx_desc pcx_info_desc, pcx_vcontrol_desc, pcx_sum_desc;

/* Encode the non-zero fields of obj into buf (cap words): 0 and *nwords,
 * or -EOVERFLOW. */
int pcx_marshal_encode(const void *obj, const struct pcx_desc *d, uint32_t *buf, size_t cap,
		       size_t *nwords);
/* Zero obj, then apply the nwords of buf: 0 or -EPROTO (unknown tag, bad
 * index, 64-bit datum for a 32-bit field, truncated). */
int pcx_marshal_decode(void *obj, const struct pcx_desc *d, const uint32_t *buf, size_t nwords);

/* ---- the plugin (ops of struct pmc_plugin) ---- */

int pcx_probe(const struct pmc_env *env, struct pmc_probe *out);
int pcx_open(const struct pmc_event *evs, size_t n, const struct pmc_group_opts *opts,
	     void **ctx);
int pcx_start(void *ctx);
int pcx_stop(void *ctx);
int pcx_read(void *ctx, struct pmc_count *vals, size_t n);
int pcx_arm(void *ctx, int signo);
int pcx_overflow(void *ctx, const siginfo_t *si);
int pcx_rearm(void *ctx, int idx, uint64_t period);
int pcx_stats(void *ctx, struct pmc_sample_stats *st);
int pcx_close(void *ctx);

/* The plugin's own event: the thread's virtualized TSC (counting only). */
#define PCX_TSC_EVENT "TSC"

/* For tests: one pass of the a-mode read of event values (logical counts,
 * TSC for the TSC event) without the retry.  *consistent is false when the
 * migration check (smp_id, TSC Start_thread/Start_vcpu, sums, cstatus)
 * saw the state change during the pass.  Async-signal-safe. */
int pcx_read_once(void *ctx, uint64_t *vals, size_t n, bool *consistent);
/* For tests: reads that had to be retried since open. */
uint64_t pcx_read_retries(const void *ctx);

#endif /* PCX_H */

/* The kernel part of each sample (collector/kernel.c): what the profile
 * holds of time spent in the kernel, and the handler's stitching of the
 * kernel's call chain (from the backend's sample record, no syscall) under
 * the user stack.  Internal to collector/; docs/collector.md explains it. */
#ifndef COLLECTOR_KERNEL_H
#define COLLECTOR_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <ucontext.h>

#include "backend/pmc.h"

struct thr;

/* The load map's pseudo-module for kernel pcs: the upper half of the
 * x86-64 address space, bias = start, so offset 0 (pc KERN_START, never
 * kernel code) stands for "somewhere in the kernel" (the [kernel] leaf)
 * and offset + KERN_START is the kernel address. */
#define KERN_MODULE_PATH "[kernel.kallsyms]"
#define KERN_START 0xffff800000000000ULL
#define KERN_END 0xffffffffffffffffULL

/* Decide, at process init once the backend and events are known, what the
 * profile will hold of the kernel: PMCPROF_KERNEL=auto (default: chains
 * when the events count the kernel), leaf (a [kernel] leaf, no kernel
 * addresses), off (exclude_kernel on every event, as an unprivileged user
 * gets).  On a backend that can only signal, auto means off (a kernel-mode
 * sample would cut a system call short).  off changes ev[].  Not
 * async-signal-safe. */
void kern_init(const char *backend, struct pmc_event *ev, size_t n_ev);

/* Before loadmap_init: give the load map the KERN_MODULE_PATH
 * pseudo-module when samples may hold kernel pcs, with the running
 * kernel's build-id (from /sys/kernel/notes) so that a report on another
 * kernel knows its /proc/kallsyms does not fit. */
void kern_loadmap(void);

/* The profile's "kernel_frames" metadata: callchain, leaf, excluded or
 * charged_to_user.  Async-signal-safe. */
const char *kern_frames_meta(void);

/* In the handler, after the user stack pcs[0..n) (leaf first) was taken
 * for the overflow of event idx: put the kernel side of that sample in
 * front of it (kernel leaf first; KERN_START alone for a kernel-mode
 * sample without a chain), dropping root-most user frames past max.
 * Returns the new n.  Counts into t->ctr.  Async-signal-safe. */
int kern_stitch(struct thr *t, int idx, uintptr_t *pcs, int n, int max);

/* The group options of a thread's counters: kernel chains, and on
 * perf_event silent kernel-mode samples and stack copies in every record
 * (PMCPROF_STACK_COPY bytes, default 4096; 0: the signal-only scheme). */
void kern_group_opts(struct pmc_group_opts *o);
/* After t's group opened (before it starts): whether it keeps records. */
void kern_thread_armed(struct thr *t);

/* In the handler, for a signal of event idx on an ACTIVE thread in
 * rec_mode: place every waiting kernel-mode record and every late one;
 * true when the caller should sample the signal's own context (its record
 * says it was taken there, or there is none).  Async-signal-safe. */
bool kern_on_signal(struct thr *t, int idx, const ucontext_t *uc);
/* A throttled signal: its record is taken and dropped. */
void kern_skip_signal(struct thr *t, int idx);
/* Place every record still waiting (thread end, before its profile is
 * written); the caller owns t.  Async-signal-safe. */
void kern_drain(struct thr *t);

#endif

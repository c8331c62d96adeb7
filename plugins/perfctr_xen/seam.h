/* The perfctr_xen plugin's one seam to the guest kernel and the PMU, apart
 * from the plugin's ABI definitions so that the Xen model (tests/xenmodel)
 * can implement it without sharing the plugin's view of the ABI. */
#ifndef PCX_SEAM_H
#define PCX_SEAM_H

#include <stddef.h>
#include <stdint.h>

/* Each returns >= 0 or -errno (ioctl: its result, e.g. the fd of
 * VPERFCTR_CREAT).  For VPERFCTR_CREAT/OPEN argp carries the tid, as
 * ioctl's integer arg. */
struct pcx_sys {
	int (*open)(const char *path, void *arg);			/* O_RDONLY|O_CLOEXEC */
	int (*ioctl)(int fd, unsigned long req, void *argp, void *arg);
	int (*mmap)(int fd, size_t len, const void **out, void *arg);	/* PROT_READ, MAP_SHARED */
	int (*munmap)(const void *addr, size_t len, void *arg);
	int (*close)(int fd, void *arg);
	uint64_t (*rdpmc)(uint32_t counter, void *arg);			/* raw EDX:EAX */
	uint64_t (*rdtsc)(void *arg);
	void *arg;
};

#endif /* PCX_SEAM_H */

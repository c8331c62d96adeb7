/* libpmc core: the export macro, the library's version and its error codes.
 *
 * Errors: every libpmc function returns 0 (or a count) or a negative code:
 * -errno, or -PMC_E* for what errno cannot say.  pmc_strerror() names any
 * of them.  The library never prints and never exits.
 *
 * Ownership: the strings returned here are static.  Signal safety: both
 * functions are async-signal-safe (they only index static tables).
 */
#ifndef PMC_CORE_H
#define PMC_CORE_H

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

/* Limits of the fixed-size fields and arrays of the caller's structs. */
#define PMC_NAME_MAX 128
#define PMC_MAX_EVENTS 16

#ifdef __cplusplus
}
#endif
#endif /* PMC_CORE_H */

/* fgo.h: what every part of fgobench shares: result codes, the message
 * functions (error, warning, note) and a few small helpers.
 *
 * Result codes double as exit codes where they reach main(): 0 success,
 * 1 runs failed or a regression was found, 2 bad usage or bad input. */
#ifndef FGO_H
#define FGO_H

#include <stddef.h>
#include <stdint.h>

#define FGO_VERSION "0.1.0"

enum fgo_rc {
	FGO_OK = 0,        /* success */
	FGO_EFAIL = 1,     /* runs failed, regression found, internal failure */
	FGO_EUSAGE = 2,    /* bad usage or bad input: nothing was changed */
	FGO_ETIMEOUT = 3,  /* a wait passed its deadline (never an exit code) */
	FGO_EUNAVAILABLE = 4, /* a comparison (the vendor baseline, bulk) cannot run here:
				 not measured, the run is not failed (never an exit code) */
	FGO_ERESTART = 5,  /* a rank's device is lost (a GPU context after an illegal
			      address): the sweep goes on in a fresh process (never an
			      exit code) */
};

/* User messages, printf-checked; all go to stderr with a "fgobench: " prefix.
 * error() and friends never exit: callers return a code so what was done so
 * far can still be saved. */
void error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* When set, error(), warning() and note() print nothing: MPI ranks other
 * than 0 set it while they repeat work whose messages rank 0 prints. */
extern int fgo_mute;

/* Monotonic clock in seconds. */
double now_seconds(void);

/* bytes as a person reads them, in the unit that shows them: "512 B",
 * "1 KiB", "1.50 GiB", "372.6 GiB", "878.9 TiB" (exact numbers without
 * decimals, others to two under 10 and one above). Returns buf. */
const char *fmt_bytes(double bytes, char *buf, size_t len);

/* FNV-1a 64-bit hash of a byte string (keys, cache names, seeds). */
uint64_t fnv1a64(const void *data, size_t len);

/* Creates dir and its missing parents (mkdir -p). FGO_OK, or FGO_EUSAGE
 * with "cannot create PATH: why" in err. */
int make_dirs(const char *dir, char *err, size_t len);

/* Levenshtein distance, for "did you mean" suggestions. */
int edit_distance(const char *a, const char *b);

#define FGO_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif

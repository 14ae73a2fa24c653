/* testlib.h: the unit tests' tiny harness. Each check prints one line,
 * "PASS id" or "FAIL id: what was expected, what came out"; tests/run.sh
 * counts those lines. A test binary exits 1 when any check failed. */
#ifndef FGO_TESTLIB_H
#define FGO_TESTLIB_H

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int testlib_failed;

#define T_PASS(id) printf("PASS %s\n", (id))

#define T_CHECK(id, cond, ...)                                   \
	do {                                                     \
		if (cond) {                                      \
			T_PASS(id);                              \
		} else {                                         \
			testlib_failed++;                        \
			printf("FAIL %s (%s:%d): ", (id), __FILE__, __LINE__); \
			printf(__VA_ARGS__);                     \
			printf("\n");                            \
		}                                                \
	} while (0)

#define T_EQ_INT(id, got, want) \
	T_CHECK(id, (long long)(got) == (long long)(want), "expected %lld, got %lld", \
		(long long)(want), (long long)(got))

#define T_EQ_STR(id, got, want) \
	T_CHECK(id, strcmp((got), (want)) == 0, "expected \"%s\", got \"%s\"", (want), (got))

#define T_CONTAINS(id, haystack, needle) \
	T_CHECK(id, strstr((haystack), (needle)) != NULL, "expected \"%s\" in \"%s\"", (needle), (haystack))

#define T_NEAR(id, got, want, tol) \
	T_CHECK(id, fabs((double)(got) - (double)(want)) <= (tol), "expected %.9g (+-%g), got %.9g", \
		(double)(want), (double)(tol), (double)(got))

#define T_DONE() return testlib_failed ? 1 : 0

/* A test's SQLite store gone, with the journal files SQLite keeps beside
 * it (WAL mode), so the test's folder can be removed. */
static inline void t_store_unlink(const char *db)
{
	char side[4096];
	unlink(db);
	snprintf(side, sizeof side, "%s-wal", db);
	unlink(side);
	snprintf(side, sizeof side, "%s-shm", db);
	unlink(side);
}

#endif

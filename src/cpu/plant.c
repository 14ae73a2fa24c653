/* plant.c: the planted slowdown of plant.h. A spin, not a sleep, so the
 * core stays busy as it would with a slower kernel, and the time it adds
 * scales with the machine's load as a real slowdown would. */
#include "cpu/plant.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static int listed(const char *algos, const char *algorithm)
{
	size_t n = strlen(algorithm);
	for (const char *p = algos; *p;) {
		size_t len = strcspn(p, ",");
		if (len == n && !strncmp(p, algorithm, n))
			return 1;
		p += len + (p[len] == ',');
	}
	return 0;
}

double cpu_plant_extra_ns(const char *algos, long long ns, double pct, const char *algorithm,
			  double ms)
{
	if (algos && *algos && !listed(algos, algorithm))
		return 0;
	double extra = (ns > 0 ? (double)ns : 0) + (pct > 0 && ms > 0 ? ms * 1e6 * pct / 100 : 0);
	return extra;
}

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

void cpu_plant_slow(const char *algorithm, double ms)
{
	static int read;
	static long long ns;
	static double pct;
	static const char *algos;
	if (!read) {
		const char *v = getenv("FGOBENCH_PLANT_SLOW_NS");
		ns = v && *v ? atoll(v) : 0;
		v = getenv("FGOBENCH_PLANT_SLOW_PCT");
		pct = v && *v ? strtod(v, NULL) : 0;
		algos = getenv("FGOBENCH_PLANT_SLOW_ALGO");
		read = 1;
	}
	if (ns <= 0 && pct <= 0)
		return;
	double extra = cpu_plant_extra_ns(algos, ns, pct, algorithm, ms);
	if (extra <= 0)
		return;
	double end = now_ns() + extra;
	while (now_ns() < end)
		; /* busy on purpose */
}

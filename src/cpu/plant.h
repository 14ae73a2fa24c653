/* plant.h: the CPU backend's planted slowdown, a test hook for the nightly
 * gate (tests/bench/gate.sh, tests/e2e/21_gate.sh): launches made slower on
 * purpose, inside the timed region, so that detection can be measured. */
#ifndef FGO_CPU_PLANT_H
#define FGO_CPU_PLANT_H

/* After a launch of algorithm that took ms milliseconds: spins (busy, as a
 * slower kernel would) for what the environment asks, then returns.
 *   FGOBENCH_PLANT_SLOW_NS=N    N ns after every launch (as the GPU backend)
 *   FGOBENCH_PLANT_SLOW_PCT=P   P percent of the launch's own time more
 *   FGOBENCH_PLANT_SLOW_ALGO=A  only launches of these algorithms (a comma
 *                               list of registry names; unset: every one)
 * Unset, empty or not positive: no slowdown. Read once per process. */
void cpu_plant_slow(const char *algorithm, double ms);

/* Whether launches of algorithm are slowed, and by how much: the pure part
 * of cpu_plant_slow, for tests. algos is the comma list (NULL: all). */
double cpu_plant_extra_ns(const char *algos, long long ns, double pct, const char *algorithm,
			  double ms);

#endif

/* gate.h: the nightly gate's judgement (`regress --gate`, `report --gate`,
 * tests/nightly.sh): quiet on an unchanged build on a noisy machine, loud on
 * a real change. Pure arithmetic on levels already read (gate_load.c reads
 * them from the store), so the unit tests drive it with made-up nights.
 *
 * A night is several rounds (sweeps of one tag, each a fresh process); a
 * configuration's level in a night is the median of its rounds after each
 * round's common factor is taken out (a round under load slows everything
 * in it). Where every run has its control (the vendor baseline, measured
 * before every problem in every round: code this project does not tune, so
 * it moves with the machine) a round's value is the run's time over its
 * control's ("relative": a slow moment of the machine, seconds long, slows
 * both and cancels run by run); otherwise the run's time. Two nights are
 * compared configuration by configuration:
 *   machine factor M  the median change over all configurations;
 *   control K         the median change of the control itself;
 *   machine changed   (times, not relative) |M| above the threshold and the
 *                     control moved with it: every change is judged against
 *                     M (said, not alarmed); without the control moving it
 *                     is the code: judged raw;
 *   control changed   (relative) |M| above the threshold and the control
 *                     moved the other way by at least half as much: the
 *                     control's own code changed, every change judged
 *                     against M; the same way by at least twice as much:
 *                     what the machine's move left in the ratios (the
 *                     machine changed, judged against M); otherwise a
 *                     change of all the code: raw;
 *   noise             per configuration, the largest of: the spread of its
 *                     rounds (standard error of the two medians), the spread
 *                     of its earlier nights' changes (the history), and the
 *                     spread of this night's changes over all configurations;
 *   verdict           a change above the threshold whose p (normal, change
 *                     over noise) is below alpha / configurations compared
 *                     (so a night's chance of any false alarm stays <= alpha);
 *   no verdict        when unchanged configurations spread over twice the
 *                     threshold (a busy machine: times jump between modes,
 *                     not the noise p assumes): said, every pair same. */
#ifndef FGO_GATE_H
#define FGO_GATE_H

#include <stddef.h>

#include "views/regress.h"

/* Levels of one night: x is configs x rounds (row c, column r), the log of
 * each round's median time, NAN where a round has no ok run. level[c] gets
 * the median over rounds after each round's common factor (the median over
 * configurations of the round's offsets) is removed; spread[c] the standard
 * deviation of those corrected rounds (not a robust one: rounds that fall
 * into two modes must show it), NAN with fewer than 3 rounds; NAN level
 * where a configuration has no round. */
void gate_levels(const double *x, size_t configs, size_t rounds, double *level, double *spread);

/* Median of the non-NAN values; NAN when there is none. */
double gate_median(const double *x, size_t n);

struct gate_in {
	size_t configs;
	const double *base, *head;         /* night levels (gate_levels), log ms, NAN: missing */
	const double *base_spread, *head_spread; /* their round spreads (NAN: unknown) */
	size_t base_rounds, head_rounds;   /* rounds of each night */
	const double *base_ctl, *head_ctl; /* control levels per configuration (NULL: none) */
	int relative;                      /* levels are time over the round's control */
	size_t nights;                     /* earlier nights, oldest first, ending before base */
	const double *hist;                /* nights x configs levels (NULL when nights is 0) */
	double threshold_pct, alpha;
};

enum gate_machine {
	GATE_MACHINE_SAME = 0, /* the night moved less than the threshold */
	GATE_MACHINE_CHANGED,  /* most moved together, and the control with them */
	GATE_CODE_WIDE,        /* most moved together, the control did not (or none) */
	GATE_CONTROL_CHANGED,  /* relative: most moved together, the control the other way */
};

const char *gate_machine_name(enum gate_machine m);

struct gate_cfg {
	double change_pct;  /* the change judged: against the machine factor when it was taken out */
	double raw_pct;     /* head level over base level, as measured */
	double noise_pct;   /* the noise it was judged against (one standard deviation) */
	double p;           /* two-sided normal p of change over noise */
	enum fgo_verdict verdict;
};


/* Judges every configuration of in into out[configs] and the night into g
 * (all of g but the loader's fields: rounds and nights).
 * Configurations missing on a side get verdict same and NAN changes. */
void gate_judge(const struct gate_in *in, struct gate_cfg *out, struct fgo_regress_gate *g);

/* The night's verdict in one paragraph (for regress's stderr and the
 * report's summary): rounds and history, the machine, the noise, the rule. */
void gate_describe(const struct fgo_regress_gate *g, size_t compared, double threshold_pct,
		   double alpha, char *buf, size_t len);

/* regress_compare with opts.gate (gate_load.c): reads both nights (every
 * round of a tag; a sweep id is one round), up to o->history earlier nights
 * of the base's spec on its host (tags before it, newest first) from the
 * base's store, and fills rep as regress does, with rep->gate. */
struct sqlite3;
int gate_compare(struct sqlite3 *bdb, const char *base_path, struct sqlite3 *hdb,
		 const char *head_path, const struct fgo_regress_opts *o,
		 struct fgo_regress_report *rep, char *err, size_t len);

#endif

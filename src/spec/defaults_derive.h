/* spec/defaults_derive.h: the defaults table derived from measurements
 * (issue 49): each row's pick judged on the problems of a store that map
 * to it, the pick a store's numbers would choose instead, whether that
 * one replaces it, and the table written back as its data include
 * (src/spec/defaults_rows.inc). Pure: the caller reads the store
 * (src/cmd/best_defaults.c) and hands over numbers; nothing here reads a
 * file or prints. */
#ifndef FGO_SPEC_DEFAULTS_DERIVE_H
#define FGO_SPEC_DEFAULTS_DERIVE_H

#include <stddef.h>
#include <stdio.h>

#include "spec/defaults.h"

/* What a row sets: the tile, its split and its gather chunk. */
struct defaults_pick {
	int blk_m, blk_n, blk_k, num_stages, num_warps;
	int split_k;    /* 1: no split */
	int comm_blk_m; /* 0: the GEMM tile's rows */
};

/* One measured time of a configuration expressible as a pick (every other
 * tunable at what a run without a tile takes) on one problem. */
struct derive_meas {
	int problem;               /* index into the problems */
	struct defaults_pick pick;
	double ms;                 /* median fused time, > 0 */
};

/* One problem (algorithm, dtype, world, M, N, K) of the store. */
struct derive_problem {
	int row;        /* defaults_lookup's row (0-based), -1: none */
	double best_ms; /* the fastest of every configuration measured on it */
};

/* A pick's times against each problem's best, over the problems of a row
 * it was measured on. */
struct derive_stats {
	int measured;   /* problems it was measured on */
	double geomean; /* geometric mean of time / the problem's best (0: none) */
	double worst;   /* the largest of those ratios (0: none) */
	int worst_at;   /* the problem of the worst (-1: none) */
};

/* Why a row stays or is replaced. */
enum derive_verdict {
	DERIVE_NO_PROBLEM = 0, /* no problem of the store maps to the row */
	DERIVE_UNMEASURED = 1, /* problems map to it, no pick (a default walk) measured there */
	DERIVE_SAME = 2,       /* the derived pick is the row's pick */
	DERIVE_THIN = 3,       /* the derived pick measured on 1 problem */
	DERIVE_UNPAIRED = 4,   /* the row's pick measured on none of the derived's problems */
	DERIVE_CLOSE = 5,      /* the derived pick not more than DERIVE_MIN_GAIN faster */
	DERIVE_REPLACE = 6,    /* the derived pick replaces the row's */
};

/* A derived pick replaces a row's only when it is faster by more than this
 * fraction (geometric mean over the problems both were measured on): less
 * is within the spread of two rounds of one configuration on one machine
 * (docs/defaults.md's runs repeat within about 1%), and a table that moves
 * on noise would move back on the next store. */
#define DERIVE_MIN_GAIN 0.01

/* One row of the derivation. */
struct derive_row {
	int problems;                 /* problems of the store that map to the row */
	struct defaults_pick current; /* the row's pick, as a run without a tile takes it */
	struct derive_stats cur;      /* its times */
	int have_derived;             /* a pick was measured on some problem of the row */
	struct defaults_pick derived; /* the store's choice: most problems covered, then */
	struct derive_stats der;      /* the lowest geomean (then worst, then the pick's order) */
	int paired;                   /* problems both picks were measured on */
	double vs_current;            /* geomean of derived / current time on those (0: none) */
	enum derive_verdict verdict;
};

/* The pick of table row r as a configuration without a tile takes it
 * (defaults_apply: no split for a walk that takes the device's CTAs,
 * takes_units nonzero). */
void derive_row_pick(const struct defaults_row *r, int takes_units, struct defaults_pick *out);

/* The pick a run's configuration is (its tile, split and gather chunk). */
void derive_pick_of(const struct fgo_config *c, struct defaults_pick *out);

/* Sets row r's tile, split and gather chunk to pick p (the rest of the
 * row, its boundaries and evidence, stays). */
void derive_pick_to_row(const struct defaults_pick *p, struct defaults_row *r);

/* 1 when a and b are the same pick. */
int derive_pick_eq(const struct defaults_pick *a, const struct defaults_pick *b);

/* Judges row (0-based) of the table: the problems p[0..np) that map to it
 * (p[i].row == row), the measured times m[0..nm) (any order; one time per
 * pick and problem), current the row's pick. Fills *out; 0, or -1 out
 * of memory. */
int derive_row(const struct derive_problem *p, size_t np, const struct derive_meas *m, size_t nm,
		int row, const struct defaults_pick *current, struct derive_row *out);

/* A verdict in a few words, into out: "kept: no problem", "kept: no pick
 * measured", "kept: the same pick", "kept: derived on 1 of 3", "kept: pick
 * not beside it" (never measured where the derived one was), "kept:
 * 0.995x on 6" (vs_current and paired: not DERIVE_MIN_GAIN faster),
 * "replace: 0.969x on 2". */
void derive_verdict_text(const struct derive_row *r, char *out, size_t len);

/* The evidence of a replaced row: "derived from STORE by best --defaults:
 * within 3.2% of the best on 4 of 4 problems, geomean 1.012" (store: the
 * store's name, with its tag when one was asked). */
void derive_evidence(const struct derive_row *r, const char *store, char *out, size_t len);

/* Writes rows[0..n) as src/spec/defaults_rows.inc holds them: a header
 * comment, then per row a comment naming it ("row N") and its
 * initializer, the evidence broken into pieces of at most 88 characters at spaces. The same
 * rows give the same bytes. 0, or -1 on a write error. */
int defaults_rows_write(FILE *f, const struct defaults_row *rows, size_t n);

#endif

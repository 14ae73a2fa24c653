/* world_copy.h: the comm CTAs' copy time of the Stream-K forms (issue 33).
 * Their communication is done by comm_sms CTAs (4 to 16), each copying
 * (or summing) whole tiles; on H100s the comm-only time of one tile shape
 * falls as 1 / comm_sms (a CTA's rate, not the link, decides it: 4 to 16
 * CTAs moved 60 to 220 GB/s of a 370 GB/s link), and a CTA copies a
 * large tile faster per byte than a small one (a fixed cost per tile).
 * One link rate per family cannot say that (the fit of both forms at W=2
 * came to 37-39% rms), so for these families the link side of the
 * multi-GPU formula (predict_world.h) is the configuration's comm-only
 * time: the run's own (t_comm) when fitting, this model's at a new shape:
 *
 *   copy = c_lat x 1 us + E (c_link + c_cta / comm_sms
 *                            + c_tile / (comm_sms x tile bytes))
 *
 * E: one rank's egress, bytes ((W - 1) x the family's link bytes); c_link
 * the link's ms per byte (where the CTAs together reach it), c_cta one
 * CTA's, c_tile its fixed cost per tile. Where the comm CTAs pull
 * (world_copy_pulls) the c_cta and c_tile terms see E / (W - 1): a CTA
 * loads from its W - 1 peers at once (issue 33). Linear in c, fitted by
 * non-negative least squares on relative error to a family's comm-only
 * times at one W. Pure, so tests feed it runs; world_rank.c fits it to
 * the runs it ranks from. */
#ifndef FGO_WORLD_COPY_H
#define FGO_WORLD_COPY_H

#include <stddef.h>

#include "config.h"

enum world_copy_term { WC_LAT, WC_LINK, WC_CTA, WC_TILE, WORLD_COPY_TERMS };

/* The runs the whole copy model needs: twice its coefficients. */
#define WORLD_COPY_MIN_RUNS (2 * WORLD_COPY_TERMS)

struct world_copy {
	double coef[WORLD_COPY_TERMS];
	size_t runs;
	double rms_rel_err; /* on the runs it was fitted to */
	int fitted;         /* 0: no runs (coef all 0) */
};

/* 1 when cfg's communication is its comm CTAs' alone (a Stream-K form,
 * comm_sms > 0): its link side is the copy time, not bytes at a rate. */
int world_copy_family(const struct fgo_config *cfg);

/* The family whose multi-GPU terms model cfg: a Stream-K form with
 * comm_sms 0 has no comm CTAs, the CTA that ends a tile sends (or sums)
 * it as its base family does (fgo_algo.base: sk_all_reduce's is
 * all_reduce_one_shot, sk_all_scatter's all_scatter), so its runs are
 * fitted with, and its
 * time predicted from, that family's coefficients, not the copy model's
 * (one fit of both mechanisms was 6.5x off on H100s); else
 * cfg->algorithm. */
const char *world_fit_family(const struct fgo_config *cfg);

/* 1 when cfg's comm CTAs pull (load a tile from each of the W - 1 peers,
 * the all-reduce form) rather than push (store into the peers): a
 * pulling CTA's rate grows with its peers (world_copy.c's columns). */
int world_copy_pulls(const struct fgo_config *cfg);

/* The columns of cfg under the model above (x[WORLD_COPY_TERMS], ms per
 * unit coefficient). 0 when cfg is not a copy family or sends nothing. */
int world_copy_columns(const struct fgo_config *cfg, double x[WORLD_COPY_TERMS]);

/* Fits the model to n configurations and their comm-only times (ms;
 * entries with ms not > 0 or that are not copy families skipped). With
 * fewer than WORLD_COPY_MIN_RUNS usable ones only c_cta is fitted (one
 * CTA's rate); out->fitted 0 with none. FGO_OK, FGO_EFAIL (out of
 * memory). */
int world_copy_fit(const struct fgo_config *cfg, const double *ms, size_t n,
		   struct world_copy *out);

/* The model's comm-only ms of cfg; 0 when it cannot say (not fitted,
 * not a copy family). */
double world_copy_ms(const struct world_copy *c, const struct fgo_config *cfg);

#endif

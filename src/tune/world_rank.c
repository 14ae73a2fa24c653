/* world_rank.c: a fused family's configurations ranked at a new shape at
 * W ranks (see world_rank.h). */
#include "tune/world_rank.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"
#include "tune/predict.h"
#include "tune/world_copy.h"

/* Shapes whose runs correct a configuration: as best --predict's nearest. */
#define NEAR_SHAPES 4
/* A configuration's own runs correct it from at most this far (log2 units
 * of the shape, predict_distance): farther, its GEMM and its overlap are
 * another regime (a Stream-K walk fine at M = 128 is not at M = 1). */
#define NEAR_OWN 2.5
/* A correction is held within [1/CLAMP, CLAMP]. */
#define CLAMP 4.0

double world_gemm_model_ms(const struct world_gemm_model *gm, const struct fgo_config *cfg)
{
	double x[MODEL_TERMS];
	const char *core = model_core(cfg);
	for (int i = 0; i < gm->ncores; i++) {
		if (strcmp(gm->core[i], core))
			continue;
		if (!model_terms(cfg, &gm->machine, x))
			return 0;
		x[MT_COMM] = 0; /* the GEMM alone: its communication compiled out */
		double ms = model_time(x, gm->coef[i]);
		return ms > 0 ? ms : 0;
	}
	return 0;
}

/* cfg's key at q's shape: the configuration, whatever shape it ran at. */
static void key_at(const struct fgo_config *cfg, const struct fgo_config *q, char *key, size_t len)
{
	struct fgo_config c = *cfg;
	c.m = q->m;
	c.n = q->n;
	c.k = q->k;
	config_key(&c, key, len);
}

enum which { K_GEMM, K_FUSED, K_COPY };

/* What the corrections are taken against: the GEMM model, the family's
 * coefficients (c_base: its base family's, for the configurations that
 * world_fit_family gives to it), the copy model of the Stream-K forms
 * (world_copy.h). */
struct against {
	const struct world_gemm_model *gm;
	const double *c, *c_base;
	const struct world_copy *copy;
};

/* The coefficients that model cfg: its fit family's (world_fit_family). */
static const double *coef_of(const struct against *ag, const struct fgo_config *cfg)
{
	return strcmp(world_fit_family(cfg), cfg->algorithm) ? ag->c_base : ag->c;
}

/* log(measured / model) of run r for which; 0 with *ok 0 when it cannot say. */
static double log_ratio(const struct world_run *r, const struct against *ag, enum which which,
			int *ok)
{
	*ok = 0;
	if (!(r->ms > 0) || !(r->gemm_ms > 0))
		return 0;
	if (which == K_GEMM) {
		double g = world_gemm_model_ms(ag->gm, &r->cfg);
		*ok = g > 0;
		return g > 0 ? log(r->gemm_ms / g) : 0;
	}
	if (which == K_COPY) {
		double t = world_copy_ms(ag->copy, &r->cfg);
		*ok = t > 0 && r->comm_ms > 0;
		return *ok ? log(r->comm_ms / t) : 0;
	}
	struct world_obs o;
	if (!world_obs_of(&r->cfg, r->gemm_ms, world_units(&r->cfg), &o))
		return 0;
	/* a Stream-K form's link side: its own comm-only time, as fitted */
	o.copy_ms = world_copy_family(&r->cfg) && r->comm_ms > 0 ? r->comm_ms : 0;
	double t = world_time(&o, coef_of(ag, &r->cfg));
	*ok = t > 0;
	return t > 0 ? log(r->ms / t) : 0;
}

struct near_shape {
	long m, n, k;
	double distance, sum;
	int count;
};

static int by_distance(const void *a, const void *b)
{
	const struct near_shape *x = a, *y = b;
	return (x->distance > y->distance) - (x->distance < y->distance);
}

/* The correction for which from the runs of key (NULL: every run) at the
 * NEAR_SHAPES shapes nearest q's: exp of the weighted mean over those
 * shapes of each shape's mean log ratio, weight 1 / (0.5 + distance)^2;
 * clamped. *found: whether any run said anything. */
static double correction(const struct world_run *runs, size_t n, const struct fgo_config *q,
			 const char *key, const struct against *ag, enum which which, double reach,
			 int *found, struct near_shape *shapes)
{
	int ns = 0;
	char k[FGO_KEY_MAX];
	*found = 0;
	for (size_t i = 0; i < n; i++) {
		const struct fgo_config *rc = &runs[i].cfg;
		int ok;
		if (key) {
			key_at(rc, q, k, sizeof k);
			if (strcmp(k, key))
				continue;
		}
		if (rc->m == q->m && rc->n == q->n && rc->k == q->k)
			continue; /* the shape itself: not a neighbour */
		double lr = log_ratio(&runs[i], ag, which, &ok);
		if (!ok || predict_distance(rc->m, rc->n, rc->k, q->m, q->n, q->k) > reach)
			continue;
		int j = 0;
		while (j < ns && !(shapes[j].m == rc->m && shapes[j].n == rc->n && shapes[j].k == rc->k))
			j++;
		if (j == ns)
			shapes[ns++] = (struct near_shape){ rc->m, rc->n, rc->k,
							    predict_distance(rc->m, rc->n, rc->k, q->m,
									     q->n, q->k),
							    0, 0 };
		shapes[j].sum += lr;
		shapes[j].count++;
	}
	if (ns == 0)
		return 1;
	qsort(shapes, (size_t)ns, sizeof *shapes, by_distance);
	double sum = 0, wsum = 0;
	for (int s = 0; s < ns && s < NEAR_SHAPES; s++) {
		double w = 1.0 / ((0.5 + shapes[s].distance) * (0.5 + shapes[s].distance));
		sum += w * shapes[s].sum / shapes[s].count;
		wsum += w;
	}
	*found = 1;
	double lk = sum / wsum;
	return exp(fmax(-log(CLAMP), fmin(log(CLAMP), lk)));
}

static int by_fused(const void *a, const void *b)
{
	const struct world_cand *x = a, *y = b;
	return (x->fused_ms > y->fused_ms) - (x->fused_ms < y->fused_ms);
}

int world_rank(const struct world_run *runs, size_t n, const struct fgo_config *q,
	       const struct world_gemm_model *gm, const double c[WORLD_TERMS],
	       const double c_base[WORLD_TERMS], struct world_cand **out, size_t *nout)
{
	struct world_cand *cand = malloc(sizeof *cand * (n ? n : 1));
	struct near_shape *shapes = malloc(sizeof *shapes * (n ? n : 1));
	char (*keys)[FGO_KEY_MAX] = malloc(sizeof *keys * (n ? n : 1));
	size_t nc = 0;
	*out = NULL;
	*nout = 0;
	if (!cand || !shapes || !keys) {
		free(cand), free(shapes), free(keys);
		return FGO_EFAIL;
	}
	/* the Stream-K forms' copy model, fitted to the comm-only times of
	 * the runs of q's family */
	struct world_copy copy;
	struct fgo_config *ccfg = calloc(n ? n : 1, sizeof *ccfg);
	double *cms = calloc(n ? n : 1, sizeof *cms);
	size_t ncopy = 0;
	memset(&copy, 0, sizeof copy);
	if (!ccfg || !cms) {
		free(ccfg), free(cms), free(cand), free(shapes), free(keys);
		return FGO_EFAIL;
	}
	for (size_t i = 0; i < n; i++)
		if (!strcmp(runs[i].cfg.algorithm, q->algorithm) && world_copy_family(&runs[i].cfg) &&
		    runs[i].comm_ms > 0) {
			ccfg[ncopy] = runs[i].cfg;
			cms[ncopy++] = runs[i].comm_ms;
		}
	int rc = world_copy_fit(ccfg, cms, ncopy, &copy);
	free(ccfg), free(cms);
	if (rc != FGO_OK) {
		free(cand), free(shapes), free(keys);
		return FGO_EFAIL;
	}
	const struct against ag = { gm, c, c_base ? c_base : c, &copy };
	int fam_g_found, fam_f_found, fam_c_found;
	double fam_g = correction(runs, n, q, NULL, &ag, K_GEMM, INFINITY, &fam_g_found, shapes);
	double fam_f = correction(runs, n, q, NULL, &ag, K_FUSED, INFINITY, &fam_f_found, shapes);
	double fam_c = correction(runs, n, q, NULL, &ag, K_COPY, INFINITY, &fam_c_found, shapes);
	for (size_t i = 0; i < n; i++) {
		char why[FGO_REASON_MAX];
		key_at(&runs[i].cfg, q, keys[nc], sizeof keys[nc]);
		int seen = 0;
		for (size_t j = 0; j < nc && !seen; j++)
			seen = !strcmp(keys[j], keys[nc]);
		if (seen || strcmp(runs[i].cfg.algorithm, q->algorithm) || runs[i].cfg.dtype != q->dtype)
			continue;
		struct world_cand *w = &cand[nc];
		memset(w, 0, sizeof *w);
		w->cfg = runs[i].cfg;
		w->cfg.world = q->world;
		w->cfg.m = q->m;
		w->cfg.n = q->n;
		w->cfg.k = q->k;
		if (config_validate(&w->cfg, why, sizeof why))
			continue; /* a tile the new shape refuses */
		double g = world_gemm_model_ms(gm, &w->cfg);
		struct world_obs o;
		if (!(g > 0))
			continue;
		int own_g, own_f, own_c = 1;
		w->k_gemm = correction(runs, n, q, keys[nc], &ag, K_GEMM, NEAR_OWN, &own_g, shapes);
		w->k_fused = correction(runs, n, q, keys[nc], &ag, K_FUSED, NEAR_OWN, &own_f, shapes);
		if (!own_g)
			w->k_gemm = fam_g;
		if (!own_f)
			w->k_fused = fam_f;
		w->gemm_ms = g * w->k_gemm;
		if (!world_obs_of(&w->cfg, w->gemm_ms, world_units(&w->cfg), &o))
			continue;
		if (world_copy_family(&w->cfg)) {
			/* its comm-only time at the new shape: the copy model, corrected
			 * by its own comm-only runs near (as its GEMM is) */
			double t = world_copy_ms(&copy, &w->cfg);
			w->k_copy = correction(runs, n, q, keys[nc], &ag, K_COPY, NEAR_OWN, &own_c, shapes);
			if (!own_c)
				w->k_copy = fam_c;
			w->copy_ms = o.copy_ms = t * w->k_copy;
			if (!(t > 0))
				continue; /* no comm-only time anywhere to say it */
		}
		w->own = own_g && own_f && own_c;
		w->fused_ms = world_time(&o, coef_of(&ag, &w->cfg)) * w->k_fused;
		if (w->fused_ms > 0)
			nc++;
	}
	free(shapes), free(keys);
	(void)fam_g_found, (void)fam_f_found, (void)fam_c_found;
	if (nc == 0) {
		free(cand);
		return FGO_OK;
	}
	/* where some configurations were measured near, only they are ranked:
	 * the others' times rest on the family's corrections alone */
	size_t owned = 0;
	for (size_t i = 0; i < nc; i++)
		if (cand[i].own)
			cand[owned++] = cand[i];
	if (owned)
		nc = owned;
	qsort(cand, nc, sizeof *cand, by_fused);
	*out = cand;
	*nout = nc;
	return FGO_OK;
}

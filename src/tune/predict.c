/* predict.c: ranking configurations for an unmeasured shape from the
 * measured ones (see predict.h for the model). */
#include "tune/predict.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "fgo.h"
#include "tune/tune.h"

double predict_distance(long m1, long n1, long k1, long m2, long n2, long k2)
{
	double dm = log2((double)m1 / (double)m2), dn = log2((double)n1 / (double)n2),
	       dk = log2((double)k1 / (double)k2);
	return sqrt(dm * dm + dn * dn + dk * dk);
}

static double padded_share(long extent, int blk)
{
	long tiles = (extent + blk - 1) / blk;
	return extent > 0 && blk > 0 ? (double)extent / ((double)tiles * blk) : 1;
}

double predict_tile_efficiency(const struct fgo_config *cfg, int cus)
{
	const struct fgo_algo *algo = algo_find(cfg->algorithm);
	struct fgo_gemm_dims d;
	if (!algo)
		return 1;
	algo_gemm_dims(algo, cfg, &d);
	double eff = padded_share(d.m, cfg->blk_m) * padded_share(d.n, cfg->blk_n) *
		     padded_share(d.k, cfg->blk_k);
	/* wave quantisation of the data-parallel and split-K walks (a unit is
	 * one K slice of a tile); the Stream-K walk (gemm_sms > 0) evens out
	 * its last wave */
	if (cus > 1 && cfg->gemm_sms == 0) {
		long units = (long)d.blocks * ((d.m + cfg->blk_m - 1) / cfg->blk_m) *
			     ((d.n + cfg->blk_n - 1) / cfg->blk_n) * (cfg->split_k > 1 ? cfg->split_k : 1);
		long waves = (units + cus - 1) / cus;
		if (units > 0)
			eff *= (double)units / ((double)waves * cus);
	}
	return eff > 0 ? eff : 1;
}

static int same_problem(const struct fgo_config *a, const struct fgo_config *b)
{
	return !strcmp(a->algorithm, b->algorithm) && a->dtype == b->dtype && a->world == b->world;
}

static int same_shape(const struct fgo_config *a, long m, long n, long k)
{
	return a->m == m && a->n == n && a->k == k;
}

/* The tunables of a and b are equal (their shapes may differ). */
static int same_tunables(const struct fgo_config *a, const struct fgo_config *b)
{
	if (!same_problem(a, b))
		return 0;
	for (int d = 0; d < TUNE_DIMS; d++)
		if (tune_dim_get(a, d) != tune_dim_get(b, d))
			return 0;
	return 1;
}

static int by_distance(const void *a, const void *b)
{
	const struct predict_shape *x = a, *y = b;
	if (x->distance != y->distance)
		return x->distance < y->distance ? -1 : 1;
	if (x->m != y->m)
		return x->m < y->m ? -1 : 1;
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	return (x->k > y->k) - (x->k < y->k);
}

/* The measured shapes besides the query's, nearest first, with their best
 * time; *count receives how many. NULL when memory runs out. */
static struct predict_shape *shapes_of(const struct predict_obs *obs, size_t n,
				       const struct fgo_config *q, int *count)
{
	struct predict_shape *s = malloc(sizeof *s * (n + 1));
	int ns = 0;
	if (!s)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const struct fgo_config *c = &obs[i].cfg;
		if (!same_problem(c, q) || same_shape(c, q->m, q->n, q->k) || !(obs[i].ms > 0))
			continue;
		int j = 0;
		while (j < ns && !same_shape(c, s[j].m, s[j].n, s[j].k))
			j++;
		if (j == ns)
			s[ns++] = (struct predict_shape){ c->m, c->n, c->k,
							  predict_distance(c->m, c->n, c->k, q->m, q->n, q->k),
							  obs[i].ms, 0 };
		s[j].configs++;
		if (obs[i].ms < s[j].best_ms)
			s[j].best_ms = obs[i].ms;
	}
	qsort(s, (size_t)ns, sizeof *s, by_distance);
	*count = ns;
	return s;
}

/* Place of ms among the configurations measured at shape s (1 = fastest). */
static int place_at(const struct predict_obs *obs, size_t n, const struct fgo_config *q,
		    const struct predict_shape *s, double ms)
{
	int place = 1;
	for (size_t i = 0; i < n; i++)
		if (same_problem(&obs[i].cfg, q) && same_shape(&obs[i].cfg, s->m, s->n, s->k) &&
		    obs[i].ms > 0 && obs[i].ms < ms)
			place++;
	return place;
}

static double weight(double distance)
{
	return 1.0 / ((0.5 + distance) * (0.5 + distance));
}

/* Scores one candidate from the near shapes; raw score in *raw. */
static void score(const struct predict_obs *obs, size_t n, const struct fgo_config *q,
		  const struct predict_result *r, int cus, struct predict_candidate *c,
		  double *raw)
{
	double wsum = 0, wall = 0, sum = 0;
	double eff_q = predict_tile_efficiency(&c->cfg, cus);
	for (int s = 0; s < r->nnear; s++) {
		const struct predict_shape *sh = &r->near[s];
		double w = weight(sh->distance), ms = INFINITY;
		wall += w;
		for (size_t i = 0; i < n; i++)
			if (same_problem(&obs[i].cfg, q) && same_shape(&obs[i].cfg, sh->m, sh->n, sh->k) &&
			    same_tunables(&obs[i].cfg, &c->cfg) && obs[i].ms > 0 && obs[i].ms < ms)
				ms = obs[i].ms;
		if (!isfinite(ms))
			continue;
		struct fgo_config at = c->cfg;
		at.m = sh->m;
		at.n = sh->n;
		at.k = sh->k;
		double rel = ms / sh->best_ms;
		sum += w * rel * predict_tile_efficiency(&at, cus) / eff_q;
		wsum += w;
		c->support[c->nsupport++] = (struct predict_support){ s, place_at(obs, n, q, sh, ms), rel };
	}
	c->coverage = wall > 0 ? wsum / wall : 0;
	*raw = wsum > 0 ? sum / wsum : INFINITY;
}

static int by_rank(const void *a, const void *b)
{
	const struct predict_candidate *x = a, *y = b;
	int xa = x->coverage >= 0.5 - 1e-9, ya = y->coverage >= 0.5 - 1e-9;
	if (xa != ya)
		return ya - xa;
	if (x->score != y->score)
		return x->score < y->score ? -1 : 1;
	if (x->coverage != y->coverage)
		return x->coverage > y->coverage ? -1 : 1;
	return 0;
}

/* out emptied, room for a candidate per observation, the measured shapes
 * nearest the query in out->near. FGO_OK or FGO_EFAIL (out freed). */
static int result_begin(const struct predict_obs *obs, size_t n, const struct fgo_config *query,
			struct predict_result *out)
{
	memset(out, 0, sizeof *out);
	struct predict_shape *shapes = shapes_of(obs, n, query, &out->nshapes);
	out->cand = malloc(sizeof *out->cand * (n + 1));
	if (!shapes || !out->cand) {
		free(shapes);
		predict_free(out);
		return FGO_EFAIL;
	}
	out->nnear = out->nshapes < PREDICT_NEAR ? out->nshapes : PREDICT_NEAR;
	memcpy(out->near, shapes, sizeof *shapes * (size_t)out->nnear);
	free(shapes);
	return FGO_OK;
}

int predict_rank(const struct predict_obs *obs, size_t n, const struct fgo_config *query,
		 int cus, struct predict_result *out)
{
	if (result_begin(obs, n, query, out) != FGO_OK)
		return FGO_EFAIL;

	for (size_t i = 0; i < n; i++) {
		const struct fgo_config *c = &obs[i].cfg;
		int near = 0;
		for (int s = 0; s < out->nnear && !near; s++)
			near = same_shape(c, out->near[s].m, out->near[s].n, out->near[s].k);
		if (!same_problem(c, query) || !near || !(obs[i].ms > 0))
			continue;
		struct predict_candidate cand;
		memset(&cand, 0, sizeof cand);
		cand.cfg = *c;
		cand.cfg.m = query->m;
		cand.cfg.n = query->n;
		cand.cfg.k = query->k;
		char reason[FGO_REASON_MAX];
		if (config_validate(&cand.cfg, reason, sizeof reason))
			continue;
		size_t j = 0;
		while (j < out->count && !same_tunables(&out->cand[j].cfg, &cand.cfg))
			j++;
		if (j < out->count)
			continue;
		score(obs, n, query, out, cus, &cand, &cand.score);
		out->cand[out->count++] = cand;
	}
	qsort(out->cand, out->count, sizeof *out->cand, by_rank);
	double first = out->count ? out->cand[0].score : 1;
	for (size_t i = 0; i < out->count; i++)
		out->cand[i].score /= first > 0 ? first : 1;
	return FGO_OK;
}

void predict_model_add(struct predict_model *pm, const char *core, const struct model_fit *fit)
{
	if (pm->ncores >= (int)(sizeof pm->core / sizeof pm->core[0]))
		return;
	snprintf(pm->core[pm->ncores].core, sizeof pm->core[0].core, "%s", core);
	memcpy(pm->core[pm->ncores].coef, fit->coef, sizeof fit->coef);
	pm->core[pm->ncores++].median_err = fit->median_rel_err;
}

/* The index of the fit of cfg's core in pm, or -1. */
static int fit_of(const struct predict_model *pm, const struct fgo_config *cfg)
{
	const char *core = model_core(cfg);
	for (int c = 0; c < pm->ncores; c++)
		if (!strcmp(pm->core[c].core, core))
			return c;
	return -1;
}

double predict_model_ms(const struct predict_model *pm, const struct fgo_config *cfg)
{
	double x[MODEL_TERMS];
	const int c = fit_of(pm, cfg);
	return c >= 0 && model_terms(cfg, &pm->machine, x) ? model_time(x, pm->core[c].coef) : 0;
}

double predict_model_err(const struct predict_model *pm, const struct fgo_config *cfg)
{
	const int c = fit_of(pm, cfg);
	return c >= 0 ? pm->core[c].median_err : 0;
}

/* cfg's tunables at shape (m, n, k). */
static struct fgo_config at_shape(const struct fgo_config *cfg, long m, long n, long k)
{
	struct fgo_config c = *cfg;
	c.m = m;
	c.n = n;
	c.k = k;
	return c;
}

/* log(measured / model) of obs[i], or NAN when the model has no time for it. */
static double log_ratio(const struct predict_model *pm, const struct predict_obs *o)
{
	double model = predict_model_ms(pm, &o->cfg);
	return model > 0 && o->ms > 0 ? log(o->ms / model) : NAN;
}

/* The shapes' correction for a configuration not measured near the query:
 * the weighted mean of log(measured / model) of everything measured at
 * the near shapes, each shape weighing weight(distance) in all. */
static double shape_log_correction(const struct predict_obs *obs, size_t n,
				   const struct fgo_config *q, const struct predict_result *r,
				   const struct predict_model *pm)
{
	double sum = 0, wsum = 0;
	for (int s = 0; s < r->nnear; s++) {
		const struct predict_shape *sh = &r->near[s];
		double at = 0;
		int count = 0;
		for (size_t i = 0; i < n; i++) {
			if (!same_problem(&obs[i].cfg, q) || !same_shape(&obs[i].cfg, sh->m, sh->n, sh->k))
				continue;
			double lr = log_ratio(pm, &obs[i]);
			if (isfinite(lr)) {
				at += lr;
				count++;
			}
		}
		if (count) {
			sum += weight(sh->distance) * at / count;
			wsum += weight(sh->distance);
		}
	}
	return wsum > 0 ? sum / wsum : 0;
}

static int by_predicted(const void *a, const void *b)
{
	const struct predict_candidate *x = a, *y = b;
	if (x->predicted_ms != y->predicted_ms)
		return x->predicted_ms < y->predicted_ms ? -1 : 1;
	return (x->coverage < y->coverage) - (x->coverage > y->coverage);
}

int predict_rank_model(const struct predict_obs *obs, size_t n, const struct fgo_config *query,
		       const struct predict_model *pm, struct predict_result *out)
{
	if (result_begin(obs, n, query, out) != FGO_OK)
		return FGO_EFAIL;
	double shape_lc = shape_log_correction(obs, n, query, out, pm);

	for (size_t i = 0; i < n; i++) {
		const struct fgo_config *c = &obs[i].cfg;
		if (!same_problem(c, query) || same_shape(c, query->m, query->n, query->k) ||
		    !(obs[i].ms > 0))
			continue;
		struct predict_candidate cand;
		memset(&cand, 0, sizeof cand);
		cand.cfg = at_shape(c, query->m, query->n, query->k);
		char reason[FGO_REASON_MAX];
		if (config_validate(&cand.cfg, reason, sizeof reason))
			continue;
		size_t j = 0;
		while (j < out->count && !same_tunables(&out->cand[j].cfg, &cand.cfg))
			j++;
		if (j < out->count || !((cand.model_ms = predict_model_ms(pm, &cand.cfg)) > 0))
			continue;
		/* its own measurements at the near shapes */
		double sum = 0, wsum = 0, wall = 0;
		for (int s = 0; s < out->nnear; s++) {
			const struct predict_shape *sh = &out->near[s];
			const struct predict_obs *best = NULL;
			wall += weight(sh->distance);
			for (size_t k = 0; k < n; k++)
				if (same_problem(&obs[k].cfg, query) &&
				    same_shape(&obs[k].cfg, sh->m, sh->n, sh->k) &&
				    same_tunables(&obs[k].cfg, &cand.cfg) && obs[k].ms > 0 &&
				    (!best || obs[k].ms < best->ms))
					best = &obs[k];
			double lr = best ? log_ratio(pm, best) : NAN;
			if (!isfinite(lr))
				continue;
			sum += weight(sh->distance) * lr;
			wsum += weight(sh->distance);
			cand.support[cand.nsupport++] = (struct predict_support){
				s, place_at(obs, n, query, sh, best->ms), best->ms / sh->best_ms
			};
		}
		cand.coverage = wall > 0 ? wsum / wall : 0;
		cand.correction = exp(wsum > 0 ? sum / wsum : shape_lc);
		cand.predicted_ms = cand.model_ms * cand.correction;
		out->cand[out->count++] = cand;
	}
	qsort(out->cand, out->count, sizeof *out->cand, by_predicted);
	for (size_t i = 0; i < out->count; i++)
		out->cand[i].score = out->cand[i].predicted_ms / out->cand[0].predicted_ms;
	return FGO_OK;
}

void predict_free(struct predict_result *r)
{
	free(r->cand);
	memset(r, 0, sizeof *r);
}

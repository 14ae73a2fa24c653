/* world_copy.c: the Stream-K forms' comm CTAs' copy time (see
 * world_copy.h). */
#include "tune/world_copy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "fgo.h"
#include "model.h"

int world_copy_family(const struct fgo_config *cfg)
{
	const struct fgo_algo *a = algo_find(cfg->algorithm);
	return a && a->comm_ctas == FGO_COMM_CTAS_REQUIRED && cfg->comm_sms > 0 && a->link_bytes;
}

const char *world_fit_family(const struct fgo_config *cfg)
{
	const struct fgo_algo *a = algo_find(cfg->algorithm);
	/* the base family's mechanism on a Stream-K walk (world_copy.h) */
	const char *base = algo_base(a, cfg);
	return base && cfg->comm_sms == 0 ? base : cfg->algorithm;
}

int world_copy_pulls(const struct fgo_config *cfg)
{
	const struct fgo_algo *a = algo_find(cfg->algorithm);
	/* the all-reduce form's comm CTAs sum the W ranks' work areas: they
	 * read the peers' partials (sk_all_scatter's write into the peers) */
	return world_copy_family(cfg) && a->family && !strcmp(a->family, "all_reduce");
}

int world_copy_columns(const struct fgo_config *cfg, double x[WORLD_COPY_TERMS])
{
	memset(x, 0, sizeof(double) * WORLD_COPY_TERMS);
	if (!world_copy_family(cfg) || cfg->world < 2)
		return 0;
	double egress = (cfg->world - 1) * algo_find(cfg->algorithm)->link_bytes(cfg);
	double tile = (double)cfg->blk_m * (double)cfg->blk_n * (double)dtype_size(cfg->dtype);
	if (!(egress > 0) || !(tile > 0))
		return 0;
	/* ms at a coefficient of 1: us; ms per byte; per byte and CTA; per tile and CTA */
	x[WC_LAT] = 1e-3;
	x[WC_LINK] = egress;
	/* One CTA's terms at W: a CTA that pulls (world_copy_pulls) loads a
	 * tile from each of the W - 1 peers at once, independent remote
	 * round trips in flight together, so its rate grows with its peers:
	 * its share is one peer's bytes, E / (W - 1). A CTA that pushes posts
	 * its stores (no round trip to wait on): its rate is its issue rate
	 * at any W, its share the whole egress. The link term (c_link x E)
	 * sees every byte either way: it is what holds many fast CTAs back
	 * (the cap). At W = 2 (one peer) nothing changes. H100s, W = 2 -> 4:
	 * sk_all_reduce's comm-only times grew 1.1-2.1x (the copy as E /
	 * comm_sms said 3x; fitted at W = 2, 3 of its 45 runs at W = 4 came
	 * within 25%, with this 35); sk_all_scatter's stayed at E (the
	 * per-peer share said 0.68x of them, geomean). */
	double share = world_copy_pulls(cfg) ? egress / (cfg->world - 1) : egress;
	x[WC_CTA] = share / cfg->comm_sms;
	x[WC_TILE] = share / (cfg->comm_sms * tile);
	return 1;
}

int world_copy_fit(const struct fgo_config *cfg, const double *ms, size_t n,
		   struct world_copy *out)
{
	memset(out, 0, sizeof *out);
	double *x = malloc(sizeof *x * (n ? n : 1) * WORLD_COPY_TERMS),
	       *y = malloc(sizeof *y * (n ? n : 1));
	size_t k = 0;
	if (!x || !y) {
		free(x), free(y);
		return FGO_EFAIL;
	}
	for (size_t i = 0; i < n; i++)
		if (ms[i] > 0 && isfinite(ms[i]) && world_copy_columns(&cfg[i], x + k * WORLD_COPY_TERMS))
			y[k++] = ms[i];
	out->runs = k;
	/* the columns span 1e-3 to 1e8: scaled to one another so the solver
	 * sees comparable columns, the coefficients scaled back */
	double scale[WORLD_COPY_TERMS] = { 0 };
	for (size_t i = 0; i < k; i++)
		for (int t = 0; t < WORLD_COPY_TERMS; t++)
			scale[t] = fmax(scale[t], x[i * WORLD_COPY_TERMS + t]);
	for (size_t i = 0; i < k; i++)
		for (int t = 0; t < WORLD_COPY_TERMS; t++)
			x[i * WORLD_COPY_TERMS + t] /= scale[t] > 0 ? scale[t] : 1;
	/* too few runs for four terms: one CTA's rate alone (the term that
	 * says most: time as 1 / comm_sms) */
	if (k < WORLD_COPY_MIN_RUNS)
		for (size_t i = 0; i < k; i++)
			for (int t = 0; t < WORLD_COPY_TERMS; t++)
				if (t != WC_CTA)
					x[i * WORLD_COPY_TERMS + t] = 0;
	if (k > 0 && model_nnls(x, y, k, WORLD_COPY_TERMS, NULL, 0, out->coef) == FGO_OK) {
		for (int t = 0; t < WORLD_COPY_TERMS; t++)
			out->coef[t] /= scale[t] > 0 ? scale[t] : 1;
		struct world_copy now = *out;
		double sq = 0;
		now.fitted = 1;
		for (size_t i = 0; i < n; i++) {
			double p = world_copy_ms(&now, &cfg[i]);
			if (ms[i] > 0 && p > 0)
				sq += (p / ms[i] - 1) * (p / ms[i] - 1);
		}
		out->rms_rel_err = sqrt(sq / (double)k);
		out->fitted = 1;
	} else {
		memset(out->coef, 0, sizeof out->coef);
	}
	free(x), free(y);
	return FGO_OK;
}

double world_copy_ms(const struct world_copy *c, const struct fgo_config *cfg)
{
	double x[WORLD_COPY_TERMS], t = 0;
	if (!c->fitted || !world_copy_columns(cfg, x))
		return 0;
	for (int i = 0; i < WORLD_COPY_TERMS; i++)
		t += c->coef[i] * x[i];
	return t > 0 ? t : 0;
}

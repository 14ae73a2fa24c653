/* predict_world.c: a fused family at W ranks from one GPU's measurements,
 * and the multi-GPU terms fitted to runs at W (see predict_world.h for
 * the model). */
#include "tune/predict_world.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "fgo.h"
#include "model.h"
#include "tune/world_copy.h"

const char *const world_term_names[WORLD_TERMS] = { "gemm", "link", "tile", "wait", "reduce",
						     "latency", "share" };

int predict_world_gemm_shape(const struct fgo_config *cfg, long *m, long *n, long *k)
{
	const struct fgo_algo *algo = algo_find(cfg->algorithm);
	struct fgo_gemm_dims d;
	if (!algo)
		return 0;
	algo_gemm_dims(algo, cfg, &d);
	*m = (long)d.blocks * d.m;
	*n = d.n;
	*k = d.k;
	return 1;
}

/* Elements a rank adds up (W partials each) after the exchange. */
static double reduced_elements(const struct fgo_config *cfg)
{
	double mn = (double)cfg->m * (double)cfg->n;
	/* a Stream-K form reduces as its base does at this W */
	const char *base = algo_base(algo_find(cfg->algorithm), cfg);
	const char *as = base ? base : cfg->algorithm;
	if (!strcmp(as, "all_reduce_one_shot"))
		return cfg->world * mn;
	if (!strcmp(as, "all_reduce_two_shot") || !strcmp(as, "reduce_scatter"))
		return mn; /* W partials of M x N / W */
	return 0;
}

/* The baseline collective's egress per rank (a ring at W ranks). */
static double collective_bytes(const struct fgo_config *cfg)
{
	const struct fgo_algo *algo = algo_find(cfg->algorithm);
	double w = cfg->world, elt = (double)dtype_size(cfg->dtype);
	double c = (double)cfg->m * (double)cfg->n * elt, a = (double)cfg->m * (double)cfg->k * elt;
	switch (algo ? algo->space : FGO_SPACE_B_COLS) {
	case FGO_SPACE_K: return 2 * (w - 1) / w * c;   /* all-reduce of C */
	case FGO_SPACE_K_ROWS: return (w - 1) / w * c;  /* reduce-scatter of C */
	case FGO_SPACE_A_ROWS: return (w - 1) / w * a;  /* all-gather of A, before */
	default: return (w - 1) / w * c;                /* all-gather of C */
	}
}

int predict_world(const struct fgo_config *cfg, const struct world_inputs *in,
		  struct world_prediction *out)
{
	struct world_obs o;
	double c[WORLD_TERMS];
	memset(out, 0, sizeof *out);
	if (in->coef)
		memcpy(c, in->coef, sizeof c);
	else
		world_coef_default(in->link_gbps, in->mem_gbps, c);
	if (cfg->world < 1 || !(in->gemm_ms > 0) || !world_obs_of(cfg, in->gemm_ms, in->units, &o))
		return 0;
	/* a rate the family needs and nobody knows: no prediction, not a wrong
	 * one (a fitted coefficient of 0 is known: the runs saw no cost) */
	if (!in->coef &&
	    ((o.egress > 0 && !(c[WT_LINK] > 0)) || (o.reduced > 0 && !(c[WT_REDUCE] > 0))))
		return 0;
	o.copy_ms = in->copy_ms > 0 ? in->copy_ms : 0;
	out->comm_bytes = o.egress;
	out->comm_ms = world_link_ms(&o, c);
	out->reduce_ms = c[WT_REDUCE] * o.reduced * 1e-6;
	out->fused_ms = world_time(&o, c);
	out->collective_bytes = cfg->world > 1 ? collective_bytes(cfg) : 0;
	/* the ring at the link's ceiling, else at the fitted rate (a link fitted
	 * as free leaves the ring nothing to say: 0) */
	double ring_gbps = in->link_gbps > 0		   ? in->link_gbps
			   : c[WT_LINK] > 0 && !(o.copy_ms > 0) ? 1 / c[WT_LINK]
								: 0;
	out->collective_ms = in->collective_ms > 0 ? in->collective_ms
			     : ring_gbps > 0 ? out->collective_bytes * 1e3 / (ring_gbps * 1e9)
					     : 0;
	out->baseline_ms = in->gemm_ms + out->collective_ms;
	out->speedup = out->baseline_ms / out->fused_ms;
	return 1;
}

/* ---- the fitted terms ---- */

long world_units(const struct fgo_config *cfg)
{
	const struct fgo_algo *algo = algo_find(cfg->algorithm);
	struct fgo_gemm_dims d;
	if (!algo || cfg->blk_m < 1 || cfg->blk_n < 1)
		return 1;
	algo_gemm_dims(algo, cfg, &d);
	long u = (long)d.blocks * ((d.m + cfg->blk_m - 1) / cfg->blk_m) *
		 ((d.n + cfg->blk_n - 1) / cfg->blk_n);
	/* the Stream-K forms: what stays exposed is a share of the shorter
	 * side (c_tile), not one tile of it: their comm CTAs start on a tile
	 * only once all its Stream-K pieces are summed, so the overlap is
	 * lost in bursts (per tile the fit said 75x a tile, and at 128 rows
	 * 26 us too much) */
	if (world_copy_family(cfg))
		u = 1;
	return u > 0 ? u : 1;
}

int world_obs_of(const struct fgo_config *cfg, double gemm_ms, long units, struct world_obs *o)
{
	const struct fgo_algo *algo = algo_find(cfg->algorithm);
	memset(o, 0, sizeof *o);
	if (!algo || !algo->link_bytes)
		return 0;
	o->gemm_ms = gemm_ms;
	o->egress = cfg->world > 1 ? (cfg->world - 1) * algo->link_bytes(cfg) : 0;
	o->reduced = reduced_elements(cfg) * (double)dtype_size(cfg->dtype);
	o->units = units > 0 ? units : 1;
	/* the Stream-K forms' exposed wait is one tile's (predict_world.h) */
	if (world_copy_family(cfg) && cfg->blk_m > 0 && cfg->blk_n > 0) {
		struct fgo_gemm_dims d;
		algo_gemm_dims(algo, cfg, &d);
		if (d.k > 0)
			o->wait_basis = 1e-3 * ((double)cfg->blk_m * (double)cfg->blk_n * (double)d.k) /
					(128.0 * 128.0 * 8192.0);
	}
	return 1;
}

double world_wait_basis(const struct world_obs *o)
{
	return o->wait_basis > 0 ? o->wait_basis : 1e-3;
}

void world_coef_default(double link_gbps, double mem_gbps, double c[WORLD_TERMS])
{
	c[WT_GEMM] = 1;
	c[WT_LINK] = link_gbps > 0 ? 1 / link_gbps : 0;
	c[WT_TILE] = 1;
	c[WT_WAIT] = 0;
	c[WT_REDUCE] = mem_gbps > 0 ? 1 / mem_gbps : 0;
	c[WT_LATENCY] = 0;
	c[WT_SHARE] = 0;
}

double world_link_basis(const struct world_obs *o)
{
	return o->copy_ms > 0 ? o->copy_ms : o->egress * 1e-6;
}

double world_latency_basis(const struct world_obs *o)
{
	return o->egress > 0 && !(o->copy_ms > 0) ? 1e-3 : 0;
}

double world_link_ms(const struct world_obs *o, const double c[WORLD_TERMS])
{
	return c[WT_LINK] * world_link_basis(o) + c[WT_LATENCY] * world_latency_basis(o);
}

/* The GEMM side and the link side of o under c, in ms. */
static void sides(const struct world_obs *o, const double c[WORLD_TERMS], double *gemm,
		  double *link)
{
	*gemm = c[WT_GEMM] * o->gemm_ms;
	*link = world_link_ms(o, c);
}

/* The shorter side as the exposed part sees it, ms: the GEMM's g, or
 * the link's bytes at its rate (its latency is paid once, not a tile's
 * share of it). */
static double shorter(const struct world_obs *o, const double c[WORLD_TERMS], double g)
{
	return fmin(g, c[WT_LINK] * world_link_basis(o));
}

/* The share term's basis of o: its shorter side, or 0 for a Stream-K
 * form's (its units are 1 already: the tile term is its share). */
static double share_basis(const struct world_obs *o, double shorter_ms)
{
	return o->copy_ms > 0 ? 0 : shorter_ms;
}

double world_time(const struct world_obs *o, const double c[WORLD_TERMS])
{
	double g, l;
	sides(o, c, &g, &l);
	double s = shorter(o, c, g);
	return fmax(g, l) + c[WT_TILE] * s / (double)(o->units > 0 ? o->units : 1) +
	       c[WT_SHARE] * share_basis(o, s) + c[WT_WAIT] * world_wait_basis(o) +
	       c[WT_REDUCE] * o->reduced * 1e-6;
}

void world_errors_of(const struct world_obs *o, size_t n, const double c[WORLD_TERMS],
		     struct world_errors *out)
{
	double sq = 0;
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < n; i++) {
		double ratio = world_time(&o[i], c) / o[i].ms;
		sq += (ratio - 1) * (ratio - 1);
		out->max_rel_err = fmax(out->max_rel_err, fabs(ratio - 1));
		out->ratio_lo = i ? fmin(out->ratio_lo, ratio) : ratio;
		out->ratio_hi = i ? fmax(out->ratio_hi, ratio) : ratio;
	}
	out->runs = n;
	out->rms_rel_err = n ? sqrt(sq / (double)n) : 0;
}

/* The comm-only runs of o the fit takes as rows of their link side:
 * those timed (comm_ms > 0) that send at a rate (world_latency_basis).
 * Their indexes into idx (n of room); how many. */
static size_t comm_rows(const struct world_obs *o, size_t n, size_t *idx)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (o[i].comm_ms > 0 && isfinite(o[i].comm_ms) && world_latency_basis(&o[i]) > 0)
			idx[k++] = i;
	return k;
}

/* The rows of the linear problem under c (each run's longer side known):
 * x (n + ncomm) x WORLD_TERMS, the n runs' fused times, then the link
 * side of the ncomm runs comm[] names against their comm-only times; a
 * column used by fewer than 2 rows is zeroed (the term keeps def's
 * coefficient) and its bit left out of *used. Returns how many runs
 * changed side from side[] (updated). */
static size_t rows_under(const struct world_obs *o, size_t n, const size_t *comm, size_t ncomm,
			 const double c[WORLD_TERMS], double *x, unsigned char *side, unsigned *used)
{
	size_t flips = 0, nonzero[WORLD_TERMS] = { 0 };
	for (size_t i = 0; i < n; i++) {
		double g, l, *row = x + i * WORLD_TERMS;
		sides(&o[i], c, &g, &l);
		unsigned char s = l > g; /* 1: the link is the longer side */
		flips += s != side[i];
		side[i] = s;
		row[WT_GEMM] = s ? 0 : o[i].gemm_ms;
		row[WT_LINK] = s ? world_link_basis(&o[i]) : 0;
		row[WT_LATENCY] = s ? world_latency_basis(&o[i]) : 0;
		double sh = shorter(&o[i], c, g);
		row[WT_TILE] = sh / (double)(o[i].units > 0 ? o[i].units : 1);
		row[WT_SHARE] = share_basis(&o[i], sh);
		row[WT_WAIT] = world_wait_basis(&o[i]);
		row[WT_REDUCE] = o[i].reduced * 1e-6;
	}
	for (size_t j = 0; j < ncomm; j++) {
		double *row = x + (n + j) * WORLD_TERMS;
		memset(row, 0, sizeof *row * WORLD_TERMS);
		row[WT_LINK] = world_link_basis(&o[comm[j]]);
		row[WT_LATENCY] = world_latency_basis(&o[comm[j]]);
	}
	for (size_t i = 0; i < n + ncomm; i++)
		for (int t = 0; t < WORLD_TERMS; t++)
			nonzero[t] += x[i * WORLD_TERMS + t] > 0;
	*used = 0;
	for (int t = 0; t < WORLD_TERMS; t++) {
		if (nonzero[t] >= 2) {
			*used |= 1u << t;
			continue;
		}
		for (size_t i = 0; i < n + ncomm; i++)
			x[i * WORLD_TERMS + t] = 0;
	}
	return flips;
}

/* The rms relative error of c on the n runs' fused times and the ncomm
 * comm-only times comm[] names (the fit's objective). */
static double fit_rms(const struct world_obs *o, size_t n, const size_t *comm, size_t ncomm,
		      const double c[WORLD_TERMS])
{
	double sq = 0;
	for (size_t i = 0; i < n; i++) {
		double e = world_time(&o[i], c) / o[i].ms - 1;
		sq += e * e;
	}
	for (size_t j = 0; j < ncomm; j++) {
		double e = world_link_ms(&o[comm[j]], c) / o[comm[j]].comm_ms - 1;
		sq += e * e;
	}
	return n + ncomm ? sqrt(sq / (double)(n + ncomm)) : 0;
}

/* The alternation from c (in: the start; out: where it settled); the
 * rms relative error there (fit_rms). ms: the n fused times, then the
 * ncomm comm-only times. */
static double settle(const struct world_obs *o, size_t n, const size_t *comm, size_t ncomm,
		     const double def[WORLD_TERMS], const double lo[WORLD_TERMS], double *x,
		     unsigned char *side, double *ms, double c[WORLD_TERMS], unsigned *used)
{
	memset(side, 2, n); /* neither: the first pass counts every run as moved */
	for (int it = 0; it < 100; it++) {
		double next[WORLD_TERMS], moved = 0;
		size_t flips = rows_under(o, n, comm, ncomm, c, x, side, used);
		if (model_nnls_box(x, ms, n + ncomm, WORLD_TERMS, def, 0, lo, next) != FGO_OK)
			break;
		for (int t = 0; t < WORLD_TERMS; t++) {
			moved = fmax(moved, fabs(next[t] - c[t]) / fmax(fabs(c[t]), 1e-30));
			c[t] = next[t];
		}
		if (!flips && moved < 1e-10)
			break;
	}
	rows_under(o, n, comm, ncomm, c, x, side, used);
	return fit_rms(o, n, comm, ncomm, c);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median of v[0..n) (sorted in place); 0 when n is 0. */
static double median(double *v, size_t n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int world_fit(const struct world_obs *o, size_t n, const double ceil[WORLD_TERMS],
	      struct world_fit *out)
{
	double def[WORLD_TERMS], lo[WORLD_TERMS] = { 0 };
	int copy = 0;
	memset(out, 0, sizeof *out);
	if (n == 0)
		return FGO_EUSAGE;
	memcpy(def, ceil, sizeof def);
	for (size_t i = 0; i < n; i++) {
		if (!(o[i].ms > 0) || !isfinite(o[i].ms) || !(o[i].gemm_ms > 0))
			return FGO_EUSAGE;
		/* a Stream-K form's link side is its copy time: its default
		 * factor 1, the comm-only time as it is */
		copy |= o[i].copy_ms > 0;
	}
	if (copy)
		def[WT_LINK] = 1;
	/* the Stream-K forms' GEMM CTAs are the GEMM timed alone (same
	 * gemm_sms): their side is no faster than it. Unbounded, their fit
	 * traded the GEMM's factor (0.8) for a wait of 40-50 us, which
	 * the small shapes it never saw then paid in full */
	if (copy)
		lo[WT_GEMM] = 1;
	/* the reduction's reads are no faster than memory: c_reduce at least
	 * the ceiling's 1 / mem_gbps (def's; 0 where unknown: no bound). The
	 * runs' reductions hide partly behind the shapes they cover, and a
	 * fit beneath the ceiling (reduce_scatter 8.9 TB/s, sk_all_reduce 0 on
	 * four H100s at W=2, 2.8 TB/s the ceiling) priced the largest C per
	 * FLOP they never saw (4096 x 14336 x 4096 held out) 12-17% short */
	lo[WT_REDUCE] = def[WT_REDUCE];
	double *x = malloc(sizeof *x * 2 * n * WORLD_TERMS), *ms = malloc(sizeof *ms * 2 * n),
	       *v = malloc(sizeof *v * n);
	unsigned char *side = malloc(n);
	size_t *comm = malloc(sizeof *comm * n);
	if (!x || !ms || !v || !side || !comm) {
		free(x), free(ms), free(v), free(side), free(comm);
		return FGO_EFAIL;
	}
	const size_t ncomm = comm_rows(o, n, comm);
	/* the starts of the link's ms per ms at 1 GB/s: the ceiling's, what
	 * the comm-only runs achieved, what the fused times allow were they
	 * all link-bound, and a quarter of that */
	double starts[6];
	int nstarts = 0;
	size_t k = 0;
	if (def[WT_LINK] > 0)
		starts[nstarts++] = def[WT_LINK];
	for (size_t i = 0; i < n; i++)
		if (o[i].comm_ms > 0 && o[i].egress > 0)
			v[k++] = o[i].comm_ms / world_link_basis(&o[i]);
	if (k)
		starts[nstarts++] = median(v, k);
	/* the comm-only runs' rate by bytes (the large transfers decide it;
	 * a small one's time is latency) */
	double comm_ms = 0, comm_bytes = 0;
	for (size_t i = 0; i < n; i++)
		if (o[i].comm_ms > 0 && o[i].egress > 0) {
			comm_ms += o[i].comm_ms;
			comm_bytes += world_link_basis(&o[i]);
		}
	double comm_rate = comm_bytes > 0 ? comm_ms / comm_bytes : 0;
	k = 0;
	for (size_t i = 0; i < n; i++) {
		ms[i] = o[i].ms;
		if (o[i].egress > 0)
			v[k++] = o[i].ms / world_link_basis(&o[i]);
	}
	for (size_t j = 0; j < ncomm; j++)
		ms[n + j] = o[comm[j]].comm_ms;
	/* the link side the comm-only runs alone say (rate and latency): a
	 * start of the rate, and every start's latency */
	double lat0 = 0;
	if (ncomm >= 2) {
		double two[2], *xc = x + n * WORLD_TERMS;
		for (size_t j = 0; j < ncomm; j++) {
			xc[2 * j] = world_link_basis(&o[comm[j]]);
			xc[2 * j + 1] = world_latency_basis(&o[comm[j]]);
		}
		if (model_nnls_box(xc, ms + n, ncomm, 2, NULL, 0, NULL, two) == FGO_OK &&
		    two[0] > 0 && nstarts < 5) {
			starts[nstarts++] = two[0];
			lat0 = two[1];
		}
	}
	if (k) {
		double all_link = median(v, k);
		starts[nstarts++] = all_link;
		starts[nstarts++] = all_link / 4;
	}
	if (nstarts == 0)
		starts[nstarts++] = 0; /* no egress anywhere: the GEMM side only */
	double best = INFINITY;
	for (int s = 0; s < nstarts; s++) {
		double c[WORLD_TERMS];
		unsigned used;
		memcpy(c, def, sizeof c);
		c[WT_GEMM] = 1;
		c[WT_LINK] = starts[s];
		c[WT_LATENCY] = lat0;
		double rms = settle(o, n, comm, ncomm, def, lo, x, side, ms, c, &used);
		if (rms < best) {
			best = rms;
			memcpy(out->coef, c, sizeof c);
			out->fitted = used;
		}
	}
	/* every run on the GEMM side: the fused times cannot say the link's
	 * rate, but the comm-only times measured it for this family (the same
	 * pattern, GEMM compiled out): a link-bound shape later is priced at
	 * that rate rather than at a ceiling, or free */
	if (!(out->fitted & (1u << WT_LINK)) && comm_rate > 0) {
		/* no slower than the fused runs allow: each stayed on the GEMM
		 * side, so its link took at most its GEMM's time (the Stream-K
		 * forms' own comm CTAs beat their comm-only pattern) */
		double bound = INFINITY;
		for (size_t i = 0; i < n; i++)
			if (o[i].egress > 0)
				bound = fmin(bound, out->coef[WT_GEMM] * o[i].gemm_ms / world_link_basis(&o[i]));
		out->coef[WT_LINK] = fmin(comm_rate, bound);
		out->fitted |= 1u << WT_LINK;
	}
	free(x), free(ms), free(v), free(side), free(comm);
	struct world_errors e;
	world_errors_of(o, n, out->coef, &e);
	out->runs = n;
	out->rms_rel_err = e.rms_rel_err;
	out->max_rel_err = e.max_rel_err;
	return FGO_OK;
}

void world_coef_at(const struct world_fit *fits, int n, int world, const double def[WORLD_TERMS],
		   struct world_coef *out)
{
	for (int t = 0; t < WORLD_TERMS; t++) {
		int best = -1;
		for (int i = 0; i < n; i++) {
			if (!(fits[i].fitted & (1u << t)))
				continue;
			int d = abs(fits[i].world - world), bd = best < 0 ? 0 : abs(fits[best].world - world);
			if (best < 0 || d < bd || (d == bd && fits[i].world < fits[best].world))
				best = i;
		}
		out->c[t] = best < 0 ? def[t] : fits[best].coef[t];
		out->from[t] = best < 0 ? 0 : fits[best].world;
	}
}

/* Whether term t of r goes unsaid: the latency and the share where no
 * fit pinned them (0, from no ceiling: a fit from before schema 9, or
 * runs without comm-only times, reads as it did). */
static int quiet(const struct world_coef *r, int t)
{
	return (t == WT_LATENCY || t == WT_SHARE) && r->from[t] == 0 && r->c[t] == 0;
}

void world_coef_text(const struct world_coef *r, int world, unsigned absent, char *out,
		     size_t len)
{
	size_t at = 0;
	int said[WORLD_TERMS] = { 0 };
	out[0] = 0;
	/* one clause per source: this W, each other W ascending, the ceilings */
	for (int pass = 0; pass < 3; pass++) {
		for (int src = -1;;) {
			/* the next source of this pass not said yet */
			int next = -1;
			for (int t = 0; t < WORLD_TERMS; t++) {
				int f = r->from[t];
				if (said[t] || (absent & (1u << t)) || quiet(r, t))
					continue;
				int fits_pass = pass == 0 ? f == world : pass == 1 ? f && f != world : !f;
				if (fits_pass && (next < 0 || f < next) && f > src)
					next = f;
			}
			if (next < 0)
				break;
			src = next;
			const char *sep = at ? "; " : "";
			for (int t = 0; t < WORLD_TERMS; t++) {
				if (said[t] || (absent & (1u << t)) || quiet(r, t) || r->from[t] != src)
					continue;
				at += (size_t)snprintf(out + at, at < len ? len - at : 0, "%s%s", sep,
						       world_term_names[t]);
				sep = ", ";
				said[t] = 1;
			}
			if (pass == 0)
				at += (size_t)snprintf(out + at, at < len ? len - at : 0, " fitted at W=%d",
						       world);
			else if (pass == 1)
				at += (size_t)snprintf(out + at, at < len ? len - at : 0,
						       " extrapolated from W=%d", src);
			else
				at += (size_t)snprintf(out + at, at < len ? len - at : 0,
						       " from the ceilings (not fitted)");
		}
	}
	/* (no latency or share: said by "no link term", or a Stream-K form's
	 * copy time, which has both) */
	for (int t = 0; t < WORLD_TERMS; t++)
		if ((absent & (1u << t)) && t != WT_LATENCY && t != WT_SHARE)
			at += (size_t)snprintf(out + at, at < len ? len - at : 0, "%sno %s term",
					       at ? "; " : "", world_term_names[t]);
}

/* predict_world_view.c: `fgobench best --predict --world W`: every fused
 * family at W ranks (see predict_view.h): the per-rank GEMM from the store
 * (measured at W=1, or the cost model's best), the multi-GPU terms as
 * fitted to the stored runs at W, or at the nearest W, or from the
 * ceilings (src/tune/world_refit.h says which), the vendor baseline from
 * calibrate's collective curve; printed with where each came from and the
 * model's error on the stored runs at W, and stored. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "cmd/cmd.h"
#include "cmd/predict_view.h"
#include "fgo.h"
#include "run/runner.h"
#include "tune/model_refit.h"
#include "tune/world_copy.h"
#include "tune/world_refit.h"
#include "views/views.h"

/* The machine whose gemm runs at W=1 (of dtype, when given) are newest:
 * FGO_OK with host, backend and dtype set, FGO_EUSAGE when none. */
static int world_machine(struct fgo_store *store, const char *dtype, char *host, size_t hlen,
			 char *backend, size_t blen, char *dt, size_t dlen)
{
	sqlite3_stmt *st;
	if (view_prepare(store,
			 "SELECT s.host, s.backend, r.dtype FROM runs r JOIN sweeps s ON s.id = r.sweep_id"
			 " WHERE r.algorithm = 'gemm' AND r.world = 1 AND r.status = 'ok'"
			 " AND r.t_fused_ms > 0 AND (?1 IS NULL OR r.dtype = ?1) ORDER BY r.id DESC LIMIT 1",
			 &st))
		return FGO_EFAIL;
	if (dtype)
		sqlite3_bind_text(st, 1, dtype, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st) == SQLITE_ROW ? FGO_OK : FGO_EUSAGE;
	if (rc == FGO_OK) {
		view_text(st, 0, host, hlen);
		view_text(st, 1, backend, blen);
		view_text(st, 2, dt, dlen);
	}
	sqlite3_finalize(st);
	return rc;
}

/* The link rate of the machine at world ranks and what it is: the egress
 * calibrate measured at W with every rank sending to all its peers at
 * once ("egress", what the model's egress term means) or what --link-bw
 * stated, the newer of the two, else the slowest pair's measured link_bw;
 * 0 when none. */
static double world_link(struct fgo_store *store, const char *host, const char *backend,
			 int world, char *source, size_t len)
{
	sqlite3_stmt *st;
	double v = 0;
	char egress[32];
	ceilings_egress_detail(world, egress, sizeof egress);
	snprintf(source, len, "none");
	if (view_prepare(store,
			 "SELECT value, unit, detail FROM ceilings WHERE machine = ?1 AND backend = ?2"
			 " AND what = 'link_bw' AND detail IN ('', ?3)"
			 " ORDER BY (detail <> '' OR unit LIKE '%stated%') DESC, measured_at DESC, id DESC"
			 " LIMIT 1",
			 &st))
		return 0;
	sqlite3_bind_text(st, 1, host, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, backend, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, egress, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *unit = (const char *)sqlite3_column_text(st, 1);
		const char *detail = (const char *)sqlite3_column_text(st, 2);
		v = sqlite3_column_double(st, 0);
		snprintf(source, len, "%s", detail && *detail ? "egress"
					    : unit && strstr(unit, "stated") ? "stated" : "measured");
	}
	sqlite3_finalize(st);
	return v;
}

/* The best measured time (and its tile) of algorithm at a shape, world
 * and dtype on the machine, from runs that did not share a GPU; 0 when
 * none. With baseline, the best measured baseline too. */
static double world_measured(struct fgo_store *store, const char *host, const char *backend,
			     const char *algorithm, const char *dtype, int world, long m, long n,
			     long k, int *blk_m, int *blk_n, double *baseline)
{
	sqlite3_stmt *st;
	double v = 0;
	if (view_prepare(store,
			 "SELECT r.t_fused_ms, r.blk_m, r.blk_n,"
			 " (SELECT min(x.t_baseline_ms) FROM runs x JOIN sweeps y ON y.id = x.sweep_id"
			 "  WHERE x.algorithm = r.algorithm AND x.dtype = r.dtype AND x.world = r.world"
			 "  AND x.m = r.m AND x.n = r.n AND x.k = r.k AND x.status = 'ok'"
			 "  AND y.host = s.host AND y.backend = s.backend AND x.t_baseline_ms > 0)"
			 " FROM runs r JOIN sweeps s ON s.id = r.sweep_id"
			 " WHERE r.algorithm = ?3 AND r.dtype = ?4 AND r.world = ?5 AND r.m = ?6 AND r.n = ?7"
			 " AND r.k = ?8 AND r.status = 'ok' AND r.t_fused_ms > 0 AND s.host = ?1"
			 " AND s.backend = ?2 AND NOT (s.devices LIKE '%x %' AND s.mpi_ranks >"
			 "  CAST(substr(s.devices, 1, instr(s.devices, 'x ') - 1) AS INTEGER))"
			 " ORDER BY r.t_fused_ms LIMIT 1",
			 &st))
		return 0;
	sqlite3_bind_text(st, 1, host, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, backend, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, algorithm, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, dtype, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 5, world);
	sqlite3_bind_int64(st, 6, m);
	sqlite3_bind_int64(st, 7, n);
	sqlite3_bind_int64(st, 8, k);
	if (sqlite3_step(st) == SQLITE_ROW) {
		v = sqlite3_column_double(st, 0);
		*blk_m = sqlite3_column_int(st, 1);
		*blk_n = sqlite3_column_int(st, 2);
		if (baseline)
			*baseline = sqlite3_column_double(st, 3);
	}
	sqlite3_finalize(st);
	return v;
}

/* Whether a stored fit of any family on the machine pinned the link's rate. */
static int fitted_link(struct fgo_store *store, const char *host, const char *backend)
{
	sqlite3_stmt *st;
	int n = 0;
	if (view_prepare(store,
			 "SELECT count(*) FROM world_fits WHERE machine = ?1 AND backend = ?2"
			 " AND (' ' || fitted || ' ') LIKE '% link %'",
			 &st))
		return 0;
	sqlite3_bind_text(st, 1, host, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, backend, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n > 0;
}

/* The per-rank GEMM's time: measured at that shape, else the cost model's
 * best candidate there. 0 (why in source) when neither can say. */
static double world_gemm(struct fgo_store *store, const char *host, const char *backend,
			 const char *dtype, long m, long n, long k, long *units, char *source,
			 size_t slen)
{
	int bm = 0, bn = 0;
	double ms = world_measured(store, host, backend, "gemm", dtype, 1, m, n, k, &bm, &bn, NULL);
	if (ms > 0) {
		*units = ((m + bm - 1) / bm) * ((n + bn - 1) / bn);
		snprintf(source, slen, "measured");
		return ms;
	}
	ms = predict_gemm_model_ms(store, dtype, m, n, k, units);
	snprintf(source, slen, "%s", ms > 0 ? "model" : "none");
	return ms;
}

/* What one family's row needs beside predict_world's numbers. */
struct family_row {
	struct world_model model;
	char baseline_from[160];
};

/* The baseline's collective of cfg from the curves (in->collective_ms),
 * and what it came from. */
static void family_baseline(const struct fgo_config *cfg, const char *backend,
			    const struct coll_curve *curves, int ncurves, struct world_inputs *in,
			    char *from, size_t len)
{
	enum fgo_collective kind;
	double bytes;
	/* the CPU baselines sum in fp32 (MPI_FLOAT); the GPU's in the dtype */
	size_t sum_elt = strcmp(backend, "cpu") ? dtype_size(cfg->dtype) : 4;
	snprintf(from, len, "-");
	if (!algo_collective(cfg, sum_elt, &kind, &bytes))
		return;
	struct coll_estimate e;
	coll_estimate(curves, ncurves, kind, cfg->world, bytes, &e);
	coll_estimate_text(&e, kind, cfg->world, bytes, from, len);
	if (e.found && e.seconds > 0)
		in->collective_ms = e.seconds * 1e3;
}

/* One note per family: where its terms came from, the baseline's, and
 * its error on the stored runs at W. */
static void family_note(const char *algorithm, int world, const struct family_row *r)
{
	char err[192];
	const struct world_errors *e = &r->model.err;
	if (e->runs)
		snprintf(err, sizeof err,
			 "error on its %zu stored ok runs at W=%d: rms %.1f%%, max %.1f%%"
			 " (predicted / measured %.2f to %.2f)",
			 e->runs, world, 100 * e->rms_rel_err, 100 * e->max_rel_err, e->ratio_lo,
			 e->ratio_hi);
	else
		snprintf(err, sizeof err, "no stored ok runs at W=%d to judge it on", world);
	note("%s at W=%d: %s; baseline: %s; %s", algorithm, world, r->model.terms, r->baseline_from,
	     err);
}

/* The family's configurations stored at cfg's W ranked at cfg's shape
 * (world_rank.h; c_base: the base family's terms for those that
 * world_fit_family gives it, NULL when none): the first into *top, how
 * many in *ranked (0: none stored, or no cost model to say their GEMMs). */
static int family_rank(struct fgo_store *store, const char *host, const char *backend,
		       const struct fgo_config *cfg, const struct world_gemm_model *gm,
		       const double c[WORLD_TERMS], const double *c_base, struct world_cand *top,
		       size_t *ranked, int *from_world, char *err, size_t len)
{
	struct world_run *runs = NULL;
	struct world_cand *cand = NULL;
	size_t n = 0;
	*ranked = 0;
	if (!gm->ncores)
		return FGO_OK;
	/* none stored at W: those of the nearest smaller W, ranked at W
	 * (their corrections carried over: extrapolated) */
	int rc = FGO_OK;
	for (*from_world = cfg->world; rc == FGO_OK && !n && *from_world > 1; (*from_world)--)
		rc = world_runs_load(store, host, backend, cfg->algorithm, *from_world, &runs, &n, err,
				     len);
	(*from_world)++;
	if (rc == FGO_OK && n && (rc = world_rank(runs, n, cfg, gm, c, c_base, &cand, ranked)) != FGO_OK)
		snprintf(err, len, "out of memory ranking the configurations of %s", cfg->algorithm);
	if (rc == FGO_OK && *ranked)
		*top = cand[0];
	free(runs);
	free(cand);
	return rc;
}

int predict_world_view(const struct predict_view_opts *o)
{
	struct fgo_store *store = NULL;
	char host[128], backend[32], dtype[8], link_source[16], err[512];
	struct coll_curve curves[COLL_CURVES_MAX];
	int ncurves = 0;
	int rc = store_open(cmd_db_path(o->db), FGO_STORE_WRITE, &store, err, sizeof err);
	if (rc != FGO_OK) {
		error("%s", err);
		return rc;
	}
	if ((rc = world_machine(store, o->dtype, host, sizeof host, backend, sizeof backend, dtype,
				sizeof dtype)) != FGO_OK) {
		if (rc == FGO_EUSAGE)
			error("no ok gemm runs at W=1%s%s to predict from: sweep the per-rank GEMMs on"
			      " one GPU first (M x N/W x K, or K/W)",
			      o->dtype ? " of " : "", o->dtype ? o->dtype : "");
		goto out;
	}
	struct model_machine mach;
	double link = world_link(store, host, backend, o->world, link_source, sizeof link_source);
	if ((rc = model_machine_load(store, host, backend, &mach, err, sizeof err)) != FGO_OK ||
	    (rc = world_curves_load(store, host, backend, curves, COLL_CURVES_MAX, &ncurves, err,
				    sizeof err)) != FGO_OK) {
		error("%s", err);
		goto out;
	}
	struct world_gemm_model gmodel;
	if ((rc = world_gemm_model_load(store, host, backend, &gmodel, err, sizeof err)) != FGO_OK) {
		error("%s", err);
		goto out;
	}
	if (!(link > 0) && !fitted_link(store, host, backend)) {
		error("no link bandwidth of %s (%s backend) is stored and no runs at W > 1 are fitted:"
		      " `fgobench calibrate` measures it where a second GPU is, `fgobench calibrate"
		      " --fit --link-bw GB/S` states it (one GPU's egress to all its peers at once)",
		      host, backend);
		rc = FGO_EUSAGE;
		goto out;
	}
	static const char *const headers[] = {
		"algorithm", "W", "per-rank GEMM", "gemm_us", "gemm_from", "comm_MB", "comm_us",
		"reduce_us", "fused_us", "baseline_us", "speedup", "measured_fused_us",
		"measured_speedup", "fused_off", "terms", "baseline_from", "err_runs", "err_rms_pct",
		"err_max_pct", "top_config"
	};
	struct fgo_table *t = table_new((int)FGO_ARRAY_SIZE(headers), headers);
	int rows = 0, said = 0;
	for (const struct fgo_algo *const *a = fgo_algos; t && *a; a++) {
		if (!(*a)->needs_comm || (o->algorithm && strcmp(o->algorithm, (*a)->name)))
			continue;
		struct fgo_config cfg;
		char why[FGO_REASON_MAX], gsrc[16], shape[96];
		long gm, gn, gk, units = 1;
		config_defaults(&cfg);
		snprintf(cfg.algorithm, sizeof cfg.algorithm, "%s", (*a)->name);
		dtype_parse(dtype, &cfg.dtype);
		cfg.world = o->world;
		cfg.m = o->m;
		cfg.n = o->n;
		cfg.k = o->k;
		cfg.blk_m = cfg.blk_n = cfg.blk_k = 16;
		if ((*a)->comm_ctas == FGO_COMM_CTAS_REQUIRED)
			cfg.gemm_sms = cfg.comm_sms = 1;
		if (config_validate(&cfg, why, sizeof why)) {
			note("%s at W=%d: %s", cfg.algorithm, o->world, why);
			continue;
		}
		struct family_row fr;
		memset(&fr, 0, sizeof fr);
		if ((rc = world_model_load(store, host, backend, cfg.algorithm, o->world, link,
					   mach.mem_gbps, &fr.model, err, sizeof err)) != FGO_OK) {
			error("%s", err);
			break;
		}
		if (!said) {
			note("prediction, not a measurement: the fused families at W=%d, %s M=%ld N=%ld"
			     " K=%ld, from %s (%s backend): per-rank GEMMs measured there at W=1 (or the"
			     " cost model's best), each family's multi-GPU terms as its notes say, link"
			     " %.0f GB/s (%s), memory %.0f GB/s",
			     o->world, dtype, o->m, o->n, o->k, host, backend, link, link_source,
			     mach.mem_gbps);
			said = 1;
		}
		predict_world_gemm_shape(&cfg, &gm, &gn, &gk);
		double gemm = world_gemm(store, host, backend, dtype, gm, gn, gk, &units, gsrc, sizeof gsrc);
		snprintf(shape, sizeof shape, "%ldx%ldx%ld", gm, gn, gk);
		if (!(gemm > 0)) {
			note("%s at W=%d: the per-rank GEMM %s has no gemm run and no cost model to say"
			     " its time (sweep it, or `fgobench calibrate --fit`)",
			     cfg.algorithm, o->world, shape);
			continue;
		}
		/* a Stream-K form's configurations with comm_sms 0 are its base
		 * family's mechanism (world_fit_family): ranked with its terms */
		struct fgo_config plain = cfg;
		struct world_model base;
		const double *c_base = NULL;
		plain.comm_sms = 0;
		if (strcmp(world_fit_family(&plain), cfg.algorithm)) {
			if ((rc = world_model_load(store, host, backend, world_fit_family(&plain), o->world,
						   link, mach.mem_gbps, &base, err, sizeof err)) != FGO_OK) {
				error("%s", err);
				break;
			}
			c_base = base.coef.c;
		}
		struct world_inputs in = { gemm, link, mach.mem_gbps, units, fr.model.coef.c, 0, 0 };
		family_baseline(&cfg, backend, curves, ncurves, &in, fr.baseline_from,
				sizeof fr.baseline_from);
		struct world_prediction p;
		struct world_obs ob;
		struct world_cand top;
		size_t ranked = 0;
		int ranked_w = o->world;
		if ((rc = family_rank(store, host, backend, &cfg, &gmodel, fr.model.coef.c, c_base, &top,
				      &ranked, &ranked_w, err, sizeof err)) != FGO_OK) {
			error("%s", err);
			break;
		}
		/* the vendor sequence's GEMM is the vendor's on every SM: the
		 * per-rank GEMM's best (measured at W=1, or the model's), not
		 * the ranked configuration's (a Stream-K form's gives the comm
		 * CTAs their SMs: 6-16% slower) */
		double base_gemm = gemm;
		if (ranked) {
			/* the first of the family's configurations stored at W */
			cfg = top.cfg;
			in.gemm_ms = gemm = top.gemm_ms;
			in.units = world_units(&cfg);
			in.copy_ms = top.copy_ms;
			if (c_base && strcmp(world_fit_family(&cfg), cfg.algorithm))
				in.coef = c_base; /* its comm and reduce columns too */
			snprintf(gsrc, sizeof gsrc, "ranked");
		} else if (world_copy_family(&cfg)) {
			/* a Stream-K form with no configuration to rank: no comm-only
			 * time to scale, so its bytes at the link's ceiling */
			double c[WORLD_TERMS];
			memcpy(c, fr.model.coef.c, sizeof c);
			c[WT_LINK] = link > 0 ? 1 / link : 0;
			memcpy(fr.model.coef.c, c, sizeof c);
		}
		/* the link's coefficient from a ceiling nobody measured or stated
		 * (runs at W that left it unpinned saw it hidden: 0 stands) */
		int no_link = !ranked && fr.model.coef.from[WT_LINK] == 0 && !(link > 0) &&
			      world_obs_of(&cfg, gemm, units, &ob) && ob.egress > 0;
		if (no_link || !predict_world(&cfg, &in, &p)) {
			note("%s at W=%d: no link rate is known (no link_bw stored, no runs at W > 1"
			     " fitted): `fgobench calibrate` measures it where a second GPU is,"
			     " `fgobench calibrate --fit --link-bw GB/S` states it",
			     cfg.algorithm, o->world);
			continue;
		}
		char top_key[FGO_KEY_MAX] = "";
		if (ranked) {
			p.fused_ms = top.fused_ms;
			p.baseline_ms = base_gemm + p.collective_ms;
			p.speedup = p.baseline_ms / p.fused_ms;
			config_key(&top.cfg, top_key, sizeof top_key);
			note("%s at W=%d: %zu configuration%s stored at W=%d ranked here%s; first %s"
			     " (per-rank GEMM x%.2f, fused x%.2f from %s runs at the nearest shapes%s%s)",
			     cfg.algorithm, o->world, ranked, ranked == 1 ? "" : "s", ranked_w,
			     ranked_w != o->world ? " (extrapolated: none stored at this W)" : "", top_key,
			     top.k_gemm, top.k_fused, top.own ? "its own" : "the family's",
			     in.coef != fr.model.coef.c ? "; the terms of " : "",
			     in.coef != fr.model.coef.c ? world_fit_family(&cfg) : "");
		}
		family_note(cfg.algorithm, o->world, &fr);
		int bm, bn;
		double base_meas = 0;
		double meas = world_measured(store, host, backend, cfg.algorithm, dtype, o->world, o->m,
					     o->n, o->k, &bm, &bn, &base_meas);
		const struct world_errors *e = &fr.model.err;
		struct store_world_prediction row = {
			host, backend, cfg.algorithm, dtype, gsrc, link_source, o->world, o->m, o->n, o->k,
			gm, gn, gk, gemm, link, p.comm_bytes, p.comm_ms, p.reduce_ms, p.fused_ms,
			p.baseline_ms, p.speedup, meas, base_meas, fr.model.terms, fr.baseline_from,
			(long)e->runs, e->rms_rel_err, e->max_rel_err
		};
		if (store_world_prediction_put(store, &row, err, sizeof err) != FGO_OK)
			warning("the prediction was not stored: %s", err);
		table_add(t, "%s", cfg.algorithm);
		table_add(t, "%d", o->world);
		table_add(t, "%s", shape);
		table_add(t, "%.1f", gemm * 1e3);
		table_add(t, "%s", gsrc);
		table_add(t, "%.2f", p.comm_bytes / 1e6);
		table_add(t, "%.1f", p.comm_ms * 1e3);
		table_add(t, "%.1f", p.reduce_ms * 1e3);
		table_add(t, "%.1f", p.fused_ms * 1e3);
		table_add(t, "%.1f", p.baseline_ms * 1e3);
		table_add(t, "%.2f", p.speedup);
		if (meas > 0) {
			table_add(t, "%.1f", meas * 1e3);
			table_add(t, base_meas > 0 ? "%.2f" : "-", base_meas / meas);
			table_add(t, "%+.0f%%", (p.fused_ms / meas - 1) * 100);
		} else {
			table_add(t, "-");
			table_add(t, "-");
			table_add(t, "-");
		}
		table_add(t, "%s", fr.model.terms);
		table_add(t, "%s", fr.baseline_from);
		table_add(t, "%zu", e->runs);
		if (e->runs) {
			table_add(t, "%.1f", 100 * e->rms_rel_err);
			table_add(t, "%.1f", 100 * e->max_rel_err);
		} else {
			table_add(t, "-");
			table_add(t, "-");
		}
		table_add(t, "%s", top_key[0] ? top_key : "-");
		rows++;
	}
	if (!t) {
		rc = FGO_EFAIL;
		goto out;
	}
	if (rc != FGO_OK) {
		table_free(t);
		goto out;
	}
	if (rows == 0) {
		error("no fused family could be predicted at W=%d for this shape (see the notes)",
		      o->world);
		rc = FGO_EUSAGE;
	} else if (o->format == FGO_FMT_TABLE && !o->wide) {
		/* 120 columns: W is in the note above; the bytes, the reduction,
		 * the measured speedup, the terms' sources and the errors are in
		 * the notes, --wide, csv and json */
		static const int cols[] = { 0, 2, 3, 4, 6, 8, 9, 10, 11, 13 };
		static const char *const names[] = { NULL, NULL, NULL, "from", NULL,
						     NULL, NULL, NULL, "measured_us", NULL };
		struct fgo_table *shown = table_select(t, cols, (int)FGO_ARRAY_SIZE(cols), names);
		table_fit(shown, FGO_TABLE_COLUMNS);
		rc = shown && table_print(shown, FGO_FMT_TABLE, stdout) == 0 ? FGO_OK : FGO_EFAIL;
		table_free(shown);
	} else {
		rc = table_print(t, o->format, stdout) == 0 ? FGO_OK : FGO_EFAIL;
	}
	table_free(t);
out:
	store_close(store);
	return cmd_finish_stdout(rc);
}

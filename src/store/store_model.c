/* store_model.c: the cost model's fits in the store (model_fits, schema 5):
 * one row per fit, the newest per machine, backend and core in use; the
 * multi-GPU terms per family and W (world_fits, schema 7), likewise; and
 * the world-size predictions made from them (world_predictions). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fgo.h"
#include "store/store.h"
#include "store/store_sql.h"

int store_model_put(struct fgo_store *st, const char *machine, const char *backend,
		    const char *core, const char *source, const struct model_machine *m,
		    const struct model_fit *f, char *err, size_t len)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *q;
	char now[32];
	store_timestamp(now);
	for (int i = 0; i < MODEL_TERMS; i++)
		if (!isfinite(f->coef[i])) {
			snprintf(err, len, "%s: the %s model's %s coefficient is not a finite number",
				 store_sql_db_path(db), core, model_term_names[i]);
			return FGO_EUSAGE;
		}
	if (store_sql_prepare(db,
		    "INSERT INTO model_fits (machine, backend, core, source, runs, rms_rel_err,"
		    " median_rel_err, max_rel_err, c_launch, c_compute, c_memory, c_reuse, c_units,"
		    " c_stall, c_exchange, c_comm, peak_fp32, peak_fp16, peak_bf16, memory_gbps,"
		    " link_gbps, cus, fitted_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11,"
		    " ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23)",
		    &q, "store the model fit", err, len))
		return FGO_EFAIL;
	int b = store_sql_bind_text(q, 1, machine) | store_sql_bind_text(q, 2, backend) |
		store_sql_bind_text(q, 3, core) | store_sql_bind_text(q, 4, source) |
		sqlite3_bind_int64(q, 5, (sqlite3_int64)f->runs) |
		sqlite3_bind_double(q, 6, f->rms_rel_err) | sqlite3_bind_double(q, 7, f->median_rel_err) |
		sqlite3_bind_double(q, 8, f->max_rel_err);
	for (int i = 0; i < MODEL_TERMS; i++)
		b |= sqlite3_bind_double(q, 9 + i, f->coef[i]);
	for (int t = 0; t < 3; t++)
		b |= sqlite3_bind_double(q, 17 + t, m->peak_tflops[t]);
	b |= sqlite3_bind_double(q, 20, m->mem_gbps) | sqlite3_bind_double(q, 21, m->link_gbps) |
	     sqlite3_bind_int(q, 22, m->cus) | store_sql_bind_text(q, 23, now);
	if (b != SQLITE_OK) {
		sqlite3_finalize(q);
		return store_sql_fail(db, err, len, "store the model fit");
	}
	return store_sql_run_once(db, q, "store the model fit", err, len);
}

int store_model_get(struct fgo_store *st, const char *machine, const char *backend,
		    const char *core, struct model_machine *m, struct model_fit *f,
		    char fitted_at[32], int *found, char *err, size_t len)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *q;
	*found = 0;
	if (store_sql_prepare(db,
		    "SELECT runs, rms_rel_err, median_rel_err, max_rel_err, c_launch, c_compute,"
		    " c_memory, c_reuse, c_units, c_stall, c_exchange, c_comm, peak_fp32, peak_fp16,"
		    " peak_bf16, memory_gbps, link_gbps, cus, fitted_at FROM model_fits"
		    " WHERE machine = ?1 AND backend = ?2 AND core = ?3"
		    " ORDER BY fitted_at DESC, id DESC LIMIT 1",
		    &q, "read the model fits", err, len))
		return FGO_EFAIL;
	int rc = store_sql_bind_text(q, 1, machine) | store_sql_bind_text(q, 2, backend) |
		 store_sql_bind_text(q, 3, core);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		memset(f, 0, sizeof *f);
		memset(m, 0, sizeof *m);
		f->runs = (size_t)sqlite3_column_int64(q, 0);
		f->rms_rel_err = sqlite3_column_double(q, 1);
		f->median_rel_err = sqlite3_column_double(q, 2);
		f->max_rel_err = sqlite3_column_double(q, 3);
		for (int i = 0; i < MODEL_TERMS; i++)
			f->coef[i] = sqlite3_column_double(q, 4 + i);
		for (int t = 0; t < 3; t++)
			m->peak_tflops[t] = sqlite3_column_double(q, 12 + t);
		m->mem_gbps = sqlite3_column_double(q, 15);
		m->link_gbps = sqlite3_column_double(q, 16);
		m->cus = sqlite3_column_int(q, 17);
		if (fitted_at) {
			const unsigned char *at = sqlite3_column_text(q, 18);
			snprintf(fitted_at, 32, "%s", at ? (const char *)at : "");
		}
		*found = 1;
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_sql_fail(db, err, len, "read the model fits");
	return FGO_OK;
}

int store_world_prediction_put(struct fgo_store *st, const struct store_world_prediction *p,
			       char *err, size_t len)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *q;
	char now[32];
	store_timestamp(now);
	if (store_sql_prepare(db,
		    "INSERT INTO world_predictions (made_at, machine, backend, algorithm, dtype, world,"
		    " m, n, k, gemm_m, gemm_n, gemm_k, gemm_ms, gemm_source, link_gbps, link_source,"
		    " comm_bytes, comm_ms, reduce_ms, fused_ms, baseline_ms, speedup,"
		    " measured_fused_ms, measured_baseline_ms, terms, baseline_from, err_runs, err_rms,"
		    " err_max) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15,"
		    " ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29)",
		    &q, "store the prediction", err, len))
		return FGO_EFAIL;
	const double reals[] = { p->gemm_ms, p->link_gbps, p->comm_bytes, p->comm_ms, p->reduce_ms,
				 p->fused_ms, p->baseline_ms, p->speedup };
	int b = store_sql_bind_text(q, 1, now) | store_sql_bind_text(q, 2, p->machine) |
		store_sql_bind_text(q, 3, p->backend) | store_sql_bind_text(q, 4, p->algorithm) |
		store_sql_bind_text(q, 5, p->dtype) | sqlite3_bind_int(q, 6, p->world) |
		sqlite3_bind_int64(q, 7, p->m) | sqlite3_bind_int64(q, 8, p->n) |
		sqlite3_bind_int64(q, 9, p->k) | sqlite3_bind_int64(q, 10, p->gemm_m) |
		sqlite3_bind_int64(q, 11, p->gemm_n) | sqlite3_bind_int64(q, 12, p->gemm_k) |
		sqlite3_bind_double(q, 13, p->gemm_ms) | store_sql_bind_text(q, 14, p->gemm_source) |
		sqlite3_bind_double(q, 15, p->link_gbps) | store_sql_bind_text(q, 16, p->link_source);
	for (int i = 2; i < (int)FGO_ARRAY_SIZE(reals); i++)
		b |= sqlite3_bind_double(q, 15 + i, reals[i]);
	b |= p->measured_fused_ms > 0 ? sqlite3_bind_double(q, 23, p->measured_fused_ms)
				      : sqlite3_bind_null(q, 23);
	b |= p->measured_baseline_ms > 0 ? sqlite3_bind_double(q, 24, p->measured_baseline_ms)
					 : sqlite3_bind_null(q, 24);
	b |= p->terms ? store_sql_bind_text(q, 25, p->terms) : sqlite3_bind_null(q, 25);
	b |= p->baseline_from ? store_sql_bind_text(q, 26, p->baseline_from)
			      : sqlite3_bind_null(q, 26);
	if (p->err_runs > 0 && isfinite(p->err_rms) && isfinite(p->err_max))
		b |= sqlite3_bind_int64(q, 27, p->err_runs) | sqlite3_bind_double(q, 28, p->err_rms) |
		     sqlite3_bind_double(q, 29, p->err_max);
	else
		b |= sqlite3_bind_null(q, 27) | sqlite3_bind_null(q, 28) | sqlite3_bind_null(q, 29);
	for (int i = 0; i < (int)FGO_ARRAY_SIZE(reals); i++)
		if (!isfinite(reals[i]))
			b |= SQLITE_MISMATCH;
	if (b != SQLITE_OK) {
		sqlite3_finalize(q);
		return store_sql_fail(db, err, len, "store the prediction");
	}
	return store_sql_run_once(db, q, "store the prediction", err, len);
}

int store_world_fit_put(struct fgo_store *st, const char *machine, const char *backend,
			const char *source, const struct store_world_fit *f, char *err,
			size_t len)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *q;
	char now[32];
	store_timestamp(now);
	for (int i = 0; i < STORE_WORLD_TERMS; i++)
		if (!isfinite(f->coef[i])) {
			snprintf(err, len, "%s: the %s W=%d fit's coefficient %d is not a finite number",
				 store_sql_db_path(db), f->algorithm, f->world, i);
			return FGO_EUSAGE;
		}
	if (f->world < 2) {
		snprintf(err, len, "%s: a multi-GPU fit of %s at W=%d", store_sql_db_path(db),
			 f->algorithm, f->world);
		return FGO_EUSAGE;
	}
	if (store_sql_prepare(db,
		    "INSERT INTO world_fits (machine, backend, algorithm, world, source, runs,"
		    " rms_rel_err, max_rel_err, c_gemm, c_link, c_tile, c_wait, c_reduce,"
		    " c_latency, c_share, fitted, fitted_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,"
		    " ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
		    &q, "store the multi-GPU fit", err, len))
		return FGO_EFAIL;
	int b = store_sql_bind_text(q, 1, machine) | store_sql_bind_text(q, 2, backend) |
		store_sql_bind_text(q, 3, f->algorithm) | sqlite3_bind_int(q, 4, f->world) |
		store_sql_bind_text(q, 5, source) | sqlite3_bind_int64(q, 6, f->runs) |
		sqlite3_bind_double(q, 7, f->rms_rel_err) | sqlite3_bind_double(q, 8, f->max_rel_err);
	for (int i = 0; i < STORE_WORLD_TERMS; i++)
		b |= sqlite3_bind_double(q, 9 + i, f->coef[i]);
	b |= store_sql_bind_text(q, 9 + STORE_WORLD_TERMS, f->fitted) |
	     store_sql_bind_text(q, 10 + STORE_WORLD_TERMS, now);
	if (b != SQLITE_OK) {
		sqlite3_finalize(q);
		return store_sql_fail(db, err, len, "store the multi-GPU fit");
	}
	return store_sql_run_once(db, q, "store the multi-GPU fit", err, len);
}

int store_world_fits_get(struct fgo_store *st, const char *machine, const char *backend,
			 const char *algorithm, struct store_world_fit *out, int cap, int *n,
			 char *err, size_t len)
{
	sqlite3 *db = store_db(st);
	sqlite3_stmt *q;
	int step;
	*n = 0;
	if (store_sql_prepare(db,
		    "SELECT world, runs, rms_rel_err, max_rel_err, c_gemm, c_link, c_tile, c_wait,"
		    " c_reduce, c_latency, c_share, fitted, fitted_at FROM ("
		    "  SELECT f.*, row_number() OVER (PARTITION BY world"
		    "    ORDER BY fitted_at DESC, id DESC) AS recency"
		    "  FROM world_fits f WHERE machine = ?1 AND backend = ?2 AND algorithm = ?3"
		    ") WHERE recency = 1 ORDER BY world",
		    &q, "read the multi-GPU fits", err, len))
		return FGO_EFAIL;
	store_sql_bind_text(q, 1, machine);
	store_sql_bind_text(q, 2, backend);
	store_sql_bind_text(q, 3, algorithm);
	while ((step = sqlite3_step(q)) == SQLITE_ROW && *n < cap) {
		struct store_world_fit *f = &out[(*n)++];
		memset(f, 0, sizeof *f);
		snprintf(f->algorithm, sizeof f->algorithm, "%s", algorithm);
		f->world = sqlite3_column_int(q, 0);
		f->runs = (long)sqlite3_column_int64(q, 1);
		f->rms_rel_err = sqlite3_column_double(q, 2);
		f->max_rel_err = sqlite3_column_double(q, 3);
		for (int i = 0; i < STORE_WORLD_TERMS; i++)
			f->coef[i] = sqlite3_column_double(q, 4 + i);
		const unsigned char *fitted = sqlite3_column_text(q, 4 + STORE_WORLD_TERMS),
				    *at = sqlite3_column_text(q, 5 + STORE_WORLD_TERMS);
		snprintf(f->fitted, sizeof f->fitted, "%s", fitted ? (const char *)fitted : "");
		snprintf(f->fitted_at, sizeof f->fitted_at, "%s", at ? (const char *)at : "");
	}
	sqlite3_finalize(q);
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		return store_sql_fail(db, err, len, "read the multi-GPU fits");
	return FGO_OK;
}

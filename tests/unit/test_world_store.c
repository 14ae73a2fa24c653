/* test_world_store.c: the multi-GPU fits in the store across schema 9
 * (db/migrations/9.sql: world_fits' c_latency and c_share). A schema-8
 * store holding a fit (made here from a new store by dropping the two
 * columns) is upgraded in place when opened for writing: the fit is kept,
 * its latency and share read 0 and its fitted terms are what they were
 * (so best --predict --world says what it said); a fit with both is stored
 * and read back. */
#include "store_fixture.h"

#include "tune/predict_world.h"

static void check_upgrade(void)
{
	char p[512], err[512] = "";
	struct fgo_store *st = NULL;
	in_tmp(p, sizeof p, "v8.db");
	int rc = store_open(p, FGO_STORE_WRITE, &st, err, sizeof err);
	T_CHECK("world-store-1.1-new", rc == FGO_OK, "rc %d: %s", rc, err);
	if (rc != FGO_OK)
		return;
	store_close(st);
	st = NULL;
	/* what fgobench with schema 8 left: no latency, no share */
	rc = raw_sql(p, "ALTER TABLE world_fits DROP COLUMN c_share;"
			"ALTER TABLE world_fits DROP COLUMN c_latency;"
			"INSERT INTO world_fits (machine, backend, algorithm, world, source, runs,"
			"  rms_rel_err, max_rel_err, c_gemm, c_link, c_tile, c_wait, c_reduce, fitted,"
			"  fitted_at) VALUES ('node-1', 'gpu', 'all_scatter', 2, 'fit', 40, 0.03, 0.1,"
			"  1.05, 0.007, 1.4, 2.3, 0.0004, 'gemm link tile wait',"
			"  '2026-11-27T10:00:00Z');"
			"PRAGMA user_version = 8;"
			"UPDATE meta SET value = '8' WHERE key = 'schema_version';");
	T_CHECK("world-store-1.2-v8", rc == SQLITE_OK, "rc %d", rc);
	rc = store_open(p, FGO_STORE_WRITE, &st, err, sizeof err);
	T_CHECK("world-store-1.3-upgraded", rc == FGO_OK, "rc %d: %s", rc, err);
	if (rc != FGO_OK)
		return;
	sqlite3 *db = store_db(st);
	T_EQ_INT("world-store-1.4-version", q_int(db, "PRAGMA user_version"), FGO_SCHEMA_VERSION);
	struct store_world_fit got[4];
	int n = 0;
	rc = store_world_fits_get(st, "node-1", "gpu", "all_scatter", got, 4, &n, err, sizeof err);
	T_CHECK("world-store-1.5-kept",
		rc == FGO_OK && n == 1 && got[0].world == 2 && got[0].runs == 40 &&
			got[0].coef[WT_GEMM] == 1.05 && got[0].coef[WT_LINK] == 0.007 &&
			got[0].coef[WT_TILE] == 1.4 && got[0].coef[WT_WAIT] == 2.3 &&
			got[0].coef[WT_REDUCE] == 0.0004 && got[0].coef[WT_LATENCY] == 0 &&
			got[0].coef[WT_SHARE] == 0 && !strcmp(got[0].fitted, "gemm link tile wait"),
		"rc %d, %d fits: %s", rc, n, err);
	/* read as before: the old fit's text names no latency and no share */
	struct world_fit f = { .world = 2, .fitted = 0x0f };
	memcpy(f.coef, got[0].coef, sizeof f.coef);
	double def[WORLD_TERMS];
	world_coef_default(350, 3000, def);
	struct world_coef r;
	char text[256];
	world_coef_at(&f, 1, 2, def, &r);
	world_coef_text(&r, 2, 1u << WT_REDUCE, text, sizeof text);
	T_EQ_STR("world-store-1.6-text", text, "gemm, link, tile, wait fitted at W=2; no reduce term");
	/* a fit with a latency and a share, stored and read back (the newer) */
	struct store_world_fit w = { .algorithm = "all_scatter", .world = 2, .runs = 41,
				     .rms_rel_err = 0.02, .max_rel_err = 0.09,
				     .coef = { 1.06, 0.003, 0, 1.8, 0, 11.5, 0.37 },
				     .fitted = "gemm link tile wait latency share" };
	rc = store_world_fit_put(st, "node-1", "gpu", "fit", &w, err, sizeof err);
	rc |= store_world_fits_get(st, "node-1", "gpu", "all_scatter", got, 4, &n, err, sizeof err);
	T_CHECK("world-store-1.7-latency",
		rc == FGO_OK && n == 1 && got[0].runs == 41 && got[0].coef[WT_LATENCY] == 11.5 &&
			got[0].coef[WT_SHARE] == 0.37 && !strcmp(got[0].fitted, w.fitted),
		"rc %d, %d fits, latency %g share %g: %s", rc, n, n ? got[0].coef[WT_LATENCY] : 0,
		n ? got[0].coef[WT_SHARE] : 0, err);
	T_EQ_INT("world-store-1.8-both-rows", q_int(db, "SELECT count(*) FROM world_fits"), 2);
	store_close(st);
}

int main(void)
{
	if (fixture_begin("world_store"))
		return 1;
	check_upgrade();
	fixture_end();
	T_DONE();
}

/* tune/auto_pick.c: `config auto`, the cost model's pick of a problem's
 * configuration (see auto_pick.h). */
#include "tune/auto_pick.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "algo.h"
#include "fgo.h"
#include "spec/defaults.h"
#include "store/store.h"
#include "tune/model_refit.h"

const char *auto_pick_space(const struct fgo_config *cfg, const char *arch)
{
	const struct fgo_algo *a = algo_find(cfg->algorithm);
	int sk = a && a->comm_ctas == FGO_COMM_CTAS_REQUIRED;
	int gather = a && a->space == FGO_SPACE_A_ROWS;
	if (!strcmp(defaults_core(cfg, arch), "wgmma")) {
		/* the tiles the table's rows were measured among, and their walks;
		 * stages up to the rows' own 8 and 12 (at 128 x 4096 x 14336 W=2,
		 * 64x128 split 4 takes 36.7 us at s8, 43.5 at s4): a count the
		 * shared memory refuses is left out by defaults_check */
		if (sk)
			return "{\"name\": \"auto\", \"BLK_M\": [64, 128], \"BLK_N\": [64, 128, 256],"
			       " \"BLK_K\": 64, \"num_stages\": [3, 4, 6, 8, 12], \"num_warps\": [8, 12],"
			       " \"mma\": \"wgmma\", \"gemm_sms\": [116, 124, 128, 132], \"comm_sms\": [0, 4, 8, 16]}";
		if (gather)
			return "{\"name\": \"auto\", \"BLK_M\": [64, 128], \"BLK_N\": [64, 128, 256],"
			       " \"BLK_K\": 64, \"num_stages\": [3, 4, 6, 8, 12], \"num_warps\": [8, 12],"
			       " \"mma\": \"wgmma\", \"split_k\": [1, 2, 4, 8, 16], \"comm_blk_m\": [0, 512]}";
		return "{\"name\": \"auto\", \"BLK_M\": [64, 128], \"BLK_N\": [64, 128, 256],"
		       " \"BLK_K\": 64, \"num_stages\": [3, 4, 6, 8, 12], \"num_warps\": [8, 12],"
		       " \"mma\": \"wgmma\", \"split_k\": [1, 2, 4, 8, 16]}";
	}
	if (sk)
		return "{\"name\": \"auto\", \"BLK_M\": [16, 32, 64, 128], \"BLK_N\": [16, 32, 64, 128],"
		       " \"BLK_K\": [16, 32, 64], \"num_stages\": [1, 2, 3, 4], \"num_warps\": [4, 8],"
		       " \"gemm_sms\": [4, 8, 16, 32, 64, 128], \"comm_sms\": [1, 2, 4, 8]}";
	return "{\"name\": \"auto\", \"BLK_M\": [16, 32, 64, 128], \"BLK_N\": [16, 32, 64, 128],"
	       " \"BLK_K\": [16, 32, 64], \"num_stages\": [1, 2, 3, 4], \"num_warps\": [4, 8],"
	       " \"split_k\": [1, 2, 4]}";
}

/* The fields of cfg the auto space must not change: its problem, what the
 * spec or the flags gave, and what the space does not vary. */
static void kept_fields(const struct fgo_config *cfg, struct fgo_config_mask *set)
{
	memset(set, 0, sizeof *set);
	set->algorithm = set->dtype = set->world = set->m = set->n = set->k = 1;
	set->gsize_m = set->deterministic = set->cluster = 1;
	set->blk_m = set->blk_n = set->blk_k = set->num_stages = set->num_warps =
		(cfg->given & FGO_GIVEN_TILE) != 0;
	set->mma = (cfg->given & FGO_GIVEN_MMA) != 0;
	set->split_k = (cfg->given & FGO_GIVEN_SPLIT_K) != 0;
	set->comm_blk_m = set->comm_blk_n = (cfg->given & FGO_GIVEN_COMM_BLK) != 0;
	set->gemm_sms = set->comm_sms = (cfg->given & FGO_GIVEN_SMS) != 0;
}

/* A Stream-K form's CTAs wait on each other, so all of them must be
 * resident: at one CTA an SM, as most wgmma tiles of the space run, more
 * than the machine's compute units (when the fit knows them) would be
 * refused at launch, so none is picked. */
static int fits_machine(const struct fgo_config *c, const struct model_machine *m)
{
	return m->cus <= 1 || (long)c->gemm_sms + c->comm_sms <= m->cus;
}

int auto_pick_one(const struct fgo_config *cfg, const char *arch, const struct predict_model *pm,
		  struct fgo_config *out, double *ms, size_t *ranked)
{
	struct fgo_config_mask set;
	struct fgo_plan space;
	char err[512], why[FGO_REASON_MAX];
	*out = *cfg;
	*ms = defaults_check(cfg, arch, why, sizeof why) ? 0 : predict_model_ms(pm, cfg);
	*ranked = *ms > 0;
	/* the table's pick was measured on problems of its class, and the
	 * model misranks near ties (its median error on the runs it was
	 * fitted to is 5-8% on an H100; at W=2, M = 1..32 it ranked 64x64 s12
	 * split 4 ahead of the table's 32x64 s12 split 2 by less than that,
	 * and it measured 1-6% slower): a candidate replaces the table's pick
	 * only when predicted faster by more than that error, as a tie keeps
	 * it */
	const double table_ms = *ms, margin = predict_model_err(pm, cfg);
	kept_fields(cfg, &set);
	if (spec_parse("(auto space)", auto_pick_space(cfg, arch), cfg, &set, &space, err,
		       sizeof err) != FGO_OK)
		return FGO_EFAIL;
	plan_fit_target(&space, arch);
	for (size_t i = 0; i < space.count; i++) {
		const struct fgo_config *c = &space.items[i].cfg;
		double t;
		if (!space.items[i].valid || defaults_check(c, arch, why, sizeof why) ||
		    !fits_machine(c, &pm->machine) || !((t = predict_model_ms(pm, c)) > 0))
			continue;
		++*ranked;
		/* ties keep the earlier: the table's pick first, then space order */
		if (!(*ms > 0) || (t < *ms && !(table_ms > 0 && t > table_ms * (1 - margin)))) {
			*out = *c;
			out->given = cfg->given;
			*ms = t;
		}
	}
	plan_free(&space);
	return *ranked ? FGO_OK : FGO_EUSAGE;
}

int auto_pick_model(const char *db_path, const char *host, const char *backend,
		    struct predict_model *pm, char *err, size_t len)
{
	static const char *const cores[MODEL_CORES] = { "wgmma", "mma16", "mma32", "simt" };
	struct fgo_store *st = NULL;
	memset(pm, 0, sizeof *pm);
	if (access(db_path, F_OK) != 0) /* no store, no fit */
		return FGO_OK;
	if (store_open(db_path, FGO_STORE_READ, &st, err, len) != FGO_OK)
		return FGO_EFAIL;
	for (int c = 0; c < MODEL_CORES; c++) {
		struct model_fit f;
		char at[32];
		int found = 0;
		if (store_model_get(st, host, backend, cores[c], &pm->machine, &f, at, &found, err,
				    len) != FGO_OK) {
			store_close(st);
			return FGO_EFAIL;
		}
		if (!found)
			continue;
		predict_model_add(pm, cores[c], &f);
	}
	store_close(st);
	model_machine_fill(&pm->machine);
	return FGO_OK;
}

int auto_pick_plan(struct fgo_plan *plan, const char *arch, const char *backend,
		   const char *db_path)
{
	struct predict_model pm;
	char host[128] = "", err[1024], tile[96];
	size_t shown = 0;
	gethostname(host, sizeof host - 1);
	if (auto_pick_model(db_path, host, backend, &pm, err, sizeof err) != FGO_OK) {
		error("config auto: %s", err);
		return FGO_EUSAGE;
	}
	for (size_t i = 0; i < plan->count; i++) {
		struct fgo_plan_item *it = &plan->items[i];
		struct fgo_config best;
		double ms;
		size_t ranked;
		if (it->cfg.given & FGO_GIVEN_TILE)
			continue;
		int rc = auto_pick_one(&it->cfg, arch, &pm, &best, &ms, &ranked);
		if (rc == FGO_EFAIL) {
			error("config auto: out of memory ranking the candidates of %s", it->cfg.algorithm);
			return FGO_EFAIL;
		}
		if (rc != FGO_OK) {
			error("config auto: no cost model of the %s core for %s (%s backend) in %s: run"
			      " `fgobench calibrate` (or `fgobench calibrate --fit` after a sweep) first,"
			      " or drop config auto for the defaults table",
			      model_core(&it->cfg), host, backend, db_path);
			return FGO_EUSAGE;
		}
		/* the table's pick kept: the same configuration, key for key */
		char key_best[FGO_KEY_MAX], key_table[FGO_KEY_MAX];
		config_key(&best, key_best, sizeof key_best);
		config_key(&it->cfg, key_table, sizeof key_table);
		const int kept = it->default_how == DEFAULTS_TABLE && !strcmp(key_best, key_table);
		const int row = it->default_row;
		it->cfg = best;
		it->valid = !config_validate(&it->cfg, it->reason, sizeof it->reason);
		if (it->valid)
			it->reason[0] = 0;
		it->default_how = DEFAULTS_MODEL;
		it->default_row = -1;
		if (shown++ < 8) {
			defaults_tile_text(&best, tile, sizeof tile);
			char why[128] = "";
			if (kept)
				snprintf(why, sizeof why, " (table row %d's pick: none predicted faster by more"
					 " than the fit's median error, %.1f%%)", row + 1,
					 100 * predict_model_err(&pm, &best));
			note("cost model: %s %s W=%d M=%ld N=%ld K=%ld: %s, predicted %.1f us, first of %zu"
			     " candidates ranked by the %s fit of %s%s",
			     best.algorithm, dtype_name(best.dtype), best.world, best.m, best.n, best.k,
			     tile, ms * 1e3, ranked, model_core(&best), host, why);
		}
	}
	if (shown > 8)
		note("cost model: %zu configurations picked so (the first 8 shown)", shown);
	return FGO_OK;
}

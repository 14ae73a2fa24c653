/* cmd_best.c: `fgobench best`: the winning configuration of every problem
 * (algorithm, dtype, world, M, N, K) in the store, from the newest ok run of
 * each configuration; with --predict, the likely winners at a shape nobody
 * measured (predict_view.c); with --defaults, the defaults table judged on
 * the store (best_defaults.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "cmd/best_defaults.h"
#include "cmd/cmd.h"
#include "cmd/predict_view.h"
#include "tune/shot_pick.h"
#include "fgo.h"
#include "floor.h"
#include "sink.h"
#include "store/store.h"
#include "views/table.h"
#include "views/views.h"

const char cmd_best_usage[] =
	"usage: fgobench best [--m M] [--n N] [--k K] [--algorithm A] [--world W]\n"
	"       [--dtype D] [--tag T] [--top T] [--reproduce] [--wide]\n"
	"       [--format table|md|csv|json] [--db F]\n"
	"       fgobench best --predict --m M --n N --k K --algorithm A [--world W]\n"
	"       [--dtype D] [--tag T] [--top T] [--cus N] [--no-model] [--wide] [--format F]\n"
	"       [--db F]\n"
	"       fgobench best --predict --m M --n N --k K --world W [--algorithm A]\n"
	"       [--dtype D] [--wide] [--format F] [--db F]\n"
	"       fgobench best --defaults [--algorithm A] [--world W] [--dtype D] [--tag T]\n"
	"       [--write FILE] [--wide] [--format F] [--db F]\n"
	"\n"
	"For each problem (algorithm, dtype, world, M, N, K) with ok runs in the store,\n"
	"the fastest configuration by median fused time: its tile, the time, TFLOPS\n"
	"(all ranks together), speedup over the baseline (reference GEMM, then the MPI\n"
	"collective), the gap to the runner-up in percent, how many configurations\n"
	"were tried, its run id, and the `fgobench run` line that reproduces it. When\n"
	"a configuration ran in several sweeps its newest run counts.\n"
	"\n"
	"The table fits 120 columns: its config is the tile (BLK_MxBLK_NxBLK_K) and\n"
	"only the tunables that differ from the defaults (sS stages, wW warps, gG\n"
	"gsize_m, smG+C gemm_sms + comm_sms, mma, cMxN comm tile, kS split_k, det\n"
	"deterministic, clN cluster); # (the place) shows with --top above 1; the\n"
	"reproduce line is left out: --reproduce prints it under the table, a line per\n"
	"row starting with the row's run id (`fgobench show RUN` prints it too).\n"
	"--wide (the table however wide), md (less floor_us), csv and json have every\n"
	"column, the config in full (\"64x32x32 s2 w4 g8 sm0+0\").\n"
	"\n"
	"Nothing to show is said on stderr and exits 2, with nothing on stdout: which\n"
	"filter the store has nothing of (with the stored tag or algorithm it likely\n"
	"meant, or the sizes, worlds and dtypes it has), or that the filters match\n"
	"nothing together.\n"
	"\n"
	"A memory-bound run (its per-rank GEMM's FLOPs per byte of A + B + C under\n"
	"the ridge of the calibrated matrix peak and memory bandwidth) is also shown\n"
	"against the read floor of its bytes from the newest `fgobench calibrate` of\n"
	"the same machine and backend: floor_us, the fastest read of those bytes timed\n"
	"as runs are, and x_floor = time / floor (1.0: as fast as reading the inputs\n"
	"and the output once). csv and json always have both columns (empty: not\n"
	"memory-bound or no floor); the table shows x_floor when a floor exists.\n"
	"\n"
	"With --predict: a prediction, not a measurement, for a shape with no runs\n"
	"(a measured shape's own runs are left out). Where the machine of the newest\n"
	"runs has a cost model (`fgobench calibrate` fits one per GEMM core; with none\n"
	"stored one is fitted on the spot from 16 or more runs), every configuration\n"
	"measured at any shape is ranked by the model's time at the new shape, times\n"
	"a correction from the 4 nearest measured shapes in log2(M), log2(N),\n"
	"log2(K): the weighted geometric mean of measured / model of the same\n"
	"configuration there (or of everything measured there, for one not measured\n"
	"near). Printed: predicted us, the gap to the first, the model's us, the\n"
	"correction, the share of the near shapes it was measured on and where; the\n"
	"notes give the model's error on the stored runs and the nearest measured\n"
	"shape. Without a model the near shapes vote: each configuration's time\n"
	"relative to the best there, corrected for its tile efficiency (padding, the\n"
	"last wave over the compute units). Prints the top candidates (default 3);\n"
	"the table fits 120 columns (the config brief, long cells continued on the\n"
	"next line) with each candidate's reproduce line under it after its place;\n"
	"--wide, md, csv and json have the reproduce column and the config in full.\n"
	"\n"
	"With --predict --world W (W > 1) and no --algorithm (or one with no runs at\n"
	"W): every fused family at W ranks: its per-rank GEMM (M x N/W x K, or K/W)\n"
	"measured by gemm runs at W=1 (else the cost model's best), then its\n"
	"multi-GPU terms: the longer of the GEMM and the bytes it puts to its peers\n"
	"at the link's rate, one tile of the shorter side exposed, the waits, the\n"
	"reduction's reads. Each term's coefficient is the one `calibrate` (or\n"
	"`calibrate --fit`) fitted to the family's stored runs at W on W devices,\n"
	"else at the nearest W (extrapolated; a link rate scaled by the bus\n"
	"bandwidth calibrate's curves of the family's collective show at W over\n"
	"there, where both were measured), else the ceilings' (the stored\n"
	"link_bw, one GPU's egress to all peers: `calibrate --link-bw` states it\n"
	"where no second GPU can measure it; memory_bw). The baseline is the GEMM\n"
	"then the vendor collective read from calibrate's curve at W (log-log\n"
	"between its sizes; beyond them, or from another W scaled by the bus factor:\n"
	"extrapolated), else a ring at the link. A note per family says where each\n"
	"term and the baseline came from and the model's error on the family's\n"
	"stored ok runs at W (rms and max of predicted / measured - 1, the range of\n"
	"predicted / measured; each run's own GEMM time for g). Printed with its\n"
	"inputs and stored (world_predictions); where the store has ok runs of a\n"
	"family at W on W GPUs, the best of them beside it and how far off the\n"
	"prediction was (fused_off). The table fits 120 columns: W, comm_MB,\n"
	"reduce_us, measured_speedup, terms, baseline_from, err_runs, err_rms_pct\n"
	"and err_max_pct are left to the notes, --wide, md, csv and json, and\n"
	"gemm_from and measured_fused_us are named from and measured_us.\n"
	"\n"
	"With --predict --algorithm all_reduce --world W: the shot `run --algorithm\n"
	"all_reduce` would take at the shape on the machine of the store's newest\n"
	"all-reduce runs at W, its runs at the shape left out (best --predict's firsts\n"
	"of both shots where they differ by more than 5%, else a rule of C's size, W\n"
	"and K/W); measured_us shows those runs beside it.\n"
	"\n"
	"With --defaults: the defaults table (docs/defaults.md) judged on the store's ok,\n"
	"validated runs of the Hopper core (wgmma), grouped into problems (algorithm,\n"
	"dtype, world, M, N, K). Each problem maps to the row a run of it without a\n"
	"tile takes; a line per row (row, as docs/defaults.md numbers them): its\n"
	"family, its pick (tile, split, gather chunk), how many problems map to it\n"
	"(probs), on how many its pick was measured (meas; every other tunable at what\n"
	"a run without a tile takes) and there the geomean and the worst of time / the\n"
	"problem's best (any configuration's); then the derived pick: of the picks\n"
	"measured on the row's problems, the one measured on the most of them, then\n"
	"the lowest geomean, with its numbers, vs_pick (geomean of its time / the\n"
	"row's pick's where both were measured) and the verdict. A row is replaced\n"
	"when the derived pick is measured on 2 or more of its problems (one alone,\n"
	"even a row's only one, keeps the row)\n"
	"and is more than 1% faster than its pick (vs_pick below 0.99); a row no\n"
	"problem maps to is kept. On a held-out store (--tag heldout-perrank) the same\n"
	"lines are the held-out check: each row's pick against each problem's best.\n"
	"csv and json add pick_worst_at (the problem of the worst) and name the\n"
	"columns row, family, pick, problems, pick_measured, pick_geomean, pick_worst,\n"
	"pick_worst_at, derived, derived_measured, derived_geomean, derived_worst,\n"
	"derived_vs_pick, verdict. --write FILE writes the table as\n"
	"src/spec/defaults_rows.inc holds it, the replaced rows with the derived pick\n"
	"and its evidence, the others as they are (the same bytes when none is\n"
	"replaced); written whole or not at all, never through a symbolic link.\n"
	"\n"
	"  --m M, --n N, --k K   only problems of that size (also -m M, -n N, -k K)\n"
	"  --algorithm A         only that algorithm (any case, - for _, the field's short\n"
	"                        names such as gemm_rs or ag_gemm_pull; a family name\n"
	"                        such as all_reduce lists its algorithms; a name this\n"
	"                        build does not know matches the store's as given;\n"
	"                        a user kernel's runs are user:NAME)\n"
	"  --world W             only that world size\n"
	"  --dtype D             only that element type (fp32, fp16, bf16)\n"
	"  --tag T               only runs of sweeps tagged T\n"
	"  --top T               the T fastest configurations of each problem (default 1;\n"
	"                        with --predict 3)\n"
	"  --reproduce           after the table, each row's `fgobench run` line\n"
	"  --wide                the table with every column, however wide\n"
	"  --predict             rank configurations for --m, --n, --k from other shapes\n"
	"  --defaults            the defaults table judged on the store, a line per row\n"
	"  --write FILE          with --defaults: the table's rows written to FILE\n"
	"  --cus N               compute units for --predict's wave correction (default: the\n"
	"                        SMs the store's GPU runs name, else 1 as on the CPU)\n"
	"  --no-model            with --predict: rank from the nearest shapes' measurements\n"
	"                        alone, as where the store has no cost model (the model's\n"
	"                        ranking is what --config auto takes)\n"
	"  --format F            table, md, csv or json (default table)\n"
	"  --db F                the store (default $FGOBENCH_DB or ./fgobench.db)\n";

static const char query[] =
	"WITH latest AS ("
	"  SELECT r.*, s.host AS host, s.backend AS backend, s.spec_path AS spec_path,"
	"    s.command_line AS command_line,"
	"    row_number() OVER (PARTITION BY r.config_key ORDER BY r.id DESC) AS recency"
	"  FROM runs r JOIN sweeps s ON s.id = r.sweep_id"
	"  WHERE r.status = 'ok' AND r.t_fused_ms > 0"
	"    AND (?1 IS NULL OR r.m = ?1) AND (?2 IS NULL OR r.n = ?2) AND (?3 IS NULL OR r.k = ?3)"
	"    AND (?4 IS NULL OR r.algorithm = ?4) AND (?5 IS NULL OR r.world = ?5)"
	"    AND (?6 IS NULL OR r.dtype = ?6) AND (?7 IS NULL OR s.tag = ?7)"
	"), ranked AS ("
	"  SELECT *, row_number() OVER fastest AS place,"
	"    lead(t_fused_ms) OVER fastest AS next_ms,"
	"    count(*) OVER (PARTITION BY algorithm, dtype, world, m, n, k) AS tried"
	"  FROM latest WHERE recency = 1"
	"  WINDOW fastest AS (PARTITION BY algorithm, dtype, world, m, n, k ORDER BY t_fused_ms, id)"
	") SELECT id, " VIEW_CONFIG_COLUMNS ", t_fused_ms, tflops_total, speedup, next_ms, tried, place,"
	"  host, backend, spec_path, kernel_manifest, command_line"
	"  FROM ranked WHERE place <= ?8"
	"  ORDER BY algorithm, dtype, world, m, n, k, place";

/* The columns of csv and json (md and the table leave some out); after them
 * three for the table only: the world as W, the shape as MxNxK and the brief
 * config text. */
static const char *const headers[] = { "algorithm", "dtype",   "world",    "M",     "N",
				       "K",         "#",       "config",   "ms",    "TFLOPS",
				       "speedup",   "floor_us", "x_floor", "gap %", "tried",
				       "run",       "reproduce", "W",      "MxNxK", "config" };
enum {
	COL_PLACE = 6, COL_FLOOR_US = 11, COL_X_FLOOR = 12, COL_RUN = 15, COL_REPRODUCE = 16,
	NCOLS_OUT = 17, COL_W = 17, COL_SHAPE = 18, COL_BRIEF = 19,
};

/* The machines (host/backend) of rows without a read floor that the store
 * has not yet told about the floor: meta keys "said:read_floor_note:HOST/BACKEND". */
#define FLOOR_NOTE_MACHINES 16
struct floor_note {
	int n;
	char key[FLOOR_NOTE_MACHINES][192];
};

/* Adds the row's machine (columns host, backend at the query's end) to
 * untold when the store has not said the note for it. */
static void floor_note_machine(struct floor_note *untold, struct fgo_store *store,
			       sqlite3_stmt *st)
{
	int c = 1 + VIEW_CONFIG_NCOLS + 6;
	char key[192];
	snprintf(key, sizeof key, "said:read_floor_note:%s/%s",
		 (const char *)sqlite3_column_text(st, c) ? (const char *)sqlite3_column_text(st, c) : "",
		 (const char *)sqlite3_column_text(st, c + 1) ? (const char *)sqlite3_column_text(st, c + 1)
							       : "");
	for (int i = 0; i < untold->n; i++)
		if (!strcmp(untold->key[i], key))
			return;
	if (untold->n < FLOOR_NOTE_MACHINES && !store_meta_has(store, key))
		snprintf(untold->key[untold->n++], sizeof untold->key[0], "%s", key);
}

struct best_opts {
	long m, n, k; /* 0: any */
	int world, top, cus, predict, reproduce, wide, defaults, no_model;
	const char *algorithm, *dtype, *tag, *db, *write;
	const char *choice_text; /* --algorithm all_reduce as typed (--predict only) */
	enum fgo_format format;
};

static int parse(int argc, char **argv, struct best_opts *o)
{
	static const char *const opts[] = { "--m",   "--n",  "--k",  "--world",
					    "--top", "--algorithm", "--dtype", "--tag",
					    "--db",  "--format", "--cus", "-m", "-n", "-k",
					    "--write" };
	for (int i = 1; i < argc; i++) {
		const char *v = NULL;
		enum fgo_dtype t;
		int rc = FGO_OK;
		int j = cmd_match_option("best", argc, argv, &i, opts, (int)FGO_ARRAY_SIZE(opts), &v);
		switch (j) {
		case -2: return FGO_EUSAGE;
		case -1:
			if (!strcmp(argv[i], "--predict")) {
				o->predict = 1;
				continue;
			}
			if (!strcmp(argv[i], "--reproduce")) {
				o->reproduce = 1;
				continue;
			}
			if (!strcmp(argv[i], "--wide")) {
				o->wide = 1;
				continue;
			}
			if (!strcmp(argv[i], "--defaults")) {
				o->defaults = 1;
				continue;
			}
			if (!strcmp(argv[i], "--no-model")) {
				o->no_model = 1;
				continue;
			}
			return cmd_usage_error("best", cmd_best_usage, "unknown option \"%s\"", argv[i]);
		case 0: case 11: rc = cmd_parse_long("best", opts[j], v, 1, 1L << 40, &o->m); break;
		case 1: case 12: rc = cmd_parse_long("best", opts[j], v, 1, 1L << 40, &o->n); break;
		case 2: case 13: rc = cmd_parse_long("best", opts[j], v, 1, 1L << 40, &o->k); break;
		case 3: rc = cmd_parse_int("best", "--world", v, 1, 1 << 20, &o->world); break;
		case 4: rc = cmd_parse_int("best", "--top", v, 1, 1 << 20, &o->top); break;
		case 5:
			if (algo_is_choice(v)) { /* --predict only: the shot run would take */
				o->algorithm = ALGO_CHOICE;
				o->choice_text = v;
				break;
			}
			if (!(o->algorithm = cmd_algorithm_filter("best", v)))
				return FGO_EUSAGE;
			break;
		case 6:
			if (dtype_parse(v, &t))
				return cmd_usage_error("best", cmd_best_usage,
						       "--dtype expects fp32, fp16 or bf16, got \"%s\"", v);
			o->dtype = dtype_name(t);
			break;
		case 7: o->tag = v; break;
		case 8: o->db = v; break;
		case 10: rc = cmd_parse_int("best", "--cus", v, 1, 1 << 20, &o->cus); break;
		case 14:
			if (!*v)
				return cmd_usage_error("best", cmd_best_usage, "--write expects a file name");
			o->write = v;
			break;
		default:
			if (format_parse(v, &o->format))
				return cmd_usage_error("best", cmd_best_usage,
						       "--format expects table, md, csv or json, got \"%s\"", v);
		}
		if (rc != FGO_OK)
			return FGO_EUSAGE;
	}
	return FGO_OK;
}

static void bind_long(sqlite3_stmt *st, int at, long v)
{
	if (v > 0)
		sqlite3_bind_int64(st, at, v);
}

static void bind_text(sqlite3_stmt *st, int at, const char *s)
{
	if (s)
		sqlite3_bind_text(st, at, s, -1, SQLITE_STATIC);
}

/* Adds the row; returns 1 when its machine has a read floor, -1 when
 * reading it failed, 0 otherwise. */
static int add_row(struct fgo_table *t, sqlite3_stmt *st, struct floor_cache *floors)
{
	struct fgo_config cfg;
	char tile[96], brief[96], reproduce[2048], err[512];
	int c = 1 + VIEW_CONFIG_NCOLS;
	double ms = sqlite3_column_double(st, c), floor_s = 0, bytes = 0;
	const struct fgo_floor *f =
		floor_cache_find(floors, sqlite3_db_handle(st), (const char *)sqlite3_column_text(st, c + 6),
				 (const char *)sqlite3_column_text(st, c + 7), err, sizeof err);

	view_config(st, 1, &cfg);
	view_tile_text(&cfg, tile, sizeof tile);
	view_tile_brief(&cfg, brief, sizeof brief);
	view_reproduce(&cfg, (const char *)sqlite3_column_text(st, c + 8),
		       (const char *)sqlite3_column_text(st, c + 9),
		       (const char *)sqlite3_column_text(st, c + 10), reproduce, sizeof reproduce);
	view_problem_cells(t, &cfg);
	table_add(t, "%d", sqlite3_column_int(st, c + 5));
	table_add(t, "%s", tile);
	table_add(t, "%.4g", ms);
	table_add(t, "%.4g", sqlite3_column_double(st, c + 1));
	if (sqlite3_column_type(st, c + 2) == SQLITE_NULL)
		table_add(t, "%s", "");
	else
		table_add(t, "%.2f", sqlite3_column_double(st, c + 2));
	if (f && floor_of_run(f, &cfg, &floor_s, &bytes)) {
		table_add(t, "%.1f", floor_s * 1e6);
		table_add(t, "%.2f", ms * 1e-3 / floor_s);
	} else {
		table_add(t, "%s", "");
		table_add(t, "%s", "");
	}
	if (sqlite3_column_type(st, c + 3) == SQLITE_NULL)
		table_add(t, "%s", "");
	else
		table_add(t, "%.1f", (sqlite3_column_double(st, c + 3) / ms - 1) * 100);
	table_add(t, "%d", sqlite3_column_int(st, c + 4));
	table_add(t, "%lld", (long long)sqlite3_column_int64(st, 0));
	table_add(t, "%s", reproduce);
	table_add(t, "%d", cfg.world);
	table_add(t, "%ldx%ldx%ld", cfg.m, cfg.n, cfg.k);
	table_add(t, "%s", brief);
	if (!f)
		error("%s", err);
	return !f ? -1 : f->n > 0;
}

/* Prints the columns keep[0..n) of t, fitted to fit columns (0: as wide as
 * they are); returns 0 or -1. */
static int print_columns(const struct fgo_table *t, const int *keep, int n, enum fgo_format format,
			 int fit)
{
	struct fgo_table *out = table_select(t, keep, n, NULL);
	table_fit(out, fit); /* a long name or a user kernel's config continues below */
	int rc = out ? table_print(out, format, stdout) : -1;
	table_free(out);
	return rc;
}

/* csv and json: every column. Markdown: without floor_us, and without
 * x_floor when no row's machine has a floor. The terminal table, to fit 120
 * columns: those, with W, MxNxK and the brief config for world, M, N, K and
 * config, # only with --top above 1, and the reproduce lines (with
 * --reproduce) under it, each after its run id, rather than in a column. */
static int print_best(const struct fgo_table *t, int any_floor, const struct best_opts *o)
{
	static const int term_cols[] = { 0, 1, COL_W, COL_SHAPE, COL_PLACE, COL_BRIEF, 8, 9, 10,
					 COL_X_FLOOR, 13, 14, COL_RUN };
	int keep[FGO_ARRAY_SIZE(headers)], n = 0, rc;
	if (o->format == FGO_FMT_TABLE && !o->wide) {
		for (size_t i = 0; i < FGO_ARRAY_SIZE(term_cols); i++)
			if ((term_cols[i] != COL_PLACE || o->top > 1) &&
			    (term_cols[i] != COL_X_FLOOR || any_floor))
				keep[n++] = term_cols[i];
	} else {
		for (int i = 0; i < NCOLS_OUT; i++)
			if (o->format != FGO_FMT_MD ||
			    (i != COL_FLOOR_US && (i != COL_X_FLOOR || any_floor)))
				keep[n++] = i;
	}
	rc = print_columns(t, keep, n, o->format,
			   o->format == FGO_FMT_TABLE && !o->wide ? FGO_TABLE_COLUMNS : 0);
	if (rc == 0 && o->format == FGO_FMT_TABLE && o->reproduce && table_rows(t) > 0) {
		int w = 0;
		for (int r = 0; r < table_rows(t); r++)
			if ((int)strlen(table_cell(t, r, COL_RUN)) > w)
				w = (int)strlen(table_cell(t, r, COL_RUN));
		printf("\n");
		for (int r = 0; r < table_rows(t) && rc == 0; r++) {
			/* within 120 columns, continued with " \\" as a shell
			 * reads it; a stored name's control characters shown as
			 * visible escapes, as the table shows cells */
			char lead[64];
			snprintf(lead, sizeof lead, "%*s  ", w, table_cell(t, r, COL_RUN));
			view_print_command_after(stdout, lead, table_cell(t, r, COL_REPRODUCE),
						 FGO_TABLE_COLUMNS);
		}
	}
	return rc;
}

/* --predict --algorithm all_reduce: which shot run would take, and why. */
static int predict_shot(const struct best_opts *o)
{
	struct fgo_config cfg;
	struct shot_report r;
	if (o->world < 2)
		return cmd_usage_error("best", cmd_best_usage,
				       "--predict --algorithm all_reduce needs --world W (W > 1): the shot"
				       " depends on it");
	config_defaults(&cfg);
	snprintf(cfg.algorithm, sizeof cfg.algorithm, "%s", ALGO_CHOICE_FIRST);
	if (o->dtype)
		dtype_parse(o->dtype, &cfg.dtype);
	else
		cfg.dtype = FGO_BF16;
	cfg.world = o->world;
	cfg.m = o->m;
	cfg.n = o->n;
	cfg.k = o->k;
	int rc = shot_pick_predict(cmd_db_path(o->db), &cfg, &r);
	if (rc != FGO_OK)
		return rc;
	static const char *const headers[] = { "algorithm", "valid", "predicted_us", "measured_us",
					       "chosen" };
	struct fgo_table *t = table_new(5, headers);
	for (int s = 0; t && s < 2; s++) {
		table_add(t, "%s", shot_algorithm((enum shot)s));
		table_add(t, "%s", r.e.valid[s] ? "yes" : "no");
		table_add(t, r.e.predicted_ms[s] > 0 ? "%.1f" : "-", r.e.predicted_ms[s] * 1e3);
		table_add(t, r.measured_ms[s] > 0 ? "%.1f" : "-", r.measured_ms[s] * 1e3);
		table_add(t, "%s", (int)r.c.shot == s ? "yes" : "");
	}
	note("prediction, not a measurement: the shot of all_reduce %s W=%d M=%ld N=%ld K=%ld on %s"
	     " (%s backend), its runs at this shape left out (measured_us)", dtype_name(cfg.dtype),
	     cfg.world, cfg.m, cfg.n, cfg.k, r.host, r.backend);
	note("run --algorithm all_reduce would take %s: %s (%s)", shot_algorithm(r.c.shot), r.c.why,
	     shot_source_names[r.c.source]);
	rc = t && table_print(t, o->format, stdout) == 0 ? FGO_OK : FGO_EFAIL;
	table_free(t);
	return cmd_finish_stdout(rc);
}

/* --predict: the shape and the algorithm are required. */
static int predict(const struct best_opts *o)
{
	if (!o->m || !o->n || !o->k || (!o->algorithm && o->world < 2))
		return cmd_usage_error("best", cmd_best_usage,
				       "--predict needs the shape and the algorithm (--m, --n, --k and"
				       " --algorithm), or the shape and --world W > 1 for the fused"
				       " families at W");
	if (o->choice_text)
		return predict_shot(o);
	struct predict_view_opts p = {
		.db = o->db, .algorithm = o->algorithm, .dtype = o->dtype, .tag = o->tag,
		.m = o->m, .n = o->n, .k = o->k, .world = o->world, .top = o->top ? o->top : 3,
		.cus = o->cus, .format = o->format, .wide = o->wide, .no_model = o->no_model,
	};
	if (!o->algorithm || (o->world > 1 && !predict_has_runs(&p))) {
		if (o->no_model)
			return cmd_usage_error("best", cmd_best_usage,
					       "--no-model goes with the ranking of measured configurations"
					       " (--predict --algorithm A with runs at its W); the fused"
					       " families' prediction at W is the model's");
		return predict_world_view(&p);
	}
	return predict_view(&p);
}

/* --defaults: the table judged on the store; the options that pick
 * problems by size or show several configurations do not go with it. */
static int defaults(const struct best_opts *o)
{
	const char *bad = o->predict ? "--predict" : o->m ? "--m" : o->n ? "--n" : o->k ? "--k"
			: o->top ? "--top" : o->reproduce ? "--reproduce" : o->cus ? "--cus"
			: o->no_model ? "--no-model"
			: o->choice_text ? "--algorithm all_reduce" : NULL;
	if (bad)
		return cmd_usage_error("best", cmd_best_usage,
				       "%s does not go with --defaults (a line per table row, over every"
				       " problem the filters --algorithm, --world, --dtype and --tag keep)",
				       bad);
	struct best_defaults_opts d = {
		.db = o->db, .tag = o->tag, .algorithm = o->algorithm, .dtype = o->dtype,
		.world = o->world, .write = o->write, .format = o->format, .wide = o->wide,
	};
	return best_defaults(&d);
}

int cmd_best(int argc, char **argv)
{
	struct best_opts o = { .format = FGO_FMT_TABLE };
	struct fgo_store *store = NULL;
	sqlite3_stmt *st = NULL;
	struct fgo_table *t = NULL;
	static struct floor_cache floors; /* ~9 KB a pair: not on the stack */
	int rc, step, any_floor = 0, got;
	struct floor_note untold = { 0 };

	if (cmd_wants_help(argc, argv))
		return cmd_help(cmd_best_usage);
	if ((rc = parse(argc, argv, &o)))
		return rc;
	if (o.write && !o.defaults)
		return cmd_usage_error("best", cmd_best_usage, "--write goes with --defaults");
	if (o.defaults)
		return defaults(&o);
	if (o.predict)
		return predict(&o);
	if (o.choice_text) /* the runs name their shot: as a filter it is ambiguous */
		return cmd_algorithm_filter("best", o.choice_text) ? FGO_OK : FGO_EUSAGE;
	if (!o.top)
		o.top = 1;
	if (o.cus || o.no_model)
		return cmd_usage_error("best", cmd_best_usage, "%s goes with --predict",
				       o.cus ? "--cus" : "--no-model");
	if (o.reproduce && (o.format != FGO_FMT_TABLE || o.wide))
		return cmd_usage_error("best", cmd_best_usage,
				       "--reproduce goes with the table (--wide, md, csv and json have a"
				       " reproduce column)");
	if ((rc = view_open(o.db, &store)))
		return rc;
	if ((rc = view_prepare(store, query, &st)))
		goto out;
	bind_long(st, 1, o.m);
	bind_long(st, 2, o.n);
	bind_long(st, 3, o.k);
	bind_text(st, 4, o.algorithm);
	bind_long(st, 5, o.world);
	bind_text(st, 6, o.dtype);
	bind_text(st, 7, o.tag);
	sqlite3_bind_int(st, 8, o.top);
	t = table_new((int)FGO_ARRAY_SIZE(headers), headers);
	memset(&floors, 0, sizeof floors);
	while (t && (step = sqlite3_step(st)) == SQLITE_ROW)
		if ((got = add_row(t, st, &floors)) < 0) {
			rc = FGO_EFAIL;
			goto out;
		} else {
			any_floor |= got;
			if (!got)
				floor_note_machine(&untold, store, st);
		}
	if (!t || step != SQLITE_DONE) {
		error("reading the store failed: %s", sqlite3_errmsg(store_db(store)));
		rc = FGO_EFAIL;
		goto out;
	}
	/* Nothing to show is bad input, as for plot: a tag, algorithm or
	 * size the store has nothing of (a typo: said, with the name it
	 * likely meant), or filters that match nothing together. A name this
	 * build does not know was looked up as given (a shared store may hold
	 * another build's algorithm). */
	if (table_rows(t) == 0) {
		char why[1024];
		struct view_filter f = { .m = o.m, .n = o.n, .k = o.k, .world = o.world,
					 .algorithm = o.algorithm, .dtype = o.dtype, .tag = o.tag };
		view_why_empty(store_db(store), cmd_db_path(o.db), &f, why, sizeof why);
		error("%s", why);
		rc = FGO_EUSAGE;
		goto out;
	}
	if (!any_floor && untold.n > 0) {
		/* once per store and machine: whoever reads it has been told
		 * where x_floor comes from (a store that cannot remember it
		 * says it again) */
		note("no read floor for these runs' machine: `fgobench calibrate` there measures it"
		     " (x_floor: a memory-bound run's time / the fastest read of its bytes; said once"
		     " per store and machine)");
		for (int i = 0; i < untold.n; i++)
			store_meta_remember(store, cmd_db_path(o.db), untold.key[i]);
	}
	if (print_best(t, any_floor, &o) != 0)
		rc = FGO_EFAIL;
out:
	table_free(t);
	sqlite3_finalize(st);
	store_close(store);
	return cmd_finish_stdout(rc);
}

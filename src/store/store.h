/* store.h: the SQLite store. Schema from db/schema.sql (embedded at build
 * time), versioned by PRAGMA user_version; WAL; one transaction per run.
 * Only world rank 0 ever opens a store for writing.
 *
 * Every function returns FGO_OK, FGO_EUSAGE (bad input: the file is not a
 * store, is newer, is read-only when writing, does not exist when reading)
 * or FGO_EFAIL (SQLite failed), with a one-line message in err where it takes
 * one. On error nothing already stored is changed. */
#ifndef FGO_STORE_H
#define FGO_STORE_H

#include <sqlite3.h>
#include <stdint.h>

#include "backend/result.h"
#include "config.h"
#include "model.h"
#include "trace/timeline.h"

#define FGO_SCHEMA_VERSION 10

struct fgo_store;

enum fgo_store_mode {
	FGO_STORE_READ = 0,   /* must exist and be a fgobench store; never written (an older
			       * one is read through an upgraded private copy) */
	FGO_STORE_WRITE = 1,  /* created with the schema when missing; migrated when older */
};

int store_open(const char *path, enum fgo_store_mode mode, struct fgo_store **out,
	       char *err, size_t len);
void store_close(struct fgo_store *st);
sqlite3 *store_db(struct fgo_store *st); /* for read queries in the cmd_* views */

/* store_check.c: FGO_OK when db has every table and column of the embedded
 * schema; else FGO_EUSAGE saying the store at path is damaged, what is
 * missing and that --db can point to a new store. */
int store_check_whole(sqlite3 *db, const char *path, char *err, size_t len);
/* "a directory", "a FIFO", "a socket", "a device" or "not a regular file",
 * for a path whose st_mode is mode. */
const char *store_file_kind(unsigned mode);

/* What went wrong with db's last call, for a message: SQLite's text, except
 * a busy store (another writer held the lock past the 10 s wait) and a full
 * disk (or a file size limit), which say so and what to do. */
const char *store_failure(sqlite3 *db);

/* Everything recorded about a sweep when it starts. */
struct fgo_sweep_info {
	const char *tag, *spec_path, *spec_name, *spec_text, *spec_hash, *command_line;
	const char *host, *version, *git_revision, *backend;
	const char *devices, *driver, *runtime, *arch;
	int mpi_ranks, iterations, warmup;
};

int store_sweep_begin(struct fgo_store *st, const struct fgo_sweep_info *info, int64_t *id,
		      char *err, size_t len);
/* status: "done", "failed" or "interrupted". */
int store_sweep_end(struct fgo_store *st, int64_t id, const char *status, char *err, size_t len);

/* The runs of a sweep that have an outcome (every status but 'started'),
 * and of them those ok. */
int store_sweep_stored(struct fgo_store *st, int64_t id, long *runs, long *ok, char *err,
		       size_t len);

/* For --resume: the newest sweep with this spec hash (and tag, when not
 * NULL), whatever its status: *id (0 when there is none) and *done (1 when
 * its status is "done": a finished sweep, nothing to resume; 0 when it is
 * running, failed or interrupted, to be reopened). Older sweeps never
 * count: once a newer one finished, an older unfinished one is history. */
int store_sweep_find_latest(struct fgo_store *st, const char *spec_hash, const char *tag,
			    int64_t *id, int *done, char *err, size_t len);
/* Marks a resumed sweep running again and every run it left 'started' as
 * 'failed' with reason "interrupted: ...", so a crash leaves an explanation. */
int store_sweep_reopen(struct fgo_store *st, int64_t id, int *stale_runs, char *err, size_t len);

/* store_faults.c: the run of config_key in the sweep stored with status
 * (FGO_CRASHED, FGO_HUNG) and reason, unless it is ok; *found says
 * whether a row was changed. */
int store_run_fault(struct fgo_store *st, int64_t sweep_id, const char *config_key, int status,
		    const char *reason, int *found, char *err, size_t len);
/* --retry-crashed: the sweep's crashed, hung and corrupted runs become
 * failed ("to run again"), which a resumed sweep runs; *count of them. */
int store_sweep_retry_faults(struct fgo_store *st, int64_t sweep_id, long *count, char *err,
			     size_t len);
/* The sweep's crashed, hung and corrupted runs, in counts[0..2]. */
int store_sweep_faults(struct fgo_store *st, int64_t sweep_id, long counts[3], char *err,
		       size_t len);

/* Status of cfg in the sweep (FGO_STARTED.. or -1 when no row) and its run id. */
int store_run_lookup(struct fgo_store *st, int64_t sweep_id, const struct fgo_config *cfg,
		     int *status, int64_t *run_id, char *err, size_t len);

/* Writes (or, on resume, resets) the row for cfg as 'started'; *run_id is its id. */
int store_run_started(struct fgo_store *st, int64_t sweep_id, const struct fgo_config *cfg,
		      int iterations, int warmup, int64_t *run_id, char *err, size_t len);

/* Completes a run in one transaction: every column from r, and its samples. */
/* Stores a run's result; problem_id (0: none) is the problem it shares
 * (store_problem_put), which then holds its baseline samples. */
int store_run_finish(struct fgo_store *st, int64_t run_id, int64_t problem_id,
		     const struct fgo_result *r, char *err, size_t len);

/* Records (or completes) the problem of cfg in the sweep from a run that
 * made its shared work (r->problem, and the baseline when this run
 * measured it), and gives its id. */
int store_problem_put(struct fgo_store *st, int64_t sweep_id, const struct fgo_config *cfg,
		      const struct fgo_result *r, int64_t *problem_id, char *err, size_t len);

/* The seconds rank 0 took to write run_id (its store_s, known only after). */
int store_run_store_time(struct fgo_store *st, int64_t run_id, double seconds, char *err,
			 size_t len);

/* The problem of a run's result: recorded when the run made its shared
 * work, else found; 0 when the run never reached its problem. */
int store_problem_of(struct fgo_store *st, int64_t sweep_id, const struct fgo_config *cfg,
		     const struct fgo_result *r, int64_t *problem_id, char *err, size_t len);

/* A batch: the run writes until store_batch_commit join one transaction,
 * so a sweep commits once per problem or per second rather than per run;
 * a crash loses at most the batch in flight (its runs keep the 'started'
 * rows written before, which --resume runs again). store_batch_forget
 * drops the batch of a store being closed (its transaction rolls back). */
int store_batch_begin(struct fgo_store *st, char *err, size_t len);
int store_batch_commit(struct fgo_store *st, char *err, size_t len);
void store_batch_forget(struct fgo_store *st);

/* Inserts a configuration that was never launched: status invalid + reason. */
int store_run_invalid(struct fgo_store *st, int64_t sweep_id, const struct fgo_config *cfg,
		      const char *reason, char *err, size_t len);

/* Ceilings. what: "matrix_peak" (TFLOP/s, per dtype), "memory_bw", "link_bw" (GB/s, dtype "").
 * store_ceiling_put stores the machine-wide value (detail ""). */
int store_ceiling_put(struct fgo_store *st, const char *machine, const char *backend,
		      const char *what, const char *dtype, double value, const char *unit,
		      char *err, size_t len);
/* A value with a detail saying what part of the machine it is of, e.g.
 * "gpu0->gpu1 sm" for one pair's link bandwidth by SM stores; detail "" or
 * NULL is the machine-wide value (the same as store_ceiling_put). */
int store_ceiling_put_detail(struct fgo_store *st, const char *machine, const char *backend,
			     const char *what, const char *dtype, const char *detail, double value,
			     const char *unit, char *err, size_t len);
/* Latest machine-wide value (detail ""), or *found = 0; per-pair values
 * never stand in for it. */
int store_ceiling_get(struct fgo_store *st, const char *machine, const char *backend,
		      const char *what, const char *dtype, double *value, int *found,
		      char *err, size_t len);
/* Latest value with this detail ("" or NULL: machine-wide), or *found = 0. */
int store_ceiling_get_detail(struct fgo_store *st, const char *machine, const char *backend,
			     const char *what, const char *dtype, const char *detail,
			     double *value, int *found, char *err, size_t len);

/* The cost model's fits (model_fits, src/model.h): a fit of core's
 * coefficients on machine and backend, with the ceilings its terms used
 * and source ("calibrate", "fit"). FGO_OK, FGO_EUSAGE for a coefficient
 * that is not finite, FGO_EFAIL. */
int store_model_put(struct fgo_store *st, const char *machine, const char *backend,
		    const char *core, const char *source, const struct model_machine *m,
		    const struct model_fit *f, char *err, size_t len);
/* The newest fit of core on machine and backend, or *found = 0;
 * fitted_at (may be NULL) gets its timestamp. */
int store_model_get(struct fgo_store *st, const char *machine, const char *backend,
		    const char *core, struct model_machine *m, struct model_fit *f,
		    char fitted_at[32], int *found, char *err, size_t len);

/* One row of world_predictions (best --predict --world). */
struct store_world_prediction {
	const char *machine, *backend, *algorithm, *dtype;
	const char *gemm_source, *link_source;
	int world;
	long m, n, k, gemm_m, gemm_n, gemm_k;
	double gemm_ms, link_gbps, comm_bytes, comm_ms, reduce_ms, fused_ms, baseline_ms, speedup;
	double measured_fused_ms, measured_baseline_ms; /* <= 0: none measured */
	const char *terms;         /* where the terms came from (NULL: not said) */
	const char *baseline_from; /* the collective's curve, or the ring */
	long err_runs;             /* stored runs the error is of (0: none: NULLs stored) */
	double err_rms, err_max;
};
int store_world_prediction_put(struct fgo_store *st, const struct store_world_prediction *p,
			       char *err, size_t len);

/* The multi-GPU terms of a fused family at W (world_fits, schema 7;
 * c_latency schema 9, 0 in a fit from before; src/tune/predict_world.h):
 * coef in predict_world.h's order (gemm, link, tile, wait, reduce,
 * latency); fitted names the terms the runs pinned, space-separated. */
#define STORE_WORLD_TERMS 7
struct store_world_fit {
	char algorithm[32];
	int world;
	long runs;
	double rms_rel_err, max_rel_err;
	double coef[STORE_WORLD_TERMS];
	char fitted[64];
	char fitted_at[32];
};
/* Stores f for machine and backend under source ("calibrate", "fit").
 * FGO_EUSAGE for a coefficient that is not finite or a world below 2. */
int store_world_fit_put(struct fgo_store *st, const char *machine, const char *backend,
			const char *source, const struct store_world_fit *f, char *err,
			size_t len);
/* The newest fit of algorithm at each W on machine and backend, W
 * ascending, at most cap into out; *n how many. */
int store_world_fits_get(struct fgo_store *st, const char *machine, const char *backend,
			 const char *algorithm, struct store_world_fit *out, int cap, int *n,
			 char *err, size_t len);

/* store_coll.c (schema 7): the vendor collective's curve (coll_curves,
 * coll_curve_points): n points (bytes ascending, seconds > 0) of
 * collective (fgo_collective_names) at world > 1 on machine and backend,
 * with the devices, the method and the repetitions. One transaction, or
 * part of an open batch (calibrate stores the curves with its ceilings,
 * all or nothing). FGO_EUSAGE for points out of order or not positive. */
#define STORE_COLL_POINTS 32
int store_coll_curve_put(struct fgo_store *st, const char *machine, const char *backend,
			 const char *devices, const char *collective, int world,
			 const char *method, int repetitions, const double *bytes,
			 const double *seconds, int n, char *err, size_t len);
struct store_coll_curve {
	char collective[16];
	int world;
	int n;
	double bytes[STORE_COLL_POINTS], seconds[STORE_COLL_POINTS];
	char measured_at[32];
};
/* The newest curve of each (collective, world) on machine and backend,
 * at most cap into out (collective, then W ascending); *n how many. */
int store_coll_curves_get(struct fgo_store *st, const char *machine, const char *backend,
			  struct store_coll_curve *out, int cap, int *n, char *err, size_t len);

/* Current UTC time as ISO-8601 ("2026-11-22T15:04:05Z"). */
void store_timestamp(char out[32]);

/* store_meta.c: the hints already given to a store's readers, in meta
 * (key 'said:...', value the time). store_meta_has: 1 when key is there.
 * store_meta_remember: records key through a write connection of its own
 * (the reader's stays read-only); FGO_OK, else FGO_EUSAGE (an older
 * store read through a copy, or one not writable: nothing is written) or
 * FGO_EFAIL. Either way the caller goes on: a hint not remembered is said
 * again next time. */
int store_meta_has(struct fgo_store *st, const char *key);
int store_meta_remember(struct fgo_store *reader, const char *path, const char *key);

/* store_trace.c: the summary of a traced run (traces, trace_ranks,
 * trace_waits), replacing one stored before for the same run. file: the
 * trace-event JSON as written. */
int store_trace_put(struct fgo_store *st, int64_t run_id, const char *file,
		    const struct fgo_trace_summary *s, char *err, size_t len);
/* The summary of run_id into *s (its ranks and waits malloc'd: free with
 * trace_summary_free) and its file into file; *found = 0 when the run was
 * not traced (or the store predates schema 5). */
int store_trace_get(sqlite3 *db, int64_t run_id, struct fgo_trace_summary *s, char *file,
		    size_t file_len, int *found, char *err, size_t len);

/* store_merge.c: `fgobench merge`: the sweeps of the stores at sources
 * (written on other machines: CI hosts' nightlies, a cluster's nodes)
 * added to the store at out, each with its provenance as stored (host,
 * devices, driver, version, git revision, command line) and every row
 * that depends on it (problems and their samples, runs, samples, traces)
 * under new ids, oldest sweep first; the machine-wide rows (ceilings,
 * model and world fits, world predictions, read floors, collective curves
 * with their points) added unless an equal row (every column but the id)
 * is there; meta is each store's own.
 *
 * A sweep of out with the same host, spec hash, tag and start is the same
 * sweep when they share a finished run (each run fingerprinted by its
 * config_key, status, start, end and median): with the same runs (and
 * status and end) it is there already, skipped, so a store merged twice
 * adds nothing; an earlier state of the source's (still running, or
 * resumed since, when it was merged: every finished run of out's copy is
 * in the source's, which has more or is no longer running) is replaced by
 * it, keeping its id; a later state is kept. Copies that each have
 * finished runs the other lacks: FGO_EUSAGE, nothing written. Without a
 * shared finished run (another round that started the same second) it
 * is added.
 *
 * Sources are read as every reader reads them (an older schema through an
 * upgraded private copy, the file untouched); a source that is out itself
 * is not read (is_output). out is a new file, made whole under the name
 * OUT.merge-XXXXXX beside it and linked into place (never over a file
 * that appeared meanwhile), or an existing store, upgraded when older and
 * added to in one transaction; either way PRAGMA foreign_key_check and
 * integrity_check pass before anything is kept. An out that is a symbolic
 * link, or a file that is not a store, is refused. dry_run: the same
 * work, in a private copy of out (or in memory), then dropped.
 *
 * FGO_OK, FGO_EUSAGE (a source or out unusable, a sweep in two states) or
 * FGO_EFAIL, with err; on error nothing was written. */
struct store_merge_source {
	const char *path;     /* in: the store */
	int version;          /* its schema version (-1: not read; older ones are read upgraded) */
	int is_output;        /* it is out itself: not read */
	long sweeps_added, sweeps_there;
	long sweeps_updated;  /* in out in an earlier state, replaced (keeping their ids) */
	long running;         /* of those added or updated, sweeps still running (or killed)
			       * when copied */
	long runs_added;      /* net: an updated sweep's runs less its earlier state's */
	long rows_added, rows_there; /* machine-wide rows */
	char hosts[160];      /* its sweeps' hosts, "a, b" ("" when it has no sweep) */
};
struct store_merge_total {
	int created;          /* out was made by this merge */
	long sweeps, hosts;   /* in out after the merge */
	char host_list[256];  /* "a, b" */
};
int store_merge(const char *out, struct store_merge_source *sources, int n, int dry_run,
		struct store_merge_total *total, char *err, size_t len);

#endif

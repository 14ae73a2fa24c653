-- 5.sql: upgrades a schema-4 store to schema 5 in place (store.c runs it in
-- one transaction and then sets user_version = 5). Every row is kept; every
-- run before it summed its split-K / Stream-K pieces as they arrived.
--   runs: deterministic (0 for every run before)
--   model_fits: the cost model's coefficients per machine and GEMM core
--   world_predictions: best --predict --world's predictions, with inputs
-- The result must match db/schema.sql; test_store_migrate.c compares the two.

ALTER TABLE runs ADD COLUMN deterministic INTEGER NOT NULL DEFAULT 0;

CREATE TABLE model_fits (
    id             INTEGER PRIMARY KEY,
    machine        TEXT NOT NULL,
    backend        TEXT NOT NULL,
    core           TEXT NOT NULL,
    source         TEXT NOT NULL,
    runs           INTEGER NOT NULL,
    rms_rel_err    REAL NOT NULL,
    median_rel_err REAL NOT NULL,
    max_rel_err    REAL NOT NULL,
    c_launch       REAL NOT NULL,
    c_compute      REAL NOT NULL,
    c_memory       REAL NOT NULL,
    c_reuse        REAL NOT NULL,
    c_units        REAL NOT NULL,
    c_stall        REAL NOT NULL,
    c_exchange     REAL NOT NULL,
    c_comm         REAL NOT NULL,
    peak_fp32      REAL NOT NULL,
    peak_fp16      REAL NOT NULL,
    peak_bf16      REAL NOT NULL,
    memory_gbps    REAL NOT NULL,
    link_gbps      REAL NOT NULL,
    cus            INTEGER NOT NULL,
    fitted_at      TEXT NOT NULL
);
CREATE INDEX model_fits_lookup ON model_fits(machine, backend, core);

CREATE TABLE world_predictions (
    id              INTEGER PRIMARY KEY,
    made_at         TEXT NOT NULL,
    machine         TEXT NOT NULL,
    backend         TEXT NOT NULL,
    algorithm       TEXT NOT NULL,
    dtype           TEXT NOT NULL,
    world           INTEGER NOT NULL,
    m               INTEGER NOT NULL,
    n               INTEGER NOT NULL,
    k               INTEGER NOT NULL,
    gemm_m          INTEGER NOT NULL,
    gemm_n          INTEGER NOT NULL,
    gemm_k          INTEGER NOT NULL,
    gemm_ms         REAL NOT NULL,
    gemm_source     TEXT NOT NULL,
    link_gbps       REAL NOT NULL,
    link_source     TEXT NOT NULL,
    comm_bytes      REAL NOT NULL,
    comm_ms         REAL NOT NULL,
    reduce_ms       REAL NOT NULL,
    fused_ms        REAL NOT NULL,
    baseline_ms     REAL NOT NULL,
    speedup         REAL NOT NULL,
    measured_fused_ms    REAL,
    measured_baseline_ms REAL
);
CREATE INDEX world_predictions_shape ON world_predictions(algorithm, dtype, world, m, n, k);

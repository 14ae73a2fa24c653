-- 5.sql: upgrades a schema-4 store to schema 5 in place (store.c runs it in
-- one transaction and then sets user_version = 5). Every row is kept; every
-- run before it summed its split-K / Stream-K pieces as they arrived, and
-- none was traced.
--   runs: deterministic (0 for every run before)
--   model_fits: the cost model's coefficients per machine and GEMM core
--   world_predictions: best --predict --world's predictions, with inputs
--   traces, trace_ranks, trace_waits: the summary of a traced run
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

CREATE TABLE traces (
    run_id       INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    file         TEXT NOT NULL,    -- the JSON as the tracing command named it
    traced_at    TEXT NOT NULL,
    world        INTEGER NOT NULL,
    ctas         INTEGER NOT NULL, -- CTAs with a kernel span, over the ranks
    events       INTEGER NOT NULL,
    dropped      INTEGER NOT NULL, -- past a CTA's buffer
    tiles        INTEGER NOT NULL, -- tiles computed, over the ranks
    kernel_us    REAL,             -- first CTA begin to last CTA end, over the ranks
    gemm_pct     REAL,             -- GEMM-busy: share of CTA time in tile GEMMs
    comm_pct     REAL,
    xchg_pct     REAL,
    wait_pct     REAL,
    idle_pct     REAL,
    hidden_pct   REAL,             -- communication time under GEMM on its rank (NULL: none)
    tail_us      REAL,             -- the largest rank's last tile end to its last CTA end
    skew_us      REAL,             -- the latest rank start less the earliest
    traced_ms    REAL,             -- median of the fused launch, traced
    untraced_ms  REAL,             -- the same untraced, timed beside it
    overhead_pct REAL              -- traced / untraced - 1, in %
);

CREATE TABLE trace_ranks (
    run_id     INTEGER NOT NULL REFERENCES traces(run_id) ON DELETE CASCADE,
    rank       INTEGER NOT NULL,
    start_us   REAL,                 -- first CTA begin, from the common zero
    end_us     REAL,
    tail_us    REAL,
    gemm_pct   REAL,
    hidden_pct REAL,
    PRIMARY KEY (run_id, rank)
) WITHOUT ROWID;

CREATE TABLE trace_waits (
    run_id  INTEGER NOT NULL REFERENCES traces(run_id) ON DELETE CASCADE,
    rank    INTEGER NOT NULL,
    peer    INTEGER NOT NULL,       -- whose data the rank waited for (-1: several)
    wait_us REAL NOT NULL,
    waits   INTEGER NOT NULL,
    PRIMARY KEY (run_id, rank, peer)
) WITHOUT ROWID;

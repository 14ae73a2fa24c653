-- fgobench-migration: foreign keys off
-- 10.sql: upgrades a schema-9 store to schema 10 in place (store.c runs it in
-- one transaction, with foreign keys off around it, and then sets
-- user_version = 10). Every row is kept.
--   runs.status: three more values a bad kernel leaves, 'crashed' (it killed
--   its process), 'hung' (past its time limit, its process stopped) and
--   'corrupted' (it wrote into its read-only inputs)
-- SQLite cannot change a CHECK constraint: runs is made again and its rows
-- copied (SQLite's procedure for other schema changes). runs is a parent
-- (samples and traces reference it ON DELETE CASCADE): with foreign keys off
-- the drop cascades nowhere, and the children name "runs", which the new
-- table is renamed to. Its indexes went with the old table and are made
-- again; store.c checks the foreign keys before the commit.
-- The result must match db/schema.sql; test_store_migrate.c compares the two.

CREATE TABLE runs_v10 (
    id              INTEGER PRIMARY KEY,
    sweep_id        INTEGER NOT NULL REFERENCES sweeps(id),
    config_key      TEXT NOT NULL,        -- canonical key of every field below
    config_hash     TEXT NOT NULL,
    algorithm       TEXT NOT NULL,
    dtype           TEXT NOT NULL,
    world           INTEGER NOT NULL,
    m               INTEGER NOT NULL,
    n               INTEGER NOT NULL,
    k               INTEGER NOT NULL,
    blk_m           INTEGER NOT NULL,
    blk_n           INTEGER NOT NULL,
    blk_k           INTEGER NOT NULL,
    num_stages      INTEGER NOT NULL,
    num_warps       INTEGER NOT NULL,
    mma             INTEGER NOT NULL,
    gsize_m         INTEGER NOT NULL,
    gemm_sms        INTEGER NOT NULL,
    comm_sms        INTEGER NOT NULL,
    comm_blk_m      INTEGER NOT NULL,
    comm_blk_n      INTEGER NOT NULL,
    status          TEXT NOT NULL
                    CHECK (status IN ('started', 'ok', 'invalid', 'mismatch', 'failed', 'timeout',
                                      'crashed', 'hung', 'corrupted')),
    reason          TEXT,                 -- why invalid / mismatch / failed / timeout / crashed / hung / corrupted
    iterations      INTEGER,
    warmup          INTEGER,
    t_fused_ms      REAL,                 -- median over iterations of the max over ranks
    t_fused_min_ms  REAL,
    t_fused_max_ms  REAL,
    t_fused_std_ms  REAL,
    t_gemm_ms       REAL,                 -- medians of the other three measurements
    t_comm_ms       REAL,
    t_baseline_ms   REAL,
    tflops_total    REAL,                 -- 2*M*N*K / t_fused, all ranks together
    tflops_per_rank REAL,                 -- tflops_total / world
    link_gbps       REAL,                 -- bytes on the busiest link / t_fused
    overlap         REAL,                 -- (t_gemm + t_comm - t_fused) / min(t_gemm, t_comm)
    speedup         REAL,                 -- t_baseline / t_fused
    sol             REAL,                 -- t_limit / t_fused (needs calibrated ceilings)
    validated       INTEGER NOT NULL DEFAULT 0,
    max_abs_err     REAL,
    max_rel_err     REAL,
    registers       INTEGER,
    shared_bytes    INTEGER,
    spills          INTEGER,
    started_at      TEXT NOT NULL,
    ended_at        TEXT,
    -- schema 2 (at the end, where ALTER TABLE ADD COLUMN puts them, so an
    -- upgraded store and a new one list the columns in the same order)
    t_bulk_ms       REAL,                 -- median of the bulk samples: own GEMM, then vendor collective
    sm_clock_mhz    REAL,                 -- mean over ranks and readings around the timed iterations
    mem_clock_mhz   REAL,                 --   (NULL: the backend cannot tell)
    temp_c          REAL,                 -- the highest temperature read during the run
    power_w         REAL,                 -- mean board power per device
    -- schema 3: the problem whose shared work this run used, and where its
    -- wall time went (seconds; the problem-level work is counted in the
    -- first run of its problem on a group)
    problem_id      INTEGER REFERENCES problems(id),
    load_s          REAL,                 -- prepare: kernel from the cache, module load
    inputs_s        REAL,                 -- inputs made on the device (or host) for the problem
    validate_s      REAL,                 -- reference (first run), poison, launch, compare
    time_s          REAL,                 -- the timed measurements (fused, gemm, comm, bulk)
    baseline_s      REAL,                 -- the vendor baseline (first run of the problem)
    store_s         REAL,                 -- rank 0 writing the run
    split_k         INTEGER NOT NULL DEFAULT 1, -- K slices per tile (config_key says /skN when not 1)
    deterministic   INTEGER NOT NULL DEFAULT 0, -- 1: partial sums in a fixed order (config_key says /det)
    -- schema 6: a user kernel's run (algorithm user:NAME; NULL for the
    -- built-in families): its manifest as the sweep opened it, the hash of
    -- the manifest and its sources (config_key ends /src:HASH), its
    -- tunables NAME=V,... (config_key has /u:PARAMS)
    kernel_manifest TEXT,
    kernel_hash     TEXT,
    kernel_params   TEXT,
    -- schema 8 (at the end, where ALTER TABLE ADD COLUMN puts it)
    cluster         INTEGER NOT NULL DEFAULT 1 -- CTAs per thread block cluster (config_key says /clN when > 1)
);
INSERT INTO runs_v10 SELECT * FROM runs;
DROP TABLE runs;
ALTER TABLE runs_v10 RENAME TO runs;
CREATE INDEX runs_sweep ON runs(sweep_id);
CREATE INDEX runs_shape ON runs(algorithm, dtype, world, m, n, k);
CREATE UNIQUE INDEX runs_sweep_config ON runs(sweep_id, config_key);

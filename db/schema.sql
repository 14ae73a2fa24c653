-- fgobench store: the one source of the schema (embedded in the binary at build time).
-- PRAGMA user_version holds the schema version; db/migrations/N.sql upgrades N-1 to N.
-- Times are milliseconds; timestamps are UTC ISO-8601 text.

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
-- meta('application') = 'fgobench' marks a file as a fgobench store.

CREATE TABLE sweeps (
    id               INTEGER PRIMARY KEY,
    tag              TEXT,                -- user label (--tag), e.g. nightly-2026-11-21
    spec_path        TEXT,
    spec_name        TEXT,
    spec_text        TEXT,
    spec_hash        TEXT,
    command_line     TEXT,
    host             TEXT,
    fgobench_version TEXT,
    git_revision     TEXT,
    backend          TEXT,                -- cpu | gpu
    devices          TEXT,
    driver           TEXT,
    runtime          TEXT,
    arch             TEXT,
    mpi_ranks        INTEGER,
    iterations       INTEGER,
    warmup           INTEGER,
    started_at       TEXT NOT NULL,
    ended_at         TEXT,
    status           TEXT NOT NULL DEFAULT 'running'
                     CHECK (status IN ('running', 'done', 'failed', 'interrupted'))
);
CREATE INDEX sweeps_tag ON sweeps(tag);

CREATE TABLE runs (
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
CREATE INDEX runs_sweep ON runs(sweep_id);
CREATE INDEX runs_shape ON runs(algorithm, dtype, world, m, n, k);
CREATE UNIQUE INDEX runs_sweep_config ON runs(sweep_id, config_key);

-- schema 3: what the runs of one problem (algorithm, dtype, world, M, N, K)
-- of a sweep share, made and measured once: the inputs' seed, the
-- reference every run's whole output is compared with, and the vendor
-- baseline (its median is also copied into each run's t_baseline_ms).
CREATE TABLE problems (
    id                    INTEGER PRIMARY KEY,
    sweep_id              INTEGER NOT NULL REFERENCES sweeps(id),
    algorithm             TEXT NOT NULL,
    dtype                 TEXT NOT NULL,
    world                 INTEGER NOT NULL,
    m                     INTEGER NOT NULL,
    n                     INTEGER NOT NULL,
    k                     INTEGER NOT NULL,
    seed                  TEXT NOT NULL,  -- of the inputs (check.h's input_value), hex
    check_method          TEXT,           -- 'reference': every element against a reference checked
                                          -- on the host; NULL: the runs were not validated
    reference_checked     INTEGER,        -- reference elements checked against double on the host
    reference_max_rel_err REAL,
    t_baseline_ms         REAL,           -- median of the baseline samples
    t_baseline_min_ms     REAL,
    t_baseline_max_ms     REAL,
    inputs_s              REAL,           -- seconds spent making the inputs, the reference, the baseline
    reference_s           REAL,
    baseline_s            REAL
);
CREATE UNIQUE INDEX problems_key ON problems(sweep_id, algorithm, dtype, world, m, n, k);

CREATE TABLE problem_samples (
    problem_id INTEGER NOT NULL REFERENCES problems(id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind IN ('baseline')),
    iteration  INTEGER NOT NULL,
    ms         REAL NOT NULL,
    PRIMARY KEY (problem_id, kind, iteration)
) WITHOUT ROWID;

CREATE TABLE samples (
    run_id    INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    kind      TEXT NOT NULL CHECK (kind IN ('fused', 'gemm', 'comm', 'baseline', 'bulk')),
    iteration INTEGER NOT NULL,
    ms        REAL NOT NULL,              -- max over ranks of this iteration
    PRIMARY KEY (run_id, kind, iteration)
) WITHOUT ROWID;

CREATE TABLE ceilings (
    id          INTEGER PRIMARY KEY,
    machine     TEXT NOT NULL,            -- host name (or a label)
    backend     TEXT NOT NULL,
    what        TEXT NOT NULL
                CHECK (what IN ('matrix_peak', 'memory_bw', 'link_bw')),
    dtype       TEXT NOT NULL DEFAULT '', -- for matrix_peak
    value       REAL NOT NULL,            -- TFLOP/s for matrix_peak, GB/s otherwise
    unit        TEXT NOT NULL,
    measured_at TEXT NOT NULL,
    detail      TEXT NOT NULL DEFAULT ''  -- schema 2: what a partial value is of, e.g. 'gpu0->gpu1 sm'
                                          -- ('' for the machine-wide value)
);
CREATE INDEX ceilings_lookup ON ceilings(machine, backend, what, dtype, detail);

-- schema 5: the cost model of each GEMM core on a machine (src/model.h),
-- fitted by calibrate or `calibrate --fit` to the machine's stored runs:
-- its coefficients (c_*: one per term, model.h says what each means), the
-- ceilings its terms were computed with, and how well it fits them.
CREATE TABLE model_fits (
    id             INTEGER PRIMARY KEY,
    machine        TEXT NOT NULL,             -- host name, as ceilings.machine
    backend        TEXT NOT NULL,
    core           TEXT NOT NULL,             -- wgmma | mma16 | mma32 | simt
    source         TEXT NOT NULL,             -- what fitted it: calibrate | fit
    runs           INTEGER NOT NULL,          -- ok runs fitted
    rms_rel_err    REAL NOT NULL,             -- on them: (predicted - measured) / measured
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
    peak_fp32      REAL NOT NULL,             -- TFLOP/s the terms used
    peak_fp16      REAL NOT NULL,
    peak_bf16      REAL NOT NULL,
    memory_gbps    REAL NOT NULL,
    link_gbps      REAL NOT NULL,             -- 0: none known (no comm term)
    cus            INTEGER NOT NULL,          -- compute units (SMs; 1 on the CPU)
    fitted_at      TEXT NOT NULL
);
CREATE INDEX model_fits_lookup ON model_fits(machine, backend, core);

-- schema 5: what `best --predict --world W` predicted for a fused family at
-- W ranks from one GPU (src/tune/predict_world.h), with its inputs, and the
-- best measured times at W where the store had them then.
CREATE TABLE world_predictions (
    id              INTEGER PRIMARY KEY,
    made_at         TEXT NOT NULL,
    machine         TEXT NOT NULL,            -- whose runs and ceilings
    backend         TEXT NOT NULL,
    algorithm       TEXT NOT NULL,
    dtype           TEXT NOT NULL,
    world           INTEGER NOT NULL,
    m               INTEGER NOT NULL,
    n               INTEGER NOT NULL,
    k               INTEGER NOT NULL,
    gemm_m          INTEGER NOT NULL,         -- the per-rank GEMM
    gemm_n          INTEGER NOT NULL,
    gemm_k          INTEGER NOT NULL,
    gemm_ms         REAL NOT NULL,
    gemm_source     TEXT NOT NULL,            -- 'measured' or 'model'
    link_gbps       REAL NOT NULL,            -- egress of one GPU to all peers
    link_source     TEXT NOT NULL,            -- ceilings.unit: measured or stated
    comm_bytes      REAL NOT NULL,            -- one rank's egress
    comm_ms         REAL NOT NULL,
    reduce_ms       REAL NOT NULL,
    fused_ms        REAL NOT NULL,
    baseline_ms     REAL NOT NULL,            -- GEMM then the collective
    speedup         REAL NOT NULL,
    measured_fused_ms    REAL,                -- best ok run at W then (NULL: none)
    measured_baseline_ms REAL,
    -- schema 7: where the terms came from, and the model's error on the
    -- stored runs of the family at W then (NULL: none to judge it on)
    terms           TEXT,                     -- "gemm, link fitted at W=2; ..." (world_coef_text)
    baseline_from   TEXT,                     -- "the all_gather curve at W=2 (...)" or the ring
    err_runs        INTEGER,
    err_rms         REAL,                     -- sqrt(mean(predicted / measured - 1)^2)
    err_max         REAL                      -- max |predicted / measured - 1|
);
CREATE INDEX world_predictions_shape ON world_predictions(algorithm, dtype, world, m, n, k);

-- schema 4: the read floor, measured by `fgobench calibrate`: the fastest
-- streaming read of N bytes on one device, timed as runs are timed (L2
-- flushed before, events around one launch on a GPU; a monotonic clock
-- around one read on the CPU). One curve per calibrate, keyed like the
-- ceilings by (machine, backend); views use the newest curve of a run's.
CREATE TABLE read_floors (
    id          INTEGER PRIMARY KEY,
    machine     TEXT NOT NULL,            -- host name, as ceilings.machine
    backend     TEXT NOT NULL,            -- as ceilings.backend
    devices     TEXT NOT NULL DEFAULT '', -- the devices measured (backend describe)
    method      TEXT NOT NULL,            -- how a point was timed, for people
    repetitions INTEGER NOT NULL,         -- timed reads per point; a point is their minimum
    measured_at TEXT NOT NULL
);
CREATE INDEX read_floors_lookup ON read_floors(machine, backend);

CREATE TABLE read_floor_points (
    floor_id INTEGER NOT NULL REFERENCES read_floors(id) ON DELETE CASCADE,
    bytes    INTEGER NOT NULL CHECK (bytes > 0),
    seconds  REAL NOT NULL CHECK (seconds > 0), -- the slowest rank's best read of bytes
    PRIMARY KEY (floor_id, bytes)
) WITHOUT ROWID;

-- schema 5: the timeline of a traced run (`run --trace`, `sweep --trace
-- best`): the trace-event JSON written and its summary. CTA time is the
-- sum over CTAs of their kernel spans; its shares (gemm, comm: puts and
-- reductions, xchg: Stream-K and split-K hand-overs and take-overs, wait:
-- flag waits, idle) add up to 100, each instant counted once.
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

-- schema 7: the vendor collective's time against the bytes of its whole
-- buffer (nccl-tests' size: the all-gather's output, the all-reduce's
-- buffer, the reduce-scatter's input), measured by `fgobench calibrate` at
-- each world size it could form on one node (NCCL on GPUs, MPI on CPU);
-- ranks sharing a GPU have no link between them and store no curve. One
-- curve per collective and W per calibrate; best --predict --world reads
-- the newest for the vendor baseline (src/tune/coll_curve.h).
CREATE TABLE coll_curves (
    id          INTEGER PRIMARY KEY,
    machine     TEXT NOT NULL,            -- host name, as ceilings.machine
    backend     TEXT NOT NULL,
    devices     TEXT NOT NULL DEFAULT '', -- the devices measured (backend describe)
    collective  TEXT NOT NULL
                CHECK (collective IN ('all_gather', 'all_reduce', 'reduce_scatter')),
    world       INTEGER NOT NULL CHECK (world > 1),
    method      TEXT NOT NULL,            -- how a point was timed, for people
    repetitions INTEGER NOT NULL,         -- timed calls per point; a point is their minimum
    measured_at TEXT NOT NULL
);
CREATE INDEX coll_curves_lookup ON coll_curves(machine, backend, collective, world);

CREATE TABLE coll_curve_points (
    curve_id INTEGER NOT NULL REFERENCES coll_curves(id) ON DELETE CASCADE,
    bytes    INTEGER NOT NULL CHECK (bytes > 0),
    seconds  REAL NOT NULL CHECK (seconds > 0), -- the slowest rank's best call
    PRIMARY KEY (curve_id, bytes)
) WITHOUT ROWID;

-- schema 7: the multi-GPU terms of a fused family at W (src/tune/
-- predict_world.h), fitted by calibrate (or `calibrate --fit`) to the
-- machine's ok runs of the family at W on W devices: c_gemm the per-rank
-- GEMM's factor, c_link ms per ms at 1 GB/s of egress (1 / the achieved
-- GB/s), c_tile the exposed unit's factor, c_wait us of waits, c_reduce
-- 1 / the reduction's read GB/s. A term the runs could not pin holds the
-- ceilings' value and is left out of fitted.
CREATE TABLE world_fits (
    id          INTEGER PRIMARY KEY,
    machine     TEXT NOT NULL,
    backend     TEXT NOT NULL,
    algorithm   TEXT NOT NULL,
    world       INTEGER NOT NULL CHECK (world > 1),
    source      TEXT NOT NULL,            -- calibrate | fit
    runs        INTEGER NOT NULL,
    rms_rel_err REAL NOT NULL,
    max_rel_err REAL NOT NULL,
    c_gemm      REAL NOT NULL,
    c_link      REAL NOT NULL,
    c_tile      REAL NOT NULL,
    c_wait      REAL NOT NULL,
    c_reduce    REAL NOT NULL,
    fitted      TEXT NOT NULL,            -- the terms the runs pinned, space-separated
    fitted_at   TEXT NOT NULL,
    -- schema 9: the link side at no bytes (us); the share of the shorter side exposed
    c_latency   REAL NOT NULL DEFAULT 0,
    c_share     REAL NOT NULL DEFAULT 0
);
CREATE INDEX world_fits_lookup ON world_fits(machine, backend, algorithm, world);

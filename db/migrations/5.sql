-- 5.sql: upgrades a schema-4 store to schema 5 in place (store.c runs it in
-- one transaction and then sets user_version = 5). Every row is kept; old
-- runs have no timeline (nothing was traced).
--   traces, trace_ranks, trace_waits: the summary of a traced run
-- The result must match db/schema.sql; test_store_migrate.c compares the two.

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

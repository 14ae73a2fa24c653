-- 2.sql: upgrades a schema-1 store to schema 2 in place (store.c runs it in
-- one transaction and then sets user_version = 2). Every row is kept.
--   runs:     t_bulk_ms (own GEMM then vendor collective) and device telemetry
--   samples:  kind 'bulk'
--   ceilings: detail (what a partial value is of, e.g. 'gpu0->gpu1 sm')
-- The result must match db/schema.sql; test_store_migrate.c compares the two.

ALTER TABLE runs ADD COLUMN t_bulk_ms REAL;
ALTER TABLE runs ADD COLUMN sm_clock_mhz REAL;
ALTER TABLE runs ADD COLUMN mem_clock_mhz REAL;
ALTER TABLE runs ADD COLUMN temp_c REAL;
ALTER TABLE runs ADD COLUMN power_w REAL;

ALTER TABLE ceilings ADD COLUMN detail TEXT NOT NULL DEFAULT '';
DROP INDEX ceilings_lookup;
CREATE INDEX ceilings_lookup ON ceilings(machine, backend, what, dtype, detail);

-- SQLite cannot change a CHECK constraint: the samples table is made again
-- with the new one and the rows copied over. samples is a child table only
-- (nothing references it), so dropping the old one cascades nowhere.
ALTER TABLE samples RENAME TO samples_v1;
CREATE TABLE samples (
    run_id    INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    kind      TEXT NOT NULL CHECK (kind IN ('fused', 'gemm', 'comm', 'baseline', 'bulk')),
    iteration INTEGER NOT NULL,
    ms        REAL NOT NULL,              -- max over ranks of this iteration
    PRIMARY KEY (run_id, kind, iteration)
) WITHOUT ROWID;
INSERT INTO samples (run_id, kind, iteration, ms)
    SELECT run_id, kind, iteration, ms FROM samples_v1;
DROP TABLE samples_v1;

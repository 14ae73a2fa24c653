-- 3.sql: upgrades a schema-2 store to schema 3 in place (store.c runs it in
-- one transaction and then sets user_version = 3). Every row is kept; old
-- runs have no problem (problem_id NULL) and no phase times.
--   problems, problem_samples: what the runs of one problem share
--   runs: problem_id, the phase times and split_k (1 for every run before)
-- The result must match db/schema.sql; test_store_migrate.c compares the two.

CREATE TABLE problems (
    id                    INTEGER PRIMARY KEY,
    sweep_id              INTEGER NOT NULL REFERENCES sweeps(id),
    algorithm             TEXT NOT NULL,
    dtype                 TEXT NOT NULL,
    world                 INTEGER NOT NULL,
    m                     INTEGER NOT NULL,
    n                     INTEGER NOT NULL,
    k                     INTEGER NOT NULL,
    seed                  TEXT NOT NULL,
    check_method          TEXT,
    reference_checked     INTEGER,
    reference_max_rel_err REAL,
    t_baseline_ms         REAL,
    t_baseline_min_ms     REAL,
    t_baseline_max_ms     REAL,
    inputs_s              REAL,
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

ALTER TABLE runs ADD COLUMN problem_id INTEGER REFERENCES problems(id);
ALTER TABLE runs ADD COLUMN load_s REAL;
ALTER TABLE runs ADD COLUMN inputs_s REAL;
ALTER TABLE runs ADD COLUMN validate_s REAL;
ALTER TABLE runs ADD COLUMN time_s REAL;
ALTER TABLE runs ADD COLUMN baseline_s REAL;
ALTER TABLE runs ADD COLUMN store_s REAL;
ALTER TABLE runs ADD COLUMN split_k INTEGER NOT NULL DEFAULT 1;

-- 7.sql: upgrades a schema-6 store to schema 7 in place (store.c runs it in
-- one transaction and then sets user_version = 7). Every row is kept; no
-- calibrate before it measured a collective curve, and no prediction said
-- where its terms came from.
--   world_predictions: terms, baseline_from, err_runs, err_rms, err_max
--   coll_curves, coll_curve_points: the vendor collective's time against bytes
--   world_fits: the multi-GPU terms of each fused family at W
-- The result must match db/schema.sql; test_store_migrate.c compares the two.

ALTER TABLE world_predictions ADD COLUMN terms TEXT;
ALTER TABLE world_predictions ADD COLUMN baseline_from TEXT;
ALTER TABLE world_predictions ADD COLUMN err_runs INTEGER;
ALTER TABLE world_predictions ADD COLUMN err_rms REAL;
ALTER TABLE world_predictions ADD COLUMN err_max REAL;

CREATE TABLE coll_curves (
    id          INTEGER PRIMARY KEY,
    machine     TEXT NOT NULL,
    backend     TEXT NOT NULL,
    devices     TEXT NOT NULL DEFAULT '',
    collective  TEXT NOT NULL
                CHECK (collective IN ('all_gather', 'all_reduce', 'reduce_scatter')),
    world       INTEGER NOT NULL CHECK (world > 1),
    method      TEXT NOT NULL,
    repetitions INTEGER NOT NULL,
    measured_at TEXT NOT NULL
);
CREATE INDEX coll_curves_lookup ON coll_curves(machine, backend, collective, world);

CREATE TABLE coll_curve_points (
    curve_id INTEGER NOT NULL REFERENCES coll_curves(id) ON DELETE CASCADE,
    bytes    INTEGER NOT NULL CHECK (bytes > 0),
    seconds  REAL NOT NULL CHECK (seconds > 0),
    PRIMARY KEY (curve_id, bytes)
) WITHOUT ROWID;

CREATE TABLE world_fits (
    id          INTEGER PRIMARY KEY,
    machine     TEXT NOT NULL,
    backend     TEXT NOT NULL,
    algorithm   TEXT NOT NULL,
    world       INTEGER NOT NULL CHECK (world > 1),
    source      TEXT NOT NULL,
    runs        INTEGER NOT NULL,
    rms_rel_err REAL NOT NULL,
    max_rel_err REAL NOT NULL,
    c_gemm      REAL NOT NULL,
    c_link      REAL NOT NULL,
    c_tile      REAL NOT NULL,
    c_wait      REAL NOT NULL,
    c_reduce    REAL NOT NULL,
    fitted      TEXT NOT NULL,
    fitted_at   TEXT NOT NULL
);
CREATE INDEX world_fits_lookup ON world_fits(machine, backend, algorithm, world);

-- 4.sql: upgrades a schema-3 store to schema 4 in place (store.c runs it in
-- one transaction and then sets user_version = 4). Every row is kept; old
-- stores have no read floor until the next `fgobench calibrate`.
--   read_floors, read_floor_points: the read-floor curve of each calibrate
-- The result must match db/schema.sql; test_store_migrate.c compares the two.

CREATE TABLE read_floors (
    id          INTEGER PRIMARY KEY,
    machine     TEXT NOT NULL,
    backend     TEXT NOT NULL,
    devices     TEXT NOT NULL DEFAULT '',
    method      TEXT NOT NULL,
    repetitions INTEGER NOT NULL,
    measured_at TEXT NOT NULL
);
CREATE INDEX read_floors_lookup ON read_floors(machine, backend);

CREATE TABLE read_floor_points (
    floor_id INTEGER NOT NULL REFERENCES read_floors(id) ON DELETE CASCADE,
    bytes    INTEGER NOT NULL CHECK (bytes > 0),
    seconds  REAL NOT NULL CHECK (seconds > 0),
    PRIMARY KEY (floor_id, bytes)
) WITHOUT ROWID;

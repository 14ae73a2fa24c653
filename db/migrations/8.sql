-- 8.sql: upgrades a schema-7 store to schema 8 in place (store.c runs it in
-- one transaction and then sets user_version = 8). Every row is kept; every
-- run before it ran without thread block clusters.
--   runs: cluster (1 for every run before)
-- The result must match db/schema.sql; test_store_migrate.c compares the two.

ALTER TABLE runs ADD COLUMN cluster INTEGER NOT NULL DEFAULT 1;

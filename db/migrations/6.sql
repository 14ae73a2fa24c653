-- 6.sql: upgrades a schema-5 store to schema 6 in place (store.c runs it in
-- one transaction and then sets user_version = 6). Every row is kept; every
-- run before it is of a built-in family (the three columns NULL).
--   runs: kernel_manifest, kernel_hash, kernel_params (a user kernel's)
-- The result must match db/schema.sql; test_store_migrate.c compares the two.

ALTER TABLE runs ADD COLUMN kernel_manifest TEXT;
ALTER TABLE runs ADD COLUMN kernel_hash TEXT;
ALTER TABLE runs ADD COLUMN kernel_params TEXT;

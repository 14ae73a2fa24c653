-- 9.sql: upgrades a schema-8 store to schema 9 in place (store.c runs it in
-- one transaction and then sets user_version = 9). Every row is kept; no
-- multi-GPU fit before it had a link latency, so each stored fit reads 0
-- (the fitted text does not name "latency": the term was not fitted).
--   world_fits: c_latency (the link side at no bytes, us; 0 for every fit before)
-- The result must match db/schema.sql; test_store_migrate.c compares the two.

ALTER TABLE world_fits ADD COLUMN c_latency REAL NOT NULL DEFAULT 0;
ALTER TABLE world_fits ADD COLUMN c_share REAL NOT NULL DEFAULT 0;

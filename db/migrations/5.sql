-- 5.sql: upgrades a schema-4 store to schema 5 in place (store.c runs it in
-- one transaction and then sets user_version = 5). Every row is kept; every
-- run before it summed its split-K / Stream-K pieces as they arrived.
--   runs: deterministic (0 for every run before)
-- The result must match db/schema.sql; test_store_migrate.c compares the two.

ALTER TABLE runs ADD COLUMN deterministic INTEGER NOT NULL DEFAULT 0;

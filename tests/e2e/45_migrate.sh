# 45_migrate.sh: a store written by schema version 1 (tests/unit/schema_v1.sql,
# checked against git history where git has it) is read by the views without
# a byte changing, then upgraded in place by a sweep that resumes into it:
# every row kept, the runs added after the upgrade carry telemetry.
. tests/e2e/lib.sh

v1=tests/unit/schema_v1.sql
if git cat-file -e 28c4077:db/schema.sql 2>/dev/null; then
	check mig-1.1 "$v1 is schema 1 as git holds it" sh -c "git show 28c4077:db/schema.sql | cmp -s - $v1"
fi

# A real sweep copied column by column into a schema-1 file, then cut short
# as a crash would leave it: its last runs missing, the sweep interrupted.
mpi 2 sweep tests/e2e/tiny.json --tag mig --quiet >/dev/null 2>&1
planned=$(sql "select count(*) from runs")
old="$T/v1.db"
sqlite3 "$old" < "$v1"
for t in sweeps runs samples ceilings; do
	c=$(sqlite3 "$old" "select group_concat(name, ', ') from pragma_table_info('$t')")
	sqlite3 "$old" "attach '$FGOBENCH_DB' as new; insert into main.$t ($c) select $c from new.$t"
done
sqlite3 "$old" "insert into meta values ('application', 'fgobench'), ('schema_version', '1');
	pragma user_version = 1;
	delete from samples where run_id in (select id from runs order by id desc limit 3);
	delete from runs where id in (select id from runs order by id desc limit 3);
	update sweeps set status = 'interrupted'"
v1_runs=$(sqlite3 "$old" "select group_concat(name, ' || ''|'' || ') from pragma_table_info('runs')")
runs_before=$(sql "select $v1_runs from runs order by id" "$old" | md5sum)
samples_before=$(sql "select run_id, kind, iteration, ms from samples order by 1, 2, 3" "$old" | md5sum)
kept=$(sql "select count(*) from runs" "$old")
check mig-1.2 "the schema-1 store holds $kept of $planned runs" [ "$kept" -eq $((planned - 3)) ]

# Reading: every view works, the file stays as schema 1 wrote it.
sum=$(md5sum < "$old")
expect_exit mig-2.1 0 "$FGO" list --db "$old" --format csv
check mig-2.2 "list shows the schema-1 sweep" grep -q ",mig," "$T/out"
expect_exit mig-2.3 0 "$FGO" best --db "$old" --format csv
check mig-2.4 "best answers from the schema-1 runs" grep -q "all_scatter" "$T/out"
expect_exit mig-2.5 0 "$FGO" show 1 --db "$old" --format csv
check mig-2.6 "show lists the new columns" sh -c "head -1 '$T/out' | grep -q ',t_bulk_ms,sm_clock_mhz,mem_clock_mhz,temp_c,power_w,'"
expect_exit mig-2.7 0 "$FGO" regress --db "$old" --base mig --head mig
expect_eq mig-2.8 "$sum" "$(md5sum < "$old")"
expect_eq mig-2.9 "1" "$(sql "pragma user_version" "$old")"
check mig-2.10 "no side files after reading" sh -c "! ls '$old'-* 2>/dev/null | grep -q ."

# Writing: the resumed sweep upgrades the store and finishes the sweep.
expect_exit mig-3.1 0 mpi 2 sweep tests/e2e/tiny.json --tag mig --resume --db "$old" --quiet
expect_eq mig-3.2 "5 5" "$(sql "select (select value from meta where key = 'schema_version'), user_version from pragma_user_version" "$old" | tr '|' ' ')"
expect_eq mig-3.3 "1 done $planned $planned" "$(sql "select count(*), max(status), (select count(*) from runs), (select count(*) from runs where status = 'ok') from sweeps" "$old" | tr '|' ' ')"
expect_eq mig-3.4 "$runs_before" "$(sql "select $v1_runs from runs where id <= (select max(id) from runs) - 3 order by id" "$old" | md5sum)"
expect_eq mig-3.5 "$samples_before" "$(sql "select run_id, kind, iteration, ms from samples where run_id <= (select max(id) from runs) - 3 order by 1, 2, 3" "$old" | md5sum)"
if grep -q '^cpu MHz' /proc/cpuinfo; then want="0 3"; else want="0 0"; fi
expect_eq mig-3.6 "$want" "$(sql "select count(*) filter (where id <= (select max(id) from runs) - 3 and sm_clock_mhz is not null), count(*) filter (where id > (select max(id) from runs) - 3 and sm_clock_mhz > 0) from runs" "$old" | tr '|' ' ')"
expect_eq mig-3.7 ok "$(sql "pragma integrity_check" "$old")"
expect_eq mig-3.8 "" "$(sql "pragma foreign_key_check" "$old")"

# A store newer than this fgobench: refused, exit 2, untouched.
sqlite3 "$old" "pragma user_version = 6"
sum=$(md5sum < "$old")
expect_exit mig-4.1 2 "$FGO" list --db "$old"
expect_err mig-4.2 "schema version 6, this fgobench reads up to 5"
expect_exit mig-4.3 2 mpi 2 sweep tests/e2e/tiny.json --db "$old" --quiet
expect_eq mig-4.4 "$sum" "$(md5sum < "$old")"

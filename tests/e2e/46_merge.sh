# 46_merge.sh: `fgobench merge` of two machines' nightlies (made in SQL from
# one real sweep of tiny.json, as 21_gate.sh makes nights, so the verdicts
# depend on the data only): every row and each sweep's provenance kept,
# merging again adds nothing, the gate, regress and history read the
# merged store per machine (the same answers as each machine's own store),
# an older schema is read upgraded, a sweep in another state and outputs
# that are links or not stores are refused with nothing written.
. tests/e2e/lib.sh

A=$T/a.db B=$T/b.db ALL=$T/all.db
expect_exit merge-0.1 0 mpi 2 sweep tests/e2e/tiny.json --tag n1 --quiet --iterations 3 --db "$A"
sql "UPDATE runs SET t_fused_ms = 1 + (id % 7) / 10.0, t_baseline_ms = 2 + (id % 3) / 10.0" "$A"
cp "$A" "$B"

# night DB TAG FUSED: three rounds of TAG copied from sweep 1, each with its
# own factor, the fused times by the SQL expression FUSED of r (the run)
night() {
	for f in 1.3 0.9 1.0; do
		sql "INSERT INTO sweeps (tag, spec_name, spec_hash, host, backend, devices, git_revision,
			started_at, status)
			SELECT '$2', spec_name, spec_hash, host, backend, devices, git_revision, started_at, 'done'
			FROM sweeps WHERE id = 1;
		CREATE TEMP TABLE r AS SELECT * FROM runs WHERE sweep_id = 1;
		UPDATE r SET id = id + (SELECT max(id) FROM runs), sweep_id = (SELECT max(id) FROM sweeps),
			t_fused_ms = $f * ($3), t_baseline_ms = $f * r.t_baseline_ms;
		INSERT INTO runs SELECT * FROM r" "$1"
	done
}
# machine ci-a got 30% slower in its second night; ci-b did not
night "$A" base 'r.t_fused_ms'
night "$A" head 'r.t_fused_ms * 1.3'
night "$B" base 'r.t_fused_ms * 2'
night "$B" head 'r.t_fused_ms * 2 * (1 + (r.id % 5 - 2) / 100.0)'
sql "UPDATE sweeps SET host = 'ci-a', git_revision = 'rev-a'" "$A"
sql "UPDATE sweeps SET host = 'ci-b', git_revision = 'rev-b', devices = 'cpu: other'" "$B"
configs=$(sql "select count(*) from runs where sweep_id = 1" "$A")
per_store=$(sql "select count(*) from sweeps" "$A")
sum_a=$(md5sum < "$A")

# ---- merged into a new store ----
expect_exit merge-1.1 0 "$FGO" merge "$A" "$B" -o "$ALL" --format csv
expect_eq merge-1.2 "$A,10,ci-a,$per_store,0,0,$(sql "select count(*) from runs" "$A"),0,0" "$(sed -n 2p "$T/out")"
expect_err merge-1.3 "a new store): $((2 * per_store)) sweeps added, 0 updated"
expect_err merge-1.3b "holds $((2 * per_store)) sweeps of 2 hosts: ci-a, ci-b; foreign keys and integrity checked"
for t in sweeps runs samples problems problem_samples; do
	expect_eq "merge-1.4-$t" "$(( $(sql "select count(*) from $t" "$A") + $(sql "select count(*) from $t" "$B") ))" \
		"$(sql "select count(*) from $t" "$ALL")"
done
# each sweep's provenance as its machine stored it, each run under its sweep
prov="select host, tag, devices, git_revision, command_line, started_at, status from sweeps"
expect_eq merge-1.5 "$( (sql "$prov" "$A"; sql "$prov" "$B") | sort | md5sum)" "$(sql "$prov" "$ALL" | sort | md5sum)"
runs="select s.host, s.tag, r.config_key, r.t_fused_ms, x.ms, p.m from runs r join sweeps s on s.id = r.sweep_id
	left join samples x on x.run_id = r.id and x.kind = 'fused' left join problems p on p.id = r.problem_id"
expect_eq merge-1.6 "$( (sql "$runs" "$A"; sql "$runs" "$B") | sort | md5sum)" "$(sql "$runs" "$ALL" | sort | md5sum)"
expect_eq merge-1.7 ok "$(sql "pragma integrity_check" "$ALL")"
expect_eq merge-1.8 "" "$(sql "pragma foreign_key_check" "$ALL")"
expect_eq merge-1.9 "$sum_a" "$(md5sum < "$A")"
check merge-1.10 "no temporary or side file left" sh -c "! ls '$T' | grep -q -e '\.merge-' -e 'all\.db-'"

# ---- again: nothing added ----
dump() { sql "$prov" "$ALL" | md5sum; sql "$runs" "$ALL" | sort | md5sum; }
before=$(dump)
expect_exit merge-2.1 0 "$FGO" merge "$A" "$B" -o "$ALL" --format csv
expect_eq merge-2.2 "0 0 0" "$(awk -F, 'NR > 1 { a += $4; u += $6; r += $7 } END { print a, u, r }' "$T/out")"
expect_eq merge-2.3 "$per_store $per_store" "$(awk -F, 'NR > 1 { print $5 }' "$T/out" | tr '\n' ' ' | sed 's/ $//')"
expect_eq merge-2.4 "$before" "$(dump)"
expect_exit merge-2.5 0 "$FGO" merge "$A" "$A" -o "$T/twice.db" --format csv
expect_eq merge-2.6 "$per_store 0" "$(awk -F, 'NR > 1 { printf "%s%s", s, $4; s = " " }' "$T/out")"

# ---- the views per machine ----
expect_exit merge-3.1 2 "$FGO" regress --gate --base base --head head --db "$ALL"
expect_err merge-3.2 "the sweeps tagged \"base\" in $ALL ran on 2 hosts (ci-a, ci-b): a side is one machine's; choose one with --host"
for h in a b; do
	[ $h = a ] && want=1 || want=0
	expect_exit "merge-3.3-$h" $want "$FGO" regress --gate --base base --head head --db "$T/$h.db" --format csv
	cp "$T/out" "$T/own"; cp "$T/err" "$T/own.err"
	expect_exit "merge-3.4-$h" $want "$FGO" regress --gate --base base --head head --db "$ALL" --host ci-$h --format csv
	check "merge-3.5-$h" "the merged store's gate for ci-$h is its own store's" cmp -s "$T/own" "$T/out"
	check "merge-3.6-$h" "the same verdict said" cmp -s "$T/own.err" "$T/err"
done
expect_exit merge-3.8 1 "$FGO" regress --gate --base base --head head --db "$ALL" --host ci-a --format csv
expect_eq merge-3.9 "$configs" "$(grep -c ',regression$' "$T/out")"
expect_err merge-3.10 "gate: 3 and 3 rounds"
expect_exit merge-3.11 2 "$FGO" regress --gate --base base --head head --db "$ALL" --host ci-z
expect_err merge-3.12 "no sweep tagged \"base\" in $ALL ran on host \"ci-z\" (--host); they ran on ci-a, ci-b"
# plain regress reads one machine's sweeps too
expect_exit merge-3.13 2 "$FGO" regress --base base --head head --db "$ALL"
"$FGO" regress --base base --head head --db "$A" --format csv >"$T/own" 2>/dev/null
own_rc=$?
expect_exit merge-3.14 $own_rc "$FGO" regress --base base --head head --db "$ALL" --host ci-a --format csv
check merge-3.15 "plain regress on ci-a as on its own store" cmp -s "$T/own" "$T/out"
# history: the newest sweep's machine, or --host's; each as in its own store
hist() { "$FGO" history --shape 64,64,64 --algorithm all_scatter --world 2 --no-plot --format csv "$@"; }
for h in a b; do
	hist --db "$T/$h.db" 2>/dev/null | cut -d, -f1,3- >"$T/own"
	expect_exit "merge-3.16-$h" 0 hist --db "$ALL" --host ci-$h
	expect_err "merge-3.17-$h" "on ci-$h;"
	check "merge-3.18-$h" "ci-$h's nights as in its own store" sh -c "cut -d, -f1,3- '$T/out' | cmp -s - '$T/own'"
done
expect_eq merge-3.19 "$((per_store))" "$(($(wc -l <"$T/own") - 1))"
expect_exit merge-3.20 2 hist --db "$ALL" --host ci-z
expect_err merge-3.21 "no sweep on host \"ci-z\" holds an ok run of all_scatter"
# report --gate: the head's machine's nights only
expect_exit merge-3.22 0 "$FGO" report --against auto --gate --no-plots -o "$T/rep" --db "$ALL"
check merge-3.23 "the report's gate read ci-b's rounds only" grep -q "gate: 3 and 3 rounds" "$T/rep/index.md"

# ---- an older schema: read upgraded, left as it was ----
old=$T/v1.db
sqlite3 "$old" < tests/unit/schema_v1.sql
for t in sweeps runs samples; do
	c=$(sqlite3 "$old" "select group_concat(name, ', ') from pragma_table_info('$t')")
	sqlite3 "$old" "attach '$A' as a; insert into main.$t ($c) select $c from a.$t"
done
sqlite3 "$old" "delete from runs where sweep_id <> 1; delete from samples where run_id not in (select id from runs);
	delete from sweeps where id <> 1; update sweeps set host = 'ci-old';
	insert into meta values ('application', 'fgobench'), ('schema_version', '1'); pragma user_version = 1"
sum_old=$(md5sum < "$old")
expect_exit merge-4.1 0 "$FGO" merge "$old" -o "$ALL" --format csv
expect_eq merge-4.2 "$old,1,ci-old,1,0,0,$configs" "$(sed -n 2p "$T/out" | cut -d, -f1-7)"
expect_eq merge-4.3 "$sum_old" "$(md5sum < "$old")"
expect_eq merge-4.4 "$configs 1" "$(sql "select count(*), min(r.split_k) from runs r join sweeps s on s.id = r.sweep_id where s.host = 'ci-old'" "$ALL" | tr '|' ' ')"

# ---- refused, nothing written ----
before=$(dump)
cp "$A" "$T/retried.db"
sql "UPDATE runs SET t_fused_ms = 99 WHERE id = (SELECT max(id) FROM runs WHERE sweep_id = 1);
	UPDATE sweeps SET status = 'done', ended_at = '2099-01-01T00:00:00Z' WHERE id = 1" "$T/retried.db"
expect_exit merge-5.1 2 "$FGO" merge "$T/retried.db" -o "$ALL"
expect_err merge-5.2 "is in $ALL already as sweep 1, each copy with runs the other lacks"
expect_eq merge-5.3 "$before" "$(dump)"
ln -s "$ALL" "$T/link.db"
expect_exit merge-5.4 2 "$FGO" merge "$B" -o "$T/link.db"
expect_err merge-5.5 "a symbolic link; merge never writes through a link"
echo notes >"$T/notes.txt"
expect_exit merge-5.6 2 "$FGO" merge "$B" -o "$T/notes.txt"
expect_err merge-5.7 "not a fgobench store"
expect_eq merge-5.8 notes "$(cat "$T/notes.txt")"
expect_exit merge-5.9 2 "$FGO" merge "$A" "$T/missing.db" -o "$T/new.db"
check merge-5.10 "no output made" [ ! -e "$T/new.db" ]
expect_exit merge-5.11 2 "$FGO" merge "$A"
expect_err merge-5.12 "-o OUT is needed"
expect_exit merge-5.13 2 "$FGO" merge -o "$T/new.db"
expect_exit merge-5.14 2 "$FGO" merge "$A" -o "$T/new.db" --dry
expect_err merge-5.15 "unknown option \"--dry\""
# a dry run says what it would add
expect_exit merge-5.16 0 "$FGO" merge "$B" "$T/twice.db" -o "$T/new.db" --dry-run
expect_err merge-5.17 "dry run, nothing written"
check merge-5.18 "the dry run made no file" [ ! -e "$T/new.db" ]
expect_eq merge-5.19 "$before" "$(dump)"

# ---- merged while interrupted, then resumed: the sweep brought up to date ----
R=$T/r.db
expect_exit merge-6.1 0 mpi 2 sweep tests/e2e/tiny.json --tag late --quiet --iterations 2 --db "$R"
sql "delete from samples where run_id in (select id from runs order by id desc limit 3);
	delete from runs where id in (select id from runs order by id desc limit 3);
	update sweeps set status = 'interrupted', host = 'ci-r'" "$R"
expect_exit merge-6.2 0 "$FGO" merge "$R" -o "$ALL" --format csv
expect_eq merge-6.3 "1 0 $((configs - 3))" "$(sed -n 2p "$T/out" | cut -d, -f4,6,7 | tr , ' ')"
rid=$(sql "select id from sweeps where host = 'ci-r'" "$ALL")
expect_exit merge-6.4 0 mpi 2 sweep tests/e2e/tiny.json --tag late --resume --quiet --iterations 2 --db "$R"
expect_exit merge-6.5 0 "$FGO" merge "$R" -o "$ALL" --format csv
expect_eq merge-6.6 "0 1 3" "$(sed -n 2p "$T/out" | cut -d, -f4,6,7 | tr , ' ')"
expect_eq merge-6.7 "$rid done $configs" "$(sql "select s.id, s.status, count(r.id) from sweeps s join runs r on r.sweep_id = s.id where s.host = 'ci-r'" "$ALL" | tr '|' ' ')"
expect_eq merge-6.8 "" "$(sql "pragma foreign_key_check" "$ALL")"

# 40_bad_input.sh: every kind of bad input exits 2 with a message that says
# what and where, and leaves the store exactly as it was.
. tests/e2e/lib.sh

expect_exit bad-0.1 0 mpi 2 sweep tests/e2e/tiny.json --tag fixture --quiet --iterations 2
dump() { sqlite3 "$FGOBENCH_DB" .dump | md5sum; }
before=$(dump)

printf '{\n  "algorithm": "all_scatter",\n  "M": ,\n  "N": 64, "K": 64\n}\n' > "$T/malformed.json"
expect_exit bad-1.1 2 mpi 2 sweep "$T/malformed.json"
expect_err bad-1.2 "malformed.json:3:"

printf '{\n  "algorithm": "all_scatter", "M": 64, "N": 64, "K": 64,\n  "BLK_MM": 32\n}\n' > "$T/unknown.json"
expect_exit bad-1.3 2 mpi 2 sweep "$T/unknown.json"
expect_err bad-1.4 "unknown.json:3:3:"
expect_err bad-1.5 'did you mean "BLK_M"'

printf '{"algorithm": "all_scatter", "M": 64, "N": 64, "K": 64, "BLK_M": "big"}\n' > "$T/type.json"
expect_exit bad-1.6 2 mpi 2 sweep "$T/type.json"
expect_err bad-1.7 "type.json:1:"

printf '{"algorithm": "all_scatter", "M": [], "N": 64, "K": 64}\n' > "$T/empty.json"
expect_exit bad-1.8 2 mpi 2 sweep "$T/empty.json"
expect_err bad-1.9 "empty.json:1:"

printf '{"algorithm": "all_scatter", "M": 0, "N": 64, "K": 64}\n' > "$T/zero.json"
expect_exit bad-1.10 2 mpi 2 sweep "$T/zero.json"
expect_err bad-1.11 "zero.json:1:"

printf '{"algorithm": "all_scater", "M": 64, "N": 64, "K": 64}\n' > "$T/algo.json"
expect_exit bad-1.12 2 mpi 2 sweep "$T/algo.json"
expect_err bad-1.13 'did you mean "all_scatter"'

printf '{"algorithm": "all_scatter", "world": [2, 4], "M": 64, "N": 64, "K": 64, "BLK_M": 32, "BLK_N": 16, "BLK_K": 32}\n' > "$T/world4.json"
expect_exit bad-1.14 2 mpi 2 sweep "$T/world4.json"
expect_err bad-1.15 "mpirun -np 4"

# a configuration the algorithm cannot run is stored as invalid beside the
# ones that run, not an error
printf '{"algorithm": "reduce_scatter", "world": 2, "M": [64, 65], "N": 64, "K": 64, "BLK_M": 32, "BLK_N": 32, "BLK_K": 32}\n' > "$T/indivisible.json"
expect_exit bad-1.16 0 mpi 2 sweep "$T/indivisible.json" --db "$T/invalid.db" --quiet
expect_eq bad-1.17 "ok invalid" "$(sql "select group_concat(status, ' ') from (select status from runs order by m)" "$T/invalid.db")"
check bad-1.18 "reason names the divisibility" sh -c "sqlite3 '$T/invalid.db' 'select reason from runs where m = 65' | grep -q 'divisible'"
# a spec none of whose configurations can run is bad input: exit 2 with the
# reason, nothing stored
printf '{"algorithm": "reduce_scatter", "world": 2, "M": 65, "N": 64, "K": 64, "BLK_M": 32, "BLK_N": 32, "BLK_K": 32}\n' > "$T/indivisible1.json"
expect_exit bad-1.18.1 2 mpi 2 sweep "$T/indivisible1.json" --db "$T/invalid1.db" --quiet
expect_err bad-1.18.2 "its one configuration cannot run"
expect_err bad-1.18.3 "1 x M=65 is not divisible by world=2"
check bad-1.18.4 "nothing stored: no store made" [ ! -e "$T/invalid1.db" ]
expect_exit bad-1.19 0 "$FGO" sweep "$T/indivisible1.json" --dry-run
check bad-1.20 "dry run shows the reason" grep -q "divisible" "$T/out"

# stores that must not be touched
cp "$FGOBENCH_DB" "$T/newer.db"
sqlite3 "$T/newer.db" "pragma user_version = 99"
sum=$(md5sum < "$T/newer.db")
expect_exit bad-2.1 2 mpi 2 sweep tests/e2e/tiny.json --db "$T/newer.db"
expect_err bad-2.2 "schema version 99"
expect_eq bad-2.3 "$sum" "$(md5sum < "$T/newer.db")"
expect_exit bad-2.4 2 "$FGO" best --db "$T/newer.db"

echo "not a database" > "$T/text.db"
expect_exit bad-2.5 2 mpi 2 sweep tests/e2e/tiny.json --db "$T/text.db"
expect_err bad-2.6 "not a fgobench store"
expect_eq bad-2.7 "not a database" "$(cat "$T/text.db")"
check bad-2.8 "no WAL files next to it" [ ! -e "$T/text.db-wal" ]

expect_exit bad-2.9 2 "$FGO" best --db "$T/missing.db"
expect_err bad-2.10 "no fgobench store"
check bad-2.11 "nothing created" [ ! -e "$T/missing.db" ]
expect_exit bad-2.12 2 mpi 2 sweep tests/e2e/tiny.json --db /proc/fgobench.db

# commands and options
expect_exit bad-3.1 2 "$FGO" sweeep
expect_err bad-3.2 'did you mean "sweep"'
expect_exit bad-3.3 2 "$FGO" best --mm 512
expect_exit bad-3.4 2 "$FGO" best --m abc
expect_exit bad-3.5 2 "$FGO" best --format xml
expect_exit bad-3.6 2 "$FGO" regress --base nosuchtag --head fixture
expect_err bad-3.7 "nosuchtag"
expect_exit bad-3.8 2 "$FGO" plot pie
expect_exit bad-3.9 2 "$FGO" show 999999
expect_exit bad-3.10 2 mpi 2 run --algorithm reduce_scatter -m 65 -n 64 -k 64 --world 2
expect_err bad-3.11 "divisible"
expect_exit bad-3.12 2 mpi 2 sweep
expect_exit bad-3.13 2 mpi 2 sweep tests/e2e/tiny.json --bogus
expect_exit bad-3.14 2 mpi 2 sweep "$T/does-not-exist.json"
expect_err bad-3.15 "does-not-exist.json"

# datasets
printf '[{"m": 64, "n": 64, "k": 64, "BLK_Q": 32}]\n' > "$T/ds.json"
expect_exit bad-4.1 2 mpi 2 sweep "$T/ds.json" --algorithm all_scatter
expect_err bad-4.2 "ds.json:1:"
printf 'm,n,k,datatype\n64,64,64,fp16\n64,sixty,64,fp16\n' > "$T/ds.csv"
expect_exit bad-4.3 2 mpi 2 sweep "$T/ds.csv" --algorithm all_scatter
expect_err bad-4.4 "ds.csv:3:"

expect_eq bad-9.1 "$before" "$(dump)"

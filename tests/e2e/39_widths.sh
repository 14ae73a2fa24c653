# 39_widths.sh: every text output of the views on a store like `make
# demo`'s (this machine's ceilings, the smoke sweep tagged demo) plus two
# nights of tiny, a user kernel's sweep, a run with a long tag and two tune
# sessions: no line over 120 columns (issue 50), a timestamp never split,
# and the reproduce lines pasteable (issue 50: tune's SPEC placeholder).
# --wide and the csv/json/md formats are meant to be as wide as they are.
. tests/e2e/lib.sh
export FGOBENCH_CACHE="$T/cache"

expect_exit wid-1.1 0 mpi 2 calibrate
expect_exit wid-1.2 0 mpi 2 sweep sweeps/smoke.json --tag demo --quiet
expect_exit wid-1.3 0 mpi 2 sweep tests/e2e/tiny.json --tag nightly-2026-12-05 --quiet --iterations 3
expect_exit wid-1.4 0 mpi 2 sweep tests/e2e/tiny.json --tag nightly-2026-12-06 --quiet --iterations 3
expect_exit wid-1.5 0 mpi 2 sweep sweeps/user_all_scatter.json --tag user-kernel-sweep-with-a-long-tag --quiet
expect_exit wid-1.6 0 mpi 2 run --algorithm all_scatter -m 128 -n 64 -k 64 --iterations 2 --warmup 0 \
	--tag "run-with-a-tag-of-sixty-characters-or-so-to-widen-the-list-xx"
expect_exit wid-1.7 0 mpi 2 tune --algorithm sk_all_scatter -m 128 -n 128 -k 64 --budget 3 --quiet \
	--iterations 2 --warmup 0
cp "$T/out" "$T/tune-shipped"
expect_exit wid-1.8 0 mpi 2 tune --kernel kernels/user/my_all_scatter/manifest.json -m 128 -n 128 -k 64 \
	--budget 2 --quiet --iterations 2 --warmup 0
cp "$T/out" "$T/tune-user"
# a long spec name and a long tag: list narrows them, never the timestamp
sed 's/"name": "tiny"/"name": "a-spec-name-long-enough-to-need-room-as-well-xx"/' tests/e2e/tiny.json >"$T/long.json"
expect_exit wid-1.9 0 mpi 2 sweep "$T/long.json" --tag "a-tag-long-enough-to-need-room-in-the-list-too-xxxx" \
	--quiet --iterations 1 --warmup 0
# and its runs not ok of four kinds, a long cell of the list's last column
sql "update runs set status = CASE id % 4 WHEN 0 THEN 'invalid' WHEN 1 THEN 'mismatch'
	WHEN 2 THEN 'failed' ELSE 'timeout' END where sweep_id = (select max(id) from sweeps)"

# fits ID FILE: no line of FILE over 120 characters, and at least one line
fits() {
	w=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$2")
	check "$1" "lines of at most 120 characters in $(basename "$2") (widest $w)" \
		sh -c "[ '$w' -le 120 ] && [ -s '$2' ]"
}
user=$(sql "select min(id) from runs where algorithm = 'user:my_all_scatter' and status = 'ok'")
shipped=$(sql "select min(id) from runs where algorithm = 'sk_all_scatter' and status = 'ok'")
n=0
# each view, its stdout kept in $T/v.N
while IFS= read -r args; do
	n=$((n + 1))
	# shellcheck disable=SC2086 # the words of the command
	eval "set -- $args"
	"$FGO" "$@" >"$T/v.$n" 2>"$T/e.$n"
	rc=$?
	# regress exits 1 on a regression found: a verdict, and on a busy
	# machine a tiny CPU run whose peer lost its core can be 1000x slower
	# (CI saw it), so regress may say 0 or 1 here; this test reads widths
	ok=0
	case "$args:$rc" in *:0 | regress*:1) ok=1 ;; esac
	check "wid-2.$n.rc" "\`fgobench $args\` exits 0 (got $rc: $(head -c 200 "$T/e.$n"))" [ "$ok" = 1 ]
	fits "wid-2.$n" "$T/v.$n"
done <<EOF
list
list --limit 3
best
best --top 3
best --reproduce
best --m 512 --reproduce
best --algorithm user:my_all_scatter --reproduce
best --predict --m 384 --n 128 --k 128 --algorithm all_scatter --dtype fp16 --world 2
best --predict --m 384 --n 128 --k 128 --world 2
show 1
show $shipped
show $user
info
regress --base nightly-2026-12-05 --head nightly-2026-12-06 --threshold 100000
regress --gate --base nightly-2026-12-05 --head nightly-2026-12-06 --threshold 100000
history --shape 64,64,64 --algorithm all_scatter --no-plot
history --shape 128,128,64 --algorithm user:my_all_scatter --no-plot
tune --algorithm all_reduce_two_shot -m 64 -n 64 -k 64 --dry-run
report --tag demo --no-plots -o $T/rep
EOF
fits wid-3.1 "$T/tune-shipped"
fits wid-3.2 "$T/tune-user"

# list keeps its timestamps whole: each started cell is one whole date-time
check wid-4.1 "list: every timestamp on one line" \
	[ "$(grep -cE '  20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9:]+Z ' "$T/v.1")" = "$(sql 'select count(*) from sweeps')" ]

# the reproduce lines run as printed, their " \" continuations joined as a
# shell joins them: tune's under its table (a built-in winner: run), and a
# user kernel's (no spec file to name: the tune command itself)
join() { sed -e ':a' -e '/\\$/{N;s/ \\\n */ /;ba' -e '}' "$1"; }
line=$(join "$T/tune-shipped" | sed -n '/^reproduce:/{n;p;}')
check wid-5.1 "tune prints its reproduce line under the table ($line)" \
	sh -c "case '$line' in 'mpirun -np 2 fgobench run --algorithm sk_all_scatter '*) exit 0;; esac; exit 1"
expect_exit wid-5.2 0 sh -c "mpirun --oversubscribe -np 2 '$FGO' ${line#mpirun -np 2 fgobench } --iterations 1 --warmup 0 --tag again"
line=$(join "$T/tune-user" | sed -n '/^reproduce:/{n;p;}')
check wid-5.3 "a user kernel's winner: no placeholder ($line)" \
	sh -c "case '$line' in *SPEC*|*MANIFEST*|'') exit 1;; esac; exit 0"
expect_exit wid-5.4 0 sh -c "mpirun --oversubscribe -np 2 '$FGO' ${line#mpirun -np 2 fgobench } --tag again-user"
line=$(join "$T/v.7" | grep 'mpirun' | head -1 | sed 's/^ *[0-9]*  //')
check wid-5.5 "best: a user kernel's run is reproduced by its spec file ($line)" \
	sh -c "case '$line' in 'mpirun -np 2 fgobench sweep sweeps/user_all_scatter.json --kernel kernels/user/my_all_scatter/manifest.json '*) exit 0;; esac; exit 1"

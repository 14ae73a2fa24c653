#!/bin/sh
# tests/bench/shot_choice.sh [STORE.xz]: how well `--algorithm all_reduce`
# picks its shot (issue 51, src/tune/shot_pick.h) on a store of GPU runs
# of both shots (default: four H100s, 2026-11-27, the twelve standard
# problems at W=2 and W=4). Each problem's own runs are left out (best
# --predict --algorithm all_reduce leaves them out), so the pick is ranked
# or by W; the measured runs then say whether it was the faster shot.
# Prints a line a problem and a summary:
#   W M N K chosen source one_us two_us loss
#   shot: the faster shot on F of P problems, geomean G x the faster
# FGO names the binary (default ./fgobench).
set -eu
store=${1:-db/evidence/mgpu_w2w4_4xh100_s13_1127.db.xz}
fgo=${FGO:-./fgobench}
work=$(mktemp -d /tmp/fgobench-shot.XXXXXX)
trap 'rm -rf "$work"' EXIT
python3 -c 'import lzma, sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())' "$store" \
	>"$work/s.db"
host=$(sqlite3 "$work/s.db" "select host from sweeps s join runs r on r.sweep_id = s.id
	where r.algorithm like 'all_reduce_%' order by r.id desc limit 1")
# the fits a run on that machine would read (a store brought from it)
"$fgo" calibrate --fit --machine "$host" --backend gpu --db "$work/s.db" >/dev/null 2>&1
sqlite3 -separator ' ' "$work/s.db" "select distinct world, m, n, k from runs
	where algorithm like 'all_reduce_%' and status = 'ok' order by world, n, k, m" |
while read -r w m n k; do
	"$fgo" best --predict --algorithm all_reduce --world "$w" -m "$m" -n "$n" -k "$k" \
		--db "$work/s.db" --format csv 2>"$work/err" >"$work/out"
	chosen=$(sed -n 's/.*would take \(all_reduce_[a-z_]*\):.*(\([a-z]*\))$/\1 \2/p' "$work/err")
	one=$(awk -F, '$1 == "all_reduce_one_shot" {print $4}' "$work/out")
	two=$(awk -F, '$1 == "all_reduce_two_shot" {print $4}' "$work/out")
	echo "$w $m $n $k $chosen $one $two"
done | awk '$7 !~ /^[0-9.]+$/ || $8 !~ /^[0-9.]+$/ {
	printf "%s %s %s %s %s %s (not both shots measured: left out)\n", $1, $2, $3, $4, $5, $6
	next
}
{
	got = $5 == "all_reduce_one_shot" ? $7 : $8
	best = $7 < $8 ? $7 : $8
	loss = got / best
	printf "%s %s %s %s %s %s %s %s %.3f\n", $1, $2, $3, $4, $5, $6, $7, $8, loss
	n++; lg += log(loss); if (loss <= 1.0000001) hit++
} END {
	if (!n) { print "shot: no problems with runs of both shots"; exit 1 }
	printf "shot: the faster shot on %d of %d problems, geomean %.3f x the faster\n", hit, n, exp(lg / n)
}'

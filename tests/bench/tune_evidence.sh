#!/bin/sh
# tune_evidence.sh [DB]: the evidence for `fgobench tune` and `best --predict`
# on the CPU backend (2 ranks), written as Markdown to $OUT (default
# DB's directory/tune_evidence.md) and stdout.
#
#   grid        every configuration of sweeps/tune_evidence.json (128) for 8
#               shapes of all_scatter fp16 W=2, as `tune --strategy grid`
#               (tag ev-grid)
#   strategies  random, anneal and halving, seeds 1 2 3, budget 15% of the
#               grid (20 runs), on the first 5 shapes (tags ev-STRATEGY-sSEED)
#   confirm     the grid's best and every strategy's winner measured again
#               back to back (30 iterations, two passes in opposite orders,
#               the faster pass counts), so machine load drifting during the
#               long grid does not decide
#   predict     leave one shape out: `best --predict` for each grid shape from
#               the 7 others, its choice's grid time against the grid's best
#   replay      the strategies replayed over the stored grid (no runs: each
#               trial answered with the grid's time; tests/bench/tune_replay.c),
#               seeds 1..40: the strategies apart from the machine's noise
#   table       the Markdown
#
# Every phase resumes (`tune --resume`): rerun the script after a crash.
# PHASES="table" redraws the table from the store. About 15 minutes on the
# 2-core development VM.
set -eu
DB=${1:-/tmp/tune_evidence.db}
FGO=${FGO:-./fgobench}
NP=${NP:-2}
SPACE=sweeps/tune_evidence.json
SHAPES=${SHAPES:-"256x256x256 128x512x256 512x256x128 256x512x128 384x256x256"}
EXTRA=${EXTRA:-"128x256x128 256x256x512 512x512x128"}
SEEDS=${SEEDS:-"1 2 3"}
STRATEGIES="random anneal halving"
PHASES=${PHASES:-"grid strategies confirm predict replay table"}
W=$(dirname "$DB")/tune_evidence.d
OUT=${OUT:-$W/tune_evidence.md}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mkdir -p "$W"
PROBLEM="--algorithm all_scatter --dtype fp16 --world 2"

dims() { echo "$1" | tr x ' '; }
sql() { sqlite3 "$DB" "$1"; }

# the space's size for a shape, and 15% of it
space_size() {
	set -- $(dims "$1")
	"$FGO" tune $PROBLEM -m "$1" -n "$2" -k "$3" --space $SPACE --dry-run --format csv 2>/dev/null |
		grep -c ',yes,'
}
budget_of() { echo $(( ($(space_size "$1") * 15 + 99) / 100 )); }

tune() { # SHAPE TAG ARGS...
	shape=$1 tag=$2
	shift 2
	set -- $(dims "$shape") "$@"
	m=$1 n=$2 k=$3
	shift 3
	mpirun -np "$NP" "$FGO" tune $PROBLEM -m "$m" -n "$n" -k "$k" --space $SPACE --db "$DB" \
		--tag "$tag" --resume --quiet --format csv "$@" > "$W/$tag-$shape.csv"
}

# "blk_m blk_n blk_k gsize_m" of a reproduce line or a tune/best csv row
tile_of() { sed -n 's/.*--BLK_M \([0-9]*\) --BLK_N \([0-9]*\) --BLK_K \([0-9]*\) .*--gsize_m \([0-9]*\) .*/\1 \2 \3 \4/p' "$1" | tail -n 1; }

# median fused ms of a tile at a shape among runs of sweeps tagged T (newest)
time_of() { # TAG SHAPE BM BN BK G
	set -- "$1" $(dims "$2") "$3" "$4" "$5" "$6"
	sql "select r.t_fused_ms from runs r join sweeps s on s.id = r.sweep_id where s.tag = '$1'
	     and r.status = 'ok' and r.m = $2 and r.n = $3 and r.k = $4 and r.blk_m = $5 and r.blk_n = $6
	     and r.blk_k = $7 and r.gsize_m = $8 and r.algorithm = 'all_scatter' order by r.id desc limit 1"
}
grid_best() { # SHAPE -> "ms bm bn bk g"
	set -- $(dims "$1")
	sql "select r.t_fused_ms, r.blk_m, r.blk_n, r.blk_k, r.gsize_m from runs r join sweeps s on s.id = r.sweep_id
	     where s.tag = 'ev-grid' and r.status = 'ok' and r.m = $1 and r.n = $2 and r.k = $3
	     order by r.t_fused_ms limit 1" | tr '|' ' '
}

for phase in $PHASES; do
	case $phase in
	grid)
		for shape in $SHAPES $EXTRA; do
			echo "grid $shape" >&2
			tune "$shape" ev-grid --strategy grid
		done ;;
	strategies)
		for shape in $SHAPES; do
			b=$(budget_of "$shape")
			for st in $STRATEGIES; do
				for seed in $SEEDS; do
					echo "$st seed $seed $shape budget $b" >&2
					tune "$shape" "ev-$st-s$seed" --strategy "$st" --seed "$seed" --budget "$b"
				done
			done
		done ;;
	confirm)
		for shape in $SHAPES; do
			set -- $(dims "$shape")
			m=$1 n=$2 k=$3
			{
				grid_best "$shape" | { read -r _ bm bn bk g; echo "$bm $bn $bk $g"; }
				for st in $STRATEGIES; do for seed in $SEEDS; do
					tile_of "$W/ev-$st-s$seed-$shape.csv"
				done; done
			} | sort -u > "$W/confirm-$shape.txt"
			for pass in 1 2; do
				{
					echo "["
					if [ $pass = 1 ]; then cat "$W/confirm-$shape.txt"; else sort -r "$W/confirm-$shape.txt"; fi |
						awk -v m="$m" -v n="$n" -v k="$k" '{ printf "%s{\"m\": %s, \"n\": %s, \"k\": %s, \"BLK_M\": %s, \"BLK_N\": %s, \"BLK_K\": %s, \"gsize_m\": %s}\n", (NR > 1 ? "," : ""), m, n, k, $1, $2, $3, $4 }'
					echo "]"
				} > "$W/confirm-$shape-$pass.json"
				echo "confirm $shape pass $pass" >&2
				mpirun -np "$NP" "$FGO" sweep "$W/confirm-$shape-$pass.json" $PROBLEM --iterations 30 \
					--db "$DB" --tag "ev-confirm-$pass" --resume --quiet
			done
		done ;;
	predict)
		for shape in $SHAPES $EXTRA; do
			set -- $(dims "$shape")
			"$FGO" best --predict --db "$DB" --tag ev-grid $PROBLEM --m "$1" --n "$2" --k "$3" \
				--top 1 --format csv > "$W/predict-$shape.csv" 2> "$W/predict-$shape.err"
		done ;;
	replay)
		make --no-print-directory build/obj/libfgo.a >&2
		cc -O2 -std=c11 -D_GNU_SOURCE -Isrc -Ibuild $(mpicc --showme:compile) -o "$W/tune_replay" \
			tests/bench/tune_replay.c build/obj/libfgo.a -lsqlite3 -lcjson -lm $(mpicc --showme:link)
		for shape in $SHAPES; do
			"$W/tune_replay" "$DB" ev-grid $SPACE $(dims "$shape") 0.15 40
		done > "$W/replay.txt" ;;
	table)
		{
		echo "| shape M x N x K | grid: runs, best config, ms | strategy | seed | runs | found config | grid ms of it | vs grid best (grid) | vs grid best (confirmed) |"
		echo "|---|---|---|---|---|---|---|---|---|"
		pass=0 total=0
		for shape in $SHAPES; do
			set -- $(grid_best "$shape")
			gms=$1 gtile="$2x$3x$4 g$5"
			gruns=$(tail -n 1 "$W/ev-grid-$shape.csv" | cut -d, -f9)
			c1=$(time_of ev-confirm-1 "$shape" "$2" "$3" "$4" "$5") c2=$(time_of ev-confirm-2 "$shape" "$2" "$3" "$4" "$5")
			gconf=$(echo "$c1 $c2" | awk '{ print ($1 < $2 ? $1 : $2) }')
			for st in $STRATEGIES; do
				ok=0
				for seed in $SEEDS; do
					f="$W/ev-$st-s$seed-$shape.csv"
					runs=$(tail -n 1 "$f" | cut -d, -f9)
					set -- $(tile_of "$f")
					ms=$(time_of ev-grid "$shape" "$1" "$2" "$3" "$4")
					c1=$(time_of ev-confirm-1 "$shape" "$1" "$2" "$3" "$4") c2=$(time_of ev-confirm-2 "$shape" "$1" "$2" "$3" "$4")
					conf=$(echo "$c1 $c2" | awk '{ print ($1 < $2 ? $1 : $2) }')
					rg=$(echo "$ms $gms" | awk '{ printf "%+.1f%%", ($1 / $2 - 1) * 100 }')
					rc=$(echo "$conf $gconf" | awk '{ printf "%+.1f%%", ($1 / $2 - 1) * 100 }')
					echo "| $shape | $gruns, $gtile, $gms | $st | $seed | $runs | $1x$2x$3 g$4 | $ms | $rg | $rc |"
				done
			done
		done
		echo
		echo "| strategy | seed | shapes within 5% of the grid's best (grid times) | (confirmed times) |"
		echo "|---|---|---|---|"
		for st in $STRATEGIES; do
			for seed in $SEEDS; do
				ng=0 nc=0
				for shape in $SHAPES; do
					set -- $(grid_best "$shape")
					gms=$1
					c1=$(time_of ev-confirm-1 "$shape" "$2" "$3" "$4" "$5") c2=$(time_of ev-confirm-2 "$shape" "$2" "$3" "$4" "$5")
					gconf=$(echo "$c1 $c2" | awk '{ print ($1 < $2 ? $1 : $2) }')
					set -- $(tile_of "$W/ev-$st-s$seed-$shape.csv")
					ms=$(time_of ev-grid "$shape" "$1" "$2" "$3" "$4")
					c1=$(time_of ev-confirm-1 "$shape" "$1" "$2" "$3" "$4") c2=$(time_of ev-confirm-2 "$shape" "$1" "$2" "$3" "$4")
					conf=$(echo "$c1 $c2" | awk '{ print ($1 < $2 ? $1 : $2) }')
					ng=$((ng + $(echo "$ms $gms" | awk '{ print ($1 <= $2 * 1.05) }')))
					nc=$((nc + $(echo "$conf $gconf" | awk '{ print ($1 <= $2 * 1.05) }')))
				done
				echo "| $st | $seed | $ng of $(echo $SHAPES | wc -w) | $nc of $(echo $SHAPES | wc -w) |"
			done
		done
		echo
		echo "| shape left out | nearest measured shape (log2 distance) | predicted config | its grid ms | grid best config, ms | vs best |"
		echo "|---|---|---|---|---|---|"
		hit=0 all=0
		for shape in $SHAPES $EXTRA; do
			set -- $(grid_best "$shape")
			gms=$1 gtile="$2x$3x$4 g$5"
			near=$(sed -n 's/.*nearest measured shape \([0-9x]*\) at distance \([0-9.]*\).*/\1 (\2)/p' "$W/predict-$shape.err" | head -n 1)
			set -- $(tile_of "$W/predict-$shape.csv")
			ms=$(time_of ev-grid "$shape" "$1" "$2" "$3" "$4")
			r=$(echo "$ms $gms" | awk '{ printf "%+.1f%%", ($1 / $2 - 1) * 100 }')
			all=$((all + 1))
			hit=$((hit + $(echo "$ms $gms" | awk '{ print ($1 <= $2 * 1.05) }')))
			echo "| $shape | $near | $1x$2x$3 g$4 | $ms | $gtile, $gms | $r |"
		done
		echo
		echo "Leave-one-shape-out: the predicted configuration is within 5% of the measured best on $hit of $all shapes."
		if [ -f "$W/replay.txt" ]; then
			echo
			echo "Replayed over the stored grid (no new runs; each trial answered with the grid's time), 40 seeds, budget 15%:"
			echo
			echo "| shape | strategy | budget / space | seeds within 5% of the grid's best | mean time / grid best |"
			echo "|---|---|---|---|---|"
			awk '{ printf "| %s | %s | %s / %s | %s of %s | %s |\n", $1, $2, $3, $4, $5, $6, $7 }' "$W/replay.txt"
		fi
		} | tee "$OUT"
		;;
	*) echo "tune_evidence.sh: unknown phase $phase (grid strategies confirm predict table)" >&2; exit 2 ;;
	esac
done

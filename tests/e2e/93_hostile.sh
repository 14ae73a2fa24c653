# 93_hostile.sh: text from specs, stores and flags never runs as a command,
# no write follows a link, no store path hangs (issue 21).
#   hostile-1.*  backquotes, $(...), ";system(...)", @macro, quotes, newlines
#                and escape codes through a tag, a spec name, an algorithm in
#                a store row, -o and --base-db into plot (every kind),
#                history, report --format html and regress: no marker file
#   hostile-2.*  every output (plot, history, report, JUnit) over a planted
#                symlink: the link replaced, its target untouched
#   hostile-3.*  a FIFO (and a directory) as the store: exit 2 within a timeout
#   hostile-4.*  bad input exits 2 naming what and where
#   hostile-5.*  terminal tables escape control characters
. tests/e2e/lib.sh

M="$T/mark"
mkdir -p "$M"
NL='
'
ESC=$(printf '\033')
# one string per attack; each would create a file under $M if it ran
A1="n\`touch $M/backquote\`"
A2="n\$(touch $M/dollar)"
A3="n\";system(\"touch $M/system\");#"
A4="n';system('touch $M/single');#"
A5="n@m${NL}system \"touch $M/newline\""
A6="n${ESC}[2J${ESC}]0;x${ESC}\\ \`touch $M/escape\`"
marks() { ls "$M" | tr '\n' ' '; }

# Two nights of the tiny spec, its name an attack, tagged with attacks.
sed "s|\"name\": \"tiny\"|\"name\": \"tiny \`touch $M/specname\` \$(touch $M/specname2)\"|" \
	tests/e2e/tiny.json >"$T/spec.json"
expect_exit hostile-1.1 0 mpi 2 sweep "$T/spec.json" --tag "$A1"
expect_exit hostile-1.2 0 mpi 2 sweep "$T/spec.json" --tag "$A3"
# a store row's algorithm and a third night's tag, written as another
# person's tool could (the store is shared)
sql "UPDATE sweeps SET tag = '$(printf '%s' "$A5" | sed "s/'/''/g")' WHERE id = 2"
sql "INSERT INTO sweeps SELECT 3, spec_hash, '$(printf '%s' "$A4" | sed "s/'/''/g")', spec_path, spec_name, started, finished, status, host, backend, mpi_ranks, fgobench_version, git_revision, command_line, env_json FROM sweeps WHERE id = 1" 2>/dev/null ||
	sql "UPDATE sweeps SET tag = '$(printf '%s' "$A4" | sed "s/'/''/g")' WHERE id = 1"
EVIL_ALGO="all_scatter\`touch $M/algo\`\$(touch $M/algo2)'\"${NL}x"
sql "UPDATE runs SET algorithm = '$(printf '%s' "$EVIL_ALGO" | sed "s/'/''/g")' WHERE algorithm = 'all_scatter'"
cp "$FGOBENCH_DB" "$T/base.db"
sql "UPDATE sweeps SET tag = '$(printf '%s' "$A6" | sed "s/'/''/g")' WHERE id = 1" "$T/base.db"

O1="$T/o\";system(\"touch $M/outdir\");#"
O2="$T/o\`touch $M/outdir2\`'\$(touch $M/outdir3)"
n=0
for kind in roofline overlap heatmap; do
	for tag in "$A1" "$A3" ""; do
		n=$((n + 1))
		if [ -n "$tag" ]; then
			"$FGO" plot "$kind" --tag "$tag" -o "$O1" >/dev/null 2>&1
		else
			"$FGO" plot "$kind" -o "$O2" >/dev/null 2>&1
		fi
	done
	"$FGO" plot "$kind" --algorithm "$EVIL_ALGO" -o "$O1" >/dev/null 2>&1
done
expect_eq hostile-1.3 "" "$(marks)"
check hostile-1.4 "roofline drawn into the -o folder named as given" [ -s "$O1/roofline_w2.png" ]
# (helpers name their variables h_*: check's own are global in sh)
lists() { ls "$1" | grep -q "$2"; }
none_hold() { h_text=$1; shift; ! grep -qF -- "$h_text" "$@"; }
# the same, comment lines of the filled templates left out
no_code_holds() { h_text=$1; shift; ! grep -vh '^#' "$@" | grep -qF -- "$h_text"; }
check hostile-1.5 "heatmap of the stored algorithm drawn under a file-safe name" \
	lists "$O2" '^heatmap_w2_all_scatter_touch_.*_fp16.png$'
check hostile-1.6 "overlap drawn" [ -s "$O2/overlap_w2.png" ]
check hostile-1.7 "the scripts hold no backquote" no_code_holds '`' "$O1"/*.gp "$O2"/*.gp
check hostile-1.8 "the scripts hold no -o folder" none_hold "$O1" "$O1"/*.gp "$O2"/*.gp
check hostile-1.9 "the data files hold no backquote" none_hold '`' "$O1"/*.dat "$O2"/*.dat
# a data file has one row per problem: no newline from a name split one
check hostile-1.10 "overlap rows are whole" \
	awk 'NF > 0 && !/^#/ && !/^"/ { bad = 1 } END { exit bad }' "$O2/overlap_w2.dat"

expect_exit hostile-1.11 0 "$FGO" history --shape 128,64,128 --algorithm "$EVIL_ALGO" --world 2 -o "$O1"
check hostile-1.12 "history plot drawn" lists "$O1" '^history_w2_.*png$'
expect_exit hostile-1.13 0 "$FGO" history --shape 64,64,64 --algorithm gemm -o "$O2" --db "$T/base.db"
expect_eq hostile-1.14 "" "$(marks)"

"$FGO" report --sweep 2 --against 1 --format html -o "$O1" --junit "$T/j.xml" >/dev/null 2>&1
expect_eq hostile-1.15 "1" "$([ -s "$O1/index.html" ] && echo 1)"
"$FGO" report --tag "$A3" --against auto --format html -o "$O2" >/dev/null 2>&1
"$FGO" report --sweep 1 --format html -o "$O2" --db "$T/base.db" >/dev/null 2>&1
check hostile-1.16 "the HTML runs no script" none_hold '<script' "$O1/index.html" "$O2/index.html"
"$FGO" regress --base 1 --head 2 --base-db "$T/base.db" --junit "$T/j2.xml" >/dev/null 2>&1
"$FGO" regress --base "$A3" --head "$A1" --format md >/dev/null 2>&1
"$FGO" list >/dev/null 2>&1
"$FGO" best --format md --db "$T/base.db" >/dev/null 2>&1
expect_eq hostile-1.17 "" "$(marks)"
expect_exit hostile-1.18 2 "$FGO" plot roofline -o "$T/a${NL}b"
expect_err hostile-1.19 "control character"

# hostile-2: links planted where every output goes
L="$T/links"
mkdir -p "$L"
echo keep >"$T/victim"
for f in roofline_w2.dat roofline_w2.gp roofline_w2.png roofline_w2.svg overlap_w2.dat \
	 overlap_w2.gp overlap_w2.png overlap_w2.svg index.md index.html; do
	ln -s "$T/victim" "$L/$f"
done
ln -s "$T/victim" "$T/junit.xml"
expect_exit hostile-2.1 0 "$FGO" plot roofline -o "$L"
expect_exit hostile-2.2 0 "$FGO" plot overlap -o "$L"
# exit 0, or 1 when CPU timing noise reads as a regression
"$FGO" report --sweep 2 --against 1 --format html -o "$L" --junit "$T/junit.xml" >/dev/null 2>&1
report_rc=$?
check hostile-2.3 "report ran (exit $report_rc)" [ "$report_rc" -le 1 ]
hbase=$(ls "$O2" | sed -n 's/^\(history_w1_.*\)\.png$/\1/p' | head -1)
for e in dat gp png svg; do ln -s "$T/victim" "$L/$hbase.$e"; done
expect_exit hostile-2.4 0 "$FGO" history --shape 64,64,64 --algorithm gemm -o "$L"
expect_eq hostile-2.5 keep "$(cat "$T/victim")"
links=$(find "$L" "$T/junit.xml" -type l | wc -l)
expect_eq hostile-2.6 0 "$links"
all_there() { for f in "$@"; do [ -s "$f" ] || return 1; done; }
check hostile-2.7 "the outputs are there, as files" \
	all_there "$L/roofline_w2.png" "$L/overlap_w2.svg" "$L/index.html" "$T/junit.xml" "$L/$hbase.svg"
check hostile-2.8 "no temporary left" sh -c '! ls "$1" | grep -q "\.tmp[A-Za-z0-9]\{6\}\$"' - "$L"
expect_eq hostile-2.9 "" "$(marks)"

# hostile-3: a FIFO never hangs
mkfifo "$T/f.db"
mkdir "$T/d.db"
n=0
for c in best list "show 1" history report; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	expect_exit "hostile-3.$n" 2 timeout 20 "$FGO" $c --db "$T/f.db"
done
expect_err hostile-3.6 "not a fgobench store (a FIFO)"
expect_exit hostile-3.7 2 env FGOBENCH_DB="$T/f.db" timeout 20 "$FGO" best
expect_exit hostile-3.8 2 timeout 60 mpirun --oversubscribe -np 2 "$FGO" sweep tests/e2e/tiny.json --db "$T/f.db"
expect_exit hostile-3.9 2 timeout 20 "$FGO" regress --base 1 --head 2 --base-db "$T/f.db"
expect_exit hostile-3.10 2 timeout 20 "$FGO" best --db "$T/d.db"
expect_err hostile-3.11 "not a fgobench store (a directory)"

# hostile-4: bad input exits 2 naming what and where
(cd "$T" && expect_exit hostile-4.1 2 "$FGO" best --db "")
expect_err hostile-4.2 "store path is empty"
check hostile-4.3 "--db \"\" wrote no store" [ ! -e "$T/fgobench.db.none" ]
expect_exit hostile-4.4 2 "$FGO" regress --base 1 --head 2 --base-db ""
printf '{"algorithm": "gemm", "M": 64, "M": 128, "N": 64, "K": 64}\n' >"$T/dup.json"
expect_exit hostile-4.5 2 "$FGO" sweep "$T/dup.json" --dry-run
expect_err hostile-4.6 'dup.json:1:32: duplicate key "M"'
printf 'm,n,k,m\n64,64,64,128\n' >"$T/dup.csv"
expect_exit hostile-4.7 2 "$FGO" sweep "$T/dup.csv" --dry-run
expect_err hostile-4.8 'dup.csv:1:7: column "m" is named twice'
printf '{"algorithm": "all_scatter\\u0000; evil", "M": 64, "N": 64, "K": 64}\n' >"$T/nul.json"
expect_exit hostile-4.9 2 "$FGO" sweep "$T/nul.json" --dry-run
expect_err hostile-4.10 'nul.json:1:27: a NUL character (\u0000) in a string'
printf '{"algorithm": "gemm", "M": 64, "N": 64, "K": 64}\n\000garbage\n' >"$T/nulb.json"
expect_exit hostile-4.11 2 "$FGO" sweep "$T/nulb.json" --dry-run
expect_err hostile-4.12 'nulb.json:2:1: a NUL byte in the file'
awk 'BEGIN { s = ""; for (i = 0; i < 1001; i++) s = s "["; printf "{\"M\": %s1", s; for (i = 0; i < 1001; i++) printf "]"; print "}" }' >"$T/deep.json"
expect_exit hostile-4.13 2 "$FGO" sweep "$T/deep.json" --dry-run
expect_err hostile-4.14 "nested deeper than 1000 levels"
expect_exit hostile-4.15 2 "$FGO" regress --base 1 --head 2 --junit "$T/missing/dir/j.xml"
expect_err hostile-4.16 "folder $T/missing/dir: is not there"
cp "$T/base.db" "$T/damaged.db"
sqlite3 "$T/damaged.db" "DROP TABLE samples"
expect_exit hostile-4.17 2 "$FGO" best --db "$T/damaged.db"
expect_err hostile-4.18 "the store is damaged: table samples is missing"
expect_err hostile-4.19 "pass --db with a new file"

# hostile-5: names and tags reach the terminal escaped
"$FGO" list --db "$T/base.db" >"$T/list.txt" 2>&1
check hostile-5.1 "list prints no escape byte" none_hold "$ESC" "$T/list.txt"
check hostile-5.2 "the escape is shown as text" grep -qF '\x1b[2J' "$T/list.txt"
"$FGO" list >"$T/list2.txt" 2>&1
check hostile-5.3 "a newline in a tag does not split its row" \
	sh -c '! grep -q "^system " "$1" && grep -qF "n@m\\nsystem" "$1"' - "$T/list2.txt"
"$FGO" best --reproduce >"$T/best.txt" 2>&1
check hostile-5.6 "a stored algorithm is one quoted word in the reproduce line" \
	grep -qF -- "--algorithm 'all_scatter\`touch" "$T/best.txt"
"$FGO" list --format csv --db "$T/base.db" >"$T/list.csv" 2>&1
check hostile-5.4 "CSV keeps the raw text, quoted" grep -q "$ESC" "$T/list.csv"
expect_eq hostile-5.5 "" "$(marks)"

# 60_man.sh: each command's man page SYNOPSIS is the synopsis `--help` prints
# (the usage lines before the first blank line, without "usage: "), and
# every page is what `make man` writes from --help now.
. tests/e2e/lib.sh

for page in man/fgobench-*.1; do
	cmd=$(basename "$page" .1)
	cmd=${cmd#fgobench-}
	sed -n '/^\.SH SYNOPSIS/,/^\.fi/p' "$page" | sed '1,2d;$d' | sed 's/\\-/-/g; s/\\(em/—/g; s/\\e/\\/g' > "$T/man"
	"$FGO" "$cmd" --help 2>/dev/null | sed '/^$/,$d' | sed '1s/^usage: //; 2,$s/^       //' > "$T/help"
	if cmp -s "$T/man" "$T/help"; then
		pass "man-$cmd"
	else
		fail "man-$cmd" "SYNOPSIS of $page differs from \`fgobench $cmd --help\`: $(diff "$T/man" "$T/help" | head -5 | tr '\n' ' ')"
	fi
done
# every command `fgobench --help` lists has its page, and fgobench.1 names it
cmds=$("$FGO" --help | awk '/^commands:/ {f = 1; next} f && /^$/ {exit} f && /^  [a-z]/ {print $1}')
check man-commands "fgobench --help lists at least the first ten commands" [ "$(echo "$cmds" | wc -w)" -ge 10 ]
for c in $cmds; do
	check "man-page-$c" "man/fgobench-$c.1 exists" [ -f "man/fgobench-$c.1" ]
	check "man-main-$c" "fgobench.1 names fgobench-$c" sh -c "sed 's/\\\\-/-/g' man/fgobench.1 | grep -q 'fgobench-$c'"
done
# every page is what `make man` would write now (all of it, not only the
# SYNOPSIS: an option's text changed in --help must reach its page), the
# date line aside
root=$PWD
mkdir -p "$T/regen/man" "$T/regen/src"
cp man/summaries.txt "$T/regen/man/"
cp src/fgo.h "$T/regen/src/"
(cd "$T/regen" && FGO=$FGO sh "$root/man/mkman.sh") >/dev/null 2>&1
for page in man/fgobench-*.1; do
	name=$(basename "$page")
	sed 1d "$page" >"$T/page"
	sed 1d "$T/regen/man/$name" >"$T/regen.page" 2>/dev/null || : >"$T/regen.page"
	if cmp -s "$T/page" "$T/regen.page"; then
		pass "man-current-${name%.1}"
	else
		fail "man-current-${name%.1}" "$page is not what \`make man\` writes from --help now (run make man): $(diff "$T/page" "$T/regen.page" | head -4 | tr '\n' ' ')"
	fi
done

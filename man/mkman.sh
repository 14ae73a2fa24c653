#!/bin/sh
# mkman.sh: writes man/fgobench-CMD.1 for every command from its `--help`
# text, so the pages never drift from the tool (tests/e2e/60_man.sh checks
# the SYNOPSIS). Run after changing a usage text: `make man`.
#   SYNOPSIS     the usage lines before the first blank line
#   DESCRIPTION  the paragraphs up to the option list
#   OPTIONS      lines "  -x, --opt ARG   text" as .TP entries
set -eu
FGO=${FGO:-./fgobench}
date=$(git log -1 --format=%cs 2>/dev/null || date +%F)
version=$(sed -n 's/^#define FGO_VERSION "\(.*\)"/\1/p' src/fgo.h)

# roff-escape: backslashes and hyphens, and a leading dot or quote
esc() { sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^\([.']\)/\\\\\&\1/"; }

# every command `fgobench --help` lists
for cmd in $("$FGO" --help | awk '/^commands:/ {f = 1; next} f && /^$/ {exit} f && /^  [a-z]/ {print $1}'); do
	out=man/fgobench-$cmd.1
	# without the line that says where this page is (and its blank line)
	help=$("$FGO" "$cmd" --help | sed '/^The manual: /{N;d;}')
	summary=$(grep -m1 "^  $cmd " man/summaries.txt 2>/dev/null | sed "s/^  $cmd  *//" || true)
	{
		echo ".TH FGOBENCH\\-$(echo "$cmd" | tr a-z A-Z) 1 $date \"fgobench $version\" \"User Commands\""
		echo ".SH NAME"
		echo "fgobench\\-$cmd \\- $summary" | sed 's/\([^\\]\)-/\1\\-/g; s/fgobench\\\\-/fgobench\\-/'
		echo ".SH SYNOPSIS"
		echo ".nf"
		printf '%s\n' "$help" | sed '/^$/,$d' | sed '1s/^usage: //; 2,$s/^       //' | esc
		echo ".fi"
		echo ".SH DESCRIPTION"
		printf '%s\n' "$help" | awk 'f==0 && /^$/ {f=1; next} f==1 && /^  -/ {exit} f==1 {print}' |
			esc | awk '
				/^  / && !pre { print ".nf"; pre = 1 }
				!/^  / && pre { print ".fi"; pre = 0 }
				/^$/ { print ".PP"; next }
				{ print }
				END { if (pre) print ".fi" }'
		if printf '%s\n' "$help" | grep -q '^  -'; then
			echo ".SH OPTIONS"
			printf '%s\n' "$help" | awk 'f==0 && /^$/ {f=1; next} f>=1 && /^  -/ {f=2} f==2 {print}' |
				esc | awk '
				/^  \\-/ {
					line = substr($0, 3)
					n = match(line, /  +/)
					if (n) { opt = substr(line, 1, n - 1); txt = substr(line, n); sub(/^ +/, "", txt) }
					else { opt = line; txt = "" }
					print ".TP"; print ".B " opt; if (txt != "") print txt; next
				}
				/^$/ { next }
				{ sub(/^ +/, ""); print }'
		fi
		echo ".SH SEE ALSO"
		echo ".BR fgobench (1)"
	} > "$out"
done

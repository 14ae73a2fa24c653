#!/bin/sh
# links.sh FILE...: every relative link of the markdown FILEs (README.md,
# docs/*.md) leads somewhere: its file or folder exists, relative to the
# file that links, and its #anchor is a heading of the target (the target
# among FILE...). Prints "BROKEN FILE:LINE: URL (why)" per link that does
# not, and "PENDING FILE:LINE: URL" for a missing target named in
# $READMETEST_PENDING (files being written on other branches). Run from
# the repository root; tests/e2e/12_readme.sh runs it.
set -u
dir=$(dirname "$0")
awk -f "$dir/links.awk" "$@" | awk -F'\t' -v pending=" ${READMETEST_PENDING:-} " '
function norm(path,   n, part, i, out, k, stack) {
	n = split(path, part, "/")
	k = 0
	for (i = 1; i <= n; i++) {
		if (part[i] == "" || part[i] == ".")
			continue
		if (part[i] == ".." && k > 0 && stack[k] != "..") {
			k--
			continue
		}
		stack[++k] = part[i]
	}
	out = ""
	for (i = 1; i <= k; i++)
		out = out (i > 1 ? "/" : "") stack[i]
	return out
}
$1 == "ANCHOR" { anchor[$2 "#" $3] = 1; scanned[$2] = 1; next }
$1 == "LINK" { n++; file[n] = $2; line[n] = $3; url[n] = $4 }
END {
	for (i = 1; i <= n; i++) {
		u = url[i]
		at = index(u, "#")
		path = at ? substr(u, 1, at - 1) : u
		frag = at ? substr(u, at + 1) : ""
		base = file[i]
		sub(/[^\/]*$/, "", base)
		target = path == "" ? file[i] : norm(base path)
		where = file[i] ":" line[i] ": " u
		if (system("test -e \"" target "\"") != 0) {
			if (index(pending, " " target " "))
				print "PENDING " where
			else
				print "BROKEN " where " (no " target ")"
		} else if (frag != "" && !((target "#" frag) in anchor)) {
			if (target in scanned)
				print "BROKEN " where " (no heading #" frag " in " target ")"
			else
				print "BROKEN " where " (" target " is not among the files checked)"
		}
	}
}'

# links.awk: the links and the headings of markdown files, for
# tests/e2e/12_readme.sh's link check. For each file, one record per
# heading and per relative link outside code blocks (tab-separated):
#   ANCHOR  FILE  NAME        the heading's anchor as GitHub makes it
#                             (lowercase; letters, digits, _ and - kept,
#                             spaces to -, other characters dropped;
#                             "-1", "-2" after a repeated one)
#   LINK    FILE  LINE  URL   a link or image target that is not a web
#                             address (http:, https:, mailto:)

FNR == 1 {
	fence = 0
	delete seen
}

/^```/ {
	fence = !fence
	next
}

fence { next }

/^#+ / {
	h = $0
	sub(/^#+ +/, "", h)
	sub(/ +#* *$/, "", h)
	h = tolower(h)
	gsub(/[^a-z0-9 _-]/, "", h)
	gsub(/ /, "-", h)
	a = h
	if (h in seen)
		a = h "-" seen[h]
	seen[h]++
	printf "ANCHOR\t%s\t%s\n", FILENAME, a
}

{
	line = $0
	# inline code holds no link: `a](b)` in a command is text
	gsub(/`[^`]*`/, "", line)
	while (match(line, /\]\([^) ]+\)/)) {
		url = substr(line, RSTART + 2, RLENGTH - 3)
		line = substr(line, RSTART + RLENGTH)
		if (url ~ /^(https?|mailto):/)
			continue
		printf "LINK\t%s\t%d\t%s\n", FILENAME, FNR, url
	}
}

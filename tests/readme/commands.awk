# commands.awk: the commands of a README, for tests/readme/run.sh. A
# command is a line of a ```sh block, or a "$ " line of a ```console block
# (whose other lines are what it printed); a line ending in \ goes on in
# the next. Words after the block's language mark what CI cannot run:
#   ```sh gpu                 needs a GPU machine
#   ```sh own-test=FILE       runs too long for the README test; FILE runs it
# A comment announces the other exit statuses a command may end with
# ("# exit 1 on a regression": 0 or 1). Prints one tab-separated record
# per command:
#   RUN   LINE  EXITS  COMMAND    (EXITS: "0" or "0 1" ...)
#   SKIP  LINE  WHY    COMMAND
#   BAD   LINE  WHY               (a command the test would miss)
# LINE is where the command starts in the README.

function flush(   exits, rest, n) {
	if (cmd == "")
		return
	if (skip != "") {
		printf "SKIP\t%d\t%s\t%s\n", start, skip, cmd
	} else {
		# the statuses a comment announces: "exit N" (or "exit status N")
		exits = "0"
		rest = comment
		while (match(rest, /exit (status )?[0-9]+/)) {
			n = substr(rest, RSTART, RLENGTH)
			sub(/[^0-9]+/, "", n)
			if (n != "0")
				exits = exits " " n
			rest = substr(rest, RSTART + RLENGTH)
		}
		printf "RUN\t%d\t%s\t%s\n", start, exits, cmd
	}
	cmd = ""
	comment = ""
}

# adds one line's text to the command, its comment (" # ...") apart
function add(text,   at) {
	at = index(text, " #")
	if (at) {
		comment = comment " " substr(text, at + 2)
		text = substr(text, 1, at - 1)
	}
	sub(/[ \t]+$/, "", text)
	more = text ~ /\\$/
	if (more)
		text = substr(text, 1, length(text) - 1)
	if (cmd == "")
		start = NR
	cmd = cmd text
}

BEGIN {
	fence = 0
	more = 0
}

/^```/ {
	if (!fence) {
		info = substr($0, 4)
		n = split(info, word, /[ \t]+/)
		lang = word[1]
		skip = ""
		for (i = 2; i <= n; i++) {
			if (word[i] == "gpu")
				skip = "needs a GPU"
			else if (word[i] ~ /^own-test=/)
				skip = "run by " substr(word[i], 10)
		}
		fence = 1
	} else {
		flush()
		fence = 0
		more = 0
	}
	next
}

fence && lang == "sh" {
	line = $0
	if (more) {
		add(line)
		if (!more)
			flush()
		next
	}
	sub(/^[ \t]+/, "", line)
	if (line == "" || line ~ /^#/)
		next
	add(line)
	if (!more)
		flush()
	next
}

fence && lang == "console" {
	if (more) {
		add($0)
		if (!more)
			flush()
		next
	}
	if ($0 ~ /^\$ /) {
		add(substr($0, 3))
		if (!more)
			flush()
	}
	next
}

# an indented block is markdown's other code block: a command there would
# escape the test
!fence && /^(    |\t)[ \t]*(\.\/fgobench|fgobench|mpirun|make) / {
	printf "BAD\t%d\ta command in an indented block: put it in a ```sh block\n", NR
}

#!/bin/sh
# deps.sh check | install PACKAGE...: the Debian packages fgobench builds with.
# check: exit 0 when the headers and tools are present.
# install: apt-get install as root; otherwise print the exact command.
set -u
case "${1:-}" in
check)
	for f in /usr/include/sqlite3.h /usr/include/cjson/cJSON.h; do
		[ -f "$f" ] || { echo "missing $f" >&2; exit 1; }
	done
	for t in mpicc mpirun gnuplot sqlite3 cppcheck; do
		command -v "$t" >/dev/null 2>&1 || { echo "missing $t" >&2; exit 1; }
	done
	exit 0
	;;
install)
	shift
	if [ "$(id -u)" = 0 ]; then
		echo "installing: $*"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq && apt-get install -y -qq --no-install-recommends "$@"
	else
		echo "fgobench needs these Debian packages; run:" >&2
		echo "  sudo apt-get install -y $*" >&2
		exit 2
	fi
	;;
*)
	echo "usage: deps.sh check | install PACKAGE..." >&2
	exit 2
	;;
esac

# lib.sh: helpers for the end-to-end tests (sourced). Each check prints
# "PASS id" or "FAIL id: expected ..., got ..." like the unit tests.
set -u
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
FGO=${FGO:-$PWD/fgobench}
T=$(mktemp -d /tmp/fgobench-e2e.XXXXXX)
trap 'rm -rf "$T"' EXIT
export FGOBENCH_DB="$T/fgobench.db"

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }

# mpi N ARGS...: fgobench under mpirun -np N
mpi() {
	_np=$1
	shift
	mpirun --oversubscribe -np "$_np" "$FGO" "$@"
}

# check ID DESCRIPTION COMMAND...: passes when COMMAND succeeds
check() {
	id=$1 what=$2
	shift 2
	if "$@"; then pass "$id"; else fail "$id" "$what"; fi
}

# expect_exit ID CODE COMMAND...: runs COMMAND (stdout in $T/out, stderr in
# $T/err) and checks its exit status
expect_exit() {
	id=$1 code=$2
	shift 2
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" = "$code" ]; then
		pass "$id"
	else
		fail "$id" "expected exit $code, got $rc; stderr: $(head -c 300 "$T/err")"
	fi
}

# expect_err ID TEXT: the last command's stderr contains TEXT
expect_err() {
	if grep -qF -- "$2" "$T/err"; then
		pass "$1"
	else
		fail "$1" "expected \"$2\" in stderr, got: $(head -c 300 "$T/err")"
	fi
}

# expect_eq ID WANT GOT
expect_eq() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "expected \"$2\", got \"$3\""; fi
}

sql() { sqlite3 "${2:-$FGOBENCH_DB}" "$1"; }

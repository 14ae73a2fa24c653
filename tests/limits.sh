# limits.sh: how long each test may run before it counts as hung (sourced
# by tests/run.sh and tests/mutate.sh).
#   test_limit NAME   seconds for NAME: a unit test binary (test_x), an MPI
#                     test program (mpi_test_x) or an end-to-end script
#                     (NN_name, without .sh)
# The limit is, in this order: FGO_TEST_TIMEOUT_UNIT, _MPI or _E2E when set
# (every test of that kind: 37_timeout.sh sets them); NAME's line in
# tests/limits.txt (FGO_TEST_LIMITS: another table); else the default of
# its kind, generous for a test not measured yet (unit 120, MPI 300,
# end-to-end 600); these two times FGO_TEST_LIMIT_SCALE (an integer, 1)
# on a machine far busier than the table's.
test_limit() {
	case "$1" in
	mpi_*) _over=${FGO_TEST_TIMEOUT_MPI:-} _def=300 ;;
	test_*) _over=${FGO_TEST_TIMEOUT_UNIT:-} _def=120 ;;
	*) _over=${FGO_TEST_TIMEOUT_E2E:-} _def=600 ;;
	esac
	if [ -n "$_over" ]; then
		echo "$_over"
		return
	fi
	_v=$(awk -v n="$1" '$1 == n && $2 ~ /^[0-9]+$/ { print $2; exit }' \
		"${FGO_TEST_LIMITS:-tests/limits.txt}" 2>/dev/null)
	echo $((${_v:-$_def} * ${FGO_TEST_LIMIT_SCALE:-1}))
}

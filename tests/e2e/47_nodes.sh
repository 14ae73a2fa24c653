# 47_nodes.sh: a sweep over several nodes, on one host. FGOBENCH_TEST_NODES=2
# (a test hook of src/run/runner.c) splits the ranks into two pretend nodes
# by rank parity, as `mpirun --map-by node` places them on two hosts: the
# groups of W ranks form inside a node (W=2: ranks 0 and 2 on node 0, 1 and
# 3 on node 1, where one host's split makes {0,1} and {2,3}), their runs
# validate through the groups' symmetric heaps, rank 0 stores every run and
# every problem once, and a world larger than a node is refused.
. tests/e2e/lib.sh

two_nodes() {
	_np=$1
	shift
	mpirun --oversubscribe -np "$_np" -x FGOBENCH_TEST_NODES=2 "$FGO" "$@"
}

planned=$("$FGO" sweep tests/e2e/tiny.json --dry-run --format csv 2>/dev/null | sed 1d | wc -l)
expect_exit nodes-1.1 0 two_nodes 4 sweep tests/e2e/tiny.json --tag nodes --quiet
# the hook's own report of the groups it made (rank 0, only under the hook)
expect_err nodes-1.2 "FGOBENCH_TEST_NODES=2: world 2: 2 groups, led by rank 0 (node 0), 1 (node 1)"
expect_err nodes-1.3 "FGOBENCH_TEST_NODES=2: world 1: 4 groups, led by rank 0 (node 0), 1 (node 1), 2 (node 0), 3 (node 1)"
expect_eq nodes-1.4 "9 9" "$planned $(sql "select count(*) from runs")"
expect_eq nodes-1.5 "$planned $planned $planned" \
	"$(sql "select count(distinct config_key), sum(status = 'ok'), sum(validated) from runs" | tr '|' ' ')"
# one problem per (algorithm, dtype, world, M, N, K), each run under its own
# problem, each problem's baseline measured once (one set of iterations)
expect_eq nodes-1.6 5 "$(sql "select count(*) from problems")"
expect_eq nodes-1.7 5 "$(sql "select count(*) from (select distinct algorithm, dtype, world, m, n, k from runs)")"
expect_eq nodes-1.8 "$planned" "$(sql "select count(*) from runs r join problems p on p.id = r.problem_id
	where p.sweep_id = r.sweep_id and p.algorithm = r.algorithm and p.dtype = r.dtype
	and p.world = r.world and p.m = r.m and p.n = r.n and p.k = r.k")"
expect_eq nodes-1.9 "" "$(sql "select problem_id from problem_samples group by problem_id
	having count(*) <> max(iteration) or count(*) <> (select iterations from sweeps)")"
expect_eq nodes-1.10 1 "$(sql "select count(*) from sweeps")"

# without the hook the note is not there (and one host's groups are {0,1}, {2,3})
expect_exit nodes-2.1 0 mpi 4 sweep tests/e2e/tiny.json --tag one-node --quiet --db "$T/one.db"
check nodes-2.2 "no pretend nodes without the hook" sh -c "! grep -q FGOBENCH_TEST_NODES '$T/err'"

# a node of one rank cannot hold a world of 2; a node of 2 not a world of 4
expect_exit nodes-3.1 2 two_nodes 3 sweep tests/e2e/tiny.json --tag three --quiet --db "$T/three.db"
expect_err nodes-3.2 "needs world=2 on one node but a node has only 1 ranks"
check nodes-3.3 "nothing stored" [ "$(sql "select count(*) from runs" "$T/three.db" 2>/dev/null || echo 0)" = 0 ]
run4="run --algorithm all_scatter --world 4 -m 64 -n 128 -k 64 --BLK_M 32 --BLK_N 32 --BLK_K 32"
expect_exit nodes-3.4 2 two_nodes 4 $run4 --db "$T/w4.db"
expect_err nodes-3.5 "needs world=4 on one node but a node has only 2 ranks"
expect_exit nodes-3.6 0 mpi 4 $run4 --db "$T/w4.db"

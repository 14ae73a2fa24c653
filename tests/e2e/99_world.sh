# 99_world.sh: predictions across ranks from runs at W=2 on the CPU backend
# (issue 33): calibrate under mpirun -np 2 measures the vendor collective's
# curve (MPI all-gather, all-reduce, reduce-scatter at 5 sizes) and stores
# it; after a W=2 sweep, tune --strategy model fits a cost model on the spot
# (none stored, 16 runs of the family there) and stores none; calibrate
# --fit fits all_scatter's multi-GPU terms at W=2; best --predict --world 2
# says they were fitted at W=2, reads the baseline from the curve and gives
# the model's error on the stored runs (notes, csv, the store); at W=4 the
# same terms are extrapolated from W=2, and said so. Bad input: exit 2,
# nothing stored lost.
. tests/e2e/lib.sh

# the curve: 3 collectives at W=2, 5 sizes each, ascending, positive
expect_exit world-1.1 0 mpi 2 calibrate --size 64 --no-floor
check world-1.2 "the curves are printed" grep -q '^all_reduce  *2  ' "$T/out"
expect_eq world-1.3 "all_gather 2 5|all_reduce 2 5|reduce_scatter 2 5" \
	"$(sql "select c.collective || ' ' || c.world || ' ' || count(*) from coll_curves c join coll_curve_points p on p.curve_id = c.id group by c.id order by c.collective" | paste -sd'|')"
# every point timed, and each curve rising from its smallest size to its
# largest (not point by point: on shared cores a few-microsecond MPI call
# at 1 KiB once took over 4x the time of a larger one)
expect_eq world-1.4 0 "$(sql "select count(*) from coll_curve_points p where p.seconds <= 0 or (p.bytes = (select max(bytes) from coll_curve_points q where q.curve_id = p.curve_id) and p.seconds <= (select r.seconds from coll_curve_points r where r.curve_id = p.curve_id order by r.bytes limit 1))")"
expect_eq world-1.5 "1024 4194304" "$(sql "select min(bytes), max(bytes) from coll_curve_points" | tr '|' ' ')"
check world-1.6 "the method is stored" sh -c "[ \"\$(sqlite3 '$FGOBENCH_DB' \"select count(*) from coll_curves where method like 'cpu: MPI_%' and repetitions = 5\")\" = 3 ]"

# bad input: exit 2, the curves already stored kept
expect_exit world-2.1 2 mpi 1 calibrate --curve-max 1
expect_err world-2.2 '--curve-max 1 is out of range (4K to 16G)'
expect_exit world-2.3 2 "$FGO" calibrate --curve-max lots
expect_eq world-2.4 15 "$(sql "select count(*) from coll_curve_points")"

# tune --strategy model with no stored fit: fitted now from the sweep's 16
# all_scatter runs (and the gemm ones), not stored
expect_exit world-3.1 0 mpi 2 sweep tests/e2e/world.json --quiet
expect_eq world-3.2 0 "$(sql "select count(*) from model_fits")"
expect_exit world-3.3 0 mpi 2 tune --algorithm all_scatter --dtype fp32 --world 2 -m 256 -n 512 -k 256 --strategy model --budget 2 --space tests/e2e/world.json --quiet --format csv
expect_err world-3.4 'strategy model: the simt cost model of '
expect_err world-3.5 'fitted now to 18 runs (16 of them of this family and dtype; not stored'
expect_eq world-3.6 "model 2" "$(tail -n 1 "$T/out" | cut -d, -f7,9 | tr , ' ')"
expect_eq world-3.7 0 "$(sql "select count(*) from model_fits")"

# calibrate --fit: all_scatter's terms at W=2 from its 18 runs (the sweep's
# and tune's). Which side of the max each run is on comes from the times,
# and on a loaded machine (these are 2 ranks on 2 shared cores) the times
# decide which terms a fit pins: CI has seen gemm/link/tile/wait in most
# combinations. test_world_fit.c checks the fit on known numbers; here the
# store, `best --predict` and its JSON must agree on what was pinned. The
# reduction never is (all_scatter has none)
expect_exit world-4.1 0 "$FGO" calibrate --fit
check world-4.2 "the fit is printed" grep -Eq '^world all_scatter W=2 18 runs: error rms [0-9.]+%, max [0-9.]+%; gemm x[0-9.e+-]+, link ([0-9.e+-]+ GB/s|hidden|-), tile x[0-9.e+-]+, wait [0-9.e+-]+ us, reduce reads -(, link latency [0-9.e+-]+ us)?(, exposed share x[0-9.e+-]+)?$' "$T/out"
check world-4.3 "the fit is stored with its pinned terms" sh -c "sqlite3 '$FGOBENCH_DB' \"select algorithm, world, runs, fitted from world_fits\" | grep -Eqx 'all_scatter\|2\|18\|(gemm ?)?(link ?)?(tile ?)?(wait ?)?(latency ?)?(share)?' && sqlite3 '$FGOBENCH_DB' \"select fitted from world_fits\" | grep -Eq '[a-z]'"
pinned=$(sql "select replace(fitted, ' ', ', ') from world_fits")
expect_eq world-4.4 1 "$(sql "select count(*) from world_fits where (c_gemm > 0 or c_link > 0) and rms_rel_err > 0 and max_rel_err >= rms_rel_err")"

# best --predict --world 2: which terms were fitted at W=2, the baseline
# from the curve, the error on the stored runs
expect_exit world-5.1 0 "$FGO" best --predict -m 256 -n 512 -k 256 --world 2 --format json
row=$(grep '"algorithm": "all_scatter", "W": 2,' "$T/out")
check world-5.2 "the terms fitted at W=2 ($row)" sh -c "echo '$row' | grep -Eq '\"terms\": \"$pinned fitted at W=2(; [a-z, ]+ from the ceilings \(not fitted\))?; no reduce term\"'"
check world-5.3 "the baseline from the curve" sh -c "echo '$row' | grep -q '\"baseline_from\": \"the all_gather curve at W=2 (512 KiB: interpolated)\"'"
check world-5.4 "the error on 18 runs ($row)" sh -c "echo '$row' | grep -Eq '\"err_runs\": 18, \"err_rms_pct\": [0-9.]+, \"err_max_pct\": [0-9.]+[,}]'"
expect_err world-5.5 "all_scatter at W=2: $pinned fitted at W=2"
expect_err world-5.5b 'no reduce term; baseline: the all_gather curve at W=2 (512 KiB: interpolated); error on its 18 stored ok runs at W=2: rms '
expect_err world-5.6 'all_reduce_one_shot at W=2: gemm, link, tile, wait, reduce from the ceilings (not fitted); baseline: the all_reduce curve at W=2'
expect_eq world-5.7 1 "$(sql "select count(*) from world_predictions where algorithm = 'all_scatter' and world = 2 and terms like '%fitted at W=2%' and baseline_from like '%curve at W=2%' and err_runs = 18 and err_rms > 0 and err_max >= err_rms")"
# the table says it in its notes and fits 120 columns
expect_exit world-5.8 0 "$FGO" best --predict -m 256 -n 512 -k 256 --world 2
check world-5.9 "the table fits 120 columns" [ "$(awk '{ if (length($0) > w) w = length($0) } END { print w + 0 }' "$T/out")" -le 120 ]
expect_err world-5.10 'error on its 18 stored ok runs at W=2'

# W=4: nothing measured there: the terms extrapolated from W=2, the curve
# scaled from W=2, no runs to judge it on
expect_exit world-6.1 0 "$FGO" best --predict -m 256 -n 512 -k 256 --world 4 --format json
expect_err world-6.2 "all_scatter at W=4: $pinned extrapolated from W=2"
expect_err world-6.2b 'no reduce term; baseline: the all_gather curve at W=2, scaled to W=4'
expect_err world-6.3 'no stored ok runs at W=4 to judge it on'
check world-6.4 "json carries the terms and the error" grep -Eq "\"terms\": \"$pinned extrapolated from W=2(; [a-z, ]+ from the ceilings \\(not fitted\\))?; no reduce term\", \"baseline_from\": \"the all_gather curve at W=2, scaled to W=4 \\(512 KiB: extrapolated: another W\\)\", \"err_runs\": 0" "$T/out"

# calibrate at W=4 too: a link coefficient fitted at W=2 moves to W=4 at
# the rate the measured all-gather curves say a rank's links reach there
# (their bus bandwidth at W=4 over W=2, coll_link_scale), and the note says
# by how much; a link the fit did not pin keeps the ceiling's, unscaled,
# and so does one fitted with its latency (the comm-only runs' own rate:
# a GPU's egress at W=4 was lower than at W=2 on four H100s, not higher)
expect_exit world-7.1 0 mpi 4 calibrate --size 64 --no-floor
expect_exit world-7.2 0 "$FGO" best --predict -m 256 -n 512 -k 256 --world 4
case ", $pinned, " in
*", latency, "*)
	check world-7.3 "a link fitted with its latency at W=2 is not scaled ($pinned)" sh -c "! grep -q 'link x' '$T/err' && grep -q 'baseline: the all_gather curve at W=4' '$T/err'" ;;
*", link, "*)
	check world-7.3 "the link extrapolated from W=2 is scaled by the curves" \
		grep -Eq 'all_scatter at W=4: .*; link x[0-9]+\.[0-9][0-9], the measured all_gather curves. bus bandwidth at W=4 over W=2; baseline: the all_gather curve at W=4' "$T/err" ;;
*)
	check world-7.3 "a link not pinned is not scaled ($pinned)" sh -c "! grep -q 'link x' '$T/err' && grep -q 'baseline: the all_gather curve at W=4' '$T/err'" ;;
esac

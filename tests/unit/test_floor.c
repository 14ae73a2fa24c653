/* test_floor.c: the read floor (floor.h): interpolation on a curve
 * (log-log between points, the first point below it, the last segment's
 * bandwidth above it), a run's per-rank GEMM bytes and FLOPs per family,
 * the ridge that says memory-bound, the sizes calibrate reads; and the
 * curve in the store: written with ceilings in one batch, the newest of a
 * machine and backend read back, another machine's never, a failed write
 * leaving nothing. */
#include "store_fixture.h"

#include "floor.h"

/* 1 MiB 10 us, 2 MiB 15 us, 4 MiB 20 us, 8 MiB 30 us (log-log segments). */
static struct fgo_floor curve4(void)
{
	struct fgo_floor f;
	memset(&f, 0, sizeof f);
	static const double b[] = { 1 << 20, 2 << 20, 4 << 20, 8 << 20 }, t[] = { 10e-6, 15e-6, 20e-6, 30e-6 };
	f.n = 4;
	for (int i = 0; i < 4; i++) {
		f.bytes[i] = b[i];
		f.seconds[i] = t[i];
	}
	return f;
}

static void check_interpolation(void)
{
	struct fgo_floor f = curve4(), none;
	memset(&none, 0, sizeof none);
	const double M = 1 << 20;
	static const struct {
		const char *id;
		double bytes, want_us;
	} cases[] = {
		{ "interp-1.1 at the first point", 1 << 20, 10 },
		{ "interp-1.2 below the first point: its time", 4096, 10 },
		{ "interp-1.3 at an inner point", 4 << 20, 20 },
		{ "interp-1.4 at the last point", 8 << 20, 30 },
		/* sqrt(2) MiB: half way in log bytes, so the geometric mean of 10 and 15 */
		{ "interp-1.5 log-log midpoint", 1.4142135623730951 * (1 << 20), 12.247448713915890 },
		/* 6 MiB: 20 * (30/20)^(log(1.5)/log(2)) */
		{ "interp-1.6 inside the last segment", 6 << 20, 25.35343330 },
		/* above: 30 us + 8 MiB at the last segment's 4 MiB / 10 us */
		{ "interp-1.7 above: last segment's bandwidth", 16 << 20, 50 },
		{ "interp-1.8 far above", 1024.0 * (1 << 20), 30 + 1016.0 / 4 * 10 },
	};
	for (size_t i = 0; i < FGO_ARRAY_SIZE(cases); i++)
		T_NEAR(cases[i].id, floor_seconds(&f, cases[i].bytes) * 1e6, cases[i].want_us, 1e-6);
	T_CHECK("interp-2.1 no curve: NaN", isnan(floor_seconds(&none, M)), "got %g",
		floor_seconds(&none, M));
	T_CHECK("interp-2.2 no bytes: NaN", isnan(floor_seconds(&f, 0)), "got %g", floor_seconds(&f, 0));
	/* a last segment that does not rise (noise): the last point's own bandwidth */
	f.seconds[3] = 19e-6;
	T_NEAR("interp-2.3 flat last segment", floor_seconds(&f, 16 << 20) * 1e6, 38, 1e-6);
	/* one point: proportional above it */
	f.n = 1;
	T_NEAR("interp-2.4 one point, above", floor_seconds(&f, 3 << 20) * 1e6, 30, 1e-6);
	T_NEAR("interp-2.5 one point, below", floor_seconds(&f, 1024) * 1e6, 10, 1e-6);
	/* monotone between points of a rising curve */
	f = curve4();
	double prev = 0;
	int monotone = 1;
	for (double b = 0.5 * M; b < 64 * M; b *= 1.07) {
		double t = floor_seconds(&f, b);
		monotone &= t >= prev;
		prev = t;
	}
	T_CHECK("interp-2.6 monotone on a rising curve", monotone, "the floor went down somewhere");
}

static struct fgo_config cfg_of(const char *algo, enum fgo_dtype t, int world, long m, long n, long k)
{
	struct fgo_config c;
	config_defaults(&c);
	snprintf(c.algorithm, sizeof c.algorithm, "%s", algo);
	c.dtype = t;
	c.world = world;
	c.m = m;
	c.n = n;
	c.k = k;
	return c;
}

static void check_work(void)
{
	static const struct {
		const char *id, *algo;
		enum fgo_dtype t;
		int world;
		long m, n, k;
		double bytes, flops;
	} cases[] = {
		/* the decode shape of the issue: 1 x 512 x 14336 bf16, whole on one rank */
		{ "work-1.1 gemm decode", "gemm", FGO_BF16, 1, 1, 512, 14336,
		  (1.0 * 14336 + 14336.0 * 512 + 512) * 2, 2.0 * 512 * 14336 },
		/* all_scatter: A whole, B and C column-sharded: M x N/W over K */
		{ "work-1.2 all_scatter w2", "all_scatter", FGO_FP16, 2, 64, 1024, 512,
		  (64.0 * 512 + 512.0 * 512 + 64 * 512) * 2, 2.0 * 64 * 512 * 512 },
		/* all_reduce: K-sharded, the partial C whole */
		{ "work-1.3 all_reduce w2", "all_reduce_one_shot", FGO_FP32, 2, 64, 1024, 512,
		  (64.0 * 256 + 256.0 * 1024 + 64 * 1024) * 4, 2.0 * 64 * 1024 * 256 },
		/* reduce_scatter: K-sharded, W blocks of M/W rows: A M x K/W, B K/W x N, C M x N */
		{ "work-1.4 reduce_scatter w2", "reduce_scatter", FGO_FP16, 2, 64, 1024, 512,
		  (64.0 * 256 + 256.0 * 1024 + 64 * 1024) * 2, 2.0 * 64 * 1024 * 256 },
		/* all_gather_gemm: A gathered (M x K), B K x N/W, C M x N/W */
		{ "work-1.5 all_gather_gemm w2", "all_gather_gemm_pull", FGO_BF16, 2, 64, 1024, 512,
		  (64.0 * 512 + 512.0 * 512 + 64 * 512) * 2, 2.0 * 64 * 512 * 512 },
		{ "work-1.6 unknown algorithm: a plain GEMM", "no_such_family", FGO_FP32, 2, 8, 16, 32,
		  (8.0 * 32 + 32 * 16 + 8 * 16) * 4, 2.0 * 8 * 16 * 32 },
	};
	for (size_t i = 0; i < FGO_ARRAY_SIZE(cases); i++) {
		struct fgo_config c = cfg_of(cases[i].algo, cases[i].t, cases[i].world, cases[i].m,
					     cases[i].n, cases[i].k);
		double bytes = 0, flops = 0;
		char id[96];
		floor_gemm_work(&c, &bytes, &flops);
		snprintf(id, sizeof id, "%s bytes", cases[i].id);
		T_NEAR(id, bytes, cases[i].bytes, 0.5);
		snprintf(id, sizeof id, "%s flops", cases[i].id);
		T_NEAR(id, flops, cases[i].flops, 0.5);
	}
}

static void check_memory_bound(void)
{
	struct fgo_floor f = curve4();
	double s = 0, b = 0;
	/* H100-like: 774 TFLOP/s bf16, 2793 GB/s: ridge 277 FLOP/B */
	f.matrix_peak[FGO_BF16] = 774;
	f.memory_bw = 2793;
	T_NEAR("ridge-1.1 peak / bandwidth", floor_ridge(&f, FGO_BF16), 774e12 / 2793e9, 1e-6);
	T_EQ_INT("ridge-1.2 no peak for the dtype: unknown", floor_ridge(&f, FGO_FP16) == 0, 1);
	struct fgo_config decode = cfg_of("gemm", FGO_BF16, 1, 1, 512, 14336);
	T_CHECK("bound-1.1 decode is memory-bound", floor_of_run(&f, &decode, &s, &b),
		"not memory-bound");
	T_NEAR("bound-1.2 its floor is the curve at its bytes", s, floor_seconds(&f, b), 1e-15);
	T_NEAR("bound-1.3 its bytes", b, (14336.0 + 14336.0 * 512 + 512) * 2, 0.5);
	struct fgo_config big = cfg_of("gemm", FGO_BF16, 1, 8192, 8192, 8192);
	T_EQ_INT("bound-1.4 8192^3 is compute-bound", floor_of_run(&f, &big, &s, &b), 0);
	struct fgo_config fp16 = cfg_of("gemm", FGO_FP16, 1, 1, 512, 14336);
	T_EQ_INT("bound-1.5 no peak for the dtype: nothing said", floor_of_run(&f, &fp16, &s, &b), 0);
	/* no memory_bw ceiling: the curve's own bandwidth at its largest point */
	f.memory_bw = 0;
	T_NEAR("ridge-1.3 from the curve", floor_ridge(&f, FGO_BF16),
	       774e12 / ((8 << 20) / 30e-6), 1e-6);
	struct fgo_floor none;
	memset(&none, 0, sizeof none);
	none.matrix_peak[FGO_BF16] = 774;
	none.memory_bw = 2793;
	T_EQ_INT("bound-1.6 no curve: nothing said", floor_of_run(&none, &decode, &s, &b), 0);
}

static void check_sizes(void)
{
	size_t s[FLOOR_POINTS_MAX];
	int n = floor_sizes((size_t)1 << 30, s, FLOOR_POINTS_MAX);
	T_EQ_INT("sizes-1.1 1 MiB to 1 GiB: 21 sizes", n, 21);
	T_EQ_INT("sizes-1.2 first 1 MiB", s[0], 1 << 20);
	T_EQ_INT("sizes-1.3 then 1.5 MiB", s[1], 3 << 19);
	T_EQ_INT("sizes-1.4 last 1 GiB", s[n - 1], (size_t)1 << 30);
	int ascending = 1;
	for (int i = 1; i < n; i++)
		ascending &= s[i] > s[i - 1];
	T_CHECK("sizes-1.5 ascending", ascending, "not ascending");
	T_EQ_INT("sizes-1.6 256 MiB cap: 17 sizes", floor_sizes((size_t)256 << 20, s, 64), 17);
	T_EQ_INT("sizes-1.7 3 MiB cap ends at 3 MiB", s[floor_sizes((size_t)3 << 20, s, 64) - 1],
		 3 << 20);
	T_EQ_INT("sizes-1.8 cap on the count", floor_sizes((size_t)1 << 30, s, 5), 5);
}

static void check_store(void)
{
	char p[512], err[512] = "";
	struct fgo_store *st = NULL;
	in_tmp(p, sizeof p, "floor.db");
	if (store_open(p, FGO_STORE_WRITE, &st, err, sizeof err) != FGO_OK) {
		T_CHECK("store-1.0 opens", 0, "%s", err);
		return;
	}
	sqlite3 *db = store_db(st);
	struct fgo_floor f;
	int rc = store_floor_get(db, "node-1", "gpu", &f, err, sizeof err);
	T_CHECK("store-1.1 no curve yet", rc == FGO_OK && f.n == 0, "rc %d n %d", rc, f.n);

	static const double b1[] = { 1 << 20, 2 << 20, 4 << 20 }, t1[] = { 4e-6, 5e-6, 7e-6 };
	static const double b2[] = { 1 << 20, 3 << 19 }, t2[] = { 3e-6, 3.5e-6 };
	/* the first curve with ceilings, as calibrate does: one batch */
	rc = store_batch_begin(st, err, sizeof err) ||
	     store_ceiling_put(st, "node-1", "gpu", "matrix_peak", "bf16", 774, "TFLOP/s", err,
			       sizeof err) ||
	     store_ceiling_put(st, "node-1", "gpu", "memory_bw", "", 2793, "GB/s", err, sizeof err) ||
	     store_floor_put(st, "node-1", "gpu", "1x NVIDIA H100", "gpu: test", 10, b1, t1, 3, err,
			     sizeof err) ||
	     store_batch_commit(st, err, sizeof err);
	T_CHECK("store-1.2 put in a batch", rc == FGO_OK, "%s", err);
	rc = store_floor_get(db, "node-1", "gpu", &f, err, sizeof err);
	T_CHECK("store-1.3 read back", rc == FGO_OK && f.n == 3 && f.bytes[2] == (4 << 20) &&
					       f.seconds[1] == 5e-6,
		"rc %d n %d", rc, f.n);
	T_CHECK("store-1.4 with its ceilings", f.matrix_peak[FGO_BF16] == 774 && f.memory_bw == 2793,
		"peak %g bw %g", f.matrix_peak[FGO_BF16], f.memory_bw);
	T_NEAR("store-1.5 interpolates the stored curve", floor_seconds(&f, 3 << 20) * 1e6,
	       5 * pow(7.0 / 5, log(1.5) / log(2)), 1e-9);
	T_EQ_STR("store-1.6 method and repetitions kept",
		 q_text(db, "SELECT method || ' ' || repetitions || ' ' || devices FROM read_floors"),
		 "gpu: test 10 1x NVIDIA H100");

	/* a newer curve of the same machine wins; another machine's never shows */
	rc = store_floor_put(st, "node-1", "gpu", "", "gpu: again", 10, b2, t2, 2, err, sizeof err);
	T_CHECK("store-2.1 second curve", rc == FGO_OK, "%s", err);
	rc = store_floor_get(db, "node-1", "gpu", &f, err, sizeof err);
	T_CHECK("store-2.2 the newest curve", rc == FGO_OK && f.n == 2 && f.seconds[0] == 3e-6,
		"n %d first %g", f.n, f.seconds[0]);
	rc = store_floor_get(db, "node-2", "gpu", &f, err, sizeof err);
	T_CHECK("store-2.3 another machine: none", rc == FGO_OK && f.n == 0, "n %d", f.n);
	rc = store_floor_get(db, "node-1", "cpu", &f, err, sizeof err);
	T_CHECK("store-2.4 another backend: none", rc == FGO_OK && f.n == 0, "n %d", f.n);

	/* refused points: nothing written */
	static const double bad_b[] = { 2 << 20, 1 << 20 }, bad_t[] = { 1e-6, 2e-6 }, zero_t[] = { 0, 1e-6 };
	int64_t before = count(db, "SELECT count(*) FROM read_floors");
	rc = store_floor_put(st, "node-1", "gpu", "", "x", 1, bad_b, bad_t, 2, err, sizeof err);
	T_CHECK("store-3.1 sizes not ascending: refused", rc == FGO_EUSAGE, "rc %d", rc);
	rc = store_floor_put(st, "node-1", "gpu", "", "x", 1, b2, zero_t, 2, err, sizeof err);
	T_CHECK("store-3.2 a zero time: refused", rc == FGO_EUSAGE, "rc %d", rc);
	rc = store_floor_put(st, "node-1", "gpu", "", "x", 1, b2, t2, 0, err, sizeof err);
	T_CHECK("store-3.3 no points: refused", rc == FGO_EUSAGE, "rc %d", rc);
	/* a batch that fails after the curve: the curve goes with it */
	rc = store_batch_begin(st, err, sizeof err);
	rc |= store_floor_put(st, "node-9", "gpu", "", "x", 1, b2, t2, 2, err, sizeof err);
	rc |= store_floor_put(st, "node-9", "gpu", "", "x", 1, bad_b, bad_t, 2, err, sizeof err);
	store_batch_forget(st);
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	T_EQ_INT("store-3.4 nothing of the refused writes", count(db, "SELECT count(*) FROM read_floors"),
		 before);

	/* the views' cache: one read per machine, a NULL never */
	struct floor_cache *c = calloc(1, sizeof *c);
	const struct fgo_floor *a = floor_cache_find(c, db, "node-1", "gpu", err, sizeof err);
	const struct fgo_floor *again = floor_cache_find(c, db, "node-1", "gpu", err, sizeof err);
	const struct fgo_floor *other = floor_cache_find(c, db, "node-2", "gpu", err, sizeof err);
	T_CHECK("cache-1.1 found and kept", a && a == again && a->n == 2, "a %p again %p",
		(const void *)a, (const void *)again);
	T_CHECK("cache-1.2 other machine: empty", other && other->n == 0, "other %p",
		(const void *)other);
	free(c);
	store_close(st);

	/* a reader sees the curve too */
	st = NULL;
	rc = store_open(p, FGO_STORE_READ, &st, err, sizeof err);
	if (rc == FGO_OK)
		rc = store_floor_get(store_db(st), "node-1", "gpu", &f, err, sizeof err);
	T_CHECK("store-4.1 read-only store", rc == FGO_OK && f.n == 2, "rc %d: %s", rc, err);
	store_close(st);
}

int main(void)
{
	if (fixture_begin("floor"))
		return 1;
	check_interpolation();
	check_work();
	check_memory_bound();
	check_sizes();
	check_store();
	fixture_end();
	T_DONE();
}

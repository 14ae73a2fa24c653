/* test_calibrate_device.c: `fgobench calibrate`'s device path (what the GPU
 * backend takes) without a GPU: this program defines fgo_backend_gpu itself
 * (the CPU build references it weakly), a stand-in whose matrix_peak,
 * memory_bandwidth and link_bandwidth return known numbers per rank. Checks
 * what is printed, what is stored (the slowest rank, the slowest pair), and
 * that failures on one rank end with exit 1 on every rank, not a hang. Run
 * under `mpirun --oversubscribe -np 4`. */
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "cmd/cmd.h"
#include "fgo.h"
#include "store/store.h"
#include "testlib.h"

struct fgo_backend_ctx {
	int rank;
};

/* Which rank fails what (-1: none). */
static struct {
	int peak_fails_rank, peak_fails_dtype, link_fails_rank;
	size_t heap_bytes;  /* what link_bandwidth was given */
	int pairs_barriers; /* barriers link_bandwidth took part in */
} fake = { -1, -1, -1, 0, 0 };

static int fake_available(void)
{
	return 1;
}

static int fake_init(struct fgo_backend_ctx **ctx, MPI_Comm node, char *err, size_t len)
{
	(void)err, (void)len;
	*ctx = calloc(1, sizeof **ctx);
	MPI_Comm_rank(MPI_COMM_WORLD, &(*ctx)->rank);
	(void)node;
	return *ctx ? FGO_OK : FGO_EFAIL;
}

static void fake_describe(struct fgo_backend_ctx *ctx, struct fgo_env *env)
{
	(void)ctx;
	memset(env, 0, sizeof *env);
	snprintf(env->devices, sizeof env->devices, "fake GPU");
}

/* No memory: the stand-in's link_bandwidth never touches it. */
static int fake_heap_alloc(struct fgo_backend_ctx *ctx, MPI_Comm comm, size_t bytes,
			   struct fgo_heap *heap, char *err, size_t len)
{
	(void)ctx, (void)err, (void)len;
	memset(heap, 0, sizeof *heap);
	heap->comm = comm;
	MPI_Comm_rank(comm, &heap->rank);
	MPI_Comm_size(comm, &heap->world);
	heap->bytes = bytes;
	heap->base = calloc((size_t)heap->world, sizeof *heap->base);
	return FGO_OK;
}

static void fake_heap_free(struct fgo_backend_ctx *ctx, struct fgo_heap *heap)
{
	(void)ctx;
	MPI_Barrier(heap->comm);
	free(heap->base);
	memset(heap, 0, sizeof *heap);
}

/* Rank 2 is the slowest: 100, 200, 300 TFLOP/s there, 10 + rank more elsewhere. */
static int fake_matrix_peak(struct fgo_backend_ctx *ctx, enum fgo_dtype dtype, double *tflops,
			    char *err, size_t len)
{
	if (ctx->rank == fake.peak_fails_rank && (int)dtype == fake.peak_fails_dtype) {
		snprintf(err, len, "fake cuBLAS failure");
		return FGO_EFAIL;
	}
	*tflops = 100.0 * (dtype + 1) + (ctx->rank == 2 ? 0 : 10 + ctx->rank);
	return FGO_OK;
}

/* 2000 GB/s less 100 per rank: rank 3 (of 4) is the slowest. */
static int fake_memory_bandwidth(struct fgo_backend_ctx *ctx, double *gbps, char *err, size_t len)
{
	(void)err, (void)len;
	*gbps = 2000.0 - 100.0 * ctx->rank;
	return FGO_OK;
}

/* sm[j] = 300 + 10 i + j, except 3 -> 1 (250: the slowest pair); ce = sm + 100.
 * Collective like the real one: a barrier per pair, agreed failure. */
static int fake_link_bandwidth(struct fgo_backend_ctx *ctx, struct fgo_heap *heap, double *sm,
			       double *ce, char *err, size_t len)
{
	int ok = ctx->rank != fake.link_fails_rank;
	fake.heap_bytes = heap->bytes;
	for (int i = 0; i < heap->world; i++)
		for (int j = 0; j < heap->world; j++)
			if (i != j) {
				MPI_Barrier(heap->comm);
				fake.pairs_barriers++;
			}
	for (int j = 0; j < heap->world; j++) {
		sm[j] = j == heap->rank ? 0 : heap->rank == 3 && j == 1 ? 250 : 300 + 10 * heap->rank + j;
		ce[j] = j == heap->rank ? 0 : sm[j] + 100;
	}
	MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, heap->comm);
	if (!ok)
		snprintf(err, len, "fake link failure");
	return ok ? FGO_OK : FGO_EFAIL;
}

static void fake_finish(struct fgo_backend_ctx *ctx)
{
	free(ctx);
}

const struct fgo_backend fgo_backend_gpu = {
	.name = "gpu",
	.available = fake_available,
	.init = fake_init,
	.describe = fake_describe,
	.heap_alloc = fake_heap_alloc,
	.heap_free = fake_heap_free,
	.prepare = NULL,
	.copy_in = NULL,
	.launch = NULL,
	.baseline = NULL,
	.bulk = NULL,
	.telemetry = NULL,
	.matrix_peak = fake_matrix_peak,
	.link_bandwidth = fake_link_bandwidth,
	.memory_bandwidth = fake_memory_bandwidth,
	.release = NULL,
	.finish = fake_finish,
};

/* Runs `calibrate --backend gpu --db DB` with rank 0's stdout in out_path. */
static int calibrate(const char *db, const char *out_path, int rank)
{
	char *argv[] = { "calibrate", "--backend", "gpu", "--db", (char *)db, NULL };
	int saved = -1, rc;
	fflush(stdout);
	if (rank == 0) {
		FILE *f = fopen(out_path, "w");
		saved = dup(1);
		if (f) {
			dup2(fileno(f), 1);
			fclose(f);
		}
	}
	rc = cmd_calibrate(5, argv);
	fflush(stdout);
	if (rank == 0 && saved >= 0) {
		dup2(saved, 1);
		close(saved);
	}
	return rc;
}

static char *slurp(const char *path)
{
	static char buf[16384];
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
	buf[n] = 0;
	if (f)
		fclose(f);
	return buf;
}

static double ceiling(const char *db, const char *what, const char *dtype, int *found)
{
	char host[128] = "unknown", err[512];
	double v = 0;
	struct fgo_store *st;
	*found = 0;
	gethostname(host, sizeof host - 1);
	if (store_open(db, FGO_STORE_READ, &st, err, sizeof err) != FGO_OK) {
		printf("# %s\n", err);
		return 0;
	}
	store_ceiling_get(st, host, "gpu", what, dtype, &v, found, err, sizeof err);
	store_close(st);
	return v;
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/fgobench-caldev.XXXXXX", db[128], out[128];
	int rank, ranks, found, rc;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &ranks);
	if (rank == 0 && !mkdtemp(dir))
		printf("FAIL caldev-mkdtemp: %s\n", strerror(errno));
	MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
	snprintf(out, sizeof out, "%s/out", dir);

	/* caldev-1: everything measured */
	snprintf(db, sizeof db, "%s/ok.db", dir);
	rc = calibrate(db, out, rank);
	if (rank == 0) {
		const char *text = slurp(out);
		T_EQ_INT("caldev-1.1 exit status", rc, FGO_OK);
		T_NEAR("caldev-1.2 fp32 peak: slowest rank", ceiling(db, "matrix_peak", "fp32", &found), 100, 1e-9);
		T_NEAR("caldev-1.3 bf16 peak: slowest rank", ceiling(db, "matrix_peak", "bf16", &found), 300, 1e-9);
		T_NEAR("caldev-1.4 memory: slowest rank", ceiling(db, "memory_bw", "", &found),
		       2000.0 - 100.0 * (ranks - 1), 1e-9);
		T_NEAR("caldev-1.5 link_bw: slowest pair's SM stores", ceiling(db, "link_bw", "", &found),
		       ranks >= 4 ? 250 : 301, 1e-9);
		T_EQ_INT("caldev-1.6 link heap: 512 MiB per rank", fake.heap_bytes, (size_t)512 << 20);
		T_CONTAINS("caldev-1.7 says no TF32", text, "CUBLAS_COMPUTE_32F, no TF32");
		T_CONTAINS("caldev-1.8 SM-store matrix", text, "SM stores");
		T_CONTAINS("caldev-1.9 copy-engine matrix", text, "copy engine");
		/* row 3 of the SM matrix: 330 331 332 - ... with 250 for 3 -> 1 */
		T_CONTAINS("caldev-1.10 writer 0 into 1", text, "301.0");
		T_CONTAINS("caldev-1.11 copy engine 0 into 1", text, "401.0");
		T_CONTAINS("caldev-1.12 per-rank row of rank 1", text, "211.0");
		T_CONTAINS("caldev-1.13 stored summary", text, "link_bw");
	}
	int all_ok = fake.pairs_barriers == ranks * (ranks - 1);
	MPI_Allreduce(MPI_IN_PLACE, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (rank == 0)
		T_EQ_INT("caldev-1.14 every rank: one barrier per ordered pair", all_ok, 1);

	/* caldev-2: fp16 fails on rank 2 and the link on rank 1: exit 1 everywhere,
	 * what was measured everywhere is stored, the rest not */
	fake.peak_fails_rank = ranks > 2 ? 2 : 0;
	fake.peak_fails_dtype = FGO_FP16;
	fake.link_fails_rank = 1;
	snprintf(db, sizeof db, "%s/fail.db", dir);
	rc = calibrate(db, out, rank);
	all_ok = rc == FGO_EFAIL;
	MPI_Allreduce(MPI_IN_PLACE, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (rank == 0) {
		T_EQ_INT("caldev-2.1 exit status 1 on every rank", all_ok, 1);
		T_NEAR("caldev-2.2 fp32 still stored", ceiling(db, "matrix_peak", "fp32", &found), 100, 1e-9);
		ceiling(db, "matrix_peak", "fp16", &found);
		T_EQ_INT("caldev-2.3 fp16 not stored (a rank failed)", found, 0);
		ceiling(db, "link_bw", "", &found);
		T_EQ_INT("caldev-2.4 link_bw not stored (a rank failed)", found, 0);
		ceiling(db, "memory_bw", "", &found);
		T_EQ_INT("caldev-2.5 memory_bw stored", found, 1);
	}
	if (rank == 0) {
		char cmd[256];
		snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", dir);
	}
	MPI_Finalize();
	T_DONE();
}

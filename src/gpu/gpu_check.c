/* gpu_check.c: the check done on the device (gpu_check.h): the inputs
 * filled where they live and every element of each run's output compared
 * with a reference made once per problem, so no output crosses to the
 * host. The reference is want = A x B and scale = |A| x |B| of this rank's
 * C shard over the whole K, by the vendor GEMM in true fp32 (its error is
 * in check_tolerance_reference; the runner verifies rows of it against the
 * exact values through reference_rows). A and B for it are fp32 copies of
 * the inputs, made by the same fill kernel as the heap's, so they are the
 * heap's values exactly. */
#include "gpu/gpu_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fgo.h"
#include "gpu/gpu_jit.h"
#include "gpu/gpu_vendor.h"

#define CHECK_SOURCE "kernels/check.hip"
#define CHECK_THREADS 256 /* threads per CTA of every check kernel (-DCHECK_THREADS), a power of two */
/* CTAs per SM in a grid: 8 x 256 threads fill an SM, enough loads in
 * flight for a memory-bound kernel, and few CTAs overall so the compare's
 * per-CTA atomics cost nothing; the kernels loop over the rest. */
#define CTAS_PER_SM 8
/* Columns of a row per thread in the compare (kernels/check.hip's
 * CHECK_UNROLL: its loads in flight) */
#define COMPARE_COLS 4
#define MIB (1024.0 * 1024.0)

#if defined(FGO_GPU_CUDA)
/* not in hip_port.h's seam: only used here */
#define check_mem_info cudaMemGetInfo
#define check_clear_error cudaGetLastError
#else
#define check_mem_info hipMemGetInfo
#define check_clear_error hipGetLastError
#endif

#define CHECK FGO_HIP_CHECK

struct gpu_check {
	char arch[16];
	int sms;
	hipStream_t stream;
	struct gpu_vendor *vendor;
	hipModule_t module; /* kernels/check.hip, loaded on first use */
	hipFunction_t fill, poison, compare, spin;
	unsigned long long *result; /* device: the compare's 5 words */
	unsigned long long start[5], got[5]; /* host: its start values, its answer */
	/* the kept reference: rows x cols, row-major, contiguous; valid only
	 * after a reference_make that succeeded, for its shard, K and dtype */
	float *want, *scale;
	size_t elems; /* floats in each of want and scale */
	long row0, col0, rows, cols, k;
	enum fgo_dtype dtype;
	int valid;
};

int gpu_check_open(struct gpu_check **out, const char *arch, int sms, hipStream_t stream,
		   struct gpu_vendor *vendor, char *err, size_t len)
{
	struct gpu_check *c = calloc(1, sizeof *c);
	*out = c;
	if (!c) {
		snprintf(err, len, "out of memory");
		return FGO_EFAIL;
	}
	snprintf(c->arch, sizeof c->arch, "%s", arch);
	c->sms = sms > 0 ? sms : 64; /* unknown: a guess that still fills a GPU */
	c->stream = stream;
	c->vendor = vendor;
	return FGO_OK;
}

static void free_reference(struct gpu_check *c)
{
	hipFree(c->want);
	hipFree(c->scale);
	c->want = c->scale = NULL;
	c->elems = 0;
	c->valid = 0;
}

void gpu_check_close(struct gpu_check *c)
{
	if (!c)
		return;
	hipStreamSynchronize(c->stream);
	free_reference(c);
	hipFree(c->result);
	if (c->module)
		hipModuleUnload(c->module);
	free(c);
}

/* Compiles (or takes from the kernel cache) and loads kernels/check.hip,
 * once per process; allocates the compare's result words. */
static int load(struct gpu_check *c, char *err, size_t len)
{
	char defines[64];

	if (c->module)
		return FGO_OK;
	snprintf(defines, sizeof defines, "-DCHECK_THREADS=%d", CHECK_THREADS);
	if (gpu_jit_load(CHECK_SOURCE, defines, c->arch, &c->module, err, len) != FGO_OK)
		return FGO_EFAIL;
	if (gpu_jit_function(c->module, CHECK_SOURCE, "fgo_check_fill", &c->fill, err, len) ||
	    gpu_jit_function(c->module, CHECK_SOURCE, "fgo_check_poison", &c->poison, err, len) ||
	    gpu_jit_function(c->module, CHECK_SOURCE, "fgo_check_compare", &c->compare, err, len) ||
	    gpu_jit_function(c->module, CHECK_SOURCE, "fgo_check_spin", &c->spin, err, len)) {
		hipModuleUnload(c->module);
		c->module = NULL;
		return FGO_EFAIL;
	}
	if (!c->result)
		CHECK(hipMalloc((void **)&c->result, sizeof c->start), "allocating the check's result");
	return FGO_OK;
}

/* The grid of a kernel over rows x cols (x: columns in CTAs of
 * CHECK_THREADS, per columns of a row each thread, y: rows), at most
 * CTAS_PER_SM CTAs per SM in all. */
static void grid_2d(const struct gpu_check *c, long rows, long cols, long per, unsigned int *gx,
		    unsigned int *gy)
{
	long most = (long)c->sms * CTAS_PER_SM;
	long x = (cols + CHECK_THREADS * per - 1) / (CHECK_THREADS * per), y;
	if (x > most)
		x = most;
	if (x < 1)
		x = 1;
	y = most / x;
	if (y > rows)
		y = rows;
	if (y > 65535) /* gridDim.y's limit */
		y = 65535;
	if (y < 1)
		y = 1;
	*gx = (unsigned int)x;
	*gy = (unsigned int)y;
}

static int launch(struct gpu_check *c, hipFunction_t fn, const char *what, unsigned int gx,
		  unsigned int gy, void **args, char *err, size_t len)
{
	fgo_drv_result r = hipModuleLaunchKernel(fn, gx, gy, 1, CHECK_THREADS, 1, 1, 0, c->stream,
						 args, NULL);
	if (fgo_cu(r) != hipSuccess) {
		snprintf(err, len, "launching %s failed: %s", what, fgo_cu_text(r));
		return FGO_EFAIL;
	}
	return FGO_OK;
}

/* Enqueues the fill of dst (rows x cols, ld; global origin row0, col0) with
 * operand which's inputs in dtype in, stored as out, |v| when absolute. */
static int fill(struct gpu_check *c, void *dst, long rows, long cols, long ld, long row0,
		long col0, uint64_t seed, enum fgo_operand which, enum fgo_dtype in,
		enum fgo_dtype out, int absolute, char *err, size_t len)
{
	unsigned long long s = seed;
	int w = (int)which, t_in = (int)in, t_out = (int)out;
	unsigned int gx, gy;
	void *args[] = { &dst, &rows, &cols, &ld, &row0, &col0, &s, &w, &t_in, &t_out, &absolute };
	if (rows <= 0 || ld <= 0)
		return FGO_OK;
	grid_2d(c, rows, ld, 1, &gx, &gy);
	return launch(c, c->fill, "the input fill kernel", gx, gy, args, err, len);
}

int gpu_check_spin(struct gpu_check *c, unsigned long long ns, char *err, size_t len)
{
	if (load(c, err, len) != FGO_OK)
		return FGO_EFAIL;
	void *args[] = { &ns };
	fgo_drv_result r = hipModuleLaunchKernel(c->spin, 1, 1, 1, 1, 1, 1, 0, c->stream, args, NULL);
	if (fgo_cu(r) != hipSuccess) {
		snprintf(err, len, "launching the planted delay failed: %s", fgo_cu_text(r));
		return FGO_EFAIL;
	}
	return FGO_OK;
}

int gpu_check_inputs_fill(struct gpu_check *c, char *heap, const struct fgo_config *cfg,
			  const struct fgo_layout *lay, uint64_t seed, char *err, size_t len)
{
	const struct fgo_matrix *a = &lay->a, *b = &lay->b;
	int rc;
	if ((rc = load(c, err, len)) != FGO_OK ||
	    (rc = fill(c, heap + a->offset, a->rows, a->cols, a->ld, a->row0, a->col0, seed, FGO_A,
		       cfg->dtype, cfg->dtype, 0, err, len)) != FGO_OK ||
	    (rc = fill(c, heap + b->offset, b->rows, b->cols, b->ld, b->row0, b->col0, seed, FGO_B,
		       cfg->dtype, cfg->dtype, 0, err, len)) != FGO_OK)
		return rc;
	CHECK(hipStreamSynchronize(c->stream), "filling the inputs");
	return FGO_OK;
}

int gpu_check_output_poison(struct gpu_check *c, char *heap, const struct fgo_config *cfg,
			    const struct fgo_layout *lay, char *err, size_t len)
{
	unsigned long long n = (unsigned long long)lay->c.rows * (unsigned long long)lay->c.ld;
	unsigned long long ctas = (n + CHECK_THREADS - 1) / CHECK_THREADS,
			   most = (unsigned long long)c->sms * CTAS_PER_SM;
	int dtype = (int)cfg->dtype, rc;
	void *dst = heap + lay->c.offset;
	void *args[] = { &dst, &n, &dtype };
	if (lay->c.rows <= 0 || lay->c.ld <= 0)
		return FGO_OK;
	if ((rc = load(c, err, len)) != FGO_OK ||
	    (rc = launch(c, c->poison, "the poison kernel", (unsigned int)(ctas < most ? ctas : most),
			 1, args, err, len)) != FGO_OK)
		return rc;
	CHECK(hipStreamSynchronize(c->stream), "poisoning the output");
	return FGO_OK;
}

double gpu_check_reference_bytes(const struct fgo_config *cfg, const struct fgo_layout *lay)
{
	double rows = (double)lay->c.rows, cols = (double)lay->c.cols, k = (double)cfg->k;
	/* want and scale kept, plus the fp32 copies of A's rows and B's
	 * columns while making them */
	return 8.0 * rows * cols + 4.0 * (rows * k + k * cols);
}

/* The reference's device buffers: want and scale (unless kept from a
 * reference of the same size) and the fp32 copies a (rows x K), b (K x
 * cols). FGO_EUSAGE when they do not fit in what is free. */
static int reference_alloc(struct gpu_check *c, const struct fgo_config *cfg,
			   const struct fgo_layout *lay, float **a, float **b, char *err, size_t len)
{
	const size_t rows = (size_t)lay->c.rows, cols = (size_t)lay->c.cols, k = (size_t)cfg->k;
	const size_t out = rows * cols * sizeof(float);
	size_t free_bytes = 0, total = 0, held;
	int ok;

	if (c->want && c->elems != rows * cols)
		free_reference(c);
	held = c->want ? 2 * out : 0;
	CHECK(check_mem_info(&free_bytes, &total), "reading the GPU's free memory");
	/* asked first, so a reference that cannot fit allocates nothing */
	ok = gpu_check_reference_bytes(cfg, lay) - (double)held <= (double)free_bytes;
	if (ok && !c->want)
		ok = hipMalloc((void **)&c->want, out) == hipSuccess &&
		     hipMalloc((void **)&c->scale, out) == hipSuccess;
	if (ok)
		c->elems = rows * cols;
	ok = ok && hipMalloc((void **)a, rows * k * sizeof(float)) == hipSuccess &&
	     hipMalloc((void **)b, k * cols * sizeof(float)) == hipSuccess;
	if (!ok) {
		/* a failed hipMalloc stays the runtime's last error, which a
		 * library (cuBLAS) may read after its next launch */
		(void)check_clear_error();
		hipFree(*a);
		hipFree(*b);
		*a = *b = NULL;
		free_reference(c);
		snprintf(err, len,
			 "the reference of this problem needs %.0f MiB of GPU memory, more than is"
			 " free (%.0f MiB)",
			 gpu_check_reference_bytes(cfg, lay) / MIB, (double)(free_bytes + held) / MIB);
		return FGO_EUSAGE;
	}
	return FGO_OK;
}

/* Enqueues one half of the reference: the fp32 copies of A's rows and B's
 * columns of the C shard m over all of K (|values| when absolute), then
 * into dst their product by the vendor GEMM in true fp32. */
static int reference_half(struct gpu_check *c, const struct fgo_config *cfg,
			  const struct fgo_matrix *m, uint64_t seed, float *a, float *b, int absolute,
			  float *dst, char *err, size_t len)
{
	const long k = cfg->k;
	int rc;
	if ((rc = fill(c, a, m->rows, k, k, m->row0, 0, seed, FGO_A, cfg->dtype, FGO_FP32, absolute,
		       err, len)) != FGO_OK ||
	    (rc = fill(c, b, k, m->cols, m->cols, 0, m->col0, seed, FGO_B, cfg->dtype, FGO_FP32,
		       absolute, err, len)) != FGO_OK)
		return rc;
	return gpu_vendor_gemm(c->vendor, FGO_FP32, m->rows, m->cols, k, a, k, b, m->cols, dst,
			       m->cols, err, len);
}

int gpu_check_reference_make(struct gpu_check *c, const struct fgo_config *cfg,
			     const struct fgo_layout *lay, uint64_t seed, char *err, size_t len)
{
	const struct fgo_matrix *m = &lay->c;
	float *a = NULL, *b = NULL;
	hipError_t e;
	int rc;

	c->valid = 0; /* replaced even when this one fails */
	if (cfg->k < 1) {
		snprintf(err, len, "the reference needs K >= 1 (K = %ld)", cfg->k);
		return FGO_EFAIL;
	}
	if ((rc = load(c, err, len)) != FGO_OK)
		return rc;
	if (m->rows > 0 && m->cols > 0) {
		if ((rc = reference_alloc(c, cfg, lay, &a, &b, err, len)) != FGO_OK)
			return rc;
		rc = reference_half(c, cfg, m, seed, a, b, 0, c->want, err, len);
		if (rc == FGO_OK)
			rc = reference_half(c, cfg, m, seed, a, b, 1, c->scale, err, len);
		/* whatever was enqueued finishes before its buffers go */
		e = hipStreamSynchronize(c->stream);
		hipFree(a);
		hipFree(b);
		if (rc != FGO_OK)
			return rc;
		CHECK(e, "making the reference");
	}
	c->row0 = m->row0;
	c->col0 = m->col0;
	c->rows = m->rows;
	c->cols = m->cols;
	c->k = cfg->k;
	c->dtype = cfg->dtype;
	c->valid = 1;
	return FGO_OK;
}

int gpu_check_reference_rows(struct gpu_check *c, const long *rows, long count, float *want,
			     float *scale, char *err, size_t len)
{
	const size_t bytes = (size_t)c->cols * sizeof(float);
	if (!c->valid) {
		snprintf(err, len, "no reference is kept (reference_make did not succeed)");
		return FGO_EFAIL;
	}
	for (long i = 0; i < count; i++) {
		const long r = rows[i];
		const size_t at = (size_t)r * (size_t)c->cols;
		if (r < 0 || r >= c->rows) {
			snprintf(err, len, "row %ld is outside the reference's %ld rows", r, c->rows);
			return FGO_EFAIL;
		}
		CHECK(hipMemcpy(want + (size_t)i * (size_t)c->cols, c->want + at, bytes,
				hipMemcpyDeviceToHost),
		      "reading the reference");
		CHECK(hipMemcpy(scale + (size_t)i * (size_t)c->cols, c->scale + at, bytes,
				hipMemcpyDeviceToHost),
		      "reading the reference");
	}
	return FGO_OK;
}

static double bits_double(unsigned long long u)
{
	double d;
	memcpy(&d, &u, sizeof d);
	return d;
}

int gpu_check_output_compare(struct gpu_check *c, const char *heap, const struct fgo_config *cfg,
			     const struct fgo_layout *lay, double tol, struct fgo_check *res,
			     char *err, size_t len)
{
	const struct fgo_matrix *m = &lay->c;
	const void *got = heap + m->offset;
	long rows = m->rows, cols = m->cols, ld = m->ld;
	int dtype = (int)cfg->dtype, rc;
	unsigned int gx, gy;
	void *args[] = { &got, &dtype, &rows, &cols, &ld, &c->want, &c->scale, &tol, &c->result };

	check_init(res);
	if (!c->valid || c->row0 != m->row0 || c->col0 != m->col0 || c->rows != rows ||
	    c->cols != cols || c->k != cfg->k || c->dtype != cfg->dtype) {
		snprintf(err, len, "no reference of this output shard (%ld x %ld at %ld, %ld, K = %ld, %s)"
			 " is kept", rows, cols, m->row0, m->col0, cfg->k, dtype_name(cfg->dtype));
		return FGO_EFAIL;
	}
	if (rows <= 0 || cols <= 0)
		return FGO_OK;
	if ((rc = load(c, err, len)) != FGO_OK)
		return rc;
	/* counts and maxima from zero, the first bad index from "none" */
	c->start[0] = c->start[1] = c->start[2] = 0;
	c->start[3] = ~0ull;
	c->start[4] = 0;
	CHECK(hipMemcpyAsync(c->result, c->start, sizeof c->start, hipMemcpyHostToDevice, c->stream),
	      "resetting the check's result");
	grid_2d(c, rows, cols, COMPARE_COLS, &gx, &gy);
	if ((rc = launch(c, c->compare, "the compare kernel", gx, gy, args, err, len)) != FGO_OK)
		return rc;
	CHECK(hipMemcpyAsync(c->got, c->result, sizeof c->got, hipMemcpyDeviceToHost, c->stream),
	      "reading the check's result");
	CHECK(hipStreamSynchronize(c->stream), "comparing the output");
	res->checked = rows * cols;
	res->bad = (long)c->got[0];
	res->max_abs_err = bits_double(c->got[1]);
	res->max_rel_err = bits_double(c->got[2]);
	res->digest = c->got[4];
	if (c->got[3] != ~0ull) {
		res->first_bad_row = m->row0 + (long)(c->got[3] / (unsigned long long)cols);
		res->first_bad_col = m->col0 + (long)(c->got[3] % (unsigned long long)cols);
	}
	return FGO_OK;
}

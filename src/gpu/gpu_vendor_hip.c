/* gpu_vendor_hip.c: the AMD vendor of gpu_vendor.c: rocBLAS for the GEMM,
 * RCCL for the collective, both loaded with dlopen when the backend starts
 * (ROCm's math and communication libraries are not needed to build, and a
 * machine without them still runs everything but the baseline, which then
 * fails with the reason). rocBLAS is called through its C API; the few
 * types and entry points used are declared here as in rocblas.h (ROCm 5
 * and 6): every call returns a rocblas_status, 0 being success, and the
 * enums are passed as int. Exports gpu_vendor_ops. HIP builds only. */
#if defined(FGO_GPU_HIP)
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fgo.h"
#include "gpu/gpu_vendor.h"

typedef int rocblas_status;                      /* 0: rocblas_status_success */
typedef struct rocblas_handle_ *rocblas_handle;  /* _rocblas_handle * */

enum {
	ROCBLAS_OPERATION_NONE = 111,  /* rocblas_operation */
	ROCBLAS_F16_R = 150,           /* rocblas_datatype */
	ROCBLAS_F32_R = 151,
	ROCBLAS_BF16_R = 168,
	ROCBLAS_GEMM_ALGO_STANDARD = 0, /* rocblas_gemm_algo */
};

struct rocblas_api {
	rocblas_status (*create_handle)(rocblas_handle *h);
	rocblas_status (*destroy_handle)(rocblas_handle h);
	rocblas_status (*set_stream)(rocblas_handle h, hipStream_t stream);
	/* D = alpha op(A) op(B) + beta C, column-major; C and D may be one buffer */
	rocblas_status (*gemm_ex)(rocblas_handle h, int trans_a, int trans_b, int32_t m, int32_t n,
				  int32_t k, const void *alpha, const void *a, int a_type,
				  int32_t lda, const void *b, int b_type, int32_t ldb,
				  const void *beta, const void *c, int c_type, int32_t ldc, void *d,
				  int d_type, int32_t ldd, int compute_type, int algo,
				  int32_t solution_index, uint32_t flags);
	rocblas_status (*version_string)(char *buf, size_t len); /* optional */
	const char *(*status_string)(rocblas_status s);          /* optional */
};

/* One handle: the library stays loaded while the handle lives. */
struct rocblas {
	void *lib;
	struct rocblas_api api;
	rocblas_handle h;
};

/* The names rocBLAS is found under: ROCm 6 (.so.4), ROCm 5 (.so.0), the
 * development link, then ROCm's default folder when the loader was not told. */
static const char *const rocblas_files[] = {
	"librocblas.so.4", "librocblas.so.0", "librocblas.so",
	"/opt/rocm/lib/librocblas.so.4", "/opt/rocm/lib/librocblas.so.0", NULL,
};

static const char *const rccl_files[] = {
	"librccl.so.1", "librccl.so", "/opt/rocm/lib/librccl.so.1", NULL,
};

static const char *status_text(const struct rocblas *r, rocblas_status s)
{
	const char *t = r->api.status_string ? r->api.status_string(s) : NULL;
	return t ? t : "error";
}

static int rocblas_type(enum fgo_dtype t)
{
	return t == FGO_FP32 ? ROCBLAS_F32_R : t == FGO_FP16 ? ROCBLAS_F16_R : ROCBLAS_BF16_R;
}

static void rocblas_close(void *handle)
{
	struct rocblas *r = handle;
	if (!r)
		return;
	if (r->h)
		r->api.destroy_handle(r->h);
	dlclose(r->lib);
	free(r);
}

static int rocblas_open(void **handle, hipStream_t stream, char *version, size_t vlen, char *err,
			size_t len)
{
	struct rocblas *r = calloc(1, sizeof *r);
	rocblas_status s;

	*handle = NULL;
	if (!r) {
		snprintf(err, len, "out of memory");
		return FGO_EFAIL;
	}
	for (const char *const *f = rocblas_files; *f && !r->lib; f++)
		r->lib = dlopen(*f, RTLD_NOW | RTLD_LOCAL);
	if (!r->lib) {
		snprintf(err, len, "librocblas.so (rocBLAS) was not found"
			 " (put ROCm's lib folder on LD_LIBRARY_PATH)");
		free(r);
		return FGO_EFAIL;
	}
	*(void **)&r->api.create_handle = dlsym(r->lib, "rocblas_create_handle");
	*(void **)&r->api.destroy_handle = dlsym(r->lib, "rocblas_destroy_handle");
	*(void **)&r->api.set_stream = dlsym(r->lib, "rocblas_set_stream");
	*(void **)&r->api.gemm_ex = dlsym(r->lib, "rocblas_gemm_ex");
	*(void **)&r->api.version_string = dlsym(r->lib, "rocblas_get_version_string");
	*(void **)&r->api.status_string = dlsym(r->lib, "rocblas_status_to_string");
	if (!r->api.create_handle || !r->api.destroy_handle || !r->api.set_stream ||
	    !r->api.gemm_ex) {
		snprintf(err, len, "librocblas.so lacks rocblas_create_handle, rocblas_set_stream"
			 " or rocblas_gemm_ex");
		rocblas_close(r);
		return FGO_EFAIL;
	}
	if ((s = r->api.create_handle(&r->h)) != 0) {
		r->h = NULL;
		snprintf(err, len, "rocBLAS could not start: %s", status_text(r, s));
		rocblas_close(r);
		return FGO_EFAIL;
	}
	if ((s = r->api.set_stream(r->h, stream)) != 0) {
		snprintf(err, len, "rocBLAS refused the stream: %s", status_text(r, s));
		rocblas_close(r);
		return FGO_EFAIL;
	}
	if (!r->api.version_string || r->api.version_string(version, vlen) != 0)
		snprintf(version, vlen, "?");
	*handle = r;
	return FGO_OK;
}

/* Row-major C = A x B as rocBLAS's column-major C^T = B^T x A^T; fp32
 * compute (rocBLAS's fp32 GEMM is true fp32 unless asked for xf32). */
static int rocblas_gemm(void *handle, enum fgo_dtype t, long m, long n, long k, const void *a,
			long lda, const void *b, long ldb, void *c, long ldc, char *err, size_t len)
{
	struct rocblas *r = handle;
	const float one = 1.f, zero = 0.f;
	int bt = rocblas_type(t);
	rocblas_status s = r->api.gemm_ex(r->h, ROCBLAS_OPERATION_NONE, ROCBLAS_OPERATION_NONE,
					  (int32_t)n, (int32_t)m, (int32_t)k, &one, b, bt,
					  (int32_t)ldb, a, bt, (int32_t)lda, &zero, c, bt,
					  (int32_t)ldc, c, bt, (int32_t)ldc, ROCBLAS_F32_R,
					  ROCBLAS_GEMM_ALGO_STANDARD, 0, 0);
	if (s != 0) {
		snprintf(err, len, "rocblas_gemm_ex failed: %s", status_text(r, s));
		return FGO_EFAIL;
	}
	return FGO_OK;
}

const struct gpu_vendor_ops gpu_vendor_ops = {
	.blas_name = "rocBLAS",
	.coll_name = "RCCL",
	.coll_files = rccl_files,
	.coll_hint = "put librccl.so.1 on LD_LIBRARY_PATH",
	.blas_open = rocblas_open,
	.gemm = rocblas_gemm,
	.blas_close = rocblas_close,
};

#endif
